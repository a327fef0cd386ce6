// Preemption instrumentation changes when a module can be stopped, never what it computes: every
// module we build and every module of the shared compat corpus is instrumented, and each example
// tool and compat case gives the same result instrumented as plain.
import { readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PREEMPT_CHECK, PREEMPT_NAMESPACE } from '../../host/src/sandbox/module/host-imports.js';
import { prepareModule } from '../../host/src/sandbox/module/prepare.js';
import { WASI_IMPORT_NAMES } from '../../host/src/sandbox/wasi/index.js';
import type { JsonObject } from '../../host/src/tool/index.js';
import {
  ROOT,
  VARIANTS,
  compatCases,
  compatServer,
  corpusModules,
  hasCompat,
  outcome,
  type Outcome,
} from './preempt-helpers.js';

const HOST_NAMESPACES = new Set(['extism:host/env', 'wasi_snapshot_preview1']);

/** Prepares a module as the sandbox would (its foreign namespaces taken as module.link ones). */
function prepare(file: string, preempt: boolean) {
  const bytes = new Uint8Array(readFileSync(file));
  let links: string[] = [];
  try {
    links = WebAssembly.Module.imports(new WebAssembly.Module(bytes))
      .map((i) => i.module)
      .filter((m) => !HOST_NAMESPACES.has(m));
  } catch {
    // V8 refuses it too (memory64, two memories): prepare must refuse it alike
  }
  const opts = {
    tool: 'eq',
    maxPages: 65536,
    wasiImportNames: WASI_IMPORT_NAMES,
    linkNamespaces: [...new Set(links)],
    preempt,
  };
  try {
    return prepareModule(bytes, opts);
  } catch (err) {
    return err instanceof Error ? err.message : String(err);
  }
}

describe('every module we build and every compat module is instrumented', () => {
  const files = corpusModules();

  it('the corpus holds the hostile fixtures, the example tools and (when present) the compat modules', () => {
    const names = files.map((f) => basename(f));
    expect(names).toEqual(
      expect.arrayContaining([
        'hostile_start_loop.wasm',
        'core_kit.wasm',
        'greet.wasm',
        'hash.wasm',
        'json_query.wasm',
        'text_stats.wasm',
      ]),
    );
    if (hasCompat)
      expect(names).toEqual(
        expect.arrayContaining(['loop-forever.wasm', 'hello_haskell.wasm', 'fs.wasm', 'circular-lhs.wasm']),
      );
  });

  for (const file of files) {
    it(`${basename(file)} (${basename(join(file, '../..'))}): refused alike, or instrumented and still a valid module that imports the check`, () => {
      const plain = prepare(file, false);
      const instrumented = prepare(file, true);
      if (typeof plain === 'string') {
        expect(instrumented).toBe(plain);
        return;
      }
      expect(typeof instrumented, String(instrumented)).toBe('object');
      if (typeof instrumented === 'string') return;
      expect(instrumented.preemptible).toBe(true);
      const mod = new WebAssembly.Module(instrumented.bytes);
      const imports = WebAssembly.Module.imports(mod);
      const hasCode = WebAssembly.Module.imports(new WebAssembly.Module(plain.bytes)).length < imports.length;
      if (hasCode) expect(imports.at(-1)).toEqual({ module: PREEMPT_NAMESPACE, name: PREEMPT_CHECK, kind: 'function' });
      // the instrumentation adds no export: the fuel stays out of the module's reach from outside
      expect(WebAssembly.Module.exports(mod)).toEqual(WebAssembly.Module.exports(new WebAssembly.Module(plain.bytes)));
    });
  }
});

/** One example call per bundled tool: real work, each result compared across paths. */
const EXAMPLE_ARGS: Record<string, JsonObject> = {
  convert_units: { value: 3.5, from: 'km', to: 'mi' },
  csv_to_json: { csv: 'a,b\n1,2\n3,"x,y"\n', delimiter: ',', header: true },
  encode: { text: 'héllo wörld ✓', scheme: 'base64', direction: 'encode' },
  fetch_url: { url: 'http://127.0.0.2:9/', max_bytes: 100 },
  greet: { name: 'Grüße' },
  grep_files: { pattern: 'sandbox|policy', path: '/data', ignore_case: true, max_results: 5 },
  hash: { text: 'hello', algorithm: 'sha512', encoding: 'base64' },
  json_query: { json: '{"a":[1,2,{"b":[3,4]}]}', path: '$.a[2].b[-1]' },
  markdown_to_text: {
    markdown: '# Title\n\nSome *em* and [a link](http://x.test/).\n\n- one\n- two',
    keep_links: true,
  },
  text_stats: { text: 'the cat and the hat\n\nthe second paragraph', top: 3 },
};

