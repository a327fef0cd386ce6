// Which policy set is in force (docs/decisions.md): --policies DIR > $TOOLGATE_POLICIES >
// $TOOLGATE_HOME/policies > ./policies > the default set shipped with the program. Every command
// here runs the real binary from a temporary folder outside the checkout.
import { execFile } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '../..');
const BIN = join(ROOT, 'dist/cli/main.js');
const MANIFESTS = join(ROOT, 'manifests');
const LOCAL_URL = '{"url":"http://127.0.0.1:8080/"}';

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

let work = '';
let home = '';

function toolgate(args: string[], opts: { cwd?: string; env?: Record<string, string> } = {}): Promise<Run> {
  return new Promise((done) => {
    // No TOOLGATE_POLICIES from the outer environment: each test says what it sets.
    const env: NodeJS.ProcessEnv = { PATH: process.env.PATH ?? '', HOME: work, TOOLGATE_HOME: home, ...opts.env };
    const child = execFile(
      process.execPath,
      [BIN, ...args],
      { cwd: opts.cwd ?? work, env, timeout: 30_000 },
      (err, stdout, stderr) =>
        done({ code: err ? (typeof err.code === 'number' ? err.code : null) : 0, stdout, stderr }),
    );
    child.stdin?.end();
  });
}

interface Shown {
  policies: 'set' | 'none';
  name?: string;
  origin?: string;
  dir?: string;
  from: string;
  entries?: { id: string; use: string }[];
}

async function show(args: string[] = [], opts: { cwd?: string; env?: Record<string, string> } = {}): Promise<Shown> {
  const r = await toolgate(['policy', 'show', '--json', ...args], opts);
  expect(r.code, r.stderr).toBe(0);
  return JSON.parse(r.stdout) as Shown;
}

/** A one-entry set whose id tells the sets apart. */
function makeSet(dir: string, id: string): string {
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    join(dir, 'set.yaml'),
    `entries:\n  - { id: ${id}, use: deny-tools, with: { tools: [nothing_here] } }\n`,
  );
  return dir;
}

function fresh(name: string): string {
  const dir = join(work, name);
  mkdirSync(dir, { recursive: true });
  return dir;
}

beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), 'toolgate-policy-source-'));
  home = join(work, 'home');
  mkdirSync(home);
});
afterAll(() => rmSync(work, { recursive: true, force: true }));

describe('the shipped default set is in force wherever toolgate runs', () => {
  it('outside the checkout, with nothing named or found, the set in force is the built-in default', async () => {
    const s = await show([], { cwd: fresh('plain') });
    expect(s).toMatchObject({
      policies: 'set',
      name: 'default',
      origin: 'builtin',
      dir: join(ROOT, 'policies', 'default'),
    });
    expect(s.entries?.map((e) => e.id)).toContain('ask-network-and-writes');
  });

  it('policy explain outside the checkout answers ask for a network tool (the default set asks)', async () => {
    const r = await toolgate(['policy', 'explain', 'fetch_url', '--manifests', MANIFESTS, '--args', LOCAL_URL], {
      cwd: fresh('explain'),
    });
    expect(r.code, r.stderr).toBe(1);
    expect(r.stdout).toMatch(/outcome:\s+ask/);
    expect(r.stdout).toContain('ask-network-and-writes');
  });

  it('a call the default set asks about is denied when no one can answer', async () => {
    const r = await toolgate(['call', 'fetch_url', '--manifests', MANIFESTS, '--args', LOCAL_URL, '--json'], {
      cwd: fresh('deny'),
    });
    expect(r.code, r.stderr).toBe(1);
    const result = JSON.parse(r.stdout) as { isError: boolean; error?: { code: string; message: string } };
    expect(result.isError).toBe(true);
    expect(result.error?.message).toMatch(/approval|no one|unavailable|channel/i);
  });

  it('--policy-set picks another shipped set when none is found', async () => {
    expect(await show(['--policy-set', 'strict'], { cwd: fresh('strict') })).toMatchObject({
      name: 'strict',
      origin: 'builtin',
    });
  });
});

