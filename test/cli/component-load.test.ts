// A component tool (module.abi: component, docs/authoring-ts.md) that is not what toolgate runs is
// refused at load by the shipped command, and the refusal names the manifest file, module.path, the
// module file and the reason: a component with an extra import, one of another world (importing a
// WASI interface in place of toolgate's host, or exporting another function than `call`), one whose
// core module needs more memory than max_pages allows, and a component file over the module size cap.
import { mkdirSync, readFileSync, truncateSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT, removeDir, requireBuilt, tempDir, tg } from './helpers.js';

const HOSTILE = join(ROOT, 'test/fixtures/build/js_hostile.wasm');
const OTHER_WORLD = join(ROOT, 'test/fixtures/build/js_other_world.wasm');
/** The module size cap of every manifest (manifest/module-file.ts, DEFAULT_MAX_MODULE_BYTES). */
const MODULE_CAP = 64 * 1024 * 1024;

let dir = '';
beforeAll(() => {
  requireBuilt();
  dir = tempDir('component-load');
});
afterAll(() => removeDir(dir));

/** A manifest for `wasm` in a folder of its own; returns the folder and the manifest's path. */
function manifestFor(name: string, wasm: string, maxPages = 512): { folder: string; file: string } {
  const folder = join(dir, name);
  const file = join(folder, `${name}.yaml`);
  const yaml = [
    'apiVersion: toolgate/v1',
    `name: ${name}`,
    'version: 0.1.0',
    'description: A JavaScript tool that should not load.',
    `module: { path: ${JSON.stringify(wasm)}, abi: component }`,
    'parameters: { mode: { type: string, required: true } }',
    `capabilities: { timeout_ms: 5000, memory: { max_pages: ${maxPages} } }`,
    '',
  ].join('\n');
  mkdirSync(folder);
  writeFileSync(file, yaml);
  return { folder, file };
}

/** The top-level sections of a component: [id, body offset, body size]. */
function sections(bytes: Uint8Array): [number, number, number][] {
  const out: [number, number, number][] = [];
  let pos = 8;
  const u32 = (): number => {
    let value = 0;
    for (let shift = 0; ; shift += 7) {
      const b = bytes[pos++] ?? 0;
      value |= (b & 0x7f) << shift;
      if ((b & 0x80) === 0) return value >>> 0;
    }
  };
  while (pos < bytes.length) {
    const id = bytes[pos++] ?? 0;
    const size = u32();
    out.push([id, pos, size]);
    pos += size;
  }
  return out;
}

/**
 * js_hostile's component with `from` replaced by `to` (the same length) in its first section of
 * kind `id`: the same engine and code, another world's import or export.
 */
function rewritten(id: number, from: string, to: string, name: string): string {
  expect(to.length).toBe(from.length);
  const bytes = Buffer.from(readFileSync(HOSTILE));
  const section = sections(bytes).find(([kind]) => kind === id);
  if (section === undefined) throw new Error(`js_hostile.wasm has no section of kind ${id}`);
  const [, start, size] = section;
  const at = bytes.subarray(start, start + size).indexOf(from, 0, 'latin1');
  expect(at, `${from} in section kind ${id}`).toBeGreaterThanOrEqual(0);
  bytes.write(to, start + at, 'latin1');
  const out = join(dir, `${name}.wasm`);
  writeFileSync(out, bytes);
  return out;
}

/** `toolgate call` of the tool: refused before it runs (exit 2), with what stderr says. */
async function refusal(name: string, wasm: string, maxPages?: number): Promise<{ file: string; stderr: string }> {
  const { folder, file } = manifestFor(name, wasm, maxPages);
  const r = await tg(['call', name, '--manifests', folder, '--args', '{"mode":"echo"}'], {
    cwd: dir,
    env: { TOOLGATE_HOME: join(dir, 'home') },
  });
  expect(r.code, r.stdout + r.stderr).toBe(2);
  expect(r.stderr).toContain(`tool "${name}" did not load: ${file}: module.path: module `);
  expect(r.stderr).toContain(wasm);
  return { file, stderr: r.stderr };
}

describe("a component that is not toolgate's world is refused at load, naming the file and the reason", () => {
  it('a component with an extra import (read-file) is WRONG_WORLD: its types differ from the world', async () => {
    const { stderr } = await refusal('extra_import', OTHER_WORLD);
    expect(stderr).toContain('WRONG_WORLD');
    expect(stderr).toMatch(/differs from toolgate's world toolgate:tool\/tool@0\.1\.0 .* in the types/);
  }, 60_000);

  it("a component importing a WASI interface in place of toolgate's host is WRONG_WORLD: its imports differ", async () => {
    const wasm = rewritten(10, 'toolgate:tool/host@0.1.0', 'wasi:filesystem/ty@0.2.0', 'wasi_import');
    const { stderr } = await refusal('wasi_import', wasm);
    expect(stderr).toContain('WRONG_WORLD');
    expect(stderr).toMatch(/differs from toolgate's world .* in the imports \(section 1\)/);
  }, 60_000);

  it('a component exporting another function than call is WRONG_WORLD: its exports differ', async () => {
    const wasm = rewritten(11, 'call', 'main', 'other_export');
    const { stderr } = await refusal('other_export', wasm);
    expect(stderr).toContain('WRONG_WORLD');
    expect(stderr).toMatch(/differs from toolgate's world .* in the exports \(section \d+\)/);
  }, 60_000);
});

describe('a component over a cap is refused at load, naming the file and the cap', () => {
  it("a core module whose memory minimum is above max_pages is MEMORY_OVER_CAP, naming the component's core module", async () => {
    const { stderr } = await refusal('small_cap', HOSTILE, 100);
    expect(stderr).toContain('MEMORY_OVER_CAP');
    expect(stderr).toMatch(/the component's core module: memory minimum is \d+ pages; max_pages is 100/);
  }, 60_000);

  it('a component file over the 64 MiB module cap is refused from its size, before it is read', async () => {
    const big = join(dir, 'big.wasm');
    writeFileSync(big, readFileSync(HOSTILE).subarray(0, 8));
    truncateSync(big, MODULE_CAP + 1);
    const { stderr } = await refusal('too_big', big);
    expect(stderr).toContain(`module file ${big} must be at most ${MODULE_CAP} bytes (it is ${MODULE_CAP + 1})`);
  }, 60_000);
});
