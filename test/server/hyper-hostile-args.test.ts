// Hostile bytes through hyper-mcp's host functions (extism:host/user): a real C module
// (test/fixtures/hyper_raw.c) hands the host whatever a test gives it. JSON nested thousands deep
// overflows the stack of any recursive checker (zod, JSON.stringify), so the host refuses it from
// the bytes before parsing: the notice is dropped or the request refused in its own shape, and
// the call and the server go on.
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import {
  CallToolResultSchema,
  ElicitationCompleteNotificationSchema,
  ElicitRequestSchema,
  LoggingMessageNotificationSchema,
  ProgressNotificationSchema,
  type ClientCapabilities,
} from '@modelcontextprotocol/sdk/types.js';
import { ROOT, startStdio, tempDir, waitFor, type StdioServer } from './helpers.js';

const RAW = join(ROOT, 'test/fixtures/build/hyper_raw.wasm');
const ALL: ClientCapabilities = { sampling: {}, elicitation: { form: {}, url: {} }, roots: {} };
/** Deep enough to overflow zod's and JSON.stringify's recursion, small enough for the log budget. */
const DEPTH = 20_000;
const deep = `${'['.repeat(DEPTH)}${']'.repeat(DEPTH)}`;

const textOf = (result: unknown): string =>
  CallToolResultSchema.parse(result)
    .content.map((b) => (b.type === 'text' ? b.text : `[${b.type}]`))
    .join('');

let dir: { path: string; remove(): Promise<void> };
let server: StdioServer;
const logs: unknown[] = [];
const progress: number[] = [];
let elicits = 0;
const completed: string[] = [];

beforeAll(async () => {
  dir = await tempDir();
  const manifests = join(dir.path, 'manifests');
  await mkdir(manifests);
  await writeFile(
    join(manifests, 'hx.yaml'),
    [
      'apiVersion: toolgate/v1',
      'name: hx',
      'version: 1.0.0',
      'description: hostile bytes',
      `module: { path: ${RAW}, abi: hyper-mcp }`,
      'capabilities:',
      '  timeout_ms: 10000',
      '  mcp: [logging, progress, elicitation, sampling, notifications]',
      '  allowed_hosts: [auth.example.com]',
      '',
    ].join('\n'),
  );
  // the dev policy set never asks (the default one asks before a tool with allowed_hosts runs)
  server = await startStdio(['--manifests', manifests, '--no-watch', '--policy-set', 'dev'], {
    // its own home, so its audit log is its own
    env: { TOOLGATE_HOME: join(dir.path, 'home') },
    capabilities: ALL,
    setup: (c) => {
      c.setNotificationHandler(LoggingMessageNotificationSchema, (n) => void logs.push(n.params.data));
      c.setNotificationHandler(ProgressNotificationSchema, (n) => void progress.push(n.params.progress));
      c.setNotificationHandler(
        ElicitationCompleteNotificationSchema,
        (n) => void completed.push(n.params.elicitationId),
      );
      c.setRequestHandler(ElicitRequestSchema, () => {
        elicits++;
        return { action: 'decline' };
      });
    },
  });
  await server.client.setLoggingLevel('debug');
}, 60_000);

afterAll(async () => {
  await server?.close();
  await dir?.remove();
});

const raw = async (fn: string, params: string, progressToken?: string): Promise<string> =>
  textOf(
    await server.client.request(
      {
        method: 'tools/call',
        params: { name: 'hx__raw', arguments: { fn, params }, ...(progressToken ? { _meta: { progressToken } } : {}) },
      },
      CallToolResultSchema,
    ),
  );

describe('JSON a module hands a hyper-mcp host function may nest at most 64 levels', () => {
  test('a log line whose data nests 20000 deep is dropped, and the call and the server go on', async () => {
    expect(await raw('notify_logging_message', `{"level":"info","data":${deep}}`)).toBe('sent');
    expect(await raw('notify_logging_message', '{"level":"info","data":"after"}')).toBe('sent');
    await waitFor('the next log line', () => logs.includes('after'));
    expect(logs).toEqual(['after']);
  });

  test('a progress notice nested 20000 deep is dropped, and the next one arrives', async () => {
    expect(await raw('notify_progress', `{"progress":1,"message":${deep}}`, 'p1')).toBe('sent');
    expect(await raw('notify_progress', '{"progress":2}', 'p2')).toBe('sent');
    await waitFor('the next progress', () => progress.includes(2));
    expect(progress).toEqual([2]);
  });

  test('an elicitation carrying a key nested 20000 deep is refused INVALID_REQUEST in its own shape, never sent', async () => {
    const answer = JSON.parse(
      await raw(
        'create_elicitation',
        `{"message":"hi","requestedSchema":{"type":"object","properties":{}},"x":${deep}}`,
      ),
    ) as { action: string; _meta: { toolgate: { code: string; message: string } } };
    expect(answer.action).toBe('decline');
    expect(answer._meta.toolgate).toEqual({
      code: 'INVALID_REQUEST',
      message: 'create_elicitation: nests deeper than 64 levels',
    });
    expect(elicits).toBe(0);
  });

  test('a sampling request nested 20000 deep is refused in its own shape, never sent', async () => {
    const answer = JSON.parse(await raw('create_message', `{"messages":${deep},"maxTokens":5}`)) as {
      stopReason: string;
      _meta: { toolgate: { code: string } };
    };
    expect(answer.stopReason).toBe('error');
    expect(answer._meta.toolgate.code).toBe('INVALID_REQUEST');
  });

  test('a resource-updated notice nested 20000 deep is dropped and the call goes on', async () => {
    expect(await raw('notify_resource_updated', `{"uri":${deep}}`)).toBe('sent');
  });
});

describe("a module's resource template matches a client's URI in linear time", () => {
  test('a template of twelve adjacent {x} refuses a 64-character URI at once, and matching ones read', async () => {
    const started = Date.now();
    const err = await server.client.readResource({ uri: `mem://raw/${'a'.repeat(64)}` }, { timeout: 10_000 }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(String(err)).toContain('not found');
    expect(Date.now() - started).toBeLessThan(5_000);
    const read = await server.client.readResource({ uri: `mem://raw/${'b'.repeat(12)}/end` });
    expect(read.contents).toEqual([{ uri: 'mem://raw/xxxxxxxxxxxx/end', mimeType: 'text/plain', text: 'read' }]);
  }, 30_000);
});

describe('a module announces the completion only of a URL elicitation its own call sent', () => {
  const complete = (id: string) => JSON.stringify({ elicitationId: id });
  const url = (id: string) =>
    JSON.stringify({ mode: 'url', message: 'Sign in', url: 'https://auth.example.com/login', elicitationId: id });

  test("another's elicitationId is not announced; the one this call sent is", async () => {
    const call = (args: Record<string, string>) => server.client.callTool({ name: 'hx__raw', arguments: args });
    // an id the module never sent (another plugin's sign-in, say): dropped
    await call({ fn: 'notify_url_elicitation_completed', params: complete('someone-elses') });
    // an id sent by an earlier call is not this call's either
    await call({ fn: 'create_elicitation', params: url('earlier') });
    await call({ fn: 'notify_url_elicitation_completed', params: complete('earlier') });
    // the call's own URL elicitation, then its completion: announced
    await call({
      fn: 'create_elicitation',
      params: url('mine'),
      fn2: 'notify_url_elicitation_completed',
      params2: complete('mine'),
    });
    await waitFor("the completion of the call's own elicitation", () => completed.includes('mine'));
    expect(completed).toEqual(['mine']);
  });
});
