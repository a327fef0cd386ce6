// What `import ... from 'toolgate/policy'` gives a policy author (docs/policies.md, "Modules from a
// path"): `definePolicy` and `service`, and the types of `ctx` and of every stage's listener. Only
// functions that hold no identity are exported as values: a module is imported by whichever
// toolgate loads it (the bundled command, or an embedder's copy), so a class from here would not
// be the class that toolgate checks against.
export {
  definePolicy,
  service,
  type PolicyModule,
  type PolicyContext,
  type ServiceName,
  type InjectedServices,
  type PolicyServices,
} from '../policy/index.js';
export type {
  Decision,
  DenyCode,
  PreExecuteInfo,
  PreExecuteListener,
  Guard,
  GuardDenial,
  ClientRequestGuard,
  DeadlineRule,
  ExecOutcome,
  ExecReplace,
  ExecuteWrapper,
  AcceptInput,
  PostExecuteCall,
  PostExecuteListener,
  CallRecord,
  ResultObserver,
  Stage,
  TrailStep,
  DecisionTrail,
  ApprovalRequest,
  ApprovalOutcome,
} from '../pipeline/index.js';
export type {
  ContentBlock,
  ClientRequest,
  ErrorCode,
  ExecIdentity,
  Json,
  JsonObject,
  Tool,
  ToolDefinition,
  ToolResult,
} from '../tool/index.js';
