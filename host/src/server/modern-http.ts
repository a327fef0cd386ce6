// 2026-07-28 requests at /mcp: no session, every request carries its own envelope. The SDK v2's
// handler serves each one with a fresh server (modern-server.ts); 2025-era requests never reach it
// (http-mcp.ts routes them to their sessions first, with the SDK's own classification).
import { createHash } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { Readable } from 'node:stream';
import { SUPPORTED_PROTOCOL_VERSIONS as V1_VERSIONS } from '@modelcontextprotocol/sdk/types.js';
import { createMcpHandler, PROTOCOL_VERSION_META_KEY, type McpHttpHandler } from '@modelcontextprotocol/server';
import { clientKey } from './address.js';
import type { SidecarCore } from './core.js';
import { createModernServer, type ModernPrincipal } from './modern-server.js';

/** The revisions the 2025-era sessions (SDK v1) speak. */
const LEGACY_VERSIONS = new Set<string>(V1_VERSIONS);

/**
 * The bearer token's digest names the principal: states and tasks made with it are its own. With no
 * token every client is `anonymous`; its tasks are bound to its network address (an IPv6 one by its
 * /64, as the per-address budgets count), the one thing a 2026-07-28 request (no session, any
 * connection) tells of its client, so a client elsewhere cannot read or cancel them by id
 * (docs/decisions.md, "Tasks of a client with no token").
 */
export function principalOf(req: IncomingMessage): ModernPrincipal {
  const auth = req.headers.authorization;
  const m = typeof auth === 'string' ? /^Bearer\s+(.+)$/i.exec(auth) : null;
  if (m === null) return { id: 'anonymous', taskOwner: `anonymous@${clientKey(req.socket.remoteAddress)}` };
  return {
    id: `bearer:${createHash('sha256')
      .update(m[1] ?? '')
      .digest('hex')
      .slice(0, 32)}`,
  };
}

/** The Node request as the web Request the SDK's handler takes; the body is already parsed. */
function webRequest(req: IncomingMessage, signal: AbortSignal): Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (value === undefined) continue;
    if (Array.isArray(value)) for (const v of value) headers.append(name, v);
    else headers.set(name, value);
  }
  const host = typeof req.headers.host === 'string' ? req.headers.host : '127.0.0.1';
  return new Request(`http://${host}${req.url ?? '/mcp'}`, { method: req.method ?? 'POST', headers, signal });
}

/** The principal handle() passed through the SDK's handler as its auth info. */
function principalFromAuth(auth: { clientId: string; extra?: Record<string, unknown> } | undefined): ModernPrincipal {
  const taskOwner = auth?.extra?.['taskOwner'];
  return {
    id: auth?.clientId ?? 'anonymous',
    ...(typeof taskOwner === 'string' ? { taskOwner } : {}),
  };
}

export class ModernEndpoint {
  readonly #handler: McpHttpHandler;
  readonly #unsubscribe: () => void;

  constructor(core: SidecarCore) {
    this.#handler = createMcpHandler(
      (ctx) => createModernServer({ core, principal: principalFromAuth(ctx.authInfo) }),
      { legacy: 'reject', onerror: (err) => core.logger.debug({ err }, 'mcp 2026-07-28 request refused') },
    );
    this.#unsubscribe = core.onToolsChanged(() => this.#handler.notify.toolsChanged());
  }

  /**
   * Whether a POST without a session claims a revision newer than the v1 SDK's: the header names
   * one it does not know, or the body carries the 2026-07-28 envelope. Such a request is the SDK
   * v2's to judge (it answers a bad claim with the revision error); one with no claim is 2025-era,
   * as the SDK classifies it too.
   */
  static claimsModern(req: IncomingMessage, parsedBody: unknown): boolean {
    const header = req.headers['mcp-protocol-version'];
    if (typeof header === 'string' && header.trim() !== '' && !LEGACY_VERSIONS.has(header.trim())) return true;
    if (typeof parsedBody !== 'object' || parsedBody === null || Array.isArray(parsedBody)) return false;
    const params = (parsedBody as { params?: unknown }).params;
    const meta = typeof params === 'object' && params !== null ? (params as { _meta?: unknown })._meta : undefined;
    return typeof meta === 'object' && meta !== null && PROTOCOL_VERSION_META_KEY in meta;
  }

  async handle(req: IncomingMessage, res: ServerResponse, parsedBody: unknown): Promise<void> {
    const gone = new AbortController();
    const onClose = () => {
      if (!res.writableFinished) gone.abort();
    };
    res.once('close', onClose);
    const principal = principalOf(req);
    const response = await this.#handler.fetch(webRequest(req, gone.signal), {
      parsedBody,
      authInfo: {
        token: '',
        clientId: principal.id,
        scopes: [],
        ...(principal.taskOwner !== undefined ? { extra: { taskOwner: principal.taskOwner } } : {}),
      },
    });
    res.statusCode = response.status;
    response.headers.forEach((value, name) => res.setHeader(name, value));
    if (response.body === null) {
      res.end();
      return;
    }
    // A JSON answer is whole already; only an event stream needs piping as it comes.
    if (response.headers.get('content-type')?.startsWith('application/json') === true) {
      res.end(Buffer.from(await response.arrayBuffer()));
      return;
    }
    const body = Readable.fromWeb(response.body as import('node:stream/web').ReadableStream<Uint8Array>);
    body.on('error', () => res.destroy());
    body.pipe(res);
  }

  close(): Promise<void> {
    this.#unsubscribe();
    return this.#handler.close();
  }
}
