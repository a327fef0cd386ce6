// Hot reload: a new set is built beside the old one and swapped in at one point; every call runs
// under exactly one set, and a broken set never replaces a working one.
import { fileURLToPath } from 'node:url';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, expect, test } from 'vitest';
import { mountPolicies, type PolicyEvent } from '../../host/src/policy/index.js';
import { until } from '../support/poll.js';
import { removeTemps, setup, sleep, tool } from './helpers.js';

afterEach(removeTemps);
const fixture = (n: string): string => fileURLToPath(new URL(`./fixtures/${n}`, import.meta.url));
const tagLog = (): Map<string, string[]> => {
  const g = globalThis as { __toolgateTagLog?: Map<string, string[]> };
  g.__toolgateTagLog ??= new Map();
  return g.__toolgateTagLog;
};

const setYaml = (tag: string): string =>
  [
    'entries:',
    `  - { id: tag-${tag}, use: ${JSON.stringify(fixture('tagger.mjs'))}, with: { tag: ${tag}, delayMs: 3 } }`,
    `  - { id: no-secret-${tag}, use: deny-tools, with: { tools: [secret] } }`,
  ].join('\n');

test('reload under concurrent calls never lets through a call both sets deny and never mixes two sets in one call', async () => {
  tagLog().clear();
  const s = await setup({ 'set.yaml': setYaml('A') }, [
    tool('secret'),
    tool('open', { execute: async () => (await sleep(2), 'ok') }),
  ]);
  try {
    let stop = false;
    let reloads = 0;
    const reloader = (async () => {
      for (let i = 0; !stop && i < 200; i++) {
        s.write({ 'set.yaml': setYaml(i % 2 === 0 ? 'B' : 'A') });
        const r = await s.policies.reload();
        expect(r.ok).toBe(true);
        reloads++;
        await sleep(2);
      }
    })();
    const results: { name: string; callId: string; code: string | undefined }[] = [];
    for (let round = 0; round < 15; round++) {
      const batch = await Promise.all(
        Array.from({ length: 20 }, async (_, i) => {
          const name = i % 2 === 0 ? 'secret' : 'open';
          const r = await s.call(name);
          return { name, callId: String(r.meta?.callId), code: r.error?.code };
        }),
      );
      results.push(...batch);
    }
    stop = true;
    await reloader;
    expect(reloads).toBeGreaterThan(5);
    const secrets = results.filter((r) => r.name === 'secret');
    expect(secrets.every((r) => r.code === 'DENIED')).toBe(true);
    const seenTags = new Set<string>();
    for (const r of results.filter((x) => x.name === 'open')) {
      expect(r.code).toBeUndefined();
      const stages = tagLog().get(r.callId) ?? [];
      const tags = new Set(stages.map((st) => st.split(':')[1]));
      expect(tags.size, `${r.callId}: ${stages.join(',')}`).toBe(1);
      expect(stages.map((st) => st.split(':')[0])).toEqual(['pre', 'guard', 'exec', 'post', 'result']);
      for (const t of tags) seenTags.add(String(t));
    }
    expect([...seenTags].sort()).toEqual(['A', 'B']); // both sets really served calls
  } finally {
    await s.cleanup();
  }
});

test('a call in flight finishes under the set it started with', async () => {
  tagLog().clear();
  const s = await setup({ 'set.yaml': setYaml('A').replace('delayMs: 3', 'delayMs: 150') }, [tool('open')]);
  try {
    const inflight = s.call('open');
    await until('the call is pinned to set A', () => s.policies.pinnedCalls === 1);
    s.write({ 'set.yaml': setYaml('B') });
    expect((await s.policies.reload()).ok).toBe(true);
    const r = await inflight;
    const after = await s.call('open');
    expect(
      tagLog()
        .get(String(r.meta?.callId))
        ?.every((x) => x.endsWith(':A')),
    ).toBe(true);
    expect(
      tagLog()
        .get(String(after.meta?.callId))
        ?.every((x) => x.endsWith(':B')),
    ).toBe(true);
  } finally {
    await s.cleanup();
  }
});

test('a retired set is disposed only when its last in-flight call has finished; no pins leak', async () => {
  const state = ((
    globalThis as { __toolgateCounter?: { calls: number; disposed: number; intervals: number; services: string[] } }
  ).__toolgateCounter = {
    calls: 0,
    disposed: 0,
    intervals: 0,
    services: [],
  });
  const old = [
    'entries:',
    `  - { id: counter, use: ${JSON.stringify(fixture('counter.mjs'))}, with: { forbid: none } }`,
    `  - { id: tag, use: ${JSON.stringify(fixture('tagger.mjs'))}, with: { tag: A, delayMs: 120 } }`,
  ].join('\n');
  const s = await setup({ 'set.yaml': old }, [tool('open')]);
  try {
    const inflight = s.call('open');
    await until('the call is pinned', () => s.policies.pinnedCalls === 1);
    s.write({ 'set.yaml': 'entries:\n  - { id: plain, use: deny-tools, with: { tools: [nothing] } }\n' });
    expect((await s.policies.reload()).ok).toBe(true);
    expect(state.disposed).toBe(0); // still serving the call that started under it
    expect((await inflight).isError).toBe(false);
    await until('the retired set is disposed', () => state.disposed === 1);
    expect(s.policies.pinnedCalls).toBe(0);
    await Promise.all(Array.from({ length: 10 }, () => s.call('open')));
    await s.host.pipeline.explain('open', {});
    await s.call('no_such_tool');
    // every call's pin is released; only the explain's short-lived pin may still be held
    await until("the calls' pins are released", () => s.policies.pinnedCalls <= 1);
  } finally {
    await s.cleanup();
  }
});

