/*
 * toolgate.h - a small C wrapper over the Extism kernel ABI ("extism:host/env"), for tools that
 * run under toolgate. Header only: include it in one .c file per tool.
 *
 * Wire ABI (docs/authoring.md): the exported function gets the validated arguments as UTF-8 JSON
 * input, sets UTF-8 JSON (or text) output and returns 0; on failure it calls tg_error(...) and
 * returns 1. toolgate provides extism:host/env, wasi_snapshot_preview1 and toolgate:mcp imports;
 * the tg_mcp_* helpers (logs, progress, elicitation, sampling, roots for the calling MCP client) use
 * toolgate:mcp, and a module that calls one needs its feature in the manifest's capabilities.mcp.
 * Helpers a tool does not call add no import.
 */
#ifndef TOOLGATE_H
#define TOOLGATE_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TG_IMPORT(name) __attribute__((import_module("extism:host/env"), import_name(name)))
#define TG_EXPORT(name) __attribute__((export_name(name)))

/* An offset into Extism's own memory (not a pointer into ours); 0 means "none". */
typedef uint64_t tg_handle;

TG_IMPORT("input_length") uint64_t tg_input_length(void);
TG_IMPORT("input_load_u8") uint8_t tg_input_load_u8(uint64_t offset);
TG_IMPORT("input_load_u64") uint64_t tg_input_load_u64(uint64_t offset);
TG_IMPORT("length") uint64_t tg_length(tg_handle h);
TG_IMPORT("alloc") tg_handle tg_alloc(uint64_t length);
TG_IMPORT("free") void tg_free(tg_handle h);
TG_IMPORT("load_u8") uint8_t tg_load_u8(tg_handle at);
TG_IMPORT("load_u64") uint64_t tg_load_u64(tg_handle at);
TG_IMPORT("store_u8") void tg_store_u8(tg_handle at, uint8_t v);
TG_IMPORT("store_u64") void tg_store_u64(tg_handle at, uint64_t v);
TG_IMPORT("output_set") void tg_output_set(tg_handle h, uint64_t length);
TG_IMPORT("error_set") void tg_error_set(tg_handle h);
TG_IMPORT("config_get") tg_handle tg_config_get(tg_handle key);
TG_IMPORT("var_get") tg_handle tg_var_get(tg_handle key);
TG_IMPORT("var_set") void tg_var_set(tg_handle key, tg_handle value);
TG_IMPORT("log_info") void tg_log_info(tg_handle msg);
TG_IMPORT("log_warn") void tg_log_warn(tg_handle msg);
TG_IMPORT("log_error") void tg_log_error(tg_handle msg);
TG_IMPORT("log_debug") void tg_log_debug(tg_handle msg);
TG_IMPORT("http_request") tg_handle tg_http_request(tg_handle request, tg_handle body);
TG_IMPORT("http_status_code") int32_t tg_http_status_code(void);
TG_IMPORT("http_headers") tg_handle tg_http_headers(void);

/* ---- moving bytes between our memory and Extism's ---------------------------------------- */

/* Copies bytes into a fresh Extism block (8 bytes at a time: each store is a host call). */
static inline tg_handle tg_store(const void *data, size_t len) {
  tg_handle h = tg_alloc(len);
  const uint8_t *p = (const uint8_t *)data;
  size_t i = 0;
  for (; i + 8 <= len; i += 8) {
    uint64_t w;
    memcpy(&w, p + i, 8);
    tg_store_u64(h + i, w);
  }
  for (; i < len; i++) tg_store_u8(h + i, p[i]);
  return h;
}

static inline tg_handle tg_store_str(const char *s) { return tg_store(s, strlen(s)); }

/* Copies an Extism block into a malloc'd, NUL-terminated buffer (NULL for handle 0 or no memory). */
static inline char *tg_load(tg_handle h, size_t *len_out) {
  if (h == 0) return NULL;
  size_t len = (size_t)tg_length(h);
  char *buf = (char *)malloc(len + 1);
  if (buf == NULL) return NULL;
  size_t i = 0;
  for (; i + 8 <= len; i += 8) {
    uint64_t w = tg_load_u64(h + i);
    memcpy(buf + i, &w, 8);
  }
  for (; i < len; i++) buf[i] = (char)tg_load_u8(h + i);
  buf[len] = '\0';
  if (len_out) *len_out = len;
  return buf;
}

/* ---- input, output, errors --------------------------------------------------------------- */

