// Extism hosts send a request whose method is null or absent as GET (the Rust PDK's HttpRequest
// serialises `"method": null` for a GET); toolgate does the same, through the same gate.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadSandboxTool, type SandboxTool } from '../../host/src/sandbox/index.js';
import { failure, moduleSpec, never, text, utf8 } from '../sandbox/core-helpers.js';

let server: Server;
let port = 0;
const methods: string[] = [];
let tool: SandboxTool;

beforeAll(async () => {
  server = createServer((req, res) => {
    methods.push(req.method ?? '');
    res.end('pong');
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  port = (server.address() as AddressInfo).port;
  tool = await loadSandboxTool(moduleSpec('core_kit', 'http_get', { allowedHosts: [`127.0.0.1:${port}`] }));
});
afterAll(async () => {
  await tool.close();
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
});

const get = (request: Record<string, unknown>): Promise<Uint8Array> =>
  tool.call(utf8(JSON.stringify(request)), { signal: never() });

describe('HTTP requests with a null or missing method are GET', () => {
  it('a request whose method is null (the Rust PDK default) is sent as GET', async () => {
    methods.length = 0;
    expect(text(await get({ url: `http://127.0.0.1:${port}/`, method: null, headers: {} }))).toBe('200 pong');
    expect(methods).toEqual(['GET']);
  });

  it('a request without a method or headers is sent as GET', async () => {
    methods.length = 0;
    expect(text(await get({ url: `http://127.0.0.1:${port}/` }))).toBe('200 pong');
    expect(methods).toEqual(['GET']);
  });

  it('a null-method request still goes through allowed_hosts: another port is refused and never reached', async () => {
    methods.length = 0;
    const refused = await failure(get({ url: `http://127.0.0.1:${port + 1}/`, method: null }), 'TOOL_ERROR');
    expect(refused.message).toMatch(/allowed_hosts|not allowed|not listed/);
    expect(methods).toEqual([]);
  });

  it('a method that is not a string or null is still refused', async () => {
    const refused = await failure(get({ url: `http://127.0.0.1:${port}/`, method: 7 }), 'TOOL_ERROR');
    expect(refused.message).toMatch(/method/);
  });
});
