import type { WasiContext } from './context.js';
import { errnoOf, isGuestError } from './errors.js';
import * as meta from './fd-meta.js';
import * as io from './io.js';
import * as misc from './misc.js';
import * as path from './path-calls.js';
import { fdReaddir } from './readdir.js';

/** Every wasi_snapshot_preview1 function toolgate provides; the table below must cover each one. */
export const WASI_IMPORT_NAMES = [
  'args_get',
  'args_sizes_get',
  'environ_get',
  'environ_sizes_get',
  'clock_res_get',
  'clock_time_get',
  'random_get',
  'fd_advise',
  'fd_allocate',
  'fd_close',
  'fd_datasync',
  'fd_fdstat_get',
  'fd_fdstat_set_flags',
  'fd_fdstat_set_rights',
  'fd_filestat_get',
  'fd_filestat_set_size',
  'fd_filestat_set_times',
  'fd_pread',
  'fd_prestat_get',
  'fd_prestat_dir_name',
  'fd_pwrite',
  'fd_read',
  'fd_readdir',
  'fd_renumber',
  'fd_seek',
  'fd_sync',
  'fd_tell',
  'fd_write',
  'path_create_directory',
  'path_filestat_get',
  'path_filestat_set_times',
  'path_link',
  'path_open',
  'path_readlink',
  'path_remove_directory',
  'path_rename',
  'path_symlink',
  'path_unlink_file',
  'poll_oneoff',
  'proc_exit',
  'proc_raise',
  'sched_yield',
  'sock_accept',
  'sock_recv',
  'sock_send',
  'sock_shutdown',
] as const;

export type WasiImportName = (typeof WASI_IMPORT_NAMES)[number];
type Arg = number | bigint;
export type WasiFunction = (...args: Arg[]) => number | bigint | void;

// The engine converts arguments by the module's declared import types, which a hostile module
// chooses. Normalise each to the width the spec gives it instead of trusting its JS type.
const u32 = (x: Arg | undefined): number => (typeof x === 'bigint' ? Number(BigInt.asUintN(32, x)) : (x ?? 0) >>> 0);
const u64 = (x: Arg | undefined): bigint => (typeof x === 'bigint' ? BigInt.asUintN(64, x) : BigInt((x ?? 0) >>> 0));
const s64 = (x: Arg | undefined): bigint => (typeof x === 'bigint' ? BigInt.asIntN(64, x) : BigInt((x ?? 0) | 0));

/**
 * Refusals (WasiError, including EFAULT for wild pointers) and host file-system errors become an
 * errno for the guest. Anything else (proc_exit's WasiExit, an exception from the embedder's
 * stdout/stderr callback) propagates and ends the guest call, so the embedder stays in control.
 */
function guarded(fn: () => number): number {
  try {
    return fn();
  } catch (err) {
    if (isGuestError(err)) return errnoOf(err);
    throw err;
  }
}

