// The second runner kind (architecture.md §4): the core module of a component of toolgate's world
// (pdk-examples/js/lib/world.wit), with the glue that lowers and lifts the world's strings written
// here once, by hand, for that world, never generated from the component (docs/decisions.md,
// "JavaScript tools: components of one fixed world"). The module's imports were checked at load
// (module/imports.ts) and its shape against the world (module/component.ts). Same hooks, caps and
// channel as the Extism runner: HTTP through the host's gate, logs under the call's budget.
import {
  COMPONENT_CALL_EXPORT,
  COMPONENT_HOST_NAMESPACE,
  COMPONENT_POST_CALL_EXPORT,
  COMPONENT_REALLOC_EXPORT,
  PREEMPT_CHECK,
  PREEMPT_NAMESPACE,
} from '../module/host-imports.js';
import { Fault } from '../channel.js';
import { CallBudget } from './call-budget.js';
import type { CallResult, RunnerHooks, RunnerInit } from './plugin-runner.js';
import type { LogLevelName } from './protocol.js';
import { messageOf, ToolgateError } from '../../errors/index.js';

const encoder = new TextEncoder();
const decoder = new TextDecoder('utf-8', { fatal: true });
/** The world's log levels 0..4, as the host's. */
const LEVELS: readonly LogLevelName[] = ['trace', 'debug', 'info', 'warn', 'error'];

type Exports = {
  memory: WebAssembly.Memory;
  [COMPONENT_CALL_EXPORT]: (ptr: number, len: number) => number;
  [COMPONENT_POST_CALL_EXPORT]: (ret: number) => void;
  [COMPONENT_REALLOC_EXPORT]: (old: number, oldSize: number, align: number, size: number) => number;
};

/** Thrown by the glue when the module broke the canonical ABI (a bad pointer or string): the call traps. */
export class AbiBreach extends ToolgateError<'ABI_BREACH'> {
  constructor(message: string) {
    super('ABI_BREACH', message);
  }
}

export class ComponentRunner {
  #exports!: Exports;
  readonly #budget: CallBudget;

  private constructor(
    private readonly init: RunnerInit,
    private readonly hooks: RunnerHooks,
  ) {
    this.#budget = new CallBudget(init);
  }

  static async start(init: RunnerInit, hooks: RunnerHooks): Promise<ComponentRunner> {
    const runner = new ComponentRunner(init, hooks);
    const unit = init.units[0];
    try {
      if (unit === undefined || init.units.length !== 1)
        throw new Error('a component tool has exactly one core module');
      // an instrumented core module (module/preempt.ts) also imports the fuel check; in a worker it
      // only refills, since terminating the worker is what stops a call there
      const instance = await WebAssembly.instantiate(unit.module, {
        [COMPONENT_HOST_NAMESPACE]: runner.#host(),
        [PREEMPT_NAMESPACE]: { [PREEMPT_CHECK]: () => hooks.preempt() },
      });
      runner.#exports = instance.exports as unknown as Exports;
    } catch (err) {
      throw new Error(`instance failed to start: ${runner.describe(err)}`);
    }
    return runner;
  }

  /** One call of the world's `call`: input string in, result<string, string> out. Never throws. */
  async call(input: Uint8Array): Promise<CallResult> {
    this.#budget.reset();
    try {
      decoder.decode(input);
    } catch {
      return {
        ok: false,
        fault: Fault.TOOL_ERROR,
        message: 'the input is not UTF-8 text; a component tool takes a string',
      };
    }
    try {
      const ex = this.#exports;
      const [ptr, len] = this.#lowerBytes(input);
      const ret = ex[COMPONENT_CALL_EXPORT](ptr, len);
      const tag = this.#view().getUint8(ret);
      const bytes = this.#liftBytes(ret + 4).slice();
      ex[COMPONENT_POST_CALL_EXPORT](ret);
      if (tag === 1) return { ok: false, fault: Fault.TOOL_ERROR, message: decoder.decode(bytes) };
      if (tag !== 0) throw new AbiBreach(`call returned the result tag ${tag}`);
      if (bytes.length > this.init.maxOutputBytes) {
        return {
          ok: false,
          fault: Fault.OUTPUT_TOO_LARGE,
          message: `output is ${bytes.length} bytes; max_output_bytes is ${this.init.maxOutputBytes}`,
        };
      }
      return { ok: true, bytes };
    } catch (err) {
      return { ok: false, fault: Fault.TOOL_TRAP, message: this.describe(err) };
    }
  }

  async finish(): Promise<void> {
    this.#budget.reportDropped((level, text) => this.hooks.log(level, text));
  }

  describe(err: unknown): string {
    if (err instanceof WebAssembly.RuntimeError) return `trap: ${err.message}${this.#atCap()}`;
    if (err instanceof AbiBreach) return `the module broke toolgate's world: ${err.message}`;
    return messageOf(err);
  }

