import { lstatSync, readdirSync } from 'node:fs';
import { Errno, Size } from './abi.js';
import type { WasiContext } from './context.js';
import { hostPathOf } from './fd-table.js';
import { fileTypeOfStats } from './stat.js';

const encoder = new TextEncoder();

/**
 * Fills buf with dirents (d_next u64 @0, d_ino u64 @8, d_namlen u32 @16, d_type u8 @20, then the
 * name) starting at cookie. The last entry may be cut off; bufused == buf_len tells libc to call
 * again. Cookie n means "the n-th entry of the listing read at cookie 0".
 */
export function fdReaddir(
  ctx: WasiContext,
  fd: number,
  buf: number,
  bufLen: number,
  cookie: bigint,
  bufusedPtr: number,
): number {
  const dir = ctx.fds.dir(fd);
  ctx.mem.view(bufusedPtr, 4);
  const out = ctx.mem.bytes(buf, bufLen);
  const dirPath = hostPathOf(dir.mount, dir.parts);
  if (cookie === 0n || dir.listing === undefined) dir.listing = readdirSync(dirPath, { withFileTypes: true });
  const listing = dir.listing;
  let used = 0;
  for (
    let i = cookie > BigInt(listing.length) ? listing.length : Number(cookie);
    i < listing.length && used < bufLen;
    i += 1
  ) {
    const entry = listing[i];
    if (entry === undefined) break;
    const name = encoder.encode(entry.name);
    const record = new Uint8Array(Size.DIRENT + name.byteLength);
    const v = new DataView(record.buffer);
    const ino = lstatSync(`${dirPath}/${entry.name}`, { bigint: true, throwIfNoEntry: false })?.ino ?? 0n;
    v.setBigUint64(0, BigInt(i + 1), true);
    v.setBigUint64(8, ino, true);
    v.setUint32(16, name.byteLength, true);
    v.setUint8(20, fileTypeOfStats(entry));
    record.set(name, Size.DIRENT);
    const n = Math.min(record.byteLength, bufLen - used);
    out.set(record.subarray(0, n), used);
    used += n;
  }
  ctx.mem.setU32(bufusedPtr, used);
  return Errno.SUCCESS;
}
