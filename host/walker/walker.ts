// The code-section rewrite of preemption instrumentation, in AssemblyScript, built to a small
// WebAssembly module (scripts/build-walker.mjs) that the host runs with plain WebAssembly
// (host/src/sandbox/module/wasm-walker.ts). It does what host/src/sandbox/module/code.ts and the
// code-section part of preempt.ts do, byte for byte, so a fresh process walks a module at compiled
// speed instead of as cold JavaScript (docs/decisions.md, "The instruction walker as WebAssembly").
// The JavaScript walker is the reference; test/sandbox/wasm-walker.test.ts holds the two equal.
//
// AssemblyScript has no exceptions: a refusal records its kind and numbers in globals and traps;
// the host reads them and throws the JavaScript walker's error with the same message.
// Memory is the host's (imported, with a maximum): [code][params u32 x funcs][stack][edits][output...].

// Refusals, listed here and nowhere else in this file: the host turns each code into the JavaScript
// walker's error through WALKER_REFUSALS in host/src/sandbox/module/refusals.ts, which holds the
// messages and these names with these numbers (test/sandbox/walker-refusals.test.ts holds them equal).
const END_OF_DATA = 1; // a: byte
const LEB_OVER_10 = 2; // a: byte
const U32_OVERFLOW = 3; // a: byte
const U32_OVER_5 = 4; // a: byte
const RUNS_PAST_END = 5; // a: length, b: byte
const UNKNOWN_OP = 6; // a: opcode
const UNKNOWN_FC = 7; // a: sub-opcode
const UNKNOWN_FD = 8;
const UNKNOWN_FE = 9;
const DELEGATE_OUTSIDE_TRY = 10;
const NO_SUCH_FUNCTION = 11; // a: index
const NO_SUCH_GLOBAL = 12; // a: index
const BODY_TAIL = 13;
const MORE_BODIES = 14;
const SECTION_TAIL = 15;
const OUT_OF_MEMORY = 16; // not a refusal: the JavaScript walker does the section (refusals.ts WALKER_OUT_OF_MEMORY)

/** V8's limit on a function's locals, parameters included (code.ts MAX_LOCALS). */
const MAX_LOCALS: u64 = 50000;
/** What a loop head borrows from the fuel at a time (preempt.ts POCKET). */
const POCKET: u32 = 256;
/** A table instruction's count is clamped to this before it is charged (preempt.ts TABLE_CLAMP). */
const TABLE_CLAMP: i32 = 1 << 22;

let errCode: i32 = 0;
let errA: u32 = 0;
let errB: u32 = 0;

// the reader: positions are absolute; errors report them from `origin`, as the JavaScript
// walker's reader over a subarray does
let pos: u32 = 0;
let end: u32 = 0;
let origin: u32 = 0;

// the rules of this module (preempt.ts instrumentPreemption)
let importedFuncs: u32 = 0;
let definedFuncs: u32 = 0;
let globalCount: u32 = 0;
let fuelGlobal: u32 = 0;
let checkFunc: u32 = 0;
let scratchGlobal: u32 = 0;

// the body being walked: the open-block stack (where each enclosing region's cost is counted), the
// edits, and how many loop heads it has
let stackAt: u32 = 0;
let editsAt: u32 = 0;
let loops: u32 = 0;
let pocket: bool = false;
let pocketLocal: u32 = 0;
let copied: u32 = 0;
let out: u32 = 0;

export function errorCode(): i32 {
  return errCode;
}
export function errorA(): u32 {
  return errA;
}
export function errorB(): u32 {
  return errB;
}
/** Where the rewritten code section ends (it starts where rewrite() was told to write). */
export function outputEnd(): u32 {
  return out;
}
/** The first byte the host may use. */
export function heapBase(): u32 {
  return (u32(__heap_base) + 15) & ~15;
}

function fail(code: i32, a: u32, b: u32): void {
  errCode = code;
  errA = a;
  errB = b;
  unreachable();
}

// ---- reading ----

@inline function byte(): u32 {
  if (pos >= end) fail(END_OF_DATA, pos - origin, 0);
  return load<u8>(pos++);
}

/** An unsigned LEB128 that must fit in 32 bits (leb128.ts BinaryReader.u32). */
function u32r(): u32 {
  let result: u64 = 0;
  let shift: u64 = 0;
  for (let i = 0; i < 5; i++) {
    const b = byte();
    result += u64(b & 0x7f) << shift;
    if ((b & 0x80) == 0) {
      if (result > 0xffffffff) fail(U32_OVERFLOW, pos - origin, 0);
      return u32(result);
    }
    shift += 7;
  }
  fail(U32_OVER_5, pos - origin, 0);
  return 0;
}

