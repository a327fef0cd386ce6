// input: { encoding: raw | base64 | json, parameter } and output.encoding base64 (with json and text
// as before), and the var budget capabilities.memory.max_var_bytes.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ManifestError } from '../../host/src/manifest/index.js';
import { failureOf, manifest, run, ToolFailure, workspace, type Workspace } from './helpers.js';

let ws: Workspace;
beforeEach(async () => {
  ws = await workspace();
  ws.modules('compat_echo');
});
afterEach(async () => ws.close());

const text = { type: 'string', required: true };

describe('input.encoding hands the module the bytes of one string argument', () => {
  it('raw: the module gets the UTF-8 bytes of the parameter, not the JSON arguments object', async () => {
    const tool = await ws.tool(
      manifest({
        module: { path: 'compat_echo.wasm', entry: 'echo' },
        parameters: { text, other: { type: 'integer' } },
        input: { encoding: 'raw', parameter: 'text' },
        output: { encoding: 'text', render: 'text' },
      }),
    );
    expect(await run(tool, { text: 'héllo "world"', other: 7 })).toBe('héllo "world"');
  });

  it('base64: the module gets the bytes the argument encodes, and output.encoding base64 returns raw bytes as base64', async () => {
    const tool = await ws.tool(
      manifest({
        module: { path: 'compat_echo.wasm', entry: 'echo' },
        parameters: { data: text },
        input: { encoding: 'base64', parameter: 'data' },
        output: { encoding: 'base64', render: 'text' },
      }),
    );
    expect(await run(tool, { data: '/wD+fw==' })).toBe('/wD+fw==');
    const bad = await failureOf(run(tool, { data: 'not base64!' }));
    expect(bad).toBeInstanceOf(ToolFailure);
    expect((bad as ToolFailure).code).toBe('INVALID_ARGS');
    expect(bad.message).toMatch(/"data" is not valid base64/);
  });

  it('output.encoding base64 carries output that is not UTF-8, which text refuses', async () => {
    const b64 = await ws.tool(
      manifest({ module: { path: 'compat_echo.wasm', entry: 'bytes' }, output: { encoding: 'base64' } }),
    );
    expect(await run(b64, {})).toBe('/wD+fw==');
    const asText = await ws.tool(
      manifest({
        name: 'compat_text',
        module: { path: 'compat_echo.wasm', entry: 'bytes' },
        output: { encoding: 'text' },
      }),
    );
    expect((await failureOf(run(asText, {}))).message).toMatch(/not valid UTF-8/);
  });

  it('JSON stays the default: without input the module gets the arguments object', async () => {
    const tool = await ws.tool(manifest({ module: { path: 'compat_echo.wasm', entry: 'echo' }, parameters: { text } }));
    expect(await run(tool, { text: 'hi' })).toEqual({ text: 'hi' });
  });

  it.each([
    [{ encoding: 'raw' }, /input\.parameter: is required when encoding is raw/],
    [{ encoding: 'json', parameter: 'text' }, /input\.parameter: is allowed only when encoding is raw or base64/],
    [{ encoding: 'raw', parameter: 'missing' }, /input\.parameter: must name a required parameter of type string/],
    [{ encoding: 'raw', parameter: 'count' }, /input\.parameter: must name a required parameter of type string/],
    [{ encoding: 'utf16', parameter: 'text' }, /input\.encoding: must be one of "json", "raw", "base64"/],
    [{ encoding: 'raw', parameter: 'text', extra: 1 }, /input\.extra: unknown key/],
  ])('a bad input key (%j) is refused at load, naming the key path', async (input, rule) => {
    const err = await failureOf(
      ws.tool(
        manifest({
          module: { path: 'compat_echo.wasm', entry: 'echo' },
          parameters: { text, count: { type: 'integer', required: true } },
          input,
        }),
      ),
    );
    expect(err).toBeInstanceOf(ManifestError);
    expect(err.message).toMatch(/tool\.yaml/);
    expect(err.message).toMatch(rule);
  });

  it('an optional string parameter cannot be the raw input (a valid call could lack it)', async () => {
    const err = await failureOf(
      ws.tool(
        manifest({
          module: { path: 'compat_echo.wasm', entry: 'echo' },
          parameters: { text: { type: 'string' } },
          input: { encoding: 'raw', parameter: 'text' },
        }),
      ),
    );
    expect(err.message).toMatch(/input\.parameter: must name a required parameter of type string/);
  });
});

describe('capabilities.memory.max_var_bytes', () => {
  const varTool = (max: number) =>
    ws.tool(
      manifest({
        module: { path: 'compat_echo.wasm', entry: 'var_put' },
        parameters: { value: text },
        input: { encoding: 'raw', parameter: 'value' },
        output: { encoding: 'text' },
        capabilities: { memory: { max_var_bytes: max } },
      }),
    );

  it('var_set past max_var_bytes fails the call naming both sizes; within it the call succeeds', async () => {
    const tool = await varTool(100);
    expect(await run(tool, { value: 'x'.repeat(60) })).toBe('');
    const err = await failureOf(run(tool, { value: 'y'.repeat(250) }));
    expect(err).toBeInstanceOf(ToolFailure);
    expect(err.message).toMatch(/var_set of 250 bytes refused/);
    expect(err.message).toMatch(/250 bytes requested, 100 allowed/);
    expect(err.message).toMatch(/max_var_bytes is 100/);
  });

  it('a bad max_var_bytes is refused at load naming the key path', async () => {
    const err = await failureOf(varTool(0));
    expect(err.message).toMatch(/capabilities\.memory\.max_var_bytes: must be >= 1/);
  });
});
