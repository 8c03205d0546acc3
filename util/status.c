/* Status codes and error records: see status.h. */
#include "config.h"

#include "util/status.h"
#include "util/text.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static const struct {
  const char *text;
  int exit_code;
} status_info[] = {
#define FSIM__INFO(name, code, text) {text, code},
    FSIM_STATUS_TABLE(FSIM__INFO)
#undef FSIM__INFO
};

const char *fsim_strerror(fsim_status st) {
  if ((unsigned)st >= FSIM_STATUS_COUNT) return "unknown status";
  return status_info[st].text;
}

int fsim_status_exit_code(fsim_status st) {
  if ((unsigned)st >= FSIM_STATUS_COUNT) return 1;
  return status_info[st].exit_code;
}

fsim_status fsim__err_set(fsim_err *e, fsim_status code, const char *file, int line,
                          const char *fmt, ...) {
  if (e == NULL) return code;
  e->code = code;
  e->src_file = file;
  e->src_line = line;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(e->msg, sizeof e->msg, fmt, ap);
  va_end(ap);
  fsim_text_one_line(e->msg); /* one line, whatever the input it quotes holds */
  return code;
}

void fsim_err_prefix(fsim_err *e, const char *fmt, ...) {
  if (e == NULL) return;
  char prefix[256];
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(prefix, sizeof prefix, fmt, ap);
  va_end(ap);
  if (n < 0) return;
  size_t plen = strlen(prefix) + 2, mlen = strlen(e->msg);
  if (plen + mlen + 1 > sizeof e->msg) mlen = sizeof e->msg - plen - 1;
  memmove(e->msg + plen, e->msg, mlen);
  e->msg[plen + mlen] = '\0';
  memcpy(e->msg, prefix, plen - 2);
  e->msg[plen - 2] = ':';
  e->msg[plen - 1] = ' ';
  fsim_text_one_line(e->msg); /* one line, whatever the input it quotes holds */
}

void fsim_err_clear(fsim_err *e) {
  if (e == NULL) return;
  e->code = FSIM_OK;
  e->msg[0] = '\0';
  e->src_file = NULL;
  e->src_line = 0;
}
