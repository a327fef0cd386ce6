// What a killed process leaves in the store is cleared by the next one that opens it, and the store
// lock is taken whole and exclusively: a stale owner is replaced by exactly one successor.
import { spawn, spawnSync, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, beforeAll, beforeEach, afterEach, describe, expect, it } from 'vitest';
import { installCommand } from '../../host/src/cli/commands/registry-install.js';
import { trustAddCommand } from '../../host/src/cli/commands/registry-trust.js';
import { keygenCommand } from '../../host/src/cli/commands/registry-keygen.js';
import { verifyCommand } from '../../host/src/cli/commands/registry-verify.js';
import { storeLayout } from '../../host/src/registry/index.js';
import { processStart, tryLock } from '../../host/src/registry/store-lock.js';
import { buildWat, removeDir, run, tempDir, writeToolDir } from './helpers.js';

const here = dirname(fileURLToPath(import.meta.url));
const distLock = resolve(here, '../../dist/registry/store-lock.js');

let work: string;
let wasm: string;
let key: string;
let cwd: string;
let home: string;

beforeAll(async () => {
  work = tempDir('leftovers');
  wasm = buildWat('registry_echo', work);
  key = join(work, 'k.key');
  expect((await run(keygenCommand, ['--out', key], { home: work, cwd: work })).code).toBe(0);
});
afterAll(() => removeDir(work));
beforeEach(() => {
  cwd = tempDir('case');
  home = join(cwd, 'home');
});
afterEach(() => removeDir(cwd));

/** A pid that was a process and no longer is. */
function deadPid(): number {
  const child = spawnSync(process.execPath, ['-e', '']);
  return child.pid ?? 999_999;
}

function nonce(): string {
  return (
    Math.random().toString(16).slice(2, 10).padEnd(8, '0') + Math.random().toString(16).slice(2, 10).padEnd(8, '0')
  );
}

