// Builds what a command needs to make calls: the plugin host with its registry and pipeline,
// the built-in tools, then manifests and policies. Manifest and policy loading are hooks the
// lead wires to host/src/manifest and host/src/policy; a command only ever sees createRuntime().
import { join } from 'node:path';
import { toolgateHome } from './home.js';
import type { Logger } from 'pino';
import { createPluginHost, type PluginHost } from '../plugin/index.js';
import { builtinTools, type ToolRegistry } from '../tool/index.js';
import type { ApprovalService, Pipeline } from '../pipeline/index.js';
import type { PolicyLoader, PolicyServices } from '../policy/index.js';
import type { SharedState } from '../shared-state/index.js';
import { traceContentObserver } from '../policy/index.js';
import { tracer } from '../telemetry/index.js';
import type { ManifestLoader } from './manifest-loader.js';
import type { CliIO } from './command.js';
import { createLogger, logLevel, type LogChoice, type LogLevel } from './logging.js';
import { manifestSources } from './manifest-sources.js';
import { noPolicyWarning, resolvePolicySource, type PolicySource } from './policy-source.js';
import { UsageError } from './usage.js';
import { messageOf } from '../errors/index.js';

export type { ManifestLoader } from './manifest-loader.js';

export interface RuntimeOptions {
  io: CliIO;
  /**
   * Files and folders the user named with --manifests; none = ./manifests (if present), the
   * toolgate manifests in the current folder, plus the store.
   */
  manifests?: string[];
  /** -v/-q as given; with TOOLGATE_LOG_LEVEL and `defaultLogLevel` they set the log level. */
  log?: LogChoice;
  /** The level when neither -v/-q nor TOOLGATE_LOG_LEVEL says (default warn). */
  defaultLogLevel?: LogLevel;
  /** --policies: a set folder, a folder of named sets, or 'none' (see policy-source.ts). */
  policies?: string | undefined;
  /** --policy-set: which named set of the policies folder (default `default`). */
  policySet?: string | undefined;
  /** Register the built-in `echo` (default true; `serve` only with --builtin-tools). */
  builtinTools?: boolean;
  approval?: ApprovalService;
  /** Services policies may inject (metrics, approvals queue, audit); built from `io` when absent. */
  policyServices?: PolicyServices;
  /** Reload the policy set when its files change (the server does; one-shot commands do not). */
  watchPolicies?: boolean;
  /** The replicas' shared state (`serve --state`): the approval queue and rate-limit buckets go there. */
  state?: SharedState;
  /**
   * Load the manifest tools (default true). The server passes false and loads them itself, so
   * that it can also reload and unregister them; manifestDirs and storeDir are resolved either way.
   */
  loadManifests?: boolean;
}

export interface Runtime {
  readonly host: PluginHost;
  readonly tools: ToolRegistry;
  readonly pipeline: Pipeline;
  readonly logger: Logger;
  /** Where manifests and policies were looked for (after defaults and resolution): files and folders. */
  readonly manifestDirs: string[];
  /** Manifests that did not load or register, one line each naming the file, key and rule. */
  readonly manifestProblems: readonly string[];
  readonly policyDir: string | undefined;
  /** The policy set in force and where it came from (or none, when asked for). */
  readonly policySource: PolicySource;
  /** The installed store ($TOOLGATE_HOME, default ~/.toolgate). */
  readonly storeDir: string;
  readonly policyServices: PolicyServices;
  dispose(): Promise<void>;
}

/** Mounts a policy set into `ctx` (the policy folder's loader shape, one type for both). */
export type { PolicyLoader };

export const loaders: { manifests: ManifestLoader; policies: PolicyLoader } = {
  manifests: async (ctx, dirs, options) => (await import('./manifest-loader.js')).loadManifestTools(ctx, dirs, options),
  policies: async (ctx, dir, options) => (await import('../policy/index.js')).policyLoader(ctx, dir, options),
};

