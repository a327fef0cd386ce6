// The trace-content observer, apart from the built-in policies: the runtime registers it under any
// policy set, `--policies none` included, so importing it must not load the policy set's code
// (docs/decisions.md, "The policy code off the serve path").
import type { Json, JsonObject } from '../tool/index.js';
import type { ResultObserver } from '../pipeline/index.js';
import type { SecretValues } from './services.js';
import { tracer } from '../telemetry/index.js';
import { canonicalJson, sha256Hex } from '../digest/index.js';
import { redactText } from './secrets.js';
import { mapStrings } from './values.js';

/**
 * With tracing on and content recording opted in (`serve --otel-record-content`): the call's
 * arguments and result on its span as `gen_ai.tool.call.arguments` / `gen_ai.tool.call.result`,
 * redacted as the audit log redacts them (sensitive arguments as a digest; declared secret values
 * and token shapes cut). Not a policy: the operator's setting, registered by the runtime.
 */
export function traceContentObserver(
  secrets: SecretValues,
  secretNamesOf: (tool: string) => readonly string[],
): ResultObserver {
  return (result, record) => {
    const t = tracer();
    if (t === undefined || !t.recordContent) return;
    const values = secrets.valuesOf([...secretNamesOf(record.tool)]);
    const scrub = (v: Json): string =>
      JSON.stringify(mapStrings(v, (s) => redactText(s, { tokens: true, emails: false, values })).value);
    const args =
      record.arguments === undefined
        ? undefined
        : record.sensitiveArguments
          ? JSON.stringify({ argumentsSha256: sha256Hex(canonicalJson(record.arguments)) })
          : scrub(record.arguments as JsonObject);
    const value = result.structuredContent ?? (result.content as unknown as Json);
    const digest = (v: Json): string => JSON.stringify({ resultSha256: sha256Hex(canonicalJson(v)) });
    t.annotate({
      'gen_ai.tool.call.arguments': args,
      'gen_ai.tool.call.result': record.sensitiveArguments ? digest(value as Json) : scrub(value as Json),
    });
  };
}
