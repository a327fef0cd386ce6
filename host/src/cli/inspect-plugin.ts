// `toolgate inspect ./plugin.wasm`: what a stock Extism plugin imports and exports, which PDK built
// it (from its producers custom section, when present) and what its manifest would need. The
// module is compiled to read its imports and exports, never instantiated.
import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import type { JsonObject } from '../tool/index.js';
import { UsageError } from './usage.js';
import { messageOf } from '../errors/index.js';

const EXTISM = 'extism:host/env';
const WASI = 'wasi_snapshot_preview1';

/** name -> [value, version] pairs of the producers section (tool-conventions ProducersSection). */
function producers(section: ArrayBuffer | undefined): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  if (section === undefined) return out;
  const b = new Uint8Array(section);
  let pos = 0;
  const u32 = (): number => {
    let result = 0;
    let shift = 0;
    for (;;) {
      const byte = b[pos++];
      if (byte === undefined) throw new Error('truncated');
      result |= (byte & 0x7f) << shift;
      if ((byte & 0x80) === 0) return result >>> 0;
      shift += 7;
    }
  };
  const str = (): string => {
    const n = u32();
    const s = new TextDecoder().decode(b.subarray(pos, pos + n));
    pos += n;
    return s;
  };
  try {
    for (let fields = u32(); fields > 0; fields--) {
      const field = str();
      const values: string[] = [];
      for (let n = u32(); n > 0; n--) values.push(`${str()} ${str()}`.trim());
      out[field] = values;
    }
  } catch {
    /* a malformed producers section is only a missing hint */
  }
  return out;
}

function pdkOf(prod: Record<string, string[]>, exports: string[], imports: string[]): string {
  const all = [...(prod['language'] ?? []), ...(prod['processed-by'] ?? [])].join(' ').toLowerCase();
  if (exports.includes('hs_init') || all.includes('ghc')) return 'Haskell PDK (GHC)';
  if (all.includes('tinygo')) return 'Go PDK (TinyGo)';
  if (all.includes('rust')) return 'Rust PDK';
  if (all.includes('assemblyscript')) return 'AssemblyScript PDK';
  if (all.includes('javy') || exports.includes('__invoke')) return 'JS PDK';
  if (all.includes('zig')) return 'Zig PDK';
  if (all.includes('clang') || all.includes('c11') || all.includes('c99')) return 'C PDK (clang)';
  if (imports.some((i) => i.startsWith(`${EXTISM}.`))) return 'an Extism PDK (no producers section says which)';
  return 'unknown (no producers section)';
}

export async function inspectPluginFile(file: string, cwd: string): Promise<JsonObject> {
  let module: WebAssembly.Module;
  const path = resolve(cwd, file);
  try {
    module = await WebAssembly.compile(await readFile(path));
  } catch (err) {
    throw new UsageError(`${file}: not a WebAssembly module toolgate can read: ${messageOf(err)}`);
  }
  const imports = WebAssembly.Module.imports(module).map(
    (i) => `${i.module}.${i.name}${i.kind === 'function' ? '' : ` (${i.kind})`}`,
  );
  const exportList = WebAssembly.Module.exports(module);
  const exports = exportList.map((e) => e.name);
  const custom = Reflect.get(WebAssembly.Module, 'customSections') as (
    m: WebAssembly.Module,
    n: string,
  ) => ArrayBuffer[];
  const prod = producers(custom(module, 'producers')[0]);
  const needs: string[] = [];
  const namespaces = new Set(WebAssembly.Module.imports(module).map((i) => i.module));
  if (imports.includes(`${EXTISM}.http_request`)) needs.push('capabilities.allowed_hosts: the hosts it may reach');
  if (imports.includes(`${EXTISM}.config_get`)) needs.push('capabilities.config: the keys it reads');
  if (namespaces.has(WASI)) needs.push('WASI is provided; capabilities.allowed_paths if it reads or writes files');
  if (imports.some((i) => i.startsWith(`${EXTISM}.input_`)))
    needs.push('input: { encoding: raw, parameter: NAME } if it reads its input as text rather than JSON');
  for (const ns of namespaces) {
    if (ns === EXTISM || ns === WASI) continue;
    needs.push(`module.link: { "${ns}": <module exporting its imports> } (without it the plugin is refused at load)`);
  }
  const entries = exportList
    .filter(
      (e) =>
        e.kind === 'function' &&
        !e.name.startsWith('_') &&
        !/^(hs_init|malloc|free|calloc|realloc|asyncify_.*)$/.test(e.name),
    )
    .map((e) => e.name);
  return {
    file: path,
    pdk: pdkOf(prod, exports, imports),
    producers: prod,
    imports,
    exports,
    entries,
    manifestNeeds: needs,
  };
}

export function pluginText(r: JsonObject): string {
  const list = (v: unknown): string =>
    Array.isArray(v) && v.length > 0 ? v.map((x) => `  ${String(x)}`).join('\n') : '  (none)';
  return [
    `plugin: ${String(r['file'])}`,
    `built with: ${String(r['pdk'])}`,
    'imports:',
    list(r['imports']),
    'exports:',
    list(r['exports']),
    'possible entries (module.entry):',
    list(r['entries']),
    'a manifest for it needs:',
    list(r['manifestNeeds']),
    '',
  ].join('\n');
}
