// tools/result observers: the audit log and the metrics. Both are synchronous and read-only.
import { isAbsolute, resolve } from 'node:path';
import { z } from 'zod';
import type { Json, JsonObject } from '../../tool/index.js';
import type { CallRecord } from '../../pipeline/index.js';
import { canonicalJson, sha256Hex } from '../../digest/index.js';
import { definePolicy, service } from '../module.js';
import { redactText } from '../secrets.js';
import { mapStrings } from '../values.js';

function trailJson(record: CallRecord): Json {
  return JSON.parse(JSON.stringify(record.trail)) as Json;
}

export const auditLog = definePolicy({
  name: 'audit-log',
  inject: ['audit', 'secrets'],
  config: z
    .strictObject({
      /** Default $TOOLGATE_HOME/audit.jsonl; a relative path is relative to the working directory. */
      path: z.string().min(1).optional(),
    })
    .default({}),
  apply(ctx, cfg) {
    const audit = service(ctx, 'audit');
    const secrets = service(ctx, 'secrets');
    const path = cfg.path === undefined ? audit.defaultPath : isAbsolute(cfg.path) ? cfg.path : resolve(cfg.path);
    const { writer, release } = audit.open(path);
    ctx.effect(() => release);
    ctx.on('tools/result', ctx.entryId, (result, record) => {
      const tool = ctx.tools.get(record.tool) ?? ctx.tools.operation(record.tool);
      const secretValues = secrets.valuesOf(tool?.definition.capabilities?.secrets ?? []);
      let args: JsonObject = {};
      if (record.arguments !== undefined) {
        args = record.sensitiveArguments
          ? { argumentsSha256: sha256Hex(canonicalJson(record.arguments)) }
          : { arguments: record.arguments as JsonObject };
      }
      const trace: JsonObject = {
        ...record.trace,
        ...(record.traceId !== undefined ? { traceId: record.traceId } : {}),
      };
      const raw: JsonObject = {
        v: 1,
        time: record.startedAt,
        callId: record.callId,
        tool: record.tool,
        ...(record.agent !== undefined ? { agent: record.agent } : {}),
        ...(Object.keys(trace).length > 0 ? { trace } : {}),
        ...args,
        decision: trailJson(record),
        durationMs: Math.round(record.durationMs * 1000) / 1000,
        outcome: result.isError ? 'error' : 'ok',
        ...(result.error ? { error: { code: result.error.code, message: result.error.message } } : {}),
      };
      // Secrets never reach the file: declared secret values and token shapes are cut everywhere.
      // Top-level keys are the record's own field names; everything under them (argument keys too) is scrubbed.
      const scrub = (s: string): string => redactText(s, { tokens: true, emails: false, values: secretValues });
      const clean: JsonObject = {};
      for (const [k, v] of Object.entries(raw)) clean[k] = mapStrings(v, scrub).value;
      writer.append(clean);
    });
  },
});

export const metrics = definePolicy({
  name: 'metrics',
  inject: ['metrics'],
  config: z.strictObject({}).default({}),
  apply(ctx) {
    const m = service(ctx, 'metrics');
    ctx.on('tools/result', ctx.entryId, (result, record) => {
      const outcome = result.isError ? (result.error?.code ?? 'error') : 'ok';
      m.calls.inc({ tool: record.tool, outcome });
      m.duration.observe({ tool: record.tool }, record.durationMs / 1000);
      if (result.error?.code === 'TIMEOUT') m.timeouts.inc({ tool: record.tool });
      if (record.trail.final === 'denied') {
        m.denials.inc({ entry: record.trail.guard?.id ?? record.trail.decidedBy ?? 'pipeline' });
      }
    });
  },
});
