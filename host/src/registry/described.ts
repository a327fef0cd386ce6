// module.abi: hyper-mcp packages describe their own tools, resources, templates and prompts: that
// text is only known by running the module. At install the module's list exports run in the
// sandbox under the package manifest's limits (the manifest folder's own load path); what they
// describe is screened, shown for review (served names on install, a word diff on upgrade), pinned
// in the lockfile part by part and written beside the installed manifest, where every later load
// holds the module to it (docs/registry.md, "What the model reads"; docs/decisions.md, "Described
// text is pinned").
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import {
  DESCRIBED_KINDS,
  DESCRIBED_KIND_NAMES,
  describedPinFile,
  loadManifestText,
  pluginFromManifest,
  type DescribedEntry,
  type DescribedKind,
  type DescribedText,
  type LoadedManifest,
} from '../manifest/index.js';
import type { Json } from '../tool/index.js';
import { messageOf } from '../errors/index.js';
import { digestOf } from './digest.js';
import { RegistryError } from './errors.js';
import type { LockEntry } from './lockfile.js';
import { sortedJson } from './model-text.js';
import { MANIFEST_FILE, type DescribedPin, type ToolPackage } from './package.js';
import { screenDescribedText, visibleText } from './screen.js';
import { blobPath, type StoreLayout } from './store-layout.js';
import { wordDiff } from './word-diff.js';

const digestText = (text: string): string => digestOf(Buffer.from(text, 'utf8'));

function pinEntry(kind: DescribedKind, e: DescribedEntry): DescribedPin['tools'][number] {
  const parts: Record<string, string> = {};
  for (const p of DESCRIBED_KINDS[kind].parts) parts[p] = digestText(sortedJson(e.parts[p] ?? null));
  // the same sum as a manifest's model pin (model-text.ts): the part digests in order, one a line
  return { key: e.key, digest: digestText(DESCRIBED_KINDS[kind].parts.map((p) => parts[p]).join('\n')), parts };
}

/**
 * Digests of the described text, whole (the pin file's bytes) and entry by entry, part by part.
 * Entries are pinned in key order: a module that lists the same things in another order describes
 * the same text.
 */
export function pinDescribed(described: DescribedText): { json: string; pin: DescribedPin } {
  const byKey = (list: DescribedEntry[]) => [...list].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  const text: DescribedText = {
    plugin: described.plugin,
    tools: byKey(described.tools),
    resources: byKey(described.resources),
    resourceTemplates: byKey(described.resourceTemplates),
    prompts: byKey(described.prompts),
  };
  const json = sortedJson(text);
  const of = (kind: DescribedKind) => text[kind].map((e) => pinEntry(kind, e));
  return {
    json,
    pin: {
      digest: digestText(json),
      tools: of('tools'),
      resources: of('resources'),
      resourceTemplates: of('resourceTemplates'),
      prompts: of('prompts'),
    },
  };
}

/**
 * The module runs before the person has agreed to its grant, so it describes itself with less: no
 * hosts, secrets or client features, and every mount read-only (docs/decisions.md, "Described text
 * is pinned"). Text that needs more than that to be written is not text to pin.
 */
function beforeConsent(loaded: LoadedManifest): LoadedManifest {
  const m = loaded.manifest;
  const readOnly = <T extends { mode: string }>(grants: Record<string, T>): Record<string, T> =>
    Object.fromEntries(Object.entries(grants).map(([guest, g]) => [guest, { ...g, mode: 'ro' }]));
  const capabilities = {
    ...m.capabilities,
    allowed_hosts: [],
    secrets: [],
    mcp: [],
    allowed_paths: readOnly(m.capabilities.allowed_paths),
  };
  return { ...loaded, manifest: { ...m, capabilities }, allowedPaths: readOnly(loaded.allowedPaths) };
}

/**
 * Runs the package's module under its manifest as it will be installed (module and links from the
 * package bytes, mounts resolved from the tool's store folder) and keeps what it describes on
 * `pkg.described`. Other packages are left alone. A module that cannot be described is refused:
 * what it would serve could be neither reviewed nor pinned.
 */
export async function describePackage(layout: StoreLayout, pkg: ToolPackage, manifestText: string): Promise<void> {
  if (pkg.manifest.module.abi !== 'hyper-mcp') return;
  const modules = new Map<string, Uint8Array>();
  for (const bytes of Object.values(pkg.files))
    if (bytes !== undefined) modules.set(blobPath(layout, digestOf(bytes)), bytes);
  let plugin;
  try {
    const loaded = await loadManifestText({
      file: join(layout.tools, pkg.name, MANIFEST_FILE),
      text: manifestText,
      modules,
    });
    plugin = await pluginFromManifest(beforeConsent(loaded));
  } catch (err) {
    throw new RegistryError(
      'BAD_PACKAGE',
      `${pkg.name}@${pkg.version}: its module could not be described under its manifest's limits, so what it serves cannot be reviewed or pinned: ${messageOf(err)}`,
    );
  }
  await plugin.dispose();
  const { json, pin } = pinDescribed(plugin.described);
  pkg.described = {
    text: plugin.described,
    json,
    pin,
    flags: screenDescribedText(plugin.described),
    refused: plugin.problems.map((p) => p.message),
  };
}

