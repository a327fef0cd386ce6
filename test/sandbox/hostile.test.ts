// Hostile modules: refused at load when their shape is wrong, torn down at the deadline when they
// misbehave at run time. Nothing they do may hang or crash the host.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  loadSandboxTool,
  SandboxLoadError,
  type SandboxExecution,
  type SandboxTool,
} from '../../host/src/sandbox/index.js';
import { watchLoop } from '../support/loop-watch.js';
import {
  EXECUTION_PATHS,
  failure,
  kitSpec,
  moduleSpec,
  never,
  text,
  until,
  utf8,
  type SpecOverrides,
} from './core-helpers.js';

const open: SandboxTool[] = [];
/** The path of the describe block running (the run-time rules below hold on both). */
let execution: SandboxExecution = { path: 'worker' };
async function load(file: string, entry: string, over: SpecOverrides = {}): Promise<SandboxTool> {
  const tool = await loadSandboxTool(moduleSpec(file, entry, { execution, ...over }));
  open.push(tool);
  return tool;
}
afterEach(async () => {
  await Promise.all(open.splice(0).map((t) => t.close()));
});

async function refused(p: Promise<unknown>, code: string, message: RegExp): Promise<void> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(SandboxLoadError);
  expect((err as SandboxLoadError).code).toBe(code);
  expect((err as SandboxLoadError).message).toMatch(message);
}

describe('refused at load, naming the tool and the rule', () => {
  const cases: [string, string, string, RegExp][] = [
    ['hostile_min_over_cap', 'run', 'MEMORY_OVER_CAP', /tool "t_run": memory minimum is 300 pages; max_pages is 256/],
    ['hostile_env_import', 'run', 'FORBIDDEN_IMPORT', /import "env\.system" is from namespace "env"/],
    [
      'hostile_unknown_host_fn',
      'run',
      'FORBIDDEN_IMPORT',
      /import "extism:host\/env\.exec_shell" is not an Extism host function/,
    ],
    ['hostile_import_memory', 'run', 'FORBIDDEN_IMPORT', /import "extism:host\/env\.memory" is a memory/],
    [
      'hostile_wasi_unknown',
      'run',
      'FORBIDDEN_IMPORT',
      /import "wasi_snapshot_preview1\.sock_open" is not a WASI function/,
    ],
    ['hostile_shared_memory', 'run', 'BAD_MODULE', /shared memory is not allowed/],
    ['hostile_memory64', 'run', 'BAD_MODULE', /memory64 is not allowed/],
    ['hostile_two_memories', 'run', 'BAD_MODULE', /declares 2 memories; at most one/],
    ['hostile_spoof_status', 'run', 'BAD_MODULE', /export "toolgate:status" uses the reserved prefix/],
    ['core_kit', 'no_such_export', 'MISSING_ENTRY', /exports no function "no_such_export"/],
  ];
  for (const [file, entry, code, message] of cases) {
    it(`${file} (${entry}) is refused with ${code}`, async () => {
      await refused(loadSandboxTool(moduleSpec(file, entry)), code, message);
    });
  }

  it('malformed bytes are BAD_MODULE with a clear reason', async () => {
    const spec = kitSpec('greet');
    await refused(
      loadSandboxTool({ ...spec, wasm: utf8('not wasm at all') }),
      'BAD_MODULE',
      /malformed module: not a WebAssembly module/,
    );
    const truncated = spec.wasm.subarray(0, spec.wasm.length - 7);
    await refused(
      loadSandboxTool({ ...spec, wasm: truncated }),
      'BAD_MODULE',
      /tool "t_greet": malformed module: .*runs past the end/,
    );
  });

  it('a module whose sha256 differs from the pinned one is refused', async () => {
    await refused(
      loadSandboxTool({ ...kitSpec('greet'), sha256: '0'.repeat(64) }),
      'BAD_MODULE',
      /the manifest pins 0{64}/,
    );
  });

  it('a bad spec is a load error naming the key path', async () => {
    const spec = kitSpec('greet', { limits: { maxPages: 0 } });
    await refused(loadSandboxTool(spec), 'BAD_SPEC', /tool "t_greet": limits\.maxPages/);
  });

  it('a memory declared with a larger maximum is capped, not refused', async () => {
    // core_kit declares (memory 2) with no maximum; the cap becomes its maximum
    const tool = await load('core_kit', 'grow', { limits: { maxPages: 3 } });
    const out = await tool.call(new Uint8Array(0), { signal: never() });
    expect(new DataView(out.buffer, out.byteOffset).getUint32(0, true)).toBe(3);
  });
});

