// The registry needs only a few facts from a tool manifest: name, version, module and the
// capabilities it asks for. This adapter is the one place that reads manifests, so the registry
// follows the manifest folder's rules (and can swap to its door) without touching anything else.
import {
  DEFAULT_MAX_MODULE_BYTES,
  describeCapabilities,
  describeLinks,
  formatKeyPath,
  FileRuleError,
  MANIFEST_DEFAULTS,
  manifestDefinition,
  ManifestError,
  parseManifest,
  readManifestModule,
  readRegularFile,
  wasmHeaderProblem,
} from '../manifest/index.js';
import { defineTool, modelView, type ModelToolView } from '../tool/index.js';
import { screenModelText, type TextFlag } from './screen.js';
import { RegistryError } from './errors.js';
import { yaml } from '../lazy-yaml/index.js';

export interface PathGrant {
  guest: string;
  host: string;
  mode: 'ro' | 'rw';
  /** rw only: bytes one call may write there (allowed_paths.<guest>.max_bytes, default applied). */
  maxBytes?: number;
  /** rw only: files and directories one call may create there (allowed_paths.<guest>.max_entries). */
  maxEntries?: number;
}

/**
 * Every capability-bearing key a tool asks for, with the host defaults (docs/authoring.md, "The manifest") filled in so
 * two sets can be compared (upgrade diff) and held against a ceiling. A key that lets a tool touch
 * or hold more belongs here; leaving one out lets an upgrade grow it silently.
 */
export interface CapabilitySet {
  hosts: string[];
  paths: PathGrant[];
  maxPages: number;
  maxHttpResponseBytes: number;
  /** Bytes of Extism vars one instance may hold (memory.max_var_bytes). */
  maxVarBytes: number;
  timeoutMs: number;
  maxInputBytes: number;
  maxOutputBytes: number;
  /** Instances that may run at once (pool.max). */
  poolMax: number;
  /** Configuration the tool receives, key -> value. */
  config: Record<string, string>;
  secrets: string[];
  /** What the tool may ask of the MCP client (capabilities.mcp): logging, progress, elicitation, sampling, roots. */
  mcp: string[];
}

/** The limits of a capability set that are numbers (compared by consent diffs and ceilings). */
export type NumericCapability = {
  [K in keyof CapabilitySet]: CapabilitySet[K] extends number ? K : never;
}[keyof CapabilitySet];

/** One module of module.link: it serves the imports of `namespace` (docs/registry.md, "Packages"). */
export interface PackagedLink {
  namespace: string;
  path: string;
  sha256?: string;
  /** The manifest key errors name, e.g. `module.link.lib`. */
  key: string;
}

export interface PackagedManifest {
  name: string;
  version: string;
  description: string;
  module: {
    path: string;
    sha256?: string;
    entry?: string;
    abi: 'toolgate' | 'hyper-mcp' | 'component';
    links: PackagedLink[];
  };
  capabilities: CapabilitySet;
  /** The capabilities in plain words, as the manifest folder words them (consent, list). */
  described: string[];
  /** The linked modules in the same words (also part of `described`), for an upgrade's review. */
  describedLinks: string[];
  /** Exactly what a model is shown of the tool (the tool model's own projection). */
  model: ModelToolView;
  /** Marks of tool poisoning found in `model` (screen.ts). */
  flags: TextFlag[];
}

function notRun(): never {
  throw new Error('a manifest read by the registry is never run');
}

/** The manifest's defaults (docs/authoring.md), as the manifest folder applies them. */
export const CAPABILITY_DEFAULTS = {
  maxPages: MANIFEST_DEFAULTS.maxPages,
  maxHttpResponseBytes: MANIFEST_DEFAULTS.maxHttpResponseBytes,
  timeoutMs: MANIFEST_DEFAULTS.timeoutMs,
  maxInputBytes: MANIFEST_DEFAULTS.maxInputBytes,
  maxOutputBytes: MANIFEST_DEFAULTS.maxOutputBytes,
  maxWriteBytes: MANIFEST_DEFAULTS.maxWriteBytes,
  maxWriteEntries: MANIFEST_DEFAULTS.maxWriteEntries,
  poolMax: MANIFEST_DEFAULTS.poolMax,
} as const;

/**
 * Parses manifest YAML with the manifest folder's own validator (so an installed tool is one the
 * server will load) and keeps the facts the registry needs. Errors name the file, key path and rule.
 */
