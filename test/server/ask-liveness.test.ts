// An approval lives only as long as the client that asked (architecture.md §3), against the real
// `toolgate serve`: a waiting client hears progress so its own timeout does not end the call, and a
// client that goes away (its HTTP request closed, notifications/cancelled, stdin closed) takes its
// ask with it: the approval leaves the queue, the audit record says why, and the tool never runs.
// The tool writes a file into an rw mount when it runs, so "nothing ran" is a file that is absent.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { Progress } from '@modelcontextprotocol/sdk/types.js';
import { ROOT, startHttp, tempDir, toolgateEntry, waitFor, type HttpProcess, writerManifest } from './helpers.js';

const KEEP_ALIVE_MS = 100;

let dir: Awaited<ReturnType<typeof tempDir>>;
let home: string;
let out: string;
let manifests: string;
let policies: string;

beforeAll(async () => {
  dir = await tempDir();
  home = join(dir.path, 'home');
  out = join(dir.path, 'out');
  manifests = join(dir.path, 'manifests');
  policies = join(dir.path, 'policies');
  await Promise.all([mkdir(home), mkdir(out), mkdir(manifests), mkdir(policies)]);
  await writeFile(
    join(policies, 'set.yaml'),
    [
      'entries:',
      '  - { id: audit, use: audit-log }',
      '  - { id: approvals, use: approvals, with: { channels: [queue] } }',
      '  - { id: ask-writer, use: ask, with: { tools: [writer], reason: "writing needs a yes" } }',
      '',
    ].join('\n'),
  );
  await writeFile(join(manifests, 'writer.yaml'), writerManifest(out));
});

afterAll(async () => {
  await dir.remove();
});

const ran = (name: string): boolean => existsSync(join(out, name));

async function auditReason(callName: string): Promise<string | undefined> {
  const text = await readFile(join(home, 'audit.jsonl'), 'utf8').catch(() => '');
  const hit = text
    .split('\n')
    .filter((l) => l.includes(callName))
    .at(-1);
  if (hit === undefined) return undefined;
  return (JSON.parse(hit) as { decision?: { approval?: { reason?: string } } }).decision?.approval?.reason;
}

