// Bundles the `toolgate` command and the sandbox's instance worker with esbuild, over the files tsc
// wrote to dist/ (same paths, so package.json "bin" and the worker lookup are unchanged). One file
// each instead of hundreds of modules: start-up stops paying Node's per-module resolution, file
// reads and compiles (measured in `make bench`, "Start-up and per-call cost"). Lazily imported
// modules (the commands, WASI, undici) stay lazy: esbuild wraps them and runs them on first import.
import { build } from 'esbuild';

const root = new URL('../', import.meta.url);
const at = (p) => new URL(p, root).pathname;

await build({
  entryPoints: {
    'cli/main': at('host/src/cli/main.ts'),
    'sandbox/worker/instance-worker': at('host/src/sandbox/worker/instance-worker.ts'),
  },
  outdir: at('dist'),
  bundle: true,
  splitting: false,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  // CommonJS dependencies call require() for Node's modules; in an ES module bundle it must exist.
  banner: { js: "import { createRequire as __tgCreateRequire } from 'node:module'; const require = __tgCreateRequire(import.meta.url);" },
  legalComments: 'none',
  logLevel: 'warning',
});
