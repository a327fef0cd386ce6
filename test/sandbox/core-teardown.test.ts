// Teardown releases what a call held, deadlines are labelled TIMEOUT whichever layer set them, and an
// idle pool costs no CPU.
import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { afterEach, describe, expect, it } from 'vitest';
import { loadSandboxTool, type SandboxTool } from '../../host/src/sandbox/index.js';
import { CallClock } from '../../host/src/pipeline/clock.js';
import { ToolFailure } from '../../host/src/tool/index.js';
import { harness, recordingTool } from '../pipeline/helpers.js';
import { failure, kitSpec, never, type SpecOverrides } from './core-helpers.js';

const open: SandboxTool[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((t) => t.close()));
});

async function kit(entry: string, over: SpecOverrides = {}): Promise<SandboxTool> {
  const tool = await loadSandboxTool(kitSpec(entry, over));
  open.push(tool);
  return tool;
}

// a full collection is needed to see what is still reachable; exposed for this file only
setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;
setFlagsFromString('--no-expose-gc');

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

async function externalAfterGc(): Promise<number> {
  for (let i = 0; i < 3; i++) {
    gc();
    await sleep(20);
  }
  return process.memoryUsage().arrayBuffers;
}

describe('teardown releases the instance at once', () => {
  it("a torn-down instance releases its channel at once, not at the call's original deadline", async () => {
    // 1 MiB channels (the default limits) make one leaked channel plain to see
    const tool = await kit('burn', { limits: { timeoutMs: 30_000 } });
    await tool.call(Uint8Array.of(4), { signal: never() });
    const channel = 1024 * 1024;
    const base = await externalAfterGc();
    const N = 24;
    for (let i = 0; i < N; i++) {
      const ac = new AbortController();
      const pending = tool.call(Uint8Array.of(31), { signal: ac.signal });
      await sleep(5);
      ac.abort();
      await failure(pending, 'ABORTED');
    }
    // long before the aborted calls' 30 s deadline, all their channels are gone (the replacement
    // instance takes the place of the one measured in the baseline)
    let grown = Infinity;
    for (let i = 0; i < 20 && grown >= 2 * channel; i++) {
      await sleep(50);
      grown = (await externalAfterGc()) - base;
    }
    expect(grown).toBeLessThan(2 * channel);
  });

  it('timed-out calls release their channels too, and the tool keeps serving', async () => {
    const tool = await kit('burn', { limits: { timeoutMs: 30_000 } });
    await tool.call(Uint8Array.of(4), { signal: never() });
    const base = await externalAfterGc();
    for (let i = 0; i < 8; i++)
      await failure(tool.call(Uint8Array.of(31), { signal: never(), timeoutMs: 20 }), 'TIMEOUT');
    let grown = Infinity;
    for (let i = 0; i < 20 && grown >= 3 * 1024 * 1024; i++) {
      await sleep(50);
      grown = (await externalAfterGc()) - base;
    }
    expect(grown).toBeLessThan(3 * 1024 * 1024);
    expect((await tool.call(Uint8Array.of(4), { signal: never() })).length).toBe(4);
  });
});

describe('a long-lived instance holds nothing per call', () => {
  it('calls on one instance do not grow the host heap (no per-call reaction on an instance-long promise)', async () => {
    // a wide slice: on a loaded machine a GC pause inside one of 20,000 calls can pass the 20 ms
    // default and move it to a worker (a second instance), which is not what this test is about
    const tool = await kit('greet', { execution: { sliceMs: 60_000 } });
    const input = new TextEncoder().encode('world');
    for (let i = 0; i < 500; i++) await tool.call(input, { signal: never() });
    gc();
    const before = process.memoryUsage().heapUsed;
    const N = 20_000;
    for (let i = 0; i < N; i++) await tool.call(input, { signal: never() });
    gc();
    const perCall = (process.memoryUsage().heapUsed - before) / N;
    expect(tool.stats().live).toBe(1);
    // measured ~310 bytes a call when each call raced the instance's death promise; ~0 without
    expect(perCall).toBeLessThan(50);
  });
});

