import { lstatSync, readlinkSync, type BigIntStats } from 'node:fs';
import { Errno } from './abi.js';
import { WasiError } from './errors.js';
import { hostPathOf, type DirEntry } from './fd-table.js';
import type { Mount } from './mounts.js';
import type { GuestMemory } from './memory.js';

/** Longest guest path accepted, in bytes (Linux PATH_MAX). */
export const MAX_PATH_BYTES = 4096;
/** Symlinks followed in one lookup before ELOOP, as Linux does. */
export const MAX_SYMLINKS = 40;

export interface Resolved {
  mount: Mount;
  /** Components below the mount root; every one but the last is a real directory, not a symlink. */
  parts: string[];
  hostPath: string;
  /** lstat of the final component; undefined when it does not exist (a create may make it). */
  stat: BigIntStats | undefined;
  /** The final component as the guest wrote it ('.', '..' or a name), for calls that refuse '.'/'..'. */
  lastName: string;
}

const decoder = new TextDecoder('utf-8', { fatal: true });

export function readGuestPath(mem: GuestMemory, ptr: number, len: number): string {
  if (len > MAX_PATH_BYTES) throw new WasiError(Errno.NAMETOOLONG, 'path is longer than 4096 bytes');
  let path: string;
  try {
    path = decoder.decode(mem.bytes(ptr, len));
  } catch (err) {
    if (err instanceof WasiError) throw err;
    throw new WasiError(Errno.ILSEQ, 'path is not valid UTF-8');
  }
  if (path.includes('\0')) throw new WasiError(Errno.INVAL, 'path contains NUL');
  return path;
}

/** The part of an absolute host path below root, or undefined when it is not under root. */
function belowRoot(root: string, target: string): string | undefined {
  if (target === root) return '';
  const prefix = root.endsWith('/') ? root : `${root}/`;
  return target.startsWith(prefix) ? target.slice(prefix.length) : undefined;
}

function lstat(path: string): BigIntStats | undefined {
  return lstatSync(path, { bigint: true, throwIfNoEntry: false });
}

/**
 * Resolves a guest path relative to a directory descriptor, one component at a time, under the
 * mount's real host root. `..` above the root, absolute guest paths and symlinks whose target
 * leaves the mount are refused with ENOTCAPABLE (the preview1 errno for "outside your capability"),
 * so the host path returned never names anything outside the mount. The final component is
 * followed only when followFinal is set (or the path ends in '/').
 */
export function resolvePath(dir: DirEntry, guestPath: string, followFinal: boolean): Resolved {
  if (guestPath.length === 0) throw new WasiError(Errno.NOENT, 'empty path');
  if (guestPath.startsWith('/'))
    throw new WasiError(Errno.NOTCAPABLE, 'absolute paths are not allowed; paths are relative to a directory fd');
  const mount = dir.mount;
  const trailingSlash = guestPath.endsWith('/');
  const follow = followFinal || trailingSlash;
  const pending = guestPath.split('/').filter((c) => c !== '');
  const lastName = pending[pending.length - 1] ?? '.';
  let stack = [...dir.parts];
  let links = 0;

  for (let name = pending.shift(); name !== undefined; name = pending.shift()) {
    if (name === '.') continue;
    if (name === '..') {
      if (stack.length === 0) throw new WasiError(Errno.NOTCAPABLE, `'..' would leave the mount ${mount.guest}`);
      stack.pop();
      continue;
    }
    const isLast = pending.length === 0;
    const candidate = [...stack, name];
    const st = lstat(hostPathOf(mount, candidate));
    if (st === undefined) {
      if (!isLast) throw new WasiError(Errno.NOENT, `no such directory: ${name}`);
      return { mount, parts: candidate, hostPath: hostPathOf(mount, candidate), stat: undefined, lastName };
    }
    if (st.isSymbolicLink() && (!isLast || follow)) {
      links += 1;
      if (links > MAX_SYMLINKS) throw new WasiError(Errno.LOOP, 'too many symlinks');
      const target = readlinkSync(hostPathOf(mount, candidate));
      if (target === '') throw new WasiError(Errno.NOENT, 'empty symlink');
      if (target.startsWith('/')) {
        const rel = belowRoot(mount.root, target);
        if (rel === undefined)
          throw new WasiError(Errno.NOTCAPABLE, `symlink ${name} points outside the mount ${mount.guest}`);
        stack = [];
        pending.unshift(...rel.split('/').filter((c) => c !== ''));
      } else {
        // A relative target is read from the link's own directory, so `..` in it is checked like any other.
        pending.unshift(...target.split('/').filter((c) => c !== ''));
      }
      continue;
    }
    if (!isLast && !st.isDirectory()) throw new WasiError(Errno.NOTDIR, `${name} is not a directory`);
    stack.push(name);
  }

  const hostPath = hostPathOf(mount, stack);
  const stat = lstat(hostPath);
  if (trailingSlash && stat !== undefined && !stat.isDirectory())
    throw new WasiError(Errno.NOTDIR, `${lastName} is not a directory`);
  return { mount, parts: stack, hostPath, stat, lastName };
}

/** For calls that create, delete or rename: the final component must be a real name below the root. */
export function requireNamedEntry(r: Resolved): void {
  if (r.parts.length === 0)
    throw new WasiError(Errno.BUSY, 'the mount root itself cannot be created, removed or renamed');
  if (r.lastName === '.' || r.lastName === '..')
    throw new WasiError(Errno.INVAL, `'${r.lastName}' cannot be created, removed or renamed`);
}

export function requireWritable(mount: Mount): void {
  if (mount.mode === 'ro') throw new WasiError(Errno.ROFS, `mount ${mount.guest} is read-only`);
}
