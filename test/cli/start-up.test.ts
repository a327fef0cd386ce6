// What a start loads (issue 15.3): the bundled command keeps ajv and re2js out of the modules a
// `serve` evaluates before its first answer, and what stands in for them still works when used.
import { spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createRequire } from 'node:module';
import { PROTOCOL_VERSION_META_KEY as SDK_META_KEY } from '@modelcontextprotocol/server';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, test } from 'vitest';
import { compileLinear } from '../../host/src/regex/index.js';
import { AjvJsonSchemaValidator } from '../../host/src/server/sdk-ajv.js';
import { PROTOCOL_VERSION_META_KEY } from '../../host/src/server/stdio-era.js';
import { BIN, MANIFESTS, removeDir, ROOT, tempDir, onJsonLines } from './helpers.js';

const CLI = join(ROOT, 'dist/cli');
/** Every module esbuild put in the command's files, by the path comment it writes before each. */
function bundledModules(): string[] {
  return readdirSync(CLI)
    .filter((f) => f.endsWith('.js'))
    .flatMap((f) =>
      [...readFileSync(join(CLI, f), 'utf8').matchAll(/^\/\/ (\S+\.(?:js|ts|cjs|mjs|json))$/gm)].map(
        (m) => m[1] as string,
      ),
    );
}

/** The command's file holding a source file (esbuild writes its path before its code). */
function chunkOf(source: string): string {
  const chunk = readdirSync(CLI).find(
    (f) => f.endsWith('.js') && readFileSync(join(CLI, f), 'utf8').includes(`\n// ${source}\n`),
  );
  expect(chunk, source).toBeDefined();
  return chunk as string;
}

/**
 * The command's files a `serve` evaluates before its first answer: main.js, the chunk holding the
 * serve command (imported when the command runs), and what they import statically, transitively;
 * with `also`, the chunks holding those source files too (what a later dynamic import evaluates).
 */
function serveGraph(also: string[] = []): string[] {
  const seen = new Set<string>();
  const todo = ['main.js', chunkOf('host/src/cli/commands/serve.ts'), ...also.map(chunkOf)];
  while (todo.length > 0) {
    const file = todo.pop() as string;
    if (seen.has(file)) continue;
    seen.add(file);
    const text = readFileSync(join(CLI, file), 'utf8');
    for (const m of text.matchAll(
      /^(?:import|export)\s[^;]*?from\s*"\.\/(chunk-[A-Z0-9]+\.js)"|^import\s*"\.\/(chunk-[A-Z0-9]+\.js)"/gm,
    ))
      todo.push((m[1] ?? m[2]) as string);
  }
  return [...seen];
}

/**
 * One fresh bundled `serve --stdio` on `home`: initialize, tools/list, convert_units called, then
 * stdin closed. Every file Node's require loads is appended to `trace` as it loads (a preload
 * wraps Module._load), so what the server loaded is known without trusting how it exits.
 */
function firstCallLoads(home: string, trace: string): Promise<{ answer: string; loaded: string[] }> {
  const preload = join(home, '..', 'trace-require.cjs');
  writeFileSync(
    preload,
    `const M = require('node:module'); const fs = require('node:fs'); const load = M._load;
M._load = function (request, parent) { fs.appendFileSync(${JSON.stringify(trace)}, request + '\\n'); return load.apply(this, arguments); };`,
  );
  const args = [
    '--require',
    preload,
    BIN,
    'serve',
    '--stdio',
    '--no-watch',
    '--manifests',
    MANIFESTS,
    '--policies',
    'none',
  ];
  const server = spawn(process.execPath, args, { env: { ...process.env, TOOLGATE_HOME: home }, stdio: 'pipe' });
  const send = (msg: object) => server.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', ...msg })}\n`);
  return new Promise((done, fail) => {
    const timer = setTimeout(() => (server.kill(), fail(new Error('no answer within 30 s'))), 30_000);
    onJsonLines(server.stdout, (line) => {
      const msg = line as { id?: number; result?: unknown };
      if (msg.id === 1) {
        send({ method: 'notifications/initialized' });
        send({ id: 2, method: 'tools/list' });
      } else if (msg.id === 2) {
        const call = { name: 'convert_units', arguments: { value: 1, from: 'km', to: 'mi' } };
        send({ id: 3, method: 'tools/call', params: call });
      } else if (msg.id === 3) {
        clearTimeout(timer);
        server.kill();
        const loaded = existsSync(trace) ? readFileSync(trace, 'utf8').split('\n') : [];
        done({ answer: JSON.stringify(msg.result), loaded });
      }
    });
    const init = { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'start-up', version: '1' } };
    send({ id: 1, method: 'initialize', params: init });
  });
}

