// The instruction walker (module/code.ts) reads the common opcodes through a table rather than its
// chain of comparisons (a fresh server instruments as cold code; docs/decisions.md, issue 27). These
// rules pin that the table reads each of those opcodes exactly as the format lays it out: if one
// immediate were read a byte short or long, the walk would lose step with the instruction stream,
// and a loop could escape its fuel site.
import { describe, expect, it } from 'vitest';
import { rewriteBody, type CodeRules } from '../../host/src/sandbox/module/code.js';

const SITE = 0xaa;
/** A recognisable fuel site: the marker byte, then the cost (every cost here is under 128). */
const rules: CodeRules = {
  func: (i) => i,
  globalCount: 4,
  site: (cost) => Uint8Array.of(SITE, cost),
};

const LOCALS = [0x00]; // no local groups
const END = 0x0b;

/** The body's bytes rewritten, for one instruction followed by the body's end. */
const rewritten = (instruction: number[]): number[] => [
  ...rewriteBody(Uint8Array.from([...LOCALS, ...instruction, END]), rules, 0),
];

/** What an untouched body with one instruction becomes: the entry site (two instructions) in front. */
const expected = (instruction: number[]): number[] => [...LOCALS, SITE, 2, ...instruction, END];

const range = (from: number, to: number): number[] => Array.from({ length: to - from + 1 }, (_, i) => from + i);

// u32 immediates at their narrowest and widest legal widths (a 5-byte LEB128 up to 2^32 - 1)
const U32S = [[0x05], [0xff, 0xff, 0xff, 0xff, 0x0f], [0x80, 0x80, 0x80, 0x80, 0x01]];

describe('instruction walker: the opcodes read through its table', () => {
  it('an instruction without immediates is copied as it is and charged one unit', () => {
    const ops = [0x00, 0x01, 0x05, 0x0f, 0x19, 0x1a, 0x1b, 0xd1, 0xd3, 0xd4, ...range(0x45, 0xc4)];
    for (const op of ops) expect(rewritten([op]), `opcode 0x${op.toString(16)}`).toEqual(expected([op]));
  });

  it('an instruction with one u32 immediate is copied with every byte of it, at any legal width', () => {
    const ops = [0x07, 0x08, 0x09, 0x0c, 0x0d, 0x14, 0x15, 0xd5, 0xd6, 0x20, 0x21, 0x22, 0x25, 0x26, 0x3f, 0x40];
    for (const op of ops)
      for (const imm of U32S)
        expect(rewritten([op, ...imm]), `opcode 0x${op.toString(16)}`).toEqual(expected([op, ...imm]));
  });

  it('i32.const, i64.const and ref.null are copied with their signed or heap-type operand, up to ten bytes', () => {
    const i64Minus1 = [0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f];
    for (const instruction of [
      [0x41, 0x7f],
      [0x41, 0x80, 0x80, 0x80, 0x80, 0x78],
      [0x42, ...i64Minus1],
      [0xd0, 0x70],
    ])
      expect(rewritten(instruction)).toEqual(expected(instruction));
  });

  it('a load or store is copied with its memory argument: alignment, a memory index when flagged, a 64-bit offset', () => {
    const memArgs = [
      [0x02, 0x00],
      [0x02, 0x80, 0x80, 0x04],
      [0x42, 0x01, 0x10], // alignment with the multi-memory flag, memory 1, offset 16
      [0x03, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01], // memory64 offset
    ];
    for (const op of range(0x28, 0x3e))
      for (const arg of memArgs)
        expect(rewritten([op, ...arg]), `opcode 0x${op.toString(16)}`).toEqual(expected([op, ...arg]));
  });

  it('a loop of table-read instructions still gets its own fuel site, charged for its own body', () => {
    // loop (empty block type) local.get 0; i32.load; drop; br 0; end, then the body's end
    const loopBody = [0x20, 0x00, 0x28, 0x02, 0x00, 0x1a, 0x0c, 0x00];
    const out = [...rewriteBody(Uint8Array.from([...LOCALS, 0x03, 0x40, ...loopBody, END, END]), rules, 0)];
    // entry region: loop, body end (2); loop region: 4 instructions and the loop's end (5)
    expect(out).toEqual([...LOCALS, SITE, 2, 0x03, 0x40, SITE, 5, ...loopBody, END, END]);
  });

  it('a truncated or over-long immediate is refused, never read past', () => {
    const body = (bytes: number[]): Uint8Array => Uint8Array.from([...LOCALS, ...bytes]);
    expect(() => rewriteBody(body([0x20, 0x80]), rules, 0)).toThrow(/unexpected end of data/);
    expect(() => rewriteBody(body([0x28, 0x02]), rules, 0)).toThrow(/unexpected end of data/);
    expect(() => rewriteBody(body([0x20, 0x80, 0x80, 0x80, 0x80, 0x80, 0x01, END]), rules, 0)).toThrow(
      /longer than 5 bytes/,
    );
    expect(() => rewriteBody(body([0x20, 0xff, 0xff, 0xff, 0xff, 0x1f, END]), rules, 0)).toThrow(/over 32 bits/);
    expect(() => rewriteBody(body([0x6a]), rules, 0)).toThrow(/unexpected end of data/);
  });
});
