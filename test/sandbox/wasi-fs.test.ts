// toolgate's WASI file system, exercised by a real wasi-libc module (test/fixtures/fs_probe.c)
// against real temp dirs. Errno numbers are preview1's: wasi-libc uses them as its errno values.
import { execFileSync } from 'node:child_process';
import {
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createWasiImports, WasiExit, type WasiMount } from '../../host/src/sandbox/wasi/index.js';

const FIXTURES = join(import.meta.dirname, '..', 'fixtures');
const WASM = join(FIXTURES, 'build', 'fs_probe.wasm');

const E = { ACCES: 2, BADF: 8, EXIST: 20, FAULT: 21, LOOP: 32, NOENT: 44, PERM: 63, ROFS: 69, NOTCAPABLE: 76 } as const;

type Exports = Record<string, (...args: number[]) => number>;

interface Probe {
  call(name: string, ...args: (string | number)[]): number;
  /** The text the last call wrote to the output area. */
  out(len: number): string;
  stdout: string[];
  stderr: string[];
}

let module: WebAssembly.Module;
let root: string;

beforeAll(() => {
  execFileSync('make', ['-s', '-C', FIXTURES, 'build/fs_probe.wasm']);
  module = new WebAssembly.Module(readFileSync(WASM));
});

/** A fresh instance on the given mounts; string arguments are copied into the module's scratch area. */
async function probe(mounts: WasiMount[]): Promise<Probe> {
  let memory: WebAssembly.Memory | undefined;
  const stdout: string[] = [];
  const stderr: string[] = [];
  const wasi = createWasiImports({
    mounts,
    getMemory: () => memory,
    writeStdout: (b) => stdout.push(Buffer.from(b).toString('utf8')),
    writeStderr: (b) => stderr.push(Buffer.from(b).toString('utf8')),
  });
  const instance = await WebAssembly.instantiate(module, { wasi_snapshot_preview1: wasi });
  const ex = instance.exports as unknown as Exports & { memory: WebAssembly.Memory };
  memory = ex.memory;
  (ex._initialize as () => void)();
  const scratch = (ex.probe_buf as () => number)();
  const OUT = scratch + 32768;
  return {
    stdout,
    stderr,
    call(name, ...args) {
      let at = scratch;
      const raw = args.map((a) => {
        if (typeof a === 'number') return a;
        if (a === '<out>') return OUT;
        const bytes = Buffer.from(`${a}\0`, 'utf8');
        new Uint8Array(ex.memory.buffer, at, bytes.length).set(bytes);
        const ptr = at;
        at += 8192;
        return ptr;
      });
      const fn = ex[name];
      if (fn === undefined) throw new Error(`no export ${name}`);
      return fn(...raw);
    },
    out(len) {
      return Buffer.from(new Uint8Array(ex.memory.buffer, OUT, len)).toString('utf8');
    },
  };
}

/** Host-side fingerprint of a tree: every entry with its type, size, mtime and content. */
function snapshot(dir: string): string {
  const lines: string[] = [];
  const walk = (d: string, rel: string): void => {
    for (const name of readdirSync(d).sort()) {
      const p = join(d, name);
      const st = lstatSync(p);
      const kind = st.isSymbolicLink() ? 'l' : st.isDirectory() ? 'd' : 'f';
      lines.push(`${kind} ${rel}${name} ${st.size} ${st.mtimeMs} ${kind === 'f' ? readFileSync(p, 'utf8') : ''}`);
      if (kind === 'd') walk(p, `${rel}${name}/`);
    }
  };
  walk(dir, '');
  return lines.join('\n');
}

