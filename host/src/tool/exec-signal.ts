// A call's identity whose `signal` is made only when something reads it. The pipeline's own code,
// and the sandbox through execAbortable, read the cancellation's state without it: on Node 20 an
// AbortSignal costs ~5-8 µs to make and about as much again to collect, and a warm call over stdio
// made two that nobody outside the call looked at (docs/decisions.md, "Server CPU per call, sixth
// round"). A policy or a tool body that reads `exec.signal` gets a real AbortSignal, the same one
// on every read, aborted with the same reason.
import { LazyAbort, type Abortable } from '../signals/index.js';
import type { CallClient, ExecIdentity, JsonObject } from './types.js';

/** What an identity holds besides its signal. */
export interface ExecFields {
  callId: string;
  name: string;
  arguments: Readonly<JsonObject>;
  agent?: string | undefined;
  token?: string | undefined;
  client?: CallClient | undefined;
  remainingMs?: (() => number) | undefined;
}

/**
 * An ExecIdentity over a LazyAbort: the own fields are the plain identity's, in its order (so a
 * spread copies them, and the signal only when named); `signal` is read through the prototype.
 */
class LazySignalExec implements ExecIdentity {
  readonly callId: string;
  readonly name: string;
  readonly arguments: Readonly<JsonObject>;
  declare readonly agent?: string;
  declare readonly token?: string;
  declare readonly client?: CallClient;
  declare readonly remainingMs?: () => number;
  readonly #cancel: LazyAbort;

  constructor(fields: ExecFields, cancel: LazyAbort) {
    this.callId = fields.callId;
    this.name = fields.name;
    this.arguments = fields.arguments;
    const self = this as { agent?: string; token?: string; client?: CallClient; remainingMs?: () => number };
    if (fields.agent !== undefined) self.agent = fields.agent;
    if (fields.token !== undefined) self.token = fields.token;
    if (fields.client !== undefined) self.client = fields.client;
    if (fields.remainingMs !== undefined) self.remainingMs = fields.remainingMs;
    this.#cancel = cancel;
  }

  get signal(): AbortSignal {
    return this.#cancel.signal;
  }

  /** The cancellation itself, for execAbortable. */
  get abortable(): LazyAbort {
    return this.#cancel;
  }
}

/**
 * A call's identity (not frozen) whose signal is `cancel`'s: the AbortSignal itself when given one,
 * made on first read when given a LazyAbort.
 */
export function execIdentity(fields: ExecFields, cancel: Abortable): ExecIdentity {
  if (cancel instanceof LazyAbort) return new LazySignalExec(fields, cancel);
  const id = { callId: fields.callId, name: fields.name, arguments: fields.arguments } as {
    -readonly [K in keyof ExecIdentity]: ExecIdentity[K];
  };
  if (fields.agent !== undefined) id.agent = fields.agent;
  if (fields.token !== undefined) id.token = fields.token;
  id.signal = cancel;
  if (fields.client !== undefined) id.client = fields.client;
  if (fields.remainingMs !== undefined) id.remainingMs = fields.remainingMs;
  return id;
}

/** `exec.signal`'s state, read without making the signal when the identity has not made it yet. */
export function execAbortable(exec: Readonly<ExecIdentity>): Abortable {
  return exec instanceof LazySignalExec ? exec.abortable : exec.signal;
}