describe("a deadline is TIMEOUT from whichever layer; only the caller's own abort is ABORTED", () => {
  it("a caller signal aborted by a TIMEOUT deadline (the pipeline's timer) is answered TIMEOUT", async () => {
    const tool = await kit('burn', { limits: { timeoutMs: 5000 } });
    const deadline = new AbortController();
    setTimeout(
      () => deadline.abort(new ToolFailure('TIMEOUT', 'tool "t_burn" did not finish within its deadline of 100 ms')),
      100,
    );
    const err = await failure(tool.call(Uint8Array.of(31), { signal: deadline.signal }), 'TIMEOUT');
    expect(err.message).toMatch(/deadline of 100 ms/);
  });

  it('a caller signal from AbortSignal.timeout is answered TIMEOUT, already fired or firing mid-call', async () => {
    const tool = await kit('burn', { limits: { timeoutMs: 5000 } });
    await failure(tool.call(Uint8Array.of(31), { signal: AbortSignal.timeout(80) }), 'TIMEOUT');
    const fired = AbortSignal.timeout(1);
    await sleep(20);
    await failure(tool.call(Uint8Array.of(4), { signal: fired }), 'TIMEOUT');
  });

  it('a plain abort by the caller stays ABORTED', async () => {
    const tool = await kit('burn', { limits: { timeoutMs: 5000 } });
    const ac = new AbortController();
    setTimeout(() => ac.abort(), 50);
    await failure(tool.call(Uint8Array.of(31), { signal: ac.signal }), 'ABORTED');
    const err = new AbortController();
    setTimeout(() => err.abort(new Error('user pressed stop')), 50);
    await failure(tool.call(Uint8Array.of(31), { signal: err.signal }), 'ABORTED');
  });

  it('the pipeline reports its deadline as TIMEOUT even when the body answers the abort with a bare ABORTED', async () => {
    const abortedOnAbort = (_args: unknown, signal: AbortSignal): Promise<never> =>
      new Promise((_, reject) => {
        const t = setTimeout(() => reject(new Error('never aborted')), 5000);
        signal.addEventListener('abort', () => {
          clearTimeout(t);
          reject(new ToolFailure('ABORTED', 'the call was aborted by its caller'));
        });
      });
    const h = harness();
    h.tools.register(recordingTool({ timeoutMs: 40, body: abortedOnAbort }));
    const timedOut = await h.pipeline.call('rec', {});
    expect(timedOut.error?.code).toBe('TIMEOUT');
    const caller = new AbortController();
    setTimeout(() => caller.abort(), 10);
    const h2 = harness();
    h2.tools.register(recordingTool({ timeoutMs: 5000, body: abortedOnAbort }));
    const aborted = await h2.pipeline.call('rec', {}, { signal: caller.signal });
    expect(aborted.error?.code).toBe('ABORTED');
  });

  it("through the pipeline too: a caller's own AbortSignal.timeout is TIMEOUT, its plain abort ABORTED (one mapping, signals/)", async () => {
    const h = harness();
    h.tools.register(
      recordingTool({
        timeoutMs: 5000,
        body: (_a, signal) => new Promise((resolve) => signal.addEventListener('abort', () => resolve('late'))),
      }),
    );
    const timedOut = await h.pipeline.call('rec', {}, { signal: AbortSignal.timeout(40) });
    expect(timedOut.error).toEqual({
      code: 'TIMEOUT',
      message: 'call to "rec" did not finish within its caller\'s deadline',
    });
    const caller = new AbortController();
    setTimeout(() => caller.abort(), 40);
    const aborted = await h.pipeline.call('rec', {}, { signal: caller.signal });
    expect(aborted.error).toEqual({ code: 'ABORTED', message: 'call to "rec" was cancelled by the caller' });
  });

  it('a manifest tool spinning past its timeout_ms is TIMEOUT through the pipeline (toolgate call)', async () => {
    const policies = mkdtempSync(join(tmpdir(), 'toolgate-nopolicy-'));
    try {
      const root = new URL('../../', import.meta.url);
      const out = await new Promise<string>((resolve, reject) => {
        execFile(
          process.execPath,
          [
            'dist/cli/main.js',
            'call',
            'spin_short',
            '--manifests',
            'test/fixtures/server-manifests',
            '--policies',
            policies,
            '--json',
          ],
          { cwd: root, timeout: 20_000 },
          (error, stdout) => (stdout ? resolve(stdout) : reject(error ?? new Error('no output'))),
        );
      });
      const result = JSON.parse(out) as { isError?: boolean; error?: { code: string } };
      expect(result.isError).toBe(true);
      expect(result.error?.code).toBe('TIMEOUT');
    } finally {
      rmSync(policies, { recursive: true, force: true });
    }
  });
});

