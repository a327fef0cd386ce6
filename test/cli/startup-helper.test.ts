// serve's start-up helper (host/src/cli/startup-prep.ts, prep-worker.ts): with an empty home a
// thread at the lowest priority reads the manifests' YAML while the serving thread loads. What the
// serving thread takes from it is the YAML step only, for the very text it read itself; it never
// waits for the helper; a manifest is refused as it is without the helper; a forged cache entry is
// still refused (docs/decisions.md, "First call with an empty home: YAML on a start-up thread at the
// lowest priority").
import { spawn } from 'node:child_process';
import { cpSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { readdir, readFile, writeFile } from 'node:fs/promises';
import { availableParallelism, loadavg } from 'node:os';
import { join } from 'node:path';
import { MessageChannel, Worker } from 'node:worker_threads';
import { afterEach, beforeAll, describe, expect, test } from 'vitest';
import { BY_HELPER, BY_SERVER, FREE } from '../../host/src/cli/startup-plan.js';
import { coreToSpare, StartupHelper } from '../../host/src/cli/startup-prep.js';
import { openCache, openCacheFolder } from '../../host/src/cache-files/index.js';
import { ManifestError } from '../../host/src/manifest/errors.js';
import { parseManifestCached, useManifestParseCache, type YamlHelper } from '../../host/src/manifest/parse-cache.js';
import { parseManifest } from '../../host/src/manifest/parse.js';
import { yaml } from '../../host/src/lazy-yaml/index.js';
import { manifestWith, yamlOf } from '../manifest/helpers.js';
import { BIN, MANIFESTS, removeDir, requireBuilt, tempDir, onJsonLines } from './helpers.js';

const dirs: string[] = [];
function dir(prefix: string): string {
  const d = tempDir(prefix);
  dirs.push(d);
  return d;
}
afterEach(() => {
  useManifestParseCache(undefined);
  for (const d of dirs.splice(0)) removeDir(d);
});

const FILE = '/manifests/demo.yaml';
const OTHER = '/manifests/other.yaml';

/**
 * A helper for FILE and OTHER whose thread runs `code` (CommonJS, with workerData in scope and
 * parentPort standing for the helper's own channel, as prep-worker.ts sends on); `started` are the
 * files the helper has claimed already, as it does just before reading one; `extra`, more workerData.
 */
function helperRunning(
  code: string,
  started: string[] = [FILE],
  extra: Record<string, unknown> = {},
): { helper: StartupHelper; claims: Int32Array } {
  const files = [FILE, OTHER];
  const claims = new Int32Array(new SharedArrayBuffer(4 * files.length));
  for (const f of started) claims[files.indexOf(f)] = BY_HELPER;
  const { port1, port2 } = new MessageChannel();
  const worker = new Worker(
    `const { workerData } = require('node:worker_threads');\nconst parentPort = workerData.port;\n${code}`,
    { eval: true, workerData: { ...extra, files, claims, port: port2 }, transferList: [port2] },
  );
  const helper = new StartupHelper(worker, { files, claims, nursery: new SharedArrayBuffer(4) }, port1);
  return { helper, claims };
}

/** Until the helper's notes have had time to arrive (they are sent as its thread starts). */
const settle = (ms = 300): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

describe('the serving thread and its start-up helper', () => {
  test("the helper's data is taken only for the very text the serving thread read", async () => {
    const code = `parentPort.postMessage({ file: '${FILE}', text: 'a: 1', data: { a: 1 } });`;
    const same = helperRunning(code).helper;
    await settle();
    expect(await same.yaml(FILE, 'a: 1')).toEqual({ data: { a: 1 } });
    expect(same.taken).toBe(1);
    await same.end();
    const other = helperRunning(code).helper;
    await settle();
    // the file changed between the helper's read and the serving thread's: parsed afresh
    expect(await other.yaml(FILE, 'a: 2')).toBeUndefined();
    expect(other.taken).toBe(0);
    await other.end();
  });

  test('what a helper read before it ended is still taken', async () => {
    const { helper } = helperRunning(`parentPort.postMessage({ file: '${FILE}', text: 'a: 1', data: { a: 1 } });
parentPort.postMessage({ done: true });`);
    await settle();
    await helper.end();
    expect(await helper.yaml(FILE, 'a: 1')).toEqual({ data: { a: 1 } });
    expect(helper.taken).toBe(1);
  });

  test('a file the helper has not started is claimed by the serving thread and parsed there at once; the helper then skips it', async () => {
    const { helper, claims } = helperRunning(
      `setTimeout(() => {
  const got = Atomics.compareExchange(workerData.claims, 1, 0, 1);
  parentPort.postMessage({ file: '${OTHER}', text: 'skipped: ' + got, data: {} });
}, 300);`,
      [],
    );
    const started = performance.now();
    expect(await helper.yaml(OTHER, 'b: 1')).toBeUndefined();
    expect(performance.now() - started).toBeLessThan(100);
    expect(claims[1]).toBe(BY_SERVER);
    expect(claims[0]).toBe(FREE);
    await helper.end();
  });

  test('a note the helper sent while the serving thread was busy is taken without waiting for a turn of its event loop', async () => {
    // the helper sends its note, then wakes this thread, which never returned to its event loop
    const word = new Int32Array(new SharedArrayBuffer(4));
    const { helper } = helperRunning(
      `parentPort.postMessage({ file: '${FILE}', text: 'a: 1', data: { a: 1 } });
Atomics.store(workerData.word, 0, 1);
Atomics.notify(workerData.word, 0);`,
      [FILE],
      { word },
    );
    expect(Atomics.wait(word, 0, 0, 10_000)).not.toBe('timed-out');
    expect(await helper.yaml(FILE, 'a: 1')).toEqual({ data: { a: 1 } });
    expect(helper.taken).toBe(1);
    await helper.end();
  });

  test('a file the helper has begun and not delivered is parsed by the serving thread at once: it never waits for the helper', async () => {
    const { helper } = helperRunning(`setInterval(() => {}, 1000);`, [FILE, OTHER]);
    const started = performance.now();
    expect(await helper.yaml(FILE, 'a: 1')).toBeUndefined();
    expect(await helper.yaml(OTHER, 'b: 1')).toBeUndefined();
    expect(performance.now() - started).toBeLessThan(50);
    expect(helper.taken).toBe(0);
    await helper.end();
  });

  test('a file the helper read with a problem, or does not list, is parsed by the serving thread', async () => {
    const { helper } = helperRunning(`parentPort.postMessage({ file: '${FILE}' });
setInterval(() => {}, 1000);`);
    await settle();
    expect(await helper.yaml(FILE, 'a: [')).toBeUndefined();
    expect(await helper.yaml('/manifests/unlisted.yaml', 'a: 1')).toBeUndefined();
    expect(helper.taken).toBe(0);
    await helper.end();
  });

  test('a helper whose thread fails is not waited on: the serving thread parses the file itself', async () => {
    const { helper } = helperRunning(`throw new Error('the helper failed');`);
    const started = performance.now();
    expect(await helper.yaml(FILE, 'a: 1')).toBeUndefined();
    expect(performance.now() - started).toBeLessThan(50);
    await helper.end();
  });
});

describe('a core to spare', () => {
  const cores = availableParallelism();
  /** /proc/loadavg with `running` tasks runnable now, this thread among them. */
  const loadavgWith =
    (running: number): (() => string) =>
    () =>
      `0.52 0.48 0.61 ${running}/312 40123\n`;

  test('the helper starts only while fewer tasks than the cores less one are runnable besides this thread', () => {
    expect(coreToSpare(loadavgWith(1))).toBe(cores > 1);
    expect(coreToSpare(loadavgWith(cores - 1))).toBe(cores > 1);
    expect(coreToSpare(loadavgWith(cores))).toBe(false);
    expect(coreToSpare(loadavgWith(cores + 6))).toBe(false);
  });

  test('where the kernel does not count runnable tasks, the load average must leave a core free', () => {
    const none = (): string => {
      throw new Error('ENOENT: /proc/loadavg');
    };
    expect(coreToSpare(none)).toBe((loadavg()[0] ?? 0) < cores - 1);
    expect(coreToSpare(() => 'nothing the kernel would write')).toBe((loadavg()[0] ?? 0) < cores - 1);
  });
});

describe("a manifest through the helper's data is checked as a parsed one", () => {
  const text = yamlOf(manifestWith({ description: 'from the file' }));

  test('data the schema refuses is refused naming the file, the key path and the rule, as a parse of the text is', async () => {
    const bad = yamlOf(manifestWith({ timeout_ms: 'soon' }));
    const file = '/manifests/bad.yaml';
    const helper: YamlHelper = () => Promise.resolve({ data: manifestWith({ timeout_ms: 'soon' }) });
    useManifestParseCache(undefined, helper);
    const viaHelper = await parseManifestCached(bad, file).catch((e: unknown) => e);
    let direct: unknown;
    try {
      parseManifest(bad, file);
    } catch (err) {
      direct = err;
    }
    expect(viaHelper).toBeInstanceOf(ManifestError);
    expect(direct).toBeInstanceOf(ManifestError);
    expect((viaHelper as ManifestError).message).toBe((direct as ManifestError).message);
    expect((viaHelper as ManifestError).message).toContain(file);
    expect((viaHelper as ManifestError).message).toContain('timeout_ms');
  });

  test("a __proto__ key crosses from the helper's thread as the key it is, and is refused as a parse of the text refuses it", async () => {
    const hostile = `${text}__proto__:\n  capabilities:\n    allowed_hosts: ['*']\n`;
    const file = '/manifests/proto.yaml';
    // what the helper sends is structured-cloned: the same copy a MessagePort makes
    const sent = structuredClone(yaml().parse(hostile, { uniqueKeys: true, strict: true }) as unknown);
    expect(Object.getOwnPropertyNames(sent)).toContain('__proto__');
    useManifestParseCache(undefined, () => Promise.resolve({ data: sent }));
    const viaHelper = await parseManifestCached(hostile, file).catch((e: unknown) => e);
    const direct = (() => {
      try {
        return parseManifest(hostile, file);
      } catch (err) {
        return err;
      }
    })();
    expect(viaHelper).toBeInstanceOf(ManifestError);
    expect(direct).toBeInstanceOf(ManifestError);
    expect((viaHelper as ManifestError).message).toBe((direct as ManifestError).message);
    expect((viaHelper as ManifestError).message).toContain('__proto__');
  });

  test('a text over the size cap is refused by its size even when the helper sent data for it', async () => {
    const huge = `${text}\n# ${'x'.repeat(256 * 1024)}\n`;
    useManifestParseCache(undefined, () => Promise.resolve({ data: manifestWith({}) }));
    await expect(parseManifestCached(huge, '/manifests/huge.yaml')).rejects.toThrow(/at most 262144 bytes/);
  });

  test("a cache entry edited by hand is still refused by its seal while the helper is on, and the helper's data is validated instead", async () => {
    const home = dir('helper-forged');
    const opened = await openCache(join(home, 'cache'), () => {});
    if (opened === undefined) throw new Error('no cache');
    const folder = await openCacheFolder(opened, 'manifests');
    const file = join(home, 'demo.yaml');
    useManifestParseCache(folder);
    await parseManifestCached(text, file);
    const [name] = (await readdir(join(home, 'cache', 'manifests'))).filter((f) => f.endsWith('.json'));
    const path = join(home, 'cache', 'manifests', name as string);
    const entry = await readFile(path, 'utf8');
    await writeFile(path, entry.replace('from the file', 'from a forger'));
    let asked = 0;
    useManifestParseCache(folder, () => {
      asked++;
      return Promise.resolve({ data: manifestWith({ description: 'from the file' }) });
    });
    const manifest = await parseManifestCached(text, file);
    expect(manifest.description).toBe('from the file');
    expect(asked).toBe(1);
    expect(manifest).toStrictEqual(parseManifest(text, file));
  });
});

/** One bundled `serve --stdio -vv` on `home`: initialize and tools/list, then stdin closed; stderr and the tools. */
function listOnce(
  home: string,
  manifests: string[],
  helper: '0' | '1' = '1',
): Promise<{ tools: unknown; stderr: string }> {
  const args = [BIN, 'serve', '--stdio', '--no-watch', '--policies', 'none', '-vv'];
  for (const m of manifests) args.push('--manifests', m);
  const server = spawn(process.execPath, args, {
    env: {
      PATH: process.env['PATH'] ?? '/usr/bin:/bin',
      TOOLGATE_HOME: home,
      TOOLGATE_START_HELPER: helper,
    },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  return new Promise((done, fail) => {
    const timer = setTimeout(() => {
      server.kill();
      fail(new Error('no tools/list answer within 30 s'));
    }, 30_000);
    let stderr = '';
    let tools: unknown;
    server.stderr.setEncoding('utf8').on('data', (t: string) => (stderr += t));
    const send = (msg: object): void => void server.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', ...msg })}\n`);
    onJsonLines(server.stdout, (line) => {
      const msg = line as { id?: number; result?: { tools?: unknown } };
      if (msg.id === 1) {
        send({ method: 'notifications/initialized' });
        send({ id: 2, method: 'tools/list' });
      } else if (msg.id === 2) {
        tools = msg.result?.tools;
        server.stdin.end();
      }
    });
    server.on('close', () => {
      clearTimeout(timer);
      done({ tools, stderr });
    });
    const init = { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'helper', version: '1' } };
    send({ id: 1, method: 'initialize', params: init });
  });
}

/** The debug line serve writes once the helper has ended: how many manifests' data it took. */
function helperTook(stderr: string): number | undefined {
  for (const line of stderr.split('\n')) {
    if (!line.includes('start-up helper')) continue;
    return (JSON.parse(line) as { manifests: number }).manifests;
  }
  return undefined;
}

/** A home whose cache already holds a parsed manifest: serve starts no helper for it. */
function homeWithCache(prefix: string): string {
  const home = dir(prefix);
  mkdirSync(join(home, 'cache', 'manifests'), { recursive: true, mode: 0o700 });
  writeFileSync(join(home, 'cache', 'manifests', 'placeholder.json'), '');
  return home;
}

describe('the shipped command with an empty home', () => {
  beforeAll(() => requireBuilt());

  test('an empty home starts the helper and lists what a start without it lists', async () => {
    const empty = await listOnce(dir('helper-empty'), [MANIFESTS]);
    const without = await listOnce(homeWithCache('helper-none'), [MANIFESTS]);
    // how many files the helper read before the serving thread claimed the rest depends on the load
    expect(helperTook(empty.stderr)).toBeGreaterThanOrEqual(0);
    expect(helperTook(empty.stderr)).toBeLessThanOrEqual(10);
    expect(helperTook(without.stderr)).toBeUndefined();
    expect(Array.isArray(empty.tools) && empty.tools.length).toBe(10);
    expect(empty.tools).toEqual(without.tools);
  });

  test('TOOLGATE_START_HELPER=0 starts no helper, even with an empty home', async () => {
    const off = await listOnce(dir('helper-off'), [MANIFESTS], '0');
    expect(helperTook(off.stderr)).toBeUndefined();
    expect(Array.isArray(off.tools) && off.tools.length).toBe(10);
  });

  test('malformed manifests are reported the same way with the helper as without it: file, key path and rule', async () => {
    const bad = dir('helper-bad');
    cpSync(join(MANIFESTS, 'greet.yaml'), join(bad, 'greet.yaml'));
    const greet = await readFile(join(MANIFESTS, 'greet.yaml'), 'utf8');
    const moduleLine = /path: \.\.\/pdk-examples\//g;
    const fixed = greet.replace(moduleLine, `path: ${join(MANIFESTS, '..', 'pdk-examples')}/`);
    writeFileSync(join(bad, 'greet.yaml'), fixed);
    writeFileSync(join(bad, 'broken.yaml'), fixed.replace('name: greet', 'name: [greet'));
    writeFileSync(join(bad, 'wrong.yaml'), fixed.replace('name: greet', 'name: Not A Name'));
    writeFileSync(join(bad, 'extra.yaml'), `${fixed.replace('name: greet', 'name: extra')}\nsurprise: 1\n`);
    const problems = (stderr: string): string[] =>
      stderr
        .split('\n')
        .filter((l) => /broken\.yaml|wrong\.yaml|extra\.yaml/.test(l))
        .map((l) => (JSON.parse(l) as { msg: string }).msg)
        .sort();
    const empty = await listOnce(dir('helper-bad-empty'), [bad]);
    const without = await listOnce(homeWithCache('helper-bad-none'), [bad]);
    expect(helperTook(empty.stderr)).toBeLessThanOrEqual(3); // broken.yaml never: its YAML has a problem
    expect(problems(empty.stderr)).toHaveLength(3);
    expect(problems(empty.stderr)).toEqual(problems(without.stderr));
    expect(problems(empty.stderr).join('\n')).toMatch(/broken\.yaml.*YAML syntax error at line \d+/);
    expect(problems(empty.stderr).join('\n')).toMatch(/wrong\.yaml.*name/);
    expect(problems(empty.stderr).join('\n')).toMatch(/extra\.yaml.*surprise/);
  });

  test.runIf(process.platform === 'linux')(
    "the helper's thread runs at the lowest priority and the serving thread at the process's",
    async () => {
      const nices = new Map<number, number>();
      const args = [BIN, 'serve', '--stdio', '--no-watch', '--policies', 'none', '--manifests', MANIFESTS];
      const server = spawn(process.execPath, args, {
        env: {
          PATH: process.env['PATH'] ?? '/usr/bin:/bin',
          TOOLGATE_HOME: dir('helper-nice'),
          TOOLGATE_START_HELPER: '1',
        },
        stdio: ['pipe', 'ignore', 'ignore'],
      });
      const pid = server.pid ?? 0;
      // the 19th field of /proc/<pid>/task/<tid>/stat is the thread's nice value
      const niceOf = (tid: string): number =>
        Number(readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8').split(') ')[1]?.split(' ')[16]);
      for (let i = 0; i < 1500 && ![...nices.values()].includes(19); i++) {
        try {
          for (const tid of readdirSync(`/proc/${pid}/task`)) nices.set(Number(tid), niceOf(tid));
        } catch {
          /* a thread that ended between the listing and the read */
        }
        await new Promise((resolve) => setTimeout(resolve, 2));
      }
      server.kill();
      expect([...nices.values()]).toContain(19);
      expect(nices.get(pid)).toBe(0);
    },
  );
});
