// A tool name claimed by more than one manifest is served by none of them. Keeping the first (by
// folder and file order) let whichever file sorted first shadow the other, silently for the one
// that lost; refusing every claimant leaves no order to exploit, and the error names each file
// (docs/decisions.md, "No shadowing: a name claimed twice is served by neither").
import { ManifestError } from './errors.js';

/** What is needed of a loaded manifest here (load.ts's LoadedManifest, without importing it back). */
interface Named {
  readonly file: string;
  readonly manifest: { readonly name: string };
}

/** The manifests whose name no other manifest claims, and a DUPLICATE_TOOL error for each other one. */
export function withoutSharedNames<T extends Named>(loaded: readonly T[]): { manifests: T[]; errors: ManifestError[] } {
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
  return { manifests, errors };
}
