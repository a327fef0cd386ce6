// Keep-alive connections, reused only between requests whose checks produced the same origin AND
// the same address set. Every request is still checked (and its name resolved) first; a pool is
// just the place where a connection to an already-checked address may be waiting. An answer
// that changes the addresses gets a new pool, so a reused socket can never reach an unchecked one.
import type { buildConnector, Pool } from 'undici';
import { pinnedLookup } from './pinned-lookup.js';
import { loadUndiciPool } from '../../lazy-undici/index.js';
import { LIMITS } from './request-shape.js';
import type { CheckedTarget } from './target.js';

export interface PoolSettings {
  timeoutMs: number;
  /** Trusted CA certificates; undefined = Node's default roots. */
  ca: string[] | undefined;
}

/** Pools kept per gate; the least recently used one beyond this is closed. */
const MAX_POOLS = 16;
/** Concurrent connections per pool (per origin and address set). */
const CONNECTIONS_PER_POOL = 4;
/** Idle keep-alive sockets close after this; idle sockets never hold the process open. */
const KEEP_ALIVE_MS = 4000;

/** Every pool's options; the network warm-up (warm.ts) builds its pool with these too. */
export function poolOptions(timeoutMs: number, connect: buildConnector.BuildOptions): Pool.Options {
  return {
    connections: CONNECTIONS_PER_POOL,
    connect,
    maxHeaderSize: LIMITS.maxResponseHeaderBytes,
    headersTimeout: timeoutMs,
    bodyTimeout: timeoutMs,
    keepAliveTimeout: KEEP_ALIVE_MS,
    keepAliveMaxTimeout: KEEP_ALIVE_MS,
    pipelining: 1,
  };
}

export class PinnedPools {
  readonly #pools = new Map<string, Pool>();
  readonly #settings: PoolSettings;

  constructor(settings: PoolSettings) {
    this.#settings = settings;
  }

  async for(target: CheckedTarget): Promise<Pool> {
    // Awaited before the lookup, so the rest runs without a gap two requests could race through.
    const Pool = await loadUndiciPool();
    const key = JSON.stringify([target.url.origin, target.addresses.map((a) => a.address)]);
    const existing = this.#pools.get(key);
    if (existing !== undefined && !existing.closed && !existing.destroyed) {
      this.#pools.delete(key); // re-insert: Map order is the LRU order
      this.#pools.set(key, existing);
      return existing;
    }
    const pool = new Pool(
      target.url.origin,
      poolOptions(this.#settings.timeoutMs, {
        lookup: pinnedLookup(target.url.hostname.replace(/^\[|\]$/g, ''), target.addresses),
        timeout: this.#settings.timeoutMs,
        ...(this.#settings.ca === undefined ? {} : { ca: this.#settings.ca }),
      }),
    );
    this.#pools.set(key, pool);
    for (const [oldKey, old] of this.#pools) {
      if (this.#pools.size <= MAX_POOLS) break;
      this.#pools.delete(oldKey);
      old.close().catch(() => undefined); // close() lets requests in flight finish
    }
    return pool;
  }

  /** Drops every connection, in flight or idle. */
  async destroy(): Promise<void> {
    const pools = [...this.#pools.values()];
    this.#pools.clear();
    await Promise.all(pools.map((p) => p.destroy().catch(() => undefined)));
  }
}
