// The store's writer lock: one file (store.pid) naming its owner by pid, process start time and a
// nonce. It is created whole and exclusively (written to a private file, then link(2)ed into place,
// which fails if the name exists), so nobody ever reads a half-written owner. A lock whose owner is
// gone (no such pid, or the pid now belongs to a process started at another time) is taken over
// under a second lock named after that dead owner's nonce: only its holder may rename a fresh file
// over store.pid, and it re-reads store.pid first, so two processes that both saw the same dead
// owner cannot both win.
import { createHash, randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { link, readFile, rename, rm } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { writeDurable } from './fs-atomic.js';

export interface LockOwner {
  pid: number;
  /** Process start time (Linux: clock ticks since boot, /proc/<pid>/stat field 22); '' when unknown. */
  start: string;
  /** Names this holding of the lock; sub-locks for a takeover are named after it. */
  nonce: string;
}

/** Start time of a process, so a pid reused by another process does not look like the old owner. */
export function processStart(pid: number): string {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Field 2 (comm) may hold spaces and parens: count fields after the last ')'.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return fields[19] ?? '';
  } catch {
    return '';
  }
}

function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Reads an owner line `pid start nonce`; an older toolgate wrote only the pid. */
export function parseOwner(text: string): LockOwner {
  const [pidText = '', start = '', nonce = ''] = text.trim().split(/\s+/);
  const pid = /^[1-9][0-9]{0,9}$/.test(pidText) ? Number(pidText) : 0;
  // Without a nonce, the content itself names this holding (two holdings never share a pid line
  // while the first is alive).
  const id = /^[0-9a-f]{16}$/.test(nonce) ? nonce : createHash('sha256').update(text).digest('hex').slice(0, 16);
  return { pid, start, nonce: id };
}

export function ownerAlive(owner: LockOwner): boolean {
  if (owner.pid <= 0 || !pidAlive(owner.pid)) return false;
  if (owner.start === '') return true;
  const now = processStart(owner.pid);
  return now === '' || now === owner.start;
}

const self = (): Omit<LockOwner, 'nonce'> => ({ pid: process.pid, start: processStart(process.pid) });

async function readOwner(file: string): Promise<LockOwner | undefined> {
  try {
    return parseOwner(await readFile(file, 'utf8'));
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
}

/** A fresh owner file beside `file`, written and fsynced before anyone can see it under `file`. */
async function freshOwnerFile(file: string): Promise<{ path: string; nonce: string }> {
  const nonce = randomBytes(8).toString('hex');
  const me = self();
  const path = join(dirname(file), `.${basename(file)}.${nonce}.tmp`);
  await writeDurable(path, `${me.pid} ${me.start} ${nonce}\n`);
  return { path, nonce };
}

function code(err: unknown): string | undefined {
  return (err as NodeJS.ErrnoException).code;
}

/**
 * One attempt at `file`, without waiting: the nonce of this holding when this process now holds
 * it. `depth` bounds the chain of takeover locks (each level exists only if a taker died
 * mid-takeover).
 */
export async function tryLock(file: string, depth = 0): Promise<string | undefined> {
  if (depth > 8) return undefined;
  const fresh = await freshOwnerFile(file);
  try {
    for (;;) {
      try {
        await link(fresh.path, file);
        return fresh.nonce;
      } catch (err) {
        if (code(err) !== 'EEXIST') throw err;
      }
      const owner = await readOwner(file);
      if (owner === undefined) continue; // released meanwhile: try again
      if (ownerAlive(owner)) return undefined;
      const takeover = `${file}.${owner.nonce}`;
      const held = await tryLock(takeover, depth + 1);
      if (held === undefined) return undefined;
      try {
        // Holding the takeover lock for this dead owner, nobody else may replace it: check it is
        // still the one we judged, then put ours in its place in one rename.
        const again = await readOwner(file);
        if (again?.nonce !== owner.nonce) continue;
        await rename(fresh.path, file);
        return fresh.nonce;
      } finally {
        await unlock(takeover, held);
      }
    }
  } finally {
    await rm(fresh.path, { force: true });
  }
}

/** Releases `file` if this holding still owns it (never someone else's lock). */
export async function unlock(file: string, nonce: string): Promise<void> {
  const owner = await readOwner(file).catch(() => undefined);
  if (owner?.nonce === nonce) await rm(file, { force: true });
}

/**
 * Leftovers of the lock machinery beside `file`: fresh owner files and takeover locks whose writer
 * is dead. Called by the lock's holder.
 */
export async function lockLeftovers(file: string, names: readonly string[]): Promise<string[]> {
  const base = basename(file);
  const out: string[] = [];
  for (const name of names) {
    const candidate = new RegExp(`^\\.${base.replace(/\./g, '\\.')}(?:\\.[0-9a-f]{16})*\\.[0-9a-f]{16}\\.tmp$`).test(
      name,
    );
    const takeover = new RegExp(`^${base.replace(/\./g, '\\.')}(?:\\.[0-9a-f]{16})+$`).test(name);
    if (!candidate && !takeover) continue;
    const owner = await readOwner(join(dirname(file), name)).catch(() => undefined);
    if (owner === undefined || !ownerAlive(owner)) out.push(name);
  }
  return out;
}