describe('crash leftovers', () => {
  it('recovery removes temporary files a killed process left at the store root, and nothing else', async () => {
    expect((await run(trustAddCommand, ['k', `${key}.pub`], { home, cwd })).code).toBe(0);
    const dir = writeToolDir(join(cwd, 'src'), { version: '1.0.0', wasm });
    expect((await run(installCommand, [dir, '--yes', '--allow-unsigned', '--quiet'], { home, cwd })).code).toBe(0);
    const layout = storeLayout(home);
    const dead = deadPid();
    const leftovers = [
      '.txn.json.0123456789ab.tmp', // a commit killed inside its durable replace
      '.trust.json.ba9876543210.tmp', // `trust add` killed the same way
      `.store.pid.${nonce()}.tmp`, // a lock owner file written but never linked
      `store.pid.${nonce()}`, // a takeover lock whose taker died
    ];
    for (const name of leftovers) writeFileSync(join(home, name), `${dead} 1 ${nonce()}\n`);
    const orphan = join(layout.blobs, 'f'.repeat(64)); // a blob of an install killed before its commit
    writeFileSync(orphan, 'orphan');
    const kept = ['notes.txt', '.txn.json.keep', 'ceiling.yaml.bak'];
    for (const name of kept) writeFileSync(join(home, name), 'mine\n');

    const verified = await run(verifyCommand, [], { home, cwd });
    expect(verified.code, verified.err).toBe(0);
    for (const name of leftovers) expect(existsSync(join(home, name)), name).toBe(false);
    expect(existsSync(orphan)).toBe(false);
    for (const name of kept) expect(existsSync(join(home, name)), name).toBe(true);
    expect(readdirSync(home).filter((n) => n.endsWith('.tmp'))).toEqual([]);
    expect(existsSync(layout.mutex)).toBe(false);
  });

  it('a lock file owned by a live process is never taken over', async () => {
    mkdirSync(home, { recursive: true });
    const mutex = storeLayout(home).mutex;
    writeFileSync(mutex, `${process.pid} ${processStart(process.pid)} ${nonce()}\n`);
    expect(await tryLock(mutex)).toBeUndefined();
    const held = await run(verifyCommand, [], { home, cwd });
    expect(held.code).not.toBe(0);
    expect(held.err).toContain('the store is busy');
  }, 20_000);

  it('a lock whose pid now belongs to a process started at another time is stale (pid reuse)', async () => {
    mkdirSync(home, { recursive: true });
    const mutex = storeLayout(home).mutex;
    writeFileSync(mutex, `${process.pid} 1 ${nonce()}\n`);
    expect(await tryLock(mutex)).toMatch(/^[0-9a-f]{16}$/);
    expect(readFileSync(mutex, 'utf8')).toMatch(
      new RegExp(`^${process.pid} ${processStart(process.pid)} [0-9a-f]{16}\\n$`),
    );
  });

  it('a lock in the old pid-only format whose process is gone is taken over', async () => {
    mkdirSync(home, { recursive: true });
    writeFileSync(storeLayout(home).mutex, `${deadPid()}`);
    const verified = await run(verifyCommand, [], { home, cwd });
    expect(verified.code, verified.err).toBe(0);
    expect(existsSync(storeLayout(home).mutex)).toBe(false);
  });

  it('processes racing to take over the same stale lock: exactly one wins each lock', async () => {
    expect(existsSync(distLock), 'run `make build` first').toBe(true);
    const locks: string[] = [];
    const dead = deadPid();
    for (let i = 0; i < 12; i++) {
      const dir = join(cwd, `store${i}`);
      mkdirSync(dir, { recursive: true });
      const mutex = join(dir, 'store.pid');
      // Half are dead pids, half a live pid with the wrong start time (a reused pid).
      writeFileSync(mutex, i % 2 === 0 ? `${dead} 1 ${nonce()}\n` : `${process.pid} 1 ${nonce()}\n`);
      locks.push(mutex);
    }
    const go = join(cwd, 'go');
    const script = `
      import { existsSync } from 'node:fs';
      const { tryLock } = await import(${JSON.stringify(pathToFileURL(distLock).href)});
      const [go, ...locks] = process.argv.slice(1);
      process.stdout.write('ready\\n');
      while (!existsSync(go)) await new Promise((r) => setTimeout(r, 1));
      const won = [];
      for (const lock of locks) won.push((await tryLock(lock)) !== undefined);
      process.stdout.write(JSON.stringify(won) + '\\n');
      process.stdin.resume();
      process.stdin.on('end', () => process.exit(0));
    `;
    const children: ChildProcessWithoutNullStreams[] = [];
    const outputs: Promise<string>[] = [];
    for (let i = 0; i < 4; i++) {
      const child = spawn(process.execPath, ['--input-type=module', '-e', script, go, ...locks]);
      children.push(child);
      outputs.push(
        new Promise((resolveOut, reject) => {
          let out = '';
          child.stdout.on('data', (c: Buffer) => {
            out += c.toString();
            if (out.split('\n').length > 2) resolveOut(out);
          });
          child.once('exit', (code) => reject(new Error(`child exited (${code}) early: ${out}`)));
        }),
      );
    }
    try {
      // Every child holds its locks (stays alive) until all have answered, so a loser sees a live winner.
      const readies = children.map(
        (c) =>
          new Promise<void>((r) =>
            c.stdout.on('data', (chunk: Buffer) => (chunk.toString().includes('ready') ? r() : undefined)),
          ),
      );
      await Promise.all(readies);
      writeFileSync(go, '');
      const results = (await Promise.all(outputs)).map((o) => JSON.parse(o.split('\n')[1] ?? '[]') as boolean[]);
      for (let i = 0; i < locks.length; i++) {
        const winners = results.filter((r) => r[i] === true).length;
        expect(winners, `lock ${i}`).toBe(1);
      }
    } finally {
      for (const c of children) c.stdin.end();
      await Promise.all(children.map((c) => (c.exitCode === null ? new Promise((r) => c.once('exit', r)) : undefined)));
    }
  }, 60_000);
});
