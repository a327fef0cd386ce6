import { describe, expect, it } from 'vitest';
import { checkHostPattern, classifyAddress, matchHost } from '../../host/src/sandbox/http/index.js';

type Row = [pattern: string, host: string, port: number, scheme: 'http' | 'https', expected: boolean];

describe('allowed_hosts matching', () => {
  const table: Row[] = [
    // A bare name allows only the scheme's default port.
    ['docs.example.com', 'docs.example.com', 443, 'https', true],
    ['docs.example.com', 'docs.example.com', 80, 'http', true],
    ['docs.example.com', 'docs.example.com', 8443, 'https', false],
    ['docs.example.com', 'docs.example.com', 80, 'https', false],
    ['docs.example.com', 'docs.example.com', 443, 'http', false],
    // An explicit port allows that port only; `:*` any port.
    ['127.0.0.1:8080', '127.0.0.1', 8080, 'http', true],
    ['127.0.0.1:8080', '127.0.0.1', 8081, 'http', false],
    ['127.0.0.1:8080', '127.0.0.2', 8080, 'http', false],
    ['127.0.0.1', '127.0.0.1', 80, 'http', true],
    ['127.0.0.1', '127.0.0.1', 8080, 'http', false],
    ['api.example.com:*', 'api.example.com', 9999, 'http', true],
    // Hostnames compare case-insensitively; a trailing dot is the same name.
    ['Docs.Example.COM', 'docs.example.com', 443, 'https', true],
    ['docs.example.com', 'DOCS.example.com', 443, 'https', true],
    ['docs.example.com', 'docs.example.com.', 443, 'https', true],
    // Globs: one or more labels before the suffix, never the apex, never a look-alike.
    ['*.example.com', 'a.example.com', 443, 'https', true],
    ['*.example.com', 'a.b.example.com', 443, 'https', true],
    ['*.example.com', 'example.com', 443, 'https', false],
    ['*.example.com', 'badexample.com', 443, 'https', false],
    ['*.example.com', 'a.example.com.evil.net', 443, 'https', false],
    ['*.example.com', 'a.example.com', 8443, 'https', false],
    ['*.example.com:8443', 'a.example.com', 8443, 'https', true],
    ['*.EXAMPLE.com', 'X.Example.Com', 80, 'http', true],
    // A glob never matches an IP literal.
    ['*.0.0.1', '127.0.0.1', 80, 'http', false],
    // IPv6 literals, bracketed with a port or bare on the default port.
    ['[::1]:8080', '[::1]', 8080, 'http', true],
    ['[::1]:8080', '::1', 8080, 'http', true],
    ['[::1]:8080', '::1', 8081, 'http', false],
    ['[0:0:0:0:0:0:0:1]:8080', '[::1]', 8080, 'http', true],
    ['::1', '[::1]', 80, 'http', true],
    ['[::1]', '[::1]', 443, 'https', true],
    // IPv4 spellings are canonical before they compare.
    ['127.0.0.1:8080', '2130706433', 8080, 'http', true],
    // IDN names compare in punycode.
    ['bücher.example', 'xn--bcher-kva.example', 443, 'https', true],
    // Invalid patterns match nothing.
    ['foo*.example.com', 'foo1.example.com', 443, 'https', false],
    ['*', 'anything.com', 443, 'https', false],
    ['https://docs.example.com', 'docs.example.com', 443, 'https', false],
    ['docs.example.com:0', 'docs.example.com', 443, 'https', false],
    ['', 'docs.example.com', 443, 'https', false],
  ];
  it.each(table)('pattern %j vs %j port %i %s -> %s', (pattern, host, port, scheme, expected) => {
    expect(matchHost(pattern, host, port, scheme)).toBe(expected);
  });

  it('only http and https schemes match', () => {
    expect(matchHost('docs.example.com', 'docs.example.com', 443, 'ftp' as 'https')).toBe(false);
  });

  it('invalid allowed_hosts entries are explained, valid ones are not', () => {
    expect(checkHostPattern('docs.example.com')).toBeUndefined();
    expect(checkHostPattern('*.example.com:8443')).toBeUndefined();
    expect(checkHostPattern('[::1]:8080')).toBeUndefined();
    expect(checkHostPattern('foo*.example.com')).toMatch(/leftmost label/);
    expect(checkHostPattern('*')).toMatch(/leftmost label/);
    expect(checkHostPattern('host:99999')).toMatch(/1-65535/);
    expect(checkHostPattern('http://host')).toMatch(/not a URL/);
    expect(checkHostPattern('[::1')).toMatch(/closing/);
    expect(checkHostPattern(' host')).toMatch(/spaces/);
    expect(checkHostPattern('*.10.0.0.1')).toMatch(/IP addresses/);
  });
});

describe('address classes', () => {
  const table: Array<[string, string | undefined]> = [
    ['127.0.0.1', 'loopback'],
    ['127.255.0.9', 'loopback'],
    ['::1', 'loopback'],
    ['10.0.0.1', 'private'],
    ['172.16.5.4', 'private'],
    ['172.31.255.255', 'private'],
    ['172.32.0.1', undefined],
    ['192.168.1.1', 'private'],
    ['fc00::1', 'private'],
    ['fd12:3456::1', 'private'],
    ['169.254.1.1', 'link-local'],
    ['fe80::1', 'link-local'],
    ['169.254.169.254', 'cloud metadata'],
    ['fd00:ec2::254', 'cloud metadata'],
    ['100.64.0.1', 'shared (CGNAT)'],
    ['100.127.255.255', 'shared (CGNAT)'],
    ['100.128.0.1', undefined],
    ['0.0.0.0', 'unspecified'],
    ['::', 'unspecified'],
    ['224.0.0.1', 'multicast'],
    ['ff02::1', 'multicast'],
    ['255.255.255.255', 'reserved'],
    // IPv6 forms that carry an IPv4 address are judged by that address.
    ['::ffff:127.0.0.1', 'loopback'],
    ['::ffff:7f00:1', 'loopback'],
    ['::ffff:169.254.169.254', 'cloud metadata'],
    ['64:ff9b::10.0.0.1', 'private'],
    ['2002:c0a8:0101::1', 'private'],
    ['::ffff:8.8.8.8', undefined],
    ['8.8.8.8', undefined],
    ['93.184.216.34', undefined],
    ['2606:4700::1111', undefined],
    ['not-an-ip', 'reserved'],
  ];
  it.each(table)('%s is %s', (address, cls) => {
    expect(classifyAddress(address)).toBe(cls);
  });
});
