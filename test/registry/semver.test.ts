// Version ranges are read as npm reads them (npm's own `semver` package): x-ranges, partial
// tilde/caret, hyphen ranges and || unions match what npm would pick, and `tool@1.x` installs
// through the real CLI from an HTTP index.
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { maxSatisfying, satisfies } from '../../host/src/registry/index.js';
import { removeDir, requireBuilt, tg } from '../cli/helpers.js';
import { buildWat, serveStatic, tempDir, writeToolDir, type StaticServer } from './helpers.js';

const VERSIONS = ['0.9.0', '1.0.0', '1.2.0', '1.2.5', '1.3.0-rc.1', '1.9.1', '2.0.0', '2.4.0', '3.0.0'];

describe('npm range forms', () => {
  it.each([
    ['1.x', '1.9.1'],
    ['1.2.x', '1.2.5'],
    ['1.2', '1.2.5'],
    ['1', '1.9.1'],
    ['~1.2', '1.2.5'],
    ['~1', '1.9.1'],
    ['^1', '1.9.1'],
    ['^1.2', '1.9.1'],
    ['^1 || ^2', '2.4.0'],
    ['1.0.0 - 2.0.0', '2.0.0'],
    ['1.0 - 1.2', '1.2.5'],
    ['>=1.0.0 <1.2.0', '1.0.0'],
    ['<1.0.0 || >=3', '3.0.0'],
    ['*', '3.0.0'],
    ['latest', '3.0.0'],
    ['x', '3.0.0'],
    ['', '3.0.0'],
  ])('%s picks what npm picks (%s)', (range, expected) => {
    expect(maxSatisfying(VERSIONS, range)).toBe(expected);
  });

  it('a prerelease matches only a range that names one of the same version; a range that is not one matches nothing', () => {
    expect(satisfies('1.3.0-rc.1', '1.x')).toBe(false);
    expect(satisfies('1.3.0-rc.1', '>=1.3.0-rc.0')).toBe(true);
    expect(maxSatisfying(VERSIONS, '^4')).toBeUndefined();
    expect(maxSatisfying(VERSIONS, 'one.two')).toBeUndefined();
    expect(satisfies('not-a-version', '*')).toBe(false);
  });
});

describe('ranges through the CLI', () => {
  let work = '';
  let home = '';
  let site = '';
  let server: StaticServer | undefined;
  beforeAll(async () => {
    requireBuilt();
    work = tempDir('semver-cli');
    home = join(work, 'home');
    site = join(work, 'site');
    const wasm = buildWat('registry_echo', work);
    for (const version of ['1.0.0', '1.4.0', '2.0.0']) {
      const dir = writeToolDir(join(work, `src-${version}`), { version, wasm });
      const r = await tg(['publish', dir, '--to', site], { env: { TOOLGATE_HOME: home } });
      expect(r.code, r.stderr).toBe(0);
    }
    server = await serveStatic(site);
  }, 120_000);
  afterAll(async () => {
    await server?.close();
    removeDir(work);
  });

  it('install tool@1.x installs the highest 1.x from an HTTP index; a malformed range is a usage error (exit 2) naming the forms', async () => {
    const index = `${server?.url ?? ''}/index.json`;
    const r = await tg(['install', `${index}#registry_echo@1.x`, '--yes', '--allow-unsigned', '--json'], {
      env: { TOOLGATE_HOME: home },
    });
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({
      tools: [{ name: 'registry_echo', version: '1.4.0', outcome: 'installed' }],
    });
    const union = await tg(['install', `${index}#registry_echo@^1 || ^2`, '--yes', '--allow-unsigned', '--json'], {
      env: { TOOLGATE_HOME: home },
    });
    expect(JSON.parse(union.stdout)).toMatchObject({
      tools: [{ version: '2.0.0', outcome: 'upgraded', previousVersion: '1.4.0' }],
    });
    const bad = await tg(['install', `${index}#registry_echo@one.two`, '--yes'], { env: { TOOLGATE_HOME: home } });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('"one.two" is not a version range (npm ranges: 1.2.3, ^1.2, ~1.2, 1.x');
  });
});
