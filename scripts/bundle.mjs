// Bundles the `toolgate` command and the sandbox's instance worker with esbuild, over the files tsc
// wrote to dist/ (same paths, so package.json "bin" and the worker lookup are unchanged). One file
// each instead of hundreds of modules: start-up stops paying Node's per-module resolution, file
// reads and compiles (measured in `make bench`). Lazily imported modules (the commands, the
// sandbox, WASI, undici) stay lazy.
import { readdirSync, rmSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { build } from 'esbuild';

const root = new URL('../', import.meta.url);
const require = createRequire(import.meta.url);
const at = (p) => new URL(p, root).pathname;

// chunk names carry a content hash: the previous build's chunks go first
for (const f of readdirSync(at('dist/cli'))) if (/^chunk-.*\.js$/.test(f)) rmSync(at(`dist/cli/${f}`));

const common = {
  bundle: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  // CommonJS dependencies call require() for Node's modules; in an ES module bundle it must exist.
  banner: {
    js: "import { createRequire as __tgCreateRequire } from 'node:module'; const require = __tgCreateRequire(import.meta.url);",
  },
  legalComments: 'none',
  logLevel: 'warning',
};

// The SDK's server module imports its ajv provider eagerly; toolgate passes its own validator,
// which loads the provider on first use (host/src/server/sdk-ajv.ts). Here the SDK's import is
// pointed at that class, so a start does not evaluate ajv (~14 ms). If the SDK stops importing
// the file by this name, the build fails rather than silently loading ajv again.
const lazySdkAjv = {
  name: 'lazy-sdk-ajv',
  setup(b) {
    let replaced = 0;
    b.onStart(() => {
      replaced = 0;
    });
    b.onResolve({ filter: /^\.\.\/validation\/ajv-provider\.js$/ }, (args) => {
      if (!args.importer.includes('/@modelcontextprotocol/sdk/dist/esm/server/')) return undefined;
      replaced += 1;
      return { path: at('host/src/server/sdk-ajv.ts') };
    });
    b.onEnd((result) => {
      if (result.errors.length === 0 && replaced === 0) {
        result.errors.push({
          text: "lazy-sdk-ajv: the MCP SDK's server no longer imports ../validation/ajv-provider.js; update scripts/bundle.mjs and host/src/server/sdk-ajv.ts",
        });
      }
    });
  },
};

// ajv, which validates arguments and outputs (host/src/tool/validation.ts), is CommonJS and loaded
// on the first value checked, by a synchronous require. From node_modules that is ~100 files to
// resolve, read and compile, ~45 ms of a fresh server's first call; so the command requires ajv
// bundled into one file beside its chunks (dist/cli/ajv.cjs, built below), ~10 ms. The plugin
// points validation.ts's AJV_2020 at it; if that line changes, the build fails rather than
// silently loading ajv file by file again.
const AJV_LINE = "const AJV_2020 = 'ajv/dist/2020.js';";
const oneFileAjv = {
  name: 'one-file-ajv',
  setup(b) {
    b.onLoad({ filter: /host\/src\/tool\/validation\.ts$/ }, async (args) => {
      const text = await readFile(args.path, 'utf8');
      if (!text.includes(AJV_LINE))
        return {
          errors: [{ text: `one-file-ajv: ${args.path} no longer holds ${AJV_LINE}; update scripts/bundle.mjs` }],
        };
      return { contents: text.replace(AJV_LINE, "const AJV_2020 = './ajv.cjs';"), loader: 'ts' };
    });
  },
};

// yaml, which parses manifests on a parse-cache miss and YAML policy files, is likewise required
// on first use (host/src/lazy-yaml), so a warm start evaluates none of it; the command requires it
// bundled into one file beside its chunks (dist/cli/yaml.cjs, built below) rather than its ~70
// files from node_modules. The same guard as for ajv fails the build if the line changes.
const YAML_LINE = "const YAML_MODULE = 'yaml';";
const oneFileYaml = {
  name: 'one-file-yaml',
  setup(b) {
    b.onLoad({ filter: /host\/src\/lazy-yaml\/index\.ts$/ }, async (args) => {
      const text = await readFile(args.path, 'utf8');
      if (!text.includes(YAML_LINE))
        return {
          errors: [{ text: `one-file-yaml: ${args.path} no longer holds ${YAML_LINE}; update scripts/bundle.mjs` }],
        };
      return { contents: text.replace(YAML_LINE, "const YAML_MODULE = './yaml.cjs';"), loader: 'ts' };
    });
  },
};

// The command: lazily imported code goes to chunks beside it (dist/cli/chunk-*.js), so what those
// import from Node (node:wasi, whose import prints a warning) loads only when they do.
await build({
  ...common,
  entryPoints: { 'cli/main': at('host/src/cli/main.ts') },
  outdir: at('dist'),
  splitting: true,
  chunkNames: 'cli/chunk-[hash]',
  plugins: [lazySdkAjv, oneFileAjv, oneFileYaml],
});

// ajv's draft 2020-12 class and everything it requires, as one CommonJS file (see oneFileAjv).
await build({
  entryPoints: [require.resolve('ajv/dist/2020.js')],
  outfile: at('dist/cli/ajv.cjs'),
  bundle: true,
  format: 'cjs',
  platform: 'node',
  target: 'node20',
  legalComments: 'none',
  logLevel: 'warning',
});

// yaml and everything it requires, as one CommonJS file (see oneFileYaml).
await build({
  entryPoints: [require.resolve('yaml')],
  outfile: at('dist/cli/yaml.cjs'),
  bundle: true,
  format: 'cjs',
  platform: 'node',
  target: 'node20',
  legalComments: 'none',
  logLevel: 'warning',
});

// The instance worker: one file (it loads everything it has at boot anyway).
await build({
  ...common,
  entryPoints: { 'sandbox/worker/instance-worker': at('host/src/sandbox/worker/instance-worker.ts') },
  outdir: at('dist'),
  splitting: false,
});
