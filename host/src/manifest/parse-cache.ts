// Parsed manifests on disk ($TOOLGATE_HOME/cache/manifests), so a start does not parse and validate
// again a manifest it has seen. Parsing is pure (text in, Manifest out), and cold it costs 1.5-3 ms
// per manifest (yaml and zod run unoptimised at start-up): about 50 ms of a 20-tool start. The key
// covers the manifest's text and the identity of the code that parses, so an edit, a rebuild or
// an upgrade parses again. Only manifests that parsed cleanly are stored; a file that is corrupt,
// for another key or unreadable is ignored and rewritten. Mounts inside the cache are refused
// (protected-dirs.ts), so no tool can plant an entry.
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { isDeepStrictEqual } from 'node:util';
import { writeCacheFile } from '../cache-files/index.js';
import { parseManifest } from './parse.js';
import type { Manifest } from './schema.js';

/** Bumped when the entry layout changes. */
const FORMAT = 1;

let dir: string | undefined;

/** Turns the cache on (a folder) or off (undefined) for this process. */
export function useManifestParseCache(folder: string | undefined): void {
  dir = folder;
}

let codeIdentity: string | undefined;
/**
 * What the running parser is. Bundled, this file's chunk imports the schema, zod and yaml chunks
 * by content-hashed names, so its digest changes with any of them. From sources (tests), every
 * file of this folder counts.
 */
function parserIdentity(): string {
  if (codeIdentity !== undefined) return codeIdentity;
  const self = fileURLToPath(import.meta.url);
  const hash = createHash('sha256');
  const files = self.endsWith('.ts') ? readdirSync(dirname(self)).filter((f) => f.endsWith('.ts')).sort().map((f) => join(dirname(self), f)) : [self];
  for (const f of files) hash.update(f).update('\0').update(readFileSync(f));
  codeIdentity = hash.digest('hex');
  return codeIdentity;
}

const keyOf = (text: string): string => createHash('sha256').update(`${FORMAT}\0${parserIdentity()}\0`).update(text).digest('hex');

/** parseManifest, answered from the cache when this text was parsed before by the same code. */
export async function parseManifestCached(text: string, file: string): Promise<Manifest> {
  const folder = dir;
  if (folder === undefined) return parseManifest(text, file);
  const key = keyOf(text);
  const path = join(folder, `${key}.json`);
  const hit = await readEntry(path, key);
  if (hit !== undefined) return hit;
  const manifest = parseManifest(text, file);
  // Only what survives JSON unchanged is stored: a hit must equal a fresh parse.
  const json = JSON.stringify({ format: FORMAT, key, manifest });
  const back: unknown = JSON.parse(json);
  if (typeof back === 'object' && back !== null && 'manifest' in back && isDeepStrictEqual(back.manifest, manifest)) await writeCacheFile(folder, `${key}.json`, json);
  return manifest;
}

async function readEntry(path: string, key: string): Promise<Manifest | undefined> {
  try {
    const entry: unknown = JSON.parse(await readFile(path, 'utf8'));
    if (typeof entry !== 'object' || entry === null || !('format' in entry) || !('key' in entry) || !('manifest' in entry)) return undefined;
    if (entry.format !== FORMAT || entry.key !== key || typeof entry.manifest !== 'object' || entry.manifest === null) return undefined;
    // Written by parseManifestCached from a parse of this very text by this very code.
    return entry.manifest as Manifest;
  } catch {
    return undefined;
  }
}
