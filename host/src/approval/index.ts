// Approval: the service the pipeline asks when a policy says 'ask'. Channels (tty, MCP
// elicitation, http) implement ApprovalService; the in-memory one answers from a script.
export type { ApprovalService, ApprovalRequest, ApprovalOutcome } from '../pipeline/index.js';
export { InMemoryApprovalService, type ApprovalAnswer } from './memory.js';
