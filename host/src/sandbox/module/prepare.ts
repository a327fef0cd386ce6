// Checks an untrusted module's imports and memory, then rewrites it so the host stays in charge:
// memory max capped at maxPages, WASI imports moved to toolgate's namespace, _initialize/_start/
// hs_init renamed so the worker runs them itself (once its WASI can see the instance's memory), and
// a wrapper export that keeps the entry's i32 return code (the SDK drops it: FINDINGS 13) in an
// exported global. A module of module.link has no entry and may import from the other linked ones.
import { SandboxLoadError } from '../load-error.js';
import { BinaryReader, concatBytes, encodeName, encodeU32 } from './leb128.js';
import { SECTION, insertSection, joinSections, splitSections, type Section } from './sections.js';
import {
  ENTRY_EXPORT, EXPORT_PREFIX, HS_INIT_EXPORT, INITIALIZE_EXPORT, MEMORY_EXPORT, START_EXPORT, STATUS_EXPORT,
  TOOLGATE_WASI_NAMESPACE,
} from './host-imports.js';
import { rewriteImports } from './imports.js';

export interface PrepareOptions {
  tool: string;
  /** The export the tool calls; absent for a module of module.link. */
  entry?: string;
  maxPages: number;
  wasiImportNames: readonly string[];
  /** Where this module's WASI imports are served (default toolgate:wasi). */
  wasiNamespace?: string;
  /** Namespaces module.link fills; imports from them are resolved against the linked modules. */
  linkNamespaces?: readonly string[];
  /** Names the module in errors (the main module or module.link.NAMESPACE). */
  label?: string;
}

export interface PreparedModule {
  bytes: Uint8Array;
  usesWasi: boolean;
  usesHttp: boolean;
  /** Whether the entry returns an i32 status (kept in STATUS_EXPORT by the wrapper). */
  returnsStatus: boolean;
  hasInitialize: boolean;
  hasStart: boolean;
  /** GHC's runtime initialiser, which Extism hosts call after instantiation. */
  hasHsInit: boolean;
  hasMemory: boolean;
  /** The memory maximum after patching, in 64 KiB pages. */
  memoryMaxPages: number;
}

const I32 = 0x7f;

interface FuncType { params: number[]; results: number[] }
interface Export { name: string; kind: number; index: number }

export function prepareModule(wasm: Uint8Array, opts: PrepareOptions): PreparedModule {
  const fail = (code: ConstructorParameters<typeof SandboxLoadError>[0], rule: string): never => {
    throw new SandboxLoadError(code, `tool "${opts.tool}"${opts.label === undefined ? '' : `, ${opts.label}`}: ${rule}`);
  };
  let sections: Section[];
  try {
    sections = splitSections(wasm);
  } catch (err) {
    return fail('BAD_MODULE', `malformed module: ${(err as Error).message}`);
  }
  try {
    return patch(sections, opts, fail);
  } catch (err) {
    if (err instanceof SandboxLoadError) throw err;
    return fail('BAD_MODULE', `malformed module: ${(err as Error).message}`);
  }
}

