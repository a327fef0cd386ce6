// A process's first HTTP request used to pay for loading undici (~100-250 ms here) and for running
// undici's request path and ours for the first time (~20 ms: V8 compiles functions on first use,
// undici compiles its HTTP parser on its first connection); later requests take ~2 ms. A gate
// starts this warm-up in the background when it is made, so a tool's first request finds all of
// it done. The warm-up request goes to a throwaway server on a Unix socket in a private temporary
// folder: nothing leaves the machine, and no tool can reach a Unix socket (the gate only opens TCP
// connections to addresses it checked).
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { poolOptions } from './pinned-pools.js';
import { readCapped } from './read-capped.js';
import { loadUndiciPool } from '../../lazy-undici/index.js';

const WARM_TIMEOUT_MS = 5000;

let warming: Promise<boolean> | undefined;

/**
 * Loads undici and runs one request through it, once per process. Never rejects: true when the
 * warm-up request was answered, false when it could not run (the first real request then pays).
 */
export function warmNetworkPath(): Promise<boolean> {
  warming ??= warmUp().catch(() => false);
  return warming;
}

/** Whether this process has started the warm-up (tests: a gate with no allowed host never does). */
export function networkWarmStarted(): boolean {
  return warming !== undefined;
}

async function warmUp(): Promise<boolean> {
  const Pool = await loadUndiciPool();
  // node:http only serves this throwaway server: imported here, not with the sandbox's code, whose
  // load is on a fresh server's first call (5-12 ms at load 7; docs/decisions.md, issue 27).
  const { createServer } = await import('node:http');
  const dir = await mkdtemp(join(tmpdir(), 'toolgate-warm-'));
  const server = createServer((_req, res) => res.end('ok'));
  try {
    const socketPath = join(dir, 'http.sock');
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(socketPath, () => resolve());
    });
    server.unref();
    // the same options as a real pool, so the same code paths get compiled
    const pool = new Pool('http://localhost', poolOptions(WARM_TIMEOUT_MS, { socketPath, timeout: WARM_TIMEOUT_MS }));
    try {
      const res = await pool.request({
        path: '/',
        method: 'GET',
        headers: {},
        signal: AbortSignal.timeout(WARM_TIMEOUT_MS),
      });
      return new TextDecoder().decode(await readCapped(res.body, 1024)) === 'ok';
    } finally {
      await pool.destroy();
    }
  } finally {
    server.close();
    await rm(dir, { recursive: true, force: true });
  }
}
