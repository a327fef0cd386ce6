import { realpathSync, statSync } from 'node:fs';
import { isAbsolute, resolve } from 'node:path';
import { z } from 'zod';

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

const guestPath = z
  .string()
  .regex(/^\/[^\0]*$/, 'must be an absolute guest path such as /data')
  .refine((p) => !p.split('/').some((c) => c === '..' || c === '.'), 'must not contain . or .. components');

const mountSchema = z.strictObject({
  guest: guestPath,
  host: z.string().min(1, 'must name a host directory').refine((p) => !p.includes('\0'), 'must not contain NUL'),
  mode: z.enum(['ro', 'rw']),
  maxBytes: z.number().int().nonnegative().optional(),
  maxEntries: z.number().int().nonnegative().optional(),
});

/** Validates mounts and resolves each host directory once; throws an Error naming the mount and rule. */
export function prepareMounts(mounts: readonly WasiMount[]): Mount[] {
  return mounts.map((raw, i) => {
    const parsed = mountSchema.safeParse(raw);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      const where = issue ? [`mounts[${i}]`, ...issue.path.map(String)].join('.') : `mounts[${i}]`;
      throw new Error(`wasi mount ${where}: ${issue?.message ?? 'invalid'}`);
    }
    const m = parsed.data;
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
