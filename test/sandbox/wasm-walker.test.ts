// The instruction walker built as WebAssembly (host/walker/walker.ts, module/wasm-walker.ts) must be
// the JavaScript walker (module/code.ts, preempt.ts) run faster: the same bytes for every module we
// build and the JS engine's 12 MB core module, and the same refusal (class and message) for every
// broken one. The fuzz rounds are seeded and bounded; any disagreement names the seed and round.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { toolModuleOf } from '../../host/src/sandbox/module/component.js';
import { BinaryReader, concatBytes, encodeU32 } from '../../host/src/sandbox/module/leb128.js';
import { instrumentPreemption, type CodeWalker } from '../../host/src/sandbox/module/preempt.js';
import { joinSections, SECTION, splitSections, type Section } from '../../host/src/sandbox/module/sections.js';
import { readFuncTypes, readTypes } from '../../host/src/sandbox/module/shape.js';
import {
  rewriteCodeInWasm,
  wasmWalkerAvailable,
  type CodeSectionRules,
} from '../../host/src/sandbox/module/wasm-walker.js';
import { corpusModules, ROOT } from './preempt-helpers.js';

/** The instrumented module (base64, so large ones compare quickly), or how it was refused. */
type Walked = { bytes: string } | { refused: string; message: string };

/** Imported functions and globals, from the import section (what prepare.ts passes as the shape). */
function shapeOf(sections: Section[]): { importedFuncs: number; importedGlobals: number } {
  const s = sections.find((x) => x.id === SECTION.import);
  const shape = { importedFuncs: 0, importedGlobals: 0 };
  if (!s) return shape;
  const r = new BinaryReader(s.body);
  const limits = (): void => {
    const flags = r.byte();
    r.u64();
    if (flags & 1) r.u64();
  };
  for (let n = r.u32(); n > 0; n--) {
    r.name();
    r.name();
    const kind = r.byte();
    if (kind === 0) shape.importedFuncs++, r.u32();
    else if (kind === 1) r.byte() >= 0x63 && r.u32(), limits();
    else if (kind === 2) limits();
    else if (kind === 3) shape.importedGlobals++, r.byte() >= 0x63 && r.u32(), r.byte();
    else r.take(2);
  }
  return shape;
}

/** The module instrumented by one walker, or how it was refused. */
function instrumentWith(bytes: Uint8Array, walker: CodeWalker): Walked {
  const sections = splitSections(bytes);
  try {
    instrumentPreemption(sections, shapeOf(splitSections(bytes)), walker);
    return { bytes: Buffer.from(joinSections(sections)).toString('base64') };
  } catch (err) {
    return { refused: (err as Error).constructor.name, message: (err as Error).message };
  }
}

const vectorCount = (s: Section | undefined): number => (s ? new BinaryReader(s.body).u32() : 0);

/** The code section and the rules preempt.ts gives the walker for it. */
function codeSectionOf(bytes: Uint8Array): { code: Uint8Array; rules: CodeSectionRules } {
  const sections = splitSections(bytes);
  const find = (id: number): Section | undefined => sections.find((s) => s.id === id);
  const shape = shapeOf(sections);
  const types = readTypes(find(SECTION.type));
  return {
    code: (find(SECTION.code) as Section).body,
    rules: {
      importedFuncs: shape.importedFuncs,
      definedFuncs: vectorCount(find(SECTION.function)),
      globalCount: shape.importedGlobals + vectorCount(find(SECTION.global)),
      params: readFuncTypes(find(SECTION.function)).map((t) => types[t]?.params.length ?? 0),
    },
  };
}

/** Core modules only: a component (the JS tools) has its core module instrumented, tested below. */
const isCore = (file: string): boolean => readFileSync(file).readUInt32LE(4) === 1;
const corpus = corpusModules().filter(isCore);
const jsCore = (): Uint8Array =>
  toolModuleOf(readFileSync(join(ROOT, 'pdk-examples/js/build/summarise.wasm')), 'summarise');

/** A small seeded generator (xorshift32): the same rounds on every run. */
function random(seed: number): (n: number) => number {
  let x = seed >>> 0 || 1;
  return (n) => {
    x ^= x << 13;
    x >>>= 0;
    x ^= x >>> 17;
    x ^= x << 5;
    x >>>= 0;
    return x % n;
  };
}

/** A module's code section replaced by `code` (the other sections as they were). */
function withCode(bytes: Uint8Array, code: Uint8Array): Uint8Array {
  const sections = splitSections(bytes);
  (sections.find((s) => s.id === SECTION.code) as Section).body = code;
  return joinSections(sections);
}

