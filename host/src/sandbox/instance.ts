// The host side of one isolated instance: a plugin in an instance worker (instance-workers.ts),
// reached through its own shared-memory channel. Tearing down an instance whose call runs is
// terminating its worker: whatever the module does, it stops. An idle one is dropped in place.
import { z } from 'zod';
import { ToolFailure, type CallClient } from '../tool/index.js';
import { serveClient, type ClientServeSetup } from './client-serve.js';
import type { HttpGate } from './http/index.js';
import type { CallControl } from './call-control.js';
import type { PooledInstance } from './pool.js';
import { Channel, Op } from './channel.js';
import { failureOf } from './fault.js';
import { sanitizeMessage } from './sanitize.js';
import { placeInstance, type InstanceWorker, type Member } from './instance-workers.js';
import type { LogMessage, WorkerInit } from './worker/protocol.js';
import { messageOf } from '../errors/index.js';

export interface InstanceSetup {
  tool: string;
  workerFile: URL;
  init: Omit<WorkerInit, 'sab'>;
  channelCapacity: number;
  secrets: readonly string[];
  /** capabilities.allowed_hosts (a hyper-mcp URL-mode elicitation may only send the user there). */
  allowedHosts: readonly string[];
  http: HttpGate | undefined;
  onLog(msg: LogMessage): void;
}

// Extism hosts treat a null or absent method as GET (the Rust PDK sends `"method": null` for GET),
// and null headers as none.
// Built on a tool's first request, not when the sandbox's code loads (docs/decisions.md, "First
// call of a fresh server, warm home").
const buildHttpRequestJson = () =>
  z.object({
    url: z.string(),
    method: z.string().nullish(),
    headers: z.record(z.string(), z.string()).nullish(),
  });
let httpRequestJson: ReturnType<typeof buildHttpRequestJson> | undefined;

export class SandboxInstance implements PooledInstance, Member {
  /** Set when the instance must not serve another call (trap, protocol error, crash). */
  poisoned = false;
  /** Every wait in spawn and run races the call's control (#next, #serveHttp, serveClient). */
  readonly racesControl = true;
  #dead = false;
  /** Why the instance died; a pending wait is woken (releaseHostWaiter) and throws it. */
  #death: ToolFailure | undefined;
  readonly #encoder = new TextEncoder();
  readonly #clientSetup: ClientServeSetup;
  /** A start or call was sent and its answer not read yet: only terminating the worker stops it. */
  #running = false;
  #slot = 0;
  #onLost: (() => void) | undefined;
  readonly tool: object;
  readonly heldBytes: number;
  readonly callBytes: number;
  readonly alone: boolean;

  /** Set by spawn, which places the instance (placing needs the instance's own budget and tool). */
  private worker!: InstanceWorker;

