// The HTTP transport pulls in node:http, the SDK's Streamable HTTP transport and its Hono adapter;
// a stdio server never needs them, so they load only when an HTTP server is started.
import type { SidecarCore } from './core.js';
import type { HttpOptions, HttpSidecar } from './http-server.js';

export async function serveHttp(core: SidecarCore, options: HttpOptions): Promise<HttpSidecar> {
  return (await import('./http-server.js')).serveHttp(core, options);
}

export {
  DEFAULT_MAX_BODY_BYTES,
  DEFAULT_MAX_CONCURRENT,
  DEFAULT_MAX_SESSIONS,
  DEFAULT_SESSION_IDLE_MS,
  defaultSessionsPerAddress,
  InsecureBindError,
} from './http-limits.js';
