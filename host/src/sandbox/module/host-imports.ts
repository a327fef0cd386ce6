/** The Extism kernel imports toolgate provides; a module importing anything else from this namespace is refused. */
export const EXTISM_NAMESPACE = 'extism:host/env';
export const WASI_NAMESPACE = 'wasi_snapshot_preview1';
/** WASI imports are renamed to this namespace so the SDK never wires Node's own WASI. */
export const TOOLGATE_WASI_NAMESPACE = 'toolgate:wasi';

/**
 * toolgate's own host functions for a tool's MCP client: each import needs its feature listed in
 * the manifest's capabilities.mcp, or the module is refused at load.
 */
export const CLIENT_NAMESPACE = 'toolgate:mcp';
export const CLIENT_IMPORTS = {
  log: 'logging',
  progress: 'progress',
  elicit: 'elicitation',
  sample: 'sampling',
  roots: 'roots',
} as const;

/**
 * hyper-mcp's host functions (docs/authoring.md, "Host functions of the hyper-mcp interface"),
 * imported from Extism's user namespace: served only to a module.abi hyper-mcp manifest, each
 * needing the capabilities.mcp feature it maps onto, like a toolgate:mcp import.
 */
export const HYPER_NAMESPACE = 'extism:host/user';
export const HYPER_IMPORTS = {
  create_elicitation: 'elicitation',
  create_message: 'sampling',
  list_roots: 'roots',
  notify_logging_message: 'logging',
  notify_progress: 'progress',
  notify_tool_list_changed: 'notifications',
  notify_resource_list_changed: 'notifications',
  notify_prompt_list_changed: 'notifications',
  notify_resource_updated: 'notifications',
  notify_url_elicitation_completed: 'elicitation',
} as const;
export type HyperImportName = keyof typeof HYPER_IMPORTS;
/** A client import: a toolgate:mcp name, or a hyper-mcp name (the two sets do not overlap). */
export type ClientImportName = keyof typeof CLIENT_IMPORTS | HyperImportName;
export const CLIENT_IMPORT_NAMES = [...Object.keys(CLIENT_IMPORTS), ...Object.keys(HYPER_IMPORTS)] as [
  ClientImportName,
  ...ClientImportName[],
];

export const isHyperImport = (name: ClientImportName): name is HyperImportName => Object.hasOwn(HYPER_IMPORTS, name);
/** The manifest feature an import needs. */
export const importFeature = (
  name: ClientImportName,
): (typeof CLIENT_IMPORTS)[keyof typeof CLIENT_IMPORTS] | 'notifications' =>
  isHyperImport(name) ? HYPER_IMPORTS[name] : CLIENT_IMPORTS[name];
/** "namespace.name", as errors name an import. */
export const importLabel = (name: ClientImportName): string =>
  `${isHyperImport(name) ? HYPER_NAMESPACE : CLIENT_NAMESPACE}.${name}`;

/**
 * The host interface of toolgate's world (pdk-examples/js/lib/world.wit): what the core module of a
 * module.abi: component tool may import, and nothing else (worker/component-runner.ts serves it).
 */
export const COMPONENT_HOST_NAMESPACE = 'toolgate:tool/host@0.1.0';
export const COMPONENT_HOST_IMPORTS: readonly string[] = ['http-request', 'log', 'config-get'];
/** The world's export in the core module, and what frees its result (the canonical ABI's post-return). */
export const COMPONENT_CALL_EXPORT = 'call';
export const COMPONENT_POST_CALL_EXPORT = 'cabi_post_call';
export const COMPONENT_REALLOC_EXPORT = 'cabi_realloc';

export const EXTISM_IMPORT_NAMES: readonly string[] = [
  'alloc',
  'free',
  'load_u8',
  'load_u64',
  'store_u8',
  'store_u64',
  'input_offset',
  'input_length',
  'input_load_u8',
  'input_load_u64',
  'output_set',
  'error_set',
  'error_get',
  'config_get',
  'var_get',
  'var_set',
  'http_request',
  'http_status_code',
  'http_headers',
  'length',
  'length_unsafe',
  'log_warn',
  'log_info',
  'log_debug',
  'log_error',
  'log_trace',
  'get_log_level',
];

/** Exports toolgate adds to a module; a module may not define names in this space itself. */
export const EXPORT_PREFIX = 'toolgate:';
export const ENTRY_EXPORT = 'toolgate:entry';
export const STATUS_EXPORT = 'toolgate:status';
export const MEMORY_EXPORT = 'toolgate:memory';
export const INITIALIZE_EXPORT = 'toolgate:_initialize';
export const START_EXPORT = 'toolgate:_start';
export const HS_INIT_EXPORT = 'toolgate:hs_init';

/** The host check an instrumented module calls when its fuel runs out (module/preempt.ts). */
export const PREEMPT_NAMESPACE = 'toolgate:preempt';
export const PREEMPT_CHECK = 'check';
