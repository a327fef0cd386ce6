// hyper-mcp's own host functions (extism:host/user) served to module.abi hyper-mcp modules through
// toolgate's client path: logs and progress on the call's own path, elicitation (form and URL
// mode), sampling and roots through the policy gate, list-changed and resource-updated
// notifications, each behind its capabilities.mcp feature, and a flood bounded per call. Real
// modules: test/fixtures/hyper_client.c (v2, C) and test/fixtures/hyper_client_v1.rs (v1, Rust),
// driven by the SDK client over stdio and HTTP (2025-11-25) and by 2026-07-28 requests.
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import {
  CallToolResultSchema,
  CreateMessageRequestSchema,
  ElicitRequestSchema,
  ListRootsRequestSchema,
  LoggingMessageNotificationSchema,
  ProgressNotificationSchema,
  ResourceUpdatedNotificationSchema,
  ToolListChangedNotificationSchema,
  type ClientCapabilities,
  type ElicitRequest,
} from '@modelcontextprotocol/sdk/types.js';
import {
  loadManifestFile,
  ManifestError,
  pluginFromManifest,
  toolFromManifest,
} from '../../host/src/manifest/index.js';
import { ROOT, startHttp, startStdio, tempDir, waitFor, type HttpProcess, type StdioServer } from './helpers.js';
import { modernRpc } from './modern-rpc.js';

const C_CLIENT = join(ROOT, 'test/fixtures/build/hyper_client.wasm');
const RS_CLIENT = join(ROOT, 'test/fixtures/build/hyper_client_v1.wasm');
const ALL: ClientCapabilities = { sampling: {}, elicitation: { form: {}, url: {} }, roots: {} };
const ROOTS = [{ uri: 'file:///work/project', name: 'project' }];
const FEATURES = 'mcp: [logging, progress, elicitation, sampling, roots, notifications]';

const plugin = (name: string, wasm: string, caps: string[], timeoutMs = 5000) =>
  [
    'apiVersion: toolgate/v1',
    `name: ${name}`,
    'version: 1.0.0',
    `description: ${name} plugin`,
    `module: { path: ${wasm}, abi: hyper-mcp }`,
    'capabilities:',
    `  timeout_ms: ${timeoutMs}`,
    ...caps.map((c) => `  ${c}`),
    '',
  ].join('\n');

interface Seen {
  logs: { level: string; logger?: string | undefined; data: unknown }[];
  progress: { progressToken: unknown; progress: number; total?: number | undefined; message?: string | undefined }[];
  elicits: ElicitRequest['params'][];
  samples: number;
  roots: number;
  toolsChanged: number;
  updated: string[];
}

function recorder(): { seen: Seen; setup: (c: Client) => void } {
  const seen: Seen = { logs: [], progress: [], elicits: [], samples: 0, roots: 0, toolsChanged: 0, updated: [] };
  const setup = (c: Client): void => {
    c.setNotificationHandler(LoggingMessageNotificationSchema, (n) => void seen.logs.push(n.params));
    c.setNotificationHandler(ProgressNotificationSchema, (n) => void seen.progress.push(n.params));
    c.setNotificationHandler(ToolListChangedNotificationSchema, () => void seen.toolsChanged++);
    c.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => void seen.updated.push(n.params.uri));
    c.setRequestHandler(CreateMessageRequestSchema, () => {
      seen.samples++;
      return {
        role: 'assistant',
        content: { type: 'text', text: 'hi from the model' },
        model: 'test-model',
        stopReason: 'endTurn',
      };
    });
    c.setRequestHandler(ListRootsRequestSchema, () => {
      seen.roots++;
      return { roots: ROOTS };
    });
    c.setRequestHandler(ElicitRequestSchema, (req) => {
      seen.elicits.push(req.params);
      return req.params.mode === 'url'
        ? { action: 'accept' }
        : { action: 'accept', content: { name: 'Ada', colour: 'teal' } };
    });
  };
  return { seen, setup };
}

const textOf = (result: unknown): string =>
  CallToolResultSchema.parse(result)
    .content.map((b) => (b.type === 'text' ? b.text : `[${b.type}]`))
    .join('');

let dir: { path: string; remove(): Promise<void> };
let manifests: string;
let policies: string;

