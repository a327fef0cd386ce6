// Write quotas on rw mounts (issue 11, hole 5), against a hostile wasi-libc module run through the
// sandbox worker: it writes until refused, writes forever under a 1 s deadline, or sets a 1 TiB size.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, realpathSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseManifest } from '../../host/src/manifest/index.js';
import { loadSandboxTool, type SandboxTool } from '../../host/src/sandbox/index.js';
import { failure, moduleSpec, never, utf8 } from './core-helpers.js';

const FIXTURES = join(import.meta.dirname, '..', 'fixtures');
const QUOTA = 1024 * 1024;
let root: string;
let tool: SandboxTool;
let quick: SandboxTool;
let flooder: SandboxTool;
const ENTRIES = 50;

beforeAll(async () => {
  execFileSync('make', ['-s', '-C', FIXTURES, 'build/fs_hog.wasm']);
  root = realpathSync(mkdtempSync(join(tmpdir(), 'tg-quota-')));
  mkdirSync(join(root, 'rw'));
  const mounts = { '/work': { host: join(root, 'rw'), mode: 'rw' as const, maxBytes: QUOTA } };
  tool = await loadSandboxTool(moduleSpec('fs_hog', 'fs_hog', { allowedPaths: mounts, pool: { max: 1 } }));
  mkdirSync(join(root, 'flood'));
  const floodMounts = {
    '/work': { host: join(root, 'flood'), mode: 'rw' as const, maxBytes: QUOTA, maxEntries: ENTRIES },
  };
  flooder = await loadSandboxTool({
    ...moduleSpec('fs_hog', 'fs_hog', { allowedPaths: floodMounts, pool: { max: 1 } }),
    name: 't_fs_hog_flood',
  });
  quick = await loadSandboxTool({
    ...moduleSpec('fs_hog', 'fs_hog', { allowedPaths: mounts, pool: { max: 1 } }),
    name: 't_fs_hog_quick',
    limits: { ...moduleSpec('fs_hog', 'fs_hog').limits, timeoutMs: 1000 },
  });
});

afterAll(async () => {
  await tool?.close();
  await quick?.close();
  await flooder?.close();
  rmSync(root, { recursive: true, force: true });
});

const size = (name: string): number => statSync(join(root, 'rw', name)).size;

describe('a write quota per rw mount and per call', () => {
  it('a module writing until refused gets ENOSPC at the quota, the result names the mount and the number, and the disk holds at most the quota', async () => {
    const err = await failure(tool.call(utf8('fill /work/a.bin'), { signal: never() }), 'QUOTA_EXCEEDED');
    expect(err.message).toContain(
      `write quota exceeded: /work may take at most ${QUOTA} bytes per call (allowed_paths./work.max_bytes); the module got ENOSPC`,
    );
    expect(size('a.bin')).toBe(QUOTA);
  });

  it('the quota is per call: the next call may write its own quota again', async () => {
    await failure(tool.call(utf8('fill /work/b.bin'), { signal: never() }), 'QUOTA_EXCEEDED');
    await failure(tool.call(utf8('fill /work/c.bin'), { signal: never() }), 'QUOTA_EXCEEDED');
    expect(size('b.bin')).toBe(QUOTA);
    expect(size('c.bin')).toBe(QUOTA);
  });

  it('a module that ignores ENOSPC and writes in a loop until its 1 s deadline leaves at most the quota on disk', async () => {
    await failure(quick.call(utf8('forever /work/loop.bin'), { signal: never() }), 'TIMEOUT');
    expect(size('loop.bin')).toBeLessThanOrEqual(QUOTA);
    expect(size('loop.bin')).toBeGreaterThan(0);
  });

  it('set_size(1 TiB) is refused with ENOSPC: no sparse terabyte file appears', async () => {
    const err = await failure(tool.call(utf8('grow /work/huge.bin'), { signal: never() }), 'QUOTA_EXCEEDED');
    expect(err.message).toContain('/work may take at most 1048576 bytes per call');
    expect(err.message).toContain('the module then failed: errno 51');
    expect(size('huge.bin')).toBe(0);
  });
});