/** Skips one LEB128 of any width up to 10 bytes; returns its first byte (code.ts skipLeb). */
function skipLeb(): u32 {
  const first = byte();
  let b = first;
  for (let i = 0; (b & 0x80) != 0; i++) {
    if (i >= 10) fail(LEB_OVER_10, pos - origin, 0);
    b = byte();
  }
  return first;
}

function take(n: u32): void {
  if (u64(pos) + u64(n) > u64(end)) fail(RUNS_PAST_END, n, pos - origin);
  pos += n;
}

function skipValType(): void {
  const t = byte();
  if (t == 0x63 || t == 0x64) skipLeb();
}

function skipBlockType(): void {
  const first = skipLeb();
  if (first == 0x63 || first == 0x64) skipLeb();
}

function skipMemArg(): void {
  const align = u32r();
  if ((align & 0x40) != 0) u32r();
  skipLeb();
}

function skipMisc(): void {
  const op = u32r();
  if (op <= 7) return;
  let n = 0;
  if (op == 8 || op == 10 || op == 12 || op == 14) n = 2;
  else if (op == 9 || op == 11 || op == 13 || op == 15 || op == 16 || op == 17) n = 1;
  else fail(UNKNOWN_FC, op, 0);
  for (let i = 0; i < n; i++) u32r();
}

function skipSimd(): void {
  const op = u32r();
  if (op <= 11 || op == 92 || op == 93) skipMemArg();
  else if (op == 12 || op == 13) take(16);
  else if (op >= 21 && op <= 34) byte();
  else if (op >= 84 && op <= 91) {
    skipMemArg();
    byte();
  } else if (op > 0x113) fail(UNKNOWN_FD, op, 0);
}

function skipAtomic(): void {
  const op = u32r();
  if (op == 3) byte();
  else if (op <= 2 || (op >= 0x10 && op <= 0x4e)) skipMemArg();
  else fail(UNKNOWN_FE, op, 0);
}

function skipCatchClauses(): void {
  const n = u32r();
  for (let i: u32 = 0; i < n; i++) {
    const kind = byte();
    if (kind <= 1) u32r();
    u32r();
  }
}

/** The immediates of the opcodes walk() does not handle itself (code.ts skipImmediates). */
function skipImmediates(op: u32): void {
  if (op >= 0x45 && op <= 0xc4) return;
  if (op >= 0x28 && op <= 0x3e) {
    skipMemArg();
    return;
  }
  switch (op) {
    case 0x00: case 0x01: case 0x05: case 0x0f: case 0x19: case 0x1a: case 0x1b:
    case 0xd1: case 0xd3: case 0xd4:
      return;
    case 0x07: case 0x08: case 0x09: case 0x0c: case 0x0d: case 0x14: case 0x15: case 0xd5:
    case 0xd6: case 0x20: case 0x21: case 0x22: case 0x25: case 0x26: case 0x3f: case 0x40:
      u32r();
      return;
    case 0x0e: {
      const n = u64(u32r());
      for (let i: u64 = 0; i <= n; i++) u32r();
      return;
    }
    case 0x11: case 0x13:
      u32r();
      u32r();
      return;
    case 0x1c: {
      const n = u32r();
      for (let i: u32 = 0; i < n; i++) skipValType();
      return;
    }
    case 0x41: case 0x42: case 0xd0:
      skipLeb();
      return;
    case 0x43:
      take(4);
      return;
    case 0x44:
      take(8);
      return;
    case 0xfd:
      skipSimd();
      return;
    case 0xfe:
      skipAtomic();
      return;
    default:
      fail(UNKNOWN_OP, op, 0);
  }
}

// ---- writing ----

/** Room for `n` more output bytes, growing the memory up to its maximum. */
function room(n: u32): void {
  const need = u64(out) + u64(n);
  const have = u64(memory.size()) << 16;
  if (need <= have) return;
  const pages = i32((need - have + 0xffff) >> 16);
  if (memory.grow(pages) < 0) fail(OUT_OF_MEMORY, 0, 0);
}

@inline function put(b: u32): void {
  store<u8>(out++, b);
}

function putU32(value: u32): void {
  let v = value;
  do {
    let b = v & 0x7f;
    v >>>= 7;
    if (v != 0) b |= 0x80;
    put(b);
  } while (v != 0);
}

