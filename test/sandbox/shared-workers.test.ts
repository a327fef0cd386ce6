// Several instances per worker (docs/decisions.md "Several instances per worker"): instances of
// different tools share an instance worker, one call at a time, and the teardown rule still holds
// for each call: a call stopped while it runs terminates its worker, never another call; the idle
// neighbours lost with it are started again; an idle instance torn down is dropped in place.
import { afterEach, describe, expect, it } from 'vitest';
import { loadSandboxTool, type SandboxTool } from '../../host/src/sandbox/index.js';
import {
  INSTANCES_PER_WORKER,
  placeInstance,
  retainWorkers,
  workerSizes,
  type Member,
} from '../../host/src/sandbox/instance-workers.js';
import { failure, kitSpec, never, settle, text, until, utf8, type SpecOverrides } from './core-helpers.js';

const open: SandboxTool[] = [];
async function kit(name: string, entry: string, over: SpecOverrides = {}): Promise<SandboxTool> {
  const tool = await loadSandboxTool({ ...kitSpec(entry, { execution: { path: 'worker' }, ...over }), name });
  open.push(tool);
  return tool;
}
afterEach(async () => {
  await Promise.all(open.splice(0).map((t) => t.close()));
  await until(() => workerSizes().every((n) => n === 0));
});

/** The core_kit counter: its var, one more on each call of the same instance. */
const count = async (tool: SandboxTool): Promise<number> =>
  (await tool.call(new Uint8Array(0), { signal: never() }))[0] as number;

/** The instances of the open tools, over the live workers (a worker kept with room holds none). */
const placed = (): number[] => workerSizes().filter((n) => n > 0);

describe('several instances per worker', () => {
  it('idle instances of different tools share one worker, up to INSTANCES_PER_WORKER', async () => {
    const tools = [];
    for (let i = 0; i < INSTANCES_PER_WORKER + 1; i++) tools.push(await kit(`share_${i}`, 'greet'));
    for (const t of tools) expect(text(await t.call(utf8('w'), { signal: never() }))).toBe('Hello, w');
    expect(placed().sort()).toEqual([1, INSTANCES_PER_WORKER]);
  });

  it('a tool whose vars and call budget would not fit beside others gets a worker alone', async () => {
    const small = await kit('small', 'greet');
    const big = await kit('big_vars', 'greet', { limits: { maxVarBytes: 40 * 1024 * 1024 } });
    const other = await kit('small_2', 'greet');
    for (const t of [small, big, other]) await t.call(utf8('x'), { signal: never() });
    expect(placed().sort()).toEqual([1, 2]);
  });

  it('two instances of one tool never share a worker: their calls run side by side', async () => {
    const tool = await kit('pair', 'slow_echo', { pool: { max: 2 } });
    const outs = await Promise.all([
      tool.call(utf8('a'), { signal: never() }),
      tool.call(utf8('b'), { signal: never() }),
    ]);
    expect(outs.map(text)).toEqual(['a', 'b']);
    expect(placed()).toEqual([1, 1]);
  });

  it("a call does not wait behind another tool's call running in its instance's worker", async () => {
    const counter = await kit('waits_not', 'counter');
    const spinner = await kit('spins', 'spin', { limits: { timeoutMs: 3000 } });
    expect(await count(counter)).toBe(1);
    // the spinner's instance starts beside the counter's idle one, and its call holds that worker
    const spinning = failure(spinner.call(new Uint8Array(0), { signal: never() }), 'TIMEOUT');
    await until(() => spinner.stats().busy === 1 && placed().includes(2));
    const t0 = performance.now();
    // the counter's idle instance is in the spinning worker: the call starts one elsewhere
    expect(await count(counter)).toBe(1);
    expect(performance.now() - t0).toBeLessThan(2500);
    await spinning;
  });
});

