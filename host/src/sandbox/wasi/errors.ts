import { codeOf, ToolgateError } from '../../errors/index.js';
import { Errno } from './abi.js';

/**
 * Thrown by proc_exit; it unwinds the guest's call stack up to whoever called into the module,
 * which reads `exitCode` (the guest's exit status; `code` is the toolgate code, as on every error).
 */
export class WasiExit extends ToolgateError<'WASI_EXIT'> {
  readonly exitCode: number;
  constructor(exitCode: number) {
    super('WASI_EXIT', `module called proc_exit(${exitCode})`);
    this.exitCode = exitCode;
  }
}

/** A call refused with a WASI errno; caught at the import boundary and returned to the guest. */
export class WasiError extends ToolgateError<'WASI_ERRNO'> {
  readonly errno: number;
  constructor(errno: number, message = `wasi errno ${errno}`) {
    super('WASI_ERRNO', message);
    this.errno = errno;
  }
}

/** Host errno names (as node:fs reports them) to preview1 numbers. Unlisted codes become EIO. */
const HOST_CODES: Readonly<Record<string, number>> = {
  EACCES: Errno.ACCES,
  EAGAIN: Errno.AGAIN,
  EBADF: Errno.BADF,
  EBUSY: Errno.BUSY,
  EEXIST: Errno.EXIST,
  EFBIG: Errno.FBIG,
  EINVAL: Errno.INVAL,
  EISDIR: Errno.ISDIR,
  ELOOP: Errno.LOOP,
  EMFILE: Errno.MFILE,
  ENAMETOOLONG: Errno.NAMETOOLONG,
  ENOENT: Errno.NOENT,
  ENOMEM: Errno.NOMEM,
  ENOSPC: Errno.NOSPC,
  ENOTDIR: Errno.NOTDIR,
  ENOTEMPTY: Errno.NOTEMPTY,
  ENOTSUP: Errno.NOTSUP,
  ENXIO: Errno.NXIO,
  EOVERFLOW: Errno.OVERFLOW,
  EPERM: Errno.PERM,
  EROFS: Errno.ROFS,
  ESPIPE: Errno.SPIPE,
  EXDEV: Errno.XDEV,
};

/** The errno the guest gets for a failure thrown while serving it. */
export function errnoOf(err: unknown): number {
  if (err instanceof WasiError) return err.errno;
  const code = err instanceof ToolgateError ? undefined : codeOf(err);
  return code === undefined ? Errno.IO : (HOST_CODES[code] ?? Errno.IO);
}

/** True for failures the guest should see as an errno: our refusals and host system-call errors. */
export function isGuestError(err: unknown): boolean {
  if (err instanceof WasiError) return true;
  return err instanceof Error && 'syscall' in err && 'code' in err && typeof err.code === 'string';
}
