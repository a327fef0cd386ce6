// resources/subscribe over a 2025-11-25 Streamable HTTP session (the shipped `serve --http`): a
// session's subscriptions are kept for its life, so a flood is bounded. At most 1024 URIs per
// session (subscribing again to one held costs nothing; unsubscribing frees its place), and a URI
// of at most 4096 characters; past either the request is -32602 naming the bound, and the server
// still answers. Before the bound, every subscribe of any size was kept.
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

test('a subscribed URI is at most 4096 characters: a longer one is -32602 naming both lengths', async () => {
  const other = await http.connect();
  try {
    await other.subscribeResource({ uri: `test://${'a'.repeat(4089)}` });
    await expect(other.subscribeResource({ uri: `test://${'a'.repeat(1024 * 1024)}` })).rejects.toMatchObject({
      code: -32602,
      message: expect.stringContaining(`the uri is ${1024 * 1024 + 7} characters, more than 4096`),
    });
  } finally {
    await other.close();
  }
}, 60_000);
