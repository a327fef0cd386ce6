// MCP 2026-07-28 against the shipped `toolgate serve`: stateless requests, and the multi round-trip
// input that replaces server-initiated elicitation. A person's approval and a tool's own questions
// go to the client as an input-required result; the retried request carries the answer and a
// signed state that is good once, for that call, on any replica sharing the key. The tool writes a
// file into an rw mount when it runs, so "nothing ran" is a file that is absent.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { ROOT, startHttp, tempDir, toolgateEntry, waitFor, type HttpProcess, writerManifest } from './helpers.js';
import { envelope, modernRpc, REVISION } from './modern-rpc.js';

const ELICIT_TOOL = join(ROOT, 'manifests/conformance/test_elicitation.yaml');
const ELICIT = { elicitation: {} };
const APPROVAL = 'toolgate/approval';

let dir: Awaited<ReturnType<typeof tempDir>>;
let out: string;
let manifests: string;
let policies: string;
let keyFile: string;
let otherKeyFile: string;
const servers: HttpProcess[] = [];

async function serve(key: string | undefined): Promise<HttpProcess> {
  const home = join(dir.path, `home-${servers.length}`);
  await mkdir(home, { recursive: true });
  const s = await startHttp(
    [
      '--http',
      '127.0.0.1:0',
      '--manifests',
      manifests,
      '--manifests',
      ELICIT_TOOL,
      '--policies',
      policies,
      ...(key !== undefined ? ['--mrtr-key-file', key] : []),
    ],
    { TOOLGATE_HOME: home },
  );
  servers.push(s);
  return s;
}

beforeAll(async () => {
  dir = await tempDir();
  out = join(dir.path, 'out');
  manifests = join(dir.path, 'manifests');
  policies = join(dir.path, 'policies');
  keyFile = join(dir.path, 'mrtr.key');
  otherKeyFile = join(dir.path, 'other.key');
  await Promise.all([mkdir(out), mkdir(manifests), mkdir(policies)]);
  await writeFile(keyFile, `${randomBytes(32).toString('hex')}\n`, { mode: 0o600 });
  await writeFile(otherKeyFile, `${randomBytes(32).toString('hex')}\n`, { mode: 0o600 });
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
  await writeFile(
    join(manifests, 'slow_compute.yaml'),
    [
      'apiVersion: toolgate/v1',
      'name: slow_compute',
      'version: 1.0.0',
      'description: Sleeps, then answers with its label (a task).',
      `module: { path: ${join(ROOT, 'pdk-examples/conformance/build/tasks.wasm')}, entry: slow_compute }`,
      'parameters:',
      '  seconds: { type: number, required: true }',
      '  label: { type: string, required: true }',
      'output: { render: mcp }',
      'capabilities: { memory: { max_pages: 32 }, timeout_ms: 60000, mcp: [elicitation] }',
      'execution: { task: optional }',
      '',
    ].join('\n'),
  );
  await writeFile(join(manifests, 'writer.yaml'), writerManifest(out));
});

afterAll(async () => {
  await Promise.allSettled(servers.map((s) => s.stop()));
  await dir.remove();
});

const ran = (name: string): boolean => existsSync(join(out, name));
const write = (name: string) => ({ name: 'writer', arguments: { cmd: `write /out/${name} yes` } });

/** Round one of a writer call that asks: the approval question and its state. */
async function askFor(server: HttpProcess, name: string): Promise<string> {
  const first = await modernRpc(server.url, 'tools/call', write(name), { capabilities: ELICIT });
  expect(first.status).toBe(200);
  expect(first.message.result?.['resultType']).toBe('input_required');
  const state = first.message.result?.['requestState'];
  expect(typeof state).toBe('string');
  return state as string;
}

const accept = { [APPROVAL]: { action: 'accept', content: {} } };

