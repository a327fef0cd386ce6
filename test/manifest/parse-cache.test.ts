// The on-disk cache of parsed manifests ($TOOLGATE_HOME/cache/manifests): a hit equals a fresh
// parse, an edit parses again, a damaged or hand-edited entry is rebuilt, a bad manifest is never
// stored. (Forged entries through the shipped command: test/cache-files/forged-entries.test.ts.)
import { readdir, readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { ManifestError } from '../../host/src/manifest/errors.js';
import { loadManifestFile } from '../../host/src/manifest/load.js';
import { openCache, openCacheFolder } from '../../host/src/cache-files/index.js';
import {
  manifestParseCacheStats,
  parseManifestCached,
  useManifestParseCache,
} from '../../host/src/manifest/parse-cache.js';
import { parseManifest } from '../../host/src/manifest/parse.js';
import { FAKE_WASM, manifestWith, tempDir, writeFileIn, yamlOf } from './helpers.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

let dir: string;
let cache: string;
let cleanup: () => Promise<void>;
/** Turns the cache on at `root`/manifests, as the CLI does for $TOOLGATE_HOME/cache. */
async function useCacheAt(root: string): Promise<void> {
  const opened = await openCache(root, () => {});
  useManifestParseCache(opened === undefined ? undefined : await openCacheFolder(opened, 'manifests'));
}

beforeEach(async () => {
  ({ dir, cleanup } = await tempDir());
  cache = join(dir, 'cache', 'manifests');
  await useCacheAt(join(dir, 'cache'));
});
afterEach(async () => {
  useManifestParseCache(undefined);
  await cleanup();
});

const entries = async (): Promise<string[]> =>
  (await readdir(cache).catch(() => [] as string[])).filter((f) => f.endsWith('.json'));

async function writeTool(over: Record<string, unknown> = {}): Promise<string> {
  await writeFileIn(dir, 'demo.wasm', FAKE_WASM);
  return writeFileIn(dir, 'demo.yaml', yamlOf(manifestWith(over)));
}

describe('parsed manifests on disk', () => {
  test('a manifest loaded twice is answered from the cache the second time, equal to a fresh parse', async () => {
    const file = await writeTool({
      inputSchema: {
        type: 'object',
        properties: { text: { type: 'string', pattern: '^[a-z]+$' } },
        required: ['text'],
      },
    });
    const first = await loadManifestFile(file);
    const stored = await entries();
    expect(stored).toHaveLength(1);
    const path = join(cache, stored[0] as string);
    const inode = (await stat(path)).ino;
    const before = { ...manifestParseCacheStats };
    const second = await loadManifestFile(file);
    expect(second.manifest).toStrictEqual(first.manifest);
    expect(second.manifest).toStrictEqual(parseManifest(await readFile(file, 'utf8'), file));
    // the second answer came from the entry, which was read, not rewritten (a rewrite is a rename)
    expect(manifestParseCacheStats.fromDisk - before.fromDisk).toBe(1);
    expect(manifestParseCacheStats.parsed - before.parsed).toBe(0);
    expect((await stat(path)).ino).toBe(inode);
  });

  test('an entry changed by hand does not verify under the cache key: the manifest is parsed again and the entry rewritten', async () => {
    const file = await writeTool();
    await loadManifestFile(file);
    const [name] = await entries();
    const path = join(cache, name as string);
    const good = await readFile(path, 'utf8');
    const cut = good.indexOf('\n');
    const entry = JSON.parse(good.slice(cut + 1)) as { manifest: { description: string } };
    entry.manifest.description = 'from the cache';
    await writeFile(path, `${good.slice(0, cut)}\n${JSON.stringify(entry)}`);
    expect((await loadManifestFile(file)).manifest.description).not.toBe('from the cache');
    expect(await readFile(path, 'utf8')).toBe(good);
  });

  test('an edited manifest is parsed again: the key covers its text', async () => {
    const file = await writeTool();
    await loadManifestFile(file);
    await writeTool({ description: 'Edited.' });
    expect((await loadManifestFile(file)).manifest.description).toBe('Edited.');
    expect(await entries()).toHaveLength(2);
  });

  test('a damaged, truncated or foreign entry is ignored and rewritten', async () => {
    const file = await writeTool();
    const fresh = (await loadManifestFile(file)).manifest;
    const [name] = await entries();
    const path = join(cache, name as string);
    const good = await readFile(path, 'utf8');
    const cut = good.indexOf('\n');
    const [seal, json] = [good.slice(0, cut), JSON.parse(good.slice(cut + 1)) as object];
    const resealed = (over: object): string => `${seal}\n${JSON.stringify({ ...json, ...over })}`;
    for (const bad of [
      'not json',
      good.slice(0, good.length >> 1),
      resealed({ key: 'another' }),
      resealed({ format: 0 }),
      'null',
      `${seal}\nnull`,
    ]) {
      await writeFile(path, bad);
      expect((await loadManifestFile(file)).manifest).toStrictEqual(fresh);
      expect(await readFile(path, 'utf8')).toBe(good);
    }
  });

  test('a manifest that does not parse is never stored, and fails the same way every time', async () => {
    const file = await writeTool({ version: 'not-a-version', extra_key: 1 });
    for (let i = 0; i < 2; i++) {
      const err = await loadManifestFile(file).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(ManifestError);
      expect((err as ManifestError).issues.map((x) => x.path)).toEqual(expect.arrayContaining(['version']));
    }
    expect(await entries()).toEqual([]);
  });

  test('with the cache off nothing is written', async () => {
    useManifestParseCache(undefined);
    await loadManifestFile(await writeTool());
    expect(await entries()).toEqual([]);
  });

  test('a folder that cannot be written is skipped: the manifest still loads', async () => {
    await writeFileIn(dir, 'blocked', 'a file where the cache folder would be');
    await useCacheAt(join(dir, 'blocked'));
    const file = await writeTool();
    expect((await loadManifestFile(file)).manifest.name).toBe('demo');
  });

  test('every bundled example and conformance manifest is stored, and its hit equals a fresh parse', async () => {
    const files = [
      ...(await readdir(join(ROOT, 'manifests')))
        .filter((f) => f.endsWith('.yaml'))
        .map((f) => join(ROOT, 'manifests', f)),
      ...(await readdir(join(ROOT, 'manifests', 'conformance')))
        .filter((f) => f.endsWith('.yaml'))
        .map((f) => join(ROOT, 'manifests', 'conformance', f)),
    ];
    expect(files.length).toBeGreaterThan(10);
    for (const file of files) {
      const text = await readFile(file, 'utf8');
      const fresh = parseManifest(text, file);
      expect(await parseManifestCached(text, file)).toStrictEqual(fresh);
      expect(await parseManifestCached(text, file)).toStrictEqual(fresh);
    }
    expect(await entries()).toHaveLength(files.length);
  });
});