beforeAll(async () => {
  dir = await tempDir();
  manifests = join(dir.path, 'manifests');
  policies = join(dir.path, 'policies');
  await Promise.all([mkdir(manifests), mkdir(policies)]);
  await writeFile(
    join(manifests, 'hc.yaml'),
    plugin('hc', C_CLIENT, [FEATURES, 'allowed_hosts: [auth.example.com]'], 30_000),
  );
  await writeFile(
    join(manifests, 'hr.yaml'),
    plugin('hr', RS_CLIENT, ['mcp: [logging, progress, elicitation, sampling, roots]']),
  );
  await writeFile(join(manifests, 'hd.yaml'), plugin('hd', C_CLIENT, [FEATURES]));
  await writeFile(
    join(policies, 'set.yaml'),
    [
      'entries:',
      '  - { id: no-elicit, use: client-requests, with: { deny: [elicitation], tools: ["hd__*"], reason: "no questions from hd" } }',
      '',
    ].join('\n'),
  );
}, 60_000);

afterAll(async () => {
  await dir?.remove();
});

describe('a module importing a hyper-mcp host function its manifest does not grant', () => {
  test('is refused at load, naming the import and the feature it needs', async () => {
    const file = join(dir.path, 'ungranted.yaml');
    await writeFile(
      file,
      plugin('ungranted', C_CLIENT, ['mcp: [logging, progress, elicitation, roots, notifications]']),
    );
    const err = await pluginFromManifest(await loadManifestFile(file)).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(ManifestError);
    expect((err as Error).message).toContain(
      'import "extism:host/user.create_message" needs capabilities.mcp to list "sampling"',
    );
  });

  test('a module.abi toolgate manifest may not import them at all, whatever it grants', async () => {
    const file = join(dir.path, 'plain.yaml');
    await writeFile(
      file,
      [
        'apiVersion: toolgate/v1',
        'name: plain',
        'version: 1.0.0',
        'description: plain',
        `module: { path: ${C_CLIENT}, entry: call_tool }`,
        'capabilities:',
        `  ${FEATURES}`,
        '',
      ].join('\n'),
    );
    const err = await toolFromManifest(await loadManifestFile(file)).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(ManifestError);
    expect((err as Error).message).toMatch(
      /import "extism:host\/user\.\w+" is from namespace "extism:host\/user": .*only to a module\.abi hyper-mcp manifest/,
    );
  });
});

interface Rig {
  connect(setup: (c: Client) => void): Promise<Client>;
  /** The server log so far (of the last server connected to, for stdio). */
  log(): string;
  close(): Promise<unknown>;
}

const transports: [string, () => Promise<Rig>][] = [
  [
    'stdio',
    async () => {
      const servers: StdioServer[] = [];
      return {
        connect: async (setup) => {
          const s = await startStdio(['--manifests', manifests, '--policies', policies, '--no-watch'], {
            capabilities: ALL,
            setup,
          });
          servers.push(s);
          return s.client;
        },
        log: () => servers.at(-1)?.stderr() ?? '',
        close: () => Promise.allSettled(servers.map((s) => s.close())),
      };
    },
  ],
  [
    'http',
    async () => {
      const server = await startHttp([
        '--http',
        '127.0.0.1:0',
        '--manifests',
        manifests,
        '--policies',
        policies,
        '--no-watch',
      ]);
      return {
        connect: (setup) => server.connect({ capabilities: ALL, setup }),
        log: () => server.stderr(),
        close: () => server.stop(),
      };
    },
  ],
];

