/*
 * tg_json.h - a small, strict JSON reader and writer for toolgate tools in C (header only).
 * The reader refuses invalid UTF-8, lone surrogates, trailing garbage and nesting deeper than
 * TG_JSON_MAX_DEPTH, so a tool can answer bad input with an error instead of trapping.
 */
#ifndef TG_JSON_H
#define TG_JSON_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TG_JSON_MAX_DEPTH 64

typedef enum { TG_JNULL, TG_JBOOL, TG_JNUM, TG_JSTR, TG_JARR, TG_JOBJ } tg_jtype;

typedef struct tg_json {
  tg_jtype type;
  int boolean;
  double number;
  char *str;             /* TG_JSTR: decoded UTF-8, NUL-terminated (may contain NULs: use len) */
  size_t len;            /* string bytes, or number of items/members */
  struct tg_json *items; /* TG_JARR items or TG_JOBJ member values */
  char **keys;           /* TG_JOBJ member names (decoded, NUL-terminated) */
} tg_json;

/* ---- UTF-8 ------------------------------------------------------------------------------- */

/* Length of the valid UTF-8 sequence at s (1-4), or 0 when it is not valid UTF-8. */
static inline size_t tg_utf8_seq(const unsigned char *s, size_t n) {
  if (n == 0) return 0;
  unsigned c = s[0];
  if (c < 0x80) return 1;
  size_t need;
  unsigned min;
  if (c >= 0xC2 && c <= 0xDF) { need = 2; min = 0x80; }
  else if (c >= 0xE0 && c <= 0xEF) { need = 3; min = 0x800; }
  else if (c >= 0xF0 && c <= 0xF4) { need = 4; min = 0x10000; }
  else return 0;
  if (n < need) return 0;
  unsigned cp = c & (need == 2 ? 0x1F : need == 3 ? 0x0F : 0x07);
  for (size_t i = 1; i < need; i++) {
    if ((s[i] & 0xC0) != 0x80) return 0;
    cp = (cp << 6) | (s[i] & 0x3F);
  }
  if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return 0;
  return need;
}

/* Byte offset of the first invalid UTF-8 byte, or -1 when all n bytes are valid. */
static inline long tg_utf8_invalid_at(const char *s, size_t n) {
  size_t i = 0;
  while (i < n) {
    size_t k = tg_utf8_seq((const unsigned char *)s + i, n - i);
    if (k == 0) return (long)i;
    i += k;
  }
  return -1;
}

/* ---- reader ------------------------------------------------------------------------------ */

typedef struct {
  const char *p, *end, *start;
  char *err;
  size_t errlen;
} tg_jparser;

static inline int tg_jfail(tg_jparser *ps, const char *what) {
  if (ps->err && ps->err[0] == '\0')
    snprintf(ps->err, ps->errlen, "invalid JSON at byte %ld: %s", (long)(ps->p - ps->start), what);
  return 1;
}

static inline void tg_jws(tg_jparser *ps) {
  while (ps->p < ps->end && (*ps->p == ' ' || *ps->p == '\t' || *ps->p == '\n' || *ps->p == '\r')) ps->p++;
}

static inline void tg_json_free(tg_json *v);

static inline int tg_jhex4(tg_jparser *ps, unsigned *out) {
  if (ps->end - ps->p < 4) return tg_jfail(ps, "short \\u escape");
  unsigned v = 0;
  for (int i = 0; i < 4; i++) {
    char c = *ps->p++;
    v <<= 4;
    if (c >= '0' && c <= '9') v |= (unsigned)(c - '0');
    else if (c >= 'a' && c <= 'f') v |= (unsigned)(c - 'a' + 10);
    else if (c >= 'A' && c <= 'F') v |= (unsigned)(c - 'A' + 10);
    else return tg_jfail(ps, "bad hex digit in \\u escape");
  }
  *out = v;
  return 0;
}