beforeEach(() => {
  // root/ro is mounted read-only at /data, root/rw read-write at /work; root/outside and
  // root/secret.txt are the host files a module must never reach.
  root = realpathSync(mkdtempSync(join(tmpdir(), 'tg-wasi-')));
  mkdirSync(join(root, 'outside'));
  writeFileSync(join(root, 'outside', 'hostname'), 'secret-host');
  writeFileSync(join(root, 'secret.txt'), 'SECRET');
  const ro = join(root, 'ro');
  mkdirSync(join(ro, 'sub'), { recursive: true });
  mkdirSync(join(ro, 'emptydir'));
  writeFileSync(join(ro, 'hello.txt'), 'hello from ro');
  writeFileSync(join(ro, 'sub', 'inner.txt'), 'inner');
  symlinkSync('hello.txt', join(ro, 'link_in'));
  symlinkSync(join(ro, 'sub', 'inner.txt'), join(ro, 'abs_in'));
  symlinkSync('sub', join(ro, 'dirlink_in'));
  symlinkSync('../secret.txt', join(ro, 'link_out'));
  symlinkSync(join(root, 'secret.txt'), join(ro, 'abs_out'));
  symlinkSync('../outside', join(ro, 'dirlink'));
  symlinkSync(join(root, 'outside'), join(ro, 'abs_dirlink'));
  symlinkSync('sub/../../secret.txt', join(ro, 'sneaky'));
  symlinkSync('loop_b', join(ro, 'loop_a'));
  symlinkSync('loop_a', join(ro, 'loop_b'));
  const rw = join(root, 'rw');
  mkdirSync(join(rw, 'old'), { recursive: true });
  writeFileSync(join(rw, 'existing.txt'), 'old text');
  symlinkSync('../outside', join(rw, 'dirlink'));
  symlinkSync('../outside/created.txt', join(rw, 'dangling_out'));
  symlinkSync(join(root, 'outside', 'abs_created.txt'), join(rw, 'abs_dangling_out'));
  symlinkSync('made_by_link.txt', join(rw, 'dangling_in'));
});

afterEach(() => {
  rmSync(root, { recursive: true, force: true });
});

const MOUNTS = (): WasiMount[] => [
  { guest: '/data', host: join(root, 'ro'), mode: 'ro' },
  { guest: '/work', host: join(root, 'rw'), mode: 'rw' },
];

describe('reading through an ro mount', () => {
  it('a file in an ro mount can be read', async () => {
    const p = await probe(MOUNTS());
    const n = p.call('probe_read', '/data/hello.txt', '<out>', 1000);
    expect(n).toBe(13);
    expect(p.out(n)).toBe('hello from ro');
  });

  it('opening a file on an ro mount succeeds when the requested rights include write but the open has no create/truncate/write flags', async () => {
    const p = await probe(MOUNTS());
    // O_RDWR: wasi-libc asks for read and write rights, as TinyGo does for every open
    expect(p.call('probe_open', '/data/hello.txt', 2)).toBe(0);
    // the write through that descriptor is EROFS (not EBADF), and nothing changes on the host
    expect(p.call('probe_rdwr_write', '/data/hello.txt')).toBe(-E.ROFS);
    expect(readFileSync(join(root, 'ro', 'hello.txt'), 'utf8')).toBe('hello from ro');
  });

  it('a directory listing shows exactly the entries of the mounted host dir', async () => {
    const p = await probe(MOUNTS());
    const n = p.call('probe_list', '/data', '<out>', 4000);
    expect(n).toBeGreaterThan(0);
    const names = p
      .out(n)
      .split('\n')
      .filter((s) => s !== '' && s !== '.' && s !== '..')
      .sort();
    expect(names).toEqual(readdirSync(join(root, 'ro')).sort());
    const sub = p.call('probe_list', '/data/sub', '<out>', 4000);
    expect(p.out(sub).split('\n').filter(Boolean)).toEqual(['inner.txt']);
  });

  it('a directory with more entries than one readdir buffer is listed completely', async () => {
    const big = join(root, 'rw', 'many');
    mkdirSync(big);
    const expected: string[] = [];
    for (let i = 0; i < 300; i += 1) {
      const name = `file_with_a_fairly_long_name_${String(i).padStart(4, '0')}.txt`;
      writeFileSync(join(big, name), '');
      expected.push(name);
    }
    const p = await probe(MOUNTS());
    const n = p.call('probe_list', '/work/many', '<out>', 30000);
    expect(p.out(n).split('\n').filter(Boolean).sort()).toEqual(expected);
  });
});

