import { loadSandboxTool, DEFAULT_LIMITS } from '/work/main/dist/sandbox/index.js';
import createPlugin from '@extism/extism';
import { readFileSync } from 'node:fs';
const wasm = new Uint8Array(readFileSync('/work/main/test/fixtures/build/core_kit.wasm'));
const entry = process.argv[2] ?? 'noop';
const t = await loadSandboxTool({ name: 'greet', wasm, entry, limits: DEFAULT_LIMITS, allowedHosts: [], allowedPaths: {}, config: {}, secretValues: [] });
const input = new TextEncoder().encode('world'); const signal = new AbortController().signal;
await t.call(input, { signal });
for (let r = 0; r < 3; r++) {
  let t0 = performance.now();
  for (let i = 0; i < 2000; i++) await t.call(input, { signal });
  console.log('sandbox us', (performance.now() - t0) / 2000 * 1000);
}
const p = await createPlugin(wasm, { useWasi: false });
for (let r = 0; r < 3; r++) {
  let t0 = performance.now();
  for (let i = 0; i < 2000; i++) await p.call(entry, input);
  console.log('main-thread us', (performance.now() - t0) / 2000 * 1000);
}
await t.close();
