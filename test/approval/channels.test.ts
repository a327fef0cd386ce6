// Approval channels: the TTY prompt, the HTTP callback, the pending queue and the per-call router.
// Every path that is not an explicit allowed-once ends in a denial.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { PassThrough } from 'node:stream';
import { afterEach, describe, expect, test } from 'vitest';
import {
  ApprovalQueue,
  ApprovalRouter,
  HttpApprovalChannel,
  InMemoryApprovalService,
  TtyApprovalChannel,
} from '../../host/src/approval/index.js';
import type { ApprovalRequest } from '../../host/src/pipeline/index.js';

const servers: Server[] = [];

async function until(cond: () => boolean): Promise<void> {
  for (let i = 0; i < 500 && !cond(); i++) await new Promise((r) => setTimeout(r, 10));
  expect(cond()).toBe(true);
}
afterEach(async () => {
  for (const s of servers.splice(0)) {
    s.closeAllConnections();
    await new Promise<void>((r) => s.close(() => r()));
  }
});

function req(over: Partial<ApprovalRequest['exec']> = {}): ApprovalRequest {
  return {
    exec: Object.freeze({
      callId: 'call-1',
      name: 'fetch',
      arguments: { url: 'https://x.test' },
      signal: new AbortController().signal,
      ...over,
    }),
    reason: 'tool "fetch" uses network',
    decidedBy: 'ask-net',
  };
}

/** A terminal prompt and the page's queue asked at once for one request, as the default set does. */
async function terminalAndPage() {
  const router = new ApprovalRouter();
  const input = new PassThrough();
  const output = new PassThrough();
  let text = '';
  output.on('data', (c: Buffer) => (text += c.toString()));
  const queue = new ApprovalQueue();
  router.useChannels([new TtyApprovalChannel({ input, output, isTTY: true }), queue]);
  const answer = router.request(req(), new AbortController().signal);
  await until(() => queue.list().length === 1 && text.includes('[y/N]'));
  return { input, queue, answer, printed: () => text };
}