/* The call's input (the arguments as JSON), malloc'd and NUL-terminated; free() it. */
static inline char *tg_input(size_t *len_out) {
  size_t len = (size_t)tg_input_length();
  char *buf = (char *)malloc(len + 1);
  if (buf == NULL) return NULL;
  size_t i = 0;
  for (; i + 8 <= len; i += 8) {
    uint64_t w = tg_input_load_u64(i);
    memcpy(buf + i, &w, 8);
  }
  for (; i < len; i++) buf[i] = (char)tg_input_load_u8(i);
  buf[len] = '\0';
  if (len_out) *len_out = len;
  return buf;
}

static inline void tg_output(const void *data, size_t len) { tg_output_set(tg_store(data, len), len); }
static inline void tg_output_str(const char *s) { tg_output(s, strlen(s)); }

/* Sets the call's error message and returns 1, so a tool can `return tg_error("...")`. */
static inline int tg_error(const char *msg) {
  tg_error_set(tg_store_str(msg));
  return 1;
}

/* printf-style tg_error; the message is cut at 1 KiB (the host bounds it again anyway). */
static inline int tg_errorf(const char *fmt, ...) {
  char msg[1024];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  return tg_error(msg);
}

/* ---- config (manifest `config` and declared secrets), vars, logs ------------------------- */

/* A config value (malloc'd) or NULL when the key is not set. Secrets arrive here too. */
static inline char *tg_config(const char *key) {
  tg_handle k = tg_store_str(key);
  tg_handle v = tg_config_get(k);
  tg_free(k);
  char *out = tg_load(v, NULL);
  if (v) tg_free(v);
  return out;
}

/* A per-instance variable (malloc'd) or NULL. Vars live as long as the instance: never rely on them. */
static inline char *tg_var(const char *key, size_t *len_out) {
  tg_handle k = tg_store_str(key);
  tg_handle v = tg_var_get(k);
  tg_free(k);
  char *out = tg_load(v, len_out);
  if (v) tg_free(v);
  return out;
}

/* Sets a var; data NULL removes it. */
static inline void tg_var_put(const char *key, const void *data, size_t len) {
  tg_handle k = tg_store_str(key);
  tg_var_set(k, data ? tg_store(data, len) : 0);
  tg_free(k);
}

typedef enum { TG_LOG_DEBUG, TG_LOG_INFO, TG_LOG_WARN, TG_LOG_ERROR } tg_log_level;

static inline void tg_log(tg_log_level level, const char *msg) {
  tg_handle m = tg_store_str(msg);
  switch (level) {
    case TG_LOG_DEBUG: tg_log_debug(m); break;
    case TG_LOG_INFO: tg_log_info(m); break;
    case TG_LOG_WARN: tg_log_warn(m); break;
    default: tg_log_error(m); break;
  }
  tg_free(m);
}

/* ---- HTTP (only hosts listed in the manifest's allowed_hosts) ----------------------------- */

typedef struct {
  int status;     /* HTTP status, 0 when the host refused or failed the request */
  char *body;     /* malloc'd, NUL-terminated (may hold NULs); NULL when there is none */
  size_t body_len;
  char *headers;  /* the response headers as a JSON object (malloc'd), or NULL */
} tg_http_response;

/*
 * request_json is Extism's request object: {"url": "...", "method": "GET", "headers": {...}}.
 * Returns 0 when a response arrived (any status), 1 otherwise. Free with tg_http_response_free.
 */
static inline int tg_http(const char *request_json, const void *body, size_t body_len, tg_http_response *res) {
  memset(res, 0, sizeof *res);
  tg_handle req = tg_store_str(request_json);
  tg_handle b = body ? tg_store(body, body_len) : 0;
  tg_handle r = tg_http_request(req, b);
  tg_free(req);
  if (b) tg_free(b);
  res->status = tg_http_status_code();
  if (r) {
    res->body = tg_load(r, &res->body_len);
    tg_free(r);
  }
  tg_handle h = tg_http_headers();
  if (h) {
    res->headers = tg_load(h, NULL);
    tg_free(h);
  }
  return res->status == 0 ? 1 : 0;
}

static inline void tg_http_response_free(tg_http_response *res) {
  free(res->body);
  free(res->headers);
  memset(res, 0, sizeof *res);
}

/* ---- the calling MCP client (toolgate:mcp; manifest capabilities.mcp) --------------------- */

#define TG_MCP_IMPORT(name) __attribute__((import_module("toolgate:mcp"), import_name(name)))

