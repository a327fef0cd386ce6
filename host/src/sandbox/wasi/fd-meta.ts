import { constants, fstatSync, fsyncSync, ftruncateSync } from 'node:fs';
import { Errno, FdFlags, FileType, PREOPEN_TYPE_DIR, Size } from './abi.js';
import type { WasiContext } from './context.js';
import { WasiError } from './errors.js';
import { fileTypeOf, hostPathOf, type FdEntry, type FileEntry } from './fd-table.js';
import { withHostFile, withHostPath } from './host-file.js';
import { requireWritable } from './resolve.js';
import { setTimesOnFd, writeFilestat } from './stat.js';

const encoder = new TextEncoder();

function fileOnly(entry: FdEntry, fd: number): FileEntry {
  if (entry.kind === 'dir') throw new WasiError(Errno.ISDIR, `fd ${fd} is a directory`);
  if (entry.kind !== 'file') throw new WasiError(Errno.INVAL, `fd ${fd} is a stream`);
  return entry;
}

/** fdstat: filetype u8 @0, flags u16 @2, rights_base u64 @8, rights_inheriting u64 @16. */
export function fdFdstatGet(ctx: WasiContext, fd: number, ptr: number): number {
  const entry = ctx.fds.get(fd);
  const v = ctx.mem.view(ptr, Size.FDSTAT);
  v.setBigUint64(0, 0n, true);
  v.setUint8(0, fileTypeOf(entry));
  v.setUint16(2, entry.fdflags, true);
  v.setBigUint64(8, entry.rightsBase, true);
  v.setBigUint64(16, entry.rightsInheriting, true);
  return Errno.SUCCESS;
}

export function fdFdstatSetFlags(ctx: WasiContext, fd: number, flags: number): number {
  const entry = ctx.fds.get(fd);
  if (entry.kind === 'file' && flags & FdFlags.APPEND) requireWritable(entry.mount);
  entry.fdflags = flags & 0x1f;
  return Errno.SUCCESS;
}

/** Rights can only be dropped, never gained. */
export function fdFdstatSetRights(ctx: WasiContext, fd: number, base: bigint, inheriting: bigint): number {
  const entry = ctx.fds.get(fd);
  if ((base & ~entry.rightsBase) !== 0n || (inheriting & ~entry.rightsInheriting) !== 0n) {
    throw new WasiError(Errno.NOTCAPABLE, 'rights can only be reduced');
  }
  entry.rightsBase = base;
  entry.rightsInheriting = inheriting;
  return Errno.SUCCESS;
}

export function fdFilestatGet(ctx: WasiContext, fd: number, ptr: number): number {
  const entry = ctx.fds.get(fd);
  ctx.mem.view(ptr, Size.FILESTAT);
  if (entry.kind === 'file') {
    const st = withHostFile(entry, constants.O_RDONLY, (h) => fstatSync(h, { bigint: true }));
    writeFilestat(ctx.mem, ptr, st, FileType.REGULAR_FILE);
  } else if (entry.kind === 'dir') {
    const st = withHostPath(
      entry.mount,
      hostPathOf(entry.mount, entry.parts),
      constants.O_RDONLY | constants.O_DIRECTORY,
      (h) => fstatSync(h, { bigint: true }),
    );
    writeFilestat(ctx.mem, ptr, st, FileType.DIRECTORY);
  } else {
    writeFilestat(ctx.mem, ptr, undefined, FileType.CHARACTER_DEVICE);
  }
  return Errno.SUCCESS;
}

export function fdFilestatSetSize(ctx: WasiContext, fd: number, size: bigint): number {
  const file = fileOnly(ctx.fds.get(fd), fd);
  requireWritable(file.mount);
  if (size > BigInt(Number.MAX_SAFE_INTEGER)) throw new WasiError(Errno.FBIG, 'size too large');
  withHostFile(file, constants.O_WRONLY, (h) => growTo(ctx, file, h, Number(size), true));
  return Errno.SUCCESS;
}