describe('nothing outside a mount is reachable', () => {
  it("'..' that would climb above the mount root is refused with ENOTCAPABLE", async () => {
    const p = await probe(MOUNTS());
    expect(p.call('probe_read', '/data/../secret.txt', '<out>', 100)).toBe(-E.NOTCAPABLE);
    expect(p.call('probe_read', '/data/sub/../../secret.txt', '<out>', 100)).toBe(-E.NOTCAPABLE);
    expect(p.call('probe_list', '/data/..', '<out>', 1000)).toBe(-E.NOTCAPABLE);
    // '..' that stays inside is fine
    expect(p.call('probe_read', '/data/sub/../hello.txt', '<out>', 100)).toBe(13);
  });

  it('a file symlink whose target is outside the mount is refused (relative and absolute targets)', async () => {
    const p = await probe(MOUNTS());
    expect(p.call('probe_read', '/data/link_out', '<out>', 100)).toBe(-E.NOTCAPABLE);
    expect(p.call('probe_read', '/data/abs_out', '<out>', 100)).toBe(-E.NOTCAPABLE);
    expect(p.call('probe_read', '/data/sneaky', '<out>', 100)).toBe(-E.NOTCAPABLE);
    expect(p.call('probe_size', '/data/link_out')).toBe(-E.NOTCAPABLE);
  });

  it('a directory symlink pointing outside is refused as an intermediate component (/data/dirlink/hostname)', async () => {
    const p = await probe(MOUNTS());
    expect(p.call('probe_read', '/data/dirlink/hostname', '<out>', 100)).toBe(-E.NOTCAPABLE);
    expect(p.call('probe_read', '/data/abs_dirlink/hostname', '<out>', 100)).toBe(-E.NOTCAPABLE);
    expect(p.call('probe_list', '/data/dirlink', '<out>', 1000)).toBe(-E.NOTCAPABLE);
    expect(p.call('probe_write', '/work/dirlink/planted.txt', 'x', 1)).toBe(-E.NOTCAPABLE);
    expect(existsSync(join(root, 'outside', 'planted.txt'))).toBe(false);
  });

  it('symlinks whose target stays inside the mount are followed', async () => {
    const p = await probe(MOUNTS());
    let n = p.call('probe_read', '/data/link_in', '<out>', 100);
    expect(p.out(n)).toBe('hello from ro');
    n = p.call('probe_read', '/data/abs_in', '<out>', 100);
    expect(p.out(n)).toBe('inner');
    n = p.call('probe_read', '/data/dirlink_in/inner.txt', '<out>', 100);
    expect(p.out(n)).toBe('inner');
  });

  it('O_CREAT through a dangling symlink pointing outside is refused and creates nothing outside', async () => {
    const p = await probe(MOUNTS());
    expect(p.call('probe_write', '/work/dangling_out', 'pwned', 5)).toBe(-E.NOTCAPABLE);
    expect(p.call('probe_write', '/work/abs_dangling_out', 'pwned', 5)).toBe(-E.NOTCAPABLE);
    expect(p.call('probe_open', '/work/dangling_out', 4)).toBe(-E.NOTCAPABLE);
    expect(readdirSync(join(root, 'outside'))).toEqual(['hostname']);
    // a dangling symlink that stays inside creates its target inside the mount
    expect(p.call('probe_write', '/work/dangling_in', 'ok', 2)).toBe(0);
    expect(readFileSync(join(root, 'rw', 'made_by_link.txt'), 'utf8')).toBe('ok');
  });

  it('a final symlink with O_NOFOLLOW is not opened, and a symlink loop gives ELOOP', async () => {
    const p = await probe(MOUNTS());
    expect(p.call('probe_open', '/data/link_in', 5)).toBe(-E.LOOP);
    expect(p.call('probe_read', '/data/loop_a', '<out>', 100)).toBe(-E.LOOP);
  });

  it('readlink never reveals a host path outside the mount', async () => {
    const p = await probe(MOUNTS());
    expect(p.call('probe_readlink', '/data/abs_out', '<out>', 1000)).toBe(-E.NOTCAPABLE);
    let n = p.call('probe_readlink', '/data/abs_in', '<out>', 1000);
    expect(p.out(n)).toBe('/data/sub/inner.txt');
    n = p.call('probe_readlink', '/data/link_in', '<out>', 1000);
    expect(p.out(n)).toBe('hello.txt');
  });

  it('path_symlink and path_link are refused with EPERM in ro and rw mounts', async () => {
    const p = await probe(MOUNTS());
    expect(p.call('probe_symlink', '/etc/hostname', '/work/newlink')).toBe(-E.PERM);
    expect(p.call('probe_symlink', 'existing.txt', '/work/newlink')).toBe(-E.PERM);
    expect(p.call('probe_symlink', 'hello.txt', '/data/newlink')).toBe(-E.PERM);
    expect(p.call('probe_link', '/work/existing.txt', '/work/hardlink')).toBe(-E.PERM);
    expect(p.call('probe_link', '/data/hello.txt', '/work/hardlink')).toBe(-E.PERM);
    expect(existsSync(join(root, 'rw', 'newlink'))).toBe(false);
    expect(existsSync(join(root, 'rw', 'hardlink'))).toBe(false);
  });
});

