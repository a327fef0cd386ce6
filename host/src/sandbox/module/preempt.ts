// Preemption instrumentation (issue 15): the module gets a fuel counter (a new mutable i32 global)
// charged at every function entry and loop head by the instructions that region may run; when it
// drops below zero the module calls the host's check (a new import), which returns fresh fuel or
// throws to stop the call. A loop head charges a local of its function (the pocket), which borrows
// from the fuel a few hundred units at a time, so a hot loop does not go through memory. A loop or
// a recursion therefore reaches the host within a bounded number of instructions, so a call can
// run on the calling thread and still be stopped on time.
// Bulk memory and table instructions are charged by their count, not as one instruction.
// The import is appended after the module's own imports: only defined functions move up by one,
// and every place that names a function (code, elements, globals, start, exports) is renumbered.
import { BinaryReader, concatBytes, encodeI32, encodeName, encodeU32 } from './leb128.js';
import { messageOf } from '../../errors/index.js';
import { BULK_MEMORY_OPS, BULK_TABLE_OPS, rewriteBody, rewriteExpr, type CodeRules } from './code.js';
import { PREEMPT_CHECK, PREEMPT_NAMESPACE } from './host-imports.js';
import { refuse, UnknownInstruction } from './refusals.js';
import { SECTION, insertSection, type Section } from './sections.js';
import { readFuncTypes, readTypes } from './shape.js';
import { rewriteCodeInWasm, type CodeSectionRules } from './wasm-walker.js';

export interface PreemptShape {
  importedFuncs: number;
  importedGlobals: number;
}

/**
 * Which walker rewrites the code section: the WebAssembly one when it is built and the section fits
 * its memory (wasm-walker.ts), else the JavaScript one; 'js' forces the reference (tests, bench).
 */
export type CodeWalker = 'wasm' | 'js';

export interface Preempted {
  /** Function indices below this did not move; the rest moved up by one. */
  importedFuncs: number;
  /** Applies the renumbering to a function index (exports, the status wrapper). */
  func(index: number): number;
}

const I32 = 0x7f;

/** Appends one raw item to a section vector (creating the section when absent). */
function appendItem(sections: Section[], id: number, item: (number | Uint8Array)[]): number {
  let s = sections.find((x) => x.id === id);
  if (!s) {
    s = { id, body: new Uint8Array([0]) };
    insertSection(sections, s);
  }
  const r = new BinaryReader(s.body);
  const count = r.u32();
  s.body = concatBytes([
    encodeU32(count + 1),
    s.body.subarray(r.pos),
    ...item.map((x) => (x instanceof Uint8Array ? x : [x])),
  ]);
  return count;
}

function vectorCount(section: Section | undefined): number {
  return section ? new BinaryReader(section.body).u32() : 0;
}

/** The bytes of one fuel site: charge `cost`, and below zero refill from the host's check. */
function siteBytes(fuel: number, check: number): (cost: number) => Uint8Array {
  const g = encodeU32(fuel);
  const c = encodeU32(check);
  const head = Uint8Array.from([0x23, ...g, 0x41]);
  const tail = Uint8Array.from([0x6b, 0x24, ...g, 0x23, ...g, 0x41, 0, 0x48, 0x04, 0x40, 0x10, ...c, 0x24, ...g, 0x0b]);
  // Built by copying the fixed parts, not by spreading arrays: a module has a site per function and
  // loop, and on a fresh server this runs as cold code on the first call's path.
  return (cost) => {
    const k = encodeI32(cost);
    const out = new Uint8Array(head.length + k.length + tail.length);
    out.set(head);
    for (let i = 0; i < k.length; i++) out[head.length + i] = k[i] as number;
    out.set(tail, head.length + k.length);
    return out;
  };
}

/**
 * What a loop head borrows from the fuel at a time (at least its own cost). The pocket is a local, so
 * V8 keeps it in a register: charging a global at every loop head made a load, a subtraction and a
 * store through memory the loop's longest dependency, which a CPU without fast store-to-load
 * forwarding for that address runs at ~9 cycles an iteration (docs/decisions.md, "The fuel of a
 * loop lives in a local"). Borrowed fuel left in a pocket when its function returns is not given
 * back: the host's check reads the clock, so fuel spent early only calls it sooner.
 */
const POCKET = 256;

/**
 * A loop head's charge: take `cost` from the pocket (local `pocket`); below zero, borrow POCKET (or
 * the cost) from the fuel, through the same site as a function entry.
 */
