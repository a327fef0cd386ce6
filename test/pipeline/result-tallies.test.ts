// tools/result tallies (the server's call counters) beside tools/result observers: a tally reads the
// tool and the duration only, so a call with tallies alone builds no CallRecord, while an observer
// still gets the whole record, field for field, whatever tallies are registered beside it.
import { describe, expect, it } from 'vitest';
import type { CallRecord, DecisionTrail } from '../../host/src/pipeline/index.js';
import type { ToolResult } from '../../host/src/tool/index.js';
import { harness, recordingTool } from './helpers.js';

const TRACE = { traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01', tracestate: 'k=v' };

/** One call to a sensitive tool, with agent and trace, seen by an observer; `tally`: one beside it. */
async function observed(tally: boolean): Promise<{ record: CallRecord; tallied: number[] }> {
  const h = harness();
  h.tools.register(recordingTool({ sensitiveArguments: true }));
  const records: CallRecord[] = [];
  const tallied: number[] = [];
  h.hooks.on('tools/result', 'audit', (_r, rec) => void records.push(rec));
  if (tally) h.hooks.tally('metrics', (_r, _tool, durationMs) => void tallied.push(durationMs));
  await h.pipeline.call('rec', { path: 'a' }, { agent: 'planner', trace: TRACE, callId: 'c-1' });
  const record = records[0];
  if (record === undefined) throw new Error('the observer was not called');
  return { record, tallied };
}

describe('pipeline stage 7: tallies beside observers', () => {
  it('an observer sees every field of the record, in the same order, whether or not a tally is registered', async () => {
    const alone = await observed(false);
    const beside = await observed(true);
    const keys = [
      'callId',
      'tool',
      'agent',
      'trace',
      'arguments',
      'sensitiveArguments',
      'trail',
      'startedAt',
      'durationMs',
    ];
    for (const { record } of [alone, beside]) {
      expect(Object.keys(record)).toEqual(keys);
      expect(record).toMatchObject({
        callId: 'c-1',
        tool: 'rec',
        agent: 'planner',
        trace: TRACE,
        arguments: { path: 'a' },
        sensitiveArguments: true,
        trail: { decidedBy: 'default', final: 'allowed' },
      });
      expect(new Date(record.startedAt).toISOString()).toBe(record.startedAt);
      expect(record.durationMs).toBeGreaterThanOrEqual(0);
      expect(Object.isFrozen(record)).toBe(true);
      expect(Object.isFrozen(record.trace)).toBe(true);
      expect(Object.isFrozen(record.trail)).toBe(true);
      expect(Object.isFrozen(record.trail.steps)).toBe(true);
    }
    // the tally and the observer are told the same duration for the same call
    expect(beside.tallied).toEqual([beside.record.durationMs]);
  });

  it('a tally gets the frozen result, the tool name and the duration of every call, failed ones too', async () => {
    const h = harness();
    h.tools.register(recordingTool());
    const seen: { result: Readonly<ToolResult>; tool: string; durationMs: number }[] = [];
    h.hooks.tally('metrics', (result, tool, durationMs) => void seen.push({ result, tool, durationMs }));
    await h.pipeline.call('rec', { path: 'a' });
    await h.pipeline.call('rec', { n: 'not a number' });
    await h.pipeline.call('nope', {});
    expect(seen.map((s) => [s.tool, s.result.error?.code ?? 'ok'])).toEqual([
      ['rec', 'ok'],
      ['rec', 'INVALID_ARGS'],
      ['nope', 'UNKNOWN_TOOL'],
    ]);
    for (const s of seen) {
      expect(Object.isFrozen(s.result)).toBe(true);
      expect(s.durationMs).toBeGreaterThanOrEqual(0);
      expect(s.durationMs).toBeLessThan(10_000);
    }
  });

  it('a call with tallies and no observer builds no record (its trail is never frozen for one)', async () => {
    const trails = async (observer: boolean): Promise<DecisionTrail> => {
      const h = harness();
      h.tools.register(recordingTool());
      let trail: DecisionTrail | undefined;
      h.hooks.on('tools/post-execute', 'peek', (call) => {
        trail = call.trail;
      });
      h.hooks.tally('metrics', () => {});
      if (observer) h.hooks.on('tools/result', 'audit', () => {});
      await h.pipeline.call('rec', {});
      if (trail === undefined) throw new Error('post-execute did not run');
      return trail;
    };
    expect(Object.isFrozen(await trails(false))).toBe(false);
    expect(Object.isFrozen(await trails(true))).toBe(true);
  });

  it('a throwing tally is logged and ignored: the result stands and observers and later tallies still run', async () => {
    const h = harness();
    h.tools.register(recordingTool({ body: () => ({ n: 1 }) }));
    const ran: string[] = [];
    h.hooks.on('tools/result', 'audit', () => void ran.push('observer'));
    h.hooks.tally('broken', () => {
      throw new Error('counter overflow');
    });
    h.hooks.tally('after', () => void ran.push('tally'));
    const r = await h.pipeline.call('rec', {});
    expect(r.isError).toBe(false);
    expect(r.structuredContent).toEqual({ n: 1 });
    expect(ran).toEqual(['observer', 'tally']);
    expect(h.logs).toEqual([{ level: 'warn', msg: 'tools/result tally "broken" threw; ignored' }]);
  });

  it('a removed tally is no longer told of calls', async () => {
    const h = harness();
    h.tools.register(recordingTool());
    let n = 0;
    const off = h.hooks.tally('metrics', () => void n++);
    await h.pipeline.call('rec', {});
    off();
    await h.pipeline.call('rec', {});
    expect(n).toBe(1);
  });
});
