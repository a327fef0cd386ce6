// Where a package comes from: a folder, a .tgz, a static HTTP index or an OCI registry.
import { readFile, stat } from 'node:fs/promises';
import { resolve } from 'node:path';
import { RegistryError } from './errors.js';
import type { Progress } from './http.js';
import { parseIndexRef, pullFromIndex, type IndexRef } from './http-index.js';
import { parseOciRef, pullOci, type OciRef } from './oci.js';
import { packageFromDir, packageFromTgz, PACKAGE_LIMITS, type ToolPackage } from './package.js';

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
  /** OCI: the manifest digest the tag pointed at. */
  resolved?: string;
}

export async function fetchPackage(src: SourceRef, opts: { insecure: boolean; progress?: Progress }): Promise<FetchedPackage> {
  switch (src.kind) {
    case 'dir':
      return { pkg: await packageFromDir(src.path), source: src.path };
    case 'tgz': {
      const info = await stat(src.path);
      if (info.size > PACKAGE_LIMITS.maxTotalBytes) throw new RegistryError('TOO_LARGE', `${src.path}: ${info.size} bytes is over the package limit`);
      return { pkg: packageFromTgz(await readFile(src.path), src.path), source: src.path };
    }
    case 'index':
      return { pkg: await pullFromIndex(src.ref, opts), source: src.ref.text };
    case 'oci': {
      const pulled = await pullOci(src.ref, opts);
      return { pkg: pulled.pkg, source: src.ref.text, resolved: pulled.manifestDigest };
    }
  }
}
