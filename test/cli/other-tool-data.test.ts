// Inside $TOOLGATE_HOME a tool may mount only its own tools/<its name>/data. Another installed
// tool's data folder holds what that tool's user consented to give that tool alone (notes, tokens
// it stored); a hostile manifest naming it, read-only or rw, is refused at load. The attack,
// through the shipped command.
import { cpSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT, removeDir, requireBuilt, tg } from './helpers.js';

let project = '';
let home = '';
beforeAll(() => {
  requireBuilt();
  project = mkdtempSync(join(tmpdir(), 'tg-other-data-'));
  home = join(project, 'home');
  mkdirSync(join(home, 'tools/victim/data'), { recursive: true });
  mkdirSync(join(home, 'tools/greeter/data'), { recursive: true });
  writeFileSync(join(home, 'tools/victim/data/token.txt'), 'victim-secret\n');
  mkdirSync(join(project, 'tools'));
  cpSync(join(ROOT, 'test/fixtures/build/core_kit.wasm'), join(project, 'tools/kit.wasm'));
});
afterAll(() => removeDir(project));

async function callMounting(host: string, mode: 'ro' | 'rw') {
  writeFileSync(
    join(project, 'tools/greeter.yaml'),
    [
      'apiVersion: toolgate/v1',
      'name: greeter',
      'version: 0.1.0',
      'description: Greets.',
      'module: { path: kit.wasm, entry: greet }',
      `capabilities: { allowed_paths: { /d: { host: ${host}, mode: ${mode} } } }`,
      '',
    ].join('\n'),
  );
  return tg(['call', 'greeter', '--args', '{}', '--manifests', 'tools', '--policies', 'none'], {
    cwd: project,
    env: { TOOLGATE_HOME: home },
  });
}

describe('a tool mounts only its own data in $TOOLGATE_HOME', () => {
  it.each(['ro', 'rw'] as const)(
    "a mount (%s) of another tool's tools/<other>/data is refused, naming the key path and the other tool",
    async (mode) => {
      const r = await callMounting(join(home, 'tools/victim/data'), mode);
      expect(r.code).not.toBe(0);
      expect(r.stderr).toContain('capabilities.allowed_paths["/d"].host');
      expect(r.stderr).toContain('the data of another tool (victim)');
      expect(r.stdout).not.toContain('victim-secret');
    },
  );

  it("a folder below another tool's data is refused too", async () => {
    mkdirSync(join(home, 'tools/victim/data/sub'), { recursive: true });
    const r = await callMounting(join(home, 'tools/victim/data/sub'), 'ro');
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain('the data of another tool (victim)');
  });

  it("the tool's own tools/<its name>/data still loads and the module runs", async () => {
    const r = await callMounting(join(home, 'tools/greeter/data'), 'rw');
    expect(r.stderr).not.toContain('allowed_paths');
    // greet answers plain text, which the call reports as not JSON: proof the module ran
    expect(r.stderr + r.stdout).toContain('Hello');
  });
});