/** One function of type 0 with `body` (locals + code), in a module whose type 0 takes no parameters. */
function oneFunction(body: number[]): Uint8Array {
  const section = (id: number, content: number[]): number[] => [id, ...encodeU32(content.length), ...content];
  return Uint8Array.from([
    0x00,
    0x61,
    0x73,
    0x6d,
    1,
    0,
    0,
    0,
    ...section(1, [1, 0x60, 0, 0]),
    ...section(3, [1, 0]),
    ...section(6, [1, 0x7f, 1, 0x41, 0, 0x0b]),
    ...section(10, [1, ...encodeU32(body.length), ...body]),
  ]);
}

const agree = (bytes: Uint8Array, label: string): Walked => {
  const js = instrumentWith(bytes, 'js');
  expect(instrumentWith(bytes, 'wasm'), label).toEqual(js);
  return js;
};

describe('the instruction walker as WebAssembly: the JavaScript walker, byte for byte', () => {
  it('is built and loads (without it every other test here would compare the JavaScript walker with itself)', () => {
    expect(wasmWalkerAvailable()).toBe(true);
  });

  it('rewrites the code section of every module of pdk-examples and test/fixtures to the same bytes', () => {
    expect(corpus.length).toBeGreaterThan(40);
    let walked = 0;
    for (const file of corpus) {
      const bytes = new Uint8Array(readFileSync(file));
      const js = agree(bytes, file);
      const sections = splitSections(bytes);
      if (!('bytes' in js) || !sections.some((s) => s.id === SECTION.code)) continue;
      const { code, rules } = codeSectionOf(bytes);
      const inWasm = rewriteCodeInWasm(code, rules);
      expect('code' in inWasm, file).toBe(true);
      const jsCode = splitSections(Buffer.from(js.bytes, 'base64')).find((s) => s.id === SECTION.code) as Section;
      if ('code' in inWasm) expect(Buffer.from(inWasm.code).equals(Buffer.from(jsCode.body)), file).toBe(true);
      walked++;
    }
    expect(walked).toBeGreaterThan(40);
  });

  it("rewrites the JS engine's 12 MB core module to the same bytes", () => {
    const core = jsCore();
    expect(core.length).toBeGreaterThan(10_000_000);
    const js = instrumentWith(core, 'js');
    expect('bytes' in js).toBe(true);
    const { code, rules } = codeSectionOf(core);
    const inWasm = rewriteCodeInWasm(code, rules);
    if (!('code' in inWasm)) throw new Error(inWasm.unavailable);
    const jsCode = splitSections(Buffer.from((js as { bytes: string }).bytes, 'base64')).find(
      (s) => s.id === SECTION.code,
    ) as Section;
    expect(Buffer.from(inWasm.code).equals(Buffer.from(jsCode.body))).toBe(true);
  });

  it('refuses a truncated code section, at every cut of a small module, as the JavaScript walker does', () => {
    const bytes = new Uint8Array(readFileSync(join(ROOT, 'test/fixtures/build/hostile_bulk.wasm')));
    const { code } = codeSectionOf(bytes);
    let refused = 0;
    for (let cut = 0; cut < code.length; cut++) {
      const walked = agree(withCode(bytes, code.subarray(0, cut)), `cut at ${cut}`);
      if ('refused' in walked) refused++;
    }
    expect(refused).toBeGreaterThan(code.length / 2);
  });

  it('agrees on 3000 seeded mutants (flipped, inserted and deleted bytes) of the code of five modules', () => {
    const files = ['hostile_bulk', 'preempt_pocket', 'hostile_heavy_loop', 'server_spin', 'compat_echo'].map((f) =>
      join(ROOT, `test/fixtures/build/${f}.wasm`),
    );
    files.push(join(ROOT, 'pdk-examples/wat/build/greet.wasm'));
    const next = random(27);
    const outcomes = { same: 0, refused: 0 };
    for (let round = 0; round < 3000; round++) {
      const bytes = new Uint8Array(readFileSync(files[round % files.length] as string));
      const code = [...codeSectionOf(bytes).code];
      for (let edits = 1 + next(4); edits > 0; edits--) {
        const at = next(code.length);
        const kind = next(3);
        if (kind === 0) code[at] = next(256);
        else if (kind === 1) code.splice(at, 0, next(256));
        else code.splice(at, 1);
      }
      const walked = agree(withCode(bytes, Uint8Array.from(code)), `seed 27, round ${round}`);
      if ('refused' in walked) outcomes.refused++;
      else outcomes.same++;
    }
    // both kinds must have happened, or the mutants did not test what they claim
    expect(outcomes.refused).toBeGreaterThan(100);
    expect(outcomes.same).toBeGreaterThan(100);
  });

  it('agrees on random LEB128 immediates: overlong, over 32 bits, cut short, at every opcode that takes one', () => {
    const next = random(1027);
    const leb = (): number[] => {
      const n = 1 + next(12);
      return Array.from({ length: n }, (_, i) => (i < n - 1 || next(4) === 0 ? 0x80 : 0) | next(128));
    };
    const ops = [0x0c, 0x10, 0x12, 0x20, 0x23, 0x24, 0x28, 0x41, 0x42, 0xd0, 0xd2, 0xfc, 0xfd, 0xfe, 0x0e, 0x1c, 0x02];
    let refused = 0;
    for (let round = 0; round < 3000; round++) {
      const op = ops[round % ops.length] as number;
      const body = [0, 0x02, 0x40, op, ...leb(), ...leb(), ...leb(), 0x0b, 0x0b];
      const walked = agree(oneFunction(body), `op 0x${op.toString(16)}, round ${round}`);
      if ('refused' in walked) refused++;
    }
    expect(refused).toBeGreaterThan(300);
    expect(refused).toBeLessThan(3000);
  });

  it('agrees on deep nesting: 100000 blocks and loops inside one another, closed or left open', () => {
    for (const open of [0x02, 0x03]) {
      const depth = 100_000;
      const body = [0, ...Array(depth).fill([open, 0x40]).flat(), ...Array(depth).fill(0x0b), 0x0b];
      const walked = agree(oneFunction(body), `nested 0x${open.toString(16)}`);
      expect('bytes' in walked).toBe(true);
      expect('refused' in agree(oneFunction(body.slice(0, -2)), 'left open')).toBe(true);
    }
  });

  it('agrees on bodies made of edits only: a moved call or a charged bulk instruction at every other byte', () => {
    for (const edit of [
      [0x10, 0x00],
      [0xfc, 0x0b, 0x00],
      [0x03, 0x40, 0x10, 0x00, 0x0b],
    ]) {
      const body = [0, ...Array(100_000).fill(edit).flat(), 0x0b];
      expect('bytes' in agree(oneFunction(body), edit.join(','))).toBe(true);
    }
  });

  it('refuses huge counts (locals, br_table targets, bodies) without reading past the module', () => {
    const huge = [0xff, 0xff, 0xff, 0xff, 0x0f];
    const cases = [
      [...huge, 1, 0x7f, 0x0b],
      [0, 0x0e, ...huge, 0, 0x0b],
      [0, 0x1c, ...huge, 0x7f, 0x0b],
    ];
    for (const body of cases) {
      const walked = agree(oneFunction(body), body.join(','));
      expect(walked).toMatchObject({ refused: 'Error', message: expect.stringMatching(/unexpected end of data/) });
    }
    const manyBodies = concatBytes([huge, [2, 0, 0x0b, 2, 0, 0x0b]]);
    expect(agree(withCode(oneFunction([0, 0x0b]), manyBodies), 'bodies')).toMatchObject({
      message: 'more function bodies than functions',
    });
  });

  it('names an unknown instruction as the JavaScript walker does (UnknownInstruction, same message)', () => {
    for (const body of [
      [0, 0xff, 0x0b],
      [0, 0xfc, 0x7f, 0x0b],
      [0, 0xfd, 0xff, 0x03, 0x0b],
      [0, 0xfe, 0x05, 0x0b],
    ]) {
      const walked = agree(oneFunction(body), body.join(','));
      expect(walked).toMatchObject({ refused: 'UnknownInstruction' });
    }
  });

  it('hands a section too big for its memory maximum back to the JavaScript walker with a reason', () => {
    const { code, rules } = codeSectionOf(
      new Uint8Array(readFileSync(join(ROOT, 'pdk-examples/rust/build/convert_units.wasm'))),
    );
    const walked = rewriteCodeInWasm(code, rules, 4);
    expect(walked).toEqual({
      unavailable: expect.stringMatching(/needs \d+ pages of the instruction walker's memory, over its 4/),
    });
    // the output outgrowing the maximum is handed back too: loops at every other byte grow it most
    const loops = oneFunction([0, ...Array(30_000).fill([0x03, 0x40]).flat(), ...Array(30_001).fill(0x0b)]);
    const section = codeSectionOf(loops);
    const pages = Math.ceil((section.code.length * 10 + 200_000) / 65536);
    expect(rewriteCodeInWasm(section.code, section.rules, pages)).toEqual({
      unavailable: expect.stringMatching(/outgrew the instruction walker's \d+ pages/),
    });
    // and instrumenting such a module still gives the JavaScript walker's bytes
    expect('bytes' in agree(loops, 'loops')).toBe(true);
  });
});
