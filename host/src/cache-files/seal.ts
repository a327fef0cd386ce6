// The seal of a cache entry: HMAC-SHA256 under the home's cache key (open.ts) over what the entry
// is for and what it holds. Anyone who can write the cache folder but not read the key cannot make
// an entry toolgate will read back, nor move a true entry to another name, kind or purpose: each
// of those is inside the seal (architecture.md §5).
import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * The seal of `parts` (the entry's kind, format, key and purpose first, its content last). Each
 * part is length-prefixed, so no two different lists of parts give the same stream.
 */
export function sealOf(secret: Uint8Array, parts: readonly (string | Uint8Array)[]): string {
  const mac = createHmac('sha256', secret);
  const size = Buffer.alloc(8);
  for (const part of parts) {
    const bytes = typeof part === 'string' ? Buffer.from(part, 'utf8') : part;
    size.writeBigUInt64BE(BigInt(bytes.length));
    mac.update(size).update(bytes);
  }
  return mac.digest('hex');
}

/** Whether `seal` is the seal of `parts`, compared in constant time. */
export function sealMatches(secret: Uint8Array, parts: readonly (string | Uint8Array)[], seal: string): boolean {
  const want = Buffer.from(sealOf(secret, parts), 'hex');
  const got = Buffer.from(seal, 'hex');
  return got.length === want.length && timingSafeEqual(got, want);
}
