// A WASM tool is a tool built from a manifest (architecture.md §3): execute sends the validated arguments to
// the module (as UTF-8 JSON, or one argument's bytes: wire.ts) and returns the module's output as the
// canonical value (§4 wire ABI).
import type { Logger } from 'pino';
import {
  DEFAULT_LIMITS,
  loadSandboxTool,
  sandboxCodeSteps,
  SandboxLoadError,
  type SandboxCodeStep,
  type SandboxCallOptions,
  type SandboxExecution,
  type SandboxTool,
  type SandboxToolSpec,
} from '../sandbox/index.js';
import { ToolFailure, execAbortable, sealJson } from '../tool/index.js';
import type { ExecIdentity, Json, JsonObject, ToolDefinition } from '../tool/index.js';
import { MANIFEST_DEFAULTS } from './defaults.js';
import { manifestDefinition } from './definition.js';
import { ManifestError } from './errors.js';
import type { LoadedManifest } from './load.js';
import { decodeOutput, encodeInput } from './wire.js';
import { messageOf } from '../errors/index.js';

export { decodeOutput } from './wire.js';

export interface BridgeOptions {
  /** Where declared secrets are read from at load. Default process.env. Nothing else is read. */
  env?: Record<string, string | undefined>;
  logger?: Logger;
  /** Where calls run (the sandbox's choice by default; tests and operators may keep them in workers). */
  execution?: SandboxExecution;
  /** Starts the tool's first instance in the background once it is loaded (SandboxTool.prestart). */
  startInstance?: boolean;
}

/** Short, single-line excerpt of a parse error so a hostile module cannot flood the result. */
function excerpt(err: unknown): string {
  const text = messageOf(err);
  return text.replace(/\s+/g, ' ').slice(0, 200);
}

/**
 * Secrets reach the module only as Extism config keys of the same name. A secret missing from the
 * environment does not stop the tool from loading (other tools and `inspect` keep working); every
 * call fails with TOOL_ERROR naming the variable, because running without it would be a
 * silent, confusing failure inside the module.
 */
function collectSecrets(loaded: LoadedManifest, env: Record<string, string | undefined>) {
  const config: Record<string, string> = { ...loaded.manifest.capabilities.config };
  const secretValues: string[] = [];
  const missing: string[] = [];
  for (const name of loaded.manifest.capabilities.secrets) {
    const value = env[name];
    if (value === undefined) missing.push(name);
    else {
      config[name] = value;
      if (value !== '') secretValues.push(value);
    }
  }
  return { config, secretValues, missing };
}

/** The mounts with each rw mount's write quotas (allowed_paths.<guest>.max_bytes / max_entries, defaults applied). */
function withWriteQuotas(loaded: LoadedManifest): SandboxToolSpec['allowedPaths'] {
  const out: SandboxToolSpec['allowedPaths'] = {};
  for (const [guest, m] of Object.entries(loaded.allowedPaths)) {
    const grant = loaded.manifest.capabilities.allowed_paths[guest];
    const maxBytes = grant?.max_bytes;
    const maxEntries = grant?.max_entries;
    out[guest] = {
      host: m.host,
      mode: m.mode,
      ...(maxBytes !== undefined ? { maxBytes } : {}),
      ...(maxEntries !== undefined ? { maxEntries } : {}),
    };
  }
  return out;
}

