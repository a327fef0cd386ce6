// The tool model: definitions, validation, the model-visible projection and the registry.
export {
  ERROR_CODES,
  CLIENT_LOG_LEVELS,
  CLIENT_FEATURES,
  type Disposer,
  type Json,
  type JsonObject,
  type JsonSchema,
  type ContentBlock,
  type ErrorCode,
  type ToolResult,
  type OutputRender,
  type ToolAnnotations,
  type ToolCapabilities,
  type ToolExecution,
  type ExecIdentity,
  type ParamSpec,
  type ToolDefinition,
  type ClientLogLevel,
  type ClientFeature,
  type ClientRequestKind,
  CLIENT_REQUEST_KINDS,
  CLIENT_NOTIFICATIONS,
  type ClientNotification,
  type ClientRequest,
  type ClientRefusalCode,
  type ClientAnswer,
  type CallClient,
  type ServedItem,
  RESOURCE_URI_CHARS,
  type ServedSurface,
} from './types.js';
export { ToolFailure } from './errors.js';
export { execIdentity, execAbortable, type ExecFields } from './exec-signal.js';
export { contentBlockSchema, contentKinds } from './content.js';
export { ToolDefinitionError } from './definition-error.js';
export { defineTool, TOOL_NAME_RE, type Tool } from './define.js';
export { modelView, type ModelToolView } from './projection.js';
export { ToolRegistry, type ToolChange } from './registry.js';
export { jsonSchemaProblem } from './validation.js';
export {
  argumentSizeProblem,
  isJson,
  isJsonObject,
  deepFreeze,
  cloneJson,
  frozenJsonCopy,
  sealJson,
  isSealedJson,
} from './json.js';
export { builtinTools } from './builtins.js';
