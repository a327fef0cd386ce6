import { createHash } from 'node:crypto';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { runShipped } from '../support/shipped-cli.js';
import { FAKE_WASM, manifestWith, tempDir, writeFileIn, yamlOf } from './helpers.js';

let dir: string;
let cleanup: () => Promise<void>;
beforeEach(async () => {
  ({ dir, cleanup } = await tempDir());
});
afterEach(async () => {
  await cleanup();
});

/** `toolgate inspect` through the shipped command (test/support/shipped-cli.ts), in `cwd`. */
function io(cwd: string) {
  let last = { code: -1, out: '', err: '' };
  return {
    run: async (args: string[]) =>
      (last = await runShipped(['inspect', ...args], { cwd, env: { TOOLGATE_HOME: join(cwd, '.toolgate-home') } })),
    out: () => last.out,
    err: () => last.err,
  };
}

async function fetchTool(folder: string) {
  await writeFileIn(dir, `${folder}/fetch.wasm`, FAKE_WASM);
  await mkdir(join(dir, folder, 'workspace'), { recursive: true });
  return writeFileIn(
    dir,
    `${folder}/fetch_url.yaml`,
    yamlOf(
      manifestWith({
        name: 'fetch_url',
        description: 'Fetch a page from an allowed host.',
        module: { path: 'fetch.wasm', entry: 'run' },
        parameters: { url: { type: 'string', required: true, description: 'Absolute https URL' } },
        output: {
          schema: { type: 'object', properties: { status: { type: 'integer' } } },
          render: { template: 'status {{status}}' },
        },
        capabilities: {
          allowed_hosts: ['docs.example.com'],
          allowed_paths: { '/data': { host: './workspace', mode: 'ro' } },
          timeout_ms: 5000,
          secrets: ['GITHUB_TOKEN'],
        },
        annotations: { title: 'Fetch URL', readOnlyHint: true, openWorldHint: true },
      }),
    ),
  );
}

describe('toolgate inspect', () => {
  test('shows description, input schema, output, annotations, module and capabilities in words', async () => {
    const file = await fetchTool('manifests');
    const t = io(dir); // default folder: ./manifests under the working directory
    expect((await t.run(['fetch_url'])).code).toBe(0);
    const text = t.out();
    expect(text).toContain('fetch_url 1.0.0 — Fetch URL');
    expect(text).toContain('Fetch a page from an allowed host.');
    expect(text).toContain(`manifest: ${file}`);
    expect(text).toContain(
      `sha256: ${createHash('sha256').update(FAKE_WASM).digest('hex')} (not pinned by the manifest)`,
    );
    expect(text).toContain('entry:  run');
    expect(text).toContain('"required": [\n    "url"\n  ]'.replace(/\n/g, '\n  '));
    expect(text).toContain('render:   template "status {{status}}"');
    expect(text).toContain('readOnlyHint: true');
    expect(text).toContain('  - may connect to docs.example.com (https, port 443; http, port 80)');
    expect(text).toContain('  - may read /data (host ./workspace)');
    expect(text).toContain('  - each call may run up to 5 s');
    expect(text).toContain('  - receives secret GITHUB_TOKEN');
    expect(t.err()).toBe('');
  });

  test('--json prints one JSON object with the compiled input schema and the capability words', async () => {
    await fetchTool('m');
    const t = io(dir);
    expect((await t.run(['fetch_url', '--manifests', 'm', '--json'])).code).toBe(0);
    const report = JSON.parse(t.out()) as Record<string, unknown>;
    expect(report['name']).toBe('fetch_url');
    expect(report['inputSchema']).toMatchObject({
      type: 'object',
      properties: { url: { type: 'string' } },
      required: ['url'],
    });
    expect(report['capabilityDescription']).toContain('receives secret GITHUB_TOKEN');
    expect(report['module']).toMatchObject({ path: join(dir, 'm', 'fetch.wasm'), entry: 'run', pinned: false });
  });

  test('an unknown tool exits 2 and says where it looked', async () => {
    await fetchTool('m');
    const t = io(dir);
    expect((await t.run(['nope', '--manifests', 'm'])).code).toBe(2);
    expect(t.err()).toContain('no tool named "nope"');
    expect(t.err()).toContain(join(dir, 'm'));
  });

  test('a manifest that fails to load exits 2 and names the file, key path and rule', async () => {
    await fetchTool('m');
    const bad = await writeFileIn(
      dir,
      'm/zz.yaml',
      yamlOf(manifestWith({ name: 'broken', capabilities: { memory: { max_pages: 70000 } } })),
    );
    const t = io(dir);
    expect((await t.run(['fetch_url', '--manifests', 'm'])).code).toBe(2);
    expect(t.err()).toContain(`${bad}: capabilities.memory.max_pages: must be <= 65536`);
    expect(t.out()).toContain('fetch_url 1.0.0'); // the healthy tool is still shown
  });

  test('a manifest folder given with --manifests must exist', async () => {
    const t = io(dir);
    expect((await t.run(['x', '--manifests', 'missing'])).code).toBe(2);
    expect(t.err()).toContain(`--manifests missing: no such file or directory: ${join(dir, 'missing')}`);
  });

  test('usage errors exit 2 with one line and a pointer to the help', async () => {
    const none = io(dir);
    expect((await none.run([])).code).toBe(2);
    expect(none.err()).toContain("Run 'toolgate inspect --help' for usage.");
    const bad = io(dir);
    expect((await bad.run(['x', '--frobnicate'])).code).toBe(2);
    expect(bad.err()).toContain('unknown option --frobnicate');
    const help = io(dir);
    expect((await help.run(['--help'])).code).toBe(0);
    expect(help.out()).toContain('Usage: toolgate inspect');
  });
});
