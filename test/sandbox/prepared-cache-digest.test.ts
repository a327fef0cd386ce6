// A module is hashed once per load (docs/decisions.md, "JavaScript tools: the first call, third
// round"): the manifest loader's digest of the array it read is the one the sandbox keys the
// compiled and prepared module by. What the digest pins does not weaken: the digest belongs to that
// very array (a copy is hashed on its own), and bytes changed in memory after they were hashed are
// refused before they are prepared and stored under a digest that no longer names them.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, test } from 'vitest';
import { sha256Hex, sha256HexOnce } from '../../host/src/digest/index.js';
import { loadManifestFile, sandboxSpecFor } from '../../host/src/manifest/index.js';
import { loadSandboxTool, usePreparedModuleCache } from '../../host/src/sandbox/index.js';
import { forgetCompiledModules, preparedCacheStats } from '../../host/src/sandbox/module/cache.js';
import { ROOT } from '../server/helpers.js';
import { never, text, utf8 } from './core-helpers.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'toolgate-digest-once-'));
  usePreparedModuleCache(undefined);
  forgetCompiledModules();
});
afterEach(async () => {
  forgetCompiledModules();
  await rm(dir, { recursive: true, force: true });
});

const MODULE = join(ROOT, 'test/fixtures/build/server_spin.wasm');

async function echoManifest(): Promise<string> {
  const file = join(dir, 'echo.yaml');
  await writeFile(
    file,
    `apiVersion: toolgate/v1
name: echo_once
version: 0.1.0
description: Echoes its input.
module: { path: ${JSON.stringify(MODULE)}, entry: echo }
parameters:
  text: { type: string }
`,
  );
  return file;
}

test('a digest is remembered for the array that was hashed, and a copy of the same bytes is hashed on its own', () => {
  const bytes = new Uint8Array([0, 97, 115, 109, 1, 0, 0, 0]);
  const first = sha256HexOnce(bytes);
  expect(first).toBe(sha256Hex(bytes));
  const copy = bytes.slice();
  bytes[7] = 9;
  // the array's own digest is the one taken when it was hashed; a copy never borrows it
  expect(sha256HexOnce(bytes)).toBe(first);
  expect(sha256HexOnce(copy)).toBe(first);
  copy[7] = 9;
  expect(sha256HexOnce(copy.slice())).toBe(sha256Hex(copy));
  expect(sha256HexOnce(copy.slice())).not.toBe(first);
});

test("the manifest loader's digest of the array it read is remembered for the sandbox, and the module loaded with it answers", async () => {
  const loaded = await loadManifestFile(await echoManifest());
  expect(loaded.sha256).toBe(sha256Hex(loaded.wasm));
  expect(sha256HexOnce(loaded.wasm)).toBe(loaded.sha256);
  const { spec } = sandboxSpecFor(loaded, { env: {} });
  const tool = await loadSandboxTool(spec);
  try {
    expect(text(await tool.call(utf8('hi'), { signal: never() }))).toBe('hi');
  } finally {
    await tool.close();
  }
});

test('module bytes changed in memory after the loader hashed them are refused before they are prepared, naming the tool', async () => {
  const loaded = await loadManifestFile(await echoManifest());
  const { spec } = sandboxSpecFor(loaded, { env: {} });
  // the last byte of the module: whatever it is, it is no longer what was hashed
  const at = spec.wasm.length - 1;
  spec.wasm[at] = (spec.wasm[at] ?? 0) ^ 0xff;
  const before = preparedCacheStats.prepared;
  await expect(loadSandboxTool(spec)).rejects.toThrow(/tool "echo_once": module changed in memory after it was hashed/);
  expect(preparedCacheStats.prepared).toBe(before);
});
