import {
  closeSync,
  constants,
  fstatSync,
  mkdirSync,
  openSync,
  readlinkSync,
  renameSync,
  rmdirSync,
  unlinkSync,
  type BigIntStats,
} from 'node:fs';
import { Errno, FdFlags, LOOKUP_SYMLINK_FOLLOW, OFlags, Rights, RIGHTS_WRITE_DATA, Size } from './abi.js';
import type { WasiContext } from './context.js';
import { WasiError } from './errors.js';
import { inheritableRights, mountRights, type DirEntry } from './fd-table.js';
import { assertOpenedInside, withHostPath } from './host-file.js';
import { readGuestPath, requireNamedEntry, requireWritable, resolvePath, type Resolved } from './resolve.js';
import { fileTypeOfStats, setTimesOnFd, setTimesOnLink, writeFilestat } from './stat.js';

const encoder = new TextEncoder();

function resolveAt(
  ctx: WasiContext,
  dirFd: number,
  pathPtr: number,
  pathLen: number,
  follow: boolean,
): { dir: DirEntry; r: Resolved } {
  const dir = ctx.fds.dir(dirFd);
  const r = resolvePath(dir, readGuestPath(ctx.mem, pathPtr, pathLen), follow);
  return { dir, r };
}

export function pathOpen(
  ctx: WasiContext,
  dirFd: number,
  lookupFlags: number,
  pathPtr: number,
  pathLen: number,
  oflags: number,
  rightsBase: bigint,
  rightsInheriting: bigint,
  fdflags: number,
  fdPtr: number,
): number {
  ctx.mem.view(fdPtr, 4);
  const { dir, r } = resolveAt(ctx, dirFd, pathPtr, pathLen, (lookupFlags & LOOKUP_SYMLINK_FOLLOW) !== 0);
  const mode = openMode(r, oflags, rightsBase, fdflags);
  // Rights never exceed what the directory passes on, and an ro mount passes on no mutating right.
  const base = rightsBase & dir.rightsInheriting & mountRights(r.mount);
  const inheriting = rightsInheriting & dir.rightsInheriting & inheritableRights(r.mount);
  if (r.stat?.isSymbolicLink()) throw new WasiError(Errno.LOOP, `${r.lastName} is a symlink and O_NOFOLLOW was asked`);
  if (r.stat?.isDirectory()) {
    if (mode.creat && mode.excl) throw new WasiError(Errno.EXIST, `${r.lastName} exists`);
    if (mode.wantsWrite || mode.trunc) throw new WasiError(Errno.ISDIR, `${r.lastName} is a directory`);
    ctx.fds.ensureRoom();
    const fd = ctx.fds.add({
      kind: 'dir',
      mount: r.mount,
      parts: r.parts,
      preopen: false,
      rightsBase: base,
      rightsInheriting: inheriting,
      fdflags,
    });
    ctx.mem.setU32(fdPtr, fd);
    return Errno.SUCCESS;
  }
  if (r.stat === undefined && !mode.creat) throw new WasiError(Errno.NOENT, `${r.lastName} does not exist`);
  if (mode.wantsDir)
    throw new WasiError(r.stat === undefined ? Errno.INVAL : Errno.NOTDIR, `${r.lastName} is not a directory`);
  if (r.stat === undefined) requireNamedEntry(r);
  ctx.fds.ensureRoom();
  // A new name costs an inode even if nothing is ever written to it (checked before it exists).
  if (r.stat === undefined) ctx.quota.createEntry(r.mount, 'create');
  const st = openHostFile(r, mode);
  const fd = ctx.fds.add({
    kind: 'file',
    mount: r.mount,
    parts: r.parts,
    dev: st.dev,
    ino: st.ino,
    position: 0,
    rightsBase: base,
    rightsInheriting: inheriting,
    fdflags,
    ...(mode.roRead ? { writeRefusedByMount: true as const } : {}),
  });
  ctx.mem.setU32(fdPtr, fd);
  return Errno.SUCCESS;
}

/** What a path_open asks for, read from its flags and rights. */
interface OpenMode {
  creat: boolean;
  excl: boolean;
  trunc: boolean;
  wantsDir: boolean;
  reads: boolean;
  wantsWrite: boolean;
  /** A read that asked for write rights too, on an ro mount: it opens read-only. */
  roRead: boolean;
}

