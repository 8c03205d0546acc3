/* Whole files as text: see file.h. */
#include "config.h"

#include "util/file.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

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

/* The file a write to path replaces: path itself, or where its symbolic links lead (a rename
 * over the link would replace the link, not the file).  Links into /dev and /proc
 * (/dev/stdout) lead to devices, pipes or a file another stream is writing: refused.  NULL
 * with e set on failure; the caller frees the result. */
static char *out_target(const char *path, fsim_err *e) {
  struct stat sb;
  if (lstat(path, &sb) != 0 || !S_ISLNK(sb.st_mode)) {
    char *t = strdup(path);
    if (t == NULL) FSIM_ERR(e, FSIM_ENOMEM, "out of memory");
    return t;
  }
  if (strncmp(path, "/dev/", 5) == 0 || strncmp(path, "/proc/", 6) == 0) {
    FSIM_ERR(e, FSIM_EINVAL, "%s: not a regular file", path);
    return NULL;
  }
  char *t = realpath(path, NULL);
  if (t == NULL) FSIM_ERR(e, FSIM_EINVAL, "%s: a symbolic link to a file that does not exist", path);
  return t;
}

/* Checks the file a write replaces (target; messages name path). */
static fsim_status check_target(const char *path, const char *target, fsim_err *e) {
  struct stat sb;
  if (stat(target, &sb) == 0 && S_ISDIR(sb.st_mode)) return FSIM_ERR(e, FSIM_EINVAL, "%s: is a directory", path);
  /* the rename would replace a device or a pipe (/dev/null) with a regular file */
  if (stat(target, &sb) == 0 && !S_ISREG(sb.st_mode)) return FSIM_ERR(e, FSIM_EINVAL, "%s: not a regular file", path);
  char *dir = strdup(target);
  if (dir == NULL) return FSIM_ERR(e, FSIM_ENOMEM, "out of memory");
  char *slash = strrchr(dir, '/');
  const char *d = dir;
  if (slash == NULL) d = ".";
  else if (slash == dir) d = "/";
  else *slash = '\0';
  int err = 0;
  if (stat(d, &sb) != 0) err = errno;
  else if (!S_ISDIR(sb.st_mode)) err = ENOTDIR;
  else if (access(d, W_OK | X_OK) != 0) err = errno;
  free(dir);
  if (err != 0) return FSIM_ERR(e, FSIM_EINVAL, "%s: cannot write: %s", path, strerror(err));
  return FSIM_OK;
}

fsim_status fsim_file_out_check(const char *path, fsim_err *e) {
  if (*path == '\0') return FSIM_ERR(e, FSIM_EINVAL, "an empty file name");
  char *target = out_target(path, e);
  if (target == NULL) return e ? e->code : FSIM_EINVAL;
  fsim_status st = check_target(path, target, e);
  free(target);
  return st;
}

fsim_status fsim_file_out_open(fsim_file_out *o, const char *path, fsim_err *e) {
  o->f = NULL;
  o->tmp = NULL;
  o->target = NULL;
  o->path = path;
  if (*path == '\0') return FSIM_ERR(e, FSIM_EINVAL, "an empty file name");
  o->target = out_target(path, e);
  if (o->target == NULL) return e ? e->code : FSIM_EINVAL;
  fsim_status st = check_target(path, o->target, e);
  if (st != FSIM_OK) {
    free(o->target);
    o->target = NULL;
    return st;
  }
  /* the new file keeps the mode of the one it replaces, else the umask's */
  struct stat sb;
  if (stat(o->target, &sb) == 0) {
    o->mode = sb.st_mode & 07777;
  } else {
    mode_t mask = umask(0);
    umask(mask);
    o->mode = 0666 & ~mask;
  }
  size_t n = strlen(o->target) + 16;
  o->tmp = malloc(n);
  if (o->tmp == NULL) {
    free(o->target);
    o->target = NULL;
    return FSIM_ERR(e, FSIM_ENOMEM, "out of memory");
  }
  snprintf(o->tmp, n, "%s.tmpXXXXXX", o->target);
  int fd = mkstemp(o->tmp);
  if (fd >= 0 && (o->f = fdopen(fd, "w")) == NULL) {
    int err = errno;
    close(fd);
    unlink(o->tmp);
    errno = err;
  }
  if (o->f == NULL) {
    st = FSIM_ERR(e, FSIM_EINVAL, "%s: cannot write: %s", path, strerror(errno));
    free(o->tmp);
    o->tmp = NULL;
    free(o->target);
    o->target = NULL;
  }
  return st;
}

fsim_status fsim_file_out_commit(fsim_file_out *o, fsim_err *e) {
  fsim_status st = FSIM_OK;
  int werr = ferror(o->f) ? EIO : 0;
  if (werr == 0 && fflush(o->f) != 0) werr = errno;
  if (werr == 0 && fchmod(fileno(o->f), o->mode) != 0) werr = errno;
  if (fclose(o->f) != 0 && werr == 0) werr = errno;
  o->f = NULL;
  if (werr != 0) st = FSIM_ERR(e, FSIM_EIO, "%s: write error: %s", o->path, strerror(werr));
  else if (rename(o->tmp, o->target) != 0)
    st = FSIM_ERR(e, FSIM_EINVAL, "%s: cannot write: %s", o->path, strerror(errno));
  if (st != FSIM_OK) unlink(o->tmp);
  free(o->tmp);
  o->tmp = NULL;
  free(o->target);
  o->target = NULL;
  return st;
}

void fsim_file_out_abort(fsim_file_out *o) {
  if (o->f != NULL) fclose(o->f);
  if (o->tmp != NULL) unlink(o->tmp);
  free(o->tmp);
  free(o->target);
  o->f = NULL;
  o->tmp = NULL;
  o->target = NULL;
}
