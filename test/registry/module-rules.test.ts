// A hostile tool folder or package against `pack` and `install` (issue 11, hole 4): a published
// module is a regular WebAssembly file inside its tool's folder, or nothing is packed or installed.
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync, gzipSync } from 'node:zlib';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { installCommand } from '../../host/src/cli/commands/registry-install.js';
import { packCommand } from '../../host/src/cli/commands/registry-pack.js';
import { digestOf, readLock, readTar, storeLayout, writeTar } from '../../host/src/registry/index.js';
import { buildWat, removeDir, run, tempDir, writeToolDir } from './helpers.js';

let work: string;
let wasm: string;
let cwd: string;
let home: string;

beforeAll(() => {
  work = tempDir('modrules');
  wasm = buildWat('registry_echo', work);
});
afterAll(() => removeDir(work));
beforeEach(() => {
  cwd = tempDir('modcase');
  home = join(cwd, 'home');
});
afterEach(() => removeDir(cwd));

const opts = (): { home: string; cwd: string } => ({ home, cwd });

/** A tool folder whose manifest says `module.path: <path>` (written as given). */
function folderPointingAt(path: string): string {
  const dir = writeToolDir(join(cwd, 'tool'), { version: '1.0.0', wasm });
  const manifest = join(dir, 'manifest.yaml');
  writeFileSync(manifest, readFileSync(manifest, 'utf8').replace(/^ {2}path: .*$/m, `  path: ${JSON.stringify(path)}`));
  return dir;
}

async function installed(): Promise<boolean> {
  return (await readLock(storeLayout(home).lock)).tools['registry_echo'] !== undefined;
}

