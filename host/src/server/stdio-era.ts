// Which MCP revision a stdio client speaks, from its first message: `initialize` (or anything
// without a 2026-07-28 envelope) opens a 2025-11-25 session on the v1 server; `server/discover` or
// a request whose _meta names a protocol version is served by the SDK v2's stdio entry with a
// 2026-07-28 server (modern-server.ts). Lines that arrive before the choice wait, in order.
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { PROTOCOL_VERSION_META_KEY } from '@modelcontextprotocol/server';
import { serveStdio as serveSdkStdio, type StdioServerHandle } from '@modelcontextprotocol/server/stdio';
import type { SidecarCore } from './core.js';
import { createModernServer } from './modern-server.js';
import type { LineTransport } from './stdio-transport.js';

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** A first message that opens a 2026-07-28 connection. */
export function opensModern(message: JSONRPCMessage): boolean {
  if (!('method' in message) || message.method === 'initialize') return false;
  if (message.method === 'server/discover') return true;
  const params = (message as { params?: unknown }).params;
  return isObject(params) && isObject(params['_meta']) && typeof params['_meta'][PROTOCOL_VERSION_META_KEY] === 'string';
}

/** Messages read before anyone takes them, then handed on in order. */
export class HeldMessages {
  readonly #queue: JSONRPCMessage[] = [];
  #target: ((message: JSONRPCMessage) => void) | undefined;

  readonly push = (message: JSONRPCMessage): void => {
    if (this.#target !== undefined) this.#target(message);
    else this.#queue.push(message);
  };

  release(target: (message: JSONRPCMessage) => void): void {
    this.#target = target;
    for (const message of this.#queue.splice(0)) target(message);
  }
}

/** The line transport as the SDK v2's transport (the shapes match; start was already called). */
function v2Wire(line: LineTransport, held: HeldMessages): Parameters<typeof serveSdkStdio>[1] & { transport: object } {
  const wire = {
    onmessage: undefined as ((message: unknown) => void) | undefined,
    onclose: undefined as (() => void) | undefined,
    onerror: undefined as ((error: Error) => void) | undefined,
    async start() {
      queueMicrotask(() => held.release((m) => wire.onmessage?.(m)));
    },
    send: (message: unknown) => line.send(message as JSONRPCMessage),
    close: () => line.close(),
  };
  line.onclose = () => wire.onclose?.();
  return { transport: wire as never, legacy: 'reject' };
}

/** Serves a 2026-07-28 connection over `line`; the caller has started it and holds its first lines. */
export function serveModernStdio(core: SidecarCore, line: LineTransport, held: HeldMessages): StdioServerHandle {
  const undo: (() => void)[] = [];
  const handle = serveSdkStdio(() => {
    const server = createModernServer({ core, principal: { id: 'stdio' } });
    undo.push(core.onToolsChanged(() => void server.sendToolListChanged().catch(() => {})));
    return server;
  }, { ...v2Wire(line, held), onerror: (err) => core.logger.debug({ err }, 'mcp 2026-07-28 stdio: message refused') });
  return {
    async close() {
      for (const u of undo.splice(0)) u();
      await handle.close();
    },
  };
}