/** Each entry whose text differs from the pin, as `tool "x" (description)`; [] when all match. */
export function describedChanges(pin: DescribedPin, now: DescribedPin): string[] {
  if (pin.digest === now.digest) return [];
  const out: string[] = [];
  for (const kind of DESCRIBED_KIND_NAMES) {
    const before = new Map(pin[kind].map((e) => [e.key, e]));
    const label = DESCRIBED_KINDS[kind].label;
    for (const e of now[kind]) {
      const was = before.get(e.key);
      before.delete(e.key);
      if (was === undefined) out.push(`${label} "${visibleText(e.key)}" (added)`);
      else if (was.digest !== e.digest)
        out.push(
          `${label} "${visibleText(e.key)}" (${Object.keys(e.parts)
            .filter((p) => e.parts[p] !== was.parts[p])
            .join(', ')})`,
        );
    }
    for (const key of before.keys()) out.push(`${label} "${visibleText(key)}" (removed)`);
  }
  return out;
}

const oneLine = (text: string, max = 100): string => {
  const flat = visibleText(text).replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
};

function entryLine(kind: DescribedKind, e: DescribedEntry): string {
  const label = DESCRIBED_KINDS[kind].label;
  const name = kind === 'resources' || kind === 'resourceTemplates' ? ` (${oneLine(String(e.parts['name']), 60)})` : '';
  const args =
    kind === 'prompts' && Array.isArray(e.parts['arguments'])
      ? ` (arguments: ${e.parts['arguments'].map((a) => oneLine(String((a as Record<string, Json>)['name']), 40)).join(', ')})`
      : '';
  const description = typeof e.parts['description'] === 'string' ? `: ${oneLine(e.parts['description'])}` : '';
  return `${label} ${visibleText(e.key)}${name}${args}${description}`;
}

/** The consent lines of a new install: every tool, resource, template and prompt it serves, by served name. */
export function describedReview(pkg: ToolPackage): string {
  const d = pkg.described;
  if (d === undefined) return '';
  const lines = DESCRIBED_KIND_NAMES.flatMap((kind) => d.text[kind].map((e) => entryLine(kind, e)));
  const refused = d.refused.map((r) => `  refused at load: ${visibleText(r)}\n`).join('');
  return `${pkg.name} serves what its module describes (pinned in the lockfile):\n${lines.length === 0 ? '  (nothing)\n' : lines.map((l) => `  ${l}\n`).join('')}${refused}`;
}

/** The described text an installed tool was pinned to, if its pin file is there and whole. */
export async function installedDescribed(
  layout: StoreLayout,
  name: string,
  entry: LockEntry,
): Promise<DescribedText | undefined> {
  if (entry.described === undefined) return undefined;
  const text = await readFile(describedPinFile(join(layout.tools, name, MANIFEST_FILE)), 'utf8').catch(() => undefined);
  if (text === undefined || digestText(text) !== entry.described.digest) return undefined;
  return JSON.parse(text) as DescribedText;
}

const partText = (v: Json | undefined): string =>
  typeof v === 'string' ? v : v === null || v === undefined ? '(none)' : sortedJson(v, 1);

function entryDiff(
  kind: DescribedKind,
  was: DescribedEntry,
  now: DescribedEntry,
): { parts: string[]; lines: string[] } {
  const parts: string[] = [];
  const lines: string[] = [];
  for (const p of DESCRIBED_KINDS[kind].parts) {
    const a = partText(was.parts[p]);
    const b = partText(now.parts[p]);
    if (a === b) continue;
    parts.push(p);
    const diff = wordDiff(a, b);
    lines.push(`  ${p}:`, ...(diff.length > 0 ? diff : ['(whitespace only)']).map((l) => `    ${l}`));
  }
  return { parts, lines };
}

/** An upgrade's changes to what the module describes: added and removed entries, and a word diff per changed part. */
export function diffDescribed(
  before: DescribedText | undefined,
  after: DescribedText,
): { changed: string[]; lines: string[] } {
  const changed: string[] = [];
  const lines: string[] = [];
  for (const kind of DESCRIBED_KIND_NAMES) {
    const label = DESCRIBED_KINDS[kind].label;
    const was = new Map((before?.[kind] ?? []).map((e) => [e.key, e]));
    for (const e of after[kind]) {
      const old = was.get(e.key);
      was.delete(e.key);
      if (old === undefined) {
        changed.push(`${label} ${visibleText(e.key)} added`);
        lines.push(`${entryLine(kind, e)} {+added+}`);
        continue;
      }
      const d = entryDiff(kind, old, e);
      if (d.parts.length === 0) continue;
      changed.push(`${label} ${visibleText(e.key)} (${d.parts.join(', ')})`);
      lines.push(`${label} ${visibleText(e.key)}:`, ...d.lines);
    }
    for (const e of was.values()) {
      changed.push(`${label} ${visibleText(e.key)} removed`);
      lines.push(`${label} ${visibleText(e.key)} [-removed-]`);
    }
  }
  return { changed, lines };
}

/**
 * Says what an upgrade changes in what the module describes (against the text pinned for the
 * installed version); returns what changed, which asks for consent again.
 */
export async function sayDescribedChanges(
  layout: StoreLayout,
  previous: LockEntry,
  pkg: ToolPackage,
  say: (text: string) => void,
): Promise<string[]> {
  const after = pkg.described;
  if (after === undefined) return [];
  const before = await installedDescribed(layout, pkg.name, previous);
  const diff = diffDescribed(before, after.text);
  say(
    `${pkg.name}: changes to what its module describes${before === undefined ? ' (nothing was pinned before)' : ''}:\n`,
  );
  say(diff.lines.length === 0 ? '  (none)\n' : diff.lines.map((l) => `  ${l}\n`).join(''));
  return diff.changed;
}
