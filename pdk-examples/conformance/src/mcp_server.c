/* The conformance suite's reference resources, resource templates, prompts and completions as one
 * module in hyper-mcp's v2 plugin interface (module.abi: hyper-mcp): list_resources,
 * list_resource_templates, read_resource, list_prompts, get_prompt and complete, each taking
 * {"request": ..., "context": {...}} JSON and answering the MCP result as JSON. The prompt
 * test_input_required_result_prompt asks the client through toolgate's own elicit import
 * (capabilities.mcp: [elicitation]); on 2026-07-28 that question travels as input key user_context. */
#include "client_common.h"

static const char PNG_1X1[] =
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==";

/* Parses the export's input and returns its "request" member (NULL and the error set when bad). */
static const tg_json *request_of(tg_json *in) {
  char err[256];
  size_t len;
  char *text = tg_input(&len);
  if (text == NULL || tg_json_parse(text, len, in, err, sizeof err)) {
    free(text);
    tg_errorf("input is not JSON: %s", err);
    return NULL;
  }
  free(text);
  const tg_json *req = tg_json_get(in, "request");
  if (req == NULL || req->type != TG_JOBJ) {
    tg_json_free(in);
    tg_error("input has no request object");
    return NULL;
  }
  return req;
}

static const char *str_member(const tg_json *obj, const char *key) {
  const tg_json *v = tg_json_get(obj, key);
  return v != NULL && v->type == TG_JSTR ? v->str : NULL;
}

static int emit(tg_buf *b) {
  if (b->oom) return tg_error("out of memory");
  tg_output(b->data, b->len);
  tg_buf_free(b);
  return 0;
}

TG_EXPORT("list_resources") int list_resources(void) {
  tg_output_str(
      "{\"resources\":["
      "{\"uri\":\"test://static-text\",\"name\":\"static-text\",\"description\":\"A static text resource\",\"mimeType\":\"text/plain\"},"
      "{\"uri\":\"test://static-binary\",\"name\":\"static-binary\",\"description\":\"A static binary resource (a PNG image)\",\"mimeType\":\"image/png\"},"
      "{\"uri\":\"test://watched-resource\",\"name\":\"watched-resource\",\"description\":\"A resource clients may subscribe to\",\"mimeType\":\"text/plain\"}]}");
  return 0;
}

TG_EXPORT("list_resource_templates") int list_resource_templates(void) {
  tg_output_str(
      "{\"resourceTemplates\":[{\"uriTemplate\":\"test://template/{id}/data\",\"name\":\"template-data\","
      "\"description\":\"Data for one id\",\"mimeType\":\"application/json\"}]}");
  return 0;
}

