// Linked modules (module.link) in packages (issue 24, item 3): a package's manifest names only files
// inside the package, each linked module travels in the package, is digested, signed, pinned in the
// lockfile and re-checked like the main module, and the install consent names it. The publisher
// here is hostile: it links a file elsewhere on disk, hand-crafts a signed package `pack` would
// refuse, and swaps a linked module's bytes in the store after install.
import { createPrivateKey, createPublicKey, sign } from 'node:crypto';
import { chmodSync, copyFileSync, existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync, gzipSync } from 'node:zlib';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { installCommand } from '../../host/src/cli/commands/registry-install.js';
import { keygenCommand } from '../../host/src/cli/commands/registry-keygen.js';
import { packCommand } from '../../host/src/cli/commands/registry-pack.js';
import { publishCommand } from '../../host/src/cli/commands/registry-publish.js';
import { trustAddCommand } from '../../host/src/cli/commands/registry-trust.js';
import { verifyCommand } from '../../host/src/cli/commands/registry-verify.js';
import {
  digestOf,
  keyIdOf,
  readLock,
  readTar,
  signedStatement,
  storeLayout,
  writeTar,
} from '../../host/src/registry/index.js';
import { runToolgate } from '../server/helpers.js';
import { buildWat, removeDir, run, serveStatic, startRegistry, tempDir, writeToolDir } from './helpers.js';

let work: string;
let mainWasm: string;
let libWasm: string;
let swappedWasm: string;
let key: string;
let cwd: string;
let home: string;

beforeAll(async () => {
  work = tempDir('linked');
  mainWasm = buildWat('registry_linked', work);
  libWasm = buildWat('registry_link_lib', work);
  swappedWasm = buildWat('registry_link_swapped', work);
  key = join(work, 'pub.key');
  expect((await run(keygenCommand, ['--out', key], { home: work, cwd: work })).code).toBe(0);
});
afterAll(() => removeDir(work));
beforeEach(async () => {
  cwd = tempDir('lcase');
  home = join(cwd, 'home');
  expect((await run(trustAddCommand, ['pub', `${key}.pub`], { home, cwd })).code).toBe(0);
});
afterEach(() => removeDir(cwd));

const opts = (): { home: string; cwd: string } => ({ home, cwd });

/** A tool folder whose manifest says `module.link: {lib: <path>}` (and, if given, `module.path: <main>`). */
function folderLinking(libPath: string, main?: string): string {
  const dir = writeToolDir(join(cwd, 'tool'), { version: '1.0.0', wasm: mainWasm });
  const manifest = join(dir, 'manifest.yaml');
  let text = readFileSync(manifest, 'utf8').replace(
    /^ {2}entry: .*$/m,
    (line) => `${line}\n  link:\n    lib: ${JSON.stringify(libPath)}`,
  );
  if (main !== undefined) text = text.replace(/^ {2}path: .*$/m, `  path: ${JSON.stringify(main)}`);
  writeFileSync(manifest, text);
  return dir;
}

/** A tool folder linking its own copy of the honest lib (`./lib.wasm`). */
function honestFolder(): string {
  const dir = folderLinking('./lib.wasm');
  copyFileSync(libWasm, join(dir, 'lib.wasm'));
  return dir;
}

async function installed(): Promise<boolean> {
  return (await readLock(storeLayout(home).lock)).tools['registry_echo'] !== undefined;
}

function entriesOf(tgz: string): Map<string, Buffer> {
  const out = new Map<string, Buffer>();
  for (const e of readTar(gunzipSync(readFileSync(tgz)), tgz, { maxEntries: 64, maxTotalBytes: 1 << 26 }))
    out.set(e.name, Buffer.from(e.data));
  return out;
}

