// The audit hash chain: each record carries `prev` (the hash of the record before it, or GENESIS)
// and `hash` = sha256 of its own canonical JSON without `hash`. Canonical = keys sorted at every
// depth, so the check does not depend on how the line was serialized.
import { canonicalJson, sha256Hex } from '../../digest/index.js';

export const GENESIS = sha256Hex('toolgate-audit-genesis-v1');

export function recordHash(record: Readonly<Record<string, unknown>>): string {
  const { hash: _ignored, ...rest } = record;
  return sha256Hex(canonicalJson(rest));
}
