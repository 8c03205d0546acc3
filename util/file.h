/* Whole files as text: the one reader the command, verify and the tests share. */
#ifndef FSIM_FILE_H
#define FSIM_FILE_H

#include <stddef.h>

/* The file's contents with a terminating NUL (its length in *len when len is not NULL), or
 * NULL when it cannot be opened or memory runs out.  The caller frees it. */
char *fsim_file_read(const char *path, size_t *len);

#endif