describe('MCP 2026-07-28 over HTTP (serve --http)', () => {
  let server: HttpProcess;
  beforeAll(async () => {
    server = await serve(keyFile);
  });

  test('a 2026-07-28 request needs no initialize and no session: tools/list answers at once, sorted, with cache hints, and sets no Mcp-Session-Id', async () => {
    const r = await modernRpc(server.url, 'tools/list');
    expect(r.status).toBe(200);
    expect(r.headers['mcp-session-id']).toBeUndefined();
    const names = (r.message.result?.['tools'] as { name: string }[]).map((t) => t.name);
    expect(names).toEqual([...names].sort());
    expect(names).toContain('writer');
    expect(r.message.result?.['resultType']).toBe('complete');
    expect(Number.isInteger(r.message.result?.['ttlMs'])).toBe(true);
    expect(['public', 'private']).toContain(r.message.result?.['cacheScope']);
  });

  test('an ask routed to a client that can elicit becomes an input-required result naming the tool and the reason; nothing runs until the answer', async () => {
    const r = await modernRpc(server.url, 'tools/call', write('asked'), { capabilities: ELICIT });
    const questions = r.message.result?.['inputRequests'] as Record<
      string,
      { method: string; params: { message: string } }
    >;
    expect(questions[APPROVAL]?.method).toBe('elicitation/create');
    expect(questions[APPROVAL]?.params.message).toContain('"writer"');
    expect(questions[APPROVAL]?.params.message).toContain('writing needs a yes');
    expect(ran('asked')).toBe(false);
  });

  test('accept on the retried request runs that call once', async () => {
    const state = await askFor(server, 'accepted');
    const r = await modernRpc(
      server.url,
      'tools/call',
      { ...write('accepted'), inputResponses: accept, requestState: state },
      { capabilities: ELICIT },
    );
    expect(r.message.result?.['isError']).toBe(false);
    expect(ran('accepted')).toBe(true);
  });

  test('a replayed answer is refused: the same state and answer sent again run nothing', async () => {
    const state = await askFor(server, 'replayed');
    const retry = { ...write('replayed'), inputResponses: accept, requestState: state };
    expect(
      (await modernRpc(server.url, 'tools/call', retry, { capabilities: ELICIT })).message.result?.['isError'],
    ).toBe(false);
    await rm(join(out, 'replayed'));
    const again = await modernRpc(server.url, 'tools/call', retry, { capabilities: ELICIT });
    expect(again.message.error?.code).toBe(-32602);
    expect(ran('replayed')).toBe(false);
  });

  test('a tampered state is refused with a clear error and the tool never runs', async () => {
    const state = await askFor(server, 'tampered');
    const [body = '', mac = ''] = state.split('.').slice(1);
    const forged = JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as { p: { approved?: boolean } };
    forged.p.approved = true;
    const tampered = `v1.${Buffer.from(JSON.stringify(forged)).toString('base64url')}.${mac}`;
    for (const requestState of [tampered, `${state}x`]) {
      const r = await modernRpc(
        server.url,
        'tools/call',
        { ...write('tampered'), inputResponses: accept, requestState },
        { capabilities: ELICIT },
      );
      expect(r.message.error?.code).toBe(-32602);
      expect(r.message.error?.message).toMatch(/requestState/i);
    }
    expect(ran('tampered')).toBe(false);
  });

  test('a state is bound to its call: sent with other arguments or for another tool it is refused and nothing runs', async () => {
    const state = await askFor(server, 'bound-a');
    const other = await modernRpc(
      server.url,
      'tools/call',
      { ...write('bound-b'), inputResponses: accept, requestState: state },
      { capabilities: ELICIT },
    );
    expect(other.message.error?.code).toBe(-32602);
    expect(other.message.error?.message).toContain('other arguments');
    const tool = await modernRpc(
      server.url,
      'tools/call',
      { name: 'test_elicitation', arguments: { message: 'x' }, inputResponses: accept, requestState: state },
      { capabilities: ELICIT },
    );
    expect(tool.message.error?.code).toBe(-32602);
    expect(ran('bound-a') || ran('bound-b')).toBe(false);
  });

  test("a state is bound to its client: another client's retry with it (another token, or none) is refused and nothing runs; its own client's retry runs", async () => {
    const bearer = (t: string) => ({ authorization: `Bearer ${t}` });
    const first = await modernRpc(server.url, 'tools/call', write('alices'), {
      capabilities: ELICIT,
      headers: bearer('alice'),
    });
    const state = first.message.result?.['requestState'] as string;
    expect(typeof state).toBe('string');
    const retry = { ...write('alices'), inputResponses: accept, requestState: state };
    for (const headers of [bearer('mallory'), {}]) {
      const stolen = await modernRpc(server.url, 'tools/call', retry, { capabilities: ELICIT, headers });
      expect(stolen.message.error?.code, JSON.stringify(headers)).toBe(-32602);
      expect(ran('alices')).toBe(false);
    }
    // the refused tries did not use it up for its own client
    const own = await modernRpc(server.url, 'tools/call', retry, { capabilities: ELICIT, headers: bearer('alice') });
    expect(own.message.result?.['isError']).toBe(false);
    expect(ran('alices')).toBe(true);
  });

  test('an approval answer without the state that asked cannot approve: the call asks again', async () => {
    const r = await modernRpc(
      server.url,
      'tools/call',
      { ...write('stateless-yes'), inputResponses: accept },
      { capabilities: ELICIT },
    );
    expect(r.message.result?.['resultType']).toBe('input_required');
    expect(ran('stateless-yes')).toBe(false);
  });

  test('decline on the retry denies the call, and the model reads why', async () => {
    const state = await askFor(server, 'declined');
    const r = await modernRpc(
      server.url,
      'tools/call',
      { ...write('declined'), inputResponses: { [APPROVAL]: { action: 'decline' } }, requestState: state },
      { capabilities: ELICIT },
    );
    expect(r.message.result?.['isError']).toBe(true);
    expect(ran('declined')).toBe(false);
  });

  test("a tool's elicitation is a question of the round; the retry with the answer completes the call", async () => {
    const first = await modernRpc(
      server.url,
      'tools/call',
      { name: 'test_elicitation', arguments: { message: 'Who are you?' } },
      { capabilities: ELICIT },
    );
    const questions = first.message.result?.['inputRequests'] as Record<
      string,
      { method: string; params: { message: string } }
    >;
    const [key, question] = Object.entries(questions)[0] ?? [];
    expect(question?.method).toBe('elicitation/create');
    expect(question?.params.message).toBe('Who are you?');
    const done = await modernRpc(
      server.url,
      'tools/call',
      {
        name: 'test_elicitation',
        arguments: { message: 'Who are you?' },
        inputResponses: { [key ?? '']: { action: 'accept', content: { username: 'ada', email: 'ada@example.org' } } },
        requestState: first.message.result?.['requestState'],
      },
      { capabilities: ELICIT },
    );
    expect(done.message.result?.['isError']).toBe(false);
    expect(JSON.stringify(done.message.result?.['content'])).toContain('ada@example.org');
  });

  test('a tool that needs a capability the request did not declare fails -32021 naming it, with HTTP 400', async () => {
    const r = await modernRpc(
      server.url,
      'tools/call',
      { name: 'test_elicitation', arguments: { message: 'x' } },
      { capabilities: {} },
    );
    expect(r.status).toBe(400);
    expect(r.message.error?.code).toBe(-32021);
    expect(r.message.error?.data).toEqual({ requiredCapabilities: { elicitation: {} } });
  });

  test('a request naming an unsupported revision gets the error with the supported list', async () => {
    const r = await modernRpc(
      server.url,
      'tools/list',
      {},
      {
        headers: { 'mcp-protocol-version': '2099-01-01' },
        meta: { 'io.modelcontextprotocol/protocolVersion': '2099-01-01' },
      },
    );
    expect(r.status).toBe(400);
    const data = r.message.error?.data as { supported?: string[]; requested?: string };
    expect(data.requested).toBe('2099-01-01');
    expect(data.supported).toContain(REVISION);
  });

  test('an Mcp-Method or Mcp-Name header that does not match the body is 400 with the reason, and nothing runs', async () => {
    const method = await modernRpc(server.url, 'tools/call', write('mismatch'), {
      capabilities: ELICIT,
      headers: { 'mcp-method': 'tools/list' },
    });
    expect(method.status).toBe(400);
    expect(method.message.error?.code).toBe(-32020);
    const name = await modernRpc(server.url, 'tools/call', write('mismatch'), {
      capabilities: ELICIT,
      headers: { 'mcp-name': 'another_tool' },
    });
    expect(name.status).toBe(400);
    expect(name.message.error?.message).toMatch(/Mcp-Name/i);
    expect(ran('mismatch')).toBe(false);
  });

  test("a call's traceparent (2026-07-28 _meta, 2025-11-25 HTTP header) lands on its audit record; a malformed one does not", async () => {
    const parent = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';
    await modernRpc(
      server.url,
      'tools/call',
      { name: 'test_elicitation', arguments: { message: 'traced' } },
      { capabilities: {}, meta: { traceparent: parent, tracestate: 'vendor=1' } },
    );
    await modernRpc(
      server.url,
      'tools/call',
      { name: 'test_elicitation', arguments: { message: 'badly traced' } },
      { capabilities: {}, meta: { traceparent: 'zz-not-a-trace' } },
    );
    const legacyParent = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';
    const client = await server.connect({ headers: { traceparent: legacyParent } });
    await client.callTool({ name: 'test_elicitation', arguments: { message: 'legacy traced' } });
    const records = await waitFor('three audit records', async () => {
      const lines = (await readFile(join(dir.path, 'home-0', 'audit.jsonl'), 'utf8').catch(() => ''))
        .split('\n')
        .filter((l) => l !== '');
      const parsed = lines.map(
        (l) =>
          JSON.parse(l) as { arguments?: { message?: string }; trace?: { traceparent: string; tracestate?: string } },
      );
      const want = ['traced', 'badly traced', 'legacy traced'].map((m) =>
        parsed.find((r) => r.arguments?.message === m),
      );
      return want.every((r) => r !== undefined) ? want : undefined;
    });
    expect(records[0]?.trace).toEqual({ traceparent: parent, tracestate: 'vendor=1' });
    expect(records[1]?.trace).toBeUndefined();
    expect(records[2]?.trace).toEqual({ traceparent: legacyParent });
  });

  describe('a 2026-07-28 client that cannot elicit', () => {
    const auth = async (): Promise<Record<string, string>> => {
      const secret = (
        await waitFor('the approval secret', () =>
          readFile(join(dir.path, 'home-0', 'approval-secret'), 'utf8').catch(() => undefined),
        )
      ).trim();
      return { authorization: `Bearer ${secret}`, 'content-type': 'application/json' };
    };
    const pendingFor = async (file: string) => {
      const headers = await auth();
      return waitFor(`the approval for ${file}`, async () => {
        const list = (await (await fetch(`${server.url}/v1/approvals`, { headers })).json()) as {
          approvals: { id: string; arguments: { cmd?: string } }[];
        };
        return list.approvals.find((a) => a.arguments.cmd?.includes(file));
      });
    };

    test('has its ask answered on the configured channel (the approval queue), and the call runs', async () => {
      const call = modernRpc(server.url, 'tools/call', write('queued'), { capabilities: {} });
      const pending = await pendingFor('queued');
      expect(ran('queued')).toBe(false);
      await fetch(`${server.url}/v1/approvals/${pending.id}`, {
        method: 'POST',
        headers: await auth(),
        body: JSON.stringify({ outcome: 'allowed-once' }),
      });
      expect((await call).message.result?.['isError']).toBe(false);
      expect(ran('queued')).toBe(true);
    });

    test('takes its ask with it when its request closes: the approval leaves the queue and the tool never runs', async () => {
      const controller = new AbortController();
      const call = fetch(`${server.url}/mcp`, {
        method: 'POST',
        signal: controller.signal,
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'mcp-protocol-version': REVISION,
          'mcp-method': 'tools/call',
          'mcp-name': 'writer',
        },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 77,
          method: 'tools/call',
          params: { ...write('abandoned'), _meta: envelope({}) },
        }),
      }).catch(() => undefined);
      const pending = await pendingFor('abandoned');
      controller.abort();
      await call;
      const headers = await auth();
      await waitFor('the approval to leave the queue', async () => {
        const list = (await (await fetch(`${server.url}/v1/approvals`, { headers })).json()) as {
          approvals: { id: string }[];
        };
        return list.approvals.some((a) => a.id === pending.id) ? undefined : true;
      });
      const late = await fetch(`${server.url}/v1/approvals/${pending.id}`, {
        method: 'POST',
        headers,
        body: JSON.stringify({ outcome: 'allowed-once' }),
      });
      expect(late.status).toBe(409);
      expect(ran('abandoned')).toBe(false);
    });
  });

  test("a task's run joins the trace of the request that created it (its audit record carries that traceparent)", async () => {
    const parent = '00-11112222333344445555666677778888-1111222233334444-01';
    const caps = { extensions: { 'io.modelcontextprotocol/tasks': {} } };
    const created = await modernRpc(
      server.url,
      'tools/call',
      { name: 'slow_compute', arguments: { seconds: 0, label: 'traced-task' } },
      { capabilities: caps, meta: { traceparent: parent } },
    );
    expect(created.message.result?.['resultType']).toBe('task');
    const record = await waitFor("the task's audit record", async () => {
      const lines = (await readFile(join(dir.path, 'home-0', 'audit.jsonl'), 'utf8').catch(() => ''))
        .split('\n')
        .filter((l) => l !== '');
      return lines
        .map((l) => JSON.parse(l) as { arguments?: { label?: string }; trace?: { traceparent: string } })
        .find((r) => r.arguments?.label === 'traced-task');
    });
    expect(record.trace).toEqual({ traceparent: parent });
  });

  test('2025-11-25 sessions are served beside it, on the same endpoint', async () => {
    const client = await server.connect();
    expect((await client.listTools()).tools.map((t) => t.name)).toContain('writer');
  });
});

