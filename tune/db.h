/* The tuning database: one SQLite file of winners keyed by arch, operator, shape, data types
 * and layout, each with its config, predicted time, and the flysim version that found it.
 * Every write is one transaction (a killed run leaves the file valid: no tables at all, which
 * readers take for an empty database, or whole entries); concurrent tuners on one file wait
 * for each other (rollback journal, busy timeout) and lose nothing.  Readers write nothing. */
#ifndef FSIM_DB_H
#define FSIM_DB_H

#include "util/status.h"

typedef struct fsim_db fsim_db;

typedef struct fsim_db_entry {
  char arch[1200], op[16]; /* arch: the part name plus any overrides */
  long long m, n, k;
  int groups;
  char a_type[8], b_type[8], c_type[8], layout[4];
  char config[200];
  double time_us, tflops, model_us;
  char backend[16];
  char version[16];
  double compiled_us; /* tune --compiled: the winner's compiled code, simulated; 0: not verified */
} fsim_db_entry;

/* Checks a path before it is opened (create: for writing, and it may not exist yet): "" and
 * ":memory:" are refused, as are directories and paths through a file; FSIM_ENOENT when it
 * does not exist and create is 0.  Errors name the path. */
fsim_status fsim_db_check_path(const char *path, int create, fsim_err *e);
/* Opens a database: with create for writing (creating the file and its tables; a read-only
 * file is refused), else for reading (writing nothing).  Errors name the path. */
fsim_status fsim_db_open(fsim_db **db, const char *path, int create, fsim_err *e);
void fsim_db_close(fsim_db *db);
/* Stores an entry in one transaction, replacing the one with the same key; with keep_faster,
 * only when that one is from another flysim version or is worse: not verified where this one
 * is (compiled_us > 0), compiling slower where both are, simulating slower where neither is (a
 * search of part of the space must not replace a better winner, nor a simulated winner a
 * verified one).  *stored (may be NULL) is 1 when the entry was written. */
/* A batch of writes in one transaction (a suite's winners: all stored or none, whenever the
 * run is stopped): fsim_db_begin, the puts, then fsim_db_commit, or fsim_db_rollback to drop
 * them all. */
fsim_status fsim_db_begin(fsim_db *db, fsim_err *e);
fsim_status fsim_db_commit(fsim_db *db, fsim_err *e);
void fsim_db_rollback(fsim_db *db);
fsim_status fsim_db_put(fsim_db *db, const fsim_db_entry *en, int keep_faster, int *stored, fsim_err *e);
/* fsim_db_put with keep_faster, except that the stored entry is replaced whatever it is when
 * it is damaged or overrule(stored entry, ctx) says so (a config that is no longer legal):
 * decided in the write's transaction, so that another writer's better winner, stored since
 * the caller last looked, is judged, not overwritten blindly.  A schema-1 file that this
 * write leaves unchanged is not migrated either. */
fsim_status fsim_db_put_unless(fsim_db *db, const fsim_db_entry *en, int (*overrule)(const fsim_db_entry *old, void *ctx),
                               void *ctx, int *stored, fsim_err *e);
/* Looks up the entry with key's key fields; *found is 0 when there is none. */
fsim_status fsim_db_get(fsim_db *db, const fsim_db_entry *key, fsim_db_entry *out, int *found, fsim_err *e);
/* All entries in key order; the caller frees *out. */
fsim_status fsim_db_list(fsim_db *db, fsim_db_entry **out, int *n, fsim_err *e);
/* 1 when the last get or list failed (FSIM_EINVAL, naming it) on a row flysim cannot have
 * written: a config that is not text, a time that is not a finite number >= 0.  A writer
 * may replace such a row. */
int fsim_db_damaged(const fsim_db *db);

#endif