/** CPU ticks (1/100 s) used so far by each thread of this process, by thread id. */
function threadTicks(): Map<string, number> {
  const out = new Map<string, number>();
  for (const tid of readdirSync('/proc/self/task')) {
    try {
      // fields after the parenthesised name: state is 3rd, utime 14th, stime 15th
      const rest = readFileSync(`/proc/self/task/${tid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
      out.set(tid, Number(rest[11]) + Number(rest[12]));
    } catch {
      // the thread ended between the listing and the read
    }
  }
  return out;
}

/** The most CPU ticks any one thread used in a `ms` window. */
async function busiestThread(ms: number): Promise<number> {
  const before = threadTicks();
  await sleep(ms);
  let worst = 0;
  for (const [tid, ticks] of threadTicks()) worst = Math.max(worst, ticks - (before.get(tid) ?? ticks));
  return worst;
}

describe("the pipeline's clock is the deadline's one owner (architecture.md §3.3)", () => {
  // The sandbox's own limit is far off: only the clock's deadline can end these calls.
  for (const path of ['in-thread', 'worker'] as const) {
    it(`a call under the clock's deadline ends with the clock's TIMEOUT, not a second sandbox one (${path})`, async () => {
      const tool = await kit('spin', {
        limits: { timeoutMs: 5000 },
        execution: path === 'worker' ? { path: 'worker' } : { sliceMs: 60_000 },
      });
      const clock = new CallClock('t_spin', never(), { ms: 150, source: 'a test' });
      try {
        const t0 = performance.now();
        const err = await failure(
          tool.call(new Uint8Array(0), { signal: clock.signal, remainingMs: clock.remainingMs }),
          'TIMEOUT',
        );
        expect(err.message).toBe(clock.timeoutReason?.message);
        expect(err.message).toMatch(/deadline of 150 ms \(set by a test\)/);
        expect(performance.now() - t0).toBeLessThan(4000);
        expect(tool.paths()).toMatchObject(path === 'worker' ? { inThread: 0, worker: 1 } : { inThread: 1, worker: 0 });
      } finally {
        clock.release();
      }
    });
  }

  it("the body reads the clock's time left; reading past the deadline fires its signal with the clock's TIMEOUT", async () => {
    const h = harness();
    const seen: { left?: number | undefined; late?: number | undefined; reason?: unknown } = {};
    h.tools.register({
      ...recordingTool({ timeoutMs: 200 }),
      execute: (_args, exec) => {
        seen.left = exec.remainingMs?.();
        // spin past the deadline on this thread: no timer can fire meanwhile
        const until = performance.now() + 300;
        while (performance.now() < until);
        seen.late = exec.remainingMs?.();
        seen.reason = exec.signal.reason;
        return 'late';
      },
    });
    const r = await h.pipeline.call('rec', {});
    expect(seen.left).toBeGreaterThan(0);
    expect(seen.left).toBeLessThanOrEqual(200);
    expect(seen.late).toBe(0);
    expect(seen.reason).toBeInstanceOf(ToolFailure);
    expect(r.error?.code).toBe('TIMEOUT');
    expect(r.error?.message).toBe((seen.reason as ToolFailure).message);
  });
});

describe('an idle pool costs no CPU', () => {
  it('an idle pool settles: no thread of the process keeps a core busy (the worker never spins unbounded)', async () => {
    const tool = await kit('slow_echo', { pool: { max: 2 }, execution: { path: 'worker' } });
    // two live instances, both just back from a call (the moment a worker might still be spinning)
    await Promise.all([
      tool.call(Uint8Array.of(1), { signal: never() }),
      tool.call(Uint8Array.of(2), { signal: never() }),
    ]);
    expect(tool.stats()).toMatchObject({ live: 2, busy: 0 });
    // Per thread CPU time, not wall-clock shares: a spinning worker keeps using CPU whatever the
    // machine's load, while booting the spare ends by itself. Within 10 s a 500 ms window must come
    // in which no thread used more than 3 ticks (30 ms, 6% of a core); a spinner never allows one.
    let worst = Infinity;
    for (let i = 0; i < 20 && worst > 3; i++) worst = await busiestThread(500);
    expect(worst).toBeLessThanOrEqual(3);
    expect(tool.stats()).toMatchObject({ live: 2, busy: 0 });
  });
});