describe('ro refuses every write; rw allows them inside the mount', () => {
  it('write, create, truncate, delete, rename, mkdir and metadata changes on ro fail with EROFS and leave the host unchanged', async () => {
    const before = snapshot(join(root, 'ro'));
    const rwBefore = snapshot(join(root, 'rw'));
    const p = await probe(MOUNTS());
    const refused: [string, number][] = [
      ['overwrite', p.call('probe_write', '/data/hello.txt', 'pwned', 5)],
      ['create', p.call('probe_write', '/data/new.txt', 'pwned', 5)],
      ['append', p.call('probe_append', '/data/hello.txt', 'pwned', 5)],
      ['O_CREAT', p.call('probe_open', '/data/hello.txt', 1)],
      ['write after O_RDWR', p.call('probe_rdwr_write', '/data/hello.txt')],
      ['O_TRUNC', p.call('probe_open', '/data/hello.txt', 3)],
      ['O_EXCL', p.call('probe_open', '/data/brand_new.txt', 4)],
      ['O_APPEND', p.call('probe_open', '/data/hello.txt', 6)],
      ['mkdir', p.call('probe_mkdir', '/data/newdir')],
      ['rmdir', p.call('probe_rmdir', '/data/emptydir')],
      ['unlink', p.call('probe_unlink', '/data/hello.txt')],
      ['unlink symlink', p.call('probe_unlink', '/data/link_in')],
      ['rename within ro', p.call('probe_rename', '/data/hello.txt', '/data/moved.txt')],
      ['rename ro -> rw', p.call('probe_rename', '/data/hello.txt', '/work/stolen.txt')],
      ['rename rw -> ro', p.call('probe_rename', '/work/existing.txt', '/data/planted.txt')],
      ['ftruncate', p.call('probe_fd_op', '/data/hello.txt', 1)],
      ['futimens', p.call('probe_fd_op', '/data/hello.txt', 2)],
      ['posix_fallocate', p.call('probe_fd_op', '/data/hello.txt', 3)],
      ['utimensat', p.call('probe_utimes', '/data/hello.txt')],
    ];
    for (const [what, rc] of refused) expect([what, rc]).toEqual([what, -E.ROFS]);
    // a write on a descriptor opened read-only fails too (EBADF: it has no write right)
    expect(p.call('probe_fd_op', '/data/hello.txt', 4)).toBe(-E.BADF);
    expect(snapshot(join(root, 'ro'))).toBe(before);
    expect(snapshot(join(root, 'rw'))).toBe(rwBefore);
  });

  it('the same operations on an rw mount succeed and land in the host dir', async () => {
    const rw = join(root, 'rw');
    const p = await probe(MOUNTS());
    expect(p.call('probe_write', '/work/new.txt', 'fresh', 5)).toBe(0);
    expect(readFileSync(join(rw, 'new.txt'), 'utf8')).toBe('fresh');
    expect(p.call('probe_append', '/work/new.txt', '+more', 5)).toBe(0);
    expect(readFileSync(join(rw, 'new.txt'), 'utf8')).toBe('fresh+more');
    expect(p.call('probe_write', '/work/existing.txt', 'new', 3)).toBe(0);
    expect(readFileSync(join(rw, 'existing.txt'), 'utf8')).toBe('new');
    expect(p.call('probe_open', '/work/new.txt', 4)).toBe(-E.EXIST);
    expect(p.call('probe_mkdir', '/work/dir')).toBe(0);
    expect(statSync(join(rw, 'dir')).isDirectory()).toBe(true);
    expect(p.call('probe_rename', '/work/new.txt', '/work/dir/moved.txt')).toBe(0);
    expect(readFileSync(join(rw, 'dir', 'moved.txt'), 'utf8')).toBe('fresh+more');
    expect(p.call('probe_utimes', '/work/dir/moved.txt')).toBe(0);
    expect(statSync(join(rw, 'dir', 'moved.txt')).mtimeMs).toBe(1_000_000_000);
    expect(p.call('probe_unlink', '/work/dir/moved.txt')).toBe(0);
    expect(p.call('probe_rmdir', '/work/dir')).toBe(0);
    expect(p.call('probe_rmdir', '/work/old')).toBe(0);
    expect(readdirSync(rw).sort()).toEqual([
      'abs_dangling_out',
      'dangling_in',
      'dangling_out',
      'dirlink',
      'existing.txt',
    ]);
  });

  it('rename from ro to rw mount cannot copy data out and the mount root cannot be removed', async () => {
    const p = await probe(MOUNTS());
    expect(p.call('probe_rmdir', '/work')).not.toBe(0);
    expect(p.call('probe_rename', '/work', '/work/x')).not.toBe(0);
    expect(statSync(join(root, 'rw')).isDirectory()).toBe(true);
  });
});

