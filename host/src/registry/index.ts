// The registry door: packages, sources (dir, .tgz, HTTP index, OCI), signatures and trust,
// consent and ceilings, the lockfile and the installed store.
export { RegistryError, isRegistryError, type RegistryErrorCode } from './errors.js';
export { satisfies, maxSatisfying } from './semver.js';
export { writeTar, readTar } from './tar.js';
export { digestOf } from './digest.js';
export { readManifest, type CapabilitySet } from './manifest-adapter.js';
export { diffCapabilities } from './capabilities.js';
export { parseCeiling, ceilingViolations, hostCovered } from './ceiling.js';
export { signedStatement, keyIdOf, generateSigningKey } from './signing.js';
export { addTrusted, listTrusted, removeTrusted } from './trust.js';
export { packageFromDir, packageFromTgz, packageToTgz } from './package.js';
export type { IndexFile } from './http-index.js';
export { OCI_MEDIA, OCI_ANNOTATIONS } from './oci.js';
export { createProgress } from './progress.js';
export type { Progress } from './http.js';
export { keygen, loadPackage, packToFile, publishPackage, signWithKeyFile } from './publish.js';
export { installTool } from './install.js';
export { installLocked } from './locked.js';
export { uninstallTool } from './uninstall.js';
export { verifyStore } from './verify.js';
export { listInstalled } from './list.js';
export { readLock, type LockEntry } from './lockfile.js';
export {
  installedManifestDir,
  installedManifestDirs,
  resolveHome,
  storeLayout,
  withStore,
  type PauseHook,
} from './store.js';
