// module.abi: component (docs/authoring-ts.md): a tool written in JavaScript runs under the same
// limits and teardown as any module, through toolgate's own glue for its one fixed world, and a
// component of any other world is refused at load with the reason.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { loadSandboxTool, SandboxLoadError, type SandboxTool } from '../../host/src/sandbox/index.js';
import {
  capturingLogger,
  failure,
  fixture,
  moduleSpec,
  never,
  text,
  until,
  utf8,
  type SpecOverrides,
} from './core-helpers.js';

const open: SandboxTool[] = [];
const servers: Server[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((t) => t.close()));
});
afterAll(async () => {
  for (const s of servers.splice(0)) {
    s.closeAllConnections();
    await new Promise((r) => s.close(r));
  }
});

async function hostile(over: SpecOverrides = {}): Promise<(args: object) => Promise<string>> {
  const tool = await loadSandboxTool(
    moduleSpec('js_hostile', 'call', { abi: 'component', limits: { timeoutMs: 5_000 }, ...over }),
  );
  open.push(tool);
  return async (args) => text(await tool.call(utf8(JSON.stringify(args)), { signal: never() }));
}

async function serve(
  handle: (path: string, res: import('node:http').ServerResponse) => void,
): Promise<{ port: number; requests: string[] }> {
  const requests: string[] = [];
  const server = createServer((req, res) => {
    requests.push(req.url ?? '/');
    handle(req.url ?? '/', res);
  });
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { port: (server.address() as AddressInfo).port, requests };
}

