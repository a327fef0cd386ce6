// Walks WebAssembly instructions (function bodies and constant expressions) and copies them, changing
// only what the preemption instrumentation needs: function indices that moved, and fuel sites at
// function entries and loop heads. Every opcode V8 in Node 20 accepts is known by its immediates;
// an unknown opcode throws, and the caller then leaves the module uninstrumented.
import { BinaryReader, concatBytes, encodeU32 } from './leb128.js';
import { refuse } from './refusals.js';

/** A place where fuel is charged: `cost` is the instructions its region can run before the next site. */
export interface FuelSite {
  cost: number;
  /** A loop head (charged to the function's pocket when it has one), not the function's entry. */
  loop: boolean;
}

export interface CodeRules {
  /** The new index of a function index operand (call, return_call, ref.func). */
  func(index: number): number;
  /** Globals the original module has: an index past them is refused (it would name an added global). */
  globalCount: number;
  /** Bytes of the fuel check charging `cost`; absent in constant expressions. */
  site?: (cost: number) => Uint8Array;
  /**
   * Bytes of a loop head's charge to the pocket, the function's own local numbered `local`
   * (module/preempt.ts); without it, or when the function has no room for one more local, loop
   * heads are charged by `site`.
   */
  pocketSite?: (local: number) => (cost: number) => number[];
  /**
   * Bytes to run just before a 0xFC instruction `op` that does work by its size operand (bulk
   * memory and table instructions); undefined leaves it as it is. The size is on top of the stack.
   */
  bulk?: (op: number) => number[] | undefined;
}

/** 0xFC instructions whose last operand is a count: memory.init/copy/fill, table.init/copy/grow/fill. */
export const BULK_MEMORY_OPS: ReadonlySet<number> = new Set([8, 10, 11]);
export const BULK_TABLE_OPS: ReadonlySet<number> = new Set([12, 14, 15, 17]);

type Part = Uint8Array | number[] | FuelSite;

const I32 = 0x7f;

/** Skips one LEB128 number of any width (signed or not); returns its first byte. */
function skipLeb(r: BinaryReader): number {
  const first = r.byte();
  let b = first;
  for (let i = 0; b & 0x80; i++) {
    if (i >= 10) throw refuse.lebOver10Bytes(r.pos);
    b = r.byte();
  }
  return first;
}

/** A value type: one byte, or (ref null? heaptype) with its heap type. */
function skipValType(r: BinaryReader): void {
  const t = r.byte();
  if (t === 0x63 || t === 0x64) skipLeb(r);
}

/** A block type: empty, a value type or a type index (s33). */
function skipBlockType(r: BinaryReader): void {
  const first = skipLeb(r);
  if (first === 0x63 || first === 0x64) skipLeb(r);
}

function skipMemArg(r: BinaryReader): void {
  const align = r.u32();
  if (align & 0x40) r.u32(); // multi-memory: a memory index follows
  skipLeb(r); // offset
}

/** 0xFC: saturating truncation, bulk memory, tables. */
function skipMisc(r: BinaryReader): void {
  const op = r.u32();
  if (op <= 7) return;
  const operands: Record<number, number> = { 8: 2, 9: 1, 10: 2, 11: 1, 12: 2, 13: 1, 14: 2, 15: 1, 16: 1, 17: 1 };
  const n = operands[op];
  if (n === undefined) throw refuse.unknownPrefixed(0xfc, op);
  for (let i = 0; i < n; i++) r.u32();
}

/** 0xFD: SIMD (and relaxed SIMD, which has no immediates). */
function skipSimd(r: BinaryReader): void {
  const op = r.u32();
  if (op <= 11 || op === 92 || op === 93) skipMemArg(r);
  else if (op === 12 || op === 13) r.take(16);
  else if (op >= 21 && op <= 34) r.byte();
  else if (op >= 84 && op <= 91) {
    skipMemArg(r);
    r.byte();
  } else if (op > 0x113) throw refuse.unknownPrefixed(0xfd, op);
}

/** 0xFE: atomics (valid on unshared memory too). */
function skipAtomic(r: BinaryReader): void {
  const op = r.u32();
  if (op === 3) r.byte();
  else if (op <= 2 || (op >= 0x10 && op <= 0x4e)) skipMemArg(r);
  else throw refuse.unknownPrefixed(0xfe, op);
}

