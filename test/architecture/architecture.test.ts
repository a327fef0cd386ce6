// The shape architecture.md §2 describes, checked on every run: no import cycles, other folders enter
// a folder only through its index.ts, and dependencies between the top-level folders point one way.
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { functionLengths, hostFunctionLengths } from './functions.js';
import { cycles, importGraph, SRC, type Edge } from './imports.js';

/**
 * The top-level folders of host/src by layer; an import may point only to a lower layer. architecture.md §2:
 * cli/server -> registry/policy/approval -> pipeline -> tool, and sandbox reached only through the
 * tool model (a WASM tool is built by manifest/). A new folder must be placed here.
 */
const LAYER = {
  // the error base and its codes: below every folder, so every folder (a leaf too) may import it
  errors: -1,
  // leaves: small shared grammars and helpers that import nothing of host/src but errors/
  regex: 0,
  terminal: 0,
  'host-grammar': 0,
  'own-sockets': 0,
  signals: 0,
  'cache-files': 0,
  digest: 0,
  'lazy-undici': 0,
  'lazy-yaml': 0,
  'shared-state': 0,
  telemetry: 0,
  nursery: 0,
  tool: 1,
  sandbox: 1,
  pipeline: 2,
  manifest: 2,
  plugin: 3,
  approval: 4,
  policy: 4,
  registry: 4,
  server: 5,
  ui: 6,
  cli: 7,
  // the package's entries (package.json "exports"): what an embedder and a policy author import
  public: 8,
} satisfies Record<string, number>;

/**
 * Edges within a layer that are intended (every other same-layer edge fails):
 * - sandbox -> tool: the sandbox speaks the tool model's shared vocabulary (ToolFailure, error codes)
 *   so its failures need no translation; the tool model itself never imports the sandbox.
 * - policy -> approval: the `ask` policies route to the approval service and its channels.
 */
const SIDEWAYS: readonly (readonly [string, string])[] = [
  ['sandbox', 'tool'],
  ['policy', 'approval'],
];

/** Only these folders may import the sandbox: manifest/ builds WASM tools (manifest -> sandbox). */
const SANDBOX_IMPORTERS = new Set(['manifest']);

/**
 * A function has at most this many statement lines (lines on which one of its statements begins):
 * the steps a reader follows, counted the same before and after the formatter wraps a long call over
 * several lines, so neither a long line nor a wrapped one changes it. One that grows past this is
 * split along its seams.
 */
const MAX_STATEMENT_LINES = 45;

/**
 * Functions allowed past MAX_STATEMENT_LINES, as `file name`, each with why splitting would make it
 * worse. Keep it short: an entry that is no longer over the limit fails the test too.
 */
const LONG_FUNCTIONS_ALLOWED: ReadonlyMap<string, string> = new Map([
  // One switch over opcodes sharing the copy cursor and the open fuel regions: a case moved out
  // would take and hand back all three, and the instruction walk would no longer read in one place.
  ['sandbox/module/code.ts walk', 'a table of opcode cases over shared cursor state'],
]);

const graph = importGraph();
const top = (file: string): string => file.split('/')[0] ?? file;
const show = (e: Edge): string => `${e.from} -> ${e.to}`;