test('a set that fails validation is rejected whole and the old one keeps serving', async () => {
  const s = await setup({ 'a.yaml': 'entries:\n  - { id: no-rm, use: deny-tools, with: { tools: [rm] } }\n' }, [
    tool('rm'),
    tool('ls'),
  ]);
  const events: PolicyEvent[] = [];
  s.services.events.on('rejected', (e) => events.push(e));
  s.services.events.on('changed', (e) => events.push(e));
  try {
    const before = s.host.hooks.snapshot()['tools/pre-execute'].length;
    // The first file is fine and would drop the deny; the second is broken: nothing of it may apply.
    s.write({
      'a.yaml': 'entries:\n  - { id: allow-all, use: allow-tools, with: { tools: ["*"] } }\n',
      'b.yaml': 'entries:\n  - { id: broken, use: deny-tools, with: { tool: [x] } }\n',
    });
    const r = await s.policies.reload();
    expect(r.ok).toBe(false);
    expect(r.ok ? '' : r.error).toContain('b.yaml');
    expect(s.host.hooks.snapshot()['tools/pre-execute'].length).toBe(before);
    expect((await s.call('rm')).error?.code).toBe('DENIED');
    expect(events.map((e) => e.type)).toEqual(['rejected']);
    expect(s.policies.generation).toBe(1);
  } finally {
    await s.cleanup();
  }
});

test('a module that throws at load is rejected whole: the entries mounted before it are undone', async () => {
  const s = await setup({ 'a.yaml': 'entries:\n  - { id: no-rm, use: deny-tools, with: { tools: [rm] } }\n' }, [
    tool('rm'),
  ]);
  try {
    const before = s.host.hooks.snapshot();
    s.write({
      'a.yaml': [
        'entries:',
        '  - { id: allow-all, use: allow-tools, with: { tools: ["*"] } }',
        `  - { id: explodes, use: ${JSON.stringify(fixture('boom.mjs'))} }`,
      ].join('\n'),
    });
    const r = await s.policies.reload();
    expect(r.ok).toBe(false);
    expect(r.ok ? '' : r.error).toMatch(/a\.yaml: entries\[1\] \(id "explodes".*boom at load/);
    const after = s.host.hooks.snapshot();
    expect(after['tools/pre-execute'].map((e) => e.id)).toEqual(before['tools/pre-execute'].map((e) => e.id));
    expect((await s.call('rm')).error?.code).toBe('DENIED');
  } finally {
    await s.cleanup();
  }
});

test('an accepted reload swaps the set, emits changed, and removes the old listeners', async () => {
  const s = await setup({ 'a.yaml': 'entries:\n  - { id: no-rm, use: deny-tools, with: { tools: [rm] } }\n' }, [
    tool('rm'),
  ]);
  const changed: PolicyEvent[] = [];
  s.services.events.on('changed', (e) => changed.push(e));
  try {
    s.write({ 'a.yaml': 'entries:\n  - { id: no-ls, use: deny-tools, with: { tools: [ls] } }\n' });
    const r = await s.policies.reload();
    expect(r).toEqual({ ok: true, generation: 2, entries: ['no-ls'] });
    expect(changed).toEqual([{ type: 'changed', dir: s.dir, generation: 2, entries: ['no-ls'] }]);
    expect((await s.call('rm')).isError).toBe(false);
    const ids = (): string[] => s.host.hooks.snapshot()['tools/pre-execute'].map((e) => e.id);
    await until('the old listeners are removed', () => ids().join() === 'policy-set,no-ls');
    expect(ids()).toEqual(['policy-set', 'no-ls']);
  } finally {
    await s.cleanup();
  }
});

test('with watch on, editing a file in the folder reloads the set (debounced)', async () => {
  const s = await setup({}, [tool('rm')]);
  await s.policies.dispose();
  try {
    writeFileSync(join(s.dir, 'a.yaml'), 'entries:\n  - { id: no-rm, use: deny-tools, with: { tools: [other] } }\n');
    const c = await mountPolicies(s.host.root, s.dir, { services: s.services, watch: true, debounceMs: 30 });
    expect((await s.call('rm')).isError).toBe(false);
    const changed = new Promise<PolicyEvent>((resolve) => s.services.events.on('changed', resolve));
    writeFileSync(join(s.dir, 'a.yaml'), 'entries:\n  - { id: no-rm, use: deny-tools, with: { tools: [rm] } }\n');
    const e = await Promise.race([changed, sleep(5_000).then(() => undefined)]);
    expect(e?.type).toBe('changed');
    expect((await s.call('rm')).error?.code).toBe('DENIED');
    await c.dispose();
  } finally {
    await s.cleanup();
  }
});
