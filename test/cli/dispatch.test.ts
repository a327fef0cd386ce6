import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { EXIT, commands, runCli, type CliIO, type Command, type CommandEntry } from '../../host/src/cli/index.js';

function io(): CliIO & { out: string; err: string } {
  const state = { out: '', err: '' };
  return Object.assign(state, {
    stdout: (t: string) => void (state.out += t),
    stderr: (t: string) => void (state.err += t),
    stdin: new PassThrough(),
    isTTY: false,
    env: {},
    cwd: process.cwd(),
  });
}

const explain: Command = {
  path: ['policy', 'explain'],
  summary: 'say which entry decides',
  help: 'Usage: toolgate policy explain <tool>',
  run: async (argv, cio) => (cio.stdout(`explain ${argv.join(' ')}\n`), EXIT.ok),
};

describe('toolgate dispatch', () => {
  it('multi-word commands are matched by their words; a group word alone lists its subcommands (exit 2, or 0 with --help)', async () => {
    const table: CommandEntry[] = [explain];
    const a = io();
    expect(await runCli(['policy', 'explain', 'echo'], a, table)).toBe(0);
    expect(a.out).toBe('explain echo\n');
    const b = io();
    expect(await runCli(['policy'], b, table)).toBe(2);
    expect(b.err).toContain('policy explain  say which entry decides');
    const c = io();
    expect(await runCli(['policy', '--help'], c, table)).toBe(0);
    expect(c.out).toContain('Usage: toolgate policy <subcommand>');
  });

  it('a lazy command is loaded only when run, and a command that throws exits 2 with a message instead of a stack', async () => {
    let loaded = 0;
    const table: CommandEntry[] = [
      {
        path: ['boom'],
        summary: 'fails',
        load: async () => {
          loaded++;
          return {
            path: ['boom'],
            summary: 'fails',
            help: 'Usage: toolgate boom',
            run: () => Promise.reject(new Error('kaput')),
          };
        },
      },
    ];
    const top = io();
    expect(await runCli(['--help'], top, table)).toBe(0);
    expect(loaded).toBe(0);
    const r = io();
    expect(await runCli(['boom'], r, table)).toBe(2);
    expect(r.err).toBe('toolgate boom: unexpected error: kaput\n');
    expect(loaded).toBe(1);
  });

  it('every lazy entry in the command table loads the command it names, with the same words and summary', async () => {
    for (const entry of commands) {
      if (!('load' in entry)) continue;
      const loaded = await entry.load();
      expect({ path: loaded.path, summary: loaded.summary }).toEqual({ path: entry.path, summary: entry.summary });
      expect(loaded.help).toContain('Usage:');
    }
  }, 60_000);
});
