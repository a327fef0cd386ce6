// `toolgate policy explain`: the decision chain without running the tool.
import { afterEach, expect, test } from 'vitest';
import { runShipped } from '../support/shipped-cli.js';
import { removeTemps, tempDir, writeFiles } from './helpers.js';

afterEach(() => {
  removeTemps();
});

function project(): string {
  const cwd = tempDir();
  writeFiles(cwd, {
    'pol/10.yaml': [
      'entries:',
      '  - { id: no-env, use: deny-args, with: { patterns: [{ glob: "**/.env*" }] } }',
      '  - { id: ask-echo, use: ask, with: { tools: [echo] } }',
      '  - { id: red, use: guard-paths, with: { deny: ["/etc/**"] } }',
      '  - { id: once, use: rate-limit, with: { capacity: 1, refillPerSecond: 0.001 } }',
    ].join('\n'),
    'open/10.yaml': 'entries:\n  - { id: red, use: guard-paths, with: { deny: ["/etc/**"] } }\n',
  });
  return cwd;
}

// through the shipped command (test/support/shipped-cli.ts)
function explain(cwd: string, argv: string[]) {
  return runShipped(['policy', 'explain', ...argv], { cwd, env: { TOOLGATE_HOME: cwd } });
}

test('a denied call: exit 1, the entry that decided and its reason, the chain in order', async () => {
  const cwd = project();
  const r = await explain(cwd, ['echo', '--args', '{"text":"config/.env"}', '--policies', 'pol']);
  expect(r.code).toBe(1);
  expect(r.out).toContain('outcome:    deny (DENIED)');
  expect(r.out).toContain('decided by: no-env');
  expect(r.out).toMatch(/1\. no-env\s+deny\s+argument "text" matches \*\*\/\.env\*/);
  expect(r.out).not.toContain('policy-set');
});

test('an ask: exit 1 and nobody is asked; rate limits are not consumed', async () => {
  const cwd = project();
  for (let i = 0; i < 3; i++) {
    const r = await explain(cwd, ['echo', '--args', '{"text":"hi"}', '--policies', 'pol']);
    expect(r.code).toBe(1);
    expect(r.out).toContain('outcome:    ask');
    expect(r.out).toContain('decided by: ask-echo');
  }
});

test('a guard denial shows the guard; an allowed call exits 0; --json prints the explanation', async () => {
  const cwd = project();
  const g = await explain(cwd, ['echo', '--args', '{"text":"/etc/passwd"}', '--policies', 'open']);
  expect(g.code).toBe(1);
  expect(g.out).toContain('(GUARD_DENIED)');
  expect(g.out).toContain('guard:      red:');
  const ok = await explain(cwd, ['echo', '--args', '{"text":"hi"}', '--policies', 'open', '--json']);
  expect(ok.code).toBe(0);
  expect(JSON.parse(ok.out)).toMatchObject({ tool: 'echo', outcome: 'allow', trail: { final: 'allowed' } });
});

test('usage errors exit 2: no tool, bad JSON, a broken policy set', async () => {
  const cwd = project();
  expect((await explain(cwd, [])).code).toBe(2);
  expect((await explain(cwd, ['echo', '--args', '{nope'])).code).toBe(2);
  writeFiles(cwd, { 'bad/a.yaml': 'entries:\n  - { id: x, use: nope }\n' });
  const bad = await explain(cwd, ['echo', '--policies', 'bad']);
  expect(bad.code).toBe(2);
  expect(bad.err).toMatch(/a\.yaml: entries\[0\] \(id "x"\)\.use: unknown policy "nope"/);
});

test('an unknown tool is a usage error (exit 2) naming the tool, like call and inspect', async () => {
  const cwd = project();
  const r = await explain(cwd, ['nope', '--policies', 'open']);
  expect(r.code).toBe(2);
  expect(r.out).toBe('');
  expect(r.err).toContain('no tool named "nope"');
});
