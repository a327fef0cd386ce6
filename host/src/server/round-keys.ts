// The signing key of input rounds (MCP 2026-07-28, input-rounds.ts) and the states already used.
// Kept apart from input-rounds.ts, and the SDK v2 codec made on first use, so that a server whose
// clients speak 2025-11-25 never loads the SDK v2 (measured in `make bench`: docs/decisions.md).
import { createHash, randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { RequestStateCodec } from '@modelcontextprotocol/server';
import { z } from 'zod';
import { canonicalJson } from '../digest/index.js';
import type { SharedState } from '../shared-state/index.js';

/** The key the approval question travels under (a tool's own questions are q0, q1, ...). */
export const APPROVAL_KEY = 'toolgate/approval';

/** The smallest key the SDK's codec takes. */
const MIN_KEY_BYTES = 32;

/**
 * A round's signed state, checked when it comes back; built on the first (docs/decisions.md, "Less
 * code and fewer schemas on serve's start").
 */
function buildPayload() {
  const Answer = z.object({ d: z.string(), r: z.record(z.string(), z.unknown()) });
  return z.object({
    v: z.literal(1),
    who: z.string(),
    tool: z.string(),
    args: z.string(),
    set: z.string(),
    n: z.string(),
    round: z.number().int().min(1),
    /** What the last round asked: key -> digest of the request, so an answer fits only its question. */
    asked: z.record(z.string(), z.string()),
    answers: z.record(z.string(), Answer),
    approved: z.boolean().optional(),
  });
}
let payloadSchema: ReturnType<typeof buildPayload> | undefined;

export type RoundPayload = z.infer<ReturnType<typeof buildPayload>>;
/** A client's answer a round carries: its digest and result. */
export type Answer = RoundPayload['answers'][string];
/** A round's state as a run, a task or a retry carries it: everything but `who`, which mint sets. */
export type RoundState = Omit<RoundPayload, 'who'>;

export interface RoundPrincipal {
  readonly id: string;
  /**
   * Whom this principal's tasks are bound to, when the server knows the client more narrowly than
   * `id`: the address of an HTTP client with no token, the stdio connection (task-store.ts,
   * taskOwnerOf). Input-round states stay bound to `id`, as before.
   */
  readonly taskOwner?: string;
}

export const digest = (value: unknown): string =>
  createHash('sha256').update(canonicalJson(value)).digest('base64url').slice(0, 22);

/** The request states already used: true the first time a nonce is seen (states are single use). */
export interface UsedNonces {
  consume(nonce: string, ttlMs: number): boolean | Promise<boolean>;
}

/** The used nonces of this process (the default): a state replayed to another replica is not seen here. */
export class MemoryNonces implements UsedNonces {
  readonly #used = new Map<string, number>();

  consume(nonce: string, ttlMs: number): boolean {
    const now = Date.now();
    if (this.#used.size > 10_000) for (const [n, until] of this.#used) if (until < now) this.#used.delete(n);
    if (this.#used.has(nonce)) return false;
    this.#used.set(nonce, now + ttlMs);
    return true;
  }
}

/**
 * The used nonces of every replica, in the shared state (`serve --state`): set-if-absent with the
 * state's lifetime, so a replayed state is refused wherever it arrives; Redis down refuses every
 * state (StateUnavailable; the request is answered -32602 and nothing runs).
 */
export class SharedNonces implements UsedNonces {
  readonly #state: SharedState;

  constructor(state: SharedState) {
    this.#state = state;
  }

  async consume(nonce: string, ttlMs: number): Promise<boolean> {
    const set = await this.#state.command([
      'SET',
      `toolgate:mrtr:used:${nonce}`,
      this.#state.replica,
      'NX',
      'PX',
      String(ttlMs),
    ]);
    return set === 'OK';
  }
}

/**
 * The server's signing key and the states already used. Several replicas that share the key (a
 * file named by --mrtr-key-file) accept each other's states; the used set is per process unless
 * they share state too (--state: SharedNonces), so without it a state replayed to another replica
 * is stopped only by its expiry (docs/mcp.md).
 */
export class RoundKeys {
  /** Made on first use: the SDK v2 (its codec) loads only once a 2026-07-28 request needs it. */
  #codec: Promise<RequestStateCodec<RoundPayload>> | undefined;
  readonly #key: Uint8Array;
  readonly #ttlSeconds: number;
  #used: UsedNonces = new MemoryNonces();
  readonly ttlMs: number;

  constructor(key: Uint8Array, ttlSeconds = 600) {
    if (key.byteLength < MIN_KEY_BYTES)
      throw new Error(`the input-round key must be at least ${MIN_KEY_BYTES} bytes (got ${key.byteLength})`);
    this.ttlMs = ttlSeconds * 1000;
    this.#key = key;
    this.#ttlSeconds = ttlSeconds;
  }

  /** Keeps the used nonces in `used` from now on (the shared state of every replica). */
  useNonces(used: UsedNonces): this {
    this.#used = used;
    return this;
  }

  /** A random key for one process: its states are good only on this process. */
  static ephemeral(): RoundKeys {
    return new RoundKeys(randomBytes(MIN_KEY_BYTES));
  }

  /** The key in `file` (its bytes, at least 32 of them; a trailing newline is not part of it). */
  static fromFile(file: string): RoundKeys {
    let bytes: Buffer;
    try {
      bytes = readFileSync(file);
    } catch (err) {
      throw new Error(
        `--mrtr-key-file ${file}: cannot read it (${(err as NodeJS.ErrnoException).code ?? String(err)})`,
      );
    }
    const text = bytes.toString('utf8').replace(/\r?\n$/, '');
    const key = Buffer.from(text, 'utf8');
    if (key.byteLength < MIN_KEY_BYTES)
      throw new Error(
        `--mrtr-key-file ${file}: the key must be at least ${MIN_KEY_BYTES} bytes (it has ${key.byteLength})`,
      );
    return new RoundKeys(key);
  }

  /** `payload.who` is set here: the state is good only for this principal and method. */
  mint(payload: RoundState, principal: RoundPrincipal, method: string): Promise<string> {
    return this.#codecOf().then((codec) => codec.mint({ ...payload, who: whoDigest(principal, method) }));
  }

  /** The SDK's seam calls this before the handler; a throw is answered -32602 and nothing runs. */
  async verify(state: string, principal: RoundPrincipal, method: string): Promise<RoundPayload> {
    const codec = await this.#codecOf();
    const payload = (payloadSchema ??= buildPayload()).parse(await codec.verify(state, undefined as never));
    if (payload.who !== whoDigest(principal, method)) throw new Error('bind');
    if (!(await this.#used.consume(payload.n, this.ttlMs))) throw new Error('replayed');
    return payload;
  }

  #codecOf(): Promise<RequestStateCodec<RoundPayload>> {
    this.#codec ??= import('@modelcontextprotocol/server').then(({ createRequestStateCodec }) =>
      createRequestStateCodec<RoundPayload>({ key: this.#key, ttlSeconds: this.#ttlSeconds }),
    );
    return this.#codec;
  }
}

/** Who a state is for, as a digest: the principal's id never travels in the clear. */
function whoDigest(principal: RoundPrincipal, method: string): string {
  return digest({ method, principal: principal.id });
}
