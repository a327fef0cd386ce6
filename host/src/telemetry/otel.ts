// The OpenTelemetry SDK behind the Tracer interface: a tracer provider with a batch processor and
// the OTLP/HTTP (JSON) exporter, configured by the standard OTEL_* variables, and an
// AsyncLocalStorage context manager so a span started deep in a call (the sandbox, a tool's HTTP
// request) finds the call's span as its parent. Imported only by startTracing (index.ts).
import {
  context,
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  trace,
  type Attributes,
  type Context,
  type Span,
} from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { detectResources, resourceAttributesEnvDetector, resourceFromAttributes } from '@opentelemetry/resources';
import { BatchSpanProcessor, TracerProvider } from '@opentelemetry/sdk-trace';
import type { ParentTrace, SpanAttributes, SpanHandle, SpanKindName, Tracer, TracingStart } from './types.js';

const KINDS: Record<SpanKindName, SpanKind> = {
  internal: SpanKind.INTERNAL,
  client: SpanKind.CLIENT,
  server: SpanKind.SERVER,
};
const propagator = new W3CTraceContextPropagator();
const getter = {
  keys: (c: Record<string, string>) => Object.keys(c),
  get: (c: Record<string, string>, k: string) => c[k],
};

function attrs(a: SpanAttributes): Attributes {
  const out: Attributes = {};
  for (const [k, v] of Object.entries(a)) if (v !== undefined) out[k] = v;
  return out;
}

function handle(span: Span): SpanHandle & { failed: boolean } {
  return {
    failed: false,
    set: (a) => void span.setAttributes(attrs(a)),
    fail(type, message) {
      this.failed = true;
      span.setAttribute('error.type', type);
      span.setStatus({ code: SpanStatusCode.ERROR, ...(message !== undefined ? { message } : {}) });
    },
    end: () => span.end(),
  };
}

/** A thrown error's type for `error.type`: its stable code when it has one, else its class. */
function errorType(err: unknown): string {
  if (typeof err === 'object' && err !== null) {
    const code = (err as { code?: unknown }).code;
    if (typeof code === 'string' || typeof code === 'number') return String(code);
    if (err instanceof Error) return err.name;
  }
  return '_OTHER';
}

function parentContext(parent: ParentTrace | undefined): Context {
  if (parent === undefined) return ROOT_CONTEXT;
  const carrier: Record<string, string> = {
    traceparent: parent.traceparent,
    ...(parent.tracestate !== undefined ? { tracestate: parent.tracestate } : {}),
  };
  return propagator.extract(ROOT_CONTEXT, carrier, getter);
}

export function createTracer(start: TracingStart): Tracer {
  const { env } = start;
  const serviceName = env.OTEL_SERVICE_NAME?.trim();
  const resource = resourceFromAttributes({ 'service.name': 'toolgate', 'service.version': start.serviceVersion })
    .merge(detectResources({ detectors: [resourceAttributesEnvDetector] }))
    .merge(
      serviceName !== undefined && serviceName !== '' ? resourceFromAttributes({ 'service.name': serviceName }) : null,
    );
  const processor = new BatchSpanProcessor({
    exporter: new OTLPTraceExporter(),
    ...(start.scheduleDelayMs !== undefined ? { scheduledDelayMillis: start.scheduleDelayMs } : {}),
  });
  const provider = new TracerProvider({ resource, spanProcessors: [processor] });
  const manager = new AsyncLocalStorageContextManager().enable();
  context.setGlobalContextManager(manager);
  const otel = provider.getTracer('toolgate', start.serviceVersion);

  const run = async <T>(span: Span, ctx: Context, fn: (s: SpanHandle) => Promise<T>): Promise<T> => {
    const h = handle(span);
    try {
      return await context.with(trace.setSpan(ctx, span), () => fn(h));
    } catch (err) {
      if (!h.failed) h.fail(errorType(err), err instanceof Error ? err.message : undefined);
      throw err;
    } finally {
      span.end();
    }
  };

  return {
    recordContent: start.recordContent,
    server(name, a, parent, fn) {
      const ctx = parentContext(parent);
      return run(otel.startSpan(name, { kind: SpanKind.SERVER, attributes: attrs(a) }, ctx), ctx, fn);
    },
    child(name, a, fn, kind = 'internal') {
      const ctx = context.active();
      return run(otel.startSpan(name, { kind: KINDS[kind], attributes: attrs(a) }, ctx), ctx, fn);
    },
    begin: (name, a, kind = 'internal') =>
      handle(otel.startSpan(name, { kind: KINDS[kind], attributes: attrs(a) }, context.active())),
    annotate(a) {
      trace.getActiveSpan()?.setAttributes(attrs(a));
    },
    traceId() {
      const id = trace.getActiveSpan()?.spanContext().traceId;
      return id === undefined || /^0+$/.test(id) ? undefined : id;
    },
    async shutdown() {
      await provider.shutdown();
      manager.disable();
      context.disable();
    },
  };
}
