// One plugin and the host functions it sees, with every per-call cap (alloc budget, vars, logs,
// output, write quotas). The same code serves a worker instance (instance-worker.ts) and an instance
// on the calling thread (in-thread.ts); they differ only in the hooks: where logs go, how an HTTP
// request is done, and what the preemption check does.
import createPlugin, { type CallContext, type Plugin } from '@extism/extism';
import { Fault } from '../channel.js';
import {
  CLIENT_NAMESPACE,
  HYPER_NAMESPACE,
  ENTRY_EXPORT,
  EXTISM_NAMESPACE,
  PREEMPT_CHECK,
  PREEMPT_NAMESPACE,
  STATUS_EXPORT,
} from '../module/host-imports.js';
import { createClientFunctions, type ClientFunctions } from './client-functions.js';
import { CallBudget } from './call-budget.js';
import { withLiveUnits, type LiveUnit } from './instantiate.js';
import type { LogLevelName, WorkerInit } from './protocol.js';
import type { QuotaHit } from '../wasi/index.js';
import { messageOf } from '../../errors/index.js';

export type RunnerInit = Omit<WorkerInit, 'sab'>;

export interface RunnerHooks {
  log(level: LogLevelName, line: string): void;
  /** Does the module's HTTP request (payload: u32 JSON length, JSON, body); throws to fail it. */
  http(payload: Uint8Array): { status: number; headers: string; body: Uint8Array };
  /** The instrumented module's fuel check: returns fresh fuel or throws to stop the call. */
  preempt(): number;
  /** Called before WASI sleeps (may throw). */
  beforeSleep?(ms: number): void;
  /** Called before long host work that no fuel check interrupts (may throw). */
  beforeBulk?(bytes: number): void;
  /**
   * Called after every host function the module calls (WASI, extism, toolgate:mcp), since a host
   * call costs the module one unit of fuel whatever work it does; may throw to stop the call.
   */
  afterHostCall?(): void;
  /**
   * Sends a toolgate:mcp request (op: ClientOp) to the host and waits for its answer. Only a worker
   * has it: tools that declare capabilities.mcp never run on the calling thread.
   */
  client?(op: number, payload: Uint8Array): { aux: number; data: Uint8Array };
}

/** The MCP level (index into debug..emergency) of each of the module's own log levels. */
const CLIENT_LEVEL: Record<LogLevelName, number> = { trace: 0, debug: 0, info: 1, warn: 3, error: 4 };

export type CallResult = { ok: true; bytes: Uint8Array } | { ok: false; fault: number; message: string };

const encoder = new TextEncoder();
const decoder = new TextDecoder();
const PLUGIN_ERROR_PREFIX = 'Plugin-originated error: ';
const ignore = (): undefined => undefined;

type HostFn = (ctx: CallContext, ...args: (number | bigint)[]) => number | bigint | void;

/** Reads a key block (left to the per-call reset, which frees every block). */
function readKey(ctx: CallContext, addr: number | bigint, what: string): string {
  const key = ctx.read(BigInt(addr));
  if (key === null) throw new Error(`${what}: the key address is not a valid block`);
  return key.string();
}

/**
 * What createPlugin is given. A lone main module goes as the WebAssembly.Module itself (extism
 * names it "main"): for a manifest object extism tests `instanceof Response`, and touching that
 * global loads Node's built-in fetch (~37 ms, and memory in every worker) although toolgate never
 * lets extism fetch. Linked modules need the named list.
 */
function pluginManifest(
  units: RunnerInit['units'],
): WebAssembly.Module | { wasm: { module: WebAssembly.Module; name: string }[] } {
  const [only, ...rest] = units;
  if (only !== undefined && rest.length === 0 && only.name === 'main') return only.module;
  return { wasm: units.map((u) => ({ module: u.module, name: u.name })) };
}

/** extism's fetch, for manifests that name a URL: toolgate gives modules as compiled modules only. */
const refuseFetch: typeof fetch = () =>
  Promise.reject(new Error('toolgate gives extism compiled modules; it never fetches one'));

