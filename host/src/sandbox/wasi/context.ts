import type { FdTable } from './fd-table.js';
import type { GuestMemory } from './memory.js';
import type { Mount } from './mounts.js';
import type { WriteQuota } from './quota.js';

/** Everything one instance's WASI calls share. One per createWasiImports call, never shared. */
export interface WasiContext {
  readonly mem: GuestMemory;
  readonly fds: FdTable;
  readonly mounts: readonly Mount[];
  readonly args: readonly string[];
  readonly quota: WriteQuota;
  writeStdout(bytes: Uint8Array): void;
  writeStderr(bytes: Uint8Array): void;
  /** Called before poll_oneoff sleeps; may throw (on the calling thread a sleep moves the call to a worker). */
  beforeSleep?(ms: number): void;
  /** Called before host work over `bytes` that no fuel check interrupts (random_get over 1 MiB); may throw likewise. */
  beforeBulk?(bytes: number): void;
}
