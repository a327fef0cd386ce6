// A hostile manifest dropped into a folder the real `serve` watches (issue 11, hole 6): a module
// path naming /dev/zero or a FIFO is refused at once and logged; the server keeps answering.
import { execFileSync } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, expect, test } from 'vitest';
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { ROOT, startHttp, tempDir, waitFor, type HttpProcess } from './helpers.js';

const WASM = join(ROOT, 'test/fixtures/build/server_spin.wasm');

function manifest(name: string, modulePath: string): string {
  return [
    'apiVersion: toolgate/v1',
    `name: ${name}`,
    'version: 0.1.0',
    'description: A tool whose module path is chosen by the test.',
    `module: { path: ${JSON.stringify(modulePath)}, entry: echo }`,
    'parameters:',
    '  text: { type: string, required: true }',
    'output: { schema: { type: object } }',
    '',
  ].join('\n');
}

const cleanup: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const c of cleanup.splice(0).reverse()) await c();
});

test('a manifest naming /dev/zero or a FIFO, dropped into a watched folder, is refused and logged while serve stays responsive', async () => {
  const dir = await tempDir();
  cleanup.push(() => dir.remove());
  const h: HttpProcess = await startHttp(['--http', '127.0.0.1:0', '--manifests', dir.path]);
  cleanup.push(() => h.stop());
  let changes = 0;
  const client = await h.connect({
    setup: (c) => c.setNotificationHandler(ToolListChangedNotificationSchema, () => void (changes += 1)),
  });

  execFileSync('mkfifo', [join(dir.path, 'pipe.wasm')]);
  await writeFile(join(dir.path, 'zero.yaml'), manifest('zero_tool', '/dev/zero'));
  await writeFile(join(dir.path, 'fifo.yaml'), manifest('fifo_tool', 'pipe.wasm'));
  await waitFor('both refusals logged', () =>
    h.stderr().includes('/dev/zero must be a regular file (it is a character device)') &&
    h.stderr().includes('must be a regular file (it is a FIFO)')
      ? true
      : undefined,
  );
  expect(h.stderr()).toContain(`${join(dir.path, 'zero.yaml')}: module.path: module file /dev/zero`);

  // Still answering: health, and a good tool added afterwards loads and runs.
  expect((await fetch(`${h.url}/healthz`)).status).toBe(200);
  await writeFile(join(dir.path, 'good.yaml'), manifest('good_tool', WASM));
  await waitFor('the good tool listed', async () =>
    (await client.listTools()).tools.some((t) => t.name === 'good_tool') ? true : undefined,
  );
  const names = (await client.listTools()).tools.map((t) => t.name);
  expect(names).not.toContain('zero_tool');
  expect(names).not.toContain('fifo_tool');
  expect((await client.callTool({ name: 'good_tool', arguments: { text: 'alive' } })).structuredContent).toEqual({
    text: 'alive',
  });
  // list_changed is debounced and comes on the session's own stream: it may land after the list
  // that already shows the tool (a CI run read 0 here), so it is waited for, not sampled
  await waitFor('a tools/list_changed notification', () => (changes >= 1 ? true : undefined));
});
