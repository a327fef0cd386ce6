// `toolgate inspect` looks where `call` and `serve` look (docs/cli.md): ./manifests plus the
// installed store, unless --manifests names folders.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { inspectCommand } from '../../host/src/cli/commands/inspect.js';
import { installCommand } from '../../host/src/cli/commands/registry-install.js';
import { buildWat, removeDir, run, tempDir, writeToolDir } from '../registry/helpers.js';

let home: string;
let cwd: string;
beforeEach(() => {
  home = tempDir('inspect-home');
  cwd = tempDir('inspect-cwd');
});
afterEach(() => {
  removeDir(home);
  removeDir(cwd);
});

describe('toolgate inspect and the installed store', () => {
  it('without --manifests an installed tool is found; with --manifests only the named folders count', async () => {
    const src = writeToolDir(`${cwd}/src`, { version: '1.0.0', wasm: buildWat('registry_echo', cwd) });
    const installed = await run(installCommand, [src, '--allow-unsigned', '--yes'], { home, cwd });
    expect(installed.code).toBe(0);

    const found = await run(inspectCommand, ['registry_echo'], { home, cwd });
    expect(found.code).toBe(0);
    expect(found.out).toContain('registry_echo 1.0.0');
    expect(found.out).toContain('pinned by the manifest');

    // The shipped command turns the usage error into exit 2 and one line.
    const missing = await run(inspectCommand, ['registry_echo', '--manifests', cwd], { home, cwd });
    expect(missing.code).toBe(2);
    expect(missing.err).toContain('no tool named "registry_echo"');
  });
});
