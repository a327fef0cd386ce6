// A package is a manifest + its module (+ its linked modules, + an optional README), each with its
// sha256 digest, plus toolgate-package.json listing those digests and (once signed) the publisher's
// signature. Inside a package the manifest always says `module.path: module.wasm` and carries
// module.sha256, and each module.link entry names its link-<n>.wasm with its sha256.
import { readdir, stat } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { z } from 'zod';
import { digestOf, expectDigest, normalizeDigest, sha256Hex } from './digest.js';
import { parseJsonDocument, RegistryError } from './errors.js';
import {
  readManifest,
  readPackageFile,
  rewriteLinks,
  rewriteModule,
  wasmProblem,
  type PackagedManifest,
} from './manifest-adapter.js';
import { MANIFEST_BOUNDS, MAX_MANIFEST_BYTES } from '../manifest/index.js';
import {
  checkPackagedLinks,
  isLinkFile,
  readFolderLinks,
  readFolderModule,
  type LinkFileName,
} from './package-modules.js';
import { signedStatement, type PackageSignature } from './signing.js';
import { gunzip, gzip, readTar, writeTar } from './tar.js';
import type { DescribedText } from '../manifest/index.js';
import type { LockEntry } from './lockfile.js';
import type { TextFlag } from './screen.js';

export type DescribedPin = NonNullable<LockEntry['described']>;

/** What a hyper-mcp package's module described at install, ready to review, pin and store (described.ts). */
export interface PackageDescription {
  text: DescribedText;
  /** The pin file's text: canonical JSON of `text` (its digest is the lockfile's described.digest). */
  json: string;
  pin: DescribedPin;
  /** Marks of tool poisoning in the described text (screen.ts). */
  flags: TextFlag[];
  /** What the load refused of the description (the rest is served and pinned). */
  refused: string[];
}

export const MANIFEST_FILE = 'manifest.yaml';
export const MODULE_FILE = 'module.wasm';
export const README_FILE = 'README.md';
export const INFO_FILE = 'toolgate-package.json';
/** The files every package may hold besides its linked modules (link-<n>.wasm, package-modules.ts). */
export const PACKAGE_FILES = [MANIFEST_FILE, MODULE_FILE, README_FILE] as const;
export type PackageFileName = (typeof PACKAGE_FILES)[number] | LinkFileName;

/** Hard bounds on what a package may unpack to: a hostile archive must not exhaust memory. */
export const PACKAGE_LIMITS = {
  maxEntries: PACKAGE_FILES.length + 1 + MANIFEST_BOUNDS.maxLinks,
  maxTotalBytes: 64 * 1024 * 1024,
} as const;

export interface ToolPackage {
  name: string;
  version: string;
  manifest: PackagedManifest;
  manifestText: string;
  files: Partial<Record<PackageFileName, Uint8Array>>;
  /** file name -> `sha256:<hex>` for every file present. */
  digests: Partial<Record<PackageFileName, string>>;
  signature?: PackageSignature;
  /** module.abi: hyper-mcp: what its module described when the install ran it (described.ts). */
  described?: PackageDescription;
}

const signatureSchema = z.strictObject({ signer: z.string().min(1), signature: z.string().min(1) });
const infoSchema = z.strictObject({
  format: z.literal('toolgate-package/v1'),
  name: z.string(),
  version: z.string(),
  files: z.record(z.string(), z.string()),
  signature: signatureSchema.optional(),
});
type PackageInfo = z.infer<typeof infoSchema>;

export function isPackageFile(name: string): name is PackageFileName {
  return (PACKAGE_FILES as readonly string[]).includes(name) || isLinkFile(name);
}

/** The names of the files present, sorted (the order of the archive and of the signed statement). */
function presentFiles(files: Partial<Record<PackageFileName, Uint8Array>>): PackageFileName[] {
  return Object.keys(files)
    .filter((n): n is PackageFileName => isPackageFile(n) && files[n as PackageFileName] !== undefined)
    .sort();
}

export function statementOf(pkg: Pick<ToolPackage, 'name' | 'version' | 'digests'>): string {
  return signedStatement(pkg.name, pkg.version, pkg.digests as Record<string, string>);
}

