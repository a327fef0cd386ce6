// Routes one HTTP request: the safety checks first (http-guard.ts), then a mount (/ui), the health
// probe, /mcp, the index at / or the plain API, each within the client's share of concurrent requests.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { handleApi, sendError } from './http-api.js';
import type { CredentialLimit } from './credential-limit.js';
import {
  BodyTooLargeError,
  checkApprover,
  checkHost,
  checkOrigin,
  checkToken,
  clientAddress,
  isApprovalPath,
  presentsCredential,
  readBody,
  type ConcurrencyLimit,
  type GuardConfig,
} from './http-guard.js';
import { sendIndex } from './http-index.js';
import { handleMcp, type McpEndpoint } from './http-mcp.js';
import { answererOf, mountFor, type HttpMount } from './http-mount.js';

/** What routing needs of the server. */
export interface HttpRoutes extends McpEndpoint {
  guard: GuardConfig;
  limit: ConcurrencyLimit;
  credentials: CredentialLimit;
  mounts: readonly HttpMount[];
}

export async function handleRequest(routes: HttpRoutes, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const { core, guard, sessions } = routes;
  const refused = checkHost(req, guard) ?? checkOrigin(req, guard);
  if (refused !== undefined) return sendError(res, refused.status, refused.message);
  const url = new URL(req.url ?? '/', 'http://toolgate.invalid');
  const body = () => readBody(req, routes.maxBody);
  const mount = mountFor(routes.mounts, url.pathname);
  const address = clientAddress(req);
  // Its own key: a page's event streams must not use up the API's slots for the same address.
  if (mount !== undefined) {
    return withinLimit(routes, `mount:${mount.prefix}:${address}`, res, () =>
      mount.handle({ req, res, url, body, guard, credentials: routes.credentials }),
    );
  }
  if (url.pathname !== '/healthz' && (guard.token !== undefined || isApprovalPath(url.pathname))) {
    // An address that sent too many wrong credentials waits; its credential is not even checked.
    const wait = routes.credentials.wait(req);
    if (wait !== undefined) return sendError(res, 429, wait.message, { 'retry-after': String(wait.retryAfter) });
    const denied = checkToken(req, guard) ?? checkApprover(req, url, guard);
    if (denied !== undefined) {
      if (presentsCredential(req)) routes.credentials.wrong(req);
      return sendError(res, denied.status, denied.message, { 'www-authenticate': 'Bearer' });
    }
  }
  // A health probe must get through when the client is at its cap: that is when it matters.
  if (url.pathname === '/healthz') {
    // Another method matches no route: it must still be answered, or the unauthenticated request
    // (outside the per-client cap) would hold its connection open for as long as the client likes.
    if (!(await handleApi(core, req, res, url, body, () => sessions.health())))
      sendError(res, 405, `${req.method ?? 'GET'} /healthz: only GET is served here`, { allow: 'GET' });
    return;
  }
  // A session's own budget only for the address that opened it: a made-up or borrowed
  // mcp-session-id header counts against the sender's address like no header at all.
  const sid = req.headers['mcp-session-id'];
  const key = typeof sid === 'string' && sessions.ownerOf(sid) === address ? `session:${sid}` : `addr:${address}`;
  return withinLimit(routes, key, res, async () => {
    if (url.pathname === '/mcp') return await handleMcp(routes, req, res);
    if (url.pathname === '/' && (req.method === 'GET' || req.method === 'HEAD'))
      return sendIndex(req, res, routes.mounts, core.version);
    const matched = await handleApi(
      core,
      req,
      res,
      url,
      body,
      () => sessions.health(),
      (r) => answererOf('api', guard, r),
    );
    if (!matched) sendError(res, 404, `no route for ${req.method ?? 'GET'} ${url.pathname}`);
  });
}

/**
 * Runs `serve` in one of the client's concurrent-request slots (429 when none is free, freed when
 * the response closes); a body over the cap is 413, anything else thrown a logged 500.
 */
async function withinLimit(
  routes: HttpRoutes,
  key: string,
  res: ServerResponse,
  serve: () => Promise<void>,
): Promise<void> {
  const leave = routes.limit.enter(key);
  if (leave === undefined)
    return sendError(res, 429, `too many concurrent requests from this client (max ${routes.limit.max})`, {
      'retry-after': '1',
    });
  res.once('close', leave);
  try {
    await serve();
  } catch (err) {
    if (err instanceof BodyTooLargeError) return sendError(res, 413, err.message, { connection: 'close' });
    routes.core.logger.error({ err }, 'http request failed');
    sendError(res, 500, 'internal error');
  }
}
