// grep_files: search the files under the read-only mount /data for lines matching a POSIX
// extended regular expression. Files are read through WASI, so the host decides what is visible.
#include <dirent.h>
#include <fnmatch.h>
#include <regex.h>
#include <sys/stat.h>

#include "tg_json.h"
#include "toolgate.h"

#define MOUNT "/data"
#define MAX_DEPTH 16
#define MAX_LINE_OUT 300     // bytes of a matching line returned (cut on a UTF-8 boundary)
#define MAX_FILE_BYTES (4u << 20)

typedef struct {
  regex_t re;
  const char *glob;
  long max_results;
  long matches;
  long files_searched;
  long files_skipped;
  int truncated;
  tg_buf out;
} search;

// Cuts n down so that s[0..n) ends on a UTF-8 character boundary.
static size_t utf8_cut(const char *s, size_t n, size_t max) {
  if (n <= max) return n;
  n = max;
  while (n > 0 && ((unsigned char)s[n] & 0xC0) == 0x80) n--;
  return n;
}

static void search_file(search *s, const char *path, off_t size) {
  // Sized up front from stat: one allocation, so a file near the cap does not need twice its size.
  if (size < 0 || (uint64_t)size > MAX_FILE_BYTES) { s->files_skipped++; return; }
  FILE *f = fopen(path, "rb");
  if (!f) { s->files_skipped++; return; }
  tg_buf data = {0};
  data.data = malloc((size_t)size + 1);
  data.cap = (size_t)size + 1;
  if (!data.data) { fclose(f); s->files_skipped++; return; }
  data.len = fread(data.data, 1, (size_t)size, f);
  data.data[data.len] = '\0';
  fclose(f);
  // Binary and non-UTF-8 files are skipped: their lines cannot be returned as JSON text.
  if ((data.len && memchr(data.data, 0, data.len)) || tg_utf8_invalid_at(data.data, data.len) >= 0) {
    s->files_skipped++;
    tg_buf_free(&data);
    return;
  }
  s->files_searched++;
  size_t start = 0;
  long lineno = 0;
  while (start < data.len && !s->truncated) {
    char *nl = memchr(data.data + start, '\n', data.len - start);
    size_t end = nl ? (size_t)(nl - data.data) : data.len;
    lineno++;
    data.data[end] = '\0';  // the buffer always has one spare byte, and '\n' is replaced in place
    if (regexec(&s->re, data.data + start, 0, NULL, 0) == 0) {
      if (s->matches >= s->max_results) {
        s->truncated = 1;
        break;
      }
      size_t len = end - start;
      if (len && data.data[start + len - 1] == '\r') len--;
      if (s->matches++) tg_buf_puts(&s->out, ",");
      tg_buf_puts(&s->out, "{\"file\":");
      tg_buf_jstr(&s->out, path, strlen(path));
      tg_buf_puts(&s->out, ",\"line\":");
      tg_buf_num(&s->out, (double)lineno);
      tg_buf_puts(&s->out, ",\"text\":");
      tg_buf_jstr(&s->out, data.data + start, utf8_cut(data.data + start, len, MAX_LINE_OUT));
      tg_buf_puts(&s->out, "}");
    }
    start = end + 1;
  }
  tg_buf_free(&data);
}

static void search_path(search *s, const char *path, int depth) {
  struct stat st;
  if (s->truncated || lstat(path, &st) != 0) return;
  if (S_ISREG(st.st_mode)) {
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    if (!s->glob || fnmatch(s->glob, base, 0) == 0) search_file(s, path, st.st_size);
    return;
  }
  if (!S_ISDIR(st.st_mode) || depth > MAX_DEPTH) return;  // symlinks and devices are not followed
  DIR *d = opendir(path);
  if (!d) { s->files_skipped++; return; }
  // Collect names first and sort them, so results come in a stable order.
  char **names = NULL;
  size_t count = 0, cap = 0;
  struct dirent *e;
  while ((e = readdir(d)) != NULL) {
    if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0) continue;
    if (count == cap) {
      cap = cap ? cap * 2 : 16;
      char **nn = realloc(names, cap * sizeof *names);
      if (!nn) break;
      names = nn;
    }
    names[count] = strdup(e->d_name);
    if (names[count]) count++;
  }
  closedir(d);
  for (size_t i = 1; i < count; i++)
    for (size_t j = i; j > 0 && strcmp(names[j - 1], names[j]) > 0; j--) {
      char *t = names[j]; names[j] = names[j - 1]; names[j - 1] = t;
    }
  for (size_t i = 0; i < count; i++) {
    size_t need = strlen(path) + strlen(names[i]) + 2;
    char *child = malloc(need);
    if (child) {
      snprintf(child, need, "%s/%s", path, names[i]);
      search_path(s, child, depth + 1);
      free(child);
    }
    free(names[i]);
  }
  free(names);
}

