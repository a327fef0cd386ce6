// WAT: hand-written WebAssembly text. The scaffold is the bundled greet example with the
// export renamed, since a WAT tool has no helper library to lean on.
import type { LanguageTemplate, ScaffoldContext, ScaffoldFile } from './types.js';

function makefile(tool: string): string {
  return `# Builds build/${tool}.wasm with wabt (Debian: wabt).
WAT2WASM ?= wat2wasm

.PHONY: all clean
all: build/${tool}.wasm
\t@:

build/${tool}.wasm: ${tool}.wat
\t@mkdir -p build
\t@$(WAT2WASM) --enable-all $< -o $@

clean:
\trm -rf build
`;
}

export const watTemplate: LanguageTemplate = {
  label: 'WebAssembly text (WAT)',
  maxPages: 2,
  buildNote: 'Needs wat2wasm from wabt.',
  files(ctx: ScaffoldContext): ScaffoldFile[] {
    const greet = new TextDecoder().decode(ctx.readHelper('wat/src/greet.wat'));
    const source = greet
      .replace(
        /^;; greet: the classic first tool[^\n]*\n/,
        `;; ${ctx.tool}: a toolgate tool in WebAssembly text (scaffolded from the greet example).\n`,
      )
      .replace('(export "greet")', `(export "${ctx.tool}")`);
    return [
      { path: `${ctx.tool}.wat`, content: source },
      { path: 'Makefile', content: makefile(ctx.tool) },
    ];
  },
};
