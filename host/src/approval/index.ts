// Approval: the service the pipeline asks when a policy says 'ask'. Channels (tty, MCP
// elicitation, http) implement ApprovalService; the in-memory one answers from a script.
export type { ApprovalService } from '../pipeline/index.js';
export { InMemoryApprovalService, type ApprovalAnswer } from './memory.js';
export { ApprovalRouter, AnsweredElsewhere } from './router.js';
export { TtyApprovalChannel, type TtyChannelOptions } from './tty.js';
export { HttpApprovalChannel } from './http-callback.js';
export { ClientGone } from './withdrawn.js';
export { ApprovalQueue, type PendingApproval, type PendingQueue } from './queue.js';
export { SharedApprovalQueue } from './shared-queue.js';
