// module.abi: hyper-mcp, in process: manifest rules, how the interface is told apart, what a
// module's description must satisfy to be served, each interface's call envelope, and that
// arguments are checked against the described schema before the module runs. Real modules: a
// Rust v1 plugin (test/fixtures/hyper_v1.rs) and a C v2 plugin (test/fixtures/hyper_v2.c).
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import {
  loadManifestFile,
  loadToolsFromDirs,
  ManifestError,
  parseManifest,
  pluginFromManifest,
  type LoadedPlugin,
} from '../../host/src/manifest/index.js';
import { Pipeline } from '../../host/src/pipeline/index.js';
import { ToolRegistry, type JsonObject } from '../../host/src/tool/index.js';

const ROOT = resolve(import.meta.dirname, '../..');
const V1 = join(ROOT, 'test/fixtures/build/hyper_v1.wasm');
const V2 = join(ROOT, 'test/fixtures/build/hyper_v2.wasm');
const GREET = join(ROOT, 'pdk-examples/wat/build/greet.wasm');

let dir: string;
const plugins: LoadedPlugin[] = [];

function manifest(name: string, wasm: string, extra: string[] = []): string {
  return [
    'apiVersion: toolgate/v1',
    `name: ${name}`,
    'version: 1.0.0',
    `description: ${name} test plugin`,
    `module: { path: ${wasm}, abi: hyper-mcp }`,
    ...extra,
    '',
  ].join('\n');
}

async function write(name: string, text: string): Promise<string> {
  const file = join(dir, `${name}.yaml`);
  await writeFile(file, text);
  return file;
}

async function load(name: string, wasm: string, extra: string[] = []): Promise<LoadedPlugin> {
  const file = await write(name, manifest(name, wasm, extra));
  const p = await pluginFromManifest(await loadManifestFile(file), { execution: { path: 'worker' } });
  plugins.push(p);
  return p;
}

async function refusal(name: string, wasm: string, extra: string[]): Promise<ManifestError> {
  const file = await write(name, manifest(name, wasm, extra));
  const err = await pluginFromManifest(await loadManifestFile(file)).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ManifestError);
  return err as ManifestError;
}

function pipelineOf(p: LoadedPlugin): Pipeline {
  const tools = new ToolRegistry();
  for (const t of p.tools) tools.register(t);
  for (const op of p.operations) tools.registerOperation(op);
  if (p.surface !== undefined) tools.registerSurface(p.surface);
  return new Pipeline({ tools });
}

const textOf = (r: { content: readonly { type: string }[] }): string =>
  (r.content[0] as unknown as { text: string }).text;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'toolgate-hyper-'));
});
afterAll(async () => {
  await Promise.all(plugins.map((p) => p.dispose()));
  await rm(dir, { recursive: true, force: true });
});

