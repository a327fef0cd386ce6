// Parsed manifests on disk ($TOOLGATE_HOME/cache/manifests), so a start does not parse and validate
// again a manifest it has seen. Parsing is pure (text in, Manifest out), and cold it costs 1.5-3 ms
// per manifest (yaml and zod run unoptimised at start-up): about 50 ms of a 20-tool start. The key
// covers the manifest's text and the identity of the code that parses, so an edit, a rebuild or
// an upgrade parses again. Only manifests that parsed cleanly are stored. An entry is a seal line
// and the JSON; the seal (cache-files, architecture.md §5) covers the key and the JSON under this
// home's cache key, so an entry edited by hand (a mount added, say) or for another text is never
// read back: like one that is corrupt or unreadable, it is ignored and rewritten. Mounts inside the
// cache are refused (protected-dirs.ts) as well.
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { isDeepStrictEqual } from 'node:util';
import { sealMatches, sealOf, writeCacheEntry, type CacheFolder } from '../cache-files/index.js';
import { parseManifest } from './parse.js';
import { yamlFile } from '../lazy-yaml/index.js';
import type { Manifest } from './schema.js';

/** Bumped when the entry layout changes (2: a seal line before the JSON). */
const FORMAT = 2;
const KIND = 'toolgate-parsed-manifest';

let cache: CacheFolder | undefined;
let helper: YamlHelper | undefined;

/**
 * Serve's start-up helper (cli/startup-prep.ts), asked on a miss: resolves with `text` as YAML gave
 * it on the helper's thread, or undefined (not read there, read with a problem, another text, late,
 * gone): then it is parsed here. Only the YAML step is taken from it (parseManifest).
 */
export type YamlHelper = (file: string, text: string) => Promise<{ data: unknown } | undefined>;

/** Turns the cache on (an open cache folder) or off (undefined) for this process, with serve's start-up helper if any. */
export function useManifestParseCache(folder: CacheFolder | undefined, yamlHelper?: YamlHelper): void {
  cache = folder;
  helper = yamlHelper;
}

/** Where the last parses came from (tests read it). */
export const manifestParseCacheStats = { fromDisk: 0, parsed: 0 };

const sealed = (key: string, json: string): string[] => [KIND, String(FORMAT), key, json];

let codeIdentity: string | undefined;
/**
 * What the running parser is. Bundled, this file's chunk imports the schema and zod chunks by
 * content-hashed names, so its digest changes with any of them; yaml is required by a fixed name
 * on first use (lazy-yaml), so its file counts too. From sources (tests), every file of this folder
 * counts.
 */
function parserIdentity(): string {
  if (codeIdentity !== undefined) return codeIdentity;
  const self = fileURLToPath(import.meta.url);
  const hash = createHash('sha256');
  const files = self.endsWith('.ts')
    ? readdirSync(dirname(self))
        .filter((f) => f.endsWith('.ts'))
        .sort()
        .map((f) => join(dirname(self), f))
    : [self];
  files.push(yamlFile());
  for (const f of files) hash.update(f).update('\0').update(readFileSync(f));
  codeIdentity = hash.digest('hex');
  return codeIdentity;
}

const keyOf = (text: string): string =>
  createHash('sha256').update(`${FORMAT}\0${parserIdentity()}\0`).update(text).digest('hex');

/** parseManifest, answered from the cache when this text was parsed before by the same code. */
export async function parseManifestCached(text: string, file: string): Promise<Manifest> {
  const folder = cache;
  if (folder === undefined) return parseManifest(text, file, await helper?.(file, text));
  const key = keyOf(text);
  const hit = await readEntry(folder, key);
  if (hit !== undefined) {
    manifestParseCacheStats.fromDisk++;
    return hit;
  }
  const manifest = parseManifest(text, file, await helper?.(file, text));
  manifestParseCacheStats.parsed++;
  // Only what survives JSON unchanged is stored: a hit must equal a fresh parse. Checked now, as
  // parsed; the seal and the write may come later (cache-files/later.ts).
  const json = JSON.stringify({ format: FORMAT, key, manifest });
  const back: unknown = JSON.parse(json);
  if (typeof back === 'object' && back !== null && 'manifest' in back && isDeepStrictEqual(back.manifest, manifest)) {
    await writeCacheEntry(folder.dir, `${key}.json`, () => `${sealOf(folder.secret, sealed(key, json))}\n${json}`);
  }
  return manifest;
}

async function readEntry(folder: CacheFolder, key: string): Promise<Manifest | undefined> {
  try {
    const file = await readFile(join(folder.dir, `${key}.json`), 'utf8');
    const cut = file.indexOf('\n');
    if (cut < 0) return undefined;
    const json = file.slice(cut + 1);
    // the seal first: an entry another hand wrote or edited is not even parsed
    if (!sealMatches(folder.secret, sealed(key, json), file.slice(0, cut))) return undefined;
    const entry: unknown = JSON.parse(json);
    if (
      typeof entry !== 'object' ||
      entry === null ||
      !('format' in entry) ||
      !('key' in entry) ||
      !('manifest' in entry)
    )
      return undefined;
    if (entry.format !== FORMAT || entry.key !== key || typeof entry.manifest !== 'object' || entry.manifest === null)
      return undefined;
    // Sealed by parseManifestCached, from a parse of this very text by this very code.
    return entry.manifest as Manifest;
  } catch {
    return undefined;
  }
}
