// Policy set files: errors name the file, the entry and the key; modules from a path load and
// their disposal undoes everything they registered.
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import { afterEach, expect, test } from 'vitest';
import { createPluginHost } from '../../host/src/plugin/index.js';
import { createPolicyServices, mountPolicies, parsePolicySet, PolicyConfigError } from '../../host/src/policy/index.js';
import { noTty, removeTemps, setup, sleep, tempDir, tool, writeFiles } from './helpers.js';

afterEach(removeTemps);
const fixture = (n: string): string => fileURLToPath(new URL(`./fixtures/${n}`, import.meta.url));

async function problem(files: Record<string, string>): Promise<string> {
  const dir = tempDir();
  writeFiles(dir, files);
  try {
    await parsePolicySet(dir);
  } catch (err) {
    expect(err).toBeInstanceOf(PolicyConfigError);
    return (err as Error).message;
  }
  throw new Error('the set was accepted');
}

test('a bad key inside `with` names the file, the entry index and id, and the key path', async () => {
  const msg = await problem({
    '10-org.yaml':
      'entries:\n  - { id: fine, use: deny-tools, with: { tools: [a] } }\n  - { id: cap, use: max-output, with: { bytes: -5 } }\n',
  });
  expect(msg).toMatch(/10-org\.yaml: entries\[1\] \(id "cap"\): with\.bytes: /);
});

test('an unknown key in an entry, a missing use and a bad id are refused by name', async () => {
  expect(
    await problem({ 'a.yaml': 'entries:\n  - { id: x, use: deny-tools, with: { tools: [a] }, enabled: true }\n' }),
  ).toMatch(/a\.yaml: entries\[0\] \(id "x"\): .*enabled/);
  expect(await problem({ 'a.yaml': 'entries:\n  - { id: x }\n' })).toMatch(/a\.yaml: entries\[0\] \(id "x"\): use: /);
  expect(await problem({ 'a.yaml': 'entries:\n  - { id: "bad id!", use: plan-mode }\n' })).toMatch(
    /entries\[0\] \(id "bad id!"\): id: /,
  );
});

test('deep keys are named: an invalid regex, a bad URL in approvals', async () => {
  expect(
    await problem({
      'a.yaml': 'entries:\n  - { id: r, use: deny-args, with: { patterns: [{ glob: ok }, { regex: "(" }] } }\n',
    }),
  ).toMatch(/entries\[0\] \(id "r"\): with\.patterns\[1\]\.regex: invalid regular expression/);
  expect(
    await problem({
      'a.yaml': 'entries:\n  - { id: ap, use: approvals, with: { channels: [tty, { http: { url: "ftp://x" } }] } }\n',
    }),
  ).toMatch(/entries\[0\] \(id "ap"\): with\.channels\[1\]/);
});

test('a regex RE2 cannot run in linear time is refused at load, naming the file, entry, key and pattern', async () => {
  expect(
    await problem({
      'deny.yaml': 'entries:\n  - { id: r, use: deny-args, with: { patterns: [{ regex: "^(?=admin)" }] } }\n',
    }),
  ).toMatch(
    /deny\.yaml: entries\[0\] \(id "r"\): with\.patterns\[0\]\.regex: invalid regular expression "\^\(\?=admin\)": .*RE2/,
  );
  expect(
    await problem({ 'out.yaml': 'entries:\n  - { id: red, use: redact, with: { patterns: ["(a)\\\\1"] } }\n' }),
  ).toMatch(/out\.yaml: entries\[0\] \(id "red"\): with\.patterns\[0\]: invalid regular expression "\(a\)\\\\1"/);
});

test('a file that is not a mapping with entries, or not YAML, is refused with the file name', async () => {
  expect(await problem({ 'a.yaml': '- { id: x, use: plan-mode }\n' })).toMatch(/a\.yaml: .*entries/);
  expect(await problem({ 'b.yaml': 'entries: [ { id: x, use: plan-mode }\n' })).toMatch(/b\.yaml: not valid YAML/);
});

test('ids are unique across the whole set', async () => {
  const msg = await problem({
    '00-a.yaml': 'entries:\n  - { id: same, use: plan-mode }\n',
    '10-b.yaml': 'entries:\n  - { id: same, use: deny-tools, with: { tools: [x] } }\n',
  });
  expect(msg).toMatch(/10-b\.yaml: entries\[0\] \(id "same"\): id "same" is already used in .*00-a\.yaml/);
});

