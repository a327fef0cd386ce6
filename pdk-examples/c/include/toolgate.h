/*
 * toolgate.h - a small C wrapper over the Extism kernel ABI ("extism:host/env"), for tools that
 * run under toolgate. Header only: include it in one .c file per tool.
 *
 * Wire ABI (docs/authoring.md): the exported function gets the validated arguments as UTF-8 JSON
 * input, sets UTF-8 JSON (or text) output and returns 0; on failure it calls tg_error(...) and
 * returns 1. toolgate provides only extism:host/env and wasi_snapshot_preview1 imports, so
 * everything here is built on those.
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

#endif /* TOOLGATE_H */
