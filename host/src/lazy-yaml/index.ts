// yaml, loaded on the first text parsed or written, once per process. A start on a warm
// $TOOLGATE_HOME takes its manifests from the sealed parse cache and, with no YAML policy file,
// parses no YAML at all, so it should not evaluate yaml's 262 KB (20-46 ms cold; docs/decisions.md
// "yaml off a warm start"). A leaf, so every parser of YAML text loads it the same way
// (docs/architecture.md §2).
import type { Dirent } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { messageOf } from '../errors/index.js';

// yaml's Node build is CommonJS, so requiring it keeps parsing synchronous. The bundled command
// points YAML_MODULE at yaml bundled into one file beside its chunks (scripts/bundle.mjs): from
// node_modules it is ~70 files to resolve and read.
const YAML_MODULE = 'yaml';
const requireCjs = createRequire(import.meta.url);
let loaded: typeof import('yaml') | undefined;

/** The yaml library, required on first use. */
export function yaml(): typeof import('yaml') {
  loaded ??= requireCjs(YAML_MODULE) as typeof import('yaml');
  return loaded;
}

/**
 * The file yaml is required from, without loading it: bundled, the one-file copy, which the parse
 * cache's key must cover since no chunk name changes with it (manifest/parse-cache.ts).
 */
export function yamlFile(): string {
  return requireCjs.resolve(YAML_MODULE);
}

/**
 * The largest manifest text, in bytes: manifests are small, and a huge one is a mistake or an attack
 * on the parser. Here beside readYaml, so serve's start-up helper leaves such a text to the serving
 * thread (which refuses it, manifest/parse.ts) by the same bound without loading the manifest rules.
 */
export const MAX_MANIFEST_BYTES = 256 * 1024;

/**
 * The manifest files among a folder's entries (`readdir(folder, { withFileTypes: true })`): each
 * *.yaml / *.yml file or symlink, as a path in `folder`, by name. Here beside readYaml, so serve's
 * start-up helper lists a folder by the very rule the loaders use (manifest/load.ts,
 * server/manifest-scan.ts) without loading them.
 */
export function manifestFilesIn(folder: string, entries: readonly Dirent[]): string[] {
  return entries
    .filter((e) => (e.isFile() || e.isSymbolicLink()) && /\.ya?ml$/i.test(e.name))
    .map((e) => e.name)
    .sort()
    .map((name) => join(folder, name));
}

/** One problem yaml found in a text: its message and, when yaml knows it, where. */
interface YamlProblem {
  message: string;
  line?: number;
  col?: number;
}

/** A text read as a manifest is read: its data, or what is wrong with it (the composer's errors, or toJS's). */
type YamlReading = { data: unknown } | { problems: YamlProblem[]; composed: boolean };

/**
 * Parses `text` with the settings manifests are parsed with (unique keys, strict, at most 50
 * aliases expanded, which stops "billion laughs"). One function, so serve's start-up helper
 * (cli/prep-worker.ts), which runs it on its own thread, reads a manifest exactly as
 * manifest/parse.ts does; `composed` false means toJS failed after a clean parse.
 */
export function readYaml(text: string): YamlReading {
  const doc = yaml().parseDocument(text, { prettyErrors: true, uniqueKeys: true, strict: true });
  if (doc.errors.length > 0)
    return {
      composed: true,
      problems: doc.errors.map((e) => {
        const pos = e.linePos?.[0];
        return pos === undefined ? { message: e.message } : { message: e.message, line: pos.line, col: pos.col };
      }),
    };
  try {
    return { data: doc.toJS({ maxAliasCount: 50 }) };
  } catch (err) {
    return { composed: false, problems: [{ message: messageOf(err) }] };
  }
}
