// Short, human messages for network failures: they reach the module and, through it, the model.
import { messageOf, ToolgateError } from '../../errors/index.js';
import { LIMITS } from './request-shape.js';

/** The system's or undici's code (ECONNREFUSED, UND_ERR_...); toolgate's own errors say it in words. */
function errorCode(error: unknown): string | undefined {
  if (error instanceof ToolgateError) return undefined;
  if (typeof error === 'object' && error !== null && 'code' in error && typeof error.code === 'string')
    return error.code;
  return undefined;
}

export function shortReason(error: unknown): string {
  const text = errorCode(error) ?? messageOf(error);
  return text.length > 200 ? `${text.slice(0, 200)}...` : text;
}

export function describeNetworkError(error: unknown, where: string): string {
  switch (errorCode(error)) {
    case 'ECONNREFUSED':
      return `connection to ${where} refused`;
    case 'UND_ERR_CONNECT_TIMEOUT':
      return `connection to ${where} timed out`;
    case 'UND_ERR_HEADERS_OVERFLOW':
      return `response headers from ${where} larger than ${LIMITS.maxResponseHeaderBytes} bytes`;
    case 'UND_ERR_SOCKET':
    case 'ECONNRESET':
      return `connection to ${where} closed before the response was complete`;
    default:
      return `request to ${where} failed: ${shortReason(error)}`;
  }
}
