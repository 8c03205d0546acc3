/* The tuning database (SQLite): see db.h.  Schema version 1:
 *   meta(key PRIMARY KEY, value)            format = flysim-tuning, schema = 1
 *   winners(arch, op, m, n, k, groups, a_type, b_type, c_type, layout  -- the key
 *           config, time_us, tflops, model_us, backend, version)
 * No timestamps: the same tuning gives the same file contents.  model_us is NULL where the
 * model gave no estimate (a fallback). */
#include "config.h"

#include "tune/db.h"

#include "kernels/schedule.h"
#include "util/dtype.h"

#include <errno.h>
#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <ctype.h>
#include <sys/stat.h>
#include <unistd.h>

struct fsim_db {
  sqlite3 *h;
  char path[1024];
  int empty; /* a reader of an SQLite file with no tables yet: no entries */
  int damaged; /* the last get or list failed on a damaged row (fsim_db_damaged) */
  int schema;  /* 1 (no compiled_us column: flysim before 0.4) or 2; 0 while unknown */
  int batch;   /* 1: inside fsim_db_begin's transaction, each write a savepoint of it */
};

static void copy_text(char *dst, size_t n, const unsigned char *src) {
  snprintf(dst, n, "%s", src ? (const char *)src : "");
}

static fsim_status db_err(fsim_db *db, fsim_err *e, const char *what) {
  /* a damaged file is a bad --db (exit 2), like one that is not a database at all */
  int rc = sqlite3_errcode(db->h);
  fsim_status code = rc == SQLITE_CORRUPT || rc == SQLITE_NOTADB ? FSIM_EINVAL : FSIM_EDB;
  return FSIM_ERR(e, code, "--db %s: %s: %s", db->path, what, sqlite3_errmsg(db->h));
}

/* SQLite's integrity_check of the whole file (its b-trees, records and the indexes' contents;
 * quick_check skipped the last, and an audit found a damaged index that tune accepted and db
 * list refused): a database damaged inside its pages is refused when it is opened, before a
 * tune spends its time, rather than when its winner is written.  A tuning database is small;
 * this reads it once. */
static fsim_status check_intact(fsim_db *db, fsim_err *e) {
  sqlite3_stmt *q = NULL;
  char first[200] = "";
  int rc = sqlite3_prepare_v2(db->h, "PRAGMA integrity_check(1);", -1, &q, NULL);
  if (rc == SQLITE_OK && (rc = sqlite3_step(q)) == SQLITE_ROW) copy_text(first, sizeof first, sqlite3_column_text(q, 0));
  sqlite3_finalize(q);
  if (rc != SQLITE_ROW) {
    rc = sqlite3_errcode(db->h);
    if (rc == SQLITE_BUSY || rc == SQLITE_LOCKED || rc == SQLITE_IOERR || rc == SQLITE_NOMEM)
      return FSIM_ERR(e, FSIM_EDB, "--db %s: cannot read: %s", db->path, sqlite3_errmsg(db->h)); /* the file may be fine */
    return FSIM_ERR(e, FSIM_EINVAL, "--db %s: the database is damaged (%s); restore it or tune into another file",
                    db->path, sqlite3_errmsg(db->h));
  }
  /* its report is lines ("*** in database main ***", then one per fault): one line here */
  const char *head = "*** in database main ***\n";
  char *text = strncmp(first, head, strlen(head)) == 0 ? first + strlen(head) : first;
  for (char *c = text; *c; c++)
    if (*c == '\n') *c = ';';
  if (strcmp(first, "ok") != 0)
    return FSIM_ERR(e, FSIM_EINVAL, "--db %s: the database is damaged (SQLite's integrity_check: %s); restore it or tune "
                    "into another file", db->path, text);
  return FSIM_OK;
}

/* Schema 2 (flysim 0.4) adds compiled_us (tune --compiled: the winner's compiled code,
 * simulated; NULL when it was not verified) as the last column; a schema-1 file is read as it
 * is and given the column when it is first opened for writing (migrate_1_to_2). */
static const char *schema =
    "CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);"
    "INSERT OR IGNORE INTO meta VALUES ('format', 'flysim-tuning'), ('schema', '2');"
    "CREATE TABLE IF NOT EXISTS winners ("
    " arch TEXT NOT NULL, op TEXT NOT NULL, m INTEGER NOT NULL, n INTEGER NOT NULL, k INTEGER NOT NULL,"
    " groups INTEGER NOT NULL, a_type TEXT NOT NULL, b_type TEXT NOT NULL, c_type TEXT NOT NULL,"
    " layout TEXT NOT NULL, config TEXT NOT NULL, time_us REAL NOT NULL, tflops REAL, model_us REAL,"
    " backend TEXT NOT NULL, version TEXT NOT NULL, compiled_us REAL,"
    " PRIMARY KEY (arch, op, m, n, k, groups, a_type, b_type, c_type, layout));";

/* 1 when the file holds tables but no flysim meta table: another program's database, which
 * is refused rather than written into. */
