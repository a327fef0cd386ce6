// Code a dependency loads at start but toolgate never calls is left out of the command's bundle
// (docs/decisions.md "Less code and fewer schemas on serve's start"): zod v3 and zod-to-json-schema,
// which the MCP SDK's zod compatibility layer imports for v3 schemas, and pino's transport code.
// The shipped bundle holds none of them and a fresh serve still checks requests with the SDK's zod
// v4 schemas and logs through pino; the plugins (scripts/bundle-leave-out.mjs) refuse v3 and
// transports by name where they would be called, and fail a build whose imports moved.
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { BuildOptions, BuildResult, Plugin } from 'esbuild';
import { describe, expect, test } from 'vitest';
import { BIN, MANIFESTS, removeDir, ROOT, tempDir, onJsonLines } from './helpers.js';

const CLI = join(ROOT, 'dist/cli');
const LEFT_OUT = /^node_modules\/(zod\/v3\/|zod-to-json-schema\/|thread-stream\/|pino\/lib\/transport\.js$)/;

/** Every module esbuild put in the command's files, by the path comment it writes before each. */
function bundledModules(): string[] {
  return readdirSync(CLI)
    .filter((f) => /\.(js|cjs)$/.test(f))
    .flatMap((f) =>
      [...readFileSync(join(CLI, f), 'utf8').matchAll(/^\/\/ (\S+\.(?:js|ts|cjs|mjs|json))$/gm)].map(
        (m) => m[1] as string,
      ),
    );
}

interface LeaveOut {
  noZodV3: Plugin;
  noPinoTransport: Plugin;
}
const plugins = async (): Promise<LeaveOut> =>
  (await import(pathToFileURL(join(ROOT, 'scripts/bundle-leave-out.mjs')).href)) as LeaveOut;

/** esbuild over one entry text resolved from the repository, with the given plugins; the result or the error. */
async function buildWith(contents: string, with_: Plugin[]): Promise<{ code?: string; error?: string }> {
  const { build } = (await import('esbuild')) as { build: (o: BuildOptions) => Promise<BuildResult> };
  try {
    const r = await build({
      stdin: { contents, resolveDir: ROOT, loader: 'js' },
      bundle: true,
      format: 'esm',
      platform: 'node',
      target: 'node20',
      write: false,
      logLevel: 'silent',
      banner: { js: "import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);" },
      plugins: with_,
    });
    return { code: r.outputFiles?.[0]?.text ?? '' };
  } catch (err) {
    return { error: String(err) };
  }
}

/** Runs a bundle built by buildWith in this process and returns what it exports. */
async function run(code: string, dir: string): Promise<Record<string, unknown>> {
  const file = join(dir, `entry-${Math.random().toString(36).slice(2)}.mjs`);
  writeFileSync(file, code);
  return (await import(pathToFileURL(file).href)) as Record<string, unknown>;
}

/** A fresh bundled `serve --stdio -vv`: the answers to `requests`, one per id, and its stderr. */
function serve(home: string, requests: object[]): Promise<{ answers: Map<number, unknown>; stderr: string }> {
  const args = [BIN, 'serve', '--stdio', '--no-watch', '--manifests', MANIFESTS, '--policies', 'none', '-vv'];
  const server = spawn(process.execPath, args, { env: { ...process.env, TOOLGATE_HOME: home }, stdio: 'pipe' });
  const answers = new Map<number, unknown>();
  let stderr = '';
  server.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  return new Promise((done, fail) => {
    const timer = setTimeout(() => (server.kill(), fail(new Error('no answer within 30 s'))), 30_000);
    onJsonLines(server.stdout, (line) => {
      const msg = line as { id: number };
      answers.set(msg.id, msg);
      if (answers.size === requests.length) server.stdin.end();
    });
    server.on('exit', () => (clearTimeout(timer), done({ answers, stderr })));
    for (const r of requests) server.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', ...r })}\n`);
  });
}