async function same(manifest: string, args: JsonObject): Promise<Outcome> {
  const results: Outcome[] = [];
  for (const execution of Object.values(VARIANTS)) results.push(await outcome(manifest, args, execution));
  for (const r of results.slice(1)) expect(r).toEqual(results[0]);
  return results[0] as Outcome;
}

describe('an instrumented module returns what the original returns', () => {
  for (const [tool, args] of Object.entries(EXAMPLE_ARGS)) {
    it(`example tool ${tool}`, async () => {
      const result = await same(join(ROOT, 'manifests', `${tool}.yaml`), args);
      // the comparison means something only where the tool did its work
      if (tool !== 'fetch_url') expect(result, JSON.stringify(result)).toHaveProperty('ok');
    });
  }

  for (const name of ['test_simple_text', 'test_image_content', 'test_error_handling', 'json_schema_2020_12_tool']) {
    it(`conformance tool ${name}`, async () => {
      await same(join(ROOT, 'manifests', 'conformance', `${name}.yaml`), {});
    });
  }
});

describe.skipIf(!hasCompat)('the shared compat corpus gives the same results instrumented', () => {
  let server: { base: string; stop(): void };
  beforeAll(async () => {
    server = await compatServer();
  });
  afterAll(() => server?.stop());

  it('every case', async () => {
    const ran: string[] = [];
    for (const c of compatCases(server.base)) {
      const result = await same(c.manifest, c.args);
      ran.push(`${c.name}: ${'ok' in result ? 'ok' : 'load' in result ? 'load error' : result.error}`);
    }
    // the corpus ran for real: values, refusals at load, tool errors and the timeout
    expect(ran).toEqual(
      expect.arrayContaining([
        'hello_text_output: ok',
        'circular_link: ok',
        'code_functions_host_fn: load error',
        'loop_forever_timeout: TIMEOUT',
        'fail_error_set: TOOL_ERROR',
      ]),
    );
  }, 120_000);
});

describe('the instrumentation reaches the host check from every kind of endless run', () => {
  /** Instantiates a prepared fixture whose check refills `fuel` and throws on its `limit`-th call. */
  function run(file: string, entry: string | undefined, limit: number): { calls: number; error: unknown } {
    const prepared = prepare(join(ROOT, 'test/fixtures/build', `${file}.wasm`), true);
    if (typeof prepared === 'string') throw new Error(prepared);
    const mod = new WebAssembly.Module(prepared.bytes);
    let calls = 0;
    const imports: Record<string, Record<string, unknown>> = {};
    for (const imp of WebAssembly.Module.imports(mod)) (imports[imp.module] ??= {})[imp.name] = () => 0;
    (imports[PREEMPT_NAMESPACE] as Record<string, unknown>)[PREEMPT_CHECK] = () => {
      if (++calls >= limit) throw new Error('preempted');
      return 1000;
    };
    try {
      const instance = new WebAssembly.Instance(mod, imports);
      if (entry !== undefined) (instance.exports[entry] as () => void)();
      return { calls, error: undefined };
    } catch (error) {
      return { calls, error };
    }
  }

  it('an endless loop in an export (spin) calls the check until it stops the call', () => {
    const { calls, error } = run('core_kit', 'spin', 50);
    expect(calls).toBe(50);
    expect((error as Error).message).toBe('preempted');
  });

  it('a start function that never returns is stopped while the module is instantiated', () => {
    const { calls, error } = run('hostile_start_loop', undefined, 20);
    expect(calls).toBe(20);
    expect((error as Error).message).toBe('preempted');
  });

  it('unbounded recursion is charged at every function entry', () => {
    const { calls, error } = run('core_kit', 'recurse', 5);
    expect(calls).toBe(5);
    expect((error as Error).message).toBe('preempted');
  });

  it('a call that finishes is charged by the work it did, not stopped', () => {
    const { calls, error } = run('core_kit', 'noop', 1000);
    expect(error).toBeUndefined();
    expect(calls).toBeLessThanOrEqual(1);
  });
});