describe('architecture (architecture.md §2)', () => {
  it('there are no import cycles between files of host/src', () => {
    expect(cycles(graph.edges).map((c) => c.join(', '))).toEqual([]);
  });

  it('every import resolves to a file of host/src', () => {
    const files = new Set(graph.files);
    expect(graph.edges.filter((e) => !files.has(e.to)).map(show)).toEqual([]);
  });

  it('a folder is entered only through its index.ts, from outside it', () => {
    const skips = graph.edges.filter((e) => {
      // every folder that holds the target but not the importer must be entered at its own index.ts
      for (let dir = dirname(e.to); dir !== '.'; dir = dirname(dir)) {
        const inside = e.from.startsWith(`${dir}/`);
        if (!inside && existsSync(join(SRC, dir, 'index.ts')) && e.to !== `${dir}/index.ts`) return true;
      }
      return false;
    });
    expect(skips.map(show)).toEqual([]);
  });

  it('every top-level folder has its index.ts and a place in the layer table', () => {
    const folders = new Set(graph.files.filter((f) => f.includes('/')).map(top));
    expect([...folders].filter((f) => !(f in LAYER)).map((f) => `${f}: add it to LAYER`)).toEqual([]);
    expect([...folders].filter((f) => !existsSync(join(SRC, f, 'index.ts')))).toEqual([]);
  });

  it('dependencies point down the layers; the only sideways edges are the documented ones', () => {
    const layer = LAYER as Record<string, number>;
    const against = graph.edges.filter((e) => {
      const [a, b] = [top(e.from), top(e.to)];
      if (a === b || !(a in layer) || !(b in layer)) return false;
      if (layer[a]! > layer[b]!) return false;
      return !SIDEWAYS.some(([x, y]) => x === a && y === b);
    });
    expect(against.map(show)).toEqual([]);
  });

  it('the sandbox is reached only through the tool model (manifest/)', () => {
    const reaching = graph.edges.filter(
      (e) => top(e.to) === 'sandbox' && top(e.from) !== 'sandbox' && !SANDBOX_IMPORTERS.has(top(e.from)),
    );
    expect(reaching.map(show)).toEqual([]);
  });

  it(`no function of host/src has more than ${MAX_STATEMENT_LINES} statement lines (split it along its seams)`, () => {
    const all = hostFunctionLengths();
    const long = all.filter((f) => f.statementLines > MAX_STATEMENT_LINES);
    const offenders = long.filter((f) => !LONG_FUNCTIONS_ALLOWED.has(`${f.file} ${f.name}`));
    expect(offenders.map((f) => `${f.file}:${f.line} ${f.name} has ${f.statementLines} statement lines`)).toEqual([]);
    const stale = [...LONG_FUNCTIONS_ALLOWED.keys()].filter((key) => !long.some((f) => `${f.file} ${f.name}` === key));
    expect(
      stale.map(
        (key) => `${key}: no longer over ${MAX_STATEMENT_LINES} statement lines, drop it from LONG_FUNCTIONS_ALLOWED`,
      ),
    ).toEqual([]);
  });

  it('the length checker measures functions, methods and arrows by the names a reader uses', () => {
    const body = (n: number): string => Array.from({ length: n - 2 }, (_, i) => `  x(${i});`).join('\n');
    const source = [
      `export async function long(): Promise<void> {\n${body(61)}\n}`,
      `class Registry {\n  async patch(): Promise<void> {\n${body(62)}\n  }\n}`,
      `export const serve = {\n  run: async () => {\n${body(63)}\n  },\n};`,
      `const short = () => {\n${body(60)}\n};`,
    ].join('\n');
    expect(functionLengths('x.ts', source).map((f) => `${f.name} ${f.lines} ${f.statementLines}`)).toEqual([
      'long 61 59',
      'Registry.patch 62 60',
      'serve.run 63 61',
      'short 60 58',
    ]);
    expect(hostFunctionLengths().some((f) => f.file === 'cli/main.ts')).toBe(true);
  });

  it('a statement wrapped over several lines counts once, and a nested function counts in its parent', () => {
    const oneLine = 'function f(): void {\n  call(a, b, c);\n  const g = () => {\n    inner();\n  };\n}';
    const wrapped =
      'function f(): void {\n  call(\n    a,\n    b,\n    c,\n  );\n  const g = () => {\n    inner();\n  };\n}';
    const [one, many] = [functionLengths('x.ts', oneLine)[0]!, functionLengths('x.ts', wrapped)[0]!];
    expect([one.statementLines, many.statementLines]).toEqual([3, 3]);
    expect(many.lines).toBeGreaterThan(one.lines);
  });

  it('the checker sees the imports it checks (it reads a known door and a known cycle-free edge)', () => {
    expect(graph.edges.some((e) => e.from === 'cli/main.ts')).toBe(true);
    expect(graph.edges.some((e) => e.from.startsWith('sandbox/') && e.to === 'tool/index.ts')).toBe(true);
    expect(
      cycles([
        { from: 'a.ts', to: 'b.ts', typeOnly: false },
        { from: 'b.ts', to: 'a.ts', typeOnly: true },
      ]),
    ).toEqual([['a.ts', 'b.ts']]);
  });
});
