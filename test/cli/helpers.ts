// Drives the built binary (dist/cli/main.js) as a person or a script would: argv in, exit code,
// stdout and stderr out. Each test gets its own TOOLGATE_HOME and working folder.
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

export const ROOT = resolve(import.meta.dirname, '../..');
export const BIN = join(ROOT, 'dist/cli/main.js');
export const MANIFESTS = join(ROOT, 'manifests');

export interface Ran {
  code: number | null;
  stdout: string;
  stderr: string;
}

export interface RunOptions {
  cwd?: string;
  env?: Record<string, string>;
  input?: string;
  timeoutMs?: number;
}

export function requireBuilt(): void {
  if (!existsSync(BIN)) throw new Error(`${BIN} is missing: run make build first`);
}

export function tg(args: string[], options: RunOptions = {}): Promise<Ran> {
  return new Promise((done) => {
    const child = execFile(
      process.execPath,
      [BIN, ...args],
      {
        cwd: options.cwd ?? ROOT,
        timeout: options.timeoutMs ?? 30_000,
        env: { ...process.env, ...options.env },
        maxBuffer: 16 * 1024 * 1024,
      },
      (err, stdout, stderr) =>
        done({ code: err === null ? 0 : typeof err.code === 'number' ? err.code : null, stdout, stderr }),
    );
    child.stdin?.end(options.input ?? '');
  });
}

export function tempDir(prefix: string): string {
  return mkdtempSync(join(tmpdir(), `tg-cli-${prefix}-`));
}

export function removeDir(dir: string): void {
  rmSync(dir, { recursive: true, force: true });
}

/** Calls `fn` with each JSON line `stream` gives (a server's stdout), decoded as UTF-8 across chunks. */
export function onJsonLines(stream: NodeJS.ReadableStream, fn: (message: unknown) => void): void {
  let buffered = '';
  stream.setEncoding('utf8');
  stream.on('data', (chunk: string) => {
    buffered += chunk;
    for (let at = buffered.indexOf('\n'); at >= 0; at = buffered.indexOf('\n')) {
      const line = buffered.slice(0, at);
      buffered = buffered.slice(at + 1);
      fn(JSON.parse(line));
    }
  });
}