function putI32(value: i32): void {
  let v = value;
  for (;;) {
    const b = v & 0x7f;
    v >>= 7;
    const done = (v == 0 && (b & 0x40) == 0) || (v == -1 && (b & 0x40) != 0);
    put(done ? b : b | 0x80);
    if (done) return;
  }
}

function flush(upTo: u32): void {
  if (upTo <= copied) return;
  const n = upTo - copied;
  room(n);
  memory.copy(out, copied, n);
  out += n;
}

/** A fuel site charging `cost` (preempt.ts siteBytes). */
function putSite(cost: u32): void {
  room(64);
  put(0x23); putU32(fuelGlobal); put(0x41); putI32(i32(cost)); put(0x6b);
  put(0x24); putU32(fuelGlobal);
  put(0x23); putU32(fuelGlobal); put(0x41); put(0); put(0x48); put(0x04); put(0x40);
  put(0x10); putU32(checkFunc); put(0x24); putU32(fuelGlobal); put(0x0b);
}

/** A loop head's charge to the pocket, borrowing from the fuel below zero (preempt.ts pocketBytes). */
function putPocketSite(cost: u32): void {
  const borrow = cost > POCKET ? cost : POCKET;
  room(64);
  put(0x20); putU32(pocketLocal); put(0x41); putI32(i32(cost)); put(0x6b);
  put(0x22); putU32(pocketLocal); put(0x41); put(0); put(0x48); put(0x04); put(0x40);
  putSite(borrow);
  room(64);
  put(0x20); putU32(pocketLocal); put(0x41); putI32(i32(borrow)); put(0x6a); put(0x21); putU32(pocketLocal);
  put(0x0b);
}

/** Before a bulk instruction: charge its count (preempt.ts bulkBytes); `table` for table ones. */
function putBulkCharge(table: bool): void {
  room(128);
  put(0x24); putU32(scratchGlobal);
  put(0x23); putU32(fuelGlobal);
  if (table) {
    put(0x41); putI32(TABLE_CLAMP); put(0x23); putU32(scratchGlobal); put(0x23); putU32(scratchGlobal);
    put(0x41); putI32(TABLE_CLAMP); put(0x4b); put(0x1b); put(0x41); put(8); put(0x74);
  } else {
    put(0x23); putU32(scratchGlobal); put(0x41); put(3); put(0x76);
  }
  put(0x6b); put(0x24); putU32(fuelGlobal);
  put(0x23); putU32(fuelGlobal); put(0x41); put(0); put(0x48); put(0x04); put(0x40);
  put(0x10); putU32(checkFunc); put(0x24); putU32(fuelGlobal); put(0x0b);
  put(0x23); putU32(scratchGlobal);
}

// ---- walking ----

/** The sub-opcode after 0xfc, read as the JavaScript walker reads it: from a reader starting there. */
function peekMisc(): u32 {
  const save = pos;
  const saveOrigin = origin;
  origin = pos;
  const op = u32r();
  origin = saveOrigin;
  pos = save;
  return op;
}

// Each opcode's class, so the walk reads an instruction with one load and a few comparisons
// (AssemblyScript writes a switch as a chain of comparisons, one per case). Filled by rewrite().
const NONE: u8 = 1; // no immediates
const U32: u8 = 2; // one u32
const LEB: u8 = 3; // one LEB128 of any width (i32/i64.const, ref.null)
const MEMARG: u8 = 4; // loads and stores
const BLOCK: u8 = 5; // block, if, try
const TRY_TABLE: u8 = 6;
const LOOP: u8 = 7;
const END: u8 = 8; // end, delegate
const CALL: u8 = 9; // call, return_call, ref.func
const GLOBAL: u8 = 10; // global.get, global.set
const MISC: u8 = 11; // 0xfc
const OTHER: u8 = 12; // read by skipImmediates
const CLASSES: usize = memory.data(256);

