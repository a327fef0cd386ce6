// What the host hands a fresh instance worker (workerData) and what the worker posts back off the
// hot path (log lines). Shared by both sides so they cannot drift.
import type { WasiMount } from '../wasi/index.js';

export interface WorkerInit {
  module: WebAssembly.Module;
  sab: SharedArrayBuffer;
  returnsStatus: boolean;
  hasInitialize: boolean;
  hasStart: boolean;
  usesWasi: boolean;
  config: Record<string, string>;
  mounts: WasiMount[];
  maxOutputBytes: number;
  maxVarBytes: number;
  maxLogBytes: number;
  maxLogLines: number;
  /** Bytes of Extism host memory one call may allocate (alloc budget). */
  allocBudget: number;
}

export type LogLevelName = 'trace' | 'debug' | 'info' | 'warn' | 'error';

export interface LogMessage {
  kind: 'log';
  level: LogLevelName;
  line: string;
}

/** Log lines a call may emit before the rest are dropped (with one "N log lines dropped" line). */
export const MAX_LOG_LINES = 256;
