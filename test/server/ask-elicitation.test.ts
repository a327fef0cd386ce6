// An `ask` decision over MCP: elicitation for clients that declare it, the configured channel
// (the approval queue, answered over HTTP) otherwise, and a denial when there is neither. The
// server is built in-process over createRuntime so a test policy can ask.
import { PassThrough } from 'node:stream';
import { afterEach, describe, expect, test } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
  ElicitRequestSchema,
  type ClientCapabilities,
  type ElicitRequest,
  type ElicitResult,
} from '@modelcontextprotocol/sdk/types.js';
import { ApprovalQueue } from '../../host/src/approval/index.js';
import { createRuntime, type Runtime } from '../../host/src/cli/index.js';
import { serveHttp, SessionApprovals, SidecarCore, type HttpSidecar } from '../../host/src/server/index.js';
import { ROOT, waitFor } from './helpers.js';

interface Rig {
  runtime: Runtime;
  core: SidecarCore;
  http: HttpSidecar;
  queue: ApprovalQueue | undefined;
  clients: Client[];
}
let rig: Rig | undefined;

async function start(opts: { queue?: boolean } = {}): Promise<Rig> {
  const io = {
    stdout: () => {},
    stderr: () => {},
    stdin: new PassThrough(),
    isTTY: false,
    env: { TOOLGATE_LOG_LEVEL: 'silent' },
    cwd: ROOT,
  };
  const approvals = new SessionApprovals();
  const queue = opts.queue === true ? new ApprovalQueue() : undefined;
  if (queue !== undefined) approvals.fallback = queue;
  const runtime = await createRuntime({ io, manifests: [], approval: approvals });
  // A policy that asks before the builtin echo runs.
  runtime.host.root.plugin(
    (ctx) => {
      ctx.on('tools/pre-execute', 'ask-echo', (exec, next) =>
        exec.name === 'echo' ? { kind: 'ask', reason: 'echo needs a person' } : next(),
      );
    },
    undefined,
    { name: 'test-ask' },
  );
  const core = new SidecarCore({ runtime, approvals, ...(queue !== undefined ? { approvalQueue: queue } : {}) });
  const http = await serveHttp(core, { bind: { host: '127.0.0.1', port: 0 } });
  rig = { runtime, core, http, queue, clients: [] };
  return rig;
}

async function connect(
  r: Rig,
  capabilities: ClientCapabilities,
  answer?: (req: ElicitRequest) => ElicitResult,
): Promise<Client> {
  const client = new Client({ name: 'ask-test', version: '1' }, { capabilities });
  if (answer !== undefined) client.setRequestHandler(ElicitRequestSchema, (req) => answer(req));
  await client.connect(new StreamableHTTPClientTransport(new URL(`${r.http.url}/mcp`)));
  r.clients.push(client);
  return client;
}

afterEach(async () => {
  if (rig === undefined) return;
  await Promise.allSettled(rig.clients.map((c) => c.close()));
  await rig.http.close();
  rig.core.close();
  await rig.runtime.dispose();
  rig = undefined;
});

