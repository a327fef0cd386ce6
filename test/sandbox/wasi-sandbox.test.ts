// End to end: a wasi-libc Extism tool (test/fixtures/fs_tool.c) loaded with loadSandboxTool, so the
// core's worker wires toolgate's WASI in place of Node's. The architecture.md §8.3 escapes must fail there too.
import { execFileSync } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadSandboxTool, type SandboxTool } from '../../host/src/sandbox/index.js';
import { failure, moduleSpec, never, text, utf8 } from './core-helpers.js';

const FIXTURES = join(import.meta.dirname, '..', 'fixtures');
let root: string;
let tool: SandboxTool;

beforeAll(async () => {
  execFileSync('make', ['-s', '-C', FIXTURES, 'build/fs_tool.wasm']);
  root = realpathSync(mkdtempSync(join(tmpdir(), 'tg-wasi-e2e-')));
  mkdirSync(join(root, 'ro'));
  mkdirSync(join(root, 'rw'));
  mkdirSync(join(root, 'outside'));
  writeFileSync(join(root, 'outside', 'hostname'), 'secret-host');
  writeFileSync(join(root, 'ro', 'hello.txt'), 'hello from ro');
  symlinkSync('../outside', join(root, 'ro', 'dirlink'));
  tool = await loadSandboxTool(
    moduleSpec('fs_tool', 'fs_tool', {
      allowedPaths: {
        '/data': { host: join(root, 'ro'), mode: 'ro' },
        '/work': { host: join(root, 'rw'), mode: 'rw' },
      },
      pool: { max: 1 },
    }),
  );
});

afterAll(async () => {
  await tool?.close();
  rmSync(root, { recursive: true, force: true });
});

const run = (input: string): Promise<Uint8Array> => tool.call(utf8(input), { signal: never() });

describe('WASI through the sandbox worker', () => {
  it('a tool reads and lists an ro mount through loadSandboxTool', async () => {
    expect(text(await run('read /data/hello.txt'))).toBe('hello from ro');
    const names = text(await run('list /data'))
      .split('\n')
      .filter((n) => n && n !== '.' && n !== '..')
      .sort();
    expect(names).toEqual(['dirlink', 'hello.txt']);
  });

  it('the architecture.md §8.3 escape (/data/dirlink/hostname) is refused with ENOTCAPABLE in the worker', async () => {
    const err = await failure(run('read /data/dirlink/hostname'), 'TOOL_ERROR');
    expect(err.message).toContain('errno 76');
    expect(err.message).not.toContain('secret-host');
  });

  it('an ro mount refuses a write in the worker and an rw mount takes it', async () => {
    const err = await failure(run('write /data/hello.txt pwned'), 'TOOL_ERROR');
    expect(err.message).toContain('errno 69');
    expect(readFileSync(join(root, 'ro', 'hello.txt'), 'utf8')).toBe('hello from ro');
    expect(text(await run('write /work/out.txt written by the tool'))).toBe('ok');
    expect(readFileSync(join(root, 'rw', 'out.txt'), 'utf8')).toBe('written by the tool');
    expect(existsSync(join(root, 'outside', 'out.txt'))).toBe(false);
  });
});