export async function createRuntime(options: RuntimeOptions): Promise<Runtime> {
  const { io } = options;
  const logger = await createLogger(io, logLevel(io, options.log, options.defaultLogLevel ?? 'warn'));
  const sources = manifestSources(options.manifests ?? [], io.cwd);
  const manifestDirs = sources.paths;
  const storeDir = toolgateHome(io.env, io.cwd);
  const policySource = resolvePolicySource({ policies: options.policies, policySet: options.policySet }, io);
  const policyDir = policySource.kind === 'set' ? policySource.dir : undefined;
  // Every start without policies says so, on stderr, so it is never silent.
  const warning = noPolicyWarning(policySource);
  if (warning !== undefined) io.stderr(warning);

  const policyServices = options.policyServices ?? (await processPolicyServices(io, logger, storeDir, options.state));
  const manifestProblems: string[] = [];
  const host = createPluginHost({ logger, ...(options.approval !== undefined ? { approval: options.approval } : {}) });
  try {
    mountBuiltins(host, policyServices, options.builtinTools !== false);
    // Policies mount first: the policy set's pinning listener must lead the pre-execute chain.
    if (policyDir !== undefined)
      await mountPolicySet(
        host,
        policyDir,
        policySource.origin !== 'builtin',
        policyServices,
        options.watchPolicies === true,
      );
    if (options.loadManifests !== false)
      manifestProblems.push(
        ...(await loaders.manifests(host.root, manifestDirs, {
          explicit: sources.explicit,
          storeDir,
          ...(policyDir !== undefined ? { policyDir } : {}),
        })),
      );
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
    manifestProblems,
    policyDir,
    policySource,
    storeDir,
    policyServices,
    dispose: () => host.dispose(),
  };
}

/** The policy services of this process: its logger, its env, the store's audit log and its terminal. */
async function processPolicyServices(
  io: CliIO,
  logger: Logger,
  storeDir: string,
  state: SharedState | undefined,
): Promise<PolicyServices> {
  return (await import('../policy/index.js')).createPolicyServices({
    ...(state !== undefined ? { state } : {}),
    logger,
    env: io.env,
    auditPath: join(storeDir, 'audit.jsonl'),
    tty: { input: io.stdin, output: { write: (t: string) => io.stderr(t) }, isTTY: io.isTTY },
  });
}

/** The built-in tools (when asked for) and the live-instances gauge, as the `builtins` plugin. */
function mountBuiltins(host: PluginHost, policyServices: PolicyServices, withBuiltinTools: boolean): void {
  host.root.plugin(
    (ctx) => {
      if (withBuiltinTools) for (const def of builtinTools) ctx.tool(def);
      // Read at every scrape, so tools added or removed while serving are counted as they are.
      const off = policyServices.metrics.gauge('toolgate_live_instances', 'Live sandbox instances per tool.', () =>
        host.tools.list().flatMap((t) => {
          const counts = t.definition.instances?.();
          return counts === undefined ? [] : [{ labels: { tool: t.name }, value: counts.live }];
        }),
      );
      ctx.effect(() => off);
      // Tracing with content recording opted in: the call's arguments and result on its span, redacted.
      if (tracer()?.recordContent === true) {
        ctx.on(
          'tools/result',
          'trace-content',
          traceContentObserver(
            policyServices.secrets,
            (tool) => host.tools.get(tool)?.definition.capabilities?.secrets ?? [],
          ),
        );
      }
    },
    undefined,
    { name: 'builtins' },
  );
}

async function mountPolicySet(
  host: PluginHost,
  policyDir: string,
  explicit: boolean,
  services: PolicyServices,
  watch: boolean,
): Promise<void> {
  try {
    await loaders.policies(host.root, policyDir, { explicit, services, watch });
  } catch (err) {
    // A broken policy set is a configuration error (exit 2), never a silent fallback to none.
    throw new UsageError(`policy set ${policyDir}: ${messageOf(err)}`);
  }
}