async function serve(handler: (req: IncomingMessage, body: string, res: ServerResponse) => void): Promise<string> {
  const server = createServer((rq, rs) => {
    let body = '';
    rq.on('data', (c: Buffer) => (body += c.toString()));
    rq.on('end', () => handler(rq, body, rs));
  });
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/approve`;
}

describe('tty', () => {
  test('without a TTY the channel is unavailable and prints nothing', async () => {
    const output = new PassThrough();
    let printed = '';
    output.on('data', (c: Buffer) => (printed += c.toString()));
    const tty = new TtyApprovalChannel({ input: new PassThrough(), output, isTTY: false });
    expect(await tty.request(req(), new AbortController().signal)).toBe('unavailable');
    expect(printed).toBe('');
  });

  test('shows tool, reason and arguments; y allows once, anything else rejects; the answer names the terminal', async () => {
    const input = new PassThrough();
    const output = new PassThrough();
    let printed = '';
    output.on('data', (c: Buffer) => (printed += c.toString()));
    const tty = new TtyApprovalChannel({ input, output, isTTY: true });
    const first = tty.request(req(), new AbortController().signal);
    setTimeout(() => input.write('y\n'), 10);
    expect(await first).toEqual({ outcome: 'allowed-once', answeredBy: 'tty: the terminal' });
    expect(printed).toContain('tool:      fetch');
    expect(printed).toContain('reason:    tool "fetch" uses network');
    expect(printed).toContain('arguments: {"url":"https://x.test"}');
    expect(printed).toContain('[y/N]');
    const second = tty.request(req(), new AbortController().signal);
    setTimeout(() => input.write('\n'), 10);
    expect(await second).toEqual({ outcome: 'rejected', answeredBy: 'tty: the terminal' });
  });

  test('an aborted request is cancelled; a closed terminal cancels', async () => {
    const input = new PassThrough();
    const tty = new TtyApprovalChannel({ input, output: new PassThrough(), isTTY: true });
    const ac = new AbortController();
    const p = tty.request(req(), ac.signal);
    setTimeout(() => ac.abort(), 10);
    expect(await p).toBe('cancelled');
    const q = tty.request(req(), new AbortController().signal);
    setTimeout(() => input.end(), 10);
    expect(await q).toBe('cancelled');
  });
});

describe('http callback', () => {
  test('POSTs the request as JSON; the body {outcome} decides', async () => {
    const seen: unknown[] = [];
    const url = await serve((rq, body, rs) => {
      seen.push({ method: rq.method, type: rq.headers['content-type'], body: JSON.parse(body) as unknown });
      rs.setHeader('content-type', 'application/json');
      rs.end(JSON.stringify({ outcome: seen.length === 1 ? 'allowed-once' : 'rejected' }));
    });
    const ch = new HttpApprovalChannel({ url, timeoutMs: 2_000 });
    expect(await ch.request(req({ agent: 'a1' }), new AbortController().signal)).toBe('allowed-once');
    expect(await ch.request(req(), new AbortController().signal)).toBe('rejected');
    expect(seen[0]).toEqual({
      method: 'POST',
      type: 'application/json',
      body: {
        callId: 'call-1',
        tool: 'fetch',
        agent: 'a1',
        reason: 'tool "fetch" uses network',
        decidedBy: 'ask-net',
        arguments: { url: 'https://x.test' },
      },
    });
  });

  test('errors, bad bodies, non-2xx and timeouts are unavailable', async () => {
    const errors: unknown[] = [];
    const onError = (e: unknown) => void errors.push(e);
    const bad = await serve((_q, _b, rs) => rs.end('{"outcome":"yes please"}'));
    const http500 = await serve((_q, _b, rs) => {
      rs.statusCode = 500;
      rs.end('{"outcome":"allowed-once"}');
    });
    const slow = await serve((_q, _b, rs) => setTimeout(() => rs.end('{"outcome":"allowed-once"}'), 1_000));
    const signal = new AbortController().signal;
    expect(await new HttpApprovalChannel({ url: bad, onError }).request(req(), signal)).toBe('unavailable');
    expect(await new HttpApprovalChannel({ url: http500, onError }).request(req(), signal)).toBe('unavailable');
    const t0 = performance.now();
    expect(await new HttpApprovalChannel({ url: slow, timeoutMs: 100, onError }).request(req(), signal)).toBe(
      'unavailable',
    );
    expect(performance.now() - t0).toBeLessThan(900);
    // Nothing listens on port 1 of 127.0.0.1.
    expect(await new HttpApprovalChannel({ url: 'http://127.0.0.1:1/', onError }).request(req(), signal)).toBe(
      'unavailable',
    );
    expect(errors).toHaveLength(4);
  });

  test('a non-http URL is refused at configuration', () => {
    expect(() => new HttpApprovalChannel({ url: 'file:///etc/passwd' })).toThrow(/http\(s\)/);
  });
});

describe('queue', () => {
  test('a queue that holds requests only while open is unavailable at once when nobody can answer, and holds them once opened', async () => {
    const q = new ApprovalQueue({ onlyWhileOpen: true });
    expect(q.answerable).toBe(false);
    expect(await q.request(req(), new AbortController().signal)).toBe('unavailable');
    expect(q.list()).toEqual([]);
    const close = q.openForAnswers();
    const p = q.request(req(), new AbortController().signal);
    expect(q.list()).toHaveLength(1);
    close();
    close(); // closing twice closes once
    // Closed again: new requests are unavailable; the one already waiting can still be answered.
    expect(await q.request(req(), new AbortController().signal)).toBe('unavailable');
    expect(q.resolve(q.list()[0]?.id ?? '', 'rejected')).toBe(true);
    expect(await p).toBe('rejected');
  });

  test('a request waits until resolved by id; list shows it while pending', async () => {
    const q = new ApprovalQueue();
    const p = q.request(req(), new AbortController().signal);
    const pending = q.list();
    expect(pending).toHaveLength(1);
    expect(pending[0]).toMatchObject({
      callId: 'call-1',
      tool: 'fetch',
      reason: 'tool "fetch" uses network',
      decidedBy: 'ask-net',
    });
    expect(q.resolve('no-such-id', 'allowed-once')).toBe(false);
    expect(q.resolve(pending[0]?.id ?? '', 'allowed-once')).toBe(true);
    expect(await p).toBe('allowed-once');
    expect(q.list()).toHaveLength(0);
    expect(q.resolve(pending[0]?.id ?? '', 'rejected')).toBe(false); // answered once only
  });

  test('an aborted request leaves the queue as cancelled; a full queue is unavailable', async () => {
    const q = new ApprovalQueue({ maxPending: 1 });
    const ac = new AbortController();
    const p = q.request(req(), ac.signal);
    expect(await q.request(req({ callId: 'call-2' }), new AbortController().signal)).toBe('unavailable');
    ac.abort();
    expect(await p).toBe('cancelled');
    expect(q.list()).toHaveLength(0);
  });
});

describe('router', () => {
  test('no channel at all is unavailable', async () => {
    expect(await new ApprovalRouter().request(req(), new AbortController().signal)).toBe('unavailable');
  });

  test('a channel registered for the call answers it; other calls use the configured channels', async () => {
    const router = new ApprovalRouter();
    const elicit = new InMemoryApprovalService(['allowed-once']);
    const configured = new InMemoryApprovalService([], 'rejected');
    router.useChannels([configured]);
    const off = router.register('call-1', elicit);
    expect(await router.request(req(), new AbortController().signal)).toBe('allowed-once');
    expect(await router.request(req({ callId: 'call-2' }), new AbortController().signal)).toBe('rejected');
    off();
    expect(await router.request(req(), new AbortController().signal)).toBe('rejected');
    expect(elicit.requests).toHaveLength(1);
  });

  test('configured channels are asked together: the first answer other than unavailable stands; a throwing channel counts as unavailable', async () => {
    const router = new ApprovalRouter();
    const broken = { request: () => Promise.reject(new Error('down')) };
    const never = new InMemoryApprovalService([], 'never');
    const off = router.useChannels([
      never,
      new InMemoryApprovalService([], 'unavailable'),
      broken,
      new InMemoryApprovalService([], 'rejected'),
    ]);
    // The first channel never answers: asked in turn, the call would wait for it until its timeout.
    expect(await router.request(req(), new AbortController().signal)).toBe('rejected');
    expect(never.requests).toHaveLength(1);
    off();
    const offAll = router.useChannels([new InMemoryApprovalService([], 'unavailable'), broken]);
    expect(await router.request(req(), new AbortController().signal)).toBe('unavailable');
    offAll();
    router.base = new InMemoryApprovalService([], 'allowed-once');
    expect(await router.request(req(), new AbortController().signal)).toBe('allowed-once');
  });

  test('an answer on the page withdraws the terminal prompt, which says who answered', async () => {
    const { input, queue, answer, printed } = await terminalAndPage();
    const [item] = queue.list();
    expect(queue.resolve(item?.id ?? '', 'allowed-once', 'ui: approval secret, 127.0.0.1')).toBe(true);
    expect(await answer).toEqual({ outcome: 'allowed-once', answeredBy: 'ui: approval secret, 127.0.0.1' });
    expect(printed()).toContain('(answered elsewhere: allowed once by ui: approval secret, 127.0.0.1)');
    // A late "y" at the terminal answers nothing: the prompt is gone.
    input.write('y\n');
    expect(input.listenerCount('data')).toBe(0);
  });

  test('an answer at the terminal takes the request off the page; a late answer there is told who answered', async () => {
    const { input, queue, answer } = await terminalAndPage();
    const id = queue.list()[0]?.id ?? '';
    input.write('n\n');
    expect(await answer).toEqual({ outcome: 'rejected', answeredBy: 'tty: the terminal' });
    expect(queue.list()).toEqual([]);
    expect(queue.resolve(id, 'allowed-once', 'ui: late')).toBe(false);
    expect(queue.ended(id)).toMatchObject({ outcome: 'rejected', answeredBy: 'tty: the terminal', expired: false });
  });

  test("the runtime's own service (base) is asked before the policy set's channels", async () => {
    const router = new ApprovalRouter();
    const configured = new InMemoryApprovalService([], 'rejected');
    router.useChannels([configured]);
    router.base = new InMemoryApprovalService(['allowed-once'], 'unavailable');
    expect(await router.request(req(), new AbortController().signal)).toBe('allowed-once');
    expect(configured.requests).toHaveLength(0);
    expect(await router.request(req(), new AbortController().signal)).toBe('rejected'); // base unavailable -> next
  });

  test('channel registrations stack: undoing an older one keeps the newer serving', async () => {
    const router = new ApprovalRouter();
    const offOld = router.useChannels([new InMemoryApprovalService([], 'rejected')]);
    const offNew = router.useChannels([new InMemoryApprovalService([], 'allowed-once')]);
    offOld();
    expect(await router.request(req(), new AbortController().signal)).toBe('allowed-once');
    offNew();
    expect(await router.request(req(), new AbortController().signal)).toBe('unavailable');
  });
});
