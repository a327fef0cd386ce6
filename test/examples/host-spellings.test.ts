// Issue 11 hole 8, as the attack: a publisher spells a loopback grant the way a deny list does not
// expect (0x7f.1, 2130706433, LOCALHOST.), the sandbox would connect, and the real CLI with a
// guard-hosts deny of [127.0.0.1, localhost] must refuse the call; `inspect` shows the host the
// sandbox reaches, not the spelling.
import { once } from 'node:events';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import { CLI, MANIFESTS, callTool, run, tempDir } from './helpers.js';

let server: Server;
let port: number;
let hits = 0;
let dir: string;
let cleanup: () => Promise<void>;

async function manifestFor(name: string, host: string): Promise<string> {
  const m = parse(await readFile(join(MANIFESTS, 'fetch_url.yaml'), 'utf8')) as {
    module: { path: string };
    capabilities: { allowed_hosts: string[] };
  };
  m.module.path = join(MANIFESTS, m.module.path);
  m.capabilities.allowed_hosts = [host];
  const folder = join(dir, name);
  await mkdir(folder, { recursive: true });
  await writeFile(join(folder, 'fetch_url.yaml'), stringify(m));
  return folder;
}

beforeAll(async () => {
  server = createServer((_req, res) => {
    hits++;
    res.end('loopback service');
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  port = (server.address() as AddressInfo).port;
  ({ dir, cleanup } = await tempDir('spellings'));
  await mkdir(join(dir, 'policies'));
  await writeFile(
    join(dir, 'policies', 'hosts.yaml'),
    'entries:\n  - { id: no-loopback, use: guard-hosts, with: { deny: ["127.0.0.1", "localhost"] } }\n',
  );
}, 300_000);

afterAll(async () => {
  server?.close();
  await cleanup?.();
});

describe('a loopback grant spelled to dodge a deny list', () => {
  it.each(['0x7f.1', '2130706433', '127.1'])(
    'allowed_hosts %s:PORT is live without policies, and guard-hosts deny [127.0.0.1, localhost] refuses it',
    async (spelling) => {
      const folder = await manifestFor(`m-${spelling}`, `${spelling}:${port}`);
      const before = hits;
      const open = await callTool('fetch_url', { url: `http://${spelling}:${port}/` }, folder);
      expect(open.result.isError, JSON.stringify(open.result)).toBe(false); // the sandbox connects: the spelling is real
      expect(hits).toBe(before + 1);

      const r = await run(process.execPath, [
        CLI,
        'call',
        'fetch_url',
        '--manifests',
        folder,
        '--policies',
        join(dir, 'policies'),
        '--args',
        JSON.stringify({ url: `http://example.com/` }),
        '--json',
      ]);
      const result = JSON.parse(r.stdout) as { isError: boolean; error?: { code: string; message: string } };
      expect(result.error?.code).toBe('GUARD_DENIED');
      expect(result.error?.message).toContain(`may reach 127.0.0.1:${port}, which is denied (127.0.0.1)`);
      expect(hits).toBe(before + 1);
    },
  );

  it('inspect shows LOCALHOST. and 0x7f.1 as the hosts the sandbox would reach', async () => {
    const folder = await manifestFor('m-inspect', `0x7f.1:${port}`);
    const r = await run(process.execPath, [CLI, 'inspect', 'fetch_url', '--manifests', folder, '--json']);
    const report = JSON.parse(r.stdout) as {
      capabilities: { allowedHosts: string[] };
      capabilityDescription: string[];
    };
    expect(report.capabilities.allowedHosts).toEqual([`127.0.0.1:${port}`]);
    expect(report.capabilityDescription).toContain(`may connect to 127.0.0.1 (port ${port})`);
    const named = await manifestFor('m-named', 'LOCALHOST.:*');
    const text = await run(process.execPath, [CLI, 'inspect', 'fetch_url', '--manifests', named]);
    expect(text.stdout).toContain('may connect to localhost (any port)');
    expect(text.stdout).not.toContain('LOCALHOST.');
  });
});