/** Builds a package from its files, checking that the manifest and the module agree. */
export function assemblePackage(
  files: Partial<Record<PackageFileName, Uint8Array>>,
  signature: PackageSignature | undefined,
  where: string,
): ToolPackage {
  const manifestBytes = files[MANIFEST_FILE];
  const moduleBytes = files[MODULE_FILE];
  if (!manifestBytes) throw new RegistryError('BAD_PACKAGE', `${where}: has no ${MANIFEST_FILE}`);
  if (!moduleBytes) throw new RegistryError('BAD_PACKAGE', `${where}: has no ${MODULE_FILE}`);
  const manifestText = Buffer.from(manifestBytes).toString('utf8');
  const manifest = readManifest(manifestText, `${where}/${MANIFEST_FILE}`);
  if (manifest.module.path !== MODULE_FILE) {
    throw new RegistryError(
      'BAD_PACKAGE',
      `${where}/${MANIFEST_FILE}: module.path must be "${MODULE_FILE}" inside a package (is "${manifest.module.path}")`,
    );
  }
  const declared = manifest.module.sha256 === undefined ? undefined : normalizeDigest(manifest.module.sha256);
  if (declared === undefined)
    throw new RegistryError('BAD_PACKAGE', `${where}/${MANIFEST_FILE}: module.sha256 is required inside a package`);
  expectDigest(moduleBytes, declared, `${where}/${MODULE_FILE} (module.sha256 in ${MANIFEST_FILE})`);
  const notWasm = wasmProblem(moduleBytes);
  if (notWasm !== undefined) throw new RegistryError('BAD_PACKAGE', `${where}/${MODULE_FILE}: ${notWasm}`);
  checkPackagedLinks(manifest, files, where, `${where}/${MANIFEST_FILE}`);
  const digests: Partial<Record<PackageFileName, string>> = {};
  for (const name of presentFiles(files)) {
    const bytes = files[name];
    if (bytes) digests[name] = digestOf(bytes);
  }
  return {
    name: manifest.name,
    version: manifest.version,
    manifest,
    manifestText,
    files,
    digests,
    ...(signature ? { signature } : {}),
  };
}

/** Checks that a package's files have the digests a source (index, OCI layers, listing) declared. */
export function expectDigests(pkg: ToolPackage, declared: Readonly<Record<string, string>>, where: string): void {
  const names = new Set([...Object.keys(declared), ...Object.keys(pkg.digests)]);
  for (const name of names) {
    const want = declared[name];
    const have = isPackageFile(name) ? pkg.digests[name] : undefined;
    if (want === undefined)
      throw new RegistryError('DIGEST_MISMATCH', `${where}: ${pkg.name}: file ${name} is not listed with a digest`);
    if (have === undefined)
      throw new RegistryError('DIGEST_MISMATCH', `${where}: ${pkg.name}: file ${name} is listed but missing`);
    if (want !== have)
      throw new RegistryError(
        'DIGEST_MISMATCH',
        `${where}: ${pkg.name}: file ${name} has digest ${have}, expected ${want}`,
      );
  }
}

function infoOf(pkg: ToolPackage): PackageInfo {
  return {
    format: 'toolgate-package/v1',
    name: pkg.name,
    version: pkg.version,
    files: { ...pkg.digests } as Record<string, string>,
    ...(pkg.signature ? { signature: pkg.signature } : {}),
  };
}

export function withSignature(pkg: ToolPackage, signature: PackageSignature): ToolPackage {
  return { ...pkg, signature };
}

/** The .tgz bytes of a package; deterministic for the same files and signature. */
export function packageToTgz(pkg: ToolPackage): Buffer {
  const entries = [{ name: INFO_FILE, data: Buffer.from(`${JSON.stringify(infoOf(pkg), null, 2)}\n`) }];
  for (const name of presentFiles(pkg.files)) {
    const bytes = pkg.files[name];
    if (bytes) entries.push({ name, data: Buffer.from(bytes) });
  }
  return gzip(writeTar(entries));
}

function parseInfo(bytes: Uint8Array, where: string): PackageInfo {
  return parseJsonDocument(
    Buffer.from(bytes).toString('utf8'),
    infoSchema,
    `${where}/${INFO_FILE}`,
    'BAD_PACKAGE',
    'package info',
  );
}

/** Files + listing -> package, with every file checked against the listing. */
function fromListing(files: Map<string, Uint8Array>, where: string): ToolPackage {
  const infoBytes = files.get(INFO_FILE);
  if (!infoBytes) throw new RegistryError('BAD_PACKAGE', `${where}: has no ${INFO_FILE}`);
  const info = parseInfo(infoBytes, where);
  const picked: Partial<Record<PackageFileName, Uint8Array>> = {};
  for (const [name, bytes] of files) {
    if (name === INFO_FILE) continue;
    if (!isPackageFile(name)) {
      throw new RegistryError(
        'BAD_PACKAGE',
        `${where}: unexpected file "${name}" (a package holds only ${PACKAGE_FILES.join(', ')}, link-<n>.wasm, ${INFO_FILE})`,
      );
    }
    picked[name] = bytes;
  }
  const pkg = assemblePackage(picked, info.signature, where);
  if (info.name !== pkg.name || info.version !== pkg.version) {
    throw new RegistryError(
      'BAD_PACKAGE',
      `${where}/${INFO_FILE}: says ${info.name}@${info.version} but the manifest says ${pkg.name}@${pkg.version}`,
    );
  }
  expectDigests(pkg, info.files, `${where}/${INFO_FILE}`);
  return pkg;
}

