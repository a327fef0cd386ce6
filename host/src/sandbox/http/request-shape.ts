// What a module may put in a request. Everything here came out of untrusted WebAssembly memory,
// so it is validated and bounded before undici sees it.
import { z } from 'zod';
import type { HttpRequestSpec } from './types.js';

export const LIMITS = {
  maxUrlLength: 8192,
  maxHeaderCount: 100,
  /** Sum of name + value lengths of the module's request headers. */
  maxHeaderBytes: 32 * 1024,
  /** Response header block; larger is refused by the HTTP parser. */
  maxResponseHeaderBytes: 16 * 1024,
  defaultMaxRequestBytes: 1024 * 1024,
  defaultMaxRedirects: 5,
} as const;

const METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);

/**
 * Headers the host owns: framing, connection management and routing. Taking them from a module
 * would let it smuggle requests, pick another virtual host than the one checked, or hold
 * connections; they are dropped, and undici writes its own.
 */
const HOST_OWNED_HEADERS = new Set([
  'host',
  'content-length',
  'transfer-encoding',
  'connection',
  'keep-alive',
  'proxy-connection',
  'proxy-authorization',
  'upgrade',
  'te',
  'trailer',
  'expect',
  'http2-settings',
]);

const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
const BAD_VALUE = /[\r\n\0]/;

// Built on the first request, not when the sandbox's code loads (docs/decisions.md, "First call of a
// fresh server, warm home").
const buildSpecSchema = () =>
  z.object({
    method: z.string().max(32),
    url: z.string().max(LIMITS.maxUrlLength),
    headers: z.record(z.string(), z.string()),
    body: z.instanceof(Uint8Array).optional(),
  });
let specSchema: ReturnType<typeof buildSpecSchema> | undefined;

export interface CleanRequest {
  method: string;
  url: string;
  headers: Record<string, string>;
  body: Uint8Array | undefined;
}

/** The request as the gate will send it, or the rule it breaks. */
export function cleanRequest(input: unknown, maxRequestBytes: number): CleanRequest | string {
  const parsed = (specSchema ??= buildSpecSchema()).safeParse(input);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue === undefined || issue.path.length === 0 ? 'request' : issue.path.join('.');
    return `invalid request: ${where}: ${issue?.message ?? 'malformed'}`;
  }
  const spec: HttpRequestSpec = parsed.data;
  const method = spec.method.toUpperCase();
  if (!METHODS.has(method)) return `method ${JSON.stringify(spec.method)} is not allowed`;
  const entries = Object.entries(spec.headers);
  if (entries.length > LIMITS.maxHeaderCount) return `more than ${LIMITS.maxHeaderCount} request headers`;
  let headerBytes = 0;
  // No prototype: a header named __proto__ must stay a header.
  const headers: Record<string, string> = Object.create(null) as Record<string, string>;
  for (const [name, value] of entries) {
    if (!TOKEN.test(name)) return `request header name ${JSON.stringify(name.slice(0, 64))} is not valid`;
    if (BAD_VALUE.test(value)) return `request header ${name} has a line break or NUL in its value`;
    headerBytes += name.length + value.length;
    if (headerBytes > LIMITS.maxHeaderBytes) return `request headers larger than ${LIMITS.maxHeaderBytes} bytes`;
    const lower = name.toLowerCase();
    if (HOST_OWNED_HEADERS.has(lower)) continue;
    headers[lower] = value;
  }
  const body = spec.body !== undefined && spec.body.byteLength > 0 ? spec.body : undefined;
  if (body !== undefined && body.byteLength > maxRequestBytes) {
    return `request body larger than ${maxRequestBytes} bytes`;
  }
  if (body !== undefined && (method === 'GET' || method === 'HEAD')) return `a ${method} request cannot have a body`;
  return { method, url: spec.url, headers, body };
}