/** Signs files as a publisher would, with its trusted key, and writes the .tgz (no `pack` involved). */
function handCraft(out: string, files: Record<string, Buffer>): string {
  const digests: Record<string, string> = {};
  for (const [name, bytes] of Object.entries(files)) digests[name] = digestOf(bytes);
  const privateKey = createPrivateKey(readFileSync(key, 'utf8'));
  const signature = {
    signer: keyIdOf(createPublicKey(privateKey)),
    signature: sign(null, Buffer.from(signedStatement('registry_echo', '1.0.0', digests)), privateKey).toString(
      'base64',
    ),
  };
  const info = { format: 'toolgate-package/v1', name: 'registry_echo', version: '1.0.0', files: digests, signature };
  const entries = [
    { name: 'toolgate-package.json', data: Buffer.from(JSON.stringify(info)) },
    ...Object.entries(files).map(([name, data]) => ({ name, data })),
  ];
  writeFileSync(out, gzipSync(writeTar(entries.sort((a, b) => (a.name < b.name ? -1 : 1)))));
  return out;
}

describe('a package manifest names only files inside the package', () => {
  it('pack refuses an absolute module.link path outside the folder, naming module.link.lib and the path, and writes no package', async () => {
    const outside = join(cwd, 'elsewhere', 'lib.wasm');
    mkdirSync(join(cwd, 'elsewhere'));
    copyFileSync(libWasm, outside);
    const out = join(cwd, 'p.tgz');
    const res = await run(packCommand, [folderLinking(outside), '--out', out, '--key', key], opts());
    expect(res.code).not.toBe(0);
    expect(res.err).toContain('error BAD_PACKAGE');
    expect(res.err).toContain(`module.link.lib: module file ${outside} must be inside the tool's folder`);
    expect(existsSync(out)).toBe(false);
  });

  it('pack refuses a module.link path that resolves outside the folder by ../ or by a symlink inside it', async () => {
    copyFileSync(libWasm, join(cwd, 'lib.wasm'));
    const byDots = await run(packCommand, [folderLinking('../lib.wasm'), '--out', join(cwd, 'a.tgz')], opts());
    expect(byDots.code).not.toBe(0);
    expect(byDots.err).toContain(
      `module.link.lib: module file ${join(cwd, 'lib.wasm')} must be inside the tool's folder`,
    );
    removeDir(join(cwd, 'tool'));
    const dir = folderLinking('./lib.wasm');
    symlinkSync(join(cwd, 'lib.wasm'), join(dir, 'lib.wasm'));
    const bySymlink = await run(packCommand, [dir, '--out', join(cwd, 'b.tgz')], opts());
    expect(bySymlink.code).not.toBe(0);
    expect(bySymlink.err).toContain('module.link.lib: module file');
    expect(bySymlink.err).toContain(`(it resolves to ${join(cwd, 'lib.wasm')})`);
    expect(existsSync(join(cwd, 'b.tgz'))).toBe(false);
  });

  it('pack refuses an absolute module.path or module.link path even when it points inside the folder', async () => {
    const dir = folderLinking(join(cwd, 'tool', 'lib.wasm'));
    copyFileSync(libWasm, join(dir, 'lib.wasm'));
    const link = await run(packCommand, [dir, '--out', join(cwd, 'a.tgz')], opts());
    expect(link.code).not.toBe(0);
    expect(link.err).toContain(
      `module.link.lib: module file ${join(dir, 'lib.wasm')} must be named relative to the tool's folder (it is an absolute path)`,
    );
    removeDir(join(cwd, 'tool'));
    const main = honestFolder();
    writeFileSync(
      join(main, 'manifest.yaml'),
      readFileSync(join(main, 'manifest.yaml'), 'utf8').replace(
        /^ {2}path: .*$/m,
        `  path: ${JSON.stringify(join(main, 'registry_linked.wasm'))}`,
      ),
    );
    const res = await run(packCommand, [main, '--out', join(cwd, 'b.tgz')], opts());
    expect(res.code).not.toBe(0);
    expect(res.err).toContain(
      `module.path: module file ${join(main, 'registry_linked.wasm')} must be named relative to the tool's folder (it is an absolute path)`,
    );
  });

  it('install ./dir refuses a module.link path outside the folder and installs nothing', async () => {
    const res = await run(installCommand, [folderLinking(libWasm), '--yes', '--allow-unsigned'], opts());
    expect(res.code).not.toBe(0);
    expect(res.err).toContain(`module.link.lib: module file ${libWasm}`);
    expect(await installed()).toBe(false);
  });

  it('install refuses a hand-crafted, validly signed package whose manifest links an absolute path, naming the field and the path', async () => {
    // what the old pack wrote: module.path rewritten, module.link left pointing anywhere on disk
    const manifest = readFileSync(join(folderLinking(libWasm), 'manifest.yaml'), 'utf8').replace(
      /^ {2}path: .*$/m,
      `  path: module.wasm\n  sha256: ${digestOf(readFileSync(mainWasm)).slice(7)}`,
    );
    const tgz = handCraft(join(cwd, 'hostile.tgz'), {
      'manifest.yaml': Buffer.from(manifest),
      'module.wasm': readFileSync(mainWasm),
    });
    const res = await run(installCommand, [tgz, '--yes'], opts());
    expect(res.code).not.toBe(0);
    expect(res.err).toContain('error BAD_PACKAGE');
    expect(res.err).toContain(`module.link.lib: "${libWasm}" is not a file of the package`);
    expect(await installed()).toBe(false);
  });

  it('install refuses a package whose manifest links a path out of the package by ../', async () => {
    const manifest = readFileSync(join(folderLinking('../../lib.wasm'), 'manifest.yaml'), 'utf8').replace(
      /^ {2}path: .*$/m,
      `  path: module.wasm\n  sha256: ${digestOf(readFileSync(mainWasm)).slice(7)}`,
    );
    const tgz = handCraft(join(cwd, 'dots.tgz'), {
      'manifest.yaml': Buffer.from(manifest),
      'module.wasm': readFileSync(mainWasm),
    });
    const res = await run(installCommand, [tgz, '--yes'], opts());
    expect(res.code).not.toBe(0);
    expect(res.err).toContain('module.link.lib: "../../lib.wasm" is not a file of the package');
    expect(await installed()).toBe(false);
  });
});

