// esbuild plugins for scripts/bundle.mjs that leave out of the command's bundle code a dependency
// loads at start but toolgate never calls (docs/decisions.md "Less code and fewer schemas on
// serve's start"). Each points the import at a module that refuses by name, and fails the build
// when the import it replaces is no longer there or the code it leaves out still reaches an output
// file. Kept apart from bundle.mjs so that test/cli/bundle-leave-out.test.ts can build with them.

/** The paths of the modules the output files hold (metafile.inputs also lists modules tree-shaking dropped). */
export const bundledInputs = (result) =>
  Object.values(result.metafile?.outputs ?? {}).flatMap((o) => Object.keys(o.inputs));

/**
 * A plugin that points each of `imports` (`spec` as `from` + `importer` writes it) at a module made
 * by `stub`, and fails the build when one of them is no longer imported so (`gone` says which) or a
 * bundled path still matches `left` (`kept` says which).
 */
function leaveOut({ name, filter, from, imports, stub, left, gone, kept }) {
  return {
    name,
    setup(b) {
      const replaced = new Set();
      b.initialOptions.metafile = true; // the guard reads what the output files hold
      b.onStart(() => {
        replaced.clear();
      });
      b.onResolve({ filter }, (args) => {
        const hit = imports.find((i) => i.spec === args.path && args.importer.endsWith(`${from}${i.importer}`));
        if (hit === undefined) return undefined;
        replaced.add(hit);
        return { path: hit.spec, namespace: name, pluginData: hit };
      });
      b.onLoad({ filter: /.*/, namespace: name }, (args) => ({ contents: stub(args.pluginData), loader: 'js' }));
      b.onEnd((result) => {
        if (result.errors.length > 0) return undefined;
        const missing = imports.filter((i) => !replaced.has(i));
        const bundled = bundledInputs(result).filter((f) => left.test(f));
        const why = missing.length > 0 ? gone(missing) : bundled.length > 0 && kept(bundled);
        return why ? { errors: [{ text: `${name}: ${why}; update scripts/bundle-leave-out.mjs` }] } : undefined;
      });
    },
  };
}

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
export const noZodV3 = leaveOut({
  name: 'no-zod-v3',
  filter: /^(zod\/v3|zod-to-json-schema)$/,
  from: '/@modelcontextprotocol/sdk/dist/esm/',
  imports: V3_IMPORTS,
  stub: (hit) =>
    `export function ${hit.name}() { throw new Error("zod v3 schemas are not supported: toolgate's command is built without zod v3 (${hit.spec}); give the MCP SDK zod v4 schemas"); }`,
  left: /(^|\/)node_modules\/(zod\/v3|zod-to-json-schema)\//,
  gone: (missing) => `the MCP SDK's ${missing.map((v) => `${v.importer} no longer imports ${v.spec}`).join(', ')}`,
  kept: (files) =>
    `${files.length} zod v3 or zod-to-json-schema files still bundled (${files.slice(0, 3).join(', ')}, ...)`,
});

// pino requires its transport module (lib/transport.js, with thread-stream, atomic-sleep and
// on-exit-leak-free: ~35 KB) when it loads, for `pino.transport()` and the `transport` option.
// toolgate's loggers write to a stream of their own and never build a transport; in this bundle a
// transport could not start anyway (its worker is found through `__dirname`, which an ES module
// bundle does not define). pino's two requires of it are pointed at a module whose function
// refuses by name. If pino stops requiring it by these names, or thread-stream still reaches an
// output file, the build fails (docs/decisions.md "Less code and fewer schemas on serve's start").
const PINO_IMPORTS = [
  { spec: './lib/transport', importer: 'pino/pino.js' },
  { spec: './transport', importer: 'pino/lib/tools.js' },
];
export const noPinoTransport = leaveOut({
  name: 'no-pino-transport',
  filter: /^\.\/(lib\/)?transport$/,
  from: '/node_modules/',
  imports: PINO_IMPORTS,
  stub: () =>
    'module.exports = function transport() { throw new Error("pino transports are not supported: toolgate\'s command is built without pino\'s transport code; give pino a destination stream"); };',
  left: /(^|\/)node_modules\/(thread-stream\/|pino\/lib\/transport\.js$)/,
  gone: (missing) => `${missing.map((i) => i.importer).join(' and ')} no longer require ./transport`,
  kept: (files) => `pino's transport code still bundled (${files.slice(0, 3).join(', ')})`,
});
