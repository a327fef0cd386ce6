// A watched --manifests folder: adding, changing or removing a manifest updates tools/list and
// sends notifications/tools/list_changed to connected clients, over the real `serve` process.
import { rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, expect, test } from 'vitest';
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { ROOT, startHttp, startStdio, tempDir, waitFor, type HttpProcess, type StdioServer } from './helpers.js';

const WASM = join(ROOT, 'test/fixtures/build/server_spin.wasm');

function manifest(name: string, description: string): string {
  return [
    'apiVersion: toolgate/v1',
    `name: ${name}`,
    'version: 0.1.0',
    `description: ${description}`,
    `module: { path: ${JSON.stringify(WASM)}, entry: echo }`,
    'parameters:',
    '  text: { type: string, required: true }',
    'output: { schema: { type: object } }',
    '',
  ].join('\n');
}

const cleanup: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const c of cleanup.splice(0).reverse()) await c();
});

test('adding, changing and removing a manifest in a watched folder notifies stdio clients and updates tools/list', async () => {
  const dir = await tempDir();
  cleanup.push(() => dir.remove());
  await writeFile(join(dir.path, 'first.yaml'), manifest('first_tool', 'The first tool.'));
  let changes = 0;
  const s: StdioServer = await startStdio(['--manifests', dir.path], {
    setup: (client) => client.setNotificationHandler(ToolListChangedNotificationSchema, () => void (changes += 1)),
  });
  cleanup.push(() => s.close());
  const names = async () => (await s.client.listTools()).tools.map((t) => t.name);
  expect(await names()).toContain('first_tool');

  await writeFile(join(dir.path, 'second.yaml'), manifest('second_tool', 'Added while serving.'));
  await waitFor('list_changed after an add', () => (changes >= 1 ? true : undefined));
  expect(await names()).toEqual(expect.arrayContaining(['first_tool', 'second_tool']));
  const r = await s.client.callTool({ name: 'second_tool', arguments: { text: 'new' } });
  expect(r.structuredContent).toEqual({ text: 'new' });

  const before = changes;
  await writeFile(join(dir.path, 'second.yaml'), manifest('second_tool', 'Changed while serving.'));
  await waitFor('list_changed after a change', () => (changes > before ? true : undefined));
  await waitFor('the new description', async () =>
    (await s.client.listTools()).tools.find((t) => t.name === 'second_tool')?.description === 'Changed while serving.'
      ? true
      : undefined,
  );

  const beforeRemove = changes;
  await rm(join(dir.path, 'second.yaml'));
  await waitFor('list_changed after a removal', () => (changes > beforeRemove ? true : undefined));
  await waitFor('second_tool to be gone', async () => (!(await names()).includes('second_tool') ? true : undefined));
  expect(await names()).toContain('first_tool');
});

test('a manifest present at start-up can be changed and removed while serving (list_changed, new definition, then gone)', async () => {
  const dir = await tempDir();
  cleanup.push(() => dir.remove());
  await writeFile(join(dir.path, 'early.yaml'), manifest('early_tool', 'There from the start.'));
  await writeFile(join(dir.path, 'stays.yaml'), manifest('stays_tool', 'Also there from the start.'));
  let changes = 0;
  const s: StdioServer = await startStdio(['--manifests', dir.path], {
    setup: (client) => client.setNotificationHandler(ToolListChangedNotificationSchema, () => void (changes += 1)),
  });
  cleanup.push(() => s.close());
  const listed = async () => (await s.client.listTools()).tools;
  expect((await listed()).find((t) => t.name === 'early_tool')?.description).toBe('There from the start.');
  expect((await s.client.callTool({ name: 'early_tool', arguments: { text: 'a' } })).structuredContent).toEqual({
    text: 'a',
  });

  await writeFile(join(dir.path, 'early.yaml'), manifest('early_tool', 'Changed while serving.'));
  await waitFor('list_changed after changing a start-up manifest', () => (changes >= 1 ? true : undefined));
  await waitFor('the changed description', async () =>
    (await listed()).find((t) => t.name === 'early_tool')?.description === 'Changed while serving.' ? true : undefined,
  );
  expect((await s.client.callTool({ name: 'early_tool', arguments: { text: 'b' } })).structuredContent).toEqual({
    text: 'b',
  });

  const beforeRemove = changes;
  await rm(join(dir.path, 'early.yaml'));
  await waitFor('list_changed after removing a start-up manifest', () => (changes > beforeRemove ? true : undefined));
  await waitFor('early_tool to be gone', async () =>
    !(await listed()).some((t) => t.name === 'early_tool') ? true : undefined,
  );
  expect((await listed()).map((t) => t.name)).toContain('stays_tool');
  const gone = s.client.callTool({ name: 'early_tool', arguments: { text: 'c' } });
  await expect(gone).rejects.toThrow(/Unknown tool: early_tool/);
});

