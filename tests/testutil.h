/* Helpers for the Check test programs: temporary files, running the flysim command and
 * capturing what it prints, and reading the part files of the source tree. */
#ifndef FSIM_TESTUTIL_H
#define FSIM_TESTUTIL_H

#include <jansson.h>
#include <stddef.h>

/* Reads a whole file; NULL on failure.  Caller frees. */
char *tu_read_file(const char *path);
/* Writes text to a new temporary file and returns its path (static buffer rotation of 8). */
const char *tu_write_temp(const char *text, const char *suffix);
/* The path of a file in the source tree (top_srcdir/rel). */
const char *tu_src_path(const char *rel);
/* Replaces the first occurrence of old in text by new; returns a new string or NULL. */
char *tu_replace(const char *text, const char *old, const char *rep);
/* 1-based line number of the first occurrence of needle in text, or 0. */
int tu_line_of(const char *text, const char *needle);

typedef struct tu_run {
  int status;   /* exit status, or -1 if the command did not exit normally */
  char *out;    /* stdout */
  char *err;    /* stderr */
} tu_run;
/* Runs the built flysim with the given arguments (a shell-quoted string). */
tu_run tu_flysim(const char *args);
/* The same, the command run through a prefix (a shell word list, such as a setpriv call). */
tu_run tu_flysim_via(const char *prefix, const char *args);
void tu_run_free(tu_run *r);
/* Runs flysim with args and checks that it exits with status and prints exactly the message
 * fmt formats on stderr. */
void tu_expect_err(const char *args, int status, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* Runs a Check suite and returns the process status: 0 when every test passed. */
struct Suite;
int tu_run_suite(struct Suite *s);

/* Parses r->out as JSON, failing the test if it is not. */
json_t *tu_json(const tu_run *r);
/* Runs flysim with args (which must succeed and print JSON) and returns the number under the
 * top-level key (failing the test when it is not a number). */
double tu_json_number(const char *args, const char *key);

#endif
