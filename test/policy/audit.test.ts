// The audit log: one chained record per call, secrets never written, and `toolgate audit verify`
// catches an edited, deleted or reordered line.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, expect, test } from 'vitest';
import { auditVerifyCommand } from '../../host/src/cli/commands/audit-verify.js';
import { runCli } from '../../host/src/cli/dispatch.js';
import { GENESIS, mountPolicies, verifyAuditText } from '../../host/src/policy/index.js';
import { captureIO } from './cli-io.js';
import { removeTemps, setup, tool, type Setup } from './helpers.js';

afterEach(removeTemps);

const SECRET = 'ghp_0123456789abcdefghijklmnopqrstuvwxyzAB';

async function audited(): Promise<{ s: Setup; file: string }> {
  const s = await setup(
    {},
    [
      tool('ls'),
      tool('rm'),
      tool('login', { sensitiveArguments: true }),
      tool('gh', {
        capabilities: { allowedHosts: [], allowedPaths: {}, secrets: ['GH_TOKEN'] },
        execute: () => ({ ok: true }),
      }),
    ],
    { env: { GH_TOKEN: 'declared-secret-value-123' } },
  );
  const file = join(s.tmp, 'logs', 'audit.jsonl');
  await s.policies.dispose();
  s.write({
    'set.yaml': [
      'entries:',
      `  - { id: audit, use: audit-log, with: { path: ${JSON.stringify(file)} } }`,
      '  - { id: no-rm, use: deny-tools, with: { tools: [rm] } }',
    ].join('\n'),
  });
  const policies = await mountPolicies(s.host.root, s.dir, { services: s.services });
  s.policies = policies;
  return { s, file };
}

const lines = (file: string): string[] =>
  readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l !== '');

test('one record per call with callId, tool, agent, arguments, decision chain, duration, outcome and error code', async () => {
  const { s, file } = await audited();
  try {
    const ok = await s.call('ls', { dir: '/tmp' }, { agent: 'agent-7' });
    const denied = await s.call('rm', { path: '/x' });
    const unknown = await s.call('nope', {});
    const recs = lines(file).map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(recs).toHaveLength(3);
    expect(recs[0]).toMatchObject({
      callId: ok.meta?.callId,
      tool: 'ls',
      agent: 'agent-7',
      arguments: { dir: '/tmp' },
      outcome: 'ok',
      prev: GENESIS,
      seq: 0,
    });
    expect(recs[0]?.decision).toMatchObject({ final: 'allowed', decidedBy: 'default' });
    expect(typeof recs[0]?.durationMs).toBe('number');
    expect(recs[1]).toMatchObject({
      callId: denied.meta?.callId,
      tool: 'rm',
      outcome: 'error',
      error: { code: 'DENIED' },
    });
    expect(recs[1]?.decision).toMatchObject({ final: 'denied', decidedBy: 'no-rm', decision: { kind: 'deny' } });
    expect(recs[2]).toMatchObject({ callId: unknown.meta?.callId, tool: 'nope', error: { code: 'UNKNOWN_TOOL' } });
    expect(recs[1]?.prev).toBe(recs[0]?.hash);
    expect(recs[2]?.prev).toBe(recs[1]?.hash);
    expect(verifyAuditText(readFileSync(file, 'utf8'))).toEqual({ ok: true, count: 3, lastHash: recs[2]?.hash });
  } finally {
    await s.cleanup();
  }
});

test('sensitive arguments are kept as a sha256 digest; token-shaped and declared secrets never reach the file', async () => {
  const { s, file } = await audited();
  try {
    await s.call('login', { user: 'bob', password: 'correct horse battery staple' });
    await s.call('ls', { auth: SECRET, note: 'Bearer abcdefghijklmnop' });
    await s.call('gh', { q: 'declared-secret-value-123' });
    const text = readFileSync(file, 'utf8');
    expect(text).not.toContain('correct horse');
    expect(text).not.toContain(SECRET);
    expect(text).not.toContain('abcdefghijklmnop');
    expect(text).not.toContain('declared-secret-value-123');
    const first = JSON.parse(lines(file)[0] ?? '{}') as Record<string, unknown>;
    expect(first.arguments).toBeUndefined();
    expect(first.argumentsSha256).toMatch(/^[0-9a-f]{64}$/);
    expect(verifyAuditText(text).ok).toBe(true);
  } finally {
    await s.cleanup();
  }
});

test('audit verify catches an edited line, a deleted line and a reordered pair, naming the line', async () => {
  const { s, file } = await audited();
  try {
    for (let i = 0; i < 5; i++) await s.call('ls', { i });
    const good = lines(file);
    const check = (ls: string[]) => verifyAuditText(`${ls.join('\n')}\n`);
    expect(check(good)).toMatchObject({ ok: true, count: 5 });

    const edited = [...good];
    edited[2] = (edited[2] ?? '').replace('"i":2', '"i":9');
    expect(check(edited)).toMatchObject({ ok: false, line: 3, reason: expect.stringContaining('edited') });

    const deleted = good.filter((_, i) => i !== 1);
    expect(check(deleted)).toMatchObject({ ok: false, line: 2, reason: expect.stringContaining('deleted') });

    const reordered = [good[0], good[2], good[1], good[3], good[4]] as string[];
    expect(check(reordered)).toMatchObject({ ok: false, line: 2 });

    // The command: exit 0 with the count, exit 1 naming the line.
    const io = captureIO(s.tmp);
    expect(await runCli(['audit', 'verify', file], io, [auditVerifyCommand])).toBe(0);
    expect(io.out()).toContain('intact, 5 records');
    writeFileSync(file, `${edited.join('\n')}\n`);
    const io2 = captureIO(s.tmp);
    expect(await runCli(['audit', 'verify', file], io2, [auditVerifyCommand])).toBe(1);
    expect(io2.out()).toContain('line 3:');
    const io3 = captureIO(s.tmp);
    expect(await runCli(['audit', 'verify', join(s.tmp, 'missing.jsonl')], io3, [auditVerifyCommand])).toBe(2);
  } finally {
    await s.cleanup();
  }
});

test('the chain continues across a reload and across reopening the file', async () => {
  const { s, file } = await audited();
  try {
    await s.call('ls');
    s.write({ 'more.yaml': 'entries:\n  - { id: no-mv, use: deny-tools, with: { tools: [mv] } }\n' });
    expect((await s.policies.reload()).ok).toBe(true);
    await s.call('ls');
    await s.policies.dispose();
    const again = await mountPolicies(s.host.root, s.dir, { services: s.services });
    await s.call('rm');
    await again.dispose();
    const recs = lines(file).map((l) => JSON.parse(l) as { seq: number });
    expect(recs.map((r) => r.seq)).toEqual([0, 1, 2]);
    expect(verifyAuditText(readFileSync(file, 'utf8'))).toMatchObject({ ok: true, count: 3 });
  } finally {
    await s.cleanup();
  }
});

test('a record longer than one read window (a 3 MiB argument) still links the next start to it', async () => {
  const { s, file } = await audited();
  try {
    // a caller decides how long a record is: its arguments are audited even when the call fails
    await s.call('ls', { dir: 'x'.repeat(3 << 20) });
    await s.policies.dispose();
    s.policies = await mountPolicies(s.host.root, s.dir, { services: s.services });
    await s.call('ls');
    const recs = lines(file).map((l) => JSON.parse(l) as { seq: number });
    expect(recs.map((r) => r.seq)).toEqual([0, 1]);
    expect(verifyAuditText(readFileSync(file, 'utf8'))).toMatchObject({ ok: true, count: 2 });
  } finally {
    await s.cleanup();
  }
});