TG_EXPORT("read_resource") int read_resource(void) {
  tg_json in;
  const tg_json *req = request_of(&in);
  if (req == NULL) return 1;
  const char *uri = str_member(req, "uri");
  tg_buf b = {0};
  int rc = 0;
  if (uri == NULL) {
    rc = tg_error("request.uri must be a string");
  } else if (strcmp(uri, "test://static-text") == 0) {
    tg_buf_puts(&b, "{\"contents\":[{\"uri\":\"test://static-text\",\"mimeType\":\"text/plain\","
                    "\"text\":\"This is the content of the static text resource.\"}]}");
  } else if (strcmp(uri, "test://static-binary") == 0) {
    tg_buf_puts(&b, "{\"contents\":[{\"uri\":\"test://static-binary\",\"mimeType\":\"image/png\",\"blob\":\"");
    tg_buf_puts(&b, PNG_1X1);
    tg_buf_puts(&b, "\"}]}");
  } else if (strcmp(uri, "test://watched-resource") == 0) {
    tg_buf_puts(&b, "{\"contents\":[{\"uri\":\"test://watched-resource\",\"mimeType\":\"text/plain\",\"text\":\"Watched resource content\"}]}");
  } else if (strncmp(uri, "test://template/", 16) == 0 && strlen(uri) > 21 && strcmp(uri + strlen(uri) - 5, "/data") == 0) {
    const char *id = uri + 16;
    size_t id_len = strlen(id) - 5;
    char idbuf[256];
    if (id_len == 0 || id_len >= sizeof idbuf || memchr(id, '/', id_len) != NULL) {
      rc = tg_errorf("resource not found: %s", uri);
    } else {
      memcpy(idbuf, id, id_len);
      idbuf[id_len] = 0;
      /* the text is JSON itself: {"id":"123","templateTest":true,"data":"Data for ID: 123"} */
      tg_buf inner = {0};
      tg_buf_puts(&inner, "{\"id\":");
      tg_buf_jstr(&inner, idbuf, id_len);
      tg_buf_puts(&inner, ",\"templateTest\":true,\"data\":");
      char data[300];
      int n = snprintf(data, sizeof data, "Data for ID: %s", idbuf);
      tg_buf_jstr(&inner, data, (size_t)n);
      tg_buf_puts(&inner, "}");
      tg_buf_puts(&b, "{\"contents\":[{\"uri\":");
      tg_buf_jstr(&b, uri, strlen(uri));
      tg_buf_puts(&b, ",\"mimeType\":\"application/json\",\"text\":");
      tg_buf_jstr(&b, inner.data, inner.len);
      tg_buf_puts(&b, "}]}");
      tg_buf_free(&inner);
    }
  } else {
    rc = tg_errorf("resource not found: %s", uri);
  }
  tg_json_free(&in);
  if (rc) {
    tg_buf_free(&b);
    return rc;
  }
  return emit(&b);
}

TG_EXPORT("list_prompts") int list_prompts(void) {
  tg_output_str(
      "{\"prompts\":["
      "{\"name\":\"test_simple_prompt\",\"description\":\"A simple prompt without arguments\"},"
      "{\"name\":\"test_prompt_with_arguments\",\"description\":\"A prompt with required arguments\",\"arguments\":["
      "{\"name\":\"arg1\",\"description\":\"First test argument\",\"required\":true},"
      "{\"name\":\"arg2\",\"description\":\"Second test argument\",\"required\":true}]},"
      "{\"name\":\"test_prompt_with_embedded_resource\",\"description\":\"A prompt that includes an embedded resource\",\"arguments\":["
      "{\"name\":\"resourceUri\",\"description\":\"URI of the resource to embed\",\"required\":true}]},"
      "{\"name\":\"test_prompt_with_image\",\"description\":\"A prompt that includes image content\"},"
      "{\"name\":\"test_input_required_result_prompt\",\"description\":\"A prompt that asks the user for context first\"}]}");
  return 0;
}

static void text_message(tg_buf *b, const char *text, size_t len) {
  tg_buf_puts(b, "{\"role\":\"user\",\"content\":{\"type\":\"text\",\"text\":");
  tg_buf_jstr(b, text, len);
  tg_buf_puts(b, "}}");
}

/* test_input_required_result_prompt: the user's context through elicitation, then the prompt. */
static int input_prompt(tg_buf *b) {
  char *answer = tg_mcp_elicit(
      "{\"message\":\"What context should the prompt use?\",\"inputKey\":\"user_context\","
      "\"requestedSchema\":{\"type\":\"object\",\"properties\":{\"context\":{\"type\":\"string\"}},\"required\":[\"context\"]}}");
  tg_json result;
  if (client_answer(answer, &result)) {
    free(answer);
    return 1;
  }
  free(answer);
  const tg_json *content = tg_json_get(&result, "content");
  const char *ctx = str_member(content, "context");
  const char *action = str_member(&result, "action");
  char text[1200];
  int n = snprintf(text, sizeof text, "Write a summary using this context: %.1024s",
                   ctx != NULL ? ctx : (action != NULL ? action : "none given"));
  tg_json_free(&result);
  tg_buf_puts(b, "{\"description\":\"A prompt built from the user's context\",\"messages\":[");
  text_message(b, text, (size_t)n);
  tg_buf_puts(b, "]}");
  return 0;
}

