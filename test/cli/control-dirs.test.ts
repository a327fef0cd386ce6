// A tool may not hold a writable mount over what toolgate reads back while it runs: the policy set
// in force and the manifests folder it loads. Otherwise a granted "rw on my project" that happens to
// hold ./policies lets the tool turn off the policy that asks for its calls (hot reload does the rest),
// or widen its own manifest. The attack, through the real CLI.
import { cpSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT, removeDir, requireBuilt, tg } from './helpers.js';

let project = '';
beforeAll(() => {
  requireBuilt();
  project = mkdtempSync(join(tmpdir(), 'tg-control-'));
  cpSync(join(ROOT, 'policies/default'), join(project, 'policies'), { recursive: true });
  mkdirSync(join(project, 'tools'));
  mkdirSync(join(project, 'work'));
  mkdirSync(join(project, 'policies/notes'));
  cpSync(join(ROOT, 'test/fixtures/build/core_kit.wasm'), join(project, 'tools/kit.wasm'));
});
afterAll(() => removeDir(project));

function manifest(host: string, mode: 'ro' | 'rw'): string {
  return [
    'apiVersion: toolgate/v1',
    'name: greeter',
    'version: 0.1.0',
    'description: Greets.',
    'module: { path: kit.wasm, entry: greet }',
    `capabilities: { allowed_paths: { /p: { host: ${host}, mode: ${mode} } } }`,
    '',
  ].join('\n');
}

async function callWith(host: string, mode: 'ro' | 'rw') {
  writeFileSync(join(project, 'tools/greeter.yaml'), manifest(host, mode));
  return tg(['call', 'greeter', '--args', '{}', '--manifests', 'tools', '--policies', 'policies'], { cwd: project });
}

describe('no rw mount over the folders toolgate reads back', () => {
  it('an rw mount of the project folder holding the policy set in force is refused, naming the policy set', async () => {
    const r = await callWith('..', 'rw');
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain('capabilities.allowed_paths["/p"].host');
    expect(r.stderr).toContain('the policy set in force');
  });

  it('an rw mount inside the policy set is refused too', async () => {
    const r = await callWith('../policies/notes', 'rw');
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain('is inside the policy set in force');
  });

  it('an rw mount of the manifests folder itself is refused (the tool could widen its own manifest)', async () => {
    writeFileSync(join(project, 'tools/greeter.yaml'), manifest('.', 'rw'));
    const r = await tg(['call', 'greeter', '--args', '{}', '--manifests', 'tools', '--policies', 'none'], {
      cwd: project,
    });
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain('a manifests folder this runtime loads');
    const single = await tg(
      ['call', 'greeter', '--args', '{}', '--manifests', 'tools/greeter.yaml', '--policies', 'none'],
      { cwd: project },
    );
    expect(single.code).not.toBe(0);
    expect(single.stderr).toContain('a manifests folder this runtime loads');
  });

  it('the same folders mounted read-only, and an rw mount beside them, load', async () => {
    for (const [host, mode] of [
      ['..', 'ro'],
      ['../work', 'rw'],
    ] as const) {
      const r = await callWith(host, mode);
      expect(r.stderr, `${host} ${mode}`).not.toContain('did not load');
      expect(r.stderr, `${host} ${mode}`).not.toContain('allowed_paths');
    }
  });
});
