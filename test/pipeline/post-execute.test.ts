import { describe, expect, it } from 'vitest';
import type { CallRecord } from '../../host/src/pipeline/index.js';
import type { ContentBlock, Json, ToolResult } from '../../host/src/tool/index.js';
import { harness, recordingTool, text } from './helpers.js';

const schema = { type: 'object', properties: { secret: { type: 'string' }, n: { type: 'integer' } }, required: ['n'] };

describe('pipeline stage 5: tools/post-execute', () => {
  it('accept(content) replaces only the content and keeps the value', async () => {
    const h = harness();
    h.tools.register(recordingTool({ output: { schema }, body: () => ({ n: 1, secret: 'abc' }) }));
    h.hooks.on('tools/post-execute', 'present', (call) => call.accept([{ type: 'text', text: 'one result' }]));
    const r = await h.pipeline.call('rec', {});
    expect(text(r)).toBe('one result');
    expect(r.structuredContent).toEqual({ n: 1, secret: 'abc' });
    expect(r.isError).toBe(false);
  });

  it('accept({value}) is re-validated and re-rendered, and later listeners see the new value', async () => {
    const h = harness();
    h.tools.register(recordingTool({ output: { schema }, body: () => ({ n: 1, secret: 'abc' }) }));
    h.hooks.on('tools/post-execute', 'redact', (call) => call.accept({ value: { n: 1, secret: '[redacted]' } }));
    let seen: Json | undefined;
    h.hooks.on('tools/post-execute', 'later', (call) => void (seen = call.value));
    const r = await h.pipeline.call('rec', {});
    expect(r.structuredContent).toEqual({ n: 1, secret: '[redacted]' });
    expect(text(r)).toBe('{"n":1,"secret":"[redacted]"}');
    expect(seen).toEqual({ n: 1, secret: '[redacted]' });
  });

  it('accept({value}) that violates output.schema gives INVALID_OUTPUT', async () => {
    const h = harness();
    h.tools.register(recordingTool({ output: { schema }, body: () => ({ n: 1 }) }));
    h.hooks.on('tools/post-execute', 'breaker', (call) => call.accept({ value: { n: 'one' } }));
    const r = await h.pipeline.call('rec', {});
    expect(r.error?.code).toBe('INVALID_OUTPUT');
    expect(r.error?.message).toContain('output "n": must be integer');
  });

  it('accept with content and value together is an error', async () => {
    const h = harness();
    h.tools.register(recordingTool({ body: () => ({ n: 1 }) }));
    h.hooks.on('tools/post-execute', 'both', (call) => call.accept({ content: [], value: { n: 2 } } as never));
    const r = await h.pipeline.call('rec', {});
    expect(r.error).toEqual({
      code: 'LISTENER_ERROR',
      message: 'post-execute listener "both": accept() takes content or a value, not both',
    });
  });

  it('accept() with blocks that are not content is LISTENER_ERROR naming every content kind, and each of the five kinds is accepted', async () => {
    const h = harness();
    h.tools.register(recordingTool({ body: () => ({ n: 1 }) }));
    h.hooks.on('tools/post-execute', 'bad', (call) => call.accept([{ type: 'video', data: 'AA==' }] as never));
    const r = await h.pipeline.call('rec', {});
    expect(r.error).toEqual({
      code: 'LISTENER_ERROR',
      message:
        'post-execute listener "bad": content must be an array of content blocks, each of type text, image, audio, resource, resource_link',
    });
    const h2 = harness();
    h2.tools.register(recordingTool({ body: () => ({ n: 1 }) }));
    const all = [
      { type: 'text', text: 't' },
      { type: 'image', data: 'AA==', mimeType: 'image/png' },
      { type: 'audio', data: 'AA==', mimeType: 'audio/wav' },
      { type: 'resource', resource: { uri: 'file:///a', text: 'a' } },
      { type: 'resource_link', uri: 'file:///b', name: 'b' },
    ] as const;
    h2.hooks.on('tools/post-execute', 'all', (call) => call.accept([...all]));
    expect((await h2.pipeline.call('rec', {})).content).toEqual(all);
  });

  it('accept({value}) is not allowed on a failed result: a denial cannot be turned into data', async () => {
    const h = harness();
    h.tools.register(recordingTool());
    h.hooks.on('tools/pre-execute', 'deny', () => ({ kind: 'deny', reason: 'no' }));
    h.hooks.on('tools/post-execute', 'launder', (call) => call.accept({ value: { fake: true } }));
    const r = await h.pipeline.call('rec', {});
    expect(r.isError).toBe(true);
    expect(r.error?.code).toBe('LISTENER_ERROR');
    expect(r.error?.message).toContain('accept({value}) is not allowed on a failed result (DENIED)');
    expect(r.structuredContent).toBeUndefined();
  });

  it('block(feedback) makes the call isError BLOCKED with the feedback as content', async () => {
    const h = harness();
    h.tools.register(recordingTool({ body: () => ({ n: 1 }) }));
    h.hooks.on('tools/post-execute', 'dlp', (call) => call.block('output contained a credential; ask the user'));
    const r = await h.pipeline.call('rec', {});
    expect(r.isError).toBe(true);
    expect(r.error).toEqual({ code: 'BLOCKED', message: 'output contained a credential; ask the user' });
    expect(r.content).toEqual([{ type: 'text', text: 'output contained a credential; ask the user' }]);
    expect(r.structuredContent).toBeUndefined();
  });

  it('denials and failures pass through post-execute too', async () => {
    const h = harness();
    h.tools.register(
      recordingTool({
        body: () => {
          throw new Error('bang');
        },
      }),
    );
    h.tools.register(recordingTool({ name: 'other' }));
    h.hooks.on('tools/pre-execute', 'deny_other', (exec, next) =>
      exec.name === 'other' ? { kind: 'deny', reason: 'not other' } : next(),
    );
    const seen: [boolean, string | undefined][] = [];
    h.hooks.on('tools/post-execute', 'watch', (call) => void seen.push([call.result.isError, call.result.error?.code]));
    await h.pipeline.call('other', {});
    await h.pipeline.call('rec', {});
    expect(seen).toEqual([
      [true, 'DENIED'],
      [true, 'TOOL_ERROR'],
    ]);
  });

  it('a post-execute listener that throws gives LISTENER_ERROR', async () => {
    const h = harness();
    h.tools.register(recordingTool());
    h.hooks.on('tools/post-execute', 'bad', () => {
      throw new Error('nope');
    });
    expect((await h.pipeline.call('rec', {})).error).toEqual({
      code: 'LISTENER_ERROR',
      message: 'post-execute listener "bad" threw: nope',
    });
  });
});

