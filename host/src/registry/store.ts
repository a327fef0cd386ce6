// The installed store: content-addressed blobs, one tools/<name>/manifest.yaml per tool (module.path
// -> its blob, module.sha256 set) and the lockfile; installs and uninstalls go through store-txn.
import { randomBytes } from 'node:crypto';
import { readFile, readdir, rename } from 'node:fs/promises';
import { dirname, join, relative, resolve } from 'node:path';
import { digestHex, digestOf, normalizeDigest, sha256Hex } from './digest.js';
import { RegistryError } from './errors.js';
import { fsyncDir, writeDurable } from './fs-atomic.js';
import { readLock, type LockEntry, type Lockfile } from './lockfile.js';
import { modelChanges, pinModel } from './model-text.js';
import { readManifest, rewriteLinks, rewriteModule, type PackagedManifest } from './manifest-adapter.js';
import { isLinkFile, linkFileName } from './package-modules.js';
import { MODULE_FILE, MANIFEST_FILE, type ToolPackage } from './package.js';
import { blobPath, storeLayout, type StoreLayout, type StoreProblem } from './store-layout.js';
import { collectGarbage, DESCRIBED_FILE, newTxn, stageAndCommit, type PauseHook } from './store-txn.js';
import { messageOf } from '../errors/index.js';
import { ownEntry } from './own.js';

export {
  blobPath,
  installedManifestDir,
  resolveHome,
  storeLayout,
  type StoreLayout,
  type StoreProblem,
} from './store-layout.js';
export { withStore, type PauseHook } from './store-txn.js';

export interface InstalledDirs {
  /** One manifests dir per installed tool that passed its checks. */
  dirs: string[];
  /** Tools left out, and why (tampered blob or manifest). */
  problems: StoreProblem[];
}

/**
 * The manifests dirs of installed tools (tools/<name>/, holding manifest.yaml) for loaders that read
 * *.yaml directly in each dir (the manifest folder's loadManifestDirs). Each tool is checked against
 * the lockfile first (blobs and the installed manifest itself, which the loader cannot know), so a
 * tampered tool is left out and reported rather than loaded. Read-only and lock-free: a store
 * mid-transaction shows the previous state, which is whole.
 */
export async function installedManifestDirs(home: string): Promise<InstalledDirs> {
  const layout = storeLayout(home);
  const lock = await readLock(layout.lock);
  const dirs: string[] = [];
  const problems: StoreProblem[] = [];
  for (const name of Object.keys(lock.tools).sort()) {
    const entry = ownEntry(lock.tools, name);
    if (!entry) continue;
    const found = await checkInstalled(layout, name, entry);
    if (found.length > 0) problems.push(...found);
    else dirs.push(join(layout.tools, name));
  }
  return { dirs, problems };
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

/** The installed manifest: the package's, with module.path and each module.link path pointing at its blob. */
export function installedManifestText(layout: StoreLayout, pkg: ToolPackage): string {
  const moduleDigest = pkg.digests[MODULE_FILE];
  if (!moduleDigest) throw new RegistryError('BAD_PACKAGE', `${pkg.name}: package has no module`);
  const toolDir = join(layout.tools, pkg.name);
  const where = `${pkg.name}/${MANIFEST_FILE}`;
  const rel = relative(toolDir, blobPath(layout, moduleDigest));
  const links = pkg.manifest.module.links.map((l, i) => {
    const file = linkFileName(i);
    const digest = pkg.digests[file];
    if (!digest) throw new RegistryError('BAD_PACKAGE', `${pkg.name}: package has no ${file} (${l.key})`);
    return {
      namespace: l.namespace,
      path: relative(toolDir, blobPath(layout, digest)),
      sha256Hex: digestHex(digest, file),
    };
  });
  return rewriteLinks(rewriteModule(pkg.manifestText, where, rel, digestHex(moduleDigest, MODULE_FILE)), where, links);
}

/** The digest the installed manifest of `pkg` will have (the same in every store). */
export function installedManifestDigest(layout: StoreLayout, pkg: ToolPackage): string {
  return digestOf(Buffer.from(installedManifestText(layout, pkg), 'utf8'));
}

export type NewLockEntry = Omit<LockEntry, 'installedManifest' | 'digests' | 'model'>;

/** Installs (or replaces) a verified package atomically. Call inside withStore. */
export async function commitInstall(
  layout: StoreLayout,
  pkg: ToolPackage,
  entry: NewLockEntry,
  pause?: PauseHook,
): Promise<LockEntry> {
  for (const bytes of Object.values(pkg.files)) if (bytes) await putBlob(layout, bytes);
  await pause?.('blobs-written');
  const manifestText = installedManifestText(layout, pkg);
  const lock = await readLock(layout.lock);
  const full: LockEntry = {
    ...entry,
    digests: { ...pkg.digests } as Record<string, string>,
    installedManifest: digestOf(Buffer.from(manifestText, 'utf8')),
    model: pinModel(pkg.manifest.model),
  };
  delete full.described;
  const described = pkg.described;
  if (described !== undefined) full.described = described.pin;
  lock.tools[pkg.name] = full;
  const txn = { ...newTxn('install', pkg.name), ...(described !== undefined ? { described: true } : {}) };
  await stageAndCommit(layout, txn, lock, manifestText, pause, described?.json);
  await collectGarbage(layout);
  return full;
}

export async function commitUninstall(layout: StoreLayout, name: string, pause?: PauseHook): Promise<LockEntry> {
  const lock = await readLock(layout.lock);
  const entry = ownEntry(lock.tools, name);
  if (!entry) throw new RegistryError('NOT_INSTALLED', `${name}: not installed (not in ${layout.lock})`);
  delete lock.tools[name];
  await stageAndCommit(layout, newTxn('uninstall', name), lock, undefined, pause);
  await collectGarbage(layout);
  return entry;
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
    else if (digestOf(bytes) !== digest)
      problems.push({
        tool: name,
        file: path,
        message: `${file}: blob has digest ${digestOf(bytes)}, the lockfile pins ${digest}`,
      });
  }
  const manifestFile = join(layout.tools, name, MANIFEST_FILE);
  const text = await readFile(manifestFile).catch(() => undefined);
  if (!text) {
    problems.push({ tool: name, file: manifestFile, message: 'installed manifest is missing' });
    return problems;
  }
  if (digestOf(text) !== entry.installedManifest) {
    problems.push({
      tool: name,
      file: manifestFile,
      message: `installed manifest has digest ${digestOf(text)}, the lockfile pins ${entry.installedManifest}`,
    });
    return problems;
  }
  let manifest: PackagedManifest;
  try {
    manifest = readManifest(text.toString('utf8'), manifestFile);
  } catch (err) {
    problems.push({ tool: name, file: manifestFile, message: messageOf(err) });
    return problems;
  }
  const moduleDigest = entry.digests[MODULE_FILE];
  const declared = manifest.module.sha256 === undefined ? undefined : normalizeDigest(manifest.module.sha256);
  if (declared === undefined || declared !== moduleDigest) {
    problems.push({
      tool: name,
      file: manifestFile,
      message: `module.sha256 ${manifest.module.sha256 ?? '(none)'} does not match the lockfile's ${moduleDigest ?? '(none)'}`,
    });
  }
  if (
    moduleDigest !== undefined &&
    resolve(dirname(manifestFile), manifest.module.path) !== blobPath(layout, moduleDigest)
  ) {
    problems.push({
      tool: name,
      file: manifestFile,
      message: `module.path ${manifest.module.path} does not point at the pinned blob`,
    });
  }
  problems.push(...linkProblems(layout, name, entry, manifestFile, manifest));
  if (manifest.name !== name || manifest.version !== entry.version) {
    problems.push({
      tool: name,
      file: manifestFile,
      message: `manifest says ${manifest.name}@${manifest.version}, the lockfile pins ${name}@${entry.version}`,
    });
  }
  problems.push(...(await describedPinProblems(layout, name, entry)));
  const changed = entry.model ? modelChanges(entry.model, manifest.model) : [];
  if (changed.length > 0) {
    problems.push({
      tool: name,
      file: manifestFile,
      message: `what the model reads of ${name} no longer matches its lockfile pin (${changed.join(', ')} changed); it is not served until it is reinstalled and reviewed`,
    });
  }
  return problems;
}

