// `toolgate serve`: the sidecar. MCP over stdio (default) or Streamable HTTP, plus the plain HTTP
// API, over one runtime whose manifest folders are watched while serving.
import { join, resolve } from 'node:path';
import { cacheEntriesWritten, writeCacheEntriesWhen } from '../../cache-files/index.js';
import { messageOf } from '../../errors/index.js';
import type { ApprovalService } from '../../pipeline/index.js';
import { Scope } from '../../plugin/index.js';
import type { SharedState } from '../../shared-state/index.js';
import type { Runtime } from '../runtime.js';
import {
  reserveStdout,
  ManifestTools,
  RoundKeys,
  SessionApprovals,
  SharedNonces,
  SidecarCore,
  type PendingApprovals,
  type ChangeSource,
  type MetricsSource,
} from '../../server/index.js';
import { EXIT, type CliIO, type Command, type ExitCode } from '../command.js';
import { tuneJitForServing } from '../jit-tuning.js';
import { capNurseryAt, type NurseryHold } from '../../nursery/index.js';
import { takeStartupHold } from '../startup-hold.js';
import { toolgateVersion } from '../package-root.js';
import { describePolicySource } from '../policy-source.js';
import { UsageError } from '../usage.js';
import { startTracing } from '../../telemetry/index.js';
import { parseServeFlags, SERVE_HELP, type ServeFlags } from './serve-flags.js';
import { noToolsWarning } from './serve-no-tools.js';
import { startHttp, startStdio, type Transport } from './serve-transport.js';
import { takeStartupHelper } from '../startup-prep.js';

/** What the policy engine offers the server (see policyLink). */
interface PolicyLink {
  fallback: ApprovalService;
  metrics: MetricsSource | undefined;
  queue: PendingApprovals;
  changes: ChangeSource;
}

/**
 * The runtime's policy services: their approval router (per-call elicitation is registered there
 * so it comes before the configured channels), their queue for /v1/approvals, their reload events
 * for list_changed, and their metrics when a policy set is mounted (else the server's own).
 */
function policyLink(runtime: Runtime, approvals: SessionApprovals): PolicyLink {
  const services = runtime.policyServices;
  const router = services.approvals;
  approvals.router = router;
  // A mounted policy set puts the router in front of us (and us behind it as its base); asking it
  // again from here would ask its channels twice.
  const mounted = () => runtime.pipeline.approval === router;
  return {
    fallback: { request: (req, signal) => (mounted() ? Promise.resolve('unavailable') : router.request(req, signal)) },
    metrics: mounted() ? { render: () => services.metrics.renderMetrics() } : undefined,
    queue: services.queue,
    changes: (fn) => services.events.on('changed', () => fn()),
  };
}

/** Resolves on SIGTERM, on the CLI's interrupt (SIGINT) or when `also` resolves. */
function stopRequested(io: CliIO, also: Promise<unknown>): { reason: Promise<string>; dispose(): void } {
  let onTerm: () => void = () => {};
  let onAbort: () => void = () => {};
  const reason = new Promise<string>((resolve) => {
    onTerm = () => resolve('SIGTERM');
    onAbort = () => resolve('SIGINT');
    process.once('SIGTERM', onTerm);
    if (io.signal?.aborted === true) resolve('SIGINT');
    io.signal?.addEventListener('abort', onAbort, { once: true });
    void also.then(() => resolve('stdin closed'));
  });
  return {
    reason,
    dispose() {
      process.off('SIGTERM', onTerm);
      io.signal?.removeEventListener('abort', onAbort);
    },
  };
}

/**
 * The young generation's ceiling once serving (nursery/): V8 grows it to 32 MiB, which is resident
 * for good; 8 measured the same CPU per call (docs/decisions.md, "The nursery during start-up").
 */
const SERVING_NURSERY_MIB = 8;

/**
 * The warm-up steps aside while calls run, so under calls that always overlap it may never end;
 * the start-up nursery (which costs CPU per call) is let go after this long regardless.
 */
const STARTUP_HOLD_MAX_MS = 10_000;

/** The first background warm-up has ended, or STARTUP_HOLD_MAX_MS have passed. */
function startupEnded(manifests: ManifestTools): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, STARTUP_HOLD_MAX_MS);
    timer.unref();
    void manifests.firstWarmUp().then(() => {
      clearTimeout(timer);
      resolve();
    });
  });
}

