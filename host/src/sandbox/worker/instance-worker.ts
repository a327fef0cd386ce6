// One sandbox instance: runs the plugin with the SDK in its main-thread mode inside this worker, and
// talks to the host only through the shared channel. Everything that can block (HTTP) is done by the
// host while this thread sleeps in Atomics.wait, so terminating the worker always cancels the call.
import { parentPort } from 'node:worker_threads';
import createPlugin, { type CallContext, type Plugin } from '@extism/extism';
import { Channel, Fault, Op } from '../channel.js';
import { ENTRY_EXPORT, EXTISM_NAMESPACE, PREEMPT_CHECK, PREEMPT_NAMESPACE, STATUS_EXPORT } from '../module/host-imports.js';
import { withLiveUnits, type LiveUnit } from './instantiate.js';
import type { LogLevelName, LogMessage, WorkerInit } from './protocol.js';
import type { QuotaHit } from '../wasi/index.js';

// While reading its manifest the SDK tests `manifest instanceof Response`; the first touch of Node's
// global Response loads Node's bundled undici into this isolate, which cost every instance start
// 50-140 ms. An instance never fetches (its HTTP goes through the host's gate), so here Response is
// a stand-in that no value is an instance of.
Object.defineProperty(globalThis, 'Response', { value: class Response {}, configurable: true, writable: true });

// Set by the host's first (and only) message: the worker boots before it knows its module.
let init!: WorkerInit;
let channel!: Channel;
const encoder = new TextEncoder();
const decoder = new TextDecoder();
/** Errors sent back are cut here; the host cuts again (1 KiB) after sanitizing. */
const MAX_ERROR_BYTES = 4096;
const PLUGIN_ERROR_PREFIX = 'Plugin-originated error: ';
/** How long (ms) the worker polls for the next call before sleeping in Atomics.wait (see channel.ts). */
const WORKER_SPIN_MS = 0.1;
const MAX_MISSES = 4;
const PROBE_EVERY = 16;

// ---- per-call state ----
let allocated = 0;
let allocRefused = false;
let logLines = 0;
let logBytes = 0;
let logDropped = 0;
let httpStatus = 0;
let httpHeaders: string | undefined;
/** Set once WASI is loaded: the rw mounts' per-call write quotas. */
let quota: { reset(): void; hit: QuotaHit | undefined } | undefined;

function resetCallState(): void {
  quota?.reset();
  allocated = 0;
  allocRefused = false;
  logLines = 0;
  logBytes = 0;
  logDropped = 0;
  httpStatus = 0;
  httpHeaders = undefined;
}

function emitLog(level: LogLevelName, text: string): void {
  const size = Buffer.byteLength(text);
  if (logLines >= init.maxLogLines || logBytes + size > init.maxLogBytes) {
    logDropped++;
    return;
  }
  logLines++;
  logBytes += size;
  const msg: LogMessage = { kind: 'log', level, line: text };
  parentPort?.postMessage(msg);
}

function flushDropped(): void {
  if (logDropped > 0) {
    const msg: LogMessage = { kind: 'log', level: 'warn', line: `${logDropped} log lines dropped` };
    parentPort?.postMessage(msg);
  }
}

// The SDK logs through a Console-shaped object; only these five methods are used.
const logger = {
  trace: (t: string) => emitLog('trace', String(t)),
  debug: (t: string) => emitLog('debug', String(t)),
  info: (t: string) => emitLog('info', String(t)),
  warn: (t: string) => emitLog('warn', String(t)),
  error: (t: string) => emitLog('error', String(t)),
} as unknown as Console;

/** Counts host memory a call takes; past the budget the host function throws (the call fails). */
function charge(size: number, what: string): void {
  if (!(size >= 0) || allocated + size > init.allocBudget) {
    allocRefused = true;
    throw new Error(`${what} of ${size} bytes refused: this call may allocate ${init.allocBudget} bytes of host memory (${allocated} used)`);
  }
  allocated += size;
}

/** Reads a key block (left to the per-call reset, which frees every block). */
function readKey(ctx: CallContext, addr: number | bigint, what: string): string {
  const key = ctx.read(BigInt(addr));
  if (key === null) throw new Error(`${what}: the key address is not a valid block`);
  return key.string();
}

// ---- host functions (a fresh set per instance: FINDINGS 15) ----
type HostFn = (ctx: CallContext, ...args: (number | bigint)[]) => number | bigint | void;