function patch(
  sections: Section[],
  opts: PrepareOptions,
  fail: (code: ConstructorParameters<typeof SandboxLoadError>[0], rule: string) => never,
): PreparedModule {
  const find = (id: number): Section | undefined => sections.find((s) => s.id === id);
  const types = readTypes(find(SECTION.type));

  // Imports: host functions from the namespaces toolgate serves, anything from a linked module.
  let importedFuncs = 0;
  let importedGlobals = 0;
  let importedMemory = false;
  let usesWasi = false;
  let usesHttp = false;
  const importSection = find(SECTION.import);
  if (importSection) {
    const summary = rewriteImports(
      importSection.body,
      { wasiImportNames: opts.wasiImportNames, wasiNamespace: opts.wasiNamespace ?? TOOLGATE_WASI_NAMESPACE, linkNamespaces: opts.linkNamespaces ?? [] },
      fail,
    );
    importSection.body = summary.body;
    ({ importedFuncs, importedGlobals, importedMemory, usesWasi, usesHttp } = summary);
  }

  // Memory: at most one, 32-bit, unshared, maximum capped.
  // An imported memory is a linked module's, capped when that module was prepared.
  let hasMemory = importedMemory;
  let memoryMaxPages = importedMemory ? opts.maxPages : 0;
  const memorySection = find(SECTION.memory);
  if (memorySection) {
    const r = new BinaryReader(memorySection.body);
    const count = r.u32();
    if (count > 0 && importedMemory) fail('BAD_MODULE', 'imports a memory and declares another; at most one is allowed');
    if (count > 1) fail('BAD_MODULE', `declares ${count} memories; at most one is allowed`);
    if (count === 1) {
      const flags = r.byte();
      if (flags & 0x04) fail('BAD_MODULE', 'memory64 is not allowed');
      if (flags & 0x02) fail('BAD_MODULE', 'shared memory is not allowed');
      if (flags & ~0x01) fail('BAD_MODULE', `unsupported memory limits flags 0x${flags.toString(16)}`);
      const min = r.u32();
      const max = flags & 0x01 ? r.u32() : undefined;
      if (min > opts.maxPages) fail('MEMORY_OVER_CAP', `memory minimum is ${min} pages; max_pages is ${opts.maxPages}`);
      memoryMaxPages = Math.min(max ?? opts.maxPages, opts.maxPages);
      memorySection.body = concatBytes([[1, 0x01], encodeU32(min), encodeU32(memoryMaxPages)]);
      hasMemory = true;
    }
  }

  // Defined functions and their types, to find the entry's signature.
  const funcSection = find(SECTION.function);
  const funcTypes: number[] = [];
  if (funcSection) {
    const r = new BinaryReader(funcSection.body);
    const count = r.u32();
    for (let i = 0; i < count; i++) funcTypes.push(r.u32());
  }

  const exportSection = find(SECTION.export);
  const exports: Export[] = [];
  if (exportSection) {
    const r = new BinaryReader(exportSection.body);
    const count = r.u32();
    for (let i = 0; i < count; i++) exports.push({ name: r.name(), kind: r.byte(), index: r.u32() });
  }
  for (const e of exports) {
    if (e.name.startsWith(EXPORT_PREFIX)) fail('BAD_MODULE', `export "${e.name}" uses the reserved prefix "${EXPORT_PREFIX}"`);
  }
  const entryInfo = opts.entry === undefined ? undefined : checkEntry(opts.entry, exports, importedFuncs, funcTypes, types, fail);
  const returnsStatus = entryInfo?.returnsStatus ?? false;

  // Exports: rename init hooks (the worker calls them), add the memory alias and the wrapper.
  const newExports: Export[] = exports.map((e) => {
    if (e.kind === 0 && e.name === '_initialize') return { ...e, name: INITIALIZE_EXPORT };
    if (e.kind === 0 && e.name === '_start') return { ...e, name: START_EXPORT };
    if (e.kind === 0 && e.name === 'hs_init') return { ...e, name: HS_INIT_EXPORT };
    return e;
  });
  const hasInitialize = newExports.some((e) => e.name === INITIALIZE_EXPORT);
  const hasStart = newExports.some((e) => e.name === START_EXPORT);
  const hasHsInit = newExports.some((e) => e.name === HS_INIT_EXPORT);
  if (hasMemory) newExports.push({ name: MEMORY_EXPORT, kind: 2, index: 0 });

  if (entryInfo !== undefined && returnsStatus) {
    const entryIndex = entryInfo.index;
    // type () -> (), appended (type indices of existing entries do not move)
    const typeSection = find(SECTION.type) as Section;
    const newType = types.length;
    typeSection.body = appendToVector(typeSection.body, [0x60, 0, 0]);
    // the status global: (global (mut i32) (i32.const 0)); it follows the imported and defined globals
    let globalSection = find(SECTION.global);
    if (!globalSection) {
      globalSection = { id: SECTION.global, body: new Uint8Array([0]) };
      insertSection(sections, globalSection);
    }
    const globalIndex = importedGlobals + new BinaryReader(globalSection.body).u32();
    globalSection.body = appendToVector(globalSection.body, [I32, 1, 0x41, 0, 0x0b]);
    // the wrapper: call entry; global.set status; end
    const wrapperIndex = importedFuncs + funcTypes.length;
    (funcSection as Section).body = appendToVector((funcSection as Section).body, encodeU32(newType));
    const code = [0, 0x10, ...encodeU32(entryIndex), 0x24, ...encodeU32(globalIndex), 0x0b];
    const codeSection = find(SECTION.code);
    if (!codeSection) return fail('BAD_MODULE', 'function section without a code section');
    codeSection.body = appendToVector(codeSection.body, [...encodeU32(code.length), ...code]);
    newExports.push({ name: ENTRY_EXPORT, kind: 0, index: wrapperIndex }, { name: STATUS_EXPORT, kind: 3, index: globalIndex });
  } else if (entryInfo !== undefined) {
    newExports.push({ name: ENTRY_EXPORT, kind: 0, index: entryInfo.index });
  }
  let exportOut = exportSection;
  if (!exportOut) {
    exportOut = { id: SECTION.export, body: new Uint8Array([0]) };
    insertSection(sections, exportOut);
  }
  exportOut.body = concatBytes([
    encodeU32(newExports.length),
    ...newExports.map((e) => [...encodeName(e.name), e.kind, ...encodeU32(e.index)]),
  ]);

  return {
    bytes: joinSections(sections),
    usesWasi, usesHttp, returnsStatus, hasInitialize, hasStart, hasHsInit, hasMemory, memoryMaxPages,
  };
}