  private constructor(
    private readonly setup: InstanceSetup,
    private readonly channel: Channel,
  ) {
    this.#clientSetup = {
      tool: setup.tool,
      secrets: setup.secrets,
      allowedHosts: setup.allowedHosts,
      onLog: (level, line) => setup.onLog({ kind: 'log', level, line }),
    };
    this.tool = setup;
    this.heldBytes = setup.init.maxVarBytes;
    this.callBytes = setup.init.allocBudget;
    this.alone = setup.init.abi === 'component';
  }

  get dead(): boolean {
    return this.#dead;
  }

  onLog(msg: LogMessage): void {
    this.setup.onLog({ kind: 'log', level: msg.level, line: msg.line });
  }

  /** Its worker died, or was terminated to stop another instance's call. */
  lost(reason: string): void {
    this.#markDead(reason);
    this.#onLost?.();
  }

  watch(lost: () => void): void {
    this.#onLost = lost;
  }

  /** Takes the worker's thread for a call; false while another instance's call or start holds it. */
  claim(): boolean {
    if (this.#dead) return false;
    if (this.worker.holder !== undefined && this.worker.holder !== this) return false;
    this.worker.holder = this;
    return true;
  }

  unclaim(): void {
    if (this.worker.holder === this) this.worker.holder = undefined;
  }

  #markDead(reason: string): void {
    if (this.#dead) return;
    this.#dead = true;
    this.poisoned = true;
    this.#death = new ToolFailure('TOOL_ERROR', sanitizeMessage(reason, this.setup.secrets));
    // settles a pending waitForWorker now, so it neither waits for its deadline nor holds the channel
    this.channel.releaseHostWaiter();
  }

  /**
   * Starts the instance in a worker with room (instance-workers.ts) and waits, within the call's
   * deadline, until the module is instantiated and initialized. The instance comes back claimed.
   */
  static async spawn(setup: InstanceSetup, ctl: CallControl): Promise<SandboxInstance> {
    const channel = Channel.create(setup.channelCapacity);
    const init: WorkerInit = { ...setup.init, sab: channel.sab };
    const instance = new SandboxInstance(setup, channel);
    instance.worker = placeInstance(instance, setup.workerFile);
    instance.#slot = instance.worker.add(instance, init);
    instance.#running = true;
    try {
      const msg = await instance.#next(ctl);
      if (msg.op === Op.READY || msg.op === Op.INIT_FAILED) instance.#running = false;
      if (msg.op === Op.READY) return instance;
      const text =
        msg.op === Op.INIT_FAILED
          ? new TextDecoder().decode(msg.data)
          : 'the instance sent an unexpected message while starting';
      throw new ToolFailure('TOOL_ERROR', sanitizeMessage(text, setup.secrets));
    } catch (err) {
      void instance.terminate();
      throw err;
    }
  }

  // The host polls at most 50 µs, adaptively (channel.ts #spin); the worker sleeps in Atomics.wait.
  async #next(ctl: CallControl): Promise<{ op: number; aux: number; data: Uint8Array }> {
    if (ctl.failure) throw ctl.failure;
    if (this.#death) throw this.#death;
    // An answer the poll catches is read with nothing armed or raced: no deadline timer or signal
    // listener can fire while this thread polls, and arming them cost ~2.5 µs of a ~24 µs call
    // (docs/decisions.md "The worker path, sixth round").
    if (this.channel.answered()) return this.channel.read();
    // No race with a per-instance promise here: each race would leave a reaction on it for the
    // instance's whole life (measured ~310 bytes of host heap per call). Death wakes the wait instead.
    for (;;) {
      const arrived = await ctl.race(this.channel.waitForWorker(ctl.remainingMs()));
      if (this.#death) throw ctl.failure ?? this.#death;
      if (arrived) return this.channel.read();
      // the wait ran out at the deadline: end the call now even if no timer has fired yet (a
      // deadline its owner keeps, read a hair early, waits out the rest)
      ctl.expire();
      if (ctl.failure) throw ctl.failure;
    }
  }

  /** Runs one call. Throws ToolFailure; on TIMEOUT/ABORTED the caller terminates this instance. */
  async run(input: Uint8Array, ctl: CallControl, client?: CallClient): Promise<Uint8Array> {
    if (this.#dead) throw new ToolFailure('TOOL_ERROR', 'the instance is gone');
    if (!this.claim()) throw new ToolFailure('SANDBOX_ERROR', "the instance's worker is running another call");
    if (!this.channel.write(Op.CALL, input)) {
      throw new ToolFailure(
        'INVALID_ARGS',
        `input of ${input.length} bytes does not fit the channel (${this.channel.capacity})`,
      );
    }
    this.channel.countCall();
    this.channel.sendToWorker();
    this.#running = true;
    this.worker.bell.ringCall(this.#slot);
    for (;;) {
      const msg = await this.#next(ctl);
      switch (msg.op) {
        case Op.RESULT_OK:
          this.#running = false;
          return msg.data;
        case Op.RESULT_ERR: {
          this.#running = false;
          const { failure, poisoned } = failureOf(msg.aux, new TextDecoder().decode(msg.data), this.setup.secrets);
          if (poisoned) this.poisoned = true;
          throw failure;
        }
        case Op.HTTP_REQUEST:
          await this.#serveHttp(msg.data, ctl);
          break;
        case Op.CLIENT_REQUEST: {
          const reply = await serveClient(msg.aux, msg.data, client, ctl, this.#clientSetup);
          if (!this.channel.write(Op.CLIENT_RESPONSE, reply.data, reply.aux)) {
            const why = `{"error":{"code":"FAILED","message":"the answer (${reply.data.length} bytes) does not fit the channel (${this.channel.capacity})"}}`;
            this.channel.write(Op.CLIENT_RESPONSE, this.#encoder.encode(why), reply.aux);
          }
          this.channel.sendToWorker();
          break;
        }
        default:
          this.poisoned = true;
          throw new ToolFailure('SANDBOX_ERROR', `unexpected message ${msg.op} from the instance`);
      }
    }
  }

  /** Does the module's HTTP request on the main thread while the worker waits, then wakes it. */
  async #serveHttp(payload: Uint8Array, ctl: CallControl): Promise<void> {
    const reply = (status: number, body: Uint8Array): void => {
      if (!this.channel.write(Op.HTTP_RESPONSE, body, status)) {
        this.channel.write(
          Op.HTTP_RESPONSE,
          this.#encoder.encode(`http_request failed: the response (${body.length} bytes) does not fit the channel`),
          -1,
        );
      }
      this.channel.sendToWorker();
    };
    const refuse = (why: string): void =>
      reply(-1, this.#encoder.encode(why.startsWith('http_request') ? why : `http_request refused: ${why}`));

    const view = new DataView(payload.buffer, payload.byteOffset, payload.byteLength);
    const jsonLength = payload.length >= 4 ? view.getUint32(0, true) : 0;
    let json: unknown;
    try {
      json = JSON.parse(new TextDecoder().decode(payload.subarray(4, 4 + jsonLength)));
    } catch {
      return refuse('the request block is not JSON');
    }
    const parsed = (httpRequestJson ??= buildHttpRequestJson()).safeParse(json);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      return refuse(`request ${issue?.path.join('.') || 'block'}: ${issue?.message ?? 'malformed'}`);
    }
    if (!this.setup.http) return refuse('this tool has no network access');
    const body = payload.subarray(4 + jsonLength);
    let outcome;
    try {
      outcome = await ctl.race(
        this.setup.http.request(
          {
            method: parsed.data.method ?? 'GET',
            url: parsed.data.url,
            headers: parsed.data.headers ?? {},
            ...(body.length > 0 ? { body: body.slice() } : {}),
          },
          ctl.signal,
        ),
      );
    } catch (err) {
      if (err instanceof ToolFailure && ctl.failure === err) throw err;
      return refuse(messageOf(err));
    }
    if (!outcome.ok) return refuse(outcome.error);
    const headers = this.#encoder.encode(JSON.stringify(outcome.headers));
    const out = new Uint8Array(4 + headers.length + outcome.body.length);
    new DataView(out.buffer).setUint32(0, headers.length, true);
    out.set(headers, 4);
    out.set(outcome.body, 4 + headers.length);
    reply(outcome.status, out);
  }

  /**
   * Tears the instance down. Idle (between calls), it is dropped in place and its worker keeps
   * serving the others. While its start or call runs, the worker is terminated: that is the only way
   * to stop a module mid-call; the worker's other instances are idle then (one call at a time) and
   * are lost with it (their pools start them again).
   */
  terminate(): Promise<void> {
    this.#markDead('the instance was torn down');
    if (!this.#running) {
      this.worker.drop(this.#slot);
      return Promise.resolve();
    }
    return this.worker.terminate(`the instance's worker was terminated to stop a call of tool "${this.setup.tool}"`);
  }
}
