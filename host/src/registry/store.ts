// The installed store under $TOOLGATE_HOME:
//   blobs/sha256/<hex>          content-addressed package files
//   tools/<name>/manifest.yaml  the installed manifest; module.path -> its blob, module.sha256 set
//   toolgate.lock               what is installed (lockfile.ts)
//   txn.json + tmp/<id>/        a committed transaction not yet fully applied
// A change is staged in tmp/, committed by the atomic rename of txn.json, then applied by renames.
// Opening the store rolls a committed transaction forward and drops uncommitted staging, so a kill
// at any moment leaves either the old state or the new one.
import { randomBytes } from 'node:crypto';
import { homedir } from 'node:os';
import { mkdir, open, readFile, readdir, rename, rm, stat } from 'node:fs/promises';
import { join, relative, resolve, dirname } from 'node:path';
import { z } from 'zod';
import { digestHex, digestOf, normalizeDigest, sha256Hex } from './digest.js';
import { RegistryError } from './errors.js';
import { fsyncDir, replaceFile, writeDurable } from './fs-atomic.js';
import { readLock, serializeLock, type LockEntry, type Lockfile } from './lockfile.js';
import { readManifest, rewriteModule, type PackagedManifest } from './manifest-adapter.js';
import { MODULE_FILE, MANIFEST_FILE, type ToolPackage } from './package.js';

export interface StoreLayout {
  home: string;
  blobs: string;
  tools: string;
  tmp: string;
  lock: string;
  txn: string;
  trust: string;
  ceiling: string;
  mutex: string;
}

export function resolveHome(env: NodeJS.ProcessEnv): string {
  const fromEnv = env['TOOLGATE_HOME'];
  return resolve(fromEnv !== undefined && fromEnv !== '' ? fromEnv : join(homedir(), '.toolgate'));
}

export function storeLayout(home: string): StoreLayout {
  const h = resolve(home);
  return {
    home: h,
    blobs: join(h, 'blobs', 'sha256'),
    tools: join(h, 'tools'),
    tmp: join(h, 'tmp'),
    lock: join(h, 'toolgate.lock'),
    txn: join(h, 'txn.json'),
    trust: join(h, 'trust.json'),
    ceiling: join(h, 'ceiling.yaml'),
    mutex: join(h, 'store.pid'),
  };
}

/** The folder of installed tools: each tools/<name>/manifest.yaml is a loadable manifest. */
export function installedManifestDir(home: string): string {
  return storeLayout(home).tools;
}

export function blobPath(layout: StoreLayout, digest: string): string {
  return join(layout.blobs, digestHex(digest, 'blob'));
}

/** A pause point for crash tests: the install stops here until killed. */
export type PauseHook = (stage: 'blobs-written' | 'staged' | 'committed') => Promise<void>;

const txnSchema = z.strictObject({
  id: z.string().regex(/^[0-9a-f]{16}$/),
  kind: z.enum(['install', 'uninstall']),
  tool: z.string().regex(/^[a-z][a-z0-9_]{0,63}$/),
});
type Txn = z.infer<typeof txnSchema>;

async function exists(path: string): Promise<boolean> {
  return stat(path).then(
    () => true,
    () => false,
  );
}

