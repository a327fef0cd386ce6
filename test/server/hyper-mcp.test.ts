// hyper-mcp modules through the shipped `toolgate serve`: their tools on tools/list of both
// revisions, the /v1 API, `schema` and `inspect`; resources, templates, prompts and completions on
// 2025-11-25 (stdio and HTTP sessions) and 2026-07-28 (stateless HTTP) and the /v1 API; policies
// naming the served names (deny-tools, ask), and the audit log recording reads.
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import {
  ROOT,
  runToolgate,
  startHttp,
  startStdio,
  tempDir,
  waitFor,
  type HttpProcess,
  type StdioServer,
} from './helpers.js';
import { modernRpc } from './modern-rpc.js';

const V1 = join(ROOT, 'test/fixtures/build/hyper_v1.wasm');
const V2 = join(ROOT, 'test/fixtures/build/hyper_v2.wasm');
const CONFORMANCE = join(ROOT, 'manifests/conformance/conformance_mcp.yaml');

let dir: Awaited<ReturnType<typeof tempDir>>;
let manifests: string;
let policies: string;
let audit: string;
let http: HttpProcess;
let stdio: StdioServer;
let session: Client;

const plugin = (name: string, wasm: string, extra: string[] = []) =>
  [
    'apiVersion: toolgate/v1',
    `name: ${name}`,
    'version: 1.0.0',
    `description: ${name} plugin`,
    `module: { path: ${wasm}, abi: hyper-mcp }`,
    ...extra,
    '',
  ].join('\n');

beforeAll(async () => {
  dir = await tempDir();
  manifests = join(dir.path, 'manifests');
  policies = join(dir.path, 'policies');
  audit = join(dir.path, 'audit.jsonl');
  await Promise.all([mkdir(manifests), mkdir(policies), mkdir(join(dir.path, 'home'))]);
  await writeFile(join(manifests, 'fx1.yaml'), plugin('fx1', V1));
  await writeFile(join(manifests, 'fx2.yaml'), plugin('fx2', V2));
  await writeFile(
    join(policies, 'set.yaml'),
    [
      'entries:',
      `  - { id: audit, use: audit-log, with: { path: ${audit} } }`,
      '  - { id: approvals, use: approvals, with: { channels: [queue] } }',
      '  - { id: no-fail, use: deny-tools, with: { tools: [fx1__fail, "fx2__prompts__*"], reason: "red line by served name" } }',
      '  - { id: ask-add, use: ask, with: { tools: [fx1__add], reason: "adding needs a yes" } }',
      '',
    ].join('\n'),
  );
  const args = ['--manifests', manifests, '--manifests', CONFORMANCE, '--policies', policies];
  http = await startHttp(['--http', '127.0.0.1:0', ...args], { TOOLGATE_HOME: join(dir.path, 'home') });
  session = await http.connect();
  stdio = await startStdio(args, { env: { TOOLGATE_HOME: join(dir.path, 'home') } });
}, 60_000);

afterAll(async () => {
  await stdio?.close();
  await http?.stop();
  await dir?.remove();
});

