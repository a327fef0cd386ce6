#!/usr/bin/env node
// Builds a toolgate tool written in JavaScript or TypeScript into a WebAssembly component of
// toolgate's world (world.wit beside this file; docs/authoring-ts.md):
//   node build.mjs SOURCE OUT.wasm          SOURCE exports run(input) -> string | Promise<string>
//   node build.mjs --raw SOURCE OUT.wasm    SOURCE exports the world's call itself (no runtime)
//   --wit FILE builds against another world (toolgate's tests: such a component is refused at load)
// esbuild bundles the source with toolgate's runtime (toolgate.js); componentize-js compiles the
// bundle with its JavaScript engine, every WASI feature off: the tool reaches the outside only
// through the world's imports.
import { writeFile, mkdir } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const HERE = dirname(fileURLToPath(import.meta.url));
const HOST = 'toolgate:tool/host@0.1.0';

function usage() {
  console.error('usage: node build.mjs [--raw] [--wit FILE] SOURCE OUT.wasm');
  process.exit(2);
}

async function bundle(source, raw) {
  const { build } = await import('esbuild');
  const entry = raw
    ? { entryPoints: [source] }
    : {
        stdin: {
          contents: [
            `import * as tool from ${JSON.stringify(source)};`,
            `import { serve } from ${JSON.stringify(join(HERE, 'toolgate.js'))};`,
            'export async function call(input) { return serve(tool.run ?? tool.default, input); }',
          ].join('\n'),
          resolveDir: process.cwd(),
          loader: 'js',
        },
      };
  const out = await build({ ...entry, bundle: true, write: false, format: 'esm', platform: 'neutral', target: 'es2022', external: [HOST], logLevel: 'error' });
  return out.outputFiles[0].text;
}

const args = process.argv.slice(2);
let raw = false;
let wit = join(HERE, 'world.wit');
while (args[0]?.startsWith('--')) {
  const flag = args.shift();
  if (flag === '--raw') raw = true;
  else if (flag === '--wit' && args.length > 0) wit = resolve(args.shift());
  else usage();
}
if (args.length !== 2) usage();
const [source, out] = [resolve(args[0]), resolve(args[1])];
const js = await bundle(source, raw);
const { componentize } = await import('@bytecodealliance/componentize-js');
const { component } = await componentize(js, {
  witPath: wit,
  worldName: 'tool',
  disableFeatures: ['stdio', 'random', 'clocks', 'http', 'fetch-event'],
});
await mkdir(dirname(out), { recursive: true });
await writeFile(out, component);