static int foreign(sqlite3 *h) {
  sqlite3_stmt *q = NULL;
  int tables = 0, meta = 0;
  if (sqlite3_prepare_v2(h, "SELECT name FROM sqlite_master WHERE type = 'table';", -1, &q, NULL) == SQLITE_OK)
    while (sqlite3_step(q) == SQLITE_ROW) {
      tables++;
      meta |= strcmp((const char *)sqlite3_column_text(q, 0), "meta") == 0;
    }
  sqlite3_finalize(q);
  return tables > 0 && !meta;
}

/* The text of a one-value query, or "" when the query fails or has no row. */
static void query_text(sqlite3 *h, const char *sql, char *out, size_t n) {
  sqlite3_stmt *q = NULL;
  out[0] = '\0';
  if (sqlite3_prepare_v2(h, sql, -1, &q, NULL) == SQLITE_OK && sqlite3_step(q) == SQLITE_ROW)
    copy_text(out, n, sqlite3_column_text(q, 0));
  sqlite3_finalize(q);
}

static int has_winners(fsim_db *db) {
  char v[16];
  query_text(db->h, "SELECT name FROM sqlite_master WHERE type = 'table' AND name = 'winners';", v, sizeof v);
  return strcmp(v, "winners") == 0;
}

/* The winners table's columns, in order, and its primary key (the first ten, in order), as
 * the schema makes them; schema 1 lacks the last column.  A table with the right number of
 * columns but another name or key was taken for flysim's and failed later, at a read or a
 * write, with exit 1 (an audit): it is refused at the open, as a file that is not flysim's. */
static const char *const winners_columns[] = {"arch",    "op",     "m",       "n",        "k",      "groups",
                                              "a_type",  "b_type", "c_type",  "layout",   "config", "time_us",
                                              "tflops",  "model_us", "backend", "version", "compiled_us"};
enum { N_WINNERS_KEY = 10 };

static fsim_status check_columns(fsim_db *db, fsim_err *e) {
  const int want = db->schema == 1 ? 16 : 17;
  sqlite3_stmt *q = NULL;
  int n = 0;
  char why[160] = "";
  if (sqlite3_prepare_v2(db->h, "SELECT name, pk FROM pragma_table_info('winners') ORDER BY cid;", -1, &q, NULL) !=
      SQLITE_OK) {
    snprintf(why, sizeof why, "its winners table cannot be read: %s", sqlite3_errmsg(db->h));
  } else {
    for (; sqlite3_step(q) == SQLITE_ROW && why[0] == '\0'; n++) {
      const char *name = (const char *)sqlite3_column_text(q, 0);
      int pk = sqlite3_column_int(q, 1), want_pk = n < N_WINNERS_KEY ? n + 1 : 0;
      if (n >= want) continue; /* counted below */
      if (name == NULL || strcmp(name, winners_columns[n]) != 0)
        snprintf(why, sizeof why, "its winners table's column %d is '%.40s', not '%s'", n + 1, name ? name : "",
                 winners_columns[n]);
      else if (pk != want_pk)
        snprintf(why, sizeof why, "its winners table's primary key differs from flysim's at column '%s'", name);
    }
  }
  sqlite3_finalize(q);
  if (why[0] == '\0' && n != want) snprintf(why, sizeof why, "its winners table has %d columns, not %d", n, want);
  if (why[0]) return FSIM_ERR(e, FSIM_EINVAL, "--db %s: not a flysim tuning database (%s)", db->path, why);
  return FSIM_OK;
}

/* A flysim database of a schema this flysim reads: the meta table names the format and schema
 * 1 or 2 (db->schema), and the winners table is there with that schema's columns (16 or 17).
 * with_winners 0 checks the version only (before creating tables). */
static fsim_status check_flysim(fsim_db *db, int with_winners, fsim_err *e) {
  char v[64];
  query_text(db->h, "SELECT value FROM meta WHERE key = 'format';", v, sizeof v);
  if (strcmp(v, "flysim-tuning") != 0) return FSIM_ERR(e, FSIM_EINVAL, "--db %s: not a flysim tuning database", db->path);
  query_text(db->h, "SELECT value FROM meta WHERE key = 'schema';", v, sizeof v);
  if (strcmp(v, "1") != 0 && strcmp(v, "2") != 0)
    return FSIM_ERR(e, FSIM_EINVAL, "--db %s: schema version '%s' is not one this flysim reads and writes (1, 2)",
                    db->path, v);
  db->schema = v[0] - '0';
  if (with_winners && !has_winners(db))
    return FSIM_ERR(e, FSIM_EINVAL, "--db %s: not a flysim tuning database (it has no winners table)", db->path);
  return with_winners ? check_columns(db, e) : FSIM_OK;
}

/* A schema-1 file gets the compiled_us column (NULL in every row: nothing in it was verified)
 * at its first write, inside that write's transaction (fsim_db_put), so that a run that stores
 * nothing leaves the file as it was; flysim before 0.4 refuses it then. */
