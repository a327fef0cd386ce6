import { createHash } from 'node:crypto';
import { mkdir, realpath, symlink } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { ManifestError } from '../../host/src/manifest/errors.js';
import { loadManifestDirs, loadManifestFile } from '../../host/src/manifest/load.js';
import { FAKE_WASM, manifestWith, tempDir, writeFileIn, yamlOf } from './helpers.js';

let dir: string;
let cleanup: () => Promise<void>;
beforeEach(async () => {
  ({ dir, cleanup } = await tempDir());
});
afterEach(async () => {
  await cleanup();
});

const sha = (b: Uint8Array) => createHash('sha256').update(b).digest('hex');

async function failure(p: Promise<unknown>): Promise<ManifestError> {
  try {
    await p;
  } catch (err) {
    if (err instanceof ManifestError) return err;
    throw err;
  }
  throw new Error('expected a ManifestError');
}

describe('loadManifestFile', () => {
  test('module.path is resolved against the manifest folder, not the working directory', async () => {
    await writeFileIn(dir, 'modules/demo.wasm', FAKE_WASM);
    const file = await writeFileIn(
      dir,
      'tools/sub/demo.yaml',
      yamlOf(manifestWith({ module: { path: '../../modules/demo.wasm' } })),
    );
    const loaded = await loadManifestFile(file);
    expect(loaded.file).toBe(file);
    expect(loaded.modulePath).toBe(join(dir, 'modules/demo.wasm'));
    expect([...loaded.wasm]).toEqual([...FAKE_WASM]);
    expect(loaded.sha256).toBe(sha(FAKE_WASM));
  });

  test('a module whose bytes match module.sha256 loads', async () => {
    await writeFileIn(dir, 'demo.wasm', FAKE_WASM);
    const file = await writeFileIn(
      dir,
      'demo.yaml',
      yamlOf(manifestWith({ module: { path: 'demo.wasm', sha256: sha(FAKE_WASM).toUpperCase() } })),
    );
    expect((await loadManifestFile(file)).sha256).toBe(sha(FAKE_WASM));
  });

  test('a sha256 mismatch is refused naming the file, the expected and the actual digest', async () => {
    await writeFileIn(dir, 'demo.wasm', FAKE_WASM);
    const wrong = '0'.repeat(64);
    const file = await writeFileIn(
      dir,
      'demo.yaml',
      yamlOf(manifestWith({ module: { path: 'demo.wasm', sha256: wrong } })),
    );
    const err = await failure(loadManifestFile(file));
    expect(err.code).toBe('SHA256_MISMATCH');
    expect(err.file).toBe(file);
    expect(err.path).toBe('module.sha256');
    expect(err.message).toContain(`expected ${wrong}`);
    expect(err.message).toContain(`actual ${sha(FAKE_WASM)}`);
  });

  test('a missing module names the resolved path and says to build it; make examples only for the shipped examples', async () => {
    const file = await writeFileIn(
      dir,
      'm/demo.yaml',
      yamlOf(manifestWith({ module: { path: '../build/nothere.wasm' } })),
    );
    const err = await failure(loadManifestFile(file));
    expect(err.code).toBe('MODULE_MISSING');
    expect(err.path).toBe('module.path');
    expect(err.message).toContain(join(dir, 'build/nothere.wasm'));
    expect(err.message).toContain('(build the module first)');
    expect(err.message).not.toContain('make examples');
    const example = await writeFileIn(
      dir,
      'm/example.yaml',
      yamlOf(manifestWith({ module: { path: '../pdk-examples/wat/build/nothere.wasm' } })),
    );
    expect((await failure(loadManifestFile(example))).message).toContain(
      '(build the example modules with `make examples`)',
    );
  });

  test('a missing manifest file is a READ_FAILED error naming it', async () => {
    const err = await failure(loadManifestFile(join(dir, 'none.yaml')));
    expect(err.code).toBe('READ_FAILED');
    expect(err.file).toBe(join(dir, 'none.yaml'));
  });

  test('an oversized manifest file is refused before it is parsed', async () => {
    const file = await writeFileIn(dir, 'big.yaml', `# ${'x'.repeat(300 * 1024)}\n`);
    const err = await failure(loadManifestFile(file));
    expect(err.code).toBe('INVALID_MANIFEST');
    expect(err.rule).toContain('must be at most 262144 bytes');
  });

  test('allowed_paths host dirs are resolved against the manifest folder to real absolute paths', async () => {
    await writeFileIn(dir, 'demo.wasm', FAKE_WASM);
    await mkdir(join(dir, 'real-workspace'));
    await symlink(join(dir, 'real-workspace'), join(dir, 'workspace'));
    const absDir = join(dir, 'abs');
    await mkdir(absDir);
    const file = await writeFileIn(
      dir,
      'demo.yaml',
      yamlOf(
        manifestWith({
          module: { path: 'demo.wasm' },
          capabilities: {
            allowed_paths: { '/data': { host: './workspace', mode: 'ro' }, '/out': { host: absDir, mode: 'rw' } },
          },
        }),
      ),
    );
    const loaded = await loadManifestFile(file);
    expect(loaded.allowedPaths).toEqual({
      '/data': { host: await realpath(join(dir, 'real-workspace')), mode: 'ro' },
      '/out': { host: await realpath(absDir), mode: 'rw' },
    });
    // The parsed manifest keeps what the author wrote (for consent text).
    expect(loaded.manifest.capabilities.allowed_paths['/data']?.host).toBe('./workspace');
  });

  test('an allowed_paths host that does not exist is refused with its key path', async () => {
    await writeFileIn(dir, 'demo.wasm', FAKE_WASM);
    const file = await writeFileIn(
      dir,
      'demo.yaml',
      yamlOf(
        manifestWith({
          module: { path: 'demo.wasm' },
          capabilities: { allowed_paths: { '/data': { host: './nope' } } },
        }),
      ),
    );
    const err = await failure(loadManifestFile(file));
    expect(err.code).toBe('PATH_INVALID');
    expect(err.path).toBe('capabilities.allowed_paths["/data"].host');
    expect(err.rule).toContain(`directory ${join(dir, 'nope')} does not exist`);
  });

  test('an allowed_paths host that is a file is refused', async () => {
    await writeFileIn(dir, 'demo.wasm', FAKE_WASM);
    const file = await writeFileIn(
      dir,
      'demo.yaml',
      yamlOf(
        manifestWith({
          module: { path: 'demo.wasm' },
          capabilities: { allowed_paths: { '/data': { host: 'demo.wasm' } } },
        }),
      ),
    );
    const err = await failure(loadManifestFile(file));
    expect(err.code).toBe('PATH_INVALID');
    expect(err.rule).toContain('must be a directory');
  });
});

