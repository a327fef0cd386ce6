// Which entries of a folder are manifest files (lazy-yaml's manifestFilesIn): the one rule the
// loaders and serve's start-up helper list a folder by.
import { mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, expect, test } from 'vitest';
import { manifestFilesIn } from '../../host/src/lazy-yaml/index.js';
import { helperPlanOf } from '../../host/src/cli/startup-plan.js';
import { loadManifestDirs } from '../../host/src/manifest/load.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

test('*.yaml and *.yml files and symlinks, any case, by name; folders and other names are not manifests', () => {
  const dir = mkdtempSync(join(tmpdir(), 'tg-manifest-files-'));
  dirs.push(dir);
  for (const name of ['b.yaml', 'a.yml', 'C.YAML', 'notes.txt', 'yaml', 'x.yaml.bak'])
    writeFileSync(join(dir, name), '');
  mkdirSync(join(dir, 'folder.yaml'));
  symlinkSync(join(dir, 'b.yaml'), join(dir, 'link.yaml'));
  const files = manifestFilesIn(dir, readdirSync(dir, { withFileTypes: true }));
  expect(files).toEqual(['C.YAML', 'a.yml', 'b.yaml', 'link.yaml'].map((n) => join(dir, n)));
});

test("serve's start-up helper plans the files the loader loads, in the loader's order", async () => {
  const dir = mkdtempSync(join(tmpdir(), 'tg-manifest-plan-'));
  dirs.push(dir);
  for (const name of ['z.yaml', 'm.yml', 'a.yaml', 'skip.json']) writeFileSync(join(dir, name), 'name: [');
  const planned = helperPlanOf([dir], dir);
  const { errors } = await loadManifestDirs([dir]);
  // every file the loader read is reported (each is malformed), in the order it read them
  expect(errors.map((e) => e.file)).toEqual(planned);
  expect(planned).toEqual(['a.yaml', 'm.yml', 'z.yaml'].map((n) => join(dir, n)));
});
