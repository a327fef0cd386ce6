import { futimesSync, lstatSync, lutimesSync, type BigIntStats, type Dirent } from 'node:fs';
import { Errno, FileType, FstFlags, Size } from './abi.js';
import { WasiError } from './errors.js';
import type { GuestMemory } from './memory.js';

export function fileTypeOfStats(st: BigIntStats | Dirent): number {
  if (st.isFile()) return FileType.REGULAR_FILE;
  if (st.isDirectory()) return FileType.DIRECTORY;
  if (st.isSymbolicLink()) return FileType.SYMBOLIC_LINK;
  if (st.isCharacterDevice()) return FileType.CHARACTER_DEVICE;
  if (st.isBlockDevice()) return FileType.BLOCK_DEVICE;
  if (st.isSocket()) return FileType.SOCKET_STREAM;
  return FileType.UNKNOWN;
}

/** filestat: dev u64 @0, ino u64 @8, filetype u8 @16, nlink u64 @24, size u64 @32, atim @40, mtim @48, ctim @56. */
export function writeFilestat(mem: GuestMemory, ptr: number, st: BigIntStats | undefined, fileType: number): void {
  const v = mem.view(ptr, Size.FILESTAT);
  for (let i = 0; i < Size.FILESTAT; i += 8) v.setBigUint64(i, 0n, true);
  v.setUint8(16, fileType);
  if (st === undefined) return;
  v.setBigUint64(0, st.dev, true);
  v.setBigUint64(8, st.ino, true);
  v.setBigUint64(24, st.nlink, true);
  v.setBigUint64(32, st.size, true);
  v.setBigUint64(40, st.atimeNs, true);
  v.setBigUint64(48, st.mtimeNs, true);
  v.setBigUint64(56, st.ctimeNs, true);
}

/** Works out the (atime, mtime) pair in seconds that set_times asks for, keeping what it leaves alone. */
export function chosenTimes(current: BigIntStats, atim: bigint, mtim: bigint, flags: number): [number, number] {
  if ((flags & FstFlags.ATIM && flags & FstFlags.ATIM_NOW) || (flags & FstFlags.MTIM && flags & FstFlags.MTIM_NOW)) {
    throw new WasiError(Errno.INVAL, 'both a time and NOW were given');
  }
  const now = Date.now() / 1000;
  const seconds = (ns: bigint): number => Number(ns) / 1e9;
  const a = flags & FstFlags.ATIM_NOW ? now : flags & FstFlags.ATIM ? seconds(atim) : seconds(current.atimeNs);
  const m = flags & FstFlags.MTIM_NOW ? now : flags & FstFlags.MTIM ? seconds(mtim) : seconds(current.mtimeNs);
  return [a, m];
}

/** Sets times on an already opened host descriptor, or on a symlink itself when it is not followed. */
export function setTimesOnFd(hostFd: number, current: BigIntStats, atim: bigint, mtim: bigint, flags: number): void {
  const [a, m] = chosenTimes(current, atim, mtim, flags);
  futimesSync(hostFd, a, m);
}

export function setTimesOnLink(hostPath: string, atim: bigint, mtim: bigint, flags: number): void {
  const [a, m] = chosenTimes(lstatSync(hostPath, { bigint: true }), atim, mtim, flags);
  lutimesSync(hostPath, a, m);
}
