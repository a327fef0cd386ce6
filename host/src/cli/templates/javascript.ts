// TypeScript and JavaScript (module.abi: component, docs/authoring-ts.md): the scaffold carries its
// own package.json with the build packages pinned as toolgate pins them (componentize-js is hundreds
// of megabytes, needed only to build: docs/decisions.md, "JavaScript tools: components of one fixed
// world"), and a copy of toolgate's world, runtime and build script from pdk-examples/js/lib.
import type { LanguageTemplate, ScaffoldContext, ScaffoldFile } from './types.js';

function source(tool: string, ts: boolean): string {
  const sig = ts ? 'input: string): Promise<string>' : 'input)';
  const parse = ts ? 'JSON.parse(input) as { name?: unknown }' : 'JSON.parse(input)';
  return `// ${tool}: a toolgate tool in ${ts ? 'TypeScript' : 'JavaScript'}. Input {"name": string} -> output {"greeting": string}.
// run gets the arguments as JSON text and returns the output as JSON text; a throw is the call's
// error. fetch (through toolgate's HTTP gate, allowed_hosts only) and console.log are available.
export async function run(${sig} {
  const args = ${parse};
  if (typeof args.name !== 'string' || args.name.length === 0) throw new Error("argument 'name' must not be empty");
  return JSON.stringify({ greeting: \`Hello, \${args.name}!\` });
}
`;
}

function makefile(tool: string, ext: string): string {
  return `# Builds build/${tool}.wasm, a component of toolgate's world (lib/world.wit): esbuild bundles
# ${tool}.${ext} with lib/toolgate.js, componentize-js compiles the bundle. Both are this folder's own
# devDependencies (package.json), installed by npm on the first build.
.PHONY: all clean
all: build/${tool}.wasm
\t@:

node_modules/.package-lock.json: package.json
\t@npm install --prefer-offline --no-audit --no-fund --loglevel=error >/dev/null
\t@touch $@

build/${tool}.wasm: ${tool}.${ext} lib/build.mjs lib/toolgate.js lib/world.wit | node_modules/.package-lock.json
\t@mkdir -p build
\t@node lib/build.mjs $< $@

clean:
\trm -rf build
`;
}

/** What a JavaScript tool needs at build time (never at run time: the host runs the component's core module). */
export const JS_BUILD_DEPENDENCIES = [
  'esbuild',
  '@bytecodealliance/componentize-js',
  '@bytecodealliance/preview2-shim',
] as const;

function packageJson(tool: string, pins: Readonly<Record<string, string>>): string {
  const devDependencies = Object.fromEntries(JS_BUILD_DEPENDENCIES.map((name) => [name, pins[name] ?? '*']));
  return `${JSON.stringify({ name: tool.replace(/_/g, '-'), version: '0.1.0', private: true, type: 'module', devDependencies }, null, 2)}\n`;
}

function template(ts: boolean): LanguageTemplate {
  const ext = ts ? 'ts' : 'js';
  return {
    label: ts ? 'TypeScript' : 'JavaScript',
    maxPages: 512,
    abi: 'component',
    buildNote:
      'Needs node and npm: the first `make` installs esbuild and componentize-js into node_modules/ (a few hundred MB); each build takes tens of seconds.',
    files(ctx: ScaffoldContext): ScaffoldFile[] {
      return [
        { path: `${ctx.tool}.${ext}`, content: source(ctx.tool, ts) },
        { path: 'package.json', content: packageJson(ctx.tool, ctx.buildPins) },
        { path: '.gitignore', content: 'node_modules/\nbuild/\n' },
        { path: 'Makefile', content: makefile(ctx.tool, ext) },
        { path: 'lib/build.mjs', content: ctx.readHelper('js/lib/build.mjs') },
        { path: 'lib/toolgate.js', content: ctx.readHelper('js/lib/toolgate.js') },
        { path: 'lib/world.wit', content: ctx.readHelper('js/lib/world.wit') },
      ];
    },
  };
}

export const typescriptTemplate = template(true);
export const javascriptTemplate = template(false);