describe.each(transports)('hyper-mcp host functions over %s (2025-11-25)', (_name, start) => {
  let rig: Rig;
  beforeAll(async () => {
    rig = await start();
  }, 60_000);
  afterAll(async () => {
    await rig?.close();
  });

  test("a v2 module's logs and progress reach the client on the call's own path, and its elicitation, sampling and roots are answered by the client", async () => {
    const { seen, setup } = recorder();
    const client = await rig.connect(setup);
    await client.setLoggingLevel('debug');
    const result = await client.request(
      { method: 'tools/call', params: { name: 'hc__work', arguments: {}, _meta: { progressToken: 'call-7' } } },
      CallToolResultSchema,
    );
    const answers = JSON.parse(textOf(result)) as Record<string, Record<string, unknown>>;
    expect(answers['elicit']).toEqual({ action: 'accept', content: { name: 'Ada', colour: 'teal' } });
    expect(answers['sample']).toMatchObject({
      role: 'assistant',
      content: { type: 'text', text: 'hi from the model' },
      model: 'test-model',
    });
    expect(answers['roots']).toEqual({ roots: ROOTS });
    // hyper-mcp's `timeout` is toolgate's to use, never sent on
    expect(seen.elicits[0]).toEqual({
      message: 'Your name?',
      requestedSchema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] },
    });
    expect([seen.samples, seen.roots]).toEqual([1, 1]);
    expect(seen.logs).toEqual([
      { level: 'info', logger: 'hc.call_tool', data: 'starting work' },
      { level: 'warning', logger: 'hc.call_tool', data: '{"step":1}' },
    ]);
    // the module's progressToken is ignored: progress goes out on the call's own token
    expect(seen.progress.map((p) => [p.progressToken, p.progress, p.total, p.message])).toEqual([
      ['call-7', 1, 3, 'one'],
      ['call-7', 2, 3, undefined],
      ['call-7', 3, 3, 'done'],
    ]);
  });

  test('a v1 module in Rust uses the same functions', async () => {
    const { seen, setup } = recorder();
    const client = await rig.connect(setup);
    await client.setLoggingLevel('debug');
    const answers = JSON.parse(textOf(await client.callTool({ name: 'hr__ask', arguments: {} }))) as Record<
      string,
      unknown
    >;
    expect(answers['elicit']).toEqual({ action: 'accept', content: { name: 'Ada', colour: 'teal' } });
    expect(answers['roots']).toEqual({ roots: ROOTS });
    expect(seen.logs.map((l) => [l.level, l.data])).toEqual([['notice', 'asking']]);
  });

  test("a policy denying elicitation: the module hears a decline carrying DENIED and the client's user is never asked", async () => {
    const { seen, setup } = recorder();
    const client = await rig.connect(setup);
    const answers = JSON.parse(textOf(await client.callTool({ name: 'hd__work', arguments: {} }))) as Record<
      string,
      Record<string, unknown>
    >;
    expect(answers['elicit']?.['action']).toBe('decline');
    expect((answers['elicit']?.['_meta'] as { toolgate: { code: string; message: string } }).toolgate.code).toBe(
      'DENIED',
    );
    expect((answers['elicit']?.['_meta'] as { toolgate: { message: string } }).toolgate.message).toContain(
      'no questions from hd',
    );
    expect(seen.elicits).toEqual([]);
    // the other requests of the same call are not covered by that entry
    expect(answers['roots']).toEqual({ roots: ROOTS });
  });

  test('URL-mode elicitation reaches the client only for a host the manifest allows', async () => {
    const { seen, setup } = recorder();
    const client = await rig.connect(setup);
    const elicit = async (url: string): Promise<Record<string, unknown>> => {
      const params = JSON.stringify({ mode: 'url', message: 'Sign in', url, elicitationId: 'e-1' });
      return JSON.parse(textOf(await client.callTool({ name: 'hc__elicit', arguments: { params } }))) as Record<
        string,
        unknown
      >;
    };
    expect(await elicit('https://auth.example.com/login')).toEqual({ action: 'accept' });
    expect(seen.elicits).toEqual([
      { mode: 'url', message: 'Sign in', url: 'https://auth.example.com/login', elicitationId: 'e-1' },
    ]);
    const refused = await elicit('https://evil.example.net/login');
    expect(refused['action']).toBe('decline');
    expect((refused['_meta'] as { toolgate: { code: string; message: string } }).toolgate).toEqual({
      code: 'INVALID_REQUEST',
      message:
        'create_elicitation: URL mode to evil.example.net is refused: capabilities.allowed_hosts does not cover it',
    });
    expect(seen.elicits).toHaveLength(1);
  });

  test('list-changed goes to the client; resource-updated only for a URI the client subscribed to', async () => {
    const { seen, setup } = recorder();
    const client = await rig.connect(setup);
    expect(textOf(await client.callTool({ name: 'hc__changed', arguments: {} }))).toBe('sent');
    expect(seen.toolsChanged).toBe(1);
    expect(seen.updated).toEqual([]);
    await client.subscribeResource({ uri: 'mem://client/status' });
    await client.callTool({ name: 'hc__changed', arguments: {} });
    expect(seen.toolsChanged).toBe(2);
    expect(seen.updated).toEqual(['mem://client/status']);
  });

  test('a notification flood is bounded per call (dropped, not queued) and the server answers another call promptly meanwhile', async () => {
    const { seen, setup } = recorder();
    const client = await rig.connect(setup);
    await client.setLoggingLevel('debug');
    // two instances of the plugin's call_tool warm, so the second call below waits on nothing but the server
    await Promise.all([
      client.callTool({ name: 'hc__changed', arguments: {} }),
      client.callTool({ name: 'hc__changed', arguments: {} }),
    ]);
    seen.toolsChanged = 0;
    const flood = client.request(
      { method: 'tools/call', params: { name: 'hc__flood', arguments: { n: 1000 }, _meta: { progressToken: 'f' } } },
      CallToolResultSchema,
      { timeout: 30_000 },
    );
    const started = performance.now();
    const other = await client.callTool({ name: 'hc__changed', arguments: {} });
    const otherMs = performance.now() - started;
    expect(textOf(other)).toBe('sent');
    expect(otherMs).toBeLessThan(2000);
    expect(textOf(await flood)).toBe('1000');
    // per call: at most 256 log lines, 256 progress, 32 notifications, and a burst of 256 notices then 64/s
    expect(seen.logs.length).toBeLessThanOrEqual(256);
    expect(seen.progress.length).toBeLessThanOrEqual(256);
    expect(seen.toolsChanged).toBeLessThanOrEqual(32 + 1);
    expect(seen.logs.length + seen.progress.length + seen.toolsChanged).toBeLessThan(600);
    // what was dropped is counted in the server log, not sent to the client being flooded
    await waitFor('the drop count in the server log', () => rig.log().match(/(\d+) client notices dropped/)?.[1]);
  }, 60_000);

  test('malformed JSON from a module never reaches the client: a request is answered INVALID_REQUEST in its own shape', async () => {
    const { seen, setup } = recorder();
    const client = await rig.connect(setup);
    const answer = JSON.parse(
      textOf(await client.callTool({ name: 'hc__elicit', arguments: { params: 'not json {' } })),
    ) as Record<string, unknown>;
    expect(answer['action']).toBe('decline');
    expect((answer['_meta'] as { toolgate: { code: string } }).toolgate.code).toBe('INVALID_REQUEST');
    const form = JSON.parse(
      textOf(await client.callTool({ name: 'hc__elicit', arguments: { params: '{"message": 7}' } })),
    ) as Record<string, unknown>;
    expect((form['_meta'] as { toolgate: { code: string; message: string } }).toolgate.code).toBe('INVALID_REQUEST');
    expect(seen.elicits).toEqual([]);
  }, 60_000);
});

