// AssemblyScript: the scaffold carries its own package.json (assemblyscript and @extism/as-pdk,
// pinned as toolgate's examples pin them), so it builds wherever it is, with our lib/ copied in.
import type { LanguageTemplate, ScaffoldContext, ScaffoldFile } from './types.js';

function source(tool: string): string {
  return `// ${tool}: a toolgate tool in AssemblyScript. Input {"name": string} -> output {"greeting": string}.
import { fail, inputText, outputText } from "./lib/toolgate";
import { JValue, argString, parseArgs } from "./lib/json";

export function ${tool}(): i32 {
  const input = inputText();
  if (input === null) return 1;
  const err: string[] = [""];
  const args = parseArgs(input, err);
  if (args === null) return fail(err[0]);
  const name = argString(args, "name", true, err);
  if (name === null) return fail(err[0]);
  if (name.length == 0) return fail("argument 'name' must not be empty");
  outputText(JValue.obj().set("greeting", JValue.str("Hello, " + name + "!")).toJson());
  return 0;
}
`;
}

export function makefile(tool: string): string {
  return `# Builds build/${tool}.wasm with AssemblyScript. The compiler and @extism/as-pdk are this folder's
# own devDependencies (package.json), installed by npm on the first build. The abort handler is
# ours: the default one imports env.abort, which toolgate refuses to load.
ASC ?= node_modules/.bin/asc
ASFLAGS := --optimize --noAssert --runtime incremental --use abort=lib/toolgate/myAbort

.PHONY: all clean
all: build/${tool}.wasm
\t@:

node_modules/.bin/asc: package.json
\t@npm install --prefer-offline --no-audit --no-fund --loglevel=error >/dev/null
\t@touch $@

build/${tool}.wasm: ${tool}.ts lib/toolgate.ts lib/json.ts | $(ASC)
\t@mkdir -p build
\t@$(ASC) $< $(ASFLAGS) --outFile $@

clean:
\trm -rf build
`;
}

/** The scaffold's package.json: the build tools, pinned to the versions toolgate's examples use. */
export function packageJson(tool: string, pins: Readonly<Record<string, string>>): string {
  const devDependencies = Object.fromEntries(AS_BUILD_DEPENDENCIES.map((name) => [name, pins[name] ?? '*']));
  return `${JSON.stringify({ name: tool.replace(/_/g, '-'), version: '0.1.0', private: true, devDependencies }, null, 2)}\n`;
}

/** What an AssemblyScript tool needs at build time (never at run time: the host runs the .wasm). */
export const AS_BUILD_DEPENDENCIES = ['assemblyscript', '@extism/as-pdk'] as const;

export const assemblyscriptTemplate: LanguageTemplate = {
  label: 'AssemblyScript',
  maxPages: 16,
  buildNote: 'Needs node and npm: the first `make` installs assemblyscript and @extism/as-pdk into node_modules/.',
  files(ctx: ScaffoldContext): ScaffoldFile[] {
    return [
      { path: `${ctx.tool}.ts`, content: source(ctx.tool) },
      { path: 'package.json', content: packageJson(ctx.tool, ctx.buildPins) },
      { path: '.gitignore', content: 'node_modules/\nbuild/\n' },
      { path: 'Makefile', content: makefile(ctx.tool) },
      { path: 'lib/toolgate.ts', content: ctx.readHelper('assemblyscript/lib/toolgate.ts') },
      { path: 'lib/json.ts', content: ctx.readHelper('assemblyscript/lib/json.ts') },
    ];
  },
};
