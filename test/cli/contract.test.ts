// The CLI contract of issue 16, through the built binary: help and version everywhere, "did you
// mean" for what was mistyped, one exit-code contract (0 ok, 1 the call failed, 2 usage, config or
// load) with the reason in one human stderr line, and --manifests / --http in the forms people type.
import { copyFileSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { spawn } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { commands } from '../../host/src/cli/index.js';
import { BIN, MANIFESTS, ROOT, removeDir, requireBuilt, tempDir, tg } from './helpers.js';

let home = '';
let env: Record<string, string> = {};
beforeAll(() => {
  requireBuilt();
  home = tempDir('contract-home');
  env = { TOOLGATE_HOME: home };
});
afterAll(() => removeDir(home));

const GREET_WASM = join(ROOT, 'pdk-examples/wat/build/greet.wasm');

/** greet's manifest, written into `dir` with its module beside it and `edit` applied. */
function greetIn(dir: string, edit: (yaml: string) => string = (y) => y): string {
  copyFileSync(GREET_WASM, join(dir, 'greet.wasm'));
  const yaml = readFileSync(join(MANIFESTS, 'greet.yaml'), 'utf8').replace(
    /path: \S+greet\.wasm/,
    'path: ./greet.wasm',
  );
  const file = join(dir, 'greet.yaml');
  writeFileSync(file, edit(yaml));
  return file;
}

/** stderr without the no-policies warning the tests opt into. */
function lines(stderr: string): string[] {
  return stderr.split('\n').filter((l) => l !== '' && !l.includes('running with NO policies'));
}

describe('help and version', () => {
  it("help CMD prints the command's help for every command and subcommand (exit 0)", { timeout: 120_000 }, async () => {
    // (docs.test.ts runs CMD --help for every command; its text is the command's own help.)
    for (const entry of commands) {
      const viaHelp = await tg(['help', ...entry.path], { env });
      const command = 'load' in entry ? await entry.load() : entry;
      expect(viaHelp.code, `help ${entry.path.join(' ')}`).toBe(0);
      expect(viaHelp.stdout).toContain(`Usage: toolgate ${entry.path.join(' ')}`);
      expect(viaHelp.stdout).toBe(`${command.help}\n`);
    }
  });

  it('a group word with --help or after help lists its subcommands (exit 0); alone it is a usage error (exit 2)', async () => {
    for (const args of [
      ['trust', '--help'],
      ['help', 'trust'],
    ]) {
      const r = await tg(args, { env });
      expect(r.code).toBe(0);
      expect(r.stdout).toMatch(/trust add[\s\S]*trust list[\s\S]*trust remove/);
    }
    expect((await tg(['trust'], { env })).code).toBe(2);
  });

  it('version, --version, -V and a lone -v print the version in package.json; version --json adds node', async () => {
    const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string };
    for (const args of [['version'], ['--version'], ['-V'], ['-v']]) {
      expect(await tg(args, { env })).toMatchObject({ code: 0, stdout: `${pkg.version}\n` });
    }
    const json = await tg(['version', '--json'], { env });
    expect(JSON.parse(json.stdout)).toEqual({ version: pkg.version, node: process.versions.node });
  });
});

