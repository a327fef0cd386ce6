// Plain WebAssembly modules (a .wasm file or URL, a CNCF wasm OCI artifact, a hyper-mcp plugin
// pushed as an ORAS artifact or a FROM scratch image) carry no toolgate manifest: the user supplies
// one with --manifest, or install drafts one for a hyper-mcp plugin (draft.ts). The package is built
// from that manifest (module.path -> module.wasm, module.sha256 -> the module's digest) and the
// module bytes, which were pinned by digest as they were fetched.
import { MAX_MANIFEST_BYTES } from '../manifest/index.js';
import { digestOf, normalizeDigest, sha256Hex } from './digest.js';
import { draftManifestText, moduleInterface } from './draft.js';
import { RegistryError } from './errors.js';
import { readManifest, readPackageFile, rewriteModule } from './manifest-adapter.js';
import { assemblePackage, MANIFEST_FILE, MODULE_FILE, type ToolPackage } from './package.js';

/** The refusal for a plain module installed without a manifest (said before anything is downloaded). */
export function manifestNeeded(where: string, what: string): RegistryError {
  return new RegistryError(
    'BAD_PACKAGE',
    `${where}: ${what}; pass --manifest FILE with a toolgate manifest for its module (it is pinned by digest), or for a hyper-mcp plugin --draft-manifest to install a drafted manifest that grants nothing`,
  );
}

/** Where a module without its own manifest gets one. */
export interface ModuleManifest {
  /** The user's manifest (install --manifest). */
  manifestFile?: string;
  /** Draft one named after this reference (install --draft-manifest, or a person reviewing on a terminal). */
  draftFrom?: string;
  /** The artifact is a hyper-mcp plugin: a supplied manifest must say module.abi: hyper-mcp. */
  hyperMcp: boolean;
}

export interface ModulePackage {
  pkg: ToolPackage;
  /** The manifest was drafted (shown to the person before anything is written). */
  drafted: boolean;
}

export async function moduleOnlyPackage(
  moduleBytes: Uint8Array,
  from: ModuleManifest,
  where: string,
): Promise<ModulePackage> {
  if (from.manifestFile !== undefined) {
    const text = Buffer.from(await readPackageFile(from.manifestFile, undefined, MAX_MANIFEST_BYTES)).toString('utf8');
    return { pkg: packageOf(moduleBytes, text, from.manifestFile, where, from.hyperMcp), drafted: false };
  }
  if (from.draftFrom === undefined) throw manifestNeeded(where, 'has no toolgate manifest');
  const text = draftManifestText(from.draftFrom, await moduleInterface(moduleBytes, where));
  return { pkg: packageOf(moduleBytes, text, `${where} (drafted manifest)`, where, true), drafted: true };
}

function packageOf(
  moduleBytes: Uint8Array,
  text: string,
  manifestFile: string,
  where: string,
  hyperMcp: boolean,
): ToolPackage {
  const manifest = readManifest(text, manifestFile);
  if (hyperMcp && manifest.module.abi !== 'hyper-mcp') {
    throw new RegistryError(
      'BAD_MANIFEST',
      `${manifestFile}: module.abi: must be hyper-mcp for ${where}, a hyper-mcp plugin (is ${manifest.module.abi})`,
    );
  }
  const actual = digestOf(moduleBytes);
  if (manifest.module.sha256 !== undefined && normalizeDigest(manifest.module.sha256) !== actual) {
    throw new RegistryError(
      'DIGEST_MISMATCH',
      `${manifestFile}: module.sha256 ${manifest.module.sha256} does not match the module of ${where} (${actual})`,
    );
  }
  const normalized = rewriteModule(text, manifestFile, MODULE_FILE, sha256Hex(moduleBytes));
  return assemblePackage(
    { [MANIFEST_FILE]: Buffer.from(normalized, 'utf8'), [MODULE_FILE]: moduleBytes },
    undefined,
    where,
  );
}
