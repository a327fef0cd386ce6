// json_probe: reads its whole input with tg_json.h and writes it back, for the JSON edge-case table
// the C, Rust and AssemblyScript readers share (test/examples/json-readers.test.ts). Output:
// {"value":<the document re-written>,"a":<member "a" as tg_json_get finds it, or null>}, or
// {"refused":"<why>"} when the reader refuses the document. Not an example tool: no manifest.
#include "tg_json.h"
#include "toolgate.h"

static void put_value(tg_buf *b, const tg_json *v) {
  switch (v->type) {
    case TG_JNULL: tg_buf_puts(b, "null"); break;
    case TG_JBOOL: tg_buf_puts(b, v->boolean ? "true" : "false"); break;
    case TG_JNUM: tg_buf_num(b, v->number); break;
    case TG_JSTR: tg_buf_jstr(b, v->str, v->len); break;
    case TG_JARR:
    case TG_JOBJ:
      tg_buf_puts(b, v->type == TG_JOBJ ? "{" : "[");
      for (size_t i = 0; i < v->len; i++) {
        if (i > 0) tg_buf_puts(b, ",");
        if (v->type == TG_JOBJ) {
          tg_buf_jstr(b, v->keys[i], strlen(v->keys[i]));
          tg_buf_puts(b, ":");
        }
        put_value(b, &v->items[i]);
      }
      tg_buf_puts(b, v->type == TG_JOBJ ? "}" : "]");
      break;
  }
}

TG_EXPORT("json_probe") int json_probe(void) {
  size_t len;
  char *in = tg_input(&len);
  if (!in) return tg_error("out of memory reading the input");
  char err[256];
  tg_json doc;
  tg_buf out = {0};
  if (tg_json_parse(in, len, &doc, err, sizeof err)) {
    tg_buf_puts(&out, "{\"refused\":");
    tg_buf_jstr(&out, err, strlen(err));
    tg_buf_puts(&out, "}");
  } else {
    tg_buf_puts(&out, "{\"value\":");
    put_value(&out, &doc);
    tg_buf_puts(&out, ",\"a\":");
    const tg_json *a = tg_json_get(&doc, "a");
    if (a) put_value(&out, a);
    else tg_buf_puts(&out, "null");
    tg_buf_puts(&out, "}");
    tg_json_free(&doc);
  }
  free(in);
  int rc = out.oom ? tg_error("out of memory building the result") : (tg_output(out.data, out.len), 0);
  tg_buf_free(&out);
  return rc;
}
