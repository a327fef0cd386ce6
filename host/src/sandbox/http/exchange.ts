// One HTTP exchange on an undici connection whose socket can only reach the addresses the gate
// checked for this hop. A redirect is handed back to the gate instead of being followed.
import type { Dispatcher } from 'undici';
import type { PinnedPools } from './pinned-pools.js';
import { readCapped, ResponseTooLarge } from './read-capped.js';
import { isRedirect } from './redirect.js';
import type { CheckedTarget } from './target.js';
import type { HttpOutcome } from './types.js';

export interface ExchangeSettings {
  maxResponseBytes: number;
}

export type Exchange = HttpOutcome | { redirect: string; status: number };

/** One request/response on a connection pinned to the target's checked addresses. */
export async function exchange(
  s: ExchangeSettings,
  pools: PinnedPools,
  target: CheckedTarget,
  method: string,
  headers: Record<string, string>,
  body: Uint8Array | undefined,
  signal: AbortSignal,
): Promise<Exchange> {
  const pool = await pools.for(target);
  const response = await pool.request({
    path: `${target.url.pathname}${target.url.search}`,
    method: method as Dispatcher.HttpMethod,
    headers,
    body: body === undefined ? null : Buffer.from(body.buffer, body.byteOffset, body.byteLength),
    signal,
  });
  // Destroying an undici body emits 'error'; with no listener that would crash the process.
  response.body.on('error', () => undefined);
  const location = response.headers['location'];
  if (isRedirect(response.statusCode) && typeof location === 'string' && location !== '') {
    response.body.destroy();
    return { redirect: location, status: response.statusCode };
  }
  const declared = Number(response.headers['content-length']);
  // A HEAD response declares the length of a body it never sends.
  if (method !== 'HEAD' && Number.isFinite(declared) && declared > s.maxResponseBytes) {
    response.body.destroy(); // refuse on the declaration alone: nothing is read
    throw new ResponseTooLarge(s.maxResponseBytes);
  }
  const bytes = await readCapped(response.body, s.maxResponseBytes);
  return { ok: true, status: response.statusCode, headers: flatHeaders(response.headers), body: bytes };
}

function flatHeaders(raw: Record<string, string | string[] | undefined>): Record<string, string> {
  const out: Record<string, string> = Object.create(null) as Record<string, string>;
  for (const [name, value] of Object.entries(raw)) {
    if (value === undefined) continue;
    out[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  return out;
}
