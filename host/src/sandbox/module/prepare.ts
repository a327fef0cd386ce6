// Checks an untrusted module's imports, memory and tables, then rewrites it so the host stays in
// charge: memory max capped at maxPages, table maxima capped to the table budget (tables.ts), WASI imports moved to toolgate's namespace, _initialize/_start/
// hs_init renamed so the worker runs them itself (once its WASI can see the instance's memory), and
// a wrapper export that keeps the entry's i32 return code (the SDK drops it: architecture.md §8.7) in an
// exported global; on request, fuel and a host check so the calling thread can preempt it
// (preempt.ts). A module of module.link has no entry and may import from the other linked ones.
import { SandboxLoadError } from '../load-error.js';
import { BinaryReader, concatBytes, encodeName, encodeU32 } from './leb128.js';
import { SECTION, insertSection, joinSections, splitSections, type Section } from './sections.js';
import {
  ENTRY_EXPORT,
  HS_INIT_EXPORT,
  INITIALIZE_EXPORT,
  MEMORY_EXPORT,
  START_EXPORT,
  STATUS_EXPORT,
  TOOLGATE_WASI_NAMESPACE,
  type ClientImportName,
} from './host-imports.js';
import { noImports, rewriteImports, type ImportSummary } from './imports.js';
import { capTables } from './tables.js';
import { UnknownInstruction } from './refusals.js';
import { instrumentPreemption, type PreemptShape, type Preempted } from './preempt.js';
import { checkEntry, readExports, readFuncTypes, readTypes, type Export } from './shape.js';
import { messageOf } from '../../errors/index.js';

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
  /** Instrument for preemption on the calling thread (module/preempt.ts). */
  preempt?: boolean;
  /** The core module of a module.abi: component tool: it imports toolgate's world only (component.ts). */
  component?: boolean;
}

export interface PreparedModule {
  bytes: Uint8Array;
  usesWasi: boolean;
  usesHttp: boolean;
  /** The toolgate:mcp functions the module imports. */
  clientImports: ClientImportName[];
  /** Whether the entry returns an i32 status (kept in STATUS_EXPORT by the wrapper). */
  returnsStatus: boolean;
  hasInitialize: boolean;
  hasStart: boolean;
  /** GHC's runtime initialiser, which Extism hosts call after instantiation. */
  hasHsInit: boolean;
  hasMemory: boolean;
  /** The memory maximum after patching, in 64 KiB pages. */
  memoryMaxPages: number;
  /** Instrumented (or without code): it calls the preemption check, and may run on the calling thread. */
  preemptible: boolean;
}

const I32 = 0x7f;

export function prepareModule(wasm: Uint8Array, opts: PrepareOptions): PreparedModule {
  const fail = (code: ConstructorParameters<typeof SandboxLoadError>[0], rule: string): never => {
    throw new SandboxLoadError(
      code,
      `tool "${opts.tool}"${opts.label === undefined ? '' : `, ${opts.label}`}: ${rule}`,
    );
  };
  let sections: Section[];
  try {
    sections = splitSections(wasm);
  } catch (err) {
    return fail('BAD_MODULE', `malformed module: ${messageOf(err)}`);
  }
  try {
    return patch(sections, opts, fail);
  } catch (err) {
    if (err instanceof SandboxLoadError) throw err;
    return fail('BAD_MODULE', `malformed module: ${messageOf(err)}`);
  }
}

type Fail = (code: ConstructorParameters<typeof SandboxLoadError>[0], rule: string) => never;

/** The steps in order; each reads or rewrites one part of the module (see the file comment). */
function patch(sections: Section[], opts: PrepareOptions, fail: Fail): PreparedModule {
  const find = (id: number): Section | undefined => sections.find((s) => s.id === id);
  const imports = patchImports(find(SECTION.import), opts, fail);
  const memory = capMemory(find(SECTION.memory), imports.importedMemory, opts.maxPages, fail);
  capTables(find(SECTION.table), imports.importedTables, fail);
  const funcTypes = readFuncTypes(find(SECTION.function));
  const exports = readExports(find(SECTION.export), fail);
  const entryInfo =
    opts.entry === undefined
      ? undefined
      : checkEntry(opts.entry, exports, imports.importedFuncs, funcTypes, readTypes(find(SECTION.type)), fail);

  const preempted = opts.preempt === true ? instrument(sections, imports) : undefined;
  // a module with no code cannot loop: it is as preemptible as an instrumented one
  const preemptible = preempted === 'no-code' || typeof preempted === 'object';
  const renumber = typeof preempted === 'object' ? preempted.func : (i: number): number => i;
  const importedFuncs = typeof preempted === 'object' ? preempted.importedFuncs : imports.importedFuncs;

  const newExports = renameInitHooks(exports.map((e) => (e.kind === 0 ? { ...e, index: renumber(e.index) } : e)));
  if (memory.hasMemory) newExports.push({ name: MEMORY_EXPORT, kind: 2, index: 0 });
  const returnsStatus = entryInfo?.returnsStatus ?? false;
  if (entryInfo !== undefined) {
    const entryIndex = renumber(entryInfo.index);
    if (returnsStatus)
      newExports.push(...addStatusWrapper(sections, entryIndex, importedFuncs, imports.importedGlobals, fail));
    else newExports.push({ name: ENTRY_EXPORT, kind: 0, index: entryIndex });
  }
  writeExports(sections, newExports);
  return {
    bytes: joinSections(sections),
    usesWasi: imports.usesWasi,
    usesHttp: imports.usesHttp,
    clientImports: imports.clientImports,
    returnsStatus,
    hasInitialize: newExports.some((e) => e.name === INITIALIZE_EXPORT),
    hasStart: newExports.some((e) => e.name === START_EXPORT),
    hasHsInit: newExports.some((e) => e.name === HS_INIT_EXPORT),
    preemptible,
    ...memory,
  };
}

