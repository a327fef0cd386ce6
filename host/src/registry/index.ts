// The registry door: packages, sources (dir, .tgz, HTTP index, OCI), signatures and trust,
// consent and ceilings, the lockfile and the installed store.
export { RegistryError, REGISTRY_ERROR_CODES, isRegistryError, type RegistryErrorCode } from './errors.js';
export { satisfies, maxSatisfying, compareVersionText, isVersion } from './semver.js';
export { writeTar, readTar, type TarEntry } from './tar.js';
export { digestOf } from './digest.js';
export { readManifest, CAPABILITY_DEFAULTS, type CapabilitySet, type PackagedManifest, type PathGrant } from './manifest-adapter.js';
export { diffCapabilities, type CapabilityDiff } from './capabilities.js';
export { parseCeiling, loadCeiling, ceilingViolations, hostCovered, type Ceiling } from './ceiling.js';
export { signedStatement, keyIdOf, generateSigningKey, type PackageSignature } from './signing.js';
export { addTrusted, listTrusted, removeTrusted, type TrustedKey } from './trust.js';
export {
  packageFromDir,
  packageFromTgz,
  packageToTgz,
  statementOf,
  MANIFEST_FILE,
  MODULE_FILE,
  README_FILE,
  INFO_FILE,
  type ToolPackage,
} from './package.js';
export { parseIndexRef, type IndexFile, type IndexEntry } from './http-index.js';
export { parseOciRef, OCI_MEDIA, OCI_ANNOTATIONS, type OciRef } from './oci.js';
export { createProgress, type ProgressMode } from './progress.js';
export type { Progress } from './http.js';
export { keygen, loadPackage, packToFile, publishPackage, signWithKeyFile, type PublishResult } from './publish.js';
export { installTool, type InstallOptions, type InstallResult, type InstallOutcome } from './install.js';
export { installLocked, pinnedRefOf, type LockedInstallOptions, type LockedTool } from './locked.js';
export { uninstallTool } from './uninstall.js';
export { verifyStore, type VerifyReport } from './verify.js';
export { listInstalled, type ListedTool } from './list.js';
export { readLock, type Lockfile, type LockEntry } from './lockfile.js';
export { installedManifestDir, installedManifestDirs, resolveHome, storeLayout, withStore, type InstalledDirs, type StoreLayout, type StoreProblem, type PauseHook } from './store.js';
