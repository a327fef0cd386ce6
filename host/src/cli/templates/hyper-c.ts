// C, module.abi hyper-mcp: a v2 plugin (two tools, a resource and a prompt) built with clang and
// wasi-libc like the C tool scaffold, with our toolgate.h and tg_json.h copied into include/.
import type { LanguageTemplate, ScaffoldContext, ScaffoldFile } from './types.js';

// __P__ is the plugin name. Each export reads JSON input and sets JSON output (docs/authoring.md,
// "The hyper-mcp interface").
const SOURCE = `// __P__: a hyper-mcp v2 plugin in C. toolgate serves its tools as __P____greet and __P____add,
// its resource __P__://about and its prompt review.
#include "tg_json.h"
#include "toolgate.h"

static int emit(tg_buf *b) {
  if (b->oom) { tg_buf_free(b); return tg_error("out of memory building the result"); }
  tg_output(b->data, b->len);
  tg_buf_free(b);
  return 0;
}

/* Parses the input and finds input.request; the caller frees *in and *text. */
static const tg_json *request_of(tg_json *in, char **text) {
  size_t len;
  char err[256];
  *text = tg_input(&len);
  if (*text == NULL || tg_json_parse(*text, len, in, err, sizeof err)) return NULL;
  const tg_json *req = tg_json_get(in, "request");
  return req != NULL && req->type == TG_JOBJ ? req : NULL;
}

TG_EXPORT("list_tools") int list_tools(void) {
  tg_output_str("{\\"tools\\":["
    "{\\"name\\":\\"greet\\",\\"description\\":\\"Greets a person by name.\\",\\"inputSchema\\":{\\"type\\":\\"object\\","
    "\\"properties\\":{\\"name\\":{\\"type\\":\\"string\\",\\"minLength\\":1}},\\"required\\":[\\"name\\"],\\"additionalProperties\\":false},"
    "\\"annotations\\":{\\"readOnlyHint\\":true}},"
    "{\\"name\\":\\"add\\",\\"description\\":\\"Adds two numbers.\\",\\"inputSchema\\":{\\"type\\":\\"object\\","
    "\\"properties\\":{\\"a\\":{\\"type\\":\\"number\\"},\\"b\\":{\\"type\\":\\"number\\"}},\\"required\\":[\\"a\\",\\"b\\"],\\"additionalProperties\\":false}}]}");
  return 0;
}

TG_EXPORT("call_tool") int call_tool(void) {
  tg_json in;
  char *text = NULL;
  const tg_json *req = request_of(&in, &text);
  if (req == NULL) { free(text); return tg_error("input has no request object"); }
  const tg_json *name = tg_json_get(req, "name");
  const tg_json *args = tg_json_get(req, "arguments");
  tg_buf out = {0};
  tg_buf_puts(&out, "{\\"content\\":[{\\"type\\":\\"text\\",\\"text\\":");
  if (name != NULL && name->type == TG_JSTR && strcmp(name->str, "greet") == 0) {
    const tg_json *who = args == NULL ? NULL : tg_json_get(args, "name");
    tg_buf greeting = {0};
    tg_buf_puts(&greeting, "Hello, ");
    if (who != NULL && who->type == TG_JSTR) tg_buf_put(&greeting, who->str, who->len);
    tg_buf_puts(&greeting, "!");
    tg_buf_jstr(&out, greeting.data, greeting.len);
    tg_buf_free(&greeting);
    tg_buf_puts(&out, "}]}");
  } else if (name != NULL && name->type == TG_JSTR && strcmp(name->str, "add") == 0) {
    const tg_json *a = args == NULL ? NULL : tg_json_get(args, "a"), *b = args == NULL ? NULL : tg_json_get(args, "b");
    double sum = (a != NULL && a->type == TG_JNUM ? a->number : 0) + (b != NULL && b->type == TG_JNUM ? b->number : 0);
    tg_buf num = {0};
    tg_buf_num(&num, sum);
    tg_buf_jstr(&out, num.data, num.len);
    tg_buf_puts(&out, "}],\\"structuredContent\\":{\\"sum\\":");
    tg_buf_put(&out, num.data, num.len);
    tg_buf_puts(&out, "}}");
    tg_buf_free(&num);
  } else {
    tg_buf_puts(&out, "\\"unknown tool\\"}],\\"isError\\":true}");
  }
  tg_json_free(&in);
  free(text);
  return emit(&out);
}

TG_EXPORT("list_resources") int list_resources(void) {
  tg_output_str("{\\"resources\\":[{\\"uri\\":\\"__P__://about\\",\\"name\\":\\"about\\",\\"description\\":\\"What __P__ is.\\",\\"mimeType\\":\\"text/plain\\"}]}");
  return 0;
}

TG_EXPORT("read_resource") int read_resource(void) {
  tg_output_str("{\\"contents\\":[{\\"uri\\":\\"__P__://about\\",\\"mimeType\\":\\"text/plain\\",\\"text\\":\\"__P__ greets people and adds numbers.\\"}]}");
  return 0;
}

TG_EXPORT("list_prompts") int list_prompts(void) {
  tg_output_str("{\\"prompts\\":[{\\"name\\":\\"review\\",\\"description\\":\\"Asks for a short review of a topic.\\","
    "\\"arguments\\":[{\\"name\\":\\"topic\\",\\"description\\":\\"What to review.\\",\\"required\\":true}]}]}");
  return 0;
}

TG_EXPORT("get_prompt") int get_prompt(void) {
  tg_json in;
  char *text = NULL;
  const tg_json *req = request_of(&in, &text);
  if (req == NULL) { free(text); return tg_error("input has no request object"); }
  const tg_json *args = tg_json_get(req, "arguments");
  const tg_json *topic = args == NULL ? NULL : tg_json_get(args, "topic");
  tg_buf line = {0};
  tg_buf_puts(&line, "Write a short review of ");
  if (topic != NULL && topic->type == TG_JSTR) tg_buf_put(&line, topic->str, topic->len);
  else tg_buf_puts(&line, "anything");
  tg_buf_puts(&line, ".");
  tg_buf out = {0};
  tg_buf_puts(&out, "{\\"messages\\":[{\\"role\\":\\"user\\",\\"content\\":{\\"type\\":\\"text\\",\\"text\\":");
  tg_buf_jstr(&out, line.data, line.len);
  tg_buf_puts(&out, "}}]}");
  tg_buf_free(&line);
  tg_json_free(&in);
  free(text);
  return emit(&out);
}
`;