export class PluginRunner {
  #allocRefused = false;
  #httpStatus = 0;
  #httpHeaders: string | undefined;
  #quota: { reset(): void; hit: QuotaHit | undefined } | undefined;
  #isWasiExit: (err: unknown) => number | undefined = () => undefined;
  #plugin!: Plugin;
  /** The module's status global (returnsStatus), looked up once: reading `exports` cost every call. */
  #status: WebAssembly.Global | undefined;
  /** True while a call runs: only then may a line go to the client (the host is waiting on it). */
  #inCall = false;
  readonly #client: ClientFunctions;
  readonly #budget: CallBudget;
  /** The dropped-lines notice's way out, made once rather than at every call's finish(). */
  readonly #logDropped = (level: 'warn', text: string): void => this.hooks.log(level, text);

  private constructor(
    private readonly init: RunnerInit,
    private readonly hooks: RunnerHooks,
  ) {
    this.#budget = new CallBudget(init);
    this.#client = createClientFunctions({
      ask: (op, payload) => {
        if (!this.hooks.client) throw new Error('toolgate:mcp is not available to this instance');
        return this.hooks.client(op, payload);
      },
      takeLogBudget: (size) => this.#budget.takeLog(size),
      charge: (size, what) => this.#charge(size, what),
    });
  }

  /** Instantiates the plugin (initialisers included); throws with a message for INIT_FAILED. */
  static async start(init: RunnerInit, hooks: RunnerHooks): Promise<PluginRunner> {
    const runner = new PluginRunner(init, hooks);
    try {
      await runner.#start();
    } catch (err) {
      throw new Error(`instance failed to start: ${runner.describe(err)}`);
    }
    return runner;
  }

  async #start(): Promise<void> {
    const functions: Record<string, Record<string, HostFn>> = {
      [EXTISM_NAMESPACE]: this.#extism(),
      [PREEMPT_NAMESPACE]: { [PREEMPT_CHECK]: () => this.hooks.preempt() },
      // toolgate:mcp: logs, progress, elicitation, sampling and roots through the host (capabilities.mcp)
      [CLIENT_NAMESPACE]: this.#client.functions,
      // hyper-mcp's functions: only a module.abi hyper-mcp module passes the load check importing them (units.ts)
      [HYPER_NAMESPACE]: this.#client.hyperFunctions,
    };
    const live: LiveUnit[] = this.init.units.map((unit) => ({ unit, memory: undefined }));
    for (const l of live) if (l.unit.usesWasi) functions[l.unit.wasiNamespace] = await this.#wasi(l);
    const after = this.hooks.afterHostCall;
    if (after !== undefined) {
      for (const [ns, fns] of Object.entries(functions))
        if (ns !== PREEMPT_NAMESPACE) functions[ns] = checkedAfter(fns, after);
    }
    this.#plugin = await withLiveUnits(live, () =>
      createPlugin(pluginManifest(this.init.units), {
        useWasi: false,
        runInWorker: false,
        fetch: refuseFetch,
        functions,
        config: this.init.config,
        logger: this.#logger(),
        logLevel: 'trace',
        memory: { maxVarBytes: this.init.maxVarBytes },
      }),
    );
    const instance = await this.#plugin.getInstance();
    if (this.init.returnsStatus) {
      const status = instance.exports[STATUS_EXPORT];
      if (!(status instanceof WebAssembly.Global)) throw new Error(`the module has no ${STATUS_EXPORT} global`);
      this.#status = status;
    }
  }

  /**
   * Runs the entry once with every per-call cap; never throws for what the module did. The caller
   * answers with the result, then calls finish() (off the caller's wait).
   */
  async call(input: Uint8Array): Promise<CallResult> {
    this.#resetCallState();
    this.#inCall = true;
    try {
      const output = await this.#plugin.call(ENTRY_EXPORT, input);
      if (this.#status !== undefined) {
        const status = this.#status.value as number;
        if (status !== 0) return this.#error(Fault.TOOL_ERROR, `the module returned status ${status}`);
      }
      const quota = this.#quotaExceeded();
      if (quota) return quota;
      const bytes = output === null ? new Uint8Array(0) : output.bytes();
      if (bytes.length > this.init.maxOutputBytes) {
        return this.#error(
          Fault.OUTPUT_TOO_LARGE,
          `output is ${bytes.length} bytes; max_output_bytes is ${this.init.maxOutputBytes}`,
        );
      }
      return { ok: true, bytes };
    } catch (err) {
      const quota = this.#quotaExceeded(this.describe(err));
      if (quota) return quota;
      const clean = err instanceof Error && err.message.startsWith(PLUGIN_ERROR_PREFIX);
      const fault = this.#allocRefused ? Fault.OUTPUT_TOO_LARGE_TRAP : clean ? Fault.TOOL_ERROR : Fault.TOOL_TRAP;
      return this.#error(fault, this.describe(err));
    } finally {
      this.#inCall = false;
    }
  }

  /**
   * After a call: the dropped-lines notice, and this call's Extism blocks freed (architecture.md
   * §8.8). Synchronous: the SDK's reset does its work before its first await, and its promise
   * only says whether a call was running, which none is once call() has returned; awaiting it
   * cost the calling thread's call a turn of the microtask queue.
   */
  finish(): void {
    this.#budget.reportDropped(this.#logDropped);
    const notices = this.#client.reset();
    if (notices > 0)
      this.hooks.log('warn', `${notices} client notices dropped (over the call's notice rate or notification cap)`);
    this.#plugin.reset().catch(ignore);
  }

  describe(err: unknown): string {
    const code = this.#isWasiExit(err);
    if (code !== undefined) return `module called proc_exit(${code})`;
    if (err instanceof WebAssembly.RuntimeError) return `trap: ${err.message}`;
    if (err instanceof Error)
      return err.message.startsWith(PLUGIN_ERROR_PREFIX) ? err.message.slice(PLUGIN_ERROR_PREFIX.length) : err.message;
    return String(err);
  }

  #error(fault: number, message: string): CallResult {
    return { ok: false, fault, message };
  }

  #resetCallState(): void {
    this.#quota?.reset();
    this.#client.reset();
    this.#budget.reset();
    this.#allocRefused = false;
    this.#httpStatus = 0;
    this.#httpHeaders = undefined;
  }

  /**
   * A call that ran into a write quota fails naming the mount and the limit, whatever the module did
   * next: what it wrote is incomplete. The instance is kept (the module only got ENOSPC).
   */
  #quotaExceeded(moduleSaid?: string): CallResult | undefined {
    const hit = this.#quota?.hit;
    if (hit === undefined) return undefined;
    const then = moduleSaid === undefined ? '' : `; the module then failed: ${moduleSaid}`;
    const limit =
      hit.kind === 'bytes'
        ? `${hit.guest} may take at most ${hit.limit} bytes per call (allowed_paths.${hit.guest}.max_bytes)`
        : `${hit.guest} may get at most ${hit.limit} new files and directories per call (allowed_paths.${hit.guest}.max_entries)`;
    return this.#error(Fault.QUOTA_EXCEEDED, `write quota exceeded: ${limit}; the module got ENOSPC${then}`);
  }

  #emitLog(level: LogLevelName, text: string): void {
    if (!this.#budget.takeLog(Buffer.byteLength(text))) return;
    // A tool that declared capabilities.mcp logging: its lines go to the client (and the server
    // log) in order with the rest of the call.
    if (this.init.clientLogs && this.#inCall && this.hooks.client) {
      this.#client.forwardLog(CLIENT_LEVEL[level], encoder.encode(text));
      return;
    }
    this.hooks.log(level, text);
  }

  /** The SDK logs through a Console-shaped object; only these five methods are used. */
  #logger(): Console {
    const at = (level: LogLevelName) => (t: string) => this.#emitLog(level, String(t));
    return {
      trace: at('trace'),
      debug: at('debug'),
      info: at('info'),
      warn: at('warn'),
      error: at('error'),
    } as unknown as Console;
  }

  /** Counts host memory a call takes; past the budget the host function throws (the call fails). */
  #charge(size: number, what: string): void {
    const refused = this.#budget.charge(size, what);
    if (refused === undefined) return;
    this.#allocRefused = true;
    throw new Error(refused);
  }

  /** The Extism host functions toolgate overrides (a fresh set per instance: architecture.md §8.9). */
  #extism(): Record<string, HostFn> {
    return {
      // A per-call budget: host-side buffers are never unbounded, whatever the module asks for.
      alloc: (ctx, n) => {
        const size = Number(n);
        this.#charge(size, 'alloc');
        return ctx.alloc(size);
      },
      // The SDK's var_get/config_get copy a value into a new block: charged to the same budget, or a
      // loop of var_get on a large var would grow host memory without bound.
      var_get: (ctx, keyAddr) => {
        const value = ctx.getVariable(readKey(ctx, keyAddr, 'var_get'))?.bytes();
        if (value === undefined) return 0n;
        this.#charge(value.length, 'var_get');
        return ctx.store(value.slice()); // a copy: writing to the block must not change the var
      },
      config_get: (ctx, keyAddr) => {
        const key = readKey(ctx, keyAddr, 'config_get');
        if (!Object.hasOwn(this.init.config, key)) return 0n;
        const value = encoder.encode(this.init.config[key]);
        this.#charge(value.length, 'config_get');
        return ctx.store(value);
      },
      var_set: (ctx, keyAddr, valueAddr) => {
        const key = readKey(ctx, keyAddr, 'var_set');
        if (BigInt(valueAddr) === 0n) return void ctx.deleteVariable(key);
        const value = ctx.read(BigInt(valueAddr));
        if (value === null) throw new Error('var_set: the value address is not a valid block');
        // setVariable throws past memory.maxVarBytes (total of all vars), naming both sizes
        try {
          ctx.setVariable(key, value.bytes().slice());
        } catch (err) {
          throw new Error(
            `var_set of ${value.bytes().length} bytes refused: ${messageOf(err)} (capabilities.memory.max_var_bytes is ${this.init.maxVarBytes})`,
          );
        }
      },
      http_request: (ctx, reqAddr, bodyAddr) => {
        const req = ctx.read(BigInt(reqAddr));
        if (req === null) throw new Error('http_request: the request address is not a valid block');
        const body = BigInt(bodyAddr) === 0n ? undefined : ctx.read(BigInt(bodyAddr))?.bytes();
        const reqBytes = req.bytes();
        const payload = new Uint8Array(4 + reqBytes.length + (body?.length ?? 0));
        new DataView(payload.buffer).setUint32(0, reqBytes.length, true);
        payload.set(reqBytes, 4);
        if (body) payload.set(body, 4 + reqBytes.length);
        const reply = this.hooks.http(payload);
        this.#httpStatus = reply.status;
        this.#httpHeaders = reply.headers;
        this.#charge(reply.body.length, 'http_request response');
        return ctx.store(reply.body); // a copy into a fresh block
      },
      http_status_code: () => this.#httpStatus,
      http_headers: (ctx) => {
        if (this.#httpHeaders === undefined) return 0n;
        this.#charge(Buffer.byteLength(this.#httpHeaders), 'http_headers');
        return ctx.store(this.#httpHeaders);
      },
    };
  }

  /** One WASI per module (its own descriptors), reading that module's memory. */
  async #wasi(unit: LiveUnit): Promise<Record<string, HostFn>> {
    // loaded only by instances of WASI modules: an idle instance of any other module stays smaller
    const wasi = await import('../wasi/index.js');
    this.#isWasiExit = (err) => (err instanceof wasi.WasiExit ? err.exitCode : undefined);
    const writeQuota = new wasi.WriteQuota();
    this.#quota = writeQuota;
    const fns = wasi.createWasiImports({
      quota: writeQuota,
      mounts: this.init.mounts,
      getMemory: () => unit.memory,
      writeStdout: (bytes) => this.#emitLog('info', decoder.decode(bytes).replace(/\n$/, '')),
      writeStderr: (bytes) => this.#emitLog('warn', decoder.decode(bytes).replace(/\n$/, '')),
      args: [],
      ...(this.hooks.beforeSleep ? { beforeSleep: this.hooks.beforeSleep } : {}),
      ...(this.hooks.beforeBulk ? { beforeBulk: this.hooks.beforeBulk } : {}),
    });
    // the SDK passes its call context first; WASI functions do not take it
    const out: Record<string, HostFn> = {};
    for (const [name, fn] of Object.entries(fns)) out[name] = (_ctx, ...args) => fn(...args);
    return out;
  }
}

/** Each host function, followed by `after` (which may throw to stop the call). */
function checkedAfter(fns: Record<string, HostFn>, after: () => void): Record<string, HostFn> {
  const out: Record<string, HostFn> = {};
  for (const [name, fn] of Object.entries(fns)) {
    out[name] = (...args) => {
      const result = fn(...args);
      after();
      return result;
    };
  }
  return out;
}
