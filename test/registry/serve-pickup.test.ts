// A running `toolgate serve --stdio` (no --manifests, so it serves the installed store) picks up a
// tool installed into its TOOLGATE_HOME while it runs, and drops it again on uninstall.
import { copyFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, test } from 'vitest';
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { installCommand } from '../../host/src/cli/commands/registry-install.js';
import { keygenCommand } from '../../host/src/cli/commands/registry-keygen.js';
import { packCommand } from '../../host/src/cli/commands/registry-pack.js';
import { trustAddCommand } from '../../host/src/cli/commands/registry-trust.js';
import { uninstallCommand } from '../../host/src/cli/commands/registry-uninstall.js';
import { ROOT, startStdio, waitFor, type StdioServer } from '../server/helpers.js';
import { removeDir, run, tempDir } from './helpers.js';

const WASM = join(ROOT, 'test/fixtures/build/server_spin.wasm');

let cwd: string;
let home: string;
let server: StdioServer | undefined;

beforeEach(() => {
  cwd = tempDir('serve');
  // Not created yet: the first install makes the store while the server is already running.
  home = join(cwd, 'home');
});
afterEach(async () => {
  await server?.close();
  server = undefined;
  removeDir(cwd);
});

/** A signed package of a real echo tool (server_spin.wasm's `echo`). */
async function signedPackage(): Promise<{ tgz: string; key: string }> {
  const dir = join(cwd, 'src');
  mkdirSync(dir);
  writeFileSync(
    join(dir, 'manifest.yaml'),
    [
      'apiVersion: toolgate/v1',
      'name: picked_up',
      'version: 1.0.0',
      'description: Installed while serving.',
      'module:',
      '  path: ./server_spin.wasm', // a published module lives in its tool's folder
      '  entry: echo',
      'parameters:',
      '  text: { type: string, required: true }',
      'output: { schema: { type: object } }',
      'capabilities:',
      '  allowed_hosts: []',
      '  allowed_paths: {}',
      '  memory: { max_pages: 16 }',
      '  timeout_ms: 2000',
      '  secrets: []',
      '',
    ].join('\n'),
  );
  copyFileSync(WASM, join(dir, 'server_spin.wasm'));
  writeFileSync(join(dir, 'README.md'), '# picked_up\n\nEcho, installed while serving.\n');
  const key = join(cwd, 'acme.key');
  const opts = { home, cwd };
  expect((await run(keygenCommand, ['--out', key], opts)).code).toBe(0);
  const tgz = join(cwd, 'picked_up.tgz');
  const packed = await run(packCommand, [dir, '--out', tgz, '--key', key], opts);
  expect(packed.code, packed.err).toBe(0);
  return { tgz, key };
}

test('a running `toolgate serve` picks up a tool installed into its store, and drops it after uninstall', async () => {
  const { tgz, key } = await signedPackage();
  let changes = 0;
  server = await startStdio([], {
    cwd,
    env: { TOOLGATE_HOME: home },
    setup: (client) => client.setNotificationHandler(ToolListChangedNotificationSchema, () => void (changes += 1)),
  });
  const s = server;
  const names = async () => (await s.client.listTools()).tools.map((t) => t.name);
  expect(await names()).not.toContain('picked_up');

  const opts = { home, cwd };
  expect((await run(trustAddCommand, ['acme', `${key}.pub`], opts)).code).toBe(0);
  const installed = await run(installCommand, [tgz, '--yes'], opts);
  expect(installed.code, installed.err).toBe(0);
  await waitFor('list_changed after install', () => (changes >= 1 ? true : undefined));
  await waitFor('picked_up in tools/list', async () => ((await names()).includes('picked_up') ? true : undefined));
  const r = await s.client.callTool({ name: 'picked_up', arguments: { text: 'from the store' } });
  expect(r.isError, JSON.stringify(r.content)).toBe(false);
  expect(r.structuredContent).toEqual({ text: 'from the store' });

  const before = changes;
  const removed = await run(uninstallCommand, ['picked_up'], opts);
  expect(removed.code, removed.err).toBe(0);
  await waitFor('list_changed after uninstall', () => (changes > before ? true : undefined));
  await waitFor('picked_up gone from tools/list', async () =>
    !(await names()).includes('picked_up') ? true : undefined,
  );
  await expect(s.client.callTool({ name: 'picked_up', arguments: { text: 'x' } })).rejects.toThrow(
    /Unknown tool: picked_up/,
  );
  expect(s.stderr()).not.toMatch(/"level":(50|60)/);
});
