// The modules of a package: the main one (module.wasm) and each of module.link, which travels as
// link-<n>.wasm (n = its place in module.link, from 1), pinned by sha256 in the packaged manifest
// and listed, digested and signed like module.wasm (docs/registry.md, "Packages"). A package's
// manifest names only its own files: a linked module is code the tool runs, so one read from
// elsewhere on disk would run code nobody signed or reviewed.
import { isAbsolute, dirname, resolve } from 'node:path';
import { MANIFEST_BOUNDS } from '../manifest/index.js';
import { digestOf, expectDigest, normalizeDigest } from './digest.js';
import { RegistryError } from './errors.js';
import { readPackageModule, wasmProblem, type PackagedManifest } from './manifest-adapter.js';

export type LinkFileName = `link-${number}.wasm`;
const LINK_FILE = /^link-([1-9][0-9]?)\.wasm$/;

/** The package file of the module.link entry at `index` (from 0). */
export function linkFileName(index: number): LinkFileName {
  return `link-${index + 1}.wasm`;
}

export function isLinkFile(name: string): name is LinkFileName {
  const n = LINK_FILE.exec(name)?.[1];
  return n !== undefined && Number(n) <= MANIFEST_BOUNDS.maxLinks;
}

/**
 * Checks a packaged manifest's module.link against the package's files: entry n names
 * link-<n>.wasm, which is present, pinned by sha256 and WebAssembly; no link file is left unnamed.
 * Refusals name the manifest key and the path it gave (a hand-crafted package never went through pack).
 */
export function checkPackagedLinks(
  manifest: PackagedManifest,
  files: Readonly<Record<string, Uint8Array | undefined>>,
  where: string,
  manifestAt: string,
): void {
  manifest.module.links.forEach((link, i) => {
    const file = linkFileName(i);
    if (link.path !== file) {
      throw new RegistryError(
        'BAD_PACKAGE',
        `${manifestAt}: ${link.key}: "${link.path}" is not a file of the package (a package's manifest names only its own files; this link must be "${file}")`,
      );
    }
    const bytes = files[file];
    if (!bytes)
      throw new RegistryError('BAD_PACKAGE', `${where}: has no ${file} (${link.key} in the manifest names it)`);
    if (link.sha256 === undefined)
      throw new RegistryError('BAD_PACKAGE', `${manifestAt}: ${link.key}.sha256 is required inside a package`);
    expectDigest(bytes, `sha256:${link.sha256}`, `${where}/${file} (${link.key}.sha256 in the manifest)`);
    const notWasm = wasmProblem(bytes);
    if (notWasm !== undefined) throw new RegistryError('BAD_PACKAGE', `${where}/${file}: ${notWasm}`);
  });
  for (const name of Object.keys(files)) {
    if (!isLinkFile(name) || files[name] === undefined) continue;
    if (Number(LINK_FILE.exec(name)?.[1]) > manifest.module.links.length) {
      throw new RegistryError(
        'BAD_PACKAGE',
        `${where}: ${name} is not named by the manifest's module.link (it lists ${manifest.module.links.length})`,
      );
    }
  }
}

/**
 * A module a tool folder's manifest names (`key` module.path or module.link.<ns>): a relative path
 * whose real path is inside `dir`, under the manifest folder's module rules, with the digest the
 * manifest pins (if it pins one).
 */
export async function readFolderModule(
  manifestFile: string,
  key: string,
  path: string,
  dir: string,
  sha256: string | undefined,
): Promise<Uint8Array> {
  const abs = resolve(dirname(manifestFile), path);
  const bytes = await readPackageModule(manifestFile, abs, dir, key);
  // inside the folder, but a package moves: what it names must be named from inside it
  if (isAbsolute(path)) {
    throw new RegistryError(
      'BAD_PACKAGE',
      `${manifestFile}: ${key}: module file ${path} must be named relative to the tool's folder (it is an absolute path)`,
    );
  }
  if (sha256 !== undefined) {
    const declared = normalizeDigest(sha256);
    if (!declared)
      throw new RegistryError(
        'BAD_MANIFEST',
        `${manifestFile}: ${key === 'module.path' ? 'module' : key}.sha256: not a sha256 hex digest`,
      );
    expectDigest(bytes, declared, `${abs} (${key === 'module.path' ? 'module' : key}.sha256 in ${manifestFile})`);
  }
  return bytes;
}

/** A tool folder's linked modules, as package files, and where the packaged manifest points each. */
export async function readFolderLinks(
  manifestFile: string,
  manifest: PackagedManifest,
  dir: string,
): Promise<{
  files: Record<LinkFileName, Uint8Array>;
  pointers: Array<{ namespace: string; path: string; sha256Hex: string }>;
}> {
  const files: Record<LinkFileName, Uint8Array> = {};
  const pointers: Array<{ namespace: string; path: string; sha256Hex: string }> = [];
  for (const [i, link] of manifest.module.links.entries()) {
    const bytes = await readFolderModule(manifestFile, link.key, link.path, dir, link.sha256);
    const file = linkFileName(i);
    files[file] = bytes;
    pointers.push({ namespace: link.namespace, path: file, sha256Hex: digestOf(bytes).slice('sha256:'.length) });
  }
  return { files, pointers };
}