/** The open's mode; on an ro mount one that can be nothing but a write is EROFS. */
function openMode(r: Resolved, oflags: number, rightsBase: bigint, fdflags: number): OpenMode {
  const creat = (oflags & OFlags.CREAT) !== 0;
  const excl = (oflags & OFlags.EXCL) !== 0;
  const trunc = (oflags & OFlags.TRUNC) !== 0;
  const wantsDir = (oflags & OFlags.DIRECTORY) !== 0;
  const asksWriteRights = (rightsBase & RIGHTS_WRITE_DATA) !== 0n;
  const reads = (rightsBase & (Rights.FD_READ | Rights.FD_READDIR)) !== 0n;
  // TinyGo and wasi-libc ask for every right the open mode does not contradict, write rights even
  // for a read; on ro only an open that can be nothing but a write (create, truncate, append, or
  // write rights without a read right) is EROFS. Otherwise it opens read-only and a write is EROFS.
  const roRead = r.mount.mode === 'ro' && asksWriteRights && reads;
  const wantsWrite = (asksWriteRights && !roRead) || (fdflags & FdFlags.APPEND) !== 0;
  if (r.mount.mode === 'ro' && (creat || excl || trunc || wantsWrite)) {
    throw new WasiError(Errno.ROFS, `mount ${r.mount.guest} is read-only`);
  }
  return { creat, excl, trunc, wantsDir, reads, wantsWrite, roRead };
}

/**
 * Opens (and creates or truncates, as asked) the host file without following a symlink, proves it
 * is inside the mount and a regular file, and closes it again: the fd table keeps its identity.
 */
function openHostFile(r: Resolved, mode: OpenMode): BigIntStats {
  const access = mode.wantsWrite ? (mode.reads ? constants.O_RDWR : constants.O_WRONLY) : constants.O_RDONLY;
  const hostFlags =
    access |
    (mode.creat ? constants.O_CREAT : 0) |
    (mode.excl ? constants.O_EXCL : 0) |
    (mode.trunc ? constants.O_TRUNC : 0) |
    constants.O_NOFOLLOW |
    constants.O_NONBLOCK;
  const hostFd = openSync(r.hostPath, hostFlags, 0o644);
  let st: BigIntStats;
  try {
    assertOpenedInside(hostFd, r.mount);
    st = fstatSync(hostFd, { bigint: true });
  } finally {
    closeSync(hostFd);
  }
  // Devices, FIFOs and sockets someone placed in a mount are not files a tool may stream from.
  if (!st.isFile())
    throw new WasiError(st.isDirectory() ? Errno.ISDIR : Errno.ACCES, `${r.lastName} is not a regular file`);
  return st;
}

export function pathCreateDirectory(ctx: WasiContext, dirFd: number, pathPtr: number, pathLen: number): number {
  requireWritable(ctx.fds.dir(dirFd).mount);
  const { r } = resolveAt(ctx, dirFd, pathPtr, pathLen, false);
  if (r.stat !== undefined) throw new WasiError(Errno.EXIST, `${r.lastName} exists`);
  requireNamedEntry(r);
  ctx.quota.createEntry(r.mount, 'mkdir');
  mkdirSync(r.hostPath, 0o755);
  return Errno.SUCCESS;
}

export function pathRemoveDirectory(ctx: WasiContext, dirFd: number, pathPtr: number, pathLen: number): number {
  requireWritable(ctx.fds.dir(dirFd).mount);
  const { r } = resolveAt(ctx, dirFd, pathPtr, pathLen, false);
  requireNamedEntry(r);
  if (r.stat === undefined) throw new WasiError(Errno.NOENT, `${r.lastName} does not exist`);
  if (!r.stat.isDirectory()) throw new WasiError(Errno.NOTDIR, `${r.lastName} is not a directory`);
  rmdirSync(r.hostPath);
  return Errno.SUCCESS;
}

export function pathUnlinkFile(ctx: WasiContext, dirFd: number, pathPtr: number, pathLen: number): number {
  requireWritable(ctx.fds.dir(dirFd).mount);
  const { r } = resolveAt(ctx, dirFd, pathPtr, pathLen, false);
  requireNamedEntry(r);
  if (r.stat === undefined) throw new WasiError(Errno.NOENT, `${r.lastName} does not exist`);
  if (r.stat.isDirectory()) throw new WasiError(Errno.ISDIR, `${r.lastName} is a directory`);
  unlinkSync(r.hostPath); // removes a symlink itself, never its target
  return Errno.SUCCESS;
}

