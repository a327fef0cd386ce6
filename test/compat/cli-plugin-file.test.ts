// `toolgate call ./plugin.wasm --entry NAME --input TEXT`: a stock plugin tried without a manifest,
// raw input and text output, no capabilities, through the ordinary pipeline (the real CLI).
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

const root = resolve(import.meta.dirname, '../..');
const bin = join(root, 'dist/cli/main.js');
const BUILD = join(root, 'test/fixtures/build');
const home = mkdtempSync(join(tmpdir(), 'toolgate-plugin-cli-'));
afterAll(() => rmSync(home, { recursive: true, force: true }));

function cli(...argv: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((done) => {
    execFile(
      process.execPath,
      [bin, ...argv],
      { cwd: BUILD, env: { ...process.env, TOOLGATE_HOME: home }, timeout: 60_000 },
      (err, stdout, stderr) => done({ code: err ? (typeof err.code === 'number' ? err.code : 1) : 0, stdout, stderr }),
    );
  });
}

describe('toolgate call ./plugin.wasm --entry NAME --input TEXT', () => {
  it('calls the export with the raw input and prints the output as text', async () => {
    const r = await cli(
      'call',
      './compat_echo.wasm',
      '--entry',
      'echo',
      '--input',
      'héllo {raw}',
      '--policies',
      'none',
    );
    expect(r.stdout).toBe('héllo {raw}\n');
    expect(r.code).toBe(0);
  });

  it('the plugin has no capabilities: an HTTP request is refused', async () => {
    const r = await cli(
      'call',
      './core_kit.wasm',
      '--entry',
      'http_get',
      '--input',
      '{"url":"http://127.0.0.1:9/"}',
      '--policies',
      'none',
      '--json',
    );
    const result = JSON.parse(r.stdout.trim().split('\n').pop() ?? '{}') as {
      isError: boolean;
      error?: { message: string };
    };
    expect(result.isError).toBe(true);
    expect(result.error?.message).toMatch(/no network access|allowed_hosts/);
    expect(r.code).toBe(1);
  });

  it('bad input: no --entry, --args with a plugin file, or a missing file is a usage error (exit 2)', async () => {
    const noEntry = await cli('call', './compat_echo.wasm', '--policies', 'none');
    expect(noEntry.code).toBe(2);
    expect(noEntry.stderr).toMatch(/--entry NAME is required/);
    const withArgs = await cli('call', './compat_echo.wasm', '--entry', 'echo', '--args', '{}', '--policies', 'none');
    expect(withArgs.code).toBe(2);
    expect(withArgs.stderr).toMatch(/give --input TEXT, not --args/);
    const missing = await cli('call', './nope.wasm', '--entry', 'echo', '--policies', 'none');
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/nope\.wasm: cannot use this plugin file/);
  });
});

describe('toolgate inspect ./plugin.wasm', () => {
  it('shows imports, exports, possible entries and what a manifest would need, without running it', async () => {
    const r = await cli('inspect', './compat_user_import.wasm', '--json');
    expect(r.code).toBe(0);
    const report = JSON.parse(r.stdout) as Record<string, unknown>;
    expect(report['imports']).toEqual(['extism:host/user.hello_world', 'user.test']);
    expect(report['entries']).toEqual(['run']);
    expect((report['manifestNeeds'] as string[]).join('\n')).toMatch(/module\.link: \{ "extism:host\/user"/);
    expect(report['pdk']).toMatch(/unknown/);
  });

  it('a file that is not WebAssembly is a usage error naming it', async () => {
    const r = await cli('inspect', '../core_kit.wat.wasm');
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/core_kit\.wat\.wasm: not a WebAssembly module/);
  });
});