const extism: Record<string, HostFn> = {
  // A per-call budget: host-side buffers are never unbounded, whatever the module asks for.
  alloc: (ctx, n) => {
    const size = Number(n);
    charge(size, 'alloc');
    return ctx.alloc(size);
  },
  // The SDK's var_get/config_get copy a value into a new block: charged to the same budget, or a
  // loop of var_get on a large var would grow host memory without bound.
  var_get: (ctx, keyAddr) => {
    const key = readKey(ctx, keyAddr, 'var_get');
    const value = ctx.getVariable(key)?.bytes();
    if (value === undefined) return 0n;
    charge(value.length, 'var_get');
    return ctx.store(value.slice()); // a copy: writing to the block must not change the var
  },
  config_get: (ctx, keyAddr) => {
    const key = readKey(ctx, keyAddr, 'config_get');
    if (!Object.hasOwn(init.config, key)) return 0n;
    const value = encoder.encode(init.config[key]);
    charge(value.length, 'config_get');
    return ctx.store(value);
  },
  var_set: (ctx, keyAddr, valueAddr) => {
    const key = ctx.read(BigInt(keyAddr));
    if (key === null) throw new Error('var_set: the key address is not a valid block');
    if (BigInt(valueAddr) === 0n) {
      ctx.deleteVariable(key.string());
      return;
    }
    const value = ctx.read(BigInt(valueAddr));
    if (value === null) throw new Error('var_set: the value address is not a valid block');
    // setVariable throws past memory.maxVarBytes (total of all vars), naming both sizes
    try {
      ctx.setVariable(key.string(), value.bytes().slice());
    } catch (err) {
      throw new Error(`var_set of ${value.bytes().length} bytes refused: ${err instanceof Error ? err.message : String(err)} (capabilities.memory.max_var_bytes is ${init.maxVarBytes})`);
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
    if (!channel.write(Op.HTTP_REQUEST, payload)) {
      throw new Error(`http_request refused: the request is ${payload.length} bytes; at most ${channel.capacity} fit`);
    }
    channel.sendToHost();
    channel.waitForHost();
    const reply = channel.read(true);
    if (reply.op !== Op.HTTP_RESPONSE) throw new Error('http_request: protocol error');
    if (reply.aux < 0) throw new Error(decoder.decode(reply.data));
    const headersLength = new DataView(reply.data.buffer, reply.data.byteOffset).getUint32(0, true);
    httpStatus = reply.aux;
    httpHeaders = decoder.decode(reply.data.subarray(4, 4 + headersLength));
    const responseBody = reply.data.subarray(4 + headersLength);
    charge(responseBody.length, 'http_request response');
    // store() copies out of the shared buffer into a fresh block
    return ctx.store(responseBody);
  },
  http_status_code: () => httpStatus,
  http_headers: (ctx) => {
    if (httpHeaders === undefined) return 0n;
    charge(Buffer.byteLength(httpHeaders), 'http_headers');
    return ctx.store(httpHeaders);
  },
};

let plugin: Plugin;
let instance: WebAssembly.Instance;
let isWasiExit: (err: unknown) => number | undefined = () => undefined;
/** One WASI per module (its own descriptors), reading that module's memory. */
async function wasiFunctions(unit: LiveUnit): Promise<Record<string, HostFn>> {
  // loaded only by instances of WASI modules: an idle instance of any other module stays smaller
  const wasi = await import('../wasi/index.js');
  isWasiExit = (err) => (err instanceof wasi.WasiExit ? err.code : undefined);
  const writeQuota = new wasi.WriteQuota();
  quota = writeQuota;
  const fns = wasi.createWasiImports({
    quota: writeQuota,
    mounts: init.mounts,
    getMemory: () => unit.memory,
    writeStdout: (bytes) => emitLog('info', decoder.decode(bytes).replace(/\n$/, '')),
    writeStderr: (bytes) => emitLog('warn', decoder.decode(bytes).replace(/\n$/, '')),
    args: [],
  });
  // the SDK passes its call context first; WASI functions do not take it
  const out: Record<string, HostFn> = {};
  for (const [name, fn] of Object.entries(fns)) out[name] = (_ctx, ...args) => fn(...args);
  return out;
}

function describe(err: unknown): string {
  const code = isWasiExit(err);
  if (code !== undefined) return `module called proc_exit(${code})`;
  if (err instanceof WebAssembly.RuntimeError) return `trap: ${err.message}`;
  if (err instanceof Error) {
    return err.message.startsWith(PLUGIN_ERROR_PREFIX) ? err.message.slice(PLUGIN_ERROR_PREFIX.length) : err.message;
  }
  return String(err);
}

function sendResult(op: number, payload: Uint8Array, aux = 0): void {
  channel.write(op, payload, aux);
  channel.sendToHost();
}

function sendError(fault: number, message: string): void {
  sendResult(Op.RESULT_ERR, encoder.encode(message).subarray(0, MAX_ERROR_BYTES), fault);
}

async function start(): Promise<boolean> {
  try {
    // in a worker, terminate() stops a call: an instrumented module's fuel check just refills
    const functions: Record<string, Record<string, HostFn>> = { [EXTISM_NAMESPACE]: extism, [PREEMPT_NAMESPACE]: { [PREEMPT_CHECK]: () => 0x7fffffff } };
    const live: LiveUnit[] = init.units.map((unit) => ({ unit, memory: undefined }));
    for (const l of live) if (l.unit.usesWasi) functions[l.unit.wasiNamespace] = await wasiFunctions(l);
    const wasm = init.units.map((u) => ({ module: u.module, name: u.name }));
    plugin = await withLiveUnits(live, () =>
      createPlugin({ wasm }, {
        useWasi: false,
        runInWorker: false,
        functions,
        config: init.config,
        logger,
        logLevel: 'trace',
        memory: { maxVarBytes: init.maxVarBytes },
      }),
    );
    instance = await plugin.getInstance();
    sendResult(Op.READY, new Uint8Array(0));
    return true;
  } catch (err) {
    channel.write(Op.INIT_FAILED, encoder.encode(`instance failed to start: ${describe(err)}`).subarray(0, MAX_ERROR_BYTES), Fault.TOOL_TRAP);
    channel.sendToHost();
    return false;
  }
}

/**
 * A call that ran into a write quota fails naming the mount and the limit, whatever the module did
 * next: what it wrote is incomplete. The instance is kept (the module only got ENOSPC).
 */
function quotaExceeded(moduleSaid?: string): boolean {
  const hit = quota?.hit;
  if (hit === undefined) return false;
  const then = moduleSaid === undefined ? '' : `; the module then failed: ${moduleSaid}`;
  const limit =
    hit.kind === 'bytes'
      ? `${hit.guest} may take at most ${hit.limit} bytes per call (allowed_paths.${hit.guest}.max_bytes)`
      : `${hit.guest} may get at most ${hit.limit} new files and directories per call (allowed_paths.${hit.guest}.max_entries)`;
  sendError(Fault.QUOTA_EXCEEDED, `write quota exceeded: ${limit}; the module got ENOSPC${then}`);
  return true;
}

async function runCall(input: Uint8Array): Promise<void> {
  resetCallState();
  try {
    const output = await plugin.call(ENTRY_EXPORT, input);
    if (init.returnsStatus) {
      const status = (instance.exports[STATUS_EXPORT] as WebAssembly.Global).value as number;
      if (status !== 0) {
        sendError(Fault.TOOL_ERROR, `the module returned status ${status}`);
        return;
      }
    }
    if (quotaExceeded()) return;
    const bytes = output === null ? new Uint8Array(0) : output.bytes();
    if (bytes.length > init.maxOutputBytes) {
      sendError(Fault.OUTPUT_TOO_LARGE, `output is ${bytes.length} bytes; max_output_bytes is ${init.maxOutputBytes}`);
      return;
    }
    sendResult(Op.RESULT_OK, bytes);
  } catch (err) {
    if (quotaExceeded(describe(err))) return;
    const clean = err instanceof Error && err.message.startsWith(PLUGIN_ERROR_PREFIX);
    const fault = allocRefused ? Fault.OUTPUT_TOO_LARGE_TRAP : clean ? Fault.TOOL_ERROR : Fault.TOOL_TRAP;
    sendError(fault, describe(err));
  } finally {
    flushDropped();
    // drop this call's Extism blocks now (FINDINGS 14)
    await plugin.reset();
  }
}

async function main(): Promise<void> {
  if (!(await start())) return;
  // Adaptive: after MAX_MISSES polls in a row that the next call did not arrive in time (calls are
  // not back to back, or host and worker share a core), stop polling and poll again on every
  // PROBE_EVERY-th call only, so a worker whose polls do not pay stops spending CPU on them.
  let misses = 0;
  let calls = 0;
  for (;;) {
    calls++;
    const poll = misses < MAX_MISSES || calls % PROBE_EVERY === 0;
    const caught = channel.waitForHost(poll ? WORKER_SPIN_MS : 0);
    if (caught) misses = 0;
    else if (poll) misses++;
    const msg = channel.read(true);
    if (msg.op === Op.CALL) await runCall(msg.data);
  }
}

parentPort?.once('message', (message: unknown) => {
  init = message as WorkerInit;
  channel = new Channel(init.sab);
  void main();
});
