// The soak: many calls over MCP (stdio, the real `serve` process) with some cancelled mid-call and
// some to a tool that spins into its deadline. Every call must be answered exactly once, memory
// must come back, instances must stay within the pool bound, and nothing may be left running.
// SOAK_CALLS sets the size (CI: 500 by default; `make soak`: 10000); SOAK_CONCURRENCY,
// SOAK_CANCEL_RATE, SOAK_TIMEOUT_RATE and SOAK_TRACE=1 (RSS every 100 ms) are for experiments.
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test } from 'vitest';
import { cpuShare, FIXTURE_MANIFESTS, startStdio, threadCount, waitFor } from '../server/helpers.js';
import { collectGarbage, inspectorUrl, memoryUsage } from './inspector.js';

const CALLS = Number(process.env.SOAK_CALLS ?? 500);
const CONCURRENCY = Number(process.env.SOAK_CONCURRENCY ?? 8);
const CANCEL_RATE = Number(process.env.SOAK_CANCEL_RATE ?? 0.1);
const TIMEOUT_RATE = Number(process.env.SOAK_TIMEOUT_RATE ?? 0.05);
const ARENAS = process.env.SOAK_CHILD_MALLOC_ARENA_MAX ?? '2';
/** Pool bound per tool (the sandbox default) and the tools the soak uses. */
const POOL_MAX = 2;
const TOOLS_USED = 3;

function rssKiB(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return Number(m?.[1] ?? NaN);
}

function childPids(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim();
  } catch {
    return '';
  }
}

/** Deterministic, so a failure reproduces: a small LCG. */
function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

type Kind = 'echo' | 'cancel' | 'timeout';

/** Idle instances are trimmed after this long in the soak's own copies of the server manifests. */
const IDLE_MS = 500;

/**
 * The server fixtures with a short pool idle time, so that memory is measured twice in the same
 * state (every pooled instance trimmed), not with one more or one fewer instance alive by chance.
 */
function soakManifests(): string {
  const dir = mkdtempSync(join(tmpdir(), 'toolgate-soak-'));
  for (const f of readdirSync(FIXTURE_MANIFESTS).filter((n) => n.endsWith('.yaml'))) {
    const text = readFileSync(join(FIXTURE_MANIFESTS, f), 'utf8').replace(
      'path: ../build/',
      `path: ${join(FIXTURE_MANIFESTS, '../build')}/`,
    );
    writeFileSync(join(dir, f), `${text.trimEnd()}\npool: { idle_ms: ${IDLE_MS} }\n`);
  }
  return dir;
}

