// A 2026-07-28 connection over stdio: the SDK v2's stdio entry with a 2026-07-28 server
// (modern-server.ts) on toolgate's line transport. Imported by stdio.ts only when a client's first
// message opens that revision (stdio-era.ts), so a 2025-11-25 client's server never loads the SDK v2.
import { randomUUID } from 'node:crypto';
import { serveStdio as serveSdkStdio, type StdioServerHandle } from '@modelcontextprotocol/server/stdio';
import type { SidecarCore } from './core.js';
import { createModernServer } from './modern-server.js';
import type { HeldMessages } from './stdio-era.js';
import type { LineTransport } from './stdio-transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';

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
  const taskOwner = `stdio@${randomUUID()}`;
  const handle = serveSdkStdio(
    () => {
      // tasks bound to this connection: replicas sharing state through Redis serve other stdio clients
      const server = createModernServer({ core, principal: { id: 'stdio', taskOwner } });
      undo.push(core.onToolsChanged(() => void server.sendToolListChanged().catch(() => {})));
      return server;
    },
    { ...v2Wire(line, held), onerror: (err) => core.logger.debug({ err }, 'mcp 2026-07-28 stdio: message refused') },
  );
  return {
    async close() {
      for (const u of undo.splice(0)) u();
      await handle.close();
    },
  };
}
