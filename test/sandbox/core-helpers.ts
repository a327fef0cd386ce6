// Shared by the sandbox core tests: fixture modules, tool specs, a capturing logger.
import { readFileSync } from 'node:fs';
import { pino, type Logger } from 'pino';
import { expect } from 'vitest';
import {
  DEFAULT_LIMITS,
  type SandboxExecution,
  type SandboxLimits,
  type SandboxToolSpec,
} from '../../host/src/sandbox/index.js';
import { ToolFailure, type ErrorCode } from '../../host/src/tool/index.js';

const BUILD = new URL('../fixtures/build/', import.meta.url);

export function fixture(name: string): Uint8Array {
  return new Uint8Array(readFileSync(new URL(`${name}.wasm`, BUILD)));
}

export interface SpecOverrides extends Partial<Omit<SandboxToolSpec, 'limits'>> {
  limits?: Partial<SandboxLimits>;
}

export function kitSpec(entry: string, over: SpecOverrides = {}): SandboxToolSpec {
  return moduleSpec('core_kit', entry, over);
}

export function moduleSpec(file: string, entry: string, over: SpecOverrides = {}): SandboxToolSpec {
  const { limits, ...rest } = over;
  return {
    name: `t_${entry}`,
    wasm: fixture(file),
    entry,
    limits: { ...DEFAULT_LIMITS, ...limits },
    allowedHosts: [],
    allowedPaths: {},
    config: {},
    secretValues: [],
    ...rest,
  };
}

/** Both paths a call can take (issue 15): the rules of the sandbox hold on each. */
export const EXECUTION_PATHS: [string, SandboxExecution][] = [
  ['in a worker', { path: 'worker' }],
  ['on the calling thread', { path: 'auto' }],
];

export const utf8 = (s: string): Uint8Array => new TextEncoder().encode(s);
export const text = (b: Uint8Array): string => new TextDecoder().decode(b);
export const never = (): AbortSignal => new AbortController().signal;

/** Awaits a call that must fail; returns the failure after checking its code. */
export async function failure(p: Promise<unknown>, code: ErrorCode): Promise<ToolFailure> {
  try {
    await p;
  } catch (err) {
    expect(err).toBeInstanceOf(ToolFailure);
    expect((err as ToolFailure).code, (err as ToolFailure).message).toBe(code);
    return err as ToolFailure;
  }
  throw new Error(`expected ${code}, but the call succeeded`);
}

export interface LogRecord {
  level: number;
  msg: string;
  tool?: string;
}

export function capturingLogger(): { logger: Logger; lines: LogRecord[] } {
  const lines: LogRecord[] = [];
  const logger = pino({ level: 'trace' }, { write: (s: string) => void lines.push(JSON.parse(s) as LogRecord) });
  return { logger, lines };
}

export async function settle(ms: number): Promise<void> {
  await new Promise((r) => setTimeout(r, ms));
}

/** Polls `cond` every 5 ms for at most `ms`; fails the test if it never holds. */
export async function until(cond: () => boolean, ms = 5000): Promise<void> {
  const end = performance.now() + ms;
  while (!cond()) {
    if (performance.now() > end) throw new Error(`condition not met within ${ms} ms`);
    await settle(5);
  }
}
