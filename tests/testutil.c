/* Helpers for the Check test programs: see testutil.h. */
#include "config.h"

#include "tests/testutil.h"
#include "util/file.h"

#include <check.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

char *tu_read_file(const char *path) { return fsim_file_read(path, NULL); }

/* The temporary files a test process made, removed when it exits (Check runs each test in a
 * process of its own): a make check left some 150 in /tmp before (2026-12-01). */
static char *made[4096];
static int nmade;

static void remove_made(void) {
  for (int i = 0; i < nmade; i++) {
    unlink(made[i]);
    free(made[i]);
  }
  nmade = 0;
}

const char *tu_write_temp(const char *text, const char *suffix) {
  static char paths[8][256];
  static int next = 0;
  char *p = paths[next++ % 8];
  const char *dir = getenv("TMPDIR");
  snprintf(p, 256, "%s/flysim-test-XXXXXX%s", dir && *dir ? dir : "/tmp", suffix ? suffix : "");
  int fd = mkstemps(p, suffix ? (int)strlen(suffix) : 0);
  ck_assert_msg(fd >= 0, "mkstemps failed");
  static int registered;
  if (!registered) registered = atexit(remove_made) == 0;
  if (nmade < (int)(sizeof made / sizeof made[0]) && (made[nmade] = strdup(p)) != NULL) nmade++;
  size_t len = strlen(text);
  ck_assert(write(fd, text, len) == (ssize_t)len);
  close(fd);
  return p;
}

const char *tu_src_path(const char *rel) {
  static char buf[8][1024];
  static int next = 0;
  char *p = buf[next++ % 8];
  const char *top = getenv("top_srcdir");
  snprintf(p, 1024, "%s/%s", top && *top ? top : TU_TOP_SRCDIR, rel);
  return p;
}

char *tu_replace(const char *text, const char *old, const char *rep) {
  const char *at = strstr(text, old);
  if (at == NULL) return NULL;
  size_t n = strlen(text) - strlen(old) + strlen(rep) + 1;
  char *out = malloc(n);
  size_t pre = (size_t)(at - text);
  memcpy(out, text, pre);
  strcpy(out + pre, rep);
  strcat(out, at + strlen(old));
  return out;
}

int tu_line_of(const char *text, const char *needle) {
  const char *at = strstr(text, needle);
  if (at == NULL) return 0;
  int line = 1;
  for (const char *p = text; p < at; p++) line += *p == '\n';
  return line;
}

static char *slurp_fd(int fd) {
  size_t cap = 4096, n = 0;
  char *buf = malloc(cap);
  ssize_t r;
  while ((r = read(fd, buf + n, cap - n - 1)) > 0) {
    n += (size_t)r;
    if (cap - n - 1 == 0) {
      buf = realloc(buf, cap * 2);
      cap *= 2;
    }
  }
  buf[n] = '\0';
  return buf;
}

tu_run tu_flysim(const char *args) { return tu_flysim_via("", args); }

tu_run tu_flysim_via(const char *prefix, const char *args) {
  tu_run r = {-1, NULL, NULL};
  const char *bin = getenv("FLYSIM");
  char errpath[256];
  const char *dir = getenv("TMPDIR");
  snprintf(errpath, sizeof errpath, "%s/flysim-test-err-XXXXXX", dir && *dir ? dir : "/tmp");
  int efd = mkstemp(errpath);
  ck_assert(efd >= 0);
  size_t n = strlen(prefix) + strlen(args) + 1024;
  char *cmd = malloc(n);
  snprintf(cmd, n, "%s '%s' %s 2>'%s'", prefix, bin && *bin ? bin : TU_FLYSIM, args, errpath);
  FILE *p = popen(cmd, "r");
  ck_assert_msg(p != NULL, "popen failed");
  r.out = slurp_fd(fileno(p));
  int st = pclose(p);
  r.status = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
  r.err = slurp_fd(efd);
  close(efd);
  unlink(errpath);
  free(cmd);
  return r;
}

void tu_run_free(tu_run *r) {
  free(r->out);
  free(r->err);
  r->out = r->err = NULL;
}

json_t *tu_json(const tu_run *r) {
  json_error_t je;
  json_t *j = json_loads(r->out, 0, &je);
  ck_assert_msg(j != NULL, "output is not JSON (%s at line %d): %.200s", je.text, je.line, r->out);
  return j;
}

double tu_json_number(const char *args, const char *key) {
  tu_run r = tu_flysim(args);
  ck_assert_msg(r.status == 0, "%s: %s", args, r.err);
  json_t *j = tu_json(&r);
  json_t *v = json_object_get(j, key);
  ck_assert_msg(json_is_number(v), "%s: no number '%s'", args, key);
  double x = json_number_value(v);
  json_decref(j);
  tu_run_free(&r);
  return x;
}

int tu_run_suite(Suite *s) {
  SRunner *sr = srunner_create(s);
  srunner_run_all(sr, CK_NORMAL);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed == 0 ? 0 : 1;
}

void tu_expect_err(const char *args, int status, const char *fmt, ...) {
  char want[2048];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(want, sizeof want, fmt, ap);
  va_end(ap);
  tu_run r = tu_flysim(args);
  ck_assert_msg(r.status == status, "%s: status %d, stderr %s", args, r.status, r.err);
  ck_assert_str_eq(r.err, want);
  tu_run_free(&r);
}
