import { describe, expect, it } from 'vitest';
import type { CallRecord } from '../../host/src/pipeline/index.js';
import type { ExecIdentity, JsonObject } from '../../host/src/tool/index.js';
import { harness, recordingTool, text } from './helpers.js';

describe('pipeline stage 1: materialize', () => {
  it('an unknown tool gives UNKNOWN_TOOL and no listener runs', async () => {
    const h = harness();
    let ran = 0;
    h.hooks.on('tools/pre-execute', 'p', (_e, next) => (ran++, next()));
    h.hooks.on('tools/post-execute', 'q', () => void ran++);
    const r = await h.pipeline.call('nope', {});
    expect(r.isError).toBe(true);
    expect(r.error).toEqual({ code: 'UNKNOWN_TOOL', message: 'unknown tool "nope"' });
    expect(ran).toBe(0);
  });

  it('invalid arguments give INVALID_ARGS naming the field and the rule, and execute never runs', async () => {
    const h = harness();
    const t = recordingTool();
    h.tools.register(t);
    const r = await h.pipeline.call('rec', { n: 'three' });
    expect(r.error?.code).toBe('INVALID_ARGS');
    expect(text(r)).toBe('invalid arguments for tool "rec": argument "n": must be integer');
    expect(t.runs).toHaveLength(0);
  });

  it('a signal already aborted gives ABORTED_BEFORE_DISPATCH and neither listeners nor execute run', async () => {
    const h = harness();
    const t = recordingTool();
    h.tools.register(t);
    let listened = false;
    h.hooks.on('tools/pre-execute', 'p', (_e, next) => ((listened = true), next()));
    const r = await h.pipeline.call('rec', {}, { signal: AbortSignal.abort() });
    expect(r.error?.code).toBe('ABORTED_BEFORE_DISPATCH');
    expect(listened).toBe(false);
    expect(t.runs).toHaveLength(0);
  });

  it('arguments are frozen: a listener cannot change them, and execute, observers and the result see the original', async () => {
    const h = harness();
    const t = recordingTool();
    h.tools.register(t);
    const attempts: string[] = [];
    h.hooks.on('tools/pre-execute', 'meddler', (exec, next) => {
      try {
        (exec.arguments as JsonObject).path = '/etc/passwd';
      } catch (err) {
        attempts.push((err as Error).constructor.name);
      }
      try {
        (exec as { name: string }).name = 'other';
      } catch (err) {
        attempts.push((err as Error).constructor.name);
      }
      return next();
    });
    let observed: Readonly<JsonObject> | undefined;
    h.hooks.on('tools/result', 'obs', (_r, rec) => void (observed = rec.arguments));
    const r = await h.pipeline.call('rec', { path: 'notes.txt' });
    expect(attempts).toEqual(['TypeError', 'TypeError']);
    expect(t.runs[0]).toEqual({ path: 'notes.txt' });
    expect(Object.isFrozen(t.runs[0])).toBe(true);
    expect(observed).toEqual({ path: 'notes.txt' });
    expect(r.structuredContent).toEqual({ echoed: { path: 'notes.txt' } });
  });

  it('each call gets its own callId, the same in exec, the result meta and the observer record', async () => {
    const h = harness();
    const seen: string[] = [];
    h.tools.register(recordingTool({ execute: (_a, exec: ExecIdentity) => (seen.push(exec.callId), null) }));
    const records: CallRecord[] = [];
    h.hooks.on('tools/result', 'obs', (_r, rec) => void records.push(rec));
    const r1 = await h.pipeline.call('rec', {});
    const r2 = await h.pipeline.call('rec', {});
    expect(r1.meta?.callId).toBe(seen[0]);
    expect(r2.meta?.callId).toBe(seen[1]);
    expect(seen[0]).not.toBe(seen[1]);
    expect(records.map((r) => r.callId)).toEqual(seen);
  });
});