test('with two folders naming the same tool neither is served (no shadowing), a broken file is skipped, and the rest load (concurrent read keeps the order)', async () => {
  const a = await tempDir();
  const b = await tempDir();
  cleanup.push(
    () => a.remove(),
    () => b.remove(),
  );
  for (let i = 0; i < 12; i++)
    await writeFile(
      join(a.path, `t${String(i).padStart(2, '0')}.yaml`),
      manifest(`tool_${i}`, `From the first folder, ${i}.`),
    );
  await writeFile(join(a.path, 'broken.yaml'), 'apiVersion: toolgate/v1\nname: Bad Name\n');
  await writeFile(join(b.path, 'a.yaml'), manifest('tool_3', 'From the second folder.'));
  await writeFile(join(b.path, 'b.yaml'), manifest('only_second', 'Only in the second folder.'));
  const s: StdioServer = await startStdio(['--manifests', a.path, '--manifests', b.path]);
  cleanup.push(() => s.close());
  const tools = (await s.client.listTools()).tools;
  for (let i = 0; i < 12; i++) {
    if (i === 3) continue;
    expect(tools.find((t) => t.name === `tool_${i}`)?.description).toBe(`From the first folder, ${i}.`);
  }
  expect(tools.map((t) => t.name)).not.toContain('tool_3');
  expect(tools.map((t) => t.name)).toContain('only_second');
  expect(tools.map((t) => t.name)).not.toContain('Bad Name');
  await waitFor('the duplicate and the broken file reported on stderr', () =>
    // (the log lines are JSON: their strings escape the quotes)
    s
      .stderr()
      .includes(`${join(a.path, 't03.yaml')}: name: tool \\"tool_3\\" is also defined by ${join(b.path, 'a.yaml')}`) &&
    s
      .stderr()
      .includes(`${join(b.path, 'a.yaml')}: name: tool \\"tool_3\\" is also defined by ${join(a.path, 't03.yaml')}`) &&
    s.stderr().includes('broken.yaml')
      ? true
      : undefined,
  );
});

test('an HTTP session is notified too, and a broken manifest added while serving is skipped without harm', async () => {
  const dir = await tempDir();
  cleanup.push(() => dir.remove());
  const h: HttpProcess = await startHttp(['--http', '127.0.0.1:0', '--manifests', dir.path]);
  cleanup.push(() => h.stop());
  let changes = 0;
  const client = await h.connect({
    setup: (c) => c.setNotificationHandler(ToolListChangedNotificationSchema, () => void (changes += 1)),
  });
  await writeFile(join(dir.path, 'broken.yaml'), 'apiVersion: toolgate/v1\nname: Bad Name\n');
  await writeFile(join(dir.path, 'good.yaml'), manifest('good_tool', 'A good one.'));
  await waitFor('list_changed', () => (changes >= 1 ? true : undefined));
  const tools = (await client.listTools()).tools.map((t) => t.name);
  expect(tools).toContain('good_tool');
  expect(tools).not.toContain('Bad Name');
  expect((await client.callTool({ name: 'good_tool', arguments: { text: 'ok' } })).isError).toBe(false);
});

test('an accepted policy reload (the policy engine\'s "changed" event) notifies connected sessions once per burst', async () => {
  const { PassThrough } = await import('node:stream');
  const { Client } = await import('@modelcontextprotocol/sdk/client/index.js');
  const { StreamableHTTPClientTransport } = await import('@modelcontextprotocol/sdk/client/streamableHttp.js');
  const { createRuntime } = await import('../../host/src/cli/index.js');
  const { PolicyEvents } = await import('../../host/src/policy/index.js');
  const { serveHttp, SessionApprovals, SidecarCore } = await import('../../host/src/server/index.js');
  const io = {
    stdout: () => {},
    stderr: () => {},
    stdin: new PassThrough(),
    isTTY: false,
    env: { TOOLGATE_LOG_LEVEL: 'silent' },
    cwd: ROOT,
  };
  const approvals = new SessionApprovals();
  const runtime = await createRuntime({ io, manifests: [], approval: approvals });
  const events = new PolicyEvents();
  const core = new SidecarCore({ runtime, approvals, policyChanges: (fn) => events.on('changed', () => fn()) });
  const http = await serveHttp(core, { bind: { host: '127.0.0.1', port: 0 } });
  const client = new Client({ name: 'policy-test', version: '1' });
  let changes = 0;
  client.setNotificationHandler(ToolListChangedNotificationSchema, () => void (changes += 1));
  try {
    await client.connect(new StreamableHTTPClientTransport(new URL(`${http.url}/mcp`)));
    await client.listTools();
    for (let i = 1; i <= 3; i++) events.emit({ type: 'changed', dir: '/p', generation: i, entries: [] });
    events.emit({ type: 'rejected', dir: '/p', error: 'bad file' }); // a refused reload changes nothing
    await waitFor('list_changed', () => (changes >= 1 ? true : undefined));
    await new Promise((r) => setTimeout(r, 300));
    expect(changes).toBe(1);
  } finally {
    await client.close();
    await http.close();
    core.close();
    await runtime.dispose();
  }
});
