// End-to-end: every bundled example tool called through `toolgate call --json`, once with good
// arguments (Unicode in and out) and once with arguments it must refuse with a clear error.
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { callTool, valueOf } from './helpers.js';

/** A failed call: exit 1, isError, a code, and a message that contains `text`. */
async function expectError(tool: string, args: unknown, code: string, text: string): Promise<void> {
  const r = await callTool(tool, args);
  expect(r.code).toBe(1);
  expect(r.result.isError).toBe(true);
  expect(r.result.error?.code).toBe(code);
  expect(r.result.error?.message).toContain(text);
}

describe('greet (WAT)', () => {
  it('greets a Unicode name and renders the template', async () => {
    const r = await callTool('greet', { name: 'Zoë "Z" 🎉' });
    expect(r.code).toBe(0);
    expect(r.result.structuredContent).toEqual({ greeting: 'Hello, Zoë "Z" 🎉!' });
    expect(r.result.content).toEqual([{ type: 'text', text: 'Hello, Zoë "Z" 🎉!' }]);
  });
  it("refuses an empty name with the module's own error", async () => {
    await expectError('greet', { name: '' }, 'TOOL_ERROR', "argument 'name' must not be empty");
  });
  it('refuses a missing name before the module runs', async () => {
    await expectError('greet', {}, 'INVALID_ARGS', 'name');
  });
});

describe('json_query (Rust)', () => {
  const doc = JSON.stringify({
    items: [
      { name: 'café', price: 3.5 },
      { name: 'thé 🍵', price: 2 },
    ],
    meta: { 'content-type': 'x' },
  });
  it('selects with wildcards, quoted keys and negative indexes', async () => {
    expect(await valueOf('json_query', { json: doc, path: '$.items[*].name' })).toEqual({
      path: '$.items[*].name',
      count: 2,
      matches: ['café', 'thé 🍵'],
      truncated: false,
    });
    expect((await valueOf('json_query', { json: doc, path: 'meta["content-type"]' })).matches).toEqual(['x']);
    expect((await valueOf('json_query', { json: doc, path: 'items[-1].price' })).matches).toEqual([2]);
    expect((await valueOf('json_query', { json: doc, path: '$.nothing' })).count).toBe(0);
  });
  it('names the byte where a document stops being JSON', async () => {
    await expectError(
      'json_query',
      { json: '{"a": [1, 2}', path: '$.a' },
      'TOOL_ERROR',
      "argument 'json' is not valid JSON: invalid JSON at byte 11",
    );
  });
  it('refuses a malformed path', async () => {
    await expectError(
      'json_query',
      { json: '[1]', path: '$[abc]' },
      'TOOL_ERROR',
      "argument 'path' is not a valid path",
    );
  });
});

describe('text_stats (AssemblyScript)', () => {
  it('counts code points and UTF-8 bytes, not UTF-16 units', async () => {
    const text = 'Héllo wörld. The café is open?\n\n日本語 🎉 done';
    const v = await valueOf('text_stats', { text, top: 2 });
    expect(v.bytes).toBe(Buffer.byteLength(text));
    expect(v.characters).toBe([...text].length);
    expect(v.words).toBe(8);
    expect(v.lines).toBe(3);
    expect(v.paragraphs).toBe(2);
    expect(v.sentences).toBe(3);
    expect((v.top_words as unknown[]).length).toBe(2);
  });
  it('refuses a top count out of range', async () => {
    await expectError(
      'text_stats',
      { text: 'a', top: 99 },
      'TOOL_ERROR',
      "argument 'top' must be an integer from 0 to 50",
    );
  });
});

describe('hash (C)', () => {
  it.each(['sha256', 'sha512', 'sha1', 'md5'] as const)(
    'matches node:crypto for %s on Unicode text',
    async (algorithm) => {
      const text = 'héllo wörld 日本 🎉'.repeat(9);
      const v = await valueOf('hash', { text, algorithm });
      expect(v.digest).toBe(createHash(algorithm).update(text, 'utf8').digest('hex'));
      expect(v.input_bytes).toBe(Buffer.byteLength(text));
    },
  );
  it('writes base64 when asked and renders its template', async () => {
    const r = await callTool('hash', { text: 'abc', encoding: 'base64' });
    const digest = createHash('sha256').update('abc').digest('base64');
    expect((r.result.structuredContent as { digest: string }).digest).toBe(digest);
    expect(r.result.content[0]?.text).toBe(`sha256 (base64): ${digest}`);
  });
  it('refuses an algorithm outside the enum before the module runs', async () => {
    await expectError('hash', { text: 'abc', algorithm: 'sha3' }, 'INVALID_ARGS', 'algorithm');
  });
});

