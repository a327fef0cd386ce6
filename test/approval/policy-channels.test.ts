// The approvals policy entry wires channels into the pipeline: ask + HTTP callback end to end.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, expect, test } from 'vitest';
import { removeTemps, setup, tool } from '../policy/helpers.js';

const servers: Server[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) {
    s.closeAllConnections();
    await new Promise<void>((r) => s.close(() => r()));
  }
  removeTemps();
});

async function callback(answers: string[]): Promise<{ url: string; bodies: unknown[] }> {
  const bodies: unknown[] = [];
  const server = createServer((rq, rs) => {
    let body = '';
    rq.on('data', (c: Buffer) => (body += c.toString()));
    rq.on('end', () => {
      bodies.push(JSON.parse(body) as unknown);
      rs.end(JSON.stringify({ outcome: answers.shift() ?? 'rejected' }));
    });
  });
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`, bodies };
}

test('ask with the HTTP callback: allowed-once runs the call once, rejected denies', async () => {
  const cb = await callback(['allowed-once', 'rejected']);
  const s = await setup(
    {
      'a.yaml': [
        'entries:',
        `  - { id: channels, use: approvals, with: { channels: [tty, { http: { url: ${JSON.stringify(cb.url)}, timeoutMs: 2000 } }] } }`,
        '  - { id: ask-rm, use: ask, with: { tools: [rm] } }',
      ].join('\n'),
    },
    [tool('rm')],
  );
  try {
    const first = await s.call('rm', { path: '/tmp/x' });
    expect(first.isError).toBe(false);
    expect(first.meta?.decision).toMatchObject({ approval: { outcome: 'allowed-once' } });
    const second = await s.call('rm', { path: '/tmp/x' });
    expect(second.error?.code).toBe('APPROVAL_DENIED');
    expect(cb.bodies).toHaveLength(2); // the TTY was skipped: no terminal in tests
    expect(cb.bodies[0]).toMatchObject({ tool: 'rm', decidedBy: 'ask-rm', arguments: { path: '/tmp/x' } });
  } finally {
    await s.cleanup();
  }
});

test('ask with the TTY absent and no other channel denies', async () => {
  const s = await setup(
    {
      'a.yaml':
        'entries:\n  - { id: channels, use: approvals, with: { channels: [tty] } }\n  - { id: ask-rm, use: ask, with: { tools: [rm] } }\n',
    },
    [tool('rm')],
  );
  try {
    const r = await s.call('rm');
    expect(r.error?.code).toBe('APPROVAL_DENIED');
    expect(r.meta?.decision).toMatchObject({ approval: { outcome: 'unavailable' } });
  } finally {
    await s.cleanup();
  }
});

test('the queue channel: with nothing serving it an ask is denied at once; served, a pending approval resolved by id lets the call run; a timeout denies', async () => {
  const s = await setup(
    {
      'a.yaml':
        'entries:\n  - { id: channels, use: approvals, with: { channels: [queue] } }\n  - { id: ask-rm, use: ask, with: { tools: [rm] } }\n',
    },
    [tool('rm')],
    { approvalTimeoutMs: 300 },
  );
  try {
    // Nothing serves the queue (no `serve --http`): nobody could answer, so no wait.
    const unserved = await s.call('rm');
    expect(unserved.meta?.decision).toMatchObject({ approval: { outcome: 'unavailable' } });
    expect(s.services.queue.list()).toHaveLength(0);
    const close = s.services.queue.openForAnswers();
    const pending = s.call('rm');
    for (let i = 0; i < 50 && s.services.queue.list().length === 0; i++) await new Promise((r) => setTimeout(r, 5));
    const [item] = s.services.queue.list();
    expect(item?.tool).toBe('rm');
    s.services.queue.resolve(item?.id ?? '', 'allowed-once');
    expect((await pending).isError).toBe(false);
    const timedOut = await s.call('rm');
    expect(timedOut.error?.code).toBe('APPROVAL_DENIED');
    expect(timedOut.meta?.decision).toMatchObject({ approval: { outcome: 'timeout' } });
    expect(s.services.queue.list()).toHaveLength(0);
    close();
  } finally {
    await s.cleanup();
  }
});

test('a channel registered for one call (MCP elicitation) answers that call only', async () => {
  const s = await setup({ 'a.yaml': 'entries:\n  - { id: ask-rm, use: ask, with: { tools: [rm] } }\n' }, [tool('rm')]);
  try {
    const off = s.services.approvals.register('elicited', { request: () => Promise.resolve('allowed-once') });
    expect((await s.host.pipeline.call('rm', {}, { callId: 'elicited' })).isError).toBe(false);
    expect((await s.call('rm')).error?.code).toBe('APPROVAL_DENIED');
    off();
  } finally {
    await s.cleanup();
  }
});
