// What a WASM tool may ask of the MCP client that called it (toolgate:mcp: logs, progress,
// elicitation, sampling, roots), through the real server over stdio and Streamable HTTP with the
// official SDK client, and the conformance reference tools built from pdk-examples/conformance.
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import {
  CallToolResultSchema,
  CreateMessageRequestSchema,
  ElicitRequestSchema,
  ListRootsRequestSchema,
  LoggingMessageNotificationSchema,
  ProgressNotificationSchema,
  type ClientCapabilities,
  type CreateMessageRequest,
  type ElicitRequest,
  type ElicitResult,
  type ListRootsRequest,
  type LoggingMessageNotification,
  type ProgressNotification,
} from '@modelcontextprotocol/sdk/types.js';
import { ROOT, startHttp, startStdio, tempDir, waitFor } from './helpers.js';

const CONFORMANCE = join(ROOT, 'manifests/conformance');
const KIT = join(ROOT, 'test/fixtures/client-manifests');
const ALL: ClientCapabilities = { sampling: {}, elicitation: {}, roots: {} };
const ROOTS = [{ uri: 'file:///work/project', name: 'project' }];

interface Seen {
  logs: LoggingMessageNotification['params'][];
  samples: CreateMessageRequest['params'][];
  elicits: ElicitRequest['params'][];
  /** The params of each roots/list the client got. */
  roots: ListRootsRequest['params'][];
  /** What elicitation answers (the default when unset). */
  elicitAnswer?: ElicitResult;
  /** Set to hold elicitation answers back (the request's signal is recorded instead). */
  holdElicit: boolean;
  elicitSignals: AbortSignal[];
}

/** Records what the client is sent; answers sampling, elicitation and roots/list when `caps` declares them. */
function recorder(caps: ClientCapabilities = ALL): { seen: Seen; setup: (c: Client) => void } {
  const seen: Seen = { logs: [], samples: [], elicits: [], roots: [], holdElicit: false, elicitSignals: [] };
  const setup = (c: Client): void => {
    c.setNotificationHandler(LoggingMessageNotificationSchema, (n) => {
      seen.logs.push(n.params);
    });
    if (caps.sampling !== undefined) {
      c.setRequestHandler(CreateMessageRequestSchema, (req) => {
        seen.samples.push(req.params);
        return {
          role: 'assistant',
          content: { type: 'text', text: 'the model says hi' },
          model: 'test-model',
          stopReason: 'endTurn',
        };
      });
    }
    if (caps.roots !== undefined) {
      c.setRequestHandler(ListRootsRequestSchema, (req) => {
        seen.roots.push(req.params);
        return { roots: ROOTS };
      });
    }
    if (caps.elicitation === undefined) return;
    c.setRequestHandler(ElicitRequestSchema, (req, extra) => {
      seen.elicits.push(req.params);
      if (!seen.holdElicit)
        return seen.elicitAnswer ?? { action: 'accept', content: { username: 'ada', email: 'ada@example.com' } };
      seen.elicitSignals.push(extra.signal);
      return new Promise(() => {}); // never answered
    });
  };
  return { seen, setup };
}

type Connect = (caps: ClientCapabilities, setup: (c: Client) => void) => Promise<Client>;

function textOf(result: unknown): string {
  const r = CallToolResultSchema.parse(result);
  return r.content.map((b) => (b.type === 'text' ? b.text : `[${b.type}]`)).join('');
}
/** The client_kit tools return the host's answer block as a JSON string. */
function answerOf(result: unknown): unknown {
  return JSON.parse(JSON.parse(textOf(result)) as string) as unknown;
}
function errorCode(result: unknown): unknown {
  return (CallToolResultSchema.parse(result)._meta?.['toolgate/error'] as { code?: string } | undefined)?.code;
}

