// A tool's request to its client (elicitation, sampling, roots) waits at most until the call's
// deadline, and the deadline is the clock's to fire (architecture.md §3.3). The client side has a
// request timer of its own (the MCP SDK's `timeout`); bounded by the same deadline, it raced the
// clock, and when it won the tool heard "timed out", returned, and the call ended as a success
// with no error code. A real module (test/fixtures/client_kit.c, elicit_wait) through the pipeline.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { loadManifestFile, toolFromManifest } from '../../host/src/manifest/index.js';
import type { CallClient, ClientAnswer, ToolDefinition } from '../../host/src/tool/index.js';
import { harness } from './helpers.js';

const KIT = resolve(__dirname, '../fixtures/build/client_kit.wasm');
const BUDGET_MS = 600;

let dir: string;
let tool: ToolDefinition;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'tg-client-deadline-'));
  const file = join(dir, 'waits.yaml');
  await writeFile(
    file,
    [
      'apiVersion: toolgate/v1',
      'name: waits',
      'version: 1.0.0',
      'description: asks its client and waits',
      `module: { path: ${KIT}, entry: elicit_wait }`,
      `capabilities: { memory: { max_pages: 32 }, timeout_ms: ${BUDGET_MS}, mcp: [logging, progress, elicitation, sampling, roots] }`,
      '',
    ].join('\n'),
  );
  tool = await toolFromManifest(await loadManifestFile(file));
}, 60_000);

afterAll(async () => {
  await tool?.dispose?.();
  await rm(dir, { recursive: true, force: true });
});

/** A client that never answers by itself, but gives up after the timeout it is handed, as the SDK does. */
function timingOutClient(): CallClient & { timeouts: number[] } {
  const timeouts: number[] = [];
  return {
    timeouts,
    log: () => Promise.resolve(true),
    progress: () => Promise.resolve(true),
    request: (_req, signal, timeoutMs) => {
      timeouts.push(timeoutMs);
      return new Promise<ClientAnswer>((resolve) => {
        const timer = setTimeout(
          () => resolve({ ok: false, code: 'FAILED', message: 'elicitation request failed: Request timed out' }),
          timeoutMs,
        );
        signal.addEventListener('abort', () => {
          clearTimeout(timer);
          resolve({ ok: false, code: 'FAILED', message: 'elicitation request failed: cancelled' });
        });
      });
    },
  };
}

test("a request bounded only by the call's deadline gets a client timer behind the clock's, so the call ends in TIMEOUT", async () => {
  const h = harness();
  h.tools.register(tool);
  for (let i = 0; i < 3; i++) {
    const client = timingOutClient();
    const result = await h.pipeline.call('waits', {}, { client });
    expect(result.error?.code).toBe('TIMEOUT');
    expect(client.timeouts).toHaveLength(1);
    // never the time left on the clock itself: that timer would race the clock's
    expect(client.timeouts[0]).toBeGreaterThan(BUDGET_MS);
  }
}, 60_000);