async function api(
  path: string,
  init: { method?: string; body?: unknown; secret?: string } = {},
): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await fetch(`${http.url}${path}`, {
    method: init.method ?? 'GET',
    headers: {
      'content-type': 'application/json',
      ...(init.secret !== undefined ? { authorization: `Bearer ${init.secret}` } : {}),
    },
    ...(init.body !== undefined ? { body: JSON.stringify(init.body) } : {}),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

describe('tools of hyper-mcp modules are first-class tools', () => {
  test('tools/list on 2025-11-25 (stdio and HTTP) and 2026-07-28 lists each as <plugin>__<tool> with its described schema', async () => {
    for (const client of [stdio.client, session]) {
      const { tools } = await client.listTools();
      const echo = tools.find((t) => t.name === 'fx1__echo');
      expect(echo?.inputSchema).toMatchObject({
        type: 'object',
        properties: { text: { type: 'string', maxLength: 64 } },
        required: ['text'],
      });
      expect(tools.map((t) => t.name)).toEqual(expect.arrayContaining(['fx1__add', 'fx2__record', 'fx2__envelope']));
      // operations are not tools
      expect(tools.some((t) => t.name.includes('__resources__'))).toBe(false);
    }
    const modern = await modernRpc(http.url, 'tools/list');
    const names = (modern.message.result?.['tools'] as { name: string }[]).map((t) => t.name);
    expect(names).toEqual(expect.arrayContaining(['fx1__echo', 'fx2__picture']));
  });

  test("tools/call runs the module with the interface's envelope on both revisions", async () => {
    const r = await stdio.client.callTool({ name: 'fx1__echo', arguments: { text: 'hi' } });
    expect(r.content).toEqual([{ type: 'text', text: 'v1 echo: hi' }]);
    const m = await modernRpc(http.url, 'tools/call', { name: 'fx2__envelope', arguments: { q: 1 } });
    const sent = JSON.parse((m.message.result?.['content'] as { text: string }[])[0]?.text ?? '{}') as Record<
      string,
      unknown
    >;
    expect(sent['request']).toEqual({ name: 'envelope', arguments: { q: 1 } });
  });

  test('the /v1 API lists and calls them by served name; arguments off the schema are refused before the module runs', async () => {
    const list = await api('/v1/tools');
    expect(((list.body as unknown as { tools: { name: string }[] }).tools ?? []).map((t) => t.name)).toEqual(
      expect.arrayContaining(['fx1__echo']),
    );
    const bad = await api('/v1/tools/fx1__echo/call', {
      method: 'POST',
      body: { arguments: { text: 'x'.repeat(65) } },
    });
    expect((bad.body['error'] as { code: string }).code).toBe('INVALID_ARGS');
  });

  test('deny-tools names a module tool by its served name', async () => {
    const r = await session.callTool({ name: 'fx1__fail', arguments: {} });
    expect(r.isError).toBe(true);
    expect(JSON.stringify(r.content)).toContain('red line by served name');
  });

  test('ask names a module tool by its served name: the call waits for a person, then runs', async () => {
    const secret = (
      await waitFor('the approval secret', () =>
        readFile(join(dir.path, 'home', 'approval-secret'), 'utf8').catch(() => undefined),
      )
    ).trim();
    const pending = api('/v1/tools/fx1__add/call', { method: 'POST', body: { arguments: { a: 2, b: 40 } } });
    const ask = await waitFor('the ask', async () => {
      const { body } = await api('/v1/approvals', { secret });
      return (body['approvals'] as { id: string; tool: string }[] | undefined)?.find((a) => a.tool === 'fx1__add');
    });
    await api(`/v1/approvals/${ask.id}`, { method: 'POST', body: { outcome: 'allowed-once' }, secret });
    const done = await pending;
    expect(done.body['structuredContent']).toEqual({ sum: 42 });
  });

  test('`toolgate schema` and `toolgate inspect` show the served tools', async () => {
    const env = { TOOLGATE_HOME: join(dir.path, 'home') };
    const schema = await runToolgate(['schema', '--manifests', manifests], env, 60_000);
    expect(schema.stdout).toContain('fx1__echo');
    const inspect = await runToolgate(['inspect', 'fx2__record', '--manifests', manifests, '--json'], env, 60_000);
    const report = JSON.parse(inspect.stdout) as {
      abi: string;
      interface: string;
      tools: { name: string }[];
      prompts: { name: string }[];
      operations: string[];
    };
    expect(report.abi).toBe('hyper-mcp');
    expect(report.interface).toBe('v2');
    expect(report.tools.map((t) => t.name)).toEqual(['fx2__record', 'fx2__envelope', 'fx2__picture']);
    expect(report.operations).toContain('fx2__resources__read');
    const list = await runToolgate(['list', '--manifests', manifests, '--json'], env, 60_000);
    const rows = JSON.parse(list.stdout) as { name: string; serves?: string[] }[];
    expect(rows.find((r) => r.name === 'fx1')?.serves).toEqual(['fx1__echo', 'fx1__add', 'fx1__fail', 'fx1__envelope']);
    expect(rows.find((r) => r.name === 'fx2')?.serves).toEqual(
      expect.arrayContaining(['fx2__record', 'fx2__prompts__get']),
    );
  }, 120_000);

  test('`policy explain` names module tools and operations by their served names', async () => {
    const env = { TOOLGATE_HOME: join(dir.path, 'home') };
    const explain = async (tool: string, args: string) =>
      JSON.parse(
        (
          await runToolgate(
            ['policy', 'explain', tool, '--args', args, '--manifests', manifests, '--policies', policies, '--json'],
            env,
            60_000,
          )
        ).stdout,
      ) as { outcome: string };
    expect((await explain('fx1__fail', '{}')).outcome).toBe('deny');
    expect((await explain('fx1__add', '{"a":1,"b":2}')).outcome).toBe('ask');
    expect((await explain('fx2__prompts__get', '{"name":"greeting"}')).outcome).toBe('deny');
    expect((await explain('fx2__resources__read', '{"uri":"mem://fixture/readme"}')).outcome).toBe('allow');
  }, 120_000);
});

describe('resources, templates, prompts and completions from modules', () => {
  test("resources/list and resources/templates/list on 2025-11-25 gather every module's", async () => {
    const { resources } = await stdio.client.listResources();
    expect(resources.map((r) => r.uri)).toEqual(expect.arrayContaining(['mem://fixture/readme', 'test://static-text']));
    const { resourceTemplates } = await stdio.client.listResourceTemplates();
    expect(resourceTemplates.map((t) => t.uriTemplate)).toEqual(
      expect.arrayContaining(['mem://fixture/items/{id}', 'test://template/{id}/data']),
    );
  });

  test('resources/read of a listed URI and of a template match on 2025-11-25; the audit log records the read', async () => {
    const listed = await session.readResource({ uri: 'mem://fixture/readme' });
    expect(listed.contents).toEqual([
      { uri: 'mem://fixture/readme', mimeType: 'text/plain', text: 'contents of mem://fixture/readme' },
    ]);
    const templated = await stdio.client.readResource({ uri: 'test://template/7/data' });
    expect(JSON.parse((templated.contents[0] as { text: string }).text)).toEqual({
      id: '7',
      templateTest: true,
      data: 'Data for ID: 7',
    });
    const records = await waitFor('the audit record', async () => {
      const lines = (await readFile(audit, 'utf8').catch(() => '')).split('\n').filter((l) => l !== '');
      const found = lines
        .map((l) => JSON.parse(l) as { tool?: string; arguments?: unknown })
        .filter((r) => r.tool === 'fx2__resources__read');
      return found.length > 0 ? found : undefined;
    });
    expect(records[0]?.arguments).toEqual({ uri: 'mem://fixture/readme' });
  });

  test('a URI no module listed and no template matches is not found: -32002 on 2025-11-25, -32602 (ResourceNotFoundError) on 2026-07-28', async () => {
    await expect(stdio.client.readResource({ uri: 'mem://nobody/here' })).rejects.toMatchObject({ code: -32002 });
    const m = await modernRpc(http.url, 'resources/read', { uri: 'mem://nobody/here' });
    expect(m.message.error?.code).toBe(-32602);
    expect(m.message.error?.data).toEqual({ uri: 'mem://nobody/here' });
  });

  test("prompts/list and prompts/get on both revisions; deny-tools covers a plugin's prompts by its operation name", async () => {
    const { prompts } = await stdio.client.listPrompts();
    expect(prompts.map((p) => p.name)).toEqual(expect.arrayContaining(['greeting', 'test_simple_prompt']));
    const simple = await session.getPrompt({ name: 'test_prompt_with_arguments', arguments: { arg1: 'a', arg2: 'b' } });
    expect(JSON.stringify(simple.messages)).toContain("arg1='a'");
    const modern = await modernRpc(http.url, 'prompts/get', { name: 'test_simple_prompt' });
    expect(modern.message.result?.['messages']).toHaveLength(1);
    await expect(stdio.client.getPrompt({ name: 'greeting', arguments: { who: 'x' } })).rejects.toThrow(
      /DENIED: .*red line by served name/,
    );
    const denied = await modernRpc(http.url, 'prompts/get', { name: 'greeting', arguments: { who: 'x' } });
    expect(denied.message.error?.message).toMatch(/DENIED/);
  });

  test('completion/complete reaches the module that serves the reference, on both revisions', async () => {
    const c = await stdio.client.complete({
      ref: { type: 'ref/resource', uri: 'mem://fixture/items/{id}' },
      argument: { name: 'id', value: 'al' },
    });
    expect(c.completion.values).toEqual(['resource', 'alpha', 'alps']);
    const m = await modernRpc(http.url, 'completion/complete', {
      ref: { type: 'ref/prompt', name: 'test_prompt_with_arguments' },
      argument: { name: 'arg1', value: 'par' },
    });
    expect((m.message.result?.['completion'] as { values: string[] }).values).toEqual(['paris', 'park', 'party']);
  });

  test('the /v1 API lists resources and prompts, reads, gets and completes through the pipeline', async () => {
    const list = await api('/v1/resources');
    expect((list.body['resources'] as { uri: string }[]).map((r) => r.uri)).toContain('test://static-binary');
    const read = await api(`/v1/resources/read?uri=${encodeURIComponent('test://static-text')}`);
    expect(read.body['contents']).toEqual([
      { uri: 'test://static-text', mimeType: 'text/plain', text: 'This is the content of the static text resource.' },
    ]);
    expect((await api('/v1/resources/read?uri=mem%3A%2F%2Fnobody')).status).toBe(404);
    expect(((await api('/v1/prompts')).body['prompts'] as { name: string }[]).map((p) => p.name)).toContain(
      'test_prompt_with_image',
    );
    const got = await api('/v1/prompts/test_prompt_with_arguments/get', {
      method: 'POST',
      body: { arguments: { arg1: 'x', arg2: 'y' } },
    });
    expect(JSON.stringify(got.body['messages'])).toContain("arg2='y'");
    const denied = await api('/v1/prompts/greeting/get', { method: 'POST', body: { arguments: { who: 'z' } } });
    expect(denied.status).toBe(422);
    expect((denied.body['error'] as { code: string }).code).toBe('DENIED');
    const done = await api('/v1/completions', {
      method: 'POST',
      body: {
        ref: { type: 'ref/prompt', name: 'test_prompt_with_arguments' },
        argument: { name: 'arg1', value: 'pa' },
      },
    });
    expect(done.body['completion']).toMatchObject({ values: ['paris', 'park', 'party', 'pasta'] });
  });
});
