// What the rest of toolgate sees of tracing: a handful of calls on spans, no OpenTelemetry types.
// The SDK stays behind otel.ts, imported only when tracing is on (docs/observability.md).

export type SpanValue = string | number | boolean;
export type SpanAttributes = Readonly<Record<string, SpanValue | undefined>>;

/** W3C trace context a client sent (the pipeline's TraceContext has this shape). */
export interface ParentTrace {
  readonly traceparent: string;
  readonly tracestate?: string;
}

/** One span being recorded. `fail` sets `error.type` and the span's error status. */
export interface SpanHandle {
  set(attributes: SpanAttributes): void;
  fail(errorType: string, message?: string): void;
  end(): void;
}

export type SpanKindName = 'internal' | 'client' | 'server';

/** Tracing while it is on; `tracer()` is undefined when it is off, and that is the whole off path. */
export interface Tracer {
  /** Arguments and results go on spans only when the operator opted in (redacted like the audit log). */
  readonly recordContent: boolean;
  /**
   * A SERVER span around `fn`, a child of `parent` when the client sent one, else the root of a new
   * trace; `fn` runs with it active, so spans started inside are its children.
   */
  server<T>(
    name: string,
    attributes: SpanAttributes,
    parent: ParentTrace | undefined,
    fn: (span: SpanHandle) => Promise<T>,
  ): Promise<T>;
  /** A child of the active span around `fn`, active while `fn` runs; ended when `fn` settles. */
  child<T>(
    name: string,
    attributes: SpanAttributes,
    fn: (span: SpanHandle) => Promise<T>,
    kind?: SpanKindName,
  ): Promise<T>;
  /** A child of the active span that the caller ends; not made active. */
  begin(name: string, attributes: SpanAttributes, kind?: SpanKindName): SpanHandle;
  /** Sets attributes on the active span (none: nothing). */
  annotate(attributes: SpanAttributes): void;
  /** The active span's trace id (32 hex digits), when a span is active. */
  traceId(): string | undefined;
  /** Exports what is buffered and stops. */
  shutdown(): Promise<void>;
}

/** What startTracing needs beside the OTEL_* variables the exporter reads itself. */
export interface TracingStart {
  serviceVersion: string;
  recordContent: boolean;
  scheduleDelayMs: number | undefined;
  env: NodeJS.ProcessEnv;
}