// Accepts /data or a path under it; refuses '..' and anything else with a message that says why.
static int check_path(const char *p, char *err, size_t errlen) {
  size_t m = strlen(MOUNT);
  if (strncmp(p, MOUNT, m) != 0 || (p[m] != '\0' && p[m] != '/')) {
    snprintf(err, errlen, "argument 'path' must be " MOUNT " or a path under it, got '%.200s'", p);
    return 1;
  }
  for (const char *c = p; *c; c++)
    if (c[0] == '.' && c[1] == '.' && (c == p || c[-1] == '/') && (c[2] == '/' || c[2] == '\0')) {
      snprintf(err, errlen, "argument 'path' may not contain '..' (got '%.200s')", p);
      return 1;
    }
  return 0;
}

TG_EXPORT("grep_files") int grep_files(void) {
  size_t len;
  char *in = tg_input(&len);
  char err[512];
  tg_json args;
  if (!in) return tg_error("out of memory reading the input");
  if (tg_json_args(in, len, &args, err, sizeof err)) return tg_error(err);
  const tg_json *pattern, *path, *ic, *max, *glob;
  int rc = 1;
  if (tg_arg(&args, "pattern", TG_JSTR, 1, &pattern, err, sizeof err) ||
      tg_arg(&args, "path", TG_JSTR, 0, &path, err, sizeof err) ||
      tg_arg(&args, "ignore_case", TG_JBOOL, 0, &ic, err, sizeof err) ||
      tg_arg(&args, "max_results", TG_JNUM, 0, &max, err, sizeof err) ||
      tg_arg(&args, "glob", TG_JSTR, 0, &glob, err, sizeof err)) {
    tg_json_free(&args);
    return tg_error(err);
  }
  const char *root = path ? path->str : MOUNT;
  search s = {0};
  s.glob = glob ? glob->str : NULL;
  s.max_results = max ? (long)max->number : 100;
  if (s.max_results < 1 || s.max_results > 1000 || (max && max->number != (double)s.max_results)) {
    tg_json_free(&args);
    return tg_error("argument 'max_results' must be an integer from 1 to 1000");
  }
  if (pattern->len == 0 || strlen(pattern->str) != pattern->len) {
    tg_json_free(&args);
    return tg_error("argument 'pattern' must be a non-empty regular expression without NUL characters");
  }
  if (check_path(root, err, sizeof err)) { tg_json_free(&args); return tg_error(err); }
  int code = regcomp(&s.re, pattern->str, REG_EXTENDED | REG_NOSUB | ((ic && ic->boolean) ? REG_ICASE : 0));
  if (code != 0) {
    char why[200];
    regerror(code, &s.re, why, sizeof why);
    rc = tg_errorf("argument 'pattern' is not a valid POSIX extended regular expression: %s", why);
    tg_json_free(&args);
    return rc;
  }
  struct stat st;
  if (stat(root, &st) != 0) {
    rc = tg_errorf("path '%.200s' does not exist or is not readable", root);
  } else {
    tg_buf_puts(&s.out, "{\"matches\":[");
    search_path(&s, root, 0);
    tg_buf_puts(&s.out, "],\"files_searched\":");
    tg_buf_num(&s.out, (double)s.files_searched);
    tg_buf_puts(&s.out, ",\"files_skipped\":");
    tg_buf_num(&s.out, (double)s.files_skipped);
    tg_buf_puts(&s.out, s.truncated ? ",\"truncated\":true}" : ",\"truncated\":false}");
    if (s.out.oom) rc = tg_error("out of memory building the result");
    else { tg_output(s.out.data, s.out.len); rc = 0; }
  }
  regfree(&s.re);
  tg_buf_free(&s.out);
  tg_json_free(&args);
  return rc;
}
