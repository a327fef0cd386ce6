// The installed command works like the checkout: `npm pack`, install the tarball into a temporary
// prefix, and use the `toolgate` it puts on PATH from a temporary folder outside the checkout —
// serve, call, inspect, install, new + the scaffold's own build and test, an ask answered through
// each approval channel (tty, queue, HTTP callback, MCP elicitation), and every package the bundle
// loads lazily — with the default policy set that travels inside the package, and the example
// manifests that travel inside it too (with the modules and sample data they point at).
import { execFile, spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HIDDEN_CHARACTER_CLASS } from '../../host/src/terminal/index.js';
import { startRedis } from '../support/redis-server.js';

const ROOT = resolve(import.meta.dirname, '../..');
const MANIFESTS = join(ROOT, 'manifests');
const LOCAL_URL = '{"url":"http://127.0.0.1:8080/"}';

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

let tmp = '';
let prefix = '';
let work = '';
let env: NodeJS.ProcessEnv = {};

function run(
  cmd: string,
  args: string[],
  opts: { cwd?: string; env?: NodeJS.ProcessEnv; timeoutMs?: number } = {},
): Promise<Run> {
  return new Promise((done) => {
    const child = execFile(
      cmd,
      args,
      { cwd: opts.cwd ?? work, env: opts.env ?? env, timeout: opts.timeoutMs ?? 60_000, maxBuffer: 16 * 1024 * 1024 },
      (err, stdout, stderr) =>
        done({ code: err ? (typeof err.code === 'number' ? err.code : null) : 0, stdout, stderr }),
    );
    child.stdin?.end();
  });
}

/** The installed command, found on PATH as a user's shell would find it. */
const toolgate = (args: string[], cwd = work, timeoutMs = 60_000) => run('toolgate', args, { cwd, timeoutMs });

/** A fresh folder outside the checkout. */
function folder(name: string): string {
  const dir = join(work, name);
  mkdirSync(dir, { recursive: true });
  return dir;
}

beforeAll(async () => {
  tmp = mkdtempSync(join(tmpdir(), 'toolgate-installed-'));
  prefix = join(tmp, 'prefix');
  work = join(tmp, 'work');
  mkdirSync(work);
  // make test built dist/ just before; --ignore-scripts skips the prepack rebuild.
  const packed = await run('npm', ['pack', '--ignore-scripts', '--pack-destination', tmp, '--loglevel=error'], {
    cwd: ROOT,
    env: process.env,
    timeoutMs: 240_000,
  });
  expect(packed.code, packed.stderr).toBe(0);
  const tgz = readdirSync(tmp).find((f) => f.endsWith('.tgz'));
  if (tgz === undefined) throw new Error(`npm pack wrote no tarball: ${packed.stdout}${packed.stderr}`);
  const installed = await run(
    'npm',
    [
      'install',
      '-g',
      '--prefix',
      prefix,
      '--prefer-offline',
      '--no-audit',
      '--no-fund',
      '--loglevel=error',
      join(tmp, tgz),
    ],
    { cwd: tmp, env: process.env, timeoutMs: 400_000 },
  );
  expect(installed.code, installed.stderr).toBe(0);
  // The user's shell: the prefix's bin first, its own store, no policy or toolgate settings.
  const { TOOLGATE_POLICIES: _p, TOOLGATE: _t, TOOLGATE_TEST_CLI: _c, ...rest } = process.env;
  env = { ...rest, PATH: `${join(prefix, 'bin')}:${process.env.PATH ?? ''}`, TOOLGATE_HOME: join(tmp, 'home') };
}, 600_000);
afterAll(() => {
  if (tmp !== '') rmSync(tmp, { recursive: true, force: true });
});