describe('replicas sharing --mrtr-key-file', () => {
  test('a round that starts on one replica finishes on another; a state from a process with another key is refused', async () => {
    const [a, b, c] = await Promise.all([serve(keyFile), serve(keyFile), serve(otherKeyFile)]);
    if (a === undefined || b === undefined || c === undefined) throw new Error('three servers');
    const state = await askFor(a, 'across');
    const foreign = await modernRpc(
      c.url,
      'tools/call',
      { ...write('across'), inputResponses: accept, requestState: state },
      { capabilities: ELICIT },
    );
    expect(foreign.message.error?.code).toBe(-32602);
    expect(ran('across')).toBe(false);
    const r = await modernRpc(
      b.url,
      'tools/call',
      { ...write('across'), inputResponses: accept, requestState: state },
      { capabilities: ELICIT },
    );
    expect(r.message.result?.['isError']).toBe(false);
    expect(ran('across')).toBe(true);
  }, 60_000);

  test('a key file shorter than 32 bytes stops serve at start, naming the file and the rule', async () => {
    const short = join(dir.path, 'short.key');
    await writeFile(short, 'too short\n');
    await expect(
      startHttp(['--http', '127.0.0.1:0', '--manifests', manifests, '--mrtr-key-file', short]),
    ).rejects.toThrow(/short\.key: the key must be at least 32 bytes/);
  });
});

