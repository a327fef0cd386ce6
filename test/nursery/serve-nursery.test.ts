// `serve` (the shipped bundle) holds the main isolate's nursery small through start-up and the
// first calls (docs/decisions.md, "The nursery during start-up"): serving the 10 example tools,
// each called once, left it at 32 MiB before; held, it stays at its first size (2 MiB), or one
// doubling when a worker's start races the hold. Without the hold the same run reads 16-32 MiB.
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, describe, expect, test } from 'vitest';
import { SHIPPED_BIN } from '../support/shipped-cli.js';
import { until } from '../support/poll.js';

const ROOT = resolve(import.meta.dirname, '../..');
const PRELOAD = join(import.meta.dirname, 'fixtures/report-young.mjs');
const dir = mkdtempSync(join(tmpdir(), 'tg-nursery-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** One call of each example tool (fetch_url's fails: nothing listens on its allowed host). */
const CALLS: [string, Record<string, unknown>][] = [
  ['convert_units', { value: 1, from: 'km', to: 'mi' }],
  ['csv_to_json', { csv: 'a,b\n1,2\n' }],
  ['encode', { text: 'hello', scheme: 'base64' }],
  ['fetch_url', { url: 'http://127.0.0.1:9/' }],
  ['greet', { name: 'n' }],
  ['grep_files', { pattern: 'sandbox' }],
  ['hash', { text: 'abc' }],
  ['json_query', { json: '{"a":[1,2]}', path: '$.a[0]' }],
  ['markdown_to_text', { markdown: '# T\n\nsome *text*' }],
  ['text_stats', { text: 'one two two' }],
];

describe('serve and the nursery', () => {
  test("after start-up and one call of each example tool the main isolate's nursery is at most one doubling from its first size", async () => {
    const report = join(dir, 'young.json');
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [
        '--import',
        PRELOAD,
        SHIPPED_BIN,
        'serve',
        '--stdio',
        '--no-watch',
        '--manifests',
        join(ROOT, 'manifests'),
        '--policies',
        'none',
      ],
      cwd: dir,
      env: { PATH: process.env['PATH'] ?? '/usr/bin:/bin', TOOLGATE_HOME: join(dir, 'home'), NURSERY_REPORT: report },
      stderr: 'ignore',
    });
    const client = new Client({ name: 'nursery-test', version: '1' });
    await client.connect(transport);
    try {
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name)).toEqual(expect.arrayContaining(CALLS.map(([n]) => n)));
      for (const [name, args] of CALLS) await client.callTool({ name, arguments: args });
      process.kill(transport.pid as number, 'SIGUSR2');
      await until('the nursery report', () => existsSync(report), 5000);
      const { young } = JSON.parse(readFileSync(report, 'utf8')) as { young: number };
      expect(young).toBeGreaterThan(0);
      expect(young).toBeLessThanOrEqual(4);
    } finally {
      await client.close();
    }
  });
});
