// A tool's first instance started in the background (SandboxTool.prestart, used for JavaScript
// tools: docs/decisions.md "JavaScript tools: the first call"): one instance at most, a call that
// comes while it starts waits for it instead of starting a second, it is trimmed when idle like any
// other, and a start that fails or never ends holds no call past that call's own deadline.
import { afterEach, describe, expect, it } from 'vitest';
import { loadSandboxTool, type SandboxTool } from '../../host/src/sandbox/index.js';
import { failure, kitSpec, moduleSpec, never, settle, text, until, utf8, type SpecOverrides } from './core-helpers.js';

const open: SandboxTool[] = [];
async function load(file: string, entry: string, over: SpecOverrides = {}): Promise<SandboxTool> {
  const tool = await loadSandboxTool(moduleSpec(file, entry, { execution: { path: 'worker' }, ...over }));
  open.push(tool);
  return tool;
}
afterEach(async () => {
  await Promise.all(open.splice(0).map((t) => t.close()));
});

describe('prestart', () => {
  it('starts one instance before any call, and the first call runs on it instead of starting another', async () => {
    const tool = await load('core_kit', 'slow_echo', { pool: { max: 2 } });
    expect(tool.stats()).toEqual({ live: 0, busy: 0, idle: 0, queued: 0 });
    tool.prestart();
    tool.prestart(); // a second ask while the first starts adds nothing
    expect(tool.stats().live).toBe(1);
    await until(() => tool.stats().idle === 1);
    expect(text(await tool.call(utf8('first'), { signal: never() }))).toBe('first');
    expect(tool.stats()).toEqual({ live: 1, busy: 0, idle: 1, queued: 0 });
  });

  it('a call that comes while the instance starts waits for that start; it does not start a second', async () => {
    const tool = await load('core_kit', 'slow_echo', { pool: { max: 2 } });
    tool.prestart();
    const call = tool.call(utf8('during'), { signal: never() });
    expect(tool.stats()).toMatchObject({ live: 1, queued: 1 });
    expect(text(await call)).toBe('during');
    expect(tool.stats()).toEqual({ live: 1, busy: 0, idle: 1, queued: 0 });
  });

  it('does nothing for a tool that already has an instance', async () => {
    const tool = await load('core_kit', 'slow_echo', { pool: { max: 2 } });
    await tool.call(utf8('a'), { signal: never() });
    tool.prestart();
    await settle(50);
    expect(tool.stats()).toEqual({ live: 1, busy: 0, idle: 1, queued: 0 });
  });

  it('the started instance is trimmed after idleMs like any idle instance', async () => {
    const tool = await load('core_kit', 'slow_echo', { pool: { max: 2, idleMs: 300 } });
    tool.prestart();
    await until(() => tool.stats().idle === 1);
    const started = performance.now();
    await until(() => tool.stats().live === 0, 5000);
    expect(performance.now() - started).toBeGreaterThanOrEqual(250);
  });

  it('a start that never returns holds the first call no longer than its deadline, and is itself torn down', async () => {
    const tool = await load('hostile_start_loop', 'run', { limits: { timeoutMs: 300 } });
    tool.prestart();
    const t0 = performance.now();
    await failure(tool.call(new Uint8Array(0), { signal: never(), timeoutMs: 150 }), 'TIMEOUT');
    expect(performance.now() - t0).toBeLessThan(1000);
    await until(() => tool.stats().live === 0, 5000);
    // the next call starts its own and is told why it cannot run
    const err = await failure(tool.call(new Uint8Array(0), { signal: never() }), 'TIMEOUT');
    expect(err.message).toMatch(/300 ms/);
  });

  it('close() while the instance starts ends that start', async () => {
    const tool = await loadSandboxTool(kitSpec('slow_echo', { execution: { path: 'worker' } }));
    tool.prestart();
    expect(tool.stats().live).toBe(1);
    await tool.close();
    await until(() => tool.stats().live === 0);
    expect(tool.stats()).toEqual({ live: 0, busy: 0, idle: 0, queued: 0 });
  });

  it('a tool that runs on the calling thread starts nothing in a worker', async () => {
    const tool = await loadSandboxTool(kitSpec('greet', { execution: { path: 'auto' } }));
    open.push(tool);
    tool.prestart();
    await settle(50);
    expect(tool.stats()).toEqual({ live: 0, busy: 0, idle: 0, queued: 0 });
  });
});
