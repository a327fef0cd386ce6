// The policy sets shipped in policies/: they load, and the default one keeps `toolgate call echo`
// working without a terminal while denying what it promises to deny.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, expect, test } from 'vitest';
import { loaders } from '../../host/src/cli/runtime.js';
import {
  createPolicyServices,
  defaultPolicyServices,
  parsePolicySet,
  policyLoader,
  setDefaultPolicyServices,
  verifyAuditText,
} from '../../host/src/policy/index.js';
import { runShipped } from '../support/shipped-cli.js';
import { noTty, removeTemps, setup, tempDir, tool } from './helpers.js';

const repo = fileURLToPath(new URL('../../', import.meta.url));
const original = { loader: loaders.policies, services: defaultPolicyServices() };
let home = '';
beforeEach(() => {
  home = tempDir('tg-home-');
  loaders.policies = policyLoader;
  setDefaultPolicyServices(createPolicyServices({ env: { TOOLGATE_HOME: home }, tty: noTty() }));
});
afterEach(() => {
  loaders.policies = original.loader;
  setDefaultPolicyServices(original.services);
  removeTemps();
});

test('default, strict and dev parse and validate', async () => {
  for (const name of ['default', 'strict', 'dev']) {
    const set = await parsePolicySet(join(repo, 'policies', name));
    expect(set.entries.length, name).toBeGreaterThan(3);
    expect(
      set.entries.map((e) => e.id),
      name,
    ).toContain('audit');
  }
});

test('the default set: `toolgate call echo` works without a TTY and writes one audit record to $TOOLGATE_HOME', async () => {
  const r = await runShipped(['call', 'echo', '--args', '{"text":"hello"}', '--policies', 'policies/default'], {
    cwd: repo,
    env: { TOOLGATE_HOME: home },
  });
  expect(r.err).toBe('');
  expect(r.code).toBe(0);
  expect(r.out).toBe('hello\n');
  const file = join(home, 'audit.jsonl');
  expect(existsSync(file)).toBe(true);
  expect(verifyAuditText(readFileSync(file, 'utf8'))).toMatchObject({ ok: true, count: 1 });
});

test('the default set denies .env arguments and, with no terminal, network and write tools', async () => {
  const { readdirSync, readFileSync: read } = await import('node:fs');
  const files = Object.fromEntries(
    readdirSync(join(repo, 'policies', 'default')).map((f) => [f, read(join(repo, 'policies', 'default', f), 'utf8')]),
  );
  const s = await setup(
    files,
    [
      tool('read'),
      tool('fetch', { capabilities: { allowedHosts: ['example.com'], allowedPaths: {}, secrets: [] } }),
      tool('save', {
        capabilities: { allowedHosts: [], allowedPaths: { '/out': { host: '/tmp/out', mode: 'rw' } }, secrets: [] },
      }),
    ],
    { env: { TOOLGATE_HOME: home } },
  );
  try {
    expect((await s.call('read', { path: 'app/.env' })).error?.code).toBe('DENIED');
    expect((await s.call('fetch')).error?.code).toBe('APPROVAL_DENIED');
    expect((await s.call('save')).error?.code).toBe('APPROVAL_DENIED');
    expect((await s.call('read', { path: 'README.md' })).isError).toBe(false);
  } finally {
    await s.cleanup();
  }
});