const MAKEFILE = `# Builds build/__P__.wasm with clang for wasm32-wasi (Debian: clang lld wasi-libc libclang-rt-14-dev-wasm32).
CLANG ?= clang
CFLAGS := --target=wasm32-wasi -mexec-model=reactor -O2 -Wall -Werror -Iinclude -Wl,--strip-debug

.PHONY: all clean
all: build/__P__.wasm
\t@:

build/__P__.wasm: __P__.c include/toolgate.h include/tg_json.h
\t@mkdir -p build
\t@$(CLANG) $(CFLAGS) -o $@ $<

clean:
\trm -rf build
`;

export const hyperCTemplate: LanguageTemplate = {
  label: 'C',
  maxPages: 16,
  buildNote: 'Needs clang 14+, lld and wasi-libc.',
  files(ctx: ScaffoldContext): ScaffoldFile[] {
    const fill = (s: string) => s.replaceAll('__P__', ctx.tool);
    return [
      { path: `${ctx.tool}.c`, content: fill(SOURCE) },
      { path: 'Makefile', content: fill(MAKEFILE) },
      { path: 'include/toolgate.h', content: ctx.readHelper('c/include/toolgate.h') },
      { path: 'include/tg_json.h', content: ctx.readHelper('c/include/tg_json.h') },
    ];
  },
};
