// resources/subscribe over a 2025-11-25 Streamable HTTP session (the shipped `serve --http`): a
// session's subscriptions are kept for its life, so a flood is bounded. At most 1024 URIs per
// session (subscribing again to one held costs nothing; unsubscribing frees its place), and a URI
// of at most 2048 characters, the bound resources/read has (one bound for every URI); past either
// the request is -32602 naming the method and the bound, and the server still answers. Before the
// bound, every subscribe of any size was kept.
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { ROOT, startHttp, tempDir, type HttpProcess } from './helpers.js';

const CONFORMANCE = join(ROOT, 'manifests/conformance/conformance_mcp.yaml');
let dir: Awaited<ReturnType<typeof tempDir>>;
let http: HttpProcess;
let session: Client;

beforeAll(async () => {
  dir = await tempDir();
  http = await startHttp(['--http', '127.0.0.1:0', '--manifests', CONFORMANCE, '--policies', 'none'], {
    TOOLGATE_HOME: join(dir.path, 'home'),
  });
  session = await http.connect();
}, 60_000);
afterAll(async () => {
  await http?.stop();
  await dir?.remove();
});

const refusal = async (uri: string): Promise<{ code?: number; message: string }> => {
  try {
    await session.subscribeResource({ uri });
  } catch (err) {
    return err as { code?: number; message: string };
  }
  return { message: 'accepted' };
};

test('a session holds at most 1024 subscriptions: the next is -32602 naming the bound; a held one again is free, and unsubscribing makes room', async () => {
  for (let i = 0; i < 1024; i++) await session.subscribeResource({ uri: `test://flood/${i}` });
  const over = await refusal('test://flood/one-more');
  expect(over.code).toBe(-32602);
  expect(over.message).toContain('this session holds 1024 subscriptions, the most it may');
  // the same URI again is not a new one
  await session.subscribeResource({ uri: 'test://flood/7' });
  await session.unsubscribeResource({ uri: 'test://flood/7' });
  await session.subscribeResource({ uri: 'test://flood/one-more' });
  // and the session still answers
  expect((await session.listResources()).resources.length).toBeGreaterThan(0);
}, 120_000);

/** How a request ended: its error's code and message, or `accepted`. */
const outcome = (request: Promise<unknown>): Promise<{ code?: number; message: string }> =>
  request.then(
    () => ({ message: 'accepted' }),
    (err: unknown) => err as { code?: number; message: string },
  );

test('subscribe and read take the same URIs: 2048 characters are accepted by both, 2049 refused by both naming the method and the bound', async () => {
  const other = await http.connect();
  // the conformance module's template test://template/{id}/data, with an id that brings it to the length
  const uriOf = (length: number): string => `test://template/${'a'.repeat(length - 21)}/data`;
  try {
    const atBound = uriOf(2048);
    expect(atBound.length).toBe(2048);
    expect(await outcome(other.subscribeResource({ uri: atBound }))).toEqual({ message: 'accepted' });
    // the read passes the bound and reaches the module, whose own buffer takes ids under 256 characters
    const read = await outcome(other.readResource({ uri: atBound }));
    expect(read).toMatchObject({
      code: -32000,
      message: expect.stringContaining('TOOL_ERROR: resource not found: test://template/aaa'),
    });

    const past = uriOf(2049);
    const subscribe = await outcome(other.subscribeResource({ uri: past }));
    expect(subscribe.code).toBe(-32602);
    expect(subscribe.message).toContain('resources/subscribe: params.uri is 2049 characters, more than 2048');
    const readPast = await outcome(other.readResource({ uri: past }));
    expect(readPast.code).toBe(-32602);
    expect(readPast.message).toContain('resources/read: params.uri is 2049 characters, more than 2048');
    // a URI of 1 MiB is refused the same way, and the session answers on
    const huge = await outcome(other.subscribeResource({ uri: `test://${'a'.repeat(1024 * 1024)}` }));
    expect(huge).toMatchObject({ code: -32602, message: expect.stringContaining('more than 2048') });
    expect((await other.listResources()).resources.length).toBeGreaterThan(0);
  } finally {
    await other.close();
  }
}, 60_000);
