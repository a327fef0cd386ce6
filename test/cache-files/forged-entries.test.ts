// The caches in $TOOLGATE_HOME/cache are speed only (architecture.md §5): an entry cannot grant what
// its source does not. Each test plays someone who can write the cache folder but cannot read the
// key, and forges entries the way the format code (sandbox/module/disk-cache.ts,
// manifest/parse-cache.ts) lays them out, replaying whatever it cannot compute (the seal); then
// runs the shipped command as the user would.
import { execFile } from 'node:child_process';
import { chmod, chown, mkdir, mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { createHash } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, test } from 'vitest';
import { ROOT, toolgateEntry } from '../server/helpers.js';

let dir: string;
let home: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'toolgate-forged-'));
  home = join(dir, 'home');
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

interface Run {
  code: number;
  stdout: string;
  stderr: string;
  ms: number;
  killed: boolean;
}

/** `toolgate call <tool>` from `manifest` under this test's home; killed after `killMs` (a hung call). */
async function call(tool: string, args: object, manifest: string, killMs = 10_000): Promise<Run> {
  const entry = await toolgateEntry();
  const started = Date.now();
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [entry, 'call', tool, '--args', JSON.stringify(args), '--manifests', manifest, '--policies', 'none'],
      {
        cwd: dir,
        env: { PATH: process.env['PATH'] ?? '', HOME: dir, TOOLGATE_HOME: home },
        timeout: killMs,
        killSignal: 'SIGKILL',
      },
      (err, stdout, stderr) => {
        const code = err === null ? 0 : typeof err.code === 'number' ? err.code : -1;
        resolve({ code, stdout, stderr, ms: Date.now() - started, killed: err?.killed === true });
      },
    );
  });
}

const listing = async (folder: string, ext: string): Promise<string[]> =>
  (await readdir(folder).catch(() => [] as string[])).filter((f) => f.endsWith(ext)).sort();

/** The one file in `after` that is not in `before`. */
function added(before: string[], after: string[]): string {
  const fresh = after.filter((f) => !before.includes(f));
  expect(fresh).toHaveLength(1);
  return fresh[0] as string;
}

const SPIN = join(ROOT, 'test/fixtures/build/server_spin.wasm');
const GREP = join(ROOT, 'pdk-examples/c/build/grep_files.wasm');

test('a prepared in-thread entry swapped for the worker-path entry of the same module (header recomputed) is not trusted: the call still ends at its deadline', async () => {
  const prepared = join(home, 'cache/prepared');
  // the same spinning module, as a tool that may run on the calling thread (instrumented with the
  // fuel counter) and as one with a host, which only ever runs in a worker (not instrumented)
  const inThread = join(dir, 'spin.yaml');
  await writeFile(
    inThread,
    `apiVersion: toolgate/v1\nname: spin\nversion: 0.1.0\ndescription: Spins until its deadline.\nmodule: { path: ${SPIN}, entry: spin }\ncapabilities:\n  memory: { max_pages: 16 }\n  timeout_ms: 300\n`,
  );
  const worker = join(dir, 'spin-net.yaml');
  await writeFile(
    worker,
    `apiVersion: toolgate/v1\nname: spin_net\nversion: 0.1.0\ndescription: Spins until its deadline.\nmodule: { path: ${SPIN}, entry: spin }\ncapabilities:\n  allowed_hosts: ["127.0.0.1:9"]\n  memory: { max_pages: 16 }\n  timeout_ms: 300\n`,
  );

  const first = await call('spin', {}, inThread);
  expect(first.stdout + first.stderr).toMatch(/TIMEOUT|timed out/i);
  const inThreadFile = added([], await listing(prepared, '.bin'));
  const before = await listing(prepared, '.bin');
  await call('spin_net', {}, worker);
  const workerFile = added(before, await listing(prepared, '.bin'));
  const genuine = await readFile(join(prepared, inThreadFile));

  // The forgery: the worker entry's bytes under the in-thread entry's name, its header saying what
  // the reader checks (this key, the in-thread path, preemptible, the bytes' digest recomputed);
  // every line the attacker cannot compute is kept as the worker entry had it.
  const file = await readFile(join(prepared, workerFile));
  const lines: Buffer[] = [];
  let at = 0;
  for (;;) {
    const nl = file.indexOf(0x0a, at);
    const line = file.subarray(at, nl);
    at = nl + 1;
    if (line[0] === 0x7b /* { */) {
      const bytes = file.subarray(at);
      const header = JSON.parse(line.toString('utf8')) as Record<string, unknown> & { info: Record<string, unknown> };
      header['key'] = inThreadFile.replace(/\.bin$/, '');
      if ('path' in header) header['path'] = 'in-thread';
      if ('bytesSha256' in header) header['bytesSha256'] = createHash('sha256').update(bytes).digest('hex');
      header.info['preemptible'] = true;
      lines.push(Buffer.from(JSON.stringify(header)));
      await writeFile(
        join(prepared, inThreadFile),
        Buffer.concat([...lines.map((l) => Buffer.concat([l, Buffer.from('\n')])), bytes]),
      );
      break;
    }
    lines.push(line);
  }

  const forged = await call('spin', {}, inThread, 8_000);
  expect(forged.killed).toBe(false);
  expect(forged.stdout + forged.stderr).toMatch(/TIMEOUT|timed out/i);
  expect(forged.ms).toBeLessThan(6_000);
  // a miss, rebuilt from the source: the genuine entry is back
  expect(await readFile(join(prepared, inThreadFile))).toEqual(genuine);
}, 40_000);

