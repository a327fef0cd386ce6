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

/** The paths of the modules the output files hold (metafile.inputs also lists modules tree-shaking dropped). */
const bundledInputs = (result) => Object.values(result.metafile?.outputs ?? {}).flatMap((o) => Object.keys(o.inputs));

// The MCP SDK's zod compatibility layer imports zod v3 as a namespace (server/zod-compat.js, only to
// build an object schema from a raw shape of v3 schemas) and zod-to-json-schema, which imports zod
// v3 itself (server/zod-json-schema-compat.js, only to convert a v3 schema). toolgate hands the SDK
// zod v4 schemas alone, yet esbuild kept all of zod v3 (~116 KB the SDK's chunk compiled and
// evaluated at every start) for its top-level statements. Both imports are pointed at a module
// whose functions refuse v3 by name (docs/decisions.md "Less code and fewer schemas on serve's
// start"). If the SDK stops importing either by that name from that file, or any zod v3 or
// zod-to-json-schema module still reaches an output file, the build fails.
const V3_IMPORTS = [
  { spec: 'zod/v3', importer: 'server/zod-compat.js', name: 'object' },
  { spec: 'zod-to-json-schema', importer: 'server/zod-json-schema-compat.js', name: 'zodToJsonSchema' },
];
const noZodV3 = {
  name: 'no-zod-v3',
  setup(b) {
    const replaced = new Set();
    b.onStart(() => {
      replaced.clear();
    });
    b.onResolve({ filter: /^(zod\/v3|zod-to-json-schema)$/ }, (args) => {
      const hit = V3_IMPORTS.find(
        (v) => v.spec === args.path && args.importer.endsWith(`/@modelcontextprotocol/sdk/dist/esm/${v.importer}`),
      );
      if (hit === undefined) return undefined;
      replaced.add(hit.spec);
      return { path: hit.spec, namespace: 'no-zod-v3', pluginData: hit.name };
    });
    b.onLoad({ filter: /.*/, namespace: 'no-zod-v3' }, (args) => ({
      contents: `export function ${args.pluginData}() { throw new Error("zod v3 schemas are not supported: toolgate's command is built without zod v3 (${args.path}); give the MCP SDK zod v4 schemas"); }`,
      loader: 'js',
    }));
    b.onEnd((result) => {
      if (result.errors.length > 0) return undefined;
      const kept = bundledInputs(result).filter((f) => /\/(zod\/v3|zod-to-json-schema)\//.test(f));
      const missing = V3_IMPORTS.filter((v) => !replaced.has(v.spec));
      const why =
        missing.length > 0
          ? `the MCP SDK's ${missing.map((v) => `${v.importer} no longer imports ${v.spec}`).join(', ')}`
          : kept.length > 0 && `${kept.length} zod v3 files still bundled (${kept.slice(0, 3).join(', ')}, ...)`;
      return why ? { errors: [{ text: `no-zod-v3: ${why}; update scripts/bundle.mjs` }] } : undefined;
    });
  },
};

// pino requires its transport module (lib/transport.js, with thread-stream, atomic-sleep and
// on-exit-leak-free: ~35 KB) when it loads, for `pino.transport()` and the `transport` option.
// toolgate's loggers write to a stream of their own and never build a transport; in this bundle a
// transport could not start anyway (its worker is found through `__dirname`, which an ES module
// bundle does not define). pino's two requires of it are pointed at a module whose function
// refuses by name. If pino stops requiring it by these names, or thread-stream still reaches an
// output file, the build fails (docs/decisions.md "Less code and fewer schemas on serve's start").
const noPinoTransport = {
  name: 'no-pino-transport',
  setup(b) {
    let replaced = 0;
    b.onStart(() => {
      replaced = 0;
    });
    b.onResolve({ filter: /^\.\/(lib\/)?transport$/ }, (args) => {
      if (!/\/node_modules\/pino\/(pino|lib\/tools)\.js$/.test(args.importer)) return undefined;
      replaced += 1;
      return { path: 'pino-transport-refused', namespace: 'no-pino-transport' };
    });
    b.onLoad({ filter: /.*/, namespace: 'no-pino-transport' }, () => ({
      contents:
        'module.exports = function transport() { throw new Error("pino transports are not supported: toolgate\'s command is built without pino\'s transport code; give pino a destination stream"); };',
      loader: 'js',
    }));
    b.onEnd((result) => {
      if (result.errors.length > 0) return undefined;
      const kept = bundledInputs(result).filter((f) =>
        /\/node_modules\/(thread-stream\/|pino\/lib\/transport\.js$)/.test(f),
      );
      const why =
        replaced < 2
          ? `pino.js and lib/tools.js no longer both require ./transport (${replaced} of 2 found)`
          : kept.length > 0 && `pino's transport code still bundled (${kept.slice(0, 3).join(', ')})`;
      return why ? { errors: [{ text: `no-pino-transport: ${why}; update scripts/bundle.mjs` }] } : undefined;
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
