/* test_elicitation, test_elicitation_sep1034_defaults, test_elicitation_sep1330_enums: ask the
 * client's user with elicitation/create and report the answer. */
#include "client_common.h"

/* Sends params, replies "<prefix>action=..., content=..." from the client's answer. */
static int ask_and_report(const char *params, const char *prefix) {
  char *answer = tg_mcp_elicit(params);
  tg_json result;
  if (client_answer(answer, &result)) {
    free(answer);
    return 1;
  }
  tg_json_free(&result);
  int rc = reply_text(prefix, answer, strlen(answer));
  free(answer);
  return rc;
}

TG_EXPORT("elicitation") int elicitation(void) {
  char err[256];
  size_t len;
  tg_json args;
  if (tg_json_args(tg_input(&len), len, &args, err, sizeof err)) return tg_error(err);
  const tg_json *message;
  if (tg_arg(&args, "message", TG_JSTR, 1, &message, err, sizeof err)) {
    tg_json_free(&args);
    return tg_error(err);
  }
  tg_buf p = {0};
  tg_buf_puts(&p, "{\"message\":");
  tg_buf_jstr(&p, message->str, message->len);
  tg_buf_puts(&p, ",\"requestedSchema\":{\"type\":\"object\",\"properties\":{"
                  "\"username\":{\"type\":\"string\",\"description\":\"User's response\"},"
                  "\"email\":{\"type\":\"string\",\"description\":\"User's email address\"}},"
                  "\"required\":[\"username\",\"email\"]}}");
  tg_json_free(&args);
  if (p.oom) return tg_error("out of memory");
  int rc = ask_and_report(p.data, "User response: ");
  tg_buf_free(&p);
  return rc;
}

TG_EXPORT("elicitation_sep1034_defaults") int elicitation_sep1034_defaults(void) {
  return ask_and_report(
      "{\"message\":\"Please review and update the form fields with defaults\",\"requestedSchema\":{"
      "\"type\":\"object\",\"properties\":{"
      "\"name\":{\"type\":\"string\",\"description\":\"User name\",\"default\":\"John Doe\"},"
      "\"age\":{\"type\":\"integer\",\"description\":\"User age\",\"default\":30},"
      "\"score\":{\"type\":\"number\",\"description\":\"User score\",\"default\":95.5},"
      "\"status\":{\"type\":\"string\",\"description\":\"User status\",\"enum\":[\"active\",\"inactive\",\"pending\"],\"default\":\"active\"},"
      "\"verified\":{\"type\":\"boolean\",\"description\":\"Verification status\",\"default\":true}},"
      "\"required\":[]}}",
      "Elicitation completed: ");
}

TG_EXPORT("elicitation_sep1330_enums") int elicitation_sep1330_enums(void) {
  return ask_and_report(
      "{\"message\":\"Please select options from the enum fields\",\"requestedSchema\":{"
      "\"type\":\"object\",\"properties\":{"
      "\"untitledSingle\":{\"type\":\"string\",\"description\":\"Select one option\",\"enum\":[\"option1\",\"option2\",\"option3\"]},"
      "\"titledSingle\":{\"type\":\"string\",\"description\":\"Select one option with titles\",\"oneOf\":["
      "{\"const\":\"value1\",\"title\":\"First Option\"},{\"const\":\"value2\",\"title\":\"Second Option\"},"
      "{\"const\":\"value3\",\"title\":\"Third Option\"}]},"
      "\"legacyEnum\":{\"type\":\"string\",\"description\":\"Select one option (legacy)\",\"enum\":[\"opt1\",\"opt2\",\"opt3\"],"
      "\"enumNames\":[\"Option One\",\"Option Two\",\"Option Three\"]},"
      "\"untitledMulti\":{\"type\":\"array\",\"description\":\"Select multiple options\",\"minItems\":1,\"maxItems\":3,"
      "\"items\":{\"type\":\"string\",\"enum\":[\"option1\",\"option2\",\"option3\"]}},"
      "\"titledMulti\":{\"type\":\"array\",\"description\":\"Select multiple options with titles\",\"minItems\":1,\"maxItems\":3,"
      "\"items\":{\"anyOf\":[{\"const\":\"value1\",\"title\":\"First Choice\"},{\"const\":\"value2\",\"title\":\"Second Choice\"},"
      "{\"const\":\"value3\",\"title\":\"Third Choice\"}]}}},"
      "\"required\":[]}}",
      "Elicitation completed: ");
}