export function readManifest(text: string, file: string): PackagedManifest {
  let m;
  try {
    m = parseManifest(text, file);
  } catch (err) {
    if (err instanceof ManifestError) throw new RegistryError('BAD_MANIFEST', err.message);
    throw err;
  }
  const caps = m.capabilities;
  // parseManifest already compiled this definition once, so defineTool cannot fail here.
  const model = modelView(defineTool(manifestDefinition(m, { execute: notRun })));
  return {
    name: m.name,
    version: m.version,
    description: m.description,
    module: {
      path: m.module.path,
      ...(m.module.sha256 !== undefined ? { sha256: m.module.sha256 } : {}),
      entry: m.module.entry,
      abi: m.module.abi,
      links: (m.module.link ?? []).map((l) => ({
        namespace: l.namespace,
        path: l.path,
        ...(l.sha256 !== undefined ? { sha256: l.sha256 } : {}),
        key: formatKeyPath(['module', 'link', l.namespace]),
      })),
    },
    capabilities: {
      hosts: [...caps.allowed_hosts].sort(),
      paths: Object.entries(caps.allowed_paths)
        .map(
          ([guest, grant]): PathGrant => ({
            guest,
            host: grant.host,
            mode: grant.mode,
            ...(grant.max_bytes !== undefined ? { maxBytes: grant.max_bytes } : {}),
            ...(grant.max_entries !== undefined ? { maxEntries: grant.max_entries } : {}),
          }),
        )
        .sort((a, b) => (a.guest < b.guest ? -1 : a.guest > b.guest ? 1 : 0)),
      maxPages: caps.memory.max_pages,
      maxHttpResponseBytes: caps.memory.max_http_response_bytes,
      maxVarBytes: caps.memory.max_var_bytes,
      timeoutMs: caps.timeout_ms,
      maxInputBytes: caps.max_input_bytes,
      maxOutputBytes: caps.max_output_bytes,
      poolMax: m.pool?.max ?? MANIFEST_DEFAULTS.poolMax,
      config: { ...caps.config },
      secrets: [...caps.secrets].sort(),
      mcp: [...caps.mcp].sort(),
    },
    described: describeCapabilities(m),
    describedLinks: describeLinks(m),
    model,
    flags: screenModelText(model),
  };
}

/**
 * The same manifest with module.path and module.sha256 replaced, comments and key order kept.
 * Used to point a packaged manifest at `module.wasm` and an installed one at its blob.
 */
export function rewriteModule(text: string, file: string, modulePath: string, sha256Hex: string): string {
  const doc = yaml().parseDocument(text);
  if (doc.errors.length > 0)
    throw new RegistryError('BAD_MANIFEST', `${file}: not valid YAML (${doc.errors[0]?.message ?? ''})`);
  doc.setIn(['module', 'path'], modulePath);
  doc.setIn(['module', 'sha256'], sha256Hex);
  return doc.toString({ lineWidth: 0 }); // never fold a long path or digest
}

/**
 * The same manifest with each module.link entry replaced by `{path, sha256}` (namespaces, comments
 * and the rest kept): points a packaged manifest at its link files and an installed one at blobs.
 */
export function rewriteLinks(
  text: string,
  file: string,
  links: ReadonlyArray<{ namespace: string; path: string; sha256Hex: string }>,
): string {
  const doc = yaml().parseDocument(text);
  if (doc.errors.length > 0)
    throw new RegistryError('BAD_MANIFEST', `${file}: not valid YAML (${doc.errors[0]?.message ?? ''})`);
  for (const l of links)
    doc.setIn(['module', 'link', l.namespace], doc.createNode({ path: l.path, sha256: l.sha256Hex }));
  return doc.toString({ lineWidth: 0 });
}

/** Why package module bytes cannot be a WebAssembly module; undefined when they may be one. */
export function wasmProblem(bytes: Uint8Array): string | undefined {
  return wasmHeaderProblem(bytes);
}

/**
 * A file of a tool folder being packed or installed: a regular file (with `dir`, one whose real
 * path is inside it), at most maxBytes. Absent -> RegistryError NOT_FOUND; any other rule -> BAD_PACKAGE.
 */
export async function readPackageFile(file: string, dir: string | undefined, maxBytes: number): Promise<Uint8Array> {
  try {
    return await readRegularFile(file, dir === undefined ? { maxBytes } : { maxBytes, within: dir });
  } catch (err) {
    if (!(err instanceof FileRuleError)) throw err;
    throw new RegistryError(err.code === 'MODULE_MISSING' ? 'NOT_FOUND' : 'BAD_PACKAGE', err.rule);
  }
}

/**
 * A module a tool folder's manifest names (`key`: module.path or module.link.<ns>), under the
 * manifest folder's module rules, inside `dir`.
 */
export async function readPackageModule(
  manifestFile: string,
  modulePath: string,
  dir: string,
  key = 'module.path',
): Promise<Uint8Array> {
  try {
    return await readManifestModule(manifestFile, key, modulePath, { maxBytes: DEFAULT_MAX_MODULE_BYTES, within: dir });
  } catch (err) {
    if (!(err instanceof ManifestError)) throw err;
    throw new RegistryError(err.code === 'MODULE_MISSING' ? 'NOT_FOUND' : 'BAD_PACKAGE', err.message);
  }
}
