// Globs and value walking used by the argument rules and guards.
import { expect, test } from 'vitest';
import { hostGlob, pathGlob, staticPrefix } from '../../host/src/policy/glob.js';
import { Metrics } from '../../host/src/policy/metrics.js';
import { stringsIn } from '../../host/src/policy/values.js';

test('path globs: * stays in a segment, **/ spans any number of segments including none, {a,b} alternates', () => {
  const env = pathGlob('**/.env*');
  for (const p of ['.env', '.env.local', 'a/.env', '/x/y/.env.prod']) expect(env.test(p), p).toBe(true);
  for (const p of ['env', 'a/env.txt', '.envrc/x', 'x.env']) expect(env.test(p), p).toBe(false);
  const etc = pathGlob('/etc/**');
  expect(etc.test('/etc/passwd')).toBe(true);
  expect(etc.test('/etc/ssl/certs/a.pem')).toBe(true);
  expect(etc.test('/etcetera/x')).toBe(false);
  expect(pathGlob('/srv/*.log').test('/srv/a/b.log')).toBe(false);
  expect(pathGlob('**/*.{pem,key}').test('/k/server.key')).toBe(true);
  expect(pathGlob('a+b(c).txt').test('a+b(c).txt')).toBe(true); // regex characters are literal
});

test('a glob with many stars matches in linear time (a backtracking engine would never finish)', () => {
  // As a backtracking regex ^[^/]*a[^/]*a...b$ is O(n^10) on a run of a's: hours for 20k characters.
  const greedy = pathGlob('*a*a*a*a*a*a*a*a*a*b');
  expect(greedy.test('a'.repeat(20_000))).toBe(false);
  expect(greedy.test(`${'a'.repeat(20_000)}b`)).toBe(true);
  expect(hostGlob('*a*a*a*a*a*a*a*a*.com').test('a'.repeat(20_000))).toBe(false);
});

test('host globs ignore case and * spans labels but not a port', () => {
  const g = hostGlob('*.example.com');
  expect(g.test('A.b.Example.com')).toBe(true);
  expect(g.test('example.com')).toBe(false);
  expect(g.test('evil.com:1.example.com')).toBe(false);
  expect(hostGlob('127.0.0.1:8080').test('127.0.0.1:8080')).toBe(true);
});

test('the static prefix of a glob is the folder before its first wildcard', () => {
  expect(staticPrefix('/etc/**')).toBe('/etc');
  expect(staticPrefix('/etc')).toBe('/etc');
  expect(staticPrefix('/*.conf')).toBe('/');
  expect(staticPrefix('**/.env*')).toBe('');
});

test('stringsIn finds every string at any depth with its key path, object keys included', () => {
  const found = stringsIn({ a: 'x', b: [1, 'y', { c: 'z' }], d: null });
  expect([...found]).toEqual([
    { path: 'a (key)', value: 'a' },
    { path: 'a', value: 'x' },
    { path: 'b (key)', value: 'b' },
    { path: 'b[1]', value: 'y' },
    { path: 'b[2].c (key)', value: 'c' },
    { path: 'b[2].c', value: 'z' },
    { path: 'd (key)', value: 'd' },
  ]);
  expect(found.complete).toBe(true);
  expect(stringsIn({ many: Array.from({ length: 10_001 }, () => 's') }).complete).toBe(false);
});

test('metric label values are escaped and a throwing gauge does not break the scrape', () => {
  const errors: string[] = [];
  const m = new Metrics({ onError: (_e, name) => errors.push(name) });
  m.calls.inc({ tool: 'a"b\\c\nd', outcome: 'ok' });
  m.gauge('toolgate_live_instances', 'x', () => {
    throw new Error('broken');
  });
  const out = m.renderMetrics();
  expect(out).toContain('toolgate_calls_total{outcome="ok",tool="a\\"b\\\\c\\nd"} 1');
  expect(out).toContain('# TYPE toolgate_live_instances gauge');
  expect(errors).toEqual(['toolgate_live_instances']);
  expect(() => m.gauge('bad name', 'x', () => [])).toThrow(/invalid metric name/);
});
