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

/**
 * Every server scenario of the suite that applies to a tools server, each of which must pass. Not
 * listed, because toolgate serves tools only (no completions, resources or prompts):
 * completion-complete, resources-*, prompts-*. server-sse-polling passes with warnings (no SSE
 * priming event or resumption: toolgate keeps no event store; see docs/mcp.md).
 */
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
  'tools-call-with-logging',
  'tools-call-error',
  'tools-call-with-progress',
  'tools-call-sampling',
  'tools-call-elicitation',
  'json-schema-2020-12',
  'elicitation-sep1034-defaults',
  'elicitation-sep1330-enums',
  'server-sse-polling',
  'server-sse-multiple-streams',
  'dns-rebinding-protection',
] as const;

/** Server scenarios for what toolgate does not serve; everything else the suite lists must pass. */
export const NOT_APPLICABLE: Record<string, string> = {
  'completion-complete': 'toolgate serves tools only (no completion capability)',
  'resources-list': 'no resources',
  'resources-read-text': 'no resources',
  'resources-read-binary': 'no resources',
  'resources-templates-read': 'no resources',
  'resources-subscribe': 'no resources',
  'resources-unsubscribe': 'no resources',
  'prompts-list': 'no prompts',
  'prompts-get-simple': 'no prompts',
  'prompts-get-with-args': 'no prompts',
  'prompts-get-embedded-resource': 'no prompts',
  'prompts-get-with-image': 'no prompts',
};

/** The server scenarios the pinned suite lists (`list`, the "Server scenarios" section). */
function listedServerScenarios(): Promise<string[]> {
  return new Promise((resolve, reject) => {
    const proc = spawn(NODE22, [SUITE, 'list'], { cwd: HERE, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    proc.stdout.on('data', (d: Buffer) => (out += d.toString()));
    proc.once('error', reject);
    proc.once('exit', () => {
      const section = out.split(/Client scenarios/)[0] ?? '';
      resolve([...section.matchAll(/^\s+- (\S+)/gm)].map((m) => m[1] ?? ''));
    });
  });
}

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
    if (!['conformance', 'logging', 'progress', 'sampling', 'elicitation'].every((m) => existsSync(join(ROOT, `pdk-examples/conformance/build/${m}.wasm`)))) throw new Error('run `make examples` first');
    server = await startHttp(['--http', '127.0.0.1:0', '--manifests', join(ROOT, 'manifests/conformance')]);
  });
  afterAll(async () => {
    await server?.stop();
  });

  test('every server scenario the suite lists is run here or named as not applicable, with the reason', async () => {
    const listed = await listedServerScenarios();
    expect(listed.length).toBeGreaterThan(20);
    const known = new Set<string>([...PASSING, ...Object.keys(NOT_APPLICABLE)]);
    expect(listed.filter((s) => !known.has(s))).toEqual([]);
    expect([...known].filter((s) => !listed.includes(s))).toEqual([]);
  }, 60_000);

  test.each(PASSING)('scenario %s passes', async (scenario) => {
    const r = await runScenario(`${server.url}/mcp`, scenario);
    expect(r.out).toMatch(/Passed: (\d+)\/\1, 0 failed/);
    expect(r.code, r.out).toBe(0);
  }, 90_000);
});
