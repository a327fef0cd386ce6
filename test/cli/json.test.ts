// --json on every command whose output a script may read: one JSON document on stdout in the
// shape docs/cli.md gives, through the built binary, across a whole publish-install-verify cycle.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildWat, writeToolDir } from '../registry/helpers.js';
import { MANIFESTS, removeDir, requireBuilt, tempDir, tg } from './helpers.js';

let work = '';
let env: Record<string, string> = {};
beforeAll(() => {
  requireBuilt();
  work = tempDir('json');
  env = { TOOLGATE_HOME: join(work, 'home') };
});
afterAll(() => removeDir(work));

/** Runs a command that must succeed (or exit `code`) and parses its stdout as one JSON document. */
async function json(args: string[], code = 0): Promise<unknown> {
  const r = await tg([...args, '--json'], { env, cwd: work });
  expect(r.code, `${args.join(' ')}: ${r.stderr}`).toBe(code);
  return JSON.parse(r.stdout) as unknown;
}

describe('--json', () => {
  it('keygen, trust, pack, publish, install, list, verify, uninstall and trust remove each print their documented JSON', {
    timeout: 180_000,
  }, async () => {
    const key = join(work, 'pub.key');
    const made = (await json(['keygen', '--out', key])) as { keyId: string };
    expect(made).toEqual({
      keyId: expect.stringMatching(/^ed25519:/) as string,
      privateKey: key,
      publicKey: `${key}.pub`,
    });
    expect(await json(['trust', 'add', 'pub', `${key}.pub`])).toEqual({ name: 'pub', keyId: made.keyId });
    expect(await json(['trust', 'list'])).toEqual([{ name: 'pub', keyId: made.keyId }]);

    const src = writeToolDir(join(work, 'src'), { version: '1.0.0', wasm: buildWat('registry_echo', work) });
    const packed = (await json(['pack', src, '--key', key, '--out', join(work, 'echo.tgz')])) as { file: string };
    expect(packed).toEqual({
      file: join(work, 'echo.tgz'),
      name: 'registry_echo',
      version: '1.0.0',
      digest: expect.stringMatching(/^sha256:/) as string,
      signer: made.keyId,
    });
    expect(existsSync(packed.file)).toBe(true);
    const site = join(work, 'site');
    expect(await json(['publish', packed.file, '--to', site])).toMatchObject({
      name: 'registry_echo',
      version: '1.0.0',
      target: site,
      signer: made.keyId,
    });

    expect(await json(['install', packed.file, '--yes'])).toEqual({
      tools: [{ name: 'registry_echo', version: '1.0.0', outcome: 'installed', signer: 'pub' }],
    });
    expect(await json(['list'])).toMatchObject([
      { name: 'registry_echo', version: '1.0.0', signer: `pub (${made.keyId})` },
    ]);
    expect(await json(['verify'])).toEqual({ ok: true, tools: 1, problems: [] });
    expect(await json(['uninstall', 'registry_echo'])).toEqual({ name: 'registry_echo', version: '1.0.0' });
    expect(await json(['trust', 'remove', 'pub'])).toEqual({ removed: 'pub' });
    const gone = await tg(['trust', 'remove', 'pub', '--json'], { env, cwd: work });
    expect(gone.code).toBe(1);
  });

  it('call, inspect, schema, policy explain, policy show, audit verify, new and version print JSON a script can parse', {
    timeout: 180_000,
  }, async () => {
    const m = ['--manifests', MANIFESTS];
    expect(
      await json([
        'call',
        'greet',
        '--args',
        '{"name":"Ada"}',
        ...m,
        '--policies',
        join(MANIFESTS, '../policies/default'),
      ]),
    ).toMatchObject({ isError: false });
    expect(await json(['inspect', 'greet', ...m])).toMatchObject({ name: 'greet', module: { entry: 'greet' } });
    expect(await json(['schema', '--format', 'mcp', ...m, '--policies', 'none'])).toMatchObject({
      tools: expect.any(Array) as unknown[],
    });
    expect(
      await json(['policy', 'explain', 'greet', '--args', '{"name":"Ada"}', ...m, '--policies', 'none']),
    ).toMatchObject({ tool: 'greet', outcome: 'allow' });
    expect(await json(['policy', 'show', '--policies', 'none'])).toMatchObject({ policies: 'none' });
    // The default set's audit-log entry wrote one record for the call above.
    const audit = join(work, 'home', 'audit.jsonl');
    expect(await json(['audit', 'verify', audit])).toEqual({ file: audit, ok: true, records: 1 });
    expect(await json(['new', 'my_tool', '--lang', 'wat', '--dir', join(work, 'my_tool')])).toMatchObject({
      tool: 'my_tool',
      lang: 'wat',
      dir: join(work, 'my_tool'),
      files: expect.arrayContaining(['my_tool.yaml', 'test.sh']) as string[],
    });
    expect(await json(['version'])).toMatchObject({ version: expect.any(String) as string });
  });
});