describe('over HTTP (serve --http, the approval queue)', () => {
  let server: HttpProcess;
  let secret: string;
  const auth = (): Record<string, string> => ({
    authorization: `Bearer ${secret}`,
    'content-type': 'application/json',
  });
  const pending = async (): Promise<{ id: string; arguments: { cmd?: string } }[]> =>
    (
      (await (await fetch(`${server.url}/v1/approvals`, { headers: auth() })).json()) as {
        approvals: { id: string; arguments: { cmd?: string } }[];
      }
    ).approvals;
  const pendingFor = (file: string) =>
    waitFor(`the approval for ${file}`, async () => (await pending()).find((p) => p.arguments.cmd?.includes(file)));
  const answer = (id: string) =>
    fetch(`${server.url}/v1/approvals/${id}`, {
      method: 'POST',
      headers: auth(),
      body: JSON.stringify({ outcome: 'allowed-once' }),
    });

  beforeAll(async () => {
    server = await startHttp(['--http', '127.0.0.1:0', '--manifests', manifests, '--policies', policies], {
      TOOLGATE_HOME: home,
      TOOLGATE_ASK_PROGRESS_MS: String(KEEP_ALIVE_MS),
    });
    secret = (
      await waitFor('the approval secret', () => readFile(join(home, 'approval-secret'), 'utf8').catch(() => undefined))
    ).trim();
  });

  afterAll(async () => {
    await server.stop();
  });

  /** The approval's id is gone from the list within ~1 s, a late yes gets 409, and the file is never written. */
  async function expectWithdrawn(file: string, id: string, how: string): Promise<void> {
    await waitFor(
      'the approval to leave the list',
      async () => ((await pending()).some((p) => p.id === id) ? undefined : true),
      1500,
    );
    const late = await answer(id);
    expect(late.status).toBe(409);
    expect(((await late.json()) as { error: { message: string } }).error.message).toContain(
      'withdrawn: the client went away',
    );
    await new Promise((r) => setTimeout(r, 300));
    expect(ran(file)).toBe(false);
    expect(await waitFor('the audit record', () => auditReason(file))).toContain(
      `withdrawn: the client went away (${how})`,
    );
  }

  test('rule 1: a call waiting for approval sends progress on its token, so a client that resets its timeout on progress outlives that timeout', async () => {
    const client = await server.connect();
    const seen: Progress[] = [];
    const call = client.callTool({ name: 'writer', arguments: { cmd: 'write /out/kept yes' } }, undefined, {
      onprogress: (p) => seen.push(p),
      resetTimeoutOnProgress: true,
      timeout: 10 * KEEP_ALIVE_MS,
    });
    const held = await pendingFor('/out/kept');
    // Well past the client's own timeout: only the progress keeps the request alive.
    await new Promise((r) => setTimeout(r, 25 * KEEP_ALIVE_MS));
    const waiting = seen.filter((p) => p.message?.startsWith('waiting for approval') === true);
    expect(waiting.length).toBeGreaterThanOrEqual(2);
    // increasing, below 1 % of the total: nothing has run yet
    for (let i = 1; i < waiting.length; i++)
      expect(waiting[i]?.progress).toBeGreaterThan(waiting[i - 1]?.progress ?? 0);
    expect(Math.max(...waiting.map((p) => p.progress))).toBeLessThan(0.01);
    expect((await answer(held.id)).status).toBe(200);
    const res = await call;
    expect(res.isError).toBe(false);
    expect(ran('kept')).toBe(true);
  });

  test('rule 2: an MCP client that closes its POST stream while the call waits withdraws the approval, and approving it afterwards runs nothing', async () => {
    const mcp = `${server.url}/mcp`;
    const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
    const init = await fetch(mcp, {
      method: 'POST',
      headers,
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
      }),
    });
    const session = init.headers.get('mcp-session-id') ?? '';
    await init.text();
    const inSession = { ...headers, 'mcp-session-id': session, 'mcp-protocol-version': '2025-06-18' };
    await (
      await fetch(mcp, {
        method: 'POST',
        headers: inSession,
        body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }),
      })
    ).text();
    const ac = new AbortController();
    const res = await fetch(mcp, {
      method: 'POST',
      headers: inSession,
      signal: ac.signal,
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 2,
        method: 'tools/call',
        params: { name: 'writer', arguments: { cmd: 'write /out/mcp-http yes' } },
      }),
    });
    expect(res.status).toBe(200);
    const held = await pendingFor('/out/mcp-http');
    ac.abort();
    await expectWithdrawn('mcp-http', held.id, 'its HTTP request closed before the answer');
  });

  test('rule 2: a plain /v1 call whose connection closes while it waits withdraws the approval, and approving it afterwards runs nothing', async () => {
    const ac = new AbortController();
    const call = fetch(`${server.url}/v1/tools/writer/call`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      signal: ac.signal,
      body: JSON.stringify({ arguments: { cmd: 'write /out/plain yes' } }),
    }).catch(() => 'aborted');
    const held = await pendingFor('/out/plain');
    ac.abort();
    expect(await call).toBe('aborted');
    await expectWithdrawn('plain', held.id, 'its HTTP connection closed before the answer');
  });
});

