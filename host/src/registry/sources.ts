// Where a package comes from: a folder, a .tgz, a static HTTP index or an OCI registry.
import { stat } from 'node:fs/promises';
import { resolve } from 'node:path';
import { RegistryError } from './errors.js';
import type { Progress } from './http.js';
import { parseIndexRef, pullFromIndex, type IndexRef } from './http-index.js';
import { parseOciRef, pullOci, type OciRef } from './oci.js';
import { digestOf } from './digest.js';
import { packageFromDir, packageFromTgz, packageToTgz, readPackageArchive, type ToolPackage } from './package.js';

export type SourceRef =
  | { kind: 'dir'; path: string }
  | { kind: 'tgz'; path: string }
  | { kind: 'index'; ref: IndexRef }
  | { kind: 'oci'; ref: OciRef };

export async function parseSourceRef(text: string, cwd: string): Promise<SourceRef> {
  if (text.startsWith('oci://')) return { kind: 'oci', ref: parseOciRef(text) };
  if (text.startsWith('https://') || text.startsWith('http://')) return { kind: 'index', ref: parseIndexRef(text) };
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(text)) throw new RegistryError('BAD_REFERENCE', `${text}: unsupported scheme (use a path, https://.../index.json#tool@range or oci://host/repo:tag)`);
  const path = resolve(cwd, text);
  const info = await stat(path).catch(() => undefined);
  if (!info) throw new RegistryError('NOT_FOUND', `${path}: no such file or folder`);
  if (info.isDirectory()) return { kind: 'dir', path };
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
}

export interface FetchOptions {
  insecure: boolean;
  progress?: Progress;
  /** `install --locked`: the digest the lockfile pins, checked before the package is downloaded where the source allows. */
  expectResolved?: string;
}

function expectResolved(what: string, actual: string, opts: FetchOptions): void {
  if (opts.expectResolved !== undefined && actual !== opts.expectResolved) {
    throw new RegistryError('DIGEST_MISMATCH', `${what}: resolves to ${actual}, the lockfile pins ${opts.expectResolved}`);
  }
}

export async function fetchPackage(src: SourceRef, opts: FetchOptions): Promise<FetchedPackage> {
  switch (src.kind) {
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
      const pulled = await pullOci(src.ref, opts);
      expectResolved(src.ref.text, pulled.manifestDigest, opts);
      const pinned = `oci://${src.ref.registry}/${src.ref.repository}@${pulled.manifestDigest}`;
      return { pkg: pulled.pkg, source: src.ref.text, resolved: pulled.manifestDigest, pinned };
    }
  }
}
