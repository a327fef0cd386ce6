// toolgate's preview1 functions called directly (no libc in between), so each rule is proven at the
// import boundary itself: struct layouts, errno values, pointer checks, caps.
import {
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  renameSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { closeSync, openSync } from 'node:fs';
import { assertOpenedInside } from '../../host/src/sandbox/wasi/host-file.js';
import {
  createWasiImports,
  MAX_IO_BYTES,
  MAX_OPEN_FDS,
  WASI_IMPORT_NAMES,
  type WasiMount,
} from '../../host/src/sandbox/wasi/index.js';

const E = {
  SUCCESS: 0,
  BADF: 8,
  EXIST: 20,
  FAULT: 21,
  INVAL: 28,
  MFILE: 33,
  NOENT: 44,
  NOTDIR: 54,
  NOSYS: 52,
  NOTSUP: 58,
  PERM: 63,
  ROFS: 69,
  NOTCAPABLE: 76,
} as const;
const RIGHT_FD_READ = 1n << 1n;
const RIGHT_FD_WRITE = 1n << 6n;
const O_CREAT = 1;
const PAGE = 65536;

type Fn = (...args: (number | bigint)[]) => number | bigint | void;

interface Harness {
  wasi: Record<string, Fn>;
  mem: WebAssembly.Memory;
  call(name: string, ...args: (number | bigint)[]): number;
  /** Writes a string at addr and returns [addr, byteLength]. */
  str(addr: number, s: string): [number, number];
  view(): DataView;
  stdout: Uint8Array[];
}

let root: string;

function harness(mounts: WasiMount[], pages = 2, getMemory?: () => WebAssembly.Memory | undefined): Harness {
  const mem = new WebAssembly.Memory({ initial: pages });
  const stdout: Uint8Array[] = [];
  const wasi = createWasiImports({
    mounts,
    getMemory: getMemory ?? (() => mem),
    writeStdout: (b) => stdout.push(b),
    writeStderr: () => undefined,
  });
  return {
    wasi,
    mem,
    stdout,
    call(name, ...args) {
      const fn = wasi[name];
      if (fn === undefined) throw new Error(`no import ${name}`);
      return fn(...args) as number;
    },
    str(addr, s) {
      const bytes = Buffer.from(s, 'utf8');
      new Uint8Array(mem.buffer, addr, bytes.length).set(bytes);
      return [addr, bytes.length];
    },
    view: () => new DataView(mem.buffer),
  };
}

/** path_open relative to dirFd; returns [errno, fd]. */
function open(
  h: Harness,
  dirFd: number,
  path: string,
  oflags = 0,
  rights = RIGHT_FD_READ,
  follow = 1,
): [number, number] {
  const [p, n] = h.str(1024, path);
  const rc = h.call('path_open', dirFd, follow, p, n, oflags, rights, 0n, 0, 512);
  return [rc, h.view().getUint32(512, true)];
}

const mounts = (): WasiMount[] => [
  { guest: '/data', host: join(root, 'ro'), mode: 'ro' },
  { guest: '/work', host: join(root, 'rw'), mode: 'rw' },
];

beforeEach(() => {
  root = realpathSync(mkdtempSync(join(tmpdir(), 'tg-wasi-abi-')));
  mkdirSync(join(root, 'ro'));
  mkdirSync(join(root, 'rw'));
  writeFileSync(join(root, 'ro', 'hello.txt'), 'hello from ro');
  writeFileSync(join(root, 'rw', 'data.bin'), '0123456789');
  writeFileSync(join(root, 'secret.txt'), 'SECRET');
});

afterEach(() => {
  rmSync(root, { recursive: true, force: true });
});

describe('the import set', () => {
  it('WASI_IMPORT_NAMES lists every wasi_snapshot_preview1 function and createWasiImports provides exactly those', () => {
    const preview1 = [
      'args_get',
      'args_sizes_get',
      'clock_res_get',
      'clock_time_get',
      'environ_get',
      'environ_sizes_get',
      'fd_advise',
      'fd_allocate',
      'fd_close',
      'fd_datasync',
      'fd_fdstat_get',
      'fd_fdstat_set_flags',
      'fd_fdstat_set_rights',
      'fd_filestat_get',
      'fd_filestat_set_size',
      'fd_filestat_set_times',
      'fd_pread',
      'fd_prestat_dir_name',
      'fd_prestat_get',
      'fd_pwrite',
      'fd_read',
      'fd_readdir',
      'fd_renumber',
      'fd_seek',
      'fd_sync',
      'fd_tell',
      'fd_write',
      'path_create_directory',
      'path_filestat_get',
      'path_filestat_set_times',
      'path_link',
      'path_open',
      'path_readlink',
      'path_remove_directory',
      'path_rename',
      'path_symlink',
      'path_unlink_file',
      'poll_oneoff',
      'proc_exit',
      'proc_raise',
      'random_get',
      'sched_yield',
      'sock_accept',
      'sock_recv',
      'sock_send',
      'sock_shutdown',
    ];
    expect([...WASI_IMPORT_NAMES].sort()).toEqual(preview1);
    const h = harness(mounts());
    expect(Object.keys(h.wasi).sort()).toEqual(preview1);
    for (const name of preview1) expect(typeof h.wasi[name]).toBe('function');
  });

  it('sockets answer ENOTSUP and proc_raise ENOSYS', () => {
    const h = harness(mounts());
    expect(h.call('sock_recv', 3, 0, 0, 0, 0, 0)).toBe(E.NOTSUP);
    expect(h.call('sock_accept', 3, 0, 0)).toBe(E.NOTSUP);
    expect(h.call('proc_raise', 9)).toBe(E.NOSYS);
  });

  it('an invalid mount is refused with an error naming the mount field and rule', () => {
    expect(() => harness([{ guest: '/x', host: join(root, 'missing'), mode: 'ro' }])).toThrow(
      /mounts\[0\]\.host: .*missing does not exist/,
    );
    expect(() => harness([{ guest: 'data', host: join(root, 'ro'), mode: 'ro' }])).toThrow(
      /mounts\[0\]\.guest: must be an absolute guest path/,
    );
    expect(() => harness([...mounts(), { guest: '/z', host: join(root, 'ro'), mode: 'rx' as 'ro' }])).toThrow(
      /mounts\[2\]\.mode/,
    );
    writeFileSync(join(root, 'plain'), '');
    expect(() => harness([{ guest: '/p', host: join(root, 'plain'), mode: 'ro' }])).toThrow(
      /mounts\[0\]\.host: .* is not a directory/,
    );
  });
});

describe('descriptors', () => {
  it('preopens are fd 3, 4... in mount order, named by guest path, and prestat ends with EBADF', () => {
    const h = harness(mounts());
    const v = h.view();
    expect(h.call('fd_prestat_get', 3, 100)).toBe(E.SUCCESS);
    expect([v.getUint8(100), v.getUint32(104, true)]).toEqual([0, 5]);
    expect(h.call('fd_prestat_dir_name', 3, 200, 5)).toBe(E.SUCCESS);
    expect(Buffer.from(new Uint8Array(h.mem.buffer, 200, 5)).toString()).toBe('/data');
    expect(h.call('fd_prestat_dir_name', 4, 200, 5)).toBe(E.SUCCESS);
    expect(Buffer.from(new Uint8Array(h.mem.buffer, 200, 5)).toString()).toBe('/work');
    expect(h.call('fd_prestat_get', 5, 100)).toBe(E.BADF);
    expect(h.call('fd_prestat_get', 1, 100)).toBe(E.BADF);
  });

  it('fdstat is 24 bytes: filetype @0, flags @2, base rights @8, inheriting @16; an ro preopen holds no write right', () => {
    const h = harness(mounts());
    new Uint8Array(h.mem.buffer, 0, 64).fill(0xaa);
    expect(h.call('fd_fdstat_get', 3, 0)).toBe(E.SUCCESS);
    const v = h.view();
    expect(v.getUint8(0)).toBe(3); // directory
    expect(v.getUint16(2, true)).toBe(0);
    expect(v.getBigUint64(8, true) & RIGHT_FD_WRITE).toBe(0n);
    expect(v.getUint8(24)).toBe(0xaa); // nothing written past the struct
    expect(h.call('fd_fdstat_get', 4, 0)).toBe(E.SUCCESS);
    expect(v.getBigUint64(8, true) & RIGHT_FD_WRITE).toBe(RIGHT_FD_WRITE);
    expect(h.call('fd_fdstat_get', 1, 0)).toBe(E.SUCCESS);
    expect(v.getUint8(0)).toBe(2); // stdout is a character device
  });

  it('filestat is 64 bytes with filetype @16 and size @32', () => {
    const h = harness(mounts());
    new Uint8Array(h.mem.buffer, 0, 128).fill(0xaa);
    const [p, n] = h.str(1024, 'hello.txt');
    expect(h.call('path_filestat_get', 3, 1, p, n, 0)).toBe(E.SUCCESS);
    const v = h.view();
    const st = statSync(join(root, 'ro', 'hello.txt'), { bigint: true });
    expect(v.getBigUint64(8, true)).toBe(st.ino);
    expect(v.getUint8(16)).toBe(4); // regular file
    expect(v.getBigUint64(32, true)).toBe(13n);
    expect(v.getBigUint64(48, true)).toBe(st.mtimeNs);
    expect(v.getUint8(64)).toBe(0xaa);
  });

  it('a readdir buffer smaller than one record is filled to the brim so libc asks again', () => {
    const h = harness(mounts());
    const [rc, fd] = open(h, 3, '.', 2, RIGHT_FD_READ | (1n << 14n));
    expect(rc).toBe(E.SUCCESS);
    expect(h.call('fd_readdir', fd, 2000, 30, 0n, 600)).toBe(E.SUCCESS);
    expect(h.view().getUint32(600, true)).toBe(30);
    expect(h.call('fd_readdir', fd, 2000, 200, 0n, 600)).toBe(E.SUCCESS);
    const v = h.view();
    expect(h.view().getUint32(600, true)).toBe(24 + 'hello.txt'.length);
    expect(v.getBigUint64(2000, true)).toBe(1n); // d_next
    expect(v.getUint32(2016, true)).toBe(9); // d_namlen
    expect(v.getUint8(2020)).toBe(4); // d_type regular file
    expect(Buffer.from(new Uint8Array(h.mem.buffer, 2024, 9)).toString()).toBe('hello.txt');
    expect(h.call('fd_readdir', fd, 2000, 200, 1n, 600)).toBe(E.SUCCESS);
    expect(h.view().getUint32(600, true)).toBe(0);
  });

  it('open descriptors are capped at MAX_OPEN_FDS with EMFILE, per instance', () => {
    const h = harness(mounts());
    let opened = 0;
    let last = E.SUCCESS as number;
    for (let i = 0; i < MAX_OPEN_FDS + 10; i += 1) {
      last = open(h, 3, 'hello.txt')[0];
      if (last !== E.SUCCESS) break;
      opened += 1;
    }
    expect(last).toBe(E.MFILE);
    expect(opened).toBe(MAX_OPEN_FDS - 5); // 0,1,2 and the two preopens
    expect(open(harness(mounts()), 3, 'hello.txt')[0]).toBe(E.SUCCESS);
    expect(h.call('fd_close', 10)).toBe(E.SUCCESS);
    expect(open(h, 3, 'hello.txt')).toEqual([E.SUCCESS, 10]);
  });

  it('stdin reads as empty and fd_write to stdout hands a copy to writeStdout', () => {
    const h = harness(mounts());
    const v = h.view();
    h.str(300, 'out!');
    v.setUint32(100, 300, true);
    v.setUint32(104, 4, true);
    expect(h.call('fd_read', 0, 100, 1, 120)).toBe(E.SUCCESS);
    expect(v.getUint32(120, true)).toBe(0);
    expect(h.call('fd_write', 1, 100, 1, 120)).toBe(E.SUCCESS);
    expect(v.getUint32(120, true)).toBe(4);
    h.str(300, 'XXXX');
    expect(Buffer.from(h.stdout[0] ?? []).toString()).toBe('out!');
    expect(h.call('fd_read', 1, 100, 1, 120)).toBe(E.BADF);
    expect(h.call('fd_write', 0, 100, 1, 120)).toBe(E.BADF);
    expect(h.call('fd_write', 99, 100, 1, 120)).toBe(E.BADF);
  });

  it('seek, tell, pread and pwrite use the offsets they are given', () => {
    const h = harness(mounts());
    const v = h.view();
    const [rc, fd] = open(h, 4, 'data.bin', 0, RIGHT_FD_READ | RIGHT_FD_WRITE);
    expect(rc).toBe(E.SUCCESS);
    expect(h.call('fd_seek', fd, -3n, 2, 100)).toBe(E.SUCCESS);
    expect(v.getBigUint64(100, true)).toBe(7n);
    v.setUint32(200, 300, true);
    v.setUint32(204, 10, true);
    expect(h.call('fd_read', fd, 200, 1, 120)).toBe(E.SUCCESS);
    expect(v.getUint32(120, true)).toBe(3);
    expect(Buffer.from(new Uint8Array(h.mem.buffer, 300, 3)).toString()).toBe('789');
    expect(h.call('fd_tell', fd, 100)).toBe(E.SUCCESS);
    expect(v.getBigUint64(100, true)).toBe(10n);
    expect(h.call('fd_pread', fd, 200, 1, 2n, 120)).toBe(E.SUCCESS);
    expect(Buffer.from(new Uint8Array(h.mem.buffer, 300, v.getUint32(120, true))).toString()).toBe('23456789');
    h.str(300, 'AB');
    v.setUint32(204, 2, true);
    expect(h.call('fd_pwrite', fd, 200, 1, 4n, 120)).toBe(E.SUCCESS);
    expect(readFileSync(join(root, 'rw', 'data.bin'), 'utf8')).toBe('0123AB6789');
    expect(h.call('fd_seek', fd, -20n, 1, 100)).toBe(E.INVAL);
  });
});

describe('paths are resolved by the host', () => {
  it("'..' above a preopen and absolute paths are refused with ENOTCAPABLE at path_open itself", () => {
    const h = harness(mounts());
    expect(open(h, 3, '../secret.txt')[0]).toBe(E.NOTCAPABLE);
    expect(open(h, 3, './../secret.txt')[0]).toBe(E.NOTCAPABLE);
    expect(open(h, 3, '..')[0]).toBe(E.NOTCAPABLE);
    expect(open(h, 3, join(root, 'secret.txt'))[0]).toBe(E.NOTCAPABLE);
    expect(open(h, 3, '/hello.txt')[0]).toBe(E.NOTCAPABLE);
    expect(open(h, 3, '')[0]).toBe(E.NOENT);
  });

  it('an open descriptor whose host file was replaced by a symlink to outside reads EBADF, not the new target', () => {
    const h = harness(mounts());
    const [rc, fd] = open(h, 4, 'data.bin');
    expect(rc).toBe(E.SUCCESS);
    renameSync(join(root, 'rw', 'data.bin'), join(root, 'rw', 'moved.bin'));
    symlinkSync(join(root, 'secret.txt'), join(root, 'rw', 'data.bin'));
    const v = h.view();
    v.setUint32(200, 300, true);
    v.setUint32(204, 10, true);
    expect(h.call('fd_read', fd, 200, 1, 120)).toBe(E.BADF);
  });

  it('a descriptor opened from a subdirectory cannot climb out of the mount with ..', () => {
    mkdirSync(join(root, 'ro', 'a', 'b'), { recursive: true });
    const h = harness(mounts());
    const [rc, sub] = open(h, 3, 'a/b', 2);
    expect(rc).toBe(E.SUCCESS);
    expect(open(h, sub, '../../hello.txt')[0]).toBe(E.SUCCESS);
    expect(open(h, sub, '../../../secret.txt')[0]).toBe(E.NOTCAPABLE);
  });

  it('O_CREAT on an ro mount is refused with EROFS before anything is created', () => {
    const h = harness(mounts());
    expect(open(h, 3, 'new.txt', O_CREAT)[0]).toBe(E.ROFS);
    expect(open(h, 3, 'hello.txt', 0, RIGHT_FD_WRITE)[0]).toBe(E.ROFS);
    const [p, n] = h.str(1024, 'newdir');
    expect(h.call('path_create_directory', 3, p, n)).toBe(E.ROFS);
    expect(statSync(join(root, 'ro', 'hello.txt')).size).toBe(13);
    expect(() => statSync(join(root, 'ro', 'new.txt'))).toThrow();
  });

  it('a descriptor the kernel opened outside the mount root is rejected after the open (race backstop)', () => {
    const mount = { guest: '/work', root: join(root, 'rw'), mode: 'rw' as const };
    const outside = openSync(join(root, 'secret.txt'), 'r');
    const inside = openSync(join(root, 'rw', 'data.bin'), 'r');
    const sibling = openSync(join(root, 'ro', 'hello.txt'), 'r');
    try {
      expect(() => assertOpenedInside(outside, mount)).toThrow(/left the mount/);
      expect(() => assertOpenedInside(sibling, { ...mount, root: join(root, 'r') })).toThrow(/left the mount/);
      expect(() => assertOpenedInside(inside, mount)).not.toThrow();
    } finally {
      closeSync(outside);
      closeSync(inside);
      closeSync(sibling);
    }
  });

  it('path_symlink and path_link are refused with EPERM on an rw mount', () => {
    const h = harness(mounts());
    const [t, tn] = h.str(1024, '/etc');
    const [l, ln] = h.str(2048, 'link');
    expect(h.call('path_symlink', t, tn, 4, l, ln)).toBe(E.PERM);
    const [s, sn] = h.str(1024, 'data.bin');
    expect(h.call('path_link', 4, 0, s, sn, 4, l, ln)).toBe(E.PERM);
  });
});

describe('guest pointers and sizes', () => {
  it('every wild pointer gives EFAULT and no host exception', () => {
    const h = harness(mounts());
    const v = h.view();
    const end = 2 * PAGE;
    const [fd] = [open(h, 3, 'hello.txt')[1]];
    // iovec array outside memory
    expect(h.call('fd_write', 1, end - 4, 1, 100)).toBe(E.FAULT);
    // iovec buffer outside memory
    v.setUint32(200, end - 2, true);
    v.setUint32(204, 10, true);
    expect(h.call('fd_write', 1, 200, 1, 100)).toBe(E.FAULT);
    expect(h.call('fd_read', fd, 200, 1, 100)).toBe(E.FAULT);
    // result pointer outside memory, and a negative i32 that means a pointer above 2 GiB
    v.setUint32(204, 1, true);
    v.setUint32(200, 300, true);
    expect(h.call('fd_read', fd, 200, 1, end)).toBe(E.FAULT);
    expect(h.call('fd_read', fd, 200, 1, -8)).toBe(E.FAULT);
    expect(h.call('path_open', 3, 0, end - 1, 50, 0, RIGHT_FD_READ, 0n, 0, 100)).toBe(E.FAULT);
    expect(h.call('fd_fdstat_get', 3, end - 10)).toBe(E.FAULT);
    expect(h.call('fd_prestat_dir_name', 3, end - 1, 5)).toBe(E.FAULT);
    expect(h.call('random_get', end - 10, 100)).toBe(E.FAULT);
    expect(h.call('clock_time_get', 0, 0n, end)).toBe(E.FAULT);
    expect(h.call('poll_oneoff', end, 100, 1, 120)).toBe(E.FAULT);
    expect(h.stdout).toEqual([]);
  });

  it('before the memory exists every pointer call gives EFAULT', () => {
    const h = harness(mounts(), 1, () => undefined);
    expect(h.call('fd_fdstat_get', 3, 0)).toBe(E.FAULT);
  });

  it('memory.grow between calls is seen (the buffer is read fresh on every call)', () => {
    const h = harness(mounts(), 1);
    h.mem.grow(1);
    expect(h.call('fd_fdstat_get', 3, PAGE + 100)).toBe(E.SUCCESS);
    expect(h.view().getUint8(PAGE + 100)).toBe(3);
  });

  it('one read or write moves at most MAX_IO_BYTES, however large the iovec', () => {
    const big = MAX_IO_BYTES + 2 * 1024 * 1024;
    writeFileSync(join(root, 'rw', 'big.bin'), Buffer.alloc(big, 7));
    const h = harness(mounts(), Math.ceil((big + PAGE) / PAGE));
    const v = h.view();
    const [rc, fd] = open(h, 4, 'big.bin', 0, RIGHT_FD_READ | RIGHT_FD_WRITE);
    expect(rc).toBe(E.SUCCESS);
    v.setUint32(0, PAGE, true);
    v.setUint32(4, big, true);
    expect(h.call('fd_read', fd, 0, 1, 100)).toBe(E.SUCCESS);
    expect(h.view().getUint32(100, true)).toBe(MAX_IO_BYTES);
    expect(h.call('fd_pwrite', fd, 0, 1, 0n, 100)).toBe(E.SUCCESS);
    expect(h.view().getUint32(100, true)).toBe(MAX_IO_BYTES);
    expect(h.call('fd_write', 1, 0, 1, 100)).toBe(E.SUCCESS);
    expect(h.stdout[0]?.byteLength).toBe(MAX_IO_BYTES);
    // more iovecs than IOV_MAX is refused outright
    expect(h.call('fd_read', fd, 0, 5000, 100)).toBe(E.INVAL);
  });

  it('an exception thrown by writeStdout propagates out of the call instead of becoming an errno', () => {
    const mem = new WebAssembly.Memory({ initial: 1 });
    const wasi = createWasiImports({
      mounts: [],
      getMemory: () => mem,
      writeStdout: () => {
        throw new Error('output cap reached');
      },
      writeStderr: () => undefined,
    });
    const v = new DataView(mem.buffer);
    v.setUint32(0, 100, true);
    v.setUint32(4, 1, true);
    expect(() => wasi.fd_write?.(1, 0, 1, 50)).toThrow('output cap reached');
  });
});

describe('process surface', () => {
  it('environ is empty and args are what the embedder gave', () => {
    process.env.TOOLGATE_ABI_SECRET = 'x';
    try {
      const mem = new WebAssembly.Memory({ initial: 1 });
      const wasi = createWasiImports({
        mounts: [],
        getMemory: () => mem,
        writeStdout: () => undefined,
        writeStderr: () => undefined,
        args: ['tool', 'ä'],
      });
      const v = new DataView(mem.buffer);
      expect(wasi.environ_sizes_get?.(0, 4)).toBe(0);
      expect([v.getUint32(0, true), v.getUint32(4, true)]).toEqual([0, 0]);
      expect(wasi.args_sizes_get?.(0, 4)).toBe(0);
      expect([v.getUint32(0, true), v.getUint32(4, true)]).toEqual([2, 5 + 3]);
      expect(wasi.args_get?.(100, 200)).toBe(0);
      expect(v.getUint32(100, true)).toBe(200);
      expect(v.getUint32(104, true)).toBe(205);
      expect(Buffer.from(new Uint8Array(mem.buffer, 200, 8)).toString()).toBe('tool\0ä\0');
    } finally {
      delete process.env.TOOLGATE_ABI_SECRET;
    }
  });

  it('poll_oneoff with an absolute clock already past returns at once with one clock event', () => {
    const h = harness([]);
    const v = h.view();
    v.setBigUint64(0, 42n, true); // userdata
    v.setUint8(8, 0); // clock
    v.setUint32(16, 1, true); // monotonic
    v.setBigUint64(24, 1n, true); // timeout: t=1ns, long past
    v.setUint16(40, 1, true); // abstime
    const t0 = performance.now();
    expect(h.call('poll_oneoff', 0, 100, 1, 200)).toBe(E.SUCCESS);
    // read as relative (or as now - 1 ns unsigned) the wait would be endless; this bound only tells
    // "at once" from "for ever" and leaves room for a loaded machine
    expect(performance.now() - t0).toBeLessThan(2_000);
    expect(v.getUint32(200, true)).toBe(1);
    expect(v.getBigUint64(100, true)).toBe(42n);
    expect(v.getUint16(108, true)).toBe(0);
    expect(v.getUint8(110)).toBe(0);
    expect(h.call('poll_oneoff', 0, 100, 0, 200)).toBe(E.INVAL);
  });
});

describe('a module lying about import types', () => {
  it('wrong parameter and result types give the guest an errno or a trap, never a host crash', async () => {
    const bytes = readFileSync(join(import.meta.dirname, '..', 'fixtures', 'build', 'fs_badsig.wasm'));
    let memory: WebAssembly.Memory | undefined;
    const stdout: string[] = [];
    const wasi = createWasiImports({
      mounts: [],
      getMemory: () => memory,
      writeStdout: (b) => stdout.push(Buffer.from(b).toString()),
      writeStderr: () => undefined,
    });
    const instance = await WebAssembly.instantiate(new WebAssembly.Module(bytes), { wasi_snapshot_preview1: wasi });
    memory = instance.exports.memory as WebAssembly.Memory;
    const ex = instance.exports as Record<string, () => number | bigint>;
    // i64 arguments are narrowed to the spec's u32: fd 0x100000001 -> 1 (stdout)
    expect(ex.write_i64?.()).toBe(E.SUCCESS);
    expect(stdout).toEqual(['hello']);
    // an errno returned where the module declared i64 cannot convert: the call traps with a TypeError
    expect(() => ex.close_i64?.()).toThrow(TypeError);
    expect(() => ex.exit_i64?.()).toThrow(/proc_exit\(3\)/);
  });
});
