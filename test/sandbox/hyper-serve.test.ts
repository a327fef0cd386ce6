// What a module sends through hyper-mcp's host functions, checked before anything reaches the
// client (sandbox/hyper-serve.ts): hostile URLs for URL-mode elicitation, malformed log and
// progress JSON, and notifications toolgate does not know.
import { describe, expect, test } from 'vitest';
import { hyperElicitation, hyperLog, hyperNotification, hyperProgress } from '../../host/src/sandbox/hyper-serve.js';

const bytes = (v: unknown): Uint8Array => new TextEncoder().encode(typeof v === 'string' ? v : JSON.stringify(v));
const url = (u: unknown) => bytes({ mode: 'url', message: 'Sign in', url: u, elicitationId: 'e' });

describe('URL-mode elicitation goes only where capabilities.allowed_hosts reaches', () => {
  const hosts = ['auth.example.com', '*.corp.example'];
  test('an allowed https host passes, marked as checked; the timeout (seconds) is taken out of the params', () => {
    const r = hyperElicitation(
      bytes({ mode: 'url', message: 'm', url: 'https://auth.example.com/x', elicitationId: 'e', timeout: 1.5 }),
      hosts,
    );
    expect(r).toEqual({
      ok: true,
      value: {
        params: { mode: 'url', message: 'm', url: 'https://auth.example.com/x', elicitationId: 'e' },
        timeoutMs: 1500,
        urlChecked: true,
      },
    });
    expect(hyperElicitation(url('https://sso.corp.example/'), hosts).ok).toBe(true);
  });
  test.each([
    ['another host', 'https://evil.example.net/'],
    ['a lookalike suffix', 'https://auth.example.com.evil.net/'],
    ['userinfo pointing the reader elsewhere', 'https://auth.example.com@evil.example.net/'],
    ['a port the grant does not cover', 'https://auth.example.com:8443/'],
    ['a non-http scheme', 'javascript:alert(1)'],
    ['not a URL', 'auth.example.com/login'],
    ['not a string', 42],
  ])('%s is refused', (_what, u) => {
    const r = hyperElicitation(url(u), hosts);
    expect(r.ok).toBe(false);
  });
  test('form mode is left to the session checks (urlChecked false)', () => {
    const r = hyperElicitation(bytes({ message: 'Name?', requestedSchema: { type: 'object', properties: {} } }), []);
    expect(r.ok && r.value.urlChecked).toBe(false);
  });
  test('params that are not a JSON object are refused', () => {
    expect(hyperElicitation(bytes('nope'), []).ok).toBe(false);
    expect(hyperElicitation(bytes([1, 2]), []).ok).toBe(false);
  });
});

describe('logs, progress and notifications', () => {
  test('a log line needs an MCP level; data that is not text is sent as its JSON text', () => {
    expect(hyperLog(bytes({ level: 'warning', data: { a: 1 } }))).toEqual({
      ok: true,
      value: { level: 'warning', line: '{"a":1}' },
    });
    expect(hyperLog(bytes({ level: 'loud', data: 'x' })).ok).toBe(false);
    expect(hyperLog(bytes('{')).ok).toBe(false);
  });
  test('progress must be a finite number; null members are absent', () => {
    expect(hyperProgress(bytes({ progressToken: 't', progress: 2, total: null, message: null }))).toEqual({
      ok: true,
      value: { progress: 2, total: undefined, message: undefined },
    });
    expect(hyperProgress(bytes({ progressToken: 't', progress: '2' })).ok).toBe(false);
  });
  test('a notification index toolgate does not know, or params of the wrong shape, are refused', () => {
    expect(hyperNotification(new Uint8Array([0]))).toEqual({
      ok: true,
      value: { method: 'notifications/tools/list_changed', params: {} },
    });
    expect(hyperNotification(new Uint8Array([9])).ok).toBe(false);
    const updated = new Uint8Array([3, ...bytes({ uri: 'mem://x', extra: 'dropped' })]);
    expect(hyperNotification(updated)).toEqual({
      ok: true,
      value: { method: 'notifications/resources/updated', params: { uri: 'mem://x' } },
    });
    expect(hyperNotification(new Uint8Array([3, ...bytes({})])).ok).toBe(false);
  });
});

describe('JSON from a module nests at most 64 levels, counted from its bytes', () => {
  const nested = (levels: number): string => `${'['.repeat(levels)}${']'.repeat(levels)}`;
  test('64 levels pass and 65 are refused, naming the bound; brackets inside strings do not count', () => {
    // the log line's object is one level, so its data may nest 63 more
    expect(hyperLog(bytes(`{"level":"info","data":${nested(63)}}`)).ok).toBe(true);
    expect(hyperLog(bytes(`{"level":"info","data":${nested(64)}}`))).toEqual({
      ok: false,
      message: 'notify_logging_message: nests deeper than 64 levels',
    });
    const text = `${'['.repeat(100)}\\"${'{'.repeat(100)}`;
    expect(hyperLog(bytes(`{"level":"info","data":"${text}"}`))).toEqual({
      ok: true,
      value: { level: 'info', line: text.replace('\\"', '"') },
    });
  });

  test('a notification and an elicitation past the bound are refused before they are parsed', () => {
    const updated = new Uint8Array([3, ...bytes(`{"uri":${nested(70)}}`)]);
    expect(hyperNotification(updated)).toEqual({
      ok: false,
      message: 'notifications/resources/updated: nests deeper than 64 levels',
    });
    expect(hyperElicitation(bytes(`{"message":"m","x":${nested(70)}}`), []).ok).toBe(false);
  });
});