/** What shutdown may take after the running calls are answered or cancelled. */
const TEARDOWN_MS = 400;

/**
 * The command. It holds the nursery from its run's start (the hold taken at process start when the
 * process runs serve, so loading serve's code was under it too: startup-hold.ts) until the first
 * background warm-up ends, or serving ends; a run that fails before serving releases it at once.
 */
export const serveCommand: Command = {
  path: ['serve'],
  summary: 'serve the tools over MCP (stdio or HTTP) and a plain HTTP API',
  help: SERVE_HELP,
  async run(argv: string[], io: CliIO): Promise<ExitCode> {
    const nursery = takeStartupHold();
    try {
      const flags = parseServeFlags(argv, io.env);
      // Before anything loads policy modules or tools: from here on only JSON-RPC reaches stdout.
      const stdout = flags.http === undefined && io.processStdio === true ? reserveStdout() : undefined;
      try {
        return await serve(flags, io, stdout?.write ?? io.stdout, nursery);
      } finally {
        stdout?.release();
      }
    } finally {
      nursery.release();
    }
  },
};

async function serve(
  flags: ServeFlags,
  io: CliIO,
  writeStdout: (text: string) => void,
  nursery: NurseryHold,
): Promise<ExitCode> {
  const since = (t: number) => Math.round(performance.now() - t);
  const t0 = performance.now();
  const approvals = new SessionApprovals();
  // Before the runtime: its observers ask whether tracing records content. Off, nothing loads.
  const stopTracing = await startTracingIf(flags, io);
  const state = await connectState(flags, io);
  let runtime: Runtime;
  try {
    runtime = await startRuntime(flags, io, approvals, state);
  } catch (err) {
    await state?.close();
    await stopTracing?.();
    throw err;
  }
  const log = runtime.logger;
  // One line at start: which set guards this server, and where it came from.
  io.stderr(`toolgate serve: ${describePolicySource(runtime.policySource)}\n`);
  log.debug({ ms: since(t0), sinceProcessStart: Math.round(performance.now()) }, 'runtime ready');
  // Everything started from here is released once, newest first, whichever way serving ends.
  const resources = new Scope(log);
  if (state !== undefined) resources.add('shared state', () => state.close());
  if (stopTracing !== undefined) resources.add('tracing', stopTracing);
  resources.add('runtime', () => runtime.dispose());
  let serving: Serving;
  try {
    serving = await startServing(flags, io, runtime, approvals, writeStdout, resources);
    tuneJitForServing();
    void startupEnded(serving.manifests).then(() => {
      // the cap first, so a nursery already at it is never left growing
      if (!resources.disposed) resources.add('nursery cap', capNurseryAt(SERVING_NURSERY_MIB));
      nursery.release();
    });
  } catch (err) {
    await resources.disposeInTurn();
    throw err;
  }
  const tools = runtime.tools.list().length;
  if (tools === 0)
    io.stderr(
      noToolsWarning(flags.manifests.length > 0, runtime.manifestDirs, io.cwd, join(runtime.storeDir, 'tools')),
    );
  log.debug({ ms: since(t0), sinceProcessStart: Math.round(performance.now()), tools }, 'serving');
  await shutDownWhenAsked(flags, io, serving, log);
  // The answers are written; the rest of the teardown gets what is left of a second, so the
  // process exits within the shutdown timeout plus about one second whatever hangs.
  await Promise.race([resources.disposeInTurn(), new Promise((r) => setTimeout(r, TEARDOWN_MS).unref())]);
  log.flush();
  return EXIT.ok;
}

/** OpenTelemetry traces when asked for (docs/observability.md): the SDK is imported only here. */
async function startTracingIf(flags: ServeFlags, io: CliIO): Promise<(() => Promise<void>) | undefined> {
  const choice = flags.tracing;
  if (!choice.on) return undefined;
  const stop = await startTracing({
    serviceVersion: toolgateVersion(),
    recordContent: choice.recordContent,
    scheduleDelayMs: choice.scheduleDelayMs,
    env: io.env,
  });
  io.stderr(
    `toolgate serve: exporting traces (${choice.why})${choice.recordContent ? ', with arguments and results' : ''}\n`,
  );
  return stop;
}

