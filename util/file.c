/* Whole files as text: see file.h. */
#include "config.h"

#include "util/file.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <time.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
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
  int too_large = 0;
  while (buf) {
    size_t got = fread(buf + n, 1, cap - n, f);
    n += got;
    if (n < cap) break;
    if (cap >= FSIM_FILE_MAX_BYTES) { /* /dev/zero, say, would otherwise be read until memory runs out */
      too_large = 1;
      break;
    }
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
  if (too_large) {
    free(buf);
    errno = EFBIG;
    return FSIM_ERR(e, FSIM_EINVAL, "%s: larger than %d MiB, more than any file flysim reads", path,
                    (int)(FSIM_FILE_MAX_BYTES >> 20));
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

/* The folder part of p ("." when none), in buf. */
static void dir_of(const char *p, char *buf, size_t n) {
  const char *slash = strrchr(p, '/');
  if (slash == NULL) snprintf(buf, n, ".");
  else if (slash == p) snprintf(buf, n, "/");
  else snprintf(buf, n, "%.*s", (int)(slash - p), p);
}

/* Whether the absolute path p is /dev or /proc or lies in them, /dev/shm (ordinary files)
 * aside. */
static int special_path(const char *p) {
  while (p[0] == '/' && p[1] == '/') p++;
  if (strcmp(p, "/dev/shm") == 0 || strncmp(p, "/dev/shm/", 9) == 0) return 0;
  return strcmp(p, "/dev") == 0 || strcmp(p, "/proc") == 0 || strncmp(p, "/dev/", 5) == 0 ||
         strncmp(p, "/proc/", 6) == 0;
}

/* Whether p (absolute or relative) lies in /dev or /proc, where links lead to devices, pipes
 * or a file another stream is writing (/dev/stdout -> /proc/self/fd/1).  Its folder is
 * resolved too, so that "/./proc/self/fd/0", "/tmp/../dev/stdout" or a link to a folder in
 * /proc count (an audit wrote over the file on standard input through the first); a folder
 * that does not resolve leaves p judged as written. */
static int special_dir(const char *p) {
  if (p[0] == '/' && special_path(p)) return 1;
  char dir[4096];
  dir_of(p, dir, sizeof dir);
  char *real = realpath(dir, NULL);
  int special = real != NULL && special_path(real);
  free(real);
  return special;
}

/* The file a write to path replaces: path itself, or where its symbolic links lead (a rename
 * over the link would replace the link, not the file).  The links are followed one at a time,
 * so that a step into /dev or /proc is refused wherever it is in the chain, and, as the
 * kernel's protected_symlinks does, a link in a sticky world-writable folder (/tmp) that
 * another user owns is refused rather than followed.  NULL with e set on failure; the caller
 * frees the result. */
static char *out_target(const char *path, fsim_err *e) {
  char cur[4096], dir[4096], link[4096];
  if (strlen(path) >= sizeof cur) {
    FSIM_ERR(e, FSIM_EINVAL, "%s: path too long", path);
    return NULL;
  }
  snprintf(cur, sizeof cur, "%s", path);
  for (int hops = 0;; hops++) {
    if (special_dir(cur)) {
      FSIM_ERR(e, FSIM_EINVAL, "%s: not a regular file", path);
      return NULL;
    }
    struct stat sb, db;
    if (lstat(cur, &sb) != 0 || !S_ISLNK(sb.st_mode)) break;
    if (hops == 40) {
      FSIM_ERR(e, FSIM_EINVAL, "%s: %s", path, strerror(ELOOP));
      return NULL;
    }
    dir_of(cur, dir, sizeof dir);
    if (stat(dir, &db) == 0 && (db.st_mode & S_ISVTX) && (db.st_mode & S_IWOTH) && sb.st_uid != geteuid() &&
        sb.st_uid != db.st_uid) {
      FSIM_ERR(e, FSIM_EINVAL, "%s: a symbolic link another user owns in a shared folder; not followed", path);
      return NULL;
    }
    ssize_t len = readlink(cur, link, sizeof link - 1);
    if (len < 0) {
      FSIM_ERR(e, FSIM_EINVAL, "%s: %s", path, strerror(errno));
      return NULL;
    }
    link[len] = '\0';
    if (link[0] == '/' || strcmp(dir, ".") == 0) {
      snprintf(cur, sizeof cur, "%s", link);
    } else if ((size_t)snprintf(cur, sizeof cur, "%s/%s", dir, link) >= sizeof cur) {
      FSIM_ERR(e, FSIM_EINVAL, "%s: path too long", path);
      return NULL;
    }
  }
  if (strcmp(cur, path) != 0) {
    /* a link: its target must exist (a new file at the end of a dangling link is not made) */
    struct stat sb;
    if (stat(cur, &sb) != 0) {
      FSIM_ERR(e, FSIM_EINVAL, "%s: a symbolic link to %s: %s", path, cur, strerror(errno));
      return NULL;
    }
  }
  char *t = strdup(cur);
  if (t == NULL) FSIM_ERR(e, FSIM_ENOMEM, "out of memory");
  return t;
}

/* 1 when target is the file standard output or standard error goes to: the rename would
 * take it from under them (--timeline report.txt > report.txt). */
static int is_std_stream(const char *target) {
  struct stat t, s;
  if (stat(target, &t) != 0) return 0;
  for (int fd = 1; fd <= 2; fd++)
    if (fstat(fd, &s) == 0 && s.st_dev == t.st_dev && s.st_ino == t.st_ino) return 1;
  return 0;
}

/* Checks the file a write replaces (target; messages name path). */
static fsim_status check_target(const char *path, const char *target, fsim_err *e) {
  struct stat sb;
  const int exists = stat(target, &sb) == 0;
  if (exists && S_ISDIR(sb.st_mode)) return FSIM_ERR(e, FSIM_EINVAL, "%s: is a directory", path);
  /* the rename would replace a device or a pipe (/dev/null) with a regular file */
  if (exists && !S_ISREG(sb.st_mode)) return FSIM_ERR(e, FSIM_EINVAL, "%s: not a regular file", path);
  if (is_std_stream(target))
    return FSIM_ERR(e, FSIM_EINVAL, "%s: the file standard output or standard error goes to", path);
  /* the rename would replace a file its user may not write (a write-protected one) */
  if (exists && access(target, W_OK) != 0) return FSIM_ERR(e, FSIM_EINVAL, "%s: cannot write: %s", path, strerror(errno));
  char d[4096];
  dir_of(target, d, sizeof d);
  int err = 0;
  if (stat(d, &sb) != 0) err = errno;
  else if (!S_ISDIR(sb.st_mode)) err = ENOTDIR;
  else if (access(d, W_OK | X_OK) != 0) err = errno;
  if (err != 0 && strcmp(path, target) != 0)
    return FSIM_ERR(e, FSIM_EINVAL, "%s: cannot write %s: %s", path, target, strerror(err));
  if (err != 0) return FSIM_ERR(e, FSIM_EINVAL, "%s: cannot write: %s", path, strerror(err));
  return FSIM_OK;
}

/* The checked target of a write to path (out_target, check_target); NULL with e set. */
static char *checked_target(const char *path, fsim_err *e) {
  if (*path == '\0') {
    FSIM_ERR(e, FSIM_EINVAL, "an empty file name");
    return NULL;
  }
  char *target = out_target(path, e);
  if (target != NULL && check_target(path, target, e) != FSIM_OK) {
    free(target);
    target = NULL;
  }
  return target;
}

fsim_status fsim_file_out_check(const char *path, fsim_err *e) {
  char *target = checked_target(path, e);
  fsim_status st = target != NULL ? FSIM_OK : e ? e->code : FSIM_EINVAL;
  free(target);
  return st;
}

/* The temporary files open now, for fsim_file_out_unlink_pending: a slot holds a name from its
 * file's creation until its rename or removal, and is cleared before the name is freed. */
static char *pending[FSIM_FILE_OUT_PENDING];

static void pending_add(char *tmp) {
  for (int i = 0; i < FSIM_FILE_OUT_PENDING; i++) {
    char *none = NULL;
    if (__atomic_compare_exchange_n(&pending[i], &none, tmp, 0, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST)) return;
  }
}

static void pending_drop(char *tmp) {
  for (int i = 0; i < FSIM_FILE_OUT_PENDING; i++) {
    char *was = tmp;
    if (__atomic_compare_exchange_n(&pending[i], &was, NULL, 0, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST)) return;
  }
}

static char work_dir[1024];
static volatile sig_atomic_t work_dir_set, work_child;

void fsim_file_work_child(int pid) { work_child = pid; }

void fsim_file_work_dir(const char *dir) {
  work_dir_set = 0;
  atomic_signal_fence(memory_order_seq_cst);
  if (dir == NULL || strlen(dir) >= sizeof work_dir) return;
  memcpy(work_dir, dir, strlen(dir) + 1);
  atomic_signal_fence(memory_order_seq_cst); /* the name is whole before the handler may read it */
  work_dir_set = 1;
}

/* fork for a signal handler: glibc's fork takes stdio's and malloc's locks once the process has
 * threads, so a signal that lands inside malloc would deadlock it; _Fork (glibc 2.34, POSIX
 * 2024's async-signal-safe fork) does not */
static pid_t fork_in_handler(void) {
#if defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 34))
  return _Fork();
#else
  return fork();
#endif
}

void fsim_file_out_unlink_pending(void) {
  for (int i = 0; i < FSIM_FILE_OUT_PENDING; i++) {
    char *tmp = __atomic_load_n(&pending[i], __ATOMIC_SEQ_CST);
    if (tmp != NULL) unlink(tmp);
  }
  pid_t child = work_child;
  if (child > 0) {
    kill(child, SIGKILL);
    waitpid(child, NULL, 0);
  }
  if (work_dir_set) {
    pid_t pid = fork_in_handler();
    if (pid == 0) {
      char *argv[] = {"rm", "-rf", "--", work_dir, NULL}, *envp[] = {NULL};
      execve("/bin/rm", argv, envp);
      _exit(127);
    }
    if (pid > 0) waitpid(pid, NULL, 0);
  }
}

/* The output stream's writes and close, through a cookie so that the reason a write failed
 * (ENOSPC, EDQUOT, EIO) is kept for the commit's message: stdio's error flag drops it. */
static ssize_t out_write(void *cookie, const char *buf, size_t n) {
  fsim_file_out *o = cookie;
  size_t done = 0;
  while (done < n) {
    ssize_t k = write(o->fd, buf + done, n - done);
    if (k < 0 && errno == EINTR) continue;
    if (k <= 0) {
      if (o->err == 0) o->err = k < 0 ? errno : EIO;
      return (ssize_t)done; /* short: stdio sets its error flag */
    }
    done += (size_t)k;
  }
  return (ssize_t)n;
}

static int out_close(void *cookie) {
  fsim_file_out *o = cookie;
  int r = close(o->fd);
  if (r != 0 && o->err == 0) o->err = errno;
  o->fd = -1;
  return r;
}

fsim_status fsim_file_out_open(fsim_file_out *o, const char *path, fsim_err *e) {
  o->f = NULL;
  o->tmp = NULL;
  o->fd = -1;
  o->err = 0;
  o->path = path;
  o->target = checked_target(path, e);
  if (o->target == NULL) return e ? e->code : FSIM_EINVAL;
  fsim_status st = FSIM_OK;
  /* the new file keeps the permission bits of the one it replaces; a new one gets 0666 less
   * the umask, which open applies (mkstemp would make it 0600) */
  struct stat sb;
  o->mode = stat(o->target, &sb) == 0 ? (unsigned)(sb.st_mode & 0777) : FSIM_FILE_MODE_UMASK;
  size_t n = strlen(o->target) + 32;
  o->tmp = malloc(n);
  if (o->tmp == NULL) {
    free(o->target);
    o->target = NULL;
    return FSIM_ERR(e, FSIM_ENOMEM, "out of memory");
  }
  static unsigned counter;
  int fd = -1;
  /* no stop signal between the file's creation and its registration (the handler would miss it) */
  sigset_t stops, was;
  sigemptyset(&stops);
  sigaddset(&stops, SIGINT);
  sigaddset(&stops, SIGTERM);
  sigaddset(&stops, SIGHUP);
  pthread_sigmask(SIG_BLOCK, &stops, &was);
  for (int tries = 0; tries < 100 && fd < 0; tries++) {
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    unsigned r = (unsigned)ts.tv_nsec ^ (unsigned)getpid() * 2654435761u ^
                 __atomic_fetch_add(&counter, 1, __ATOMIC_RELAXED) * 40503u;
    snprintf(o->tmp, n, "%s.tmp%08x", o->target, r);
    fd = open(o->tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (fd < 0 && errno == ENAMETOOLONG) {
      /* a name of 244 to 255 bytes, which the suffix pushes past the folder's limit (an audit
       * found such outputs refused): a short name in the same folder, for the same rename */
      const char *slash = strrchr(o->target, '/');
      int dir_len = slash ? (int)(slash - o->target) + 1 : 0;
      snprintf(o->tmp, n, "%.*s.flysim-tmp%08x", dir_len, o->target, r);
      fd = open(o->tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    }
    if (fd < 0 && errno != EEXIST) break;
  }
  if (fd >= 0) pending_add(o->tmp);
  pthread_sigmask(SIG_SETMASK, &was, NULL);
  o->fd = fd;
  const cookie_io_functions_t io = {.write = out_write, .close = out_close};
  if (fd >= 0 && (o->f = fopencookie(o, "w", io)) == NULL) {
    int err = errno;
    close(fd);
    o->fd = -1;
    unlink(o->tmp);
    pending_drop(o->tmp);
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
  int werr = ferror(o->f) ? (o->err ? o->err : EIO) : 0;
  if (werr == 0 && fflush(o->f) != 0) werr = o->err ? o->err : errno;
  if (werr == 0 && o->mode != FSIM_FILE_MODE_UMASK && fchmod(o->fd, o->mode) != 0) werr = errno;
  if (fclose(o->f) != 0 && werr == 0) werr = o->err ? o->err : errno;
  o->f = NULL;
  if (werr != 0) st = FSIM_ERR(e, FSIM_EIO, "%s: write error: %s", o->path, strerror(werr));
  else if (rename(o->tmp, o->target) != 0)
    st = FSIM_ERR(e, FSIM_EINVAL, "%s: cannot write: %s", o->path, strerror(errno));
  if (st != FSIM_OK) unlink(o->tmp);
  pending_drop(o->tmp);
  free(o->tmp);
  o->tmp = NULL;
  free(o->target);
  o->target = NULL;
  return st;
}

void fsim_file_out_abort(fsim_file_out *o) {
  if (o->f != NULL) fclose(o->f);
  if (o->tmp != NULL) {
    unlink(o->tmp);
    pending_drop(o->tmp);
  }
  free(o->tmp);
  free(o->target);
  o->f = NULL;
  o->tmp = NULL;
  o->target = NULL;
}
