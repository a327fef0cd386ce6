import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const root = resolve(import.meta.dirname, '../..');
const bin = join(root, 'dist/cli/main.js');

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

function run(
  args: string[],
  options: { cwd?: string; input?: string; env?: Record<string, string> } = {},
): Promise<Run> {
  return new Promise((done) => {
    const child = execFile(
      process.execPath,
      [bin, ...args],
      { cwd: options.cwd ?? root, timeout: 20_000, env: { ...process.env, TOOLGATE_HOME: tmp, ...options.env } },
      (err, stdout, stderr) =>
        done({ code: err ? (typeof err.code === 'number' ? err.code : null) : 0, stdout, stderr }),
    );
    if (options.input !== undefined) child.stdin?.end(options.input);
    else child.stdin?.end();
  });
}

let tmp = '';
beforeAll(() => {
  tmp = mkdtempSync(join(tmpdir(), 'toolgate-cli-'));
  statSync(bin); // built by test/global-setup.ts
});

afterAll(() => {
  rmSync(tmp, { recursive: true, force: true });
});

describe('toolgate call (the built binary)', () => {
  it('call echo --json prints the ToolResult on one line and exits 0', async () => {
    const r = await run(['call', 'echo', '--args', '{"text":"hi"}', '--json']);
    expect(r.code).toBe(0);
    expect(r.stdout.endsWith('\n')).toBe(true);
    expect(r.stdout.trim().split('\n')).toHaveLength(1);
    expect(r.stdout.startsWith('{"isError":false,"content":[')).toBe(true);
    const result = JSON.parse(r.stdout) as Record<string, unknown>;
    expect(result).toMatchObject({
      isError: false,
      content: [{ type: 'text', text: 'hi' }],
      structuredContent: { text: 'hi' },
    });
    expect(result.meta).toMatchObject({ tool: 'echo', decision: { final: 'allowed' } });
  });

  it('without --json it prints the content text and exits 0', async () => {
    const r = await run(['call', 'echo', '--args', '{"text":"hello world"}']);
    expect(r).toMatchObject({ code: 0, stdout: 'hello world\n' });
  });

  it('an error result exits 1 (invalid arguments); an unknown tool is not a call but a usage error (exit 2)', async () => {
    const unknown = await run(['call', 'no_such_tool', '--json']);
    expect(unknown.code).toBe(2);
    expect(unknown.stdout).toBe('');
    expect(unknown.stderr).toContain('no tool named "no_such_tool"');
    const invalid = await run(['call', 'echo', '--args', '{"text":5}']);
    expect(invalid.code).toBe(1);
    expect(invalid.stdout).toBe('invalid arguments for tool "echo": argument "text": must be string\n');
    expect(invalid.stderr).toContain('INVALID_ARGS');
  });

  it('bad JSON in --args exits 2 naming the flag and the parse error', async () => {
    const r = await run(['call', 'echo', '--args', '{"text":']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--args: not valid JSON: .*JSON/);
    expect(r.stdout).toBe('');
  });

  it('unknown commands, unknown flags and a missing tool name exit 2 with a message', async () => {
    const cmd = await run(['frobnicate']);
    expect(cmd.code).toBe(2);
    expect(cmd.stderr).toContain("unknown command 'frobnicate'");
    const flag = await run(['call', 'echo', '--nope']);
    expect(flag.code).toBe(2);
    expect(flag.stderr).toContain('unknown option --nope');
    const none = await run(['call']);
    expect(none.code).toBe(2);
    expect(none.stderr).toContain('expected exactly 1 tool name');
    const both = await run(['call', 'echo', '--args', '{}', '--args-file', 'x.json']);
    expect(both.code).toBe(2);
    expect(both.stderr).toContain('either --args or --args-file');
    expect((await run([])).code).toBe(2);
  });

  it('--help works at the top and for every command, and exits 0', { timeout: 120_000 }, async () => {
    const top = await run(['--help']);
    expect(top.code).toBe(0);
    expect(top.stdout).toContain('Usage: toolgate <command>');
    expect(top.stdout).toMatch(/\n {2}call +call one tool/);
    const call = await run(['call', '--help']);
    expect(call.code).toBe(0);
    expect(call.stdout).toContain('Usage: toolgate call <tool>');
    for (const line of top.stdout.split('\n').filter((l) => /^ {2}\S/.test(l))) {
      const word = line.trim().split(/\s{2,}/)[0] ?? '';
      const r = await run([...word.split(' '), '--help']);
      expect(r.code, `toolgate ${word} --help`).toBe(0);
      expect(r.stdout).toContain('Usage:');
    }
  });

  it('--args-file reads the arguments from a file or stdin; an unreadable file exits 2', async () => {
    const file = join(tmp, 'args.json');
    writeFileSync(file, '{"text":"from a file"}');
    expect(await run(['call', 'echo', '--args-file', file])).toMatchObject({ code: 0, stdout: 'from a file\n' });
    expect(await run(['call', 'echo', '--args-file', '-'], { input: '{"text":"from stdin"}' })).toMatchObject({
      code: 0,
      stdout: 'from stdin\n',
    });
    const missing = await run(['call', 'echo', '--args-file', join(tmp, 'nope.json')]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('--args-file: cannot read');
    writeFileSync(file, 'not json');
    const bad = await run(['call', 'echo', '--args-file', file]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain(`--args-file ${file}: not valid JSON`);
  });

  it('a --manifests or --policies folder that does not exist is a configuration error (exit 2)', async () => {
    const m = await run(['call', 'echo', '--args', '{"text":"x"}', '--manifests', join(tmp, 'missing')]);
    expect(m.code).toBe(2);
    expect(m.stderr).toContain(`--manifests ${join(tmp, 'missing')}: no such file or directory`);
    const p = await run(['call', 'echo', '--args', '{"text":"x"}', '--policies', join(tmp, 'missing')]);
    expect(p.code).toBe(2);
    expect(p.stderr).toContain(`--policies ${join(tmp, 'missing')}: directory not found: ${join(tmp, 'missing')}`);
    expect((await run(['call', 'echo', '--args', '{"text":"x"}', '--manifests', tmp, '--agent', 'a1'])).code).toBe(0);
  });

  it('a bad TOOLGATE_LOG_LEVEL is a configuration error (exit 2) naming the variable', async () => {
    const r = await run(['call', 'echo', '--args', '{"text":"x"}'], { env: { TOOLGATE_LOG_LEVEL: 'loud' } });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('TOOLGATE_LOG_LEVEL: must be one of');
  });
});