static fsim_status migrate_1_to_2(fsim_db *db, fsim_err *e) {
  fsim_status st = has_winners(db) ? check_flysim(db, 1, e) : FSIM_OK; /* 16 columns, as schema 1 has */
  if (st != FSIM_OK) return st;
  char *msg = NULL;
  const char *sql = has_winners(db) ? "ALTER TABLE winners ADD COLUMN compiled_us REAL; UPDATE meta SET value = '2' "
                                      "WHERE key = 'schema';"
                                    : "UPDATE meta SET value = '2' WHERE key = 'schema';";
  if (sqlite3_exec(db->h, sql, NULL, NULL, &msg) != SQLITE_OK || sqlite3_exec(db->h, schema, NULL, NULL, &msg) != SQLITE_OK) {
    st = FSIM_ERR(e, FSIM_EDB, "--db %s: cannot add the compiled_us column: %s", db->path, msg ? msg : "");
    sqlite3_free(msg);
    return st;
  }
  return check_flysim(db, 1, e);
}

/* 1 when SQLite's rollback journal for path exists and is not empty. */
static int has_journal(const char *path) {
  char j[1100];
  struct stat sb;
  if (snprintf(j, sizeof j, "%s-journal", path) >= (int)sizeof j) return 0;
  return stat(j, &sb) == 0 && S_ISREG(sb.st_mode) && sb.st_size > 0;
}

/* What SQLite would make of the path, checked first so that the error says what is wrong:
 * "" and ":memory:" are databases SQLite keeps in memory (nothing would be stored); a
 * directory, or a path through something that is not one, cannot hold a database. */
fsim_status fsim_db_check_path(const char *path, int create, fsim_err *e) {
  if (path[0] == '\0' || strcmp(path, ":memory:") == 0)
    return FSIM_ERR(e, FSIM_EINVAL, "--db '%s': SQLite keeps that database in memory and nothing would be stored; "
                    "give a file name", path);
  struct stat sb;
  if (stat(path, &sb) == 0) {
    if (S_ISDIR(sb.st_mode)) return FSIM_ERR(e, FSIM_EINVAL, "--db %s: is a directory", path);
    if (!S_ISREG(sb.st_mode)) return FSIM_ERR(e, FSIM_EINVAL, "--db %s: not a regular file", path);
    /* an empty file is an empty database; anything else must start as SQLite's files do
     * (SQLite itself takes a file shorter than its header for an empty database, and would
     * write over it).  Unless it starts with a zeroed header and a journal lies beside it: a
     * writer killed after SQLite spilled pages of a new file but before it wrote page 1 leaves
     * that, which SQLite rolls back (truncates) on opening.  Any other file goes no further:
     * SQLite would delete a journal beside it that it cannot read. */
    if (sb.st_size > 0) {
      static const char magic[16] = "SQLite format 3";
      static const char zeros[100];
      char head[100] = {0};
      FILE *f = fopen(path, "rb");
      if (f == NULL) return FSIM_ERR(e, FSIM_EINVAL, "--db %s: %s", path, strerror(errno));
      size_t got = fread(head, 1, sizeof head, f);
      fclose(f);
      int killed_creator = got == sizeof head && memcmp(head, zeros, sizeof zeros) == 0 && has_journal(path);
      if (!killed_creator && (got < sizeof magic || memcmp(head, magic, sizeof magic) != 0))
        return FSIM_ERR(e, FSIM_EINVAL, "--db %s: not a flysim tuning database (not an SQLite file)", path);
    }
    return FSIM_OK;
  }
  if (errno != ENOENT) return FSIM_ERR(e, FSIM_EINVAL, "--db %s: %s", path, strerror(errno));
  /* a name that can only be a folder's ("dir/", "dir/.", ".."): SQLite would create the file
   * without the slash, which no later command given the same name could open */
  size_t len = strlen(path);
  const char *last = strrchr(path, '/');
  last = last ? last + 1 : path;
  if (path[len - 1] == '/' || strcmp(last, ".") == 0 || strcmp(last, "..") == 0)
    return FSIM_ERR(e, FSIM_EINVAL, "--db %s: names a directory, not a file", path);
  /* a dangling link is a mistake for readers and writers alike, not a missing database */
  if (lstat(path, &sb) == 0 && S_ISLNK(sb.st_mode))
    return FSIM_ERR(e, FSIM_EINVAL, "--db %s: a symbolic link to a file that does not exist", path);
  if (!create) return FSIM_ERR(e, FSIM_ENOENT, "--db %s: no such file", path);
  return FSIM_OK;
}

/* The number of tables, or -1 (and the reason in e) when the file is not an SQLite database.
 * This is the connection's first read. */
static int count_tables(fsim_db *db, fsim_err *e) {
  sqlite3_stmt *q = NULL;
  int n = -1;
  if (sqlite3_prepare_v2(db->h, "SELECT count(*) FROM sqlite_master WHERE type = 'table';", -1, &q, NULL) == SQLITE_OK &&
      sqlite3_step(q) == SQLITE_ROW)
    n = sqlite3_column_int(q, 0);
  if (n < 0) {
    int rc = sqlite3_errcode(db->h);
    if (rc == SQLITE_BUSY || rc == SQLITE_LOCKED || rc == SQLITE_IOERR || rc == SQLITE_NOMEM)
      FSIM_ERR(e, FSIM_EDB, "--db %s: cannot read: %s", db->path, sqlite3_errmsg(db->h)); /* the file may be fine */
    else if (rc == SQLITE_READONLY)
      /* a hot journal (a writer stopped mid-transaction) that this user cannot roll back */
      FSIM_ERR(e, FSIM_EINVAL,
               "--db %s: an interrupted write must be rolled back first, which needs write access to the file and "
               "its folder (%s)", db->path, sqlite3_errmsg(db->h));
    else
      FSIM_ERR(e, FSIM_EINVAL, "--db %s: not a flysim tuning database (%s)", db->path, sqlite3_errmsg(db->h));
  }
  sqlite3_finalize(q);
  return n;
}

