/* Whole files as text: see file.h. */
#include "config.h"

#include "util/file.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* fopen succeeds on a directory and the first read fails with EISDIR: the directory is
 * caught here instead, so that the message says what is wrong. */
fsim_status fsim_file_open(const char *path, FILE **f, fsim_err *e) {
  *f = fopen(path, "rb");
  if (*f == NULL) {
    int err = errno;
    FSIM_ERR(e, FSIM_ENOENT, "%s: cannot open: %s", path, strerror(err));
    errno = err;
    return FSIM_ENOENT;
  }
  struct stat sb;
  if (fstat(fileno(*f), &sb) == 0 && S_ISDIR(sb.st_mode)) {
    fclose(*f);
    *f = NULL;
    errno = EISDIR;
    return FSIM_ERR(e, FSIM_EINVAL, "%s: is a directory", path);
  }
  return FSIM_OK;
}

fsim_status fsim_file_load(const char *path, char **text, size_t *len, fsim_err *e) {
  *text = NULL;
  FILE *f;
  fsim_status st = fsim_file_open(path, &f, e);
  if (st != FSIM_OK) return st;
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
  int err = ferror(f) ? (errno != 0 ? errno : EIO) : 0;
  fclose(f);
  if (buf == NULL) {
    errno = ENOMEM;
    return FSIM_ERR(e, FSIM_ENOMEM, "%s: out of memory", path);
  }
  if (err != 0) {
    free(buf);
    errno = err;
    return FSIM_ERR(e, FSIM_EIO, "%s: read error: %s", path, strerror(err));
  }
  buf[n] = '\0';
  if (len) *len = n;
  *text = buf;
  return FSIM_OK;
}

char *fsim_file_read(const char *path, size_t *len) {
  char *text;
  fsim_file_load(path, &text, len, NULL);
  return text;
}