describe('pack and install take a module only from inside the tool folder', () => {
  it('pack refuses module.path: ../victim-private-key.txt and writes no package', async () => {
    writeFileSync(join(cwd, 'victim-private-key.txt'), '-----BEGIN PRIVATE KEY-----\nMC4CAQAwBQYDK2VwBCIEIA==\n');
    const dir = folderPointingAt('../victim-private-key.txt');
    const out = join(cwd, 'leak.tgz');
    const res = await run(packCommand, [dir, '--out', out], opts());
    expect(res.code).not.toBe(0);
    expect(res.err).toContain(
      `error BAD_PACKAGE: ${join(dir, 'manifest.yaml')}: module.path: module file ${join(cwd, 'victim-private-key.txt')} must be inside the tool's folder`,
    );
    expect(existsSync(out)).toBe(false);
  });

  it('pack refuses a module that is WebAssembly but outside the folder (by path or by a symlink inside it)', async () => {
    const byPath = await run(packCommand, [folderPointingAt(wasm), '--out', join(cwd, 'a.tgz')], opts());
    expect(byPath.err).toContain("must be inside the tool's folder");
    removeDir(join(cwd, 'tool'));
    const dir = folderPointingAt('./module.wasm');
    symlinkSync(wasm, join(dir, 'module.wasm'));
    const bySymlink = await run(packCommand, [dir, '--out', join(cwd, 'b.tgz')], opts());
    expect(bySymlink.code).not.toBe(0);
    expect(bySymlink.err).toContain(`(it resolves to ${wasm})`);
  });

  it('pack refuses a README.md that is a symlink to a private file outside the folder', async () => {
    writeFileSync(join(cwd, 'secret.txt'), 'private\n');
    const dir = folderPointingAt('./registry_echo.wasm');
    removeDir(join(dir, 'README.md'));
    symlinkSync(join(cwd, 'secret.txt'), join(dir, 'README.md'));
    const res = await run(packCommand, [dir, '--out', join(cwd, 'r.tgz')], opts());
    expect(res.code).not.toBe(0);
    expect(res.err).toContain(`${join(dir, 'README.md')} must be inside the tool's folder`);
  });

  it('install ./dir refuses /etc/passwd as a module and installs nothing', async () => {
    const res = await run(installCommand, [folderPointingAt('/etc/passwd'), '--yes', '--allow-unsigned'], opts());
    expect(res.code).not.toBe(0);
    expect(res.err).toContain("module.path: module file /etc/passwd must be inside the tool's folder");
    expect(await installed()).toBe(false);
  });

  it('install ./dir refuses a module inside the folder that is not WebAssembly, a FIFO, or /dev/zero by symlink', async () => {
    const dir = folderPointingAt('./module.wasm');
    writeFileSync(join(dir, 'module.wasm'), 'root:x:0:0:root:/root:/bin/bash\n');
    const text = await run(installCommand, [dir, '--yes', '--allow-unsigned'], opts());
    expect(text.err).toContain(`module.path: module file ${join(dir, 'module.wasm')} is not a WebAssembly module`);
    removeDir(join(dir, 'module.wasm'));
    execFileSync('mkfifo', [join(dir, 'module.wasm')]);
    const fifo = await run(installCommand, [dir, '--yes', '--allow-unsigned'], opts());
    expect(fifo.err).toContain('must be a regular file (it is a FIFO)');
    removeDir(join(dir, 'module.wasm'));
    symlinkSync('/dev/zero', join(dir, 'module.wasm'));
    const zero = await run(installCommand, [dir, '--yes', '--allow-unsigned'], opts());
    expect(zero.err).toContain("must be inside the tool's folder");
    expect(await installed()).toBe(false);
  });

  it('install of a package path that is /dev/zero or a FIFO is refused at once', async () => {
    const zero = await run(installCommand, ['/dev/zero', '--yes'], opts());
    expect(zero.code).not.toBe(0);
    expect(zero.err).toContain('/dev/zero must be a regular file (it is a character device)');
    execFileSync('mkfifo', [join(cwd, 'pkg.tgz')]);
    const fifo = await run(installCommand, [join(cwd, 'pkg.tgz'), '--yes'], opts());
    expect(fifo.err).toContain('must be a regular file (it is a FIFO)');
  });

  it('a .tgz whose module.wasm is not WebAssembly (digests made consistent) is refused as BAD_PACKAGE', async () => {
    const dir = writeToolDir(join(cwd, 'good'), { version: '1.0.0', wasm });
    const tgz = join(cwd, 'p.tgz');
    expect((await run(packCommand, [dir, '--out', tgz], opts())).code).toBe(0);
    const fake = Buffer.from('#!/bin/sh\nexit 0\n');
    const hex = digestOf(fake).slice('sha256:'.length);
    const entries = readTar(gunzipSync(readFileSync(tgz)), 't', { maxEntries: 8, maxTotalBytes: 1 << 20 }).map((e) => {
      if (e.name === 'module.wasm') return { name: e.name, data: fake };
      if (e.name === 'manifest.yaml')
        return {
          name: e.name,
          data: Buffer.from(
            Buffer.from(e.data)
              .toString('utf8')
              .replace(/sha256: .*/, `sha256: ${hex}`),
          ),
        };
      return e;
    });
    const byName = new Map(entries.map((e) => [e.name, e.data]));
    const info = JSON.parse(Buffer.from(byName.get('toolgate-package.json') as Uint8Array).toString('utf8')) as {
      files: Record<string, string>;
    };
    for (const name of Object.keys(info.files)) info.files[name] = digestOf(byName.get(name) as Uint8Array);
    const rebuilt = entries.map((e) =>
      e.name === 'toolgate-package.json' ? { name: e.name, data: Buffer.from(JSON.stringify(info)) } : e,
    );
    writeFileSync(tgz, gzipSync(writeTar(rebuilt)));
    const res = await run(installCommand, [tgz, '--yes', '--allow-unsigned'], opts());
    expect(res.code).not.toBe(0);
    expect(res.err).toContain(`error BAD_PACKAGE: ${tgz}/module.wasm: is not a WebAssembly module`);
    expect(await installed()).toBe(false);
  });

  it('the ceiling key max_module_bytes refuses a package whose module is larger', async () => {
    const dir = writeToolDir(join(cwd, 'good'), { version: '1.0.0', wasm });
    const size = readFileSync(wasm).length;
    const ceiling = join(cwd, 'ceiling.yaml');
    writeFileSync(ceiling, `max_module_bytes: ${size - 1}\n`);
    const res = await run(installCommand, [dir, '--yes', '--allow-unsigned', '--ceiling', ceiling], opts());
    expect(res.code).not.toBe(0);
    expect(res.err).toContain(`module of ${size} bytes is above the ceiling of ${size - 1} (max_module_bytes)`);
    writeFileSync(ceiling, `max_module_bytes: ${size}\n`);
    const ok = await run(installCommand, [dir, '--yes', '--allow-unsigned', '--ceiling', ceiling], opts());
    expect(ok.code, ok.err).toBe(0);
  });
});
