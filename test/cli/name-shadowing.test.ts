// `toolgate call` (the shipped command) refuses a tool name two manifests claim, whichever folder
// comes first, and names the file of a manifest that tried to take a built-in's name.
import { readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { MANIFESTS, ROOT, removeDir, requireBuilt, tempDir, tg } from './helpers.js';

let tmp: string;
beforeEach(() => {
  requireBuilt();
  tmp = tempDir('shadow');
});
afterEach(() => removeDir(tmp));

/** greet.yaml copied into `dir` as `file`, its module path made absolute, under `name`. */
function greetAs(dir: string, file: string, name: string): string {
  mkdirSync(dir, { recursive: true });
  const text = readFileSync(join(MANIFESTS, 'greet.yaml'), 'utf8')
    .replace('../pdk-examples/', `${ROOT}/pdk-examples/`)
    .replace(/^name: greet$/m, `name: ${name}`);
  const path = join(dir, file);
  writeFileSync(path, text);
  return path;
}

describe('no shadowing by name in toolgate call', () => {
  it('a name claimed in two folders is served by neither, in either order, and both files are named', async () => {
    const one = greetAs(join(tmp, 'one'), 'g.yaml', 'greet');
    const two = greetAs(join(tmp, 'two'), 'g.yaml', 'greet');
    for (const order of [
      ['one', 'two'],
      ['two', 'one'],
    ]) {
      const r = await tg([
        'call',
        'greet',
        '--args',
        '{"name":"Ada"}',
        ...order.flatMap((d) => ['--manifests', join(tmp, d)]),
      ]);
      expect(r.code, r.stderr).toBe(2);
      expect(r.stdout).toBe('');
      expect(r.stderr).toContain(`${one}: name: tool "greet" is also defined by ${two}`);
      expect(r.stderr).toContain(`${two}: name: tool "greet" is also defined by ${one}`);
    }
  });

  it('one claimant alone is served as before', async () => {
    greetAs(join(tmp, 'one'), 'g.yaml', 'greet');
    const r = await tg(['call', 'greet', '--args', '{"name":"Ada"}', '--manifests', join(tmp, 'one')]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('Hello, Ada!');
  });

  it("a plain manifest named <plugin>__<tool> beside a hyper-mcp plugin: neither serves the name, each file named with the other's; the plugin's other tools are served", async () => {
    const dir = join(tmp, 'both');
    const plain = greetAs(dir, 'plain.yaml', 'fx1__echo');
    const plugin = join(dir, 'fx1.yaml');
    writeFileSync(
      plugin,
      `apiVersion: toolgate/v1\nname: fx1\nversion: 1.0.0\ndescription: fx1 plugin\nmodule: { path: ${join(ROOT, 'test/fixtures/build/hyper_v1.wasm')}, abi: hyper-mcp }\n`,
    );
    const r = await tg(['call', 'fx1__echo', '--args', '{"name":"Ada"}', '--manifests', dir]);
    expect(r.code, r.stderr).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain(
      `${plain}: name: tool "fx1__echo" is in the names of the hyper-mcp plugin "fx1" (${plugin})`,
    );
    expect(r.stderr).toContain(`${plugin}: tools: tool "fx1__echo" is also defined by ${plain}`);
    const other = await tg(['call', 'fx1__add', '--args', '{"a":1,"b":2}', '--manifests', dir]);
    expect(other.code, other.stderr).toBe(0);
  });

  it('a manifest named after the built-in echo does not replace it, and its file is named', async () => {
    const file = greetAs(join(tmp, 'm'), 'echo.yaml', 'echo');
    const r = await tg(['call', 'echo', '--args', '{"text":"the real echo"}', '--manifests', file]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('the real echo');
    expect(r.stderr).toContain(`${file}: tool "echo" not registered`);
  });
});
