// JSON-RPC errors as the client reads them: one wording per code on every transport, and no
// "MCP error -32602:" prefix (the SDK's McpError puts its code into the message, and the SDK's
// client adds it again, so clients showed it twice).
import { McpError } from '@modelcontextprotocol/sdk/types.js';
import { ToolgateError, type CodeOf } from '../errors/index.js';

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

/** What each JSON-RPC code means, as a toolgate code (a new RPC code fails the typecheck until named). */
const RPC_MEANINGS = {
  [-32700]: 'PARSE_ERROR',
  [-32600]: 'INVALID_REQUEST',
  [-32601]: 'METHOD_NOT_FOUND',
  [-32602]: 'INVALID_PARAMS',
  [-32603]: 'INTERNAL_ERROR',
  [-32000]: 'SERVER_ERROR',
  [-32001]: 'SESSION_NOT_FOUND',
} as const satisfies Record<RpcCode, CodeOf<'server'>>;

/** Thrown from a request handler; `rpcCode` is the JSON-RPC code the client receives. */
export class RpcError extends ToolgateError<(typeof RPC_MEANINGS)[RpcCode]> {
  readonly rpcCode: RpcCode;
  constructor(rpcCode: RpcCode, detail: string) {
    super(RPC_MEANINGS[rpcCode], `${RPC_MESSAGES[rpcCode]}: ${detail}`);
    this.rpcCode = rpcCode;
  }
}

/**
 * A handler's failure as the SDK sends it: the SDK reads a numeric `code`, so an RpcError crosses as
 * the SDK's McpError (its "MCP error CODE: " prefix is stripped on the way out, withCleanErrors).
 */
export function toSdkError(err: unknown): unknown {
  return err instanceof RpcError ? new McpError(err.rpcCode, err.message) : err;
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

/** The message with its error's "MCP error CODE: " prefix stripped (withCleanErrors). */
export function cleanError(message: unknown): unknown {
  if (typeof message !== 'object' || message === null || !('error' in message)) return message;
  const error = (message as { error: { code?: unknown; message?: unknown } }).error;
  if (typeof error.message !== 'string' || typeof error.code !== 'number') return message;
  const prefix = `MCP error ${error.code}: `;
  let text = error.message;
  while (text.startsWith(prefix)) text = text.slice(prefix.length);
  if (text === error.message) return message;
  return { ...message, error: { ...error, message: text } };
}
