/*
 * The conformance suite's multi round-trip (MCP 2026-07-28 input rounds) and diagnostic reference
 * tools. Each request they send may carry "inputKey", the name of its question in an input round;
 * an answer is the client's result, or {"error": {"code", "message"}} where PENDING means "asked;
 * return now" (the call runs again with the answer) and UNAVAILABLE means the client lacks the
 * capability.
 *
 * A module may import only the toolgate:mcp functions its manifest lists under capabilities.mcp,
 * and these tools need different sets of them, so this file is built once per set (the Makefile
 * passes one MRTR_* define each), and each build exports only the tools of its set:
 *   MRTR_SAMPLING      build/mrtr_sampling.wasm      [sampling]
 *   MRTR_ELICITATION   build/mrtr_elicitation.wasm   [elicitation]
 *   MRTR_ROOTS         build/mrtr_roots.wasm         [roots]
 *   MRTR_MULTIPLE      build/mrtr_multiple.wasm      [elicitation, sampling, roots]
 *   MRTR_CAPABILITIES  build/mrtr_capabilities.wasm  [elicitation, sampling]
 * test_logging_tool ([logging]) is in diag.c.
 */
#include "client_common.h"

/* An answer from the host, parsed. code/message are set (pointing into json) when it is an error. */
typedef struct {
  char *raw;
  tg_json json;
  const char *code;
  const char *message;
} answer;

/* Takes ownership of raw. 0: an answer (maybe an error, see a->code); non-zero: not JSON (error set). */
static int answer_of(char *raw, answer *a) {
  char err[256];
  memset(a, 0, sizeof *a);
  a->raw = raw;
  if (raw == NULL) return tg_error("no answer from the host");
  if (tg_json_parse(raw, strlen(raw), &a->json, err, sizeof err)) {
    free(raw);
    a->raw = NULL;
    return tg_errorf("the answer is not JSON: %s", err);
  }
  const tg_json *e = tg_json_get(&a->json, "error");
  if (e != NULL) {
    const tg_json *code = tg_json_get(e, "code");
    const tg_json *msg = tg_json_get(e, "message");
    a->code = code && code->type == TG_JSTR ? code->str : "ERROR";
    a->message = msg && msg->type == TG_JSTR ? msg->str : "the request was not answered";
  }
  return 0;
}

static __attribute__((unused)) void answer_free(answer *a) {
  if (a->raw == NULL) return;
  tg_json_free(&a->json);
  free(a->raw);
  a->raw = NULL;
}

/* Sets the answer's error as the tool's error ("<what>: CODE: message") and returns 1. */
static __attribute__((unused)) int answer_error(const answer *a, const char *what) {
  return what ? tg_errorf("%s: %s: %s", what, a->code, a->message) : tg_errorf("%s: %s", a->code, a->message);
}

/* The string at a.content.<field> of an accepted elicitation, or NULL. */
static __attribute__((unused)) const tg_json *accepted_field(const answer *a, const char *field) {
  const tg_json *action = tg_json_get(&a->json, "action");
  if (!action || action->type != TG_JSTR || strcmp(action->str, "accept") != 0) return NULL;
  return tg_json_get(tg_json_get(&a->json, "content"), field);
}

/* The elicitation's action ("accept", "decline", "cancel"), or "no action". */
static __attribute__((unused)) const char *action_of(const answer *a) {
  const tg_json *action = tg_json_get(&a->json, "action");
  return action && action->type == TG_JSTR ? action->str : "no action";
}

/* content.text of a sampling result, or NULL. */
static __attribute__((unused)) const tg_json *sample_text(const answer *a) {
  const tg_json *text = tg_json_get(tg_json_get(&a->json, "content"), "text");
  return text && text->type == TG_JSTR ? text : NULL;
}

static __attribute__((unused)) int reply_str(const char *prefix, const char *text) { return reply_text(prefix, text, strlen(text)); }

#if defined(MRTR_ELICITATION) || defined(MRTR_MULTIPLE) || defined(MRTR_CAPABILITIES)
#define NAME_SCHEMA "{\"type\":\"object\",\"properties\":{\"name\":{\"type\":\"string\"}},\"required\":[\"name\"]}"
#define USER_NAME_ELICIT "{\"inputKey\":\"user_name\",\"message\":\"What is your name?\",\"requestedSchema\":" NAME_SCHEMA "}"

static int elicit(const char *params, answer *a) { return answer_of(tg_mcp_elicit(params), a); }
#endif

#if defined(MRTR_SAMPLING) || defined(MRTR_MULTIPLE) || defined(MRTR_CAPABILITIES)
#define SAMPLE_PARAMS(key, text, max)                                                                 \
  "{" key "\"messages\":[{\"role\":\"user\",\"content\":{\"type\":\"text\",\"text\":\"" text "\"}}]," \
  "\"maxTokens\":" #max "}"

