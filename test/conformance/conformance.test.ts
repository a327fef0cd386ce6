// The official MCP conformance suite (@modelcontextprotocol/conformance, pinned in this folder's
// package.json with the Node 22 it needs) against `serve --http` with manifests/conformance, whose
// tools are the suite's reference tools built as WebAssembly (pdk-examples/conformance).
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { ROOT, startHttp, type HttpProcess } from '../server/helpers.js';

const HERE = join(ROOT, 'test/conformance');
const NODE22 = join(HERE, 'node_modules/.bin/node');
const SUITE = join(HERE, 'node_modules/@modelcontextprotocol/conformance/dist/index.js');

/** The server scenarios that apply to a tools server and pass; each must keep passing. */
export const PASSING = [
  'server-initialize',
  'ping',
  'tools-list',
  'logging-set-level',
  'tools-call-simple-text',
  'tools-call-image',
  'tools-call-audio',
  'tools-call-embedded-resource',
  'tools-call-mixed-content',
  'tools-call-error',
  'json-schema-2020-12',
  'server-sse-multiple-streams',
  'dns-rebinding-protection',
] as const;

function runScenario(url: string, scenario: string): Promise<{ code: number | null; out: string }> {
  return new Promise((resolve) => {
    const proc = spawn(NODE22, [SUITE, 'server', '--url', url, '--scenario', scenario], { cwd: HERE, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    proc.stdout.on('data', (d: Buffer) => (out += d.toString()));
    proc.stderr.on('data', (d: Buffer) => (out += d.toString()));
    const t = setTimeout(() => proc.kill('SIGKILL'), 60_000);
    proc.once('exit', (code) => {
      clearTimeout(t);
      resolve({ code, out });
    });
  });
}

describe('MCP conformance suite, server scenarios, against serve --http --manifests manifests/conformance', () => {
  let server: HttpProcess;
  beforeAll(async () => {
    if (!existsSync(NODE22) || !existsSync(SUITE)) throw new Error('run `make conformance-deps` (npm ci in test/conformance) first');
    if (!existsSync(join(ROOT, 'pdk-examples/conformance/build/conformance.wasm'))) throw new Error('run `make examples` first');
    server = await startHttp(['--http', '127.0.0.1:0', '--manifests', join(ROOT, 'manifests/conformance')]);
  });
  afterAll(async () => {
    await server?.stop();
  });

  test.each(PASSING)('scenario %s passes', async (scenario) => {
    const r = await runScenario(`${server.url}/mcp`, scenario);
    expect(r.out).toMatch(/Passed: (\d+)\/\1, 0 failed/);
    expect(r.code, r.out).toBe(0);
  }, 90_000);
});
