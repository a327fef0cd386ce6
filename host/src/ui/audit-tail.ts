// The recent-calls view: the last records of the audit log, shortened to what a person scans, and
// `audit verify`'s verdict on the whole file (cached until the file changes size or time).
import { open, stat, type FileHandle } from 'node:fs/promises';
import { verifyAuditFile } from '../policy/index.js';

export interface RecentCall {
  seq: number | null;
  time: string;
  tool: string;
  agent?: string;
  outcome: 'ok' | 'failed' | 'denied';
  errorCode?: string;
  message?: string;
  /** The policy entry that decided (or the guard that denied). */
  decidedBy: string | null;
  approval?: { outcome: string; answeredBy?: string };
  durationMs: number | null;
}

export type AuditVerdict =
  | { state: 'ok'; records: number }
  | { state: 'broken'; line: number; reason: string }
  | { state: 'missing' }
  | { state: 'too-large'; bytes: number };

const TAIL_BYTES = 256 * 1024;
/** Past this the page does not re-verify on every refresh; `toolgate audit verify` still does. */
const VERIFY_MAX_BYTES = 64 * 1024 * 1024;

type Rec = Record<string, unknown>;
const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);
const obj = (v: unknown): Rec | undefined =>
  typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Rec) : undefined;

function summarize(r: Rec): RecentCall {
  const trail = obj(r.decision) ?? {};
  const error = obj(r.error);
  const approval = obj(trail.approval);
  const guard = obj(trail.guard);
  const denied = trail.final === 'denied';
  const code = str(error?.code);
  const out: RecentCall = {
    seq: typeof r.seq === 'number' ? r.seq : null,
    time: str(r.time) ?? '',
    tool: str(r.tool) ?? '?',
    outcome: r.outcome === 'ok' ? 'ok' : denied ? 'denied' : 'failed',
    decidedBy: str(guard?.id) ?? str(trail.decidedBy) ?? null,
    durationMs: typeof r.durationMs === 'number' ? r.durationMs : null,
  };
  const agent = str(r.agent);
  if (agent !== undefined) out.agent = agent;
  if (code !== undefined) out.errorCode = code;
  const message = str(error?.message);
  if (message !== undefined) out.message = message;
  if (approval !== undefined) {
    const answeredBy = str(approval.answeredBy);
    out.approval = { outcome: str(approval.outcome) ?? '?', ...(answeredBy !== undefined ? { answeredBy } : {}) };
  }
  return out;
}

/** How far back the view reads for its records: a record is as long as the call's arguments. */
const READ_MAX_BYTES = 16 * 1024 * 1024;

/**
 * The file's last whole lines, at least `max` of them when it has them: read backwards a window at
 * a time, so one long record (a caller's 1 MiB of arguments) cannot push every record off the view.
 */
async function lastLines(handle: FileHandle, size: number, max: number): Promise<string[]> {
  let start = size;
  const windows: Buffer[] = [];
  let breaks = 0;
  // max + 1 line breaks hold max whole lines (the file's last one ends with its own)
  while (start > 0 && size - start < READ_MAX_BYTES && breaks <= max + 1) {
    const len = Math.min(start, TAIL_BYTES);
    const buf = Buffer.alloc(len);
    await handle.read(buf, 0, len, start - len);
    start -= len;
    windows.unshift(buf);
    for (const byte of buf) if (byte === 0x0a) breaks++;
  }
  const lines = Buffer.concat(windows).toString('utf8').split('\n');
  if (start > 0) lines.shift(); // the first line may be cut
  return lines;
}

/** The last `max` records, newest first. Lines that are not records are skipped here (verify names them). */
export async function auditTail(path: string, max = 50): Promise<RecentCall[]> {
  let handle;
  try {
    handle = await open(path, 'r');
  } catch {
    return [];
  }
  try {
    const lines = await lastLines(handle, (await handle.stat()).size, max);
    const out: RecentCall[] = [];
    for (let i = lines.length - 1; i >= 0 && out.length < max; i--) {
      const line = lines[i]?.trim() ?? '';
      if (line === '') continue;
      try {
        const rec = obj(JSON.parse(line));
        if (rec !== undefined) out.push(summarize(rec));
      } catch {
        // not a record
      }
    }
    return out;
  } finally {
    await handle.close();
  }
}

export class AuditVerifier {
  #key = '';
  #verdict: AuditVerdict = { state: 'missing' };

  async verdict(path: string): Promise<AuditVerdict> {
    let info;
    try {
      info = await stat(path);
    } catch {
      return { state: 'missing' };
    }
    if (info.size > VERIFY_MAX_BYTES) return { state: 'too-large', bytes: info.size };
    const key = `${info.size}:${info.mtimeMs}:${info.ino}`;
    if (key === this.#key) return this.#verdict;
    const r = await verifyAuditFile(path);
    this.#verdict = r.ok ? { state: 'ok', records: r.count } : { state: 'broken', line: r.line, reason: r.reason };
    this.#key = key;
    return this.#verdict;
  }
}
