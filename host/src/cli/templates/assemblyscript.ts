// AssemblyScript: asc and @extism/as-pdk from toolgate's node_modules, with our lib/ copied in.
import { join } from 'node:path';
import { shellQuote } from './common.js';
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

function makefile(tool: string, nodeModules: string): string {
  // Make variables cannot hold spaces safely; a root with spaces needs NODE_MODULES set by hand.
  return `# Builds build/${tool}.wasm with AssemblyScript. NODE_MODULES must hold assemblyscript and
# @extism/as-pdk (toolgate's own node_modules by default). The abort handler is ours: the default
# one imports env.abort, which toolgate refuses to load.
NODE_MODULES ?= ${nodeModules}
ASC ?= $(NODE_MODULES)/.bin/asc
ASFLAGS := --optimize --noAssert --runtime incremental --path $(NODE_MODULES) --use abort=lib/toolgate/myAbort

.PHONY: all clean
all: build/${tool}.wasm
\t@:

build/${tool}.wasm: ${tool}.ts lib/toolgate.ts lib/json.ts
\t@mkdir -p build
\t@$(ASC) $< $(ASFLAGS) --outFile $@

clean:
\trm -rf build
`;
}

export const assemblyscriptTemplate: LanguageTemplate = {
  label: 'AssemblyScript',
  maxPages: 16,
  buildNote: 'Needs node with assemblyscript and @extism/as-pdk (make NODE_MODULES=/path/to/node_modules).',
  files(ctx: ScaffoldContext): ScaffoldFile[] {
    const nm = join(ctx.toolgateRoot, 'node_modules');
    return [
      { path: `${ctx.tool}.ts`, content: source(ctx.tool) },
      { path: 'Makefile', content: makefile(ctx.tool, /\s/.test(nm) ? shellQuote(nm) : nm) },
      { path: 'lib/toolgate.ts', content: ctx.readHelper('assemblyscript/lib/toolgate.ts') },
      { path: 'lib/json.ts', content: ctx.readHelper('assemblyscript/lib/json.ts') },
    ];
  },
};
