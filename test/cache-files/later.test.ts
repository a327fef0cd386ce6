// When cache entries are written (host/src/cache-files/later.ts): at once without a gate; with one,
// each waits for the gate to open, and lifting the gate writes whatever still waits.
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import { cacheEntriesWritten, writeCacheEntriesWhen, writeCacheEntry } from '../../host/src/cache-files/index.js';

const dirs: string[] = [];
function folder(): string {
  const d = mkdtempSync(join(tmpdir(), 'tg-later-'));
  dirs.push(d);
  return join(d, 'entries');
}
afterEach(async () => {
  writeCacheEntriesWhen(undefined);
  await cacheEntriesWritten();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

const entries = (dir: string): string[] => (existsSync(dir) ? readdirSync(dir).sort() : []);

/** A gate opened by hand, one entry per opening. */
function handGate(): { next: () => Promise<void>; open: () => void; waiting: () => number } {
  const waiters: (() => void)[] = [];
  return {
    next: () => new Promise<void>((resolve) => waiters.push(resolve)),
    open: () => waiters.shift()?.(),
    waiting: () => waiters.length,
  };
}

const turn = (): Promise<void> => new Promise((resolve) => setTimeout(resolve, 20));

describe('cache entries written later', () => {
  test('without a gate an entry is on disk when writeCacheEntry resolves', async () => {
    const dir = folder();
    await writeCacheEntry(dir, 'a.json', () => 'A');
    expect(readFileSync(join(dir, 'a.json'), 'utf8')).toBe('A');
  });

  test('with a gate nothing is made or written until the gate opens, then one entry per opening', async () => {
    const dir = folder();
    const gate = handGate();
    let made = 0;
    writeCacheEntriesWhen(gate.next);
    await writeCacheEntry(dir, 'a.json', () => `A${++made}`);
    await writeCacheEntry(dir, 'b.json', () => `B${++made}`);
    await turn();
    expect(made).toBe(0);
    expect(entries(dir)).toEqual([]);
    gate.open();
    await turn();
    expect(entries(dir)).toEqual(['a.json']);
    expect(made).toBe(1);
    gate.open();
    await turn();
    expect(entries(dir)).toEqual(['a.json', 'b.json']);
    expect(readFileSync(join(dir, 'b.json'), 'utf8')).toBe('B2');
  });

  test('lifting the gate writes every waiting entry, and cacheEntriesWritten resolves once they are on disk', async () => {
    const dir = folder();
    const gate = handGate();
    writeCacheEntriesWhen(gate.next);
    for (const n of ['a', 'b', 'c']) await writeCacheEntry(dir, `${n}.json`, () => n);
    await turn();
    expect(gate.waiting()).toBe(1); // the first entry waits; the others wait behind it
    writeCacheEntriesWhen(undefined);
    await cacheEntriesWritten();
    expect(entries(dir)).toEqual(['a.json', 'b.json', 'c.json']);
    // and later entries are written at once again
    await writeCacheEntry(dir, 'd.json', () => 'd');
    expect(entries(dir)).toContain('d.json');
  });

  test('an entry whose bytes turn out to be nothing, or cannot be made, is not written and does not stop the others', async () => {
    const dir = folder();
    const gate = handGate();
    writeCacheEntriesWhen(gate.next);
    await writeCacheEntry(dir, 'none.json', () => undefined);
    await writeCacheEntry(dir, 'throws.json', () => {
      throw new Error('cannot make it');
    });
    await writeCacheEntry(dir, 'kept.json', () => 'kept');
    writeCacheEntriesWhen(undefined);
    await cacheEntriesWritten();
    expect(entries(dir)).toEqual(['kept.json']);
  });
});
