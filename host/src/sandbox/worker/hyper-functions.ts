// hyper-mcp's host functions (extism:host/user), served to a module.abi hyper-mcp manifest's module
// over the same bounded crossings as toolgate:mcp (client-functions.ts): logs, progress, requests
// and notifications count against the same per-call caps and notice rate. Each takes and returns
// an Extism block of JSON, as hyper-mcp defines them; the host parses what the module sent
// (client-serve.ts). A request toolgate refuses (a policy, no client, the call's caps, or PENDING
// in a 2026-07-28 input round) answers in the function's own result shape, as hyper-mcp answers a
// failure, with toolgate's code and message in `_meta.toolgate` (docs/authoring.md).
import type { CallContext } from '@extism/extism';
import { ClientOp, NOTIFY_METHODS } from '../channel.js';
import { blockBytes, type ClientCore, type HostFn } from './client-core.js';

const encoder = new TextEncoder();
const decoder = new TextDecoder();
const NS = 'extism:host/user';
type ClientNotification = (typeof NOTIFY_METHODS)[number];

interface Refusal {
  code: string;
  message: string;
}

/** The host's refusal in an answer ({"error": {code, message}}), or undefined for a client's result. */
function refusalOf(answer: Uint8Array): Refusal | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(decoder.decode(answer));
  } catch {
    return { code: 'FAILED', message: 'the answer was not JSON' };
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) return undefined;
  const error = (parsed as Record<string, unknown>)['error'];
  if (error === null || typeof error !== 'object') return undefined;
  const { code, message } = error as Record<string, unknown>;
  return { code: String(code), message: String(message) };
}

/** The answer as the module expects it: the client's result, or `failed(refusal)` in the result's shape. */
const shaped =
  (failed: (r: Refusal) => Record<string, unknown>) =>
  (answer: Uint8Array): Uint8Array => {
    const refusal = refusalOf(answer);
    if (refusal === undefined) return answer;
    return encoder.encode(JSON.stringify({ ...failed(refusal), _meta: { toolgate: refusal } }));
  };

const elicitFailed = shaped((r) => ({ action: 'decline', content: { error: `${r.code}: ${r.message}` } }));
const sampleFailed = shaped((r) => ({
  role: 'assistant',
  content: { type: 'text', text: `${r.code}: ${r.message}` },
  model: '',
  stopReason: 'error',
}));
const rootsFailed = shaped(() => ({ roots: [] }));

/** NOTIFY's payload: the notification's index in NOTIFY_METHODS, then the module's JSON (if any). */
function notifyPayload(method: ClientNotification, params: Uint8Array): Uint8Array {
  const payload = new Uint8Array(1 + params.length);
  payload[0] = NOTIFY_METHODS.indexOf(method);
  payload.set(params, 1);
  return payload;
}

export function createHyperFunctions(core: ClientCore): Record<string, HostFn> {
  const bytes = (ctx: CallContext, addr: number | bigint, name: string) => blockBytes(ctx, addr, `${NS}.${name}`);
  const notifyWith =
    (method: ClientNotification, name: string): HostFn =>
    (ctx, addr) => {
      core.notify(notifyPayload(method, addr === undefined ? new Uint8Array(0) : bytes(ctx, addr, name)));
    };
  const notifyBare =
    (method: ClientNotification): HostFn =>
    () => {
      core.notify(notifyPayload(method, new Uint8Array(0)));
    };
  return {
    create_elicitation: (ctx, addr) =>
      core.request(
        ctx,
        ClientOp.HYPER_ELICIT,
        bytes(ctx, addr, 'create_elicitation'),
        `${NS}.create_elicitation`,
        elicitFailed,
      ),
    create_message: (ctx, addr) =>
      core.request(ctx, ClientOp.SAMPLE, bytes(ctx, addr, 'create_message'), `${NS}.create_message`, sampleFailed),
    list_roots: (ctx) => core.request(ctx, ClientOp.ROOTS, encoder.encode('{}'), `${NS}.list_roots`, rootsFailed),
    notify_logging_message: (ctx, addr) => {
      const json = bytes(ctx, addr, 'notify_logging_message');
      core.log(ClientOp.HYPER_LOG, json, json.length);
    },
    notify_progress: (ctx, addr) => {
      core.progress(ClientOp.HYPER_PROGRESS, bytes(ctx, addr, 'notify_progress'));
    },
    notify_tool_list_changed: notifyBare('notifications/tools/list_changed'),
    notify_resource_list_changed: notifyBare('notifications/resources/list_changed'),
    notify_prompt_list_changed: notifyBare('notifications/prompts/list_changed'),
    notify_resource_updated: notifyWith('notifications/resources/updated', 'notify_resource_updated'),
    notify_url_elicitation_completed: notifyWith(
      'notifications/elicitation/complete',
      'notify_url_elicitation_completed',
    ),
  };
}
