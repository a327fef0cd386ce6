/* test_sampling: asks the client's model to answer `prompt` (sampling/createMessage). */
#include "client_common.h"

TG_EXPORT("sampling") int sampling(void) {
  char err[256];
  size_t len;
  tg_json args;
  if (tg_json_args(tg_input(&len), len, &args, err, sizeof err)) return tg_error(err);
  const tg_json *prompt;
  if (tg_arg(&args, "prompt", TG_JSTR, 1, &prompt, err, sizeof err)) {
    tg_json_free(&args);
    return tg_error(err);
  }
  tg_buf p = {0};
  tg_buf_puts(&p, "{\"messages\":[{\"role\":\"user\",\"content\":{\"type\":\"text\",\"text\":");
  tg_buf_jstr(&p, prompt->str, prompt->len);
  tg_buf_puts(&p, "}}],\"maxTokens\":100}");
  tg_json_free(&args);
  if (p.oom) return tg_error("out of memory");
  char *answer = tg_mcp_sample(p.data);
  tg_buf_free(&p);
  tg_json result;
  int bad = client_answer(answer, &result);
  free(answer);
  if (bad) return 1;
  const tg_json *content = tg_json_get(&result, "content");
  const tg_json *text = tg_json_get(content, "text");
  int rc = text && text->type == TG_JSTR ? reply_text("LLM response: ", text->str, text->len)
                                         : tg_error("the client's answer has no text content");
  tg_json_free(&result);
  return rc;
}
