// One table of JSON edge cases, run against the JSON readers of the C, Rust and AssemblyScript PDK
// helpers (pdk-examples/*/build/json_probe.wasm: read the input, write it back). The readers agree:
// a document one refuses, all refuse; a document all accept comes back the same from each, and
// member "a" is found the same way (the last of duplicate names wins, as in JSON.parse).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_LIMITS, loadSandboxTool, type SandboxTool } from '../../host/src/sandbox/index.js';
import { ROOT } from './helpers.js';

const READERS = { c: 'c', rust: 'rust', assemblyscript: 'assemblyscript' } as const;
type Reader = keyof typeof READERS;

const nest = (n: number): string => '['.repeat(n) + ']'.repeat(n);

/** Each case: the input text and what every reader must answer (the written-back JSON text). */
const CASES: { name: string; input: string; want: { value: string; a: string } | 'refused' }[] = [
  {
    name: 'duplicate member names: the last one wins',
    input: '{"a":1,"a":2}',
    want: { value: '{"a":1,"a":2}', a: '2' },
  },
  {
    name: 'duplicate names in a nested object',
    input: '{"a":{"b":1,"b":true}}',
    want: { value: '{"a":{"b":1,"b":true}}', a: '{"b":1,"b":true}' },
  },
  { name: 'a lone high surrogate escape is refused', input: '{"a":"\\ud800"}', want: 'refused' },
  { name: 'a lone low surrogate escape is refused', input: '{"a":"\\udc00x"}', want: 'refused' },
  {
    name: 'a high surrogate followed by a non-surrogate escape is refused',
    input: '"\\ud800\\u0041"',
    want: 'refused',
  },
  {
    name: 'a surrogate pair is one character',
    input: '{"a":"\\ud83c\\udf89"}',
    want: { value: '{"a":"🎉"}', a: '"🎉"' },
  },
  { name: 'nesting 64 deep is read', input: nest(64), want: { value: nest(64), a: 'null' } },
  { name: 'nesting 65 deep is refused', input: nest(65), want: 'refused' },
  { name: 'objects count toward the depth too', input: `${'{"a":'.repeat(65)}1${'}'.repeat(65)}`, want: 'refused' },
  {
    name: 'a scalar inside 64 arrays is read',
    input: `${'['.repeat(64)}1${']'.repeat(64)}`,
    want: { value: `${'['.repeat(64)}1${']'.repeat(64)}`, a: 'null' },
  },
  { name: 'a number too large for a double (1e400) is refused', input: '{"a":1e400}', want: 'refused' },
  { name: 'a negative one (-1e400) too', input: '[-1e400]', want: 'refused' },
  { name: 'a number that underflows (1e-400) reads as 0', input: '{"a":1e-400}', want: { value: '{"a":0}', a: '0' } },
  { name: 'trailing garbage after the value is refused', input: '{"a":1}x', want: 'refused' },
  { name: 'a second value is refused', input: '{"a":1} {"a":2}', want: 'refused' },
  { name: 'trailing whitespace is fine', input: '{"a":1} \n\t', want: { value: '{"a":1}', a: '1' } },
  { name: 'a trailing comma is refused', input: '{"a":1,}', want: 'refused' },
  { name: 'a leading zero is refused', input: '[01]', want: 'refused' },
  { name: 'an empty document is refused', input: '', want: 'refused' },
  {
    name: 'control characters come back escaped',
    input: '{"a":"x\\u0001\\n"}',
    want: { value: '{"a":"x\\u0001\\n"}', a: '"x\\u0001\\n"' },
  },
];

const tools = new Map<Reader, SandboxTool>();
beforeAll(async () => {
  for (const reader of Object.keys(READERS) as Reader[]) {
    const wasm = new Uint8Array(readFileSync(join(ROOT, 'pdk-examples', reader, 'build/json_probe.wasm')));
    tools.set(
      reader,
      await loadSandboxTool({
        name: `json_probe_${reader}`,
        wasm,
        entry: 'json_probe',
        limits: { ...DEFAULT_LIMITS, timeoutMs: 10_000 },
        allowedHosts: [],
        allowedPaths: {},
        config: {},
        secretValues: [],
      }),
    );
  }
});
afterAll(async () => {
  await Promise.all([...tools.values()].map((t) => t.close()));
});

async function probe(reader: Reader, input: string): Promise<{ value: string; a: string } | 'refused'> {
  const out = new TextDecoder().decode(
    await tools.get(reader)!.call(new TextEncoder().encode(input), { signal: new AbortController().signal }),
  );
  const parsed = JSON.parse(out) as { refused?: string; value?: unknown; a?: unknown };
  if (typeof parsed.refused === 'string') return 'refused';
  // the written-back text, cut out of the probe's own object without re-parsing (duplicates stay)
  const m = /^\{"value":([\s\S]*),"a":([\s\S]*)\}$/.exec(out);
  if (!m) throw new Error(`${reader}: unexpected probe output ${out}`);
  return { value: m[1]!, a: m[2]! };
}

describe('the C, Rust and AssemblyScript JSON readers agree on one table of edge cases', () => {
  for (const c of CASES) {
    it(c.name, async () => {
      const answers = Object.fromEntries(
        await Promise.all((Object.keys(READERS) as Reader[]).map(async (r) => [r, await probe(r, c.input)] as const)),
      );
      expect(answers).toEqual({ c: c.want, rust: c.want, assemblyscript: c.want });
    });
  }
});
