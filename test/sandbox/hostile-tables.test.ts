// Tables are memory the memory cap does not see (issue 24): their growth is capped in the module and
// a module declaring more than the table budget is refused at load (architecture.md §4).
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  loadSandboxTool,
  SandboxLoadError,
  type SandboxExecution,
  type SandboxTool,
} from '../../host/src/sandbox/index.js';
import { EXECUTION_PATHS, fixture, kitSpec, moduleSpec, never, utf8 } from './core-helpers.js';

const MiB = 1024 * 1024;
const TABLE_BUDGET = 65_536;
const open: SandboxTool[] = [];
let execution: SandboxExecution = { path: 'worker' };
afterEach(async () => {
  await Promise.all(open.splice(0).map((t) => t.close()));
});

async function loadError(p: Promise<unknown>): Promise<SandboxLoadError> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(SandboxLoadError);
  return err as SandboxLoadError;
}

for (const [where, path] of EXECUTION_PATHS) {
  describe(`tables, ${where}`, () => {
    beforeAll(() => {
      execution = path;
    });

    it("table.grow past the table budget fails inside the module and the call's RSS stays bounded", async () => {
      // a worker booted and the sandbox's code loaded first: that is not what this test measures
      const warm = await loadSandboxTool(kitSpec('greet', { execution }));
      open.push(warm);
      await warm.call(utf8('x'), { signal: never() });
      const tool = await loadSandboxTool(
        moduleSpec('hostile_table_grow', 'grow', { execution, limits: { maxPages: 256, timeoutMs: 20_000 } }),
      );
      open.push(tool);
      const before = process.memoryUsage().rss;
      const out = await tool.call(new Uint8Array(0), { signal: never() });
      const growth = (process.memoryUsage().rss - before) / MiB;
      // the module asked for 4 x 3Mi entries; every grow past the budget returned -1
      const total = new DataView(out.buffer, out.byteOffset).getUint32(0, true);
      expect(growth, `RSS grew ${growth.toFixed(1)} MiB with ${total} table entries`).toBeLessThan(64);
      expect(total).toBeLessThanOrEqual(TABLE_BUDGET);
    });
  });
}

describe('tables declared beyond the budget', () => {
  it('a module declaring tables beyond the budget is refused at load, naming the table', async () => {
    const err = await loadError(loadSandboxTool(moduleSpec('hostile_table_huge', 'run')));
    expect(err.code).toBe('TABLES_OVER_BUDGET');
    expect(err.message).toMatch(
      /tool "t_run": table 1 \(externref\) declares 4194304 initial entries; with the 16 of the tables before it that is over the table budget of 65536 entries/,
    );
  });

  it('a linked module importing a table over the budget is refused at load, naming the module and the import', async () => {
    const spec = moduleSpec('compat_link_main', 'run', {
      links: [
        ...['lib', 'peer', 'clock'].map((namespace) => ({ namespace, wasm: fixture(`compat_link_${namespace}`) })),
        { namespace: 'extra', wasm: fixture('hostile_table_import') },
      ],
    });
    const err = await loadError(loadSandboxTool(spec));
    expect(err.code).toBe('TABLES_OVER_BUDGET');
    expect(err.message).toMatch(
      /tool "t_run", module\.link "extra": imported table "lib\.table" \(funcref\) declares 4194304 initial entries; the table budget is 65536 entries/,
    );
  });
});
