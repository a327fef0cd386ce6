import type { Dirent } from 'node:fs';
import { Errno, FileType, Rights, RIGHTS_ALL, RIGHTS_MUTATING, RIGHTS_WRITE_DATA } from './abi.js';
import { WasiError } from './errors.js';
import type { Mount } from './mounts.js';

/** Open descriptors per instance are capped so a module cannot grow the table without limit. */
export const MAX_OPEN_FDS = 256;

export interface StdioEntry {
  kind: 'stdin' | 'stdout' | 'stderr';
  rightsBase: bigint;
  rightsInheriting: bigint;
  fdflags: number;
}

export interface DirEntry {
  kind: 'dir';
  mount: Mount;
  /** Components below the mount root; already free of symlinks, `.` and `..`. */
  parts: string[];
  /** Set for the descriptors handed out at start (fd 3...). */
  preopen: boolean;
  rightsBase: bigint;
  rightsInheriting: bigint;
  fdflags: number;
  /** Snapshot taken by fd_readdir at cookie 0, so later cookies index a stable list. */
  listing?: Dirent[];
}

/**
 * An open regular file. No host descriptor is kept between calls: each call opens the resolved
 * path (no-follow) and checks it is still the same inode. A worker that is terminated mid-call
 * therefore cannot leak host descriptors into the process.
 */
export interface FileEntry {
  kind: 'file';
  mount: Mount;
  parts: string[];
  dev: bigint;
  ino: bigint;
  position: number;
  rightsBase: bigint;
  rightsInheriting: bigint;
  fdflags: number;
  /** Opened on an ro mount with write rights asked and dropped: a write on it is EROFS, not EBADF. */
  writeRefusedByMount?: true;
}

export type FdEntry = StdioEntry | DirEntry | FileEntry;

export function hostPathOf(mount: Mount, parts: readonly string[]): string {
  if (parts.length === 0) return mount.root;
  return mount.root.endsWith('/') ? mount.root + parts.join('/') : `${mount.root}/${parts.join('/')}`;
}

/** Rights a descriptor on this mount may hold. */
export function mountRights(mount: Mount): bigint {
  return mount.mode === 'ro' ? RIGHTS_ALL & ~RIGHTS_MUTATING : RIGHTS_ALL;
}

/**
 * Rights a directory on this mount passes on. On ro the write-data rights stay in, only so that
 * libc (which intersects what it asks for with these) still asks for them on O_WRONLY/O_RDWR and
 * path_open can answer EROFS, as a read-only file system does; path_open never grants them there.
 */
export function inheritableRights(mount: Mount): bigint {
  return mount.mode === 'ro' ? mountRights(mount) | RIGHTS_WRITE_DATA : RIGHTS_ALL;
}

export function fileTypeOf(entry: FdEntry): number {
  if (entry.kind === 'dir') return FileType.DIRECTORY;
  if (entry.kind === 'file') return FileType.REGULAR_FILE;
  return FileType.CHARACTER_DEVICE;
}

export class FdTable {
  readonly #entries = new Map<number, FdEntry>();

  constructor(mounts: readonly Mount[]) {
    // Character devices without seek/tell rights: libc treats them as a tty-like stream.
    this.#entries.set(0, {
      kind: 'stdin',
      rightsBase: Rights.FD_READ | Rights.FD_FILESTAT_GET | Rights.POLL_FD_READWRITE,
      rightsInheriting: 0n,
      fdflags: 0,
    });
    this.#entries.set(1, {
      kind: 'stdout',
      rightsBase: Rights.FD_WRITE | Rights.FD_FILESTAT_GET | Rights.POLL_FD_READWRITE,
      rightsInheriting: 0n,
      fdflags: 0,
    });
    this.#entries.set(2, {
      kind: 'stderr',
      rightsBase: Rights.FD_WRITE | Rights.FD_FILESTAT_GET | Rights.POLL_FD_READWRITE,
      rightsInheriting: 0n,
      fdflags: 0,
    });
    mounts.forEach((mount, i) => {
      this.#entries.set(3 + i, {
        kind: 'dir',
        mount,
        parts: [],
        preopen: true,
        rightsBase: mountRights(mount),
        rightsInheriting: inheritableRights(mount),
        fdflags: 0,
      });
    });
  }

  get(fd: number): FdEntry {
    const entry = this.#entries.get(fd);
    if (entry === undefined) throw new WasiError(Errno.BADF, `fd ${fd} is not open`);
    return entry;
  }

  dir(fd: number): DirEntry {
    const entry = this.get(fd);
    if (entry.kind !== 'dir') throw new WasiError(Errno.NOTDIR, `fd ${fd} is not a directory`);
    return entry;
  }

  /** Fails with EMFILE before a call creates anything it could not hand out. */
  ensureRoom(): void {
    if (this.#entries.size >= MAX_OPEN_FDS) throw new WasiError(Errno.MFILE, 'too many open descriptors');
  }

  /** The lowest free number, as POSIX open() does. */
  add(entry: FdEntry): number {
    this.ensureRoom();
    let fd = 0;
    while (this.#entries.has(fd)) fd += 1;
    this.#entries.set(fd, entry);
    return fd;
  }

  close(fd: number): void {
    this.get(fd);
    this.#entries.delete(fd);
  }

  renumber(from: number, to: number): void {
    const entry = this.get(from);
    this.get(to);
    this.#entries.set(to, entry);
    this.#entries.delete(from);
  }
}
