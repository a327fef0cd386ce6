// The small rules under install: ceiling host coverage, capability growth, the signed statement
// and progress output.
import { describe, expect, it } from 'vitest';
import {
  ceilingViolations,
  createProgress,
  diffCapabilities,
  generateSigningKey,
  hostCovered,
  parseCeiling,
  signedStatement,
  type CapabilitySet,
} from '../../host/src/registry/index.js';

const base: CapabilitySet = {
  hosts: ['api.example.com'],
  paths: [{ guest: '/data', host: '/srv/data', mode: 'ro' }],
  maxPages: 16,
  maxHttpResponseBytes: 1 << 20,
  maxVarBytes: 1 << 20,
  timeoutMs: 1000,
  maxInputBytes: 1 << 20,
  maxOutputBytes: 1 << 20,
  poolMax: 2,
  config: {},
  secrets: [],
  mcp: [],
};

describe('ceiling', () => {
  it('a *.domain ceiling covers subdomains and narrower wildcards, never the bare domain or a wider one', () => {
    expect(hostCovered('api.example.com', '*.example.com')).toBe(true);
    expect(hostCovered('a.b.example.com:8443', '*.example.com')).toBe(true);
    expect(hostCovered('*.api.example.com', '*.example.com')).toBe(true);
    expect(hostCovered('example.com', '*.example.com')).toBe(false);
    expect(hostCovered('evilexample.com', '*.example.com')).toBe(false);
    expect(hostCovered('*.com', '*.example.com')).toBe(false);
    expect(hostCovered('api.example.com:8080', 'api.example.com:443')).toBe(false);
    expect(hostCovered('api.example.com:443', 'api.example.com:443')).toBe(true);
  });

  it('the ceiling names every excess: rw paths, memory, timeout, secrets', () => {
    const ceiling = parseCeiling(
      'allow_rw_paths: false\nmax_pages: 8\nmax_timeout_ms: 500\nallowed_secrets: []\n',
      'c.yaml',
    );
    const caps: CapabilitySet = { ...base, paths: [{ guest: '/w', host: '/tmp', mode: 'rw' }], secrets: ['TOKEN'] };
    expect(ceilingViolations(caps, ceiling)).toEqual([
      'read-write mount /w -> /tmp is not allowed (allow_rw_paths: false)',
      'memory.max_pages 16 is above the ceiling of 8',
      'timeout_ms 1000 is above the ceiling of 500',
      'secret TOKEN is not in the allowed secrets',
    ]);
    expect(ceilingViolations(base, parseCeiling('{}', 'empty.yaml'))).toEqual([]);
    expect(() => parseCeiling('max_pages: -1\n', 'neg.yaml')).toThrow(/neg\.yaml: max_pages:/);
  });
});

describe('capability growth', () => {
  it('a new host, a ro->rw mount, more memory or a new secret is growth; less of anything is not', () => {
    expect(diffCapabilities(base, base)).toEqual({ grew: false, lines: [] });
    expect(diffCapabilities(base, { ...base, hosts: [] })).toMatchObject({ grew: false });
    expect(diffCapabilities(base, { ...base, timeoutMs: 500, maxPages: 8 })).toMatchObject({ grew: false });
    expect(diffCapabilities(base, { ...base, hosts: ['api.example.com', 'b.example.com'] }).grew).toBe(true);
    const rw = diffCapabilities(base, { ...base, paths: [{ guest: '/data', host: '/srv/data', mode: 'rw' }] });
    expect(rw.grew).toBe(true);
    expect(rw.lines[0]).toContain('(was read-only)');
    expect(diffCapabilities(base, { ...base, maxHttpResponseBytes: 2 << 20 }).grew).toBe(true);
    expect(diffCapabilities(base, { ...base, secrets: ['TOKEN'] }).grew).toBe(true);
    expect(diffCapabilities(base, { ...base, maxVarBytes: 8 << 20 }).lines).toEqual(['+ vars: 1 MiB -> 8 MiB']);
    expect(
      ceilingViolations({ ...base, maxVarBytes: 8 << 20 }, parseCeiling('max_var_bytes: 1048576\n', 'c.yaml')),
    ).toEqual(['memory.max_var_bytes 8388608 is above the ceiling of 1048576']);
  });
});

describe('capabilities.mcp in the registry', () => {
  it('a new MCP client feature (sampling) is growth on upgrade, and a ceiling without it refuses the tool', () => {
    const sampling: CapabilitySet = { ...base, mcp: ['sampling'] };
    expect(diffCapabilities(base, sampling)).toEqual({ grew: true, lines: ['+ mcp client: may use sampling'] });
    expect(diffCapabilities(sampling, base)).toEqual({ grew: false, lines: ['- mcp client: may use sampling'] });
    // a set recorded before the key existed counts as none
    const old = { ...base } as Partial<CapabilitySet>;
    delete old.mcp;
    expect(diffCapabilities(old as CapabilitySet, sampling).grew).toBe(true);
    const ceiling = parseCeiling('allowed_mcp: [logging, progress]\n', 'c.yaml');
    expect(ceilingViolations({ ...base, mcp: ['logging', 'sampling'] }, ceiling)).toEqual([
      'mcp client feature sampling is not in the allowed features',
    ]);
    expect(() => parseCeiling('allowed_mcp: [telepathy]\n', 'bad.yaml')).toThrow(/bad\.yaml: allowed_mcp/);
  });
});

describe('signatures', () => {
  it('the signed statement lists name, version and every file digest in name order', () => {
    const text = signedStatement('t', '1.0.0', { 'module.wasm': 'sha256:bb', 'manifest.yaml': 'sha256:aa' });
    expect(text).toBe(
      'toolgate-package-signature-v1\nname t\nversion 1.0.0\nfile manifest.yaml sha256:aa\nfile module.wasm sha256:bb\n',
    );
    const a = generateSigningKey();
    const b = generateSigningKey();
    expect(a.keyId).toMatch(/^ed25519:[0-9a-f]{16}$/);
    expect(a.keyId).not.toBe(b.keyId);
  });
});

describe('progress', () => {
  it('a terminal gets a redrawn bar, a log gets start and end lines, --quiet gets nothing', () => {
    let bar = '';
    const p = createProgress('bar', (t) => (bar += t));
    p?.start('pkg', 2048);
    p?.advance(1024);
    p?.advance(1024);
    p?.done();
    expect(bar).toContain('\rpkg [########################] 100% 2.0 KiB/2.0 KiB');
    let lines = '';
    const l = createProgress('lines', (t) => (lines += t));
    l?.start('pkg', 10);
    l?.advance(10);
    l?.done();
    expect(lines).toBe('downloading pkg (10 B)\ndownloaded pkg: 10 B\n');
    expect(createProgress('quiet', () => undefined)).toBeUndefined();
  });
});
