// One node:http server on one port: MCP Streamable HTTP at /mcp (a session per client) and the
// plain API beside it. Safety checks run before any route (http-guard.ts).
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server as NodeHttpServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import { formatAddress, isLoopback, type BindAddress } from './address.js';
import type { SidecarCore } from './core.js';
import { handleApi, sendError, sendJson } from './http-api.js';
import { allowedHostsFor, BodyTooLargeError, checkApprover, checkHost, checkOrigin, checkToken, ConcurrencyLimit, readBody, type GuardConfig } from './http-guard.js';
import { createMcpServer } from './mcp-server.js';
import { answererOf, mountFor, type HttpMount } from './http-mount.js';
import { registerOwnListener } from '../own-sockets/index.js';
import { newApprovalSecret } from './approval-secret.js';
import { DEFAULT_MAX_BODY_BYTES, DEFAULT_MAX_CONCURRENT, DEFAULT_MAX_SESSIONS, DEFAULT_SESSION_IDLE_MS, InsecureBindError } from './http-limits.js';
import { RPC_MESSAGES, withCleanErrors } from './rpc-error.js';
import { SessionTable } from './session-table.js';

export interface HttpOptions {
  bind: BindAddress;
  token?: string;
  /** Extra names the Host header may carry (replaces the loopback defaults). */
  allowedHosts?: string[];
  allowedOrigins?: string[];
  maxBodyBytes?: number;
  /** Open requests per client (MCP session, else remote address) before 429. */
  maxConcurrentPerClient?: number;
  maxSessions?: number;
  /**
   * The approver credential when no token is set (a fresh random one when absent). With a token,
   * the token is the approver credential and this is ignored.
   */
  approvalSecret?: string;
  /** A session with no request for this long is closed. Default 5 minutes. */
  sessionIdleMs?: number;
  /** More routes under their own prefixes, each authenticating itself (the /ui page). */
  mounts?: readonly HttpMount[];
}

export interface HttpSidecar {
  /** The bound address (the real port when 0 was asked for). */
  readonly address: BindAddress;
  readonly url: string;
  /** The secret the approval endpoints need when no token is set; undefined when the token is. */
  readonly approvalSecret: string | undefined;
  /** Stops accepting connections; requests in progress go on. */
  stopAccepting(): void;
  /** Closes every MCP session and connection. */
  close(): Promise<void>;
}

function rpcError(res: ServerResponse, status: number, code: number, message: string): void {
  sendJson(res, status, { jsonrpc: '2.0', error: { code, message }, id: null });
}

/** The origins this server itself has: a request from one is same-origin, not a foreign page. */
function ownOrigins(address: BindAddress): string[] {
  const names = isLoopback(address.host) ? ['localhost', '127.0.0.1', '[::1]'] : [];
  names.push(address.host.includes(':') ? `[${address.host}]` : address.host);
  return [...new Set(names)].map((n) => `http://${n.toLowerCase()}:${address.port}`);
}