export function buildImports(ctx: WasiContext): Record<WasiImportName, WasiFunction> {
  const g = guarded;
  return {
    args_get: (a, b) => g(() => misc.argsGet(ctx, u32(a), u32(b))),
    args_sizes_get: (a, b) => g(() => misc.argsSizesGet(ctx, u32(a), u32(b))),
    environ_get: () => g(() => misc.environGet()),
    environ_sizes_get: (a, b) => g(() => misc.environSizesGet(ctx, u32(a), u32(b))),
    clock_res_get: (id, p) => g(() => misc.clockResGet(ctx, u32(id), u32(p))),
    clock_time_get: (id, _precision, p) => g(() => misc.clockTimeGet(ctx, u32(id), u32(p))),
    random_get: (p, n) => g(() => misc.randomGet(ctx, u32(p), u32(n))),

    fd_advise: (fd) => g(() => meta.fdAdvise(ctx, u32(fd))),
    fd_allocate: (fd, off, len) => g(() => meta.fdAllocate(ctx, u32(fd), u64(off), u64(len))),
    fd_close: (fd) => g(() => meta.fdClose(ctx, u32(fd))),
    fd_datasync: (fd) => g(() => meta.fdSync(ctx, u32(fd))),
    fd_fdstat_get: (fd, p) => g(() => meta.fdFdstatGet(ctx, u32(fd), u32(p))),
    fd_fdstat_set_flags: (fd, f) => g(() => meta.fdFdstatSetFlags(ctx, u32(fd), u32(f) & 0xffff)),
    fd_fdstat_set_rights: (fd, b, i) => g(() => meta.fdFdstatSetRights(ctx, u32(fd), u64(b), u64(i))),
    fd_filestat_get: (fd, p) => g(() => meta.fdFilestatGet(ctx, u32(fd), u32(p))),
    fd_filestat_set_size: (fd, s) => g(() => meta.fdFilestatSetSize(ctx, u32(fd), u64(s))),
    fd_filestat_set_times: (fd, a, m, f) =>
      g(() => meta.fdFilestatSetTimes(ctx, u32(fd), u64(a), u64(m), u32(f) & 0xffff)),
    fd_pread: (fd, iovs, n, off, p) => g(() => io.fdPread(ctx, u32(fd), u32(iovs), u32(n), u64(off), u32(p))),
    fd_prestat_get: (fd, p) => g(() => meta.fdPrestatGet(ctx, u32(fd), u32(p))),
    fd_prestat_dir_name: (fd, p, n) => g(() => meta.fdPrestatDirName(ctx, u32(fd), u32(p), u32(n))),
    fd_pwrite: (fd, iovs, n, off, p) => g(() => io.fdPwrite(ctx, u32(fd), u32(iovs), u32(n), u64(off), u32(p))),
    fd_read: (fd, iovs, n, p) => g(() => io.fdRead(ctx, u32(fd), u32(iovs), u32(n), u32(p))),
    fd_readdir: (fd, buf, len, cookie, p) => g(() => fdReaddir(ctx, u32(fd), u32(buf), u32(len), u64(cookie), u32(p))),
    fd_renumber: (from, to) => g(() => meta.fdRenumber(ctx, u32(from), u32(to))),
    fd_seek: (fd, off, whence, p) => g(() => io.fdSeek(ctx, u32(fd), s64(off), u32(whence) & 0xff, u32(p))),
    fd_sync: (fd) => g(() => meta.fdSync(ctx, u32(fd))),
    fd_tell: (fd, p) => g(() => io.fdTell(ctx, u32(fd), u32(p))),
    fd_write: (fd, iovs, n, p) => g(() => io.fdWrite(ctx, u32(fd), u32(iovs), u32(n), u32(p))),

    path_create_directory: (fd, p, n) => g(() => path.pathCreateDirectory(ctx, u32(fd), u32(p), u32(n))),
    path_filestat_get: (fd, fl, p, n, out) =>
      g(() => path.pathFilestatGet(ctx, u32(fd), u32(fl), u32(p), u32(n), u32(out))),
    path_filestat_set_times: (fd, fl, p, n, a, m, f) =>
      g(() => path.pathFilestatSetTimes(ctx, u32(fd), u32(fl), u32(p), u32(n), u64(a), u64(m), u32(f) & 0xffff)),
    path_link: (oldFd, _fl, _op, _on, newFd) => g(() => path.pathLink(ctx, u32(oldFd), u32(newFd))),
    path_open: (fd, fl, p, n, of, rb, ri, ff, out) =>
      g(() =>
        path.pathOpen(
          ctx,
          u32(fd),
          u32(fl),
          u32(p),
          u32(n),
          u32(of) & 0xffff,
          u64(rb),
          u64(ri),
          u32(ff) & 0xffff,
          u32(out),
        ),
      ),
    path_readlink: (fd, p, n, buf, len, out) =>
      g(() => path.pathReadlink(ctx, u32(fd), u32(p), u32(n), u32(buf), u32(len), u32(out))),
    path_remove_directory: (fd, p, n) => g(() => path.pathRemoveDirectory(ctx, u32(fd), u32(p), u32(n))),
    path_rename: (fd, p, n, nfd, np, nn) =>
      g(() => path.pathRename(ctx, u32(fd), u32(p), u32(n), u32(nfd), u32(np), u32(nn))),
    path_symlink: (_op, _on, fd) => g(() => path.pathSymlink(ctx, u32(fd))),
    path_unlink_file: (fd, p, n) => g(() => path.pathUnlinkFile(ctx, u32(fd), u32(p), u32(n))),

    poll_oneoff: (i, o, n, p) => g(() => misc.pollOneoff(ctx, u32(i), u32(o), u32(n), u32(p))),
    proc_exit: (code) => misc.procExit(u32(code)),
    proc_raise: () => misc.notImplemented(),
    sched_yield: () => 0,
    sock_accept: () => misc.notSupported(),
    sock_recv: () => misc.notSupported(),
    sock_send: () => misc.notSupported(),
    sock_shutdown: () => misc.notSupported(),
  };
}