describe('a mount may not contain $TOOLGATE_HOME (it holds the approval secret)', () => {
  const saved = process.env.TOOLGATE_HOME;
  afterEach(() => {
    process.env.TOOLGATE_HOME = saved;
  });

  test.each([
    ['the folder holding $TOOLGATE_HOME', '.'],
    ['$TOOLGATE_HOME itself', './home'],
    ['the file system root', '/'],
  ])('a grant of %s is refused, naming the key path', async (_label, host) => {
    process.env.TOOLGATE_HOME = join(dir, 'home');
    await mkdir(join(dir, 'home/tools/demo'), { recursive: true });
    await writeFileIn(dir, 'home/approval-secret', 'the-secret\n');
    await writeFileIn(dir, 'demo.wasm', FAKE_WASM);
    const file = await writeFileIn(
      dir,
      'demo.yaml',
      yamlOf(
        manifestWith({
          module: { path: 'demo.wasm' },
          capabilities: { allowed_paths: { '/all': { host, mode: 'ro' } } },
        }),
      ),
    );
    const err = await failure(loadManifestFile(file));
    expect(err.code).toBe('PATH_INVALID');
    expect(err.path).toBe('capabilities.allowed_paths["/all"].host');
    expect(err.rule).toContain('contains $TOOLGATE_HOME');
  });

  test("a folder inside $TOOLGATE_HOME (an installed tool's own data) may still be mounted", async () => {
    process.env.TOOLGATE_HOME = join(dir, 'home');
    await mkdir(join(dir, 'home/tools/demo/data'), { recursive: true });
    await writeFileIn(dir, 'demo.wasm', FAKE_WASM);
    const file = await writeFileIn(
      dir,
      'demo.yaml',
      yamlOf(
        manifestWith({
          module: { path: 'demo.wasm' },
          capabilities: { allowed_paths: { '/data': { host: './home/tools/demo/data' } } },
        }),
      ),
    );
    const loaded = await loadManifestFile(file);
    expect(loaded.allowedPaths['/data']?.host).toBe(await realpath(join(dir, 'home/tools/demo/data')));
  });

  test.each([
    ['the policy set in $TOOLGATE_HOME/policies', './home/policies'],
    ['the folder of installed tools', './home/tools'],
    ["an installed tool's folder (its manifest.yaml)", './home/tools/demo'],
    ['the module blobs', './home/blobs'],
    ["the store's staging folder", './home/tmp'],
  ])('a grant of %s is refused (a tool could rewrite the policies or grow its own grants)', async (_label, host) => {
    process.env.TOOLGATE_HOME = join(dir, 'home');
    await mkdir(join(dir, host), { recursive: true });
    await writeFileIn(dir, 'demo.wasm', FAKE_WASM);
    const file = await writeFileIn(
      dir,
      'demo.yaml',
      yamlOf(
        manifestWith({
          module: { path: 'demo.wasm' },
          capabilities: { allowed_paths: { '/h': { host, mode: 'rw' } } },
        }),
      ),
    );
    const err = await failure(loadManifestFile(file));
    expect(err.code).toBe('PATH_INVALID');
    expect(err.path).toBe('capabilities.allowed_paths["/h"].host');
    expect(err.rule).toContain('is inside $TOOLGATE_HOME');
  });

  test.each([
    ['the cache itself', './home/cache'],
    ['the prepared-module cache', './home/cache/prepared'],
  ])(
    "a grant of %s is refused (a tool that wrote prepared modules could unsandbox the next start's tools)",
    async (_label, host) => {
      process.env.TOOLGATE_HOME = join(dir, 'home');
      await mkdir(join(dir, 'home/cache/prepared'), { recursive: true });
      await writeFileIn(dir, 'demo.wasm', FAKE_WASM);
      const file = await writeFileIn(
        dir,
        'demo.yaml',
        yamlOf(
          manifestWith({
            module: { path: 'demo.wasm' },
            capabilities: { allowed_paths: { '/c': { host, mode: 'rw' } } },
          }),
        ),
      );
      const err = await failure(loadManifestFile(file));
      expect(err.code).toBe('PATH_INVALID');
      expect(err.path).toBe('capabilities.allowed_paths["/c"].host');
      expect(err.rule).toContain("inside toolgate's cache");
    },
  );
});

