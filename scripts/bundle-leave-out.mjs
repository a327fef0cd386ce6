// esbuild plugins for scripts/bundle.mjs that leave out of the command's bundle code a dependency
// loads at start but toolgate never calls (docs/decisions.md "Less code and fewer schemas on
// serve's start"). Each points the import at a module that refuses by name, and fails the build
// when the import it replaces is no longer there or the code it leaves out still reaches an output
// file. Kept apart from bundle.mjs so that test/cli/bundle-leave-out.test.ts can build with them.

/** The paths of the modules the output files hold (metafile.inputs also lists modules tree-shaking dropped). */
export const bundledInputs = (result) =>
  Object.values(result.metafile?.outputs ?? {}).flatMap((o) => Object.keys(o.inputs));

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
export const noZodV3 = {
  name: 'no-zod-v3',
  setup(b) {
    const replaced = new Set();
    b.initialOptions.metafile = true; // the guard reads what the output files hold
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
      const kept = bundledInputs(result).filter((f) => /(^|\/)node_modules\/(zod\/v3|zod-to-json-schema)\//.test(f));
      const missing = V3_IMPORTS.filter((v) => !replaced.has(v.spec));
      const why =
        missing.length > 0
          ? `the MCP SDK's ${missing.map((v) => `${v.importer} no longer imports ${v.spec}`).join(', ')}`
          : kept.length > 0 &&
            `${kept.length} zod v3 or zod-to-json-schema files still bundled (${kept.slice(0, 3).join(', ')}, ...)`;
      return why ? { errors: [{ text: `no-zod-v3: ${why}; update scripts/bundle-leave-out.mjs` }] } : undefined;
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
const PINO_IMPORTERS = ['pino/pino.js', 'pino/lib/tools.js'];
export const noPinoTransport = {
  name: 'no-pino-transport',
  setup(b) {
    const replaced = new Set();
    b.initialOptions.metafile = true; // the guard reads what the output files hold
    b.onStart(() => {
      replaced.clear();
    });
    b.onResolve({ filter: /^\.\/(lib\/)?transport$/ }, (args) => {
      const importer = PINO_IMPORTERS.find((i) => args.importer.endsWith(`/node_modules/${i}`));
      if (importer === undefined) return undefined;
      replaced.add(importer);
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
        /(^|\/)node_modules\/(thread-stream\/|pino\/lib\/transport\.js$)/.test(f),
      );
      const missing = PINO_IMPORTERS.filter((i) => !replaced.has(i));
      const why =
        missing.length > 0
          ? `${missing.join(' and ')} no longer require ./transport`
          : kept.length > 0 && `pino's transport code still bundled (${kept.slice(0, 3).join(', ')})`;
      return why ? { errors: [{ text: `no-pino-transport: ${why}; update scripts/bundle-leave-out.mjs` }] } : undefined;
    });
  },
};