describe('csv_to_json (C)', () => {
  it('parses quoted fields, doubled quotes, CRLF and Unicode', async () => {
    const v = await valueOf('csv_to_json', { csv: 'name,city\r\n"Doe, Jane",Zürich\nBob,"say ""hi"""\n' });
    expect(v).toEqual({
      rows: [
        { name: 'Doe, Jane', city: 'Zürich' },
        { name: 'Bob', city: 'say "hi"' },
      ],
      columns: ['name', 'city'],
      row_count: 2,
    });
  });
  it('returns arrays without a header and honours the delimiter', async () => {
    expect((await valueOf('csv_to_json', { csv: 'a;b\n1;2', delimiter: ';', header: false })).rows).toEqual([
      ['a', 'b'],
      ['1', '2'],
    ]);
  });
  it('names the record whose field count differs from the header', async () => {
    await expectError('csv_to_json', { csv: 'a,b\n1,2,3' }, 'TOOL_ERROR', 'record 2 has 3 fields but the header has 2');
  });
  it('refuses an unterminated quote', async () => {
    await expectError('csv_to_json', { csv: 'a,b\n"1,2' }, 'TOOL_ERROR', 'is never closed');
  });
});

describe('encode (AssemblyScript)', () => {
  const text = 'héllo wörld/?&=🎉';
  it.each([
    ['base64', Buffer.from(text).toString('base64')],
    ['base64url', Buffer.from(text).toString('base64url')],
    ['hex', Buffer.from(text).toString('hex')],
    ['url', encodeURIComponent(text)],
  ])('encodes UTF-8 text as %s and decodes it back', async (scheme, encoded) => {
    expect((await valueOf('encode', { text, scheme })).result).toBe(encoded);
    expect((await valueOf('encode', { text: encoded, scheme, direction: 'decode' })).result).toBe(text);
  });
  it('refuses decoded bytes that are not UTF-8 text', async () => {
    await expectError('encode', { text: 'ff00', scheme: 'hex', direction: 'decode' }, 'TOOL_ERROR', 'not UTF-8 text');
  });
  it('refuses malformed base64', async () => {
    await expectError(
      'encode',
      { text: 'a$b', scheme: 'base64', direction: 'decode' },
      'TOOL_ERROR',
      'not valid base64',
    );
  });
});

describe('convert_units (Rust)', () => {
  it('converts with exact factors and temperature offsets', async () => {
    expect((await valueOf('convert_units', { value: 1, from: 'mi', to: 'km' })).result).toBe(1.609344);
    expect((await valueOf('convert_units', { value: 100, from: 'C', to: 'F' })).result).toBe(212);
    expect((await valueOf('convert_units', { value: 0.1, from: 'GiB', to: 'MB' })).result).toBe(107.3741824);
    const r = await callTool('convert_units', { value: 5, from: 'pound', to: 'kg' });
    expect(r.result.content[0]?.text).toBe('5 lb = 2.26796185 kg');
  });
  it('refuses units that measure different things', async () => {
    await expectError(
      'convert_units',
      { value: 1, from: 'kg', to: 'm' },
      'TOOL_ERROR',
      'cannot convert kg (mass) to m (length)',
    );
  });
  it('lists the known units when one is unknown', async () => {
    await expectError(
      'convert_units',
      { value: 1, from: 'parsec', to: 'm' },
      'TOOL_ERROR',
      "unknown unit 'parsec'. Known units: length: m, km",
    );
  });
});

describe('markdown_to_text (Rust, output.encoding text)', () => {
  it('strips markup but keeps words, code and Unicode, as raw text output', async () => {
    const markdown = [
      '# Café *menu* #',
      '',
      'Some **bold**, `code`, a [link](https://x.example/a "t"), ![a logo](logo.png) and snake_case.',
      '',
      '> quoted _text_',
      '',
      '- thé 🍵',
      '',
      '| a | b |',
      '|---|---|',
      '| 1 | 2 |',
      '',
      '```',
      'let **x** = 1;',
      '```',
    ].join('\n');
    const r = await callTool('markdown_to_text', { markdown });
    expect(r.code).toBe(0);
    const text = [
      'Café menu',
      '',
      'Some bold, code, a link, a logo and snake_case.',
      '',
      'quoted text',
      '',
      '• thé 🍵',
      '',
      'a\tb',
      '1\t2',
      '',
      'let **x** = 1;',
    ].join('\n');
    // a string value travels as text content (structuredContent carries only objects)
    expect(r.result.content).toEqual([{ type: 'text', text }]);
  });
  it('keeps link targets when asked', async () => {
    const r = await callTool('markdown_to_text', { markdown: 'see [docs](https://d.example)', keep_links: true });
    expect(r.result.content).toEqual([{ type: 'text', text: 'see docs (https://d.example)' }]);
  });
  it('refuses a wrong argument type before the module runs', async () => {
    await expectError('markdown_to_text', { markdown: 1 }, 'INVALID_ARGS', 'markdown');
  });
});
