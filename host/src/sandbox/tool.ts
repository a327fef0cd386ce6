// A loaded WASM tool: module checked and compiled now, instances started on demand and pooled.
import type { Logger } from 'pino';
import { ToolFailure, type CallClient } from '../tool/index.js';
import { CallControl, callerAbortFailure } from './call-control.js';
import { DEFAULT_SLICE_MS, InThreadRoute, mayRunInThread, wantsInstrumentation, type PathCounts } from './execution.js';
import { InThreadInstance, preloadRunner } from './in-thread.js';
import { createHttpGate } from './http/index.js';
import { SandboxInstance, type InstanceSetup } from './instance.js';
import { allocBudget, LIMITS } from './limits.js';
import { compileUnits, type CompiledUnits } from './units.js';
import { InstancePool, type PoolOptions, type PoolStats } from './pool.js';
import { cleanLogLine, sanitizeMessage } from './sanitize.js';
import { checkSpec, type SandboxToolSpec } from './spec.js';
import { instanceWorkerFile } from './worker-file.js';
import { retainWorkers } from './instance-workers.js';
import { MAX_LOG_LINES, type LogMessage } from './worker/protocol.js';
import { messageOf } from '../errors/index.js';
import type { Abortable } from '../signals/index.js';
import { tracer, type Tracer } from '../telemetry/index.js';

/** How one call reaches the sandbox: its signal, its deadline, its client. */
export interface SandboxCallOptions {
  /**
   * Aborts when the caller cancels, or when a deadline its owner keeps passes (see remainingMs): a
   * signal, or an owned abort whose AbortSignal the sandbox does not need to make (signals/).
   */
  signal: Abortable;
  /**
   * The time left on the deadline `signal` carries, read from its owner (the pipeline's clock);
   * reading 0 fires `signal`. The sandbox then arms no timer of its own for the call: the owner's is
   * the one (architecture.md §3.3). The tool's timeout_ms still bounds a longer one.
   */
  remainingMs?: () => number;
  /** A shorter deadline the sandbox keeps itself (a caller without an owner); never past the tool's limit. */
  timeoutMs?: number;
  client?: CallClient;
}

export interface SandboxTool {
  /** Runs the entry with `input`; resolves with its output bytes, throws ToolFailure. */
  call(input: Uint8Array, opts: SandboxCallOptions): Promise<Uint8Array>;
  stats(): PoolStats;
  /**
   * Starts one worker instance in the background if the tool has none, so its first call finds it
   * ready (a JavaScript tool's, docs/decisions.md "JavaScript tools: the first call"). Nothing for a
   * tool that runs on the calling thread; the instance is trimmed when idle like any other.
   */
  prestart(): void;
  /** Calls so far by where they ended: on the calling thread, in a worker, moved between them. */
  paths(): PathCounts;
  /** Terminates every worker; pending and queued calls are answered ABORTED. */
  close(): Promise<void>;
}

/** Room in the channel for HTTP response headers and framing beside the largest payload. */
const CHANNEL_SLACK = 64 * 1024;

