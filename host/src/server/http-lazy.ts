// The HTTP transport pulls in node:http, the SDK's Streamable HTTP transport and its Hono adapter;
// a stdio server never needs them, so they load only when an HTTP server is started.
import type { SidecarCore } from './core.js';
import type { HttpOptions, HttpSidecar } from './http-server.js';

export async function serveHttp(core: SidecarCore, options: HttpOptions): Promise<HttpSidecar> {
  return (await import('./http-server.js')).serveHttp(core, options);
}

/** Kept here (not in http-server.ts) so `--help` and flag parsing do not load the transport. */
export const DEFAULT_MAX_BODY_BYTES = 4 * 1024 * 1024;
export const DEFAULT_MAX_CONCURRENT = 64;
export const DEFAULT_MAX_SESSIONS = 256;
/** Five minutes: longer than any pause between a client's calls, short enough that leaks heal. */
export const DEFAULT_SESSION_IDLE_MS = 5 * 60_000;

export class InsecureBindError extends Error {
  constructor(host: string) {
    super(`refusing to listen on ${host} without a bearer token: set --token or TOOLGATE_TOKEN (anything off loopback can reach this address)`);
    this.name = 'InsecureBindError';
  }
}
