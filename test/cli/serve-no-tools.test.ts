// `toolgate serve` with nothing to serve says so (issue 23.6): one warning at start on stderr,
// naming where it looked for manifests and how to add one, instead of starting silently.
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, test } from 'vitest';
import { MANIFESTS, removeDir, requireBuilt, tempDir, tg } from './helpers.js';

const dirs: string[] = [];
function dir(prefix: string): string {
  const d = tempDir(prefix);
  dirs.push(d);
  return d;
}

/** Serves over stdio with stdin already closed, so the server starts and stops at once. */
function serveAndStop(args: string[], cwd: string, home: string) {
  return tg(['serve', '--stdio', '--policies', 'none', '--no-watch', ...args], {
    cwd,
    env: { TOOLGATE_HOME: home, TOOLGATE_POLICIES: '' },
  });
}

const warnings = (stderr: string): string[] => stderr.split('\n').filter((l) => l.includes('serving no tools'));

beforeAll(() => requireBuilt());
afterEach(() => {
  for (const d of dirs.splice(0)) removeDir(d);
});

describe('serve with no tools', () => {
  test('serving no tools warns once at start on stderr, naming where it looked for manifests and how to add one', async () => {
    const cwd = dir('serve-empty-cwd');
    const home = dir('serve-empty-home');
    const ran = await serveAndStop([], cwd, home);
    expect(ran.code).toBe(0);
    const lines = warnings(ran.stderr);
    expect(lines).toHaveLength(1);
    const [line = ''] = lines;
    expect(line).toContain(join(cwd, 'manifests'));
    expect(line).toContain(join(home, 'tools'));
    expect(line).toMatch(/--manifests PATH/);
    expect(line).toMatch(/toolgate new/);
    expect(line).toMatch(/toolgate install/);
  });

  test('serving no tools from --manifests names those paths', async () => {
    const cwd = dir('serve-empty-named');
    const home = dir('serve-empty-named-home');
    const empty = dir('serve-empty-manifests');
    const [line = ''] = warnings((await serveAndStop(['--manifests', empty], cwd, home)).stderr);
    expect(line).toContain(empty);
    expect(line).not.toContain(join(home, 'tools'));
  });

  test('serving at least one tool does not warn', async () => {
    const cwd = dir('serve-some-cwd');
    const home = dir('serve-some-home');
    const ran = await serveAndStop(['--manifests', join(MANIFESTS, 'greet.yaml')], cwd, home);
    expect(ran.code).toBe(0);
    expect(warnings(ran.stderr)).toEqual([]);
  });
});
