// When `serve` traces: --otel or an endpoint variable turns it on, the standard off switches win,
// and what toolgate cannot export is a usage error (docs/observability.md, "Turning it on").
import { describe, expect, it } from 'vitest';
import { tracer, tracingChoice } from '../../host/src/telemetry/index.js';

const off = { otel: false, recordContent: false };
const on = { otel: true, recordContent: false };

describe('tracing settings (docs/observability.md)', () => {
  it('is off by default, and tracer() is undefined until startTracing', () => {
    expect(tracingChoice(off, {})).toEqual({ on: false });
    expect(tracer()).toBeUndefined();
  });

  it('--otel turns it on; so does either OTLP endpoint variable', () => {
    expect(tracingChoice(on, {})).toMatchObject({ on: true, why: '--otel' });
    expect(tracingChoice(off, { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318' })).toMatchObject({
      on: true,
      why: 'OTEL_EXPORTER_OTLP_ENDPOINT is set',
    });
    expect(tracingChoice(off, { OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://c:4318/v1/traces' })).toMatchObject({
      on: true,
    });
    expect(tracingChoice(off, { OTEL_EXPORTER_OTLP_ENDPOINT: '  ' })).toEqual({ on: false });
  });

  it('OTEL_SDK_DISABLED=true and OTEL_TRACES_EXPORTER=none keep it off; with --otel that is a usage error', () => {
    expect(tracingChoice(off, { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c', OTEL_SDK_DISABLED: 'true' })).toEqual({
      on: false,
    });
    expect(tracingChoice(off, { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c', OTEL_TRACES_EXPORTER: 'none' })).toEqual({
      on: false,
    });
    expect(tracingChoice(on, { OTEL_TRACES_EXPORTER: 'none' })).toMatch(/--otel: tracing is turned off/);
  });

  it('an exporter or protocol toolgate does not ship is a usage error naming it', () => {
    expect(tracingChoice(on, { OTEL_TRACES_EXPORTER: 'zipkin' })).toMatch(/OTEL_TRACES_EXPORTER=zipkin/);
    expect(tracingChoice(on, { OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' })).toMatch(/OTEL_EXPORTER_OTLP_PROTOCOL=grpc/);
    expect(tracingChoice(on, { OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'http/protobuf' })).toMatch(/http\/protobuf/);
    expect(tracingChoice(on, { OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json', OTEL_TRACES_EXPORTER: 'otlp' })).toMatchObject(
      { on: true },
    );
  });

  it('content is recorded only when opted in, and opting in without tracing is a usage error', () => {
    expect(tracingChoice(on, {})).toMatchObject({ recordContent: false });
    expect(tracingChoice({ otel: true, recordContent: true }, {})).toMatchObject({ recordContent: true });
    expect(tracingChoice(on, { OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT: 'true' })).toMatchObject({
      recordContent: true,
    });
    expect(tracingChoice({ otel: false, recordContent: true }, {})).toMatch(/--otel-record-content: tracing is off/);
  });
});
