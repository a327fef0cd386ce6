// The first http_request of an instance against a warm one (issue 15 item 4), as an agent sees it:
// the example fetch_url tool served by `toolgate serve --stdio`, called by the SDK client, against a
// local HTTP server. Each round is a fresh server process.
import { createServer } from 'node:http';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ROOT } from './mcp.mjs';

const MANIFEST = join(ROOT, 'manifests/fetch_url.yaml');
const WASM = join(ROOT, 'pdk-examples/assemblyscript/build/fetch_url.wasm');
/** An agent's model reads the tool list before its first call; the server has this long to settle. */
export const THINK_MS = 1000;
export const WARM_CALLS = 20;

async function httpServer() {
  let held = [];
  let seenSlow;
  const server = createServer((req, res) => {
    if (req.url === '/slow') {
      held.push(res); // answered only when the bench closes: the call is cancelled first
      seenSlow?.();
      return;
    }
    res.setHeader('content-type', 'text/plain');
    res.end('hello from the bench server\n');
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  return {
    port: server.address().port,
    slowSeen: () => new Promise((r) => (seenSlow = r)),
    close: () => {
      for (const res of held) res.destroy();
      held = [];
      server.closeAllConnections();
      return new Promise((r) => server.close(r));
    },
  };
}

function manifestDir(port) {
  const dir = mkdtempSync(join(tmpdir(), 'toolgate-bench-net-'));
  const text = readFileSync(MANIFEST, 'utf8')
    .replace('"127.0.0.1:8080"', JSON.stringify(`127.0.0.1:${port}`))
    .replace('../pdk-examples/assemblyscript/build/fetch_url.wasm', WASM);
  writeFileSync(join(dir, 'fetch_url.yaml'), text);
  return dir;
}

async function connect(dir) {
  const client = new Client({ name: 'bench', version: '1' });
  await client.connect(
    new StdioClientTransport({
      command: process.execPath,
      args: [
        join(ROOT, 'dist/cli/main.js'),
        'serve',
        '--stdio',
        '--no-watch',
        '--manifests',
        dir,
        '--policies',
        'none',
      ],
      cwd: dir,
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', TOOLGATE_HOME: join(dir, 'home') },
      stderr: 'ignore',
    }),
  );
  return client;
}

async function timedFetch(client, url) {
  const t0 = performance.now();
  const r = await client.callTool({ name: 'fetch_url', arguments: { url } });
  const ms = performance.now() - t0;
  if (r.isError) throw new Error(`fetch_url ${url}: ${JSON.stringify(r.content)}`);
  return ms;
}

/** One fresh server: first call, warm calls, then a teardown and the replacement instance's first call. */
async function round(ctx, srv, dir) {
  const url = `http://127.0.0.1:${srv.port}/`;
  const client = await connect(dir);
  try {
    await client.listTools();
    await ctx.sleep(THINK_MS);
    const first = await timedFetch(client, url);
    const warm = [];
    for (let i = 0; i < WARM_CALLS; i++) warm.push(await timedFetch(client, url));
    // a cancelled call tears its instance down; the pool starts a replacement in the background
    const abort = new AbortController();
    const seen = srv.slowSeen();
    const slow = client
      .callTool({ name: 'fetch_url', arguments: { url: `${url}slow` } }, undefined, { signal: abort.signal })
      .catch(() => undefined);
    await seen;
    abort.abort();
    await slow;
    await ctx.sleep(300);
    const replacement = await timedFetch(client, url);
    return { first, warm: ctx.summary(warm).median, replacement };
  } finally {
    await client.close();
  }
}

/** `rounds` fresh servers; per round: first call, median warm call, first call on a replacement instance (ms). */
export async function firstRequests(ctx, rounds) {
  const srv = await httpServer();
  const dir = manifestDir(srv.port);
  try {
    const rows = [];
    for (let i = 0; i < rounds; i++) rows.push(await round(ctx, srv, dir));
    return rows;
  } finally {
    await srv.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