function fillClasses(): void {
  if (load<u8>(CLASSES + 1) == NONE) return;
  for (let op: u32 = 0x45; op <= 0xc4; op++) store<u8>(CLASSES + op, NONE);
  for (let op: u32 = 0x28; op <= 0x3e; op++) store<u8>(CLASSES + op, MEMARG);
  const none = memory.data<u8>([0x00, 0x01, 0x05, 0x0f, 0x19, 0x1a, 0x1b, 0xd1, 0xd3, 0xd4]);
  for (let i = 0; i < 10; i++) store<u8>(CLASSES + load<u8>(none + i), NONE);
  const one = memory.data<u8>([0x07, 0x08, 0x09, 0x0c, 0x0d, 0x14, 0x15, 0xd5, 0xd6, 0x20, 0x21, 0x22, 0x25, 0x26, 0x3f, 0x40]);
  for (let i = 0; i < 16; i++) store<u8>(CLASSES + load<u8>(one + i), U32);
  const other = memory.data<u8>([0x0e, 0x11, 0x13, 0x1c, 0x43, 0x44, 0xfd, 0xfe]);
  for (let i = 0; i < 8; i++) store<u8>(CLASSES + load<u8>(other + i), OTHER);
  store<u8>(CLASSES + 0x41, LEB);
  store<u8>(CLASSES + 0x42, LEB);
  store<u8>(CLASSES + 0xd0, LEB);
  store<u8>(CLASSES + 0x02, BLOCK);
  store<u8>(CLASSES + 0x04, BLOCK);
  store<u8>(CLASSES + 0x06, BLOCK);
  store<u8>(CLASSES + 0x1f, TRY_TABLE);
  store<u8>(CLASSES + 0x03, LOOP);
  store<u8>(CLASSES + 0x0b, END);
  store<u8>(CLASSES + 0x18, END);
  store<u8>(CLASSES + 0x10, CALL);
  store<u8>(CLASSES + 0x12, CALL);
  store<u8>(CLASSES + 0xd2, CALL);
  store<u8>(CLASSES + 0x23, GLOBAL);
  store<u8>(CLASSES + 0x24, GLOBAL);
  store<u8>(CLASSES + 0xfc, MISC);
}

/** The instruction count of the body outside all loops (the entry site's cost). */
const ENTRY_COST: usize = memory.data(4);

@inline function editAt(i: u32): usize {
  return usize(editsAt) + (usize(i) << 3);
}

/**
 * Reads one function's code up to the `end` that closes it (code.ts walk), refusing what the
 * JavaScript walker refuses, and records the edits in order, 8 bytes each: where (the opcode's
 * byte) and a value: a loop head's cost (the instructions of its region), a moved call's new
 * index, a bulk instruction's kind (1 for a table one). Returns the number of edits; the output is
 * then written by copying between them (emitCode), without reading the instructions again.
 */
function walk(): u32 {
  let depth: u32 = 0;
  let cost: usize = ENTRY_COST; // where the current region's cost is counted
  let edits: u32 = 0;
  store<u32>(ENTRY_COST, 0);
  loops = 0;
  for (;;) {
    const at = pos;
    if (at >= end) fail(END_OF_DATA, at - origin, 0);
    const op = u32(load<u8>(at));
    pos = at + 1;
    store<u32>(cost, load<u32>(cost) + 1);
    const kind = load<u8>(CLASSES + op);
    if (kind == NONE) continue;
    if (kind == U32) {
      u32r();
      continue;
    }
    if (kind == MEMARG) {
      skipMemArg();
      continue;
    }
    if (kind == LEB) {
      skipLeb();
      continue;
    }
    switch (kind) {
      case BLOCK:
        skipBlockType();
        store<u32>(usize(stackAt) + (usize(depth++) << 2), u32(cost));
        break;
      case TRY_TABLE:
        skipBlockType();
        skipCatchClauses();
        store<u32>(usize(stackAt) + (usize(depth++) << 2), u32(cost));
        break;
      case LOOP: {
        skipBlockType();
        store<u32>(usize(stackAt) + (usize(depth++) << 2), u32(cost));
        const e = editAt(edits++);
        store<u32>(e, at);
        store<u32>(e + 4, 0);
        cost = e + 4;
        loops++;
        break;
      }
      case END:
        if (op == 0x18) u32r();
        if (depth == 0) {
          if (op == 0x18) fail(DELEGATE_OUTSIDE_TRY, 0, 0);
          return edits;
        }
        cost = usize(load<u32>(usize(stackAt) + (usize(--depth) << 2)));
        break;
      case CALL: {
        const index = u32r();
        if (u64(index) >= u64(importedFuncs) + u64(definedFuncs)) fail(NO_SUCH_FUNCTION, index, 0);
        if (index >= importedFuncs) {
          const e = editAt(edits++);
          store<u32>(e, at);
          store<u32>(e + 4, index + 1);
        }
        break;
      }
      case GLOBAL: {
        const index = u32r();
        if (index >= globalCount) fail(NO_SUCH_GLOBAL, index, 0);
        break;
      }
      case MISC: {
        const sub = peekMisc();
        const memoryOp = sub == 8 || sub == 10 || sub == 11;
        const tableOp = sub == 12 || sub == 14 || sub == 15 || sub == 17;
        if (memoryOp || tableOp) {
          const e = editAt(edits++);
          store<u32>(e, at);
          store<u32>(e + 4, tableOp ? 1 : 0);
        }
        skipMisc();
        break;
      }
      case OTHER:
        skipImmediates(op);
        break;
      default:
        fail(UNKNOWN_OP, op, 0);
    }
  }
  return edits; // not reached: the loop returns at the body's end or traps
}

