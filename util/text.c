/* Text that leaves flysim: see text.h. */
#include "config.h"

#include "util/text.h"

#include <stdlib.h>
#include <string.h>

void fsim_text_copy(char *dst, size_t n, const char *s) {
  size_t len = strlen(s);
  if (len >= n) len = n - 1;
  memmove(dst, s, len);
  dst[len] = '\0';
}

fsim_text_buf fsim_text_start(char *buf, size_t n) {
  buf[0] = '\0';
  return (fsim_text_buf){.buf = buf, .n = n, .len = 0};
}

void fsim_text_str(fsim_text_buf *t, const char *s) {
  size_t k = strlen(s);
  if (t->len + 1 < t->n) {
    size_t room = t->n - 1 - t->len, c = k < room ? k : room;
    memcpy(t->buf + t->len, s, c);
    t->buf[t->len + c] = '\0';
  }
  t->len += k;
}

void fsim_text_int(fsim_text_buf *t, long long v) {
  char d[24], *p = d + sizeof d;
  unsigned long long u = v < 0 ? 0ULL - (unsigned long long)v : (unsigned long long)v;
  *--p = '\0';
  do *--p = (char)('0' + u % 10); while (u /= 10);
  if (v < 0) *--p = '-';
  fsim_text_str(t, p);
}

void fsim_text_one_line(char *s) {
  for (char *c = s; *c; c++)
    if ((unsigned char)*c < 0x20 || *c == 0x7f) *c = '?';
}

json_t *fsim_json_text(const char *s) {
  json_t *j = json_string(s);
  if (j != NULL || s == NULL) return j;
  size_t n = strlen(s);
  char *t = malloc(n + 1);
  if (t == NULL) return NULL;
  for (size_t i = 0; i <= n; i++) t[i] = (unsigned char)s[i] >= 0x80 ? '?' : s[i];
  j = json_string(t);
  free(t);
  return j;
}
