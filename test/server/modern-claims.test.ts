// claimsModern (modern-http.ts) decides, before any SDK code runs, whether a POST without a
// session goes to the SDK v2 handler (2026-07-28) or to a 2025-11-25 session. The SDK v2 exports
// its own routing decision, isLegacyRequest: for every shape of request a client sends, the two
// must agree, or a request would be served under the other revision than the SDK would pick.
import type { IncomingMessage } from 'node:http';
import { isLegacyRequest } from '@modelcontextprotocol/server';
import { describe, expect, test } from 'vitest';
import { ModernEndpoint } from '../../host/src/server/modern-http.js';

const ENVELOPE = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientInfo': { name: 'claims-test', version: '1' },
  'io.modelcontextprotocol/clientCapabilities': {},
};
const JSON_HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };

interface Shape {
  what: string;
  headers: Record<string, string>;
  body: unknown;
}

const rpc = (
  method: string,
  params: Record<string, unknown> = {},
  id: number | string | undefined = 1,
): Record<string, unknown> => ({ jsonrpc: '2.0', ...(id !== undefined ? { id } : {}), method, params });

const SHAPES: Shape[] = [
  {
    what: 'a 2025-11-25 initialize (no header yet)',
    headers: {},
    body: rpc('initialize', {
      protocolVersion: '2025-11-25',
      capabilities: {},
      clientInfo: { name: 'c', version: '1' },
    }),
  },
  {
    what: 'a 2025-06-18 initialize',
    headers: {},
    body: rpc('initialize', {
      protocolVersion: '2025-06-18',
      capabilities: {},
      clientInfo: { name: 'c', version: '1' },
    }),
  },
  {
    what: 'a 2025-03-26 initialize',
    headers: {},
    body: rpc('initialize', {
      protocolVersion: '2025-03-26',
      capabilities: {},
      clientInfo: { name: 'c', version: '1' },
    }),
  },
  {
    what: 'tools/list with the 2025-11-25 header (a stateless 2025 client)',
    headers: { 'mcp-protocol-version': '2025-11-25' },
    body: rpc('tools/list'),
  },
  {
    what: 'tools/call with the 2025-06-18 header',
    headers: { 'mcp-protocol-version': '2025-06-18' },
    body: rpc('tools/call', { name: 'echo', arguments: {} }),
  },
  { what: 'a notification with no header', headers: {}, body: { jsonrpc: '2.0', method: 'notifications/initialized' } },
  { what: 'tools/list with neither header nor envelope', headers: {}, body: rpc('tools/list') },
  {
    what: 'a 2026-07-28 tools/call (header and envelope)',
    headers: { 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/call', 'mcp-name': 'echo' },
    body: rpc('tools/call', { name: 'echo', arguments: {}, _meta: ENVELOPE }),
  },
  {
    what: 'a 2026-07-28 server/discover',
    headers: { 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'server/discover' },
    body: rpc('server/discover', { _meta: ENVELOPE }),
  },
  {
    what: 'a 2026-07-28 tools/list',
    headers: { 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/list' },
    body: rpc('tools/list', { _meta: ENVELOPE }, 'req-1'),
  },
  {
    what: 'the 2026-07-28 header without the envelope',
    headers: { 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/list' },
    body: rpc('tools/list'),
  },
  { what: 'the envelope without the header', headers: {}, body: rpc('tools/list', { _meta: ENVELOPE }) },
  {
    what: 'a revision newer than both SDKs know',
    headers: { 'mcp-protocol-version': '2099-01-01', 'mcp-method': 'tools/list' },
    body: rpc('tools/list', { _meta: { ...ENVELOPE, 'io.modelcontextprotocol/protocolVersion': '2099-01-01' } }),
  },
];

function nodeRequest(headers: Record<string, string>): IncomingMessage {
  return {
    method: 'POST',
    url: '/mcp',
    headers: { host: '127.0.0.1', ...JSON_HEADERS, ...headers },
  } as unknown as IncomingMessage;
}

function webRequest(headers: Record<string, string>, body: unknown): Request {
  return new Request('http://127.0.0.1/mcp', {
    method: 'POST',
    headers: { ...JSON_HEADERS, ...headers },
    body: JSON.stringify(body),
  });
}

describe("claimsModern agrees with the SDK v2's isLegacyRequest on what clients send", () => {
  test.each(SHAPES)('$what', async ({ headers, body }) => {
    const sdkLegacy = await isLegacyRequest(webRequest(headers, body), body);
    expect(ModernEndpoint.claimsModern(nodeRequest(headers), body)).toBe(!sdkLegacy);
  });

  test('the shapes cover both answers (the check above can fail either way)', async () => {
    const answers = await Promise.all(SHAPES.map((s) => isLegacyRequest(webRequest(s.headers, s.body), s.body)));
    expect(answers.filter((a) => a).length).toBeGreaterThanOrEqual(5);
    expect(answers.filter((a) => !a).length).toBeGreaterThanOrEqual(4);
  });
});
