// Approval: the service the pipeline asks when a policy says 'ask'. Channels (tty, MCP
// elicitation, http) implement ApprovalService; the in-memory one answers from a script.
export type { ApprovalService, ApprovalRequest, ApprovalOutcome } from '../pipeline/index.js';
export { InMemoryApprovalService, type ApprovalAnswer } from './memory.js';
export { ApprovalRouter, AnsweredElsewhere, type ElicitationApproval } from './router.js';
export { TtyApprovalChannel, TTY_ANSWERER, type TtyChannelOptions } from './tty.js';
export { HttpApprovalChannel, type HttpChannelOptions } from './http-callback.js';
export { ClientGone } from './withdrawn.js';
export { ApprovalQueue, type PendingApproval, type EndedApproval, type PendingQueue } from './queue.js';
export { SharedApprovalQueue } from './shared-queue.js';
export { APPROVAL_OUTCOMES, isApprovalOutcome, replyOutcome, approvalSummary, type ApprovalSummary } from './outcome.js';
