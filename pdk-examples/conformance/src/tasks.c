/* The conformance suite's Tasks-extension tools (tasks-* scenarios; the manifests in manifests/conformance
 * say which may or must run as a task). A question the host has sent to the client is answered
 * {"error":{"code":"PENDING"}} for this run: the tool stops with an error, and the host runs it
 * again once the client answered (docs/mcp.md, "Tasks"). */
#include "client_common.h"

/* Sets {"content":[{"type":"text","text": a + b + c}]} as the output and returns 0. */
static int reply3(const char *a, const char *b, size_t blen, const char *c) {
  tg_buf t = {0};
  tg_buf_puts(&t, a);
  tg_buf_put(&t, b, blen);
  tg_buf_puts(&t, c);
  if (t.oom) return tg_error("out of memory");
  int rc = reply_text("", t.data, t.len);
  tg_buf_free(&t);
  return rc;
}

/* Parses the arguments and fetches one string argument (NULL and the error set when it is bad). */
static const tg_json *string_arg(tg_json *args, const char *key, int *failed) {
  char err[256];
  size_t len;
  const tg_json *v = NULL;
  *failed = 1;
  if (tg_json_args(tg_input(&len), len, args, err, sizeof err)) {
    tg_error(err);
    return NULL;
  }
  if (tg_arg(args, key, TG_JSTR, 1, &v, err, sizeof err)) {
    tg_json_free(args);
    tg_error(err);
    return NULL;
  }
  *failed = 0;
  return v;
}

/* The accepted answer's content member `key`, or NULL (the error set) for anything else. */
static const tg_json *accepted(tg_json *answer, const char *key, tg_jtype type) {
  const tg_json *action = tg_json_get(answer, "action");
  if (action == NULL || action->type != TG_JSTR || strcmp(action->str, "accept") != 0) {
    tg_error("the user did not accept");
    return NULL;
  }
  const tg_json *v = tg_json_get(tg_json_get(answer, "content"), key);
  if (v == NULL || v->type != type) {
    tg_errorf("the answer has no %s", key);
    return NULL;
  }
  return v;
}

TG_EXPORT("greet") int greet(void) {
  tg_json args;
  int failed;
  const tg_json *name = string_arg(&args, "name", &failed);
  if (failed) return 1;
  int rc = reply3("Hello, ", name->str, name->len, "!");
  tg_json_free(&args);
  return rc;
}

TG_EXPORT("slow_compute") int slow_compute(void) {
  char err[256];
  tg_json args;
  int failed;
  const tg_json *label = string_arg(&args, "label", &failed);
  if (failed) return 1;
  const tg_json *seconds;
  if (tg_arg(&args, "seconds", TG_JNUM, 1, &seconds, err, sizeof err)) {
    tg_json_free(&args);
    return tg_error(err);
  }
  if (seconds->number > 0) sleep_ms((long)(seconds->number * 1000));
  int rc = reply3("computed ", label->str, label->len, "");
  tg_json_free(&args);
  return rc;
}

TG_EXPORT("failing_job") int failing_job(void) {
  sleep_ms(1000);
  return tg_error("failing_job failed, as it always does");
}

/* Output that is not an MCP result: the host answers INVALID_OUTPUT, which ends a task failed. */
TG_EXPORT("protocol_error_job") int protocol_error_job(void) {
  sleep_ms(200);
  tg_output_str("{\"content\":\"this is not a list of content blocks\"}");
  return 0;
}

TG_EXPORT("confirm_delete") int confirm_delete(void) {
  tg_json args;
  int failed;
  const tg_json *file = string_arg(&args, "filename", &failed);
  if (failed) return 1;
  tg_buf p = {0};
  tg_buf_puts(&p, "{\"inputKey\":\"confirm\",\"message\":");
  tg_buf_jstr(&p, "Delete this file?", 17);
  tg_buf_puts(&p, ",\"requestedSchema\":{\"type\":\"object\",\"properties\":{\"confirm\":{\"type\":\"boolean\"}},\"required\":[\"confirm\"]}}");
  if (p.oom) return tg_error("out of memory");
  char *answer = tg_mcp_elicit(p.data);
  tg_buf_free(&p);
  tg_json a;
  int rc = client_answer(answer, &a);
  free(answer);
  if (rc == 0) {
    const tg_json *yes = accepted(&a, "confirm", TG_JBOOL);
    rc = yes == NULL ? 1 : reply3(yes->boolean ? "deleted " : "kept ", file->str, file->len, "");
    tg_json_free(&a);
  }
  tg_json_free(&args);
  return rc;
}

/* Both questions go out before either answer is looked at, so the client gets them in one round. */
TG_EXPORT("multi_input") int multi_input(void) {
  char *first = tg_mcp_elicit(
      "{\"inputKey\":\"first\",\"message\":\"First question: your name?\",\"requestedSchema\":{\"type\":\"object\","
      "\"properties\":{\"name\":{\"type\":\"string\"}},\"required\":[\"name\"]}}");
  char *second = tg_mcp_elicit(
      "{\"inputKey\":\"second\",\"message\":\"Second question: your name again?\",\"requestedSchema\":{\"type\":\"object\","
      "\"properties\":{\"name\":{\"type\":\"string\"}},\"required\":[\"name\"]}}");
  tg_json a, b;
  int rc = client_answer(first, &a);
  free(first);
  if (rc != 0) {
    free(second);
    return rc;
  }
  rc = client_answer(second, &b);
  free(second);
  if (rc != 0) {
    tg_json_free(&a);
    return rc;
  }
  const tg_json *n1 = accepted(&a, "name", TG_JSTR);
  const tg_json *n2 = n1 == NULL ? NULL : accepted(&b, "name", TG_JSTR);
  if (n2 != NULL) {
    tg_buf t = {0};
    tg_buf_puts(&t, "first: ");
    tg_buf_put(&t, n1->str, n1->len);
    tg_buf_puts(&t, ", second: ");
    tg_buf_put(&t, n2->str, n2->len);
    rc = t.oom ? tg_error("out of memory") : reply_text("", t.data, t.len);
    tg_buf_free(&t);
  } else {
    rc = 1;
  }
  tg_json_free(&a);
  tg_json_free(&b);
  return rc;
}

/* Asks first (answered as an ordinary input round, execution.sync_ms), then works as a task. */
TG_EXPORT("tool_with_task") int tool_with_task(void) {
  char *answer = tg_mcp_elicit(
      "{\"inputKey\":\"user_name\",\"message\":\"What is your name?\",\"requestedSchema\":{\"type\":\"object\","
      "\"properties\":{\"name\":{\"type\":\"string\"}},\"required\":[\"name\"]}}");
  tg_json a;
  int rc = client_answer(answer, &a);
  free(answer);
  if (rc != 0) return rc;
  const tg_json *name = accepted(&a, "name", TG_JSTR);
  if (name != NULL) {
    sleep_ms(2500);
    rc = reply3("Hello, ", name->str, name->len, "! (from a task)");
  } else {
    rc = 1;
  }
  tg_json_free(&a);
  return rc;
}