/** The immediates of every opcode not handled by the walker itself. */
function skipImmediates(r: BinaryReader, op: number): void {
  if (op === 0x00 || op === 0x01 || op === 0x05 || op === 0x0f || op === 0x19 || op === 0x1a || op === 0x1b) return;
  if ((op >= 0x45 && op <= 0xc4) || op === 0xd1 || op === 0xd3 || op === 0xd4) return;
  switch (op) {
    case 0x07:
    case 0x08:
    case 0x09:
    case 0x0c:
    case 0x0d:
    case 0x14:
    case 0x15:
    case 0xd5:
    case 0xd6:
    case 0x20:
    case 0x21:
    case 0x22:
    case 0x25:
    case 0x26:
    case 0x3f:
    case 0x40:
      r.u32();
      return;
    case 0x0e: {
      const n = r.u32();
      for (let i = 0; i <= n; i++) r.u32();
      return;
    }
    case 0x11:
    case 0x13:
      r.u32();
      r.u32();
      return;
    case 0x1c: {
      const n = r.u32();
      for (let i = 0; i < n; i++) skipValType(r);
      return;
    }
    case 0x41:
    case 0x42:
    case 0xd0:
      skipLeb(r);
      return;
    case 0x43:
      r.take(4);
      return;
    case 0x44:
      r.take(8);
      return;
    case 0xfc:
      return skipMisc(r);
    case 0xfd:
      return skipSimd(r);
    case 0xfe:
      return skipAtomic(r);
    default:
      if (op >= 0x28 && op <= 0x3e) return skipMemArg(r);
      throw refuse.unknownOpcode(op);
  }
}

/**
 * The common opcodes by their immediates, so the walker reads them without going through the
 * comparisons of skipImmediates: a fresh server instruments its first tool's module as cold code,
 * where each comparison and call costs (docs/decisions.md, "instrumenting as cold code"). The classes hold only opcodes skipImmediates reads the same
 * way (none of them opens or closes a block, calls or names a global); every other opcode is 0.
 */
const NO_IMMEDIATES = 1;
const ONE_U32 = 2;
const ONE_LEB = 3;
const MEM_ARG = 4;
const OPCODE_CLASS: Uint8Array = (() => {
  const t = new Uint8Array(256);
  for (const op of [0x00, 0x01, 0x05, 0x0f, 0x19, 0x1a, 0x1b, 0xd1, 0xd3, 0xd4]) t[op] = NO_IMMEDIATES;
  for (let op = 0x45; op <= 0xc4; op++) t[op] = NO_IMMEDIATES;
  for (const op of [0x07, 0x08, 0x09, 0x0c, 0x0d, 0x14, 0x15, 0xd5, 0xd6, 0x20, 0x21, 0x22, 0x25, 0x26, 0x3f, 0x40])
    t[op] = ONE_U32;
  for (const op of [0x41, 0x42, 0xd0]) t[op] = ONE_LEB;
  for (let op = 0x28; op <= 0x3e; op++) t[op] = MEM_ARG;
  return t;
})();

/** try_table's catch clauses: (kind, tag?, label)*. */
function skipCatchClauses(r: BinaryReader): void {
  const n = r.u32();
  for (let i = 0; i < n; i++) {
    const kind = r.byte();
    if (kind <= 1) r.u32();
    r.u32();
  }
}

/**
 * Copies instructions from `r` up to and including the `end` that closes depth 0, applying `rules`.
 * With rules.site, charges fuel at the start and at every loop head; each site's cost counts the
 * instructions of its own region (a loop body without its nested loops; the body outside all loops).
 */
