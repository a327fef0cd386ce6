// What `import ... from 'toolgate'` gives an embedder (package.json "exports", architecture.md §2):
// a runtime with its tool registry and policy pipeline, calls through that pipeline, the tool model
// to add tools of one's own, and the error base. Nothing else of host/src is reachable by package
// name; the `toolgate` command is the bundle (dist/cli/main.js), not this module graph.
export { createRuntime, type Runtime, type RuntimeOptions, type CliIO } from '../cli/index.js';
export type {
  Pipeline,
  CallOptions,
  Explanation,
  ApprovalService,
  ApprovalRequest,
  ApprovalOutcome,
} from '../pipeline/index.js';
export { InMemoryApprovalService, type ApprovalAnswer } from '../approval/index.js';
export {
  defineTool,
  ToolFailure,
  type ContentBlock,
  type ErrorCode,
  type ExecIdentity,
  type Json,
  type JsonObject,
  type JsonSchema,
  type Tool,
  type ToolDefinition,
  type ToolRegistry,
  type ToolResult,
} from '../tool/index.js';
export { ToolgateError, messageOf, type ToolgateErrorCode } from '../errors/index.js';
