// Compiles the main module and every module of module.link, each checked, patched and capped on its
// own, then checks that the imports between them resolve. A linked module has no entry, its own
// WASI namespace (so its WASI sees its own memory) and may import from the other linked namespaces.
import { sha256HexOnce } from '../digest/index.js';
import { compileModule, type CompiledModule } from './module/cache.js';
import { toolModuleOf } from './module/component.js';
import { checkLinks } from './module/link-check.js';
import {
  COMPONENT_CALL_EXPORT,
  COMPONENT_POST_CALL_EXPORT,
  COMPONENT_REALLOC_EXPORT,
  HYPER_NAMESPACE,
  importFeature,
  importLabel,
  isHyperImport,
  TOOLGATE_WASI_NAMESPACE,
  type ClientImportName,
} from './module/host-imports.js';
import { SandboxLoadError } from './load-error.js';
import type { SandboxToolSpec } from './spec.js';
import { WASI_IMPORT_NAMES } from './wasi/index.js';
import type { ModuleUnit } from './worker/protocol.js';

export interface CompiledUnits {
  units: ModuleUnit[];
  /**
   * What the whole plugin needs: the main module's entry status, HTTP if any module imports it,
   * and whether every module is instrumented for preemption (or has no code).
   */
  info: { returnsStatus: boolean; usesHttp: boolean; preemptible: boolean; clientImports: ClientImportName[] };
}

/**
 * A module may call a toolgate:mcp (or hyper-mcp) function only when the manifest lists its
 * feature under capabilities.mcp; hyper-mcp's functions only in a module.abi hyper-mcp manifest.
 * Checked here, not when preparing: the compiled module is cached by digest and may serve
 * manifests that declare different features.
 */
function checkClientImports(spec: SandboxToolSpec, label: string, imports: readonly ClientImportName[]): void {
  const declared = spec.clientFeatures ?? [];
  for (const name of imports) {
    const what = `tool "${spec.name}", ${label}: import "${importLabel(name)}"`;
    if (isHyperImport(name) && spec.hyperHostFunctions !== true) {
      throw new SandboxLoadError(
        'FORBIDDEN_IMPORT',
        `${what} is from namespace "${HYPER_NAMESPACE}": a host function only an embedding application can provide; toolgate serves hyper-mcp's only to a module.abi hyper-mcp manifest`,
      );
    }
    const feature = importFeature(name);
    if ((declared as readonly string[]).includes(feature)) continue;
    throw new SandboxLoadError(
      'FORBIDDEN_IMPORT',
      `${what} needs capabilities.mcp to list "${feature}" (it lists ${declared.length === 0 ? 'nothing' : declared.map((f) => `"${f}"`).join(', ')})`,
    );
  }
}

function unitOf(name: string, wasiNamespace: string, compiled: CompiledModule): ModuleUnit {
  const { usesWasi, hasInitialize, hasStart, hasHsInit } = compiled.info;
  return { name, module: compiled.module, usesWasi, wasiNamespace, hasInitialize, hasStart, hasHsInit };
}

export async function compileUnits(spec: SandboxToolSpec, preempt: boolean): Promise<CompiledUnits> {
  if (spec.abi === 'component') return compileComponent(spec, preempt);
  const links = spec.links ?? [];
  const linkNamespaces = links.map((l) => l.namespace);
  const common = {
    tool: spec.name,
    maxPages: spec.limits.maxPages,
    wasiImportNames: WASI_IMPORT_NAMES,
    linkNamespaces,
    preempt,
  };
  // linked modules first: an import nothing provides is reported from the module that declares it
  const linked: ModuleUnit[] = [];
  const labels: string[] = [];
  let usesHttp = false;
  let preemptible = preempt;
  const clientImports = new Set<ClientImportName>();
  for (const link of links) {
    const label = `module.link "${link.namespace}"`;
    const wasiNamespace = `${TOOLGATE_WASI_NAMESPACE}@${link.namespace}`;
    const compiled = await compileModule(link.wasm, { ...common, wasiNamespace, label }, link.sha256);
    linked.push(unitOf(link.namespace, wasiNamespace, compiled));
    labels.push(label);
    usesHttp ||= compiled.info.usesHttp;
    preemptible &&= compiled.info.preemptible;
    checkClientImports(spec, label, compiled.info.clientImports);
    for (const n of compiled.info.clientImports) clientImports.add(n);
  }
  const main = await compileModule(spec.wasm, { ...common, entry: spec.entry }, spec.sha256);
  const units = [unitOf('main', TOOLGATE_WASI_NAMESPACE, main), ...linked];
  labels.unshift('the main module');
  usesHttp ||= main.info.usesHttp;
  preemptible &&= main.info.preemptible;
  checkClientImports(spec, 'the main module', main.info.clientImports);
  for (const n of main.info.clientImports) clientImports.add(n);
  checkLinks(
    spec.name,
    units.map((u, i) => ({ name: u.name, label: labels[i] ?? u.name, module: u.module })),
  );
  return {
    units,
    info: { returnsStatus: main.info.returnsStatus, usesHttp, preemptible, clientImports: [...clientImports] },
  };
}

/** The exports worker/component-runner.ts calls; a core module without one is refused at load. */
const COMPONENT_EXPORTS = [COMPONENT_CALL_EXPORT, COMPONENT_POST_CALL_EXPORT, COMPONENT_REALLOC_EXPORT, 'memory'];

/**
 * module.abi: component: the component's pin is checked on the component's bytes, its shape against
 * toolgate's world (module/component.ts), and its one core module is then checked, capped and
 * compiled like any module (cached by its own digest).
 */
async function compileComponent(spec: SandboxToolSpec, preempt: boolean): Promise<CompiledUnits> {
  // the manifest loader's digest of these very bytes when it read them (one hash per load)
  const digest = sha256HexOnce(spec.wasm);
  if (spec.sha256 !== undefined && spec.sha256.toLowerCase() !== digest) {
    throw new SandboxLoadError(
      'BAD_MODULE',
      `tool "${spec.name}": component sha256 is ${digest}, the manifest pins ${spec.sha256}`,
    );
  }
  const core = toolModuleOf(spec.wasm, spec.name);
  const label = "the component's core module";
  const common = {
    tool: spec.name,
    maxPages: spec.limits.maxPages,
    wasiImportNames: WASI_IMPORT_NAMES,
    label,
    preempt,
    component: true,
  };
  const main = await compileModule(core, common, undefined, { digest, bytes: spec.wasm });
  const has = new Set(WebAssembly.Module.exports(main.module).map((e) => e.name));
  const missing = COMPONENT_EXPORTS.filter((name) => !has.has(name));
  if (missing.length > 0)
    throw new SandboxLoadError('MISSING_ENTRY', `tool "${spec.name}", ${label}: does not export ${missing.join(', ')}`);
  const units = [unitOf('main', TOOLGATE_WASI_NAMESPACE, main)];
  return {
    units,
    info: { returnsStatus: false, usesHttp: main.info.usesHttp, preemptible: main.info.preemptible, clientImports: [] },
  };
}