/* Creates the tables in a file that has none, or checks those of a flysim database, in one
 * transaction: a run killed at any point leaves either no tables (an empty database to
 * readers) or all of them. */
static fsim_status prepare_for_writing(fsim_db *db, fsim_err *e) {
  char *msg = NULL;
  int before = count_tables(db, e);
  if (before < 0) return e ? e->code : FSIM_EINVAL; /* not SQLite: before trying to write it */
  /* with or without tables: a file damaged in its first page was taken for an empty one,
   * written into, and then refused by every reader (found by tools/fuzz.sh) */
  fsim_status intact = check_intact(db, e);
  if (intact != FSIM_OK) return intact;
  if (sqlite3_exec(db->h, "BEGIN IMMEDIATE;", NULL, NULL, &msg) != SQLITE_OK) {
    /* a file or folder this user may not write is a bad --db (exit 2); a lock held past the
     * busy timeout, a failing disk, the work failing (1) */
    int rc = sqlite3_errcode(db->h);
    fsim_status code = rc == SQLITE_READONLY || rc == SQLITE_CANTOPEN || rc == SQLITE_PERM ? FSIM_EINVAL : FSIM_EDB;
    fsim_status st = FSIM_ERR(e, code, "--db %s: cannot write: %s", db->path, msg ? msg : sqlite3_errmsg(db->h));
    sqlite3_free(msg);
    return st;
  }
  fsim_status st = FSIM_OK;
  int tables = count_tables(db, e);
  if (tables < 0) {
    st = e ? e->code : FSIM_EINVAL;
  } else if (tables > 0 && foreign(db->h)) {
    st = FSIM_ERR(e, FSIM_EINVAL, "--db %s: not a flysim tuning database (it holds other tables)", db->path);
  } else if (tables > 0 && (st = check_flysim(db, 0, e)) != FSIM_OK) {
    /* another schema version is refused before anything is written into it */
  } else if (tables > 0 && db->schema == 1) {
    /* a file of flysim 0.3 or before: checked as it is; its first write adds the column */
    if (has_winners(db)) st = check_flysim(db, 1, e);
  } else if (sqlite3_exec(db->h, schema, NULL, NULL, &msg) != SQLITE_OK) {
    st = FSIM_ERR(e, FSIM_EDB, "--db %s: cannot create the tables: %s", db->path, msg ? msg : "");
  } else {
    st = check_flysim(db, 1, e);
  }
  if (st == FSIM_OK && sqlite3_exec(db->h, "COMMIT;", NULL, NULL, &msg) != SQLITE_OK)
    st = FSIM_ERR(e, FSIM_EDB, "--db %s: cannot write: %s", db->path, msg ? msg : sqlite3_errmsg(db->h));
  if (st != FSIM_OK) sqlite3_exec(db->h, "ROLLBACK;", NULL, NULL, NULL);
  sqlite3_free(msg);
  return st;
}

/* Whether path is an SQLite file in WAL mode (its header's read and write versions are 2, as
 * flysim 0.1 left its files) with no log beside it holding writes the file lacks. */
static int wal_without_log(const char *path) {
  unsigned char h[20];
  FILE *f = fopen(path, "rb");
  if (f == NULL) return 0;
  size_t n = fread(h, 1, sizeof h, f);
  fclose(f);
  if (n < sizeof h || memcmp(h, "SQLite format 3", 16) != 0 || h[18] != 2 || h[19] != 2) return 0;
  char *log = sqlite3_mprintf("%s-wal", path);
  struct stat sb;
  int none = log != NULL && (stat(log, &sb) != 0 || sb.st_size == 0);
  sqlite3_free(log);
  return none;
}

/* path as an SQLite URI ("file:" and the path, bytes other than letters, digits and "/._-~"
 * percent-encoded; an absolute path after an empty authority, "file://", so that "//tmp/x"
 * is not read as the authority "tmp") with the query q. */
static char *uri_of(const char *path, const char *q) {
  size_t n = strlen(path);
  char *u = sqlite3_malloc64(n * 3 + strlen(q) + 10);
  if (u == NULL) return NULL;
  char *w = u + sprintf(u, path[0] == '/' ? "file://" : "file:");
  for (const unsigned char *c = (const unsigned char *)path; *c; c++)
    w += isalnum(*c) || strchr("/._-~", *c) ? sprintf(w, "%c", *c) : sprintf(w, "%%%02X", *c);
  sprintf(w, "?%s", q);
  return u;
}

