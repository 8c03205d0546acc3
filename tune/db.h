/* The tuning database: one SQLite file of winners keyed by arch, operator, shape, data types
 * and layout, each with its config, predicted time, and the flysim version that found it.
 * Every write is one transaction (a killed run leaves the file valid); concurrent tuners on
 * one file wait for each other (WAL journal, busy timeout) and lose nothing. */
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
} fsim_db_entry;

/* Opens (and with create, creates) a database; errors name the path. */
fsim_status fsim_db_open(fsim_db **db, const char *path, int create, fsim_err *e);
void fsim_db_close(fsim_db *db);
/* Stores an entry, replacing the one with the same key, in one transaction. */
fsim_status fsim_db_put(fsim_db *db, const fsim_db_entry *en, fsim_err *e);
/* Looks up the entry with key's key fields; *found is 0 when there is none. */
fsim_status fsim_db_get(fsim_db *db, const fsim_db_entry *key, fsim_db_entry *out, int *found, fsim_err *e);
/* All entries in key order; the caller frees *out. */
fsim_status fsim_db_list(fsim_db *db, fsim_db_entry **out, int *n, fsim_err *e);

#endif
