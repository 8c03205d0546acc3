/* Text that leaves flysim: error lines and JSON strings. */
#ifndef FSIM_UTIL_TEXT_H
#define FSIM_UTIL_TEXT_H

#include <jansson.h>

/* Copies s into dst of n bytes (n > 0), cut to fit and always terminated: snprintf(dst, n,
 * "%s", s) without the formatting, for the loops that fill many schedules. */
void fsim_text_copy(char *dst, size_t n, const char *s);

/* Text built piece by piece into buf of n bytes (n > 0): cut to fit and always terminated,
 * len the whole text's length (as snprintf returns it).  For the strings made once per
 * enumerated config, where snprintf's format parsing was a tenth of the ranking's time. */
typedef struct fsim_text_buf {
  char *buf;
  size_t n, len;
} fsim_text_buf;
fsim_text_buf fsim_text_start(char *buf, size_t n);
void fsim_text_str(fsim_text_buf *t, const char *s);
void fsim_text_int(fsim_text_buf *t, long long v); /* decimal, as %lld */

/* Replaces control characters in s with '?', so that a message quoting input is one line. */
void fsim_text_one_line(char *s);

/* A JSON string of s that is never NULL for a non-NULL s: when s is not valid UTF-8 (a path or a
 * name read from a file may hold any byte), every byte from 0x80 up becomes '?', where
 * json_string would fail and json_object_set_new drop the key. */
json_t *fsim_json_text(const char *s);

#endif
