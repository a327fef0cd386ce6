// Builds what a command needs to make calls: the plugin host with its registry and pipeline,
// the built-in tools, then manifests and policies. Manifest and policy loading are hooks the
// lead wires to host/src/manifest and host/src/policy; a command only ever sees createRuntime().
import { existsSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import { pino, type Logger } from 'pino';
import { z } from 'zod';
import { createPluginHost, type Context, type PluginHost } from '../plugin/index.js';
import { builtinTools, type ToolRegistry } from '../tool/index.js';
import type { ApprovalService, Pipeline } from '../pipeline/index.js';
import type { CliIO } from './command.js';
import { UsageError } from './usage.js';

export interface RuntimeOptions {
  io: CliIO;
  /** Folders the user named with --manifests; none = ./manifests (if present), plus the store. */
  manifests?: string[];
  /** The folder named with --policies; none = ./policies if present. */
  policies?: string;
  approval?: ApprovalService;
}

export interface Runtime {
  readonly host: PluginHost;
  readonly tools: ToolRegistry;
  readonly pipeline: Pipeline;
  readonly logger: Logger;
  /** Where manifests and policies were looked for (after defaults and resolution). */
  readonly manifestDirs: string[];
  readonly policyDir: string | undefined;
  /** The installed store ($TOOLGATE_HOME, default ~/.toolgate). */
  readonly storeDir: string;
  dispose(): Promise<void>;
}

/**
 * Loads manifest tools into `ctx`: from `dirs`, plus the installed store under `storeDir` unless
 * the user named folders (`explicit`). Filled in by the manifest/registry work; today: none.
 */
export type ManifestLoader = (ctx: Context, dirs: string[], options: { explicit: boolean; storeDir: string }) => Promise<void>;
/** Mounts a policy set into `ctx`. Filled in by the policy work; today: none. */
export type PolicyLoader = (ctx: Context, dir: string, options: { explicit: boolean }) => Promise<void>;

export const loaders: { manifests: ManifestLoader; policies: PolicyLoader } = {
  manifests: async (ctx, dirs, options) => (await import('./manifest-loader.js')).loadManifestTools(ctx, dirs, options),
  policies: async () => {},
};

const LOG_LEVEL = z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']);

export async function createRuntime(options: RuntimeOptions): Promise<Runtime> {
  const { io } = options;
  const level = LOG_LEVEL.safeParse(io.env.TOOLGATE_LOG_LEVEL ?? 'warn');
  if (!level.success) {
    throw new UsageError(`TOOLGATE_LOG_LEVEL: must be one of ${LOG_LEVEL.options.join(', ')} (got ${JSON.stringify(io.env.TOOLGATE_LOG_LEVEL)})`);
  }
  const logger = pino(
    { level: level.data, base: undefined },
    { write: (line: string) => io.stderr(line) },
  );
  const explicitManifests = (options.manifests ?? []).length > 0;
  const manifestDirs = explicitManifests
    ? (options.manifests ?? []).map((d) => requireDir('--manifests', resolve(io.cwd, d)))
    : [resolve(io.cwd, 'manifests')].filter(isDir);
  const storeDir = resolve(io.cwd, io.env.TOOLGATE_HOME ?? join(homedir(), '.toolgate'));
  const policyDir =
    options.policies !== undefined
      ? requireDir('--policies', resolve(io.cwd, options.policies))
      : [resolve(io.cwd, 'policies')].find(isDir);

  const host = createPluginHost({ logger, ...(options.approval !== undefined ? { approval: options.approval } : {}) });
  try {
    host.root.plugin((ctx) => {
      for (const def of builtinTools) ctx.tool(def);
    }, undefined, { name: 'builtins' });
    await loaders.manifests(host.root, manifestDirs, { explicit: explicitManifests, storeDir });
    if (policyDir !== undefined) await loaders.policies(host.root, policyDir, { explicit: options.policies !== undefined });
  } catch (err) {
    await host.dispose();
    throw err;
  }
  return {
    host,
    tools: host.tools,
    pipeline: host.pipeline,
    logger,
    manifestDirs,
    policyDir,
    storeDir,
    dispose: () => host.dispose(),
  };
}

function isDir(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

/** A folder the user named must exist; a default one may be absent. */
function requireDir(flag: string, path: string): string {
  if (!existsSync(path)) throw new UsageError(`${flag}: directory not found: ${path}`);
  if (!isDir(path)) throw new UsageError(`${flag}: not a directory: ${path}`);
  return path;
}
