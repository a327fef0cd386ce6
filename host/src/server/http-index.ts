// `GET /`: a small index of what this server answers, so a person (or a script) who opens the
// bare address learns where MCP, the API and the approvals page are instead of getting a 404.
// Text unless the client asks for JSON; it lists only what is mounted (/ui comes from the CLI).
import type { IncomingMessage, ServerResponse } from 'node:http';
import { sendJson } from './http-api.js';
import type { HttpMount } from './http-mount.js';

interface Endpoint {
  method: string;
  path: string;
  what: string;
}

const BEFORE_MOUNTS: readonly Endpoint[] = [
  { method: 'POST', path: '/mcp', what: 'MCP over Streamable HTTP (point an MCP client here)' },
];

const AFTER_MOUNTS: readonly Endpoint[] = [
  { method: 'GET', path: '/v1/tools', what: 'the tool list (?format=mcp|openai|openai-responses|anthropic)' },
  { method: 'POST', path: '/v1/tools/{name}/call', what: 'call a tool with {"arguments": {...}}' },
  { method: 'GET', path: '/v1/approvals', what: 'pending approvals (Authorization: Bearer <approver credential>)' },
  { method: 'GET', path: '/healthz', what: 'health' },
  { method: 'GET', path: '/metrics', what: 'Prometheus metrics' },
];

function wantsJson(req: IncomingMessage): boolean {
  return /\bapplication\/(?:[\w.+-]+\+)?json\b/i.test(req.headers.accept ?? '');
}

/** The base URL as the client reached us (the Host header has passed the Host check by now). */
function baseOf(req: IncomingMessage): string {
  const host = req.headers.host;
  return host === undefined || host === '' ? '' : `http://${host}`;
}

export function sendIndex(
  req: IncomingMessage,
  res: ServerResponse,
  mounts: readonly HttpMount[],
  version: string,
): void {
  const base = baseOf(req);
  const endpoints = [
    ...BEFORE_MOUNTS,
    ...mounts.map((m) => ({ method: 'GET', path: m.prefix, what: m.summary ?? 'a page' })),
    ...AFTER_MOUNTS,
  ].map((e) => ({ ...e, url: `${base}${e.path}` }));
  if (wantsJson(req)) return sendJson(res, 200, { name: 'toolgate', version, endpoints });
  const width = Math.max(...endpoints.map((e) => `${e.method} ${e.url}`.length));
  const text = [
    `toolgate ${version}`,
    '',
    ...endpoints.map((e) => `${`${e.method} ${e.url}`.padEnd(width)}  ${e.what}`),
    '',
  ].join('\n');
  res.writeHead(200, { 'content-type': 'text/plain; charset=utf-8', 'content-length': Buffer.byteLength(text) });
  res.end(req.method === 'HEAD' ? undefined : text);
}
