// `schema --format openai|openai-responses|anthropic [--strict]` must be what those APIs take:
// the output is type-checked against the tool types of the official `openai` and
// `@anthropic-ai/sdk` packages, and --strict output is checked against OpenAI's strict rules.
import { mkdtempSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MANIFESTS, ROOT, removeDir, requireBuilt, tg } from './helpers.js';

let dir = '';
beforeAll(() => {
  requireBuilt();
  dir = mkdtempSync(join(tmpdir(), 'tg-schema-types-'));
  symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'));
});
afterAll(() => removeDir(dir));

/** The example tools in `format` (every shipped manifest, the built-in echo too). */
async function schema(format: string, strict = false): Promise<string> {
  const r = await tg([
    'schema',
    '--format',
    format,
    ...(strict ? ['--strict'] : []),
    '--manifests',
    MANIFESTS,
    '--builtin-tools',
    '--policies',
    'none',
  ]);
  expect(r.code, r.stderr).toBe(0);
  return r.stdout;
}

// `satisfies` must follow the value on the same line: the JSON is trimmed of its final newline.
/** Type errors of `source` compiled against the installed SDK packages (none = it type-checks). */
function typeErrors(source: string): string[] {
  const file = join(dir, `check-${Math.random().toString(36).slice(2)}.ts`);
  writeFileSync(file, source);
  const program = ts.createProgram([file], {
    strict: true,
    noEmit: true,
    skipLibCheck: true,
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    types: [],
  });
  return ts.getPreEmitDiagnostics(program).map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n'));
}

const IMPORTS = `
import type { ChatCompletionFunctionTool } from 'openai/resources/chat/completions';
import type { FunctionTool } from 'openai/resources/responses/responses';
import type { Tool } from '@anthropic-ai/sdk/resources/messages';
`;

type Schema = { [key: string]: unknown };

/** Every rule of OpenAI's strict mode that the output must meet, checked at every depth. */
function strictProblems(node: unknown, path: string): string[] {
  if (Array.isArray(node)) return node.flatMap((n, i) => strictProblems(n, `${path}[${i}]`));
  if (typeof node !== 'object' || node === null) return [];
  const s = node as Schema;
  const out: string[] = [];
  if ('default' in s) out.push(`${path}: default`);
  if (s['type'] === 'object' || 'properties' in s) {
    const props = Object.keys((s['properties'] as Schema | undefined) ?? {});
    if (s['additionalProperties'] !== false) out.push(`${path}: additionalProperties is not false`);
    const required = (s['required'] as string[] | undefined) ?? [];
    for (const p of props) if (!required.includes(p)) out.push(`${path}.${p}: not required`);
  }
  for (const [k, v] of Object.entries(s))
    if (k !== 'enum' && k !== 'const') out.push(...strictProblems(v, `${path}.${k}`));
  return out;
}

describe('schema formats against the SDK types', () => {
  it('openai, openai-responses (plain and --strict) and anthropic output type-check against the openai and @anthropic-ai/sdk tool types', {
    timeout: 120_000,
  }, async () => {
    const source = `${IMPORTS}
export const chat = ${(await schema('openai')).trim()} satisfies ChatCompletionFunctionTool[];
export const chatStrict = ${(await schema('openai', true)).trim()} satisfies ChatCompletionFunctionTool[];
export const responses = ${(await schema('openai-responses')).trim()} satisfies FunctionTool[];
export const responsesStrict = ${(await schema('openai-responses', true)).trim()} satisfies FunctionTool[];
export const anthropic = ${(await schema('anthropic')).trim()} satisfies Tool[];
`;
    expect(typeErrors(source)).toEqual([]);
  });

  it('the type check fails on a shape the API does not take (so it proves something)', () => {
    const wrong = `${IMPORTS}
export const a = [{ "type": "function", "function": { "name": "x" } }] satisfies FunctionTool[];
export const b = [{ "name": "x", "description": "d" }] satisfies Tool[];
`;
    const errors = typeErrors(wrong).join('\n');
    expect(errors).toMatch(/'"function"' does not exist in type 'FunctionTool'/);
    expect(errors).toMatch(/input_schema/);
  });

  it("--strict makes every example tool meet OpenAI's strict rules: closed objects, every property required, optional ones nullable, no default", async () => {
    const plain = JSON.parse(await schema('openai-responses')) as {
      name: string;
      parameters: Schema;
      strict: boolean;
    }[];
    const strict = JSON.parse(await schema('openai-responses', true)) as {
      name: string;
      parameters: Schema;
      strict: boolean;
    }[];
    // Without --strict most examples break the rules, and the output says strict: false.
    expect(plain.filter((t) => strictProblems(t.parameters, t.name).length > 0).length).toBeGreaterThan(3);
    expect(plain.every((t) => !t.strict)).toBe(true);
    for (const t of strict) {
      expect(t.strict).toBe(true);
      expect(strictProblems(t.parameters, t.name)).toEqual([]);
    }
    // An optional property keeps its type and admits null; a required one does not.
    const before = plain.find(
      (t) =>
        Array.isArray(t.parameters['required']) &&
        Object.keys(t.parameters['properties'] as Schema).length > (t.parameters['required'] as string[]).length,
    );
    expect(before).toBeDefined();
    const after = strict.find((t) => t.name === before?.name);
    const required = new Set(before?.parameters['required'] as string[]);
    for (const [name, prop] of Object.entries(after?.parameters['properties'] as Record<string, Schema>)) {
      const types = prop['type'] ?? (prop['anyOf'] as Schema[] | undefined)?.map((s) => s['type']);
      if (required.has(name)) expect(JSON.stringify(types), name).not.toContain('null');
      else expect(JSON.stringify(types), name).toContain('null');
    }
  });

  it('a call shaped by --strict (null for each optional argument it leaves out) runs as if they were omitted', async () => {
    const strict = JSON.parse(await schema('openai-responses', true)) as { name: string; parameters: Schema }[];
    const hash = strict.find((t) => t.name === 'hash');
    const optional = Object.keys(hash?.parameters['properties'] as Schema).filter((p) => p !== 'text');
    expect(optional.length).toBeGreaterThan(0);
    const args = Object.fromEntries([['text', 'abc'], ...optional.map((p) => [p, null])]);
    const r = await tg([
      'call',
      'hash',
      '--args',
      JSON.stringify(args),
      '--manifests',
      MANIFESTS,
      '--policies',
      'none',
      '--json',
    ]);
    expect(r.code, r.stderr).toBe(0);
    // the defaults apply: SHA-256 in hex
    expect(r.stdout).toContain('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
  });

  it('--strict with a format that has no strict mode is a usage error (exit 2)', async () => {
    const r = await tg(['schema', '--format', 'anthropic', '--strict', '--manifests', MANIFESTS, '--policies', 'none']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--strict: only for --format openai or openai-responses');
  });
});
