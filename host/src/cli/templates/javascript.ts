// TypeScript and JavaScript (module.abi: component, docs/authoring-ts.md): the scaffold carries its
// own package.json and package-lock.json, which pin the build packages and everything they pull in
// exactly as toolgate's own lockfile does (pdk-examples/js/lib/build-lock.json, written by
// scripts/js-build-lock.mjs): componentize-js is hundreds of megabytes, needed only to build
// (docs/decisions.md, "JavaScript tools: components of one fixed world"), and a component built by
// another version of it is refused at load. Also a copy of toolgate's world, runtime and build script.
import { z } from 'zod';
import { messageOf } from '../../errors/index.js';
import { UsageError } from '../usage.js';
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
# devDependencies, pinned with everything they need in package-lock.json; the first build installs
# them with npm ci (from npm's cache when it holds them).
.PHONY: all clean
all: build/${tool}.wasm
\t@:

node_modules/.package-lock.json: package.json package-lock.json
\t@npm ci --prefer-offline --no-audit --no-fund --loglevel=error >/dev/null
\t@touch $@

build/${tool}.wasm: ${tool}.${ext} lib/build.mjs lib/toolgate.js lib/world.wit | node_modules/.package-lock.json
\t@mkdir -p build
\t@node lib/build.mjs $< $@

clean:
\trm -rf build
`;
}

/** The lockfile toolgate ships for the build packages (read as shipped: a root entry and the packages). */
const buildLockSchema = z.looseObject({
  packages: z.record(z.string(), z.looseObject({})).refine((p) => p[''] !== undefined, 'has no root entry ("")'),
});
const rootSchema = z.looseObject({ devDependencies: z.record(z.string(), z.string()) });

/** The shipped build lock as this tool's own: its name and version in place of the placeholder's. */
function buildLock(ctx: ScaffoldContext): { lock: Record<string, unknown>; devDependencies: Record<string, string> } {
  const text = new TextDecoder().decode(ctx.readHelper('js/lib/build-lock.json'));
  let parsed: z.infer<typeof buildLockSchema>;
  let root: z.infer<typeof rootSchema>;
  try {
    parsed = buildLockSchema.parse(JSON.parse(text));
    root = rootSchema.parse(parsed.packages['']);
  } catch (err) {
    throw new UsageError(
      `toolgate's pdk-examples/js/lib/build-lock.json is not a lockfile of the build packages (reinstall toolgate): ${messageOf(err)}`,
    );
  }
  const name = ctx.tool.replace(/_/g, '-');
  const packages = { ...parsed.packages, '': { ...root, name, version: '0.1.0' } };
  return { lock: { ...parsed, name, version: '0.1.0', packages }, devDependencies: root.devDependencies };
}

function packageFiles(ctx: ScaffoldContext): ScaffoldFile[] {
  const { lock, devDependencies } = buildLock(ctx);
  const pkg = { name: lock['name'], version: '0.1.0', private: true, type: 'module', devDependencies };
  return [
    { path: 'package.json', content: `${JSON.stringify(pkg, null, 2)}\n` },
    { path: 'package-lock.json', content: `${JSON.stringify(lock, null, 2)}\n` },
  ];
}

function template(ts: boolean): LanguageTemplate {
  const ext = ts ? 'ts' : 'js';
  return {
    label: ts ? 'TypeScript' : 'JavaScript',
    maxPages: 512,
    abi: 'component',
    buildNote:
      "Needs node and npm: the first `make` installs esbuild and componentize-js, at the versions package-lock.json pins, into node_modules/ (about 500 MB, from npm's cache when it holds them); each build takes tens of seconds.",
    files(ctx: ScaffoldContext): ScaffoldFile[] {
      return [
        { path: `${ctx.tool}.${ext}`, content: source(ctx.tool, ts) },
        ...packageFiles(ctx),
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
