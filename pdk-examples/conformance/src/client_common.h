/*
 * Shared by the conformance tools that talk to the calling MCP client (toolgate:mcp). Each tool
 * module imports only the toolgate:mcp functions it uses, so its manifest lists only those
 * features under capabilities.mcp.
 */
#ifndef CLIENT_COMMON_H
#define CLIENT_COMMON_H

#include <time.h>
#include "toolgate.h"
#include "tg_json.h"

/* Sleeps through WASI poll_oneoff (the call's deadline still counts). */
static inline void sleep_ms(long ms) {
  struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
  nanosleep(&ts, NULL);
}

/* Sets {"content":[{"type":"text","text": <prefix><text>}]} as the output and returns 0. */
static inline int reply_text(const char *prefix, const char *text, size_t len) {
  tg_buf b = {0};
  tg_buf_puts(&b, "{\"content\":[{\"type\":\"text\",\"text\":");
  size_t plen = strlen(prefix);
  char *joined = (char *)malloc(plen + len + 1);
  if (joined == NULL) return tg_error("out of memory");
  memcpy(joined, prefix, plen);
  memcpy(joined + plen, text, len);
  tg_buf_jstr(&b, joined, plen + len);
  free(joined);
  tg_buf_puts(&b, "}]}");
  if (b.oom) return tg_error("out of memory");
  tg_output(b.data, b.len);
  tg_buf_free(&b);
  return 0;
}

/*
 * An answer from tg_mcp_elicit / tg_mcp_sample: parsed into *out. Returns 1 (the error already
 * set) when the host answered {"error": ...} (policy denied it, the client cannot answer...) or
 * the answer is not JSON.
 */
static inline int client_answer(char *answer, tg_json *out) {
  char err[256];
  if (answer == NULL) return tg_error("no answer from the host");
  int bad = tg_json_parse(answer, strlen(answer), out, err, sizeof err);
  if (bad) return tg_errorf("the answer is not JSON: %s", err);
  const tg_json *e = tg_json_get(out, "error");
  if (e != NULL) {
    const tg_json *code = tg_json_get(e, "code");
    const tg_json *msg = tg_json_get(e, "message");
    int rc = tg_errorf("%s: %s", code && code->type == TG_JSTR ? code->str : "ERROR",
                       msg && msg->type == TG_JSTR ? msg->str : "the request was not answered");
    tg_json_free(out);
    return rc;
  }
  return 0;
}

#endif
