// The manifest door: YAML manifests -> validated Manifest -> LoadedManifest (module bytes, real
// paths) -> ToolDefinition running in the sandbox; plus capability descriptions for consent.
export { ManifestError, formatKeyPath } from './errors.js';
export { MANIFEST_DEFAULTS, MANIFEST_BOUNDS } from './defaults.js';
export { parseManifest, MAX_MANIFEST_BYTES } from './parse.js';
export {
  loadManifestFile,
  loadManifestDirs,
  loadManifestText,
  type LoadedManifest,
  type LoadFileOptions,
  type LoadDirsResult,
} from './load.js';
export { toolFromManifest, decodeOutput, sandboxSpecFor, sandboxCodeWarmUp } from './bridge.js';
export { loadToolsFromDirs } from './load-tools.js';
export { withholdNames, withoutSharedNames, type WithheldNames } from './shared-names.js';
export { describeCapabilities, describeLinks, describeHost, formatDuration } from './describe.js';
export {
  readManifestModule,
  readRegularFile,
  wasmHeaderProblem,
  FileRuleError,
  DEFAULT_MAX_MODULE_BYTES,
} from './module-file.js';
export { manifestDefinition, inputSchemaOf } from './definition.js';
export { enablePreparedModuleCache } from './prepared-cache.js';
export { protectControlDir } from './protected-dirs.js';
export {
  pluginFromManifest,
  hyperMcpInterface,
  templateMatches,
  CLIENT_REQUEST_BOUNDS,
  type LoadedPlugin,
  type HyperMcpInterface,
} from './hyper-mcp.js';
export {
  DESCRIBED_KINDS,
  DESCRIBED_KIND_NAMES,
  describedPinFile,
  type DescribedText,
  type DescribedEntry,
  type DescribedKind,
} from './described-text.js';
