// The reverse-proxy sample of docs/operations.md, run as written against a real nginx (Debian's
// `nginx`) in front of two `serve --http --state` replicas and a real redis-server: 2025-11-25
// sessions keep to their replica, a 2026-07-28 request is answered, an ask made through the proxy
// streams its progress and is answered through the proxy. Only the addresses and TLS differ from
// the doc. Skipped, saying why, when nginx is not installed (scripts/toolchains.sh test lists it).
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:net';
import { existsSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { Agent, fetch as undiciFetch } from 'undici';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { startRedis, type RedisServer } from '../support/redis-server.js';
import { ROOT, startHttp, tempDir, waitFor, writerManifest, type HttpProcess } from './helpers.js';
import { modernRpc } from './modern-rpc.js';

const NGINX =
  ['/usr/sbin/nginx', '/usr/local/sbin/nginx'].find((p) => existsSync(p)) ??
  (spawnSync('sh', ['-c', 'command -v nginx']).stdout?.toString().trim() || undefined);
if (NGINX === undefined)
  console.log(
    'nginx-replicas.test.ts: skipped: nginx is not installed (apt-get install nginx; scripts/toolchains.sh test)',
  );

const TOKEN = 'nginx-token';
const ECHO_WASM = join(ROOT, 'test/fixtures/build/server_spin.wasm');
const auth = { authorization: `Bearer ${TOKEN}` };

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const a = s.address();
      s.close(() => resolve(typeof a === 'object' && a !== null ? a.port : 0));
    });
  });
}