export async function loadSandboxTool(spec: SandboxToolSpec): Promise<SandboxTool> {
  checkSpec(spec);
  const workerFile = instanceWorkerFile();
  const { limits } = spec;
  if (mayRunInThread(spec)) void preloadRunner();
  // A tool that can only run in a worker keeps a worker with room booting while its module compiles
  // (the compile runs on V8's background threads): its first call then finds the worker booted.
  let releaseWorkers = mayRunInThread(spec) ? undefined : retainWorkers(workerFile);
  let compiled: CompiledUnits;
  try {
    compiled = await compileUnits(spec, wantsInstrumentation(spec));
  } catch (err) {
    releaseWorkers?.();
    throw err;
  }
  const { units, info } = compiled;
  // From here on only `held` is captured: the closures below live as long as the tool, and the
  // module's bytes are not needed once compiled (docs/decisions.md "Bytes kept after compiling").
  const held = withoutModuleBytes(spec);
  const setup = instanceSetup(held, workerFile, units, info);
  const { secrets } = setup;
  const poolOptions: Omit<PoolOptions, 'spawn'> = {
    max: held.pool?.max ?? LIMITS.poolMax.default,
    idleMs: held.pool?.idleMs ?? LIMITS.poolIdleMs.default,
    warmStartMs: limits.timeoutMs,
    newControl: (ms: number) => new CallControl(new AbortController().signal, ms),
  };
  const counts: PathCounts = { inThread: 0, worker: 0, moved: 0 };
  const inThread =
    mayRunInThread(held) && info.preemptible ? inThreadRoute(held, setup, poolOptions, counts) : undefined;
  const pool = new InstancePool({ ...poolOptions, spawn: (ctl) => SandboxInstance.spawn(setup, ctl) });
  let closed = false;
  // a tool that runs on the calling thread keeps a worker with room only once it has needed one
  if (!inThread) releaseWorkers ??= retainWorkers(workerFile);

  return {
    async call(input, opts) {
      if (closed) throw new ToolFailure('ABORTED', `tool "${held.name}": the sandbox is closed`);
      if (opts.signal.aborted) throw callerAbortFailure(opts.signal.reason);
      if (input.length > limits.maxInputBytes) {
        throw new ToolFailure(
          'INVALID_ARGS',
          `input is ${input.length} bytes; max_input_bytes is ${limits.maxInputBytes}`,
        );
      }
      const ctl = new CallControl(opts.signal, callTimeoutMs(opts.timeoutMs, limits.timeoutMs), opts.remainingMs);
      const run = async (path?: (p: string) => void): Promise<Uint8Array> => {
        if (inThread) {
          const here = await inThread.run(input, ctl);
          if (here !== undefined) {
            path?.('in-thread');
            return here;
          }
          releaseWorkers ??= retainWorkers(workerFile);
        }
        path?.(inThread ? 'moved' : 'worker');
        counts.worker++;
        // not raced here: every wait in pool.run races the control itself (a queued call's, a
        // start's, the instance's), so a call whose answer the host's poll catches arms no timer
        return await pool.run(input, ctl, opts.client);
      };
      try {
        return await tracedRun(tracer(), held.name, run);
      } catch (err) {
        if (err instanceof ToolFailure) throw err;
        // a fault of the host side (not the module): still a ToolFailure, never a raw error
        throw new ToolFailure('SANDBOX_ERROR', sanitizeMessage(`sandbox failure: ${messageOf(err)}`, secrets));
      } finally {
        ctl.dispose();
      }
    },
    stats: () => sumStats(pool.stats(), inThread?.stats()),
    prestart() {
      if (!closed && !inThread) pool.prestart();
    },
    paths: () => ({ ...counts }),
    async close() {
      closed = true;
      releaseWorkers?.();
      await Promise.all([pool.close(), inThread?.close()]);
    },
  };
}

/** The spec without its modules' bytes: what a tool keeps once they are compiled. */
function withoutModuleBytes(spec: SandboxToolSpec): SandboxToolSpec {
  const none = new Uint8Array(0);
  const { links } = spec;
  return { ...spec, wasm: none, ...(links !== undefined ? { links: links.map((l) => ({ ...l, wasm: none })) } : {}) };
}

/**
 * Loads the calling thread's runner (the Extism SDK) when any of these tools may run there: what a
 * first call of one would load next (docs/decisions.md, "First call of a fresh server, warm home").
 * A server whose tools all run in workers never loads it on its main thread.
 */
export async function loadRunnerFor(specs: readonly SandboxToolSpec[]): Promise<void> {
  if (specs.some(mayRunInThread)) await preloadRunner();
}

