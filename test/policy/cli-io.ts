// An in-process CliIO that records what a command printed.
import { PassThrough } from 'node:stream';
import type { CliIO } from '../../host/src/cli/command.js';

export function captureIO(cwd: string, env: NodeJS.ProcessEnv = {}): CliIO & { out: () => string; err: () => string } {
  let out = '';
  let err = '';
  return {
    stdout: (t) => void (out += t),
    stderr: (t) => void (err += t),
    stdin: new PassThrough(),
    isTTY: false,
    env,
    cwd,
    out: () => out,
    err: () => err,
  };
}
