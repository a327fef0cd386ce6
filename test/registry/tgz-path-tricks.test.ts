// A hostile publisher's .tgz against the shipped `toolgate install`: a real package from `toolgate
// pack`, unpacked and packed again with one trick each (`..`, an absolute path, a symlink or a
// hard link in place of the module, a unicode lookalike of a package file name, a PAX or GNU
// long-name header, terminal escapes in a name). Each is refused by name, nothing is installed,
// and the name is escaped on stderr.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync, gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { installCommand } from '../../host/src/cli/commands/registry-install.js';
import { packCommand } from '../../host/src/cli/commands/registry-pack.js';
import { buildWat, removeDir, run, tempDir, writeToolDir } from './helpers.js';
import { type TarEntry, tarOf } from './tar-entries.js';

let work: string;
let entries: TarEntry[];

/** The entries of a plain ustar archive (what `pack` writes: regular files, names under 100 bytes). */
function readEntries(tar: Buffer): TarEntry[] {
  const out: TarEntry[] = [];
  for (let at = 0; at + 512 <= tar.length && out.length < 64; ) {
    const name = tar
      .subarray(at, at + 100)
      .toString('utf8')
      .replace(/\0.*$/s, '');
    if (name === '') break;
    const size = Number.parseInt(
      tar
        .subarray(at + 124, at + 136)
        .toString('ascii')
        .replace(/\0.*$/s, '')
        .trim(),
      8,
    );
    out.push({ name, data: Buffer.from(tar.subarray(at + 512, at + 512 + size)) });
    at += 512 + Math.ceil(size / 512) * 512;
  }
  return out;
}

function tgz(list: readonly TarEntry[]): Buffer {
  return gzipSync(tarOf(list));
}

beforeAll(async () => {
  work = tempDir('tgz-tricks');
  const wasm = buildWat('registry_echo', work);
  const dir = writeToolDir(join(work, 'src'), { version: '1.0.0', wasm });
  const packed = await run(packCommand, [dir, '--out', join(work, 'good.tgz')], { home: join(work, 'h'), cwd: work });
  expect(packed.code, packed.err).toBe(0);
  entries = readEntries(gunzipSync(readFileSync(join(work, 'good.tgz'))));
  expect(entries.map((e) => e.name)).toContain('module.wasm');
});
afterAll(() => removeDir(work));

const named = (name: string): TarEntry => {
  const e = entries.find((x) => x.name === name);
  if (e === undefined) throw new Error(`no ${name} in the packed archive`);
  return e;
};
const without = (name: string): TarEntry[] => entries.filter((e) => e.name !== name);

async function installArchive(label: string, list: readonly TarEntry[]) {
  const file = join(work, `${label}.tgz`);
  writeFileSync(file, tgz(list));
  const home = join(work, `home-${label}`);
  const r = await run(installCommand, [file, '--yes', '--allow-unsigned'], { home, cwd: work });
  return { ...r, installed: existsSync(join(home, 'tools', 'registry_echo')) };
}

describe('a .tgz with path tricks is refused by name before anything is installed', () => {
  it('the repacked archive without tricks installs (the harness itself is sound)', async () => {
    const r = await installArchive('control', entries);
    expect(r.code, r.err).toBe(0);
    expect(r.installed).toBe(true);
  });

  const cases: [string, () => TarEntry[], RegExp][] = [
    [
      'dotdot',
      () => [...entries, { name: '../evil.yaml', data: Buffer.from('x') }],
      /unexpected file "\.\.\/evil\.yaml"/,
    ],
    ['absolute', () => [...entries, { name: '/etc/evil', data: Buffer.from('x') }], /unexpected file "\/etc\/evil"/],
    [
      'symlink',
      () => [...without('module.wasm'), { name: 'module.wasm', data: Buffer.alloc(0), type: '2', link: '/etc/passwd' }],
      /only regular files are allowed \(type "2"/,
    ],
    [
      'hardlink',
      () => [...without('module.wasm'), { name: 'module.wasm', data: Buffer.alloc(0), type: '1', link: 'README.md' }],
      /only regular files are allowed \(type "1"/,
    ],
    [
      'lookalike',
      // "manifest.yaml" with a Cyrillic а (U+0430), beside the real one
      () => [...entries, { name: 'm\u0430nifest.yaml', data: named('manifest.yaml').data }],
      /unexpected file/,
    ],
    [
      'lookalike-only',
      () => [...without('manifest.yaml'), { name: 'm\u0430nifest.yaml', data: named('manifest.yaml').data }],
      /unexpected file/,
    ],
    [
      'dot-slash-twin',
      () => [...entries, { name: './module.wasm', data: Buffer.from('\0asm\x01\0\0\0') }],
      /unexpected file "\.\/module\.wasm"/,
    ],
    ['duplicate', () => [...entries, named('module.wasm')], /duplicate entry "module\.wasm"/],
    [
      'pax-path',
      () => [{ name: 'PaxHeader', data: Buffer.from('30 path=../../../../tmp/pwned\n'), type: 'x' }, ...entries],
      /only regular files are allowed \(type "x"/,
    ],
    [
      'gnu-longname',
      () => [{ name: '././@LongLink', data: Buffer.from('../../escape.yaml\0'), type: 'L' }, ...entries],
      /only regular files are allowed \(type "L"/,
    ],
  ];
  for (const [label, build, refusal] of cases) {
    it(`${label}: refused (exit 1, BAD_PACKAGE), nothing installed`, async () => {
      const r = await installArchive(label, build());
      expect(r.code, r.err).toBe(1);
      expect(r.err).toContain('error BAD_PACKAGE');
      expect(r.err).toMatch(refusal);
      expect(r.installed).toBe(false);
    });
  }

  it('an entry name carrying terminal escapes and a bidi override is refused and shown escaped', async () => {
    const name = 'x\u001b]0;pwned\u0007\u001b[2J\u202egnp.yaml';
    const r = await installArchive('escapes', [...entries, { name, data: Buffer.from('x') }]);
    expect(r.code, r.err).toBe(1);
    expect(r.err).toContain('unexpected file');
    expect(r.err).not.toMatch(/[\u001b\u0007\u202e]/);
    expect(r.installed).toBe(false);
  });
});
