import { Errno } from './abi.js';
import { WasiError } from './errors.js';
import type { Mount } from './mounts.js';

/** The first quota a call ran into: which mount and its limit, for the call's result. */
export interface QuotaHit {
  guest: string;
  maxBytes: number;
}

/**
 * Bytes each rw mount may still take in this call: data written (fd_write, fd_pwrite) plus growth
 * (fd_filestat_set_size, fd_allocate, a write past the end). Past it the module gets ENOSPC, as on
 * a full disk, and the first hit is kept for the result. The worker resets it before every call.
 */
export class WriteQuota {
  readonly #used = new Map<Mount, number>();
  hit: QuotaHit | undefined;

  reset(): void {
    this.#used.clear();
    this.hit = undefined;
  }

  /** Bytes `mount` may still take in this call (Infinity without a quota). */
  room(mount: Mount): number {
    return mount.maxBytes === undefined ? Infinity : Math.max(0, mount.maxBytes - (this.#used.get(mount) ?? 0));
  }

  charge(mount: Mount, bytes: number): void {
    if (bytes > 0) this.#used.set(mount, (this.#used.get(mount) ?? 0) + bytes);
  }

  /** Records the hit (the first one stays) and throws ENOSPC. */
  refuse(mount: Mount, what: string): never {
    this.noteHit(mount);
    throw new WasiError(Errno.NOSPC, `${what}: write quota of ${mount.guest} used up`);
  }

  noteHit(mount: Mount): void {
    if (this.hit === undefined && mount.maxBytes !== undefined) this.hit = { guest: mount.guest, maxBytes: mount.maxBytes };
  }
}