describe('resolution order: --policies > $TOOLGATE_POLICIES > $TOOLGATE_HOME/policies > ./policies > built-in', () => {
  it('each source wins over every one after it', async () => {
    const cwd = fresh('order');
    const orderHome = fresh('order-home');
    makeSet(join(cwd, 'policies'), 'from-cwd');
    expect(await show([], { cwd, env: { TOOLGATE_HOME: orderHome } })).toMatchObject({
      origin: 'cwd',
      entries: [{ id: 'from-cwd' }],
    });
    makeSet(join(orderHome, 'policies'), 'from-home');
    expect(await show([], { cwd, env: { TOOLGATE_HOME: orderHome } })).toMatchObject({
      origin: 'home',
      entries: [{ id: 'from-home' }],
    });
    const envSet = makeSet(fresh('env-set'), 'from-env');
    const env = { TOOLGATE_HOME: orderHome, TOOLGATE_POLICIES: envSet };
    expect(await show([], { cwd, env })).toMatchObject({ origin: 'env', entries: [{ id: 'from-env' }] });
    const flagSet = makeSet(fresh('flag-set'), 'from-flag');
    expect(await show(['--policies', flagSet], { cwd, env })).toMatchObject({
      origin: 'flag',
      entries: [{ id: 'from-flag' }],
    });
  });

  it('a folder of named sets means its default/ set, or the one --policy-set names', async () => {
    const sets = fresh('named');
    makeSet(join(sets, 'default'), 'named-default');
    makeSet(join(sets, 'lab'), 'named-lab');
    writeFileSync(join(sets, 'README.md'), 'notes\n');
    expect(await show(['--policies', sets])).toMatchObject({ name: 'default', entries: [{ id: 'named-default' }] });
    expect(await show(['--policies', sets, '--policy-set', 'lab'])).toMatchObject({
      name: 'lab',
      entries: [{ id: 'named-lab' }],
    });
    const missing = await toolgate(['policy', 'show', '--policies', sets, '--policy-set', 'prod']);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain(`${sets} has no set "prod" (sets: default, lab)`);
  });

  it('the policy set in force is the one a call runs under', async () => {
    const set = fresh('deny-echo');
    writeFileSync(join(set, 'a.yaml'), 'entries:\n  - { id: no-echo, use: deny-tools, with: { tools: [echo] } }\n');
    const r = await toolgate(['call', 'echo', '--args', '{"text":"x"}', '--json'], { env: { TOOLGATE_POLICIES: set } });
    expect(r.code, r.stderr).toBe(1);
    expect(r.stdout).toContain('no-echo');
  });
});

describe('no policies only when asked for, and never silently', () => {
  it('--policies none runs with no policy and warns on stderr at every start', async () => {
    for (let i = 0; i < 2; i++) {
      const r = await toolgate([
        'call',
        'fetch_url',
        '--manifests',
        MANIFESTS,
        '--args',
        '{"url":"http://127.0.0.1:1/"}',
        '--policies',
        'none',
        '--json',
      ]);
      // no policy asked: the call reached the tool (whose fetch fails: nothing listens on port 1)
      expect(r.stdout).not.toContain('ask-network-and-writes');
      expect(r.stderr).toContain('WARNING: running with NO policies (--policies none)');
    }
  });

  it('an empty folder named with --policies runs with no policy, with the same warning (the compat runner relies on it)', async () => {
    const empty = fresh('empty-explicit');
    const r = await toolgate([
      'policy',
      'explain',
      'fetch_url',
      '--manifests',
      MANIFESTS,
      '--args',
      LOCAL_URL,
      '--policies',
      empty,
    ]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/outcome:\s+allow/);
    expect(r.stderr).toContain(`WARNING: running with NO policies (--policies ${empty} is an empty folder)`);
  });

  it.each([
    ['$TOOLGATE_POLICIES', (dir: string) => ({ env: { TOOLGATE_POLICIES: dir } })],
    ['$TOOLGATE_HOME/policies', (dir: string) => ({ env: { TOOLGATE_HOME: resolve(dir, '..') } })],
    ['./policies', (dir: string) => ({ cwd: resolve(dir, '..') })],
  ] as const)('an empty folder found through %s is an error (exit 2) naming it', async (label, where) => {
    const dir = join(fresh(`empty-${label.replace(/\W/g, '')}`), 'policies');
    mkdirSync(dir);
    const r = await toolgate(['call', 'echo', '--args', '{"text":"x"}'], where(dir));
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`${label}: ${dir} is empty; expected a folder of policy YAML files`);
    expect(r.stdout).toBe('');
  });

  it('--policies none (or an empty --policies folder) together with --policy-set is a usage error', async () => {
    const none = await toolgate(['call', 'echo', '--policies', 'none', '--policy-set', 'strict']);
    expect(none.code).toBe(2);
    expect(none.stderr).toContain('--policies none runs with no policies; it cannot be combined with --policy-set');
    const empty = await toolgate(['serve', '--policies', fresh('empty-with-set'), '--policy-set', 'strict']);
    expect(empty.code).toBe(2);
    expect(empty.stderr).toContain('cannot be combined with --policy-set');
  });
});

