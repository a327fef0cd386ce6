// A JavaScript tool's first call (docs/decisions.md, "JavaScript tools: the first call and the warm
// calls"): its engine, a 12 MB core module, starts loading when its manifest is synced, while the
// server is still starting, instead of after the first tools/list with every other tool's warm-up
// (or, for a client that calls right after listing, inside that first call).
import { createHash } from 'node:crypto';
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { pino } from 'pino';
import { afterEach, expect, test } from 'vitest';
import { openCache, openCacheFolder } from '../../host/src/cache-files/index.js';
import { createPluginHost } from '../../host/src/plugin/index.js';
import { usePreparedModuleCache } from '../../host/src/sandbox/index.js';
import { forgetCompiledModules } from '../../host/src/sandbox/module/cache.js';
import { ManifestTools } from '../../host/src/server/index.js';
import { ROOT, tempDir, waitFor } from './helpers.js';

const JS = join(ROOT, 'test/fixtures/build/js_hostile.wasm');
const RUST = join(ROOT, 'test/fixtures/build/js_echo_twin.wasm');

function manifest(name: string, module: string): string {
  return [
    'apiVersion: toolgate/v1',
    `name: ${name}`,
    'version: 0.1.0',
    'description: Echoes its text.',
    `module: ${module}`,
    'parameters:',
    '  mode: { type: string, required: true }',
    '  text: { type: string }',
    'output: { schema: { type: object } }',
    'capabilities: { timeout_ms: 5000, memory: { max_pages: 512 } }',
    '',
  ].join('\n');
}

/** The source digest in each prepared-module entry's header (magic line, seal line, header line). */
async function preparedSources(folder: string): Promise<string[]> {
  const names = (await readdir(folder).catch(() => [])).filter((f) => f.endsWith('.bin'));
  const out: string[] = [];
  for (const name of names) {
    const lines = (await readFile(join(folder, name))).subarray(0, 4096).toString('latin1').split('\n');
    out.push((JSON.parse(lines[2] ?? '{}') as { source: string }).source);
  }
  return out.sort();
}

afterEach(() => {
  usePreparedModuleCache(undefined);
  forgetCompiledModules();
});

test("a JavaScript tool's engine is loaded as soon as its manifest is synced, before any listing; a Rust tool's module still waits for the first listing", async () => {
  const dir = await tempDir();
  const host = createPluginHost();
  let tools: ManifestTools | undefined;
  try {
    const manifests = join(dir.path, 'manifests');
    await mkdir(manifests);
    await writeFile(
      join(manifests, 'js_echo.yaml'),
      manifest('js_echo', `{ path: ${JSON.stringify(JS)}, abi: component }`),
    );
    await writeFile(
      join(manifests, 'rs_echo.yaml'),
      manifest('rs_echo', `{ path: ${JSON.stringify(RUST)}, entry: call }`),
    );
    const cache = await openCache(join(dir.path, 'cache'), (m) => {
      throw new Error(m);
    });
    usePreparedModuleCache(cache === undefined ? undefined : await openCacheFolder(cache, 'prepared'));
    forgetCompiledModules();
    tools = new ManifestTools({
      dirs: [manifests],
      ctx: host.root,
      logger: pino({ level: 'silent' }),
      compile: 'background',
      // the first tools/list never comes here: only a load started at sync can fill the cache
      backgroundAfter: new Promise(() => {}),
    });
    await tools.sync();
    const jsDigest = createHash('sha256')
      .update(await readFile(JS))
      .digest('hex');
    const folder = join(dir.path, 'cache', 'prepared');
    const seen = await waitFor(
      'the component prepared',
      async () => {
        const s = await preparedSources(folder);
        return s.length > 0 ? s : undefined;
      },
      60_000,
    );
    expect(seen).toEqual([jsDigest]);
    await new Promise((r) => setTimeout(r, 300));
    expect(await preparedSources(folder)).toEqual([jsDigest]);
    // and the tool answers from what was loaded
    const out = await host.pipeline.call('js_echo', { mode: 'echo', text: 'early' });
    expect(out.error).toBeUndefined();
    expect(out.structuredContent).toEqual({ echo: 'early' });
  } finally {
    await tools?.close();
    await host.dispose();
    await dir.remove();
  }
}, 90_000);

test("a JavaScript tool's first instance is started after sync, before any call; a Rust tool starts none until called", async () => {
  const dir = await tempDir();
  const host = createPluginHost();
  let tools: ManifestTools | undefined;
  try {
    const manifests = join(dir.path, 'manifests');
    await mkdir(manifests);
    await writeFile(
      join(manifests, 'js_echo.yaml'),
      manifest('js_echo', `{ path: ${JSON.stringify(JS)}, abi: component }`),
    );
    await writeFile(
      join(manifests, 'rs_echo.yaml'),
      manifest('rs_echo', `{ path: ${JSON.stringify(RUST)}, entry: call }`),
    );
    forgetCompiledModules();
    tools = new ManifestTools({
      dirs: [manifests],
      ctx: host.root,
      logger: pino({ level: 'silent' }),
      compile: 'background',
      backgroundAfter: Promise.resolve(),
    });
    await tools.sync();
    const instances = (name: string) => host.root.tools.get(name)?.definition.instances?.();
    await waitFor('the JS instance started', async () => (instances('js_echo')?.idle === 1 ? true : undefined), 60_000);
    // the Rust tool's module is compiled by the warm-up (no listing to wait for here), but no
    // instance is started for it
    await new Promise((r) => setTimeout(r, 300));
    expect(instances('rs_echo')).toEqual({ live: 0, busy: 0, idle: 0, queued: 0 });
    expect(instances('js_echo')).toEqual({ live: 1, busy: 0, idle: 1, queued: 0 });
    // the first call runs on that instance: still one, idle again after
    const out = await host.pipeline.call('js_echo', { mode: 'echo', text: 'ready' });
    expect(out.structuredContent).toEqual({ echo: 'ready' });
    expect(instances('js_echo')).toEqual({ live: 1, busy: 0, idle: 1, queued: 0 });
  } finally {
    await tools?.close();
    await host.dispose();
    await dir.remove();
  }
}, 90_000);
