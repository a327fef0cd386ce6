// One host grammar (issue 11 hole 8): a host spelled any way the sandbox's parser accepts means the
// same host to every consumer. Each spelling below goes through the manifest (stored normal form),
// the sandbox's matcher, `inspect`'s wording, the install ceiling and guard-hosts, and they must
// agree; each refused spelling is refused by all of them.
import { afterEach, describe, expect, test } from 'vitest';
import { parseHostPattern } from '../../host/src/host-grammar/index.js';
import { ManifestError } from '../../host/src/manifest/errors.js';
import { describeHost } from '../../host/src/manifest/index.js';
import { parseManifest } from '../../host/src/manifest/parse.js';
import { ceilingViolations, hostCovered, parseCeiling } from '../../host/src/registry/index.js';
import { readManifest } from '../../host/src/registry/manifest-adapter.js';
import { matchHost } from '../../host/src/sandbox/index.js';
import type { ToolCapabilities } from '../../host/src/tool/index.js';
import { manifestWith, yamlOf } from '../manifest/helpers.js';
import { removeTemps, setup, text, tool, type Setup } from './helpers.js';

const FILE = '/manifests/spelled.yaml';
const caps = (hosts: string[]): ToolCapabilities => ({ allowedHosts: hosts, allowedPaths: {}, secrets: [] });

interface Group {
  /** The normal form every spelling is stored as. */
  normal: string;
  /** A request the entry admits: host as a URL carries it, port, scheme. */
  request: [string, number, 'http' | 'https'];
  spellings: string[];
}

const GROUPS: Group[] = [
  {
    normal: '127.0.0.1:8080',
    request: ['127.0.0.1', 8080, 'http'],
    spellings: [
      '127.0.0.1:8080',
      '127.1:8080',
      '0x7f.1:8080',
      '0x7f.0.0.1:8080',
      '2130706433:8080',
      '0177.0.0.1:8080',
      '127.0.0.1.:8080',
      '127%2e0%2e0%2e1:8080',
      '１２７.０.０.１:8080',
      '127.0.0.1:08080',
    ],
  },
  {
    normal: 'localhost:8080',
    request: ['localhost', 8080, 'http'],
    spellings: ['localhost:8080', 'LOCALHOST.:8080', 'LocalHost:8080', 'localhost.:8080'],
  },
  { normal: 'localhost', request: ['localhost', 443, 'https'], spellings: ['LOCALHOST.', 'Localhost'] },
  {
    normal: '[::1]:8080',
    request: ['[::1]', 8080, 'http'],
    spellings: ['[::1]:8080', '[0:0:0:0:0:0:0:1]:8080', '[::0001]:8080', '[0::1]:8080'],
  },
  { normal: '[::1]', request: ['[::1]', 443, 'https'], spellings: ['::1', '[::1]', '0:0:0:0:0:0:0:1'] },
  {
    normal: '[::ffff:7f00:1]:8080',
    request: ['[::ffff:127.0.0.1]', 8080, 'http'],
    spellings: ['[::ffff:127.0.0.1]:8080', '[::FFFF:7F00:1]:8080', '[0:0:0:0:0:ffff:127.0.0.1]:8080'],
  },
  {
    normal: '169.254.169.254',
    request: ['169.254.169.254', 80, 'http'],
    spellings: ['169.254.169.254', '2852039166', '0xa9fea9fe', '169.254.43518', '0251.0376.0251.0376'],
  },
  {
    normal: 'xn--bcher-kva.de:*',
    request: ['xn--bcher-kva.de', 9000, 'https'],
    spellings: ['bücher.de:*', 'BÜCHER.DE.:*', 'xn--bcher-kva.de:*', 'XN--BCHER-KVA.de:*'],
  },
  {
    normal: '*.example.com',
    request: ['api.example.com', 443, 'https'],
    spellings: ['*.example.com', '*.EXAMPLE.com.', '*.Example.Com'],
  },
  {
    normal: 'docs.example.com:443',
    request: ['docs.example.com', 443, 'https'],
    spellings: ['docs.example.com:443', 'DOCS.example.com.:443', 'docs.example.com:0443'],
  },
];

const REFUSED = [
  'user@example.com',
  'user:pw@example.com:80',
  '[fe80::1%25eth0]:80',
  'fe80::1%eth0',
  'example.com:0',
  'example.com:65536',
  'example.com:http',
  '*.127.0.0.1',
  'api.*.example.com',
  'exa mple.com',
  'https://example.com',
  'example.com/path',
  'a..b.com',
  '[::1',
  '1.2.3.999',
];

function storedForm(entry: string): string {
  const m = parseManifest(yamlOf(manifestWith({ capabilities: { allowed_hosts: [entry] } })), FILE);
  return m.capabilities.allowed_hosts[0] ?? '';
}