describe('linked modules are packed, signed, pinned and re-checked like the main module', () => {
  it('pack puts each linked module in the package, pinned in the manifest by digest and covered by the signature', async () => {
    const out = join(cwd, 'p.tgz');
    expect((await run(packCommand, [honestFolder(), '--out', out, '--key', key], opts())).code).toBe(0);
    const files = entriesOf(out);
    const libDigest = digestOf(readFileSync(libWasm));
    expect([...files.keys()].sort()).toEqual([
      'README.md',
      'link-1.wasm',
      'manifest.yaml',
      'module.wasm',
      'toolgate-package.json',
    ]);
    expect(files.get('link-1.wasm')).toEqual(readFileSync(libWasm));
    expect(files.get('manifest.yaml')?.toString()).toMatch(
      new RegExp(`lib:\\s*\\n\\s*path: link-1\\.wasm\\s*\\n\\s*sha256: ${libDigest.slice(7)}`),
    );
    const info = JSON.parse(files.get('toolgate-package.json')?.toString() ?? '{}') as {
      files: Record<string, string>;
    };
    expect(info.files['link-1.wasm']).toBe(libDigest);

    // the signature covers the linked module: the same package with another lib is BAD_SIGNATURE
    const swapped = new Map(files);
    swapped.set('link-1.wasm', readFileSync(swappedWasm));
    const manifest = (files.get('manifest.yaml')?.toString() ?? '').replace(
      libDigest.slice(7),
      digestOf(readFileSync(swappedWasm)).slice(7),
    );
    swapped.set('manifest.yaml', Buffer.from(manifest));
    const listing = JSON.parse(files.get('toolgate-package.json')?.toString() ?? '{}') as {
      files: Record<string, string>;
    };
    listing.files['link-1.wasm'] = digestOf(readFileSync(swappedWasm));
    listing.files['manifest.yaml'] = digestOf(Buffer.from(manifest));
    swapped.set('toolgate-package.json', Buffer.from(JSON.stringify(listing)));
    const tampered = join(cwd, 'tampered.tgz');
    writeFileSync(
      tampered,
      gzipSync(
        writeTar([...swapped].map(([name, data]) => ({ name, data })).sort((a, b) => (a.name < b.name ? -1 : 1))),
      ),
    );
    const res = await run(installCommand, [tampered, '--yes'], opts());
    expect(res.code).not.toBe(0);
    expect(res.err).toContain('BAD_SIGNATURE');
    expect(await installed()).toBe(false);
  });

  it('install pins each linked module in the lockfile, the installed manifest points at its blob, and the tool runs it', async () => {
    const out = join(cwd, 'p.tgz');
    expect((await run(packCommand, [honestFolder(), '--out', out, '--key', key], opts())).code).toBe(0);
    expect((await run(installCommand, [out, '--yes'], opts())).code).toBe(0);
    const layout = storeLayout(home);
    const entry = (await readLock(layout.lock)).tools['registry_echo'];
    const libDigest = digestOf(readFileSync(libWasm));
    expect(entry?.digests['link-1.wasm']).toBe(libDigest);
    const installedManifest = readFileSync(join(layout.tools, 'registry_echo', 'manifest.yaml'), 'utf8');
    expect(installedManifest).toContain(`path: ../../blobs/sha256/${libDigest.slice(7)}`);
    const called = await runToolgate(['call', 'registry_echo', '--args', '{}'], { TOOLGATE_HOME: home });
    expect(called.code, called.stderr).toBe(0);
    expect(called.stdout.trim()).toBe('1');
    expect((await run(verifyCommand, [], opts())).code).toBe(0);
  });

  it('swapping a linked module in the store makes verify fail naming that file, and the tool is not loaded', async () => {
    const out = join(cwd, 'p.tgz');
    expect((await run(packCommand, [honestFolder(), '--out', out, '--key', key], opts())).code).toBe(0);
    expect((await run(installCommand, [out, '--yes'], opts())).code).toBe(0);
    const layout = storeLayout(home);
    const blob = join(layout.blobs, digestOf(readFileSync(libWasm)).slice(7));
    chmodSync(blob, 0o644);
    writeFileSync(blob, readFileSync(swappedWasm));

    const verified = await run(verifyCommand, [], opts());
    expect(verified.code).toBe(1);
    expect(verified.out + verified.err).toContain(blob);
    expect(verified.out + verified.err).toContain('link-1.wasm: blob has digest');
    const called = await runToolgate(['call', 'registry_echo', '--args', '{}'], { TOOLGATE_HOME: home });
    expect(called.code).toBe(2);
    expect(called.stdout).not.toContain('2');
    expect(called.stderr).toContain('link-1.wasm');
  });

  it('an installed manifest re-pointed at a file outside the store is refused by verify even with the lockfile digest fixed up', async () => {
    const out = join(cwd, 'p.tgz');
    expect((await run(packCommand, [honestFolder(), '--out', out, '--key', key], opts())).code).toBe(0);
    expect((await run(installCommand, [out, '--yes'], opts())).code).toBe(0);
    const layout = storeLayout(home);
    const file = join(layout.tools, 'registry_echo', 'manifest.yaml');
    const libHex = digestOf(readFileSync(libWasm)).slice(7);
    const text = readFileSync(file, 'utf8')
      .replace(`../../blobs/sha256/${libHex}`, swappedWasm)
      .replace(libHex, digestOf(readFileSync(swappedWasm)).slice(7));
    writeFileSync(file, text);
    const lock = JSON.parse(readFileSync(layout.lock, 'utf8')) as {
      tools: Record<string, { installedManifest: string }>;
    };
    (lock.tools['registry_echo'] as { installedManifest: string }).installedManifest = digestOf(Buffer.from(text));
    writeFileSync(layout.lock, JSON.stringify(lock, null, 2));

    const verified = await run(verifyCommand, [], opts());
    expect(verified.code).toBe(1);
    expect(verified.out + verified.err).toContain('module.link.lib');
    const called = await runToolgate(['call', 'registry_echo', '--args', '{}'], { TOOLGATE_HOME: home });
    expect(called.code).toBe(2);
  });
});

