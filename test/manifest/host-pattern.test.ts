// The manifest checks allowed_hosts syntax at load; the sandbox matches the same entries at call
// time. Anything the manifest accepts must mean something to the sandbox, or a grant would be
// silently dead. (The sandbox's parser is internal to it; the test reaches in on purpose.)
import { describe, expect, test } from 'vitest';
import { parseHostPattern } from '../../host/src/manifest/host-pattern.js';
import { checkHostPattern } from '../../host/src/sandbox/http/host-pattern.js';

const ACCEPTED = [
  'docs.example.com',
  'DOCS.Example.com',
  'api.example.com:8443',
  'example.com:*',
  '*.example.com',
  '*.example.com:443',
  'localhost',
  '127.0.0.1',
  '127.0.0.1:8080',
  '[::1]',
  '[::1]:8080',
  '::1',
  'xn--bcher-kva.example',
];

const REFUSED: Array<[string, string]> = [
  ['', 'must not be empty'],
  ['https://example.com', 'not a URL'],
  ['user@example.com', 'not a URL'],
  ['example.com/path', 'not a URL'],
  ['example.com:0', 'port between 1 and 65535'],
  ['example.com:65536', 'port between 1 and 65535'],
  ['example.com:http', 'not a number or *'],
  ['api.*.example.com', '* only as the whole first label'],
  ['*', '* only as the whole first label'],
  ['*.com', 'must name a domain after *.'],
  ['*.10.0.0.1', 'cannot put *. before an IP address'],
  ['-bad.example.com', 'not a valid host name'],
  ['exa mple.com', 'not a valid host name'],
  ['[::1', 'unclosed ['],
  ['[::1]x', 'must be [ipv6] or [ipv6]:port'],
  ['1.2.3.999', 'not a valid host name or IPv4 address'],
];

describe('allowed_hosts syntax', () => {
  test.each(ACCEPTED)('%s is accepted by the manifest and understood by the sandbox', (entry) => {
    expect(parseHostPattern(entry)).not.toBeTypeOf('string');
    expect(checkHostPattern(entry.toLowerCase())).toBeUndefined();
  });

  test.each(REFUSED)('%j is refused: %s', (entry, rule) => {
    const parsed = parseHostPattern(entry);
    expect(parsed).toBeTypeOf('string');
    expect(parsed).toContain(rule);
  });

  test('a glob is parsed as a wildcard over its domain, a port as a number', () => {
    expect(parseHostPattern('*.Example.com:8443')).toEqual({ host: 'example.com', wildcard: true, port: 8443 });
    expect(parseHostPattern('example.com:*')).toEqual({ host: 'example.com', wildcard: false, port: 'any' });
    expect(parseHostPattern('[::1]:80')).toEqual({ host: '::1', wildcard: false, port: 80 });
  });
});
