// End to end: real manifests -> real module (test/fixtures/manifest_tools.wat) -> the sandbox.
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import {
  decodeOutput,
  loadManifestFile,
  loadToolsFromDirs,
  sandboxSpecFor,
  toolFromManifest,
  type ManifestError,
} from '../../host/src/manifest/index.js';
import {
  defineTool,
  ToolFailure,
  type ExecIdentity,
  type Json,
  type JsonObject,
  type ToolDefinition,
} from '../../host/src/tool/index.js';
import { manifestWith, tempDir, writeFileIn, yamlOf } from './helpers.js';

const FIXTURES = resolve(__dirname, '../fixtures');
const E2E = join(FIXTURES, 'manifests/e2e');
const WASM = join(FIXTURES, 'build/manifest_tools.wasm');

const opened: ToolDefinition[] = [];
beforeAll(() => {
  // Built by `make fixtures`; failing loudly beats skipping silently.
  if (!existsSync(WASM)) throw new Error(`${WASM} is missing: run \`make -C test/fixtures\``);
});
afterAll(async () => {
  await Promise.all(opened.map((t) => t.dispose?.()));
});

async function tool(file: string, env: Record<string, string> = {}): Promise<ToolDefinition> {
  const t = await toolFromManifest(await loadManifestFile(join(E2E, file)), { env });
  opened.push(t);
  return t;
}

function exec(name: string, args: JsonObject, signal = AbortSignal.timeout(20_000)): ExecIdentity {
  return { callId: `test-${name}`, name, arguments: args, signal };
}

async function failureOf(p: Promise<unknown> | unknown): Promise<ToolFailure> {
  try {
    await p;
  } catch (err) {
    if (err instanceof ToolFailure) return err;
    throw err;
  }
  throw new Error('expected a ToolFailure');
}

describe('a manifest-built tool runs its module through the sandbox', () => {
  test('execute sends the arguments as UTF-8 JSON and returns the module output as the value', async () => {
    const echo = await tool('echo.yaml');
    const args = { text: 'héllo ✓ 😀', count: 3 };
    expect(await echo.execute(args, exec('echo_args', args))).toEqual(args);
  });

  test('the definition carries name, description, schema, output, annotations, timeout and capabilities', async () => {
    const echo = await tool('echo.yaml');
    expect(echo.name).toBe('echo_args');
    expect(echo.description).toBe('Returns its arguments unchanged.');
    expect(echo.title).toBe('Echo');
    expect(echo.parameters?.['text']).toEqual({ type: 'string', required: true, description: 'Any text' });
    expect(echo.output).toEqual({ render: 'json', schema: { type: 'object' } });
    expect(echo.annotations).toEqual({ title: 'Echo', readOnlyHint: true, idempotentHint: true });
    expect(echo.timeoutMs).toBe(5000);
    expect(echo.capabilities).toEqual({
      allowedHosts: [],
      allowedPaths: {},
      secrets: [],
      maxPages: 16,
      timeoutMs: 5000,
      maxOutputBytes: 1024 * 1024,
      mcp: [],
    });
    // The tool model accepts it as is (what the registry will do on register).
    expect(defineTool(echo).inputSchema).toMatchObject({ type: 'object', required: ['text'] });
  });

  test('with output.encoding text the raw UTF-8 output is the value (a string)', async () => {
    const hello = await tool('hello_text.yaml');
    expect(await hello.execute({}, exec('hello_text', {}))).toBe('héllo');
  });

  test('output that is not valid JSON is a TOOL_ERROR', async () => {
    const bad = await tool('bad_json.yaml');
    const err = await failureOf(bad.execute({}, exec('bad_json', {})));
    expect(err.code).toBe('TOOL_ERROR');
    expect(err.message).toMatch(/^module output is not valid JSON: /);
  });

  test('text output that is not valid UTF-8 is a TOOL_ERROR', async () => {
    const bad = await tool('bad_utf8.yaml');
    const err = await failureOf(bad.execute({}, exec('bad_utf8', {})));
    expect(err.code).toBe('TOOL_ERROR');
    expect(err.message).toBe('module output is not valid UTF-8 text');
  });

  test('a declared secret arrives as the Extism config key of the same name', async () => {
    const t = await tool('read_secret.yaml', { API_TOKEN: 's3cret-value', OTHER: 'x' });
    expect(await t.execute({}, exec('read_secret', {}))).toBe('s3cret-value');
  });

  test('a declared secret missing from the environment: the tool loads and each call fails naming the variable', async () => {
    const t = await tool('read_secret.yaml', {});
    for (let i = 0; i < 2; i++) {
      const err = await failureOf(t.execute({}, exec('read_secret', {})));
      expect(err.code).toBe('TOOL_ERROR');
      expect(err.message).toContain('API_TOKEN');
    }
  });

  test('dispose closes the sandbox: later calls fail instead of running', async () => {
    const echo = await toolFromManifest(await loadManifestFile(join(E2E, 'echo.yaml')), { env: {} });
    expect(await echo.execute({ text: 'a' }, exec('echo_args', { text: 'a' }))).toEqual({ text: 'a' });
    await echo.dispose?.();
    const err = await failureOf(echo.execute({ text: 'a' }, exec('echo_args', { text: 'a' })));
    expect(err.code).toBe('ABORTED');
  });

  test('a caller that already aborted gets ABORTED, not a result', async () => {
    const echo = await tool('echo.yaml');
    const ac = new AbortController();
    ac.abort();
    const err = await failureOf(echo.execute({ text: 'a' }, exec('echo_args', { text: 'a' }, ac.signal)));
    expect(err.code).toBe('ABORTED');
  });
});

