// Shared by the sandbox sections: the fixture module and a tool spec built like the manifest layer does.
import { readFileSync } from 'node:fs';
import { DEFAULT_LIMITS } from '../../dist/sandbox/index.js';

export const kitWasm = new Uint8Array(
  readFileSync(new URL('../../test/fixtures/build/core_kit.wasm', import.meta.url)),
);

/**
 * The sandbox sections measure the worker path (own worker + Atomics) unless they say otherwise:
 * core_kit has no network and no files, so by default its calls would run on the calling thread.
 */
export function kitSpec(entry, over = {}) {
  return {
    execution: over.execution ?? { path: 'worker' },
    name: `bench_${entry}`,
    wasm: kitWasm,
    entry,
    limits: { ...DEFAULT_LIMITS, ...(over.limits ?? {}) },
    allowedHosts: [],
    allowedPaths: {},
    config: {},
    secretValues: [],
    ...(over.pool ? { pool: over.pool } : {}),
  };
}

export const never = () => new AbortController().signal;

/** Per-call latencies (µs) of `n` sequential calls after `warm` unmeasured ones. */
export async function timeCalls(call, n, warm) {
  for (let i = 0; i < warm; i++) await call();
  const out = new Array(n);
  for (let i = 0; i < n; i++) {
    const t0 = performance.now();
    await call();
    out[i] = (performance.now() - t0) * 1000;
  }
  return out;
}
