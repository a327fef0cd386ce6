// OpenTelemetry traces from the shipped bundle, read by a real OTLP/HTTP receiver (a node:http
// server decoding the exporter's JSON): span names, attributes and parentage after the semantic
// conventions for MCP, what is never recorded, and that with tracing off the SDK never loads.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { ROOT, runToolgate, startHttp, startStdio, tempDir, waitFor, type HttpProcess } from './helpers.js';

interface OtlpAttr {
  key: string;
  value: { stringValue?: string; intValue?: string | number; boolValue?: boolean };
}
interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  attributes?: OtlpAttr[];
  status?: { code?: number };
}
interface OtlpBody {
  resourceSpans: { resource?: { attributes?: OtlpAttr[] }; scopeSpans: { spans: OtlpSpan[] }[] }[];
}

const SERVER = 2;
const CLIENT = 3;
const ECHO_WASM = join(ROOT, 'test/fixtures/build/server_spin.wasm');
const HTTP_CLIENT = join(ROOT, 'test/fixtures/build/http_client.wasm');
const MARKER = 'ARGUMENT-MARKER-5f1c';

function attr(span: OtlpSpan, key: string): string | number | boolean | undefined {
  const v = span.attributes?.find((a) => a.key === key)?.value;
  if (v === undefined) return undefined;
  return v.stringValue ?? (v.intValue !== undefined ? Number(v.intValue) : v.boolValue);
}