describe('what the sandbox is given', () => {
  test('limits come from the manifest; config holds config plus declared secrets and nothing else from the environment', async () => {
    const loaded = await loadManifestFile(join(E2E, 'read_secret.yaml'));
    const { spec, missingSecrets } = sandboxSpecFor(loaded, { env: { API_TOKEN: 'tok', HOME: '/root', PATH: '/bin' } });
    expect(spec.config).toEqual({ mode: 'test', API_TOKEN: 'tok' });
    expect(spec.secretValues).toEqual(['tok']);
    expect(missingSecrets).toEqual([]);
    expect(spec.entry).toBe('read_secret');
    expect(spec.sha256).toBe(loaded.sha256);
    expect(spec.limits).toMatchObject({
      maxPages: 256,
      timeoutMs: 10_000,
      maxInputBytes: 1 << 20,
      maxOutputBytes: 1 << 20,
      maxHttpResponseBytes: 1 << 20,
    });
    expect(spec.allowedHosts).toEqual([]);
    expect(spec.allowedPaths).toEqual({});
  });

  test('pool settings are passed through', async () => {
    const { dir, cleanup } = await tempDir();
    try {
      const file = await writeFileIn(
        dir,
        'p.yaml',
        yamlOf(manifestWith({ module: { path: WASM, entry: 'echo' }, pool: { max: 3, idle_ms: 500 } })),
      );
      const { spec } = sandboxSpecFor(await loadManifestFile(file), { env: {} });
      expect(spec.pool).toEqual({ max: 3, idleMs: 500 });
    } finally {
      await cleanup();
    }
  });
});

describe('loadToolsFromDirs', () => {
  test('loads every tool in a folder; a module the sandbox refuses is reported and skipped', async () => {
    const { dir, cleanup } = await tempDir();
    const loaded: ToolDefinition[] = [];
    try {
      await writeFileIn(dir, 'a.yaml', yamlOf(manifestWith({ name: 'good', module: { path: WASM, entry: 'echo' } })));
      const bad = await writeFileIn(
        dir,
        'b.yaml',
        yamlOf(manifestWith({ name: 'no_entry', module: { path: WASM, entry: 'does_not_exist' } })),
      );
      await writeFileIn(dir, 'c.yaml', yamlOf(manifestWith({ name: 'broken', version: 'one' })));
      const { tools, errors } = await loadToolsFromDirs([dir], { env: {} });
      loaded.push(...tools);
      expect(tools.map((t) => t.name)).toEqual(['good']);
      const byFile = new Map(errors.map((e: ManifestError) => [e.file, e]));
      expect(byFile.get(bad)?.code).toBe('SANDBOX_LOAD');
      expect(byFile.get(bad)?.message).toContain('refused by the sandbox');
      expect(byFile.get(join(dir, 'c.yaml'))?.path).toBe('version');
      const value: Json = await tools[0]!.execute({ k: 'v' }, exec('good', { k: 'v' }));
      expect(value).toEqual({ k: 'v' });
    } finally {
      await Promise.all(loaded.map((t) => t.dispose?.()));
      await cleanup();
    }
  });

  test('the e2e fixture folder loads all five tools', async () => {
    const { tools, errors } = await loadToolsFromDirs([E2E], { env: {} });
    opened.push(...tools);
    expect(errors).toEqual([]);
    expect(tools.map((t) => t.name).sort()).toEqual(['bad_json', 'bad_utf8', 'echo_args', 'hello_text', 'read_secret']);
  });
});

describe('decodeOutput', () => {
  const bytes = (s: string) => new TextEncoder().encode(s);
  test('JSON output becomes the value', () => {
    expect(decodeOutput(bytes('{"a":[1,"é"]}'), 'json')).toEqual({ a: [1, 'é'] });
  });
  test('empty output is not valid JSON', () => {
    expect(() => decodeOutput(new Uint8Array(), 'json')).toThrow(
      /module output is not valid JSON: the output is empty/,
    );
  });
  test('a number JSON cannot carry (1e400 -> Infinity) is refused', () => {
    expect(() => decodeOutput(bytes('{"n":1e400}'), 'json')).toThrow(
      /module output is not valid JSON: a number is out of range/,
    );
  });
  test('an empty text output is the empty string', () => {
    expect(decodeOutput(new Uint8Array(), 'text')).toBe('');
  });
  test('a JSON parse error message is bounded', () => {
    const err = (() => {
      try {
        decodeOutput(bytes(`{${'x'.repeat(100_000)}`), 'json');
      } catch (e) {
        return e as ToolFailure;
      }
      throw new Error('accepted');
    })();
    expect(err.code).toBe('TOOL_ERROR');
    expect(err.message.length).toBeLessThan(300);
  });
});

