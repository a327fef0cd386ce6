// serve with an empty home writes its cache entries (parsed manifests, prepared modules) after it
// has answered, not before: none is on disk when initialize is answered, and every one is on disk
// once the server has exited (docs/decisions.md, "Cache entries written after the answers").
import { spawn } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeAll, expect, test } from 'vitest';
import { BIN, MANIFESTS, removeDir, requireBuilt, tempDir, onJsonLines } from './helpers.js';

beforeAll(requireBuilt);
const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) removeDir(d);
});

const entriesIn = (dir: string, ext: string): string[] =>
  existsSync(dir) ? readdirSync(dir).filter((f) => f.endsWith(ext) && !f.startsWith('.')) : [];

interface Run {
  /** ms from spawn to the initialize answer */
  initMs: number;
  /** parsed-manifest entries on disk when initialize was answered */
  atInit: string[];
  called: boolean;
}

/** initialize -> tools/list -> convert_units, then the end of stdin; resolves when the server exits. */
function serveOnce(home: string): Promise<Run> {
  const args = [BIN, 'serve', '--stdio', '--no-watch', '--policies', 'none', '--manifests', MANIFESTS];
  const t0 = performance.now();
  const server = spawn(process.execPath, args, {
    env: { PATH: process.env['PATH'] ?? '/usr/bin:/bin', TOOLGATE_HOME: home, TOOLGATE_START_HELPER: '0' },
    stdio: ['pipe', 'pipe', 'ignore'],
  });
  const run: Run = { initMs: 0, atInit: [], called: false };
  const send = (msg: object): void => void server.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', ...msg })}\n`);
  return new Promise((done, fail) => {
    const timer = setTimeout(() => {
      server.kill();
      fail(new Error('serve did not answer within 30 s'));
    }, 30_000);
    onJsonLines(server.stdout, (line) => {
      const msg = line as { id?: number; result?: { isError?: boolean } };
      if (msg.id === 1) {
        run.initMs = performance.now() - t0;
        run.atInit = entriesIn(join(home, 'cache', 'manifests'), '.json');
        send({ method: 'notifications/initialized' });
        send({ id: 2, method: 'tools/list' });
      } else if (msg.id === 2) {
        send({
          id: 3,
          method: 'tools/call',
          params: { name: 'convert_units', arguments: { value: 1, from: 'km', to: 'mi' } },
        });
      } else if (msg.id === 3) {
        run.called = msg.result?.isError !== true;
        server.stdin.end();
      }
    });
    server.on('close', () => {
      clearTimeout(timer);
      done(run);
    });
    send({
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } },
    });
  });
}

test('an empty home: no parsed manifest is stored before initialize is answered; every one, and the called module, by the exit', async () => {
  const home = tempDir('cache-writes');
  dirs.push(home);
  const run = await serveOnce(home);
  expect(run.called).toBe(true);
  // entries wait for the first listing, or for 1 s after serving starts when no listing comes: a
  // start slower than that (a loaded machine) may have written some already
  if (run.initMs < 1000) expect(run.atInit).toEqual([]);
  const examples = readdirSync(MANIFESTS).filter((f) => f.endsWith('.yaml'));
  expect(entriesIn(join(home, 'cache', 'manifests'), '.json')).toHaveLength(examples.length);
  expect(entriesIn(join(home, 'cache', 'prepared'), '.bin').length).toBeGreaterThanOrEqual(1);
});

test('a second start with the home the first one left answers from its entries: nothing is parsed or prepared again', async () => {
  const home = tempDir('cache-writes-warm');
  dirs.push(home);
  await serveOnce(home);
  const manifests = entriesIn(join(home, 'cache', 'manifests'), '.json').sort();
  const prepared = entriesIn(join(home, 'cache', 'prepared'), '.bin').sort();
  const again = await serveOnce(home);
  expect(again.called).toBe(true);
  // the same entries, none added: the second start found everything it needed
  expect(entriesIn(join(home, 'cache', 'manifests'), '.json').sort()).toEqual(manifests);
  expect(entriesIn(join(home, 'cache', 'prepared'), '.bin').sort()).toEqual(prepared);
  expect(again.atInit).toEqual(manifests);
});