describe('a policies path that cannot be a set is a configuration error (exit 2) naming it', () => {
  it('a path that does not exist, from the flag or $TOOLGATE_POLICIES', async () => {
    const gone = join(work, 'gone');
    const flag = await toolgate(['call', 'echo', '--policies', gone]);
    expect(flag.code).toBe(2);
    expect(flag.stderr).toContain(
      `--policies ${gone}: directory not found: ${gone} (expected a folder of policy YAML files`,
    );
    const env = await toolgate(['serve', '--stdio'], { env: { TOOLGATE_POLICIES: gone } });
    expect(env.code).toBe(2);
    expect(env.stderr).toContain(`$TOOLGATE_POLICIES: directory not found: ${gone}`);
  });

  it('a file where a folder is expected', async () => {
    const file = join(work, 'policy.yaml');
    writeFileSync(file, 'entries: []\n');
    const r = await toolgate(['policy', 'show', '--policies', file]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`not a directory: ${file}`);
  });

  it('a folder with other files but no YAML and no named sets', async () => {
    const dir = fresh('no-yaml');
    writeFileSync(join(dir, 'policy.json'), '{}');
    for (const args of [['--policies', dir], []]) {
      const r = await toolgate(['policy', 'explain', 'echo', ...args], {
        env: args.length === 0 ? { TOOLGATE_POLICIES: dir } : {},
      });
      expect(r.code).toBe(2);
      expect(r.stderr).toContain(`${dir} holds no policy YAML files (*.yaml, *.yml) and no named sets`);
    }
  });

  it('a named set with no YAML in it, and a folder of sets without default/', async () => {
    const sets = fresh('sets-no-default');
    makeSet(join(sets, 'lab'), 'lab');
    mkdirSync(join(sets, 'empty'));
    const noDefault = await toolgate(['policy', 'show', '--policies', sets]);
    expect(noDefault.code).toBe(2);
    expect(noDefault.stderr).toContain(`has no set "default" (sets: empty, lab); pick one with --policy-set NAME`);
    const emptySet = await toolgate(['policy', 'show', '--policies', sets, '--policy-set', 'empty']);
    expect(emptySet.code).toBe(2);
    expect(emptySet.stderr).toContain(`set "empty" (${join(sets, 'empty')}) holds no policy YAML files`);
  });

  it('--policy-set on a single set, or with a path for a name', async () => {
    const single = makeSet(fresh('single'), 'single');
    const r = await toolgate(['policy', 'show', '--policies', single, '--policy-set', 'lab']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('is a single policy set (it holds YAML files), not a folder of named sets');
    const path = await toolgate(['policy', 'show', '--policy-set', '../etc']);
    expect(path.code).toBe(2);
    expect(path.stderr).toContain('--policy-set "../etc": a set name is a folder name');
  });

  it.skipIf(process.getuid?.() === 0)('an unreadable folder', async () => {
    const dir = makeSet(fresh('locked'), 'locked');
    chmodSync(dir, 0o000);
    try {
      const r = await toolgate(['policy', 'show', '--policies', dir]);
      expect(r.code).toBe(2);
      expect(r.stderr).toContain(`cannot read ${dir}`);
    } finally {
      chmodSync(dir, 0o755);
    }
  });
});

describe('policy show', () => {
  it('prints the set, where it came from and its entries in order', async () => {
    const r = await toolgate(['policy', 'show'], { cwd: fresh('show-text') });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('policy set: default');
    expect(r.stdout).toContain('from:       the built-in default (shipped with toolgate)');
    expect(r.stdout.indexOf('audit')).toBeLessThan(r.stdout.indexOf('ask-network-and-writes'));
  });

  it("policy show --policy-set NAME names the set actually chosen: the built-in set 'NAME', not the built-in default", async () => {
    const r = await toolgate(['policy', 'show', '--policy-set', 'dev'], { cwd: fresh('show-dev') });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('policy set: dev');
    expect(r.stdout).toContain("from:       the built-in set 'dev' (shipped with toolgate)");
    expect(r.stdout).not.toContain('the built-in default');
    expect(await show(['--policy-set', 'strict'], { cwd: fresh('show-strict') })).toMatchObject({
      name: 'strict',
      origin: 'builtin',
      from: "the built-in set 'strict' (shipped with toolgate)",
    });
  });

  it('reports a broken set as a configuration error (exit 2) naming the file', async () => {
    const dir = fresh('broken');
    writeFileSync(join(dir, 'bad.yaml'), 'entries:\n  - { id: x, use: no-such-policy }\n');
    const r = await toolgate(['policy', 'show', '--policies', dir]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(join(dir, 'bad.yaml'));
    expect(r.stderr).toContain('unknown policy "no-such-policy"');
  });

  it('says so when there are no policies', async () => {
    expect(await show(['--policies', 'none'])).toMatchObject({ policies: 'none', from: '--policies none' });
  });
});