/** The doc's sample with this test's addresses: the replicas for its servers, a loopback port for its TLS listener. */
function sampleConfig(doc: string, port: number, upstreams: string[], prefix: string): string {
  const m = /```nginx\n([\s\S]*?)```/.exec(doc);
  if (m?.[1] === undefined) throw new Error('docs/operations.md has no nginx sample');
  let servers = 0;
  const body = m[1]
    .split('\n')
    .flatMap((line) => {
      if (/^\s*server \S+:\d+;/.test(line)) return servers++ === 0 ? upstreams.map((u) => `    server ${u};`) : [];
      if (/^\s*listen 443 ssl;/.test(line)) return [`    listen 127.0.0.1:${port};`];
      if (/^\s*#\s*ssl_/.test(line)) return [];
      return [line];
    })
    .join('\n');
  const temp = ['client_body', 'proxy', 'fastcgi', 'uwsgi', 'scgi']
    .map((t) => `    ${t}_temp_path ${prefix}/${t};`)
    .join('\n');
  return [
    ...(process.getuid?.() === 0 ? ['user root;'] : []),
    `pid ${prefix}/nginx.pid;`,
    `error_log ${prefix}/error.log info;`,
    'events {}',
    'http {',
    `    access_log ${prefix}/access.log;`,
    temp,
    body,
    '}',
    '',
  ].join('\n');
}

const describeNginx = NGINX !== undefined ? describe : describe.skip;

describeNginx('the nginx sample of docs/operations.md in front of two replicas', () => {
  let dir: Awaited<ReturnType<typeof tempDir>>;
  let redis: RedisServer;
  let replicas: HttpProcess[] = [];
  let nginx: ChildProcess | undefined;
  let url = '';
  let out = '';

  beforeAll(async () => {
    dir = await tempDir();
    redis = await startRedis();
    out = join(dir.path, 'out');
    const manifests = join(dir.path, 'manifests');
    const policies = join(dir.path, 'policies');
    const prefix = join(dir.path, 'nginx');
    await Promise.all([mkdir(out), mkdir(manifests), mkdir(policies), mkdir(prefix)]);
    const keyFile = join(dir.path, 'mrtr.key');
    await writeFile(keyFile, `${randomBytes(32).toString('hex')}\n`, { mode: 0o600 });
    await writeFile(
      join(policies, 'set.yaml'),
      [
        'entries:',
        '  - { id: audit, use: audit-log }',
        '  - { id: approvals, use: approvals, with: { channels: [queue] } }',
        '  - { id: ask-writer, use: ask, with: { tools: [writer] } }',
        '',
      ].join('\n'),
    );
    await writeFile(join(manifests, 'writer.yaml'), writerManifest(out));
    await writeFile(
      join(manifests, 'echo.yaml'),
      [
        'apiVersion: toolgate/v1',
        'name: wasm_echo',
        'version: 1.0.0',
        'description: Echoes its text.',
        `module: { path: ${ECHO_WASM}, entry: echo }`,
        'parameters: { text: { type: string, required: true } }',
        'output: { schema: { type: object }, render: json }',
        'capabilities: { timeout_ms: 5000 }',
        '',
      ].join('\n'),
    );
    replicas = await Promise.all(
      ['a', 'b'].map(async (name) => {
        const home = join(dir.path, `home-${name}`);
        await mkdir(home);
        return startHttp(
          [
            '--http',
            '127.0.0.1:0',
            '--manifests',
            manifests,
            '--policies',
            policies,
            '--token',
            TOKEN,
            '--mrtr-key-file',
            keyFile,
            '--state',
            redis.url,
          ],
          {
            TOOLGATE_HOME: home,
            TOOLGATE_ASK_PROGRESS_MS: '200',
          },
        );
      }),
    );
    const port = await freePort();
    const doc = await readFile(join(ROOT, 'docs/operations.md'), 'utf8');
    await writeFile(
      join(prefix, 'nginx.conf'),
      sampleConfig(
        doc,
        port,
        replicas.map((r) => new URL(r.url).host),
        prefix,
      ),
    );
    const proc = spawn(NGINX!, ['-p', prefix, '-c', join(prefix, 'nginx.conf'), '-g', 'daemon off;'], {
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    nginx = proc;
    let err = '';
    proc.stderr?.on('data', (d: Buffer) => (err += d.toString()));
    url = `http://127.0.0.1:${port}`;
    await waitFor(
      `nginx to listen (${err})`,
      async () => ((await fetch(`${url}/healthz`).catch(() => undefined))?.status === 200 ? true : undefined),
      10_000,
    );
  }, 60_000);

  afterAll(async () => {
    if (nginx !== undefined && nginx.exitCode === null) {
      const exited = new Promise((r) => nginx!.once('exit', r));
      nginx.kill('SIGTERM');
      await exited;
    }
    await Promise.allSettled([...replicas.map((r) => r.stop()), ...[...agents.values()].map((a) => a.close())]);
    await redis?.stop();
    await dir?.remove();
  });

  // The sample keeps a client on its replica by its address; clients on 127.0.0.2, .3, ... are
  // different clients to nginx, so between them they reach both replicas.
  const agents = new Map<string, Agent>();
  const from = (address: string): typeof fetch => {
    let agent = agents.get(address);
    if (agent === undefined) agents.set(address, (agent = new Agent({ localAddress: address })));
    const dispatcher = agent;
    return ((input: string | URL, init?: RequestInit) =>
      undiciFetch(input, { ...(init as object), dispatcher })) as unknown as typeof fetch;
  };
  const connect = async (address = '127.0.0.1'): Promise<Client> => {
    const client = new Client({ name: 'through-nginx', version: '1' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${url}/mcp`), {
        requestInit: { headers: auth },
        fetch: from(address),
      }),
    );
    return client;
  };
  const audited = async (name: string): Promise<number> =>
    (await readFile(join(dir.path, `home-${name}`, 'audit.jsonl'), 'utf8').catch(() => ''))
      .split('\n')
      .filter((l) => l.includes('wasm_echo')).length;

  test('2025-11-25 sessions opened through the proxy keep to their replica for every later request, and clients on different addresses reach both replicas', async () => {
    const clients = await Promise.all(Array.from({ length: 12 }, (_, i) => connect(`127.0.0.${i + 2}`)));
    try {
      for (const [i, client] of clients.entries()) {
        expect((await client.listTools()).tools.map((t) => t.name)).toContain('wasm_echo');
        for (let k = 0; k < 3; k++) {
          const r = await client.callTool({ name: 'wasm_echo', arguments: { text: `s${i}-${k}` } });
          expect(r.isError).toBeFalsy();
        }
      }
    } finally {
      await Promise.allSettled(clients.map((c) => c.close()));
    }
    expect(await audited('a')).toBeGreaterThan(0);
    expect(await audited('b')).toBeGreaterThan(0);
  }, 60_000);

  test('a 2026-07-28 request through the proxy is answered', async () => {
    const r = await modernRpc(
      url,
      'tools/call',
      { name: 'wasm_echo', arguments: { text: 'modern' } },
      { headers: auth },
    );
    expect(r.message.result?.['isError']).toBe(false);
  }, 30_000);

  test('an ask made through the proxy streams progress while it waits, and is answered through the proxy', async () => {
    const client = await connect();
    try {
      let progress = 0;
      const call = client.callTool({ name: 'writer', arguments: { cmd: 'write /out/proxied yes' } }, undefined, {
        onprogress: () => progress++,
        resetTimeoutOnProgress: true,
        timeout: 30_000,
      });
      // every client address sees it, whichever replica nginx sends it to
      const lists = async (): Promise<string[][]> =>
        Promise.all(
          Array.from({ length: 8 }, async (_, i) => {
            const list = (await (await from(`127.0.0.${i + 20}`)(`${url}/v1/approvals`, { headers: auth })).json()) as {
              approvals: { id: string }[];
            };
            return list.approvals.map((p) => p.id);
          }),
        );
      const seen = await waitFor(
        'the ask through the proxy',
        async () => {
          const all = await lists();
          return all.every((ids) => ids.length === 1) ? all : undefined;
        },
        10_000,
      );
      const id = seen[0]![0]!;
      expect(seen.every((ids) => ids[0] === id)).toBe(true);
      await waitFor('progress through the proxy', async () => (progress >= 2 ? true : undefined), 10_000);
      const answer = await from('127.0.0.31')(`${url}/v1/approvals/${id}`, {
        method: 'POST',
        headers: { ...auth, 'content-type': 'application/json' },
        body: JSON.stringify({ outcome: 'allowed-once' }),
      });
      expect(answer.status).toBe(200);
      expect((await call).isError).toBe(false);
      expect(existsSync(join(out, 'proxied'))).toBe(true);
    } finally {
      await client.close();
    }
  }, 60_000);
});