describe('start-up', () => {
  test('the SDK v2 (2026-07-28) is not in what a serve start evaluates: a 2025-11-25 client never loads it (issue 27)', () => {
    const graph = serveGraph();
    // the stdio server is in it (else this would prove nothing)
    expect(graph.some((f) => readFileSync(join(CLI, f), 'utf8').includes('// host/src/server/stdio.ts'))).toBe(true);
    const v2 = graph.filter((f) =>
      /^\/\/ node_modules\/@modelcontextprotocol\/(server|core)\//m.test(readFileSync(join(CLI, f), 'utf8')),
    );
    expect(v2).toEqual([]);
    // ...but it is bundled, behind a dynamic import
    expect(bundledModules().some((m) => m.startsWith('node_modules/@modelcontextprotocol/server/'))).toBe(true);
  });

  test("node:http is not loaded with the sandbox, on a fresh server's first call: only the network warm-up imports it (issue 27)", () => {
    const graph = serveGraph(['host/src/cli/runtime.ts', 'host/src/sandbox/tool.ts']);
    const texts = graph.map((f) => readFileSync(join(CLI, f), 'utf8'));
    // the sandbox and its HTTP gate are in it (else this would prove nothing)
    expect(texts.some((t) => t.includes('\n// host/src/sandbox/http/warm.ts\n'))).toBe(true);
    expect(graph.filter((_, i) => /from\s*"node:http"/.test(texts[i] as string))).toEqual([]);
    expect(texts.some((t) => t.includes('import("node:http")'))).toBe(true);
  });

  test("the sandbox's HTTP gate loads undici's Pool and its request methods, not the rest of undici (docs/decisions.md)", async () => {
    const graph = serveGraph(['host/src/lazy-undici/pool.ts']);
    const has = (source: string) => graph.some((f) => readFileSync(join(CLI, f), 'utf8').includes(`\n// ${source}\n`));
    // the Pool and the request API are in it (else this would prove nothing)
    for (const source of ['node_modules/undici/lib/dispatcher/pool.js', 'node_modules/undici/lib/api/api-request.js'])
      expect(has(source), source).toBe(true);
    for (const source of [
      'node_modules/undici/index.js',
      'node_modules/undici/lib/web/fetch/index.js',
      'node_modules/undici/lib/mock/mock-agent.js',
      'node_modules/undici/lib/cache/memory-cache-store.js',
      'node_modules/undici/lib/dispatcher/proxy-agent.js',
    ])
      expect(has(source), source).toBe(false);
    // and it is what the gate loads: its warm-up and its pools ask for the Pool alone
    for (const source of ['host/src/sandbox/http/warm.ts', 'host/src/sandbox/http/pinned-pools.ts']) {
      const text = readFileSync(join(CLI, chunkOf(source)), 'utf8');
      const code = text.slice(text.indexOf(`\n// ${source}\n`)).split(/\n\/\/ host\/src\//)[1] ?? '';
      expect(code, source).toMatch(/await loadUndiciPool\(\)/);
      expect(code, source).not.toMatch(/loadUndici\(\)/);
    }
    // the bundled Pool, loaded alone, has its request method: a real request to 127.0.0.1
    const server = createServer((_req, res) => res.end('pool ok'));
    await new Promise<void>((ready) => server.listen(0, '127.0.0.1', ready));
    try {
      const url = pathToFileURL(join(CLI, chunkOf('host/src/lazy-undici/pool.ts'))).href;
      const { Pool } = (await import(url)) as { Pool: typeof import('undici').Pool };
      const pool = new Pool(`http://127.0.0.1:${(server.address() as AddressInfo).port}`);
      const res = await pool.request({ path: '/', method: 'GET' });
      expect(await res.body.text()).toBe('pool ok');
      await pool.close();
    } finally {
      server.close();
    }
  });

  test('yaml is not in what a warm start evaluates: the manifests come from the parse cache and yaml is required on the first YAML text, from one file (issue 27)', () => {
    const graph = serveGraph(['host/src/cli/runtime.ts', 'host/src/sandbox/tool.ts']);
    const texts = graph.map((f) => readFileSync(join(CLI, f), 'utf8'));
    // the manifest parser and the lazy loader are in it (else this would prove nothing); the policy
    // set reader no longer is (the next test)
    for (const source of ['host/src/manifest/parse.ts', 'host/src/lazy-yaml/index.ts'])
      expect(
        texts.some((t) => t.includes(`\n// ${source}\n`)),
        source,
      ).toBe(true);
    expect(graph.filter((_, i) => /^\/\/ node_modules\/yaml\//m.test(texts[i] as string))).toEqual([]);
    expect(graph.filter((_, i) => /from\s*"yaml"|require\("yaml"\)/.test(texts[i] as string))).toEqual([]);
    // no chunk holds yaml at all: the loader requires the one-file copy beside the chunks
    expect(bundledModules().filter((m) => m.startsWith('node_modules/yaml/'))).toEqual([]);
    expect(readFileSync(join(CLI, chunkOf('host/src/lazy-yaml/index.ts')), 'utf8')).toMatch(
      /YAML_MODULE = "\.\/yaml\.cjs"/,
    );
    const { parseDocument, stringify } = createRequire(join(CLI, 'main.js'))('./yaml.cjs') as typeof import('yaml');
    const doc = parseDocument('a: 1\na: 2\n', { uniqueKeys: true });
    expect(doc.errors.map((e) => e.code)).toEqual(['DUPLICATE_KEY']);
    expect(stringify({ tool: { name: 'x' } })).toBe('tool:\n  name: x\n');
  });

  test('serve does not evaluate the policy loader, the set file or the built-in policies until a set is mounted; the services and the trace-content observer it uses are there (docs/decisions.md)', () => {
    const graph = serveGraph(['host/src/cli/runtime.ts', 'host/src/sandbox/tool.ts']);
    const has = (source: string) => graph.some((f) => readFileSync(join(CLI, f), 'utf8').includes(`\n// ${source}\n`));
    for (const source of [
      'host/src/policy/services.ts',
      'host/src/policy/trace-content.ts',
      'host/src/policy/index.ts',
    ])
      expect(has(source), source).toBe(true);
    for (const source of [
      'host/src/policy/loader.ts',
      'host/src/policy/set-file.ts',
      'host/src/policy/builtins/index.ts',
      'host/src/policy/builtins/observers.ts',
    ])
      expect(has(source), source).toBe(false);
    // the loader is still bundled, behind the door's import()
    expect(readFileSync(join(CLI, chunkOf('host/src/policy/index.ts')), 'utf8')).toContain(
      `import("./${chunkOf('host/src/policy/loader.ts')}")`,
    );
  });

  test('a fresh server on a warm home answers its first call without loading yaml; on an empty home it loads it to parse (issue 27)', async () => {
    const dir = tempDir('yaml-warm');
    try {
      const home = join(dir, 'home');
      const cold = await firstCallLoads(home, join(dir, 'cold.txt'));
      expect(cold.answer).toContain('0.621371');
      // the empty home parsed the manifests, and the trace saw it (else this would prove nothing)
      expect(cold.loaded).toContain('./yaml.cjs');
      const warm = await firstCallLoads(home, join(dir, 'warm.txt'));
      expect(warm.answer).toContain('0.621371');
      expect(warm.loaded.filter((r) => /yaml/.test(r))).toEqual([]);
    } finally {
      removeDir(dir);
    }
  }, 60_000);

  test("a fresh server loads the sandbox's code in the idle turns after its initialize answer, before any listing, and answers its first call (issue 27)", async () => {
    const dir = tempDir('code-warm');
    const args = [BIN, 'serve', '--stdio', '--no-watch', '--manifests', MANIFESTS, '--policies', 'none', '-vv'];
    const env = { ...process.env, TOOLGATE_HOME: join(dir, 'home') };
    const server = spawn(process.execPath, args, { env, stdio: 'pipe' });
    const send = (msg: object) => server.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', ...msg })}\n`);
    let stderr = '';
    server.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    const steps = () =>
      stderr
        .split('\n')
        .filter((l) => l.includes('sandbox code loaded ahead of a call'))
        .map((l) => (JSON.parse(l) as { step: string }).step);
    try {
      const answers = new Map<number, unknown>();
      onJsonLines(server.stdout, (line) => {
        const msg = line as { id: number; result?: unknown };
        answers.set(msg.id, msg.result);
      });
      const until = async (what: string, ok: () => boolean) => {
        for (let i = 0; i < 300 && !ok(); i++) await new Promise((r) => setTimeout(r, 100));
        expect(ok(), what).toBe(true);
      };
      const init = { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'start-up', version: '1' } };
      send({ id: 1, method: 'initialize', params: init });
      await until('initialize answered', () => answers.has(1));
      // no list and no call sent: the server loads what a first call needs while it waits
      await until('the code warm-up ran', () => steps().length === 2);
      expect(steps()).toEqual(['sandbox', 'runner']);
      send({ method: 'notifications/initialized' });
      send({ id: 2, method: 'tools/list' });
      send({
        id: 3,
        method: 'tools/call',
        params: { name: 'convert_units', arguments: { value: 1, from: 'km', to: 'mi' } },
      });
      await until('the call answered', () => answers.has(3));
      expect(JSON.stringify(answers.get(3))).toContain('0.621371');
    } finally {
      // the folder goes once the server has gone: a warm-up still writing its cache entries into the
      // home made the removal fail (ENOTEMPTY) in a CI run
      const exited = new Promise((r) => server.once('exit', r));
      server.kill();
      if (server.exitCode === null && server.signalCode === null) await exited;
      removeDir(dir);
    }
  }, 60_000);

  test("stdio-era's spelling of the 2026-07-28 revision key is the SDK v2's", () => {
    expect(PROTOCOL_VERSION_META_KEY).toBe(SDK_META_KEY);
  });

  test("the bundled command holds no copy of ajv: the SDK's eager import of its provider is replaced by the lazy one", () => {
    const modules = bundledModules();
    expect(modules).toContain('host/src/server/sdk-ajv.ts');
    expect(modules.some((m) => m.includes('@modelcontextprotocol/sdk/dist/esm/server/index.js'))).toBe(true);
    expect(
      modules.filter((m) => m.startsWith('node_modules/ajv/') || m.includes('/validation/ajv-provider.js')),
    ).toEqual([]);
  });

  test('the command requires ajv from its one-file bundle beside the chunks (dist/cli/ajv.cjs), not file by file from node_modules (issue 27)', () => {
    const chunk = readdirSync(CLI).find(
      (f) => f.endsWith('.js') && /^\/\/ host\/src\/tool\/validation\.ts$/m.test(readFileSync(join(CLI, f), 'utf8')),
    );
    expect(chunk).toBeDefined();
    const text = readFileSync(join(CLI, chunk as string), 'utf8');
    expect(text).toMatch(/AJV_2020 = "\.\/ajv\.cjs"/);
    expect(text).not.toContain('ajv/dist/2020.js');
    // it is ajv's draft 2020-12 class, whole: it compiles and refuses as ajv does
    const { Ajv2020 } = createRequire(join(CLI, 'main.js'))('./ajv.cjs') as typeof import('ajv/dist/2020.js');
    const check = new Ajv2020({ strict: false }).compile({
      type: 'object',
      required: ['n'],
      properties: { n: { type: 'integer' } },
    });
    expect([check({ n: 1 }), check({ n: 1.5 }), check({})]).toEqual([true, false, false]);
  });

  test('re2js is required on the first pattern, not bundled into the start', () => {
    expect(bundledModules().filter((m) => m.startsWith('node_modules/re2js/'))).toEqual([]);
    const re = compileLinear('^(a+)+$');
    expect(typeof re).not.toBe('string');
    if (typeof re !== 'string') expect([re.test('aaaa'), re.test(`${'a'.repeat(50_000)}b`)]).toEqual([true, false]);
    expect(compileLinear('(?=x)')).toMatch(/invalid or unsupported Perl syntax/);
  });

  test('the instance worker bundle holds no zod: every idle instance worker would carry it (~3-4 MiB, issue 27)', () => {
    const text = readFileSync(join(ROOT, 'dist/sandbox/worker/instance-worker.js'), 'utf8');
    const modules = [...text.matchAll(/^\/\/ (\S+\.(?:js|ts|cjs|mjs|json))$/gm)].map((m) => m[1] as string);
    // the WASI code that used zod for its mounts is in it (else this would prove nothing)
    expect(modules).toContain('host/src/sandbox/wasi/mounts.ts');
    expect(modules.filter((m) => m.includes('node_modules/zod/'))).toEqual([]);
  });

  test('every bundled file is ASCII, so V8 keeps its source text at one byte a character, and its comments still read (issue 27)', () => {
    const files = [
      ...readdirSync(CLI)
        .filter((f) => /\.(js|cjs)$/.test(f))
        .map((f) => join(CLI, f)),
      join(ROOT, 'dist/sandbox/worker/instance-worker.js'),
    ];
    const wide = files.filter((f) => /[^\x00-\x7f]/.test(readFileSync(f, 'utf8')));
    expect(wide).toEqual([]);
    // undici's chunk held typographic quotes in its comments (else this would prove nothing); spelled, not dropped
    const undici = join(CLI, chunkOf('node_modules/undici/index.js'));
    expect(readFileSync(undici, 'utf8')).toMatch(/\/\/ .*request\\u2019s body/);
  });

  test("the SDK's validator, loaded on first use, accepts and refuses as the SDK's own", () => {
    const check = new AjvJsonSchemaValidator().getValidator<{ name: string }>({
      type: 'object',
      properties: { name: { type: 'string', minLength: 2 } },
      required: ['name'],
    });
    expect(check({ name: 'ada' })).toEqual({ valid: true, data: { name: 'ada' }, errorMessage: undefined });
    const bad = check({ name: 'a' });
    expect(bad.valid).toBe(false);
    expect(bad.errorMessage).toMatch(/name/);
  });
});