describe('linked modules travel through every registry', () => {
  it('a package with a linked module published to an HTTP index and to OCI installs with the module pinned and runs it', async () => {
    const tgz = join(cwd, 'p.tgz');
    expect((await run(packCommand, [honestFolder(), '--out', tgz, '--key', key], opts())).code).toBe(0);
    const libDigest = digestOf(readFileSync(libWasm));
    const site = join(cwd, 'site');
    expect((await run(publishCommand, [tgz, '--to', site, '--key', key], opts())).code).toBe(0);
    const index = JSON.parse(readFileSync(join(site, 'index.json'), 'utf8')) as {
      tools: Record<string, { versions: Record<string, { files: Record<string, string> }> }>;
    };
    expect(index.tools['registry_echo']?.versions['1.0.0']?.files['link-1.wasm']).toBe(libDigest);
    const server = await serveStatic(site);
    const registry = await startRegistry();
    try {
      const http = await run(
        installCommand,
        [`${server.url}/index.json#registry_echo@1.0.0`, '--yes', '--quiet'],
        opts(),
      );
      expect(http.code, http.err).toBe(0);
      expect((await readLock(storeLayout(home).lock)).tools['registry_echo']?.digests['link-1.wasm']).toBe(libDigest);

      const ociHome = join(cwd, 'oci-home');
      expect((await run(trustAddCommand, ['pub', `${key}.pub`], { home: ociHome, cwd })).code).toBe(0);
      const ref = `oci://${registry.host}/linked/registry_echo:1.0.0`;
      const pushed = await run(publishCommand, [tgz, '--to', ref, '--key', key], opts());
      expect(pushed.code, pushed.err).toBe(0);
      const oci = await run(installCommand, [ref, '--yes', '--quiet'], { home: ociHome, cwd });
      expect(oci.code, oci.err).toBe(0);
      expect((await readLock(storeLayout(ociHome).lock)).tools['registry_echo']?.digests['link-1.wasm']).toBe(
        libDigest,
      );
      const called = await runToolgate(['call', 'registry_echo', '--args', '{}'], { TOOLGATE_HOME: ociHome });
      expect(called.code, called.stderr).toBe(0);
      expect(called.stdout.trim()).toBe('1');
    } finally {
      await server.close();
      await registry.close();
    }
  });
});

