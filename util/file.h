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

/* The largest file read whole (a power of two): 256 MiB. */
#define FSIM_FILE_MAX_BYTES ((size_t)1 << 28)
/* Reads the whole file into *text, a new string with a terminating NUL (its length in *len
 * when len is not NULL), which the caller frees.  On failure *text is NULL and e says why as
 * fsim_file_open does, or "PATH: read error: REASON" (EIO), or out of memory, or "PATH: larger
 * than 256 MiB ..." (FSIM_EINVAL: /dev/zero was once read until memory ran out). */
fsim_status fsim_file_load(const char *path, char **text, size_t *len, fsim_err *e);

/* fsim_file_load without the message: NULL when the file cannot be opened or read (errno
 * says why; EISDIR for a directory) or memory runs out. */
char *fsim_file_read(const char *path, size_t *len);

/* Output files are written whole: into a temporary file next to the target, renamed over it
 * when complete, so that a failure leaves no partial file.  Errors are one line:
 * "PATH: is a directory" or "PATH: cannot write: REASON" (FSIM_EINVAL: the path is a bad
 * argument), "PATH: write error: REASON" (FSIM_EIO: the disk failed). */
#define FSIM_FILE_MODE_UMASK 0x10000u
typedef struct fsim_file_out {
  FILE *f;      /* write here */
  char *tmp;    /* the temporary file's name, beside the target */
  char *target; /* the file replaced: path, or where its symbolic links lead */
  unsigned mode; /* the replaced file's permission bits, or FSIM_FILE_MODE_UMASK: a new file's (0666 less the umask) */
  const char *path;
  int fd;       /* the temporary file's descriptor, under f */
  int err;      /* the first write's or close's errno, 0 if none (stdio keeps only a flag) */
} fsim_file_out;

/* Whether path can be written (not a directory, nor a device or pipe that the rename would
 * replace; its folder exists and is writable; a symbolic link is followed, link by link, to
 * the file it names, which must exist; a link into /dev or /proc, one another user owns in a
 * shared sticky folder, and the file standard output or error goes to are refused), so that a
 * command can refuse a bad output path before its work rather than after. */
fsim_status fsim_file_out_check(const char *path, fsim_err *e);
/* Checks path and creates the temporary file; on failure o->f is NULL and nothing is left.
 * o must stay where it is until the commit or abort (the stream writes through it). */
fsim_status fsim_file_out_open(fsim_file_out *o, const char *path, fsim_err *e);
/* Closes the temporary file and renames it over the target (the file a symbolic link path
 * leads to, not the link; the replaced file's mode kept); on any failure removes it. */
fsim_status fsim_file_out_commit(fsim_file_out *o, fsim_err *e);
/* Closes and removes the temporary file (o may be unopened). */
void fsim_file_out_abort(fsim_file_out *o);

/* Removes the temporary files of the outputs open now (at most FSIM_FILE_OUT_PENDING are
 * remembered) and the work folder set below, for a signal handler: async-signal-safe, it only
 * calls unlink, kill, _Fork, execve ("/bin/rm -rf" on the folder) and waitpid.  The command calls it
 * on SIGINT, SIGTERM and SIGHUP, so that a killed run leaves no partial file or folder. */
#define FSIM_FILE_OUT_PENDING 16
void fsim_file_out_unlink_pending(void);
/* The private work folder (verify's) that a killed run removes; NULL when there is none. */
void fsim_file_work_dir(const char *dir);
/* The tool (clang, objdump) writing into that folder now, which a killed run kills first so
 * that nothing lands in the folder after its removal; 0 when none. */
void fsim_file_work_child(int pid);

#endif