describe('manifest: module.abi', () => {
  test('module.abi defaults to toolgate, so manifests written before it stay valid', () => {
    const m = parseManifest(
      [
        'apiVersion: toolgate/v1',
        'name: greet',
        'version: 1.0.0',
        'description: d',
        `module: { path: ${GREET} }`,
        '',
      ].join('\n'),
      'greet.yaml',
    );
    expect(m.module.abi).toBe('toolgate');
  });

  test('module.abi is toolgate or hyper-mcp; anything else is refused naming the file, field and rule', () => {
    expect(() => parseManifest(manifest('p', V1).replace('abi: hyper-mcp', 'abi: wasi'), 'p.yaml')).toThrow(
      /p\.yaml: module\.abi: must be one of "toolgate", "hyper-mcp"/,
    );
  });

  test('a hyper-mcp manifest may not set parameters, inputSchema, input, output, annotations or module.entry: the module describes them', () => {
    const text = manifest('p', V1, ['parameters: { a: { type: string } }', 'output: { render: text }']).replace(
      'abi: hyper-mcp',
      'abi: hyper-mcp, entry: call',
    );
    let err: unknown;
    try {
      parseManifest(text, 'p.yaml');
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(ManifestError);
    const issues = (err as ManifestError).issues.map((i) => i.path);
    expect(issues).toEqual(expect.arrayContaining(['parameters', 'output', 'module.entry']));
    expect((err as ManifestError).message).toMatch(
      /parameters: is not allowed when module\.abi is hyper-mcp: the module describes its own tools/,
    );
  });

  test('a hyper-mcp plugin name may not contain "__" or end with "_" (it prefixes every served name)', () => {
    expect(() => parseManifest(manifest('a__b', V1), 'p.yaml')).toThrow(/name: must not contain "__"/);
    expect(() => parseManifest(manifest('ab_', V1), 'p.yaml')).toThrow(/name: must not contain "__", end with "_"/);
  });
});

describe('interfaces: told apart by the exports', () => {
  test('a module exporting describe and call is the v1 interface; one exporting list_tools/call_tool is v2', async () => {
    expect((await load('fxa', V1)).interface).toBe('v1');
    expect((await load('fxb', V2)).interface).toBe('v2');
  });

  test('a module exporting neither is refused at load naming module.abi', async () => {
    const err = await refusal('plain', GREET, []);
    expect(err.path).toBe('module.abi');
    expect(err.message).toMatch(/exports neither describe and call \(hyper-mcp v1\) nor any of list_tools/);
  });
});

describe('tools from the module', () => {
  test('each described tool is served as <plugin>__<tool> with the schema the module described', async () => {
    const p = await load('fx1', V1);
    expect(p.tools.map((t) => t.name)).toEqual(['fx1__echo', 'fx1__add', 'fx1__fail', 'fx1__envelope']);
    const echo = p.tools[0];
    expect(echo?.inputSchema).toEqual({
      type: 'object',
      properties: { text: { type: 'string', maxLength: 64 } },
      required: ['text'],
      additionalProperties: false,
    });
    expect(echo?.title).toBe('Echo');
    expect(echo?.annotations?.readOnlyHint).toBe(true);
    expect(p.problems).toEqual([]);
  });

  test('v1 envelope: call receives {"params": {"name", "arguments"}} with the module\'s own tool name', async () => {
    const pipeline = pipelineOf(await load('fx1e', V1));
    const r = await pipeline.call('fx1e__envelope', { x: 7 });
    expect(r.isError).toBe(false);
    expect(JSON.parse(textOf(r))).toEqual({ params: { name: 'envelope', arguments: { x: 7 } } });
  });

  test('v2 envelope: call_tool receives {"request": {"name", "arguments"}, "context": {"id", "_meta"}}', async () => {
    const pipeline = pipelineOf(await load('fx2e', V2));
    const r = await pipeline.call('fx2e__envelope', { y: 'z' });
    expect(r.isError).toBe(false);
    const input = JSON.parse(textOf(r)) as JsonObject;
    expect(input['request']).toEqual({ name: 'envelope', arguments: { y: 'z' } });
    expect(input['context']).toEqual({ id: r.meta?.['callId'], _meta: {} });
  });

  test('results map to toolgate content: text, structuredContent, image and embedded resource blocks; isError is an error result', async () => {
    const v1 = pipelineOf(await load('fx1r', V1));
    const sum = await v1.call('fx1r__add', { a: 2, b: 3 });
    expect(sum.content).toEqual([{ type: 'text', text: '5' }]);
    expect(sum.structuredContent).toEqual({ sum: 5 });
    const failed = await v1.call('fx1r__fail', {});
    expect(failed.isError).toBe(true);
    expect(failed.error).toMatchObject({ code: 'TOOL_ERROR', message: 'it failed on purpose' });
    const v2 = pipelineOf(await load('fx2r', V2));
    const pic = await v2.call('fx2r__picture', {});
    expect(pic.content.map((b) => b.type)).toEqual(['image', 'resource']);
  });

  test('optional members a module sends as null are absent (tool, annotations, result); a null inside a schema keeps its meaning', async () => {
    const p = await load('fxn', V1, ['capabilities:', '  config: { mode: nulls }']);
    expect(p.problems).toEqual([]);
    const nully = p.tools.find((t) => t.name === 'fxn__nully');
    expect(nully?.title).toBeUndefined();
    expect(nully?.annotations).toEqual({ readOnlyHint: true });
    expect(nully?.inputSchema).toEqual({
      type: 'object',
      properties: { v: { type: ['string', 'null'], default: null } },
    });
    const r = await pipelineOf(p).call('fxn__nully', {});
    expect(r.isError).toBe(false);
    expect(r.content).toEqual([{ type: 'text', text: 'null members dropped' }]);
  });

  test('arguments are validated against the described schema before the module runs (the module writes a file when it runs)', async () => {
    const data = join(dir, 'data');
    await mkdir(data, { recursive: true });
    const pipeline = pipelineOf(
      await load('fx2v', V2, ['capabilities:', `  allowed_paths: { /data: { host: ${data}, mode: rw } }`]),
    );
    const log = join(data, 'calls.log');
    const tooLong = await pipeline.call('fx2v__record', { note: 'far more than ten characters' });
    expect(tooLong.error?.code).toBe('INVALID_ARGS');
    const missing = await pipeline.call('fx2v__record', {});
    expect(missing.error?.code).toBe('INVALID_ARGS');
    const extra = await pipeline.call('fx2v__record', { note: 'ok', other: 1 });
    expect(extra.error?.code).toBe('INVALID_ARGS');
    expect(existsSync(log)).toBe(false);
    const ok = await pipeline.call('fx2v__record', { note: 'short' });
    expect(ok.isError).toBe(false);
    expect(await readFile(log, 'utf8')).toBe('short\n');
  });
});

describe('bad descriptions', () => {
  test('an invalid name, a non-object schema and a duplicate are refused at load with the file and reason; the other tools load', async () => {
    const p = await load('fxm', V1, ['capabilities:', '  config: { mode: mixed }']);
    expect(p.tools.map((t) => t.name)).toEqual(['fxm__echo', 'fxm__add', 'fxm__fail', 'fxm__envelope']);
    const messages = p.problems.map((e) => e.message);
    expect(messages).toHaveLength(3);
    for (const m of messages) expect(m).toContain(join(dir, 'fxm.yaml'));
    expect(messages[0]).toMatch(/tools\[4\]\.name: "Bad-Name" must match/);
    expect(messages[1]).toMatch(/tools\[5\]\.inputSchema\.type: must be "object"/);
    expect(messages[2]).toMatch(/tools\[6\]\.name: "echo" is described twice/);
  });

  test("a plain manifest named like a served tool (<plugin>__<tool>) is served by neither, each refused with the other's file; the plugin's other tools load", async () => {
    const first = join(dir, 'collide');
    await mkdir(first, { recursive: true });
    await writeFile(
      join(first, 'a.yaml'),
      [
        'apiVersion: toolgate/v1',
        'name: fxc__echo',
        'version: 1.0.0',
        'description: a native tool taking the name',
        `module: { path: ${GREET}, entry: greet }`,
        '',
      ].join('\n'),
    );
    await writeFile(join(first, 'b.yaml'), manifest('fxc', V1));
    const { tools, plugins: loaded, errors } = await loadToolsFromDirs([first]);
    plugins.push(...loaded);
    const registry = new ToolRegistry();
    for (const t of tools) registry.register(t);
    for (const t of loaded.flatMap((p) => p.tools)) registry.register(t);
    expect(errors.map((e) => [e.code, e.file])).toEqual([
      ['DUPLICATE_TOOL', join(first, 'a.yaml')],
      ['DUPLICATE_TOOL', join(first, 'b.yaml')],
    ]);
    expect(errors[0]?.message).toContain(`is in the names of the hyper-mcp plugin "fxc" (${join(first, 'b.yaml')})`);
    expect(errors[1]?.message).toContain(`tool "fxc__echo" is also defined by ${join(first, 'a.yaml')}`);
    expect(tools).toEqual([]);
    expect(registry.list().map((t) => t.name)).toEqual(['fxc__add', 'fxc__fail', 'fxc__envelope']);
    await Promise.all(tools.map((t) => t.dispose?.()));
  });

  test("a describe export that spins is refused within the manifest's timeout", async () => {
    const t0 = performance.now();
    const err = await refusal('spin', V1, ['capabilities:', '  timeout_ms: 400', '  config: { mode: spin }']);
    expect(performance.now() - t0).toBeLessThan(5000);
    expect(err.code).toBe('SANDBOX_LOAD');
    expect(err.message).toMatch(/export describe of .*hyper_v1\.wasm failed at load: TIMEOUT/);
  });

  test('a describe export that traps is refused with the reason', async () => {
    const err = await refusal('trap', V1, ['capabilities:', '  config: { mode: trap }']);
    expect(err.message).toMatch(/trap\.yaml: module.path: /);
    expect(err.message).toMatch(/export describe of .* failed at load/);
  });

  test("a module importing hyper-mcp's own host functions (not mapped yet) is refused at load naming the import", async () => {
    const err = await refusal('hostfn', join(ROOT, 'test/fixtures/build/hyper_host_imports.wasm'), []);
    expect(err.message).toMatch(/hostfn\.yaml: .*export list_tools .* failed at load: .*notify_progress/);
  });

  test('malformed JSON from describe is refused with the reason', async () => {
    const err = await refusal('garbage', V1, ['capabilities:', '  config: { mode: garbage }']);
    expect(err.message).toMatch(/garbage\.yaml: .*not valid JSON/);
  });

  test('a tool list over the cap (128) is refused at load', async () => {
    const err = await refusal('many', V1, ['capabilities:', '  config: { mode: many }']);
    expect(err.message).toMatch(/describe returned a malformed list: tools: must list at most 128 tools/);
  });

  test('a bad manifest of the set does not stop the others from loading', async () => {
    const set = join(dir, 'set');
    await mkdir(set, { recursive: true });
    await writeFile(join(set, 'bad.yaml'), manifest('bad', V1, ['capabilities:', '  config: { mode: trap }']));
    await writeFile(join(set, 'good.yaml'), manifest('good', V2));
    const { plugins: loaded, errors } = await loadToolsFromDirs([set]);
    plugins.push(...loaded);
    expect(loaded.map((p) => p.plugin)).toEqual(['good']);
    expect(errors.map((e) => e.file)).toEqual([join(set, 'bad.yaml')]);
  });
});

describe('resources, prompts and completions of a v2 module', () => {
  test('what the module lists is its surface, served through operations named <plugin>__resources__read / __prompts__get / __completion__complete', async () => {
    const p = await load('fxs', V2);
    expect(p.surface?.resources.map((r) => r['uri'])).toEqual(['mem://fixture/readme']);
    expect(p.surface?.resourceTemplates.map((r) => r['uriTemplate'])).toEqual(['mem://fixture/items/{id}']);
    expect(p.surface?.prompts.map((r) => r['name'])).toEqual(['greeting']);
    expect(p.operations.map((o) => o.name)).toEqual([
      'fxs__resources__read',
      'fxs__prompts__get',
      'fxs__completion__complete',
    ]);
    const pipeline = pipelineOf(p);
    const read = await pipeline.call('fxs__resources__read', { uri: 'mem://fixture/items/42' }, { operation: true });
    expect(read.structuredContent).toEqual({
      contents: [{ uri: 'mem://fixture/items/42', mimeType: 'text/plain', text: 'contents of mem://fixture/items/42' }],
    });
    // an operation is not a tool: tools/call and the tool list never reach it
    expect((await pipeline.call('fxs__resources__read', { uri: 'mem://fixture/readme' })).error?.code).toBe(
      'UNKNOWN_TOOL',
    );
  });

  test('a URI the module did not list and no template matches is never passed to the module', async () => {
    const pipeline = pipelineOf(await load('fxu', V2));
    const r = await pipeline.call('fxu__resources__read', { uri: 'mem://fixture/items/a/b' }, { operation: true });
    expect(r.error).toMatchObject({ code: 'TOOL_ERROR', message: 'resource not found: mem://fixture/items/a/b' });
  });

  test('completion refs reach the module without MCP\'s "ref/" prefix, as hyper-mcp sends them', async () => {
    const pipeline = pipelineOf(await load('fxk', V2));
    const r = await pipeline.call(
      'fxk__completion__complete',
      { ref: { type: 'ref/prompt', name: 'greeting' }, argument: { name: 'who', value: 'al' } },
      { operation: true },
    );
    expect(r.structuredContent).toEqual({ completion: { values: ['prompt', 'alpha', 'alps'], hasMore: false } });
  });

  test('size caps: a read larger than max_output_bytes is refused, not passed on', async () => {
    const pipeline = pipelineOf(await load('fxz', V2, ['capabilities:', '  max_output_bytes: 8192']));
    const r = await pipeline.call('fxz__resources__read', { uri: 'mem://fixture/items/big' }, { operation: true });
    expect(r.error?.code).toBe('OUTPUT_TOO_LARGE');
  });
});
