// The manifest door: YAML manifests -> validated Manifest -> LoadedManifest (module bytes, real
// paths) -> ToolDefinition running in the sandbox; plus capability descriptions for consent.
export { ManifestError, MANIFEST_ERROR_CODES, formatKeyPath, type ManifestErrorCode, type ManifestIssue } from './errors.js';
export { manifestSchema, paramSpecSchema, type Manifest } from './schema.js';
export { MANIFEST_DEFAULTS, MANIFEST_BOUNDS } from './defaults.js';
export { parseManifest, MAX_MANIFEST_BYTES } from './parse.js';
export {
  loadManifestFile,
  loadManifestDirs,
  loadManifestText,
  type ManifestInMemory,
  type LoadedManifest,
  type LoadDirsOptions,
  type LoadFileOptions,
  type LoadDirsResult,
} from './load.js';
export { toolFromManifest, decodeOutput, sandboxSpecFor, type BridgeOptions } from './bridge.js';
export { loadToolsFromDirs, type LoadToolsOptions, type LoadToolsResult } from './load-tools.js';
export { describeCapabilities, describeLinks, describeHost, formatBytes, formatDuration } from './describe.js';
export {
  readManifestModule,
  readModuleFile,
  readRegularFile,
  wasmHeaderProblem,
  FileRuleError,
  DEFAULT_MAX_MODULE_BYTES,
  type FileRules,
} from './module-file.js';
export { manifestDefinition, inputSchemaOf, type DefinitionParts } from './definition.js';
export { enablePreparedModuleCache } from './prepared-cache.js';
export { protectControlDir } from './protected-dirs.js';
export {
  pluginFromManifest, hyperMcpInterface, servedToolName, operationNames, templateMatches, HYPER_MCP_BOUNDS,
  type LoadedPlugin, type HyperMcpInterface,
} from './hyper-mcp.js';
export {
  DESCRIBED_KINDS, DESCRIBED_KIND_NAMES, describedPinFile, changedParts, sameJson,
  type DescribedText, type DescribedEntry, type DescribedKind,
} from './described-text.js';
