// The HTTP callback channel works in the command that ships (dist/cli/main.js, the esbuild bundle),
// not only in the TypeScript build: undici is loaded lazily there, and a CommonJS module's named
// exports sit on `default` in the bundle (docs/decisions.md, "Server approvals").
import { once } from 'node:events';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MANIFESTS, requireBuilt, tg } from '../cli/helpers.js';

let server: Server;
let answer = 'allowed-once';
const asked: unknown[] = [];
let dir: string;

function policySet(url: string): string {
  const set = mkdtempSync(join(tmpdir(), 'tg-callback-set-'));
  writeFileSync(
    join(set, 'set.yaml'),
    [
      'entries:',
      '  - id: ask-greet',
      '    use: ask',
      '    with: { tools: [greet] }',
      '  - id: approvals',
      '    use: approvals',
      `    with: { channels: [{ http: { url: "${url}" } }] }`,
      '',
    ].join('\n'),
  );
  return set;
}

beforeAll(async () => {
  requireBuilt();
  server = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      asked.push(JSON.parse(body));
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ outcome: answer }));
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  dir = policySet(`http://127.0.0.1:${(server.address() as AddressInfo).port}/approve`);
});

afterAll(() => {
  server.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('the shipped command asks an HTTP callback', () => {
  const call = (): ReturnType<typeof tg> =>
    tg(['call', 'greet', '--args', '{"name":"Ada"}', '--manifests', MANIFESTS, '--policies', dir, '--json']);

  it("an ask answered 'allowed-once' by the callback runs the call in the bundled command", async () => {
    answer = 'allowed-once';
    const before = asked.length;
    const r = await call();
    expect(r.stderr).not.toMatch(/is not a function|no approval channel/);
    expect(r.code).toBe(0);
    expect(asked.length).toBe(before + 1);
    expect(JSON.stringify(asked.at(-1))).toContain('greet');
  });

  it("an ask answered 'rejected' by the callback is denied, and the callback was reached", async () => {
    answer = 'rejected';
    const before = asked.length;
    const r = await call();
    expect(r.code).toBe(1);
    expect(asked.length).toBe(before + 1);
  });
});
