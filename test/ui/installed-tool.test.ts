// The tools and pending views name an installed tool's signer and pinned digest, read from the
// store's lockfile: a signed package is installed into TOOLGATE_HOME and served from the store.
import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { installCommand } from '../../host/src/cli/commands/registry-install.js';
import { keygenCommand } from '../../host/src/cli/commands/registry-keygen.js';
import { packCommand } from '../../host/src/cli/commands/registry-pack.js';
import { trustAddCommand } from '../../host/src/cli/commands/registry-trust.js';
import { removeDir, run, tempDir } from '../registry/helpers.js';
import { startHttp, waitFor, type HttpProcess } from '../server/helpers.js';
import { GREET, startCall } from './helpers.js';

let cwd: string;
let home: string;
let server: HttpProcess;
let secret: string;

beforeAll(async () => {
  cwd = tempDir('ui-installed');
  home = join(cwd, 'home');
  const src = join(cwd, 'src');
  mkdirSync(src);
  writeFileSync(
    join(src, 'manifest.yaml'),
    [
      'apiVersion: toolgate/v1',
      'name: signed_greet',
      'version: 2.0.1',
      'description: Greets, from a signed package.',
      'module: { path: ./greet.wasm, entry: greet }',
      'parameters: { name: { type: string, required: true } }',
      'output: { schema: { type: object } }',
      '',
    ].join('\n'),
  );
  copyFileSync(GREET, join(src, 'greet.wasm'));
  writeFileSync(join(src, 'README.md'), '# signed_greet\n');
  const opts = { home, cwd };
  const key = join(cwd, 'acme.key');
  expect((await run(keygenCommand, ['--out', key], opts)).code).toBe(0);
  const tgz = join(cwd, 'signed_greet.tgz');
  expect((await run(packCommand, [src, '--out', tgz, '--key', key], opts)).code).toBe(0);
  expect((await run(trustAddCommand, ['acme', `${key}.pub`], opts)).code).toBe(0);
  const installed = await run(installCommand, [tgz, '--yes'], opts);
  expect(installed.code, installed.err).toBe(0);
  const policies = join(cwd, 'policies');
  mkdirSync(policies);
  writeFileSync(
    join(policies, 'set.yaml'),
    [
      'entries:',
      '  - { id: approvals, use: approvals, with: { channels: [queue] } }',
      '  - { id: ask-signed, use: ask, with: { tools: [signed_greet] } }',
      '',
    ].join('\n'),
  );
  // No --manifests: the installed store is served.
  server = await startHttp(['--http', '127.0.0.1:0', '--policies', policies], { TOOLGATE_HOME: home });
  secret = readFileSync(join(home, 'approval-secret'), 'utf8').trim();
}, 90_000);

afterAll(async () => {
  await server?.stop();
  removeDir(cwd);
});

interface State {
  pending: { tool: string; signer: string; version: string }[];
  tools: {
    tools: { name: string; signer: string; sha256: string; pinned: boolean; version: string; source: string }[];
  };
}

const state = async (): Promise<State> =>
  (await (
    await fetch(`${server.url}/ui/api/state`, { headers: { authorization: `Bearer ${secret}` } })
  ).json()) as State;

test('an installed tool shows its signer and the module digest the lockfile pins, in the tools and the pending views', async () => {
  const lock = JSON.parse(readFileSync(join(home, 'toolgate.lock'), 'utf8')) as {
    tools: { signed_greet: { signer: { name: string; keyId: string }; digests: Record<string, string> } };
  };
  const entry = lock.tools.signed_greet;
  const signer = `acme (${entry.signer.keyId})`;
  expect(entry.signer.name).toBe('acme');
  const tool = (await state()).tools.tools.find((t) => t.name === 'signed_greet');
  expect(tool).toMatchObject({ signer, version: '2.0.1', pinned: true });
  expect(Object.values(entry.digests)).toContain(`sha256:${tool?.sha256 ?? ''}`);

  const call = startCall(server.url, 'signed_greet', { name: 'Grace' });
  const p = await waitFor('the pending signed_greet', async () =>
    (await state()).pending.find((x) => x.tool === 'signed_greet'),
  );
  expect(p).toMatchObject({ signer, version: '2.0.1' });
  const [pending] = (
    (await (await fetch(`${server.url}/v1/approvals`, { headers: { authorization: `Bearer ${secret}` } })).json()) as {
      approvals: { id: string }[];
    }
  ).approvals;
  await fetch(`${server.url}/v1/approvals/${pending?.id ?? ''}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${secret}` },
    body: '{"outcome":"rejected"}',
  });
  expect((await call).error?.code).toBe('APPROVAL_DENIED');
});