/** The runtime with serve's settings; its manifests are loaded by ManifestTools (startServing). */
async function startRuntime(
  flags: ServeFlags,
  io: CliIO,
  approvals: SessionApprovals,
  state: SharedState | undefined,
): Promise<Runtime> {
  const { createRuntime } = await import('../runtime.js');
  return createRuntime({
    io,
    ...(state !== undefined ? { state } : {}),
    manifests: flags.manifests,
    ...flags.policy,
    builtinTools: flags.builtinTools,
    approval: approvals,
    watchPolicies: flags.watch,
    log: flags.log,
    // Loaded through ManifestTools, which can also reload and unregister them.
    loadManifests: false,
  });
}

/**
 * The replicas' shared state when --state (or $TOOLGATE_STATE) names one: reached now, or exit 2
 * naming it. Afterwards a drop is said once on stderr, and so is its return.
 */
async function connectState(flags: ServeFlags, io: CliIO): Promise<SharedState | undefined> {
  if (flags.state === undefined) return undefined;
  const { connectRedisState } = await import('../../shared-state/index.js');
  const shown = flags.state.shown;
  try {
    const state = await connectRedisState(flags.state, {
      onStatusChange: (ready) =>
        io.stderr(
          ready
            ? `toolgate serve: shared state ${shown} is back\n`
            : `toolgate serve: shared state ${shown} is unavailable; asks are denied and calls that need it refused until it is back\n`,
        ),
    });
    io.stderr(`toolgate serve: shared state at ${shown}\n`);
    return state;
  } catch (err) {
    throw new UsageError(messageOf(err));
  }
}

/** What is running once serve has started: the core and the transport in front of it. */
interface Serving {
  core: SidecarCore;
  transport: Transport;
  manifests: ManifestTools;
}

/** The manifest tools, the core and the transport, each added to `resources` as it starts. */
async function startServing(
  flags: ServeFlags,
  io: CliIO,
  runtime: Runtime,
  approvals: SessionApprovals,
  writeStdout: (text: string) => void,
  resources: Scope,
): Promise<Serving> {
  const link = policyLink(runtime, approvals);
  const state = runtime.policyServices.state;
  approvals.fallback = link.fallback;
  const listing = firstListing();
  const answered = firstAnswer(listing.done);
  const manifests = await startManifestTools(
    flags,
    runtime,
    { listing: listing.done, answered: answered.done },
    resources,
  );
  try {
    const core = new SidecarCore({
      runtime,
      approvals,
      version: toolgateVersion(),
      ...(link.metrics !== undefined ? { metrics: link.metrics } : {}),
      approvalQueue: link.queue,
      policyChanges: link.changes,
      onToolsListed: listing.listed,
      onInitialized: answered.answered,
      ...(flags.askProgressMs !== undefined ? { askProgressMs: flags.askProgressMs } : {}),
      roundKeys: roundKeysFor(flags, state),
      ...(state !== undefined ? { state } : {}),
      policySetId: () => (runtime.policySource.kind === 'none' ? 'none' : `set:${runtime.policySource.name}`),
      taskLimits: { ttlMs: flags.taskTtlMs, maxPerPrincipal: flags.maxTasks, maxResultBytes: flags.maxTaskBytes },
    });
    resources.add('core', () => core.close());
    const transport =
      flags.http !== undefined
        ? await startHttp(flags, flags.http, io, { runtime, core, manifests }, resources)
        : await startStdio(io, core, writeStdout, resources);
    return { core, transport, manifests };
  } catch (err) {
    if (
      err instanceof Error &&
      'code' in err &&
      (err.code === 'EADDRINUSE' || err.code === 'EACCES' || err.code === 'EADDRNOTAVAIL')
    ) {
      throw new UsageError(`--http: cannot listen: ${err.message}`);
    }
    throw err;
  }
}

/** The input-round key: the operator's file (shared by replicas), else one of this process. */
function roundKeysFor(flags: ServeFlags, state: SharedState | undefined): RoundKeys {
  let keys: RoundKeys;
  try {
    keys = flags.mrtrKeyFile === undefined ? RoundKeys.ephemeral() : RoundKeys.fromFile(resolve(flags.mrtrKeyFile));
  } catch (err) {
    throw new UsageError(messageOf(err));
  }
  // With shared state a used state is refused by every replica, not just the one that saw it.
  return state !== undefined ? keys.useNonces(new SharedNonces(state)) : keys;
}

