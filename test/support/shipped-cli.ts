// The command users run: dist/cli/main.js (the esbuild bundle `npm pack` ships) in a child
// process, with only PATH and the env a test names. Tests of CLI behaviour go through it so a
// fault of the bundle (a lazily imported dependency that loses its named exports) fails them too.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';

export const SHIPPED_BIN = resolve(import.meta.dirname, '../../dist/cli/main.js');

export interface ShippedRun {
  code: number;
  out: string;
  err: string;
}

export async function runShipped(
  argv: string[],
  opts: { cwd: string; env?: Record<string, string>; stdin?: string; timeoutMs?: number },
): Promise<ShippedRun> {
  if (!existsSync(SHIPPED_BIN)) throw new Error(`${SHIPPED_BIN} is missing: run make build first`);
  const env = { PATH: process.env['PATH'] ?? '/usr/bin:/bin', ...(opts.env ?? {}) };
  const child = spawn(process.execPath, [SHIPPED_BIN, ...argv], {
    cwd: opts.cwd,
    env,
    stdio: ['pipe', 'pipe', 'pipe'],
    timeout: opts.timeoutMs ?? 60_000,
  });
  let out = '';
  let err = '';
  child.stdout.setEncoding('utf8').on('data', (t: string) => (out += t));
  child.stderr.setEncoding('utf8').on('data', (t: string) => (err += t));
  child.stdin.on('error', () => {}); // a command that never reads its stdin may exit first
  child.stdin.end(opts.stdin ?? '');
  const code = await new Promise<number>((done) =>
    child.on('close', (c, signal) => done(c ?? (signal !== null ? 128 : 1))),
  );
  return { code, out, err };
}
