// toolgate's own wasi_snapshot_preview1: Node's WASI follows directory symlinks out of a mount and
// has no read-only mounts (architecture.md §8.3), so the sandbox plugs these functions in instead.
//
// Decisions a module can observe:
// - leaving a mount (`..` above its root, an absolute guest path, a symlink whose target is outside
//   the same mount, also when dangling or in the middle of a path) -> ENOTCAPABLE (76);
// - any write, create, delete, rename or metadata change on an ro mount -> EROFS (69);
// - path_symlink and path_link -> EPERM (63) on every mount: a module never makes links;
// - readlink rewrites an absolute target inside the mount to its guest path and refuses one outside;
// - the environment is always empty; stdin is always empty; sockets are ENOTSUP, proc_raise ENOSYS;
// - past an rw mount's per-call write quota (writes, and growth by set_size/allocate/writing past
//   the end) -> ENOSPC (51), the hit kept in WriteQuota for the call's result;
// - poll_oneoff sleeps on clocks (at most 10 s a call) and reports fd subscriptions ready at once.
// No host descriptor outlives one import call, so terminating the worker cannot leak any.
import type { WasiContext } from './context.js';
import { FdTable } from './fd-table.js';
import { buildImports } from './imports.js';
import { GuestMemory } from './memory.js';
import { prepareMounts, type WasiMount } from './mounts.js';
import { WriteQuota } from './quota.js';

export { WASI_IMPORT_NAMES } from './imports.js';
export { WasiExit } from './errors.js';
export type { WasiMount } from './mounts.js';
export { WriteQuota, type QuotaHit } from './quota.js';
export { MAX_OPEN_FDS } from './fd-table.js';
export { MAX_IO_BYTES } from './io.js';

export interface WasiOptions {
  /** Preopened as fd 3, 4, ... in this order, each named by its guest path. */
  mounts: WasiMount[];
  /** The instance's exported memory once it exists; read on every call (memory.grow swaps buffers). */
  getMemory(): WebAssembly.Memory | undefined;
  /** Gets a copy of each fd_write to fd 1. Whatever it throws propagates out of the guest call. */
  writeStdout(bytes: Uint8Array): void;
  writeStderr(bytes: Uint8Array): void;
  /** argv as the module sees it; default none. */
  args?: string[];
  /** Per-call write quotas of the rw mounts; the caller resets it before each call. Default a fresh one. */
  quota?: WriteQuota;
  /** Called before poll_oneoff sleeps (WasiContext.beforeSleep). */
  beforeSleep?(ms: number): void;
  /** Called before long host work (WasiContext.beforeBulk). */
  beforeBulk?(bytes: number): void;
}

/**
 * The wasi_snapshot_preview1 import object for ONE instance (fresh descriptor table). Throws an
 * Error naming the mount when a mount is invalid or its host directory does not exist.
 */
export function createWasiImports(
  opts: WasiOptions,
): Record<string, (...args: (number | bigint)[]) => number | bigint | void> {
  const mounts = prepareMounts(opts.mounts);
  const ctx: WasiContext = {
    mem: new GuestMemory(() => opts.getMemory()),
    fds: new FdTable(mounts),
    mounts,
    args: [...(opts.args ?? [])],
    quota: opts.quota ?? new WriteQuota(),
    writeStdout: (bytes) => opts.writeStdout(bytes),
    writeStderr: (bytes) => opts.writeStderr(bytes),
    ...(opts.beforeSleep ? { beforeSleep: opts.beforeSleep } : {}),
    ...(opts.beforeBulk ? { beforeBulk: opts.beforeBulk } : {}),
  };
  const imports: Record<string, (...args: (number | bigint)[]) => number | bigint | void> = buildImports(ctx);
  return imports;
}
