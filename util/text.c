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
