import { constants, fstatSync, readSync, writeSync } from 'node:fs';
import { Errno, FdFlags, Rights, Whence } from './abi.js';
import type { WasiContext } from './context.js';
import { WasiError } from './errors.js';
import type { FileEntry } from './fd-table.js';
import { withHostFile } from './host-file.js';
import { requireWritable } from './resolve.js';

/** Bytes moved by one read or write call; more is a short count, so the host never buffers without limit. */
export const MAX_IO_BYTES = 16 * 1024 * 1024;
/** iovec entries per call (Linux IOV_MAX). */
export const MAX_IOVS = 1024;

interface Span {
  ptr: number;
  len: number;
}

/** Reads an iovec array, checks every buffer lies in guest memory, and trims the total to MAX_IO_BYTES. */
function readIovs(ctx: WasiContext, iovsPtr: number, count: number): Span[] {
  if (count > MAX_IOVS) throw new WasiError(Errno.INVAL, `more than ${MAX_IOVS} iovecs`);
  const spans: Span[] = [];
  let total = 0;
  for (let i = 0; i < count; i += 1) {
    const ptr = ctx.mem.u32(iovsPtr + i * 8);
    const len = Math.min(ctx.mem.u32(iovsPtr + i * 8 + 4), MAX_IO_BYTES - total);
    ctx.mem.bytes(ptr, len); // EFAULT now, before any byte moves
    spans.push({ ptr, len });
    total += len;
  }
  return spans;
}

function fileFor(ctx: WasiContext, fd: number, right: bigint): FileEntry {
  const entry = ctx.fds.get(fd);
  if (entry.kind === 'dir') throw new WasiError(Errno.ISDIR, `fd ${fd} is a directory`);
  if (entry.kind !== 'file') throw new WasiError(Errno.SPIPE, `fd ${fd} is a stream`);
  if ((entry.rightsBase & right) === 0n && entry.writeRefusedByMount === true && right !== Rights.FD_READ)
    requireWritable(entry.mount);
  if ((entry.rightsBase & right) === 0n)
    throw new WasiError(Errno.BADF, `fd ${fd} was not opened for ${right === Rights.FD_READ ? 'reading' : 'writing'}`);
  return entry;
}

function readAt(ctx: WasiContext, entry: FileEntry, spans: Span[], position: number): number {
  return withHostFile(entry, constants.O_RDONLY, (hostFd) => {
    let done = 0;
    for (const span of spans) {
      if (span.len === 0) continue;
      const n = readSync(hostFd, ctx.mem.bytes(span.ptr, span.len), 0, span.len, position + done);
      done += n;
      if (n < span.len) break;
    }
    return done;
  });
}

/** Cuts spans to at most `limit` bytes in total. */
function trimSpans(spans: Span[], limit: number): Span[] {
  const out: Span[] = [];
  let left = limit;
  for (const span of spans) {
    if (left <= 0) break;
    const len = Math.min(span.len, left);
    out.push({ ptr: span.ptr, len });
    left -= len;
  }
  return out;
}

// The mount's write quota counts the bytes written and any hole left before them (a write past
// the end grows the file like set_size). Over it the write is short; with no room at all, ENOSPC.
function writeAt(
  ctx: WasiContext,
  entry: FileEntry,
  spans: Span[],
  position: number | 'append',
): { written: number; end: number } {
  return withHostFile(entry, constants.O_WRONLY, (hostFd) => {
    const size = Number(fstatSync(hostFd, { bigint: true }).size);
    let at = position === 'append' ? size : position;
    const hole = Math.max(0, at - size);
    const asked = spans.reduce((sum, s) => sum + s.len, 0);
    const room = ctx.quota.room(entry.mount) - hole;
    if (asked > 0 && room <= 0) ctx.quota.refuse(entry.mount, 'write');
    if (asked > room) ctx.quota.noteHit(entry.mount);
    let written = 0;
    for (const span of asked > room ? trimSpans(spans, room) : spans) {
      if (span.len === 0) continue;
      const n = writeSync(hostFd, ctx.mem.bytes(span.ptr, span.len), 0, span.len, at);
      written += n;
      at += n;
      if (n < span.len) break;
    }
    ctx.quota.charge(entry.mount, written > 0 ? hole + written : 0);
    return { written, end: at };
  });
}

function offsetOf(offset: bigint): number {
  if (offset > BigInt(Number.MAX_SAFE_INTEGER)) throw new WasiError(Errno.OVERFLOW, 'offset too large');
  return Number(offset);
}

