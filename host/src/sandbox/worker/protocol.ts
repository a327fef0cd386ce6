// What the host hands an instance worker (its doorbell at boot, then an instance to start or drop)
// and what the worker posts back off the hot path (log lines). Shared by both sides so they cannot drift.
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

/** workerData of an instance worker: the doorbell it waits on (channel.ts Bell). */
export interface WorkerBoot {
  bell: SharedArrayBuffer;
  /** Whether the host holds the nursery's size (nursery/: the worker's start undid it). */
  nursery: SharedArrayBuffer;
}

/** Posted to a worker before the host rings its bell: start an instance in a slot, or drop one. */
export type WorkerControl = { kind: 'add'; slot: number; init: WorkerInit } | { kind: 'drop'; slot: number };

export type LogLevelName = 'trace' | 'debug' | 'info' | 'warn' | 'error';

export interface LogMessage {
  kind: 'log';
  level: LogLevelName;
  line: string;
}

/** A log line as a worker posts it: which of its instances wrote it. */
export interface WorkerLog extends LogMessage {
  slot: number;
}

/** Log lines a call may emit before the rest are dropped (with one "N log lines dropped" line). */
export const MAX_LOG_LINES = 256;
