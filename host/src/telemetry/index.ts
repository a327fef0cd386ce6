// Traces: OpenTelemetry spans for MCP requests, HTTP API calls, the policy decision, the approval
// wait, the sandbox run and a tool's HTTP requests (docs/observability.md). A leaf: call sites ask
// `tracer()` and do nothing more when it is undefined; the SDK (otel.ts) is imported only by
// `startTracing`, so a server with tracing off never loads it.
import type { Tracer, TracingStart } from './types.js';

export type { SpanAttributes, Tracer } from './types.js';
export { tracingChoice, type TracingChoice } from './config.js';

let active: Tracer | undefined;

/** The tracer while tracing is on; undefined (the default) when it is off. */
export function tracer(): Tracer | undefined {
  return active;
}

/** Loads the SDK and makes `tracer()` answer; the returned function flushes and stops it. */
export async function startTracing(start: TracingStart): Promise<() => Promise<void>> {
  const { createTracer } = await import('./otel.js');
  const t = createTracer(start);
  active = t;
  return async () => {
    if (active === t) active = undefined;
    await t.shutdown();
  };
}
