// Checks an untrusted module's imports and memory, then rewrites it so the host stays in charge:
// memory max capped at maxPages, WASI imports moved to toolgate's namespace, _initialize/_start
// renamed so the worker runs them itself (after it can see memory), and a wrapper export that keeps
// the entry's i32 return code (the SDK drops it: FINDINGS 13) in an exported global.
import { SandboxLoadError } from '../load-error.js';
import { BinaryReader, concatBytes, encodeName, encodeU32 } from './leb128.js';
import { SECTION, insertSection, joinSections, splitSections, type Section } from './sections.js';
import {
  ENTRY_EXPORT, EXPORT_PREFIX, EXTISM_IMPORT_NAMES, EXTISM_NAMESPACE, INITIALIZE_EXPORT, MEMORY_EXPORT,
  START_EXPORT, STATUS_EXPORT, TOOLGATE_WASI_NAMESPACE, WASI_NAMESPACE,
} from './host-imports.js';

export interface PrepareOptions {
  tool: string;
  entry: string;
  maxPages: number;
  wasiImportNames: readonly string[];
}

export interface PreparedModule {
  bytes: Uint8Array;
  usesWasi: boolean;
  usesHttp: boolean;
  /** Whether the entry returns an i32 status (kept in STATUS_EXPORT by the wrapper). */
  returnsStatus: boolean;
  hasInitialize: boolean;
  hasStart: boolean;
  hasMemory: boolean;
  /** The memory maximum after patching, in 64 KiB pages. */
  memoryMaxPages: number;
}

const KIND_NAMES = ['function', 'table', 'memory', 'global', 'tag'];
const I32 = 0x7f;

interface FuncType { params: number[]; results: number[] }
interface Export { name: string; kind: number; index: number }

export function prepareModule(wasm: Uint8Array, opts: PrepareOptions): PreparedModule {
  const fail = (code: ConstructorParameters<typeof SandboxLoadError>[0], rule: string): never => {
    throw new SandboxLoadError(code, `tool "${opts.tool}": ${rule}`);
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

  // Imports: only functions, only from the two namespaces toolgate serves.
  let importedFuncs = 0;
  let usesWasi = false;
  let usesHttp = false;
  const importSection = find(SECTION.import);
  if (importSection) {
    const r = new BinaryReader(importSection.body);
    const count = r.u32();
    const out: (number[] | Uint8Array)[] = [encodeU32(count)];
    for (let i = 0; i < count; i++) {
      const mod = r.name();
      const name = r.name();
      const kind = r.byte();
      const what = `${mod}.${name}`;
      if (kind !== 0) fail('FORBIDDEN_IMPORT', `import "${what}" is a ${KIND_NAMES[kind] ?? `kind ${kind}`}; only host functions may be imported`);
      const typeIndex = r.u32();
      if (mod === EXTISM_NAMESPACE) {
        if (!EXTISM_IMPORT_NAMES.includes(name)) fail('FORBIDDEN_IMPORT', `import "${what}" is not an Extism host function toolgate provides`);
        if (name === 'http_request') usesHttp = true;
        out.push(encodeName(mod));
      } else if (mod === WASI_NAMESPACE) {
        if (!opts.wasiImportNames.includes(name)) fail('FORBIDDEN_IMPORT', `import "${what}" is not a WASI function toolgate provides`);
        usesWasi = true;
        out.push(encodeName(TOOLGATE_WASI_NAMESPACE));
      } else {
        fail('FORBIDDEN_IMPORT', `import "${what}" is from namespace "${mod}"; only "${EXTISM_NAMESPACE}" and "${WASI_NAMESPACE}" are provided`);
      }
      out.push(encodeName(name), [0], encodeU32(typeIndex));
      importedFuncs++;
    }
    importSection.body = concatBytes(out);
  }

  // Memory: at most one, 32-bit, unshared, maximum capped.
  let hasMemory = false;
  let memoryMaxPages = 0;
  const memorySection = find(SECTION.memory);
  if (memorySection) {
    const r = new BinaryReader(memorySection.body);
    const count = r.u32();
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
  const entry = exports.find((e) => e.name === opts.entry && e.kind === 0);
  if (!entry) fail('MISSING_ENTRY', `the module exports no function "${opts.entry}" (module.entry)`);
  const entryIndex = (entry as Export).index;
  if (entryIndex < importedFuncs) fail('MISSING_ENTRY', `entry "${opts.entry}" re-exports an import; it must be defined by the module`);
  const entryType = types[funcTypes[entryIndex - importedFuncs] ?? -1];
  if (!entryType) return fail('BAD_MODULE', `entry "${opts.entry}" has no valid type`);
  if (entryType.params.length !== 0) fail('BAD_ENTRY', `entry "${opts.entry}" takes parameters; an Extism export takes none`);
  const returnsStatus = entryType.results.length === 1 && entryType.results[0] === I32;
  if (!returnsStatus && entryType.results.length !== 0) fail('BAD_ENTRY', `entry "${opts.entry}" must return nothing or an i32 status`);

  // Exports: rename init hooks (the worker calls them), add the memory alias and the wrapper.
  const newExports: Export[] = exports.map((e) => {
    if (e.kind === 0 && e.name === '_initialize') return { ...e, name: INITIALIZE_EXPORT };
    if (e.kind === 0 && e.name === '_start') return { ...e, name: START_EXPORT };
    return e;
  });
  const hasInitialize = newExports.some((e) => e.name === INITIALIZE_EXPORT);
  const hasStart = newExports.some((e) => e.name === START_EXPORT);
  if (hasMemory) newExports.push({ name: MEMORY_EXPORT, kind: 2, index: 0 });

  if (returnsStatus) {
    // type () -> (), appended (type indices of existing entries do not move)
    const typeSection = find(SECTION.type) as Section;
    const newType = types.length;
    typeSection.body = appendToVector(typeSection.body, [0x60, 0, 0]);
    // the status global: (global (mut i32) (i32.const 0)); imported globals are refused above, so its index is the count
    let globalSection = find(SECTION.global);
    if (!globalSection) {
      globalSection = { id: SECTION.global, body: new Uint8Array([0]) };
      insertSection(sections, globalSection);
    }
    const globalIndex = new BinaryReader(globalSection.body).u32();
    globalSection.body = appendToVector(globalSection.body, [I32, 1, 0x41, 0, 0x0b]);
    // the wrapper: call entry; global.set status; end
    const wrapperIndex = importedFuncs + funcTypes.length;
    (funcSection as Section).body = appendToVector((funcSection as Section).body, encodeU32(newType));
    const code = [0, 0x10, ...encodeU32(entryIndex), 0x24, ...encodeU32(globalIndex), 0x0b];
    const codeSection = find(SECTION.code);
    if (!codeSection) return fail('BAD_MODULE', 'function section without a code section');
    codeSection.body = appendToVector(codeSection.body, [...encodeU32(code.length), ...code]);
    newExports.push({ name: ENTRY_EXPORT, kind: 0, index: wrapperIndex }, { name: STATUS_EXPORT, kind: 3, index: globalIndex });
  } else {
    newExports.push({ name: ENTRY_EXPORT, kind: 0, index: entryIndex });
  }
  (exportSection as Section).body = concatBytes([
    encodeU32(newExports.length),
    ...newExports.map((e) => [...encodeName(e.name), e.kind, ...encodeU32(e.index)]),
  ]);

  return {
    bytes: joinSections(sections),
    usesWasi, usesHttp, returnsStatus, hasInitialize, hasStart, hasMemory, memoryMaxPages,
  };
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