describe('ask over MCP', () => {
  test('a client that declares elicitation gets a form naming the tool, the reason and the arguments; accept allows that one call', async () => {
    const r = await start();
    const forms: ElicitRequest[] = [];
    const client = await connect(r, { elicitation: {} }, (req) => {
      forms.push(req);
      return { action: 'accept', content: {} };
    });
    const res = await client.callTool({ name: 'echo', arguments: { text: 'hello there' } });
    expect(res.isError).toBe(false);
    expect(res.content).toEqual([{ type: 'text', text: 'hello there' }]);
    expect(forms).toHaveLength(1);
    const message = forms[0]?.params.message ?? '';
    expect(message).toContain('"echo"');
    expect(message).toContain('echo needs a person');
    expect(message).toContain('hello there');
    // allowed-once: the next call asks again
    await client.callTool({ name: 'echo', arguments: { text: 'again' } });
    expect(forms).toHaveLength(2);
    expect(r.core.approvals.size).toBe(0); // every call unbound its route
  });

  test('a call is bound to its session for approvals only once a person is asked, and unbound when it ends', async () => {
    const r = await start();
    // a tool no policy asks about reports how many calls are bound while it runs
    r.runtime.host.root.plugin(
      (ctx) => {
        ctx.tool({
          name: 'bound_routes',
          description: 'reports the bound approval routes',
          parameters: {},
          execute: () => ({ bound: r.core.approvals.size }),
        });
      },
      undefined,
      { name: 'test-bound' },
    );
    const whileAsked: number[] = [];
    const client = await connect(r, { elicitation: {} }, () => {
      whileAsked.push(r.core.approvals.size);
      return { action: 'accept', content: {} };
    });
    const plain = await client.callTool({ name: 'bound_routes', arguments: {} });
    expect(plain.structuredContent).toEqual({ bound: 0 });
    const asked = await client.callTool({ name: 'echo', arguments: { text: 'hi' } });
    expect(asked.isError).toBe(false);
    expect(whileAsked).toEqual([1]);
    expect(r.core.approvals.size).toBe(0);
  });

  test('the approval form spells out every hidden character of the arguments; the tool still gets them exactly', async () => {
    const r = await start();
    const forms: ElicitRequest[] = [];
    const client = await connect(r, { elicitation: {} }, (req) => {
      forms.push(req);
      return { action: 'accept', content: {} };
    });
    const hidden = 'safe-value\u200b\u2060\ufeff\u00ad\u{e0074}\u001b]8;;https://evil.example/\u0007\u202e';
    const res = await client.callTool({ name: 'echo', arguments: { text: hidden } });
    expect(res.content).toEqual([{ type: 'text', text: hidden }]);
    const message = forms[0]?.params.message ?? '';
    expect(message).toContain(
      'safe-value\\u200b\\u2060\\ufeff\\u00ad\\udb40\\udc74\\u001b]8;;https://evil.example/\\u0007\\u202e',
    );
    expect(message).toMatch(/^[\x20-\x7e\n]+$/);
  });

  test('decline and cancel both deny the call (isError APPROVAL_DENIED), and the tool never runs', async () => {
    const r = await start();
    const answers: ElicitResult['action'][] = ['decline', 'cancel'];
    const client = await connect(r, { elicitation: { form: {} } }, () => ({ action: answers.shift() ?? 'decline' }));
    for (const expected of ['rejected', 'cancelled']) {
      const res = await client.callTool({ name: 'echo', arguments: { text: 'nope' } });
      expect(res.isError).toBe(true);
      expect(res._meta?.['toolgate/error']).toMatchObject({ code: 'APPROVAL_DENIED' });
      expect(JSON.stringify(res.content)).not.toContain('"nope"');
      expect(JSON.stringify(res._meta)).toContain(expected);
    }
  });

  test('without elicitation and without an approval channel, ask denies', async () => {
    const r = await start();
    const client = await connect(r, {});
    const res = await client.callTool({ name: 'echo', arguments: { text: 'x' } });
    expect(res.isError).toBe(true);
    expect(res._meta?.['toolgate/error']).toMatchObject({ code: 'APPROVAL_DENIED' });
  });

  test('the form goes to the session that made the call, never to another connected client', async () => {
    const r = await start();
    let asked = 0;
    await connect(r, { elicitation: {} }, () => {
      asked += 1;
      return { action: 'accept' };
    });
    const plain = await connect(r, {});
    const res = await plain.callTool({ name: 'echo', arguments: { text: 'x' } });
    expect(res.isError).toBe(true);
    expect(asked).toBe(0);
  });

  test('a client without elicitation falls back to the approval queue, answered over POST /v1/approvals/{id}', async () => {
    const r = await start({ queue: true });
    const client = await connect(r, {});
    const pending = client.callTool({ name: 'echo', arguments: { text: 'queued' } });
    const approver = { authorization: `Bearer ${r.http.approvalSecret ?? ''}` };
    const list = await waitFor('the approval to be queued', async () => {
      const body = (await (await fetch(`${r.http.url}/v1/approvals`, { headers: approver })).json()) as {
        approvals: { id: string; tool: string; reason: string }[];
      };
      return body.approvals.length > 0 ? body.approvals : undefined;
    });
    expect(list[0]).toMatchObject({ tool: 'echo', reason: 'echo needs a person' });
    const missing = await fetch(`${r.http.url}/v1/approvals/not-an-id`, {
      method: 'POST',
      headers: approver,
      body: JSON.stringify({ outcome: 'allowed-once' }),
    });
    expect(missing.status).toBe(404);
    const badOutcome = await fetch(`${r.http.url}/v1/approvals/${list[0]?.id}`, {
      method: 'POST',
      headers: approver,
      body: JSON.stringify({ outcome: 'maybe' }),
    });
    expect(badOutcome.status).toBe(400);
    expect(await badOutcome.text()).toContain('outcome');
    const unauthenticated = await fetch(`${r.http.url}/v1/approvals/${list[0]?.id}`, {
      method: 'POST',
      body: JSON.stringify({ outcome: 'allowed-once' }),
    });
    expect(unauthenticated.status).toBe(401);
    const ok = await fetch(`${r.http.url}/v1/approvals/${list[0]?.id}`, {
      method: 'POST',
      headers: approver,
      body: JSON.stringify({ outcome: 'allowed-once' }),
    });
    expect(ok.status).toBe(200);
    const res = await pending;
    expect(res.isError).toBe(false);
    expect(res.content).toEqual([{ type: 'text', text: 'queued' }]);
  });

  test('GET /v1/approvals is a 404 when no queue is configured', async () => {
    const r = await start();
    const headers = { authorization: `Bearer ${r.http.approvalSecret ?? ''}` };
    expect((await fetch(`${r.http.url}/v1/approvals`, { headers })).status).toBe(404);
    expect(
      (await fetch(`${r.http.url}/v1/approvals/x`, { method: 'POST', headers, body: '{"outcome":"rejected"}' })).status,
    ).toBe(404);
  });
});
