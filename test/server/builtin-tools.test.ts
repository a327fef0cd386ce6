// Agents see exactly the tools they were given (docs/decisions.md): `serve` and `schema` offer the
// manifest and installed tools only; the built-in echo is a `toolgate call` smoke test, served
// only with --builtin-tools. And `serve` says at start which policy set guards it.
import { afterEach, describe, expect, it } from 'vitest';
import { FIXTURE_MANIFESTS, ROOT, runToolgate, startHttp, type HttpProcess } from './helpers.js';

let server: HttpProcess | undefined;
afterEach(async () => {
  await server?.stop();
  server = undefined;
});

async function toolNames(url: string): Promise<string[]> {
  const res = await fetch(`${url}/v1/tools`);
  expect(res.status).toBe(200);
  const body = (await res.json()) as { tools: { name: string }[] };
  return body.tools.map((t) => t.name);
}

describe('serve offers agents only the tools they were given', () => {
  it('without --builtin-tools the built-in echo is neither listed nor callable, over MCP or the HTTP API', async () => {
    server = await startHttp(['--http', '127.0.0.1:0', '--manifests', FIXTURE_MANIFESTS, '--no-watch']);
    const names = await toolNames(server.url);
    expect(names).toContain('wasm_echo');
    expect(names).not.toContain('echo');
    const client = await server.connect();
    expect((await client.listTools()).tools.map((t) => t.name)).not.toContain('echo');
    await expect(client.callTool({ name: 'echo', arguments: { text: 'smuggled' } })).rejects.toThrow(
      /Unknown tool: echo/,
    );
    const api = await fetch(`${server.url}/v1/tools/echo/call`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ arguments: { text: 'smuggled' } }),
    });
    expect(await api.text()).not.toContain('"smuggled"');
  }, 60_000);

  it('--builtin-tools serves the built-in echo too', async () => {
    server = await startHttp([
      '--http',
      '127.0.0.1:0',
      '--manifests',
      FIXTURE_MANIFESTS,
      '--no-watch',
      '--builtin-tools',
    ]);
    expect(await toolNames(server.url)).toEqual(expect.arrayContaining(['echo', 'wasm_echo']));
    const client = await server.connect();
    const r = await client.callTool({ name: 'echo', arguments: { text: 'asked for' } });
    expect(r.isError).toBeFalsy();
    expect(r.structuredContent).toEqual({ text: 'asked for' });
  }, 60_000);

  it('schema exports what serve would serve: no echo unless --builtin-tools', async () => {
    const plain = await runToolgate(['schema', '--format', 'mcp', '--manifests', FIXTURE_MANIFESTS]);
    expect(plain.code, plain.stderr).toBe(0);
    const names = (JSON.parse(plain.stdout) as { tools: { name: string }[] }).tools.map((t) => t.name);
    expect(names).toContain('wasm_echo');
    expect(names).not.toContain('echo');
    const withEcho = await runToolgate([
      'schema',
      '--format',
      'mcp',
      '--manifests',
      FIXTURE_MANIFESTS,
      '--builtin-tools',
    ]);
    expect((JSON.parse(withEcho.stdout) as { tools: { name: string }[] }).tools.map((t) => t.name)).toContain('echo');
  }, 60_000);

  it('toolgate call echo still works as a smoke test', async () => {
    const r = await runToolgate(['call', 'echo', '--args', '{"text":"wired up"}']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe('wired up\n');
  }, 30_000);
});

describe('serve names the policy set in force at start', () => {
  it('one line on stderr naming the set and where it came from', async () => {
    server = await startHttp(['--http', '127.0.0.1:0', '--manifests', FIXTURE_MANIFESTS, '--no-watch']);
    const lines = server
      .stderr()
      .split('\n')
      .filter((l) => l.includes('policy set'));
    expect(lines).toEqual([`toolgate serve: policy set "default" from ./policies: ${ROOT}/policies/default`]);
  }, 60_000);

  it('with --policies none it warns instead, on every start', async () => {
    server = await startHttp([
      '--http',
      '127.0.0.1:0',
      '--manifests',
      FIXTURE_MANIFESTS,
      '--no-watch',
      '--policies',
      'none',
    ]);
    expect(server.stderr()).toContain('WARNING: running with NO policies (--policies none)');
    expect(server.stderr()).toContain('toolgate serve: no policies (--policies none)');
  }, 60_000);
});
