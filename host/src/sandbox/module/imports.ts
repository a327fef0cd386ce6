// The import section of an untrusted module: what it may ask for, rewritten so the host stays in
// charge. Host functions come only from the Extism kernel and toolgate's WASI (renamed to the
// module's own WASI namespace); anything else must come from a module of module.link.
import { BinaryReader, concatBytes, encodeName, encodeU32 } from './leb128.js';
import { checkImportedTable, readTableType } from './tables.js';
import {
  CLIENT_IMPORTS,
  CLIENT_NAMESPACE,
  COMPONENT_HOST_IMPORTS,
  COMPONENT_HOST_NAMESPACE,
  EXTISM_IMPORT_NAMES,
  EXTISM_NAMESPACE,
  HYPER_IMPORTS,
  HYPER_NAMESPACE,
  WASI_NAMESPACE,
  type ClientImportName,
} from './host-imports.js';

/** Namespaces only an embedding application fills with its own host functions (Extism's convention). */
const EMBEDDER_NAMESPACES = new Set(['extism:host/user', 'user']);
const KIND_NAMES = ['function', 'table', 'memory', 'global', 'tag'];

export interface ImportRules {
  wasiImportNames: readonly string[];
  /** toolgate's WASI functions for this module are served under this namespace. */
  wasiNamespace: string;
  /** Namespaces that module.link fills with another module's exports. */
  linkNamespaces: readonly string[];
  /** The core module of a component of toolgate's world: it may import the world's host interface only. */
  component?: boolean;
}

export interface ImportSummary {
  body: Uint8Array;
  importedFuncs: number;
  importedGlobals: number;
  /** Tables come first in the table index space: the first defined table's index is this count. */
  importedTables: number;
  /** The limits flags byte and maximum of an imported memory (only from a linked module). */
  importedMemory: boolean;
  usesWasi: boolean;
  usesHttp: boolean;
  /** The toolgate:mcp and hyper-mcp functions it imports (each needs its feature declared in the manifest). */
  clientImports: ClientImportName[];
}

type Fail = (code: 'FORBIDDEN_IMPORT' | 'BAD_MODULE' | 'TABLES_OVER_BUDGET', rule: string) => never;

/** The summary of a module that imports nothing. */
export function noImports(): Omit<ImportSummary, 'body'> {
  return {
    importedFuncs: 0,
    importedGlobals: 0,
    importedTables: 0,
    importedMemory: false,
    usesWasi: false,
    usesHttp: false,
    clientImports: [],
  };
}

export function rewriteImports(body: Uint8Array, rules: ImportRules, fail: Fail): ImportSummary {
  const r = new BinaryReader(body);
  const count = r.u32();
  const out: (number[] | Uint8Array)[] = [encodeU32(count)];
  const unresolved: string[] = [];
  const summary: ImportSummary = { body, ...noImports() };
  for (let i = 0; i < count; i++) {
    const mod = r.name();
    const name = r.name();
    const start = r.pos;
    const kind = r.byte();
    skipImportType(r, kind, `${mod}.${name}`, fail);
    const desc = body.subarray(start, r.pos);
    const what = `"${mod}.${name}"`;
    if (rules.linkNamespaces.includes(mod)) {
      // resolved against the linked module's exports once every module is compiled (link-check.ts)
      if (kind === 2) {
        if (summary.importedMemory) fail('BAD_MODULE', `imports more than one memory (${what})`);
        checkImportedMemory(desc, what, fail);
        summary.importedMemory = true;
      }
      if (kind === 1) checkImportedTable(readTableType(new BinaryReader(desc, 1), `table ${what}`, fail), what, fail);
      out.push(encodeName(mod));
    } else {
      if (kind !== 0)
        fail(
          'FORBIDDEN_IMPORT',
          `import ${what} is a ${KIND_NAMES[kind] ?? `kind ${kind}`}; only host functions may be imported from the host`,
        );
      const namespace = hostNamespace(mod, name, rules, summary, fail);
      if (namespace === undefined) unresolved.push(`${what} is from namespace "${mod}"`);
      else out.push(encodeName(namespace));
    }
    if (kind === 0) summary.importedFuncs++;
    if (kind === 1) summary.importedTables++;
    if (kind === 3) summary.importedGlobals++;
    out.push(encodeName(name), desc);
  }
  if (unresolved.length > 0) {
    const nsList = [EXTISM_NAMESPACE, WASI_NAMESPACE, CLIENT_NAMESPACE].map((n) => `"${n}"`).join(', ');
    const list = unresolved.length === 1 ? `import ${unresolved[0] ?? ''}` : `imports: ${unresolved.join('; ')}`;
    fail(
      'FORBIDDEN_IMPORT',
      `${list}, which nothing provides (only ${nsList} and the namespaces of module.link are provided)`,
    );
  }
  summary.body = concatBytes(out);
  return summary;
}

