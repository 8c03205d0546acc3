/* Whole files as text: see file.h. */
#include "config.h"

#include "util/file.h"

#include <stdio.h>
#include <stdlib.h>

char *fsim_file_read(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  if (f == NULL) return NULL;
  size_t cap = 1 << 16, n = 0;
  char *buf = malloc(cap + 1);
  while (buf) {
    size_t got = fread(buf + n, 1, cap - n, f);
    n += got;
    if (n < cap) break;
    char *nb = realloc(buf, 2 * cap + 1);
    if (nb == NULL) {
      free(buf);
      buf = NULL;
      break;
    }
    buf = nb;
    cap *= 2;
  }
  fclose(f);
  if (buf) buf[n] = '\0';
  if (len && buf) *len = n;
  return buf;
}
