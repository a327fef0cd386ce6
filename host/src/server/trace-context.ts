// The W3C trace context a client sends with a call: `_meta.traceparent` / `_meta.tracestate`
// (MCP 2026-07-28 names them), else the HTTP headers of the same name. Only a well-formed value is
// kept, and it goes to the call's audit record, so one trace id ties the agent's request to
// toolgate's decision and the tool's run.
import type { TraceContext } from '../pipeline/index.js';

/** version-traceid-parentid-flags; an all-zero trace or parent id is invalid (W3C Trace Context). */
const TRACEPARENT = /^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/;
const MAX_TRACESTATE = 512;

function validParent(value: unknown): string | undefined {
  if (typeof value !== 'string') return undefined;
  const m = TRACEPARENT.exec(value.trim());
  if (m === null || m[1] === 'ff' || /^0+$/.test(m[2] ?? '') || /^0+$/.test(m[3] ?? '')) return undefined;
  return value.trim();
}

function validState(value: unknown): string | undefined {
  if (typeof value !== 'string' || value.length > MAX_TRACESTATE || !/^[\x20-\x7e]*$/.test(value)) return undefined;
  return value;
}

type HeaderSource = { get(name: string): string | null } | Record<string, string | string[] | undefined> | undefined;

function header(headers: HeaderSource, name: string): string | undefined {
  if (headers === undefined) return undefined;
  if (typeof (headers as { get?: unknown }).get === 'function')
    return (headers as { get(n: string): string | null }).get(name) ?? undefined;
  const v = (headers as Record<string, string | string[] | undefined>)[name];
  return Array.isArray(v) ? v[0] : v;
}

/** The call's trace context: from _meta first, else the headers; undefined when there is none. */
export function traceOf(meta: Record<string, unknown> | undefined, headers?: HeaderSource): TraceContext | undefined {
  const fromMeta = validParent(meta?.['traceparent']);
  if (fromMeta !== undefined) {
    const state = validState(meta?.['tracestate']);
    return state !== undefined ? { traceparent: fromMeta, tracestate: state } : { traceparent: fromMeta };
  }
  const fromHeader = validParent(header(headers, 'traceparent'));
  if (fromHeader === undefined) return undefined;
  const state = validState(header(headers, 'tracestate'));
  return state !== undefined ? { traceparent: fromHeader, tracestate: state } : { traceparent: fromHeader };
}
