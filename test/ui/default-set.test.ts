// What a new user gets: no policies folder anywhere, so the shipped default set is in force. Its
// `ask-network-and-writes` asks about a tool that may reach the network; with `serve --http` the
// ask reaches the page (and /v1/approvals) even with no terminal attached, and is answered there.
// Without a server that can show it (serve --stdio, no terminal) the same ask is denied at once.
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { runToolgate, startHttp, startStdio, tempDir, waitFor, type HttpProcess } from '../server/helpers.js';
import { GREET, openEvents, signIn, startCall, waitForPending, type CallResult } from './helpers.js';

let dir: { path: string; remove(): Promise<void> };
let home: string;
let manifests: string;
let server: HttpProcess | undefined;
let url = '';
let secret = '';

interface PendingEvent {
  id: string;
  tool: string;
  decidedBy: string;
  capabilities: string[];
  arguments: Record<string, unknown>;
  expiresAt: string | null;
}

beforeAll(async () => {
  dir = await tempDir();
  home = join(dir.path, 'home');
  manifests = join(dir.path, 'manifests');
  await mkdir(manifests);
  // greet computes only, but its manifest grants a host: `may reach the network` is what asks.
  await writeFile(
    join(manifests, 'net_greet.yaml'),
    [
      'apiVersion: toolgate/v1',
      'name: net_greet',
      'version: 0.1.0',
      'description: Greets someone; allowed one host.',
      `module: { path: ${GREET}, entry: greet }`,
      'parameters: { name: { type: string, required: true } }',
      'output: { schema: { type: object }, render: json }',
      'capabilities: { allowed_hosts: ["127.0.0.1:9"] }',
      '',
    ].join('\n'),
  );
  // cwd is the temp folder (no ./policies), TOOLGATE_HOME has no policies, no TOOLGATE_POLICIES;
  // stdin is not a terminal.
  server = await startHttp(
    ['--http', '127.0.0.1:0', '--manifests', manifests],
    { TOOLGATE_HOME: home },
    { cwd: dir.path },
  );
  url = server.url;
  secret = (
    await waitFor('the approval secret', () => readFile(join(home, 'approval-secret'), 'utf8').catch(() => undefined))
  ).trim();
}, 60_000);

afterAll(async () => {
  await server?.stop();
  await dir?.remove();
});

