import { Errno } from './abi.js';
import { WasiError } from './errors.js';
import type { Mount } from './mounts.js';

/** The first quota a call ran into: which mount, which quota and its limit, for the call's result. */
export interface QuotaHit {
  guest: string;
  /** bytes: allowed_paths.<guest>.max_bytes; entries: allowed_paths.<guest>.max_entries. */
  kind: 'bytes' | 'entries';
  limit: number;
}

/**
 * What each rw mount may still take in this call. Bytes: data written (fd_write, fd_pwrite) plus
 * growth (fd_filestat_set_size, fd_allocate, a write past the end). Entries: files and directories
 * created (path_open with O_CREAT of a new name, path_create_directory), so a flood of empty ones
 * cannot use up the disk's inodes. Past either the module gets ENOSPC, as on a full disk, and the
 * first hit is kept for the result. The worker resets it before every call.
 */
export class WriteQuota {
  readonly #used = new Map<Mount, number>();
  readonly #created = new Map<Mount, number>();
  hit: QuotaHit | undefined;

  reset(): void {
    this.#used.clear();
    this.#created.clear();
    this.hit = undefined;
  }

  /** Bytes `mount` may still take in this call (Infinity without a quota). */
  room(mount: Mount): number {
    return mount.maxBytes === undefined ? Infinity : Math.max(0, mount.maxBytes - (this.#used.get(mount) ?? 0));
  }

  charge(mount: Mount, bytes: number): void {
    if (bytes > 0) this.#used.set(mount, (this.#used.get(mount) ?? 0) + bytes);
  }

  /** Counts one new file or directory, or throws ENOSPC when the mount's entry quota is used up. */
  createEntry(mount: Mount, what: string): void {
    const created = this.#created.get(mount) ?? 0;
    if (mount.maxEntries !== undefined && created >= mount.maxEntries) {
      if (this.hit === undefined) this.hit = { guest: mount.guest, kind: 'entries', limit: mount.maxEntries };
      throw new WasiError(Errno.NOSPC, `${what}: entry quota of ${mount.guest} used up`);
    }
    this.#created.set(mount, created + 1);
  }

  /** Records the hit (the first one stays) and throws ENOSPC. */
  refuse(mount: Mount, what: string): never {
    this.noteHit(mount);
    throw new WasiError(Errno.NOSPC, `${what}: write quota of ${mount.guest} used up`);
  }

  noteHit(mount: Mount): void {
    if (this.hit === undefined && mount.maxBytes !== undefined)
      this.hit = { guest: mount.guest, kind: 'bytes', limit: mount.maxBytes };
  }
}