describe("what the command's bundle leaves out", () => {
  test('the shipped bundle holds no zod v3, no zod-to-json-schema and no pino transport code, and names none of them for Node to load', () => {
    const modules = bundledModules();
    // the SDK's compatibility layer, zod v4 and pino are in it (else this would prove nothing)
    for (const m of [
      'node_modules/@modelcontextprotocol/sdk/dist/esm/server/zod-compat.js',
      'node_modules/@modelcontextprotocol/sdk/dist/esm/server/zod-json-schema-compat.js',
      'node_modules/zod/v4/classic/external.js',
      'node_modules/pino/pino.js',
      'node_modules/pino/lib/tools.js',
    ])
      expect(modules).toContain(m);
    expect(modules.filter((m) => LEFT_OUT.test(m))).toEqual([]);
    const named = readdirSync(CLI)
      .filter((f) => /\.(js|cjs)$/.test(f))
      .filter((f) => /["'](zod\/v3|zod-to-json-schema|thread-stream)["']/.test(readFileSync(join(CLI, f), 'utf8')));
    expect(named).toEqual([]);
  });

  test("a fresh serve still checks a request with the SDK's zod v4 schemas, answers the first call and logs pino's JSON lines", async () => {
    const dir = tempDir('leave-out-serve');
    try {
      const init = { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'leave-out', version: '1' } };
      const { answers, stderr } = await serve(join(dir, 'home'), [
        { id: 1, method: 'initialize', params: init },
        { id: 2, method: 'tools/list', params: { cursor: 5 } },
        {
          id: 3,
          method: 'tools/call',
          params: { name: 'convert_units', arguments: { value: 1, from: 'km', to: 'mi' } },
        },
      ]);
      expect(JSON.stringify(answers.get(2))).toContain('Invalid input: expected string, received number');
      expect(JSON.stringify(answers.get(2))).toContain('cursor');
      expect(JSON.stringify(answers.get(3))).toContain('0.621371');
      const serving = stderr.split('\n').find((l) => l.includes('"msg":"serving"'));
      expect(serving).toBeDefined();
      expect(JSON.parse(serving as string)).toMatchObject({ level: 20, tools: 10, msg: 'serving' });
    } finally {
      removeDir(dir);
    }
  }, 60_000);

  test("built with the plugin, the SDK's compatibility layer takes zod v4 schemas and refuses v3 ones by name", async () => {
    const { noZodV3 } = await plugins();
    const entry = `
      export { objectFromShape } from '@modelcontextprotocol/sdk/server/zod-compat.js';
      export { toJsonSchemaCompat } from '@modelcontextprotocol/sdk/server/zod-json-schema-compat.js';
      export { z } from 'zod';`;
    const built = await buildWith(entry, [noZodV3]);
    expect(built.error).toBeUndefined();
    const dir = tempDir('leave-out-v3');
    try {
      const { objectFromShape, toJsonSchemaCompat, z } = (await run(built.code as string, dir)) as {
        objectFromShape: (shape: object) => { safeParse?: unknown; _zod?: unknown };
        toJsonSchemaCompat: (schema: object) => Record<string, unknown>;
        z: typeof import('zod').z;
      };
      const v4 = objectFromShape({ n: z.number() });
      expect(v4._zod).toBeDefined();
      expect(toJsonSchemaCompat(z.object({ n: z.number() }))).toMatchObject({ properties: { n: { type: 'number' } } });
      // a v3 schema: an object with zod v3's marks, no `_zod`
      const v3 = { _def: { typeName: 'ZodNumber' }, parse: () => 1 };
      expect(() => objectFromShape({ n: v3 })).toThrow(/zod v3 schemas are not supported.*zod\/v3/);
      expect(() => toJsonSchemaCompat(v3)).toThrow(/zod v3 schemas are not supported.*zod-to-json-schema/);
    } finally {
      removeDir(dir);
    }
  });

  test('built with the plugin, pino logs to a stream as before and a transport is refused by name', async () => {
    const { noPinoTransport } = await plugins();
    const built = await buildWith("export { pino } from 'pino';", [noPinoTransport]);
    expect(built.error).toBeUndefined();
    expect(built.code).not.toContain('thread-stream');
    const dir = tempDir('leave-out-pino');
    try {
      const { pino } = (await run(built.code as string, dir)) as { pino: typeof import('pino').pino };
      const lines: string[] = [];
      pino({ base: null }, { write: (l: string) => lines.push(l) }).info({ n: 1 }, 'hello');
      expect(JSON.parse(lines[0] as string)).toMatchObject({ level: 30, n: 1, msg: 'hello' });
      expect(() => pino.transport({ target: 'pino/file' })).toThrow(/pino transports are not supported/);
      expect(() => pino({ transport: { target: 'pino/file' } })).toThrow(/pino transports are not supported/);
    } finally {
      removeDir(dir);
    }
  });

  test('a build whose replaced import is no longer there fails, naming the plugin and what moved', async () => {
    const { noZodV3, noPinoTransport } = await plugins();
    const v3 = await buildWith("export { z } from 'zod';", [noZodV3]);
    expect(v3.error).toMatch(/no-zod-v3: the MCP SDK's server\/zod-compat\.js no longer imports zod\/v3/);
    const transport = await buildWith("export { z } from 'zod';", [noPinoTransport]);
    expect(transport.error).toMatch(
      /no-pino-transport: pino\/pino\.js and pino\/lib\/tools\.js no longer require \.\/transport/,
    );
  });

  test('a build that still holds what a plugin leaves out fails: zod v3 or thread-stream imported by another path', async () => {
    const { noZodV3, noPinoTransport } = await plugins();
    const entry = `
      export { objectFromShape } from '@modelcontextprotocol/sdk/server/zod-compat.js';
      export { toJsonSchemaCompat } from '@modelcontextprotocol/sdk/server/zod-json-schema-compat.js';
      export { z as z3 } from 'zod/v3';`;
    expect((await buildWith(entry, [noZodV3])).error).toMatch(
      /no-zod-v3: \d+ zod v3 or zod-to-json-schema files still bundled/,
    );
    const pinoEntry = "export { pino } from 'pino'; export { default as ThreadStream } from 'thread-stream';";
    expect((await buildWith(pinoEntry, [noPinoTransport])).error).toMatch(
      /no-pino-transport: pino's transport code still bundled \(node_modules\/thread-stream\//,
    );
  });
});
