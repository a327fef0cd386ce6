// The instance pool: bounded, FIFO beyond the bound with deadlines still counting, one call per
// instance at a time, idle instances trimmed, close() answering everything pending. Proven on the
// worker path, where calls overlap (the calling thread runs one at a time: in-thread.test.ts).
import { afterEach, describe, expect, it } from 'vitest';
import { loadSandboxTool, type SandboxTool } from '../../host/src/sandbox/index.js';
import { failure, kitSpec, never, settle, text, until, utf8, type SpecOverrides } from './core-helpers.js';

const open: SandboxTool[] = [];
async function kit(entry: string, over: SpecOverrides = {}): Promise<SandboxTool> {
  const tool = await loadSandboxTool(kitSpec(entry, { execution: { path: 'worker' }, ...over }));
  open.push(tool);
  return tool;
}
afterEach(async () => {
  await Promise.all(open.splice(0).map((t) => t.close()));
});

describe('pool', () => {
  it('the bound is respected: never more live instances than pool.max, the rest queue', async () => {
    const tool = await kit('slow_echo', { pool: { max: 2 } });
    let worstLive = 0;
    let worstQueued = 0;
    const watch = setInterval(() => {
      const s = tool.stats();
      worstLive = Math.max(worstLive, s.live);
      worstQueued = Math.max(worstQueued, s.queued);
    }, 1);
    const calls = Array.from({ length: 6 }, (_, i) => tool.call(utf8(`call-${i}`), { signal: never() }));
    const s = tool.stats();
    const outs = await Promise.all(calls);
    clearInterval(watch);
    expect(s).toMatchObject({ live: 2, queued: 4 });
    expect(worstLive).toBe(2);
    expect(worstQueued).toBe(4);
    expect(outs.map(text)).toEqual(calls.map((_, i) => `call-${i}`));
    expect(tool.stats()).toEqual({ live: 2, busy: 0, idle: 2, queued: 0 });
  });

  it("two concurrent calls never see each other's output (architecture.md §8.6)", async () => {
    const tool = await kit('slow_echo', { pool: { max: 2 } });
    const inputs = Array.from({ length: 12 }, (_, i) => `${String.fromCharCode(97 + i)}-${i * 7}`);
    const outs = await Promise.all(inputs.map((s) => tool.call(utf8(s), { signal: never() })));
    expect(outs.map(text)).toEqual(inputs);
  });

  it("a queued call's deadline counts: it is answered TIMEOUT and leaves the queue", async () => {
    const tool = await kit('burn', { pool: { max: 1 }, limits: { timeoutMs: 5000 } });
    const ac = new AbortController();
    const busy = tool.call(Uint8Array.of(31), { signal: ac.signal });
    busy.catch(() => undefined);
    await until(() => tool.stats().busy === 1);
    const t0 = performance.now();
    const queued = tool.call(Uint8Array.of(2), { signal: never(), timeoutMs: 150 });
    await settle(10);
    expect(tool.stats()).toMatchObject({ live: 1, busy: 1, queued: 1 });
    const err = await failure(queued, 'TIMEOUT');
    expect(err.message).toMatch(/150 ms deadline/);
    expect(performance.now() - t0).toBeGreaterThanOrEqual(145);
    expect(tool.stats()).toMatchObject({ busy: 1, queued: 0 });
    ac.abort();
    await failure(busy, 'ABORTED');
  });

  it('a queued call that is aborted leaves the queue at once and the others keep their order', async () => {
    const tool = await kit('slow_echo', { pool: { max: 1 } });
    const first = tool.call(utf8('first'), { signal: never() });
    const ac = new AbortController();
    const dropped = tool.call(utf8('dropped'), { signal: ac.signal });
    const last = tool.call(utf8('last'), { signal: never() });
    await settle(5);
    expect(tool.stats().queued).toBe(2);
    ac.abort();
    await failure(dropped, 'ABORTED');
    expect(tool.stats().queued).toBe(1);
    expect(text(await first)).toBe('first');
    expect(text(await last)).toBe('last');
  });

  it('an instance torn down by a timeout is replaced and queued calls are served', async () => {
    const tool = await kit('burn', { pool: { max: 1 }, limits: { timeoutMs: 5000 } });
    const spinning = tool.call(Uint8Array.of(31), { signal: never(), timeoutMs: 100 });
    const waiting = tool.call(Uint8Array.of(2), { signal: never() });
    await failure(spinning, 'TIMEOUT');
    expect((await waiting).length).toBe(4);
    expect(tool.stats().live).toBe(1);
  });

  it('idle instances are trimmed after idleMs', async () => {
    const tool = await kit('slow_echo', { pool: { max: 2, idleMs: 500 } });
    await Promise.all([tool.call(utf8('a'), { signal: never() }), tool.call(utf8('b'), { signal: never() })]);
    const done = performance.now();
    expect(tool.stats()).toMatchObject({ live: 2, idle: 2 });
    await until(() => tool.stats().live === 0, 5000);
    expect(performance.now() - done).toBeGreaterThanOrEqual(450);
    expect(tool.stats()).toEqual({ live: 0, busy: 0, idle: 0, queued: 0 });
    expect(text(await tool.call(utf8('again'), { signal: never() }))).toBe('again');
  });

  it('an instance used again within idleMs is kept; it is trimmed idleMs after its last call, not its first', async () => {
    const tool = await kit('counter', { pool: { max: 1, idleMs: 400 } });
    const counts: number[] = [];
    let last = 0;
    // five calls 150 ms apart span 600 ms: longer than idleMs since the first release
    for (let i = 0; i < 5; i++) {
      if (i > 0) await new Promise((r) => setTimeout(r, 150));
      counts.push((await tool.call(new Uint8Array(0), { signal: never() }))[0] as number);
      last = performance.now();
    }
    expect(counts).toEqual([1, 2, 3, 4, 5]); // one instance served them all: its own counter went up
    expect(tool.stats()).toMatchObject({ live: 1, idle: 1 });
    await until(() => tool.stats().live === 0, 5000);
    expect(performance.now() - last).toBeGreaterThanOrEqual(380);
  });

  it('close() answers running and queued calls ABORTED and terminates every instance', async () => {
    const tool = await loadSandboxTool(
      kitSpec('burn', { execution: { path: 'worker' }, pool: { max: 1 }, limits: { timeoutMs: 5000 } }),
    );
    const running = tool.call(Uint8Array.of(31), { signal: never() });
    const queued = tool.call(Uint8Array.of(2), { signal: never() });
    running.catch(() => undefined);
    queued.catch(() => undefined);
    await until(() => tool.stats().busy === 1);
    await tool.close();
    await failure(running, 'ABORTED');
    await failure(queued, 'ABORTED');
    expect(tool.stats()).toEqual({ live: 0, busy: 0, idle: 0, queued: 0 });
  });

  it('close() while an instance starts ends that start too', async () => {
    const tool = await loadSandboxTool(kitSpec('greet', { limits: { timeoutMs: 10_000 } }));
    const pending = tool.call(utf8('a'), { signal: never() });
    expect(tool.stats().live).toBe(1);
    await tool.close();
    await failure(pending, 'ABORTED');
    await until(() => tool.stats().live === 0);
    expect(tool.stats()).toEqual({ live: 0, busy: 0, idle: 0, queued: 0 });
  });

  it('each instance gets its own host state: vars are per instance (architecture.md §8.9)', async () => {
    const tool = await kit('counter', { pool: { max: 2 } });
    // two overlapping calls need two instances; each starts its own counter at 1
    const [a, b] = await Promise.all([
      tool.call(new Uint8Array(0), { signal: never() }),
      tool.call(new Uint8Array(0), { signal: never() }),
    ]);
    expect([a[0], b[0]]).toEqual([1, 1]);
  });
});