describe('the shipped default policy set', () => {
  test('is the set in force with no policies folder anywhere, and routes asks to the terminal and the queue', async () => {
    expect(server?.stderr()).toContain('policy set "default" from the built-in default (shipped with toolgate)');
    const shown = await runToolgate(['policy', 'show', '--json'], { TOOLGATE_HOME: home }, 20_000, { cwd: dir.path });
    expect(shown.code).toBe(0);
    expect(JSON.parse(shown.stdout)).toMatchObject({ name: 'default', origin: 'builtin' });
    const file = await readFile(join((JSON.parse(shown.stdout) as { dir: string }).dir, 'default.yaml'), 'utf8');
    expect(file).toMatch(/channels: \[tty, queue\]/);
  });

  test('under serve --http with no terminal, an ask reaches the page; Allow once there runs exactly that call and the audit names the page', async () => {
    const session = await signIn({ url, secret });
    const events = await openEvents(url, session.cookie);
    try {
      // The set sends asks here, so the page has no warning to show.
      await events.next<{ queueInUse: boolean | null }>('tools', (t) => t.queueInUse === true);
      const call = startCall(url, 'net_greet', { name: 'Ada' });
      const shown = await events.next<PendingEvent[]>('pending', (list) =>
        list.some((p) => p.arguments.name === 'Ada'),
      );
      const card = shown.find((p) => p.arguments.name === 'Ada');
      expect(card).toMatchObject({ tool: 'net_greet', decidedBy: 'ask-network-and-writes' });
      expect(card?.capabilities.join('\n')).toMatch(/may connect to 127\.0\.0\.1 \(port 9\)/);
      expect(card?.expiresAt).not.toBeNull(); // a person gets a bounded time, then it is denied
      const res = await fetch(`${url}/ui/api/approvals/${card?.id ?? ''}`, {
        method: 'POST',
        headers: {
          cookie: session.cookie,
          origin: url,
          'x-csrf-token': session.csrf,
          'content-type': 'application/json',
        },
        body: JSON.stringify({ outcome: 'allowed-once' }),
      });
      expect(res.status).toBe(200);
      const result: CallResult = await call;
      expect(result.isError).toBe(false);
      expect(JSON.stringify(result.structuredContent)).toContain('Ada');

      // The same call again asks again; /v1/approvals sees the same queue and denies it.
      const again = startCall(url, 'net_greet', { name: 'Ada' });
      const p = await waitForPending({ url, secret }, (x) => x.arguments.name === 'Ada');
      expect(p.id).not.toBe(card?.id);
      const denied = await fetch(`${url}/v1/approvals/${p.id}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${secret}` },
        body: '{"outcome":"rejected"}',
      });
      expect(denied.status).toBe(200);
      expect((await again).error?.code).toBe('APPROVAL_DENIED');

      const records = (await readFile(join(home, 'audit.jsonl'), 'utf8'))
        .trim()
        .split('\n')
        .map(
          (l) =>
            JSON.parse(l) as {
              tool: string;
              outcome: string;
              decision: { approval?: { outcome: string; answeredBy?: string } };
            },
        );
      const mine = records
        .filter((r) => r.tool === 'net_greet')
        .map((r) => [r.outcome, r.decision.approval?.outcome, r.decision.approval?.answeredBy]);
      expect(mine).toEqual([
        ['ok', 'allowed-once', 'ui: approval secret, 127.0.0.1'],
        ['error', 'rejected', 'api: approval secret, 127.0.0.1'],
      ]);
    } finally {
      events.close();
    }
  }, 60_000);

  test('under serve --stdio with no terminal nobody could answer, so the same ask is denied at once', async () => {
    const stdio = await startStdio(['--manifests', manifests], {
      env: { TOOLGATE_HOME: join(dir.path, 'home-stdio') },
      cwd: dir.path,
    });
    try {
      expect(stdio.stderr()).toContain('policy set "default" from the built-in default');
      const r = (await stdio.client.callTool({ name: 'net_greet', arguments: { name: 'Ada' } })) as {
        isError?: boolean;
        content: { type: string; text?: string }[];
      };
      expect(r.isError).toBe(true);
      // Not a timeout: the answer was 'unavailable' at once (the default wait is 120 s).
      expect(r.content.map((c) => c.text ?? '').join('\n')).toMatch(/no approval channel available/);
    } finally {
      await stdio.close();
    }
  }, 60_000);

  test('a set whose approvals entry does not list the queue: the page is told so, and its asks are denied at once rather than shown', async () => {
    const policies = join(dir.path, 'tty-only');
    await mkdir(policies);
    await writeFile(
      join(policies, 'set.yaml'),
      [
        'entries:',
        '  - { id: approvals, use: approvals, with: { channels: [tty] } }',
        '  - { id: ask-net, use: ask, with: { capabilities: [network] } }',
        '',
      ].join('\n'),
    );
    const other = await startHttp(
      ['--http', '127.0.0.1:0', '--manifests', manifests, '--policies', policies],
      { TOOLGATE_HOME: join(dir.path, 'home-tty') },
      { cwd: dir.path },
    );
    try {
      const key = (
        await waitFor('the approval secret', () =>
          readFile(join(dir.path, 'home-tty', 'approval-secret'), 'utf8').catch(() => undefined),
        )
      ).trim();
      const state = (await (
        await fetch(`${other.url}/ui/api/state`, { headers: { authorization: `Bearer ${key}` } })
      ).json()) as { tools: { queueInUse: boolean | null } };
      expect(state.tools.queueInUse).toBe(false);
      const r = await startCall(other.url, 'net_greet', { name: 'Ada' });
      expect(r.error?.message).toMatch(/no approval channel available/);
    } finally {
      await other.stop();
    }
  }, 60_000);
});