test(`soak: ${CALLS} MCP calls, 10% cancelled mid-call, 5% spinning into their deadline`, {
  timeout: Math.max(120_000, CALLS * 60),
}, async () => {
  // --inspect on an ephemeral loopback port: only so the test can force a GC before measuring
  const manifests = soakManifests();
  const s = await startStdio(['--manifests', manifests, '--no-watch'], {
    nodeArgs: ['--inspect=127.0.0.1:0'],
    // Worker churn (every cancel/timeout replaces a thread) leaves freed memory in glibc's
    // per-thread arenas; the server is run as docs/mcp.md advises. SOAK_CHILD_MALLOC_ARENA_MAX=''
    // runs it with glibc's default (measured: +11% RSS over 10,000 calls vs +2%; JS heap flat).
    ...(ARENAS !== '' ? { env: { MALLOC_ARENA_MAX: ARENAS } } : {}),
  });
  const inspector = await waitFor('the inspector address', () => inspectorUrl(s.stderr()));
  const clientErrors: string[] = [];
  s.client.onerror = (e) => clientErrors.push(e.message);
  try {
    const rand = rng(42);
    // The first WARM calls (same mix) bring the pools, the JIT, the heap and the allocator arenas
    // to their working size (RSS levels off after ~1,000 calls: +4% from there over 10,000);
    // the baseline is taken after them, so the check is about growth while serving.
    const WARM = 800;
    const TOTAL = WARM + CALLS;
    const kinds: Kind[] = Array.from({ length: TOTAL }, () => {
      const x = rand();
      return x < CANCEL_RATE ? 'cancel' : x < CANCEL_RATE + TIMEOUT_RATE ? 'timeout' : 'echo';
    });
    const answers = new Array<number>(TOTAL).fill(0);
    const wrong: string[] = [];
    let maxThreads = 0;
    const rssTrail: number[] = [];
    const sampler = setInterval(() => {
      maxThreads = Math.max(maxThreads, threadCount(s.pid));
      if (rssTrail.length < 10_000) rssTrail.push(Math.round(rssKiB(s.pid) / 1024));
    }, 100);

    async function one(i: number): Promise<void> {
      const kind = kinds[i] as Kind;
      const settle = (what: string, ok: boolean) => {
        answers[i] = (answers[i] ?? 0) + 1;
        if (!ok) wrong.push(`#${i} ${kind}: ${what}`);
      };
      if (kind === 'echo') {
        await s.client.callTool({ name: 'wasm_echo', arguments: { text: `c${i}` } }).then(
          (r) =>
            settle(
              JSON.stringify(r.structuredContent),
              !r.isError && JSON.stringify(r.structuredContent) === JSON.stringify({ text: `c${i}` }),
            ),
          (e: unknown) => settle(String(e), false),
        );
      } else if (kind === 'timeout') {
        await s.client.callTool({ name: 'spin_short', arguments: {} }).then(
          (r) => settle(JSON.stringify(r._meta?.['toolgate/error']), r.isError === true),
          (e: unknown) => settle(String(e), false),
        );
      } else {
        const ac = new AbortController();
        const t = setTimeout(() => ac.abort(), 5 + Math.floor(rand() * 40));
        await s.client.callTool({ name: 'spin', arguments: {} }, undefined, { signal: ac.signal }).then(
          (r) =>
            settle(`answered instead of cancelled: ${JSON.stringify(r._meta?.['toolgate/error'])}`, r.isError === true),
          (e: unknown) => settle(String(e), /abort/i.test(String(e))),
        );
        clearTimeout(t);
      }
    }
    const phase = async (from: number, to: number) => {
      let next = from;
      await Promise.all(
        Array.from({ length: CONCURRENCY }, async () => {
          for (let i = next++; i < to; i = next++) await one(i);
        }),
      );
    };
    await phase(0, WARM);
    await waitFor('the server to go idle', async () => ((await cpuShare(s.pid, 300)) < 0.1 ? true : undefined), 20_000);
    const threadsStart = await settledThreads(s.pid);
    await collectGarbage(inspector);
    const rssStart = rssKiB(s.pid);
    const memStart = await memoryUsage(inspector);
    const t0 = performance.now();
    await phase(WARM, TOTAL);
    clearInterval(sampler);
    const seconds = (performance.now() - t0) / 1000;

    // quiet again: nothing spinning, instances back within the pool bound, memory back
    await waitFor('the server to go idle', async () => ((await cpuShare(s.pid, 300)) < 0.1 ? true : undefined), 20_000);
    // (a torn-down instance's channel is released at once: nothing to wait out before measuring)
    const threadsEnd = await settledThreads(s.pid);
    await collectGarbage(inspector);
    const rssEnd = rssKiB(s.pid);
    const memEnd = await memoryUsage(inspector);
    const perInstance = 2; // measured: one instance = one worker thread plus its helper
    const summary = {
      calls: CALLS,
      seconds: Number(seconds.toFixed(1)),
      callsPerSecond: Number((CALLS / seconds).toFixed(0)),
      warmup: WARM,
      cancelled: kinds.slice(WARM).filter((k) => k === 'cancel').length,
      timedOut: kinds.slice(WARM).filter((k) => k === 'timeout').length,
      rssStartMiB: Number((rssStart / 1024).toFixed(1)),
      rssEndMiB: Number((rssEnd / 1024).toFixed(1)),
      threadsStart,
      threadsMax: maxThreads,
      threadsEnd,
      memStartMiB: memStart,
      memEndMiB: memEnd,
    };
    console.log(`soak summary ${JSON.stringify(summary)}`);
    if (process.env.SOAK_TRACE === '1') console.log(`rss MiB every 100 ms: ${rssTrail.join(' ')}`);

    expect(wrong.slice(0, 10)).toEqual([]);
    expect(answers.every((n) => n === 1)).toBe(true);
    expect(clientErrors.filter((m) => !/progress notification/.test(m))).toEqual([]);
    expect(rssEnd).toBeLessThanOrEqual(rssStart * 1.2);
    expect(threadsEnd).toBeLessThanOrEqual(threadsStart + POOL_MAX * TOOLS_USED * perInstance);
    expect(maxThreads).toBeLessThanOrEqual(threadsStart + POOL_MAX * TOOLS_USED * perInstance + 4);
    expect(childPids(s.pid)).toBe(''); // the sandbox uses threads, never child processes
  } finally {
    await s.close();
    rmSync(manifests, { recursive: true, force: true });
  }
  // the client closed stdin: the server shuts down and leaves nothing behind
  await waitFor(
    'the server process to exit',
    () => {
      try {
        readFileSync(`/proc/${s.pid}/status`);
        return undefined;
      } catch {
        return true;
      }
    },
    15_000,
  );
});

/**
 * The thread count once idle instances have been trimmed and the worker kept with room is up: it
 * must not change for several idle periods in a row (a bounded wait; a pool that never trims shows
 * up as more threads). Counting only "stopped falling" let the RSS baseline be read while that
 * worker was still to start, ~23 MiB and one thread below the end's reading.
 */
async function settledThreads(pid: number): Promise<number> {
  let last = threadCount(pid);
  let steady = 0;
  for (let i = 0; i < 40 && steady < 3; i++) {
    await new Promise((r) => setTimeout(r, IDLE_MS));
    const now = threadCount(pid);
    steady = now === last ? steady + 1 : 0;
    last = now;
  }
  return threadCount(pid);
}
