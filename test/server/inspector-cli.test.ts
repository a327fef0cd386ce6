// The MCP Inspector's CLI (pinned in test/inspector with its own dependencies) against the shipped
// `toolgate serve`, over stdio (the Inspector starts toolgate) and over Streamable HTTP: it lists
// the tools and calls one. The CLI cannot answer forms, so an ask it meets goes to the configured
// channel: answered on /v1/approvals here, the call goes on and the tool runs.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { ROOT, startHttp, tempDir, toolgateEntry, waitFor, type HttpProcess, writerManifest } from './helpers.js';

const INSPECTOR = join(
  ROOT,
  'test/inspector/node_modules/@modelcontextprotocol/inspector/clients/launcher/build/index.js',
);
const CONFORMANCE = join(ROOT, 'manifests/conformance');

let dir: Awaited<ReturnType<typeof tempDir>>;
let home: string;

function inspector(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const proc = spawn(process.execPath, [INSPECTOR, '--cli', ...args], {
      cwd: dir.path,
      env: {
        PATH: process.env.PATH ?? '',
        HOME: dir.path,
        TOOLGATE_HOME: home,
        MCP_CATALOG_PATH: join(dir.path, 'catalog.json'),
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    proc.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    proc.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const t = setTimeout(() => proc.kill('SIGKILL'), 60_000);
    proc.once('exit', (code) => {
      clearTimeout(t);
      resolve({ code, stdout, stderr });
    });
  });
}

beforeAll(async () => {
  if (!existsSync(INSPECTOR)) throw new Error('run `make conformance-deps` (npm ci in test/inspector) first');
  dir = await tempDir();
  home = join(dir.path, 'home');
  await mkdir(home);
});

afterAll(async () => {
  await dir.remove();
});

describe('the MCP Inspector CLI', () => {
  test('over stdio: it starts toolgate, lists the tools and calls one', async () => {
    const entry = await toolgateEntry();
    const list = await inspector([
      process.execPath,
      entry,
      'serve',
      '--stdio',
      '--manifests',
      CONFORMANCE,
      '--method',
      'tools/list',
    ]);
    expect(list.code, list.stderr).toBe(0);
    expect((JSON.parse(list.stdout) as { tools: { name: string }[] }).tools.map((t) => t.name)).toContain(
      'test_simple_text',
    );
    const call = await inspector([
      process.execPath,
      entry,
      'serve',
      '--stdio',
      '--manifests',
      CONFORMANCE,
      '--method',
      'tools/call',
      '--tool-name',
      'test_simple_text',
    ]);
    expect(call.code, call.stderr).toBe(0);
    expect(JSON.parse(call.stdout)).toMatchObject({
      isError: false,
      content: [{ type: 'text', text: 'This is a simple text response for testing.' }],
    });
  }, 90_000);

  describe('over Streamable HTTP', () => {
    let server: HttpProcess;
    let out: string;
    beforeAll(async () => {
      out = join(dir.path, 'out');
      const manifests = join(dir.path, 'manifests');
      const policies = join(dir.path, 'policies');
      await Promise.all([mkdir(out), mkdir(manifests), mkdir(policies)]);
      await writeFile(
        join(policies, 'set.yaml'),
        [
          'entries:',
          '  - { id: approvals, use: approvals, with: { channels: [queue] } }',
          '  - { id: ask-writer, use: ask, with: { tools: [writer], reason: "writing needs a yes" } }',
          '',
        ].join('\n'),
      );
      await writeFile(join(manifests, 'writer.yaml'), writerManifest(out));
      server = await startHttp(
        ['--http', '127.0.0.1:0', '--manifests', CONFORMANCE, '--manifests', manifests, '--policies', policies],
        { TOOLGATE_HOME: home },
      );
    });
    afterAll(async () => {
      await server?.stop();
    });

    test('it lists the tools and calls one', async () => {
      const list = await inspector([`${server.url}/mcp`, '--method', 'tools/list']);
      expect(list.code, list.stderr).toBe(0);
      expect((JSON.parse(list.stdout) as { tools: { name: string }[] }).tools.map((t) => t.name)).toEqual(
        expect.arrayContaining(['test_simple_text', 'writer']),
      );
      const call = await inspector([`${server.url}/mcp`, '--method', 'tools/call', '--tool-name', 'test_simple_text']);
      expect(call.code, call.stderr).toBe(0);
      expect(JSON.parse(call.stdout)).toMatchObject({ isError: false });
    }, 90_000);

    test('an ask it cannot answer waits on the configured channel, and the answer there lets the call run', async () => {
      const secret = (
        await waitFor('the approval secret', () =>
          readFile(join(home, 'approval-secret'), 'utf8').catch(() => undefined),
        )
      ).trim();
      const auth = { authorization: `Bearer ${secret}`, 'content-type': 'application/json' };
      const call = inspector([
        `${server.url}/mcp`,
        '--method',
        'tools/call',
        '--tool-name',
        'writer',
        '--tool-arg',
        'cmd=write /out/inspected yes',
      ]);
      const pending = await waitFor(
        'the approval',
        async () => {
          const list = (await (await fetch(`${server.url}/v1/approvals`, { headers: auth })).json()) as {
            approvals: { id: string; tool: string }[];
          };
          return list.approvals.find((a) => a.tool === 'writer');
        },
        30_000,
      );
      expect(existsSync(join(out, 'inspected'))).toBe(false);
      await fetch(`${server.url}/v1/approvals/${pending.id}`, {
        method: 'POST',
        headers: auth,
        body: JSON.stringify({ outcome: 'allowed-once' }),
      });
      const done = await call;
      expect(done.code, done.stderr).toBe(0);
      expect(JSON.parse(done.stdout)).toMatchObject({ isError: false });
      expect(existsSync(join(out, 'inspected'))).toBe(true);
    }, 90_000);
  });
});