describe('over stdio (serve --stdio, the client asked by elicitation)', () => {
  interface Raw {
    send(m: unknown): void;
    lines(): Record<string, unknown>[];
    exited: Promise<number | null>;
    proc: ReturnType<typeof spawn>;
  }

  /** A raw stdio client that declares elicitation and never answers a form. */
  async function startRaw(): Promise<Raw> {
    const entry = await toolgateEntry();
    const proc = spawn(
      process.execPath,
      [entry, 'serve', '--stdio', '--manifests', manifests, '--policies', policies],
      {
        cwd: ROOT,
        env: { PATH: process.env.PATH ?? '', HOME: home, TOOLGATE_HOME: home, TOOLGATE_LOG_LEVEL: 'warn' },
        stdio: ['pipe', 'pipe', 'pipe'],
      },
    );
    let text = '';
    proc.stdout.on('data', (d: Buffer) => (text += d.toString()));
    const exited = new Promise<number | null>((r) => proc.once('exit', (c) => r(c)));
    const send = (m: unknown) => proc.stdin.write(`${JSON.stringify(m)}\n`);
    send({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: {
        protocolVersion: '2025-06-18',
        capabilities: { elicitation: {} },
        clientInfo: { name: 'raw', version: '1' },
      },
    });
    send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    const lines = () =>
      text
        .split('\n')
        .filter((l) => l.trim() !== '')
        .map((l) => JSON.parse(l) as Record<string, unknown>);
    return { send, lines, exited, proc };
  }

  const answerTo = (r: Raw, id: number) =>
    waitFor(`the answer to ${id}`, () => r.lines().find((m) => m['id'] === id && !('method' in m)), 5000);
  const formFor = (r: Raw) =>
    waitFor('the elicitation form', () => r.lines().find((m) => m['method'] === 'elicitation/create'), 10_000);
  const cancelledForm = (r: Raw, formId: unknown) =>
    waitFor(
      'the form to be withdrawn',
      () =>
        r
          .lines()
          .find(
            (m) =>
              m['method'] === 'notifications/cancelled' &&
              (m['params'] as { requestId?: unknown }).requestId === formId,
          ),
      1500,
    );

  test('rule 2: notifications/cancelled for a call waiting for approval withdraws the ask, and nothing runs', async () => {
    const r = await startRaw();
    try {
      r.send({
        jsonrpc: '2.0',
        id: 2,
        method: 'tools/call',
        params: { name: 'writer', arguments: { cmd: 'write /out/stdio-cancel yes' } },
      });
      const form = await formFor(r);
      r.send({
        jsonrpc: '2.0',
        method: 'notifications/cancelled',
        params: { requestId: 2, reason: 'the user gave up' },
      });
      await cancelledForm(r, form['id']);
      await new Promise((res) => setTimeout(res, 300));
      expect(ran('stdio-cancel')).toBe(false);
      expect(await waitFor('the audit record', () => auditReason('stdio-cancel'))).toContain(
        'withdrawn: the client went away (it cancelled the request',
      );
      // the session goes on: a form answered now changes nothing
      r.send({ jsonrpc: '2.0', id: form['id'], result: { action: 'accept', content: {} } });
      await new Promise((res) => setTimeout(res, 300));
      expect(ran('stdio-cancel')).toBe(false);
    } finally {
      r.proc.stdin?.end();
      await r.exited;
    }
  });

  test('rule 2: stdin closing while a call waits for approval withdraws the ask at once, nothing runs and serve exits without waiting out its shutdown timeout', async () => {
    const r = await startRaw();
    r.send({
      jsonrpc: '2.0',
      id: 2,
      method: 'tools/call',
      params: { name: 'writer', arguments: { cmd: 'write /out/stdio-eof yes' } },
    });
    await formFor(r);
    const t0 = performance.now();
    r.proc.stdin?.end();
    const answer = (await answerTo(r, 2)) as { result?: { isError?: boolean; content?: { text?: string }[] } };
    expect(answer.result?.isError).toBe(true);
    await r.exited;
    // the default --shutdown-timeout is 10 s: the withdrawn ask did not hold serve up
    expect(performance.now() - t0).toBeLessThan(4000);
    expect(ran('stdio-eof')).toBe(false);
    expect(await waitFor('the audit record', () => auditReason('stdio-eof'))).toContain(
      'withdrawn: the client went away (its stdin closed)',
    );
  });
});