describe('did you mean', () => {
  it('an unknown command gets the closest command in one line, not the whole help (exit 2)', async () => {
    const r = await tg(['cal', 'greet'], { env });
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(
      "toolgate: unknown command 'cal'; did you mean 'call'?\nRun 'toolgate help' for the list of commands.\n",
    );
    const sub = await tg(['trust', 'lst'], { env });
    expect(sub.code).toBe(2);
    expect(sub.stderr).toContain("'trust lst' is not a command; did you mean 'trust list'?");
    const help = await tg(['help', 'inpsect'], { env });
    expect(help.code).toBe(2);
    expect(help.stderr).toContain("did you mean 'inspect'?");
  });

  it("an unknown flag gets the command's closest flag, never Node's parser text (exit 2)", {
    timeout: 60_000,
  }, async () => {
    const cases: [string[], string][] = [
      [['call', 'echo', '--arg', '{}'], '--args'],
      [['inspect', 'greet', '--jsn'], '--json'],
      [['serve', '--htp', '0'], '--http'],
      [['schema', '--frmat', 'mcp'], '--format'],
      [['new', 'x', '--lnag', 'c'], '--lang'],
      [['policy', 'explain', 'echo', '--agnet', 'a'], '--agent'],
      [['install', 'x', '--yse'], '--yes'],
    ];
    for (const [args, suggestion] of cases) {
      const r = await tg(args, { env });
      const name = args[0] === 'policy' ? 'policy explain' : args[0];
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stderr.split('\n')[0], args.join(' ')).toMatch(
        new RegExp(`^toolgate ${name}: unknown option --\\w+; did you mean '${suggestion}'\\?$`),
      );
      expect(r.stderr).toContain(`Run 'toolgate ${name} --help' for usage.`);
      expect(r.stderr).not.toContain('To specify a positional argument');
    }
    const missing = await tg(['call', 'echo', '--args'], { env });
    expect(missing.stderr).toContain('toolgate call: --args needs a value');
  });

  it('an unknown tool gets the closest tool name from call, inspect and policy explain (exit 2, nothing on stdout)', async () => {
    for (const args of [
      ['call', 'gret'],
      ['inspect', 'gret'],
      ['policy', 'explain', 'gret', '--policies', 'none'],
    ]) {
      const r = await tg([...args, '--manifests', MANIFESTS], { env });
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stdout).toBe('');
      expect(lines(r.stderr)[0]).toMatch(/: no tool named "gret"; did you mean "greet"\? \(looked in .*manifests\)$/);
    }
  });
});

describe('one exit-code contract, the reason in one human line', () => {
  it('a manifest that does not load is exit 2 for call and inspect, one stderr line naming the manifest path, the field and the rule', async () => {
    const dir = tempDir('badmanifest');
    try {
      const file = greetIn(dir, (y) => y.replace(/timeout_ms: \d+/, 'timeout_ms: -5'));
      for (const command of ['call', 'inspect']) {
        const r = await tg(
          [command, 'greet', '--manifests', dir, ...(command === 'call' ? ['--args', '{"name":"Ada"}'] : [])],
          { env },
        );
        expect(r.code, command).toBe(2);
        expect(lines(r.stderr), command).toEqual([
          `toolgate ${command}: tool "greet" did not load: ${file}: capabilities.timeout_ms: must be >= 1`,
        ]);
      }
    } finally {
      removeDir(dir);
    }
  });

  it('a missing module names the manifest and module.path; only the shipped examples are told to run make examples', async () => {
    const dir = tempDir('nomodule');
    try {
      const file = greetIn(dir, (y) => y.replace('path: ./greet.wasm', 'path: ./gone.wasm'));
      const r = await tg(['call', 'greet', '--manifests', file, '--args', '{"name":"Ada"}'], { env });
      expect(r.code).toBe(2);
      expect(lines(r.stderr)[0]).toBe(
        `toolgate call: tool "greet" did not load: ${file}: module.path: module file ${join(dir, 'gone.wasm')} does not exist (build the module first)`,
      );
      expect(r.stderr).not.toContain('make examples');
    } finally {
      removeDir(dir);
    }
  });

  it('a tool call that fails is exit 1; a broken neighbour manifest is named in a human line and does not stop the call', async () => {
    const dir = tempDir('neighbour');
    try {
      greetIn(dir);
      writeFileSync(join(dir, 'other.yaml'), 'apiVersion: toolgate/v1\nname: other\n');
      const ok = await tg(['call', 'greet', '--manifests', dir, '--args', '{"name":"Ada"}', '--policies', 'none'], {
        env,
      });
      expect(ok.code, ok.stderr).toBe(0);
      const stderr = lines(ok.stderr);
      expect(stderr).toHaveLength(1);
      expect(stderr[0]).toMatch(new RegExp(`^toolgate call: ${join(dir, 'other.yaml')}: `));
      const failed = await tg(['call', 'echo', '--args', '{"text":5}', '--policies', 'none', '--manifests', dir], {
        env,
      });
      expect(failed.code).toBe(1);
    } finally {
      removeDir(dir);
    }
  });

  it('usage mistakes are exit 2 with one line saying what is wrong and where to read more', async () => {
    const r = await tg(['uninstall'], { env });
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(
      "toolgate uninstall: expected exactly 1 tool name, got 0\nRun 'toolgate uninstall --help' for usage.\n",
    );
  });
});

