// What a module.abi: hyper-mcp module describes that a model reads: per tool the projection a
// model is shown, per resource, resource template and prompt its identity and text. The store pins
// it at install (docs/registry.md, "What the model reads"); a manifest with a pin beside it serves
// only what still matches, so text the module describes differently later (it may depend on config,
// files in a mount or HTTP) is refused, never silently served (docs/decisions.md, "Described text
// is pinned").
import { readFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { z } from 'zod';
import type { Json, JsonObject, ModelToolView, ServedItem } from '../tool/index.js';
import { codeOf, messageOf } from '../errors/index.js';
import { ManifestError } from './errors.js';

/** The kinds of described things, each with the parts pinned one by one (absent = null). */
export const DESCRIBED_KINDS = {
  tools: { label: 'tool', parts: ['name', 'title', 'description', 'inputSchema', 'outputSchema', 'annotations'] },
  resources: { label: 'resource', parts: ['uri', 'name', 'title', 'description', 'mimeType'] },
  resourceTemplates: { label: 'resource template', parts: ['uriTemplate', 'name', 'title', 'description', 'mimeType'] },
  prompts: { label: 'prompt', parts: ['name', 'title', 'description', 'arguments'] },
} as const;
export type DescribedKind = keyof typeof DESCRIBED_KINDS;
export const DESCRIBED_KIND_NAMES = Object.keys(DESCRIBED_KINDS) as DescribedKind[];

/** One described thing: its key (served tool name, URI, URI template, prompt name) and its parts. */
export interface DescribedEntry {
  key: string;
  parts: Record<string, Json>;
}

export type DescribedText = { plugin: string } & Record<DescribedKind, DescribedEntry[]>;

const KEY_PART: Record<DescribedKind, string> = {
  tools: 'name',
  resources: 'uri',
  resourceTemplates: 'uriTemplate',
  prompts: 'name',
};

function entryOf(kind: DescribedKind, value: JsonObject): DescribedEntry {
  const parts: Record<string, Json> = {};
  for (const p of DESCRIBED_KINDS[kind].parts) parts[p] = value[p] ?? null;
  return { key: String(value[KEY_PART[kind]]), parts };
}

/** The text a plugin serves, in one shape whatever its kind (entries in the order described). */
export function describedTextOf(
  plugin: string,
  tools: readonly ModelToolView[],
  surface: {
    resources: readonly ServedItem[];
    resourceTemplates: readonly ServedItem[];
    prompts: readonly ServedItem[];
  },
): DescribedText {
  return {
    plugin,
    tools: tools.map((t) => entryOf('tools', t as unknown as JsonObject)),
    resources: surface.resources.map((r) => entryOf('resources', r)),
    resourceTemplates: surface.resourceTemplates.map((r) => entryOf('resourceTemplates', r)),
    prompts: surface.prompts.map((p) => entryOf('prompts', p)),
  };
}

/** Deep equality of JSON values, object key order aside. */
export function sameJson(a: Json | undefined, b: Json | undefined): boolean {
  if (a === b) return true;
  if (a === null || b === null || a === undefined || b === undefined || typeof a !== 'object' || typeof b !== 'object')
    return false;
  if (Array.isArray(a) || Array.isArray(b)) {
    return Array.isArray(a) && Array.isArray(b) && a.length === b.length && a.every((x, i) => sameJson(x, b[i]));
  }
  const ka = Object.keys(a);
  const kb = Object.keys(b);
  return ka.length === kb.length && ka.every((k) => Object.hasOwn(b, k) && sameJson(a[k], b[k]));
}

/** The parts of `now` that differ from `pinned`; ['(not pinned)'] when nothing was pinned under its key. */
export function changedParts(kind: DescribedKind, pinned: DescribedEntry | undefined, now: DescribedEntry): string[] {
  if (pinned === undefined) return ['(not pinned)'];
  return DESCRIBED_KINDS[kind].parts.filter((p) => !sameJson(pinned.parts[p] ?? null, now.parts[p] ?? null));
}

// ---- the pin file the store writes beside an installed manifest

/** Far above what the load caps let a module describe; a bigger file is not a pin the store wrote. */
const MAX_PIN_BYTES = 32 * 1024 * 1024;
/** The pin file's shape: each kind's entries, a key and its parts. */
function buildPinSchema() {
  const entrySchema = z.strictObject({ key: z.string(), parts: z.record(z.string(), z.json()) });
  return z.strictObject({
    plugin: z.string(),
    tools: z.array(entrySchema),
    resources: z.array(entrySchema),
    resourceTemplates: z.array(entrySchema),
    prompts: z.array(entrySchema),
  });
}
let pinSchema: ReturnType<typeof buildPinSchema> | undefined;

/** `manifest.yaml` -> `manifest.described.json`, in the manifest's folder. */
export function describedPinFile(manifestFile: string): string {
  return join(dirname(manifestFile), `${basename(manifestFile).replace(/\.ya?ml$/i, '')}.described.json`);
}

/** The pin beside a manifest, or undefined when there is none; a pin that cannot be read refuses the plugin. */
export async function readDescribedPin(manifestFile: string): Promise<DescribedText | undefined> {
  const file = describedPinFile(manifestFile);
  let text: string;
  try {
    const bytes = await readFile(file);
    if (bytes.length > MAX_PIN_BYTES) throw new Error(`larger than ${MAX_PIN_BYTES} bytes`);
    text = bytes.toString('utf8');
  } catch (err) {
    if (codeOf(err) === 'ENOENT') return undefined;
    throw new ManifestError('READ_FAILED', manifestFile, [
      { path: '', rule: `its pin of described text ${file} cannot be read: ${messageOf(err)}` },
    ]);
  }
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (err) {
    throw new ManifestError('TEXT_CHANGED', manifestFile, [
      { path: '', rule: `its pin of described text ${file} is not JSON: ${messageOf(err)}` },
    ]);
  }
  // built on the first pin read: a start that serves no hyper-mcp module never builds it (docs/decisions.md,
  // "The manifest schema on zod/mini")
  pinSchema ??= buildPinSchema();
  const parsed = pinSchema.safeParse(raw);
  if (!parsed.success)
    throw new ManifestError('TEXT_CHANGED', manifestFile, [
      { path: '', rule: `its pin of described text ${file} is malformed` },
    ]);
  return parsed.data as DescribedText;
}
