// MCP Streamable HTTP at /mcp: a session per client, created by its initialize request, found again
// by its mcp-session-id header, and refused with a JSON-RPC error a client can act on otherwise.
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import type { SidecarCore } from './core.js';
import { sendJson } from './http-api.js';
import { clientAddress, readBody } from './http-guard.js';
import { ClientGone } from '../approval/index.js';
import { createMcpServer } from './mcp-server.js';
import { ModernEndpoint } from './modern-http.js';
import { ClientLinks, onResponseGone, requestIds } from './response-gone.js';
import { RPC_MESSAGES, withCleanErrors } from './rpc-error.js';
import type { SessionTable } from './session-table.js';

/** What /mcp needs of the server. */
export interface McpEndpoint {
  core: SidecarCore;
  sessions: SessionTable<StreamableHTTPServerTransport>;
  maxBody: number;
  /** 2026-07-28 requests (no session; modern-http.ts). */
  modern: ModernEndpoint;
}

/** Each session's calls by request id (see response-gone.ts). */
const linksOf = new WeakMap<StreamableHTTPServerTransport, ClientLinks>();

function rpcError(res: ServerResponse, status: number, code: number, message: string): void {
  sendJson(res, status, { jsonrpc: '2.0', error: { code, message }, id: null });
}

/** One request to /mcp: to its session, to a new one (initialize), or refused. */
export async function handleMcp(mcp: McpEndpoint, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const header = req.headers['mcp-session-id'];
  const sessionId = typeof header === 'string' ? header : undefined;
  let parsed: unknown;
  if (req.method === 'POST') {
    const raw = await readBody(req, mcp.maxBody);
    try {
      parsed = JSON.parse(raw.toString('utf8')) as unknown;
    } catch {
      return rpcError(res, 400, -32700, `${RPC_MESSAGES[-32700]}: the body is not valid JSON`);
    }
  }
  const { sessions } = mcp;
  if (sessionId !== undefined) {
    // A GET is the session's event stream: it listens, and is no activity (session-table.ts).
    const transport = sessions.use(sessionId, res, req.method === 'GET' ? 'stream' : 'request');
    if (transport === undefined)
      return rpcError(
        res,
        404,
        -32001,
        `${RPC_MESSAGES[-32001]}: no session "${sessionId}" (it ended or expired; initialize again)`,
      );
    // The SDK forgets a POST whose stream the client closed but runs its calls on: we cancel them.
    const links = linksOf.get(transport);
    const ids = requestIds(parsed);
    if (links !== undefined && ids.length > 0)
      onResponseGone(res, () => links.requestsGone(ids, new ClientGone('its HTTP request closed before the answer')));
    return transport.handleRequest(req, res, parsed);
  }
  if (req.method === 'POST' && isInitializeRequest(parsed)) {
    // At the cap the least recently used idle session makes room; only busy ones refuse a client.
    const owner = clientAddress(req);
    const room = await sessions.makeRoom(owner);
    if (!room.ok && room.why === 'owner-full') {
      return rpcError(
        res,
        429,
        -32000,
        `${RPC_MESSAGES[-32000]}: too many MCP sessions from this address (${sessions.maxPerOwner}, --max-sessions-per-address), all busy; end one (DELETE /mcp) or wait for one to finish`,
      );
    }
    if (!room.ok)
      return rpcError(res, 503, -32000, `${RPC_MESSAGES[-32000]}: too many MCP sessions (${sessions.max}), all busy`);
    res.once('close', room.release);
    const transport = await newSession(mcp, owner);
    return transport.handleRequest(req, res, parsed);
  }
  // A claim of a newer revision: a 2026-07-28 request, or refused as one by the SDK v2.
  if (req.method === 'POST' && ModernEndpoint.claimsModern(req, parsed)) return mcp.modern.handle(req, res, parsed);
  // A GET (SSE stream) needs a session; 405 tells a client this server has no sessionless stream.
  if (req.method === 'GET')
    return rpcError(
      res,
      405,
      -32000,
      `${RPC_MESSAGES[-32000]}: GET /mcp needs an mcp-session-id header (send initialize first)`,
    );
  return rpcError(res, 400, -32000, `${RPC_MESSAGES[-32000]}: no valid mcp-session-id header (send initialize first)`);
}

/** A session's transport and MCP server; it joins the table once initialized and leaves it on close. */
async function newSession({ core, sessions }: McpEndpoint, owner: string): Promise<StreamableHTTPServerTransport> {
  const links = new ClientLinks();
  const server = createMcpServer(core, links);
  let detach: () => void = () => {};
  const transport = new StreamableHTTPServerTransport({
    sessionIdGenerator: () => randomUUID(),
    onsessioninitialized: (id) => {
      sessions.add(id, transport, () => server.close(), owner);
      detach = core.attach(server);
    },
  });
  withCleanErrors(transport);
  linksOf.set(transport, links);
  transport.onclose = () => {
    if (transport.sessionId !== undefined) sessions.remove(transport.sessionId);
    detach();
  };
  transport.onerror = (err) => core.logger.debug({ err }, 'mcp http transport error');
  await server.connect(transport);
  return transport;
}
