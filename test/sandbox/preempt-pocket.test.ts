// A loop head charges a local of its own function, the pocket, which borrows from the fuel global a
// few hundred units at a time (module/preempt.ts; docs/decisions.md, "The fuel of a loop lives in a
// local"): a hot loop then keeps its fuel in a register instead of a load, a subtraction and a store
// through memory on every round. These tests read the instrumented code with wabt's wasm2wat and
// run it with a check that counts.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { PREEMPT_CHECK, PREEMPT_NAMESPACE } from '../../host/src/sandbox/module/host-imports.js';
import { prepareModule } from '../../host/src/sandbox/module/prepare.js';
import { fixture } from './core-helpers.js';

/** What a loop head borrows at a time (POCKET in module/preempt.ts). */
const POCKET = 256;
/** V8's limit on a function's parameters and locals together. */
const V8_MAX_LOCALS = 50_000;

const dir = mkdtempSync(join(tmpdir(), 'tg-pocket-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function instrument(wasm: Uint8Array): Uint8Array {
  const prepared = prepareModule(wasm, { tool: 'pocket', maxPages: 1, wasiImportNames: [], preempt: true });
  expect(prepared.preemptible).toBe(true);
  return prepared.bytes;
}

let files = 0;
function wat2wasm(text: string): Uint8Array {
  const wat = join(dir, `m${++files}.wat`);
  writeFileSync(wat, text);
  return new Uint8Array(execFileSync('/usr/bin/wat2wasm', [wat, '--output=-']));
}

/** The instrumented code as text, one function per entry (index 0 is the first defined function). */
function disassemble(bytes: Uint8Array): string[] {
  const file = join(dir, `d${++files}.wasm`);
  writeFileSync(file, bytes);
  const text = execFileSync('/usr/bin/wasm2wat', [file], { maxBuffer: 64 * 1024 * 1024 }).toString();
  return text.split(/\n {2}\(func /).slice(1);
}

/** The instructions of a function from its first `loop` up to the `if` that follows it. */
function loopHead(func: string): string[] {
  const lines = func.split('\n').map((l) => l.trim().replace(/\s+;;.*$/, ''));
  const start = lines.indexOf('loop');
  expect(start).toBeGreaterThan(0);
  return lines.slice(start + 1, lines.indexOf('if', start));
}

/** The declared local count of a disassembled function, parameters not included. */
function declaredLocals(func: string): number {
  const locals = /\(local ([^)]*)\)/.exec(func)?.[1];
  return locals === undefined ? 0 : locals.trim().split(/\s+/).length;
}

/** Runs an export with a check that refills `refill` and throws on its `limit`-th call. */
function run(bytes: Uint8Array, name: string, args: number[], refill: number, limit = Infinity) {
  let checks = 0;
  const instance = new WebAssembly.Instance(new WebAssembly.Module(bytes), {
    [PREEMPT_NAMESPACE]: {
      [PREEMPT_CHECK]: () => {
        if (++checks >= limit) throw new Error('preempted');
        return refill;
      },
    },
  });
  try {
    (instance.exports[name] as (...a: number[]) => number)(...args);
    return { checks, error: undefined };
  } catch (error) {
    return { checks, error };
  }
}

describe('a loop head charges a local of its own function (the pocket)', () => {
  const bytes = instrument(fixture('preempt_pocket'));
  const [count] = disassemble(bytes);

  it('a round that does not borrow reads and writes only the pocket, no global', () => {
    // count has one parameter and one local: the pocket is local 2
    expect(declaredLocals(count as string)).toBe(2);
    const head = loopHead(count as string);
    expect(head).toHaveLength(6);
    expect(head.join(' ')).toMatch(/^local\.get 2 i32\.const \d+ i32\.sub local\.tee 2 i32\.const 0 i32\.lt_s$/);
    expect(head.some((l) => l.startsWith('global.'))).toBe(false);
  });

  it('an empty pocket borrows from the fuel global and reaches the check through it', () => {
    const lines = (count as string).split('\n').map((l) => l.trim().replace(/\s+;;.*$/, ''));
    const borrow = lines.slice(lines.indexOf('if', lines.indexOf('loop')) + 1);
    expect(borrow.slice(0, 4)).toEqual(['global.get 0', `i32.const ${POCKET}`, 'i32.sub', 'global.set 0']);
    expect(borrow).toContain('call 0');
  });

  it('between two checks a loop runs at least the refill and at most the refill and one borrow', () => {
    const cost = Number(/i32\.const (\d+)/.exec(loopHead(count as string).join(' '))?.[1]);
    const rounds = 100_000;
    const refill = 1000;
    const work = rounds * cost;
    const { checks, error } = run(bytes, 'count', [rounds], refill);
    expect(error).toBeUndefined();
    expect(checks).toBeGreaterThanOrEqual(Math.floor(work / (refill + POCKET)));
    expect(checks).toBeLessThanOrEqual(Math.ceil(work / refill) + 1);
  });

  it('fuel a function borrowed and did not spend stays charged: the check comes sooner, never later', () => {
    // 1000 calls of count(1): each borrows a pocket for two rounds of ~10 units and returns the rest
    const refill = 1000;
    const { checks, error } = run(bytes, 'many_short', [1000], refill);
    expect(error).toBeUndefined();
    expect(checks).toBeGreaterThanOrEqual(Math.floor((1000 * POCKET) / (refill + POCKET)));
  });

  it('an endless loop charged through its pocket calls the check until it stops the call', () => {
    const { checks, error } = run(bytes, 'spin', [], 1000, 50);
    expect(checks).toBe(50);
    expect((error as Error).message).toBe('preempted');
  });
});

describe("a function at V8's limit of locals", () => {
  /** A function with one parameter and `locals` i32 locals whose loop never ends. */
  const spinner = (locals: number): Uint8Array =>
    wat2wasm(`(module (func (export "spin") (param i32) (local${' i32'.repeat(locals)}) (loop $l (br $l))))`);

  it('with no room for one more local keeps its loop heads on the fuel global, compiles and reaches the check', () => {
    const bytes = instrument(spinner(V8_MAX_LOCALS - 1));
    const [func] = disassemble(bytes);
    expect(declaredLocals(func as string)).toBe(V8_MAX_LOCALS - 1);
    expect(loopHead(func as string)[0]).toBe('global.get 0');
    const { checks, error } = run(bytes, 'spin', [0], 1000, 5);
    expect(checks).toBe(5);
    expect((error as Error).message).toBe('preempted');
  });

  it('with room for exactly one more gets its pocket, and V8 still compiles it', () => {
    const bytes = instrument(spinner(V8_MAX_LOCALS - 2));
    const [func] = disassemble(bytes);
    expect(declaredLocals(func as string)).toBe(V8_MAX_LOCALS - 1);
    expect(loopHead(func as string)[0]).toBe(`local.get ${V8_MAX_LOCALS - 1}`);
    const { checks, error } = run(bytes, 'spin', [0], 1000, 5);
    expect(checks).toBe(5);
    expect((error as Error).message).toBe('preempted');
  });
});