test('a parsed-manifest entry edited to add an allowed_paths mount is not trusted: the tool still has no mounts and cannot read the secret file', async () => {
  const secrets = join(dir, 'secrets');
  await mkdir(secrets);
  await writeFile(join(secrets, 'token.txt'), 'TOPSECRET-4471\n');
  const manifest = join(dir, 'grep.yaml');
  await writeFile(
    manifest,
    `apiVersion: toolgate/v1\nname: grep_files\nversion: 1.0.0\ndescription: Searches /data.\nmodule: { path: ${GREP}, entry: grep_files }\nparameters:\n  pattern: { type: string, required: true }\n  path: { type: string, default: /data }\ncapabilities:\n  memory: { max_pages: 160 }\n  timeout_ms: 5000\n`,
  );
  const first = await call('grep_files', { pattern: 'TOPSECRET' }, manifest);
  expect(first.stdout).not.toContain('TOPSECRET-4471');
  const manifests = join(home, 'cache/manifests');
  const [name] = await listing(manifests, '.json');
  expect(name).toBeDefined();
  const path = join(manifests, name as string);
  const genuine = await readFile(path, 'utf8');

  // The forgery: the JSON of the entry with a mount of the secret folder added, whatever precedes
  // the JSON (the seal) kept as it was.
  const brace = genuine.indexOf('{');
  const entry = JSON.parse(genuine.slice(brace)) as {
    manifest: { capabilities: { allowed_paths: Record<string, unknown> } };
  };
  entry.manifest.capabilities.allowed_paths['/data'] = { host: secrets, mode: 'ro' };
  await writeFile(path, genuine.slice(0, brace) + JSON.stringify(entry));

  const forged = await call('grep_files', { pattern: 'TOPSECRET' }, manifest);
  expect(forged.stdout + forged.stderr).not.toContain('TOPSECRET-4471');
  expect(forged.code).not.toBe(0);
  // a miss, parsed again from the manifest's text: the genuine entry is back
  expect(await readFile(path, 'utf8')).toBe(genuine);
}, 40_000);

const GREET = join(ROOT, 'manifests/greet.yaml');
const modeOf = async (p: string): Promise<number> => (await stat(p)).mode & 0o777;

test('a cache folder others can write, made before the first start, is tightened to 0700, and the key is 0600', async () => {
  const cache = join(home, 'cache');
  for (const folder of [cache, join(cache, 'prepared'), join(cache, 'manifests')]) {
    await mkdir(folder, { recursive: true });
    await chmod(folder, 0o777);
  }
  const out = await call('greet', { name: 'cache' }, GREET);
  expect(out.stdout.trim()).toBe('Hello, cache!');
  for (const folder of [cache, join(cache, 'prepared'), join(cache, 'manifests')])
    expect(await modeOf(folder)).toBe(0o700);
  expect(await modeOf(join(cache, 'key'))).toBe(0o600);
  expect(out.stderr).toMatch(/cache folder .* was writable by others/);
  // and the cache works as before
  expect(await listing(join(cache, 'prepared'), '.bin')).toHaveLength(1);
}, 40_000);

test('a cache key file others can read is replaced by a new 0600 key: entries sealed with the old one are rebuilt', async () => {
  await call('greet', { name: 'cache' }, GREET);
  const key = join(home, 'cache/key');
  const old = await readFile(key);
  await chmod(key, 0o644);
  const out = await call('greet', { name: 'cache' }, GREET);
  expect(out.stdout.trim()).toBe('Hello, cache!');
  expect(out.stderr).toMatch(/cache key .* was not safe/);
  expect(await modeOf(key)).toBe(0o600);
  expect(await readFile(key)).not.toEqual(old);
}, 40_000);

test.skipIf(process.getuid?.() !== 0)(
  'a cache folder owned by another user is not used: the call answers, a warning says why, nothing is written there',
  async () => {
    const cache = join(home, 'cache');
    await mkdir(cache, { recursive: true });
    await chown(cache, 65534, 65534);
    await chmod(cache, 0o777);
    const out = await call('greet', { name: 'cache' }, GREET);
    expect(out.stdout.trim()).toBe('Hello, cache!');
    expect(out.stderr).toMatch(/belongs to another user/);
    expect(await readdir(cache)).toEqual([]);
  },
  40_000,
);
