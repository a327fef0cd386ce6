// One tools/call over Streamable HTTP in each MCP revision toolgate serves, side by side against
// the same `serve --http`: a 2026-07-28 stateless request (no session; the envelope in _meta; the
// SDK v2 builds a server per request) and a call in a 2025-11-25 session (SDK v1, one server per
// session). Alternating calls, so machine noise hits both alike.
import { spawn } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Agent, request } from 'undici';

export const title = 'MCP 2026-07-28 stateless tools/call vs a 2025-11-25 session call (HTTP)';

const ROOT = new URL('../../', import.meta.url).pathname;

function start() {
  const proc = spawn(
    process.execPath,
    [
      `${ROOT}dist/cli/main.js`,
      'serve',
      '--http',
      '127.0.0.1:0',
      '--manifests',
      `${ROOT}manifests/conformance`,
      '--policies',
      'none',
      '-q',
    ],
    {
      cwd: ROOT,
      env: {
        PATH: process.env.PATH ?? '',
        HOME: process.env.HOME ?? '/tmp',
        TOOLGATE_HOME: join(tmpdir(), 'toolgate-bench-home'),
      },
      stdio: ['ignore', 'ignore', 'pipe'],
    },
  );
  return new Promise((resolve, reject) => {
    let err = '';
    proc.stderr.on('data', (d) => {
      err += d.toString();
      const m = /listening on (http:\/\/\S+)\/mcp/.exec(err);
      if (m) resolve({ proc, url: `${m[1]}/mcp` });
    });
    proc.once('exit', (code) => reject(new Error(`serve exited ${code}: ${err}`)));
  });
}

const META = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientInfo': { name: 'bench', version: '1' },
  'io.modelcontextprotocol/clientCapabilities': {},
};

async function post(dispatcher, url, headers, body) {
  const res = await request(url, {
    method: 'POST',
    dispatcher,
    body: JSON.stringify(body),
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
  });
  const text = await res.body.text();
  if (res.statusCode !== 200 || !text.includes('simple text'))
    throw new Error(`call failed: ${res.statusCode} ${text.slice(0, 300)}`);
  return res;
}

export async function run(ctx) {
  const { proc, url } = await start();
  const dispatcher = new Agent({ connections: 2 });
  try {
    const init = await request(url, {
      method: 'POST',
      dispatcher,
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 0,
        method: 'initialize',
        params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'bench', version: '1' } },
      }),
    });
    await init.body.text();
    const session = init.headers['mcp-session-id'];
    const legacyHeaders = { 'mcp-session-id': session, 'mcp-protocol-version': '2025-11-25' };
    await request(url, {
      method: 'POST',
      dispatcher,
      headers: { ...legacyHeaders, 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }),
    }).then((r) => r.body.text());
    const modernHeaders = {
      'mcp-protocol-version': '2026-07-28',
      'mcp-method': 'tools/call',
      'mcp-name': 'test_simple_text',
    };
    const N = ctx.count(400, 4);
    const WARM = ctx.count(50, 2);
    const modern = [];
    const legacy = [];
    for (let i = 0; i < N + WARM; i++) {
      const order = i % 2 === 0;
      for (const which of order ? ['modern', 'legacy'] : ['legacy', 'modern']) {
        const t = performance.now();
        if (which === 'modern')
          await post(dispatcher, url, modernHeaders, {
            jsonrpc: '2.0',
            id: i + 1,
            method: 'tools/call',
            params: { name: 'test_simple_text', arguments: {}, _meta: META },
          });
        else
          await post(dispatcher, url, legacyHeaders, {
            jsonrpc: '2.0',
            id: i + 1,
            method: 'tools/call',
            params: { name: 'test_simple_text', arguments: {} },
          });
        const us = (performance.now() - t) * 1000;
        if (i >= WARM) (which === 'modern' ? modern : legacy).push(us);
      }
    }
    const [m, l] = [modern, legacy].map((xs) => ctx.summary(xs));
    const row = (name, s) => `| ${name} | ${ctx.fmt(s.median, 0)} | ${ctx.fmt(s.p99, 0)} | ${s.n} |`;
    return [
      'tools/call of `test_simple_text` (a WASM tool) over one keep-alive connection, µs per call from request to the whole answer read.',
      '',
      '| revision | median µs | p99 µs | calls |',
      '|---|---|---|---|',
      row('2026-07-28, stateless (SDK v2)', m),
      row('2025-11-25, in a session (SDK v1)', l),
      '',
      `- ratio 2026-07-28 / 2025-11-25 (medians): ${ctx.fmt(m.median / l.median, 2)}x`,
    ].join('\n');
  } finally {
    await dispatcher.close();
    proc.kill('SIGTERM');
  }
}
