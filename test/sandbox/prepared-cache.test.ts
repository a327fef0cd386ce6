// The on-disk cache of prepared modules (issue 15 item 3): a second start reads a module as the
// first prepared it instead of checking, patching and instrumenting it again. What is read back is
// only ever the prepared form of the same module under the same options and the same patcher;
// anything else in the folder is ignored and rebuilt, and a folder that cannot be written only
// costs the time it would have saved. (Forged entries: test/cache-files/forged-entries.test.ts.)
import { execFile } from 'node:child_process';
import { copyFile, mkdir, mkdtemp, readdir, readFile, rm, stat, truncate, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterEach, beforeEach, expect, test } from 'vitest';
import { openCache, openCacheFolder } from '../../host/src/cache-files/index.js';
import { loadSandboxTool, usePreparedModuleCache, type SandboxToolSpec } from '../../host/src/sandbox/index.js';
import { forgetCompiledModules, preparedCacheStats } from '../../host/src/sandbox/module/cache.js';
import { ROOT, toolgateEntry } from '../server/helpers.js';
import { capturingLogger, kitSpec, moduleSpec, never, text, utf8 } from './core-helpers.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'toolgate-prepared-'));
  forgetCompiledModules();
});
afterEach(async () => {
  usePreparedModuleCache(undefined);
  forgetCompiledModules();
  await rm(dir, { recursive: true, force: true });
});

const echoSpec = (over: Partial<SandboxToolSpec> = {}): SandboxToolSpec => moduleSpec('server_spin', 'echo', over);

/** Loads the tool afresh (as a new process would), calls it once, and says where its module came from. */
async function loadAndCall(
  spec: SandboxToolSpec,
  input: string,
): Promise<{ out: string; fromDisk: number; prepared: number }> {
  forgetCompiledModules();
  const before = { ...preparedCacheStats };
  const tool = await loadSandboxTool(spec);
  try {
    const out = text(await tool.call(utf8(input), { signal: never() }));
    return {
      out,
      fromDisk: preparedCacheStats.fromDisk - before.fromDisk,
      prepared: preparedCacheStats.prepared - before.prepared,
    };
  } finally {
    await tool.close();
  }
}

/** Turns the cache on at `root`/prepared, as the CLI does for $TOOLGATE_HOME/cache; says whether it could. */
async function useCacheAt(root: string, warn: (message: string) => void = () => {}): Promise<boolean> {
  const opened = await openCache(root, warn);
  const folder = opened === undefined ? undefined : await openCacheFolder(opened, 'prepared');
  usePreparedModuleCache(folder);
  return folder !== undefined;
}

const entries = async (folder: string): Promise<string[]> =>
  (await readdir(folder)).filter((f) => f.endsWith('.bin')).sort();

test('a module prepared once is read back by the next load and answers the same; another memory cap is prepared on its own', async () => {
  const cache = join(dir, 'prepared');
  expect(await useCacheAt(dir)).toBe(true);
  const first = await loadAndCall(echoSpec(), '{"text":"one"}');
  expect(first).toEqual({ out: '{"text":"one"}', fromDisk: 0, prepared: 1 });
  expect(await entries(cache)).toHaveLength(1);

  const second = await loadAndCall(echoSpec(), '{"text":"one"}');
  expect(second).toEqual({ out: '{"text":"one"}', fromDisk: 1, prepared: 0 });

  // the patch depends on the cap: the same bytes under a lower cap are not the same prepared module
  const capped = await loadAndCall(echoSpec({ limits: { ...echoSpec().limits, maxPages: 2 } }), '{"text":"cap"}');
  expect(capped).toEqual({ out: '{"text":"cap"}', fromDisk: 0, prepared: 1 });
  expect(await entries(cache)).toHaveLength(2);
});