function manifestRefusal(entry: string): string {
  try {
    parseManifest(yamlOf(manifestWith({ capabilities: { allowed_hosts: [entry] } })), FILE);
  } catch (err) {
    if (err instanceof ManifestError) return err.message;
    throw err;
  }
  return 'accepted';
}

function ceilingRefusal(entry: string): string {
  try {
    parseCeiling(`allowed_hosts: [${JSON.stringify(entry)}]\n`, '/home/ceiling.yaml');
  } catch (err) {
    return (err as Error).message;
  }
  return 'accepted';
}

let open: Setup[] = [];
afterEach(async () => {
  for (const s of open) await s.cleanup();
  open = [];
  removeTemps();
});

async function guardSet(rule: 'deny' | 'allow', list: string[], tools: Parameters<typeof setup>[1]): Promise<Setup> {
  const s = await setup(
    { '10-hosts.yaml': `entries:\n  - { id: hosts, use: guard-hosts, with: { ${rule}: ${JSON.stringify(list)} } }\n` },
    tools,
  );
  open.push(s);
  return s;
}

describe('one host grammar: every consumer reads a spelling as the same host', () => {
  test.each(GROUPS)(
    'the manifest stores every spelling of $normal in that normal form, and parsing it again changes nothing',
    ({ normal, spellings }) => {
      for (const s of spellings) expect(storedForm(s), s).toBe(normal);
      const again = parseHostPattern(normal);
      expect(typeof again === 'string' ? again : again.source).toBe(normal);
      expect(storedForm(normal)).toBe(normal);
    },
  );

  test.each(GROUPS)(
    'the sandbox admits the same request under every spelling of $normal',
    ({ normal, request, spellings }) => {
      const [host, port, scheme] = request;
      for (const s of [normal, ...spellings]) expect(matchHost(s, host, port, scheme), s).toBe(true);
      // ... and the request spelled the way the entry was spelled reaches the same decision.
      const url = new URL(
        `${scheme}://${spellings[1] ?? spellings[0]}/`.replace(/:\*\//, '/').replace(/^(https?:\/\/)\*\./, '$1x.'),
      );
      expect(matchHost(normal, url.hostname, url.port === '' ? port : Number(url.port), scheme)).toBe(true);
    },
  );

  test.each(GROUPS)('inspect words every spelling of $normal the same way', ({ normal, spellings }) => {
    for (const s of spellings) expect(describeHost(s), s).toBe(describeHost(normal));
  });

  test.each(GROUPS)(
    'a ceiling naming $normal covers every spelling of it, and every spelling as a ceiling covers it',
    ({ normal, spellings }) => {
      for (const s of spellings) {
        expect(hostCovered(s, normal), `${s} under ${normal}`).toBe(true);
        expect(hostCovered(normal, s), `${normal} under ${s}`).toBe(true);
      }
    },
  );

  test.each(GROUPS)(
    'guard-hosts denying $normal denies a tool that may reach any spelling of it, and a URL argument spelled so',
    async ({ normal, spellings }) => {
      const tools = spellings.map((s, i) => tool(`t${i}`, { capabilities: caps([s]) }));
      const s = await guardSet(
        'deny',
        [normal],
        [...tools, tool('other', { capabilities: caps(['unrelated.example.org']) }), tool('fetch')],
      );
      for (let i = 0; i < spellings.length; i++) {
        const r = await s.call(`t${i}`);
        expect(r.error?.code, spellings[i]).toBe('GUARD_DENIED');
        expect(text(r)).toContain(`is denied (${normal.replace(/:\*$/, '')})`);
      }
      expect((await s.call('other')).isError).toBe(false);
      for (const sp of spellings.filter((x) => !x.startsWith('*') && !x.endsWith(':*') && !/^[0-9a-f:]+$/i.test(x))) {
        const r = await s.call('fetch', { url: `http://${sp}/x` });
        expect(r.error?.code, `http://${sp}/x`).toBe('GUARD_DENIED');
      }
    },
  );

  test.each(GROUPS)(
    'guard-hosts denying any spelling of $normal denies a tool holding the normal form',
    async ({ normal, spellings }) => {
      for (const sp of spellings) {
        const s = await guardSet('deny', [sp], [tool('t', { capabilities: caps([normal]) })]);
        expect((await s.call('t')).error?.code, sp).toBe('GUARD_DENIED');
      }
    },
  );

  test.each(REFUSED)('%j is refused by the manifest, the ceiling, guard-hosts and the sandbox alike', async (entry) => {
    const m = manifestRefusal(entry);
    expect(m).toContain(FILE);
    expect(m).toContain('capabilities.allowed_hosts[0]');
    const c = ceilingRefusal(entry);
    expect(c).toContain('/home/ceiling.yaml: allowed_hosts.0');
    await expect(guardSet('deny', [entry], [])).rejects.toThrow(/with\.deny\.0|deny\[0\]|deny\.0/);
    expect(typeof parseHostPattern(entry)).toBe('string');
    for (const g of GROUPS) expect(hostCovered(entry, g.normal)).toBe(false);
  });
});

describe('the attacks hole 8 names', () => {
  test('guard-hosts deny [127.0.0.1, localhost] stops 127.1, 0x7f.0.0.1, 2130706433 and LOCALHOST. in allowed_hosts and in URL arguments', async () => {
    const spelled = [
      '127.1:9000',
      '0x7f.0.0.1:9000',
      '2130706433:9000',
      'LOCALHOST.:9000',
      '[::ffff:127.0.0.1]:9000',
      '[::127.0.0.1]:9000',
      '127.0.0.2:9000',
      '0.0.0.0:9000',
      '[::1]:9000',
      'a.localhost:9000',
    ];
    const s = await guardSet(
      'deny',
      ['127.0.0.1', 'localhost'],
      [...spelled.map((h, i) => tool(`t${i}`, { capabilities: caps([h]) })), tool('fetch')],
    );
    for (let i = 0; i < spelled.length; i++)
      expect((await s.call(`t${i}`)).error?.code, spelled[i]).toBe('GUARD_DENIED');
    for (const h of spelled) {
      expect((await s.call('fetch', { url: `http://${h}/approve` })).error?.code, h).toBe('GUARD_DENIED');
      expect(
        (await s.call('fetch', { note: `please GET http://${h}/v1/approvals now` })).error?.code,
        `in text: ${h}`,
      ).toBe('GUARD_DENIED');
    }
    expect((await s.call('fetch', { host: 'LOCALHOST.:9000' })).error?.code).toBe('GUARD_DENIED');
    expect((await s.call('fetch', { url: 'https://example.com/' })).isError).toBe(false);
    expect((await s.call('fetch', { version: '1.5', count: '2130706433' })).isError).toBe(false); // a number is not a host
  });

  test('guard-hosts deny of a CIDR range covers every address in it however spelled; a glob of numbers is refused with a hint', async () => {
    const s = await guardSet(
      'deny',
      ['10.0.0.0/8', '[fc00::]/7'],
      [
        tool('a', { capabilities: caps(['012.1:80']) }),
        tool('b', { capabilities: caps(['[fd00::5]:443']) }),
        tool('c', { capabilities: caps(['11.0.0.1']) }),
      ],
    );
    expect((await s.call('a')).error?.code).toBe('GUARD_DENIED');
    expect((await s.call('b')).error?.code).toBe('GUARD_DENIED');
    expect((await s.call('c')).isError).toBe(false);
    await expect(guardSet('deny', ['10.*'], [])).rejects.toThrow(/CIDR, e\.g\. 10\.0\.0\.0\/8/);
    await expect(guardSet('deny', ['10.0.0.1/8'], [])).rejects.toThrow(/bits set past its \/8 prefix/);
  });

  test('guard-hosts allow-lists judge a glob by what it may reach: *.example.com is not inside docs.example.com', async () => {
    const s = await guardSet(
      'allow',
      ['docs.example.com', '*.github.com'],
      [
        tool('wide', { capabilities: caps(['*.example.com']) }),
        tool('narrow', { capabilities: caps(['DOCS.example.com.:8443']) }),
        tool('gh', { capabilities: caps(['*.api.github.com']) }),
      ],
    );
    expect((await s.call('wide')).error?.code).toBe('GUARD_DENIED');
    expect((await s.call('narrow')).isError).toBe(false);
    expect((await s.call('gh')).isError).toBe(false);
  });

  test('a ceiling of [127.0.0.1:8080] admits a package asking 0x7f.1:8080 and refuses one asking 127.0.0.2:8080 or localhost:8080', () => {
    const ceiling = parseCeiling('allowed_hosts: ["127.0.0.1:8080"]\n', '/c.yaml');
    const capsOf = (host: string) =>
      readManifest(yamlOf(manifestWith({ capabilities: { allowed_hosts: [host] } })), FILE).capabilities;
    expect(ceilingViolations(capsOf('0x7f.1:8080'), ceiling)).toEqual([]);
    expect(ceilingViolations(capsOf('127.0.0.2:8080'), ceiling)).toEqual([
      'network host 127.0.0.2:8080 is outside the allowed hosts [127.0.0.1:8080]',
    ]);
    expect(ceilingViolations(capsOf('localhost:8080'), ceiling)).toHaveLength(1);
    // The upgrade diff and consent see the normal form, never the spelling.
    expect(capsOf('2130706433:8080').hosts).toEqual(['127.0.0.1:8080']);
  });
});