describe('capabilities.mcp decides which toolgate:mcp imports a module may have', () => {
  const SAMPLING = join(FIXTURES, '../../pdk-examples/conformance/build/sampling.wasm');
  const manifestFor = (mcp: string[] | undefined): string =>
    yamlOf({
      apiVersion: 'toolgate/v1',
      name: 'asks_model',
      version: '1.0.0',
      description: 'Imports toolgate:mcp.sample.',
      module: { path: SAMPLING, entry: 'sampling' },
      parameters: { prompt: { type: 'string', required: true } },
      output: { render: 'mcp' },
      ...(mcp !== undefined ? { capabilities: { mcp } } : {}),
    });

  test('a module importing toolgate:mcp.sample is refused at load unless capabilities.mcp lists sampling, naming the import and the key', async () => {
    const { dir, cleanup } = await tempDir();
    try {
      for (const mcp of [undefined, ['elicitation', 'logging']]) {
        const file = await writeFileIn(dir, 'asks_model.yaml', manifestFor(mcp));
        const err = (await toolFromManifest(await loadManifestFile(file)).catch((e: unknown) => e)) as ManifestError;
        expect(err.code).toBe('SANDBOX_LOAD');
        expect(err.message).toContain(file);
        expect(err.message).toContain('FORBIDDEN_IMPORT');
        expect(err.message).toContain('import "toolgate:mcp.sample" needs capabilities.mcp to list "sampling"');
      }
      // the same module (compiled once, cached by digest) loads for a manifest that declares it
      const ok = await toolFromManifest(
        await loadManifestFile(await writeFileIn(dir, 'asks_model.yaml', manifestFor(['sampling']))),
      );
      opened.push(ok);
      expect(ok.capabilities?.mcp).toEqual(['sampling']);
    } finally {
      await cleanup();
    }
  });

  test('a module importing toolgate:mcp.roots is refused at load unless capabilities.mcp lists roots', async () => {
    const ROOTS = join(FIXTURES, '../../pdk-examples/conformance/build/mrtr_roots.wasm');
    const rootsManifest = (mcp: string[] | undefined): string =>
      yamlOf({
        apiVersion: 'toolgate/v1',
        name: 'asks_roots',
        version: '1.0.0',
        description: 'Imports toolgate:mcp.roots.',
        module: { path: ROOTS, entry: 'input_required_result_list_roots' },
        output: { render: 'mcp' },
        ...(mcp !== undefined ? { capabilities: { mcp } } : {}),
      });
    const { dir, cleanup } = await tempDir();
    try {
      for (const mcp of [undefined, ['elicitation', 'sampling', 'logging', 'progress']]) {
        const file = await writeFileIn(dir, 'asks_roots.yaml', rootsManifest(mcp));
        const err = (await toolFromManifest(await loadManifestFile(file)).catch((e: unknown) => e)) as ManifestError;
        expect(err.code).toBe('SANDBOX_LOAD');
        expect(err.message).toContain('FORBIDDEN_IMPORT');
        expect(err.message).toContain('import "toolgate:mcp.roots" needs capabilities.mcp to list "roots"');
      }
      const ok = await toolFromManifest(
        await loadManifestFile(await writeFileIn(dir, 'asks_roots.yaml', rootsManifest(['roots']))),
      );
      opened.push(ok);
      expect(ok.capabilities?.mcp).toEqual(['roots']);
    } finally {
      await cleanup();
    }
  });

  test('a namespace toolgate does not serve is still refused, and toolgate:mcp refuses names it does not provide', async () => {
    const { spawnSync } = await import('node:child_process');
    const { dir, cleanup } = await tempDir();
    try {
      const wat = join(dir, 'm.wat');
      await writeFileIn(
        dir,
        'm.wat',
        '(module (import "toolgate:mcp" "shell" (func (param i64) (result i64))) (memory (export "memory") 1) (func (export "t")))',
      );
      const built = spawnSync('wat2wasm', [wat, '-o', join(dir, 'm.wasm')]);
      expect(built.status).toBe(0);
      const file = await writeFileIn(
        dir,
        'm.yaml',
        yamlOf({
          apiVersion: 'toolgate/v1',
          name: 't',
          version: '1.0.0',
          description: 'x',
          module: { path: './m.wasm' },
          capabilities: { mcp: ['logging', 'progress', 'elicitation', 'sampling'] },
        }),
      );
      const err = (await toolFromManifest(await loadManifestFile(file)).catch((e: unknown) => e)) as ManifestError;
      expect(err.message).toContain(
        'import "toolgate:mcp.shell" is not a function toolgate provides (log, progress, elicit, sample, roots)',
      );
    } finally {
      await cleanup();
    }
  });
});