/**
 * Writes the code walk() read, from codeStart to codeEnd: the entry site, then the bytes between
 * the edits, each edit in its place. Nothing here can fail but the memory running out: walk() read
 * every immediate read again here.
 */
function emitCode(codeStart: u32, codeEnd: u32, edits: u32): void {
  copied = codeStart;
  putSite(load<u32>(ENTRY_COST));
  for (let i: u32 = 0; i < edits; i++) {
    const e = editAt(i);
    const at = load<u32>(e);
    const value = load<u32>(e + 4);
    const op = u32(load<u8>(at));
    if (op == 0x03) {
      // a loop head: the site goes after the block type
      pos = at + 1;
      skipBlockType();
      flush(pos);
      copied = pos;
      if (pocket) putPocketSite(value);
      else putSite(value);
    } else if (op == 0xfc) {
      flush(at);
      putBulkCharge(value == 1);
      copied = at;
    } else {
      flush(at);
      room(6);
      put(op);
      putU32(value);
      pos = at + 1;
      u32r();
      copied = pos;
    }
  }
  flush(codeEnd);
}

/** One function body: its locals, the walk, then the output; without a size prefix (code.ts rewriteBody). */
function rewriteBody(params: u32): void {
  const bodyStart = pos;
  const groups = u32r();
  const groupsStart = pos;
  let locals: u64 = u64(params);
  for (let i: u32 = 0; i < groups; i++) {
    locals += u64(u32r());
    skipValType();
  }
  const codeStart = pos;
  const edits = walk();
  const codeEnd = pos;
  if (pos < end) fail(BODY_TAIL, 0, 0);
  pocket = loops > 0 && locals + 1 <= MAX_LOCALS;
  pocketLocal = u32(locals);
  const n = codeStart - groupsStart;
  room(n + 10);
  if (pocket) {
    putU32(groups + 1);
    memory.copy(out, groupsStart, n);
    out += n;
    put(1);
    put(0x7f);
  } else {
    memory.copy(out, bodyStart, codeStart - bodyStart);
    out += codeStart - bodyStart;
  }
  emitCode(codeStart, codeEnd, edits);
}

/**
 * Rewrites the code section at [codeAt, codeAt + codeLen) into memory from outAt; `paramsAt` holds
 * each defined function's parameter count (u32). Scratch for one body's walk is at scratchAt,
 * 12 * (codeLen / 2 + 2) bytes: an open block and an edit each take 2 bytes of code or more, so a
 * body of n bytes has at most n / 2 of either (4 bytes a block, 8 an edit). Returns 0, or a refusal (errorCode, errorA, errorB).
 */
export function rewrite(
  codeAt: u32,
  codeLen: u32,
  paramsAt: u32,
  paramCount: u32,
  scratchAt: u32,
  outAt: u32,
  imported: u32,
  defined: u32,
  globals: u32,
): void {
  fillClasses();
  importedFuncs = imported;
  definedFuncs = defined;
  globalCount = globals;
  checkFunc = imported;
  fuelGlobal = globals;
  scratchGlobal = globals + 1;
  stackAt = scratchAt;
  editsAt = scratchAt + (((codeLen >> 1) + 2) << 2);
  errCode = 0;
  out = outAt;
  pos = codeAt;
  end = codeAt + codeLen;
  origin = codeAt;
  const count = u32r();
  room(5);
  putU32(count);
  for (let i: u32 = 0; i < count; i++) {
    const size = u32r();
    if (i >= paramCount) fail(MORE_BODIES, 0, 0);
    const params = load<u32>(usize(paramsAt) + (usize(i) << 2));
    const sectionPos = pos;
    take(size);
    pos = sectionPos;
    end = sectionPos + size;
    origin = sectionPos;
    // the body is written 5 bytes on, then moved back behind its size
    room(5);
    const sizeAt = out;
    out += 5;
    rewriteBody(params);
    const length = out - sizeAt - 5;
    out = sizeAt;
    putU32(length);
    memory.copy(out, sizeAt + 5, length);
    out += length;
    pos = sectionPos + size;
    end = codeAt + codeLen;
    origin = codeAt;
  }
  if (pos < end) fail(SECTION_TAIL, 0, 0);
}