test('an unknown built-in is refused with the list of built-ins', async () => {
  expect(await problem({ 'a.yaml': 'entries:\n  - { id: x, use: deny-everything }\n' })).toMatch(
    /entries\[0\] \(id "x"\)\.use: unknown policy "deny-everything" \(built-ins: deny-tools, allow-tools/,
  );
});

test('a TypeScript module path is refused with a clear message; a missing module is named', async () => {
  expect(await problem({ 'a.yaml': `entries:\n  - { id: t, use: ${JSON.stringify(fixture('typed.ts'))} }\n` })).toMatch(
    /is TypeScript; toolgate runs compiled JavaScript/,
  );
  expect(await problem({ 'a.yaml': 'entries:\n  - { id: t, use: ./nope.mjs }\n' })).toMatch(
    /policy module not found: .*nope\.mjs/,
  );
  expect(
    await problem({ 'a.yaml': `entries:\n  - { id: t, use: ${JSON.stringify(fixture('bad-inject.mjs'))} }\n` }),
  ).toMatch(/"inject" must list only logger, metrics/);
});

test('a module path is relative to the YAML file that names it', async () => {
  const dir = tempDir();
  writeFiles(dir, {
    'sub/set.yaml': 'entries:\n  - { id: local, use: ../mods/local.mjs }\n',
    'mods/local.mjs':
      "export const name = 'local'; export function apply(ctx) { ctx.on('tools/pre-execute', ctx.entryId, () => ({ kind: 'deny', reason: 'local says no' })); }\n",
  });
  const set = await parsePolicySet(join(dir, 'sub'));
  expect(set.entries.map((e) => e.module.name)).toEqual(['local']);
});

test('disabled entries are validated but not mounted', async () => {
  const s = await setup(
    { 'a.yaml': 'entries:\n  - { id: off, use: deny-tools, with: { tools: [rm] }, disabled: true }\n' },
    [tool('rm')],
  );
  try {
    expect(s.policies.entries).toEqual([]);
    expect((await s.call('rm')).isError).toBe(false);
  } finally {
    await s.cleanup();
  }
});

test('a policy module from a path (.mjs) loads with its injected services, and its disposal undoes all it registered', async () => {
  const state = ((
    globalThis as { __toolgateCounter?: { calls: number; disposed: number; intervals: number; services: string[] } }
  ).__toolgateCounter = {
    calls: 0,
    disposed: 0,
    intervals: 0,
    services: [],
  });
  const dir = tempDir();
  writeFiles(dir, {
    'a.yaml': `entries:\n  - { id: counter, use: ${JSON.stringify(fixture('counter.mjs'))}, with: { forbid: rm } }\n`,
  });
  const host = createPluginHost();
  host.root.plugin(
    (ctx) => {
      ctx.tool(tool('rm'));
      ctx.tool(tool('ls'));
    },
    undefined,
    { name: 'tools' },
  );
  const services = createPolicyServices({ auditPath: join(dir, 'audit.jsonl'), env: {}, tty: noTty() });
  const c = await mountPolicies(host.root, dir, { services });
  try {
    expect(state.services).toEqual(['logger', 'metrics']);
    expect((await host.pipeline.call('ls', {})).isError).toBe(false);
    const rm = await host.pipeline.call('rm', {});
    expect(rm.error?.code).toBe('GUARD_DENIED');
    expect(rm.meta?.decision).toMatchObject({ guard: { id: 'counter/no-forbidden' } });
    expect(state.calls).toBe(2);
    const snap = host.hooks.snapshot();
    expect(snap['tools/pre-execute'].map((e) => e.id)).toContain('counter/count');
    await sleep(30);
    expect(state.intervals).toBeGreaterThan(0);

    await c.dispose();
    const after = host.hooks.snapshot();
    expect(after['tools/pre-execute']).toHaveLength(0);
    expect(after.guards).toHaveLength(0);
    expect(after['tools/result']).toHaveLength(0);
    expect(state.disposed).toBe(1);
    const ticks = state.intervals;
    await sleep(30);
    expect(state.intervals).toBe(ticks);
    expect((await host.pipeline.call('rm', {})).isError).toBe(false);
  } finally {
    await host.dispose();
  }
});

test('an empty folder is an empty set: every call is allowed by default', async () => {
  const s = await setup({}, [tool('ls')]);
  try {
    expect(s.policies.entries).toEqual([]);
    expect((await s.call('ls')).isError).toBe(false);
  } finally {
    await s.cleanup();
  }
});

test('policyLoader (the runtime hook) mounts with the services it is given; createPolicyLoader reports the controller', async () => {
  const { createPolicyLoader, policyLoader } = await import('../../host/src/policy/index.js');
  const dir = tempDir();
  writeFiles(dir, {
    'a.yaml': 'entries:\n  - { id: stats, use: metrics }\n  - { id: no-rm, use: deny-tools, with: { tools: [rm] } }\n',
  });
  const host = createPluginHost();
  host.root.plugin((ctx) => void ctx.tool(tool('rm')), undefined, { name: 'tools' });
  const services = createPolicyServices({ auditPath: join(dir, 'audit.jsonl'), env: {}, tty: noTty() });
  try {
    await policyLoader(host.root, dir, { explicit: true, services });
    expect((await host.pipeline.call('rm', {})).error?.code).toBe('DENIED');
    expect(services.metrics.renderMetrics()).toContain('toolgate_denials_total{entry="no-rm"} 1');
    const seen: string[][] = [];
    await createPolicyLoader({ services, onMount: (c) => seen.push([...c.entries]) })(host.root, dir, {
      explicit: false,
    });
    expect(seen).toEqual([['stats', 'no-rm']]);
  } finally {
    await host.dispose();
  }
});

test('a module that throws at the first load fails the mount with a PolicyConfigError naming file and entry, leaving nothing behind', async () => {
  const dir = tempDir();
  writeFiles(dir, {
    'a.yaml': `entries:\n  - { id: fine, use: deny-tools, with: { tools: [x] } }\n  - { id: explodes, use: ${JSON.stringify(fixture('boom.mjs'))} }\n`,
  });
  const host = createPluginHost();
  const services = createPolicyServices({ auditPath: join(dir, 'audit.jsonl'), env: {}, tty: noTty() });
  try {
    const err = await mountPolicies(host.root, dir, { services }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(PolicyConfigError);
    expect((err as Error).message).toMatch(
      /a\.yaml: entries\[1\] \(id "explodes", use .*boom\.mjs\) failed to load: boom at load/,
    );
    const snap = host.hooks.snapshot();
    expect(snap['tools/pre-execute']).toHaveLength(0);
    expect(snap['tools/result']).toHaveLength(0);
    expect(host.pipeline.approval).toBeUndefined();
  } finally {
    await host.dispose();
  }
});
