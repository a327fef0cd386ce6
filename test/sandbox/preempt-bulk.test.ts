// Bulk memory and table instructions are charged by their count (module/preempt.ts): an instrumented
// module whose every loop round is one memory.fill/copy or table.fill over megabytes reaches the
// host's check every round or so, where a one-unit charge would reach it once per tens of
// thousands of rounds. The module runs in a worker thread, so a regression fails on a timeout
// instead of holding the test's own thread.
import { Worker } from 'node:worker_threads';
import { describe, expect, it } from 'vitest';
import {
  ENTRY_EXPORT,
  PREEMPT_CHECK,
  PREEMPT_NAMESPACE,
  TOOLGATE_WASI_NAMESPACE,
} from '../../host/src/sandbox/module/host-imports.js';
import { prepareModule } from '../../host/src/sandbox/module/prepare.js';
import { WASI_IMPORT_NAMES } from '../../host/src/sandbox/wasi/imports.js';
import { fixture } from './core-helpers.js';

const CHECKS = 20;

// Instantiates the prepared bytes with a check that counts (and stops the module at CHECKS).
const RUNNER = `
const { parentPort, workerData: d } = require('node:worker_threads');
let checks = 0;
const stop = new Error('stop');
const wasi = Object.fromEntries(d.wasiNames.map((n) => [n, () => 0]));
const instance = new WebAssembly.Instance(new WebAssembly.Module(d.bytes), {
  [d.preemptNs]: { [d.check]: () => { if (++checks >= d.checks) throw stop; return 200000; } },
  [d.wasiNs]: wasi,
});
const run = instance.exports[d.entryExport] || instance.exports[d.entry];
const t0 = performance.now();
try { run(); parentPort.postMessage({ returned: true }); } catch (e) { parentPort.postMessage({ ms: performance.now() - t0, stopped: e === stop }); }
`;

function untilChecked(
  entry: string,
  timeoutMs: number,
): Promise<{ ms?: number; stopped?: boolean; timedOut?: boolean }> {
  const prepared = prepareModule(fixture('hostile_heavy_loop'), {
    tool: 't',
    entry,
    maxPages: 256,
    wasiImportNames: WASI_IMPORT_NAMES,
    preempt: true,
  });
  expect(prepared.preemptible).toBe(true);
  const worker = new Worker(RUNNER, {
    eval: true,
    workerData: {
      bytes: prepared.bytes,
      entry,
      entryExport: ENTRY_EXPORT,
      checks: CHECKS,
      check: PREEMPT_CHECK,
      preemptNs: PREEMPT_NAMESPACE,
      wasiNs: TOOLGATE_WASI_NAMESPACE,
      wasiNames: WASI_IMPORT_NAMES,
    },
  });
  return new Promise((done) => {
    const timer = setTimeout(() => void worker.terminate().then(() => done({ timedOut: true })), timeoutMs);
    worker.once('message', (m: { ms?: number; stopped?: boolean }) => {
      clearTimeout(timer);
      void worker.terminate().then(() => done(m));
    });
  });
}

describe('bulk instructions are charged by the work they do', () => {
  it.each(['fill_loop', 'copy_loop', 'table_loop'])(
    '%s: the fuel check runs every few rounds of megabytes, not once per thousands',
    async (entry) => {
      // charged by count, one round (8-16 MiB, or 60,000 table entries) is more than a refill, so
      // 20 checks take about 20 rounds (well under a second); charged as one unit, tens of minutes
      const r = await untilChecked(entry, 10_000);
      expect(r.timedOut).toBeUndefined();
      expect(r.stopped).toBe(true);
      expect(r.ms).toBeLessThan(5_000);
    },
    20_000,
  );
});
