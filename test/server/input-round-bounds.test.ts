// MCP 2026-07-28 input rounds: a client's inputResponses are handed to the tool, signed into the
// next state and kept with a task, so they are held to the bounds of a call's arguments
// (docs/decisions.md, "Bounded argument checks"). An answer nested 20000 deep used to overflow the
// stack on its way to the module and end the call as a sandbox failure.
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { ROOT, startHttp, tempDir, type HttpProcess } from './helpers.js';
import { envelope, modernRpc, REVISION } from './modern-rpc.js';

const CAPS = { elicitation: { form: {} }, sampling: {}, roots: {} };
const DEEP = `${'['.repeat(20_000)}${']'.repeat(20_000)}`;

let dir: { path: string; remove(): Promise<void> };
let http: HttpProcess;

beforeAll(async () => {
  dir = await tempDir();
  const manifests = join(dir.path, 'manifests');
  await mkdir(manifests);
  await writeFile(
    join(manifests, 'hr.yaml'),
    [
      'apiVersion: toolgate/v1',
      'name: hr',
      'version: 1.0.0',
      'description: asks the client',
      `module: { path: ${join(ROOT, 'test/fixtures/build/hyper_client_v1.wasm')}, abi: hyper-mcp }`,
      'capabilities:',
      '  timeout_ms: 10000',
      '  mcp: [logging, progress, elicitation, sampling, roots]',
      '',
    ].join('\n'),
  );
  http = await startHttp(['--http', '127.0.0.1:0', '--manifests', manifests, '--no-watch'], {
    TOOLGATE_HOME: join(dir.path, 'home'),
  });
}, 60_000);

afterAll(async () => {
  await http?.stop();
  await dir?.remove();
});

/** The retry of `first` with answers whose `_meta` holds `meta` (JSON text, spliced in unparsed). */
async function retryWith(first: Record<string, unknown>, meta: string): Promise<Record<string, unknown>> {
  const questions = first['inputRequests'] as Record<string, { method: string }>;
  const responses: Record<string, unknown> = {};
  for (const [key, q] of Object.entries(questions)) {
    if (q.method === 'elicitation/create') responses[key] = { action: 'accept', content: { colour: 'red' }, _meta: 0 };
    if (q.method === 'sampling/createMessage')
      responses[key] = { role: 'assistant', content: { type: 'text', text: 'red' }, model: 'm' };
    if (q.method === 'roots/list') responses[key] = { roots: [] };
  }
  const params = {
    name: 'hr__ask',
    arguments: {},
    inputResponses: responses,
    requestState: first['requestState'],
    _meta: envelope(CAPS),
  };
  const body = JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'tools/call', params }).replace(
    '"_meta":0',
    `"_meta":${meta}`,
  );
  const res = await fetch(`${http.url}/mcp`, {
    method: 'POST',
    body,
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': REVISION,
      'mcp-method': 'tools/call',
      'mcp-name': 'hr__ask',
    },
    signal: AbortSignal.timeout(20_000),
  });
  const text = (await res.text()).trim();
  const line = text.startsWith('{')
    ? text
    : (text
        .split('\n')
        .find((l) => l.startsWith('data:'))
        ?.slice(5) ?? '{}');
  return JSON.parse(line) as Record<string, unknown>;
}

describe("a client's inputResponses are held to the bounds of a call's arguments", () => {
  test('an answer nested 20000 deep is refused -32602 naming the bound, and nothing reaches the tool', async () => {
    const first = await modernRpc(http.url, 'tools/call', { name: 'hr__ask', arguments: {} }, { capabilities: CAPS });
    expect(first.message.result?.['resultType']).toBe('input_required');
    const reply = await retryWith(first.message.result ?? {}, `{"a":${DEEP}}`);
    expect(reply['error']).toMatchObject({
      code: -32602,
      message: expect.stringContaining('inputResponses: nested more than 64 levels deep'),
    });
  });

  test('an answer within the bounds still completes the call', async () => {
    const first = await modernRpc(http.url, 'tools/call', { name: 'hr__ask', arguments: {} }, { capabilities: CAPS });
    const reply = await retryWith(first.message.result ?? {}, '{"a":[[1]]}');
    const content = (reply['result'] as { content: { text: string }[] }).content;
    expect(JSON.parse(content[0]?.text ?? '{}')).toMatchObject({
      elicit: { action: 'accept', content: { colour: 'red' } },
    });
  });
});