TG_EXPORT("get_prompt") int get_prompt(void) {
  tg_json in;
  const tg_json *req = request_of(&in);
  if (req == NULL) return 1;
  const char *name = str_member(req, "name");
  const tg_json *args = tg_json_get(req, "arguments");
  tg_buf b = {0};
  int rc = 0;
  if (name == NULL) {
    rc = tg_error("request.name must be a string");
  } else if (strcmp(name, "test_simple_prompt") == 0) {
    tg_buf_puts(&b, "{\"messages\":[");
    text_message(&b, "This is a simple prompt for testing.", 36);
    tg_buf_puts(&b, "]}");
  } else if (strcmp(name, "test_prompt_with_arguments") == 0) {
    const char *a1 = str_member(args, "arg1");
    const char *a2 = str_member(args, "arg2");
    if (a1 == NULL || a2 == NULL) {
      rc = tg_error("arguments arg1 and arg2 are required");
    } else {
      char text[2200];
      int n = snprintf(text, sizeof text, "Prompt with arguments: arg1='%.1024s', arg2='%.1024s'", a1, a2);
      tg_buf_puts(&b, "{\"messages\":[");
      text_message(&b, text, (size_t)n);
      tg_buf_puts(&b, "]}");
    }
  } else if (strcmp(name, "test_prompt_with_embedded_resource") == 0) {
    const char *uri = str_member(args, "resourceUri");
    if (uri == NULL) {
      rc = tg_error("argument resourceUri is required");
    } else {
      tg_buf_puts(&b, "{\"messages\":[{\"role\":\"user\",\"content\":{\"type\":\"resource\",\"resource\":{\"uri\":");
      tg_buf_jstr(&b, uri, strlen(uri));
      tg_buf_puts(&b, ",\"mimeType\":\"text/plain\",\"text\":\"Embedded resource content for testing.\"}}},");
      text_message(&b, "Please process the embedded resource above.", 43);
      tg_buf_puts(&b, "]}");
    }
  } else if (strcmp(name, "test_prompt_with_image") == 0) {
    tg_buf_puts(&b, "{\"messages\":[{\"role\":\"user\",\"content\":{\"type\":\"image\",\"data\":\"");
    tg_buf_puts(&b, PNG_1X1);
    tg_buf_puts(&b, "\",\"mimeType\":\"image/png\"}},");
    text_message(&b, "Please analyze the image above.", 31);
    tg_buf_puts(&b, "]}");
  } else if (strcmp(name, "test_input_required_result_prompt") == 0) {
    rc = input_prompt(&b);
  } else {
    rc = tg_errorf("unknown prompt: %s", name);
  }
  tg_json_free(&in);
  if (rc) {
    tg_buf_free(&b);
    return rc;
  }
  return emit(&b);
}

/* Completions for test_prompt_with_arguments' arguments and the template's id: values with the prefix. */
TG_EXPORT("complete") int complete(void) {
  static const char *const words[] = {"paris", "park", "party", "pasta", "peak"};
  tg_json in;
  const tg_json *req = request_of(&in);
  if (req == NULL) return 1;
  const tg_json *argument = tg_json_get(req, "argument");
  const char *value = str_member(argument, "value");
  size_t vlen = value != NULL ? strlen(value) : 0;
  tg_buf b = {0};
  tg_buf_puts(&b, "{\"completion\":{\"values\":[");
  int count = 0;
  for (size_t i = 0; i < sizeof words / sizeof words[0]; i++) {
    if (vlen > 0 && strncmp(words[i], value, vlen) != 0) continue;
    if (count++ > 0) tg_buf_puts(&b, ",");
    tg_buf_jstr(&b, words[i], strlen(words[i]));
  }
  char tail[64];
  snprintf(tail, sizeof tail, "],\"total\":%d,\"hasMore\":false}}", count);
  tg_buf_puts(&b, tail);
  tg_json_free(&in);
  return emit(&b);
}
