// Network escapes tried by a real module through its http_request import (architecture.md §4): the
// manifest's allowed_hosts holds for every hop, every name and every byte, not only in the gate's
// own tests.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { loadSandboxTool, type SandboxTool } from '../../host/src/sandbox/index.js';
import { failure, moduleSpec, never, text, utf8, type SpecOverrides } from './core-helpers.js';

const open: SandboxTool[] = [];
const servers: Server[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((t) => t.close()));
  for (const s of servers.splice(0)) {
    s.closeAllConnections();
    await new Promise((r) => s.close(r));
  }
});

/** A server on `host` that counts what it is asked; `handle` answers. */
async function serve(host: string, handle: (path: string, res: import('node:http').ServerResponse) => void) {
  let requests = 0;
  const server = createServer((req, res) => {
    requests += 1;
    handle(req.url ?? '/', res);
  });
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, host, r));
  return { port: (server.address() as AddressInfo).port, requests: () => requests };
}

async function httpGet(over: SpecOverrides): Promise<(url: string) => Promise<Uint8Array>> {
  const tool = await loadSandboxTool(moduleSpec('core_kit', 'http_get', { limits: { timeoutMs: 10_000 }, ...over }));
  open.push(tool);
  return (url) => tool.call(utf8(JSON.stringify({ url })), { signal: never() });
}

describe('a module cannot reach what its manifest does not list', () => {
  it('a redirect from an allowed host to a host not listed is refused, and that host sees zero requests', async () => {
    const other = await serve('127.0.0.2', (_p, res) => res.end('secret'));
    const allowed = await serve('127.0.0.1', (path, res) => {
      if (path === '/away') {
        res.writeHead(302, { location: `http://127.0.0.2:${other.port}/` });
        res.end();
      } else res.end('ok');
    });
    const get = await httpGet({ allowedHosts: [`127.0.0.1:${allowed.port}`] });
    expect(text(await get(`http://127.0.0.1:${allowed.port}/`))).toBe('200 ok');
    const refused = await failure(get(`http://127.0.0.1:${allowed.port}/away`), 'TOOL_ERROR');
    expect(refused.message).toMatch(/redirect/i);
    expect(refused.message).not.toContain('secret');
    expect(other.requests()).toBe(0);
  });

  it('a name that resolves to loopback is refused unless that address itself is listed', async () => {
    const local = await serve('127.0.0.1', (_p, res) => res.end('ok'));
    const get = await httpGet({ allowedHosts: [`localhost:${local.port}`] });
    const refused = await failure(get(`http://localhost:${local.port}/`), 'TOOL_ERROR');
    expect(refused.message).toMatch(/loopback/);
    expect(local.requests()).toBe(0);
  });

  it('a 64 MiB response is cut at max_http_response_bytes and fails the call, not the host', async () => {
    const chunk = Buffer.alloc(1 << 20, 0x61);
    const big = await serve('127.0.0.1', (_p, res) => {
      let sent = 0;
      const pump = (): void => {
        while (sent < 64 && res.write(chunk)) sent += 1;
        if (sent >= 64) res.end();
        else res.once('drain', pump);
      };
      res.on('close', () => (sent = 64));
      pump();
    });
    const get = await httpGet({
      allowedHosts: [`127.0.0.1:${big.port}`],
      limits: { timeoutMs: 10_000, maxHttpResponseBytes: 1 << 20 },
    });
    const before = process.memoryUsage().rss;
    const cut = await failure(get(`http://127.0.0.1:${big.port}/`), 'TOOL_ERROR');
    expect(cut.message).toMatch(/larger than/);
    expect(process.memoryUsage().rss - before).toBeLessThan(48 * 1024 * 1024);
  });
});
