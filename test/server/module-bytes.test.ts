// A served manifest tool keeps its compiled module, not the bytes it was compiled from
// (docs/decisions.md "Bytes kept after compiling"): the loaded manifest, the sandbox spec and the
// lazy tool's closures used to hold every module's file for as long as the server ran.
import { readFile, writeFile, mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { pino } from 'pino';
import { afterEach, expect, test } from 'vitest';
import { createPluginHost } from '../../host/src/plugin/index.js';
import { forgetCompiledModules } from '../../host/src/sandbox/module/cache.js';
import { ManifestTools } from '../../host/src/server/index.js';
import { ROOT, tempDir } from './helpers.js';

// a full collection is needed to see what is still reachable; exposed for this file only
setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;
setFlagsFromString('--no-expose-gc');

const MIB = 1024 * 1024;
const PADDING = 8 * MIB;

/** LEB128, as a module's section sizes are written. */
function leb(n: number): number[] {
  const out: number[] = [];
  do {
    let byte = n & 0x7f;
    n >>>= 7;
    if (n !== 0) byte |= 0x80;
    out.push(byte);
  } while (n !== 0);
  return out;
}

/** The module with a custom section of `size` bytes appended: the same code, a large file. */
function padded(wasm: Uint8Array, size: number): Uint8Array {
  const name = [...Buffer.from('padding')];
  const body = [...leb(name.length), ...name];
  const header = Uint8Array.from([0, ...leb(body.length + size), ...body]);
  return Buffer.concat([wasm, header, new Uint8Array(size).fill(0x5a)]);
}

function manifest(name: string, file: string, extra: string): string {
  return [
    'apiVersion: toolgate/v1',
    `name: ${name}`,
    'version: 0.1.0',
    'description: Greets a person by name.',
    `module: { path: ${JSON.stringify(file)}, entry: greet }`,
    'parameters:',
    '  name: { type: string, required: true }',
    'output: { schema: { type: object } }',
    `capabilities: { timeout_ms: 5000, memory: { max_pages: 2 }${extra} }`,
    '',
  ].join('\n');
}

async function arrayBuffersAfterGc(): Promise<number> {
  for (let i = 0; i < 3; i++) {
    gc();
    await new Promise((r) => setTimeout(r, 20));
  }
  return process.memoryUsage().arrayBuffers;
}

afterEach(() => forgetCompiledModules());

test("a served tool keeps no copy of its module's bytes once compiled, on the calling thread and in a worker, and still answers", async () => {
  const dir = await tempDir();
  const host = createPluginHost();
  let tools: ManifestTools | undefined;
  try {
    const greet = await readFile(join(ROOT, 'pdk-examples/wat/build/greet.wasm'));
    const manifests = join(dir.path, 'manifests');
    await mkdir(manifests);
    // two files with different bytes, so neither compile is shared with the other
    await writeFile(join(dir.path, 'here.wasm'), padded(greet, PADDING));
    await writeFile(join(dir.path, 'there.wasm'), padded(greet, PADDING + 1));
    await writeFile(join(manifests, 'here.yaml'), manifest('greet_here', join(dir.path, 'here.wasm'), ''));
    // a host it never uses: its calls take the worker path
    const worker = ', allowed_hosts: ["127.0.0.1:9"]';
    await writeFile(join(manifests, 'there.yaml'), manifest('greet_there', join(dir.path, 'there.wasm'), worker));
    forgetCompiledModules();
    const before = await arrayBuffersAfterGc();
    tools = new ManifestTools({
      dirs: [manifests],
      ctx: host.root,
      logger: pino({ level: 'silent' }),
      compile: 'background',
      backgroundAfter: new Promise(() => {}),
    });
    await tools.sync();
    // while a tool is not compiled yet, its bytes are held: the file was read once, at sync
    expect((await arrayBuffersAfterGc()) - before).toBeGreaterThan(2 * PADDING);
    for (const [name, path] of [
      ['greet_here', 'in-thread'],
      ['greet_there', 'worker'],
    ] as const) {
      const out = await host.pipeline.call(name, { name: 'Ada' });
      expect(out.error, `${name} (${path})`).toBeUndefined();
      expect(out.structuredContent).toEqual({ greeting: 'Hello, Ada!' });
    }
    // both compiled and called: neither file's bytes are reachable (each is 8 MiB)
    expect((await arrayBuffersAfterGc()) - before).toBeLessThan(PADDING / 2);
  } finally {
    await tools?.close();
    await host.dispose();
    await dir.remove();
  }
}, 60_000);
