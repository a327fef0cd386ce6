// module.abi: hyper-mcp (docs/authoring.md, "The hyper-mcp interface"): a module that describes
// its own tools and, in the v2 interface, resources, resource templates, prompts and completions.
// The interface is told apart by the exports: `describe` and `call` (v1), else v2 (`list_tools`,
// `call_tool`, `list_resources`, `list_resource_templates`, `read_resource`, `list_prompts`,
// `get_prompt`, `complete`). Each export the host calls is one sandbox tool over the same module,
// under the manifest's one grant; everything the module describes is validated here at load, and
// every result it returns when called.
//
// Served names (docs/decisions.md, "Served names of module tools"): a module tool `t` of plugin
// `p` is the tool `p__t`; the plugin's operations are `p__resources__read`, `p__prompts__get` and
// `p__completion__complete` (a module tool name has no `__`, so neither kind can take the other's).
import { z } from 'zod';
import { loadSandboxTool, SandboxLoadError, type SandboxCallOptions, type SandboxTool } from '../sandbox/index.js';
import {
  defineTool,
  jsonSchemaProblem,
  modelView,
  RESOURCE_URI_CHARS,
  TOOL_NAME_RE,
  ToolFailure,
  type Json,
  type JsonObject,
  type ModelToolView,
  type ServedItem,
  type ServedSurface,
  type ToolAnnotations,
  type ToolDefinition,
} from '../tool/index.js';
import { hiddenTextProblem, shownTextProblem } from '../terminal/index.js';
import { sandboxCallOptions, sandboxSpecFor, type BridgeOptions } from './bridge.js';
import { manifestDefinition } from './definition.js';
import { ManifestError, formatKeyPath, type ManifestIssue } from './errors.js';
import type { LoadedManifest } from './load.js';
import { schemaTextIssues } from './shown-text.js';
import { decodeOutput } from './wire.js';
import {
  changedParts,
  DESCRIBED_KINDS,
  describedPinFile,
  describedTextOf,
  type DescribedKind,
  type DescribedText,
} from './described-text.js';
import { messageOf } from '../errors/index.js';
import { linearRegex, type LinearRegex } from '../regex/index.js';
import { pluginNoticeLimit, type NoticeLimit } from './notice-limit.js';

export type HyperMcpInterface = 'v1' | 'v2';

/** Caps on what a module may describe and return (docs/authoring.md lists them). */
export const HYPER_MCP_BOUNDS = Object.freeze({
  maxTools: 128,
  maxResources: 512,
  maxResourceTemplates: 128,
  maxPrompts: 128,
  maxPromptArguments: 32,
  maxDescriptionChars: 4096,
  maxTitleChars: 256,
  maxUriChars: RESOURCE_URI_CHARS,
  maxSchemaBytes: 64 * 1024,
  maxContents: 64,
  maxMessages: 128,
  maxCompletionValues: 100,
  maxCompletionValueChars: 1024,
});

/**
 * Caps on what a client names in a read or a completion (a URI, a prompt or argument name, the
 * value typed so far, the arguments already given), held by the server before any lookup and by
 * each operation's input schema: matching a URI against the templates runs on the main thread in
 * time linear in its length (docs/decisions.md, "Red team round: completions and what else a
 * client names").
 */
export const CLIENT_REQUEST_BOUNDS = Object.freeze({
  uriChars: HYPER_MCP_BOUNDS.maxUriChars,
  nameChars: 128,
  valueChars: 4096,
  contextArguments: HYPER_MCP_BOUNDS.maxPromptArguments,
});

/** Served names must fit MCP's and the model APIs' tool-name rules (TOOL_NAME_RE, 64 characters). */
export const SERVED_SEPARATOR = '__';
export const servedToolName = (plugin: string, tool: string): string => `${plugin}${SERVED_SEPARATOR}${tool}`;
export const operationNames = (plugin: string) => ({
  read: `${plugin}__resources__read`,
  get: `${plugin}__prompts__get`,
  complete: `${plugin}__completion__complete`,
});

/** The exports that describe (run at load only). */
const LIST_EXPORTS = ['describe', 'list_tools', 'list_resources', 'list_resource_templates', 'list_prompts'] as const;
const V2_EXPORTS = [
  'list_tools',
  'call_tool',
  'list_resources',
  'list_resource_templates',
  'read_resource',
  'list_prompts',
  'get_prompt',
  'complete',
] as const;