describe('the install consent names the linked modules', () => {
  it('the capabilities shown before install name each linked module, its namespace and its digest', async () => {
    const out = join(cwd, 'p.tgz');
    expect((await run(packCommand, [honestFolder(), '--out', out, '--key', key], opts())).code).toBe(0);
    const res = await run(installCommand, [out], opts());
    expect(res.code).toBe(2);
    expect(res.err).toContain('CONSENT_REQUIRED');
    expect(res.err).toContain(`links module link-1.wasm (${digestOf(readFileSync(libWasm))}) for imports from "lib"`);
  });

  it('an upgrade names the linked modules of the new version and their digests', async () => {
    const v1 = join(cwd, 'v1.tgz');
    expect((await run(packCommand, [honestFolder(), '--out', v1, '--key', key], opts())).code).toBe(0);
    expect((await run(installCommand, [v1, '--yes'], opts())).code).toBe(0);
    const dir = join(cwd, 'tool');
    writeFileSync(
      join(dir, 'manifest.yaml'),
      readFileSync(join(dir, 'manifest.yaml'), 'utf8').replace('version: 1.0.0', 'version: 1.1.0'),
    );
    copyFileSync(swappedWasm, join(dir, 'lib.wasm'));
    const v2 = join(cwd, 'v2.tgz');
    expect((await run(packCommand, [dir, '--out', v2, '--key', key], opts())).code).toBe(0);
    const res = await run(installCommand, [v2, '--yes'], opts());
    expect(res.code, res.err).toBe(0);
    expect(res.err).toContain(
      `registry_echo: linked modules:\n  links module link-1.wasm (${digestOf(readFileSync(swappedWasm))}) for imports from "lib"`,
    );
  });
});