describe('loadManifestDirs', () => {
  async function tool(sub: string, fileName: string, name: string) {
    await writeFileIn(dir, `${sub}/${name}.wasm`, FAKE_WASM);
    return writeFileIn(dir, `${sub}/${fileName}`, yamlOf(manifestWith({ name, module: { path: `${name}.wasm` } })));
  }

  test('one bad manifest is reported and skipped while the others load', async () => {
    await tool('m', 'a.yaml', 'alpha');
    const bad = await writeFileIn(
      dir,
      'm/b.yaml',
      yamlOf(manifestWith({ name: 'beta', capabilities: { timeout_ms: -1 } })),
    );
    await tool('m', 'c.yml', 'gamma');
    const { manifests, errors } = await loadManifestDirs([join(dir, 'm')]);
    expect(manifests.map((m) => m.manifest.name)).toEqual(['alpha', 'gamma']);
    expect(errors).toHaveLength(1);
    expect(errors[0]?.file).toBe(bad);
    expect(errors[0]?.path).toBe('capabilities.timeout_ms');
    expect(errors[0]?.rule).toBe('must be >= 1');
  });

  test('files load in name order; other files and sub-folders are ignored', async () => {
    await tool('m', 'z.yaml', 'zeta');
    await tool('m', 'a.yaml', 'alpha');
    await tool('m/nested', 'n.yaml', 'nested');
    await writeFileIn(dir, 'm/notes.txt', 'not a manifest');
    const { manifests, errors } = await loadManifestDirs([join(dir, 'm')]);
    expect(manifests.map((m) => m.manifest.name)).toEqual(['alpha', 'zeta']);
    expect(errors).toEqual([]);
  });

  test('a tool name two manifests claim is an error for each naming the other file, and neither is kept (no shadowing)', async () => {
    const first = await tool('one', 'x.yaml', 'same');
    await writeFileIn(dir, 'two/same.wasm', new Uint8Array([...FAKE_WASM, 1, 2, 3]));
    const second = await writeFileIn(
      dir,
      'two/y.yaml',
      yamlOf(manifestWith({ name: 'same', module: { path: 'same.wasm' } })),
    );
    await tool('two', 'z.yaml', 'other');
    const { manifests, errors } = await loadManifestDirs([join(dir, 'one'), join(dir, 'two')]);
    expect(manifests.map((m) => m.manifest.name)).toEqual(['other']);
    expect(errors.map((e) => [e.code, e.file])).toEqual([
      ['DUPLICATE_TOOL', first],
      ['DUPLICATE_TOOL', second],
    ]);
    expect(errors[0]?.message).toContain(`tool "same" is also defined by ${second}`);
    expect(errors[1]?.message).toContain(`tool "same" is also defined by ${first}`);
    expect(errors[0]?.message).toContain('served by none of them');
    // the order of the folders decides nothing: the other way round gives the same refusal
    const swapped = await loadManifestDirs([join(dir, 'two'), join(dir, 'one')]);
    expect(swapped.manifests.map((m) => m.manifest.name)).toEqual(['other']);
  });

  test('a directory that does not exist is reported, or skipped when asked', async () => {
    const missing = join(dir, 'nowhere');
    const reported = await loadManifestDirs([missing]);
    expect(reported.errors.map((e) => [e.code, e.file])).toEqual([['DIR_MISSING', missing]]);
    const skipped = await loadManifestDirs([missing], { ignoreMissingDirs: true });
    expect(skipped).toEqual({ manifests: [], errors: [], withheld: new Map() });
  });

  test('a YAML syntax error in one file does not stop the folder', async () => {
    await writeFileIn(dir, 'm/a.yaml', 'name: [broken\n');
    await tool('m', 'b.yaml', 'beta');
    const { manifests, errors } = await loadManifestDirs([join(dir, 'm')]);
    expect(manifests.map((m) => m.manifest.name)).toEqual(['beta']);
    expect(errors[0]?.code).toBe('YAML_SYNTAX');
    expect(errors[0]?.message).toMatch(/line \d+, column \d+/);
  });
});
