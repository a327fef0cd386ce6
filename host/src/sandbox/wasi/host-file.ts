import { closeSync, constants, existsSync, fstatSync, openSync, readlinkSync } from 'node:fs';
import { Errno } from './abi.js';
import { WasiError } from './errors.js';
import { hostPathOf, type FileEntry } from './fd-table.js';
import type { Mount } from './mounts.js';

const PROC_FD = '/proc/self/fd';
const hasProcFd = existsSync(PROC_FD);

/**
 * Checks, after the fact, that what the kernel opened lies inside the mount. resolvePath checks each
 * component before the open; this closes the gap in between, where another instance sharing an rw
 * mount could swap a checked directory for one holding a symlink. Linux only (/proc); elsewhere the
 * component-by-component check stands alone.
 */
export function assertOpenedInside(hostFd: number, mount: Mount): void {
  if (!hasProcFd) return;
  const opened = readlinkSync(`${PROC_FD}/${hostFd}`);
  const prefix = mount.root.endsWith('/') ? mount.root : `${mount.root}/`;
  if (opened !== mount.root && !opened.startsWith(prefix)) {
    throw new WasiError(Errno.NOTCAPABLE, 'the path left the mount while it was being opened');
  }
}

// Never follow a final symlink on the host, and never block opening a FIFO someone placed in a mount.
const SAFE_OPEN = constants.O_NOFOLLOW | constants.O_NONBLOCK;

/** Opens a host path in a mount without following a final symlink; closes it after fn, whatever happens. */
export function withHostPath<T>(mount: Mount, hostPath: string, flags: number, fn: (hostFd: number) => T): T {
  const hostFd = openSync(hostPath, flags | SAFE_OPEN);
  try {
    assertOpenedInside(hostFd, mount);
    return fn(hostFd);
  } finally {
    closeSync(hostFd);
  }
}

/**
 * Runs fn with a host descriptor for an open guest file, held only for this call. The inode must be
 * the one opened by path_open; a file replaced or removed since then gives EBADF.
 */
export function withHostFile<T>(entry: FileEntry, flags: number, fn: (hostFd: number) => T): T {
  let hostFd: number;
  try {
    hostFd = openSync(hostPathOf(entry.mount, entry.parts), flags | SAFE_OPEN);
  } catch (err) {
    if (err instanceof Error && 'code' in err && (err.code === 'ENOENT' || err.code === 'ELOOP')) {
      throw new WasiError(Errno.BADF, 'the open file was removed or replaced');
    }
    throw err;
  }
  try {
    const st = fstatSync(hostFd, { bigint: true });
    if (st.dev !== entry.dev || st.ino !== entry.ino)
      throw new WasiError(Errno.BADF, 'the open file was removed or replaced');
    return fn(hostFd);
  } finally {
    closeSync(hostFd);
  }
}
