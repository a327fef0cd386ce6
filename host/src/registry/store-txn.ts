// Store transactions. A change is staged in tmp/<id>/ and fsynced, committed by the atomic rename of
// txn.json, then applied by renames. Opening the store rolls a committed transaction forward and
// drops uncommitted staging, so a kill at any moment leaves either the old state or the new one.
// One writer at a time, by an exclusive lock file that a killed process's successor takes over.
import { randomBytes } from 'node:crypto';
import { mkdir, readFile, readdir, rename, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import { parseJsonDocument, RegistryError } from './errors.js';
import { fsyncDir, replaceFile, writeDurable } from './fs-atomic.js';
import { digestHex } from './digest.js';
import { readLock, serializeLock, type Lockfile } from './lockfile.js';
import { MANIFEST_FILE } from './package.js';
import { describedPinFile } from '../manifest/index.js';

/** The pin of described text beside an installed manifest (manifest.described.json). */
export const DESCRIBED_FILE = describedPinFile(MANIFEST_FILE);
import { lockLeftovers, tryLock, unlock } from './store-lock.js';
import { storeLayout, type StoreLayout } from './store-layout.js';

/** A pause point for crash tests: the install stops here until killed. */
export type PauseHook = (stage: 'blobs-written' | 'staged' | 'committed') => Promise<void>;

const txnSchema = z.strictObject({
  id: z.string().regex(/^[0-9a-f]{16}$/),
  kind: z.enum(['install', 'uninstall']),
  tool: z.string().regex(/^[a-z][a-z0-9_]{0,63}$/),
  /** An install that brings a pin of described text (module.abi: hyper-mcp, described.ts). */
  described: z.boolean().optional(),
});
export type Txn = z.infer<typeof txnSchema>;

export async function exists(path: string): Promise<boolean> {
  return stat(path).then(
    () => true,
    () => false,
  );
}

/** One writer at a time; a lock left by a dead process is taken over (store-lock.ts). */
async function acquire(layout: StoreLayout): Promise<() => Promise<void>> {
  for (let attempt = 0; attempt < 50; attempt++) {
    const nonce = await tryLock(layout.mutex);
    if (nonce !== undefined) return () => unlock(layout.mutex, nonce);
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new RegistryError('BAD_CONFIG', `${layout.mutex}: the store is busy (another toolgate process holds it)`);
}

/**
 * Temporary files a killed process can leave at the store's root: `.<file>.<hex>.tmp` from a
 * durable replace (txn.json, trust.json) and the lock's own owner and takeover files.
 */
async function rootLeftovers(layout: StoreLayout): Promise<string[]> {
  const names = await readdir(layout.home);
  const replaced = names.filter((n) => /^\.(?!store\.pid\.)[A-Za-z0-9._-]+\.[0-9a-f]{12}\.tmp$/.test(n));
  return [...replaced, ...(await lockLeftovers(layout.mutex, names))];
}

async function applyTxn(layout: StoreLayout, txn: Txn): Promise<void> {
  const staged = join(layout.tmp, txn.id);
  const toolDir = join(layout.tools, txn.tool);
  if (txn.kind === 'install') {
    const manifest = join(staged, MANIFEST_FILE);
    if (await exists(manifest)) {
      await mkdir(toolDir, { recursive: true });
      // the pin goes first: a manifest in place always has its own pin beside it (or none)
      const pin = join(staged, DESCRIBED_FILE);
      if (txn.described !== true) await rm(join(toolDir, DESCRIBED_FILE), { force: true });
      else if (await exists(pin)) await rename(pin, join(toolDir, DESCRIBED_FILE));
      await rename(manifest, join(toolDir, MANIFEST_FILE));
      await fsyncDir(toolDir);
    }
  } else {
    await rm(toolDir, { recursive: true, force: true });
    await fsyncDir(layout.tools);
  }
  const lock = join(staged, 'toolgate.lock');
  if (await exists(lock)) {
    await rename(lock, layout.lock);
    await fsyncDir(layout.home);
  }
  await rm(layout.txn, { force: true });
  await fsyncDir(layout.home);
  await rm(staged, { recursive: true, force: true });
}

/** Drops blobs no installed tool refers to (left by upgrades, uninstalls and killed installs). */
export async function collectGarbage(layout: StoreLayout): Promise<void> {
  const lock = await readLock(layout.lock);
  const live = new Set<string>();
  for (const entry of Object.values(lock.tools))
    for (const d of Object.values(entry.digests)) live.add(digestHex(d, 'lockfile'));
  for (const hex of await readdir(layout.blobs)) if (!live.has(hex)) await rm(join(layout.blobs, hex), { force: true });
}

/** Creates the layout and finishes or drops whatever a killed process left behind. */
async function recover(layout: StoreLayout): Promise<void> {
  await mkdir(layout.blobs, { recursive: true });
  await mkdir(layout.tools, { recursive: true });
  await mkdir(layout.tmp, { recursive: true });
  let text: string | undefined;
  try {
    text = await readFile(layout.txn, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
  if (text !== undefined) {
    await applyTxn(layout, parseJsonDocument(text, txnSchema, layout.txn, 'STORE_CORRUPT', 'transaction record'));
  }
  for (const name of await readdir(layout.tmp)) await rm(join(layout.tmp, name), { recursive: true, force: true });
  for (const name of await rootLeftovers(layout)) await rm(join(layout.home, name), { force: true });
  await collectGarbage(layout); // blobs of an install killed before its commit
}

/** Runs `fn` holding the store, after recovery. Read-only callers use it too, to see a settled store. */
export async function withStore<T>(home: string, fn: (layout: StoreLayout) => Promise<T>): Promise<T> {
  const layout = storeLayout(home);
  await mkdir(layout.home, { recursive: true });
  const release = await acquire(layout);
  try {
    await recover(layout);
    return await fn(layout);
  } finally {
    await release();
  }
}

export function newTxn(kind: Txn['kind'], tool: string): Txn {
  return { id: randomBytes(8).toString('hex'), kind, tool };
}

export async function stageAndCommit(
  layout: StoreLayout,
  txn: Txn,
  lock: Lockfile,
  manifestText: string | undefined,
  pause?: PauseHook,
  describedText?: string,
): Promise<void> {
  const staged = join(layout.tmp, txn.id);
  await mkdir(staged, { recursive: true });
  if (manifestText !== undefined) await writeDurable(join(staged, MANIFEST_FILE), manifestText);
  if (describedText !== undefined) await writeDurable(join(staged, DESCRIBED_FILE), describedText);
  await writeDurable(join(staged, 'toolgate.lock'), serializeLock(lock));
  await fsyncDir(staged);
  await pause?.('staged');
  await replaceFile(layout.txn, `${JSON.stringify(txn)}\n`); // the commit point
  await pause?.('committed');
  await applyTxn(layout, txn);
}
