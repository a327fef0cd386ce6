// The tool model: definitions, validation, the model-visible projection and the registry.
export * from './types.js';
export { ToolFailure } from './errors.js';
export { CONTENT_KINDS, contentBlockSchema } from './content.js';
export { ToolDefinitionError } from './definition-error.js';
export { defineTool, isTool, TOOL_NAME_RE, type Tool, type ArgsCheck } from './define.js';
export { modelView, type ModelToolView, type ProjectionSlots } from './projection.js';
export { ToolRegistry, type ToolChange } from './registry.js';
export { jsonSchemaProblem } from './validation.js';
export { isJson, isJsonObject, deepFreeze, cloneJson, formatPath } from './json.js';
export { builtinTools, echoTool } from './builtins.js';
