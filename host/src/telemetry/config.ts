// When tracing is on and with what, from `serve`'s flags and the standard OpenTelemetry variables.
// Nothing here loads the SDK: a server with tracing off never evaluates it (docs/observability.md).

export interface TracingFlags {
  /** --otel */
  otel: boolean;
  /** --otel-record-content */
  recordContent: boolean;
}

export type TracingChoice =
  | { readonly on: false }
  | {
      readonly on: true;
      readonly recordContent: boolean;
      readonly scheduleDelayMs: number | undefined;
      readonly why: string;
    };

const TRUE = /^(1|true|yes|on)$/i;

function set(env: NodeJS.ProcessEnv, name: string): string | undefined {
  const v = env[name]?.trim();
  return v === undefined || v === '' ? undefined : v;
}

/**
 * On with --otel, or when an OTLP endpoint variable is set (the way every OpenTelemetry SDK reads
 * it); off when OTEL_SDK_DISABLED=true or OTEL_TRACES_EXPORTER=none, and by default. A string is a
 * usage error: toolgate exports OTLP over HTTP with JSON and nothing else.
 */
export function tracingChoice(flags: TracingFlags, env: NodeJS.ProcessEnv): TracingChoice | string {
  const exporter = set(env, 'OTEL_TRACES_EXPORTER');
  const endpoint =
    set(env, 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT') !== undefined
      ? 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT'
      : set(env, 'OTEL_EXPORTER_OTLP_ENDPOINT') !== undefined
        ? 'OTEL_EXPORTER_OTLP_ENDPOINT'
        : undefined;
  const disabled = TRUE.test(set(env, 'OTEL_SDK_DISABLED') ?? '') || exporter === 'none';
  if (exporter !== undefined && exporter !== 'otlp' && exporter !== 'none')
    return `OTEL_TRACES_EXPORTER=${exporter}: toolgate exports traces with otlp only (or none)`;
  const protocol = set(env, 'OTEL_EXPORTER_OTLP_TRACES_PROTOCOL') ?? set(env, 'OTEL_EXPORTER_OTLP_PROTOCOL');
  if (protocol !== undefined && protocol !== 'http/json')
    return `OTEL_EXPORTER_OTLP_PROTOCOL=${protocol}: toolgate exports OTLP over HTTP as JSON (http/json)`;
  if (flags.otel && disabled) return '--otel: tracing is turned off by OTEL_SDK_DISABLED or OTEL_TRACES_EXPORTER=none';
  const recordContent =
    flags.recordContent || TRUE.test(set(env, 'OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT') ?? '');
  if (disabled || (!flags.otel && endpoint === undefined)) {
    return flags.recordContent
      ? '--otel-record-content: tracing is off (give --otel or an OTLP endpoint variable)'
      : { on: false };
  }
  const delay = set(env, 'OTEL_BSP_SCHEDULE_DELAY');
  const scheduleDelayMs = delay !== undefined && /^\d+$/.test(delay) ? Number(delay) : undefined;
  return { on: true, recordContent, scheduleDelayMs, why: flags.otel ? '--otel' : `${endpoint ?? ''} is set` };
}
