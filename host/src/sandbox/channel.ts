// The host<->worker channel: one SharedArrayBuffer per instance. Strictly alternating messages
// (call -> [http or toolgate:mcp request -> its response]* -> result), so one data area serves both directions.
// The worker blocks with Atomics.wait; the host polls briefly, then waits with Atomics.waitAsync.
// No postMessage on the hot path.

const HEADER_BYTES = 64;
const TO_WORKER = 0; // sequence number the host bumps
const TO_HOST = 1; // sequence number the worker bumps
const OP = 2;
const LEN = 3;
const AUX = 4;

/** How long the host may poll for a worker's answer before it sleeps in waitAsync (ms). */
const HOST_SPIN_MS = 0.05;

export const Op = {
  // worker -> host
  READY: 1,
  INIT_FAILED: 2,
  RESULT_OK: 3,
  RESULT_ERR: 4,
  HTTP_REQUEST: 5,
  /** A toolgate:mcp call (AUX: ClientOp); the worker waits for CLIENT_RESPONSE. */
  CLIENT_REQUEST: 6,
  // host -> worker
  CALL: 10,
  HTTP_RESPONSE: 11,
  CLIENT_RESPONSE: 12,
} as const;

/** Which toolgate:mcp function a CLIENT_REQUEST carries. */
export const ClientOp = {
  /** [level u8][UTF-8 text]; answer AUX 0 = sent, 1 = filtered out or no client. */
  LOG: 1,
  /** [progress f64][total f64, NaN = none][UTF-8 message]; answer AUX 0 = sent, 1 = no progress token. */
  PROGRESS: 2,
  /** JSON params; answer: JSON (the client's result, or {"error": {code, message}}). */
  ELICIT: 3,
  SAMPLE: 4,
  /** JSON params of roots/list (may be {}); answer as ELICIT. */
  ROOTS: 5,
  /** hyper-mcp create_elicitation: its JSON (form or URL mode, optional timeout); answer as ELICIT. */
  HYPER_ELICIT: 6,
  /** hyper-mcp notify_logging_message: its JSON {level, logger?, data}; answer as LOG. */
  HYPER_LOG: 7,
  /** hyper-mcp notify_progress: its JSON {progressToken, progress, total?, message?}; answer as LOG. */
  HYPER_PROGRESS: 8,
  /** A notification to the client: [CLIENT_NOTIFICATIONS index u8][JSON params, may be empty]; answer as LOG. */
  NOTIFY: 9,
} as const;

/**
 * NOTIFY's first byte indexes this list (client-serve.ts checks it is tool/types.ts's
 * CLIENT_NOTIFICATIONS; kept here so the worker bundle needs nothing from the tool layer).
 */
export const NOTIFY_METHODS = [
  'notifications/tools/list_changed',
  'notifications/resources/list_changed',
  'notifications/prompts/list_changed',
  'notifications/resources/updated',
  'notifications/elicitation/complete',
] as const;

/** Failure kinds a worker reports with RESULT_ERR / INIT_FAILED (in AUX). */
export const Fault = {
  /** The module reported an error and is still usable (error_set, non-zero status). */
  TOOL_ERROR: 1,
  /** A trap or host-function failure: the instance state is suspect and is replaced. */
  TOOL_TRAP: 2,
  OUTPUT_TOO_LARGE: 3,
  OUTPUT_TOO_LARGE_TRAP: 4,
  /** The call ran into an rw mount's write quota; the instance is still usable. */
  QUOTA_EXCEEDED: 5,
} as const;

export interface Message {
  op: number;
  aux: number;
  data: Uint8Array;
}

export class Channel {
  readonly ctrl: Int32Array;
  readonly data: Uint8Array;

  constructor(readonly sab: SharedArrayBuffer) {
    this.ctrl = new Int32Array(sab, 0, HEADER_BYTES / 4);
    this.data = new Uint8Array(sab, HEADER_BYTES);
  }

  static create(capacity: number): Channel {
    return new Channel(new SharedArrayBuffer(HEADER_BYTES + capacity));
  }

  get capacity(): number {
    return this.data.length;
  }

  /** Writes a message into the shared area; false if it does not fit. */
  write(op: number, payload: Uint8Array | undefined, aux = 0): boolean {
    const n = payload?.length ?? 0;
    if (n > this.data.length) return false;
    if (payload) this.data.set(payload, 0);
    Atomics.store(this.ctrl, LEN, n);
    Atomics.store(this.ctrl, AUX, aux);
    Atomics.store(this.ctrl, OP, op);
    return true;
  }

  /** Reads the current message; `data` is a copy unless `view` (valid only until the next write). */
  read(view = false): Message {
    const n = Atomics.load(this.ctrl, LEN);
    const bytes = this.data.subarray(0, n);
    return { op: Atomics.load(this.ctrl, OP), aux: Atomics.load(this.ctrl, AUX), data: view ? bytes : bytes.slice() };
  }

  // --- host side ---
  hostSeen = 0;

  sendToWorker(): void {
    Atomics.add(this.ctrl, TO_WORKER, 1);
    Atomics.notify(this.ctrl, TO_WORKER);
  }

  #spinning = true;
  #misses = 0;
  #sent = 0;
  /** The wait for the current call's answer is a probe: it polls although polling is off. */
  #probing = false;

  /** Whether the next wait starts with a poll (false after 4 misses in a row). */
  get hostPolling(): boolean {
    return this.#spinning;
  }

  /**
   * Counts a call sent. While polling is off, every 16th call is a probe: the host polls for its
   * answer again, so a machine that has become quiet gets the polling path back.
   */
  countCall(): void {
    this.#sent++;
    this.#probing = (this.#sent & 15) === 0;
  }

