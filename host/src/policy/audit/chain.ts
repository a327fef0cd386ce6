// The audit hash chain: each record carries `prev` (the hash of the record before it, or GENESIS)
// and `hash` = sha256 of its own canonical JSON without `hash`. Canonical = keys sorted at every
// depth, so the check does not depend on how the line was serialized.
import { createHash } from 'node:crypto';

export const GENESIS = createHash('sha256').update('toolgate-audit-genesis-v1').digest('hex');

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

export function recordHash(record: Readonly<Record<string, unknown>>): string {
  const { hash: _ignored, ...rest } = record;
  return createHash('sha256').update(canonicalJson(rest)).digest('hex');
}
