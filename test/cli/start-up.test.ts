// What a start loads (issue 15.3): the bundled command keeps ajv and re2js out of the modules a
// `serve` evaluates before its first answer, and what stands in for them still works when used.
import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { PROTOCOL_VERSION_META_KEY as SDK_META_KEY } from '@modelcontextprotocol/server';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { compileLinear } from '../../host/src/regex/index.js';
import { AjvJsonSchemaValidator } from '../../host/src/server/sdk-ajv.js';
import { PROTOCOL_VERSION_META_KEY } from '../../host/src/server/stdio-era.js';
import { ROOT } from './helpers.js';

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

  test('yaml is not in what a warm start evaluates: the manifests come from the parse cache and yaml is required on the first YAML text, from one file (issue 27)', () => {
    const graph = serveGraph(['host/src/cli/runtime.ts', 'host/src/sandbox/tool.ts']);
    const texts = graph.map((f) => readFileSync(join(CLI, f), 'utf8'));
    // the manifest parser, the policy set reader and the lazy loader are in it (else this would prove nothing)
    for (const source of ['host/src/manifest/parse.ts', 'host/src/policy/set-file.ts', 'host/src/lazy-yaml/index.ts'])
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