/** A hyper-mcp tool's pin of described text must be there, as the lockfile pins it (described.ts). */
async function describedPinProblems(layout: StoreLayout, name: string, entry: LockEntry): Promise<StoreProblem[]> {
  if (entry.described === undefined) return [];
  const file = join(layout.tools, name, DESCRIBED_FILE);
  const bytes = await readFile(file).catch(() => undefined);
  const why =
    bytes === undefined
      ? 'is missing'
      : digestOf(bytes) !== entry.described.digest
        ? `has digest ${digestOf(bytes)}, the lockfile pins ${entry.described.digest}`
        : undefined;
  return why === undefined
    ? []
    : [
        {
          tool: name,
          file,
          message: `the pin of what its module describes ${why}; it is not served until it is reinstalled and reviewed`,
        },
      ];
}

/** Each module.link entry of an installed manifest against the lockfile, as module.path is checked. */
function linkProblems(
  layout: StoreLayout,
  name: string,
  entry: LockEntry,
  manifestFile: string,
  manifest: PackagedManifest,
): StoreProblem[] {
  const problems: StoreProblem[] = [];
  const pinned = Object.keys(entry.digests).filter(isLinkFile).length;
  if (pinned !== manifest.module.links.length) {
    problems.push({
      tool: name,
      file: manifestFile,
      message: `module.link lists ${manifest.module.links.length} modules, the lockfile pins ${pinned}`,
    });
  }
  manifest.module.links.forEach((l, i) => {
    const file = linkFileName(i);
    const digest = entry.digests[file];
    const declared = l.sha256 === undefined ? undefined : `sha256:${l.sha256}`;
    if (digest === undefined || declared !== digest) {
      problems.push({
        tool: name,
        file: manifestFile,
        message: `${l.key}.sha256 ${l.sha256 ?? '(none)'} does not match the lockfile's ${file} ${digest ?? '(none)'}`,
      });
    } else if (resolve(dirname(manifestFile), l.path) !== blobPath(layout, digest)) {
      problems.push({
        tool: name,
        file: manifestFile,
        message: `${l.key} path ${l.path} does not point at the pinned blob of ${file}`,
      });
    }
  });
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
  const entry = ownEntry(lock.tools, name);
  if (!entry) throw new RegistryError('NOT_INSTALLED', `${name}: not installed`);
  const problems = await checkInstalled(layout, name, entry);
  const first = problems[0];
  if (first) throw new RegistryError('DIGEST_MISMATCH', `${name}: ${first.file}: ${first.message}`);
  const manifestFile = join(layout.tools, name, MANIFEST_FILE);
  const manifest = readManifest(await readFile(manifestFile, 'utf8'), manifestFile);
  return { name, entry, manifestFile, manifest };
}

/** The original package manifest of an installed tool (for capability diffs on upgrade). */
export async function installedPackageManifest(
  layout: StoreLayout,
  entry: LockEntry,
): Promise<PackagedManifest | undefined> {
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