/* Each returns 0 when the notification went to the client, 1 when it did not (see below). */
TG_MCP_IMPORT("log") int32_t tg_mcp_log_raw(int32_t level, tg_handle message);
TG_MCP_IMPORT("progress") int32_t tg_mcp_progress_raw(double progress, double total, tg_handle message);
/* Take a JSON params block, return a JSON answer block (the client's result or {"error": ...}). */
TG_MCP_IMPORT("elicit") tg_handle tg_mcp_elicit_raw(tg_handle params);
TG_MCP_IMPORT("sample") tg_handle tg_mcp_sample_raw(tg_handle params);
TG_MCP_IMPORT("roots") tg_handle tg_mcp_roots_raw(tg_handle params);

/* MCP log levels (notifications/message), least to most severe. */
typedef enum {
  TG_MCP_DEBUG, TG_MCP_INFO, TG_MCP_NOTICE, TG_MCP_WARNING,
  TG_MCP_ERROR, TG_MCP_CRITICAL, TG_MCP_ALERT, TG_MCP_EMERGENCY
} tg_mcp_level;

/*
 * Sends a log line to the client (capabilities.mcp: logging). Returns 1 when it was sent, 0 when
 * the client's level (logging/setLevel; info when unset) filtered it out, there is no MCP client,
 * or the call's log budget is spent. The server log gets the line either way.
 */
static inline int tg_mcp_log(tg_mcp_level level, const char *message) {
  tg_handle m = tg_store_str(message);
  int32_t rc = tg_mcp_log_raw((int32_t)level, m);
  tg_free(m);
  return rc == 0;
}

/*
 * Reports progress (capabilities.mcp: progress): total <= 0 means unknown, message may be NULL.
 * Returns 1 when sent, 0 when the caller gave no progressToken or the value did not increase.
 */
static inline int tg_mcp_progress(double progress, double total, const char *message) {
  tg_handle m = message ? tg_store_str(message) : 0;
  int32_t rc = tg_mcp_progress_raw(progress, total, m);
  if (m) tg_free(m);
  return rc == 0;
}

/* Loads and frees an answer block (malloc'd JSON, NULL when there was none). */
static inline char *tg_mcp_answer(tg_handle r) {
  char *out = tg_load(r, NULL);
  if (r) tg_free(r);
  return out;
}

/*
 * Asks the client's user (capabilities.mcp: elicitation). params_json is elicitation/create's
 * params ({"message": ..., "requestedSchema": {...}}). Returns the answer as malloc'd JSON: the
 * client's result ({"action": "accept", "content": {...}}) or {"error": {"code", "message"}} when
 * policy denied it (DENIED), the client cannot answer (UNAVAILABLE), the params are invalid
 * (INVALID_REQUEST), the client failed or ran out of time (FAILED), or the question went to the
 * client in an input round (PENDING, below).
 *
 * Every request's params may carry "inputKey": "<key>" (1-64 of A-Z a-z 0-9 _ . -), never sent to
 * the client: under MCP 2026-07-28 the question is asked as the call's result (an input round) and
 * the key names it. Such a request answers {"error": {"code": "PENDING", ...}}: the question went
 * to the client and the call runs again from the start with the answer, so the tool should ask any
 * other questions it has and return (its output is discarded). A 2025-11-25 session ignores it.
 */
static inline char *tg_mcp_elicit(const char *params_json) {
  tg_handle p = tg_store_str(params_json);
  tg_handle r = tg_mcp_elicit_raw(p);
  tg_free(p);
  return tg_mcp_answer(r);
}

/* Asks the client's model (capabilities.mcp: sampling): sampling/createMessage params in, the
 * client's result ({"role", "content", "model", ...}) or {"error": ...} out, as tg_mcp_elicit. */
static inline char *tg_mcp_sample(const char *params_json) {
  tg_handle p = tg_store_str(params_json);
  tg_handle r = tg_mcp_sample_raw(p);
  tg_free(p);
  return tg_mcp_answer(r);
}

/* Asks the client for its roots (capabilities.mcp: roots; roots/list): params_json is "{}" or
 * {"inputKey": ...} (nothing else), the client's result ({"roots": [{"uri", "name"}, ...]}) or
 * {"error": ...} out, as tg_mcp_elicit (UNAVAILABLE when the client did not declare roots). */
static inline char *tg_mcp_roots(const char *params_json) {
  tg_handle p = tg_store_str(params_json);
  tg_handle r = tg_mcp_roots_raw(p);
  tg_free(p);
  return tg_mcp_answer(r);
}

#endif /* TOOLGATE_H */
