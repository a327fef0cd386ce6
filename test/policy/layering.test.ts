// Order decides who may deny first; guards are red lines no order and no allow can cross.
import { fileURLToPath } from 'node:url';
import { afterEach, expect, test } from 'vitest';
import { InMemoryApprovalService } from '../../host/src/approval/index.js';
import { removeTemps, setup, tool } from './helpers.js';

afterEach(removeTemps);
const fixture = (n: string): string => fileURLToPath(new URL(`./fixtures/${n}`, import.meta.url));

test('an org deny in an earlier file beats a project allow in a later one', async () => {
  const s = await setup(
    {
      '00-org.yaml': 'entries:\n  - { id: org-no-rm, use: deny-tools, with: { tools: [rm] } }\n',
      '50-project.yaml': 'entries:\n  - { id: project-allow, use: allow-tools, with: { tools: [rm, ls] } }\n',
    },
    [tool('rm'), tool('ls')],
  );
  try {
    const rm = await s.call('rm');
    expect(rm.error?.code).toBe('DENIED');
    expect(s.policies.entries).toEqual(['org-no-rm', 'project-allow']);
    expect((await s.call('ls')).isError).toBe(false);
  } finally {
    await s.cleanup();
  }
});

test('deny-tools is a red line: a project allow in an earlier file does not overturn an org deny in a later one', async () => {
  const s = await setup(
    {
      '00-project.yaml': 'entries:\n  - { id: project-allow, use: allow-tools, with: { tools: [rm, ls] } }\n',
      '50-org.yaml': 'entries:\n  - { id: org-no-rm, use: deny-tools, with: { tools: [rm] } }\n',
    },
    [tool('rm'), tool('ls')],
  );
  try {
    const rm = await s.call('rm');
    expect(rm.error?.code).toBe('DENIED');
    // The allow ended the chain; the deny-tools guard still said no.
    expect(rm.meta?.decision).toMatchObject({ decidedBy: 'project-allow', guard: { id: 'org-no-rm' } });
    expect((await s.call('ls')).isError).toBe(false);
  } finally {
    await s.cleanup();
  }
});

test('files are read in name order: the same reorderable entries in swapped files swap the outcome', async () => {
  const mk = (first: string, second: string) =>
    setup(
      {
        '00.yaml': `entries:\n  - ${first}\n`,
        '50.yaml': `entries:\n  - ${second}\n`,
      },
      [tool('rm')],
    );
  const allow = '{ id: project-allow, use: allow-tools, with: { tools: [rm] } }';
  const ask = '{ id: ask-rm, use: ask, with: { tools: [rm] } }';
  const allowFirst = await mk(allow, ask);
  const askFirst = await mk(ask, allow);
  try {
    expect((await allowFirst.call('rm')).isError).toBe(false); // the allow decided before ask was reached
    expect((await askFirst.call('rm')).error?.code).toBe('APPROVAL_DENIED'); // ask first: nobody to answer
  } finally {
    await allowFirst.cleanup();
    await askFirst.cleanup();
  }
});

function permutations<T>(items: T[]): T[][] {
  if (items.length <= 1) return [items];
  return items.flatMap((x, i) => permutations([...items.slice(0, i), ...items.slice(i + 1)]).map((p) => [x, ...p]));
}

test('a guard red line holds under every ordering and every allow in pre-execute', async () => {
  const entries = [
    '  - { id: red-line, use: guard-paths, with: { deny: ["/etc/**"] } }',
    '  - { id: allow-list, use: allow-tools, with: { tools: ["*"] } }',
    `  - { id: allow-everything, use: ${JSON.stringify(fixture('allow-all.mjs'))} }`,
    '  - { id: ask-read, use: ask, with: { tools: [read] } }',
  ];
  const orders = permutations(entries);
  expect(orders).toHaveLength(24);
  for (const order of orders) {
    // Every ask is approved: the only thing left that could stop the call is the guard.
    const approval = new InMemoryApprovalService([], 'allowed-once');
    const s = await setup({ 'set.yaml': `entries:\n${order.join('\n')}\n` }, [tool('read')], { approval });
    try {
      const bad = await s.call('read', { path: '/etc/shadow' });
      expect(bad.error?.code, order.join(' | ')).toBe('GUARD_DENIED');
      const good = await s.call('read', { path: '/tmp/ok' });
      expect(good.isError, order.join(' | ')).toBe(false);
    } finally {
      await s.cleanup();
    }
  }
});
