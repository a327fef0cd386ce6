// A tool name claimed by more than one manifest is served by none of them. Keeping the first (by
// folder and file order) let whichever file sorted first shadow the other, silently for the one
// that lost; refusing every claimant leaves no order to exploit, and the error names each file
// (docs/decisions.md, "No shadowing: a name claimed twice is served by neither"). A hyper-mcp
// manifest named `p` claims every name `p__*` it serves (hyper-mcp.ts SERVED_SEPARATOR): a plain
// manifest named in that space is refused, and the plugin does not serve that name either
// (docs/decisions.md, "A plain manifest in a hyper-mcp plugin's names").
import { ManifestError } from './errors.js';

/** What is needed of a loaded manifest here (load.ts's LoadedManifest, without importing it back). */
interface Named {
  readonly file: string;
  readonly manifest: { readonly name: string; readonly module: { readonly abi?: string | undefined } };
}

/** Per hyper-mcp manifest file: the served names it must not serve, each with the plain manifest's file. */
export type WithheldNames = ReadonlyMap<string, ReadonlyMap<string, string>>;

export interface Unshared<T> {
  manifests: T[];
  errors: ManifestError[];
  withheld: WithheldNames;
}

/** The manifests whose name no other manifest claims, and a DUPLICATE_TOOL error for each other one. */
export function withoutSharedNames<T extends Named>(loaded: readonly T[]): Unshared<T> {
  const files = new Map<string, string[]>();
  for (const m of loaded) files.set(m.manifest.name, [...(files.get(m.manifest.name) ?? []), m.file]);
  const manifests: T[] = [];
  const errors: ManifestError[] = [];
  for (const m of loaded) {
    const claimants = files.get(m.manifest.name) ?? [];
    if (claimants.length === 1) {
      manifests.push(m);
      continue;
    }
    const others = claimants.filter((f) => f !== m.file);
    errors.push(
      new ManifestError('DUPLICATE_TOOL', m.file, [
        {
          path: 'name',
          rule: `tool "${m.manifest.name}" is also defined by ${others.join(', ')}; a name claimed by more than one manifest is served by none of them (rename or remove all but one)`,
        },
      ]),
    );
  }
  return withoutPluginNames(manifests, errors);
}

/** The plain manifests named `p__*` beside a hyper-mcp manifest `p`, refused and withheld from it. */
function withoutPluginNames<T extends Named>(kept: T[], errors: ManifestError[]): Unshared<T> {
  const plugins = new Map(kept.filter((m) => m.manifest.module.abi === 'hyper-mcp').map((m) => [m.manifest.name, m]));
  const withheld = new Map<string, Map<string, string>>();
  const manifests: T[] = [];
  for (const m of kept) {
    const plugin = m.manifest.module.abi === 'hyper-mcp' ? undefined : pluginClaiming(m.manifest.name, plugins);
    if (plugin === undefined) {
      manifests.push(m);
      continue;
    }
    const names = withheld.get(plugin.file) ?? new Map<string, string>();
    withheld.set(plugin.file, names.set(m.manifest.name, m.file));
    errors.push(
      new ManifestError('DUPLICATE_TOOL', m.file, [
        {
          path: 'name',
          rule: `tool "${m.manifest.name}" is in the names of the hyper-mcp plugin "${plugin.manifest.name}" (${plugin.file}), which serves its tools as "${plugin.manifest.name}__<tool>"; a name claimed by more than one manifest is served by none of them (rename one)`,
        },
      ]),
    );
  }
  return { manifests, errors, withheld };
}

/** The hyper-mcp manifest whose served names (`<plugin>__...`) include `name`, if one is loaded. */
function pluginClaiming<T extends Named>(name: string, plugins: ReadonlyMap<string, T>): T | undefined {
  for (let at = name.indexOf('__'); at > 0; at = name.indexOf('__', at + 1)) {
    const plugin = plugins.get(name.slice(0, at));
    if (plugin !== undefined) return plugin;
  }
  return undefined;
}

/** What a described plugin holds here (hyper-mcp.ts's LoadedPlugin). */
interface Serving {
  readonly file: string;
  tools: { readonly name: string }[];
  operations: { readonly name: string }[];
  readonly problems: ManifestError[];
}

/**
 * Drops from a described plugin the served names a plain manifest claims, each reported on the
 * plugin's side with the plain manifest's file; the plugin's other tools are served.
 */
export function withholdNames(plugin: Serving, withheld: WithheldNames): void {
  const names = withheld.get(plugin.file);
  if (names === undefined) return;
  const keep = (t: { readonly name: string }): boolean => {
    const plainFile = names.get(t.name);
    if (plainFile === undefined) return true;
    plugin.problems.push(
      new ManifestError('DUPLICATE_TOOL', plugin.file, [
        {
          path: 'tools',
          rule: `tool "${t.name}" is also defined by ${plainFile}; a name claimed by more than one manifest is served by none of them (rename or remove one)`,
        },
      ]),
    );
    return false;
  };
  plugin.tools = plugin.tools.filter(keep);
  plugin.operations = plugin.operations.filter(keep);
}
