// Reads what prepare.ts needs to know about a module: its function types, the type of each defined
// function, its exports, and whether the entry has an Extism export's shape.
import type { SandboxLoadError } from '../load-error.js';
import { BinaryReader } from './leb128.js';
import { EXPORT_PREFIX } from './host-imports.js';
import type { Section } from './sections.js';

const I32 = 0x7f;

export interface FuncType {
  params: number[];
  results: number[];
}
export interface Export {
  name: string;
  kind: number;
  index: number;
}
type Fail = (code: ConstructorParameters<typeof SandboxLoadError>[0], rule: string) => never;

/** The type index of each defined function, to find the entry's signature. */
export function readFuncTypes(section: Section | undefined): number[] {
  const funcTypes: number[] = [];
  if (!section) return funcTypes;
  const r = new BinaryReader(section.body);
  const count = r.u32();
  for (let i = 0; i < count; i++) funcTypes.push(r.u32());
  return funcTypes;
}

export function readExports(section: Section | undefined, fail: Fail): Export[] {
  const exports: Export[] = [];
  if (!section) return exports;
  const r = new BinaryReader(section.body);
  const count = r.u32();
  for (let i = 0; i < count; i++) exports.push({ name: r.name(), kind: r.byte(), index: r.u32() });
  for (const e of exports) {
    if (e.name.startsWith(EXPORT_PREFIX))
      fail('BAD_MODULE', `export "${e.name}" uses the reserved prefix "${EXPORT_PREFIX}"`);
  }
  return exports;
}

export function checkEntry(
  entry: string,
  exports: Export[],
  importedFuncs: number,
  funcTypes: number[],
  types: FuncType[],
  fail: Fail,
) {
  const found = exports.find((e) => e.name === entry && e.kind === 0);
  if (!found) return fail('MISSING_ENTRY', `the module exports no function "${entry}" (module.entry)`);
  if (found.index < importedFuncs)
    fail('MISSING_ENTRY', `entry "${entry}" re-exports an import; it must be defined by the module`);
  const entryType = types[funcTypes[found.index - importedFuncs] ?? -1];
  if (!entryType) return fail('BAD_MODULE', `entry "${entry}" has no valid type`);
  if (entryType.params.length !== 0)
    fail('BAD_ENTRY', `entry "${entry}" takes parameters; an Extism export takes none`);
  const returnsStatus = entryType.results.length === 1 && entryType.results[0] === I32;
  if (!returnsStatus && entryType.results.length !== 0)
    fail('BAD_ENTRY', `entry "${entry}" must return nothing or an i32 status`);
  return { index: found.index, returnsStatus };
}

export function readTypes(section: Section | undefined): FuncType[] {
  if (!section) return [];
  const r = new BinaryReader(section.body);
  const count = r.u32();
  const types: FuncType[] = [];
  for (let i = 0; i < count; i++) {
    const form = r.byte();
    if (form !== 0x60)
      throw new Error(
        `type ${i} is not a plain function type (form 0x${form.toString(16)}); GC type forms are not supported`,
      );
    const params = readValTypes(r);
    const results = readValTypes(r);
    types.push({ params, results });
  }
  return types;
}

function readValTypes(r: BinaryReader): number[] {
  const n = r.u32();
  const out: number[] = [];
  for (let i = 0; i < n; i++) {
    const t = r.byte();
    // (ref null? heaptype): skip the signed LEB heap type that follows
    if (t === 0x63 || t === 0x64)
      while (r.byte() & 0x80) {
        /* continuation byte */
      }
    out.push(t);
  }
  return out;
}
