// The instruction walkers' refusals are one table (host/src/sandbox/module/refusals.ts): the
// AssemblyScript walker (host/walker/walker.ts) names its refusal codes with the numbers the table
// gives them, and no other host file writes a refusal's words again.
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { WALKER_OUT_OF_MEMORY, WALKER_REFUSALS } from '../../host/src/sandbox/module/refusals.js';
import { ROOT } from './preempt-helpers.js';

const WALKER = readFileSync(join(ROOT, 'host/walker/walker.ts'), 'utf8');

/** The `const NAME = N;` lines of walker.ts's refusal block (from its "Refusals" comment to the first blank line). */
function walkerCodes(): Map<string, number> {
  const block = WALKER.slice(WALKER.indexOf('// Refusals')).split('\n\n')[0] ?? '';
  const codes = new Map<string, number>();
  for (const m of block.matchAll(/^const ([A-Z0-9_]+) = (\d+);/gm)) codes.set(m[1] as string, Number(m[2]));
  return codes;
}

function* hostFiles(dir: string): Generator<string> {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) yield* hostFiles(path);
    else if (path.endsWith('.ts')) yield path;
  }
}

describe('the WebAssembly walker and the table name the same refusals with the same numbers', () => {
  const codes = walkerCodes();

  it('the checker reads walker.ts (it finds the first and the last code)', () => {
    expect(codes.get('END_OF_DATA')).toBe(1);
    expect(codes.get('OUT_OF_MEMORY')).toBe(WALKER_OUT_OF_MEMORY);
  });

  it('every code walker.ts declares is in the table under its name, and the table has no other', () => {
    const declared = [...codes].filter(([name]) => name !== 'OUT_OF_MEMORY').map(([name, code]) => `${code} ${name}`);
    const table = [...WALKER_REFUSALS].map(([code, r]) => `${code} ${r.name}`);
    expect(declared.sort()).toEqual(table.sort());
  });

  it('walker.ts fails only with a declared name, never a bare number', () => {
    // every call of fail(), not its declaration `fail(code: i32, ...)`
    const failures = [...WALKER.matchAll(/\bfail\(([^,:]+),/g)].map((m) => (m[1] as string).trim());
    expect(failures.length).toBeGreaterThan(10);
    expect(failures.filter((f) => !codes.has(f))).toEqual([]);
  });
});

/**
 * A refusal's message as a pattern over source text: its words as they are, each number a `${...}`
 * (or a literal, after an optional 0x), and a quote where the message starts or ends in words.
 */
function sourcePattern(message: string): RegExp {
  const number = String.raw`(?:0x)?(?:\$\{[^}]*\}|[0-9a-f]+)`;
  const parts = message.split(/(0x[0-9a-f]+|\d+)/).filter((p) => p !== '');
  const isNumber = (p: string): boolean => /^(0x[0-9a-f]+|\d+)$/.test(p);
  const body = parts.map((p) => (isNumber(p) ? number : p.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))).join('');
  const open = isNumber(parts[0] as string) ? '' : '[`\'"]';
  const close = isNumber(parts[parts.length - 1] as string) ? '' : '[`\'"]';
  return new RegExp(open + body + close);
}

describe("a refusal's message is written once, in refusals.ts", () => {
  const patterns = [...WALKER_REFUSALS.values()].map((r) => sourcePattern(r.error(123457, 765431).message));

  it('the patterns find a message however its numbers are written', () => {
    const [endOfData] = patterns;
    expect(endOfData?.test(`throw new Error(\`unexpected end of data at byte \${this.pos}\`);`)).toBe(true);
    expect(patterns.some((p) => p.test("new Error('delegate outside a try')"))).toBe(true);
    expect(patterns.some((p) => p.test(`\`unknown instruction 0xfc \${op}\``))).toBe(true);
    expect(patterns.some((p) => p.test('a global or function that does not exist'))).toBe(false);
  });

  it('no host file but refusals.ts writes one', () => {
    const offenders: string[] = [];
    for (const file of hostFiles(join(ROOT, 'host'))) {
      if (file.endsWith('sandbox/module/refusals.ts')) continue;
      const text = readFileSync(file, 'utf8');
      for (const p of patterns) if (p.test(text)) offenders.push(`${relative(ROOT, file)}: ${p.source}`);
    }
    expect(offenders).toEqual([]);
  });
});
