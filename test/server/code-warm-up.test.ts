// The sandbox's code loaded in the idle turns after a stdio client's initialize is answered
// (docs/decisions.md, "First call of a fresh server, warm home"): one step per quiet turn, after
// any running call, and never once the warm-ups stop or the loader closes.
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { pino, type Logger } from 'pino';
import { afterEach, expect, test } from 'vitest';
import { createPluginHost } from '../../host/src/plugin/index.js';
import { forgetCompiledModules } from '../../host/src/sandbox/module/cache.js';
import { ManifestTools } from '../../host/src/server/index.js';
import { ROOT, tempDir, waitFor } from './helpers.js';

const CONVERT = join(ROOT, 'pdk-examples/rust/build/convert_units.wasm');
const STEP_LINE = 'sandbox code loaded ahead of a call';

function manifest(name: string, module: string): string {
  return [
    'apiVersion: toolgate/v1',
    `name: ${name}`,
    'version: 0.1.0',
    'description: A tool of the warm-up test.',
    `module: { path: ${JSON.stringify(module)}, entry: convert_units }`,
    'parameters:',
    '  value: { type: number, required: true }',
    '  from: { type: string, required: true }',
    '  to: { type: string, required: true }',
    'capabilities: { memory: { max_pages: 24 }, timeout_ms: 5000 }',
    '',
  ].join('\n');
}

/** What happened, in order: the loader's debug lines about the code warm-up, and the test's own marks. */
function recorder(): { events: string[]; logger: Logger } {
  const events: string[] = [];
  const logger: Logger = pino(
    { level: 'debug' },
    {
      write(line: string) {
        const rec = JSON.parse(line) as { msg?: string; step?: string };
        if (rec.msg === STEP_LINE) events.push(`step ${rec.step}`);
      },
    },
  );
  return { events, logger };
}

/** A promise and the function that resolves it. */
function gate(): { done: Promise<void>; open: () => void } {
  let open: () => void = () => {};
  const done = new Promise<void>((r) => {
    open = r;
  });
  return { done, open };
}

/** The loader under test: modules compile only after a listing that never comes; the code warm-up waits on `codeAfter`. */
function warmingTools(
  manifests: string,
  ctx: ReturnType<typeof createPluginHost>['root'],
  logger: Logger,
  codeAfter: Promise<void>,
) {
  return new ManifestTools({
    dirs: [manifests],
    ctx,
    logger,
    compile: 'background',
    backgroundAfter: new Promise(() => {}), // no listing ever comes
    codeAfter,
  });
}

async function setUp(files: Record<string, string>) {
  const dir = await tempDir();
  const manifests = join(dir.path, 'manifests');
  await mkdir(manifests);
  for (const [file, text] of Object.entries(files)) await writeFile(join(manifests, file), text);
  forgetCompiledModules();
  return { dir, manifests, host: createPluginHost() };
}

afterEach(() => forgetCompiledModules());

test('after initialize is answered, the sandbox and its calling-thread runner load in two steps, before any listing', async () => {
  const { dir, manifests, host } = await setUp({ 'convert_units.yaml': manifest('convert_units', CONVERT) });
  const { events, logger } = recorder();
  const answered = gate();
  const tools = warmingTools(manifests, host.root, logger, answered.done);
  try {
    await tools.sync();
    await new Promise((r) => setTimeout(r, 200));
    expect(events).toEqual([]); // nothing before the answer
    answered.open();
    await waitFor('both steps', async () => (events.length === 2 ? true : undefined), 20_000);
    expect(events).toEqual(['step sandbox', 'step runner']);
    const out = await host.pipeline.call('convert_units', { value: 1, from: 'km', to: 'mi' });
    expect(out.error).toBeUndefined();
  } finally {
    await tools.close();
    await host.dispose();
    await dir.remove();
  }
}, 60_000);

test('a call that comes while the code warm-up is pending goes first: no step runs until it is answered', async () => {
  const { dir, manifests, host } = await setUp({ 'convert_units.yaml': manifest('convert_units', CONVERT) });
  const { events, logger } = recorder();
  const answered = gate();
  const tools = warmingTools(manifests, host.root, logger, answered.done);
  try {
    await tools.sync();
    const call = host.pipeline.call('convert_units', { value: 1, from: 'km', to: 'mi' }).then((out) => {
      events.push('call answered');
      return out;
    });
    // the answer comes while the call is loading the sandbox itself
    setImmediate(answered.open);
    expect((await call).error).toBeUndefined();
    await waitFor('both steps', async () => (events.length === 3 ? true : undefined), 20_000);
    expect(events).toEqual(['call answered', 'step sandbox', 'step runner']);
  } finally {
    await tools.close();
    await host.dispose();
    await dir.remove();
  }
}, 60_000);

test('the code warm-up starts no step once the warm-ups are stopped (shutdown) or the loader is closed', async () => {
  for (const how of ['stopWarming', 'close'] as const) {
    const { dir, manifests, host } = await setUp({ 'convert_units.yaml': manifest('convert_units', CONVERT) });
    const { events, logger } = recorder();
    const answered = gate();
    const tools = warmingTools(manifests, host.root, logger, answered.done);
    try {
      await tools.sync();
      if (how === 'stopWarming') tools.stopWarming();
      else await tools.close();
      answered.open();
      await new Promise((r) => setTimeout(r, 300));
      expect(events, how).toEqual([]);
    } finally {
      await tools.close();
      await host.dispose();
      await dir.remove();
    }
  }
}, 60_000);