/** v1 when the module exports both `describe` and `call` (as hyper-mcp tells them apart), else v2. */
export function hyperMcpInterface(exports: readonly string[]): HyperMcpInterface | undefined {
  if (exports.includes('describe') && exports.includes('call')) return 'v1';
  return V2_EXPORTS.some((e) => exports.includes(e)) ? 'v2' : undefined;
}

async function functionExports(wasm: Uint8Array): Promise<string[]> {
  const mod = await WebAssembly.compile(wasm);
  return WebAssembly.Module.exports(mod)
    .filter((e) => e.kind === 'function')
    .map((e) => e.name);
}

// ---- what the module returns, checked with zod (unknown keys are dropped, never passed on)

const shown = (max: number, multiline = false) =>
  z
    .string()
    .max(max)
    .superRefine((s, ctx) => {
      const problem = multiline ? shownTextProblem(s, { multiline: true }) : hiddenTextProblem(s);
      if (problem !== undefined) ctx.addIssue({ code: 'custom', message: problem });
    });
const B = HYPER_MCP_BOUNDS;
/**
 * Optional members a module sends as null (serde without skip_serializing_if, xtp's generated
 * types) mean "absent": dropped at this level before the shape is checked. Only object members,
 * one level, so a null inside a schema (`default: null`) or an argument keeps its meaning.
 */
const dropNulls = (v: unknown): unknown =>
  v !== null && typeof v === 'object' && !Array.isArray(v)
    ? Object.fromEntries(Object.entries(v).filter(([, x]) => x !== null))
    : v;
const lenient = <T extends z.ZodType>(schema: T) => z.preprocess(dropNulls, schema);
/**
 * The shapes of what a module returns, built on the first hyper-mcp module: a start that serves
 * none does not pay for their construction (docs/decisions.md, "First call of a fresh server, warm
 * home").
 */
function buildShapes() {
  const jsonObject = z.record(z.string(), z.json()) as unknown as z.ZodType<JsonObject>;
  const base64 = z.string().regex(/^[A-Za-z0-9+/]*={0,2}$/, 'must be base64');
  const uri = shown(B.maxUriChars).min(1);
  const mimeType = shown(255).min(1);
  const itemAnnotations = lenient(
    z.object({
      audience: z
        .array(z.enum(['user', 'assistant']))
        .max(2)
        .optional(),
      priority: z.number().min(0).max(1).optional(),
      lastModified: z.string().max(64).optional(),
    }),
  ).optional();

  const toolAnnotations = lenient(
    z.object({
      title: shown(B.maxTitleChars).optional(),
      readOnlyHint: z.boolean().optional(),
      destructiveHint: z.boolean().optional(),
      idempotentHint: z.boolean().optional(),
      openWorldHint: z.boolean().optional(),
    }),
  );

  const describedTool = lenient(
    z.object({
      name: z.string().min(1).max(64),
      title: shown(B.maxTitleChars).optional(),
      description: shown(B.maxDescriptionChars, true).optional(),
      inputSchema: jsonObject,
      outputSchema: jsonObject.optional(),
      annotations: toolAnnotations.optional(),
    }),
  );
  const listTools = z.object({ tools: z.array(z.unknown()).max(B.maxTools, `must list at most ${B.maxTools} tools`) });

  const resource = lenient(
    z.object({
      uri,
      name: shown(256).min(1),
      title: shown(B.maxTitleChars).optional(),
      description: shown(B.maxDescriptionChars, true).optional(),
      mimeType: mimeType.optional(),
      size: z.number().int().min(0).optional(),
      annotations: itemAnnotations,
    }),
  );
  const resourceTemplate = lenient(
    z.object({
      uriTemplate: uri,
      name: shown(256).min(1),
      title: shown(B.maxTitleChars).optional(),
      description: shown(B.maxDescriptionChars, true).optional(),
      mimeType: mimeType.optional(),
      annotations: itemAnnotations,
    }),
  );
  const prompt = lenient(
    z.object({
      name: shown(128).min(1),
      title: shown(B.maxTitleChars).optional(),
      description: shown(B.maxDescriptionChars, true).optional(),
      arguments: z
        .array(
          lenient(
            z.object({
              name: shown(128).min(1),
              title: shown(B.maxTitleChars).optional(),
              description: shown(B.maxDescriptionChars, true).optional(),
              required: z.boolean().optional(),
            }),
          ),
        )
        .max(B.maxPromptArguments)
        .optional(),
    }),
  );
  const listOf = (key: string, max: number) =>
    z.object({ [key]: z.array(z.unknown()).max(max, `must list at most ${max} items`) });

  const resourceContents = lenient(
    z.union([
      z.object({ uri, mimeType: mimeType.optional(), text: z.string() }),
      z.object({ uri, mimeType: mimeType.optional(), blob: base64 }),
    ]),
  );
  const contentBlock = lenient(
    z.discriminatedUnion('type', [
      z.object({ type: z.literal('text'), text: z.string() }),
      z.object({ type: z.literal('image'), data: base64, mimeType }),
      z.object({ type: z.literal('audio'), data: base64, mimeType }),
      z.object({ type: z.literal('resource'), resource: resourceContents }),
      z.object({
        type: z.literal('resource_link'),
        uri,
        name: shown(256).min(1),
        title: shown(B.maxTitleChars).optional(),
        description: z.string().optional(),
        mimeType: mimeType.optional(),
      }),
    ]),
  );
  const callToolResult = lenient(
    z.object({
      content: z.array(contentBlock).max(1024).default([]),
      isError: z.boolean().optional(),
      structuredContent: jsonObject.optional(),
    }),
  );
  const readResourceResult = z.object({ contents: z.array(resourceContents).max(B.maxContents) });
  const getPromptResult = lenient(
    z.object({
      description: shown(B.maxDescriptionChars, true).optional(),
      messages: z.array(z.object({ role: z.enum(['user', 'assistant']), content: contentBlock })).max(B.maxMessages),
    }),
  );
  const completeResult = z.object({
    completion: lenient(
      z.object({
        // a client shows the values and inserts the one picked as it is: refused, not spelled
        values: z.array(shown(B.maxCompletionValueChars)).max(B.maxCompletionValues),
        total: z.number().int().min(0).optional(),
        hasMore: z.boolean().optional(),
      }),
    ),
  });
  return {
    describedTool,
    listTools,
    resource,
    resourceTemplate,
    prompt,
    listOf,
    callToolResult,
    readResourceResult,
    getPromptResult,
    completeResult,
  };
}