describe('--manifests and --http in the forms people type', () => {
  it('--manifests takes a manifest file as well as a folder (call, inspect, schema, list)', {
    timeout: 60_000,
  }, async () => {
    const file = join(MANIFESTS, 'greet.yaml');
    const call = await tg(['call', 'greet', '--manifests', file, '--args', '{"name":"Ada"}', '--policies', 'none'], {
      env,
    });
    expect(call.code, call.stderr).toBe(0);
    expect(call.stdout).toContain('Ada');
    expect((await tg(['inspect', 'greet', '--manifests', file], { env })).code).toBe(0);
    const schema = await tg(['schema', '--format', 'anthropic', '--manifests', file, '--policies', 'none'], { env });
    expect((JSON.parse(schema.stdout) as { name: string }[]).map((t) => t.name)).toEqual(['greet']);
    const list = await tg(['list', '--manifests', file, '--json'], { env });
    expect((JSON.parse(list.stdout) as { name: string }[]).map((t) => t.name)).toEqual(['greet']);
    const missing = await tg(['call', 'greet', '--manifests', join(MANIFESTS, 'nope.yaml')], { env });
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain(`--manifests ${join(MANIFESTS, 'nope.yaml')}: no such file or directory`);
  });

  it('call and inspect in a folder holding toolgate manifests pick them up; other YAML there is left alone', async () => {
    const dir = tempDir('scaffold');
    try {
      greetIn(dir);
      writeFileSync(join(dir, 'compose.yaml'), 'services:\n  web: { image: nginx }\n');
      const r = await tg(['call', 'greet', '--args', '{"name":"Ada"}', '--policies', 'none'], { env, cwd: dir });
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).toContain('Ada');
      expect(lines(r.stderr)).toEqual([]);
      expect((await tg(['inspect', 'greet'], { env, cwd: dir })).code).toBe(0);
    } finally {
      removeDir(dir);
    }
  });

  it('serve --http with a bare port listens on 127.0.0.1 and serves the manifests lying in its folder', async () => {
    const dir = tempDir('serveport');
    greetIn(dir);
    const child = spawn(process.execPath, [BIN, 'serve', '--http', '0', '--policies', 'none', '--no-watch'], {
      cwd: dir,
      env: { ...process.env, ...env },
    });
    try {
      let stderr = '';
      const url = await new Promise<string>((resolve, reject) => {
        child.stderr.on('data', (chunk: Buffer) => {
          stderr += chunk.toString();
          const m = /listening on (http:\/\/[^/\s]+)\/mcp/.exec(stderr);
          if (m?.[1] !== undefined) resolve(m[1]);
        });
        child.on('exit', (code) => reject(new Error(`serve exited ${String(code)}: ${stderr}`)));
      });
      expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      const tools = (await (await fetch(`${url}/v1/tools`)).json()) as { tools: { name: string }[] };
      expect(tools.tools.map((t) => t.name)).toEqual(['greet']);
    } finally {
      const exited = new Promise((resolve) => child.on('exit', resolve));
      child.kill('SIGTERM');
      await exited;
      removeDir(dir);
    }
  });
});
