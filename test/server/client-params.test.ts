// What a tool's client request may carry (server/call-client.ts): an inputKey names the question
// in a 2026-07-28 input round and never reaches a client as a param; roots/list takes nothing else.
import { describe, expect, test } from 'vitest';
import { checkedParams, inputKeyOf } from '../../host/src/server/call-client.js';
import type { ClientRequest, JsonObject } from '../../host/src/tool/index.js';

const req = (kind: ClientRequest['kind'], params: JsonObject): ClientRequest => ({ kind, params });
const SAMPLE = { messages: [{ role: 'user', content: { type: 'text', text: 'hi' } }], maxTokens: 5 };

describe('inputKey and roots params', () => {
  test('inputKeyOf returns a string inputKey of 1-64 of [A-Za-z0-9_.-], else undefined', () => {
    expect(inputKeyOf(req('roots', { inputKey: 'roots_request' }))).toBe('roots_request');
    expect(inputKeyOf(req('elicitation', { inputKey: 'a.b-C_9' }))).toBe('a.b-C_9');
    expect(inputKeyOf(req('sampling', { inputKey: 'x'.repeat(64) }))).toBe('x'.repeat(64));
    for (const bad of ['', 'x'.repeat(65), 'has space', 'slash/key', 'é'])
      expect(inputKeyOf(req('roots', { inputKey: bad }))).toBeUndefined();
    expect(inputKeyOf(req('roots', { inputKey: 7 }))).toBeUndefined();
    expect(inputKeyOf(req('roots', {}))).toBeUndefined();
  });

  test('a string inputKey is stripped from every kind before validation, so it never reaches the client', () => {
    expect(checkedParams(req('sampling', { ...SAMPLE, inputKey: 'greeting' }))).toEqual({ ok: true, params: SAMPLE });
    const elicit = { message: 'Name?', requestedSchema: { type: 'object', properties: { name: { type: 'string' } } } };
    expect(checkedParams(req('elicitation', { ...elicit, inputKey: 'user_name' }))).toEqual({
      ok: true,
      params: elicit,
    });
    expect(checkedParams(req('roots', { inputKey: 'roots' }))).toEqual({ ok: true, params: {} });
  });

  test('roots params are {} or an inputKey string; any other member is refused, naming it', () => {
    expect(checkedParams(req('roots', {}))).toEqual({ ok: true, params: {} });
    expect(checkedParams(req('roots', { cursor: 'x', inputKey: 'k' }))).toEqual({
      ok: false,
      message: 'roots params: only an inputKey string is allowed (got "cursor")',
    });
    expect(checkedParams(req('roots', { inputKey: 1 }))).toEqual({
      ok: false,
      message: 'roots params: only an inputKey string is allowed (got "inputKey")',
    });
  });
});