/**
 * Modules compile in the background once the first tools/list is answered (or after 1 s): the
 * client's first answer does not wait behind twenty compiles.
 */
function firstListing(): { done: Promise<void>; listed: () => void } {
  let listed: () => void = () => {};
  const done = new Promise<void>((resolve) => {
    listed = resolve;
    setTimeout(resolve, 1000).unref();
  });
  return { done, listed: () => listed() };
}

/**
 * The sandbox's code loads once initialize is answered over stdio: the client's round trips until
 * its first call leave the server idle (docs/decisions.md, "First call of a fresh server, warm
 * home"). Over HTTP, or for a client that opens with 2026-07-28 (no initialize), the first listing.
 */
function firstAnswer(listed: Promise<void>): { done: Promise<void>; answered: () => void } {
  let answered: () => void = () => {};
  const done = new Promise<void>((resolve) => {
    answered = resolve;
    void listed.then(resolve);
  });
  return { done, answered: () => answered() };
}

/**
 * The manifest folders' tools, synced once and watched unless --no-watch. Without --manifests the
 * installed store is served too, re-resolved on every sync and watched, so `toolgate install` /
 * `uninstall` show up in a running server.
 */
async function startManifestTools(
  flags: ServeFlags,
  runtime: Runtime,
  after: { listing: Promise<void>; answered: Promise<void> },
  resources: Scope,
): Promise<ManifestTools> {
  const { installedSource } = await import('../manifest-loader.js');
  // a second start reads each module as prepared by the first, instead of patching it again; with an
  // empty home, the start-up helper started with the process reads the manifests' YAML meanwhile
  const helper = takeStartupHelper();
  if (helper !== undefined) resources.add('start-up helper', () => helper.end());
  await (await import('../../manifest/index.js')).enablePreparedModuleCache(
    runtime.storeDir,
    runtime.logger,
    helper === undefined ? undefined : (file, text) => helper.yaml(file, text),
  );
  const store = flags.manifests.length > 0 ? undefined : installedSource(runtime.storeDir, runtime.logger);
  const manifests = new ManifestTools({
    dirs: runtime.manifestDirs,
    backgroundAfter: after.listing,
    codeAfter: after.answered,
    ...(store !== undefined ? { moreDirs: () => store.dirs(), watchAlso: store.watch } : {}),
    ctx: runtime.host.root,
    logger: runtime.logger,
    compile: 'background',
  });
  resources.add('manifest tools', () => manifests.close());
  // Cache entries (parsed manifests, prepared modules) wait for quiet turns once the first listing
  // is answered, and are all written as serving ends (docs/decisions.md, "Cache entries written
  // after the answers").
  writeCacheEntriesWhen(() => after.listing.then(() => manifests.quietTurn()));
  resources.add('cache entries', async () => {
    writeCacheEntriesWhen(undefined);
    await cacheEntriesWritten();
  });
  // Watching starts before the first sync, so a file written during it is not missed.
  if (flags.watch) manifests.watch();
  await manifests.sync();
  // the helper ends itself once it has read every manifest; with the first sync at the latest
  if (helper !== undefined) {
    void helper.end();
    runtime.logger.debug({ manifests: helper.taken }, "start-up helper: manifests' YAML read on its thread");
  }
  return manifests;
}

/** Waits for SIGTERM, SIGINT or the end of stdin, then stops taking requests and drains the calls. */
async function shutDownWhenAsked(
  flags: ServeFlags,
  io: CliIO,
  { core, transport, manifests }: Serving,
  log: Runtime['logger'],
): Promise<void> {
  const stop = stopRequested(io, transport.stdinClosed);
  const why = await stop.reason;
  stop.dispose();
  log.info({ reason: why }, 'shutting down');
  transport.stopAccepting();
  manifests.stopWarming();
  const aborted = await core.calls.drain(flags.shutdownMs);
  if (aborted > 0)
    io.stderr(`toolgate serve: ${aborted} call(s) still running after ${flags.shutdownMs} ms were cancelled\n`);
}