async function loadError(over: SpecOverrides & { wasm: Uint8Array }): Promise<SandboxLoadError> {
  const err = await loadSandboxTool(moduleSpec('js_hostile', 'call', { abi: 'component', ...over })).then(
    (t) => (open.push(t), undefined),
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(SandboxLoadError);
  return err as SandboxLoadError;
}

describe("a JavaScript tool runs in the sandbox through toolgate's world", () => {
  it('returns its string, and its console.log lines reach the log', async () => {
    const { logger, lines } = capturingLogger();
    const call = await hostile({ logger });
    expect(JSON.parse(await call({ mode: 'echo', text: 'héllo' }))).toEqual({ echo: 'héllo' });
    // log lines travel off the hot path (a message after the result): wait for it, boundedly
    await until(() => lines.some((l) => l.msg === 'echo called' && l.tool === 't_call'));
  });

  it('an infinite loop is TIMEOUT at the deadline, and the tool answers the next call', async () => {
    const call = await hostile({ limits: { timeoutMs: 1_500 } });
    await call({ mode: 'echo', text: 'warm' });
    const started = performance.now();
    await failure(call({ mode: 'loop' }), 'TIMEOUT');
    expect(performance.now() - started).toBeLessThan(4_000);
    expect(JSON.parse(await call({ mode: 'echo', text: 'after' }))).toEqual({ echo: 'after' });
  });

  it('a memory bomb fails at the memory cap, naming max_pages, and the next call runs on a fresh instance', async () => {
    const call = await hostile({ limits: { timeoutMs: 20_000, maxPages: 512 } });
    const err = await failure(call({ mode: 'bomb' }), 'TOOL_ERROR');
    expect(err.message).toMatch(/memory at its cap: \d+ of capabilities.memory.max_pages = 512 pages/);
    expect(JSON.parse(await call({ mode: 'echo', text: 'ok' }))).toEqual({ echo: 'ok' });
  });

  it('its core module instrumented for preemption (execution.instrument) answers the same in a worker, and a loop is still TIMEOUT', async () => {
    const call = await hostile({ execution: { path: 'worker', instrument: true }, limits: { timeoutMs: 1_500 } });
    expect(JSON.parse(await call({ mode: 'echo', text: 'fuel' }))).toEqual({ echo: 'fuel' });
    await failure(call({ mode: 'loop' }), 'TIMEOUT');
    expect(JSON.parse(await call({ mode: 'echo', text: 'after' }))).toEqual({ echo: 'after' });
  });

  it('a throw is TOOL_ERROR with its message cut to 1 KiB', async () => {
    const call = await hostile();
    const err = await failure(call({ mode: 'throw' }), 'TOOL_ERROR');
    expect(err.message).toMatch(/^boom boom/);
    expect(Buffer.byteLength(err.message)).toBeLessThanOrEqual(1024);
  });

  it('a tool that returns a number, not a string, is TOOL_ERROR', async () => {
    const call = await hostile();
    const err = await failure(call({ mode: 'number' }), 'TOOL_ERROR');
    expect(err.message).toMatch(/returned number, not a string/);
  });

  it('fetch reaches an allowed host through the gate', async () => {
    const site = await serve((_p, res) => res.end('hello from the site'));
    const call = await hostile({ allowedHosts: [`127.0.0.1:${site.port}`] });
    expect(JSON.parse(await call({ mode: 'fetch', url: `http://127.0.0.1:${site.port}/page` }))).toEqual({
      status: 200,
      body: 'hello from the site',
    });
    expect(site.requests).toEqual(['/page']);
  });

  it('fetch to a host the manifest does not grant is refused, and that host sees no request', async () => {
    const other = await serve((_p, res) => res.end('secret'));
    const call = await hostile({ allowedHosts: ['example.com'] });
    const err = await failure(call({ mode: 'fetch', url: `http://127.0.0.1:${other.port}/` }), 'TOOL_ERROR');
    expect(err.message).toMatch(/fetch .* failed: .*(allowed_hosts|not allowed)/);
    expect(other.requests).toEqual([]);
  });

  it('fetch redirected to a name that resolves to loopback is refused, and the redirect target sees no request', async () => {
    const inside = await serve((_p, res) => res.end('secret'));
    const site = await serve((_p, res) => {
      res.writeHead(302, { location: `http://localhost:${inside.port}/secret` });
      res.end();
    });
    // localhost is listed by name, but its addresses are loopback and 127.0.0.1:inside is not listed
    const call = await hostile({ allowedHosts: [`127.0.0.1:${site.port}`, `localhost:${inside.port}`] });
    const err = await failure(call({ mode: 'fetch', url: `http://127.0.0.1:${site.port}/away` }), 'TOOL_ERROR');
    expect(err.message).toMatch(/loopback/);
    expect(site.requests).toEqual(['/away']);
    expect(inside.requests).toEqual([]);
  });
});

describe("a component that is not toolgate's world is refused at load", () => {
  it('a component built against a world with an extra import is WRONG_WORLD, naming what differs', async () => {
    const err = await loadError({ wasm: fixture('js_other_world') });
    expect(err.code).toBe('WRONG_WORLD');
    expect(err.message).toMatch(/differs from toolgate's world toolgate:tool\/tool@0\.1\.0 .* in the types/);
  });

  it('a core module given as module.abi: component is refused: it is not a component', async () => {
    const err = await loadError({ wasm: fixture('server_spin') });
    expect(err.code).toBe('WRONG_WORLD');
    expect(err.message).toMatch(/is not a component/);
  });

  it('a component whose sections are cut short is refused, naming where it ends', async () => {
    const whole = fixture('js_hostile');
    const err = await loadError({ wasm: whole.subarray(0, 2000) });
    expect(err.code).toBe('WRONG_WORLD');
    expect(err.message).toMatch(/runs past the end|ends after/);
  });

  it('a component under the default module.abi is refused as a component', async () => {
    const err = await loadSandboxTool(moduleSpec('js_hostile', 'call')).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(SandboxLoadError);
    expect((err as Error).message).toMatch(/components are not accepted/);
  });

  it('a component tool that asks for file mounts is refused: the world has no files', async () => {
    const err = await loadError({
      wasm: fixture('js_hostile'),
      allowedPaths: { '/data': { host: '/tmp', mode: 'ro' } },
    });
    expect(err.code).toBe('BAD_SPEC');
    expect(err.message).toMatch(/allowedPaths .* not in toolgate's world/);
  });
});