describe('the teardown rule, per call, in a shared worker', () => {
  it("a call torn down in a shared worker leaves the other tools' instances answering", async () => {
    const counter = await kit('neighbour', 'counter');
    const greeter = await kit('neighbour_2', 'greet');
    const spinner = await kit('torn', 'spin', { limits: { timeoutMs: 400 } });
    expect(await count(counter)).toBe(1);
    expect(text(await greeter.call(utf8('a'), { signal: never() }))).toBe('Hello, a');
    // the spinner's start takes the third slot of the same worker, then its call runs past its deadline
    await failure(spinner.call(new Uint8Array(0), { signal: never() }), 'TIMEOUT');
    // the neighbours were idle in the terminated worker: lost, and started again in the background
    await until(() => counter.stats().idle === 1 && greeter.stats().idle === 1);
    expect(await count(counter)).toBe(1); // a fresh instance: its vars went with the old one
    expect(text(await greeter.call(utf8('b'), { signal: never() }))).toBe('Hello, b');
    // and the spinner's own next call gets a fresh instance too
    await failure(spinner.call(new Uint8Array(0), { signal: never() }), 'TIMEOUT');
    expect(text(await greeter.call(utf8('c'), { signal: never() }))).toBe('Hello, c');
  });

  it("a cancelled call's worker goes; a neighbour's call made while it ran is answered from another worker", async () => {
    const counter = await kit('calm', 'counter');
    const spinner = await kit('cancelled', 'spin', { limits: { timeoutMs: 30_000 } });
    expect(await count(counter)).toBe(1);
    const ac = new AbortController();
    const spinning = failure(spinner.call(new Uint8Array(0), { signal: ac.signal }), 'ABORTED');
    await settle(100);
    const during = count(counter); // started elsewhere while the spinner holds the shared worker
    ac.abort();
    await spinning;
    expect(await during).toBe(1);
    expect(await count(counter)).toBeGreaterThanOrEqual(1);
  });

  it('a trapped call is answered and its instance dropped in place: the neighbour keeps its instance and state', async () => {
    const counter = await kit('keeps', 'counter');
    const trapper = await kit('traps', 'trap');
    expect(await count(counter)).toBe(1);
    await failure(trapper.call(new Uint8Array(0), { signal: never() }), 'TOOL_ERROR');
    expect(placed()).toEqual([1]); // the trapped instance is gone, the worker stayed
    expect(await count(counter)).toBe(2); // the same instance: the worker was not terminated
  });

  it("a faulted call's instance is replaced at its tool's next call, so the neighbour's next call finds the worker free", async () => {
    const counter = await kit('next_door', 'counter');
    const trapper = await kit('faults', 'trap');
    expect(await count(counter)).toBe(1);
    await failure(trapper.call(new Uint8Array(0), { signal: never() }), 'TOOL_ERROR');
    // a turn later a background replacement would be starting in the shared worker, holding it
    await settle(0);
    await new Promise((resolve) => setImmediate(resolve));
    expect(trapper.stats().live).toBe(0);
    expect(await count(counter)).toBe(2); // the same instance, in the same worker: none booted for it
    expect(placed()).toEqual([1]);
    // the faulted tool's next call starts its instance, beside the counter's
    await failure(trapper.call(new Uint8Array(0), { signal: never() }), 'TOOL_ERROR');
    expect(await count(counter)).toBe(3);
  });

  it('an idle instance trimmed from a shared worker leaves the worker serving its neighbour', async () => {
    const counter = await kit('stays', 'counter');
    const brief = await kit('brief', 'greet', { pool: { max: 1, idleMs: 200 } });
    expect(await count(counter)).toBe(1);
    await brief.call(utf8('x'), { signal: never() });
    expect(placed()).toEqual([2]);
    await until(() => brief.stats().live === 0);
    expect(placed()).toEqual([1]);
    expect(await count(counter)).toBe(2);
  });
});

describe('a worker with room is kept while a tool is open', () => {
  it('a worker stopped while it still boots is replaced, like one stopped after it came online', async () => {
    const file = new URL('../../dist/sandbox/worker/instance-worker.js', import.meta.url);
    const member: Member = { tool: {}, heldBytes: 0, callBytes: 0, alone: false, onLog() {}, lost() {} };
    const release = retainWorkers(file);
    try {
      await new Promise((r) => setImmediate(r));
      expect(workerSizes()).toEqual([0]); // the kept worker, booting
      const booting = placeInstance(member, file);
      await new Promise((r) => setImmediate(r)); // placement's own look for room has run: it had some
      // stopped a turn after it was placed, long before a worker boots (tens of ms)
      await booting.terminate('stopped while booting');
      await new Promise((r) => setImmediate(r));
      expect(workerSizes()).toEqual([0]);
    } finally {
      release();
    }
  });
});
