// `toolgate schema` and the export shapes it prints.
import { describe, expect, test } from 'vitest';
import { defineTool } from '../../host/src/tool/index.js';
import { exportTools, EXPORT_NAME_RE, sanitizeName } from '../../host/src/server/index.js';
import { FIXTURE_MANIFESTS, runToolgate } from './helpers.js';

describe('toolgate schema', () => {
  test('--format openai prints {type:"function", function:{name, description, parameters}} for every tool', async () => {
    const r = await runToolgate(['schema', '--format', 'openai', '--manifests', FIXTURE_MANIFESTS]);
    expect(r.code).toBe(0);
    const tools = JSON.parse(r.stdout) as {
      type: string;
      function: { name: string; description: string; parameters: { type: string } };
    }[];
    const echo = tools.find((t) => t.function.name === 'wasm_echo');
    expect(echo).toEqual({
      type: 'function',
      function: {
        name: 'wasm_echo',
        description: 'Returns its arguments unchanged (a WebAssembly echo for the server tests).',
        parameters: expect.objectContaining({ type: 'object', required: ['text'] }) as unknown,
      },
    });
    for (const t of tools) expect(t.function.name).toMatch(EXPORT_NAME_RE);
  });

  test('--format anthropic prints {name, description, input_schema}; --format mcp the tools/list shape', async () => {
    const a = JSON.parse(
      (await runToolgate(['schema', '--format', 'anthropic', '--manifests', FIXTURE_MANIFESTS])).stdout,
    ) as Record<string, unknown>[];
    expect(Object.keys(a.find((t) => t.name === 'wasm_echo') ?? {}).sort()).toEqual([
      'description',
      'input_schema',
      'name',
    ]);
    const m = JSON.parse(
      (await runToolgate(['schema', '--format', 'mcp', '--manifests', FIXTURE_MANIFESTS])).stdout,
    ) as { tools: Record<string, unknown>[] };
    expect(m.tools.find((t) => t.name === 'wasm_echo')).toMatchObject({
      title: 'WASM echo',
      outputSchema: { type: 'object' },
      annotations: { readOnlyHint: true },
    });
  });

  test('an unknown --format is a usage error (exit 2) naming the choices', async () => {
    const r = await runToolgate(['schema', '--format', 'xml']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('mcp, openai, openai-responses, anthropic');
  });

  test('schema without --format defaults to mcp (the same document as --format mcp)', async () => {
    const plain = await runToolgate(['schema', '--manifests', FIXTURE_MANIFESTS]);
    expect(plain.code, plain.stderr).toBe(0);
    const mcp = await runToolgate(['schema', '--format', 'mcp', '--manifests', FIXTURE_MANIFESTS]);
    expect(plain.stdout).toBe(mcp.stdout);
    expect((JSON.parse(plain.stdout) as { tools: unknown[] }).tools.length).toBeGreaterThan(0);
  });
});

describe('export rules', () => {
  test('names that break the OpenAI/Anthropic rule are rewritten to fit, and never collide', () => {
    const used = new Set<string>();
    expect(sanitizeName('read.file', used)).toBe('read_file');
    expect(sanitizeName('read_file', used)).toBe('read_file_2');
    const long = sanitizeName('x'.repeat(80), used);
    expect(long).toMatch(EXPORT_NAME_RE);
    expect(sanitizeName('x'.repeat(80), used)).not.toBe(long);
    expect(sanitizeName('', used)).toBe('tool');
  });

  test('outputSchema is exported for MCP only when the output is an object, and host-only fields never are', () => {
    const tools = [
      defineTool({
        name: 'obj',
        description: 'o',
        output: { schema: { type: 'object' } },
        execute: () => ({}),
        capabilities: { allowedHosts: ['secret.example'], allowedPaths: {}, secrets: ['K'] },
      }),
      defineTool({ name: 'str', description: 's', output: { schema: { type: 'string' } }, execute: () => 's' }),
    ];
    const mcp = exportTools(tools, 'mcp') as unknown as { tools: Record<string, unknown>[] };
    expect(mcp.tools[0]).toHaveProperty('outputSchema');
    expect(mcp.tools[1]).not.toHaveProperty('outputSchema');
    for (const format of ['mcp', 'openai', 'anthropic'] as const)
      expect(JSON.stringify(exportTools(tools, format))).not.toContain('secret.example');
  });
});
