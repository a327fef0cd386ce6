// Where a package comes from: a folder, a .tgz, a static HTTP index or an OCI registry.
import { stat } from 'node:fs/promises';
import { resolve } from 'node:path';
import { RegistryError } from './errors.js';
import type { Deadline, Progress } from './http.js';
import { parseIndexRef, pullFromIndex, type IndexRef } from './http-index.js';
import { parseOciRef, pullOci, type OciRef } from './oci.js';
import { digestOf } from './digest.js';
import { fetchBytes } from './http.js';
import {
  packageFromDir,
  packageFromTgz,
  packageToTgz,
  PACKAGE_LIMITS,
  readPackageArchive,
  type ToolPackage,
} from './package.js';
import { manifestNeeded, moduleOnlyPackage } from './plain.js';

export type SourceRef =
  | { kind: 'dir'; path: string }
  | { kind: 'tgz'; path: string }
  | { kind: 'index'; ref: IndexRef }
  | { kind: 'oci'; ref: OciRef }
  /** A plain WebAssembly module: a `.wasm` URL or file (install --manifest). */
  | { kind: 'wasm'; location: string; url: boolean };

/** A URL or file name that names a bare module rather than a package or an index. */
const isWasmName = (path: string): boolean => path.toLowerCase().endsWith('.wasm');

export async function parseSourceRef(text: string, cwd: string): Promise<SourceRef> {
  if (text.startsWith('oci://')) return { kind: 'oci', ref: parseOciRef(text) };
  if (text.startsWith('https://') || text.startsWith('http://')) {
    if (!text.includes('#') && isWasmName(new URL(text).pathname)) return { kind: 'wasm', location: text, url: true };
    return { kind: 'index', ref: parseIndexRef(text) };
  }
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(text))
    throw new RegistryError(
      'BAD_REFERENCE',
      `${text}: unsupported scheme (use a path, https://.../index.json#tool@range or oci://host/repo:tag)`,
    );
  const path = resolve(cwd, text);
  const info = await stat(path).catch(() => undefined);
  if (!info) throw new RegistryError('NOT_FOUND', `${path}: no such file or folder`);
  if (info.isDirectory()) return { kind: 'dir', path };
  if (isWasmName(path)) return { kind: 'wasm', location: path, url: false };
  return { kind: 'tgz', path };
}

export interface FetchedPackage {
  pkg: ToolPackage;
  /** What the lockfile records as the source. */
  source: string;
  /** The digest the reference resolved to (lockfile `resolved`). */
  resolved: string;
  /** A reference to exactly these bytes (lockfile `pinned`). */
  pinned: string;
  /** The user's manifest for a plain wasm module (lockfile `manifestFile`). */
  manifestFile?: string;
  /** The manifest was drafted for a hyper-mcp plugin that came without one (draft.ts). */
  drafted?: boolean;
}

export interface FetchOptions {
  insecure: boolean;
  progress?: Progress;
  /** The install's overall deadline: every request of it is cut off when it passes (install --timeout). */
  deadline?: Deadline;
  /** `install --locked`: the digest the lockfile pins, checked before the package is downloaded where the source allows. */
  expectResolved?: string;
  /** A toolgate manifest for a plain wasm module (install --manifest); refused for packages. */
  manifestFile?: string;
  /**
   * Without manifestFile, a module that came without a manifest gets a drafted one (a hyper-mcp
   * plugin), named after `source` or, when that is absent, the reference fetched; otherwise refused.
   */
  draft?: { source?: string };
}

function noManifestFlag(src: SourceRef, where: string, opts: FetchOptions): void {
  if (opts.manifestFile !== undefined && src.kind !== 'wasm' && src.kind !== 'oci') {
    throw new RegistryError(
      'BAD_REFERENCE',
      `${where}: is a toolgate package with its own manifest; --manifest is only for plain wasm modules (a .wasm file or URL, or a wasm OCI artifact)`,
    );
  }
}