fsim_status fsim_db_open(fsim_db **out, const char *path, int create, fsim_err *e) {
  *out = NULL;
  fsim_status st = fsim_db_check_path(path, create, e);
  if (st != FSIM_OK) return st;
  fsim_db *db = calloc(1, sizeof *db);
  if (db == NULL) return FSIM_ERR(e, FSIM_ENOMEM, "out of memory");
  snprintf(db->path, sizeof db->path, "%s", path);
  /* A reader writes nothing (it opens the file read-only where it may not write it; where it
   * may, SQLite can still roll back what a killed writer left half done).  No journal_mode
   * pragma: the default rollback journal needs no side files that readers would create. */
  int flags = create ? SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE
                     : (access(path, W_OK) == 0 ? SQLITE_OPEN_READWRITE : SQLITE_OPEN_READONLY);
  /* a name starting "file:" is a URI to SQLite where it is built to read them (Debian's is),
   * which would open another file than the one checked above: "./" keeps it a name */
  char *named = sqlite3_mprintf("%s%s", strncmp(path, "file:", 5) == 0 ? "./" : "", path);
  /* a reader that may not write a WAL-mode file (flysim 0.1's) would still leave the log and
   * index beside it, as its own (an audit found them then blocking the owner's tune, and
   * a folder it may not write refusing the read): with nothing in a log to read, the file
   * is read as it is, immutable, which makes no side files */
  if (named != NULL && flags == SQLITE_OPEN_READONLY && wal_without_log(path)) {
    sqlite3_free(named);
    named = uri_of(path, "immutable=1");
    flags |= SQLITE_OPEN_URI;
  }
  int rc = named ? sqlite3_open_v2(named, &db->h, flags, NULL) : SQLITE_NOMEM;
  sqlite3_free(named);
  if (rc != SQLITE_OK) {
    st = db->h ? FSIM_ERR(e, create ? FSIM_EINVAL : FSIM_ENOENT, "--db %s: cannot open: %s", path, sqlite3_errmsg(db->h))
               : FSIM_ERR(e, FSIM_ENOMEM, "--db %s: out of memory", path);
  } else {
    sqlite3_busy_timeout(db->h, 60000);
    if (create && sqlite3_db_readonly(db->h, "main") == 1) {
      st = FSIM_ERR(e, FSIM_EINVAL, "--db %s: cannot write: the file is read-only", path);
    } else if (create) {
      st = prepare_for_writing(db, e);
      /* files of flysim 0.1 before this change use the WAL journal, whose side files a reader
       * would create: turn it back into the rollback journal (when no one else has it open) */
      char mode[16];
      query_text(db->h, "PRAGMA journal_mode;", mode, sizeof mode);
      if (st == FSIM_OK && strcmp(mode, "wal") == 0) sqlite3_exec(db->h, "PRAGMA journal_mode=DELETE;", NULL, NULL, NULL);
    } else {
      /* a reader: an SQLite file with no tables (a run killed before its first commit, an
       * empty file) is an empty database; anything else must be a flysim one */
      /* in one read transaction: a writer's migration (fsim_db_put) is wholly before or after */
      sqlite3_exec(db->h, "BEGIN;", NULL, NULL, NULL);
      int tables = count_tables(db, e);
      if (tables < 0) st = e ? e->code : FSIM_EINVAL;
      else if ((st = check_intact(db, e)) == FSIM_OK) { /* a damaged file is no empty database */
        if (tables == 0) db->empty = 1;
        else st = check_flysim(db, 1, e);
      }
      sqlite3_exec(db->h, "COMMIT;", NULL, NULL, NULL);
    }
  }
  if (st != FSIM_OK) {
    sqlite3_close(db->h);
    free(db);
    return st;
  }
  *out = db;
  return FSIM_OK;
}

void fsim_db_close(fsim_db *db) {
  if (db == NULL) return;
  sqlite3_close(db->h);
  free(db);
}

static void bind_key(sqlite3_stmt *q, const fsim_db_entry *k) {
  sqlite3_bind_text(q, 1, k->arch, -1, SQLITE_TRANSIENT);
  sqlite3_bind_text(q, 2, k->op, -1, SQLITE_TRANSIENT);
  sqlite3_bind_int64(q, 3, k->m);
  sqlite3_bind_int64(q, 4, k->n);
  sqlite3_bind_int64(q, 5, k->k);
  sqlite3_bind_int(q, 6, k->groups);
  sqlite3_bind_text(q, 7, k->a_type, -1, SQLITE_TRANSIENT);
  sqlite3_bind_text(q, 8, k->b_type, -1, SQLITE_TRANSIENT);
  sqlite3_bind_text(q, 9, k->c_type, -1, SQLITE_TRANSIENT);
  sqlite3_bind_text(q, 10, k->layout, -1, SQLITE_TRANSIENT);
}