let builtShapes: ReturnType<typeof buildShapes> | undefined;
const shapes = (): ReturnType<typeof buildShapes> => (builtShapes ??= buildShapes());
type DescribedTool = z.infer<ReturnType<typeof buildShapes>['describedTool']>;

function zodReason(err: z.ZodError): string {
  const issue = err.issues[0];
  const where = issue === undefined || issue.path.length === 0 ? '' : `${formatKeyPath(issue.path as PropertyKey[])}: `;
  return `${where}${issue?.message ?? 'is invalid'}`;
}

/** A module result checked against its shape; a bad one is the module's fault (TOOL_ERROR). */
function checked<T>(schema: z.ZodType<T>, value: unknown, what: string): T {
  const r = schema.safeParse(value);
  if (!r.success)
    throw new ToolFailure('TOOL_ERROR', `the module's ${what} result is malformed: ${zodReason(r.error)}`);
  return r.data;
}

// ---- the exports, each one sandbox tool over the module

const encoder = new TextEncoder();

class ModuleExports {
  readonly #loaded: LoadedManifest;
  readonly #opts: BridgeOptions;
  readonly #sandboxes = new Map<string, Promise<SandboxTool>>();
  readonly exports: ReadonlySet<string>;
  /** Every call of the plugin shares one bound on the notices it sends its clients. */
  readonly notices: NoticeLimit;
  #closed = false;

  constructor(loaded: LoadedManifest, opts: BridgeOptions, exports: readonly string[]) {
    this.#loaded = loaded;
    this.#opts = opts;
    this.exports = new Set(exports);
    this.notices = pluginNoticeLimit(loaded.manifest.name, opts.logger);
  }

  #sandbox(entry: string): Promise<SandboxTool> {
    let s = this.#sandboxes.get(entry);
    if (s === undefined) {
      const { spec } = sandboxSpecFor(this.#loaded, this.#opts);
      // hyper-mcp's own host functions are served to this module, each behind its capabilities.mcp feature
      s = loadSandboxTool({ ...spec, name: `${this.#loaded.manifest.name}.${entry}`, entry, hyperHostFunctions: true });
      // a refused module stays refused; keep the rejection, but never as an unhandled one
      s.catch(() => {});
      this.#sandboxes.set(entry, s);
    }
    return s;
  }

