// Policy in front of what a running tool asks its client: client-request guards see every
// elicitation and sampling request before the transport's client does, and can only deny.
import { describe, expect, test } from 'vitest';
import type { CallClient, ClientAnswer, ClientRequest, JsonObject } from '../../host/src/tool/index.js';
import { harness } from './helpers.js';

/** A transport-side client that records what reached it and answers every request. */
function fakeClient(): CallClient & { asked: ClientRequest[] } {
  const asked: ClientRequest[] = [];
  return {
    asked,
    log: () => Promise.resolve(true),
    progress: () => Promise.resolve(true),
    request: (req) => {
      asked.push(req);
      return Promise.resolve({ ok: true, result: { action: 'accept' } });
    },
  };
}

/** A native tool that sends one request of `kind` and returns the answer it got. */
function asking(kind: ClientRequest['kind']) {
  return {
    name: 'asker',
    description: 'asks its client',
    async execute(_args: Readonly<JsonObject>, exec: { client?: CallClient; signal: AbortSignal }) {
      const answer: ClientAnswer | undefined = await exec.client?.request(
        { kind, params: { maxTokens: 10 } },
        exec.signal,
        1000,
      );
      return answer === undefined ? null : (JSON.parse(JSON.stringify(answer)) as JsonObject);
    },
  };
}

describe('client-request guards', () => {
  test("a client-request guard's denial stands in any order, never reaches the client, and is in the trail", async () => {
    for (const order of ['deny-first', 'deny-last'] as const) {
      const h = harness();
      h.tools.register(asking('sampling') as never);
      const pass = (): undefined => undefined;
      const deny = (req: Readonly<ClientRequest>): string | undefined =>
        req.kind === 'sampling' ? 'no model for tools' : undefined;
      if (order === 'deny-first') {
        h.hooks.clientRequest('deny', deny);
        h.hooks.clientRequest('pass', pass);
      } else {
        h.hooks.clientRequest('pass', pass);
        h.hooks.clientRequest('deny', deny);
      }
      const client = fakeClient();
      const result = await h.pipeline.call('asker', {}, { client });
      expect(result.isError).toBe(false);
      expect(result.structuredContent).toEqual({
        ok: false,
        code: 'DENIED',
        message: 'sampling request denied by policy: no model for tools',
      });
      expect(client.asked).toEqual([]);
      const trail = (result.meta as { decision: { clientRequests?: unknown } }).decision;
      expect(trail.clientRequests).toEqual([
        { kind: 'sampling', outcome: 'denied', by: 'deny', reason: 'no model for tools' },
      ]);
    }
  });

  test('a guard that throws denies (fail closed); one that returns undefined lets the request through', async () => {
    const h = harness();
    h.tools.register(asking('elicitation') as never);
    h.hooks.clientRequest('broken', () => {
      throw new Error('bug');
    });
    const client = fakeClient();
    const result = await h.pipeline.call('asker', {}, { client });
    expect(result.structuredContent).toMatchObject({ ok: false, code: 'DENIED' });
    expect(JSON.stringify(result.structuredContent)).toContain('client-request guard \\"broken\\" failed: bug');
    expect(client.asked).toEqual([]);

    const h2 = harness();
    h2.tools.register(asking('elicitation') as never);
    h2.hooks.clientRequest('fine', () => undefined);
    const client2 = fakeClient();
    const ok = await h2.pipeline.call('asker', {}, { client: client2 });
    expect(ok.structuredContent).toEqual({ ok: true, result: { action: 'accept' } });
    expect(client2.asked).toEqual([{ kind: 'elicitation', params: { maxTokens: 10 } }]);
    expect((ok.meta as { decision: { clientRequests?: unknown } }).decision.clientRequests).toEqual([
      { kind: 'elicitation', outcome: 'answered' },
    ]);
  });

  test('a call without a client (CLI, HTTP API) gets UNAVAILABLE; guards still judge first', async () => {
    const h = harness();
    h.tools.register(asking('sampling') as never);
    const result = await h.pipeline.call('asker', {});
    expect(result.structuredContent).toMatchObject({ ok: false, code: 'UNAVAILABLE' });
  });
});