describe('the packed and installed toolgate, run from a folder outside the checkout', () => {
  it('is on PATH and answers the built-in echo smoke test', async () => {
    const which = await run('sh', ['-c', 'command -v toolgate']);
    expect(which.stdout.trim()).toBe(join(prefix, 'bin', 'toolgate'));
    const r = await toolgate(['call', 'echo', '--args', '{"text":"installed"}']);
    expect(r, r.stderr).toMatchObject({ code: 0, stdout: 'installed\n' });
  });

  it('the default policy set in force is the one inside the installed package', async () => {
    const r = await toolgate(['policy', 'show', '--json'], folder('show'));
    expect(r.code, r.stderr).toBe(0);
    const shown = JSON.parse(r.stdout) as { origin: string; dir: string; name: string };
    expect(shown).toMatchObject({ origin: 'builtin', name: 'default' });
    expect(shown.dir.startsWith(prefix)).toBe(true);
  });

  it('the manifests inside the package work as shipped: every one loads, greet answers, grep_files searches its sample docs', async () => {
    const shipped = join(prefix, 'lib', 'node_modules', 'toolgate', 'manifests');
    for (const dir of [shipped, join(shipped, 'conformance')]) {
      const listed = await toolgate(['schema', '--manifests', dir], folder('shipped-schema'));
      expect(listed.code, listed.stderr).toBe(0);
      const names = (JSON.parse(listed.stdout) as { tools: { name: string }[] }).tools.map((t) => t.name).sort();
      // a hyper-mcp manifest names a plugin, not a tool (conformance_mcp serves resources and prompts)
      const plugin = (f: string) => readFileSync(join(dir, f), 'utf8').includes('abi: hyper-mcp');
      const files = readdirSync(dir)
        .filter((f) => f.endsWith('.yaml') && !plugin(f))
        .map((f) => f.replace(/\.yaml$/, ''))
        .sort();
      expect(names).toEqual(files);
    }
    const served = await toolgate(
      ['inspect', 'conformance_mcp', '--manifests', join(shipped, 'conformance'), '--json'],
      folder('shipped-schema'),
    );
    expect(served.code, served.stderr).toBe(0);
    expect((JSON.parse(served.stdout) as { prompts: { name: string }[] }).prompts.map((p) => p.name)).toContain(
      'test_simple_prompt',
    );
    const greeted = await toolgate(
      ['call', 'greet', '--manifests', shipped, '--args', '{"name":"Ada"}'],
      folder('shipped-call'),
    );
    expect(greeted, greeted.stderr).toMatchObject({ code: 0, stdout: 'Hello, Ada!\n' });
    const found = await toolgate(
      ['call', 'grep_files', '--manifests', shipped, '--args', '{"pattern":"sandbox","max_results":1}', '--json'],
      folder('shipped-call'),
    );
    expect(found.code, found.stderr).toBe(0);
    const result = JSON.parse(found.stdout) as {
      isError: boolean;
      structuredContent?: { matches: unknown[]; files_searched: number };
    };
    expect(result.isError).toBe(false);
    expect(result.structuredContent?.matches).toHaveLength(1);
    expect(result.structuredContent?.files_searched).toBeGreaterThan(0);
  }, 90_000);

  it('policy explain answers ask for fetch_url to 127.0.0.1:8080, and the call is denied when no one can answer', async () => {
    const cwd = folder('done-when');
    const explained = await toolgate(
      ['policy', 'explain', 'fetch_url', '--manifests', MANIFESTS, '--args', LOCAL_URL],
      cwd,
    );
    expect(explained.code, explained.stderr).toBe(1);
    expect(explained.stdout).toMatch(/outcome:\s+ask/);
    const called = await toolgate(['call', 'fetch_url', '--manifests', MANIFESTS, '--args', LOCAL_URL, '--json'], cwd);
    expect(called.code, called.stderr).toBe(1);
    const result = JSON.parse(called.stdout) as { isError: boolean; error?: { code: string } };
    expect(result).toMatchObject({ isError: true, error: { code: 'APPROVAL_DENIED' } });
  });

  it('inspect describes a manifest tool', async () => {
    const r = await toolgate(['inspect', 'grep_files', '--manifests', MANIFESTS]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('grep_files');
  });

  it('serve names the installed default set and offers only the manifest tools', async () => {
    const proc = spawn('toolgate', ['serve', '--http', '127.0.0.1:0', '--manifests', MANIFESTS, '--no-watch'], {
      cwd: folder('serve'),
      env,
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    const exited = new Promise<number | null>((r) => proc.once('exit', (code) => r(code)));
    try {
      const url = await new Promise<string>((ok, fail) => {
        proc.stderr.on('data', (d: Buffer) => {
          stderr += d.toString();
          const m = /listening on (http:\/\/\S+)\/mcp/.exec(stderr);
          if (m?.[1] !== undefined) ok(m[1]);
        });
        void exited.then((code) => fail(new Error(`serve exited with ${String(code)}: ${stderr}`)));
      });
      expect(stderr).toContain(`policy set "default" from the built-in default (shipped with toolgate): ${prefix}`);
      const res = await fetch(`${url}/v1/tools`);
      const names = ((await res.json()) as { tools: { name: string }[] }).tools.map((t) => t.name);
      expect(names).toContain('greet');
      expect(names).not.toContain('echo');
      // The /ui page travels inside the package: served by the installed command, from anywhere.
      const signInPage = await fetch(`${url}/ui`);
      expect(signInPage.status).toBe(401);
      expect(await signInPage.text()).toContain('action="/ui/login"');
      for (const asset of ['app.js', 'ui.css']) {
        const r = await fetch(`${url}/ui/static/${asset}`);
        expect(r.status, asset).toBe(200);
        // app.js is served with the host's hidden-character list in place of its placeholder
        const file = readFileSync(join(ROOT, 'ui', asset), 'utf8');
        const served =
          asset === 'app.js'
            ? file.replace("'@@HIDDEN_CHARACTER_CLASS@@'", JSON.stringify(HIDDEN_CHARACTER_CLASS))
            : file;
        expect(await r.text()).toBe(served);
      }
      const secret = readFileSync(join(tmp, 'home', 'approval-secret'), 'utf8').trim();
      const login = await fetch(`${url}/ui/login`, {
        method: 'POST',
        redirect: 'manual',
        headers: { 'content-type': 'application/x-www-form-urlencoded', origin: url },
        body: new URLSearchParams({ credential: secret }).toString(),
      });
      expect(login.status).toBe(303);
      const cookie = (login.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
      const app = await fetch(`${url}/ui`, { headers: { cookie } });
      expect(app.status).toBe(200);
      expect(await app.text()).toContain('src="/ui/static/app.js"');
    } finally {
      proc.kill('SIGTERM');
    }
    expect(await exited).toBe(0);
  }, 90_000);

  describe.each(['wat', 'as', 'c', 'rust'] as const)('new --lang %s', (lang) => {
    const tool = `inst_${lang}`;
    it('scaffolds a folder with no path of this machine that passes its own build and test.sh', async () => {
      const made = await toolgate(['new', tool, '--lang', lang]);
      expect(made.code, made.stderr).toBe(0);
      const dir = join(work, tool);
      for (const file of readdirSync(dir, { recursive: true, withFileTypes: true }).filter((e) => e.isFile())) {
        const text = readFileSync(join(file.parentPath, file.name), 'utf8');
        for (const path of [ROOT, prefix, work]) expect(text, file.name).not.toContain(path);
      }
      const test = await run('sh', ['./test.sh'], { cwd: dir, timeoutMs: 240_000 });
      expect(test.code, test.stdout + test.stderr).toBe(0);
      expect(test.stdout).toContain(`ok: ${tool}`);
      expect(existsSync(join(dir, 'build', `${tool}.wasm`))).toBe(true);
    }, 300_000);
  });

  // The scaffold installs its build packages itself (npm ci of the package-lock.json it carries),
  // here with npm offline: every package comes from the cache the checkout's own npm ci filled.
  it("new --lang ts: the scaffold's pinned build packages come from npm's cache alone, it builds and passes test.sh, and serve calls the built tool", async () => {
    const tool = 'inst_ts';
    const made = await toolgate(['new', tool, '--lang', 'ts']);
    expect(made.code, made.stderr).toBe(0);
    const dir = join(work, tool);
    for (const file of readdirSync(dir, { recursive: true, withFileTypes: true }).filter((e) => e.isFile())) {
      const text = readFileSync(join(file.parentPath, file.name), 'utf8');
      for (const path of [ROOT, prefix, work]) expect(text, file.name).not.toContain(path);
    }
    expect(readFileSync(join(dir, 'lib/world.wit'))).toEqual(readFileSync(join(ROOT, 'pdk-examples/js/lib/world.wit')));
    // the versions toolgate's own lockfile holds, componentize-js's dependencies included
    const ours = JSON.parse(readFileSync(join(ROOT, 'package-lock.json'), 'utf8')) as {
      packages: Record<string, { version?: string }>;
    };
    const theirs = JSON.parse(readFileSync(join(dir, 'package-lock.json'), 'utf8')) as typeof ours;
    for (const pkg of ['@bytecodealliance/componentize-js', '@bytecodealliance/jco', 'esbuild'])
      expect(theirs.packages[`node_modules/${pkg}`]?.version, pkg).toBe(ours.packages[`node_modules/${pkg}`]?.version);
    const offline = { ...env, npm_config_offline: 'true' };
    const test = await run('sh', ['./test.sh'], { cwd: dir, env: offline, timeoutMs: 480_000 });
    expect(test.code, test.stdout + test.stderr).toBe(0);
    expect(test.stdout).toContain(`ok: ${tool}`);
    const s = await served(['--manifests', dir, '--policy-set', 'dev'], folder('serve-ts'));
    try {
      const res = await fetch(`${s.url}/v1/tools/${tool}/call`, {
        method: 'POST',
        body: JSON.stringify({ arguments: { name: 'Zoë 🎉' } }),
      });
      const result = (await res.json()) as { isError: boolean; structuredContent?: unknown };
      expect(result.isError, JSON.stringify(result)).toBe(false);
      expect(result.structuredContent).toEqual({ greeting: 'Hello, Zoë 🎉!' });
    } finally {
      expect(await s.stop()).toBe(0);
    }
  }, 600_000);

  it('install puts a built scaffold in the store; it is called from any folder and listed', async () => {
    const src = join(work, 'inst_wat');
    if (!existsSync(join(src, 'build', 'inst_wat.wasm'))) {
      expect((await toolgate(['new', 'inst_wat', '--lang', 'wat'])).code).toBe(0);
      expect((await run('make', ['-C', src])).code).toBe(0);
    }
    const installed = await toolgate(['install', src, '--allow-unsigned', '--yes']);
    expect(installed.code, installed.stderr).toBe(0);
    const called = await toolgate(['call', 'inst_wat', '--args', '{"name":"Ada"}'], folder('elsewhere'));
    expect(called, called.stderr).toMatchObject({ code: 0, stdout: 'Hello, Ada!\n' });
    const listed = await toolgate(['list'], folder('elsewhere'));
    expect(listed.stdout).toContain('inst_wat@0.1.0');
  }, 120_000);
});

/** A policy set that asks before greet runs, answered through `channels`. */
function askingSet(name: string, channels: string): string {
  const dir = folder(name);
  writeFileSync(
    join(dir, 'set.yaml'),
    `entries:\n  - { id: ask-greet, use: ask, with: { tools: [greet] } }\n  - { id: approvals, use: approvals, with: { channels: ${channels} } }\n`,
  );
  return dir;
}

/** `serve --http` of the installed command on a free port; resolves its base URL. */
async function served(args: string[], cwd: string): Promise<{ url: string; stop: () => Promise<number | null> }> {
  const proc = spawn('toolgate', ['serve', '--http', '127.0.0.1:0', '--no-watch', ...args], {
    cwd,
    env,
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  const exited = new Promise<number | null>((r) => proc.once('exit', (code) => r(code)));
  const url = await new Promise<string>((ok, fail) => {
    proc.stderr.on('data', (d: Buffer) => {
      stderr += d.toString();
      const m = /listening on (http:\/\/\S+)\/mcp/.exec(stderr);
      if (m?.[1] !== undefined) ok(m[1]);
    });
    void exited.then((code) => fail(new Error(`serve exited with ${String(code)}: ${stderr}`)));
  });
  return { url, stop: () => (proc.kill('SIGTERM'), exited) };
}

describe('an ask in the installed command is answered through each approval channel', () => {
  const ARGS = '{"name":"Ada"}';

  it('tty: the prompt on the terminal, answered y, runs the call', async () => {
    const set = askingSet('ask-tty', '[tty]');
    const cmd = `toolgate call greet --args '${ARGS}' --manifests '${MANIFESTS}' --policies '${set}'`;
    // script(1) gives the command a terminal, as a person's shell would.
    const proc = spawn('script', ['-qec', cmd, '/dev/null'], { cwd: work, env, stdio: ['pipe', 'pipe', 'pipe'] });
    let out = '';
    const exited = new Promise<number | null>((r) => proc.once('exit', (code) => r(code)));
    const timer = setTimeout(() => proc.kill('SIGKILL'), 60_000);
    proc.stdout.on('data', (d: Buffer) => {
      const before = out;
      out += d.toString();
      if (!before.includes('[y/N]') && out.includes('[y/N]')) proc.stdin.write('y\n');
    });
    const code = await exited;
    clearTimeout(timer);
    expect(out).toContain('approval needed (ask-greet)');
    expect(out).toContain('Hello, Ada!');
    expect(code, out).toBe(0);
  }, 90_000);

  it('queue: serve --http lists the pending ask on /v1/approvals, and allowing it there runs the call', async () => {
    const set = askingSet('ask-queue', '[queue]');
    const s = await served(['--manifests', MANIFESTS, '--policies', set], folder('ask-queue-serve'));
    try {
      const call = fetch(`${s.url}/v1/tools/greet/call`, {
        method: 'POST',
        body: JSON.stringify({ arguments: { name: 'Ada' } }),
      });
      const approver = { authorization: `Bearer ${readFileSync(join(tmp, 'home', 'approval-secret'), 'utf8').trim()}` };
      let id: string | undefined;
      for (let i = 0; i < 200 && id === undefined; i++) {
        const body = (await (await fetch(`${s.url}/v1/approvals`, { headers: approver })).json()) as {
          approvals: { id: string; tool: string }[];
        };
        id = body.approvals.find((a) => a.tool === 'greet')?.id;
        if (id === undefined) await new Promise((r) => setTimeout(r, 50));
      }
      expect(id).toBeDefined();
      const answered = await fetch(`${s.url}/v1/approvals/${id ?? ''}`, {
        method: 'POST',
        headers: approver,
        body: JSON.stringify({ outcome: 'allowed-once' }),
      });
      expect(answered.status).toBe(200);
      const result = (await (await call).json()) as { isError: boolean; content: { text?: string }[] };
      expect(result.isError).toBe(false);
      expect(result.content[0]?.text).toBe('Hello, Ada!');
    } finally {
      expect(await s.stop()).toBe(0);
    }
  }, 90_000);

  it('http callback: the callback is asked and its allowed-once runs the call', async () => {
    const asked: string[] = [];
    const callback = createServer((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString()));
      req.on('end', () => {
        asked.push(body);
        res.writeHead(200, { 'content-type': 'application/json' }).end('{"outcome":"allowed-once"}');
      });
    });
    callback.listen(0, '127.0.0.1');
    await once(callback, 'listening');
    try {
      const url = `http://127.0.0.1:${(callback.address() as AddressInfo).port}/approve`;
      const set = askingSet('ask-http', `[{ http: { url: "${url}" } }]`);
      const r = await toolgate(['call', 'greet', '--args', ARGS, '--manifests', MANIFESTS, '--policies', set]);
      expect(r.stderr).not.toMatch(/is not a function|no approval channel/);
      expect(r, r.stderr).toMatchObject({ code: 0, stdout: 'Hello, Ada!\n' });
      expect(asked).toHaveLength(1);
      expect(asked[0]).toContain('"tool":"greet"');
    } finally {
      callback.close();
    }
  }, 60_000);

  it('MCP elicitation: a stdio client that declares elicitation is asked, and its accept runs the call', async () => {
    const set = askingSet('ask-mcp', '[tty]');
    const transport = new StdioClientTransport({
      command: join(prefix, 'bin', 'toolgate'),
      args: ['serve', '--stdio', '--manifests', MANIFESTS, '--policies', set],
      env: env as Record<string, string>,
      cwd: folder('ask-mcp-cwd'),
      stderr: 'pipe',
    });
    const client = new Client({ name: 'installed-test', version: '1' }, { capabilities: { elicitation: {} } });
    const forms: string[] = [];
    client.setRequestHandler(ElicitRequestSchema, (req) => {
      forms.push(req.params.message);
      return { action: 'accept', content: {} };
    });
    await client.connect(transport);
    try {
      const res = await client.callTool({ name: 'greet', arguments: { name: 'Ada' } });
      expect(res.isError).toBe(false);
      expect(res.content).toEqual([{ type: 'text', text: 'Hello, Ada!' }]);
      expect(forms).toHaveLength(1);
      expect(forms[0]).toContain('greet');
    } finally {
      await client.close();
    }
  }, 60_000);

  it('MCP 2026-07-28: a stdio client pinned to the new revision (SDK v2) has the ask as an input round, and its accept runs the call', async () => {
    const { Client: V2Client } = await import('@modelcontextprotocol/client');
    const { StdioClientTransport: V2Stdio } = await import('@modelcontextprotocol/client/stdio');
    const set = askingSet('ask-mcp-2026', '[tty]');
    const client = new V2Client(
      { name: 'installed-test-2026', version: '1' },
      { capabilities: { elicitation: {} }, versionNegotiation: { mode: { pin: '2026-07-28' } } },
    );
    const forms: string[] = [];
    client.setRequestHandler('elicitation/create', (req) => {
      forms.push(String((req.params as { message?: unknown }).message));
      return { action: 'accept', content: {} };
    });
    await client.connect(
      new V2Stdio({
        command: join(prefix, 'bin', 'toolgate'),
        args: ['serve', '--stdio', '--manifests', MANIFESTS, '--policies', set],
        env: env as Record<string, string>,
        cwd: folder('ask-mcp-2026-cwd'),
        stderr: 'pipe',
      }),
    );
    try {
      expect(client.getNegotiatedProtocolVersion()).toBe('2026-07-28');
      const res = await client.callTool({ name: 'greet', arguments: { name: 'Ada' } });
      expect(res.isError).toBe(false);
      expect(res.content).toEqual([{ type: 'text', text: 'Hello, Ada!' }]);
      expect(forms).toHaveLength(1);
      expect(forms[0]).toContain('greet');
    } finally {
      await client.close();
    }
  }, 60_000);
});

describe('what the bundle loads lazily keeps its exports in the installed command', () => {
  // Packages host/src loads on first use (import() or require). esbuild's bundle may hand a CommonJS
  // module's named exports over on `default` only; each one below is driven through the installed
  // command, and a new lazy load fails the first test until a check for it is added here.
  // @modelcontextprotocol/server (SDK v2, loaded for the first 2026-07-28 client) is driven by the
  // "MCP 2026-07-28" test of the approval channels above.
  const CHECKED = [
    '@modelcontextprotocol/sdk/validation/ajv',
    '@modelcontextprotocol/server',
    '@redis/client',
    'ajv/dist/2020.js',
    'pino-pretty',
    're2js',
    'undici',
    'yaml',
  ];

  it('the lazily loaded packages are exactly the ones checked here', async () => {
    const found = new Set<string>();
    const walk = (dir: string): void => {
      for (const e of readdirSync(dir, { withFileTypes: true })) {
        const p = join(dir, e.name);
        if (e.isDirectory()) walk(p);
        else if (e.name.endsWith('.ts')) {
          const src = readFileSync(p, 'utf8');
          for (const m of src.matchAll(/(?:\bimport|requireCjs)\(\s*'([^.'][^']*)'\s*\)/g))
            if (!m[1]?.startsWith('node:')) found.add(m[1] ?? '');
        }
      }
    };
    walk(join(ROOT, 'host/src'));
    expect([...found].sort()).toEqual(CHECKED);
  });

  it('@redis/client: the installed serve --state connects to a real Redis at start and serves', async () => {
    const redis = await startRedis();
    try {
      const server = await served(['--manifests', MANIFESTS, '--state', redis.url], folder('redis-state'));
      try {
        expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
      } finally {
        await server.stop();
      }
    } finally {
      await redis.stop();
    }
  }, 60_000);

  it("pino-pretty: a tool's log lines are written as pretty lines (TOOLGATE_LOG_FORMAT=pretty)", async () => {
    const args = [
      'call',
      'test_tool_with_logging',
      '--manifests',
      join(MANIFESTS, 'conformance'),
      '--args',
      '{}',
      '-v',
    ];
    const r = await run('toolgate', args, { env: { ...env, TOOLGATE_LOG_FORMAT: 'pretty' } });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).not.toMatch(/is not a function|Cannot read properties|TypeError/);
    expect(r.stderr).toMatch(/^\[[\d:]+\] INFO: Tool execution started /m);
  });

  it('ajv: arguments are checked against the schema (INVALID_ARGS names the field)', async () => {
    const r = await toolgate(['call', 'greet', '--manifests', MANIFESTS, '--args', '{"name":7}', '--json']);
    expect(r.code, r.stderr).toBe(1);
    const result = JSON.parse(r.stdout) as { error?: { code: string; message: string } };
    expect(result.error?.code).toBe('INVALID_ARGS');
    expect(result.error?.message).toContain('name');
  });

  it('yaml: a fresh home parses a YAML manifest, and a malformed one is refused naming its file', async () => {
    const home = folder('yaml-home');
    const fresh = { ...env, TOOLGATE_HOME: home };
    const ok = await run('toolgate', ['call', 'greet', '--manifests', MANIFESTS, '--args', '{"name":"yaml"}'], {
      env: fresh,
    });
    expect(ok.code, ok.stderr).toBe(0);
    expect(ok.stdout).toContain('yaml');
    const dir = folder('yaml-bad');
    writeFileSync(join(dir, 'broken.yaml'), 'name: broken\ndescription: [unclosed\n');
    const bad = await run('toolgate', ['call', 'broken', '--manifests', dir, '--args', '{}'], { env: fresh });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('broken.yaml');
  });

  it('re2js: a deny-args regex denies a matching argument', async () => {
    const dir = folder('re2');
    writeFileSync(
      join(dir, 'set.yaml'),
      'entries:\n  - { id: no-secret, use: deny-args, with: { patterns: [{ regex: "^sec.et$" }] } }\n',
    );
    const denied = await toolgate([
      'call',
      'greet',
      '--manifests',
      MANIFESTS,
      '--policies',
      dir,
      '--args',
      '{"name":"secret"}',
      '--json',
    ]);
    expect(denied.stderr).not.toMatch(/is not a function|TypeError/);
    expect((JSON.parse(denied.stdout) as { error?: { code: string } }).error?.code).toMatch(/DENIED/);
    const allowed = await toolgate([
      'call',
      'greet',
      '--manifests',
      MANIFESTS,
      '--policies',
      dir,
      '--args',
      '{"name":"Ada"}',
    ]);
    expect(allowed, allowed.stderr).toMatchObject({ code: 0, stdout: 'Hello, Ada!\n' });
  });

  it('the SDK validator (ajv): a tool with an output schema answers over MCP with structured content', async () => {
    const transport = new StdioClientTransport({
      command: join(prefix, 'bin', 'toolgate'),
      args: ['serve', '--stdio', '--manifests', MANIFESTS],
      env: env as Record<string, string>,
      cwd: folder('sdk-ajv'),
      stderr: 'pipe',
    });
    const client = new Client({ name: 'installed-test', version: '1' });
    await client.connect(transport);
    try {
      const tools = (await client.listTools()).tools;
      const typed = tools.find((t) => t.outputSchema !== undefined);
      expect(typed, 'a shipped manifest with an output schema').toBeDefined();
      // The client validates structuredContent against outputSchema with the SDK's ajv as well.
      const res = await client.callTool({ name: 'hash', arguments: { text: 'abc' } });
      expect(res.isError).toBe(false);
    } finally {
      await client.close();
    }
  }, 60_000);
});