export function pathRename(
  ctx: WasiContext,
  oldFd: number,
  oldPtr: number,
  oldLen: number,
  newFd: number,
  newPtr: number,
  newLen: number,
): number {
  requireWritable(ctx.fds.dir(oldFd).mount);
  requireWritable(ctx.fds.dir(newFd).mount);
  const from = resolveAt(ctx, oldFd, oldPtr, oldLen, false).r;
  const to = resolveAt(ctx, newFd, newPtr, newLen, false).r;
  requireNamedEntry(from);
  requireNamedEntry(to);
  if (from.stat === undefined) throw new WasiError(Errno.NOENT, `${from.lastName} does not exist`);
  renameSync(from.hostPath, to.hostPath);
  return Errno.SUCCESS;
}

/** Links could point anywhere on the host, so a module may not make any (every mode). */
export function pathSymlink(ctx: WasiContext, dirFd: number): number {
  ctx.fds.dir(dirFd);
  throw new WasiError(Errno.PERM, 'creating symlinks is not allowed in the sandbox');
}

export function pathLink(ctx: WasiContext, oldFd: number, newFd: number): number {
  ctx.fds.dir(oldFd);
  ctx.fds.dir(newFd);
  throw new WasiError(Errno.PERM, 'creating hard links is not allowed in the sandbox');
}

/**
 * Returns a symlink's target as the guest should see it: relative targets as they are, absolute
 * targets inside the mount rewritten to the guest path; an absolute target outside is not revealed.
 */
export function pathReadlink(
  ctx: WasiContext,
  dirFd: number,
  pathPtr: number,
  pathLen: number,
  buf: number,
  bufLen: number,
  usedPtr: number,
): number {
  ctx.mem.view(usedPtr, 4);
  const { r } = resolveAt(ctx, dirFd, pathPtr, pathLen, false);
  if (r.stat === undefined) throw new WasiError(Errno.NOENT, `${r.lastName} does not exist`);
  if (!r.stat.isSymbolicLink()) throw new WasiError(Errno.INVAL, `${r.lastName} is not a symlink`);
  let target = readlinkSync(r.hostPath);
  if (target.startsWith('/')) {
    const root = r.mount.root.endsWith('/') ? r.mount.root : `${r.mount.root}/`;
    if (target === r.mount.root) target = r.mount.guest;
    else if (target.startsWith(root)) target = `${r.mount.guest.replace(/\/$/, '')}/${target.slice(root.length)}`;
    else throw new WasiError(Errno.NOTCAPABLE, `symlink ${r.lastName} points outside the mount`);
  }
  const bytes = encoder.encode(target).subarray(0, bufLen);
  ctx.mem.write(buf, bytes);
  ctx.mem.setU32(usedPtr, bytes.byteLength);
  return Errno.SUCCESS;
}

export function pathFilestatGet(
  ctx: WasiContext,
  dirFd: number,
  lookupFlags: number,
  pathPtr: number,
  pathLen: number,
  ptr: number,
): number {
  ctx.mem.view(ptr, Size.FILESTAT);
  const { r } = resolveAt(ctx, dirFd, pathPtr, pathLen, (lookupFlags & LOOKUP_SYMLINK_FOLLOW) !== 0);
  if (r.stat === undefined) throw new WasiError(Errno.NOENT, `${r.lastName} does not exist`);
  writeFilestat(ctx.mem, ptr, r.stat, fileTypeOfStats(r.stat));
  return Errno.SUCCESS;
}

export function pathFilestatSetTimes(
  ctx: WasiContext,
  dirFd: number,
  lookupFlags: number,
  pathPtr: number,
  pathLen: number,
  atim: bigint,
  mtim: bigint,
  fstflags: number,
): number {
  requireWritable(ctx.fds.dir(dirFd).mount);
  const { r } = resolveAt(ctx, dirFd, pathPtr, pathLen, (lookupFlags & LOOKUP_SYMLINK_FOLLOW) !== 0);
  if (r.stat === undefined) throw new WasiError(Errno.NOENT, `${r.lastName} does not exist`);
  if (r.stat.isSymbolicLink()) {
    setTimesOnLink(r.hostPath, atim, mtim, fstflags);
  } else {
    withHostPath(r.mount, r.hostPath, constants.O_RDONLY, (h) =>
      setTimesOnFd(h, fstatSync(h, { bigint: true }), atim, mtim, fstflags),
    );
  }
  return Errno.SUCCESS;
}
