// output.render: mcp — a tool returns an MCP result itself, with any content kind.
import { describe, expect, test } from 'vitest';
import type { JsonObject } from '../../host/src/tool/index.js';
import { harness, recordingTool } from './helpers.js';

const png = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==';

describe('render: mcp', () => {
  test('a tool returns every MCP content kind at once, and structuredContent', async () => {
    const h = harness();
    const content: JsonObject[] = [
      { type: 'text', text: 'hi' },
      { type: 'image', data: png, mimeType: 'image/png' },
      { type: 'audio', data: 'UklGRg==', mimeType: 'audio/wav' },
      { type: 'resource', resource: { uri: 'test://r', mimeType: 'text/plain', text: 'embedded' } },
      { type: 'resource', resource: { uri: 'test://b', blob: 'AAEC' } },
      { type: 'resource_link', uri: 'file:///x.txt', name: 'x.txt', mimeType: 'text/plain' },
    ];
    h.tools.register(
      recordingTool({ output: { render: 'mcp' }, body: () => ({ content, structuredContent: { n: 1 } }) }),
    );
    const r = await h.pipeline.call('rec', {});
    expect(r.isError).toBe(false);
    expect(r.content).toEqual(content);
    expect(r.structuredContent).toEqual({ n: 1 });
  });

  test('a malformed block is INVALID_OUTPUT naming the field, never passed on to the client', async () => {
    const h = harness();
    h.tools.register(
      recordingTool({
        output: { render: 'mcp' },
        body: () => ({ content: [{ type: 'image', data: 'not base64!', mimeType: 'image/png' }] }),
      }),
    );
    const r = await h.pipeline.call('rec', {});
    expect(r.error?.code).toBe('INVALID_OUTPUT');
    expect(r.error?.message).toContain('content.0.data: must be base64');
    const h2 = harness();
    h2.tools.register(recordingTool({ output: { render: 'mcp' }, body: () => ({ text: 'not an envelope' }) }));
    expect((await h2.pipeline.call('rec', {})).error?.code).toBe('INVALID_OUTPUT');
  });

  test('output.schema together with render: mcp is refused, naming the field', () => {
    const h = harness();
    expect(() => h.tools.register(recordingTool({ output: { render: 'mcp', schema: { type: 'object' } } }))).toThrow(
      /output\.schema.*render: mcp/,
    );
  });
});
