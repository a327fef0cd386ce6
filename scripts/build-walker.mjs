// Builds the instruction walker (host/walker/walker.ts, AssemblyScript) into
// dist/sandbox/module/walker.wasm, where the host looks for it (host/src/sandbox/module/wasm-walker.ts).
// AssemblyScript is an npm package, so `npm ci` is all a fresh machine needs for it. The memory is the
// host's (imported, with its maximum); no runtime, no abort import: the walker allocates nothing and
// reports a refusal by trapping.
import { execFileSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

const root = new URL('../', import.meta.url).pathname;
const require = createRequire(import.meta.url);
const asc = join(dirname(require.resolve('assemblyscript/package.json')), 'bin/asc.js');
const out = join(root, 'dist/sandbox/module/walker.wasm');
mkdirSync(dirname(out), { recursive: true });
execFileSync(
  process.execPath,
  [
    asc,
    join(root, 'host/walker/walker.ts'),
    '--optimize',
    '--noAssert',
    '--runtime',
    'stub',
    '--importMemory',
    '--use',
    'abort=',
    '--outFile',
    out,
  ],
  { stdio: 'inherit' },
);
