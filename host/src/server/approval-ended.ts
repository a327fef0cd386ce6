// The message for an answer that came too late: the request was already answered or expired.
// Either way nothing ran because of this answer; the message says what did happen.
import type { EndedApprovalInfo } from './core.js';

export function endedMessage(ended: EndedApprovalInfo): string {
  if (ended.withdrawn !== undefined)
    return `this approval was ${ended.withdrawn} at ${ended.at}; the call was cancelled, nothing ran and this answer changed nothing`;
  if (ended.expired) return `this approval expired at ${ended.at} with no answer; the call was denied and nothing ran`;
  if (ended.answeredBy !== undefined) {
    const what = ended.outcome === 'allowed-once' ? 'allowed once' : 'denied';
    return `this approval was already answered (${what} by ${ended.answeredBy} at ${ended.at}); this answer changed nothing`;
  }
  return `this approval ended at ${ended.at} (the call was cancelled) before an answer; nothing ran`;
}
