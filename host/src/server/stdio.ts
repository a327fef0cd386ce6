// MCP over stdio: one session on the process's stdin/stdout. Only JSON-RPC is written to stdout;
// everything else (logs, warnings) goes to stderr, or the client's parser breaks.
import { Writable, type Readable } from 'node:stream';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { JSONRPCRequest } from '@modelcontextprotocol/sdk/types.js';
import type { SidecarCore } from './core.js';
import { ClientGone } from '../approval/index.js';
import { createMcpServer } from './mcp-server.js';
import { ClientLinks } from './response-gone.js';
import { withCleanErrors } from './rpc-error.js';
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
  const links = new ClientLinks();
  const server = createMcpServer(core, links);
  // Closing stdin ends the session only once serve has drained the running calls (closed below):
  // closing the transport at once would abort them and drop their answers.
  const transport = withCleanErrors(new LineTransport(stdin, stdout));
  const detach = core.attach(server);
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
  await server.connect(transport);
  const direct = directRequests(server);
  if (direct !== undefined) transport.onrequest = direct;
  return {
    closed,
    async close() {
      stdin.off('end', onEnd);
      stdin.off('close', onEnd);
      detach();
      await server.close().catch(() => {});
      resolveClosed();
    },
  };
}
