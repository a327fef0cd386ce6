// Logs: human lines when a person reads stderr (a real terminal, through script(1)), pino JSON
// otherwise; -v/-q and TOOLGATE_LOG_LEVEL set the level; a person running `call` sees the tool's
// own log lines at the default level.
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { BIN, ROOT, requireBuilt, tg } from './helpers.js';

// core_kit's log_spam export logs "spam line from the module" 10,000 times (capped per call).
const SPAM = ['call', join(ROOT, 'test/fixtures/build/core_kit.wasm'), '--entry', 'log_spam', '--policies', 'none'];
const MODULE_LINE = 'spam line from the module';

/** Runs the binary with stdin, stdout and stderr on a pseudo-terminal; returns what the terminal showed. */
function onTerminal(
  args: string[],
  env: Record<string, string> = {},
): Promise<{ code: number | null; screen: string }> {
  const quoted = [process.execPath, BIN, ...args].map((a) => `'${a.replace(/'/g, "'\\''")}'`).join(' ');
  return new Promise((done) => {
    execFile(
      'script',
      ['-qfec', quoted, '/dev/null'],
      { env: { ...process.env, ...env }, timeout: 60_000, maxBuffer: 16 * 1024 * 1024 },
      (err, stdout) =>
        done({ code: err === null ? 0 : typeof err.code === 'number' ? err.code : null, screen: stdout }),
    );
  });
}

beforeAll(requireBuilt);

describe('logs', () => {
  it("on a terminal, log lines are human (clock time, level name) and a person running call sees the tool's log lines by default", async () => {
    const r = await onTerminal(SPAM);
    expect(r.code).toBe(0);
    const line = r.screen.split(/\r?\n/).find((l) => l.includes(MODULE_LINE));
    expect(line).toMatch(
      /^\[\d\d:\d\d:\d\d\] INFO: spam line from the module \{"tool":"core_kit","source":"module"\}$/,
    );
    expect(r.screen).not.toContain('"level":');
  });

  it('off a terminal, log lines are pino JSON and the default level (warn) leaves info out', async () => {
    const quiet = await tg(SPAM);
    expect(quiet.code).toBe(0);
    expect(quiet.stderr).not.toContain(MODULE_LINE);
    // Whatever does reach the log at warn is a pino JSON line (the -v test below proves the form).
    const logLines = quiet.stderr.split('\n').filter((l) => l !== '' && !l.startsWith('toolgate: WARNING'));
    for (const l of logLines) expect(JSON.parse(l)).toMatchObject({ level: 40, time: expect.any(Number) as number });
  });

  it('-v shows info (and TOOLGATE_LOG_FORMAT=pretty the human form off a terminal); -q keeps errors only', async () => {
    const verbose = await tg([...SPAM, '-v']);
    const first = verbose.stderr.split('\n').find((l) => l.includes(MODULE_LINE));
    expect(JSON.parse(first ?? 'null')).toMatchObject({ level: 30, msg: MODULE_LINE, tool: 'core_kit' });
    const pretty = await tg([...SPAM, '-v'], { env: { TOOLGATE_LOG_FORMAT: 'pretty' } });
    expect(pretty.stderr).toMatch(/\] INFO: spam line from the module/);
    const quiet = await tg([...SPAM, '-q']);
    expect(quiet.stderr.split('\n').filter((l) => l.startsWith('{'))).toEqual([]);
  });

  it('TOOLGATE_LOG_LEVEL sets the level when no flag does; -v wins over it; -v with -q and bad values are usage errors', async () => {
    const env = await tg(SPAM, { env: { TOOLGATE_LOG_LEVEL: 'info' } });
    expect(env.stderr).toContain(MODULE_LINE);
    const silent = await tg([...SPAM, '-v'], { env: { TOOLGATE_LOG_LEVEL: 'silent' } });
    expect(silent.stderr).toContain(MODULE_LINE);
    const both = await tg([...SPAM, '-v', '-q']);
    expect(both.code).toBe(2);
    expect(both.stderr).toContain('give either -v or -q, not both');
    const format = await tg(SPAM, { env: { TOOLGATE_LOG_FORMAT: 'fancy' } });
    expect(format.code).toBe(2);
    expect(format.stderr).toContain('TOOLGATE_LOG_FORMAT: must be pretty or json');
  });
});