/** The bytes of a local .tgz: a regular file (never a FIFO or device) no larger than a package may be. */
export function readPackageArchive(file: string): Promise<Uint8Array> {
  return readPackageFile(file, undefined, PACKAGE_LIMITS.maxTotalBytes);
}

export async function packageFromTgzFile(file: string): Promise<ToolPackage> {
  return packageFromTgz(await readPackageArchive(file), file);
}

export function packageFromTgz(bytes: Uint8Array, where: string): ToolPackage {
  const tar = gunzip(bytes, where, PACKAGE_LIMITS.maxTotalBytes + 64 * 1024);
  const entries = readTar(tar, where, PACKAGE_LIMITS);
  const files = new Map<string, Uint8Array>();
  for (const e of entries) {
    if (files.has(e.name)) throw new RegistryError('BAD_PACKAGE', `${where}: duplicate entry "${e.name}"`);
    files.set(e.name, e.data);
  }
  return fromListing(files, where);
}

const MANIFEST_NAMES = [MANIFEST_FILE, 'toolgate.yaml', 'manifest.yml'];

async function findManifest(dir: string): Promise<string> {
  const names = await readdir(dir);
  for (const n of MANIFEST_NAMES) if (names.includes(n)) return join(dir, n);
  const yamls = names.filter((n) => n.endsWith('.yaml') || n.endsWith('.yml'));
  if (yamls.length === 1 && yamls[0] !== undefined) return join(dir, yamls[0]);
  throw new RegistryError(
    'BAD_PACKAGE',
    `${dir}: no tool manifest (expected ${MANIFEST_FILE} or exactly one *.yaml file, found ${yamls.length})`,
  );
}

/** A file of an unpacked package: regular, inside the folder, bounded; undefined when absent. */
async function readOptional(dir: string, name: string): Promise<Uint8Array | undefined> {
  try {
    return await readPackageFile(join(dir, name), dir, PACKAGE_LIMITS.maxTotalBytes);
  } catch (err) {
    if (err instanceof RegistryError && err.code === 'NOT_FOUND') return undefined;
    throw err;
  }
}

/**
 * A package from a folder: either an unpacked package (has toolgate-package.json; checked against
 * it, signature kept) or a tool's source folder (manifest + the module its module.path names),
 * normalized so the module is `module.wasm` and module.sha256 is set.
 */
export async function packageFromDir(dirArg: string): Promise<ToolPackage> {
  const dir = resolve(dirArg);
  const info = await stat(dir).catch(() => undefined);
  if (!info?.isDirectory()) throw new RegistryError('NOT_FOUND', `${dir}: no such folder`);
  const names = await readdir(dir);
  if (names.includes(INFO_FILE)) {
    const files = new Map<string, Uint8Array>();
    for (const n of [INFO_FILE, ...PACKAGE_FILES, ...names.filter(isLinkFile).sort()]) {
      const bytes = await readOptional(dir, n);
      if (bytes) files.set(n, bytes);
    }
    return fromListing(files, dir);
  }
  const manifestFile = await findManifest(dir);
  const text = Buffer.from(await readPackageFile(manifestFile, dir, MAX_MANIFEST_BYTES)).toString('utf8');
  const manifest = readManifest(text, manifestFile);
  // Every published module (main and linked) must come from the tool's own folder: a path or
  // symlink out of it would pack (and sign) whatever file it names, such as the publisher's private
  // key, or leave the packaged tool running code from elsewhere on disk.
  const moduleBytes = await readFolderModule(
    manifestFile,
    'module.path',
    manifest.module.path,
    dir,
    manifest.module.sha256,
  );
  const links = await readFolderLinks(manifestFile, manifest, dir);
  const normalized = rewriteLinks(
    rewriteModule(text, manifestFile, MODULE_FILE, sha256Hex(moduleBytes)),
    manifestFile,
    links.pointers,
  );
  const files: Partial<Record<PackageFileName, Uint8Array>> = {
    [MANIFEST_FILE]: Buffer.from(normalized, 'utf8'),
    [MODULE_FILE]: moduleBytes,
    ...links.files,
  };
  const readme = await readOptional(dir, README_FILE);
  if (readme) files[README_FILE] = readme;
  return assemblePackage(files, undefined, dir);
}
