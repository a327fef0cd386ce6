// Plain WebAssembly modules (a .wasm file or URL, or a CNCF wasm OCI artifact published by other
// tools) carry no toolgate manifest: the user supplies one with --manifest. The package is built
// from the user's manifest (module.path -> module.wasm, module.sha256 -> the module's digest) and
// the module bytes, which were pinned by digest as they were fetched.
import { MAX_MANIFEST_BYTES } from '../manifest/index.js';
import { digestOf, normalizeDigest, sha256Hex } from './digest.js';
import { RegistryError } from './errors.js';
import { readManifest, readPackageFile, rewriteModule } from './manifest-adapter.js';
import { assemblePackage, MANIFEST_FILE, MODULE_FILE, type ToolPackage } from './package.js';

/** The refusal for a plain module installed without --manifest (said before anything is downloaded). */
export function manifestNeeded(where: string, what: string): RegistryError {
  return new RegistryError('BAD_PACKAGE', `${where}: ${what}; pass --manifest FILE with a toolgate manifest for its module (it is pinned by digest)`);
}

export async function plainPackage(moduleBytes: Uint8Array, manifestFile: string, where: string): Promise<ToolPackage> {
  const text = Buffer.from(await readPackageFile(manifestFile, undefined, MAX_MANIFEST_BYTES)).toString('utf8');
  const manifest = readManifest(text, manifestFile);
  const actual = digestOf(moduleBytes);
  if (manifest.module.sha256 !== undefined && normalizeDigest(manifest.module.sha256) !== actual) {
    throw new RegistryError('DIGEST_MISMATCH', `${manifestFile}: module.sha256 ${manifest.module.sha256} does not match the module of ${where} (${actual})`);
  }
  const normalized = rewriteModule(text, manifestFile, MODULE_FILE, sha256Hex(moduleBytes));
  return assemblePackage({ [MANIFEST_FILE]: Buffer.from(normalized, 'utf8'), [MODULE_FILE]: moduleBytes }, undefined, where);
}