const transports: [string, (args: string[]) => Promise<{ connect: Connect; close(): Promise<unknown> }>][] = [
  [
    'stdio',
    async (args) => {
      const servers: { close(): Promise<void> }[] = [];
      return {
        connect: async (capabilities, setup) => {
          const s = await startStdio([...args, '--no-watch'], { capabilities, setup });
          servers.push(s);
          return s.client;
        },
        close: () => Promise.allSettled(servers.map((s) => s.close())),
      };
    },
  ],
  [
    'http',
    async (args) => {
      const server = await startHttp(['--http', '127.0.0.1:0', ...args, '--no-watch']);
      return { connect: (capabilities, setup) => server.connect({ capabilities, setup }), close: () => server.stop() };
    },
  ],
];

describe.each(transports)('a tool and its MCP client over %s', (_name, start) => {
  let rig: { connect: Connect; close(): Promise<unknown> };
  beforeAll(async () => {
    rig = await start(['--manifests', CONFORMANCE, '--manifests', KIT]);
  });
  afterAll(async () => {
    await rig?.close();
  });

  test("a tool's log lines reach the client at the level it set, in order, before the result", async () => {
    const { seen, setup } = recorder();
    const client = await rig.connect(ALL, setup);
    await client.setLoggingLevel('debug');
    const result = await client.callTool({ name: 'test_tool_with_logging', arguments: {} });
    expect(textOf(result)).toBe('Tool with logging executed successfully');
    expect(seen.logs).toEqual([
      { level: 'info', logger: 'test_tool_with_logging', data: 'Tool execution started' },
      { level: 'info', logger: 'test_tool_with_logging', data: 'Tool processing data' },
      { level: 'info', logger: 'test_tool_with_logging', data: 'Tool execution completed' },
    ]);
    // above the tool's level: nothing is sent
    await client.setLoggingLevel('warning');
    seen.logs.length = 0;
    await client.callTool({ name: 'test_tool_with_logging', arguments: {} });
    expect(seen.logs).toEqual([]);
  });

  test('Extism log_* and WASI stdout lines of a tool that declared logging reach the client too, at its level', async () => {
    const { seen, setup } = recorder();
    const client = await rig.connect(ALL, setup);
    await client.setLoggingLevel('info');
    await client.callTool({ name: 'client_extism_log', arguments: {} });
    expect(seen.logs.map((l) => [l.level, l.data])).toEqual([
      ['info', 'extism info line'],
      ['warning', 'extism warn line'],
      ['info', 'wasi stdout line'],
    ]);
  });

  // Progress is recorded as it arrives (the SDK's onprogress drops a notification that shares a
  // read with the answer; the server spaces them, but a starved client could still merge them).
  const progressOf = (c: Client): ProgressNotification['params'][] => {
    const seen: ProgressNotification['params'][] = [];
    c.setNotificationHandler(ProgressNotificationSchema, (n) => {
      seen.push(n.params);
    });
    return seen;
  };

  test("a tool's progress goes out on the call's own token, increasing, and toolgate adds none of its own", async () => {
    const client = await rig.connect(ALL, () => {});
    const seen = progressOf(client);
    const result = await client.request(
      {
        method: 'tools/call',
        params: { name: 'test_tool_with_progress', arguments: {}, _meta: { progressToken: 'p-1' } },
      },
      CallToolResultSchema,
    );
    expect(result.isError).toBe(false);
    expect(seen.map((p) => [p.progressToken, p.progress, p.total])).toEqual([
      ['p-1', 0, 100],
      ['p-1', 50, 100],
      ['p-1', 100, 100],
    ]);
  });

  test('progress that does not increase is not sent (the tool is told)', async () => {
    const client = await rig.connect(ALL, () => {});
    const seen = progressOf(client);
    const result = await client.request(
      { method: 'tools/call', params: { name: 'client_progress_back', arguments: {}, _meta: { progressToken: 7 } } },
      CallToolResultSchema,
    );
    expect(textOf(result)).toBe('"101"');
    expect(seen.map((p) => [p.progress, p.message])).toEqual([
      [10, 'ten'],
      [20, undefined],
    ]);
  });

  test("a tool's sampling request reaches the client and the client's answer reaches the tool", async () => {
    const { seen, setup } = recorder();
    const client = await rig.connect(ALL, setup);
    const result = await client.callTool({ name: 'test_sampling', arguments: { prompt: 'Say hi "politely"' } });
    expect(textOf(result)).toBe('LLM response: the model says hi');
    expect(seen.samples).toEqual([
      { messages: [{ role: 'user', content: { type: 'text', text: 'Say hi "politely"' } }], maxTokens: 100 },
    ]);
  });

  test("a tool's elicitation reaches the client's user and the answer reaches the tool", async () => {
    const { seen, setup } = recorder();
    const client = await rig.connect(ALL, setup);
    const result = await client.callTool({ name: 'test_elicitation', arguments: { message: 'Who are you?' } });
    expect(JSON.parse(textOf(result).replace('User response: ', ''))).toEqual({
      action: 'accept',
      content: { username: 'ada', email: 'ada@example.com' },
    });
    expect(seen.elicits[0]?.message).toBe('Who are you?');
  });

  test('a client that did not declare sampling: the tool is told UNAVAILABLE and its call fails cleanly', async () => {
    const { seen, setup } = recorder({});
    const client = await rig.connect({}, setup);
    const result = await client.callTool({ name: 'test_sampling', arguments: { prompt: 'x' } });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toContain('UNAVAILABLE: the client did not declare the sampling capability');
    expect(seen.samples).toEqual([]);
  });

  test("a tool's roots request goes out as roots/list with no params (its inputKey stays home) and the client's roots reach the tool", async () => {
    const { seen, setup } = recorder();
    const client = await rig.connect(ALL, setup);
    const result = await client.callTool({ name: 'test_input_required_result_list_roots', arguments: {} });
    expect(result.isError).toBe(false);
    expect(JSON.parse(textOf(result).replace('Roots: ', ''))).toEqual({ roots: ROOTS });
    expect(seen.roots).toEqual([undefined]);
  });

  test('a client that did not declare roots: the tool is told UNAVAILABLE and the client is never asked', async () => {
    const caps: ClientCapabilities = { sampling: {}, elicitation: {} };
    const { seen, setup } = recorder(caps);
    const client = await rig.connect(caps, setup);
    const result = await client.callTool({ name: 'test_input_required_result_list_roots', arguments: {} });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toContain('UNAVAILABLE: the client did not declare the roots capability');
    const raw = answerOf(await client.callTool({ name: 'client_roots_input', arguments: { params: '{}' } }));
    expect(raw).toEqual({ error: { code: 'UNAVAILABLE', message: 'the client did not declare the roots capability' } });
    expect(seen.roots).toEqual([]);
  });

  test('roots params other than an optional inputKey string are INVALID_REQUEST and never reach the client', async () => {
    const { seen, setup } = recorder();
    const client = await rig.connect(ALL, setup);
    const roots = async (params: string): Promise<unknown> =>
      answerOf(await client.callTool({ name: 'client_roots_input', arguments: { params } }));
    expect(await roots('{"cursor":"x"}')).toEqual({
      error: { code: 'INVALID_REQUEST', message: 'roots params: only an inputKey string is allowed (got "cursor")' },
    });
    expect(await roots('{"inputKey":7}')).toEqual({
      error: { code: 'INVALID_REQUEST', message: 'roots params: only an inputKey string is allowed (got "inputKey")' },
    });
    expect(await roots('[]')).toEqual({
      error: { code: 'INVALID_REQUEST', message: 'roots params must be a JSON object' },
    });
    expect(seen.roots).toEqual([]);
    expect(await roots('{}')).toEqual({ roots: ROOTS });
    expect(await roots('{"inputKey":"where"}')).toEqual({ roots: ROOTS });
    expect(seen.roots).toEqual([undefined, undefined]);
  });

  test('a 2025-11-25 session never sends an inputKey: elicitation and sampling go out without it', async () => {
    const { seen, setup } = recorder();
    seen.elicitAnswer = { action: 'accept', content: { name: 'Ada' } };
    const client = await rig.connect(ALL, setup);
    const hello = await client.callTool({ name: 'test_input_required_result_elicitation', arguments: {} });
    expect(textOf(hello)).toBe('Hello, Ada!');
    expect(seen.elicits[0]).toEqual({
      message: 'What is your name?',
      requestedSchema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] },
    });
    const sampled = await client.callTool({ name: 'test_input_required_result_sampling', arguments: {} });
    expect(textOf(sampled)).toBe('Sampling result: the model says hi');
    expect(seen.samples).toEqual([
      {
        messages: [{ role: 'user', content: { type: 'text', text: 'What is the capital of France?' } }],
        maxTokens: 100,
      },
    ]);
  });

  test('all three questions of one call (elicitation, sampling, roots) reach the client and their answers reach the tool', async () => {
    const { seen, setup } = recorder();
    seen.elicitAnswer = { action: 'accept', content: { name: 'Ada' } };
    const client = await rig.connect(ALL, setup);
    const result = await client.callTool({ name: 'test_input_required_result_multiple_inputs', arguments: {} });
    expect(textOf(result)).toBe('name=Ada; sample=the model says hi; roots=1 root(s)');
    expect([seen.elicits.length, seen.samples.length, seen.roots.length]).toEqual([1, 1, 1]);
  });

  test('a client without elicitation: the capabilities tool hears UNAVAILABLE and asks the model instead', async () => {
    const caps: ClientCapabilities = { sampling: {} };
    const { seen, setup } = recorder(caps);
    const client = await rig.connect(caps, setup);
    const result = await client.callTool({ name: 'test_input_required_result_capabilities', arguments: {} });
    expect(textOf(result)).toBe('Sampling fallback: the model says hi');
    expect(seen.samples).toHaveLength(1);
    const missing = await client.callTool({ name: 'test_missing_capability', arguments: {} });
    expect(missing.isError).toBe(false);
    expect(textOf(missing)).toBe('the model says hi');
    const none = await rig.connect({}, () => {});
    const refused = await none.callTool({ name: 'test_missing_capability', arguments: {} });
    expect(refused.isError).toBe(true);
    expect(textOf(refused)).toContain('UNAVAILABLE: the client did not declare the sampling capability');
  });

  test('a call may make at most 16 elicitation, sampling and roots requests; the rest never reach the client', async () => {
    const { seen, setup } = recorder();
    const client = await rig.connect(ALL, setup);
    const result = await client.callTool({ name: 'client_many_samples', arguments: {} });
    expect(JSON.parse(textOf(result))).toEqual({ answered: 16, capped: 4 });
    expect(seen.samples).toHaveLength(16);
  });

  test("a log flood stops at the call's log budget", async () => {
    const { seen, setup } = recorder();
    const client = await rig.connect(ALL, setup);
    const result = await client.callTool({ name: 'client_log_flood', arguments: {} });
    expect(Number(textOf(result))).toBe(256);
    expect(seen.logs).toHaveLength(256);
  });

  test('a log level outside 0-7 ends the call as a TOOL_ERROR naming the rule', async () => {
    const client = await rig.connect(ALL, () => {});
    const result = await client.callTool({ name: 'client_bad_level', arguments: {} });
    expect(errorCode(result)).toBe('TOOL_ERROR');
    expect(textOf(result)).toContain('level 9 is not 0 (debug) to 7 (emergency)');
  });

  test('URL-mode elicitation and params that are not JSON are INVALID_REQUEST and never reach the client', async () => {
    const { seen, setup } = recorder();
    const client = await rig.connect(ALL, setup);
    const url = answerOf(await client.callTool({ name: 'client_elicit_url', arguments: {} }));
    expect(url).toEqual({
      error: {
        code: 'INVALID_REQUEST',
        message: 'elicitation params.mode: only "form" is allowed for tools (got "url")',
      },
    });
    const bad = answerOf(await client.callTool({ name: 'client_bad_params', arguments: {} }));
    expect(bad).toEqual({ error: { code: 'INVALID_REQUEST', message: 'sampling params must be a JSON object' } });
    expect(seen.elicits).toEqual([]);
    expect(seen.samples).toEqual([]);
  });

  test("an elicitation the client never answers ends at the call's deadline (TIMEOUT) and the client's request is cancelled", async () => {
    const { seen, setup } = recorder();
    seen.holdElicit = true;
    const client = await rig.connect(ALL, setup);
    const result = await client.callTool({ name: 'client_elicit_wait', arguments: {} });
    expect(errorCode(result)).toBe('TIMEOUT');
    const signal = seen.elicitSignals[0];
    expect(signal).toBeDefined();
    await waitFor('the elicitation to be cancelled', () => (signal?.aborted === true ? true : undefined));
  });

  test('cancelling the call during an elicitation cancels the request to the client; the tool answers later calls', async () => {
    const { seen, setup } = recorder();
    seen.holdElicit = true;
    const client = await rig.connect(ALL, setup);
    const controller = new AbortController();
    const pending = client.callTool({ name: 'client_elicit_wait', arguments: {} }, undefined, {
      signal: controller.signal,
    });
    await waitFor('the elicitation request', () => seen.elicitSignals[0]);
    controller.abort();
    await expect(pending).rejects.toThrow();
    await waitFor('the elicitation to be cancelled', () =>
      seen.elicitSignals[0]?.aborted === true ? true : undefined,
    );
    seen.holdElicit = false;
    const again = await client.callTool({ name: 'client_elicit_wait', arguments: {} });
    expect(answerOf(again)).toEqual({ action: 'accept', content: { username: 'ada', email: 'ada@example.com' } });
  });
});

