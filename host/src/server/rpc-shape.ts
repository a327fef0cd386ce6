// A cheap, exact test for the JSON-RPC request shape nearly every line has, so the transport can
// skip the SDK's zod union (and its failed response checks) for it. It accepts a strict subset of
// what the SDK's JSONRPCRequestSchema accepts; anything it does not recognise goes the slow way,
// through the SDK's own schemas, so no message is accepted here that the SDK would refuse.
import type { JSONRPCRequest } from '@modelcontextprotocol/sdk/types.js';

const REQUEST_KEYS = new Set(['jsonrpc', 'id', 'method', 'params']);
const RELATED_TASK_META_KEY = 'io.modelcontextprotocol/related-task';

const isPlainObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);
/** The SDK's RequestIdSchema and ProgressTokenSchema: a string or an integer (zod's int is a safe integer). */
const isIdLike = (v: unknown): boolean => typeof v === 'string' || Number.isSafeInteger(v);

/** `_meta` as the SDK's RequestMetaSchema reads it, for the keys it checks; a related task goes the slow way. */
function plainMeta(meta: unknown): boolean {
  if (meta === undefined) return true;
  if (!isPlainObject(meta)) return false;
  if (Object.hasOwn(meta, RELATED_TASK_META_KEY)) return false;
  return !Object.hasOwn(meta, 'progressToken') || isIdLike(meta['progressToken']);
}

/** true only when the SDK's JSONRPCRequestSchema surely accepts `json` as it is. */
export function isPlainRequest(json: unknown): json is JSONRPCRequest {
  if (!isPlainObject(json)) return false;
  for (const key of Object.keys(json)) if (!REQUEST_KEYS.has(key)) return false;
  if (json['jsonrpc'] !== '2.0' || typeof json['method'] !== 'string' || !isIdLike(json['id'])) return false;
  if (!Object.hasOwn(json, 'params')) return true;
  const params = json['params'];
  return isPlainObject(params) && plainMeta(params['_meta']);
}