static int sample(const char *params, answer *a) { return answer_of(tg_mcp_sample(params), a); }

/* Replies "<prefix><content.text>" from a sampling answer, or sets the error. Frees the answer. */
static __attribute__((unused)) int reply_sample(answer *a, const char *prefix) {
  int rc;
  const tg_json *text = sample_text(a);
  if (a->code) rc = answer_error(a, NULL);
  else if (text) rc = reply_text(prefix, text->str, text->len);
  else rc = tg_error("the client's sampling answer has no text content");
  answer_free(a);
  return rc;
}
#endif

#ifdef MRTR_SAMPLING
/* test_missing_capability: a sampling request; any error is the tool's error (UNAVAILABLE when the
 * client did not declare sampling), else the model's text. */
TG_EXPORT("missing_capability") int missing_capability(void) {
  answer a;
  if (sample(SAMPLE_PARAMS("", "ping", 10), &a)) return 1;
  return reply_sample(&a, "");
}

/* test_input_required_result_sampling */
TG_EXPORT("input_required_result_sampling") int input_required_result_sampling(void) {
  answer a;
  if (sample(SAMPLE_PARAMS("\"inputKey\":\"sample_request\",", "What is the capital of France?", 100), &a)) return 1;
  return reply_sample(&a, "Sampling result: ");
}
#endif

#ifdef MRTR_ELICITATION
/* test_streaming_elicitation: one elicitation, its answer as JSON. */
TG_EXPORT("streaming_elicitation") int streaming_elicitation(void) {
  answer a;
  if (elicit("{\"message\":\"Please confirm\",\"requestedSchema\":{\"type\":\"object\",\"properties\":{\"ok\":{\"type\":\"boolean\"}}}}", &a)) return 1;
  int rc = a.code ? answer_error(&a, NULL) : reply_str("Elicitation answer: ", a.raw);
  answer_free(&a);
  return rc;
}

/* test_input_required_result_elicitation: "Hello, <name>!" once the user gave a name. */
TG_EXPORT("input_required_result_elicitation") int input_required_result_elicitation(void) {
  answer a;
  if (elicit(USER_NAME_ELICIT, &a)) return 1;
  int rc;
  const tg_json *name = accepted_field(&a, "name");
  char line[128];
  if (a.code) {
    rc = answer_error(&a, NULL);
  } else if (name && name->type == TG_JSTR) {
    tg_buf b = {0};
    tg_buf_puts(&b, "Hello, ");
    tg_buf_put(&b, name->str, name->len);
    tg_buf_puts(&b, "!");
    rc = b.oom ? tg_error("out of memory") : reply_text("", b.data, b.len);
    tg_buf_free(&b);
  } else {
    snprintf(line, sizeof line, "No name given (%s)", action_of(&a));
    rc = reply_str("", line);
  }
  answer_free(&a);
  return rc;
}

/* The confirm question of test_input_required_result_request_state and _tampered_state:
 * "<prefix>confirmed=<ok>" (false unless the user accepted with ok true). */
static int confirm(const char *prefix) {
  answer a;
  if (elicit("{\"inputKey\":\"confirm\",\"message\":\"Confirm?\",\"requestedSchema\":{\"type\":\"object\","
             "\"properties\":{\"ok\":{\"type\":\"boolean\"}},\"required\":[\"ok\"]}}",
             &a))
    return 1;
  int rc;
  if (a.code) {
    rc = answer_error(&a, NULL);
  } else {
    const tg_json *ok = accepted_field(&a, "ok");
    rc = reply_str(prefix, ok && ok->type == TG_JBOOL && ok->boolean ? "confirmed=true" : "confirmed=false");
  }
  answer_free(&a);
  return rc;
}

TG_EXPORT("input_required_result_request_state") int input_required_result_request_state(void) { return confirm("state-ok: "); }

TG_EXPORT("input_required_result_tampered_state") int input_required_result_tampered_state(void) {
  return confirm("tampered-state tool: ");
}

/* One required string field `field`, asked under inputKey `field`; 0 with *out set (malloc'd), or
 * non-zero with the error set. */
static int ask_string(const char *field, const char *message, char **out) {
  tg_buf p = {0};
  tg_buf_puts(&p, "{\"inputKey\":");
  tg_buf_jstr(&p, field, strlen(field));
  tg_buf_puts(&p, ",\"message\":");
  tg_buf_jstr(&p, message, strlen(message));
  tg_buf_puts(&p, ",\"requestedSchema\":{\"type\":\"object\",\"properties\":{");
  tg_buf_jstr(&p, field, strlen(field));
  tg_buf_puts(&p, ":{\"type\":\"string\"}},\"required\":[");
  tg_buf_jstr(&p, field, strlen(field));
  tg_buf_puts(&p, "]}}");
  if (p.oom) return tg_error("out of memory");
  answer a;
  int bad = elicit(p.data, &a);
  tg_buf_free(&p);
  if (bad) return 1;
  int rc = 0;
  const tg_json *v = accepted_field(&a, field);
  if (a.code) {
    rc = answer_error(&a, field);
  } else if (!v || v->type != TG_JSTR) {
    rc = tg_errorf("%s: not answered (%s)", field, action_of(&a));
  } else {
    *out = strdup(v->str);
    if (*out == NULL) rc = tg_error("out of memory");
  }
  answer_free(&a);
  return rc;
}

