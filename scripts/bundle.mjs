// Bundles the `toolgate` command and the sandbox's instance worker with esbuild, over the files tsc
// wrote to dist/ (same paths, so package.json "bin" and the worker lookup are unchanged). One file
// each instead of hundreds of modules: start-up stops paying Node's per-module resolution, file
// reads and compiles (measured in `make bench`). Lazily imported modules (the commands, the
// sandbox, WASI, undici) stay lazy.
import { readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join, relative } from 'node:path';
import { build, transformSync } from 'esbuild';
import { noPinoTransport, noZodV3 } from './bundle-leave-out.mjs';

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
    // an error must be returned: one pushed onto result.errors does not fail the build
    b.onEnd((result) => {
      if (result.errors.length > 0 || replaced > 0) return undefined;
      const text =
        "lazy-sdk-ajv: the MCP SDK's server no longer imports ../validation/ajv-provider.js; update scripts/bundle.mjs and host/src/server/sdk-ajv.ts";
      return { errors: [{ text }] };
    });
  },
};

// zod's doors (v4/classic/external.js, v4/core/index.js; v4/mini/external.js alike) re-export every
// locale as `z.locales`; as the SDK and host/src import zod as a namespace, esbuild kept all ~48 of
// them (~245 KB a start compiles and evaluates). Nothing reads `z.locales`, and zod configures
// English from its own import of locales/en.js, so those imports are pointed at a module holding
// English alone (docs/decisions.md "zod's locales out of the bundle (issue 27)"). If zod stops
// importing the file by this name, or another locale's code still reaches an output file, the
// build fails rather than silently keeping them.
const zodEnglishOnly = {
  name: 'zod-english-only',
  setup(b) {
    let replaced = 0;
    b.onStart(() => {
      replaced = 0;
    });
    b.onResolve({ filter: /^\.\.\/locales\/index\.js$/ }, (args) => {
      if (!/\/zod\/v4\/(classic|core|mini)\/[^/]+$/.test(args.importer)) return undefined;
      replaced += 1;
      const dir = join(dirname(args.importer), '../locales');
      // the path names the module in the bundle's comments: relative, so the bytes do not depend on the checkout
      return { path: relative(at(''), dir), namespace: 'zod-english-only', pluginData: dir };
    });
    b.onLoad({ filter: /.*/, namespace: 'zod-english-only' }, (args) => ({
      contents: "export { default as en } from './en.js';",
      resolveDir: args.pluginData,
      loader: 'js',
    }));
    b.onEnd((result) => {
      if (result.errors.length > 0) return undefined;
      // what the output files hold (metafile.inputs also lists modules tree-shaking dropped)
      const bundled = Object.values(result.metafile?.outputs ?? {}).flatMap((o) => Object.keys(o.inputs));
      const others = bundled.filter((f) => /\/zod\/v4\/locales\/(?!en\.js$)[^/]+$/.test(f));
      const why =
        replaced === 0
          ? "zod's v4/classic, v4/core and v4/mini no longer import ../locales/index.js"
          : others.length > 0 &&
            `${others.length} zod locale files still bundled (${others.slice(0, 3).join(', ')}, ...)`;
      return why ? { errors: [{ text: `zod-english-only: ${why}; update scripts/bundle.mjs` }] } : undefined;
    });
  },
};

// CommonJS packages host/src requires synchronously on first use, each required by the command
// from one file beside its chunks (built below) rather than file by file from node_modules:
// - ajv, which validates arguments and outputs (host/src/tool/validation.ts): ~100 files to
//   resolve, read and compile, ~45 ms of a fresh server's first call, ~10 ms as one file;
// - yaml, which parses manifests on a parse-cache miss and YAML policy files (host/src/lazy-yaml),
//   so a warm start evaluates none of it: ~70 files.
// The plugin rewrites the one line of the source that names the package; if that line changes,
// the build fails rather than silently loading the package file by file again.
const ONE_FILE = [
  {
    pkg: 'ajv/dist/2020.js',
    file: 'ajv.cjs',
    source: /host\/src\/tool\/validation\.ts$/,
    line: "const AJV_2020 = 'ajv/dist/2020.js';",
  },
  { pkg: 'yaml', file: 'yaml.cjs', source: /host\/src\/lazy-yaml\/index\.ts$/, line: "const YAML_MODULE = 'yaml';" },
];
const oneFileRequires = {
  name: 'one-file-requires',
  setup(b) {
    for (const { pkg, file, source, line } of ONE_FILE) {
      b.onLoad({ filter: source }, async (args) => {
        const text = await readFile(args.path, 'utf8');
        if (!text.includes(line))
          return {
            errors: [{ text: `one-file-requires: ${args.path} no longer holds ${line}; update scripts/bundle.mjs` }],
          };
        return { contents: text.replace(line, line.replace(`'${pkg}'`, `'./${file}'`)), loader: 'ts' };
      });
    }
  },
};

// The command: lazily imported code goes to chunks beside it (dist/cli/chunk-*.js), so what those
// import from Node (node:wasi, whose import prints a warning) loads only when they do.
await build({
  ...common,
  // serve's start-up helper (host/src/cli/startup-prep.ts) is a second entry of the same build, so
  // it shares the command's chunks: the caches key entries by the file of the code that made them.
  entryPoints: { 'cli/main': at('host/src/cli/main.ts'), 'cli/prep-worker': at('host/src/cli/prep-worker.ts') },
  outdir: at('dist'),
  splitting: true,
  chunkNames: 'cli/chunk-[hash]',
  metafile: true,
  plugins: [lazySdkAjv, zodEnglishOnly, noZodV3, noPinoTransport, oneFileRequires],
});

// Each of those packages and everything it requires, as one CommonJS file (see oneFileRequires).
for (const { pkg, file } of ONE_FILE) {
  await build({
    entryPoints: [require.resolve(pkg)],
    outfile: at(`dist/cli/${file}`),
    bundle: true,
    format: 'cjs',
    platform: 'node',
    target: 'node20',
    legalComments: 'none',
    logLevel: 'warning',
  });
}

// The instance worker: one file (it loads everything it has at boot anyway).
await build({
  ...common,
  entryPoints: { 'sandbox/worker/instance-worker': at('host/src/sandbox/worker/instance-worker.ts') },
  outdir: at('dist'),
  splitting: false,
});

// V8 keeps the source text of every script it loaded for as long as the script lives, and stores a
// text holding any character past U+00FF at two bytes a character: undici's chunk (1.08 M
// characters, loaded by the first networked call) cost 2.1 MiB of the server's heap for a few
// typographic quotes in its comments. esbuild already escapes such characters in strings and
// names, but copies the comments it keeps as they are, so here they are spelled \uXXXX. The
// rewrite is proved to touch nothing but comments: each file minified (which drops comments and
// normalises literals) must come out the same before and after, or the build fails
// (docs/decisions.md "Bundle text in one byte a character").
function asciiOnly(file) {
  const text = readFileSync(file, 'utf8');
  if (!/[^\x00-\x7f]/.test(text)) return;
  const spelled = text.replace(/[^\x00-\x7f]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
  const code = (t) => transformSync(t, { loader: 'js', minify: true, legalComments: 'none' }).code;
  if (code(spelled) !== code(text))
    throw new Error(`ascii-only: ${file} has a character past U+007F outside a comment; it cannot be spelled safely`);
  writeFileSync(file, spelled);
}
for (const f of readdirSync(at('dist/cli'))) if (/\.(js|cjs)$/.test(f)) asciiOnly(at(`dist/cli/${f}`));
asciiOnly(at('dist/sandbox/worker/instance-worker.js'));
