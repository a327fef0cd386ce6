// `toolgate new`: for every language the scaffold builds with its own Makefile, loads through its
// own manifest and answers good and bad input through `toolgate call` and its test.sh; with
// `--abi hyper-mcp` (AssemblyScript, C and Rust) the plugin also serves its tools, resource and prompt over MCP.
import { readFile, readdir, writeFile, mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { CLI, ROOT, callTool, run, tempDir } from './helpers.js';

let dir: string;
let cleanup: () => Promise<void>;

beforeAll(async () => {
  ({ dir, cleanup } = await tempDir('new'));
}, 300_000);
afterAll(async () => cleanup?.());

async function listFiles(root: string): Promise<string[]> {
  const entries = await readdir(root, { withFileTypes: true, recursive: true });
  return entries.filter((e) => e.isFile()).map((e) => join(e.parentPath, e.name));
}

const toolgate = (...args: string[]) => run(process.execPath, [CLI, ...args]);

describe.each([
  ['as', 'lib/toolgate.ts', 'assemblyscript/lib/toolgate.ts'],
  ['c', 'include/toolgate.h', 'c/include/toolgate.h'],
  ['rust', 'toolgate_pdk.rs', 'rust/toolgate_pdk.rs'],
  ['wat', 'Makefile', undefined],
] as const)('toolgate new --lang %s', (lang, helper, original) => {
  const tool = `hello_${lang}`;
  const folder = () => join(dir, tool);

  it('scaffolds a folder that builds quietly with its own Makefile', async () => {
    const made = await toolgate('new', tool, '--lang', lang, '--dir', folder());
    expect(made.code, made.stderr).toBe(0);
    expect(made.stdout).toContain(`${tool}.yaml`);
    const build = await run('make', ['--no-print-directory', '-C', folder()], { timeoutMs: 120_000 });
    expect(build.code, build.stderr).toBe(0);
    expect(build.stdout + build.stderr).toBe('');
    if (original !== undefined) {
      // the copy is the helper the bundled examples are built and tested with
      expect(await readFile(join(folder(), helper))).toEqual(await readFile(join(ROOT, 'pdk-examples', original)));
    }
  }, 180_000);

  it('holds no path of this machine (not the checkout, not the folder it was written to)', async () => {
    for (const file of await listFiles(folder())) {
      if (file.includes('/node_modules/') || file.includes('/build/')) continue;
      const text = await readFile(file, 'utf8');
      expect(text, file).not.toContain(ROOT);
      expect(text, file).not.toContain(dir);
    }
  });

  it('answers through toolgate call with its manifest, including Unicode', async () => {
    const ok = await callTool(tool, { name: 'Zoë 🎉' }, folder());
    expect(ok.code, JSON.stringify(ok.result)).toBe(0);
    expect(ok.result.structuredContent).toEqual({ greeting: 'Hello, Zoë 🎉!' });
    const bad = await callTool(tool, { name: '' }, folder());
    expect(bad.code).toBe(1);
    expect(bad.result.error?.message).toContain("argument 'name' must not be empty");
  }, 60_000);

  it('passes its own test.sh', async () => {
    // This checkout's build, not an installed toolgate (test/install runs the installed one).
    const env = { ...process.env, TOOLGATE: `${process.execPath} ${CLI}`, TOOLGATE_HOME: join(dir, 'home') };
    const r = await run('sh', [join(folder(), 'test.sh')], { env, timeoutMs: 120_000 });
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(r.stdout).toContain(`ok: ${tool}`);
  }, 180_000);
});

describe('toolgate new refuses what it cannot scaffold', () => {
  it('refuses a name that is not a tool name (exit 2)', async () => {
    const r = await toolgate('new', 'Bad-Name', '--lang', 'c', '--dir', join(dir, 'bad'));
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('tool name "Bad-Name" must match');
  });

  it('refuses an unknown language (exit 2)', async () => {
    const r = await toolgate('new', 'x', '--lang', 'cobol', '--dir', join(dir, 'x'));
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--lang "cobol" is not one of as, c, rust, wat');
  });

  it('never writes into a folder that already has files', async () => {
    const target = join(dir, 'taken');
    await mkdir(target);
    await writeFile(join(target, 'keep.txt'), 'mine');
    const r = await toolgate('new', 'taken', '--lang', 'wat', '--dir', target);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('already exists and is not empty');
    expect(await readFile(join(target, 'keep.txt'), 'utf8')).toBe('mine');
  });
});

// A TypeScript scaffold's build installs componentize-js (about 500 MB) and builds a component in
// tens of seconds: test/install/installed.test.ts builds and runs one from the installed package.
// Here, what it is given to build with: the build packages pinned exactly as toolgate's lockfile
// pins them, so its npm ci gets the versions toolgate is tested with (and that npm's cache holds).
describe('toolgate new --lang ts', () => {
  const tool = 'hello_ts';
  const folder = () => join(dir, tool);

  it("pins its build packages and all they pull in as toolgate's own lockfile does", async () => {
    const made = await toolgate('new', tool, '--lang', 'ts', '--dir', folder());
    expect(made.code, made.stderr).toBe(0);
    expect(await readFile(join(folder(), 'lib/world.wit'))).toEqual(
      await readFile(join(ROOT, 'pdk-examples/js/lib/world.wit')),
    );
    type Lock = { packages: Record<string, { version?: string; integrity?: string; dev?: boolean }> };
    const pkg = JSON.parse(await readFile(join(folder(), 'package.json'), 'utf8')) as {
      name: string;
      devDependencies: Record<string, string>;
    };
    const lock = JSON.parse(await readFile(join(folder(), 'package-lock.json'), 'utf8')) as Lock & { name: string };
    const ours = JSON.parse(await readFile(join(ROOT, 'package-lock.json'), 'utf8')) as Lock;
    const ourPkg = JSON.parse(await readFile(join(ROOT, 'package.json'), 'utf8')) as {
      devDependencies: Record<string, string>;
    };
    expect(Object.keys(pkg.devDependencies).sort()).toEqual([
      '@bytecodealliance/componentize-js',
      '@bytecodealliance/preview2-shim',
      'esbuild',
    ]);
    for (const [name, version] of Object.entries(pkg.devDependencies))
      expect(version).toBe(ourPkg.devDependencies[name]);
    expect([pkg.name, lock.name]).toEqual(['hello-ts', 'hello-ts']);
    const entries = Object.entries(lock.packages).filter(([path]) => path !== '');
    expect(entries.length).toBeGreaterThan(100);
    for (const [path, entry] of entries) {
      expect(entry.integrity, path).toBe(ours.packages[path]?.integrity);
      expect(entry.dev, path).toBe(true);
    }
  });

  it('the lockfile it carries is the one package-lock.json gives (scripts/js-build-lock.mjs --check)', async () => {
    const r = await run(process.execPath, [join(ROOT, 'scripts/js-build-lock.mjs'), '--check']);
    expect(r.code, r.stderr).toBe(0);
  });
});

describe.each(['as', 'c', 'rust'] as const)('toolgate new --lang %s --abi hyper-mcp', (lang) => {
  const plugin = `plug_${lang}`;
  const folder = () => join(dir, plugin);

  it('scaffolds a v2 plugin that builds quietly and passes its own test.sh', async () => {
    const made = await toolgate('new', plugin, '--lang', lang, '--abi', 'hyper-mcp', '--dir', folder(), '--json');
    expect(made.code, made.stderr).toBe(0);
    expect(JSON.parse(made.stdout)).toMatchObject({ tool: plugin, lang, abi: 'hyper-mcp' });
    expect(await readFile(join(folder(), `${plugin}.yaml`), 'utf8')).toContain('abi: hyper-mcp');
    const build = await run('make', ['--no-print-directory', '-C', folder()], { timeoutMs: 120_000 });
    expect(build.code, build.stderr).toBe(0);
    expect(build.stdout + build.stderr).toBe('');
    const env = { ...process.env, TOOLGATE: `${process.execPath} ${CLI}`, TOOLGATE_HOME: join(dir, 'home') };
    const r = await run('sh', [join(folder(), 'test.sh')], { env, timeoutMs: 120_000 });
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(r.stdout).toContain(`ok: ${plugin}`);
  }, 240_000);

  it('serves its two tools, its resource and its prompt over MCP (serve --stdio)', async () => {
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [CLI, 'serve', '--stdio', '--manifests', folder(), '--no-watch'],
      env: { ...process.env, TOOLGATE_HOME: join(dir, 'home') } as Record<string, string>,
      stderr: 'pipe',
    });
    const client = new Client({ name: 'scaffold-test', version: '1.0.0' });
    await client.connect(transport);
    try {
      const tools = (await client.listTools()).tools.map((t) => t.name).sort();
      expect(tools).toEqual([`${plugin}__add`, `${plugin}__greet`]);
      const sum = await client.callTool({ name: `${plugin}__add`, arguments: { a: 2, b: 3 } });
      expect(sum.structuredContent).toEqual({ sum: 5 });
      const refused = await client.callTool({ name: `${plugin}__add`, arguments: { a: 'two', b: 3 } });
      expect(refused.isError).toBe(true);
      const read = await client.readResource({ uri: `${plugin}://about` });
      expect(read.contents[0]).toMatchObject({
        uri: `${plugin}://about`,
        text: `${plugin} greets people and adds numbers.`,
      });
      const prompt = await client.getPrompt({ name: 'review', arguments: { topic: 'tea' } });
      expect(prompt.messages[0]?.content).toEqual({ type: 'text', text: 'Write a short review of tea.' });
    } finally {
      await client.close();
    }
  }, 120_000);
});

describe('toolgate new --abi refuses what it cannot scaffold', () => {
  it('refuses a language without a hyper-mcp scaffold, an unknown abi and a name that cannot be a plugin (exit 2)', async () => {
    const wat = await toolgate('new', 'p', '--lang', 'wat', '--abi', 'hyper-mcp', '--dir', join(dir, 'p1'));
    expect(wat.code).toBe(2);
    expect(wat.stderr).toContain('--abi hyper-mcp has scaffolds for --lang as, c, rust, not wat');
    const unknown = await toolgate('new', 'p', '--lang', 'c', '--abi', 'wasi', '--dir', join(dir, 'p2'));
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('--abi "wasi" is not one of toolgate, hyper-mcp');
    const name = await toolgate('new', 'two__parts', '--lang', 'c', '--abi', 'hyper-mcp', '--dir', join(dir, 'p3'));
    expect(name.code).toBe(2);
    expect(name.stderr).toContain('plugin name "two__parts" must be at most 48 characters, without "__"');
  });
});