/** A plain module: refused without --manifest or an accepted draft before anything is read or downloaded. */
async function fetchPlain(src: Extract<SourceRef, { kind: 'wasm' }>, opts: FetchOptions): Promise<FetchedPackage> {
  if (opts.manifestFile === undefined && opts.draft === undefined)
    throw manifestNeeded(src.location, 'is a plain WebAssembly module with no toolgate manifest');
  const bytes = src.url
    ? (
        await fetchBytes(src.location, {
          what: src.location,
          insecure: opts.insecure,
          maxBytes: PACKAGE_LIMITS.maxTotalBytes,
          ...(opts.expectResolved !== undefined ? { expectDigest: opts.expectResolved } : {}),
          ...(opts.progress ? { progress: opts.progress } : {}),
          ...(opts.deadline ? { deadline: opts.deadline } : {}),
        })
      ).bytes
    : await readPackageArchive(src.location);
  const resolved = digestOf(bytes);
  expectResolved(src.location, resolved, opts);
  const made = await moduleOnlyPackage(bytes, { ...manifestSource(opts, src.location), hyperMcp: false }, src.location);
  const named = opts.manifestFile !== undefined ? { manifestFile: opts.manifestFile } : {};
  return { pkg: made.pkg, source: src.location, resolved, pinned: src.location, drafted: made.drafted, ...named };
}

/** The user's manifest, else a draft named after the lockfile's source or this reference. */
function manifestSource(opts: FetchOptions, reference: string): { manifestFile: string } | { draftFrom?: string } {
  if (opts.manifestFile !== undefined) return { manifestFile: opts.manifestFile };
  return opts.draft !== undefined ? { draftFrom: opts.draft.source ?? reference } : {};
}

function expectResolved(what: string, actual: string, opts: FetchOptions): void {
  if (opts.expectResolved !== undefined && actual !== opts.expectResolved) {
    throw new RegistryError(
      'DIGEST_MISMATCH',
      `${what}: resolves to ${actual}, the lockfile pins ${opts.expectResolved}`,
    );
  }
}

export async function fetchPackage(src: SourceRef, opts: FetchOptions): Promise<FetchedPackage> {
  noManifestFlag(
    src,
    src.kind === 'dir' || src.kind === 'tgz' ? src.path : src.kind === 'index' ? src.ref.text : '',
    opts,
  );
  switch (src.kind) {
    case 'wasm':
      return fetchPlain(src, opts);
    case 'dir': {
      const pkg = await packageFromDir(src.path);
      // A folder has no digest of its own: the archive `pack` would write of it stands in.
      const resolved = digestOf(packageToTgz(pkg));
      expectResolved(src.path, resolved, opts);
      return { pkg, source: src.path, resolved, pinned: src.path };
    }
    case 'tgz': {
      const bytes = await readPackageArchive(src.path);
      expectResolved(src.path, digestOf(bytes), opts);
      return { pkg: packageFromTgz(bytes, src.path), source: src.path, resolved: digestOf(bytes), pinned: src.path };
    }
    case 'index': {
      const pulled = await pullFromIndex(src.ref, opts);
      const pinned = `${src.ref.indexUrl}#${src.ref.name}@=${pulled.pkg.version}`;
      return { pkg: pulled.pkg, source: src.ref.text, resolved: pulled.archiveDigest, pinned };
    }
    case 'oci': {
      const pulled = await pullOci(src.ref, {
        insecure: opts.insecure,
        ...(opts.progress ? { progress: opts.progress } : {}),
        ...(opts.deadline ? { deadline: opts.deadline } : {}),
        ...manifestSource(opts, src.ref.text),
      });
      expectResolved(src.ref.text, pulled.manifestDigest, opts);
      const pinned = `oci://${src.ref.registry}/${src.ref.repository}@${pulled.manifestDigest}`;
      const plain = opts.manifestFile !== undefined ? { manifestFile: opts.manifestFile } : {};
      return {
        pkg: pulled.pkg,
        source: src.ref.text,
        resolved: pulled.manifestDigest,
        pinned,
        drafted: pulled.drafted,
        ...plain,
      };
    }
  }
}
