// Digests with one spelling: the sha256 of bytes in lowercase hex, and canonical JSON (object keys
// sorted at every depth), so a digest of a value does not depend on how it was serialized. A leaf:
// the sandbox (module digests), policy (the audit chain and its digests of arguments and results),
// registry (content addresses) and server (input-round digests) use it.
import { createHash } from 'node:crypto';

export function sha256Hex(bytes: Uint8Array | string): string {
  return createHash('sha256').update(bytes).digest('hex');
}

/**
 * Digests of module bytes already hashed in this process, keyed by the very array that was hashed
 * (never by a path or a copy), so a 12 MB component is hashed once per load, not by the manifest
 * loader and again by the sandbox (docs/decisions.md, "JavaScript tools: the first call, third
 * round"). Weak: an array no longer held takes its digest with it.
 */
const hashed = new WeakMap<Uint8Array, string>();

/** sha256Hex of `bytes`, remembered for this array: a second ask for the same array does not hash again. */
export function sha256HexOnce(bytes: Uint8Array): string {
  let digest = hashed.get(bytes);
  if (digest === undefined) {
    digest = sha256Hex(bytes);
    hashed.set(bytes, digest);
  }
  return digest;
}

/**
 * JSON with object keys sorted at every depth (by UTF-16 code unit, integer-like keys included) and
 * undefined members dropped: one text per value, whatever the key order. The audit chain's hashes
 * are over this text, so it must never change for a value it has already spelled (registry's
 * model pins use a spelling of their own: docs/decisions.md, "One table per fact").
 */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (typeof value === 'object' && value !== null) {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}