/** The namespace a host-function import is served under, or undefined when nothing provides it. */
function hostNamespace(
  mod: string,
  name: string,
  rules: ImportRules,
  summary: ImportSummary,
  fail: Fail,
): string | undefined {
  const what = `"${mod}.${name}"`;
  if (rules.component === true) {
    if (mod !== COMPONENT_HOST_NAMESPACE || !COMPONENT_HOST_IMPORTS.includes(name)) {
      fail(
        'FORBIDDEN_IMPORT',
        `import ${what} is not in toolgate's world (only ${COMPONENT_HOST_IMPORTS.map((n) => `"${COMPONENT_HOST_NAMESPACE}.${n}"`).join(', ')})`,
      );
    }
    if (name === 'http-request') summary.usesHttp = true;
    return mod;
  }
  if (mod === EXTISM_NAMESPACE) {
    if (!EXTISM_IMPORT_NAMES.includes(name))
      fail('FORBIDDEN_IMPORT', `import ${what} is not an Extism host function toolgate provides`);
    if (name === 'http_request') summary.usesHttp = true;
    return mod;
  }
  if (mod === CLIENT_NAMESPACE) {
    if (!Object.hasOwn(CLIENT_IMPORTS, name))
      fail(
        'FORBIDDEN_IMPORT',
        `import ${what} is not a function toolgate provides (${Object.keys(CLIENT_IMPORTS).join(', ')})`,
      );
    if (!summary.clientImports.includes(name as ClientImportName)) summary.clientImports.push(name as ClientImportName);
    return mod;
  }
  if (mod === WASI_NAMESPACE) {
    if (!rules.wasiImportNames.includes(name))
      fail('FORBIDDEN_IMPORT', `import ${what} is not a WASI function toolgate provides`);
    summary.usesWasi = true;
    return rules.wasiNamespace;
  }
  if (mod === HYPER_NAMESPACE && Object.hasOwn(HYPER_IMPORTS, name)) {
    // hyper-mcp's host functions: whether this manifest may have them is checked per spec (units.ts)
    if (!summary.clientImports.includes(name as ClientImportName)) summary.clientImports.push(name as ClientImportName);
    return mod;
  }
  if (EMBEDDER_NAMESPACES.has(mod)) {
    fail(
      'FORBIDDEN_IMPORT',
      `import ${what} is from namespace "${mod}": a host function only an embedding application can provide; toolgate provides none (module.link can supply "${mod}" from another module)`,
    );
  }
  return undefined;
}

function skipLimits(r: BinaryReader): number {
  const flags = r.byte();
  r.u32();
  if (flags & 0x01) r.u32();
  return flags;
}

function skipImportType(r: BinaryReader, kind: number, what: string, fail: Fail): void {
  switch (kind) {
    case 0:
      r.u32();
      return;
    case 1:
      r.byte(); // reference type
      skipLimits(r);
      return;
    case 2:
      skipLimits(r);
      return;
    case 3:
      r.byte(); // value type
      r.byte(); // mutability
      return;
    default:
      fail('FORBIDDEN_IMPORT', `import "${what}" is a ${KIND_NAMES[kind] ?? `kind ${kind}`}, which cannot be imported`);
  }
}

function checkImportedMemory(desc: Uint8Array, what: string, fail: Fail): void {
  const flags = desc[1] ?? 0;
  if (flags & 0x04) fail('BAD_MODULE', `imported memory ${what} is memory64, which is not allowed`);
  if (flags & 0x02) fail('BAD_MODULE', `imported memory ${what} is shared, which is not allowed`);
  if (flags & ~0x01) fail('BAD_MODULE', `imported memory ${what} has unsupported limits flags 0x${flags.toString(16)}`);
}
