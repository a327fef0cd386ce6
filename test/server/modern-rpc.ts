// A 2026-07-28 request as a client sends it: no session, the revision in the MCP-Protocol-Version
// header and in the request's _meta envelope, the routing headers, and an answer read from JSON or
// from an SSE stream (the frame with the request's id; notifications before it are kept).
import { request } from 'node:http';

export const REVISION = '2026-07-28';

export interface ModernReply {
  status: number;
  /** The JSON-RPC response (result or error). */
  message: {
    id?: unknown;
    result?: Record<string, unknown>;
    error?: { code: number; message: string; data?: unknown };
  };
  /** Notifications that came on the stream before the response. */
  notifications: { method: string; params?: Record<string, unknown> }[];
  headers: Record<string, string | string[] | undefined>;
}

export interface ModernOptions {
  capabilities?: Record<string, unknown>;
  headers?: Record<string, string>;
  /** Extra _meta members (progressToken, logLevel...). */
  meta?: Record<string, unknown>;
  id?: number;
}

let nextId = 1;

export function envelope(
  capabilities: Record<string, unknown> = {},
  extra: Record<string, unknown> = {},
): Record<string, unknown> {
  return {
    'io.modelcontextprotocol/protocolVersion': REVISION,
    'io.modelcontextprotocol/clientInfo': { name: 'toolgate-test', version: '1.0.0' },
    'io.modelcontextprotocol/clientCapabilities': capabilities,
    ...extra,
  };
}

function routingName(method: string, params: Record<string, unknown>): string | undefined {
  if (method === 'tools/call' || method === 'prompts/get')
    return typeof params['name'] === 'string' ? params['name'] : undefined;
  if (method === 'resources/read') return typeof params['uri'] === 'string' ? params['uri'] : undefined;
  return undefined;
}

/** POSTs one 2026-07-28 request to `${url}/mcp`. */
export function modernRpc(
  url: string,
  method: string,
  params: Record<string, unknown> = {},
  o: ModernOptions = {},
): Promise<ModernReply> {
  const id = o.id ?? nextId++;
  const body = JSON.stringify({
    jsonrpc: '2.0',
    id,
    method,
    params: { ...params, _meta: envelope(o.capabilities ?? {}, o.meta ?? {}) },
  });
  const name = routingName(method, params);
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    'mcp-protocol-version': REVISION,
    'mcp-method': method,
    ...(name !== undefined ? { 'mcp-name': name } : {}),
    ...(o.headers ?? {}),
  };
  const u = new URL(`${url}/mcp`);
  return new Promise((resolve, reject) => {
    const req = request({ host: u.hostname, port: u.port, method: 'POST', path: u.pathname, headers }, (res) => {
      let text = '';
      res.on('data', (d: Buffer) => (text += d.toString()));
      res.on('end', () => {
        try {
          resolve({ status: res.statusCode ?? 0, headers: res.headers, ...parse(text, id) });
        } catch (err) {
          reject(new Error(`${String(err)}: ${text.slice(0, 500)}`));
        }
      });
    });
    req.on('error', reject);
    req.setTimeout(30_000, () => req.destroy(new Error('request timed out')));
    req.end(body);
  });
}

function parse(text: string, id: number): Pick<ModernReply, 'message' | 'notifications'> {
  const trimmed = text.trim();
  if (trimmed.startsWith('{')) return { message: JSON.parse(trimmed) as ModernReply['message'], notifications: [] };
  const frames = trimmed
    .split('\n')
    .filter((l) => l.startsWith('data:'))
    .map((l) => JSON.parse(l.slice(5)) as Record<string, unknown>);
  const message = frames.find((f) => f['id'] === id) as ModernReply['message'] | undefined;
  if (message === undefined) throw new Error('no response frame');
  const notifications = frames.filter(
    (f) => typeof f['method'] === 'string' && f['id'] === undefined,
  ) as ModernReply['notifications'];
  return { message, notifications };
}