function walk(r: BinaryReader, rules: CodeRules, out: Part[]): void {
  const bytes = r.bytes;
  let copied = r.pos;
  const flush = (upTo: number): void => {
    if (upTo > copied) out.push(r.bytes.subarray(copied, upTo));
  };
  // one entry per open block; a loop's entry is its site, other blocks inherit the enclosing region
  const regions: (FuelSite | undefined)[] = [];
  let region: FuelSite | undefined;
  if (rules.site) {
    region = { cost: 0, loop: false };
    out.push(region);
  }
  const open = (site: FuelSite | undefined): void => {
    regions.push(region);
    if (site) region = site;
  };
  for (;;) {
    const at = r.pos;
    if (at >= r.end) throw refuse.endOfData(at);
    const op = bytes[at] as number; // r.byte() inlined: this line runs for every instruction
    r.pos = at + 1;
    if (region) region.cost++;
    const simple = OPCODE_CLASS[op];
    if (simple === NO_IMMEDIATES) continue;
    if (simple === ONE_U32) {
      r.u32();
      continue;
    }
    if (simple === ONE_LEB) {
      skipLeb(r);
      continue;
    }
    if (simple === MEM_ARG) {
      skipMemArg(r);
      continue;
    }
    switch (op) {
      case 0x02:
      case 0x04:
      case 0x06:
        skipBlockType(r);
        open(undefined);
        break;
      case 0x1f:
        skipBlockType(r);
        skipCatchClauses(r);
        open(undefined);
        break;
      case 0x03: {
        skipBlockType(r);
        let site: FuelSite | undefined;
        if (rules.site) {
          flush(r.pos);
          copied = r.pos;
          site = { cost: 0, loop: true };
          out.push(site);
        }
        regions.push(region);
        region = site ?? region;
        break;
      }
      case 0x0b:
      case 0x18:
        if (op === 0x18) r.u32();
        if (regions.length === 0) {
          if (op === 0x18) throw refuse.delegateOutsideTry();
          flush(r.pos);
          return;
        }
        region = regions.pop();
        break;
      case 0x10:
      case 0x12:
      case 0xd2: {
        const index = r.u32();
        const moved = rules.func(index);
        if (moved !== index) {
          flush(at);
          out.push([op, ...encodeU32(moved)]);
          copied = r.pos;
        }
        break;
      }
      case 0x23:
      case 0x24: {
        const index = r.u32();
        if (index >= rules.globalCount) throw refuse.noSuchGlobal(index);
        break;
      }
      case 0xfc: {
        const charge = rules.bulk?.(new BinaryReader(r.bytes.subarray(r.pos)).u32());
        if (charge !== undefined) {
          flush(at);
          out.push(charge);
          copied = at;
        }
        skipMisc(r);
        break;
      }
      default:
        skipImmediates(r, op);
    }
  }
}

type Site = (cost: number) => Uint8Array | number[];

function render(parts: Part[], entry: Site | undefined, loop: Site | undefined): Uint8Array {
  const chunks: (Uint8Array | number[])[] = new Array(parts.length);
  for (let i = 0; i < parts.length; i++) {
    const p = parts[i] as Part;
    chunks[i] =
      p instanceof Uint8Array || Array.isArray(p) ? p : ((p.loop ? loop : undefined) ?? (entry as Site))(p.cost);
  }
  return concatBytes(chunks);
}

/** V8's limit on a function's locals, parameters included (a body over it does not compile). */
const MAX_LOCALS = 50_000;

/**
 * One function body (locals + code), rewritten; the result carries no size prefix. `params` is the
 * function's parameter count: a function with a loop gets one more i32 local after its own, the
 * pocket its loop heads are charged to (module/preempt.ts says why).
 */
export function rewriteBody(body: Uint8Array, rules: CodeRules, params: number): Uint8Array {
  const r = new BinaryReader(body);
  const groups = r.u32();
  const groupsStart = r.pos;
  let locals = params;
  for (let i = 0; i < groups; i++) {
    locals += r.u32();
    skipValType(r);
  }
  const declared = body.subarray(groupsStart, r.pos);
  const parts: Part[] = [];
  walk(r, rules, parts);
  if (!r.done) throw refuse.bodyTail();
  const hasLoop = parts.some((p) => !(p instanceof Uint8Array || Array.isArray(p)) && p.loop);
  if (!hasLoop || rules.pocketSite === undefined || locals + 1 > MAX_LOCALS)
    return concatBytes([body.subarray(0, groupsStart + declared.length), render(parts, rules.site, undefined)]);
  const pocket = rules.pocketSite(locals);
  return concatBytes([encodeU32(groups + 1), declared, [1, I32], render(parts, rules.site, pocket)]);
}

/** A constant expression read from `r` (global init, element offset or item), rewritten. */
export function rewriteExpr(r: BinaryReader, rules: CodeRules): Uint8Array {
  const parts: Part[] = [];
  walk(r, { func: rules.func, globalCount: rules.globalCount }, parts);
  return render(parts, undefined, undefined);
}
