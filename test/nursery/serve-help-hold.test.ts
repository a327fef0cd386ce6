// `serve`'s start-up nursery hold (host/src/cli/startup-hold.ts) is held only while serve runs:
// loading the command for its help, in-process as an embedder or a test calls runCli, takes none,
// and a run that ends before serving releases its own (docs/decisions.md, "The nursery during
// start-up"). The shared word the nursery module hands workers reads 1 while any hold is on.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { runCli } from '../../host/src/cli/index.js';
import { holdNursery, nurseryHoldWord } from '../../host/src/nursery/index.js';
import { makeIO } from '../registry/helpers.js';

const dir = mkdtempSync(join(tmpdir(), 'tg-serve-help-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const held = (): boolean => Atomics.load(new Int32Array(nurseryHoldWord()), 0) === 1;

describe('the start-up nursery hold outside serving', () => {
  test('the hold word reads a hold while one is on (the probe this file relies on)', () => {
    expect(held()).toBe(false);
    const hold = holdNursery();
    expect(held()).toBe(true);
    hold.release();
    expect(held()).toBe(false);
  });

  test('serve --help run in-process prints the help and leaves no hold on', async () => {
    const t = makeIO({ home: join(dir, 'home'), cwd: dir });
    expect(await runCli(['serve', '--help'], t.io)).toBe(0);
    expect(t.out()).toContain('toolgate serve');
    expect(held()).toBe(false);
  });

  test('help serve run in-process loads the command for its help and leaves no hold on', async () => {
    const t = makeIO({ home: join(dir, 'home'), cwd: dir });
    expect(await runCli(['help', 'serve'], t.io)).toBe(0);
    expect(t.out()).toContain('toolgate serve');
    expect(held()).toBe(false);
  });

  test('serve with a bad flag ends in a usage error (exit 2) and leaves no hold on', async () => {
    const t = makeIO({ home: join(dir, 'home'), cwd: dir });
    expect(await runCli(['serve', '--no-such-flag'], t.io)).toBe(2);
    expect(held()).toBe(false);
  });
});
