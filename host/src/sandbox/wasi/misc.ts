import { randomFillSync } from 'node:crypto';
import { ClockId, Errno, EventType, Size, SUBCLOCK_ABSTIME } from './abi.js';
import type { WasiContext } from './context.js';
import { WasiError, WasiExit } from './errors.js';

const encoder = new TextEncoder();

/** One poll_oneoff call sleeps at most this long, whatever the guest asks; the call deadline covers the rest. */
export const MAX_POLL_WAIT_MS = 10_000;
/** Subscriptions read per poll_oneoff call. */
export const MAX_SUBSCRIPTIONS = 64;

export function argsSizesGet(ctx: WasiContext, countPtr: number, sizePtr: number): number {
  ctx.mem.setU32(countPtr, ctx.args.length);
  ctx.mem.setU32(
    sizePtr,
    ctx.args.reduce((n, a) => n + encoder.encode(a).byteLength + 1, 0),
  );
  return Errno.SUCCESS;
}

export function argsGet(ctx: WasiContext, argvPtr: number, bufPtr: number): number {
  let at = bufPtr;
  ctx.args.forEach((arg, i) => {
    const bytes = encoder.encode(`${arg}\0`);
    ctx.mem.setU32(argvPtr + i * 4, at);
    ctx.mem.write(at, bytes);
    at += bytes.byteLength;
  });
  return Errno.SUCCESS;
}

/** The environment is always empty: a module never sees host variables (architecture.md §4). */
export function environSizesGet(ctx: WasiContext, countPtr: number, sizePtr: number): number {
  ctx.mem.setU32(countPtr, 0);
  ctx.mem.setU32(sizePtr, 0);
  return Errno.SUCCESS;
}

export function environGet(): number {
  return Errno.SUCCESS;
}

function now(id: number): bigint {
  switch (id) {
    case ClockId.REALTIME:
      return BigInt(Math.round((performance.timeOrigin + performance.now()) * 1000)) * 1000n;
    case ClockId.MONOTONIC:
      return process.hrtime.bigint();
    case ClockId.PROCESS_CPUTIME_ID:
    case ClockId.THREAD_CPUTIME_ID: {
      const usage = process.cpuUsage();
      return BigInt(usage.user + usage.system) * 1000n;
    }
    default:
      throw new WasiError(Errno.INVAL, `unknown clock ${id}`);
  }
}

export function clockResGet(ctx: WasiContext, id: number, ptr: number): number {
  now(id);
  ctx.mem.setU64(ptr, id === ClockId.MONOTONIC ? 1n : 1000n);
  return Errno.SUCCESS;
}

export function clockTimeGet(ctx: WasiContext, id: number, ptr: number): number {
  ctx.mem.setU64(ptr, now(id));
  return Errno.SUCCESS;
}

/** Host work over more bytes than this is long enough (~5 ms) that the calling thread must not do it. */
const BULK_BYTES = 1 << 20;

export function randomGet(ctx: WasiContext, ptr: number, len: number): number {
  const out = ctx.mem.bytes(ptr, len);
  if (len > BULK_BYTES) ctx.beforeBulk?.(len);
  const CHUNK = 1 << 20;
  for (let at = 0; at < len; at += CHUNK) randomFillSync(out, at, Math.min(CHUNK, len - at));
  return Errno.SUCCESS;
}

const sleeper = new Int32Array(new SharedArrayBuffer(4));

interface Event {
  userdata: bigint;
  error: number;
  type: number;
}

/**
 * Clock subscriptions sleep (bounded by MAX_POLL_WAIT_MS); fd subscriptions report ready at once,
 * since every descriptor here is a regular file, a directory or an always-ready stdio stream.
 */
export function pollOneoff(ctx: WasiContext, inPtr: number, outPtr: number, nsubs: number, neventsPtr: number): number {
  if (nsubs === 0 || nsubs > MAX_SUBSCRIPTIONS)
    throw new WasiError(Errno.INVAL, `nsubscriptions must be 1..${MAX_SUBSCRIPTIONS}`);
  ctx.mem.view(neventsPtr, 4);
  ctx.mem.view(outPtr, nsubs * Size.EVENT);
  const subs = ctx.mem.view(inPtr, nsubs * Size.SUBSCRIPTION);
  const ready: Event[] = [];
  const clocks: { userdata: bigint; delayNs: bigint }[] = [];
  for (let i = 0; i < nsubs; i += 1) {
    const at = i * Size.SUBSCRIPTION;
    const userdata = subs.getBigUint64(at, true);
    const tag = subs.getUint8(at + 8);
    if (tag === EventType.CLOCK) {
      const id = subs.getUint32(at + 16, true);
      const timeout = subs.getBigUint64(at + 24, true);
      const flags = subs.getUint16(at + 40, true);
      try {
        const delayNs = flags & SUBCLOCK_ABSTIME ? timeout - now(id) : timeout;
        clocks.push({ userdata, delayNs: delayNs < 0n ? 0n : delayNs });
      } catch (err) {
        ready.push({ userdata, error: err instanceof WasiError ? err.errno : Errno.INVAL, type: tag });
      }
    } else if (tag === EventType.FD_READ || tag === EventType.FD_WRITE) {
      const fd = subs.getUint32(at + 16, true);
      let error: number = Errno.SUCCESS;
      try {
        ctx.fds.get(fd);
      } catch {
        error = Errno.BADF;
      }
      ready.push({ userdata, error, type: tag });
    } else {
      ready.push({ userdata, error: Errno.INVAL, type: tag });
    }
  }
  if (ready.length === 0 && clocks.length > 0) {
    const soonest = clocks.reduce((min, c) => (c.delayNs < min ? c.delayNs : min), clocks[0]?.delayNs ?? 0n);
    const waitMs = Math.min(Number(soonest) / 1e6, MAX_POLL_WAIT_MS);
    if (waitMs > 0) {
      ctx.beforeSleep?.(waitMs);
      Atomics.wait(sleeper, 0, 0, waitMs);
    }
    for (const c of clocks)
      if (c.delayNs <= soonest) ready.push({ userdata: c.userdata, error: Errno.SUCCESS, type: EventType.CLOCK });
  }
  const out = ctx.mem.view(outPtr, ready.length * Size.EVENT);
  ready.forEach((e, i) => {
    const at = i * Size.EVENT;
    for (let b = 0; b < Size.EVENT; b += 8) out.setBigUint64(at + b, 0n, true);
    out.setBigUint64(at, e.userdata, true);
    out.setUint16(at + 8, e.error, true);
    out.setUint8(at + 10, e.type);
  });
  ctx.mem.setU32(neventsPtr, ready.length);
  return Errno.SUCCESS;
}

export function procExit(code: number): never {
  throw new WasiExit(code);
}

export function notSupported(): number {
  return Errno.NOTSUP;
}

export function notImplemented(): number {
  return Errno.NOSYS;
}
