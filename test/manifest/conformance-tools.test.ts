// The conformance reference tools (manifests/conformance, modules from pdk-examples/conformance):
// every manifest loads, each module imports exactly the toolgate:mcp functions its manifest
// lists, and a refusal the host gives a request (PENDING included) reaches the tool as
// {"error": {"code", ...}} for it to act on.
import { readdir, readFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { loadManifestFile, toolFromManifest } from '../../host/src/manifest/index.js';
import { CLIENT_IMPORTS, CLIENT_NAMESPACE } from '../../host/src/sandbox/module/host-imports.js';
import {
  ToolFailure,
  type CallClient,
  type ClientAnswer,
  type ClientRequest,
  type ExecIdentity,
  type JsonObject,
  type ToolDefinition,
} from '../../host/src/tool/index.js';

const ROOT = resolve(__dirname, '../..');
const DIR = join(ROOT, 'manifests/conformance');

const opened: ToolDefinition[] = [];
afterAll(async () => {
  await Promise.all(opened.map((t) => t.dispose?.()));
});

async function open(name: string): Promise<ToolDefinition> {
  const t = await toolFromManifest(await loadManifestFile(join(DIR, `${name}.yaml`)));
  opened.push(t);
  return t;
}

/** A client that records every request and answers each with `answer(req)`. */
function client(answer: (req: ClientRequest) => ClientAnswer): CallClient & { asked: ClientRequest[] } {
  const asked: ClientRequest[] = [];
  return {
    asked,
    log: () => Promise.resolve(true),
    progress: () => Promise.resolve(true),
    request: (req) => {
      asked.push(req);
      return Promise.resolve(answer(req));
    },
  };
}

function exec(name: string, c: CallClient): ExecIdentity {
  return { callId: `test-${name}`, name, arguments: {}, signal: AbortSignal.timeout(20_000), client: c };
}

async function failureOf(p: unknown): Promise<ToolFailure> {
  try {
    await p;
  } catch (err) {
    if (err instanceof ToolFailure) return err;
    throw err;
  }
  throw new Error('expected a ToolFailure');
}

const textOf = (value: unknown): string => (value as { content: { text: string }[] }).content[0]?.text ?? '';

const PENDING = (req: ClientRequest): ClientAnswer => ({
  ok: false,
  code: 'PENDING',
  message: `${req.kind} asked in this input round`,
});

/** The MRTR tools of pdk-examples/conformance/src/mrtr.c and diag.c, with the features each declares. */
const NEW_TOOLS: Record<string, string[]> = {
  test_missing_capability: ['sampling'],
  test_streaming_elicitation: ['elicitation'],
  test_logging_tool: ['logging'],
  test_input_required_result_elicitation: ['elicitation'],
  test_input_required_result_sampling: ['sampling'],
  test_input_required_result_list_roots: ['roots'],
  test_input_required_result_request_state: ['elicitation'],
  test_input_required_result_tampered_state: ['elicitation'],
  test_input_required_result_multiple_inputs: ['elicitation', 'sampling', 'roots'],
  test_input_required_result_multi_round: ['elicitation'],
  test_input_required_result_capabilities: ['elicitation', 'sampling'],
};

describe('the conformance reference tools', () => {
  test('every manifest in manifests/conformance loads, and its module imports exactly the toolgate:mcp functions of its capabilities.mcp', async () => {
    const files = (await readdir(DIR)).filter((f) => f.endsWith('.yaml')).sort();
    expect(files.length).toBeGreaterThanOrEqual(13 + Object.keys(NEW_TOOLS).length);
    for (const name of Object.keys(NEW_TOOLS)) expect(files).toContain(`${name}.yaml`);
    for (const file of files) {
      const loaded = await loadManifestFile(join(DIR, file));
      // A hyper-mcp plugin serves many tools (test/manifest/hyper-mcp.test.ts loads those); its imports are checked here too.
      if (loaded.manifest.module.abi !== 'hyper-mcp') opened.push(await toolFromManifest(loaded));
      const declared = [...(loaded.manifest.capabilities.mcp ?? [])].sort();
      const module = new WebAssembly.Module(await readFile(loaded.modulePath));
      const imported = [
        ...new Set(
          WebAssembly.Module.imports(module)
            .filter((i) => i.module === CLIENT_NAMESPACE)
            .map((i) => CLIENT_IMPORTS[i.name as keyof typeof CLIENT_IMPORTS]),
        ),
      ].sort();
      expect(imported, file).toEqual(declared);
      const expected = NEW_TOOLS[loaded.manifest.name];
      if (expected !== undefined) {
        expect(declared, file).toEqual([...expected].sort());
        expect(loaded.manifest.capabilities.memory.max_pages, file).toBe(32);
        expect(loaded.manifest.capabilities.timeout_ms, file).toBe(60000);
        expect(loaded.manifest.output.render, file).toBe('mcp');
      }
    }
  });

  test('a PENDING answer reaches the tool as {"error":{"code":"PENDING"}}; multiple_inputs asks all three questions before it looks at any answer', async () => {
    const t = await open('test_input_required_result_multiple_inputs');
    const c = client(PENDING);
    const err = await failureOf(t.execute({}, exec(t.name, c)));
    expect(err.code).toBe('TOOL_ERROR');
    expect(err.message).toContain('user_name: PENDING: elicitation asked in this input round');
    expect(c.asked.map((r) => [r.kind, r.params['inputKey']])).toEqual([
      ['elicitation', 'user_name'],
      ['sampling', 'greeting'],
      ['roots', 'roots'],
    ]);
    expect(c.asked[2]?.params).toEqual({ inputKey: 'roots' });
  });

  test('multiple_inputs with every answer names the name, the text and the number of roots; the first error is the one named', async () => {
    const t = await open('test_input_required_result_multiple_inputs');
    const answers = (roots: ClientAnswer) =>
      client((req): ClientAnswer => {
        if (req.kind === 'elicitation') return { ok: true, result: { action: 'accept', content: { name: 'Ada' } } };
        if (req.kind === 'sampling')
          return { ok: true, result: { role: 'assistant', content: { type: 'text', text: 'hello' }, model: 'm' } };
        return roots;
      });
    const all = answers({ ok: true, result: { roots: [{ uri: 'file:///a' }, { uri: 'file:///b' }] } as JsonObject });
    expect(textOf(await t.execute({}, exec(t.name, all)))).toBe('name=Ada; sample=hello; roots=2 root(s)');
    const noRoots = answers({
      ok: false,
      code: 'UNAVAILABLE',
      message: 'the client did not declare the roots capability',
    });
    expect((await failureOf(t.execute({}, exec(t.name, noRoots)))).message).toContain(
      'roots: UNAVAILABLE: the client did not declare the roots capability',
    );
  });

  test('input_required_result_elicitation greets an accepted name, reports another action, and returns any refusal as its error', async () => {
    const t = await open('test_input_required_result_elicitation');
    const accept = client(() => ({ ok: true, result: { action: 'accept', content: { name: 'Grace' } } }));
    expect(textOf(await t.execute({}, exec(t.name, accept)))).toBe('Hello, Grace!');
    expect(accept.asked[0]?.params).toMatchObject({ inputKey: 'user_name', message: 'What is your name?' });
    const decline = client(() => ({ ok: true, result: { action: 'decline' } }));
    expect(textOf(await t.execute({}, exec(t.name, decline)))).toBe('No name given (decline)');
    expect((await failureOf(t.execute({}, exec(t.name, client(PENDING))))).message).toContain(
      'PENDING: elicitation asked in this input round',
    );
  });

  test('multi_round asks the colour only once the name is answered, and joins both', async () => {
    const t = await open('test_input_required_result_multi_round');
    const pendingFirst = client(PENDING);
    await failureOf(t.execute({}, exec(t.name, pendingFirst)));
    expect(pendingFirst.asked.map((r) => r.params['inputKey'])).toEqual(['name']);
    const both = client((req) => ({
      ok: true,
      result: {
        action: 'accept',
        content: req.params['inputKey'] === 'name' ? { name: 'Ada' } : { color: 'green' },
      } as JsonObject,
    }));
    expect(textOf(await t.execute({}, exec(t.name, both)))).toBe('Ada likes green');
  });

  test('capabilities falls back to sampling only when elicitation is UNAVAILABLE', async () => {
    const t = await open('test_input_required_result_capabilities');
    const noElicit = client(
      (req): ClientAnswer =>
        req.kind === 'elicitation'
          ? { ok: false, code: 'UNAVAILABLE', message: 'the client did not declare the elicitation capability' }
          : { ok: true, result: { role: 'assistant', content: { type: 'text', text: 'B' }, model: 'm' } },
    );
    expect(textOf(await t.execute({}, exec(t.name, noElicit)))).toBe('Sampling fallback: B');
    expect(noElicit.asked.map((r) => [r.kind, r.params['inputKey']])).toEqual([
      ['elicitation', 'preference'],
      ['sampling', 'fallback_sample'],
    ]);
    const pending = client(PENDING);
    expect((await failureOf(t.execute({}, exec(t.name, pending)))).message).toContain('PENDING');
    expect(pending.asked).toHaveLength(1);
  });

  test('request_state and tampered_state report the confirmation under their own names', async () => {
    const yes = client(() => ({ ok: true, result: { action: 'accept', content: { ok: true } } }));
    const s = await open('test_input_required_result_request_state');
    expect(textOf(await s.execute({}, exec(s.name, yes)))).toBe('state-ok: confirmed=true');
    const tampered = await open('test_input_required_result_tampered_state');
    expect(textOf(await tampered.execute({}, exec(tampered.name, yes)))).toBe('tampered-state tool: confirmed=true');
    expect(yes.asked.map((r) => r.params['inputKey'])).toEqual(['confirm', 'confirm']);
  });
});