export async function serveHttp(core: SidecarCore, options: HttpOptions): Promise<HttpSidecar> {
  const token = options.token === '' ? undefined : options.token;
  if (!isLoopback(options.bind.host) && token === undefined) throw new InsecureBindError(options.bind.host);
  const maxBody = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  const limit = new ConcurrencyLimit(options.maxConcurrentPerClient ?? DEFAULT_MAX_CONCURRENT);
  const sessions = new SessionTable<StreamableHTTPServerTransport>({
    max: options.maxSessions ?? DEFAULT_MAX_SESSIONS,
    idleMs: options.sessionIdleMs ?? DEFAULT_SESSION_IDLE_MS,
    onExpired: (id, why) => core.logger.info({ sessionId: id, why }, 'MCP session closed'),
  });
  const guard: GuardConfig = {
    allowedHosts: allowedHostsFor(options.bind.host, options.allowedHosts ?? []),
    port: options.bind.port,
    allowedOrigins: (options.allowedOrigins ?? []).map((o) => o.toLowerCase().replace(/\/$/, '')),
    token,
    approver: token ?? (options.approvalSecret !== undefined && options.approvalSecret !== '' ? options.approvalSecret : newApprovalSecret()),
    ownOrigins: [],
  };

  async function newSession(): Promise<StreamableHTTPServerTransport> {
    const server = createMcpServer(core);
    let detach: () => void = () => {};
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (id) => {
        sessions.add(id, transport, () => server.close());
        detach = core.attach(server);
      },
    });
    withCleanErrors(transport);
    transport.onclose = () => {
      if (transport.sessionId !== undefined) sessions.remove(transport.sessionId);
      detach();
    };
    transport.onerror = (err) => core.logger.debug({ err }, 'mcp http transport error');
    await server.connect(transport);
    return transport;
  }

  async function handleMcp(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const header = req.headers['mcp-session-id'];
    const sessionId = typeof header === 'string' ? header : undefined;
    let parsed: unknown;
    if (req.method === 'POST') {
      const raw = await readBody(req, maxBody);
      try {
        parsed = JSON.parse(raw.toString('utf8')) as unknown;
      } catch {
        return rpcError(res, 400, -32700, `${RPC_MESSAGES[-32700]}: the body is not valid JSON`);
      }
    }
    if (sessionId !== undefined) {
      const transport = sessions.use(sessionId, res);
      if (transport === undefined) return rpcError(res, 404, -32001, `${RPC_MESSAGES[-32001]}: no session "${sessionId}" (it ended or expired; initialize again)`);
      return transport.handleRequest(req, res, parsed);
    }
    if (req.method === 'POST' && isInitializeRequest(parsed)) {
      // At the cap the least recently used idle session makes room; only busy ones refuse a client.
      if (!(await sessions.makeRoom())) return rpcError(res, 503, -32000, `${RPC_MESSAGES[-32000]}: too many MCP sessions (${sessions.max}), all busy`);
      const transport = await newSession();
      return transport.handleRequest(req, res, parsed);
    }
    // A GET (SSE stream) needs a session; 405 tells a client this server has no sessionless stream.
    if (req.method === 'GET') return rpcError(res, 405, -32000, `${RPC_MESSAGES[-32000]}: GET /mcp needs an mcp-session-id header (send initialize first)`);
    return rpcError(res, 400, -32000, `${RPC_MESSAGES[-32000]}: no valid mcp-session-id header (send initialize first)`);
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const refused = checkHost(req, guard) ?? checkOrigin(req, guard);
    if (refused !== undefined) return sendError(res, refused.status, refused.message);
    const url = new URL(req.url ?? '/', 'http://toolgate.invalid');
    const mount = mountFor(mounts, url.pathname);
    if (mount !== undefined) return serveMount(mount, req, res, url);
    if (url.pathname !== '/healthz') {
      const denied = checkToken(req, guard) ?? checkApprover(req, url, guard);
      if (denied !== undefined) return sendError(res, denied.status, denied.message, { 'www-authenticate': 'Bearer' });
    }
    // A health probe must get through when the client is at its cap: that is when it matters.
    if (url.pathname === '/healthz') return void (await handleApi(core, req, res, url, () => readBody(req, maxBody), () => sessions.health()));
    const sid = req.headers['mcp-session-id'];
    const key = typeof sid === 'string' ? `session:${sid}` : `addr:${req.socket.remoteAddress ?? '?'}`;
    const leave = limit.enter(key);
    if (leave === undefined) return sendError(res, 429, `too many concurrent requests from this client (max ${limit.max})`, { 'retry-after': '1' });
    res.once('close', leave);
    try {
      if (url.pathname === '/mcp') return await handleMcp(req, res);
      const matched = await handleApi(core, req, res, url, () => readBody(req, maxBody), () => sessions.health(), (r) => answererOf('api', guard, r));
      if (!matched) sendError(res, 404, `no route for ${req.method ?? 'GET'} ${url.pathname}`);
    } catch (err) {
      if (err instanceof BodyTooLargeError) return sendError(res, 413, err.message, { connection: 'close' });
      core.logger.error({ err }, 'http request failed');
      sendError(res, 500, 'internal error');
    }
  }

  const mounts = options.mounts ?? [];
  async function serveMount(mount: HttpMount, req: IncomingMessage, res: ServerResponse, url: URL): Promise<void> {
    // Its own key: a page's event streams must not use up the API's slots for the same address.
    const leave = limit.enter(`mount:${mount.prefix}:${req.socket.remoteAddress ?? '?'}`);
    if (leave === undefined) return sendError(res, 429, `too many concurrent requests from this client (max ${limit.max})`, { 'retry-after': '1' });
    res.once('close', leave);
    try {
      await mount.handle({ req, res, url, body: () => readBody(req, maxBody), guard });
    } catch (err) {
      if (err instanceof BodyTooLargeError) return sendError(res, 413, err.message, { connection: 'close' });
      core.logger.error({ err }, 'http request failed');
      sendError(res, 500, 'internal error');
    }
  }

  const http: NodeHttpServer = createServer((req, res) => void handle(req, res));
  let unregister: () => void = () => {};
  await new Promise<void>((resolve, reject) => {
    http.once('error', reject);
    http.listen(options.bind.port, options.bind.host, () => {
      // From this tick on no tool of this process may connect to this socket (the sandbox's HTTP
      // gate asks the registry on every hop); it is removed once the socket is closed.
      const bound = http.address() as AddressInfo;
      unregister = registerOwnListener(bound.address, bound.port);
      http.off('error', reject);
      resolve();
    });
  });
  http.on('error', (err) => core.logger.error({ err }, 'http server error'));
  const info = http.address() as AddressInfo;
  const address = { host: options.bind.host, port: info.port };
  guard.port = info.port;
  guard.ownOrigins = ownOrigins(address);
  // From now on a person can answer the queue here (/v1/approvals, /ui), so asks routed to it wait.
  const closeQueue = core.approvalQueue?.openForAnswers?.() ?? (() => {});

  let accepting = true;
  const stopAccepting = () => {
    if (!accepting) return;
    accepting = false;
    closeQueue();
    // Mounts end their open streams (an event stream never goes idle, so close would wait on it).
    for (const m of mounts) m.close?.();
    http.close(() => unregister());
    http.closeIdleConnections();
  };
  return {
    address,
    url: `http://${formatAddress(address)}`,
    approvalSecret: token === undefined ? guard.approver : undefined,
    stopAccepting,
    async close() {
      stopAccepting();
      await sessions.closeAll();
      http.closeAllConnections();
    },
  };
}
