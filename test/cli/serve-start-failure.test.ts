// `toolgate serve` releases what it started when it cannot finish starting: the clean-up runs
// through one disposer stack, so a start that fails half-way leaves nothing behind.
import { existsSync, readdirSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { removeDir, requireBuilt, tempDir, tg } from './helpers.js';

let taken: Server;
let port: number;

beforeAll(async () => {
  requireBuilt();
  taken = createServer();
  await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
  port = (taken.address() as { port: number }).port;
});

afterAll(async () => {
  await new Promise((resolve) => taken.close(resolve));
});

describe('serve: a failed start', () => {
  it('a port already in use is a usage error (exit 2) and the approval secret written for that start is removed again', async () => {
    const home = tempDir('serve-inuse');
    try {
      const ran = await tg(['serve', '--http', String(port), '--policies', 'none', '--no-watch'], {
        env: { TOOLGATE_HOME: home },
      });
      expect(ran.code).toBe(2);
      expect(ran.stderr).toMatch(/--http: cannot listen: .*EADDRINUSE/);
      // listening comes after the secret is written (no --token), so it was written and taken back
      expect(existsSync(join(home, 'approval-secret'))).toBe(false);
      expect(readdirSync(home).filter((f) => f.startsWith('approval-secret'))).toEqual([]);
    } finally {
      removeDir(home);
    }
  });
});
