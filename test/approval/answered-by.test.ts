// Who answered travels with the answer, and the queue remembers how a request ended, so a second
// answer or one after expiry can be told what happened.
import { describe, expect, test } from 'vitest';
import { ApprovalQueue, ApprovalRouter, type PendingApproval } from '../../host/src/approval/index.js';
import type { ApprovalRequest } from '../../host/src/pipeline/index.js';

function req(expiresAt?: string): ApprovalRequest {
  return {
    exec: Object.freeze({
      callId: 'call-1',
      name: 'fetch',
      arguments: { url: 'https://x.test' },
      signal: new AbortController().signal,
    }),
    reason: 'network',
    decidedBy: 'ask-net',
    ...(expiresAt !== undefined ? { expiresAt } : {}),
  };
}

function nextPending(q: ApprovalQueue): Promise<PendingApproval> {
  return new Promise((resolve) => {
    const off = q.onChange((list) => {
      const first = list[0];
      if (first !== undefined) {
        off();
        resolve(first);
      }
    });
  });
}

describe('answeredBy and ended approvals', () => {
  test('an answer that names who gave it comes back as a reply with answeredBy, through the router too', async () => {
    const q = new ApprovalQueue();
    const router = new ApprovalRouter();
    router.useChannels([q]);
    const seen = nextPending(q);
    const answer = router.request(req(), new AbortController().signal);
    const p = await seen;
    expect(q.resolve(p.id, 'allowed-once', 'ui: token, 127.0.0.1')).toBe(true);
    expect(await answer).toEqual({ outcome: 'allowed-once', answeredBy: 'ui: token, 127.0.0.1' });
  });

  test('a second answer finds nothing pending, and ended() says who answered first and how', async () => {
    const q = new ApprovalQueue();
    const seen = nextPending(q);
    const answer = q.request(req(new Date(Date.now() + 60_000).toISOString()), new AbortController().signal);
    const p = await seen;
    expect(p.expiresAt).toBeDefined();
    q.resolve(p.id, 'rejected', 'api: approval secret, 127.0.0.1');
    await answer;
    expect(q.resolve(p.id, 'allowed-once', 'someone else')).toBe(false);
    expect(q.ended(p.id)).toMatchObject({
      outcome: 'rejected',
      answeredBy: 'api: approval secret, 127.0.0.1',
      expired: false,
    });
  });

  test('a request whose time ran out is remembered as expired; one its caller cancelled early is not', async () => {
    const q = new ApprovalQueue();
    const late = new AbortController();
    let seen = nextPending(q);
    const expired = q.request(req(new Date(Date.now() - 1).toISOString()), late.signal);
    const p1 = await seen;
    late.abort();
    expect(await expired).toBe('cancelled');
    expect(q.ended(p1.id)).toMatchObject({ outcome: 'cancelled', expired: true });

    const early = new AbortController();
    seen = nextPending(q);
    const cancelled = q.request(req(new Date(Date.now() + 60_000).toISOString()), early.signal);
    const p2 = await seen;
    early.abort();
    await cancelled;
    expect(q.ended(p2.id)).toMatchObject({ outcome: 'cancelled', expired: false });
    expect(q.ended('never-existed')).toBeUndefined();
  });
});
