// A module that hands Extism's host functions handles and lengths pointing nowhere (past every
// block, negative, inside a block but not at its start, a length far past its block): each call
// ends in an error of that call, on both execution paths, the host lives on, and the next call of
// the same tool is answered. These held when tried (a red team round).
import { afterEach, describe, expect, it } from 'vitest';
import { loadSandboxTool, type SandboxTool } from '../../host/src/sandbox/index.js';
import { ToolFailure } from '../../host/src/tool/index.js';
import { EXECUTION_PATHS, moduleSpec, never, text } from './core-helpers.js';

const open: SandboxTool[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((t) => t.close()));
});

/** Each entry, and the error its call ends in (undefined: Extism drops a store that lands nowhere). */
const ENTRIES: [string, RegExp | undefined][] = [
  ['output_overlong', /length longer than target block/],
  ['output_nowhere', /cannot assign to this block/],
  ['load_nowhere', /./],
  ['store_nowhere', undefined],
  ['read_mid_block', /var_get: the key address is not a valid block/],
  ['http_nowhere', /http_request: the request address is not a valid block/],
];

for (const [where, execution] of EXECUTION_PATHS) {
  describe(`handles that point nowhere, ${where}`, () => {
    it.each(ENTRIES)(
      '%s ends that call only (a TOOL_ERROR naming the fault, or nothing written), and the tool answers its next call',
      async (entry, fault) => {
        const bad = await loadSandboxTool(moduleSpec('hostile_bad_handles', entry, { execution }));
        const good = await loadSandboxTool(moduleSpec('hostile_bad_handles', 'ok', { execution }));
        open.push(bad, good);
        for (let i = 0; i < 2; i++) {
          const call = bad.call(new Uint8Array(0), { signal: never(), timeoutMs: 5000 });
          if (fault === undefined) {
            expect(text(await call)).toBe('');
            continue;
          }
          const err = await call.then(
            () => undefined,
            (e: unknown) => e,
          );
          expect(err, entry).toBeInstanceOf(ToolFailure);
          expect((err as ToolFailure).code, entry).toBe('TOOL_ERROR');
          expect((err as ToolFailure).message).toMatch(fault);
        }
        expect(text(await good.call(new Uint8Array(0), { signal: never() }))).toBe('ok');
      },
    );
  });
}