describe('pipeline stage 6: finalizeContent', () => {
  it('finalizeContent runs exactly once on every result, failures included, on content only', async () => {
    const h = harness();
    const calls: [string, boolean][] = [];
    let fail = false;
    h.tools.register(
      recordingTool({
        body: () => {
          if (fail) throw new Error('broken');
          return { n: 1 };
        },
        finalizeContent: (content: ContentBlock[], result: Readonly<ToolResult>) => {
          calls.push([content.map((b) => (b.type === 'text' ? b.text : '')).join(), result.isError]);
          return [...content, { type: 'text', text: '(via toolgate)' }];
        },
      }),
    );
    h.hooks.on('tools/post-execute', 'two_listeners_a', () => {});
    h.hooks.on('tools/post-execute', 'two_listeners_b', () => {});
    const ok = await h.pipeline.call('rec', {});
    fail = true;
    const bad = await h.pipeline.call('rec', {});
    const invalid = await h.pipeline.call('rec', { n: 'x' });
    expect(calls).toEqual([
      ['{"n":1}', false],
      ['tool "rec" failed: broken', true],
      ['invalid arguments for tool "rec": argument "n": must be integer', true],
    ]);
    expect(text(ok)).toBe('{"n":1}\n(via toolgate)');
    expect(ok.structuredContent).toEqual({ n: 1 });
    expect(bad.error?.code).toBe('TOOL_ERROR');
    expect(text(invalid)).toContain('(via toolgate)');
  });

  it('finalizeContent returning undefined keeps the content; throwing gives TOOL_ERROR', async () => {
    const h = harness();
    h.tools.register(
      recordingTool({ name: 'keep', body: () => 'x', output: { render: 'text' }, finalizeContent: () => undefined }),
    );
    h.tools.register(
      recordingTool({
        name: 'boom',
        body: () => 'x',
        finalizeContent: () => {
          throw new Error('bad finalize');
        },
      }),
    );
    expect(text(await h.pipeline.call('keep', {}))).toBe('x');
    expect((await h.pipeline.call('boom', {})).error).toEqual({
      code: 'TOOL_ERROR',
      message: 'finalizeContent of tool "boom" threw: bad finalize',
    });
  });
});