test('a truncated cache file is ignored, the module is prepared again and the file rewritten whole', async () => {
  const cache = join(dir, 'prepared');
  expect(await useCacheAt(dir)).toBe(true);
  await loadAndCall(echoSpec(), '{"text":"a"}');
  const [name] = await entries(cache);
  const file = join(cache, name as string);
  const size = (await stat(file)).size;
  for (const keep of [size - 1, 40, 0]) {
    await truncate(file, keep);
    expect(await loadAndCall(echoSpec(), '{"text":"b"}')).toEqual({ out: '{"text":"b"}', fromDisk: 0, prepared: 1 });
    expect((await stat(file)).size).toBe(size);
  }
});

test("another module's cache file under this module's name, or one with a changed byte, is not used", async () => {
  const cache = join(dir, 'prepared');
  expect(await useCacheAt(dir)).toBe(true);
  await loadAndCall(echoSpec(), '{"text":"echo"}');
  const [echoFile] = await entries(cache);
  const greet = kitSpec('greet');
  const greeting = await loadAndCall(greet, 'toolgate');
  const greetFile = (await entries(cache)).find((f) => f !== echoFile) as string;

  // the echo module's entry copied over the greet module's: a whole, well-formed file for another key
  await copyFile(join(cache, echoFile as string), join(cache, greetFile));
  expect(await loadAndCall(greet, 'toolgate')).toEqual({ ...greeting, fromDisk: 0, prepared: 1 });

  // a byte of the prepared module changed after its header (its digest no longer matches)
  const bytes = await readFile(join(cache, greetFile));
  bytes[bytes.length - 3] = (bytes[bytes.length - 3] as number) ^ 0xff;
  await writeFile(join(cache, greetFile), bytes);
  expect(await loadAndCall(greet, 'toolgate')).toEqual({ ...greeting, fromDisk: 0, prepared: 1 });
  // and the good copy is back
  expect(await loadAndCall(greet, 'toolgate')).toEqual({ ...greeting, fromDisk: 1, prepared: 0 });
});

test('a cache folder that cannot be written leaves loads and calls working, and nothing is logged', async () => {
  // a regular file where the folder would be: no mkdir can succeed, even as root
  const blocker = join(dir, 'not-a-folder');
  await writeFile(blocker, 'x');
  const warnings: string[] = [];
  expect(await useCacheAt(blocker, (m) => warnings.push(m))).toBe(false);
  expect(warnings).toEqual([]);
  const { logger, lines } = capturingLogger();
  for (let i = 0; i < 2; i++) {
    expect(await loadAndCall(echoSpec({ logger }), '{"text":"still"}')).toEqual({
      out: '{"text":"still"}',
      fromDisk: 0,
      prepared: 1,
    });
  }
  expect(lines).toEqual([]);
});

test('toolgate call with a $TOOLGATE_HOME whose cache cannot be made answers as usual with nothing on stderr, and a second run reads the cache', async () => {
  const entry = await toolgateEntry();
  const run = (home: string) =>
    promisify(execFile)(
      process.execPath,
      [
        entry,
        'call',
        'greet',
        '--args',
        '{"name":"cache"}',
        '--manifests',
        join(ROOT, 'manifests/greet.yaml'),
        '--policies',
        'none',
      ],
      {
        cwd: dir,
        env: { PATH: process.env['PATH'] ?? '', HOME: dir, TOOLGATE_HOME: home },
      },
    );
  const blocked = join(dir, 'blocked-home');
  await mkdir(blocked);
  await writeFile(join(blocked, 'cache'), 'not a folder');
  const out = await run(blocked);
  expect(out.stdout.trim()).toBe('Hello, cache!');
  expect(out.stderr.replace(/^toolgate: WARNING: running with NO policies.*\n/m, '')).toBe('');

  const home = join(dir, 'home');
  const prepared = join(home, 'cache/prepared');
  await run(home);
  // a file is only ever replaced by a rename, so an unchanged inode means it was read, not rebuilt
  const inodes = async () =>
    Promise.all((await entries(prepared)).map(async (f) => [f, (await stat(join(prepared, f))).ino]));
  const cached = await inodes();
  expect(cached.length).toBeGreaterThan(0);
  const again = await run(home);
  expect(again.stdout.trim()).toBe('Hello, cache!');
  expect(await inodes()).toEqual(cached);
});
