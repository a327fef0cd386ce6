// The HTTP safety rules as units: addresses, Host/Origin checks, token comparison, caps.
import type { IncomingMessage } from 'node:http';
import { describe, expect, test } from 'vitest';
import {
  allowedHostsFor,
  checkHost,
  checkOrigin,
  checkToken,
  ConcurrencyLimit,
  isLoopback,
  parseBindAddress,
  tokenMatches,
} from '../../host/src/server/index.js';

const req = (headers: Record<string, string>) => ({ headers }) as unknown as IncomingMessage;

describe('bind addresses', () => {
  test('HOST:PORT parses, IPv6 in brackets, and a bad one names the expected form', () => {
    expect(parseBindAddress('127.0.0.1:8787')).toEqual({ host: '127.0.0.1', port: 8787 });
    expect(parseBindAddress('[::1]:0')).toEqual({ host: '::1', port: 0 });
    expect(() => parseBindAddress('8787')).toThrow(/HOST:PORT/);
    expect(() => parseBindAddress('127.0.0.1:99999')).toThrow(/0-65535/);
  });

  test('loopback is 127.0.0.0/8, ::1 and localhost; 0.0.0.0 and other addresses are not', () => {
    for (const h of ['127.0.0.1', '127.1.2.3', '::1', 'localhost', '::ffff:127.0.0.1'])
      expect(isLoopback(h)).toBe(true);
    for (const h of ['0.0.0.0', '::', '10.0.0.1', '192.168.1.1', 'example.com']) expect(isLoopback(h)).toBe(false);
  });
});

describe('Host and Origin', () => {
  const cfg = {
    allowedHosts: allowedHostsFor('127.0.0.1', []),
    port: 8787,
    allowedOrigins: ['http://ok.example'],
    token: undefined,
    approver: 'approver-secret',
  };

  test('a loopback bind accepts only loopback names on its own port', () => {
    expect(checkHost(req({ host: '127.0.0.1:8787' }), cfg)).toBeUndefined();
    expect(checkHost(req({ host: 'localhost:8787' }), cfg)).toBeUndefined();
    expect(checkHost(req({ host: 'rebound.attacker.example:8787' }), cfg)?.status).toBe(403);
    expect(checkHost(req({ host: '127.0.0.1:9999' }), cfg)?.status).toBe(403);
    expect(checkHost(req({}), cfg)?.status).toBe(403);
  });

  test('--allowed-host replaces the defaults', () => {
    const c = { ...cfg, allowedHosts: allowedHostsFor('0.0.0.0', ['toolgate.internal']) };
    expect(checkHost(req({ host: 'toolgate.internal:8787' }), c)).toBeUndefined();
    expect(checkHost(req({ host: '127.0.0.1:8787' }), c)?.status).toBe(403);
  });

  test('no Origin passes (not a browser); an Origin must be on the allowlist', () => {
    expect(checkOrigin(req({}), cfg)).toBeUndefined();
    expect(checkOrigin(req({ origin: 'http://ok.example' }), cfg)).toBeUndefined();
    expect(checkOrigin(req({ origin: 'http://evil.example' }), cfg)?.status).toBe(403);
    expect(checkOrigin(req({ origin: 'null' }), cfg)?.status).toBe(403);
  });
});

describe('token and caps', () => {
  test('tokenMatches is exact, whatever the lengths', () => {
    expect(tokenMatches('abc', 'abc')).toBe(true);
    expect(tokenMatches('abd', 'abc')).toBe(false);
    expect(tokenMatches('ab', 'abc')).toBe(false);
    expect(tokenMatches('', 'abc')).toBe(false);
  });

  test('checkToken wants "Bearer <token>" when a token is set, and nothing when none is', () => {
    const c = { allowedHosts: [], port: 1, allowedOrigins: [], token: 't0k', approver: 't0k' };
    expect(checkToken(req({ authorization: 'Bearer t0k' }), c)).toBeUndefined();
    expect(checkToken(req({ authorization: 'bearer t0k' }), c)).toBeUndefined();
    expect(checkToken(req({ authorization: 'Basic t0k' }), c)?.status).toBe(401);
    expect(checkToken(req({}), c)?.status).toBe(401);
    expect(checkToken(req({}), { ...c, token: undefined })).toBeUndefined();
  });

  test('the concurrency cap counts per client and frees a slot exactly once', () => {
    const limit = new ConcurrencyLimit(2);
    const a = limit.enter('a');
    const b = limit.enter('a');
    expect(limit.enter('a')).toBeUndefined();
    expect(limit.enter('b')).toBeDefined();
    a?.();
    a?.(); // twice frees one slot, not two
    expect(limit.enter('a')).toBeDefined();
    expect(limit.enter('a')).toBeUndefined();
    b?.();
  });
});
