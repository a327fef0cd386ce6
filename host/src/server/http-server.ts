// One node:http server on one port: MCP Streamable HTTP at /mcp (a session per client) and the
// plain API beside it. Safety checks run before any route (http-guard.ts).
import { createServer, type Server as NodeHttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { formatAddress, isLoopback, type BindAddress } from './address.js';
import { capConnectionsPerAddress, MAX_CONNECTIONS_PER_ADDRESS } from './connection-cap.js';
import type { SidecarCore } from './core.js';
import { allowedHostsFor, ConcurrencyLimit, type GuardConfig } from './http-guard.js';
import type { HttpMount } from './http-mount.js';
import { handleRequest, type HttpRoutes } from './http-routes.js';
import { registerOwnListener } from '../own-sockets/index.js';
import { newApprovalSecret } from './approval-secret.js';
import { CredentialLimit } from './credential-limit.js';
import {
  DEFAULT_MAX_BODY_BYTES,
  DEFAULT_MAX_CONCURRENT,
  DEFAULT_MAX_SESSIONS,
  DEFAULT_SESSION_IDLE_MS,
  defaultSessionsPerAddress,
  InsecureBindError,
} from './http-limits.js';
import { ModernEndpoint } from './modern-http.js';
import { SessionTable } from './session-table.js';

export interface HttpOptions {
  bind: BindAddress;
  token?: string;
  /** Extra names the Host header may carry (replaces the loopback defaults). */
  allowedHosts?: string[];
  allowedOrigins?: string[];
  maxBodyBytes?: number;
  /** Open requests per client (an MCP session opened from the same address, else the remote address) before 429. */
  maxConcurrentPerClient?: number;
  maxSessions?: number;
  /** MCP sessions one remote address may hold (default half of maxSessions, rounded up). */
  maxSessionsPerAddress?: number;
  /**
   * The window of the failed-credential limit (10 wrong credentials per address in it, then 429).
   * Default a minute; tests shorten it (internal, no flag).
   */
  credentialWindowMs?: number;
  /**
   * The approver credential when no token is set (a fresh random one when absent). With a token,
   * the token is the approver credential and this is ignored.
   */
  approvalSecret?: string;
  /** The file the approval secret was written to (named in the 401 of the approval routes). */
  approvalSecretFile?: string;
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

/** The origins this server itself has: a request from one is same-origin, not a foreign page. */
function ownOrigins(address: BindAddress): string[] {
  const names = isLoopback(address.host) ? ['localhost', '127.0.0.1', '[::1]'] : [];
  names.push(address.host.includes(':') ? `[${address.host}]` : address.host);
  return [...new Set(names)].map((n) => `http://${n.toLowerCase()}:${address.port}`);
}

export async function serveHttp(core: SidecarCore, options: HttpOptions): Promise<HttpSidecar> {
  const token = options.token === '' ? undefined : options.token;
  if (!isLoopback(options.bind.host) && token === undefined) throw new InsecureBindError(options.bind.host);
  const maxSessions = options.maxSessions ?? DEFAULT_MAX_SESSIONS;
  const sessions = new SessionTable<StreamableHTTPServerTransport>({
    max: maxSessions,
    maxPerOwner: options.maxSessionsPerAddress ?? defaultSessionsPerAddress(maxSessions),
    idleMs: options.sessionIdleMs ?? DEFAULT_SESSION_IDLE_MS,
    onExpired: (id, why) => core.logger.info({ sessionId: id, why }, 'MCP session closed'),
  });
  const routes: HttpRoutes = {
    core,
    sessions,
    modern: new ModernEndpoint(core),
    maxBody: options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES,
    limit: new ConcurrencyLimit(options.maxConcurrentPerClient ?? DEFAULT_MAX_CONCURRENT),
    credentials: new CredentialLimit(
      options.credentialWindowMs !== undefined ? { windowMs: options.credentialWindowMs } : {},
    ),
    guard: guardFor(options, token),
    mounts: options.mounts ?? [],
  };
  const http: NodeHttpServer = createServer((req, res) => void handleRequest(routes, req, res));
  capConnectionsPerAddress(http, MAX_CONNECTIONS_PER_ADDRESS, (address) =>
    core.logger.debug({ address }, 'connection refused: too many open from this address'),
  );
  const unregister = await listen(http, options.bind);
  http.on('error', (err) => core.logger.error({ err }, 'http server error'));
  const info = http.address() as AddressInfo;
  const address = { host: options.bind.host, port: info.port };
  routes.guard.port = info.port;
  routes.guard.ownOrigins = ownOrigins(address);
  // From now on a person can answer the queue here (/v1/approvals, /ui), so asks routed to it wait.
  const closeQueue = core.approvalQueue?.openForAnswers?.() ?? (() => {});

  let accepting = true;
  const stopAccepting = () => {
    if (!accepting) return;
    accepting = false;
    closeQueue();
    // Mounts end their open streams (an event stream never goes idle, so close would wait on it).
    for (const m of routes.mounts) m.close?.();
    http.close(() => unregister());
    http.closeIdleConnections();
  };
  return {
    address,
    url: `http://${formatAddress(address)}`,
    approvalSecret: token === undefined ? routes.guard.approver : undefined,
    stopAccepting,
    async close() {
      stopAccepting();
      await sessions.closeAll();
      await routes.modern.close();
      http.closeAllConnections();
    },
  };
}

/** The safety checks' settings; the port and the server's own origins are filled in once bound. */
function guardFor(options: HttpOptions, token: string | undefined): GuardConfig {
  return {
    allowedHosts: allowedHostsFor(options.bind.host, options.allowedHosts ?? []),
    port: options.bind.port,
    allowedOrigins: (options.allowedOrigins ?? []).map((o) => o.toLowerCase().replace(/\/$/, '')),
    token,
    approver:
      token ??
      (options.approvalSecret !== undefined && options.approvalSecret !== ''
        ? options.approvalSecret
        : newApprovalSecret()),
    ...(token === undefined && options.approvalSecretFile !== undefined
      ? { approverFile: options.approvalSecretFile }
      : {}),
    ownOrigins: [],
  };
}

/** Binds `http` to `bind`; returns what removes the socket from the own-listener registry. */
function listen(http: NodeHttpServer, bind: BindAddress): Promise<() => void> {
  return new Promise((resolve, reject) => {
    http.once('error', reject);
    http.listen(bind.port, bind.host, () => {
      // From this tick on no tool of this process may connect to this socket (the sandbox's HTTP
      // gate asks the registry on every hop); it is removed once the socket is closed.
      const bound = http.address() as AddressInfo;
      const unregister = registerOwnListener(bound.address, bound.port);
      http.off('error', reject);
      resolve(unregister);
    });
  });
}