describe('pipeline stage 7: freeze and tools/result', () => {
  it('the result is frozen and observers cannot change it', async () => {
    const h = harness();
    h.tools.register(recordingTool({ body: () => ({ n: 1 }) }));
    const errors: string[] = [];
    h.hooks.on('tools/result', 'vandal', (result) => {
      try {
        (result as ToolResult).isError = true;
      } catch (err) {
        errors.push((err as Error).name);
      }
      try {
        (result.content[0] as { text: string }).text = 'changed';
      } catch (err) {
        errors.push((err as Error).name);
      }
    });
    const r = await h.pipeline.call('rec', {});
    expect(errors).toEqual(['TypeError', 'TypeError']);
    expect(r.isError).toBe(false);
    expect(text(r)).toBe('{"n":1}');
    expect(Object.isFrozen(r)).toBe(true);
  });

  it('a throwing observer does not change the result and later observers still run', async () => {
    const h = harness();
    h.tools.register(recordingTool({ body: () => ({ n: 1 }) }));
    h.hooks.on('tools/result', 'thrower', () => {
      throw new Error('audit disk full');
    });
    const records: CallRecord[] = [];
    h.hooks.on('tools/result', 'after', (_r, rec) => void records.push(rec));
    const r = await h.pipeline.call('rec', {});
    expect(r.isError).toBe(false);
    expect(r.structuredContent).toEqual({ n: 1 });
    expect(records).toHaveLength(1);
    expect(h.logs).toEqual([{ level: 'warn', msg: 'tools/result observer "thrower" threw; ignored' }]);
  });

  it('observers get the decision trail: which listener decided and why', async () => {
    const h = harness();
    h.tools.register(recordingTool({ sensitiveArguments: true }));
    h.hooks.on('tools/pre-execute', 'plan_mode', (exec, next) =>
      exec.arguments.path === 'w' ? { kind: 'deny', reason: 'read-only plan' } : next(),
    );
    const records: CallRecord[] = [];
    h.hooks.on('tools/result', 'audit', (_r, rec) => void records.push(rec));
    await h.pipeline.call('rec', { path: 'w' }, { agent: 'planner' });
    const rec = records[0];
    expect(rec?.agent).toBe('planner');
    expect(rec?.sensitiveArguments).toBe(true);
    expect(rec?.trail).toMatchObject({
      decision: { kind: 'deny', reason: 'read-only plan' },
      decidedBy: 'plan_mode',
      final: 'denied',
    });
  });
});

describe('pipeline: explain', () => {
  it('explain computes the decision and guards without executing or asking anyone', async () => {
    const h = harness();
    const t = recordingTool();
    h.tools.register(t);
    const dry: boolean[] = [];
    h.hooks.on('tools/pre-execute', 'asker', (exec, next, info) => {
      dry.push(info.dryRun);
      return exec.arguments.path === 'ask' ? { kind: 'ask', reason: 'sensitive' } : next();
    });
    h.hooks.guard('env', (exec) => (exec.arguments.path === '.env' ? 'no dotenv' : undefined));
    expect(await h.pipeline.explain('rec', { path: 'ok' })).toMatchObject({
      outcome: 'allow',
      trail: { decidedBy: 'default' },
    });
    expect(await h.pipeline.explain('rec', { path: 'ask' })).toMatchObject({
      outcome: 'ask',
      reason: 'sensitive',
      trail: { decidedBy: 'asker' },
    });
    expect(await h.pipeline.explain('rec', { path: '.env' })).toMatchObject({
      outcome: 'deny',
      code: 'GUARD_DENIED',
      reason: 'no dotenv',
    });
    expect(await h.pipeline.explain('rec', { path: 5 })).toMatchObject({ outcome: 'invalid-args' });
    expect(await h.pipeline.explain('zzz', {})).toMatchObject({ outcome: 'unknown-tool' });
    expect(dry).toEqual([true, true, true]);
    expect(t.runs).toHaveLength(0);
  });
});