export function sandboxSpecFor(
  loaded: LoadedManifest,
  opts: BridgeOptions = {},
): { spec: SandboxToolSpec; missingSecrets: string[] } {
  const m = loaded.manifest;
  const caps = m.capabilities;
  const { config, secretValues, missing } = collectSecrets(loaded, opts.env ?? process.env);
  const spec: SandboxToolSpec = {
    name: m.name,
    wasm: loaded.wasm,
    sha256: loaded.sha256,
    entry: m.module.entry,
    ...(loaded.links.length > 0
      ? { links: loaded.links.map((l) => ({ namespace: l.namespace, wasm: l.wasm, sha256: l.sha256 })) }
      : {}),
    limits: {
      ...DEFAULT_LIMITS,
      maxPages: caps.memory.max_pages,
      timeoutMs: caps.timeout_ms,
      maxInputBytes: caps.max_input_bytes,
      maxOutputBytes: caps.max_output_bytes,
      maxHttpResponseBytes: caps.memory.max_http_response_bytes,
      maxVarBytes: caps.memory.max_var_bytes,
    },
    allowedHosts: [...caps.allowed_hosts],
    allowedPaths: withWriteQuotas(loaded),
    config,
    secretValues,
    clientFeatures: [...caps.mcp],
  };
  // pool.max is a capability (consent and ceilings count it), so its default is the manifest's own
  spec.pool = { max: m.pool?.max ?? MANIFEST_DEFAULTS.poolMax };
  if (m.pool?.idle_ms !== undefined) spec.pool.idleMs = m.pool.idle_ms;
  if (opts.logger !== undefined) spec.logger = opts.logger;
  if (opts.execution !== undefined) spec.execution = opts.execution;
  if (m.module.abi === 'component') spec.abi = 'component';
  return { spec, missingSecrets: missing };
}

/**
 * The sandbox's code a first call of one of these manifests' tools loads, as steps (sandbox
 * `sandboxCodeSteps`). hyper-mcp manifests are left out: their modules ran at load.
 */
export function sandboxCodeWarmUp(manifests: readonly LoadedManifest[]): SandboxCodeStep[] {
  const specs = manifests.filter((l) => l.manifest.module.abi !== 'hyper-mcp').map((l) => sandboxSpecFor(l).spec);
  return sandboxCodeSteps(specs);
}

/** Compiles the module in the sandbox and returns the tool. Throws ManifestError (SANDBOX_LOAD) when refused. */
export async function toolFromManifest(loaded: LoadedManifest, opts: BridgeOptions = {}): Promise<ToolDefinition> {
  const m = loaded.manifest;
  const { spec, missingSecrets } = sandboxSpecFor(loaded, opts);
  let sandbox: SandboxTool;
  try {
    sandbox = await loadSandboxTool(spec);
  } catch (err) {
    const why = err instanceof SandboxLoadError ? `${err.code}: ${err.message}` : excerpt(err);
    throw new ManifestError('SANDBOX_LOAD', loaded.file, [
      { path: 'module.path', rule: `module ${loaded.modulePath} was refused by the sandbox: ${why}` },
    ]);
  }
  if (opts.startInstance === true) sandbox.prestart();
  const encoding = m.output.encoding;
  // the call needs the manifest only; `loaded` also holds the module's bytes, compiled by now
  const grant = { manifest: m };
  return manifestDefinition(m, {
    allowedPaths: loaded.allowedPaths,
    async execute(args: Readonly<JsonObject>, exec): Promise<Json> {
      if (missingSecrets.length > 0) {
        const many = missingSecrets.length > 1;
        throw new ToolFailure(
          'TOOL_ERROR',
          `tool ${m.name} needs the environment variable${many ? 's' : ''} ${missingSecrets.join(', ')}, which ${many ? 'are' : 'is'} not set on the host`,
        );
      }
      const output = await sandbox.call(encodeInput(args, m.input), sandboxCallOptions(grant, exec));
      // fresh from the module's bytes, checked as JSON, held by no one: the pipeline uses it as it
      // is, with no copy (tool/json.ts, sealJson)
      return sealJson(decodeOutput(output, encoding));
    },
    dispose: () => sandbox.close(),
    instances: () => sandbox.stats(),
  });
}

/**
 * A pipeline call as the sandbox gets it: the body's signal with the clock's time left (the clock
 * owns the deadline, architecture.md §3.3), and the client only for a manifest that declared
 * capabilities.mcp (its module was checked at load).
 */
export function sandboxCallOptions(
  loaded: Pick<LoadedManifest, 'manifest'>,
  exec: Readonly<ExecIdentity>,
): SandboxCallOptions {
  // the signal's state, read without making an AbortSignal the sandbox may never need; built field
  // by field, not from conditional spreads (a throwaway object each, on every call)
  const options: SandboxCallOptions = { signal: execAbortable(exec) };
  if (exec.remainingMs !== undefined) options.remainingMs = exec.remainingMs;
  if (exec.client !== undefined && loaded.manifest.capabilities.mcp.length > 0) options.client = exec.client;
  return options;
}
