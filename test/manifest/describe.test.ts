import { describe, expect, test } from 'vitest';
import { describeCapabilities, describeHost } from '../../host/src/manifest/describe.js';
import { parseManifest } from '../../host/src/manifest/parse.js';
import { manifestWith, yamlOf } from './helpers.js';

const words = (caps: Record<string, unknown>) =>
  describeCapabilities(parseManifest(yamlOf(manifestWith({ capabilities: caps })), 'd.yaml'));

describe('describeCapabilities says what a tool may touch in plain words', () => {
  test('a manifest with no grants says so, with its default limits', () => {
    expect(words({})).toEqual([
      'has no network access',
      'has no file access',
      'may use up to 16 MiB of memory',
      'each call may run up to 10 s',
      'each result may be up to 1 MiB',
      'accepts arguments up to 1 MiB',
      'runs at most 2 instances at once',
    ]);
  });

  test('hosts, ports and globs are spelled out', () => {
    const lines = words({
      allowed_hosts: ['docs.example.com', '127.0.0.1:8080', '*.example.org', 'any.example.net:*', '[::1]:9000'],
      memory: { max_http_response_bytes: 512 * 1024 },
    });
    expect(lines).toContain('may connect to docs.example.com (https, port 443; http, port 80)');
    expect(lines).toContain('may connect to 127.0.0.1 (port 8080)');
    expect(lines).toContain('may connect to any subdomain of example.org (https, port 443; http, port 80)');
    expect(lines).toContain('may connect to any.example.net (any port)');
    expect(lines).toContain('may connect to [::1] (port 9000)');
    expect(lines).toContain('each HTTP response may be up to 512 KiB');
    expect(lines).not.toContain('has no network access');
  });

  test('read-only and read-write mounts are told apart, naming the host folder as written', () => {
    const lines = words({
      allowed_paths: { '/data': { host: './workspace', mode: 'ro' }, '/out': { host: '/srv/out', mode: 'rw' } },
    });
    expect(lines).toContain('may read /data (host ./workspace)');
    expect(lines).toContain('may read and write /out (host /srv/out)');
    expect(lines).toContain('may write up to 64 MiB to /out in each call');
    expect(lines.some((l) => l.includes('write up to') && l.includes('/data'))).toBe(false);
    expect(lines).not.toContain('has no file access');
  });

  test('memory, time, secrets and config are listed', () => {
    const lines = words({
      memory: { max_pages: 160 },
      timeout_ms: 5000,
      max_output_bytes: 1536 * 1024,
      secrets: ['GITHUB_TOKEN'],
      config: { user_agent: 'toolgate' },
    });
    expect(lines).toContain('may use up to 10 MiB of memory');
    expect(lines).toContain('each call may run up to 5 s');
    expect(lines).toContain('each result may be up to 1.5 MiB');
    expect(lines).toContain('receives secret GITHUB_TOKEN');
    expect(lines).toContain('receives configuration user_agent');
  });

  test('sub-second timeouts are given in ms', () => {
    expect(words({ timeout_ms: 250 })).toContain('each call may run up to 250 ms');
  });

  test('describeHost names a bare IPv6 literal in brackets', () => {
    expect(describeHost('::1')).toBe('may connect to [::1] (https, port 443; http, port 80)');
  });
});