  /**
   * Polls up to HOST_SPIN_MS for an answer that is about to arrive, so a short call skips the
   * waitAsync wake-up (measured: most of a warm call's host time). Adaptive, so the event loop is
   * not held for slow calls: after 4 misses in a row it stops, and tries again on every 16th call
   * (countCall).
   */
  #spin(): boolean {
    if (!this.#spinning && !this.#probing) return false;
    const end = performance.now() + HOST_SPIN_MS;
    do {
      if (Atomics.load(this.ctrl, TO_HOST) !== this.hostSeen) {
        this.#misses = 0;
        this.#spinning = true;
        return true;
      }
    } while (performance.now() < end);
    if (++this.#misses >= 4) this.#spinning = false;
    return false;
  }

  /**
   * Whether the worker has posted a new message, polling for it first (#spin); taken if so. Lets
   * the host read a short call's answer without awaiting anything (docs/decisions.md "The worker
   * path, sixth round").
   */
  answered(): boolean {
    if (Atomics.load(this.ctrl, TO_HOST) === this.hostSeen && !this.#spin()) return false;
    this.hostSeen = Atomics.load(this.ctrl, TO_HOST);
    return true;
  }

  /** Resolves when the worker has posted a new message (or after timeoutMs, false). Does not poll first: answered() does. */
  async waitForWorker(timeoutMs: number): Promise<boolean> {
    for (;;) {
      const now = Atomics.load(this.ctrl, TO_HOST);
      if (now !== this.hostSeen) {
        this.hostSeen = now;
        return true;
      }
      const w = Atomics.waitAsync(this.ctrl, TO_HOST, now, Math.max(0, timeoutMs));
      const outcome = w.async ? await w.value : w.value;
      if (outcome === 'timed-out') return false;
    }
  }

  /** Settles a pending waitForWorker now (after a teardown), so it does not hold this buffer until its timeout. */
  releaseHostWaiter(): void {
    Atomics.add(this.ctrl, TO_HOST, 1);
    Atomics.notify(this.ctrl, TO_HOST);
  }

  // --- worker side ---
  workerSeen = 0;

  sendToHost(): void {
    Atomics.add(this.ctrl, TO_HOST, 1);
    Atomics.notify(this.ctrl, TO_HOST);
  }

  /**
   * Blocks the worker thread until the host posts a message. It does not poll first: measured on
   * the 2-core machine at load 12, a thread that polls keeps the host off the core it needs to
   * answer (a bare round trip took 160 µs at the median with a 0.1 ms poll, 7 µs with none), and
   * on that machine the worker-path warm call went from 41-65 µs to 28-36 µs without it.
   */
  waitForHost(): void {
    for (;;) {
      const now = Atomics.load(this.ctrl, TO_WORKER);
      if (now !== this.workerSeen) {
        this.workerSeen = now;
        return;
      }
      Atomics.wait(this.ctrl, TO_WORKER, now);
    }
  }
}

const BELL_BYTES = 12;
const RINGS = 0;
const CALL_SLOT = 1;
/** Control messages posted so far (the worker reads its port only when it has not seen them all). */
const CONTROLS = 2;

/**
 * A worker's doorbell (docs/decisions.md "Several instances per worker"): one worker serves several
 * instances, each with its own channel, and waits on this one word instead of any channel. The
 * host rings it after posting a control message (an instance to start or drop) or after writing a
 * CALL into an instance's channel, whose slot it leaves in CALL_SLOT. Only one call runs in a worker
 * at a time and the host sends a call only to a worker no call holds, so one slot word suffices.
 */
export class Bell {
  readonly words: Int32Array;
  #seen = 0;

  constructor(readonly sab: SharedArrayBuffer = new SharedArrayBuffer(BELL_BYTES)) {
    this.words = new Int32Array(sab);
  }

  // --- host side ---
  /** Rings for a CALL just written into the channel of the instance in `slot`. */
  ringCall(slot: number): void {
    Atomics.store(this.words, CALL_SLOT, slot);
    this.#ring();
  }

  /** Rings for a control message just posted to the worker. */
  ringControl(): void {
    Atomics.add(this.words, CONTROLS, 1);
    this.#ring();
  }

  #ring(): void {
    Atomics.add(this.words, RINGS, 1);
    Atomics.notify(this.words, RINGS);
  }

  // --- worker side ---
  #controlsSeen = 0;

  /** Whether control messages are waiting on the worker's port; counts them as taken. */
  takeControls(): boolean {
    const posted = Atomics.load(this.words, CONTROLS);
    if (posted === this.#controlsSeen) return false;
    this.#controlsSeen = posted;
    return true;
  }

  /** The slot of the CALL the host sent, once (0: none). */
  takeCall(): number {
    return Atomics.exchange(this.words, CALL_SLOT, 0);
  }

  /** Blocks the worker until the bell rings (without polling first: see Channel.waitForHost). */
  wait(): void {
    for (;;) {
      const now = Atomics.load(this.words, RINGS);
      if (now !== this.#seen) {
        this.#seen = now;
        return;
      }
      Atomics.wait(this.words, RINGS, now);
    }
  }
}

/** Errors an instance reports are cut here; the caller cuts again (1 KiB) after sanitizing. */
const MAX_ERROR_BYTES = 4096;
const encoder = new TextEncoder();

/** The bytes of an error message as an instance reports it (cut at MAX_ERROR_BYTES). */
export function errorBytes(message: string): Uint8Array {
  return encoder.encode(message).subarray(0, MAX_ERROR_BYTES);
}
