// A command whose reader goes away (`toolgate list | head -1`) ends quietly (issue 23.6): no
// stack trace, exit 0 or the command's own code, for every command at once (the CLI entry).
import { spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { BIN, MANIFESTS, ROOT, removeDir, requireBuilt, tempDir } from './helpers.js';

interface Ended {
  code: number | null;
  signal: NodeJS.Signals | null;
  firstLine: string;
  stderr: string;
}

/** Runs the command and closes its stdout as soon as the first line has arrived, as `head -1` does. */
function runUntilFirstLine(args: string[]): Promise<Ended> {
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, [BIN, ...args], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let stderr = '';
    let firstLine = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      out += chunk;
      const end = out.indexOf('\n');
      if (end !== -1 && firstLine === '') {
        firstLine = out.slice(0, end);
        child.stdout.destroy();
      }
    });
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => void (stderr += chunk));
    child.on('error', fail);
    child.on('close', (code, signal) => done({ code, signal, firstLine, stderr }));
  });
}

describe('closed stdout', () => {
  let dir = '';
  beforeAll(() => {
    requireBuilt();
    dir = tempDir('closed-stdout');
    // Far more output than a pipe buffers (64 KiB), so the command is still writing when its
    // reader goes away whatever the timing.
    const greet = readFileSync(join(MANIFESTS, 'greet.yaml'), 'utf8').replace(
      '../pdk-examples/',
      `${ROOT}/pdk-examples/`,
    );
    for (let i = 0; i < 400; i += 1)
      writeFileSync(join(dir, `greet_${i}.yaml`), greet.replace('name: greet', `name: greet_${i}`));
  });
  afterAll(() => removeDir(dir));

  test('a command whose stdout reader goes away ends quietly: exit 0, no stack trace', async () => {
    const ended = await runUntilFirstLine(['list', '--manifests', dir]);
    expect(ended.firstLine).toMatch(/^greet_\d+@1\.0\.0$/);
    expect(ended.stderr).not.toMatch(/EPIPE|Unhandled 'error' event|\n\s+at /);
    expect(ended.stderr).toBe('');
    expect(ended.signal).toBeNull();
    expect(ended.code).toBe(0);
  });
});
