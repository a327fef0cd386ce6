// Hostile module paths in a manifest (issue 11, holes 4 and 6): a module is a regular file, at
// most the size cap, starting with the wasm magic and version, refused before it is read whole.
import { execFileSync } from 'node:child_process';
import { symlink, truncate } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { ManifestError } from '../../host/src/manifest/errors.js';
import { loadManifestDirs, loadManifestFile } from '../../host/src/manifest/load.js';
import { DEFAULT_MAX_MODULE_BYTES, readModuleFile, FileRuleError } from '../../host/src/manifest/module-file.js';
import { FAKE_WASM, manifestWith, tempDir, writeFileIn, yamlOf } from './helpers.js';

let dir: string;
let cleanup: () => Promise<void>;
beforeEach(async () => {
  ({ dir, cleanup } = await tempDir());
});
afterEach(async () => {
  await cleanup();
});

async function refusal(p: Promise<unknown>): Promise<ManifestError> {
  try {
    await p;
  } catch (err) {
    if (err instanceof ManifestError) return err;
    throw err;
  }
  throw new Error('expected a ManifestError');
}

const manifestFor = (path: string) => writeFileIn(dir, 'tool.yaml', yamlOf(manifestWith({ module: { path } })));

describe('a module is a regular, size-capped WebAssembly file', () => {
  test('module.path: /dev/zero is refused at once as a character device, naming the manifest and module.path', async () => {
    const file = await manifestFor('/dev/zero');
    const err = await refusal(loadManifestFile(file));
    expect(err.code).toBe('MODULE_INVALID');
    expect(err.file).toBe(file);
    expect(err.path).toBe('module.path');
    expect(err.rule).toBe('module file /dev/zero must be a regular file (it is a character device)');
  });

  test('a FIFO as the module is refused without waiting for a writer', async () => {
    execFileSync('mkfifo', [join(dir, 'pipe.wasm')]);
    const file = await manifestFor('pipe.wasm');
    const err = await refusal(loadManifestFile(file));
    expect(err.code).toBe('MODULE_INVALID');
    expect(err.rule).toContain('must be a regular file (it is a FIFO)');
  });

  test('a directory as the module is refused', async () => {
    const file = await manifestFor('.');
    const err = await refusal(loadManifestFile(file));
    expect(err.rule).toContain('must be a regular file (it is a directory)');
  });

  test('a file that is not WebAssembly (a private key, /etc/passwd) is refused naming the rule', async () => {
    await writeFileIn(dir, 'id_ed25519', '-----BEGIN OPENSSH PRIVATE KEY-----\nsecret\n');
    const file = await manifestFor('id_ed25519');
    const err = await refusal(loadManifestFile(file));
    expect(err.code).toBe('MODULE_INVALID');
    expect(err.message).toContain(
      `${file}: module.path: module file ${join(dir, 'id_ed25519')} is not a WebAssembly module`,
    );
    const passwd = await refusal(loadManifestFile(await manifestFor('/etc/passwd')));
    expect(passwd.rule).toContain('/etc/passwd is not a WebAssembly module');
  });

  test('the wasm version is checked too, and an empty file is not a module', async () => {
    await writeFileIn(dir, 'v2.wasm', new Uint8Array([0, 0x61, 0x73, 0x6d, 2, 0, 0, 0]));
    expect((await refusal(loadManifestFile(await manifestFor('v2.wasm')))).rule).toContain(
      'is not a WebAssembly module',
    );
    await writeFileIn(dir, 'empty.wasm', new Uint8Array(0));
    expect((await refusal(loadManifestFile(await manifestFor('empty.wasm')))).rule).toContain(
      'is not a WebAssembly module',
    );
  });

  test('a module over the cap is refused from its size, before it is read (a 65 MiB sparse file, default cap 64 MiB)', async () => {
    const big = await writeFileIn(dir, 'big.wasm', FAKE_WASM);
    await truncate(big, DEFAULT_MAX_MODULE_BYTES + 1024 * 1024);
    const err = await refusal(loadManifestFile(await manifestFor('big.wasm')));
    expect(err.code).toBe('MODULE_INVALID');
    expect(err.rule).toBe(
      `module file ${big} must be at most ${DEFAULT_MAX_MODULE_BYTES} bytes (it is ${DEFAULT_MAX_MODULE_BYTES + 1024 * 1024})`,
    );
  });

  test('the cap is a loading option: maxModuleBytes lowers it for one load and for a folder', async () => {
    await writeFileIn(dir, 'demo.wasm', new Uint8Array([...FAKE_WASM, ...new Uint8Array(100)]));
    const file = await manifestFor('demo.wasm');
    expect((await loadManifestFile(file)).wasm.length).toBe(108);
    expect((await refusal(loadManifestFile(file, { maxModuleBytes: 64 }))).rule).toContain(
      'must be at most 64 bytes (it is 108)',
    );
    const { manifests, errors } = await loadManifestDirs([dir], { maxModuleBytes: 64 });
    expect(manifests).toEqual([]);
    expect(errors[0]?.code).toBe('MODULE_INVALID');
  });

  test('local manifests may point at a module outside their folder, also through a symlink (the examples do)', async () => {
    await writeFileIn(dir, 'elsewhere/build/demo.wasm', FAKE_WASM);
    await symlink(join(dir, 'elsewhere/build/demo.wasm'), join(dir, 'link.wasm'));
    const nested = await writeFileIn(
      dir,
      'manifests/demo.yaml',
      yamlOf(manifestWith({ module: { path: '../elsewhere/build/demo.wasm' } })),
    );
    expect((await loadManifestFile(nested)).wasm).toEqual(FAKE_WASM);
    expect((await loadManifestFile(await manifestFor('link.wasm'))).wasm).toEqual(FAKE_WASM);
  });

  test('a manifest file that is a symlink to /dev/zero or a FIFO is refused, not read forever', async () => {
    await symlink('/dev/zero', join(dir, 'zero.yaml'));
    execFileSync('mkfifo', [join(dir, 'pipe.yaml')]);
    const zero = await refusal(loadManifestFile(join(dir, 'zero.yaml')));
    expect(zero.rule).toBe('must be a regular file (it is a character device)');
    const { errors } = await loadManifestDirs([dir]);
    expect(errors.map((e) => e.rule)).toContain('must be a regular file (it is a character device)');
    const pipe = await refusal(loadManifestFile(join(dir, 'pipe.yaml')));
    expect(pipe.rule).toBe('must be a regular file (it is a FIFO)');
  });
});

describe('readModuleFile with a folder (packages)', () => {
  test('a module outside the folder, by path or by symlink, is refused naming the folder and the real path', async () => {
    const tool = join(dir, 'tool');
    await writeFileIn(dir, 'victim-private-key.txt', FAKE_WASM);
    await writeFileIn(tool, 'ok.wasm', FAKE_WASM);
    await symlink(join(dir, 'victim-private-key.txt'), join(tool, 'sneaky.wasm'));
    expect(await readModuleFile(join(tool, 'ok.wasm'), { maxBytes: 1024, within: tool })).toEqual(
      Buffer.from(FAKE_WASM),
    );
    for (const path of [join(tool, '../victim-private-key.txt'), join(tool, 'sneaky.wasm')]) {
      const err = await readModuleFile(path, { maxBytes: 1024, within: tool }).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(err).toBeInstanceOf(FileRuleError);
      expect((err as FileRuleError).rule).toContain(
        `must be inside the tool's folder ${tool} (it resolves to ${join(dir, 'victim-private-key.txt')})`,
      );
    }
  });
});
