// toolgate's WASI is live for everything the SDK runs while it instantiates a module (GHC's
// hs_init, _initialize): the module's memory is known to its WASI before any of its code runs.
import { afterEach, describe, expect, it } from 'vitest';
import { loadSandboxTool, type SandboxTool } from '../../host/src/sandbox/index.js';
import { moduleSpec, never, utf8 } from '../sandbox/core-helpers.js';

const open: SandboxTool[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((t) => t.close()));
});

describe("toolgate's WASI is live for everything the SDK runs during instantiation", () => {
  it('hs_init reads the clock through WASI into memory, once, before the first call', async () => {
    const tool = await loadSandboxTool(moduleSpec('compat_hs_init', 'run'));
    open.push(tool);
    // the status is the errno hs_init got (21 = EFAULT when WASI had no memory yet)
    expect((await tool.call(utf8('{}'), { signal: never() })).length).toBe(0);
    // a second call on the same instance does not run hs_init again
    expect((await tool.call(utf8('{}'), { signal: never() })).length).toBe(0);
  });
});