describe('hyper-mcp host functions on 2026-07-28', () => {
  let http: HttpProcess;
  beforeAll(async () => {
    http = await startHttp(['--http', '127.0.0.1:0', '--manifests', manifests, '--policies', policies, '--no-watch']);
  }, 60_000);
  afterAll(async () => {
    await http?.stop();
  });

  test("elicitation, sampling and roots become one input round's questions; the retried call hears the answers", async () => {
    const caps = { elicitation: { form: {} }, sampling: {}, roots: {} };
    const first = await modernRpc(http.url, 'tools/call', { name: 'hr__ask', arguments: {} }, { capabilities: caps });
    expect(first.message.result?.['resultType']).toBe('input_required');
    const questions = first.message.result?.['inputRequests'] as Record<
      string,
      { method: string; params: Record<string, unknown> }
    >;
    const methods = Object.values(questions)
      .map((q) => q.method)
      .sort();
    expect(methods).toEqual(['elicitation/create', 'roots/list', 'sampling/createMessage']);
    const responses: Record<string, unknown> = {};
    for (const [key, q] of Object.entries(questions)) {
      if (q.method === 'elicitation/create') responses[key] = { action: 'accept', content: { colour: 'red' } };
      if (q.method === 'sampling/createMessage')
        responses[key] = { role: 'assistant', content: { type: 'text', text: 'red' }, model: 'm' };
      if (q.method === 'roots/list') responses[key] = { roots: ROOTS };
    }
    const retry = await modernRpc(
      http.url,
      'tools/call',
      {
        name: 'hr__ask',
        arguments: {},
        inputResponses: responses,
        requestState: first.message.result?.['requestState'],
      },
      { capabilities: caps },
    );
    const content = retry.message.result?.['content'] as { text: string }[];
    const answers = JSON.parse(content[0]?.text ?? '{}') as Record<string, unknown>;
    expect(answers['elicit']).toEqual({ action: 'accept', content: { colour: 'red' } });
    expect(answers['roots']).toEqual({ roots: ROOTS });
    expect(answers['sample']).toMatchObject({ content: { type: 'text', text: 'red' } });
  });
});
