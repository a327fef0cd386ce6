// Tables are memory the memory cap does not see: V8 keeps a table's entries outside the linear
// memory, so a module under a 16 MiB cap could grow four tables to millions of entries each
// (issue 24; in a worker the entries land on its small V8 heap and the allocation failure takes
// the whole process down). Each module gets one table budget, counted in entries: the sum of the
// initial sizes of the tables it defines must fit it (else refused at load), and every table's
// maximum is rewritten so the maxima sum to at most the budget, so table.grow past it returns -1
// inside the module (architecture.md §4). An imported table is a linked module's, capped when that
// module was prepared; its declared minimum alone must fit the budget.
import { rewriteExpr } from './code.js';
import { BinaryReader, concatBytes, encodeU32 } from './leb128.js';
import type { Section } from './sections.js';

/** Entries all the tables one module defines may hold, together. */
export const TABLE_ENTRY_BUDGET = 65_536;
/** What the budget assumes one entry costs: one reference (funcref or externref), 8 bytes. */
export const TABLE_ENTRY_BYTES = 8;

export interface TableType {
  /** The element type in words (funcref, externref, or the type byte). */
  element: string;
  min: number;
  max: number | undefined;
}

type Fail = (code: 'BAD_MODULE' | 'TABLES_OVER_BUDGET', rule: string) => never;

const ELEMENT_NAMES: Record<number, string> = { 0x70: 'funcref', 0x6f: 'externref' };

/** A table type (reference type, limits) read from `r`; table64 and unknown limits are refused. */
export function readTableType(r: BinaryReader, what: string, fail: Fail): TableType & { refType: Uint8Array } {
  const start = r.pos;
  const ref = r.byte();
  if (ref === 0x63 || ref === 0x64) r.u64(); // the heap type (an s33): an entry is one reference whatever it is
  const refType = r.bytes.subarray(start, r.pos);
  const element =
    ELEMENT_NAMES[ref] ?? (ref === 0x63 || ref === 0x64 ? 'typed reference' : `reference type 0x${ref.toString(16)}`);
  const flags = r.byte();
  if (flags & 0x04) fail('BAD_MODULE', `${what} is table64, which is not allowed`);
  if (flags & ~0x01) fail('BAD_MODULE', `${what} has unsupported limits flags 0x${flags.toString(16)}`);
  const min = r.u32();
  const max = flags & 0x01 ? r.u32() : undefined;
  return { element, min, max, refType };
}

const budgetWords = `the table budget is ${TABLE_ENTRY_BUDGET} entries`;

/** An imported table whose declared minimum alone is over the budget is refused. */
export function checkImportedTable(type: TableType, what: string, fail: Fail): void {
  if (type.min > TABLE_ENTRY_BUDGET)
    fail(
      'TABLES_OVER_BUDGET',
      `imported table ${what} (${type.element}) declares ${type.min} initial entries; ${budgetWords}`,
    );
}

interface DefinedTable {
  /** The bytes before the limits (the 0x40 0x00 prefix of a table with an initialiser, the reference type). */
  head: Uint8Array;
  type: TableType;
  /** The initialiser expression, if any, as it was. */
  tail: Uint8Array;
}

/** Checks the table section against the budget and rewrites every table's maximum (file comment). */
export function capTables(section: Section | undefined, importedTables: number, fail: Fail): void {
  if (!section) return;
  const tables = readTables(section.body, importedTables, fail);
  let declared = 0;
  tables.forEach((t, i) => {
    const index = importedTables + i;
    if (declared + t.type.min > TABLE_ENTRY_BUDGET) {
      const before =
        declared === 0
          ? `; ${budgetWords}`
          : `; with the ${declared} of the tables before it that is over the table budget of ${TABLE_ENTRY_BUDGET} entries`;
      fail('TABLES_OVER_BUDGET', `table ${index} (${t.type.element}) declares ${t.type.min} initial entries${before}`);
    }
    declared += t.type.min;
  });
  const maxima = shareHeadroom(
    tables.map((t) => t.type),
    TABLE_ENTRY_BUDGET - declared,
  );
  section.body = concatBytes([
    encodeU32(tables.length),
    ...tables.flatMap((t, i) => [t.head, [0x01], encodeU32(t.type.min), encodeU32(maxima[i] as number), t.tail]),
  ]);
}

function readTables(body: Uint8Array, importedTables: number, fail: Fail): DefinedTable[] {
  const r = new BinaryReader(body);
  const count = r.u32();
  const tables: DefinedTable[] = [];
  for (let i = 0; i < count; i++) {
    const start = r.pos;
    const withInit = body[start] === 0x40;
    if (withInit) {
      r.pos += 1;
      if (r.byte() !== 0x00) throw new Error(`table ${importedTables + i}: malformed initialiser prefix`);
    }
    const { refType, ...type } = readTableType(r, `table ${importedTables + i}`, fail);
    const head = concatBytes([body.subarray(start, start + (withInit ? 2 : 0)), refType]);
    const tailStart = r.pos;
    // walked only to find its end: the initialiser is carried over as it was
    if (withInit) rewriteExpr(r, { func: (f) => f, globalCount: Number.MAX_SAFE_INTEGER });
    tables.push({ head, type, tail: body.subarray(tailStart, r.pos) });
  }
  if (!r.done) throw new Error('bytes after the end of the table section');
  return tables;
}

/**
 * Each table's new maximum: its minimum plus a share of the headroom (the budget left over the
 * minima), shared evenly among the tables that may grow; a table declaring a smaller maximum keeps
 * it and leaves its unused share to the others.
 */
function shareHeadroom(types: TableType[], headroom: number): number[] {
  const allowance = types.map((t) => (t.max === undefined ? Infinity : Math.max(0, t.max - t.min)));
  const order = types.map((_, i) => i).sort((a, b) => (allowance[a] as number) - (allowance[b] as number));
  const maxima = types.map((t) => t.min);
  let left = headroom;
  order.forEach((i, k) => {
    const share = Math.min(allowance[i] as number, Math.floor(left / (order.length - k)));
    maxima[i] = (maxima[i] as number) + share;
    left -= share;
  });
  return maxima;
}