export function fdFilestatSetTimes(ctx: WasiContext, fd: number, atim: bigint, mtim: bigint, flags: number): number {
  const entry = ctx.fds.get(fd);
  if (entry.kind === 'file') {
    requireWritable(entry.mount);
    withHostFile(entry, constants.O_RDONLY, (h) => setTimesOnFd(h, fstatSync(h, { bigint: true }), atim, mtim, flags));
  } else if (entry.kind === 'dir') {
    requireWritable(entry.mount);
    withHostPath(entry.mount, hostPathOf(entry.mount, entry.parts), constants.O_RDONLY | constants.O_DIRECTORY, (h) =>
      setTimesOnFd(h, fstatSync(h, { bigint: true }), atim, mtim, flags),
    );
  } else {
    throw new WasiError(Errno.BADF, `fd ${fd} is a stream`);
  }
  return Errno.SUCCESS;
}

/**
 * Sets the file's size (or, unless `shrink`, only grows it). Growth counts toward the mount's write
 * quota even though a sparse file takes no blocks yet: the module can fill it without another grant.
 */
function growTo(ctx: WasiContext, file: FileEntry, hostFd: number, size: number, shrink: boolean): void {
  const current = Number(fstatSync(hostFd, { bigint: true }).size);
  if (size <= current && !shrink) return;
  const growth = size - current;
  if (growth > ctx.quota.room(file.mount)) ctx.quota.refuse(file.mount, 'set_size');
  ftruncateSync(hostFd, size);
  ctx.quota.charge(file.mount, growth);
}

/** Grows the file to offset+len when it is shorter (posix_fallocate semantics). */
export function fdAllocate(ctx: WasiContext, fd: number, offset: bigint, len: bigint): number {
  const file = fileOnly(ctx.fds.get(fd), fd);
  requireWritable(file.mount);
  const end = offset + len;
  if (end > BigInt(Number.MAX_SAFE_INTEGER)) throw new WasiError(Errno.FBIG, 'size too large');
  withHostFile(file, constants.O_WRONLY, (h) => growTo(ctx, file, h, Number(end), false));
  return Errno.SUCCESS;
}

export function fdAdvise(ctx: WasiContext, fd: number): number {
  fileOnly(ctx.fds.get(fd), fd); // advice is only a hint; accepted and ignored
  return Errno.SUCCESS;
}

export function fdSync(ctx: WasiContext, fd: number): number {
  const entry = ctx.fds.get(fd);
  if (entry.kind === 'file' && entry.mount.mode === 'rw') withHostFile(entry, constants.O_RDONLY, (h) => fsyncSync(h));
  return Errno.SUCCESS;
}

export function fdClose(ctx: WasiContext, fd: number): number {
  ctx.fds.close(fd);
  return Errno.SUCCESS;
}

export function fdRenumber(ctx: WasiContext, from: number, to: number): number {
  ctx.fds.renumber(from, to);
  return Errno.SUCCESS;
}

/** prestat: tag u8 @0 (0 = dir), name length u32 @4. libc probes fds from 3 until EBADF. */
export function fdPrestatGet(ctx: WasiContext, fd: number, ptr: number): number {
  const entry = ctx.fds.get(fd);
  if (entry.kind !== 'dir' || !entry.preopen) throw new WasiError(Errno.BADF, `fd ${fd} is not a preopen`);
  const v = ctx.mem.view(ptr, Size.PRESTAT);
  v.setUint32(0, 0, true);
  v.setUint8(0, PREOPEN_TYPE_DIR);
  v.setUint32(4, encoder.encode(entry.mount.guest).byteLength, true);
  return Errno.SUCCESS;
}

export function fdPrestatDirName(ctx: WasiContext, fd: number, ptr: number, len: number): number {
  const entry = ctx.fds.get(fd);
  if (entry.kind !== 'dir' || !entry.preopen) throw new WasiError(Errno.BADF, `fd ${fd} is not a preopen`);
  const name = encoder.encode(entry.mount.guest);
  if (len < name.byteLength) throw new WasiError(Errno.NAMETOOLONG, 'buffer shorter than the preopen name');
  ctx.mem.write(ptr, name);
  return Errno.SUCCESS;
}