/** Off: the run. With tracing on, the run is a span saying which path it took and whether an instance started. */
function tracedRun(
  t: Tracer | undefined,
  tool: string,
  run: (path?: (p: string) => void) => Promise<Uint8Array>,
): Promise<Uint8Array> {
  if (t === undefined) return run();
  return t.child('sandbox run', { 'gen_ai.tool.name': tool }, (span) =>
    run((p) => span.set({ 'toolgate.sandbox.path': p })).catch((err: unknown) => {
      if (err instanceof ToolFailure) span.fail(err.code, err.message);
      throw err;
    }),
  );
}

/** A caller may shorten the deadline, never extend it past the tool's limit. */
function callTimeoutMs(asked: number | undefined, limitMs: number): number {
  return asked !== undefined && Number.isFinite(asked) && asked > 0 ? Math.min(asked, limitMs) : limitMs;
}

/** What every instance of the tool starts with: its compiled units, limits, mounts, secrets and gates. */
function instanceSetup(
  spec: SandboxToolSpec,
  workerFile: URL,
  units: CompiledUnits['units'],
  info: CompiledUnits['info'],
): InstanceSetup {
  const { limits } = spec;
  const secrets = [...spec.secretValues].filter((s) => s.length > 0).sort((a, b) => b.length - a.length);
  const logger = spec.logger;
  return {
    tool: spec.name,
    workerFile,
    init: {
      units,
      returnsStatus: info.returnsStatus,
      config: { ...spec.config },
      mounts: Object.entries(spec.allowedPaths).map(([guest, m]) => ({
        guest,
        host: m.host,
        mode: m.mode,
        ...(m.maxBytes !== undefined ? { maxBytes: m.maxBytes } : {}),
        ...(m.maxEntries !== undefined ? { maxEntries: m.maxEntries } : {}),
      })),
      maxOutputBytes: limits.maxOutputBytes,
      maxVarBytes: limits.maxVarBytes,
      maxLogBytes: limits.maxLogBytes,
      maxLogLines: MAX_LOG_LINES,
      allocBudget: allocBudget(limits),
      clientLogs: spec.clientFeatures?.includes('logging') === true,
      ...(spec.abi === 'component' ? { abi: 'component' as const, maxPages: limits.maxPages } : {}),
    },
    channelCapacity: Math.max(limits.maxInputBytes, limits.maxOutputBytes, limits.maxHttpResponseBytes) + CHANNEL_SLACK,
    secrets,
    allowedHosts: [...spec.allowedHosts],
    http: info.usesHttp
      ? createHttpGate({
          allowedHosts: spec.allowedHosts,
          maxResponseBytes: limits.maxHttpResponseBytes,
          timeoutMs: limits.timeoutMs,
        })
      : undefined,
    onLog: (msg) => forwardLog(logger, spec.name, secrets, msg),
  };
}

/** The calling-thread route: one instance, since one thread runs one call at a time. */
function inThreadRoute(
  spec: SandboxToolSpec,
  setup: InstanceSetup,
  poolOptions: Omit<PoolOptions, 'spawn'>,
  counts: PathCounts,
): InThreadRoute {
  return new InThreadRoute(
    // one thread runs one call at a time: a second in-thread instance would only hold memory
    new InstancePool({
      ...poolOptions,
      max: 1,
      spawn: (ctl) =>
        InThreadInstance.spawn(
          {
            tool: spec.name,
            init: setup.init,
            secrets: setup.secrets,
            sliceMs: spec.execution?.sliceMs ?? DEFAULT_SLICE_MS,
            onLog: setup.onLog,
          },
          ctl,
        ),
    }),
    counts,
  );
}

function sumStats(a: PoolStats, b: PoolStats | undefined): PoolStats {
  if (!b) return a;
  return { live: a.live + b.live, busy: a.busy + b.busy, idle: a.idle + b.idle, queued: a.queued + b.queued };
}

function forwardLog(logger: Logger | undefined, tool: string, secrets: readonly string[], msg: LogMessage): void {
  if (!logger) return;
  logger[msg.level]({ tool, source: 'module' }, cleanLogLine(msg.line, secrets));
}
