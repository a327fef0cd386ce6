// The host side of one isolated instance: a worker thread running one plugin, reached through a
// shared-memory channel. Teardown is worker.terminate(): whatever the module does, it stops.
import type { Worker } from 'node:worker_threads';
import { z } from 'zod';
import { ToolFailure, type CallClient } from '../tool/index.js';
import { serveClient, type ClientServeSetup } from './client-serve.js';
import type { HttpGate } from './http/index.js';
import type { CallControl } from './call-control.js';
import type { PooledInstance } from './pool.js';
import { Channel, Op } from './channel.js';
import { failureOf } from './fault.js';
import { sanitizeMessage } from './sanitize.js';
import { takeWorker } from './worker-spare.js';
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
const httpRequestJson = z.object({
  url: z.string(),
  method: z.string().nullish(),
  headers: z.record(z.string(), z.string()).nullish(),
});

export class SandboxInstance implements PooledInstance {
  /** Set when the instance must not serve another call (trap, protocol error, crash). */
  poisoned = false;
  #dead = false;
  /** Why the instance died; a pending wait is woken (releaseHostWaiter) and throws it. */
  #death: ToolFailure | undefined;
  readonly #encoder = new TextEncoder();
  readonly #clientSetup: ClientServeSetup;

  private constructor(
    private readonly setup: InstanceSetup,
    private readonly worker: Worker,
    private readonly channel: Channel,
  ) {
    this.#clientSetup = {
      tool: setup.tool,
      secrets: setup.secrets,
      allowedHosts: setup.allowedHosts,
      onLog: (level, line) => setup.onLog({ kind: 'log', level, line }),
    };
    worker.on('message', (m: unknown) => {
      if (typeof m === 'object' && m !== null && (m as { kind?: unknown }).kind === 'log') setup.onLog(m as LogMessage);
    });
    worker.on('error', (err) => this.#markDead(`the instance crashed: ${err.message}`));
    worker.on('exit', (code) => this.#markDead(`the instance exited (code ${code})`));
    // idle instances must not keep the process alive; a running call holds its own deadline timer
    worker.unref();
  }

  get dead(): boolean {
    return this.#dead;
  }

  #markDead(reason: string): void {
    if (this.#dead) return;
    this.#dead = true;
    this.poisoned = true;
    this.#death = new ToolFailure('TOOL_ERROR', sanitizeMessage(reason, this.setup.secrets));
    // settles a pending waitForWorker now, so it neither waits for its deadline nor holds the channel
    this.channel.releaseHostWaiter();
  }

  /** Starts a worker and waits (within the call's deadline) until the module is instantiated and initialized. */
  static async spawn(setup: InstanceSetup, ctl: CallControl): Promise<SandboxInstance> {
    const channel = Channel.create(setup.channelCapacity);
    const init: WorkerInit = { ...setup.init, sab: channel.sab };
    const worker = takeWorker(setup.workerFile);
    const instance = new SandboxInstance(setup, worker, channel);
    worker.postMessage(init);
    try {
      const msg = await instance.#next(ctl);
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

  // The host polls at most 50 µs, adaptively (channel.ts #spin); the worker polls for the next call.
  async #next(ctl: CallControl): Promise<{ op: number; aux: number; data: Uint8Array }> {
    if (ctl.failure) throw ctl.failure;
    if (this.#death) throw this.#death;
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
    if (!this.channel.write(Op.CALL, input, this.channel.callAux())) {
      throw new ToolFailure(
        'INVALID_ARGS',
        `input of ${input.length} bytes does not fit the channel (${this.channel.capacity})`,
      );
    }
    this.channel.sendToWorker();
    for (;;) {
      const msg = await this.#next(ctl);
      switch (msg.op) {
        case Op.RESULT_OK:
          return msg.data;
        case Op.RESULT_ERR: {
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
    const parsed = httpRequestJson.safeParse(json);
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

  terminate(): Promise<void> {
    this.#markDead('the instance was torn down');
    return this.worker.terminate().then(
      () => undefined,
      () => undefined,
    );
  }
}