/* test_input_required_result_multi_round: a name, then (a round later) a colour. */
TG_EXPORT("input_required_result_multi_round") int input_required_result_multi_round(void) {
  char *name = NULL, *color = NULL;
  if (ask_string("name", "What is your name?", &name)) return 1;
  if (ask_string("color", "What is your favourite color?", &color)) {
    free(name);
    return 1;
  }
  tg_buf b = {0};
  tg_buf_puts(&b, name);
  tg_buf_puts(&b, " likes ");
  tg_buf_puts(&b, color);
  free(name);
  free(color);
  int rc = b.oom ? tg_error("out of memory") : reply_text("", b.data, b.len);
  tg_buf_free(&b);
  return rc;
}
#endif

#ifdef MRTR_ROOTS
/* test_input_required_result_list_roots */
TG_EXPORT("input_required_result_list_roots") int input_required_result_list_roots(void) {
  answer a;
  if (answer_of(tg_mcp_roots("{\"inputKey\":\"roots_request\"}"), &a)) return 1;
  int rc = a.code ? answer_error(&a, NULL) : reply_str("Roots: ", a.raw);
  answer_free(&a);
  return rc;
}
#endif

#ifdef MRTR_MULTIPLE
/* test_input_required_result_multiple_inputs: all three questions go out before any answer is
 * looked at, so one input round can carry them together. */
TG_EXPORT("input_required_result_multiple_inputs") int input_required_result_multiple_inputs(void) {
  answer name, greeting, roots;
  int bad_name = elicit(USER_NAME_ELICIT, &name);
  int bad_greeting = sample(SAMPLE_PARAMS("\"inputKey\":\"greeting\",", "Say hello", 50), &greeting);
  int bad_roots = answer_of(tg_mcp_roots("{\"inputKey\":\"roots\"}"), &roots);
  int rc;
  if (bad_name || bad_greeting || bad_roots) {
    rc = 1; /* name the first answer that was not JSON */
    if (bad_name) tg_error("user_name: the answer is not JSON");
    else if (bad_greeting) tg_error("greeting: the answer is not JSON");
    else tg_error("roots: the answer is not JSON");
  } else if (name.code) {
    rc = answer_error(&name, "user_name");
  } else if (greeting.code) {
    rc = answer_error(&greeting, "greeting");
  } else if (roots.code) {
    rc = answer_error(&roots, "roots");
  } else {
    const tg_json *n = accepted_field(&name, "name");
    const tg_json *text = sample_text(&greeting);
    const tg_json *list = tg_json_get(&roots.json, "roots");
    size_t count = list && list->type == TG_JARR ? list->len : 0;
    char tail[64];
    tg_buf b = {0};
    tg_buf_puts(&b, "name=");
    if (n && n->type == TG_JSTR) tg_buf_put(&b, n->str, n->len);
    else {
      tg_buf_puts(&b, "(");
      tg_buf_puts(&b, action_of(&name));
      tg_buf_puts(&b, ")");
    }
    tg_buf_puts(&b, "; sample=");
    if (text) tg_buf_put(&b, text->str, text->len);
    snprintf(tail, sizeof tail, "; roots=%zu root(s)", count);
    tg_buf_puts(&b, tail);
    rc = b.oom ? tg_error("out of memory") : reply_text("", b.data, b.len);
    tg_buf_free(&b);
  }
  answer_free(&name);
  answer_free(&greeting);
  answer_free(&roots);
  return rc;
}
#endif

#ifdef MRTR_CAPABILITIES
/* test_input_required_result_capabilities: elicitation when the client has it, else sampling. */
TG_EXPORT("input_required_result_capabilities") int input_required_result_capabilities(void) {
  answer a;
  if (elicit("{\"inputKey\":\"preference\",\"message\":\"Pick one\",\"requestedSchema\":{\"type\":\"object\","
             "\"properties\":{\"choice\":{\"type\":\"string\"}}}}",
             &a))
    return 1;
  if (a.code && strcmp(a.code, "UNAVAILABLE") == 0) {
    answer_free(&a);
    if (sample(SAMPLE_PARAMS("\"inputKey\":\"fallback_sample\",", "Pick one", 20), &a)) return 1;
    return reply_sample(&a, "Sampling fallback: ");
  }
  int rc = a.code ? answer_error(&a, NULL) : reply_str("Elicitation: ", a.raw);
  answer_free(&a);
  return rc;
}
#endif
