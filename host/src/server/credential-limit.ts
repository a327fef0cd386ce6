// Failed credential attempts per client address: after `maxFailures` wrong credentials (bearer
// token, approval secret, /ui sign-in) within `windowMs`, that address is answered 429 with
// Retry-After until the window ends, without the credential being checked, so guessing runs at
// ten tries a minute instead of a thousand a second. The table of addresses is bounded.
import type { IncomingMessage } from 'node:http';
import { clientAddress } from './http-guard.js';

export const DEFAULT_CREDENTIAL_FAILURES = 10;
export const DEFAULT_CREDENTIAL_WINDOW_MS = 60_000;
/** Addresses tracked at once; past it the oldest entry goes (an attacker with this many addresses is not slowed by a per-address limit anyway). */
export const DEFAULT_CREDENTIAL_ADDRESSES = 10_000;

export interface CredentialLimitOptions {
  maxFailures?: number;
  windowMs?: number;
  maxAddresses?: number;
}

interface Failures {
  /** When the first failure of this window was counted. */
  since: number;
  count: number;
}

/** Why a request's credential is not checked: how long to wait (Retry-After, whole seconds) and what to say. */
export interface CredentialRefusal {
  retryAfter: number;
  message: string;
}

/** What a route that checks a credential asks before and tells after. */
export interface CredentialGate {
  /** Set while this request's address must wait before a credential is checked again. */
  wait(req: IncomingMessage): CredentialRefusal | undefined;
  /** The request presented a wrong credential. */
  wrong(req: IncomingMessage): void;
}

export class CredentialLimit implements CredentialGate {
  readonly maxFailures: number;
  readonly windowMs: number;
  readonly maxAddresses: number;
  // Insertion order is age: the first entry is the one to drop when the table is full.
  readonly #byAddress = new Map<string, Failures>();

  constructor(options: CredentialLimitOptions = {}) {
    this.maxFailures = options.maxFailures ?? DEFAULT_CREDENTIAL_FAILURES;
    this.windowMs = options.windowMs ?? DEFAULT_CREDENTIAL_WINDOW_MS;
    this.maxAddresses = options.maxAddresses ?? DEFAULT_CREDENTIAL_ADDRESSES;
  }

  get tracked(): number {
    return this.#byAddress.size;
  }

  wait(req: IncomingMessage, now = performance.now()): CredentialRefusal | undefined {
    const f = this.#current(clientAddress(req), now);
    if (f === undefined || f.count < this.maxFailures) return undefined;
    const retryAfter = Math.max(1, Math.ceil((f.since + this.windowMs - now) / 1000));
    const window = this.windowMs >= 1000 ? `${Math.round(this.windowMs / 1000)} s` : `${this.windowMs} ms`;
    return {
      retryAfter,
      message: `too many wrong credentials from this address (${this.maxFailures} in ${window}); try again in ${retryAfter} s`,
    };
  }

  wrong(req: IncomingMessage, now = performance.now()): void {
    const key = clientAddress(req);
    const f = this.#current(key, now);
    if (f !== undefined) {
      f.count += 1;
      return;
    }
    this.#makeRoom(now);
    this.#byAddress.set(key, { since: now, count: 1 });
  }

  /** The address's failures in the window still running; an ended window is forgotten. */
  #current(key: string, now: number): Failures | undefined {
    const f = this.#byAddress.get(key);
    if (f === undefined) return undefined;
    if (now - f.since < this.windowMs) return f;
    this.#byAddress.delete(key);
    return undefined;
  }

  #makeRoom(now: number): void {
    if (this.#byAddress.size < this.maxAddresses) return;
    for (const [key, f] of this.#byAddress) if (now - f.since >= this.windowMs) this.#byAddress.delete(key);
    while (this.#byAddress.size >= this.maxAddresses) {
      const oldest = this.#byAddress.keys().next().value;
      if (oldest === undefined) break;
      this.#byAddress.delete(oldest);
    }
  }
}