for (const [where, path] of EXECUTION_PATHS) {
  describe(`time, ${where}: torn down at the deadline, the host stays responsive`, () => {
    beforeAll(() => {
      execution = path;
    });

    it('a spinning call is answered TIMEOUT within deadline + 50 ms and the next call gets a fresh instance', async () => {
      const tool = await load('core_kit', 'burn', { limits: { timeoutMs: 5000 } });
      await tool.call(Uint8Array.of(4), { signal: never() }); // warm: the instance exists
      const w = await watchLoop(failure(tool.call(Uint8Array.of(31), { signal: never(), timeoutMs: 300 }), 'TIMEOUT'));
      expect(w.tookMs).toBeGreaterThanOrEqual(295);
      expect(w.tookMs - w.lateMs).toBeLessThan(350);
      expect(w.ticks).toBeGreaterThanOrEqual(3); // the module spun off the main thread
      const out = await tool.call(Uint8Array.of(4), { signal: never() });
      expect(out.length).toBe(4);
    });

    it('an endless loop in the entry is torn down (spin)', async () => {
      const tool = await load('core_kit', 'spin', { limits: { timeoutMs: 150 } });
      const w = await watchLoop(failure(tool.call(new Uint8Array(0), { signal: never() }), 'TIMEOUT'));
      expect(w.tookMs - w.lateMs).toBeLessThan(200);
      expect(tool.stats().busy).toBe(0);
    });

    it('a start function that never returns is torn down at the deadline', async () => {
      const tool = await load('hostile_start_loop', 'run', { limits: { timeoutMs: 200 } });
      const w = await watchLoop(failure(tool.call(new Uint8Array(0), { signal: never() }), 'TIMEOUT'));
      expect(w.tookMs - w.lateMs).toBeLessThan(250);
      expect(w.ticks).toBeGreaterThanOrEqual(3);
      expect(tool.stats()).toMatchObject({ busy: 0, queued: 0 });
    });

    it('an _initialize that never returns is torn down at the deadline', async () => {
      const tool = await load('hostile_init_loop', 'run', { limits: { timeoutMs: 200 } });
      const w = await watchLoop(failure(tool.call(new Uint8Array(0), { signal: never() }), 'TIMEOUT'));
      expect(w.tookMs - w.lateMs).toBeLessThan(250);
      expect(tool.stats()).toMatchObject({ busy: 0, queued: 0 });
    });

    it('abort mid-call is answered within 20 ms (net of loop lateness) and the next call is served', async () => {
      const tool = await load('core_kit', 'burn', { limits: { timeoutMs: 5000 } });
      await tool.call(Uint8Array.of(4), { signal: never() });
      const ac = new AbortController();
      const pending = tool.call(Uint8Array.of(31), { signal: ac.signal });
      await until(() => tool.stats().busy === 1); // the call is on its instance
      const answered = watchLoop(failure(pending, 'ABORTED'), 1);
      ac.abort();
      const w = await answered;
      expect(w.tookMs - w.lateMs).toBeLessThan(20);
      expect((await tool.call(Uint8Array.of(4), { signal: never() })).length).toBe(4);
    });

    it('a signal already aborted is answered ABORTED without starting an instance', async () => {
      const tool = await load('core_kit', 'greet');
      const ac = new AbortController();
      ac.abort();
      await failure(tool.call(utf8('x'), { signal: ac.signal }), 'ABORTED');
      expect(tool.stats().live).toBe(0);
    });

    it('a timeout right after a failed HTTP call still fires, and the next call is served (architecture.md §8.4)', async () => {
      let slowArrived = false;
      const server = createServer((req, res) => {
        if (req.url === '/slow') {
          slowArrived = true;
          const t = setTimeout(() => res.end('late'), 5000);
          res.on('close', () => clearTimeout(t));
          return;
        }
        res.end('ok');
      });
      await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
      const port = (server.address() as AddressInfo).port;
      try {
        const tool = await load('core_kit', 'http_get', {
          allowedHosts: [`127.0.0.1:${port}`],
          limits: { timeoutMs: 10_000 },
        });
        const get = (url: string, timeoutMs?: number): Promise<Uint8Array> =>
          tool.call(utf8(JSON.stringify({ url })), {
            signal: never(),
            ...(timeoutMs !== undefined ? { timeoutMs } : {}),
          });
        expect(text(await get(`http://127.0.0.1:${port}/ok`))).toBe('200 ok');
        const denied = await failure(get(`http://127.0.0.2:${port}/ok`), 'TOOL_ERROR');
        expect(denied.message).toMatch(/^http_request refused: .*127\.0\.0\.2/);
        // the refusal unwound the module, so its instance was dropped; the next call starts its
        // replacement, and the deadline below is the HTTP wait's alone on that started instance
        // (starting one is not what this rule is about)
        expect(tool.stats().live).toBe(0);
        expect(text(await get(`http://127.0.0.1:${port}/ok`))).toBe('200 ok');
        expect(tool.stats().idle).toBe(1);
        const w = await watchLoop(failure(get(`http://127.0.0.1:${port}/slow`, 400), 'TIMEOUT'));
        expect(slowArrived).toBe(true); // the deadline fired while the module waited on its request
        expect(w.tookMs - w.lateMs).toBeLessThan(500);
        expect(text(await get(`http://127.0.0.1:${port}/ok`))).toBe('200 ok');
      } finally {
        server.closeAllConnections();
        await new Promise((r) => server.close(r));
      }
    });

    it('an HTTP request carries its method, headers and body over the channel, and the response headers come back', async () => {
      const server = createServer((req, res) => {
        let size = 0;
        req.on('data', (c: Buffer) => (size += c.length));
        req.on('end', () => {
          res.setHeader('x-method', req.method ?? '');
          res.setHeader('x-body-bytes', String(size));
          res.setHeader('x-token', String(req.headers['x-token']));
          res.end('done');
        });
      });
      await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
      const port = (server.address() as AddressInfo).port;
      try {
        const tool = await load('core_kit', 'http_headers_of', { allowedHosts: [`127.0.0.1:${port}`] });
        const request = utf8(
          JSON.stringify({ url: `http://127.0.0.1:${port}/p`, method: 'POST', headers: { 'x-token': 'abc' } }),
        );
        const headers = JSON.parse(text(await tool.call(request, { signal: never() }))) as Record<string, string>;
        expect(headers).toMatchObject({ 'x-method': 'POST', 'x-body-bytes': String(request.length), 'x-token': 'abc' });
      } finally {
        server.closeAllConnections();
        await new Promise((r) => server.close(r));
      }
    });

    it('a timeout right after a failed call on the same instance still fires, and the next call is answered', async () => {
      // burn writes 4 bytes: over a 3-byte cap it fails cleanly and its instance stays in service
      const tool = await load('core_kit', 'burn', { limits: { timeoutMs: 5000, maxOutputBytes: 3 } });
      await failure(tool.call(Uint8Array.of(2), { signal: never() }), 'OUTPUT_TOO_LARGE');
      expect(tool.stats()).toMatchObject({ live: 1, idle: 1 });
      const w = await watchLoop(failure(tool.call(Uint8Array.of(31), { signal: never(), timeoutMs: 300 }), 'TIMEOUT'));
      expect(w.tookMs - w.lateMs).toBeLessThan(350);
      // answered by a fresh instance (not hung as on the SDK's worker mode)
      await failure(tool.call(Uint8Array.of(2), { signal: never() }), 'OUTPUT_TOO_LARGE');
    });

    it('close() while a call runs answers it ABORTED at once (architecture.md §8.5)', async () => {
      const tool = await loadSandboxTool(kitSpec('burn', { execution, limits: { timeoutMs: 5000 } }));
      const pending = tool.call(Uint8Array.of(31), { signal: never() });
      await until(() => tool.stats().busy === 1);
      const w = await watchLoop(Promise.all([tool.close(), failure(pending, 'ABORTED')]), 1);
      expect(w.tookMs - w.lateMs).toBeLessThan(100);
      await failure(tool.call(Uint8Array.of(1), { signal: never() }), 'ABORTED');
    });

    it('host calls never stall: 200 calls of ~40 host calls each all finish fast (architecture.md §8.4)', async () => {
      const tool = await load('core_kit', 'greet');
      const input = utf8('x'.repeat(16));
      await tool.call(input, { signal: never() });
      // a stall is the host waiting on its own channel (architecture.md §8.4: 500 ms), not the machine's load
      let worst = 0;
      for (let i = 0; i < 200; i++) {
        const call = tool.call(input, { signal: never() });
        const w = await watchLoop(call, 2);
        expect(text(await call)).toBe(`Hello, ${'x'.repeat(16)}`);
        worst = Math.max(worst, w.tookMs - w.lateMs);
      }
      expect(worst).toBeLessThan(100);
    });
  });
}
