// Digest and name confusion in a static HTTP index, against the shipped `toolgate install` and a real
// server on 127.0.0.1: a digest spelled in uppercase hex, a sha512 digest, a digest with a prefix
// other than sha256, and another tool's package (bytes, digest and signature all genuine) listed
// under this tool's name. Each is refused before anything is installed, naming the index and rule.
// These held when tried (a red team round); the tests keep them held.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { installCommand } from '../../host/src/cli/commands/registry-install.js';
import { keygenCommand } from '../../host/src/cli/commands/registry-keygen.js';
import { publishCommand } from '../../host/src/cli/commands/registry-publish.js';
import { trustAddCommand } from '../../host/src/cli/commands/registry-trust.js';
import type { IndexFile } from '../../host/src/registry/index.js';
import { buildWat, removeDir, run, serveStatic, tempDir, writeToolDir, type StaticServer } from './helpers.js';

let work: string;
let wasm: string;
let key: string;
let cwd: string;
let home: string;
let site: string;
let server: StaticServer;

beforeAll(async () => {
  work = tempDir('index-confusion');
  wasm = buildWat('registry_echo', work);
  key = join(work, 'pub.key');
  expect((await run(keygenCommand, ['--out', key], { home: work, cwd: work })).code).toBe(0);
});
afterAll(() => removeDir(work));
beforeEach(async () => {
  cwd = tempDir('case');
  home = join(cwd, 'home');
  site = join(cwd, 'site');
  server = await serveStatic(site);
  expect((await run(trustAddCommand, ['pub', `${key}.pub`], { home, cwd })).code).toBe(0);
  for (const name of ['registry_echo', 'other_tool']) {
    const dir = writeToolDir(join(cwd, `src-${name}`), { name, version: '1.0.0', wasm });
    const res = await run(publishCommand, [dir, '--to', site, '--key', key], { home, cwd });
    expect(res.code, res.err).toBe(0);
  }
});
afterEach(async () => {
  await server.close();
  removeDir(cwd);
});

const indexFile = () => join(site, 'index.json');
const readIndex = () => JSON.parse(readFileSync(indexFile(), 'utf8')) as IndexFile;
const entryOf = (index: IndexFile, name: string) => {
  const e = index.tools[name]?.versions['1.0.0'];
  if (e === undefined) throw new Error(`no ${name}@1.0.0 in the index`);
  return e;
};
const install = () => run(installCommand, [`${server.url}/index.json#registry_echo@1.0.0`, '--yes'], { home, cwd });
const installed = () => existsSync(join(home, 'tools', 'registry_echo'));

describe('digest spellings in an index entry', () => {
  it.each([
    ['the archive digest in uppercase hex', (d: string) => d.toUpperCase().replace('SHA256:', 'sha256:')],
    ['the archive digest with the algorithm in uppercase', (d: string) => d.replace('sha256:', 'SHA256:')],
    ['a sha512 digest', () => `sha512:${'ab'.repeat(64)}`],
    ['a sha256 digest with a sha512 prefix', (d: string) => d.replace('sha256:', 'sha512:')],
    ['a digest with whitespace', (d: string) => ` ${d}`],
  ])('%s is refused as a malformed index, naming the index and the key', async (_what, spell) => {
    const index = readIndex();
    const entry = entryOf(index, 'registry_echo');
    entry.digest = spell(entry.digest);
    writeFileSync(indexFile(), JSON.stringify(index));
    const r = await install();
    expect(r.code, r.out).not.toBe(0);
    expect(r.err).toContain('index.json');
    expect(r.err).toContain(
      'tools.registry_echo.versions.1.0.0.digest: Invalid string: must match pattern /^sha256:[0-9a-f]{64}$/',
    );
    expect(installed()).toBe(false);
  });

  it('a file digest in uppercase hex is refused the same way', async () => {
    const index = readIndex();
    const entry = entryOf(index, 'registry_echo');
    const [file, digest] = Object.entries(entry.files)[0] ?? [];
    entry.files[file ?? ''] = (digest ?? '').toUpperCase().replace('SHA256:', 'sha256:');
    writeFileSync(indexFile(), JSON.stringify(index));
    const r = await install();
    expect(r.code).not.toBe(0);
    expect(r.err).toContain('tools.registry_echo.versions.1.0.0.files.');
    expect(installed()).toBe(false);
  });
});

describe("another tool's genuine package listed under this name", () => {
  it('the same digest and signature under another name is refused as BAD_PACKAGE naming both names', async () => {
    const index = readIndex();
    const tools = index.tools as Record<string, { versions: Record<string, unknown> }>;
    (tools['registry_echo'] as { versions: Record<string, unknown> }).versions['1.0.0'] = entryOf(index, 'other_tool');
    writeFileSync(indexFile(), JSON.stringify(index));
    const r = await install();
    expect(r.code).toBe(1);
    expect(r.err).toContain('error BAD_PACKAGE');
    expect(r.err).toContain('the index lists registry_echo@1.0.0 but the package is other_tool@1.0.0');
    expect(installed()).toBe(false);
  });
});
