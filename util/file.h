/* Whole files as text: the one reader the command, verify and the tests share, and the one
 * place that opens an input file, so that every command words a missing file, a directory
 * and a read error the same way. */
#ifndef FSIM_FILE_H
#define FSIM_FILE_H

#include <stddef.h>
#include <stdio.h>

#include "util/status.h"

/* Opens path for reading ("rb") into *f; on failure *f is NULL and e says
 * "PATH: cannot open: REASON" (FSIM_ENOENT) or "PATH: is a directory" (FSIM_EINVAL). */
fsim_status fsim_file_open(const char *path, FILE **f, fsim_err *e);

/* Reads the whole file into *text, a new string with a terminating NUL (its length in *len
 * when len is not NULL), which the caller frees.  On failure *text is NULL and e says why as
 * fsim_file_open does, or "PATH: read error: REASON" (EIO), or out of memory. */
fsim_status fsim_file_load(const char *path, char **text, size_t *len, fsim_err *e);

/* fsim_file_load without the message: NULL when the file cannot be opened or read (errno
 * says why; EISDIR for a directory) or memory runs out. */
char *fsim_file_read(const char *path, size_t *len);

#endif
