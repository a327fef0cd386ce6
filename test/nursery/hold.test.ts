// The nursery hold (host/src/nursery): while held, allocation that survives does not grow the main
// isolate's young generation; released, V8 grows it again; a worker's start (which puts V8's factor
// back) does not end a hold. Each case runs in a fresh node process, whose nursery is at its first
// size, importing the built module (dist/nursery, made fresh by the global setup).
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, test } from 'vitest';

const MODULE = pathToFileURL(join(__dirname, '../../dist/nursery/index.js')).href;

/** Runs `body` (an async function body) in a fresh node process; returns what it returns. */
function inFreshProcess(body: string): Record<string, number> {
  const script = `
    import { getHeapSpaceStatistics } from 'node:v8';
    import { Worker } from 'node:worker_threads';
    import * as nursery from ${JSON.stringify(MODULE)};
    const nurseryMiB = () => getHeapSpaceStatistics().find((s) => s.space_name === 'new_space').space_size / 1048576;
    const kept = [];
    // objects that live on: what makes V8 grow the nursery (bounded: 8 rounds of 100k small objects)
    const survive = () => { for (let r = 0; r < 8; r++) for (let i = 0; i < 100000; i++) kept.push({ i, a: [i], s: 'k' + i }); };
    // the same in small steps, each in a later turn, as a server's calls come (a check after a collection runs then)
    const surviveInTurns = async () => { for (let t = 0; t < 150; t++) { for (let i = 0; i < 5000; i++) kept.push({ i, a: [i], s: 'k' + i }); await new Promise((r) => setImmediate(r)); } };
    const startWorker = async (code, workerData) => {
      const w = new Worker(code, { eval: true, workerData });
      await new Promise((resolve, reject) => { w.once('message', resolve); w.once('error', reject); });
      await w.terminate();
    };
    const out = await (async () => { ${body} })();
    process.stdout.write(JSON.stringify(out));
  `;
  const r = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8', timeout: 20_000 });
  if (r.status !== 0) throw new Error(`the child failed (${r.status}): ${r.stderr}`);
  return JSON.parse(r.stdout) as Record<string, number>;
}

// eval'd as modules, like the script that starts them
const PLAIN_WORKER = "import { parentPort } from 'node:worker_threads'; parentPort.postMessage('up');";
const FOLLOWING_WORKER = `import { parentPort, workerData } from 'node:worker_threads';
import { followNurseryHold } from ${JSON.stringify(MODULE)};
followNurseryHold(workerData);
parentPort.postMessage('up');`;

/**
 * The young generation's size at its start (MiB, both semi-spaces): V8 reports 1 before the first
 * scavenge and 2 after it; a grown one is 4 or more.
 */
const FIRST_SIZE = 2;

describe('the nursery hold', () => {
  test('while held, surviving allocation leaves the nursery at its first size; released, it grows again', () => {
    const r = inFreshProcess(`
      const first = nurseryMiB();
      const hold = nursery.holdNursery();
      survive();
      const held = nurseryMiB();
      hold.release();
      survive();
      return { first, held, released: nurseryMiB() };
    `);
    expect(r.held).toBeLessThanOrEqual(FIRST_SIZE);
    expect(r.released).toBeGreaterThan(FIRST_SIZE);
  });

  test('without a hold the same allocation grows the nursery (the measure can fail)', () => {
    const r = inFreshProcess('const first = nurseryMiB(); survive(); return { first, after: nurseryMiB() };');
    expect(r.after).toBeGreaterThan(FIRST_SIZE);
  });

  test("a worker's start puts V8's growth back; afterIsolateStarted holds the nursery again", () => {
    const run = (after: string) =>
      inFreshProcess(`
        const hold = nursery.holdNursery();
        await startWorker(${JSON.stringify(PLAIN_WORKER)});
        ${after}
        survive();
        const size = nurseryMiB();
        hold.release();
        return { size };
      `);
    expect(run('').size).toBeGreaterThan(FIRST_SIZE);
    expect(run('nursery.afterIsolateStarted();').size).toBeLessThanOrEqual(FIRST_SIZE);
  });

  test('a worker handed the shared word holds the nursery itself while a hold is on, and not after its release', () => {
    const r = inFreshProcess(`
      const hold = nursery.holdNursery();
      await startWorker(${JSON.stringify(FOLLOWING_WORKER)}, nursery.nurseryHoldWord());
      const first = nurseryMiB();
      survive();
      const held = nurseryMiB();
      hold.release();
      await startWorker(${JSON.stringify(FOLLOWING_WORKER)}, nursery.nurseryHoldWord());
      survive();
      return { first, held, released: nurseryMiB() };
    `);
    expect(r.held).toBeLessThanOrEqual(FIRST_SIZE);
    expect(r.released).toBeGreaterThan(FIRST_SIZE);
  });

  test('the nursery stays held until the last of two holds is released', () => {
    const r = inFreshProcess(`
      const a = nursery.holdNursery();
      const b = nursery.holdNursery();
      a.release();
      a.release(); // twice: still one hold left
      const first = nurseryMiB();
      survive();
      const held = nurseryMiB();
      b.release();
      survive();
      return { first, held, released: nurseryMiB() };
    `);
    expect(r.held).toBeLessThanOrEqual(FIRST_SIZE);
    expect(r.released).toBeGreaterThan(FIRST_SIZE);
  });

  test('a cap lets the nursery grow to it and no further, for good; stopping it lets V8 grow it again', () => {
    const r = inFreshProcess(`
      const stop = nursery.capNurseryAt(4);
      await surviveInTurns();
      const capped = nurseryMiB();
      await startWorker(${JSON.stringify(FOLLOWING_WORKER)}, nursery.nurseryHoldWord()); // a worker's start does not end it
      await surviveInTurns();
      const still = nurseryMiB();
      stop();
      await surviveInTurns();
      return { capped, still, stopped: nurseryMiB() };
    `);
    expect(r.capped).toBe(4);
    expect(r.still).toBe(4);
    expect(r.stopped).toBeGreaterThan(4);
  });
});