  /** Runs one export with a JSON payload ('' for v1 describe); its JSON output, or ToolFailure. */
  async call(entry: string, payload: Json | undefined, opts: SandboxCallOptions): Promise<Json> {
    if (this.#closed) throw new ToolFailure('ABORTED', `plugin "${this.#loaded.manifest.name}" is closed`);
    let sandbox: SandboxTool;
    try {
      sandbox = await this.#sandbox(entry);
    } catch (err) {
      const why = err instanceof SandboxLoadError ? `${err.code}: ${err.message}` : messageOf(err);
      throw new ToolFailure('SANDBOX_ERROR', `module ${this.#loaded.modulePath} was refused by the sandbox: ${why}`);
    }
    const input = payload === undefined ? new Uint8Array(0) : encoder.encode(JSON.stringify(payload));
    const output = await sandbox.call(
      input,
      opts.client !== undefined ? { ...opts, client: this.notices.wrap(opts.client) } : opts,
    );
    return decodeOutput(output, 'json');
  }

  /** Closes the sandboxes of these exports (the list exports, done after load); a later call reopens one. */
  async release(entries: readonly string[]): Promise<void> {
    const gone = entries.flatMap((e) => {
      const s = this.#sandboxes.get(e);
      this.#sandboxes.delete(e);
      return s === undefined ? [] : [s];
    });
    await Promise.all(
      gone.map((s) =>
        s.then(
          (t) => t.close(),
          () => undefined,
        ),
      ),
    );
  }

  async close(): Promise<void> {
    this.#closed = true;
    const all = [...this.#sandboxes.values()];
    this.#sandboxes.clear();
    await Promise.all(
      all.map((s) =>
        s.then(
          (t) => t.close(),
          () => undefined,
        ),
      ),
    );
  }
}

// ---- load

/** A hyper-mcp module, described: its tools and operations for the registry, what it serves besides. */
export interface LoadedPlugin {
  plugin: string;
  file: string;
  interface: HyperMcpInterface;
  tools: ToolDefinition[];
  operations: ToolDefinition[];
  surface: ServedSurface | undefined;
  /** What was refused of the description (a tool with a bad name or schema); the rest loads. */
  problems: ManifestError[];
  /**
   * Everything the module described that passed validation, as a model reads it: what the store
   * pins at install. With a pin (LoadedManifest.describedPin), only what matches it is served.
   */
  described: DescribedText;
  /** Closes every sandbox of the module. */
  dispose(): Promise<void>;
}

const context = (id: string): JsonObject => ({ id, _meta: {} });
let loadSeq = 0;

/**
 * Describes the module inside the sandbox under the manifest's limits (a describe that traps or
 * spins is refused within capabilities.timeout_ms), validates what it says, and builds one tool per
 * described tool. Throws ManifestError when nothing can be served; a refused tool is a problem.
 */
export async function pluginFromManifest(loaded: LoadedManifest, opts: BridgeOptions = {}): Promise<LoadedPlugin> {
  const m = loaded.manifest;
  const file = loaded.file;
  let names: string[];
  try {
    names = await functionExports(loaded.wasm);
  } catch (err) {
    throw new ManifestError('MODULE_INVALID', file, [
      {
        path: 'module.path',
        rule: `module ${loaded.modulePath} is not valid WebAssembly: ${messageOf(err).slice(0, 200)}`,
      },
    ]);
  }
  const iface = hyperMcpInterface(names);
  if (iface === undefined) {
    throw new ManifestError('MODULE_INVALID', file, [
      {
        path: 'module.abi',
        rule: `module ${loaded.modulePath} exports neither describe and call (hyper-mcp v1) nor any of ${V2_EXPORTS.join(', ')} (v2)`,
      },
    ]);
  }
  const exportsOf = new ModuleExports(loaded, opts, names);
  const problems: ManifestError[] = [];
  const problem = (issues: ManifestIssue[]) => problems.push(new ManifestError('MODULE_INVALID', file, issues));

  /** One describe-time export call, under the manifest's timeout; refusals name the export. */
  const describe = async (entry: string, payload: Json | undefined): Promise<unknown> => {
    try {
      return await exportsOf.call(entry, payload, { signal: AbortSignal.timeout(m.capabilities.timeout_ms + 1000) });
    } catch (err) {
      const code = err instanceof ToolFailure ? `${err.code}: ` : '';
      throw new ManifestError('SANDBOX_LOAD', file, [
        {
          path: 'module.path',
          rule: `export ${entry} of ${loaded.modulePath} failed at load: ${code}${messageOf(err).slice(0, 300)}`,
        },
      ]);
    }
  };

  try {
    const id = `load-${++loadSeq}`;
    const env: DescribeEnv = { loaded, exportsOf, iface, describe, problem, id };
    const described = await describeTools(env);
    const lists = iface === 'v2' ? await listSurface(env) : { resources: [], resourceTemplates: [], prompts: [] };
    const text = describedTextOf(
      m.name,
      described.map((d) => d.view),
      lists,
    );
    // what a pin holds is served; anything described otherwise since is refused, by name and part
    const kept =
      loaded.describedPin === undefined
        ? { tools: described, lists }
        : keepPinned(loaded, loaded.describedPin, text, described, lists, problems);
    const tools = kept.tools.map((d) => d.def);
    const { surface, operations } =
      iface === 'v2' ? surfaceOf(env, kept.lists) : { surface: undefined, operations: [] };
    if (tools.length === 0 && surface === undefined && problems.length > 0) throw problems[0] as ManifestError;
    // the lists are read once: their instances are not kept for the plugin's lifetime
    await exportsOf.release(LIST_EXPORTS);
    return {
      plugin: m.name,
      file,
      interface: iface,
      tools,
      operations,
      surface,
      problems,
      described: text,
      dispose: () => exportsOf.close(),
    };
  } catch (err) {
    await exportsOf.close();
    throw err;
  }
}

/** What the load steps share: the module, its exports, the describe-time call and the problem sink. */
interface DescribeEnv {
  loaded: LoadedManifest;
  exportsOf: ModuleExports;
  iface: HyperMcpInterface;
  describe: (entry: string, payload: Json | undefined) => Promise<unknown>;
  problem: (issues: ManifestIssue[]) => void;
  id: string;
}

type SurfaceLists = Record<Exclude<DescribedKind, 'tools'>, ServedItem[]>;
interface ToolAndView {
  def: ToolDefinition;
  /** What a model is shown of it (the tool model's own projection). */
  view: ModelToolView;
}

/**
 * Only what the pin holds, unchanged: each tool, resource, template or prompt whose text differs
 * from its pin, or that the pin does not hold, is a TEXT_CHANGED problem naming it and its parts.
 */
function keepPinned(
  loaded: LoadedManifest,
  pin: DescribedText,
  text: DescribedText,
  tools: ToolAndView[],
  lists: SurfaceLists,
  problems: ManifestError[],
): { tools: ToolAndView[]; lists: SurfaceLists } {
  const keep = <T>(kind: DescribedKind, items: T[]): T[] => {
    const pinned = new Map(pin[kind].map((e) => [e.key, e]));
    return items.filter((_, i) => {
      const now = text[kind][i];
      if (now === undefined) return false;
      const parts = changedParts(kind, pinned.get(now.key), now);
      if (parts.length === 0) return true;
      problems.push(
        new ManifestError('TEXT_CHANGED', loaded.file, [
          { path: `${kind}[${i}]`, rule: driftRule(loaded, kind, now.key, parts) },
        ]),
      );
      return false;
    });
  };
  const kept = {
    resources: keep('resources', lists.resources),
    resourceTemplates: keep('resourceTemplates', lists.resourceTemplates),
    prompts: keep('prompts', lists.prompts),
  };
  return { tools: keep('tools', tools), lists: kept };
}

function driftRule(loaded: LoadedManifest, kind: DescribedKind, key: string, parts: string[]): string {
  const what = `${DESCRIBED_KINDS[kind].label} "${key.slice(0, 200)}"`;
  const how =
    parts[0] === '(not pinned)'
      ? 'was not described when the plugin was installed'
      : `now describes different text than was pinned at install (${parts.join(', ')} changed)`;
  return (
    `${what} ${how}, so it is not served; the pin is ${describedPinFile(loaded.file)}. ` +
    `To accept the new text, install ${loaded.manifest.name} again (\`toolgate install\` with its source), which shows the change for review`
  );
}

/** describe (v1) or list_tools (v2), validated: one tool per good description, a problem per bad one. */
async function describeTools(env: DescribeEnv): Promise<ToolAndView[]> {
  const { loaded, exportsOf, iface, describe, problem, id } = env;
  const has = (e: string) => exportsOf.exports.has(e);
  const toolsRaw =
    iface === 'v1'
      ? await describe('describe', undefined)
      : has('list_tools')
        ? await describe('list_tools', { context: context(id) })
        : { tools: [] };
  const listed = shapes().listTools.safeParse(toolsRaw);
  if (!listed.success)
    throw new ManifestError('MODULE_INVALID', loaded.file, [
      {
        path: 'module.path',
        rule: `${iface === 'v1' ? 'describe' : 'list_tools'} returned a malformed list: ${zodReason(listed.error)}`,
      },
    ]);
  const tools: ToolAndView[] = [];
  const seen = new Set<string>();
  listed.data.tools.forEach((raw, i) => {
    const where = `tools[${i}]`;
    const t = shapes().describedTool.safeParse(raw);
    if (!t.success) return problem([{ path: `${where}`, rule: `is malformed: ${zodReason(t.error)}` }]);
    const issues = describedToolIssues(t.data, loaded.manifest.name, where, seen);
    if (issues.length > 0) return problem(issues);
    seen.add(t.data.name);
    const def = moduleTool(loaded, exportsOf, iface, t.data);
    try {
      tools.push({ def, view: modelView(defineTool(def)) });
    } catch (err) {
      problem([{ path: where, rule: messageOf(err) }]);
    }
  });
  return tools;
}

/** A v2 module's resources, templates and prompts, validated. */
async function listSurface(env: DescribeEnv): Promise<SurfaceLists> {
  const { exportsOf, describe, problem, id } = env;
  const has = (e: string) => exportsOf.exports.has(e);
  const list = async (entry: string, key: string, schema: z.ZodType<object>, max: number): Promise<ServedItem[]> =>
    has(entry) ? items(await describe(entry, { context: context(id) }), key, schema, max, entry, problem) : [];
  const resources = await list('list_resources', 'resources', shapes().resource, B.maxResources);
  const resourceTemplates = await list(
    'list_resource_templates',
    'resourceTemplates',
    shapes().resourceTemplate,
    B.maxResourceTemplates,
  );
  const prompts = await list('list_prompts', 'prompts', shapes().prompt, B.maxPrompts);
  return { resources, resourceTemplates, prompts };
}

/** What a v2 module serves besides tools, and the operations that serve it. */
function surfaceOf(
  env: DescribeEnv,
  lists: SurfaceLists,
): { surface: ServedSurface | undefined; operations: ToolDefinition[] } {
  const { loaded, exportsOf } = env;
  const { resources, resourceTemplates, prompts } = lists;
  const m = loaded.manifest;
  const has = (e: string) => exportsOf.exports.has(e);
  const ops = operationNames(m.name);
  const served: { read?: string; get?: string; complete?: string } = {};
  const operations: ToolDefinition[] = [];
  if (has('read_resource') && (resources.length > 0 || resourceTemplates.length > 0)) {
    served.read = ops.read;
    operations.push(readOperation(loaded, exportsOf, ops.read, resources, resourceTemplates));
  }
  if (has('get_prompt') && prompts.length > 0) {
    served.get = ops.get;
    operations.push(promptOperation(loaded, exportsOf, ops.get, prompts));
  }
  if (has('complete')) {
    served.complete = ops.complete;
    operations.push(completeOperation(loaded, exportsOf, ops.complete));
  }
  const any = resources.length + resourceTemplates.length + prompts.length > 0 || served.complete !== undefined;
  const surface = any
    ? Object.freeze({ plugin: m.name, resources, resourceTemplates, prompts, operations: Object.freeze(served) })
    : undefined;
  return { surface, operations };
}

/** Name, schema and text rules of one described tool; empty when it may be served. */
function describedToolIssues(
  t: DescribedTool,
  plugin: string,
  where: string,
  seen: ReadonlySet<string>,
): ManifestIssue[] {
  const out: ManifestIssue[] = [];
  if (!TOOL_NAME_RE.test(t.name) || t.name.includes(SERVED_SEPARATOR))
    out.push({
      path: `${where}.name`,
      rule: `"${t.name.slice(0, 64)}" must match ${TOOL_NAME_RE.source} and not contain "__"`,
    });
  else if (servedToolName(plugin, t.name).length > 64)
    out.push({
      path: `${where}.name`,
      rule: `served as "${servedToolName(plugin, t.name)}", longer than 64 characters (MCP clients and model APIs refuse it)`,
    });
  else if (seen.has(t.name))
    out.push({ path: `${where}.name`, rule: `"${t.name}" is described twice; the first one is kept` });
  if (JSON.stringify(t.inputSchema).length > B.maxSchemaBytes)
    out.push({ path: `${where}.inputSchema`, rule: `must be at most ${B.maxSchemaBytes} bytes of JSON` });
  else {
    if (t.inputSchema['type'] !== 'object')
      out.push({ path: `${where}.inputSchema.type`, rule: 'must be "object" (arguments are a JSON object)' });
    const problem = jsonSchemaProblem(t.inputSchema);
    if (problem !== undefined) out.push({ path: `${where}.inputSchema`, rule: problem });
    out.push(
      ...schemaTextIssues(t.inputSchema, [
        ...where
          .split(/[[\].]+/)
          .filter((s) => s !== '')
          .map((s) => (/^\d+$/.test(s) ? Number(s) : s)),
        'inputSchema',
      ]),
    );
  }
  if (t.outputSchema !== undefined) {
    const problem = jsonSchemaProblem(t.outputSchema);
    if (problem !== undefined) out.push({ path: `${where}.outputSchema`, rule: problem });
  }
  return out;
}

function items(
  raw: unknown,
  key: string,
  schema: z.ZodType<object>,
  max: number,
  entry: string,
  problem: (issues: ManifestIssue[]) => void,
): ServedItem[] {
  const list = shapes().listOf(key, max).safeParse(raw);
  if (!list.success) {
    problem([{ path: 'module.path', rule: `${entry} returned a malformed list: ${zodReason(list.error)}` }]);
    return [];
  }
  const out: ServedItem[] = [];
  (list.data[key] as unknown[]).forEach((item, i) => {
    const r = schema.safeParse(item);
    if (!r.success) problem([{ path: `${key}[${i}]`, rule: `is malformed: ${zodReason(r.error)}` }]);
    else out.push(Object.freeze(r.data as ServedItem));
  });
  return out;
}

/** The manifest's grant, as every tool and operation of the plugin carries it. */
function baseDefinition(
  loaded: LoadedManifest,
  name: string,
  description: string,
  execute: ToolDefinition['execute'],
): ToolDefinition {
  const def = manifestDefinition(loaded.manifest, { allowedPaths: loaded.allowedPaths, execute });
  return { ...def, name, description };
}

function moduleTool(
  loaded: LoadedManifest,
  exportsOf: ModuleExports,
  iface: HyperMcpInterface,
  t: DescribedTool,
): ToolDefinition {
  const served = servedToolName(loaded.manifest.name, t.name);
  const def = baseDefinition(
    loaded,
    served,
    t.description ?? t.title ?? `${t.name} (plugin ${loaded.manifest.name})`,
    async (args, exec) => {
      const request: JsonObject = { name: t.name, arguments: args as JsonObject };
      const payload: JsonObject = iface === 'v1' ? { params: request } : { request, context: context(exec.callId) };
      const out = await exportsOf.call(
        iface === 'v1' ? 'call' : 'call_tool',
        payload,
        sandboxCallOptions(loaded, exec),
      );
      const result = checked(shapes().callToolResult, out, 'call');
      if (result.isError === true) {
        const text = result.content.flatMap((b) => (b.type === 'text' ? [b.text] : [])).join('\n');
        throw new ToolFailure('TOOL_ERROR', text === '' ? `tool ${t.name} reported an error` : text);
      }
      return {
        content: result.content,
        ...(result.structuredContent !== undefined ? { structuredContent: result.structuredContent } : {}),
      } as JsonObject;
    },
  );
  def.inputSchema = structuredClone(t.inputSchema);
  // the schema the module described decides, as JSON Schema reads it (additionalProperties included)
  def.allowUnknownArguments = true;
  def.output = { render: 'mcp' };
  const annotations: ToolAnnotations = { ...(t.annotations ?? {}) };
  if (t.title !== undefined) annotations.title ??= t.title;
  const title = annotations.title;
  if (title !== undefined) def.title = title;
  if (Object.keys(annotations).length > 0) def.annotations = annotations;
  else delete def.annotations;
  return def;
}

/** Compiled templates: each plugin's few, matched on every resources/read. */
const templateRegexes = new Map<string, LinearRegex>();

/**
 * RFC 6570 level 1-2 matching: `{x}` is one segment (no `/`), `{+x}` and `{#x}` anything. The
 * template is the module's and the URI the client's, so the match is linear (regex/): a template of
 * a dozen adjacent `{x}` took V8's backtracking seconds on a 30-character URI, on the main thread.
 */
export function templateMatches(template: string, uri: string): boolean {
  let compiled = templateRegexes.get(template);
  if (compiled === undefined) {
    let re = '^';
    let last = 0;
    for (const m of template.matchAll(/\{([+#]?)[^{}]*\}/g)) {
      re += escapeRe(template.slice(last, m.index)) + (m[1] === '' ? '[^/?#]+' : '.+');
      last = m.index + m[0].length;
    }
    compiled = linearRegex(`${re}${escapeRe(template.slice(last))}$`);
    if (templateRegexes.size >= 1024) templateRegexes.clear();
    templateRegexes.set(template, compiled);
  }
  return compiled.test(uri);
}
const escapeRe = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

function readOperation(
  loaded: LoadedManifest,
  exportsOf: ModuleExports,
  name: string,
  resources: readonly ServedItem[],
  templates: readonly ServedItem[],
): ToolDefinition {
  const listed = new Set(resources.map((r) => String(r['uri'])));
  const def = baseDefinition(loaded, name, `resources/read of plugin ${loaded.manifest.name}`, async (args, exec) => {
    const uriArg = String(args['uri']);
    // a URI the module did not list and no template matches is never passed to it
    if (!listed.has(uriArg) && !templates.some((t) => templateMatches(String(t['uriTemplate']), uriArg)))
      throw new ToolFailure('TOOL_ERROR', `resource not found: ${uriArg}`);
    const out = await exportsOf.call(
      'read_resource',
      { request: { uri: uriArg }, context: context(exec.callId) },
      sandboxCallOptions(loaded, exec),
    );
    const result = checked(shapes().readResourceResult, out, 'read_resource');
    // contents that name another URI (a local file, another plugin's resource) would be shown as
    // that resource: only the URI read and what this module itself serves may be named
    result.contents.forEach((c, i) => {
      const own =
        c.uri === uriArg ||
        listed.has(c.uri) ||
        templates.some((t) => templateMatches(String(t['uriTemplate']), c.uri));
      if (!own)
        throw new ToolFailure(
          'TOOL_ERROR',
          `the module's read_resource result is malformed: contents[${i}].uri: ${JSON.stringify(c.uri)} is not the resource read (${JSON.stringify(uriArg)}) or one this plugin serves`,
        );
    });
    return result as JsonObject;
  });
  def.inputSchema = {
    type: 'object',
    properties: { uri: { type: 'string', minLength: 1, maxLength: B.maxUriChars } },
    required: ['uri'],
    additionalProperties: false,
  };
  def.output = { render: 'json' };
  delete def.annotations;
  return def;
}

function promptOperation(
  loaded: LoadedManifest,
  exportsOf: ModuleExports,
  name: string,
  prompts: readonly ServedItem[],
): ToolDefinition {
  const known = new Set(prompts.map((p) => String(p['name'])));
  const def = baseDefinition(loaded, name, `prompts/get of plugin ${loaded.manifest.name}`, async (args, exec) => {
    const promptName = String(args['name']);
    if (!known.has(promptName)) throw new ToolFailure('TOOL_ERROR', `unknown prompt: ${promptName}`);
    const request: JsonObject = {
      name: promptName,
      ...(args['arguments'] !== undefined ? { arguments: args['arguments'] } : {}),
    };
    const out = await exportsOf.call(
      'get_prompt',
      { request, context: context(exec.callId) },
      sandboxCallOptions(loaded, exec),
    );
    return checked(shapes().getPromptResult, out, 'get_prompt') as JsonObject;
  });
  def.inputSchema = {
    type: 'object',
    properties: {
      name: { type: 'string', minLength: 1, maxLength: 128 },
      arguments: { type: 'object', additionalProperties: { type: 'string' } },
    },
    required: ['name'],
    additionalProperties: false,
  };
  def.output = { render: 'json' };
  delete def.annotations;
  return def;
}

function completeOperation(loaded: LoadedManifest, exportsOf: ModuleExports, name: string): ToolDefinition {
  const def = baseDefinition(
    loaded,
    name,
    `completion/complete of plugin ${loaded.manifest.name}`,
    async (args, exec) => {
      const ref = args['ref'] as JsonObject;
      // hyper-mcp's envelope names the reference kinds without MCP's "ref/" prefix
      const type = typeof ref['type'] === 'string' ? ref['type'].replace(/^ref\//, '') : ref['type'];
      const request: JsonObject = { ...(args as JsonObject), ref: { ...ref, type: type ?? null } };
      const out = await exportsOf.call(
        'complete',
        { request, context: context(exec.callId) },
        sandboxCallOptions(loaded, exec),
      );
      return checked(shapes().completeResult, out, 'complete') as JsonObject;
    },
  );
  const C = CLIENT_REQUEST_BOUNDS;
  const text = (max: number) => ({ type: 'string', maxLength: max });
  def.inputSchema = {
    type: 'object',
    properties: {
      ref: {
        type: 'object',
        properties: {
          type: { enum: ['ref/prompt', 'ref/resource'] },
          name: text(C.nameChars),
          uri: text(C.uriChars),
        },
        required: ['type'],
      },
      argument: {
        type: 'object',
        properties: { name: text(C.nameChars), value: text(C.valueChars) },
        required: ['name', 'value'],
      },
      context: {
        type: 'object',
        properties: {
          arguments: { type: 'object', maxProperties: C.contextArguments, additionalProperties: text(C.valueChars) },
        },
        additionalProperties: false,
      },
    },
    required: ['ref', 'argument'],
    additionalProperties: false,
  };
  def.output = { render: 'json' };
  delete def.annotations;
  return def;
}
