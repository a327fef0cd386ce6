// Builds what a command needs to make calls: the plugin host with its registry and pipeline,
// the built-in tools, then manifests and policies. Manifest and policy loading are hooks the
// lead wires to host/src/manifest and host/src/policy; a command only ever sees createRuntime().
import { existsSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import { pino, type Logger } from 'pino';
import { createPluginHost, type Context, type PluginHost } from '../plugin/index.js';
import { builtinTools, type ToolRegistry } from '../tool/index.js';
import type { ApprovalService, Pipeline } from '../pipeline/index.js';
import type { CliIO } from './command.js';
import { UsageError } from './usage.js';

export interface RuntimeOptions {
  io: CliIO;
  /** Folders the user named with --manifests; none = ./manifests (if present) plus the store. */
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
  dispose(): Promise<void>;
}

/** Loads manifest tools into `ctx`. Filled in by the manifest/sandbox work; today: none. */
export type ManifestLoader = (ctx: Context, dirs: string[], options: { explicit: boolean }) => Promise<void>;
/** Mounts a policy set into `ctx`. Filled in by the policy work; today: none. */
export type PolicyLoader = (ctx: Context, dir: string, options: { explicit: boolean }) => Promise<void>;

export const loaders: { manifests: ManifestLoader; policies: PolicyLoader } = {
  manifests: async () => {},
  policies: async () => {},
};

export async function createRuntime(options: RuntimeOptions): Promise<Runtime> {
  const { io } = options;
  const logger = pino(
    { level: io.env.TOOLGATE_LOG_LEVEL ?? 'warn', base: undefined },
    { write: (line: string) => io.stderr(line) },
  );
  const explicitManifests = (options.manifests ?? []).length > 0;
  const manifestDirs = explicitManifests
    ? (options.manifests ?? []).map((d) => requireDir('--manifests', resolve(io.cwd, d)))
    : [resolve(io.cwd, 'manifests'), join(io.env.TOOLGATE_HOME ?? join(homedir(), '.toolgate'), 'tools')].filter(isDir);
  const policyDir =
    options.policies !== undefined
      ? requireDir('--policies', resolve(io.cwd, options.policies))
      : [resolve(io.cwd, 'policies')].find(isDir);

  const host = createPluginHost({ logger, ...(options.approval !== undefined ? { approval: options.approval } : {}) });
  try {
    host.root.plugin((ctx) => {
      for (const def of builtinTools) ctx.tool(def);
    }, undefined, { name: 'builtins' });
    await loaders.manifests(host.root, manifestDirs, { explicit: explicitManifests });
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