export function fdRead(ctx: WasiContext, fd: number, iovsPtr: number, iovsLen: number, nreadPtr: number): number {
  ctx.mem.view(nreadPtr, 4);
  const entry = ctx.fds.get(fd);
  const spans = readIovs(ctx, iovsPtr, iovsLen);
  if (entry.kind === 'stdin') {
    ctx.mem.setU32(nreadPtr, 0); // stdin is always empty
    return Errno.SUCCESS;
  }
  if (entry.kind !== 'file' && entry.kind !== 'dir') throw new WasiError(Errno.BADF, `fd ${fd} is write-only`);
  const file = fileFor(ctx, fd, Rights.FD_READ);
  const n = readAt(ctx, file, spans, file.position);
  file.position += n;
  ctx.mem.setU32(nreadPtr, n);
  return Errno.SUCCESS;
}

export function fdPread(
  ctx: WasiContext,
  fd: number,
  iovsPtr: number,
  iovsLen: number,
  offset: bigint,
  nreadPtr: number,
): number {
  ctx.mem.view(nreadPtr, 4);
  const file = fileFor(ctx, fd, Rights.FD_READ);
  const spans = readIovs(ctx, iovsPtr, iovsLen);
  ctx.mem.setU32(nreadPtr, readAt(ctx, file, spans, offsetOf(offset)));
  return Errno.SUCCESS;
}

export function fdWrite(ctx: WasiContext, fd: number, iovsPtr: number, iovsLen: number, nwrittenPtr: number): number {
  ctx.mem.view(nwrittenPtr, 4);
  const entry = ctx.fds.get(fd);
  const spans = readIovs(ctx, iovsPtr, iovsLen);
  if (entry.kind === 'stdout' || entry.kind === 'stderr') {
    const total = spans.reduce((sum, s) => sum + s.len, 0);
    const out = new Uint8Array(total); // a copy: the receiver may keep it after the guest runs again
    let at = 0;
    for (const span of spans) {
      out.set(ctx.mem.bytes(span.ptr, span.len), at);
      at += span.len;
    }
    if (entry.kind === 'stdout') ctx.writeStdout(out);
    else ctx.writeStderr(out);
    ctx.mem.setU32(nwrittenPtr, total);
    return Errno.SUCCESS;
  }
  if (entry.kind === 'stdin') throw new WasiError(Errno.BADF, 'fd 0 is read-only');
  const file = fileFor(ctx, fd, Rights.FD_WRITE);
  requireWritable(file.mount);
  const append = (file.fdflags & FdFlags.APPEND) !== 0;
  const { written, end } = writeAt(ctx, file, spans, append ? 'append' : file.position);
  file.position = end;
  ctx.mem.setU32(nwrittenPtr, written);
  return Errno.SUCCESS;
}

export function fdPwrite(
  ctx: WasiContext,
  fd: number,
  iovsPtr: number,
  iovsLen: number,
  offset: bigint,
  nwrittenPtr: number,
): number {
  ctx.mem.view(nwrittenPtr, 4);
  const file = fileFor(ctx, fd, Rights.FD_WRITE);
  requireWritable(file.mount);
  const spans = readIovs(ctx, iovsPtr, iovsLen);
  ctx.mem.setU32(nwrittenPtr, writeAt(ctx, file, spans, offsetOf(offset)).written);
  return Errno.SUCCESS;
}

export function fdSeek(ctx: WasiContext, fd: number, offset: bigint, whence: number, newOffsetPtr: number): number {
  ctx.mem.view(newOffsetPtr, 8);
  const entry = ctx.fds.get(fd);
  if (entry.kind === 'dir') throw new WasiError(Errno.BADF, `fd ${fd} is a directory`);
  if (entry.kind !== 'file') throw new WasiError(Errno.SPIPE, `fd ${fd} is a stream`);
  let base: bigint;
  if (whence === Whence.SET) base = 0n;
  else if (whence === Whence.CUR) base = BigInt(entry.position);
  else if (whence === Whence.END)
    base = withHostFile(entry, constants.O_RDONLY, (h) => fstatSync(h, { bigint: true }).size);
  else throw new WasiError(Errno.INVAL, `bad whence ${whence}`);
  const next = base + offset;
  if (next < 0n) throw new WasiError(Errno.INVAL, 'seek before the start of the file');
  entry.position = offsetOf(next);
  ctx.mem.setU64(newOffsetPtr, next);
  return Errno.SUCCESS;
}

export function fdTell(ctx: WasiContext, fd: number, offsetPtr: number): number {
  return fdSeek(ctx, fd, 0n, Whence.CUR, offsetPtr);
}
