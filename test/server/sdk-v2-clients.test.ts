// The official SDK v2 client against the shipped `toolgate serve`, in each of its modes: the default
// (the 2025 handshake), `auto` (server/discover first) and pinned to 2026-07-28, over stdio and
// Streamable HTTP. Each lists the tools, calls one that a policy asks about, and answers the ask
// through its own elicitation handler (a form over a 2025-11-25 session; an input round on
// 2026-07-28). The tool writes a file when it runs, so the answer demonstrably let it run.
import { existsSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { ROOT, startHttp, tempDir, toolgateEntry, type HttpProcess, writerManifest } from './helpers.js';

type Mode = 'default' | 'auto' | 'pinned';
const MODES: Mode[] = ['default', 'auto', 'pinned'];

let dir: Awaited<ReturnType<typeof tempDir>>;
let out: string;
let manifests: string;
let policies: string;
let http: HttpProcess;

beforeAll(async () => {
  dir = await tempDir();
  out = join(dir.path, 'out');
  manifests = join(dir.path, 'manifests');
  policies = join(dir.path, 'policies');
  await Promise.all([mkdir(out), mkdir(manifests), mkdir(policies), mkdir(join(dir.path, 'home'))]);
  await writeFile(
    join(policies, 'set.yaml'),
    'entries:\n  - { id: ask-writer, use: ask, with: { tools: [writer], reason: "writing needs a yes" } }\n',
  );
  await writeFile(join(manifests, 'writer.yaml'), writerManifest(out));
  http = await startHttp(['--http', '127.0.0.1:0', '--manifests', manifests, '--policies', policies], {
    TOOLGATE_HOME: join(dir.path, 'home'),
  });
});

afterAll(async () => {
  await http?.stop();
  await dir.remove();
});

function client(mode: Mode, forms: string[]): Client {
  const c = new Client(
    { name: `sdk-v2-${mode}`, version: '1.0.0' },
    {
      capabilities: { elicitation: {} },
      ...(mode === 'auto'
        ? { versionNegotiation: { mode: 'auto' as const } }
        : mode === 'pinned'
          ? { versionNegotiation: { mode: { pin: '2026-07-28' } } }
          : {}),
    },
  );
  c.setRequestHandler('elicitation/create', (req) => {
    forms.push(String((req.params as { message?: unknown }).message));
    return { action: 'accept', content: {} };
  });
  return c;
}

async function exercise(c: Client, file: string, forms: string[]): Promise<void> {
  const listed = await c.listTools();
  expect(listed.tools.map((t) => t.name)).toContain('writer');
  const result = await c.callTool({ name: 'writer', arguments: { cmd: `write /out/${file} yes` } });
  expect(result.isError, JSON.stringify(result)).toBe(false);
  expect(forms).toHaveLength(1);
  expect(forms[0]).toContain('writing needs a yes');
  expect(existsSync(join(out, file))).toBe(true);
}

const expectedVersion = (mode: Mode): string => (mode === 'default' ? '2025-11-25' : '2026-07-28');

describe.each(MODES)('the SDK v2 client, %s mode', (mode) => {
  test('over Streamable HTTP: lists, calls, and answers the ask through its elicitation handler', async () => {
    const forms: string[] = [];
    const c = client(mode, forms);
    await c.connect(new StreamableHTTPClientTransport(new URL(`${http.url}/mcp`)));
    try {
      expect(c.getNegotiatedProtocolVersion()).toBe(expectedVersion(mode));
      await exercise(c, `http-${mode}`, forms);
    } finally {
      await c.close();
    }
  }, 30_000);

  test('over stdio: lists, calls, and answers the ask through its elicitation handler', async () => {
    const forms: string[] = [];
    const c = client(mode, forms);
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [await toolgateEntry(), 'serve', '--stdio', '--manifests', manifests, '--policies', policies],
      cwd: ROOT,
      env: { PATH: process.env.PATH ?? '', HOME: dir.path, TOOLGATE_HOME: join(dir.path, 'home') },
      stderr: 'pipe',
    });
    await c.connect(transport);
    try {
      expect(c.getNegotiatedProtocolVersion()).toBe(expectedVersion(mode));
      await exercise(c, `stdio-${mode}`, forms);
    } finally {
      await c.close();
    }
  }, 30_000);
});
