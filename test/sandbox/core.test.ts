// The sandbox core: happy path, reuse, limits on sizes, errors reported bounded and sanitized.
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { loadSandboxTool, type SandboxExecution, type SandboxTool } from '../../host/src/sandbox/index.js';
import {
  capturingLogger,
  EXECUTION_PATHS,
  failure,
  kitSpec,
  moduleSpec,
  never,
  text,
  until,
  utf8,
  type SpecOverrides,
} from './core-helpers.js';

const open: SandboxTool[] = [];
/** The path of the describe block running (each block below runs on both). */
let execution: SandboxExecution = { path: 'worker' };
async function kit(entry: string, over: SpecOverrides = {}): Promise<SandboxTool> {
  const tool = await loadSandboxTool(kitSpec(entry, { execution, ...over }));
  open.push(tool);
  return tool;
}
afterEach(async () => {
  await Promise.all(open.splice(0).map((t) => t.close()));
});

for (const [where, path] of EXECUTION_PATHS) {
  describe(where, () => {
    beforeAll(() => {
      execution = path;
    });

    describe('happy path and reuse', () => {
      it('a module reads its input and its output comes back', async () => {
        const tool = await kit('greet');
        expect(text(await tool.call(utf8('world'), { signal: never() }))).toBe('Hello, world');
        expect(text(await tool.call(utf8('héllo ✓'), { signal: never() }))).toBe('Hello, héllo ✓');
      });

      it('an entry that returns nothing (no status) works the same', async () => {
        const tool = await kit('void_greet');
        expect(text(await tool.call(utf8('void'), { signal: never() }))).toBe('Hello, void');
      });

      it('instances are started lazily and reused across calls (vars persist on the reused instance)', async () => {
        const tool = await kit('counter');
        expect(tool.stats()).toEqual({ live: 0, busy: 0, idle: 0, queued: 0 });
        const seen: number[] = [];
        for (let i = 0; i < 3; i++) seen.push((await tool.call(new Uint8Array(0), { signal: never() }))[0] as number);
        expect(seen).toEqual([1, 2, 3]);
        expect(tool.stats()).toEqual({ live: 1, busy: 0, idle: 1, queued: 0 });
      });

      it('Extism memory is reset after each call, so thousands of calls do not exhaust blocks (architecture.md §8.8)', async () => {
        const tool = await kit('greet');
        for (let i = 0; i < 3000; i++) await tool.call(utf8('x'), { signal: never() });
        expect(text(await tool.call(utf8('end'), { signal: never() }))).toBe('Hello, end');
      });
    });

    describe('environment and config', () => {
      it('a module reading config sees only its config, never host environment variables', async () => {
        process.env.TOOLGATE_TEST_LEAK = 'leaked';
        const tool = await kit('config_read', { config: { greeting: 'hi there' } });
        expect(text(await tool.call(utf8('greeting'), { signal: never() }))).toBe('hi there');
        for (const key of ['TOOLGATE_TEST_LEAK', 'HOME', 'PATH']) {
          expect(text(await tool.call(utf8(key), { signal: never() }))).toBe('<none>');
        }
      });
    });

    describe('WASI supplied by toolgate', () => {
      it("a WASI module runs without Node's WASI: _initialize ran, stdout goes to the log, no environment is visible", async () => {
        process.env.TOOLGATE_TEST_LEAK = 'leaked';
        const { logger, lines } = capturingLogger();
        const tool = await loadSandboxTool(moduleSpec('core_wasi', 'run', { logger, execution }));
        open.push(tool);
        const out = await tool.call(new Uint8Array(0), { signal: never() });
        const view = new DataView(out.buffer, out.byteOffset);
        expect(view.getUint32(0, true)).toBe(0); // environ count
        expect(view.getUint32(4, true)).toBe(1); // _initialize ran before the first call
        await until(() => lines.some((l) => l.msg === 'hello from wasi'));
        const msgs = lines.filter((l) => l.tool === 't_run').map((l) => l.msg);
        expect(msgs).toContain('init ran');
        expect(msgs).toContain('hello from wasi');
      });
    });

    describe('WASI exits', () => {
      it('proc_exit during a call is TOOL_ERROR naming the exit code, and the next call gets a fresh instance', async () => {
        const tool = await loadSandboxTool(moduleSpec('core_wasi', 'exit7', { execution }));
        open.push(tool);
        const err = await failure(tool.call(new Uint8Array(0), { signal: never() }), 'TOOL_ERROR');
        expect(err.message).toBe('module called proc_exit(7)');
        await failure(tool.call(new Uint8Array(0), { signal: never() }), 'TOOL_ERROR');
      });
    });

    describe('sizes', () => {
      it('input over max_input_bytes is refused before the module sees it', async () => {
        const tool = await kit('greet', { limits: { maxInputBytes: 16 } });
        const err = await failure(tool.call(new Uint8Array(17), { signal: never() }), 'INVALID_ARGS');
        expect(err.message).toMatch(/17 bytes; max_input_bytes is 16/);
        expect(tool.stats().live).toBe(0); // no instance was even started
      });

      it('a 64 MiB output is OUTPUT_TOO_LARGE, never buffered (RSS stays sane)', async () => {
        const tool = await kit('huge_output');
        const before = process.memoryUsage().rss;
        const err = await failure(tool.call(new Uint8Array(0), { signal: never() }), 'OUTPUT_TOO_LARGE');
        expect(err.message).toMatch(/alloc of 67108864 bytes refused/);
        expect(process.memoryUsage().rss - before).toBeLessThan(32 * 1024 * 1024);
      });

      it('an output block over max_output_bytes is OUTPUT_TOO_LARGE and the instance keeps serving', async () => {
        const tool = await kit('over_output');
        const err = await failure(tool.call(new Uint8Array(0), { signal: never() }), 'OUTPUT_TOO_LARGE');
        expect(err.message).toMatch(/output is 1048577 bytes; max_output_bytes is 1048576/);
        expect(tool.stats().live).toBe(1);
      });

      it('alloc beyond the per-call budget is refused (configurable)', async () => {
        const tool = await kit('over_output', { limits: { maxAllocBytes: 1024 } });
        const err = await failure(tool.call(new Uint8Array(0), { signal: never() }), 'OUTPUT_TOO_LARGE');
        expect(err.message).toMatch(/alloc of 1048577 bytes refused: this call may allocate 1024 bytes/);
      });

      it('host copies (var_get, config_get, http bodies) count against the per-call budget too', async () => {
        const tool = await kit('var_get_loop');
        const err = await failure(tool.call(new Uint8Array(0), { signal: never() }), 'OUTPUT_TOO_LARGE');
        expect(err.message).toMatch(/^var_get of 524288 bytes refused: this call may allocate 5242880 bytes/);
      });

      it('var_set beyond max_var_bytes is an error', async () => {
        const tool = await kit('huge_var');
        const err = await failure(tool.call(new Uint8Array(0), { signal: never() }), 'TOOL_ERROR');
        expect(err.message).toMatch(/var memory limit exceeded: 2097152 bytes requested, 1048576 allowed/);
      });

      it('log spam is capped by lines and bytes, with one "N log lines dropped" line', async () => {
        const { logger, lines } = capturingLogger();
        const tool = await kit('log_spam', { logger });
        await tool.call(new Uint8Array(0), { signal: never() });
        await until(() => lines.some((l) => l.msg === '9744 log lines dropped'));
        const fromModule = lines.filter((l) => l.tool === 't_log_spam');
        expect(fromModule.length).toBeLessThanOrEqual(257);
        expect(fromModule.filter((l) => l.msg === 'spam line from the module').length).toBe(256);
        expect(fromModule.at(-1)?.msg).toBe('9744 log lines dropped');

        const small = await kit('log_spam', { logger, limits: { maxLogBytes: 250 }, name: 't_small' });
        await small.call(new Uint8Array(0), { signal: never() });
        await until(() => lines.some((l) => l.msg === '9990 log lines dropped'));
        const capped = lines.filter((l) => l.tool === 't_small');
        expect(capped.length).toBe(11); // 10 lines of 25 bytes, then the drop notice
        expect(capped.at(-1)?.msg).toBe('9990 log lines dropped');
      });

      it('every log line has secret values replaced by [REDACTED]', async () => {
        const { logger, lines } = capturingLogger();
        const tool = await kit('log_spam', { logger, secretValues: ['spam line'], limits: { maxLogBytes: 100 } });
        await tool.call(new Uint8Array(0), { signal: never() });
        await until(() => lines.some((l) => /log lines dropped/.test(l.msg)));
        const msgs = lines.filter((l) => l.tool === 't_log_spam').map((l) => l.msg);
        expect(msgs[0]).toBe('[REDACTED] from the module');
        expect(msgs.join('\n')).not.toContain('spam line');
      });
    });

    describe('memory', () => {
      it('memory.grow stops at max_pages: the module sees exactly the cap', async () => {
        for (const maxPages of [32, 40]) {
          const tool = await kit('grow', { limits: { maxPages } });
          const out = await tool.call(new Uint8Array(0), { signal: never() });
          expect(new DataView(out.buffer, out.byteOffset).getUint32(0, true)).toBe(maxPages);
        }
      });

      it('a store past the capped memory traps as TOOL_ERROR', async () => {
        const tool = await kit('store_past_cap', { limits: { maxPages: 16 } });
        const err = await failure(tool.call(new Uint8Array(0), { signal: never() }), 'TOOL_ERROR');
        expect(err.message).toMatch(/trap: memory access out of bounds/);
      });
    });

    describe('errors', () => {
      it('a trap is TOOL_ERROR, the instance is replaced, and the next call is served', async () => {
        const tool = await kit('trap');
        const err = await failure(tool.call(new Uint8Array(0), { signal: never() }), 'TOOL_ERROR');
        expect(err.message).toBe('trap: unreachable');
        await failure(tool.call(new Uint8Array(0), { signal: never() }), 'TOOL_ERROR');
      });

      it('a non-zero return without error_set is an error (architecture.md §8.7), and the instance is kept', async () => {
        const tool = await kit('nonzero');
        const err = await failure(tool.call(new Uint8Array(0), { signal: never() }), 'TOOL_ERROR');
        expect(err.message).toBe('the module returned status 3');
        expect(tool.stats()).toMatchObject({ live: 1, idle: 1 });
      });

      it('an error_set message is surfaced bounded to 1 KiB, without control characters, host paths or secrets', async () => {
        const tool = await kit('error_msg', { secretValues: ['sekrit-token'] });
        const err = await failure(tool.call(new Uint8Array(0), { signal: never() }), 'TOOL_ERROR');
        expect(err.message).toMatch(/^bad \[31mthing at <path> token=\[REDACTED\] +AAAA+…$/);
        expect(Buffer.byteLength(err.message)).toBeLessThanOrEqual(1024);
        // eslint-disable-next-line no-control-regex
        expect(err.message).not.toMatch(/[\u0000-\u001f\u007f]/);
        expect(err.message).not.toContain('/home/runner');
      });

      it('unbounded recursion hits the stack limit: TOOL_ERROR, the host is fine', async () => {
        const tool = await kit('recurse');
        const err = await failure(tool.call(new Uint8Array(0), { signal: never() }), 'TOOL_ERROR');
        expect(err.message).toMatch(/Maximum call stack size exceeded/);
      });

      it('output_set on a wild block is TOOL_ERROR and the next call is served', async () => {
        const tool = await kit('wild_output');
        const err = await failure(tool.call(new Uint8Array(0), { signal: never() }), 'TOOL_ERROR');
        expect(err.message).toMatch(/cannot assign to this block/);
        await failure(tool.call(new Uint8Array(0), { signal: never() }), 'TOOL_ERROR');
      });

      it('load_u8 past the end of a block is TOOL_ERROR, not a host crash', async () => {
        const tool = await kit('wild_load');
        const err = await failure(tool.call(new Uint8Array(0), { signal: never() }), 'TOOL_ERROR');
        expect(err.message).toMatch(/Offset is outside the bounds of the DataView/);
      });
    });
  });
}