static fsim_status put(fsim_db *db, const fsim_db_entry *en, int keep_faster,
                       int (*overrule)(const fsim_db_entry *old, void *ctx), void *ctx, int *stored, fsim_err *e) {
  sqlite3_stmt *q = NULL;
  if (stored) *stored = 0;
  /* in a batch, a savepoint: this write undone alone (its migration, when it stores nothing),
   * the batch committed or rolled back whole */
  const char *begin = db->batch ? "SAVEPOINT fsim_put;" : "BEGIN IMMEDIATE;";
  const char *undo = db->batch ? "ROLLBACK TO fsim_put; RELEASE fsim_put;" : "ROLLBACK;";
  const char *done = db->batch ? "RELEASE fsim_put;" : "COMMIT;";
  if (sqlite3_exec(db->h, begin, NULL, NULL, NULL) != SQLITE_OK) return db_err(db, e, "cannot write");
  /* the schema as it is now (another writer may have migrated the file), and a schema-1 file
   * migrated by this write (undone below when the write changes nothing) */
  fsim_status mst = check_flysim(db, 0, e);
  int migrated = mst == FSIM_OK && db->schema == 1;
  if (migrated) mst = migrate_1_to_2(db, e);
  if (mst == FSIM_OK && keep_faster && overrule != NULL) {
    /* the stored entry as it is now, inside this transaction */
    fsim_db_entry old;
    int found = 0;
    fsim_err ge;
    fsim_err_clear(&ge);
    mst = fsim_db_get(db, en, &old, &found, &ge);
    if (mst != FSIM_OK && db->damaged) {
      mst = FSIM_OK; /* a damaged row: the new winner replaces it */
      keep_faster = 0;
    } else if (mst != FSIM_OK) {
      if (e) *e = ge;
    } else if (found && overrule(&old, ctx)) {
      keep_faster = 0;
    }
  }
  if (mst != FSIM_OK) {
    sqlite3_exec(db->h, undo, NULL, NULL, NULL);
    if (migrated) db->schema = 1; /* the file is as it was */
    return mst;
  }
  /* keep_faster: a stored entry of this flysim version stays unless the new one is better:
   * verified (compiled_us) where it was not, or compiling faster where both were, or
   * simulating faster where neither was; a verified entry is not replaced by one that was not.
   * The same config found again takes the new times (a full run's after a sampled one's),
   * unless that would drop its verification. */
  const char *sql = keep_faster ? "INSERT INTO winners VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)"
                                  " ON CONFLICT (arch, op, m, n, k, groups, a_type, b_type, c_type, layout) DO UPDATE SET"
                                  " config = excluded.config, time_us = excluded.time_us, tflops = excluded.tflops,"
                                  " model_us = excluded.model_us, backend = excluded.backend, version = excluded.version,"
                                  " compiled_us = excluded.compiled_us"
                                  " WHERE excluded.version <> winners.version"
                                  " OR (excluded.compiled_us IS NOT NULL AND (winners.compiled_us IS NULL"
                                  " OR excluded.compiled_us < winners.compiled_us))"
                                  " OR (excluded.compiled_us IS NULL AND winners.compiled_us IS NULL"
                                  " AND excluded.time_us < winners.time_us)"
                                  " OR (excluded.config = winners.config"
                                  " AND (excluded.compiled_us IS NOT NULL OR winners.compiled_us IS NULL));"
                                : "INSERT OR REPLACE INTO winners VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?);";
  fsim_status st = FSIM_OK;
  if (sqlite3_prepare_v2(db->h, sql, -1, &q, NULL) != SQLITE_OK) {
    st = db_err(db, e, "cannot write");
  } else {
    bind_key(q, en);
    sqlite3_bind_text(q, 11, en->config, -1, SQLITE_TRANSIENT);
    sqlite3_bind_double(q, 12, en->time_us);
    sqlite3_bind_double(q, 13, en->tflops);
    if (en->model_us > 0)
      sqlite3_bind_double(q, 14, en->model_us);
    else
      sqlite3_bind_null(q, 14);
    sqlite3_bind_text(q, 15, en->backend, -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(q, 16, en->version, -1, SQLITE_TRANSIENT);
    if (en->compiled_us > 0)
      sqlite3_bind_double(q, 17, en->compiled_us);
    else
      sqlite3_bind_null(q, 17);
    int changed = 0;
    if (sqlite3_step(q) != SQLITE_DONE) st = db_err(db, e, "cannot write");
    else changed = sqlite3_changes(db->h) > 0;
    if (stored) *stored = changed;
    /* nothing stored: a schema-1 file stays as it was (the migration is rolled back) */
    if (st == FSIM_OK && !changed && migrated) {
      sqlite3_finalize(q);
      sqlite3_exec(db->h, undo, NULL, NULL, NULL);
      db->schema = 1;
      return FSIM_OK;
    }
  }
  sqlite3_finalize(q);
  if (st == FSIM_OK && sqlite3_exec(db->h, done, NULL, NULL, NULL) != SQLITE_OK) st = db_err(db, e, "cannot commit");
  if (st != FSIM_OK) {
    sqlite3_exec(db->h, undo, NULL, NULL, NULL);
    if (migrated) db->schema = 1;
  }
  return st;
}

fsim_status fsim_db_begin(fsim_db *db, fsim_err *e) {
  if (sqlite3_exec(db->h, "BEGIN IMMEDIATE;", NULL, NULL, NULL) != SQLITE_OK) return db_err(db, e, "cannot write");
  db->batch = 1;
  return FSIM_OK;
}

fsim_status fsim_db_commit(fsim_db *db, fsim_err *e) {
  db->batch = 0;
  if (sqlite3_exec(db->h, "COMMIT;", NULL, NULL, NULL) != SQLITE_OK) {
    fsim_status st = db_err(db, e, "cannot commit");
    sqlite3_exec(db->h, "ROLLBACK;", NULL, NULL, NULL);
    return st;
  }
  return FSIM_OK;
}

void fsim_db_rollback(fsim_db *db) {
  if (db == NULL || !db->batch) return;
  db->batch = 0;
  sqlite3_exec(db->h, "ROLLBACK;", NULL, NULL, NULL);
}

fsim_status fsim_db_put(fsim_db *db, const fsim_db_entry *en, int keep_faster, int *stored, fsim_err *e) {
  return put(db, en, keep_faster, NULL, NULL, stored, e);
}

fsim_status fsim_db_put_unless(fsim_db *db, const fsim_db_entry *en, int (*overrule)(const fsim_db_entry *old, void *ctx),
                               void *ctx, int *stored, fsim_err *e) {
  return put(db, en, 1, overrule, ctx, stored, e);
}

/* A number column: finite, and >= 0 when nonneg is 1, > 0 when it is 2; NULL only where allowed. */
static int number_ok(sqlite3_stmt *q, int col, int null_ok, int nonneg) {
  int t = sqlite3_column_type(q, col);
  if (t == SQLITE_NULL) return null_ok;
  if (t != SQLITE_FLOAT && t != SQLITE_INTEGER) return 0;
  double v = sqlite3_column_double(q, col);
  return isfinite(v) && (nonneg == 0 || v > 0 || (nonneg == 1 && v == 0));
}

/* Reads a winner row; a row that flysim cannot have written (edited by hand, or damaged: a
 * config that is not text, a time that is not a finite number >= 0) is an error naming
 * it, rather than an entry with a missing or made-up value. */
/* A text column flysim writes: no control characters, printable ASCII unless high_ok (a part's
 * name is its file's, whatever its bytes), fitting n bytes with its NUL (empty when empty_ok). */
static int text_ok(sqlite3_stmt *q, int col, size_t n, int empty_ok, int high_ok) {
  if (sqlite3_column_type(q, col) != SQLITE_TEXT) return 0;
  const unsigned char *t = sqlite3_column_text(q, col);
  size_t len = (size_t)sqlite3_column_bytes(q, col);
  if (t == NULL || len >= n || (len == 0 && !empty_ok) || strlen((const char *)t) != len) return 0;
  for (size_t i = 0; i < len; i++)
    if (t[i] < 0x20 || t[i] == 0x7f || (t[i] > 0x7f && !high_ok)) return 0;
  return 1;
}

/* An integer column in [lo, hi]. */
static int int_ok(sqlite3_stmt *q, int col, long long lo, long long hi) {
  if (sqlite3_column_type(q, col) != SQLITE_INTEGER) return 0;
  long long v = sqlite3_column_int64(q, col);
  return v >= lo && v <= hi;
}

/* The key columns flysim writes: a part's printable name, an operator, a shape the commands
 * take, type and layout names. */
static const char *bad_key(sqlite3_stmt *q) {
  fsim_kop op;
  fsim_dtype t;
  fsim_gemm_layout l;
  fsim_db_entry en;
  if (!text_ok(q, 0, sizeof en.arch, 0, 1)) return "its arch is not a part's name";
  if (!text_ok(q, 1, sizeof en.op, 0, 0) || fsim_kop_parse((const char *)sqlite3_column_text(q, 1), &op) != 0)
    return "its op is not an operator";
  for (int c = 2; c <= 4; c++)
    if (!int_ok(q, c, 1, 1LL << 24)) return "its m, n or k is not a whole number from 1 to 2^24";
  if (!int_ok(q, 5, 1, INT32_MAX)) return "its groups is not a whole number >= 1";
  for (int c = 6; c <= 8; c++)
    if (!text_ok(q, c, sizeof en.a_type, 0, 0) || fsim_dtype_parse((const char *)sqlite3_column_text(q, c), &t) != 0)
      return "a type is not a data type";
  if (!text_ok(q, 9, sizeof en.layout, 0, 0) || fsim_gemm_layout_parse((const char *)sqlite3_column_text(q, 9), &l) != 0)
    return "its layout is not TN, NN, NT or TT";
  return NULL;
}

static fsim_status read_row(fsim_db *db, sqlite3_stmt *q, fsim_db_entry *en, fsim_err *e) {
  const char *bad = bad_key(q);
  if (bad) {
    /* a key no command could give: the message cannot name the row by it */
    db->damaged = 1;
    return FSIM_ERR(e, FSIM_EINVAL, "--db %s: a winner row is damaged: %s (flysim did not write it; delete the row)",
                    db->path, bad);
  }
  if (!text_ok(q, 10, sizeof en->config, 1, 0)) bad = "its config is not text";
  else if (!number_ok(q, 11, 0, 1)) bad = "its time_us is not a finite number >= 0";
  else if (!number_ok(q, 12, 1, 0)) bad = "its tflops is not a finite number";
  else if (!number_ok(q, 13, 1, 0)) bad = "its model_us is not a finite number";
  else if (db->schema == 2 && !number_ok(q, 16, 1, 2)) bad = "its compiled_us is not a finite number > 0";
  else if (!text_ok(q, 14, sizeof en->backend, 0, 0)) bad = "its backend is not a name";
  else if (!text_ok(q, 15, sizeof en->version, 0, 0)) bad = "its version is not a name";
  db->damaged = bad != NULL;
  if (bad)
    return FSIM_ERR(e, FSIM_EINVAL, "--db %s: the winner of %s %s %lldx%lldx%lld is damaged: %s", db->path,
                    (const char *)sqlite3_column_text(q, 0), (const char *)sqlite3_column_text(q, 1),
                    (long long)sqlite3_column_int64(q, 2), (long long)sqlite3_column_int64(q, 3),
                    (long long)sqlite3_column_int64(q, 4), bad);
  memset(en, 0, sizeof *en);
  copy_text(en->arch, sizeof en->arch, sqlite3_column_text(q, 0));
  copy_text(en->op, sizeof en->op, sqlite3_column_text(q, 1));
  en->m = sqlite3_column_int64(q, 2);
  en->n = sqlite3_column_int64(q, 3);
  en->k = sqlite3_column_int64(q, 4);
  en->groups = sqlite3_column_int(q, 5);
  copy_text(en->a_type, sizeof en->a_type, sqlite3_column_text(q, 6));
  copy_text(en->b_type, sizeof en->b_type, sqlite3_column_text(q, 7));
  copy_text(en->c_type, sizeof en->c_type, sqlite3_column_text(q, 8));
  copy_text(en->layout, sizeof en->layout, sqlite3_column_text(q, 9));
  copy_text(en->config, sizeof en->config, sqlite3_column_text(q, 10));
  en->time_us = sqlite3_column_double(q, 11);
  en->tflops = sqlite3_column_double(q, 12);
  en->model_us = sqlite3_column_double(q, 13);
  copy_text(en->backend, sizeof en->backend, sqlite3_column_text(q, 14));
  copy_text(en->version, sizeof en->version, sqlite3_column_text(q, 15));
  en->compiled_us = db->schema == 2 ? sqlite3_column_double(q, 16) : 0;
  return FSIM_OK;
}

int fsim_db_damaged(const fsim_db *db) { return db->damaged; }

fsim_status fsim_db_get(fsim_db *db, const fsim_db_entry *key, fsim_db_entry *out, int *found, fsim_err *e) {
  *found = 0;
  db->damaged = 0;
  if (db->empty) return FSIM_OK;
  sqlite3_stmt *q = NULL;
  const char *sql = "SELECT * FROM winners WHERE arch=? AND op=? AND m=? AND n=? AND k=? AND groups=? AND a_type=? "
                    "AND b_type=? AND c_type=? AND layout=?;";
  if (sqlite3_prepare_v2(db->h, sql, -1, &q, NULL) != SQLITE_OK) return db_err(db, e, "cannot read");
  bind_key(q, key);
  int rc = sqlite3_step(q);
  fsim_status st = FSIM_OK;
  if (rc == SQLITE_ROW) {
    st = read_row(db, q, out, e);
    *found = st == FSIM_OK;
  }
  if (st == FSIM_OK && rc != SQLITE_ROW && rc != SQLITE_DONE) st = db_err(db, e, "cannot read");
  sqlite3_finalize(q);
  return st;
}

fsim_status fsim_db_list(fsim_db *db, fsim_db_entry **out, int *n, fsim_err *e) {
  *out = NULL;
  *n = 0;
  db->damaged = 0;
  if (db->empty) return FSIM_OK;
  sqlite3_stmt *q = NULL;
  const char *sql = "SELECT * FROM winners ORDER BY arch, op, a_type, b_type, c_type, layout, groups, m, n, k;";
  if (sqlite3_prepare_v2(db->h, sql, -1, &q, NULL) != SQLITE_OK) return db_err(db, e, "cannot read");
  int cap = 0, rc;
  fsim_status st = FSIM_OK;
  while ((rc = sqlite3_step(q)) == SQLITE_ROW) {
    if (*n == cap) {
      cap = cap ? cap * 2 : 16;
      fsim_db_entry *nv = realloc(*out, (size_t)cap * sizeof *nv);
      if (nv == NULL) {
        st = FSIM_ERR(e, FSIM_ENOMEM, "out of memory");
        break;
      }
      *out = nv;
    }
    if ((st = read_row(db, q, &(*out)[*n], e)) != FSIM_OK) break;
    (*n)++;
  }
  if (st == FSIM_OK && rc != SQLITE_DONE) st = db_err(db, e, "cannot read");
  sqlite3_finalize(q);
  if (st != FSIM_OK) {
    free(*out);
    *out = NULL;
    *n = 0;
  }
  return st;
}
