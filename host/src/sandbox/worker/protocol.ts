// What the host hands a fresh instance worker (workerData) and what the worker posts back off the
// hot path (log lines). Shared by both sides so they cannot drift.
import type { WasiMount } from '../wasi/index.js';

/** One module of the plugin: the main one (name 'main') or one of module.link (its namespace). */
export interface ModuleUnit {
  name: string;
  module: WebAssembly.Module;
  usesWasi: boolean;
  /** The namespace its WASI imports were renamed to (each module has its own WASI and memory). */
  wasiNamespace: string;
  hasInitialize: boolean;
  hasStart: boolean;
  hasHsInit: boolean;
}

export interface WorkerInit {
  /** The main module first, then the linked ones. */
  units: ModuleUnit[];
  sab: SharedArrayBuffer;
  returnsStatus: boolean;
  config: Record<string, string>;
  mounts: WasiMount[];
  maxOutputBytes: number;
  maxVarBytes: number;
  maxLogBytes: number;
  maxLogLines: number;
  /** Bytes of Extism host memory one call may allocate (alloc budget). */
  allocBudget: number;
  /** The tool declared capabilities.mcp logging: its log lines during a call go to the client too. */
  clientLogs: boolean;
  /** Which runner serves the module: an Extism plugin (default) or a component of toolgate's world. */
  abi?: 'extism' | 'component';
  /** capabilities.memory.max_pages, named when a component's memory is at it. */
  maxPages?: number;
}

export type LogLevelName = 'trace' | 'debug' | 'info' | 'warn' | 'error';

export interface LogMessage {
  kind: 'log';
  level: LogLevelName;
  line: string;
}

/** Log lines a call may emit before the rest are dropped (with one "N log lines dropped" line). */
export const MAX_LOG_LINES = 256;
