// C: Debian clang + wasi-libc, with our toolgate.h and tg_json.h copied into include/.
import type { LanguageTemplate, ScaffoldContext, ScaffoldFile } from './types.js';

function source(tool: string): string {
  return `// ${tool}: a toolgate tool in C. Input {"name": string} -> output {"greeting": string}.
#include "tg_json.h"
#include "toolgate.h"

TG_EXPORT("${tool}") int ${tool}(void) {
  size_t len;
  char *in = tg_input(&len);
  char err[256];
  tg_json args;
  if (!in) return tg_error("out of memory reading the input");
  if (tg_json_args(in, len, &args, err, sizeof err)) return tg_error(err);
  const tg_json *name;
  if (tg_arg(&args, "name", TG_JSTR, 1, &name, err, sizeof err)) { tg_json_free(&args); return tg_error(err); }
  if (name->len == 0) { tg_json_free(&args); return tg_error("argument 'name' must not be empty"); }

  tg_buf out = {0};
  tg_buf_puts(&out, "{\\"greeting\\":");
  size_t n = strlen("Hello, ") + name->len + 1;
  char *text = malloc(n + 1);
  if (!text) { tg_json_free(&args); return tg_error("out of memory"); }
  memcpy(text, "Hello, ", 7);
  memcpy(text + 7, name->str, name->len);
  text[n - 1] = '!';
  text[n] = '\\0';
  tg_buf_jstr(&out, text, n);
  tg_buf_puts(&out, "}");
  free(text);
  tg_json_free(&args);
  if (out.oom) { tg_buf_free(&out); return tg_error("out of memory building the result"); }
  tg_output(out.data, out.len);
  tg_buf_free(&out);
  return 0;
}
`;
}

function makefile(tool: string): string {
  return `# Builds build/${tool}.wasm with clang for wasm32-wasi (Debian: clang lld wasi-libc libclang-rt-14-dev-wasm32).
CLANG ?= clang
CFLAGS := --target=wasm32-wasi -mexec-model=reactor -O2 -Wall -Werror -Iinclude -Wl,--strip-debug

.PHONY: all clean
all: build/${tool}.wasm
\t@:

build/${tool}.wasm: ${tool}.c include/toolgate.h include/tg_json.h
\t@mkdir -p build
\t@$(CLANG) $(CFLAGS) -o $@ $<

clean:
\trm -rf build
`;
}

export const cTemplate: LanguageTemplate = {
  label: 'C',
  maxPages: 16,
  buildNote: 'Needs clang 14+, lld and wasi-libc.',
  files(ctx: ScaffoldContext): ScaffoldFile[] {
    return [
      { path: `${ctx.tool}.c`, content: source(ctx.tool) },
      { path: 'Makefile', content: makefile(ctx.tool) },
      { path: 'include/toolgate.h', content: ctx.readHelper('c/include/toolgate.h') },
      { path: 'include/tg_json.h', content: ctx.readHelper('c/include/tg_json.h') },
    ];
  },
};