/** Host functions from the namespaces toolgate serves, anything from a linked module. */
function patchImports(section: Section | undefined, opts: PrepareOptions, fail: Fail): Omit<ImportSummary, 'body'> {
  if (!section) return noImports();
  const rules = {
    wasiImportNames: opts.wasiImportNames,
    wasiNamespace: opts.wasiNamespace ?? TOOLGATE_WASI_NAMESPACE,
    linkNamespaces: opts.linkNamespaces ?? [],
    component: opts.component === true,
  };
  const { body, ...summary } = rewriteImports(section.body, rules, fail);
  section.body = body;
  return summary;
}

/**
 * At most one memory, 32-bit, unshared, its maximum capped at maxPages. An imported memory is a
 * linked module's, capped when that module was prepared.
 */
function capMemory(
  section: Section | undefined,
  importedMemory: boolean,
  maxPages: number,
  fail: Fail,
): { hasMemory: boolean; memoryMaxPages: number } {
  let hasMemory = importedMemory;
  let memoryMaxPages = importedMemory ? maxPages : 0;
  if (!section) return { hasMemory, memoryMaxPages };
  const r = new BinaryReader(section.body);
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
    if (min > maxPages) fail('MEMORY_OVER_CAP', `memory minimum is ${min} pages; max_pages is ${maxPages}`);
    memoryMaxPages = Math.min(max ?? maxPages, maxPages);
    section.body = concatBytes([[1, 0x01], encodeU32(min), encodeU32(memoryMaxPages)]);
    hasMemory = true;
  }
  return { hasMemory, memoryMaxPages };
}

/**
 * Fuel and the host check (module/preempt.ts). An instruction the walker does not know leaves the
 * module as it was: it then runs only in a worker. A reference to a function or global that does not
 * exist is a malformed module (it would otherwise name what the instrumentation added).
 */
function instrument(sections: Section[], shape: PreemptShape): Preempted | 'no-code' | 'unknown-instruction' {
  try {
    return instrumentPreemption(sections, shape) ?? 'no-code';
  } catch (err) {
    if (err instanceof UnknownInstruction) return 'unknown-instruction';
    throw err;
  }
}

/** _initialize/_start/hs_init are renamed: the instance runs them itself (worker/instantiate.ts). */
function renameInitHooks(exports: Export[]): Export[] {
  return exports.map((e) => {
    if (e.kind === 0 && e.name === '_initialize') return { ...e, name: INITIALIZE_EXPORT };
    if (e.kind === 0 && e.name === '_start') return { ...e, name: START_EXPORT };
    if (e.kind === 0 && e.name === 'hs_init') return { ...e, name: HS_INIT_EXPORT };
    return e;
  });
}

/**
 * The wrapper `call entry; global.set status` and the status global, so the entry's i32 return code
 * survives the SDK (architecture.md §8.7). Types, globals and functions are appended: no index moves.
 */
function addStatusWrapper(
  sections: Section[],
  entryIndex: number,
  importedFuncs: number,
  importedGlobals: number,
  fail: Fail,
): Export[] {
  const find = (id: number): Section | undefined => sections.find((s) => s.id === id);
  const typeSection = find(SECTION.type) as Section;
  const newType = new BinaryReader(typeSection.body).u32();
  typeSection.body = appendToVector(typeSection.body, [0x60, 0, 0]);
  let globalSection = find(SECTION.global);
  if (!globalSection) {
    globalSection = { id: SECTION.global, body: new Uint8Array([0]) };
    insertSection(sections, globalSection);
  }
  const globalIndex = importedGlobals + new BinaryReader(globalSection.body).u32();
  globalSection.body = appendToVector(globalSection.body, [I32, 1, 0x41, 0, 0x0b]);
  const funcSection = find(SECTION.function) as Section;
  const wrapperIndex = importedFuncs + new BinaryReader(funcSection.body).u32();
  funcSection.body = appendToVector(funcSection.body, encodeU32(newType));
  const code = [0, 0x10, ...encodeU32(entryIndex), 0x24, ...encodeU32(globalIndex), 0x0b];
  const codeSection = find(SECTION.code);
  if (!codeSection) return fail('BAD_MODULE', 'function section without a code section');
  codeSection.body = appendToVector(codeSection.body, [...encodeU32(code.length), ...code]);
  return [
    { name: ENTRY_EXPORT, kind: 0, index: wrapperIndex },
    { name: STATUS_EXPORT, kind: 3, index: globalIndex },
  ];
}

function writeExports(sections: Section[], exports: Export[]): void {
  let section = sections.find((s) => s.id === SECTION.export);
  if (!section) {
    section = { id: SECTION.export, body: new Uint8Array([0]) };
    insertSection(sections, section);
  }
  section.body = concatBytes([
    encodeU32(exports.length),
    ...exports.map((e) => [...encodeName(e.name), e.kind, ...encodeU32(e.index)]),
  ]);
}

/** Bumps a section vector's count and appends one raw item. */
function appendToVector(body: Uint8Array, item: number[]): Uint8Array {
  const r = new BinaryReader(body);
  const count = r.u32();
  return concatBytes([encodeU32(count + 1), body.subarray(r.pos), item]);
}