function pocketBytes(site: (cost: number) => Uint8Array): (pocket: number) => (cost: number) => number[] {
  return (pocket) => {
    const p = encodeU32(pocket);
    return (cost) => {
      const borrow = Math.max(POCKET, cost);
      const refill = [...site(borrow), 0x20, ...p, 0x41, ...encodeI32(borrow), 0x6a, 0x21, ...p];
      return [0x20, ...p, 0x41, ...encodeI32(cost), 0x6b, 0x22, ...p, 0x41, 0, 0x48, 0x04, 0x40, ...refill, 0x0b];
    };
  };
}

/**
 * Units charged per element of a bulk instruction's count, measured against plain instructions on
 * V8 (Node 20): a byte of memory.fill/copy costs well under an instruction, so one unit per 8 bytes
 * is generous; a table entry costs ~250 ns (table.fill of funcref), so 256 units each. A table
 * count is first clamped to 2^22, so the charge (at most 2^30) cannot wrap an i32; either charge
 * is then more than a refill long before one instruction can hold the thread for a slice.
 */
const MEMORY_SHIFT_RIGHT = 3;
const TABLE_SHIFT_LEFT = 8;
const TABLE_CLAMP = 1 << 22;

/**
 * Before a bulk instruction: charge its count to the fuel, refill from the host's check when that
 * drops below zero, and leave the count on the stack as it was. One instruction can thus not do
 * more than a refill's worth of work without the check seeing the clock first.
 */
function bulkBytes(fuel: number, scratch: number, check: number): (op: number) => number[] | undefined {
  const g = encodeU32(fuel);
  const s = encodeU32(scratch);
  const c = encodeU32(check);
  const clamp = encodeI32(TABLE_CLAMP);
  // count -> charge, with the count in the scratch global
  const memoryCost = [0x23, ...s, 0x41, MEMORY_SHIFT_RIGHT, 0x76]; // count >>> 3
  const tableCost = [0x41, ...clamp, 0x23, ...s, 0x23, ...s, 0x41, ...clamp, 0x4b, 0x1b, 0x41, TABLE_SHIFT_LEFT, 0x74]; // min(count, clamp) << 8
  const charge = (cost: number[]): number[] => [
    0x24,
    ...s,
    0x23,
    ...g,
    ...cost,
    0x6b,
    0x24,
    ...g,
    0x23,
    ...g,
    0x41,
    0,
    0x48,
    0x04,
    0x40,
    0x10,
    ...c,
    0x24,
    ...g,
    0x0b,
    0x23,
    ...s,
  ];
  const memory = charge(memoryCost);
  const table = charge(tableCost);
  return (op) => (BULK_MEMORY_OPS.has(op) ? memory : BULK_TABLE_OPS.has(op) ? table : undefined);
}

/**
 * Instruments `sections` in place. Returns undefined when the module has no code (nothing can
 * loop). Throws when an instruction is unknown or names a global or function that does not exist.
 */
export function instrumentPreemption(
  sections: Section[],
  shape: PreemptShape,
  walker: CodeWalker = 'wasm',
): Preempted | undefined {
  const find = (id: number): Section | undefined => sections.find((s) => s.id === id);
  const code = find(SECTION.code);
  if (!code) return undefined;
  const definedFuncs = vectorCount(find(SECTION.function));
  const globalCount = shape.importedGlobals + vectorCount(find(SECTION.global));
  const func = (i: number): number => {
    if (i >= shape.importedFuncs + definedFuncs) throw refuse.noSuchFunction(i);
    return i >= shape.importedFuncs ? i + 1 : i;
  };
  // read everything that may fail before anything changes
  const checkType = vectorCount(find(SECTION.type));
  const check = shape.importedFuncs;
  const fuel = globalCount;
  const scratch = globalCount + 1;
  const site = siteBytes(fuel, check);
  const rules: CodeRules = {
    func,
    globalCount,
    site,
    pocketSite: pocketBytes(site),
    bulk: bulkBytes(fuel, scratch, check),
  };
  const params = paramCounts(sections);
  const newCode = rewriteCode(
    code.body,
    rules,
    { importedFuncs: shape.importedFuncs, definedFuncs, globalCount, params },
    walker,
  );
  const globals = find(SECTION.global);
  const newGlobals = globals && rewriteVector(globals.body, (r) => rewriteGlobal(r, rules));
  const elements = find(SECTION.element);
  const newElements = elements && rewriteVector(elements.body, (r) => rewriteElement(r, rules));
  const start = find(SECTION.start);
  const newStart = start && encodeU32(func(new BinaryReader(start.body).u32()));

  code.body = newCode;
  if (globals && newGlobals) globals.body = newGlobals;
  if (elements && newElements) elements.body = newElements;
  if (start && newStart) start.body = new Uint8Array(newStart);
  appendItem(sections, SECTION.type, [0x60, 0, 1, I32]);
  appendItem(sections, SECTION.import, [
    new Uint8Array(encodeName(PREEMPT_NAMESPACE)),
    new Uint8Array(encodeName(PREEMPT_CHECK)),
    0,
    new Uint8Array(encodeU32(checkType)),
  ]);
  appendItem(sections, SECTION.global, [I32, 1, 0x41, 0, 0x0b]); // the fuel
  appendItem(sections, SECTION.global, [I32, 1, 0x41, 0, 0x0b]); // a bulk instruction's count, held while it is charged
  // function names would now be off by one; they only label stack traces
  for (let i = sections.length - 1; i >= 0; i--) {
    const s = sections[i] as Section;
    if (s.id === SECTION.custom && customName(s) === 'name') sections.splice(i, 1);
  }
  return { importedFuncs: shape.importedFuncs + 1, func };
}