static inline size_t tg_utf8_put(char *o, unsigned cp) {
  if (cp < 0x80) { o[0] = (char)cp; return 1; }
  if (cp < 0x800) { o[0] = (char)(0xC0 | (cp >> 6)); o[1] = (char)(0x80 | (cp & 0x3F)); return 2; }
  if (cp < 0x10000) {
    o[0] = (char)(0xE0 | (cp >> 12)); o[1] = (char)(0x80 | ((cp >> 6) & 0x3F)); o[2] = (char)(0x80 | (cp & 0x3F));
    return 3;
  }
  o[0] = (char)(0xF0 | (cp >> 18)); o[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
  o[2] = (char)(0x80 | ((cp >> 6) & 0x3F)); o[3] = (char)(0x80 | (cp & 0x3F));
  return 4;
}

/* Parses a string at ps->p (which points at the opening quote) into a malloc'd buffer. */
static inline int tg_jstring(tg_jparser *ps, char **out, size_t *out_len) {
  ps->p++; /* opening quote */
  /* Decoded text is never longer than the escaped text. */
  const char *q = ps->p;
  while (q < ps->end && *q != '"') q += (*q == '\\' && q + 1 < ps->end) ? 2 : 1;
  if (q >= ps->end) return tg_jfail(ps, "unterminated string");
  char *buf = (char *)malloc((size_t)(q - ps->p) + 1);
  if (!buf) return tg_jfail(ps, "out of memory");
  size_t n = 0;
  while (*ps->p != '"') {
    unsigned char c = (unsigned char)*ps->p;
    if (c < 0x20) { free(buf); return tg_jfail(ps, "control character in string"); }
    if (c == '\\') {
      ps->p++;
      char e = *ps->p++;
      switch (e) {
        case '"': buf[n++] = '"'; break;
        case '\\': buf[n++] = '\\'; break;
        case '/': buf[n++] = '/'; break;
        case 'b': buf[n++] = '\b'; break;
        case 'f': buf[n++] = '\f'; break;
        case 'n': buf[n++] = '\n'; break;
        case 'r': buf[n++] = '\r'; break;
        case 't': buf[n++] = '\t'; break;
        case 'u': {
          unsigned cp;
          if (tg_jhex4(ps, &cp)) { free(buf); return 1; }
          if (cp >= 0xD800 && cp <= 0xDBFF) {
            unsigned lo;
            if (ps->end - ps->p < 6 || ps->p[0] != '\\' || ps->p[1] != 'u') { free(buf); return tg_jfail(ps, "lone surrogate"); }
            ps->p += 2;
            if (tg_jhex4(ps, &lo)) { free(buf); return 1; }
            if (lo < 0xDC00 || lo > 0xDFFF) { free(buf); return tg_jfail(ps, "lone surrogate"); }
            cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
          } else if (cp >= 0xDC00 && cp <= 0xDFFF) {
            free(buf);
            return tg_jfail(ps, "lone surrogate");
          }
          n += tg_utf8_put(buf + n, cp);
          break;
        }
        default: free(buf); return tg_jfail(ps, "bad escape");
      }
    } else {
      size_t k = tg_utf8_seq((const unsigned char *)ps->p, (size_t)(ps->end - ps->p));
      if (k == 0) { free(buf); return tg_jfail(ps, "invalid UTF-8"); }
      memcpy(buf + n, ps->p, k);
      n += k;
      ps->p += k;
    }
  }
  ps->p++; /* closing quote */
  buf[n] = '\0';
  *out = buf;
  *out_len = n;
  return 0;
}

static inline int tg_jvalue(tg_jparser *ps, tg_json *v, int depth);

static inline int tg_jpush(tg_jparser *ps, tg_json *v, size_t *cap, int with_keys) {
  if (v->len < *cap) return 0;
  size_t nc = *cap ? *cap * 2 : 4;
  tg_json *items = (tg_json *)realloc(v->items, nc * sizeof(tg_json));
  if (!items) return tg_jfail(ps, "out of memory");
  v->items = items;
  if (with_keys) {
    char **keys = (char **)realloc(v->keys, nc * sizeof(char *));
    if (!keys) return tg_jfail(ps, "out of memory");
    v->keys = keys;
  }
  *cap = nc;
  return 0;
}

static inline int tg_jvalue(tg_jparser *ps, tg_json *v, int depth) {
  memset(v, 0, sizeof *v);
  tg_jws(ps);
  if (ps->p >= ps->end) return tg_jfail(ps, "unexpected end of input");
  char c = *ps->p;
  if (c == '{' || c == '[') {
    /* at most TG_JSON_MAX_DEPTH arrays and objects inside one another (the shared edge-case table) */
    if (depth >= TG_JSON_MAX_DEPTH) return tg_jfail(ps, "nesting too deep");
    int obj = c == '{';
    v->type = obj ? TG_JOBJ : TG_JARR;
    size_t cap = 0;
    ps->p++;
    tg_jws(ps);
    if (ps->p < ps->end && *ps->p == (obj ? '}' : ']')) { ps->p++; return 0; }
    for (;;) {
      if (tg_jpush(ps, v, &cap, obj)) return 1;
      if (obj) {
        tg_jws(ps);
        if (ps->p >= ps->end || *ps->p != '"') return tg_jfail(ps, "expected a member name");
        size_t kl;
        if (tg_jstring(ps, &v->keys[v->len], &kl)) return 1;
        tg_jws(ps);
        if (ps->p >= ps->end || *ps->p != ':') { free(v->keys[v->len]); return tg_jfail(ps, "expected ':'"); }
        ps->p++;
      }
      if (tg_jvalue(ps, &v->items[v->len], depth + 1)) {
        if (obj) free(v->keys[v->len]);
        tg_json_free(&v->items[v->len]);
        return 1;
      }
      v->len++;
      tg_jws(ps);
      if (ps->p < ps->end && *ps->p == ',') { ps->p++; continue; }
      if (ps->p < ps->end && *ps->p == (obj ? '}' : ']')) { ps->p++; return 0; }
      return tg_jfail(ps, obj ? "expected ',' or '}'" : "expected ',' or ']'");
    }
  }
  if (c == '"') {
    v->type = TG_JSTR;
    return tg_jstring(ps, &v->str, &v->len);
  }
  if (c == 't' && ps->end - ps->p >= 4 && memcmp(ps->p, "true", 4) == 0) { v->type = TG_JBOOL; v->boolean = 1; ps->p += 4; return 0; }
  if (c == 'f' && ps->end - ps->p >= 5 && memcmp(ps->p, "false", 5) == 0) { v->type = TG_JBOOL; ps->p += 5; return 0; }
  if (c == 'n' && ps->end - ps->p >= 4 && memcmp(ps->p, "null", 4) == 0) { v->type = TG_JNULL; ps->p += 4; return 0; }
  if (c == '-' || (c >= '0' && c <= '9')) {
    /* Check the JSON number grammar, then let strtod convert the checked span. */
    const char *q = ps->p;
    if (*q == '-') q++;
    if (q >= ps->end || !(*q >= '0' && *q <= '9')) return tg_jfail(ps, "bad number");
    if (*q == '0') q++; else while (q < ps->end && *q >= '0' && *q <= '9') q++;
    if (q < ps->end && *q == '.') {
      q++;
      if (q >= ps->end || !(*q >= '0' && *q <= '9')) return tg_jfail(ps, "bad number");
      while (q < ps->end && *q >= '0' && *q <= '9') q++;
    }
    if (q < ps->end && (*q == 'e' || *q == 'E')) {
      q++;
      if (q < ps->end && (*q == '+' || *q == '-')) q++;
      if (q >= ps->end || !(*q >= '0' && *q <= '9')) return tg_jfail(ps, "bad number");
      while (q < ps->end && *q >= '0' && *q <= '9') q++;
    }
    char tmp[64];
    size_t n = (size_t)(q - ps->p);
    if (n >= sizeof tmp) return tg_jfail(ps, "number too long");
    memcpy(tmp, ps->p, n);
    tmp[n] = '\0';
    v->type = TG_JNUM;
    v->number = strtod(tmp, NULL);
    /* 1e400 is no double: refused, never read as infinity (which JSON cannot write back) */
    if (v->number - v->number != 0) return tg_jfail(ps, "number out of range");
    ps->p = q;
    return 0;
  }
  return tg_jfail(ps, "unexpected character");
}

/* Parses text[0..len) into *out. On failure returns 1 and writes a message into err. */
static inline int tg_json_parse(const char *text, size_t len, tg_json *out, char *err, size_t errlen) {
  tg_jparser ps = {text, text + len, text, err, errlen};
  if (err && errlen) err[0] = '\0';
  if (tg_jvalue(&ps, out, 0)) { tg_json_free(out); return 1; }
  tg_jws(&ps);
  if (ps.p != ps.end) { tg_json_free(out); return tg_jfail(&ps, "trailing characters"); }
  return 0;
}

static inline void tg_json_free(tg_json *v) {
  if (v->type == TG_JSTR) free(v->str);
  if (v->type == TG_JARR || v->type == TG_JOBJ) {
    for (size_t i = 0; i < v->len; i++) {
      tg_json_free(&v->items[i]);
      if (v->keys) free(v->keys[i]);
    }
    free(v->items);
    free(v->keys);
  }
  memset(v, 0, sizeof *v);
}

/* The last member named key of an object (as JSON.parse keeps the last duplicate), or NULL (also
 * when v is not an object). */
static inline const tg_json *tg_json_get(const tg_json *v, const char *key) {
  if (!v || v->type != TG_JOBJ) return NULL;
  for (size_t i = v->len; i-- > 0;)
    if (strcmp(v->keys[i], key) == 0) return &v->items[i];
  return NULL;
}

static inline const char *tg_json_type_name(tg_jtype t) {
  static const char *names[] = {"null", "boolean", "number", "string", "array", "object"};
  return names[t];
}

/*
 * Parses a tool's input (from tg_input) as its arguments object, then frees `in`. Returns 1 with a
 * message in err when it is not JSON or not an object (args is then already freed).
 */
static inline int tg_json_args(char *in, size_t len, tg_json *args, char *err, size_t errlen) {
  int bad = tg_json_parse(in, len, args, err, errlen);
  free(in);
  if (bad) return 1;
  if (args->type != TG_JOBJ) {
    tg_json_free(args);
    snprintf(err, errlen, "the arguments must be a JSON object");
    return 1;
  }
  return 0;
}

/*
 * Looks up argument `key` of the arguments object and checks its type. Sets *out to the member or
 * NULL when it is absent. Returns 1 with a message in err when it is missing but required, or has
 * the wrong type; TG_JNUM also accepts only finite numbers.
 */
static inline int tg_arg(const tg_json *args, const char *key, tg_jtype type, int required,
                         const tg_json **out, char *err, size_t errlen) {
  const tg_json *v = tg_json_get(args, key);
  *out = NULL;
  if (!v || (v->type == TG_JNULL && !required)) {
    if (required) { snprintf(err, errlen, "argument '%s' is required", key); return 1; }
    return 0;
  }
  if (v->type != type) {
    snprintf(err, errlen, "argument '%s' must be a %s, got a %s", key, tg_json_type_name(type), tg_json_type_name(v->type));
    return 1;
  }
  *out = v;
  return 0;
}

/* ---- writer: a growable byte buffer ------------------------------------------------------ */

typedef struct {
  char *data;
  size_t len, cap;
  int oom; /* set once an allocation failed; the buffer then stops growing */
} tg_buf;

static inline void tg_buf_put(tg_buf *b, const void *s, size_t n) {
  if (b->oom) return;
  if (b->len + n + 1 > b->cap) {
    size_t nc = b->cap ? b->cap : 256;
    while (nc < b->len + n + 1) nc *= 2;
    char *d = (char *)realloc(b->data, nc);
    if (!d) { b->oom = 1; return; }
    b->data = d;
    b->cap = nc;
  }
  memcpy(b->data + b->len, s, n);
  b->len += n;
  b->data[b->len] = '\0';
}

static inline void tg_buf_puts(tg_buf *b, const char *s) { tg_buf_put(b, s, strlen(s)); }

static inline void tg_buf_num(tg_buf *b, double d) {
  char tmp[40];
  if (d != d || d - d != 0) { tg_buf_puts(b, "null"); return; } /* NaN/Inf are not JSON */
  if (d < 9007199254740992.0 && d > -9007199254740992.0 && d == (double)(long long)d)
    snprintf(tmp, sizeof tmp, "%lld", (long long)d);
  else
    snprintf(tmp, sizeof tmp, "%.17g", d);
  tg_buf_puts(b, tmp);
}

/* Appends s[0..n) as a JSON string literal (s must be valid UTF-8). */
static inline void tg_buf_jstr(tg_buf *b, const char *s, size_t n) {
  static const char hex[] = "0123456789abcdef";
  tg_buf_put(b, "\"", 1);
  size_t run = 0;
  for (size_t i = 0; i < n; i++) {
    unsigned char c = (unsigned char)s[i];
    if (c >= 0x20 && c != '"' && c != '\\') continue;
    tg_buf_put(b, s + run, i - run);
    run = i + 1;
    switch (c) {
      case '"': tg_buf_puts(b, "\\\""); break;
      case '\\': tg_buf_puts(b, "\\\\"); break;
      case '\n': tg_buf_puts(b, "\\n"); break;
      case '\r': tg_buf_puts(b, "\\r"); break;
      case '\t': tg_buf_puts(b, "\\t"); break;
      default: {
        char u[6] = {'\\', 'u', '0', '0', hex[c >> 4], hex[c & 15]};
        tg_buf_put(b, u, 6);
      }
    }
  }
  tg_buf_put(b, s + run, n - run);
  tg_buf_put(b, "\"", 1);
}

static inline void tg_buf_free(tg_buf *b) {
  free(b->data);
  memset(b, 0, sizeof *b);
}

#endif /* TG_JSON_H */