describe('MCP 2026-07-28 over stdio (serve --stdio)', () => {
  /** Sends `lines` to a fresh `serve --stdio` and collects the answers with the given ids. */
  async function stdio(lines: object[], ids: number[]): Promise<Map<number, Record<string, unknown>>> {
    const proc = spawn(
      process.execPath,
      [await toolgateEntry(), 'serve', '--stdio', '--manifests', ELICIT_TOOL, '--policies', 'none'],
      {
        cwd: ROOT,
        env: { PATH: process.env.PATH ?? '', HOME: dir.path, TOOLGATE_HOME: join(dir.path, 'stdio-home') },
        stdio: ['pipe', 'pipe', 'pipe'],
      },
    );
    const answers = new Map<number, Record<string, unknown>>();
    let buf = '';
    proc.stdout.on('data', (d: Buffer) => {
      buf += d.toString();
      for (let i = buf.indexOf('\n'); i >= 0; i = buf.indexOf('\n')) {
        const msg = JSON.parse(buf.slice(0, i)) as Record<string, unknown>;
        buf = buf.slice(i + 1);
        if (typeof msg['id'] === 'number') answers.set(msg['id'], msg);
      }
    });
    proc.stdin.write(lines.map((l) => `${JSON.stringify(l)}\n`).join(''));
    try {
      await waitFor('the answers', () => (ids.every((id) => answers.has(id)) ? true : undefined), 20_000);
    } finally {
      proc.kill('SIGKILL');
    }
    return answers;
  }

  test('a client that opens with server/discover is served 2026-07-28, and a tool question is a round there too', async () => {
    const answers = await stdio(
      [
        { jsonrpc: '2.0', id: 1, method: 'server/discover', params: { _meta: envelope(ELICIT) } },
        {
          jsonrpc: '2.0',
          id: 2,
          method: 'tools/call',
          params: { name: 'test_elicitation', arguments: { message: 'Hi?' }, _meta: envelope(ELICIT) },
        },
      ],
      [1, 2],
    );
    expect((answers.get(1)?.['result'] as { supportedVersions: string[] }).supportedVersions).toContain(REVISION);
    expect((answers.get(2)?.['result'] as { resultType: string }).resultType).toBe('input_required');
  });

  test('a client that opens with initialize gets a 2025-11-25 session, with lines sent before the answer served in order', async () => {
    const answers = await stdio(
      [
        {
          jsonrpc: '2.0',
          id: 1,
          method: 'initialize',
          params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } },
        },
        { jsonrpc: '2.0', method: 'notifications/initialized' },
        { jsonrpc: '2.0', id: 2, method: 'tools/list' },
      ],
      [1, 2],
    );
    expect((answers.get(1)?.['result'] as { protocolVersion: string }).protocolVersion).toBe('2025-11-25');
    expect((answers.get(2)?.['result'] as { tools: { name: string }[] }).tools.map((t) => t.name)).toEqual([
      'test_elicitation',
    ]);
  });
});
