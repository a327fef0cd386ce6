// The process's instance workers (docs/decisions.md "Several instances per worker"). A Node worker
// costs ~7 MiB before it loads anything, so one worker holds up to INSTANCES_PER_WORKER instances
// of different tools, each behind its own channel. A worker runs one call at a time, and a call is
// sent only to a worker that nothing else holds, so a call never waits behind another tool's. A
// call stopped while it runs (deadline, abort) is stopped by terminating its worker: the other
// instances there are idle at that moment, are lost with it, and their pools start them again.
// Starting a worker costs tens of ms and instantiating a compiled module in one ~1 ms, so while any
// sandbox tool is open one worker with room is kept booted.
import { Worker } from 'node:worker_threads';
import { afterIsolateStarted, nurseryHoldWord } from '../nursery/index.js';
import { Bell } from './channel.js';
import type { WorkerBoot, WorkerControl, WorkerInit, WorkerLog } from './worker/protocol.js';

/** A JS-side leak in the worker is bounded too (the module's own memory is capped by max_pages). */
const RESOURCE_LIMITS = { maxOldGenerationSizeMb: 48, maxYoungGenerationSizeMb: 4, stackSizeMb: 4 };

/** Instances one worker may hold: a teardown that must terminate a worker loses at most 7 idle neighbours. */
export const INSTANCES_PER_WORKER = 8;

/**
 * Host memory the members of one worker may hold between them: every member's vars
 * (max_var_bytes) plus the largest per-call budget (one call runs at a time), under the worker's
 * heap limit with room for the runtime itself. A tool asking more than this gets a worker alone.
 */
const HELD_BYTES_PER_WORKER = 32 * 1024 * 1024;

/** One instance as its worker sees it (instance.ts SandboxInstance). */
export interface Member {
  /** The tool it belongs to: one worker never holds two instances of one tool (their calls would take turns). */
  readonly tool: object;
  /** Bytes it may keep between calls (max_var_bytes). */
  readonly heldBytes: number;
  /** Bytes one of its calls may make the host hold (the alloc budget). */
  readonly callBytes: number;
  /** Shares its worker with no other instance (a component, or a tool over the shared budget). */
  readonly alone: boolean;
  onLog(msg: WorkerLog): void;
  /** Its worker died or was terminated (to stop another member's call). */
  lost(reason: string): void;
}

/** A component, or a tool asking more host memory than a shared worker allows: its worker holds it alone. */
function alone(m: Member): boolean {
  return m.alone || m.heldBytes + m.callBytes > HELD_BYTES_PER_WORKER;
}

export class InstanceWorker {
  readonly bell = new Bell();
  readonly #worker: Worker;
  readonly #members = new Map<number, Member>();
  #nextSlot = 1;
  #dead = false;
  #online = false;
  /** The member whose call (or start) holds the thread; a call is sent only to a worker no one holds. */
  holder: Member | undefined;

