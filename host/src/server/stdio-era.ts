// Which MCP revision a stdio client speaks, from its first message: `initialize` (or anything
// without a 2026-07-28 envelope) opens a 2025-11-25 session on the v1 server; `server/discover` or
// a request whose _meta names a protocol version is served by the SDK v2's stdio entry with a
// 2026-07-28 server (modern-server.ts, through stdio-modern.ts, imported only then: a 2025-11-25
// client's server never loads the SDK v2). Lines that arrive before the choice wait, in order.
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';

/**
 * The SDK v2's PROTOCOL_VERSION_META_KEY, spelled here so that telling the revisions apart loads
 * no SDK v2 (test/server/stdio-era.test.ts checks it against the SDK's).
 */
export const PROTOCOL_VERSION_META_KEY = 'io.modelcontextprotocol/protocolVersion';

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** A first message that opens a 2026-07-28 connection. */
export function opensModern(message: JSONRPCMessage): boolean {
  if (!('method' in message) || message.method === 'initialize') return false;
  if (message.method === 'server/discover') return true;
  const params = (message as { params?: unknown }).params;
  return (
    isObject(params) && isObject(params['_meta']) && typeof params['_meta'][PROTOCOL_VERSION_META_KEY] === 'string'
  );
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
