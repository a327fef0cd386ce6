// `toolgate audit verify`: walks the chain line by line. An edited line fails its own hash; a
// deleted or moved line breaks the `prev` link of the line after it. (Cutting lines off the end
// leaves a valid shorter chain: ship the last hash elsewhere if that matters.)
import { readFile } from 'node:fs/promises';
import { GENESIS, recordHash } from './chain.js';

export type VerifyResult =
  | { ok: true; count: number; lastHash: string }
  | { ok: false; line: number; reason: string; count: number };

export function verifyAuditText(text: string): VerifyResult {
  const lines = text.split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  let prev = GENESIS;
  let count = 0;
  for (let i = 0; i < lines.length; i++) {
    const n = i + 1;
    const raw = lines[i] as string;
    let rec: unknown;
    try {
      rec = JSON.parse(raw);
    } catch {
      return { ok: false, line: n, reason: 'not valid JSON', count };
    }
    if (typeof rec !== 'object' || rec === null || Array.isArray(rec))
      return { ok: false, line: n, reason: 'not a JSON object', count };
    const r = rec as Record<string, unknown>;
    if (typeof r.hash !== 'string' || typeof r.prev !== 'string')
      return { ok: false, line: n, reason: 'missing "hash" or "prev"', count };
    if (r.prev !== prev) {
      return {
        ok: false,
        line: n,
        reason: '"prev" does not match the hash of the line before it (a line was deleted, inserted or reordered)',
        count,
      };
    }
    if (recordHash(r) !== r.hash)
      return { ok: false, line: n, reason: 'the record does not match its hash (the line was edited)', count };
    prev = r.hash;
    count++;
  }
  return { ok: true, count, lastHash: prev };
}

export async function verifyAuditFile(path: string): Promise<VerifyResult> {
  return verifyAuditText(await readFile(path, 'utf8'));
}
