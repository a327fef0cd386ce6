// JSON-RPC errors as the client reads them: one wording per code on every transport, and no
// "MCP error -32602:" prefix (the SDK's McpError puts its code into the message, and the SDK's
// client adds it again, so clients showed it twice).

/** The first words of every error message with that code, on stdio and HTTP alike. */
export const RPC_MESSAGES = {
  [-32700]: 'Parse error',
  [-32600]: 'Invalid request',
  [-32601]: 'Method not found',
  [-32602]: 'Invalid params',
  [-32603]: 'Internal error',
  [-32000]: 'Server error',
  [-32001]: 'Session not found',
} as const satisfies Record<number, string>;

export type RpcCode = keyof typeof RPC_MESSAGES;

/** Thrown from a request handler: the SDK sends `code` and `message` as they are. */
export class RpcError extends Error {
  readonly code: RpcCode;
  constructor(code: RpcCode, detail: string) {
    super(`${RPC_MESSAGES[code]}: ${detail}`);
    this.name = 'RpcError';
    this.code = code;
  }
}

type Send = (message: unknown, options?: unknown) => Promise<void>;

/**
 * Errors the SDK raises itself (unknown method, bad params of a built-in request) carry the
 * "MCP error CODE: " prefix in their message; strip it on the way out so every error reads the
 * same whichever layer raised it.
 */
export function withCleanErrors<T extends object>(transport: T & { send: unknown }): T {
  const target = transport as unknown as { send: Send };
  const send = target.send.bind(transport);
  target.send = (message, options) => send(cleanError(message), options);
  return transport;
}

function cleanError(message: unknown): unknown {
  if (typeof message !== 'object' || message === null || !('error' in message)) return message;
  const error = (message as { error: { code?: unknown; message?: unknown } }).error;
  if (typeof error.message !== 'string' || typeof error.code !== 'number') return message;
  const prefix = `MCP error ${error.code}: `;
  let text = error.message;
  while (text.startsWith(prefix)) text = text.slice(prefix.length);
  if (text === error.message) return message;
  return { ...message, error: { ...error, message: text } };
}
