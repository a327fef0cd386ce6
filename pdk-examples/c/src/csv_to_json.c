// csv_to_json: parse RFC 4180 CSV text (quoted fields, "" escapes, CRLF or LF) into JSON rows:
// objects keyed by the header row by default, or arrays of strings with header=false.
#include "tg_json.h"
#include "toolgate.h"

#define MAX_ROWS 10000

typedef struct {
  tg_buf *fields; // one buffer per field of the current row
  size_t count, cap;
} row;

static tg_buf *row_next_field(row *r) {
  if (r->count == r->cap) {
    size_t nc = r->cap ? r->cap * 2 : 8;
    tg_buf *nf = realloc(r->fields, nc * sizeof *nf);
    if (!nf) return NULL;
    memset(nf + r->cap, 0, (nc - r->cap) * sizeof *nf);
    r->fields = nf;
    r->cap = nc;
  }
  tg_buf *f = &r->fields[r->count++];
  f->len = 0;
  tg_buf_put(f, "", 0); // a field always has a (possibly empty) NUL-terminated buffer
  return f;
}

static void row_free(row *r) {
  for (size_t i = 0; i < r->cap; i++) tg_buf_free(&r->fields[i]);
  free(r->fields);
}

// Reads one record starting at *pos into r. Returns 0 on success, 1 with a message on error.
static int read_record(const char *s, size_t n, size_t *pos, char delim, row *r, long line, char *err, size_t errlen) {
  size_t i = *pos;
  r->count = 0;
  tg_buf *f = row_next_field(r);
  if (!f) { snprintf(err, errlen, "out of memory"); return 1; }
  for (;;) {
    if (i < n && s[i] == '"' && f->len == 0) {
      size_t open = i++;
      for (;;) {
        if (i >= n) {
          snprintf(err, errlen, "record %ld: the quoted field that starts at byte %zu is never closed", line, open);
          return 1;
        }
        if (s[i] == '"') {
          if (i + 1 < n && s[i + 1] == '"') { tg_buf_put(f, "\"", 1); i += 2; continue; }
          i++;
          break;
        }
        tg_buf_put(f, s + i, 1);
        i++;
      }
      if (i < n && s[i] != delim && s[i] != '\n' && s[i] != '\r') {
        snprintf(err, errlen, "record %ld: unexpected character after a closing quote (byte %zu)", line, i);
        return 1;
      }
    }
    if (i >= n) break;
    char c = s[i];
    if (c == delim) {
      i++;
      f = row_next_field(r);
      if (!f) { snprintf(err, errlen, "out of memory"); return 1; }
      continue;
    }
    if (c == '\n' || c == '\r') {
      i += (c == '\r' && i + 1 < n && s[i + 1] == '\n') ? 2 : 1;
      break;
    }
    if (c == '"') {
      snprintf(err, errlen, "record %ld: a quote inside an unquoted field (byte %zu); quote the whole field", line, i);
      return 1;
    }
    tg_buf_put(f, s + i, 1);
    i++;
  }
  *pos = i;
  return 0;
}

TG_EXPORT("csv_to_json") int csv_to_json(void) {
  size_t len;
  char *in = tg_input(&len);
  char err[512];
  tg_json args;
  if (!in) return tg_error("out of memory reading the input");
  if (tg_json_args(in, len, &args, err, sizeof err)) return tg_error(err);
  const tg_json *csv, *delim, *header;
  if (tg_arg(&args, "csv", TG_JSTR, 1, &csv, err, sizeof err) ||
      tg_arg(&args, "delimiter", TG_JSTR, 0, &delim, err, sizeof err) ||
      tg_arg(&args, "header", TG_JBOOL, 0, &header, err, sizeof err)) {
    tg_json_free(&args);
    return tg_error(err);
  }
  if (delim && (delim->len != 1 || delim->str[0] == '"' || delim->str[0] == '\n' || delim->str[0] == '\r' ||
                (unsigned char)delim->str[0] >= 0x80)) {
    tg_json_free(&args);
    return tg_error("argument 'delimiter' must be one ASCII character other than a quote or a line break");
  }
  char d = delim ? delim->str[0] : ',';
  int use_header = header ? header->boolean : 1;
  const char *s = csv->str;
  size_t n = csv->len;
  row head = {0}, cur = {0};
  tg_buf out = {0};
  size_t pos = 0;
  long line = 0, rows = 0;
  int rc = 0;
  tg_buf_puts(&out, "{\"rows\":[");
  while (pos < n && rc == 0) {
    line++;
    row *r = (use_header && line == 1) ? &head : &cur;
    if (read_record(s, n, &pos, d, r, line, err, sizeof err)) { rc = 1; break; }
    if (r->count == 1 && r->fields[0].len == 0) continue; // blank line
    if (r == &head) continue;
    if (++rows > MAX_ROWS) {
      snprintf(err, sizeof err, "more than %d rows; split the CSV", MAX_ROWS);
      rc = 1;
      break;
    }
    if (rows > 1) tg_buf_puts(&out, ",");
    if (use_header) {
      if (cur.count != head.count) {
        snprintf(err, sizeof err, "record %ld has %zu fields but the header has %zu", line, cur.count, head.count);
        rc = 1;
        break;
      }
      tg_buf_puts(&out, "{");
      for (size_t i = 0; i < cur.count; i++) {
        if (i) tg_buf_puts(&out, ",");
        tg_buf_jstr(&out, head.fields[i].data, head.fields[i].len);
        tg_buf_puts(&out, ":");
        tg_buf_jstr(&out, cur.fields[i].data, cur.fields[i].len);
      }
      tg_buf_puts(&out, "}");
    } else {
      tg_buf_puts(&out, "[");
      for (size_t i = 0; i < cur.count; i++) {
        if (i) tg_buf_puts(&out, ",");
        tg_buf_jstr(&out, cur.fields[i].data, cur.fields[i].len);
      }
      tg_buf_puts(&out, "]");
    }
  }
  if (rc == 0) {
    tg_buf_puts(&out, "],\"columns\":[");
    for (size_t i = 0; use_header && i < head.count; i++) {
      if (i) tg_buf_puts(&out, ",");
      tg_buf_jstr(&out, head.fields[i].data, head.fields[i].len);
    }
    tg_buf_puts(&out, "],\"row_count\":");
    tg_buf_num(&out, (double)rows);
    tg_buf_puts(&out, "}");
    if (out.oom) rc = tg_error("out of memory building the result");
    else tg_output(out.data, out.len);
  } else {
    tg_error(err);
  }
  tg_buf_free(&out);
  row_free(&head);
  row_free(&cur);
  tg_json_free(&args);
  return rc;
}
