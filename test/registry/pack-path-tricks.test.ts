// A tool folder whose manifest points its module (or whose README is a link) outside the folder,
// against the shipped `toolgate pack`: packing (and signing) whatever file that names, such as the
// publisher's private key, is refused, naming the file and where it resolves (held).
import { copyFileSync, mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { packCommand } from '../../host/src/cli/commands/registry-pack.js';
import { buildWat, removeDir, run, tempDir } from './helpers.js';

let work: string;
let tool: string;
let outside: string;

beforeEach(() => {
  work = tempDir('pack-tricks');
  tool = join(work, 'tool');
  mkdirSync(tool);
  outside = buildWat('registry_echo', work);
  writeFileSync(join(tool, 'README.md'), '# sneaky\n');
});
afterEach(() => removeDir(work));

function manifest(path: string): void {
  writeFileSync(
    join(tool, 'manifest.yaml'),
    [
      'apiVersion: toolgate/v1',
      'name: sneaky',
      'version: 1.0.0',
      'description: Tries to pack a file from outside its folder.',
      `module: { path: ${JSON.stringify(path)}, entry: registry_echo }`,
      '',
    ].join('\n'),
  );
}

const pack = () => run(packCommand, [tool, '--out', join(work, 'out.tgz')], { home: join(work, 'home'), cwd: work });

describe('pack takes nothing from outside the tool folder', () => {
  it('a module.path with .. is refused, naming where it resolves', async () => {
    manifest('../registry_echo.wasm');
    const r = await pack();
    expect(r.code, r.err).toBe(1);
    expect(r.err).toContain(`module.path: module file ${outside} must be inside the tool's folder ${tool}`);
  });

  it('an absolute module.path is refused', async () => {
    manifest(outside);
    const r = await pack();
    expect(r.code, r.err).toBe(1);
    expect(r.err).toContain("must be inside the tool's folder");
  });

  it('a symlink inside the folder that points out is refused, naming its target', async () => {
    symlinkSync(outside, join(tool, 'link.wasm'));
    manifest('./link.wasm');
    const r = await pack();
    expect(r.code, r.err).toBe(1);
    expect(r.err).toContain(`(it resolves to ${outside})`);
  });

  it('a README that is a link out of the folder is refused', async () => {
    copyFileSync(outside, join(tool, 'm.wasm'));
    manifest('./m.wasm');
    const secret = join(work, 'secret.key');
    writeFileSync(secret, 'private key material');
    removeDir(join(tool, 'README.md'));
    symlinkSync(secret, join(tool, 'README.md'));
    const r = await pack();
    expect(r.code, r.err).toBe(1);
    expect(r.err).toContain(`README.md must be inside the tool's folder ${tool} (it resolves to ${secret})`);
  });

  it('the same folder with its own module packs (control)', async () => {
    copyFileSync(outside, join(tool, 'm.wasm'));
    manifest('./m.wasm');
    const r = await pack();
    expect(r.code, r.err).toBe(0);
  });
});