describe('an entry quota per rw mount and per call (an inode flood of empty files)', () => {
  const entries = (dir: string): number => readdirSync(join(root, 'flood', dir)).length;

  it('a module creating empty files until refused gets ENOSPC after max_entries, and the result names the mount and allowed_paths.<guest>.max_entries', async () => {
    mkdirSync(join(root, 'flood', 'files'));
    const err = await failure(flooder.call(utf8('files /work/files'), { signal: never() }), 'QUOTA_EXCEEDED');
    expect(err.message).toContain(
      `write quota exceeded: /work may get at most ${ENTRIES} new files and directories per call (allowed_paths./work.max_entries); the module got ENOSPC`,
    );
    expect(entries('files')).toBe(ENTRIES);
  });

  it('directories count the same, and the count is per call: the next call may create its own max_entries', async () => {
    mkdirSync(join(root, 'flood', 'dirs1'));
    mkdirSync(join(root, 'flood', 'dirs2'));
    await failure(flooder.call(utf8('dirs /work/dirs1'), { signal: never() }), 'QUOTA_EXCEEDED');
    await failure(flooder.call(utf8('dirs /work/dirs2'), { signal: never() }), 'QUOTA_EXCEEDED');
    expect(entries('dirs1')).toBe(ENTRIES);
    expect(entries('dirs2')).toBe(ENTRIES);
  });

  it('opening an existing file with O_CREAT creates nothing and is not counted', async () => {
    // `far` opens one file with O_CREAT|O_TRUNC (then its write past the byte quota is refused):
    // over max_entries + 10 calls only the first open creates the file.
    for (let i = 0; i < ENTRIES + 10; i++) {
      const err = await failure(flooder.call(utf8('far /work/same.bin'), { signal: never() }), 'QUOTA_EXCEEDED');
      expect(err.message).toContain('(allowed_paths./work.max_bytes)');
    }
  }, 120_000);
});

describe('a write past the end counts at the size it makes the file (a sparse file)', () => {
  it('1 byte at 512 KiB charges the hole too: what fits after it brings the file to exactly the quota', async () => {
    await failure(tool.call(utf8('hole /work/holey.bin'), { signal: never() }), 'QUOTA_EXCEEDED');
    expect(size('holey.bin')).toBe(QUOTA);
  });

  it('1 byte at 2 MiB (past a 1 MiB quota) is refused with ENOSPC and the file stays empty', async () => {
    const err = await failure(tool.call(utf8('far /work/far.bin'), { signal: never() }), 'QUOTA_EXCEEDED');
    expect(err.message).toContain('the module then failed: errno 51');
    expect(size('far.bin')).toBe(0);
  });
});

describe('allowed_paths.<guest>.max_bytes in a manifest', () => {
  const manifest = (grant: string): string =>
    `apiVersion: toolgate/v1\nname: q\nversion: 1.0.0\ndescription: d\nmodule: { path: q.wasm }\ncapabilities:\n  allowed_paths:\n    /out: ${grant}\n`;

  it('an rw mount without max_bytes gets the 64 MiB default; a set one is kept', () => {
    expect(
      parseManifest(manifest('{ host: ./o, mode: rw }'), 'q.yaml').capabilities.allowed_paths['/out']?.max_bytes,
    ).toBe(64 * 1024 * 1024);
    expect(
      parseManifest(manifest('{ host: ./o, mode: rw, max_bytes: 4096 }'), 'q.yaml').capabilities.allowed_paths['/out']
        ?.max_bytes,
    ).toBe(4096);
  });

  it('an rw mount without max_entries gets the 10000 default; a set one is kept; on ro it is refused', () => {
    expect(
      parseManifest(manifest('{ host: ./o, mode: rw }'), 'q.yaml').capabilities.allowed_paths['/out']?.max_entries,
    ).toBe(10_000);
    expect(
      parseManifest(manifest('{ host: ./o, mode: rw, max_entries: 0 }'), 'q.yaml').capabilities.allowed_paths['/out']
        ?.max_entries,
    ).toBe(0);
    expect(() => parseManifest(manifest('{ host: ./o, mode: ro, max_entries: 10 }'), 'q.yaml')).toThrow(
      /capabilities\.allowed_paths\["\/out"\]\.max_entries: is allowed only when mode is rw/,
    );
    expect(() => parseManifest(manifest('{ host: ./o, mode: rw, max_entries: -1 }'), 'q.yaml')).toThrow(
      /max_entries: must be >= 0/,
    );
    expect(() => parseManifest(manifest('{ host: ./o, mode: rw, max_entries: many }'), 'q.yaml')).toThrow(
      /max_entries/,
    );
  });

  it('max_bytes on a read-only mount, zero or a negative number is refused naming the key', () => {
    expect(() => parseManifest(manifest('{ host: ./o, mode: ro, max_bytes: 10 }'), 'q.yaml')).toThrow(
      /capabilities\.allowed_paths\["\/out"\]\.max_bytes: is allowed only when mode is rw/,
    );
    expect(() => parseManifest(manifest('{ host: ./o, mode: rw, max_bytes: 0 }'), 'q.yaml')).toThrow(
      /max_bytes: must be >= 1/,
    );
  });
});
