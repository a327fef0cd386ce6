// wasi_snapshot_preview1 numbers and struct layouts, exactly as the witx spec numbers them.
// Guest code (wasi-libc, Rust std, AssemblyScript) compiles these constants in, so they must not drift.

export const Errno = {
  SUCCESS: 0,
  ACCES: 2,
  AGAIN: 6,
  BADF: 8,
  BUSY: 10,
  EXIST: 20,
  FAULT: 21,
  FBIG: 22,
  ILSEQ: 25,
  INVAL: 28,
  IO: 29,
  ISDIR: 31,
  LOOP: 32,
  MFILE: 33,
  NAMETOOLONG: 37,
  NOENT: 44,
  NOMEM: 48,
  NOSPC: 51,
  NOSYS: 52,
  NOTDIR: 54,
  NOTEMPTY: 55,
  NOTSUP: 58,
  NXIO: 60,
  OVERFLOW: 61,
  PERM: 63,
  ROFS: 69,
  SPIPE: 70,
  XDEV: 75,
  NOTCAPABLE: 76,
} as const;

export const FileType = {
  UNKNOWN: 0,
  BLOCK_DEVICE: 1,
  CHARACTER_DEVICE: 2,
  DIRECTORY: 3,
  REGULAR_FILE: 4,
  SOCKET_DGRAM: 5,
  SOCKET_STREAM: 6,
  SYMBOLIC_LINK: 7,
} as const;

/** Rights are a u64 bitset; bit positions from the spec. */
export const Rights = {
  FD_DATASYNC: 1n << 0n,
  FD_READ: 1n << 1n,
  FD_SEEK: 1n << 2n,
  FD_FDSTAT_SET_FLAGS: 1n << 3n,
  FD_SYNC: 1n << 4n,
  FD_TELL: 1n << 5n,
  FD_WRITE: 1n << 6n,
  FD_ADVISE: 1n << 7n,
  FD_ALLOCATE: 1n << 8n,
  PATH_CREATE_DIRECTORY: 1n << 9n,
  PATH_CREATE_FILE: 1n << 10n,
  PATH_LINK_SOURCE: 1n << 11n,
  PATH_LINK_TARGET: 1n << 12n,
  PATH_OPEN: 1n << 13n,
  FD_READDIR: 1n << 14n,
  PATH_READLINK: 1n << 15n,
  PATH_RENAME_SOURCE: 1n << 16n,
  PATH_RENAME_TARGET: 1n << 17n,
  PATH_FILESTAT_GET: 1n << 18n,
  PATH_FILESTAT_SET_SIZE: 1n << 19n,
  PATH_FILESTAT_SET_TIMES: 1n << 20n,
  FD_FILESTAT_GET: 1n << 21n,
  FD_FILESTAT_SET_SIZE: 1n << 22n,
  FD_FILESTAT_SET_TIMES: 1n << 23n,
  PATH_SYMLINK: 1n << 24n,
  PATH_REMOVE_DIRECTORY: 1n << 25n,
  PATH_UNLINK_FILE: 1n << 26n,
  POLL_FD_READWRITE: 1n << 27n,
  SOCK_SHUTDOWN: 1n << 28n,
} as const;

export const RIGHTS_ALL = (1n << 29n) - 1n;

/** Rights that change data or names. An ro mount never grants them. */
export const RIGHTS_MUTATING =
  Rights.FD_DATASYNC |
  Rights.FD_WRITE |
  Rights.FD_ALLOCATE |
  Rights.PATH_CREATE_DIRECTORY |
  Rights.PATH_CREATE_FILE |
  Rights.PATH_LINK_SOURCE |
  Rights.PATH_LINK_TARGET |
  Rights.PATH_RENAME_SOURCE |
  Rights.PATH_RENAME_TARGET |
  Rights.PATH_FILESTAT_SET_SIZE |
  Rights.PATH_FILESTAT_SET_TIMES |
  Rights.FD_FILESTAT_SET_SIZE |
  Rights.FD_FILESTAT_SET_TIMES |
  Rights.PATH_SYMLINK |
  Rights.PATH_REMOVE_DIRECTORY |
  Rights.PATH_UNLINK_FILE;

/**
 * Rights whose request on an ro mount is refused outright (EROFS) rather than silently dropped:
 * asking for them means the caller intends to write file data. Other mutating rights are dropped,
 * because libc and Rust std ask for them even on a read-only open.
 */
export const RIGHTS_WRITE_DATA = Rights.FD_WRITE | Rights.FD_ALLOCATE | Rights.FD_FILESTAT_SET_SIZE;

export const FdFlags = { APPEND: 1, DSYNC: 2, NONBLOCK: 4, RSYNC: 8, SYNC: 16 } as const;
export const OFlags = { CREAT: 1, DIRECTORY: 2, EXCL: 4, TRUNC: 8 } as const;
export const LOOKUP_SYMLINK_FOLLOW = 1;
export const Whence = { SET: 0, CUR: 1, END: 2 } as const;
export const FstFlags = { ATIM: 1, ATIM_NOW: 2, MTIM: 4, MTIM_NOW: 8 } as const;
export const ClockId = { REALTIME: 0, MONOTONIC: 1, PROCESS_CPUTIME_ID: 2, THREAD_CPUTIME_ID: 3 } as const;
export const EventType = { CLOCK: 0, FD_READ: 1, FD_WRITE: 2 } as const;
export const SUBCLOCK_ABSTIME = 1;
export const PREOPEN_TYPE_DIR = 0;

/** Struct sizes in guest memory (bytes). */
export const Size = {
  IOVEC: 8,
  FDSTAT: 24,
  FILESTAT: 64,
  DIRENT: 24,
  PRESTAT: 8,
  SUBSCRIPTION: 48,
  EVENT: 32,
} as const;
