// The pipeline: the stages of architecture.md §3, their listener types, and `explain` for policy tools.
export { Pipeline, type Explanation } from './pipeline.js';
export { Hooks } from './hooks.js';
export type {
  Decision,
  PreExecuteInfo,
  PreExecuteListener,
  Guard,
  GuardDenial,
  ExecOutcome,
  ExecReplace,
  ExecuteWrapper,
  AcceptInput,
  PostExecuteCall,
  PostExecuteListener,
  CallRecord,
  ResultObserver,
  StageListeners,
  Stage,
  TrailStep,
  DecisionTrail,
  DeadlineRule,
  ClientRequestGuard,
  DenyCode,
  ApprovalOutcome,
  ApprovalReply,
  ApprovalRequest,
  ApprovalService,
  PipelineLogger,
  CallOptions,
  TraceContext,
} from './types.js';
export { linkSignals } from './async.js';
