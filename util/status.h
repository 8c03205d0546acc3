/* Status codes and error records shared by every layer of flysim.
 *
 * Library functions never print and never exit: they return an fsim_status and, when
 * given an fsim_err, fill it with a one-line message meant for the user (it names the
 * file, line, section, key or argument and the reason) plus the place in flysim's own
 * source that raised it, for debugging.  The command line maps the status to an exit
 * code: 0 success, 1 the work failed, 2 the input is invalid. */
#ifndef FSIM_STATUS_H
#define FSIM_STATUS_H

#include <stddef.h>

/* X(name, exit code, description) */
#define FSIM_STATUS_TABLE(X)                                                \
  X(OK, 0, "success")                                                       \
  X(EINVAL, 2, "invalid input")                                             \
  X(ERANGE, 2, "value out of range")                                        \
  X(ENOENT, 2, "not found")                                                 \
  X(ENOMEM, 1, "out of memory")                                             \
  X(EIO, 1, "input/output error")                                           \
  X(ETOOL, 1, "an external tool failed")                                    \
  X(EDB, 1, "tuning database error")                                        \
  X(EFAIL, 1, "the work failed")

typedef enum fsim_status {
#define FSIM__ENUM(name, code, text) FSIM_##name,
  FSIM_STATUS_TABLE(FSIM__ENUM)
#undef FSIM__ENUM
  FSIM_STATUS_COUNT
} fsim_status;

/* The text of a status code ("invalid input"). */
const char *fsim_strerror(fsim_status st);
/* The process exit code for a status: 0, 1 or 2. */
int fsim_status_exit_code(fsim_status st);

typedef struct fsim_err {
  fsim_status code;
  char msg[768];         /* user-facing, one line, no trailing newline */
  const char *src_file;  /* flysim source file that raised it */
  int src_line;
} fsim_err;

/* Records an error into e (which may be NULL) and returns code. */
fsim_status fsim__err_set(fsim_err *e, fsim_status code, const char *file, int line,
                          const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
/* Prefixes e->msg with "prefix: " (used when a caller knows the file or argument). */
void fsim_err_prefix(fsim_err *e, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void fsim_err_clear(fsim_err *e);

#define FSIM_ERR(e, code, ...) fsim__err_set((e), (code), __FILE__, __LINE__, __VA_ARGS__)

#endif
