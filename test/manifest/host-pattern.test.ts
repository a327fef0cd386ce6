// allowed_hosts has one grammar, the sandbox's: the manifest validates and describes entries with
// the same parser the sandbox matches requests with, so a grant the manifest accepts can never be
// silently dead (or mean something else) at call time.
import { describe, expect, test } from 'vitest';
import { ManifestError } from '../../host/src/manifest/errors.js';
import { describeHost } from '../../host/src/manifest/index.js';
import { parseManifest } from '../../host/src/manifest/parse.js';
import { matchHost } from '../../host/src/sandbox/http/index.js';
import { manifestWith, yamlOf } from './helpers.js';

const FILE = '/manifests/hosts.yaml';
const withHosts = (hosts: unknown[]) => yamlOf(manifestWith({ capabilities: { allowed_hosts: hosts } }));

function refusal(hosts: unknown[]): ManifestError {
  try {
    parseManifest(withHosts(hosts), FILE);
  } catch (err) {
    if (err instanceof ManifestError) return err;
    throw err;
  }
  throw new Error('the manifest was accepted');
}

// [entry, a request it admits: host, port, scheme]
const ACCEPTED: Array<[string, string, number, 'http' | 'https']> = [
  ['docs.example.com', 'docs.example.com', 443, 'https'],
  ['DOCS.Example.com', 'docs.example.com', 443, 'https'],
  ['api.example.com:8443', 'api.example.com', 8443, 'https'],
  ['example.com:*', 'example.com', 9999, 'http'],
  ['*.example.com', 'a.b.example.com', 443, 'https'],
  ['127.0.0.1:8080', '127.0.0.1', 8080, 'http'],
  ['[::1]:8080', '::1', 8080, 'http'],
  ['::1', '::1', 80, 'http'],
];

const REFUSED: Array<[string, string]> = [
  ['', 'non-empty host without spaces'],
  [' example.com', 'non-empty host without spaces'],
  ['https://example.com', 'not a URL'],
  ['example.com:0', 'must be 1-65535 or *'],
  ['example.com:http', 'must be 1-65535 or *'],
  ['api.*.example.com', 'allowed only as the whole leftmost label'],
  ['*.10.0.0.1', 'a glob cannot cover IP addresses'],
  ['[::1', 'missing its closing ]'],
  ['[::1]x', 'only :port may follow an IPv6 literal'],
  ['1.2.3.999', 'is not a valid host name or IP address'],
];

describe('allowed_hosts in a manifest', () => {
  test.each(ACCEPTED)('%s is accepted at load and admits the request it names', (entry, host, port, scheme) => {
    const m = parseManifest(withHosts([entry]), FILE);
    expect(m.capabilities.allowed_hosts).toHaveLength(1);
    expect(matchHost(m.capabilities.allowed_hosts[0] ?? '', host, port, scheme)).toBe(true);
  });

  test.each(REFUSED)('%j is refused at load naming the file, the entry and the rule (%s)', (entry, rule) => {
    const err = refusal(['ok.example.com', entry]);
    expect(err.message).toContain(FILE);
    expect(err.message).toContain('capabilities.allowed_hosts[1]');
    expect(err.message).toContain(rule);
  });

  test('a bare name means the default ports, a glob any subdomain: the consent wording says so', () => {
    expect(describeHost('docs.example.com')).toBe('may connect to docs.example.com (https, port 443; http, port 80)');
    expect(describeHost('*.example.com:8443')).toBe('may connect to any subdomain of example.com (port 8443)');
    expect(describeHost('[::1]:*')).toBe('may connect to [::1] (any port)');
  });
});
