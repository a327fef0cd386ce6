// Red lines read every string a call carries, or refuse: attacks a hostile client (or a model steered
// by one) would try to slip a denied host or path past guard-hosts, guard-paths and deny-args.
import { afterEach, describe, expect, test } from 'vitest';
import { removeTemps, setup, text, tool, type Setup } from './helpers.js';

let open: Setup[] = [];
afterEach(async () => {
  for (const s of open) await s.cleanup();
  open = [];
  removeTemps();
});

const RED_LINES =
  'entries:\n' +
  '  - { id: no-meta, use: guard-hosts, with: { deny: ["169.254.169.254", "127.0.0.1", "localhost"] } }\n' +
  '  - { id: no-etc, use: guard-paths, with: { deny: ["/etc/**"] } }\n' +
  '  - { id: no-env, use: deny-args, with: { patterns: [{ glob: "**/.env*" }] } }\n';

async function redLines(): Promise<Setup> {
  const s = await setup({ '10-red.yaml': RED_LINES }, [tool('any')]);
  open.push(s);
  return s;
}

describe('red lines are not dodged by volume, keys, padding or nesting', () => {
  test('a denied value after 10,000 harmless strings is refused: past what a red line reads it refuses, it does not skip', async () => {
    const s = await redLines();
    const pad = Array.from({ length: 10_001 }, () => '');
    for (const bad of ['http://169.254.169.254/latest', '/etc/shadow', 'conf/.env']) {
      const r = await s.call('any', { pad, target: bad });
      expect(r.isError, bad).toBe(true);
      expect(text(r)).toContain('more than 10000 strings');
    }
    expect((await s.call('any', { pad: pad.slice(0, 100), target: 'fine' })).isError).toBe(false);
  });

  test('an object key is an argument string too: a URL, a path or a .env name used as a key is refused', async () => {
    const s = await redLines();
    expect((await s.call('any', { fetch: { 'http://169.254.169.254/': 'GET' } })).error?.code).toBe('GUARD_DENIED');
    expect((await s.call('any', { files: { '/etc/passwd': 'read' } })).error?.code).toBe('GUARD_DENIED');
    const env = await s.call('any', { files: { 'app/.env': 'read' } });
    expect(env.error?.code).toBe('DENIED');
    expect(text(env)).toContain('argument "files.app/.env (key)" matches');
  });

  test('a URL whose userinfo pads its authority past any length cap still names its host', async () => {
    const s = await redLines();
    const r = await s.call('any', { url: `http://${'a'.repeat(5000)}@0x7f.1:9000/x` });
    expect(r.error?.code).toBe('GUARD_DENIED');
    expect(text(r)).toContain('127.0.0.1:9000');
  });

  test('the 101st URL in one string, and a URL nested in another URL, are checked', async () => {
    const s = await redLines();
    const many = `${Array.from({ length: 100 }, (_, i) => `https://ok${i}.example.com/`).join(' ')} http://2852039166/`;
    expect((await s.call('any', { text: many })).error?.code).toBe('GUARD_DENIED');
    expect(
      (await s.call('any', { url: 'https://ok.example.com/login?next=http://127.1:9000/v1/approvals' })).error?.code,
    ).toBe('GUARD_DENIED');
    expect((await s.call('any', { url: 'https://ok.example.com/a://b://c' })).isError).toBe(false);
  });
});

describe('a deny-args glob covers every spelling of what it names, and what that holds', () => {
  test('a path under a denied name, or with a trailing slash, is refused (a dotenv folder holds the same secrets)', async () => {
    const s = await redLines();
    for (const bad of ['app/.env/', 'app/.env/production', 'app/.env.d/keys', '.env/']) {
      expect((await s.call('any', { path: bad })).error?.code, bad).toBe('DENIED');
    }
  });

  test('Unicode compatibility forms (a fullwidth full stop) and a line break in a folder name do not dodge it', async () => {
    const s = await redLines();
    for (const bad of ['app/\uff0eenv', 'app/\uff0e\uff45\uff4e\uff56', 'x\n/.env']) {
      expect((await s.call('any', { path: bad })).error?.code, JSON.stringify(bad)).toBe('DENIED');
    }
  });

  test('guard-paths likewise: a path beneath a denied name, or with a trailing slash, is refused', async () => {
    const s = await setup(
      {
        '10-red.yaml': 'entries:\n  - { id: no-keys, use: guard-paths, with: { deny: ["**/.ssh*", "/etc/shadow"] } }\n',
      },
      [tool('any')],
    );
    open.push(s);
    for (const bad of ['/home/u/.ssh/id_ed25519', '/home/u/.ssh/', '/etc/shadow/', 'work/.ssh/config']) {
      expect((await s.call('any', { path: bad })).error?.code, bad).toBe('GUARD_DENIED');
    }
    expect((await s.call('any', { path: '/home/u/.sshrc-notes' })).error?.code).toBe('GUARD_DENIED');
    expect((await s.call('any', { path: '/home/u/ssh/config' })).isError).toBe(false);
  });

  test('names that only resemble it still pass: the glob is not widened beyond its segments', async () => {
    const s = await redLines();
    for (const fine of ['app/envelope', 'app/b.env', 'docs/environment.md', 'app/my.env.example']) {
      expect((await s.call('any', { path: fine })).isError, fine).toBe(false);
    }
  });
});
