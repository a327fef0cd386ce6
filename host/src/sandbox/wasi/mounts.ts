import { realpathSync, statSync } from 'node:fs';
import { isAbsolute, resolve } from 'node:path';

export interface WasiMount {
  guest: string;
  host: string;
  mode: 'ro' | 'rw';
  /** rw: bytes one call may write here (writes and growth); absent = no quota. */
  maxBytes?: number;
  /** rw: files and directories one call may create here; absent = no limit. */
  maxEntries?: number;
}

/** A mount after validation: its host root is the real path, so symlink targets compare against it. */
export interface Mount {
  readonly guest: string;
  readonly root: string;
  readonly mode: 'ro' | 'rw';
  readonly maxBytes?: number | undefined;
  readonly maxEntries?: number | undefined;
}

// Mounts come from the host's spec, already checked with zod (spec.ts checkSpec, and the manifest
// schema before it). This second guard runs inside every instance worker, so it is plain code:
// zod there would cost each instance worker ~3-4 MiB (docs/decisions.md, issue 27).
const GUEST_PATH = /^\/[^\0]*$/;
const isCount = (v: unknown): boolean => v === undefined || (Number.isInteger(v) && (v as number) >= 0);

/** The first rule the mount breaks, as [field, message], or undefined. */
function mountProblem(raw: WasiMount): [string, string] | undefined {
  const known = new Set(['guest', 'host', 'mode', 'maxBytes', 'maxEntries']);
  const extra = Object.keys(raw).find((k) => !known.has(k));
  if (extra !== undefined) return [extra, 'unrecognized key'];
  if (typeof raw.guest !== 'string' || !GUEST_PATH.test(raw.guest))
    return ['guest', 'must be an absolute guest path such as /data'];
  if (raw.guest.split('/').some((c) => c === '..' || c === '.'))
    return ['guest', 'must not contain . or .. components'];
  if (typeof raw.host !== 'string' || raw.host.length === 0) return ['host', 'must name a host directory'];
  if (raw.host.includes('\0')) return ['host', 'must not contain NUL'];
  if (raw.mode !== 'ro' && raw.mode !== 'rw') return ['mode', 'must be "ro" or "rw"'];
  if (!isCount(raw.maxBytes)) return ['maxBytes', 'must be a non-negative integer'];
  if (!isCount(raw.maxEntries)) return ['maxEntries', 'must be a non-negative integer'];
  return undefined;
}

/** Validates mounts and resolves each host directory once; throws an Error naming the mount and rule. */
export function prepareMounts(mounts: readonly WasiMount[]): Mount[] {
  return mounts.map((raw, i) => {
    const problem = mountProblem(raw);
    if (problem !== undefined) throw new Error(`wasi mount mounts[${i}].${problem[0]}: ${problem[1]}`);
    const m = raw;
    const abs = isAbsolute(m.host) ? m.host : resolve(m.host);
    let root: string;
    try {
      root = realpathSync(abs);
    } catch {
      throw new Error(`wasi mount mounts[${i}].host: ${abs} does not exist`);
    }
    if (!statSync(root).isDirectory()) throw new Error(`wasi mount mounts[${i}].host: ${abs} is not a directory`);
    // Trailing slashes are dropped so the preopen name matches what libc prefixes compare against.
    const guest = m.guest.length > 1 ? m.guest.replace(/\/+$/, '') : m.guest;
    return { guest, root, mode: m.mode, maxBytes: m.maxBytes, maxEntries: m.maxEntries };
  });
}