function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** One writer at a time. A lock left by a killed process (its pid is gone) is taken over. */
async function acquire(layout: StoreLayout): Promise<() => Promise<void>> {
  for (let attempt = 0; attempt < 50; attempt++) {
    try {
      const handle = await open(layout.mutex, 'wx');
      await handle.writeFile(String(process.pid));
      await handle.close();
      return () => rm(layout.mutex, { force: true });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      const owner = Number((await readFile(layout.mutex, 'utf8').catch(() => '')).trim());
      if (!Number.isInteger(owner) || owner <= 0 || !pidAlive(owner)) {
        await rm(layout.mutex, { force: true });
        continue;
      }
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  throw new RegistryError('BAD_CONFIG', `${layout.mutex}: the store is busy (another toolgate process holds it)`);
}

async function applyTxn(layout: StoreLayout, txn: Txn): Promise<void> {
  const staged = join(layout.tmp, txn.id);
  const toolDir = join(layout.tools, txn.tool);
  if (txn.kind === 'install') {
    const manifest = join(staged, MANIFEST_FILE);
    if (await exists(manifest)) {
      await mkdir(toolDir, { recursive: true });
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
    let raw: unknown;
    try {
      raw = JSON.parse(text);
    } catch {
      raw = undefined;
    }
    const parsed = txnSchema.safeParse(raw);
    if (!parsed.success) throw new RegistryError('STORE_CORRUPT', `${layout.txn}: unreadable transaction record`);
    await applyTxn(layout, parsed.data);
  }
  for (const name of await readdir(layout.tmp)) await rm(join(layout.tmp, name), { recursive: true, force: true });
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

async function putBlob(layout: StoreLayout, bytes: Uint8Array): Promise<string> {
  const digest = digestOf(bytes);
  const path = blobPath(layout, digest);
  const current = await readFile(path).catch(() => undefined);
  if (current && digestOf(current) === digest) return digest;
  const tmp = join(layout.tmp, `blob-${randomBytes(8).toString('hex')}`);
  await writeDurable(tmp, bytes, 0o444);
  await rename(tmp, path);
  await fsyncDir(layout.blobs);
  return digest;
}

/** The installed manifest: the package's, with module.path pointing at the module blob. */
function installedManifestText(layout: StoreLayout, pkg: ToolPackage): string {
  const moduleDigest = pkg.digests[MODULE_FILE];
  if (!moduleDigest) throw new RegistryError('BAD_PACKAGE', `${pkg.name}: package has no module`);
  const toolDir = join(layout.tools, pkg.name);
  const rel = relative(toolDir, blobPath(layout, moduleDigest));
  return rewriteModule(pkg.manifestText, `${pkg.name}/${MANIFEST_FILE}`, rel, digestHex(moduleDigest, MODULE_FILE));
}

async function stageAndCommit(
  layout: StoreLayout,
  txn: Txn,
  lock: Lockfile,
  manifestText: string | undefined,
  pause?: PauseHook,
): Promise<void> {
  const staged = join(layout.tmp, txn.id);
  await mkdir(staged, { recursive: true });
  if (manifestText !== undefined) await writeDurable(join(staged, MANIFEST_FILE), manifestText);
  await writeDurable(join(staged, 'toolgate.lock'), serializeLock(lock));
  await fsyncDir(staged);
  await pause?.('staged');
  await replaceFile(layout.txn, JSON.stringify(txn) + '\n'); // the commit point
  await pause?.('committed');
  await applyTxn(layout, txn);
}

export type NewLockEntry = Omit<LockEntry, 'installedManifest' | 'digests'>;

/** Installs (or replaces) a verified package atomically. Call inside withStore. */
export async function commitInstall(layout: StoreLayout, pkg: ToolPackage, entry: NewLockEntry, pause?: PauseHook): Promise<LockEntry> {
  for (const bytes of Object.values(pkg.files)) if (bytes) await putBlob(layout, bytes);
  await pause?.('blobs-written');
  const manifestText = installedManifestText(layout, pkg);
  const lock = await readLock(layout.lock);
  const full: LockEntry = {
    ...entry,
    digests: { ...pkg.digests } as Record<string, string>,
    installedManifest: digestOf(Buffer.from(manifestText, 'utf8')),
  };
  lock.tools[pkg.name] = full;
  await stageAndCommit(layout, { id: randomBytes(8).toString('hex'), kind: 'install', tool: pkg.name }, lock, manifestText, pause);
  await collectGarbage(layout);
  return full;
}

export async function commitUninstall(layout: StoreLayout, name: string): Promise<LockEntry> {
  const lock = await readLock(layout.lock);
  const entry = lock.tools[name];
  if (!entry) throw new RegistryError('NOT_INSTALLED', `${name}: not installed (not in ${layout.lock})`);
  delete lock.tools[name];
  await stageAndCommit(layout, { id: randomBytes(8).toString('hex'), kind: 'uninstall', tool: name }, lock, undefined);
  await collectGarbage(layout);
  return entry;
}

/** Drops blobs no installed tool refers to (left by upgrades, uninstalls and killed installs). */
async function collectGarbage(layout: StoreLayout): Promise<void> {
  const lock = await readLock(layout.lock);
  const live = new Set<string>();
  for (const entry of Object.values(lock.tools)) for (const d of Object.values(entry.digests)) live.add(digestHex(d, 'lockfile'));
  for (const hex of await readdir(layout.blobs)) if (!live.has(hex)) await rm(join(layout.blobs, hex), { force: true });
}

export interface StoreProblem {
  tool: string;
  file: string;
  message: string;
}

async function readBlob(layout: StoreLayout, digest: string): Promise<Buffer | undefined> {
  return readFile(blobPath(layout, digest)).catch(() => undefined);
}

/** Re-checks one installed tool: every blob against its digest, and the installed manifest. */
export async function checkInstalled(layout: StoreLayout, name: string, entry: LockEntry): Promise<StoreProblem[]> {
  const problems: StoreProblem[] = [];
  for (const [file, digest] of Object.entries(entry.digests)) {
    const bytes = await readBlob(layout, digest);
    const path = blobPath(layout, digest);
    if (!bytes) problems.push({ tool: name, file: path, message: `${file}: blob is missing` });
    else if (digestOf(bytes) !== digest) problems.push({ tool: name, file: path, message: `${file}: blob has digest ${digestOf(bytes)}, the lockfile pins ${digest}` });
  }
  const manifestFile = join(layout.tools, name, MANIFEST_FILE);
  const text = await readFile(manifestFile).catch(() => undefined);
  if (!text) {
    problems.push({ tool: name, file: manifestFile, message: 'installed manifest is missing' });
    return problems;
  }
  if (digestOf(text) !== entry.installedManifest) {
    problems.push({ tool: name, file: manifestFile, message: `installed manifest has digest ${digestOf(text)}, the lockfile pins ${entry.installedManifest}` });
    return problems;
  }
  let manifest: PackagedManifest;
  try {
    manifest = readManifest(text.toString('utf8'), manifestFile);
  } catch (err) {
    problems.push({ tool: name, file: manifestFile, message: (err as Error).message });
    return problems;
  }
  const moduleDigest = entry.digests[MODULE_FILE];
  const declared = manifest.module.sha256 === undefined ? undefined : normalizeDigest(manifest.module.sha256);
  if (declared === undefined || declared !== moduleDigest) {
    problems.push({ tool: name, file: manifestFile, message: `module.sha256 ${manifest.module.sha256 ?? '(none)'} does not match the lockfile's ${moduleDigest ?? '(none)'}` });
  }
  if (moduleDigest !== undefined && resolve(dirname(manifestFile), manifest.module.path) !== blobPath(layout, moduleDigest)) {
    problems.push({ tool: name, file: manifestFile, message: `module.path ${manifest.module.path} does not point at the pinned blob` });
  }
  if (manifest.name !== name || manifest.version !== entry.version) {
    problems.push({ tool: name, file: manifestFile, message: `manifest says ${manifest.name}@${manifest.version}, the lockfile pins ${name}@${entry.version}` });
  }
  return problems;
}

export interface InstalledTool {
  name: string;
  entry: LockEntry;
  manifestFile: string;
  manifest: PackagedManifest;
}

/** Loads one installed tool, verifying its digests first (every load re-checks). */
export async function loadInstalled(layout: StoreLayout, name: string): Promise<InstalledTool> {
  const lock = await readLock(layout.lock);
  const entry = lock.tools[name];
  if (!entry) throw new RegistryError('NOT_INSTALLED', `${name}: not installed`);
  const problems = await checkInstalled(layout, name, entry);
  const first = problems[0];
  if (first) throw new RegistryError('DIGEST_MISMATCH', `${name}: ${first.file}: ${first.message}`);
  const manifestFile = join(layout.tools, name, MANIFEST_FILE);
  const manifest = readManifest(await readFile(manifestFile, 'utf8'), manifestFile);
  return { name, entry, manifestFile, manifest };
}

/** The original package manifest of an installed tool (for capability diffs on upgrade). */
export async function installedPackageManifest(layout: StoreLayout, entry: LockEntry): Promise<PackagedManifest | undefined> {
  const digest = entry.digests[MANIFEST_FILE];
  if (!digest) return undefined;
  const bytes = await readBlob(layout, digest);
  if (!bytes || sha256Hex(bytes) !== digestHex(digest, MANIFEST_FILE)) return undefined;
  return readManifest(bytes.toString('utf8'), blobPath(layout, digest));
}

/** Tool folders the lockfile does not know (e.g. copied in by hand) are problems too. */
export async function strayToolDirs(layout: StoreLayout, lock: Lockfile): Promise<string[]> {
  const names = await readdir(layout.tools).catch(() => [] as string[]);
  return names.filter((n) => !(n in lock.tools)).map((n) => join(layout.tools, n));
}