type Fail = (code: ConstructorParameters<typeof SandboxLoadError>[0], rule: string) => never;

function checkEntry(entry: string, exports: Export[], importedFuncs: number, funcTypes: number[], types: FuncType[], fail: Fail) {
  const found = exports.find((e) => e.name === entry && e.kind === 0);
  if (!found) return fail('MISSING_ENTRY', `the module exports no function "${entry}" (module.entry)`);
  if (found.index < importedFuncs) fail('MISSING_ENTRY', `entry "${entry}" re-exports an import; it must be defined by the module`);
  const entryType = types[funcTypes[found.index - importedFuncs] ?? -1];
  if (!entryType) return fail('BAD_MODULE', `entry "${entry}" has no valid type`);
  if (entryType.params.length !== 0) fail('BAD_ENTRY', `entry "${entry}" takes parameters; an Extism export takes none`);
  const returnsStatus = entryType.results.length === 1 && entryType.results[0] === I32;
  if (!returnsStatus && entryType.results.length !== 0) fail('BAD_ENTRY', `entry "${entry}" must return nothing or an i32 status`);
  return { index: found.index, returnsStatus };
}

/** Bumps a section vector's count and appends one raw item. */
function appendToVector(body: Uint8Array, item: number[]): Uint8Array {
  const r = new BinaryReader(body);
  const count = r.u32();
  return concatBytes([encodeU32(count + 1), body.subarray(r.pos), item]);
}

function readTypes(section: Section | undefined): FuncType[] {
  if (!section) return [];
  const r = new BinaryReader(section.body);
  const count = r.u32();
  const types: FuncType[] = [];
  for (let i = 0; i < count; i++) {
    const form = r.byte();
    if (form !== 0x60) throw new Error(`type ${i} is not a plain function type (form 0x${form.toString(16)}); GC type forms are not supported`);
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
    if (t === 0x63 || t === 0x64) while (r.byte() & 0x80) { /* continuation byte */ }
    out.push(t);
  }
  return out;
}