/** An OTLP/HTTP receiver on 127.0.0.1: every export body it got, decoded. */
class Receiver {
  readonly bodies: string[] = [];
  readonly resources: OtlpAttr[][] = [];
  readonly spans: OtlpSpan[] = [];
  server: Server = createServer((req, res) => {
    let body = '';
    req.on('data', (d: Buffer) => (body += d.toString()));
    req.on('end', () => {
      this.bodies.push(body);
      const parsed = JSON.parse(body) as OtlpBody;
      for (const rs of parsed.resourceSpans) {
        this.resources.push(rs.resource?.attributes ?? []);
        for (const ss of rs.scopeSpans) this.spans.push(...ss.spans);
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  url = '';
  async start(): Promise<void> {
    await new Promise<void>((r) => this.server.listen(0, '127.0.0.1', r));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }
  span(what: string, pick: (s: OtlpSpan) => boolean): Promise<OtlpSpan> {
    return waitFor(what, () => this.spans.find(pick), 15_000);
  }
  childrenOf(span: OtlpSpan): OtlpSpan[] {
    return this.spans.filter((s) => s.parentSpanId === span.spanId && s.traceId === span.traceId);
  }
}

const receiver = new Receiver();
let target: Server;
let targetPort = 0;
let dir: Awaited<ReturnType<typeof tempDir>>;
let manifests = '';
let policies = '';
let home = '';
let server: HttpProcess;
let hooks = '';

function manifest(name: string, module: string, entry: string, params: string, caps: string): string {
  return [
    'apiVersion: toolgate/v1',
    `name: ${name}`,
    'version: 1.0.0',
    `description: ${name} for the trace tests.`,
    `module: { path: ${module}, entry: ${entry} }`,
    `parameters: ${params}`,
    'output: { schema: { type: object }, render: json }',
    `capabilities: ${caps}`,
    '',
  ].join('\n');
}

beforeAll(async () => {
  await receiver.start();
  target = createServer((_req, res) => res.writeHead(200, { 'content-type': 'text/plain' }).end('hello'));
  await new Promise<void>((r) => target.listen(0, '127.0.0.1', r));
  targetPort = (target.address() as AddressInfo).port;
  dir = await tempDir();
  manifests = join(dir.path, 'manifests');
  policies = join(dir.path, 'policies');
  home = join(dir.path, 'home');
  await Promise.all([mkdir(manifests), mkdir(policies), mkdir(home)]);
  await writeFile(
    join(manifests, 'echo.yaml'),
    manifest('wasm_echo', ECHO_WASM, 'echo', '{ text: { type: string, required: true } }', '{ timeout_ms: 5000 }'),
  );
  await writeFile(
    join(manifests, 'asked.yaml'),
    manifest('asked_echo', ECHO_WASM, 'echo', '{ text: { type: string, required: true } }', '{ timeout_ms: 5000 }'),
  );
  await writeFile(
    join(manifests, 'blocked.yaml'),
    manifest('blocked_echo', ECHO_WASM, 'echo', '{ text: { type: string, required: true } }', '{ timeout_ms: 5000 }'),
  );
  await writeFile(
    join(manifests, 'fetcher.yaml'),
    manifest(
      'fetcher',
      HTTP_CLIENT,
      'http_send',
      '{ request: { type: string, required: true } }',
      `{ allowed_hosts: ["127.0.0.1:${targetPort}"], timeout_ms: 10000 }`,
    ),
  );
  await writeFile(
    join(policies, 'set.yaml'),
    [
      'entries:',
      '  - { id: audit, use: audit-log }',
      '  - { id: approvals, use: approvals, with: { channels: [queue] } }',
      '  - { id: ask-asked, use: ask, with: { tools: [asked_echo] } }',
      '  - { id: no-blocked, use: deny-tools, with: { tools: [blocked_echo] } }',
      '',
    ].join('\n'),
  );
  // Records every module the process loads, so a test can tell whether the SDK's chunk was among them.
  hooks = join(dir.path, 'hooks');
  await mkdir(hooks);
  await writeFile(
    join(hooks, 'hooks.mjs'),
    "import { appendFileSync } from 'node:fs';\nexport async function load(url, ctx, next) { if (process.env.TG_LOADED_LOG) appendFileSync(process.env.TG_LOADED_LOG, url + '\\n'); return next(url, ctx); }\n",
  );
  await writeFile(
    join(hooks, 'register.mjs'),
    "import { register } from 'node:module';\nregister('./hooks.mjs', import.meta.url);\n",
  );
  server = await startHttp(['--http', '127.0.0.1:0', '--manifests', manifests, '--policies', policies], {
    TOOLGATE_HOME: home,
    OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
    OTEL_BSP_SCHEDULE_DELAY: '50',
    OTEL_SERVICE_NAME: 'toolgate-under-test',
  });
}, 60_000);

afterAll(async () => {
  await server?.stop();
  await new Promise((r) => target?.close(r));
  await new Promise((r) => receiver.server.close(r));
  await dir?.remove();
});

/** Whether any loaded module of dist/ holds the OpenTelemetry SDK (its OTLP exporter). */
async function loadedTheSdk(log: string): Promise<boolean> {
  const urls = (await readFile(log, 'utf8').catch(() => ''))
    .split('\n')
    .filter((u) => u.startsWith('file://') && u.includes('/dist/'));
  expect(urls.length).toBeGreaterThan(0);
  for (const u of urls) if ((await readFile(fileURLToPath(u), 'utf8')).includes('OTLPTraceExporter')) return true;
  return false;
}

describe('OpenTelemetry traces (semantic conventions for MCP)', () => {
  test('a tools/call is a SERVER span "tools/call TOOL" with the MCP attributes, parent of the policy decision and the sandbox run', async () => {
    const client = await server.connect();
    const result = await client.callTool({ name: 'wasm_echo', arguments: { text: MARKER } });
    expect(result.isError).toBeFalsy();
    const span = await receiver.span(
      'the tools/call span',
      (s) => s.kind === SERVER && s.name === 'tools/call wasm_echo' && attr(s, 'mcp.session.id') !== undefined,
    );
    expect(attr(span, 'mcp.method.name')).toBe('tools/call');
    expect(attr(span, 'gen_ai.tool.name')).toBe('wasm_echo');
    expect(attr(span, 'gen_ai.operation.name')).toBe('execute_tool');
    expect(attr(span, 'jsonrpc.request.id')).toMatch(/^\d+$/);
    expect(attr(span, 'mcp.session.id')).toBe(client.transport?.sessionId);
    expect(attr(span, 'mcp.protocol.version')).toBe('2025-11-25');
    expect(attr(span, 'network.transport')).toBe('tcp');
    expect(attr(span, 'error.type')).toBeUndefined();
    expect(span.parentSpanId ?? '').toBe('');
    const kids = await waitFor('the child spans', () => {
      const k = receiver.childrenOf(span);
      return k.some((s) => s.name === 'sandbox run') && k.some((s) => s.name === 'policy decision') ? k : undefined;
    });
    const decision = kids.find((s) => s.name === 'policy decision')!;
    expect(attr(decision, 'toolgate.policy.outcome')).toBe('allowed');
    expect(attr(decision, 'toolgate.policy.decided_by')).toBe('default');
    const run = kids.find((s) => s.name === 'sandbox run')!;
    expect(['in-thread', 'worker', 'moved']).toContain(attr(run, 'toolgate.sandbox.path'));
    expect(['start', 'reuse']).toContain(attr(run, 'toolgate.sandbox.instance'));
    expect(
      receiver.resources.some((r) =>
        r.some((a) => a.key === 'service.name' && a.value.stringValue === 'toolgate-under-test'),
      ),
    ).toBe(true);
  }, 30_000);

  test('a call with _meta.traceparent continues that trace: same trace id, the client span as parent', async () => {
    const client = await server.connect();
    const traceId = '4bf92f3577b34da6a3ce929d0e0e4736';
    const parent = '00f067aa0ba902b7';
    await client.callTool({
      name: 'wasm_echo',
      arguments: { text: 'continued' },
      _meta: { traceparent: `00-${traceId}-${parent}-01` },
    });
    const span = await receiver.span('the continued span', (s) => s.kind === SERVER && s.traceId === traceId);
    expect(span.parentSpanId).toBe(parent);
    expect(span.name).toBe('tools/call wasm_echo');
  }, 30_000);

  test('a 2026-07-28 tools/call continues the trace of its _meta.traceparent and says its revision', async () => {
    const traceId = 'a1b2c3d4e5f60718293a4b5c6d7e8f90';
    const parent = '1122334455667788';
    const meta = {
      'io.modelcontextprotocol/protocolVersion': '2026-07-28',
      'io.modelcontextprotocol/clientInfo': { name: 'trace-test', version: '1' },
      'io.modelcontextprotocol/clientCapabilities': {},
      traceparent: `00-${traceId}-${parent}-01`,
    };
    const res = await fetch(`${server.url}/mcp`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': '2026-07-28',
        'mcp-method': 'tools/call',
        'mcp-name': 'wasm_echo',
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 'req-7',
        method: 'tools/call',
        params: { name: 'wasm_echo', arguments: { text: 'modern' }, _meta: meta },
      }),
    });
    expect(res.status).toBe(200);
    await res.text();
    const span = await receiver.span('the 2026-07-28 span', (x) => x.kind === SERVER && x.traceId === traceId);
    expect(span.parentSpanId).toBe(parent);
    expect(span.name).toBe('tools/call wasm_echo');
    expect(attr(span, 'mcp.protocol.version')).toBe('2026-07-28');
    expect(attr(span, 'jsonrpc.request.id')).toBe('req-7');
    expect(attr(span, 'mcp.session.id')).toBeUndefined();
    expect(attr(span, 'network.transport')).toBe('tcp');
  }, 30_000);

  test("a tool's HTTP request is a CLIENT span with the host and port, never the path, query or headers", async () => {
    const client = await server.connect();
    const request = JSON.stringify({
      url: `http://127.0.0.1:${targetPort}/private/path?token=sekrit-q`,
      method: 'GET',
      headers: { authorization: 'Bearer hdr-sekrit' },
    });
    const result = await client.callTool({ name: 'fetcher', arguments: { request } });
    expect(result.isError).toBeFalsy();
    const http = await receiver.span(
      'the HTTP client span',
      (s) => s.kind === CLIENT && attr(s, 'server.port') === targetPort,
    );
    expect(http.name).toBe('GET');
    expect(attr(http, 'server.address')).toBe('127.0.0.1');
    expect(attr(http, 'http.request.method')).toBe('GET');
    expect(attr(http, 'http.response.status_code')).toBe(200);
    const run = receiver.spans.find((s) => s.spanId === http.parentSpanId);
    expect(run?.name).toBe('sandbox run');
    expect(attr(run!, 'toolgate.sandbox.path')).toBe('worker');
    const all = receiver.bodies.join('\n');
    for (const secret of ['/private/path', 'sekrit-q', 'hdr-sekrit']) expect(all).not.toContain(secret);
  }, 30_000);

  test('arguments and results are never on a span unless opted in', async () => {
    await receiver.span('the marker call', (s) => s.name === 'tools/call wasm_echo');
    expect(receiver.bodies.join('\n')).not.toContain(MARKER);
    expect(receiver.spans.some((s) => attr(s, 'gen_ai.tool.call.arguments') !== undefined)).toBe(false);
  }, 30_000);

  test("a denied call over the HTTP API is a SERVER span with error.type tool_error and the pipeline's code", async () => {
    const res = await fetch(`${server.url}/v1/tools/blocked_echo/call`, {
      method: 'POST',
      body: JSON.stringify({ arguments: { text: 'x' } }),
    });
    expect(((await res.json()) as { isError: boolean }).isError).toBe(true);
    const span = await receiver.span(
      'the denied call span',
      (s) => s.kind === SERVER && s.name === 'tools/call blocked_echo',
    );
    expect(attr(span, 'error.type')).toBe('tool_error');
    expect(attr(span, 'toolgate.error.code')).toBe('DENIED');
    expect(attr(span, 'http.route')).toBe('/v1/tools/{name}/call');
    expect(span.status?.code).toBe(2);
    const decision = await waitFor('the decision span', () =>
      receiver.childrenOf(span).find((s) => s.name === 'policy decision'),
    );
    expect(attr(decision, 'toolgate.policy.outcome')).toBe('denied');
    expect(attr(decision, 'toolgate.policy.guard') ?? attr(decision, 'toolgate.policy.decided_by')).toBe('no-blocked');
    expect(receiver.childrenOf(span).some((s) => s.name === 'sandbox run')).toBe(false);
  }, 30_000);

  test('an ask is an approval wait span under the policy decision, with the entry that asked and the answer', async () => {
    const secret = (
      await waitFor('the approval secret', () => readFile(join(home, 'approval-secret'), 'utf8').catch(() => undefined))
    ).trim();
    const auth = { authorization: `Bearer ${secret}` };
    const call = fetch(`${server.url}/v1/tools/asked_echo/call`, {
      method: 'POST',
      body: JSON.stringify({ arguments: { text: 'asked' } }),
    });
    const pending = await waitFor('the pending ask', async () => {
      const list = (await (await fetch(`${server.url}/v1/approvals`, { headers: auth })).json()) as {
        approvals: { id: string }[];
      };
      return list.approvals[0];
    });
    const answer = await fetch(`${server.url}/v1/approvals/${pending.id}`, {
      method: 'POST',
      headers: auth,
      body: JSON.stringify({ outcome: 'allowed-once' }),
    });
    expect(answer.status).toBe(200);
    expect(((await (await call).json()) as { isError: boolean }).isError).toBe(false);
    const span = await receiver.span(
      'the asked call span',
      (x) => x.kind === SERVER && x.name === 'tools/call asked_echo',
    );
    const decision = await waitFor('the decision span', () =>
      receiver.childrenOf(span).find((x) => x.name === 'policy decision'),
    );
    expect(attr(decision, 'toolgate.policy.decision')).toBe('ask');
    expect(attr(decision, 'toolgate.policy.decided_by')).toBe('ask-asked');
    expect(attr(decision, 'toolgate.approval.outcome')).toBe('allowed-once');
    const wait = await waitFor('the approval wait span', () =>
      receiver.childrenOf(decision).find((x) => x.name === 'approval wait'),
    );
    expect(attr(wait, 'toolgate.policy.decided_by')).toBe('ask-asked');
    expect(attr(wait, 'toolgate.approval.outcome')).toBe('allowed-once');
    expect(receiver.childrenOf(span).some((x) => x.name === 'sandbox run')).toBe(true);
    expect(receiver.bodies.join('\n')).not.toContain(secret);
  }, 30_000);

  test('every 2025-11-25 method is a SERVER span: initialize, the lists, resources/read (uri as an attribute), prompts/get (prompt as target), completion/complete', async () => {
    const client = await server.connect();
    const sid = client.transport?.sessionId;
    await client.listTools();
    await client.listResources();
    await client.listResourceTemplates();
    await client.listPrompts();
    await client.complete({ ref: { type: 'ref/prompt', name: 'nothing' }, argument: { name: 'a', value: 'b' } });
    await expect(client.readResource({ uri: 'mem://not-served' })).rejects.toThrow();
    await expect(client.getPrompt({ name: 'no_such_prompt' })).rejects.toThrow();
    const init = await receiver.span('the initialize span', (s) => s.kind === SERVER && s.name === 'initialize');
    expect(attr(init, 'mcp.method.name')).toBe('initialize');
    expect(attr(init, 'mcp.protocol.version')).toBe('2025-11-25');
    expect(attr(init, 'network.transport')).toBe('tcp');
    const mine = (name: string) =>
      receiver.span(
        `the ${name} span`,
        (s) => s.kind === SERVER && s.name === name && attr(s, 'mcp.session.id') === sid,
      );
    for (const method of [
      'tools/list',
      'resources/list',
      'resources/templates/list',
      'prompts/list',
      'completion/complete',
    ]) {
      const span = await mine(method);
      expect(attr(span, 'mcp.method.name')).toBe(method);
      expect(attr(span, 'jsonrpc.request.id')).toMatch(/^\d+$/);
      expect(attr(span, 'mcp.protocol.version')).toBe('2025-11-25');
      expect(attr(span, 'network.transport')).toBe('tcp');
      expect(attr(span, 'error.type')).toBeUndefined();
    }
    const read = await mine('resources/read');
    expect(attr(read, 'mcp.resource.uri')).toBe('mem://not-served');
    expect(attr(read, 'error.type')).toBe('-32002');
    expect(read.status?.code).toBe(2);
    const prompt = await mine('prompts/get no_such_prompt');
    expect(attr(prompt, 'gen_ai.prompt.name')).toBe('no_such_prompt');
    expect(attr(prompt, 'error.type')).toBe('-32602');
  }, 30_000);

  test('every 2026-07-28 method is a SERVER span: server/discover, tools/list, tasks/get (an unknown task is error.type -32602)', async () => {
    const rpc = async (id: string, method: string, params: Record<string, unknown>, traceId: string): Promise<void> => {
      const meta = {
        'io.modelcontextprotocol/protocolVersion': '2026-07-28',
        'io.modelcontextprotocol/clientInfo': { name: 'trace-test', version: '1' },
        'io.modelcontextprotocol/clientCapabilities': { extensions: { 'io.modelcontextprotocol/tasks': {} } },
        traceparent: `00-${traceId}-00f067aa0ba902b7-01`,
      };
      const res = await fetch(`${server.url}/mcp`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'mcp-protocol-version': '2026-07-28',
          'mcp-method': method,
          ...(typeof params['taskId'] === 'string' ? { 'mcp-name': params['taskId'] } : {}),
        },
        body: JSON.stringify({ jsonrpc: '2.0', id, method, params: { ...params, _meta: meta } }),
      });
      expect(res.status).toBe(200);
      await res.text();
    };
    const ids = {
      discover: 'b1000000000000000000000000000001',
      list: 'b1000000000000000000000000000002',
      task: 'b1000000000000000000000000000003',
    };
    await rpc('d-1', 'server/discover', {}, ids.discover);
    await rpc('l-1', 'tools/list', {}, ids.list);
    await rpc('t-1', 'tasks/get', { taskId: 'no-such-task' }, ids.task);
    const expected = [
      [ids.discover, 'server/discover', 'd-1'],
      [ids.list, 'tools/list', 'l-1'],
      [ids.task, 'tasks/get', 't-1'],
    ] as const;
    for (const [traceId, method, id] of expected) {
      const span = await receiver.span(`the ${method} span`, (s) => s.kind === SERVER && s.traceId === traceId);
      expect(span.name).toBe(method);
      expect(span.parentSpanId).toBe('00f067aa0ba902b7');
      expect(attr(span, 'mcp.method.name')).toBe(method);
      expect(attr(span, 'jsonrpc.request.id')).toBe(id);
      expect(attr(span, 'mcp.protocol.version')).toBe('2026-07-28');
      expect(attr(span, 'network.transport')).toBe('tcp');
      expect(attr(span, 'error.type')).toBe(method === 'tasks/get' ? '-32602' : undefined);
    }
  }, 30_000);

  test("the HTTP API's other working routes are SERVER spans: an MCP method's name and route, or `POST /v1/approvals/{id}`, with the status and error.type", async () => {
    const secret = (
      await waitFor('the approval secret', () => readFile(join(home, 'approval-secret'), 'utf8').catch(() => undefined))
    ).trim();
    const list = await fetch(`${server.url}/v1/tools`, {
      headers: { traceparent: '00-c1000000000000000000000000000001-00f067aa0ba902b7-01' },
    });
    expect(list.status).toBe(200);
    await list.text();
    const read = await fetch(`${server.url}/v1/resources/read?uri=${encodeURIComponent('mem://nothing')}`, {
      headers: { traceparent: '00-c1000000000000000000000000000002-00f067aa0ba902b7-01' },
    });
    expect(read.status).toBe(404);
    await read.text();
    const answer = await fetch(`${server.url}/v1/approvals/no-such-ask`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${secret}`,
        traceparent: '00-c1000000000000000000000000000003-00f067aa0ba902b7-01',
      },
      body: JSON.stringify({ outcome: 'rejected' }),
    });
    expect(answer.status).toBe(404);
    await answer.text();
    const listed = await receiver.span('the /v1/tools span', (s) => s.traceId === 'c1000000000000000000000000000001');
    expect([listed.name, listed.kind, listed.parentSpanId]).toEqual(['tools/list', SERVER, '00f067aa0ba902b7']);
    expect(attr(listed, 'mcp.method.name')).toBe('tools/list');
    expect(attr(listed, 'http.route')).toBe('/v1/tools');
    expect(attr(listed, 'http.response.status_code')).toBe(200);
    expect(attr(listed, 'error.type')).toBeUndefined();
    const readSpan = await receiver.span(
      'the /v1/resources/read span',
      (s) => s.traceId === 'c1000000000000000000000000000002',
    );
    expect(readSpan.name).toBe('resources/read');
    expect(attr(readSpan, 'mcp.resource.uri')).toBe('mem://nothing');
    expect(attr(readSpan, 'error.type')).toBe('404');
    const answered = await receiver.span(
      'the approval answer span',
      (s) => s.traceId === 'c1000000000000000000000000000003',
    );
    expect(answered.name).toBe('POST /v1/approvals/{id}');
    expect(attr(answered, 'mcp.method.name')).toBeUndefined();
    expect(attr(answered, 'http.request.method')).toBe('POST');
    expect(attr(answered, 'http.response.status_code')).toBe(404);
    expect(attr(answered, 'error.type')).toBe('404');
    expect(receiver.bodies.join('\n')).not.toContain(secret);
  }, 30_000);

  test("the call's audit record carries the trace id toolgate recorded it under", async () => {
    const res = await fetch(`${server.url}/v1/tools/wasm_echo/call`, {
      method: 'POST',
      body: JSON.stringify({ arguments: { text: 'audited' } }),
    });
    const callId = res.headers.get('x-toolgate-call-id');
    const span = await receiver.span(
      'the audited span',
      (s) => s.kind === SERVER && s.name === 'tools/call wasm_echo' && attr(s, 'http.route') !== undefined,
    );
    const record = await waitFor('the audit record', async () => {
      const lines = (await readFile(join(home, 'audit.jsonl'), 'utf8').catch(() => ''))
        .split('\n')
        .filter((l) => l !== '');
      return lines
        .map((l) => JSON.parse(l) as { callId: string; trace?: { traceId?: string } })
        .find((r) => r.callId === callId);
    });
    expect(record.trace?.traceId).toBe(span.traceId);
  }, 30_000);
});

describe('tracing settings', () => {
  test('with --otel-record-content the arguments and result are on the span, secrets redacted', async () => {
    const own = new Receiver();
    await own.start();
    const s = await startHttp(
      ['--http', '127.0.0.1:0', '--manifests', manifests, '--policies', 'none', '--otel', '--otel-record-content'],
      {
        TOOLGATE_HOME: home,
        OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: `${own.url}/v1/traces`,
        OTEL_BSP_SCHEDULE_DELAY: '50',
      },
    );
    try {
      const client = await s.connect();
      await client.callTool({ name: 'wasm_echo', arguments: { text: `${MARKER} ghp_${'a'.repeat(36)}` } });
      const span = await own.span(
        'the recorded span',
        (x) => x.kind === SERVER && attr(x, 'gen_ai.tool.call.arguments') !== undefined,
      );
      expect(String(attr(span, 'gen_ai.tool.call.arguments'))).toContain(MARKER);
      expect(String(attr(span, 'gen_ai.tool.call.result'))).toContain(MARKER);
      expect(own.bodies.join('\n')).not.toContain(`ghp_${'a'.repeat(36)}`);
    } finally {
      await s.stop();
      await new Promise((r) => own.server.close(r));
    }
  }, 60_000);

  test('--otel with OTEL_TRACES_EXPORTER=none, or an OTLP protocol toolgate lacks, stops serve with exit 2 naming it', async () => {
    const none = await runToolgate(['serve', '--stdio', '--otel', '--policies', 'none'], {
      OTEL_TRACES_EXPORTER: 'none',
    });
    expect(none.code).toBe(2);
    expect(none.stderr).toContain('OTEL_TRACES_EXPORTER=none');
    const grpc = await runToolgate(['serve', '--stdio', '--policies', 'none'], {
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
      OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc',
    });
    expect(grpc.code).toBe(2);
    expect(grpc.stderr).toContain('OTEL_EXPORTER_OTLP_PROTOCOL=grpc');
  }, 60_000);

  test('with tracing off no export request is ever made and the SDK is never loaded', async () => {
    const log = join(dir.path, 'loaded-off.txt');
    const own = new Receiver();
    await own.start();
    // An endpoint is set but OTEL_TRACES_EXPORTER=none turns tracing off: nothing may reach it.
    const s = await startStdio(['--manifests', manifests, '--policies', 'none'], {
      nodeArgs: ['--import', join(hooks, 'register.mjs')],
      env: {
        TOOLGATE_HOME: home,
        TG_LOADED_LOG: log,
        OTEL_EXPORTER_OTLP_ENDPOINT: own.url,
        OTEL_TRACES_EXPORTER: 'none',
        OTEL_BSP_SCHEDULE_DELAY: '10',
      },
    });
    try {
      const r = await s.client.callTool({ name: 'wasm_echo', arguments: { text: 'off' } });
      expect(r.isError).toBeFalsy();
      await new Promise((res) => setTimeout(res, 400));
      expect(own.bodies).toEqual([]);
      expect(await loadedTheSdk(log)).toBe(false);
    } finally {
      await s.close();
      await new Promise((r) => own.server.close(r));
    }
  }, 60_000);

  test('over stdio with --otel the SDK loads and the span says network.transport pipe', async () => {
    const log = join(dir.path, 'loaded-on.txt');
    const own = new Receiver();
    await own.start();
    const s = await startStdio(['--manifests', manifests, '--policies', 'none', '--otel'], {
      nodeArgs: ['--import', join(hooks, 'register.mjs')],
      env: {
        TOOLGATE_HOME: home,
        TG_LOADED_LOG: log,
        OTEL_EXPORTER_OTLP_ENDPOINT: own.url,
        OTEL_BSP_SCHEDULE_DELAY: '50',
      },
    });
    try {
      await s.client.callTool({ name: 'wasm_echo', arguments: { text: 'on' } });
      const span = await own.span('the stdio span', (x) => x.kind === SERVER);
      expect(attr(span, 'network.transport')).toBe('pipe');
      expect(attr(span, 'mcp.session.id')).toBeUndefined();
      expect(await loadedTheSdk(log)).toBe(true);
    } finally {
      await s.close();
      await new Promise((r) => own.server.close(r));
    }
  }, 60_000);
});