describe('process surface', () => {
  it('the environment is empty even when the host has variables set', async () => {
    process.env.TOOLGATE_SECRET_PROBE = 'do-not-leak';
    try {
      const p = await probe(MOUNTS());
      expect(p.call('probe_env_count')).toBe(0);
    } finally {
      delete process.env.TOOLGATE_SECRET_PROBE;
    }
  });

  it('stdout goes to writeStdout and stderr to writeStderr', async () => {
    const p = await probe(MOUNTS());
    expect(p.call('probe_print', 'héllo')).toBe(6);
    expect(p.stdout.join('')).toBe('héllo');
    expect(p.stderr.join('')).toBe('err:héllo');
  });

  it('proc_exit throws WasiExit carrying the exit code', async () => {
    const p = await probe(MOUNTS());
    let caught: unknown;
    try {
      p.call('probe_exit', 7);
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(WasiExit);
    expect((caught as WasiExit).exitCode).toBe(7);
  });

  it('a wild pointer passed to read gives EFAULT to the module, not a host exception', async () => {
    const p = await probe(MOUNTS());
    expect(p.call('probe_wild_read', '/data/hello.txt')).toBe(-E.FAULT);
    // the instance keeps working afterwards
    expect(p.call('probe_read', '/data/hello.txt', '<out>', 100)).toBe(13);
  });

  it('nanosleep sleeps through poll_oneoff for about the asked time', async () => {
    const p = await probe(MOUNTS());
    const t0 = performance.now();
    expect(p.call('probe_sleep_ms', 60)).toBe(0);
    const took = performance.now() - t0;
    expect(took).toBeGreaterThanOrEqual(55);
    expect(took).toBeLessThan(2000);
  });

  it('getentropy fills the buffer from random_get', async () => {
    const p = await probe(MOUNTS());
    expect(p.call('probe_random', '<out>', 64)).toBe(0);
    const a = p.out(64);
    expect(p.call('probe_random', '<out>', 64)).toBe(0);
    expect(p.out(64)).not.toBe(a);
  });
});
