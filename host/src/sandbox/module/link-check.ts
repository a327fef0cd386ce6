// Cross-module checks for module.link, once every module is compiled: each import from a linked
// namespace must name an export of that module of the same kind, or the tool is refused at load
// (the SDK would only find out when it instantiates, at the first call).
import { SandboxLoadError } from '../load-error.js';

export interface LinkUnit {
  /** 'main' or the import namespace the module is linked under. */
  name: string;
  label: string;
  module: WebAssembly.Module;
}

export function checkLinks(tool: string, units: readonly LinkUnit[]): void {
  const byName = new Map(units.map((u) => [u.name, u]));
  for (const unit of units) {
    for (const imp of WebAssembly.Module.imports(unit.module)) {
      // host namespaces were checked when the module was prepared
      const provider = imp.module === 'main' ? undefined : byName.get(imp.module);
      if (provider === undefined) continue;
      const found = WebAssembly.Module.exports(provider.module).some((e) => e.name === imp.name && e.kind === imp.kind);
      if (!found) {
        throw new SandboxLoadError(
          'FORBIDDEN_IMPORT',
          `tool "${tool}", ${unit.label}: import "${imp.module}" "${imp.name}" (${imp.kind}) is not exported by ${provider.label}`,
        );
      }
    }
  }
}