describe('policy in front of what a tool asks its client', () => {
  test("a client-requests policy denies a tool's sampling: the client is never asked and the tool gets DENIED", async () => {
    const dir = await tempDir();
    try {
      await mkdir(join(dir.path, 'set'));
      await writeFile(
        join(dir.path, 'set/p.yaml'),
        'entries:\n  - id: no-sampling\n    use: client-requests\n    with: { deny: [sampling], reason: the model budget is not for tools }\n',
      );
      const { seen, setup } = recorder();
      const s = await startStdio(['--manifests', CONFORMANCE, '--policies', join(dir.path, 'set'), '--no-watch'], {
        capabilities: ALL,
        setup,
      });
      try {
        const result = await s.client.callTool({ name: 'test_sampling', arguments: { prompt: 'spend tokens' } });
        expect(result.isError).toBe(true);
        expect(textOf(result)).toBe(
          'DENIED: sampling request denied by policy: the model budget is not for tools (policy "no-sampling")',
        );
        expect(seen.samples).toEqual([]);
        // elicitation is not covered by this entry
        const asked = await s.client.callTool({ name: 'test_elicitation', arguments: { message: 'ok?' } });
        expect(asked.isError).toBe(false);
        expect(seen.elicits).toHaveLength(1);
      } finally {
        await s.close();
      }
    } finally {
      await dir.remove();
    }
  });

  test('client-requests max_tokens denies a sampling request that asks for more; one within it goes through', async () => {
    const dir = await tempDir();
    try {
      await writeFile(
        join(dir.path, 'p.yaml'),
        'entries:\n  - id: small-samples\n    use: client-requests\n    with: { max_tokens: 50 }\n',
      );
      const { seen, setup } = recorder();
      const s = await startStdio(
        ['--manifests', CONFORMANCE, '--manifests', KIT, '--policies', dir.path, '--no-watch'],
        { capabilities: ALL, setup },
      );
      try {
        const big = await s.client.callTool({ name: 'test_sampling', arguments: { prompt: 'p' } });
        expect(textOf(big)).toContain('a sampling request may ask for at most 50 tokens (asked 100)');
        const small = answerOf(await s.client.callTool({ name: 'client_sample_once', arguments: {} })) as {
          model?: string;
        };
        expect(small.model).toBe('test-model');
        expect(seen.samples).toHaveLength(1);
      } finally {
        await s.close();
      }
    } finally {
      await dir.remove();
    }
  });
});
