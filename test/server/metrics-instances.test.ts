// GET /metrics counts the live sandbox instances behind each WASM tool (issue 5: "live instances").
import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { FIXTURE_MANIFESTS, startHttp, type HttpProcess } from './helpers.js';

function fetchText(url: string, method = 'GET', body?: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      { method, headers: body === undefined ? {} : { 'content-type': 'application/json' } },
      (res) => {
        let text = '';
        res.on('data', (d: Buffer) => (text += d.toString()));
        res.on('end', () => resolve(text));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

describe('live instances in /metrics', () => {
  let h: HttpProcess;
  beforeAll(async () => {
    h = await startHttp(['--http', '127.0.0.1:0', '--manifests', FIXTURE_MANIFESTS, '--policies', 'policies/default']);
  });
  afterAll(async () => {
    await h.stop();
  });

  test('a WASM tool that served a call shows its live instance; a tool never called shows none', async () => {
    const result = JSON.parse(
      await fetchText(`${h.url}/v1/tools/wasm_echo/call`, 'POST', '{"arguments":{"text":"hi"}}'),
    ) as { isError: boolean };
    expect(result.isError).toBe(false);
    const metrics = await fetchText(`${h.url}/metrics`);
    expect(metrics).toContain('# TYPE toolgate_live_instances gauge');
    expect(metrics).toMatch(/^toolgate_live_instances\{tool="wasm_echo"\} [1-9]\d*$/m);
    expect(metrics).toMatch(/^toolgate_live_instances\{tool="wasm_fail"\} 0$/m);
  });
});
