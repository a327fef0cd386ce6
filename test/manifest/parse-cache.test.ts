// The on-disk cache of parsed manifests ($TOOLGATE_HOME/cache/manifests): a hit equals a fresh
// parse, an edit parses again, a damaged entry is rebuilt, a bad manifest is never stored.
import { readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { ManifestError } from '../../host/src/manifest/errors.js';
import { loadManifestFile } from '../../host/src/manifest/load.js';
import { parseManifestCached, useManifestParseCache } from '../../host/src/manifest/parse-cache.js';
import { parseManifest } from '../../host/src/manifest/parse.js';
import { FAKE_WASM, manifestWith, tempDir, writeFileIn, yamlOf } from './helpers.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

let dir: string;
let cache: string;
let cleanup: () => Promise<void>;
beforeEach(async () => {
  ({ dir, cleanup } = await tempDir());
  cache = join(dir, 'cache', 'manifests');
  useManifestParseCache(cache);
});
afterEach(async () => {
  useManifestParseCache(undefined);
  await cleanup();
});

const entries = async (): Promise<string[]> => (await readdir(cache).catch(() => [] as string[])).filter((f) => f.endsWith('.json'));

async function writeTool(over: Record<string, unknown> = {}): Promise<string> {
  await writeFileIn(dir, 'demo.wasm', FAKE_WASM);
  return writeFileIn(dir, 'demo.yaml', yamlOf(manifestWith(over)));
}

describe('parsed manifests on disk', () => {
  test('a manifest loaded twice is answered from the cache the second time, equal to a fresh parse', async () => {
    const file = await writeTool({ inputSchema: { type: 'object', properties: { text: { type: 'string', pattern: '^[a-z]+$' } }, required: ['text'] } });
    const first = await loadManifestFile(file);
    const stored = await entries();
    expect(stored).toHaveLength(1);
    const second = await loadManifestFile(file);
    expect(second.manifest).toStrictEqual(first.manifest);
    expect(second.manifest).toStrictEqual(parseManifest(await readFile(file, 'utf8'), file));
    // proof that the second answer came from the entry: an entry changed by hand is what is read
    const path = join(cache, stored[0] as string);
    const entry = JSON.parse(await readFile(path, 'utf8')) as { manifest: { description: string } };
    entry.manifest.description = 'from the cache';
    await writeFile(path, JSON.stringify(entry));
    expect((await loadManifestFile(file)).manifest.description).toBe('from the cache');
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
    for (const bad of ['not json', good.slice(0, good.length >> 1), JSON.stringify({ ...JSON.parse(good), key: 'another' }), JSON.stringify({ ...JSON.parse(good), format: 0 }), 'null']) {
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
    await writeFileIn(dir, 'cache', 'a file where the cache folder would be');
    useManifestParseCache(join(dir, 'cache', 'manifests'));
    const file = await writeTool();
    expect((await loadManifestFile(file)).manifest.name).toBe('demo');
  });

  test('every bundled example and conformance manifest is stored, and its hit equals a fresh parse', async () => {
    const files = [
      ...(await readdir(join(ROOT, 'manifests'))).filter((f) => f.endsWith('.yaml')).map((f) => join(ROOT, 'manifests', f)),
      ...(await readdir(join(ROOT, 'manifests', 'conformance'))).filter((f) => f.endsWith('.yaml')).map((f) => join(ROOT, 'manifests', 'conformance', f)),
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
