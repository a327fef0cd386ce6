// MCP over stdio: one session on the process's stdin/stdout. Only JSON-RPC is written to stdout;
// everything else (logs, warnings) goes to stderr, or the client's parser breaks.
import { Writable, type Readable } from 'node:stream';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { JSONRPCRequest } from '@modelcontextprotocol/sdk/types.js';
import type { SidecarCore } from './core.js';
import { ClientGone } from '../approval/index.js';
import { directToolCalls } from './direct-call.js';
import { createMcpServer } from './mcp-server.js';
import { ClientLinks } from './response-gone.js';
import { withCleanErrors } from './rpc-error.js';
import { HeldMessages, opensModern } from './stdio-era.js';
import { LineTransport } from './stdio-transport.js';

export interface StdioSession {
  /** Resolves when the client closes stdin (or the transport closes). */
  readonly closed: Promise<void>;
  close(): Promise<void>;
}

/**
 * A Writable over a `(text) => void` sink, for a CliIO whose stdout is a function. write() goes
 * straight to the sink: the stream machinery in between (buffering, nextTick callbacks) cost
 * ~90 µs per MCP message in the bench, a third of a whole call.
 */
class SinkWritable extends Writable {
  readonly #sink: (text: string) => void;

  constructor(sink: (text: string) => void) {
    super();
    this.#sink = sink;
  }

  override write(chunk: unknown, encoding?: unknown, done?: unknown): boolean {
    this.#sink(typeof chunk === 'string' ? chunk : Buffer.isBuffer(chunk) ? chunk.toString('utf8') : String(chunk));
    const cb = typeof encoding === 'function' ? encoding : done;
    if (typeof cb === 'function') queueMicrotask(() => (cb as () => void)());
    return true;
  }
}

export function sinkWritable(write: (text: string) => void): Writable {
  return new SinkWritable(write);
}

/**
 * The SDK's Protocol wraps the transport's onmessage in a classifier that zod-parses each message as
 * a result response, an error response and a request, in that order, before it calls
 * `_onrequest`: ~40 µs of every call on this machine, two of the parses failing and building error
 * objects. The transport has already proven a plain request's shape (rpc-shape.ts), so it hands
 * those straight to `_onrequest`, which is what the classifier would call. The SDK is pinned; if a
 * version renames the method this returns undefined and every message takes the SDK's way.
 */
export function directRequests(server: Server): ((request: JSONRPCRequest) => void) | undefined {
  const onrequest = (server as unknown as { _onrequest?: unknown })._onrequest;
  if (typeof onrequest !== 'function') return undefined;
  return (request) => void onrequest.call(server, request, undefined);
}

export async function serveStdio(core: SidecarCore, stdin: Readable, stdout: Writable): Promise<StdioSession> {
  // Closing stdin ends the session only once serve has drained the running calls (closed below):
  // closing the transport at once would abort them and drop their answers.
  const transport = withCleanErrors(new LineTransport(stdin, stdout, () => core.onInitialized()));
  const links = new ClientLinks();
  let resolveClosed: () => void = () => {};
  const closed = new Promise<void>((r) => {
    resolveClosed = r;
  });
  // No one can answer an ask through a client that is gone, nor read what it led to (architecture.md §3).
  const onEnd = () => {
    links.clientGone(new ClientGone('its stdin closed'));
    resolveClosed();
  };
  stdin.once('end', onEnd);
  stdin.once('close', onEnd);
  transport.onclose = () => resolveClosed();
  transport.onerror = (err) => core.logger.warn({ err }, 'stdio: unreadable message ignored');
  // The first message says which revision this client speaks (stdio-era.ts).
  const held = new HeldMessages();
  let opened: Promise<{ close(): Promise<void> }> | undefined;
  transport.onmessage = (message) => {
    held.push(message);
    opened ??= opensModern(message)
      ? import('./stdio-modern.js').then((m) => m.serveModernStdio(core, transport, held))
      : openLegacy(core, transport, held, links);
  };
  await transport.start();
  return {
    closed,
    async close() {
      stdin.off('end', onEnd);
      stdin.off('close', onEnd);
      const session = await opened;
      await session?.close().catch(() => {});
      resolveClosed();
    },
  };
}

/** A 2025-11-25 session on the v1 server; the messages held so far go to it first, in order. */
async function openLegacy(
  core: SidecarCore,
  transport: LineTransport,
  held: HeldMessages,
  links: ClientLinks,
): Promise<{ close(): Promise<void> }> {
  const server = createMcpServer(core, links);
  const detach = core.attach(server);
  // connect wraps the transport's onmessage (so it must not wrap ours) before its first await;
  // lines read until it is connected are held, and the held ones go first.
  delete transport.onmessage;
  const connecting = server.connect(transport);
  const deliver = transport.onmessage;
  transport.onmessage = held.push;
  await connecting;
  if (deliver !== undefined) held.release(deliver);
  const direct = directRequests(server);
  if (direct !== undefined) transport.onrequest = directToolCalls(server, transport, links, direct) ?? direct;
  return {
    async close() {
      detach();
      await server.close().catch(() => {});
    },
  };
}