/** The code section rewritten by the chosen walker (the JavaScript one when the other cannot run it). */
function rewriteCode(body: Uint8Array, rules: CodeRules, section: CodeSectionRules, walker: CodeWalker): Uint8Array {
  if (walker === 'wasm') {
    const walked = rewriteCodeInWasm(body, section);
    if ('code' in walked) return walked.code;
  }
  let defined = 0;
  return rewriteVector(body, (r) => {
    const size = r.u32();
    const paramCount = section.params[defined++];
    if (paramCount === undefined) throw refuse.moreBodies();
    const rewritten = rewriteBody(r.take(size), rules, paramCount);
    return [encodeU32(rewritten.length), rewritten];
  });
}

/**
 * The parameter count of each defined function, from the type and function sections. A type that is
 * not a plain function type (wasm GC forms) leaves the module as it was, like an unknown instruction.
 */
function paramCounts(sections: Section[]): number[] {
  let types: ReturnType<typeof readTypes>;
  try {
    types = readTypes(sections.find((s) => s.id === SECTION.type));
  } catch (err) {
    throw new UnknownInstruction(messageOf(err));
  }
  return readFuncTypes(sections.find((s) => s.id === SECTION.function)).map((t) => {
    const type = types[t];
    if (type === undefined) throw new Error(`type ${t} does not exist`);
    return type.params.length;
  });
}

function customName(s: Section): string | undefined {
  try {
    return new BinaryReader(s.body).name();
  } catch {
    return undefined;
  }
}

function rewriteVector(body: Uint8Array, item: (r: BinaryReader) => (Uint8Array | number[])[]): Uint8Array {
  const r = new BinaryReader(body);
  const count = r.u32();
  const out: (Uint8Array | number[])[] = [encodeU32(count)];
  for (let i = 0; i < count; i++) out.push(...item(r));
  if (!r.done) throw refuse.sectionTail();
  return concatBytes(out);
}

function rewriteGlobal(r: BinaryReader, rules: CodeRules): Uint8Array[] {
  const start = r.pos;
  const t = r.byte();
  if (t === 0x63 || t === 0x64)
    while (r.byte() & 0x80) {
      /* heap type */
    }
  r.byte(); // mutability
  return [r.bytes.subarray(start, r.pos), rewriteExpr(r, rules)];
}

function skipRefType(r: BinaryReader): void {
  const t = r.byte();
  if (t === 0x63 || t === 0x64)
    while (r.byte() & 0x80) {
      /* heap type */
    }
}

function rewriteElement(r: BinaryReader, rules: CodeRules): (Uint8Array | number[])[] {
  const flags = r.u32();
  if (flags > 7) throw new Error(`element segment flags ${flags}`);
  const out: (Uint8Array | number[])[] = [encodeU32(flags)];
  const copy = (from: number): void => void out.push(r.bytes.subarray(from, r.pos));
  const active = (flags & 1) === 0;
  if (flags & 2 && active) {
    out.push(encodeU32(r.u32())); // table index
  }
  if (active) out.push(rewriteExpr(r, rules));
  const usesExprs = (flags & 4) !== 0;
  if (flags & 3) {
    const from = r.pos;
    if (usesExprs) skipRefType(r);
    else r.byte(); // elemkind
    copy(from);
  }
  const n = r.u32();
  out.push(encodeU32(n));
  for (let i = 0; i < n; i++) out.push(usesExprs ? rewriteExpr(r, rules) : encodeU32(rules.func(r.u32())));
  return out;
}