  constructor(file: URL) {
    const boot: WorkerBoot = { bell: this.bell.sab, nursery: nurseryHoldWord() };
    this.#worker = new Worker(file, {
      env: {}, // no host environment inside the instance
      argv: [],
      workerData: boot,
      // the SDK imports node:wasi at load (unused here); its warning is not for users
      execArgv: ['--disable-warning=ExperimentalWarning'],
      resourceLimits: RESOURCE_LIMITS,
      name: 'toolgate:instance',
    });
    this.#worker.on('message', (m: unknown) => {
      const log = m as Partial<WorkerLog> | null;
      if (log?.kind === 'log' && typeof log.slot === 'number') this.#members.get(log.slot)?.onLog(log as WorkerLog);
    });
    this.#worker.once('online', () => {
      this.#online = true;
      afterIsolateStarted();
    });
    // a worker that never came online (its script cannot load) is not replaced, or it would loop
    this.#worker.on('error', (err) => this.#died(`the instance crashed: ${err.message}`, this.#online));
    this.#worker.on('exit', (code) => this.#died(`the instance exited (code ${code})`, this.#online));
    // idle instances must not keep the process alive; a running call holds its own deadline timer
    this.#worker.unref();
  }

  get dead(): boolean {
    return this.#dead;
  }

  get size(): number {
    return this.#members.size;
  }

  /** Could take another instance at all (now or once its running call ends). */
  hasRoom(): boolean {
    if (this.#dead || this.#members.size >= INSTANCES_PER_WORKER) return false;
    for (const m of this.#members.values()) if (alone(m)) return false;
    return true;
  }

  /** Could start `m` now: room, no call running, no instance of its tool, the shared host-memory budget. */
  fits(m: Member): boolean {
    if (!this.hasRoom() || this.holder !== undefined) return false;
    if (alone(m)) return this.#members.size === 0;
    let held = m.heldBytes;
    let call = m.callBytes;
    for (const o of this.#members.values()) {
      if (o.tool === m.tool) return false;
      held += o.heldBytes;
      call = Math.max(call, o.callBytes);
    }
    return held + call <= HELD_BYTES_PER_WORKER;
  }

  /** Starts `m` here (it holds the worker until its start is answered on its channel); returns its slot. */
  add(m: Member, init: WorkerInit): number {
    const slot = this.#nextSlot++;
    this.#members.set(slot, m);
    this.holder = m;
    this.#post({ kind: 'add', slot, init });
    return slot;
  }

  /** Drops an idle member in place: the worker frees it before its next call. */
  drop(slot: number): void {
    const m = this.#members.get(slot);
    if (m === undefined) return;
    this.#members.delete(slot);
    if (this.holder === m) this.holder = undefined;
    if (!this.#dead) this.#post({ kind: 'drop', slot });
    retire(this);
  }

  #post(msg: WorkerControl): void {
    this.#worker.postMessage(msg);
    this.bell.ringControl();
  }

  /** Terminates the worker (to stop a call that runs in it); every member is lost. */
  terminate(reason: string): Promise<void> {
    // ours to stop, online or still booting (a call cancelled while its worker boots): its
    // place is kept, so the next call does not wait for a boot and an idle server holds one
    this.#died(reason, true);
    return this.#worker.terminate().then(
      () => undefined,
      () => undefined,
    );
  }

  #died(reason: string, replace: boolean): void {
    if (this.#dead) return;
    this.#dead = true;
    this.holder = undefined;
    const members = [...this.#members.values()];
    this.#members.clear();
    workers.delete(this);
    for (const m of members) m.lost(reason);
    if (replace) keepRoom();
  }
}

// --- the process's workers ---
const workers = new Set<InstanceWorker>();
let users = 0;
let workerFile: URL | undefined;

/** A worker to start `m` in now: one that fits it, or a new one. */
export function placeInstance(m: Member, file: URL): InstanceWorker {
  workerFile = file;
  let chosen: InstanceWorker | undefined;
  for (const w of workers) if (w.fits(m)) chosen = chosen === undefined || w.size > chosen.size ? w : chosen;
  if (chosen === undefined) {
    chosen = new InstanceWorker(file);
    workers.add(chosen);
  }
  // after the caller's turn: booting blocks the main thread for a few ms
  setImmediate(keepRoom);
  return chosen;
}

/** While any tool is open, one worker with room is booted. */
function keepRoom(): void {
  if (users === 0 || workerFile === undefined) return;
  for (const w of workers) if (w.hasRoom()) return;
  workers.add(new InstanceWorker(workerFile));
}

/** An empty worker goes when another has room, or when no tool is open. */
function retire(w: InstanceWorker): void {
  if (w.size > 0 || w.dead) return;
  const other = [...workers].some((o) => o !== w && o.hasRoom());
  if (users === 0 || other) void w.terminate('no instance left in it');
}

/** How many instances each live worker holds (tests: which instances share a worker). */
export function workerSizes(): number[] {
  return [...workers].map((w) => w.size);
}

/** Keeps a worker with room (booted now, in the background) until the returned release is called; one per open tool. */
export function retainWorkers(file: URL): () => void {
  users++;
  workerFile = file;
  setImmediate(keepRoom);
  let released = false;
  return () => {
    if (released) return;
    released = true;
    users--;
    if (users === 0) for (const w of [...workers]) retire(w);
  };
}