  /**
   * A trap's memory: the engine traps when it cannot grow past the cap, usually short of the last
   * page, so "at its cap" means within an eighth of it.
   */
  #atCap(): string {
    const cap = this.init.maxPages ?? 65536;
    const pages = this.#exports === undefined ? 0 : this.#exports.memory.buffer.byteLength / 65536;
    const where = pages * 8 >= cap * 7 ? 'at its cap' : 'under its cap';
    return ` (memory ${where}: ${pages} of capabilities.memory.max_pages = ${cap} pages)`;
  }

  #view(): DataView {
    return new DataView(this.#exports.memory.buffer);
  }

  #liftBytes(at: number): Uint8Array {
    const view = this.#view();
    const ptr = view.getUint32(at, true);
    const len = view.getUint32(at + 4, true);
    if (ptr + len > view.byteLength) throw new AbiBreach(`a string at ${ptr} of ${len} bytes runs past memory`);
    return new Uint8Array(this.#exports.memory.buffer, ptr, len);
  }

  #liftString(ptr: number, len: number): string {
    if (ptr + len > this.#exports.memory.buffer.byteLength)
      throw new AbiBreach(`a string at ${ptr} of ${len} bytes runs past memory`);
    try {
      return decoder.decode(new Uint8Array(this.#exports.memory.buffer, ptr, len));
    } catch {
      throw new AbiBreach('a string is not UTF-8');
    }
  }

  /** Copies bytes into the module's memory through its own allocator. */
  #lowerBytes(bytes: Uint8Array): [number, number] {
    const ptr = this.#exports[COMPONENT_REALLOC_EXPORT](0, 0, 1, bytes.length);
    if (ptr + bytes.length > this.#exports.memory.buffer.byteLength)
      throw new AbiBreach('cabi_realloc returned memory it does not have');
    new Uint8Array(this.#exports.memory.buffer, ptr, bytes.length).set(bytes);
    return [ptr, bytes.length];
  }

  /** Writes a result or option of a string at `ret`: the tag, then the string's pointer and length. */
  #writeTagged(ret: number, tag: number, text: string | undefined): void {
    const [ptr, len] = text === undefined ? [0, 0] : this.#lowerBytes(encoder.encode(text));
    const view = this.#view();
    view.setUint8(ret, tag);
    view.setUint32(ret + 4, ptr, true);
    view.setUint32(ret + 8, len, true);
  }

  /** The world's host interface; each function reads and writes only the module's own memory. */
  #host(): Record<string, (...args: number[]) => void> {
    return {
      'http-request': (ptr, len, ret) => {
        const reply = this.#http(this.#liftString(ptr, len));
        this.#writeTagged(ret, reply.ok ? 0 : 1, reply.text);
      },
      log: (level, ptr, len) => this.#log(LEVELS[level] ?? 'info', this.#liftString(ptr, len)),
      'config-get': (ptr, len, ret) => {
        const key = this.#liftString(ptr, len);
        const value = Object.hasOwn(this.init.config, key) ? this.init.config[key] : undefined;
        if (value !== undefined) this.#charge(value.length, 'config-get');
        this.#writeTagged(ret, value === undefined ? 0 : 1, value);
      },
    };
  }

  /** The world's JSON request to the gate's payload (u32 JSON length, JSON, body) and its reply back to JSON. */
  #http(requestJson: string): { ok: boolean; text: string } {
    let request: { url?: unknown; method?: unknown; headers?: unknown; body?: unknown };
    try {
      request = JSON.parse(requestJson) as typeof request;
    } catch {
      return { ok: false, text: 'the request is not JSON' };
    }
    const head = encoder.encode(
      JSON.stringify({ url: request.url, method: request.method ?? 'GET', headers: request.headers ?? {} }),
    );
    const body = typeof request.body === 'string' ? encoder.encode(request.body) : new Uint8Array(0);
    const payload = new Uint8Array(4 + head.length + body.length);
    new DataView(payload.buffer).setUint32(0, head.length, true);
    payload.set(head, 4);
    payload.set(body, 4 + head.length);
    try {
      const reply = this.hooks.http(payload);
      this.#charge(reply.body.length, 'http-request response');
      const text = new TextDecoder().decode(reply.body);
      return {
        ok: true,
        text: JSON.stringify({
          status: reply.status,
          headers: JSON.parse(reply.headers || '{}') as unknown,
          body: text,
        }),
      };
    } catch (err) {
      if (err instanceof AbiBreach) throw err;
      return { ok: false, text: messageOf(err) };
    }
  }

  /** Host memory a call takes (responses, config values), from the same budget as the Extism runner's. */
  #charge(size: number, what: string): void {
    const refused = this.#budget.charge(size, what);
    if (refused !== undefined) throw new AbiBreach(refused);
  }

  #log(level: LogLevelName, line: string): void {
    if (this.#budget.takeLog(Buffer.byteLength(line))) this.hooks.log(level, line);
  }
}
