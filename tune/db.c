/* The tuning database (SQLite): see db.h.  Schema version 1:
 *   meta(key PRIMARY KEY, value)            format = flysim-tuning, schema = 1
 *   winners(arch, op, m, n, k, groups, a_type, b_type, c_type, layout  -- the key
 *           config, time_us, tflops, model_us, backend, version)
 * No timestamps: the same tuning gives the same file contents. */
#include "config.h"

#include "tune/db.h"

#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct fsim_db {
  sqlite3 *h;
  char path[1024];
};

static fsim_status db_err(fsim_db *db, fsim_err *e, const char *what) {
  return FSIM_ERR(e, FSIM_EDB, "--db %s: %s: %s", db->path, what, sqlite3_errmsg(db->h));
}

static const char *schema =
    "CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);"
    "INSERT OR IGNORE INTO meta VALUES ('format', 'flysim-tuning'), ('schema', '1');"
    "CREATE TABLE IF NOT EXISTS winners ("
    " arch TEXT NOT NULL, op TEXT NOT NULL, m INTEGER NOT NULL, n INTEGER NOT NULL, k INTEGER NOT NULL,"
    " groups INTEGER NOT NULL, a_type TEXT NOT NULL, b_type TEXT NOT NULL, c_type TEXT NOT NULL,"
    " layout TEXT NOT NULL, config TEXT NOT NULL, time_us REAL NOT NULL, tflops REAL, model_us REAL,"
    " backend TEXT NOT NULL, version TEXT NOT NULL,"
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

static void copy_text(char *dst, size_t n, const unsigned char *src) {
  snprintf(dst, n, "%s", src ? (const char *)src : "");
}

/* The text of a one-value query, or "" when the query fails or has no row. */
static void query_text(sqlite3 *h, const char *sql, char *out, size_t n) {
  sqlite3_stmt *q = NULL;
  out[0] = '\0';
  if (sqlite3_prepare_v2(h, sql, -1, &q, NULL) == SQLITE_OK && sqlite3_step(q) == SQLITE_ROW)
    copy_text(out, n, sqlite3_column_text(q, 0));
  sqlite3_finalize(q);
}

/* A flysim database of this schema: the meta table names the format and schema 1, and the
 * winners table is there.  with_winners 0 checks the version only (before creating tables). */
static fsim_status check_flysim(fsim_db *db, int with_winners, fsim_err *e) {
  char v[64];
  query_text(db->h, "SELECT value FROM meta WHERE key = 'format';", v, sizeof v);
  if (strcmp(v, "flysim-tuning") != 0) return FSIM_ERR(e, FSIM_EINVAL, "--db %s: not a flysim tuning database", db->path);
  query_text(db->h, "SELECT value FROM meta WHERE key = 'schema';", v, sizeof v);
  if (strcmp(v, "1") != 0)
    return FSIM_ERR(e, FSIM_EINVAL, "--db %s: schema version '%s' is not the one this flysim reads and writes (1)",
                    db->path, v);
  query_text(db->h, "SELECT name FROM sqlite_master WHERE type = 'table' AND name = 'winners';", v, sizeof v);
  if (with_winners && strcmp(v, "winners") != 0)
    return FSIM_ERR(e, FSIM_EINVAL, "--db %s: not a flysim tuning database (it has no winners table)", db->path);
  return FSIM_OK;
}

static int has_tables(sqlite3 *h) {
  char v[8];
  query_text(h, "SELECT count(*) FROM sqlite_master WHERE type = 'table';", v, sizeof v);
  return strcmp(v, "0") != 0;
}

fsim_status fsim_db_open(fsim_db **out, const char *path, int create, fsim_err *e) {
  *out = NULL;
  fsim_db *db = calloc(1, sizeof *db);
  if (db == NULL) return FSIM_ERR(e, FSIM_ENOMEM, "out of memory");
  snprintf(db->path, sizeof db->path, "%s", path);
  int flags = SQLITE_OPEN_READWRITE | (create ? SQLITE_OPEN_CREATE : 0);
  if (sqlite3_open_v2(path, &db->h, flags, NULL) != SQLITE_OK) {
    fsim_status st = db->h ? FSIM_ERR(e, create ? FSIM_EINVAL : FSIM_ENOENT, "--db %s: cannot open: %s", path,
                                      sqlite3_errmsg(db->h))
                           : FSIM_ERR(e, FSIM_ENOMEM, "--db %s: out of memory", path);
    sqlite3_close(db->h);
    free(db);
    return st;
  }
  sqlite3_busy_timeout(db->h, 60000);
  /* a file that is not SQLite fails on its first read */
  char *msg = NULL;
  fsim_status st = FSIM_OK;
  if (sqlite3_exec(db->h, "PRAGMA journal_mode=WAL;", NULL, NULL, &msg) != SQLITE_OK) {
    st = FSIM_ERR(e, FSIM_EINVAL, "--db %s: not a flysim tuning database (%s)", path, msg ? msg : "unreadable");
  } else if (create && foreign(db->h)) {
    st = FSIM_ERR(e, FSIM_EINVAL, "--db %s: not a flysim tuning database (it holds other tables)", path);
  } else if (create && has_tables(db->h) && (st = check_flysim(db, 0, e)) != FSIM_OK) {
    /* another schema version is refused before anything is written into it */
  } else if (create && sqlite3_exec(db->h, "BEGIN IMMEDIATE;", NULL, NULL, &msg) == SQLITE_OK) {
    if (sqlite3_exec(db->h, schema, NULL, NULL, &msg) != SQLITE_OK) {
      st = FSIM_ERR(e, FSIM_EDB, "--db %s: cannot create the tables: %s", path, msg);
      sqlite3_exec(db->h, "ROLLBACK;", NULL, NULL, NULL);
    } else if (sqlite3_exec(db->h, "COMMIT;", NULL, NULL, &msg) != SQLITE_OK) {
      st = FSIM_ERR(e, FSIM_EDB, "--db %s: %s", path, msg);
    }
  } else if (create) {
    st = FSIM_ERR(e, FSIM_EDB, "--db %s: %s", path, msg ? msg : sqlite3_errmsg(db->h));
  }
  sqlite3_free(msg);
  /* a SQLite file of something else, or of another schema version, is refused too */
  if (st == FSIM_OK) st = check_flysim(db, 1, e);
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

fsim_status fsim_db_put(fsim_db *db, const fsim_db_entry *en, fsim_err *e) {
  sqlite3_stmt *q = NULL;
  if (sqlite3_exec(db->h, "BEGIN IMMEDIATE;", NULL, NULL, NULL) != SQLITE_OK) return db_err(db, e, "cannot write");
  const char *sql = "INSERT OR REPLACE INTO winners VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?);";
  fsim_status st = FSIM_OK;
  if (sqlite3_prepare_v2(db->h, sql, -1, &q, NULL) != SQLITE_OK) {
    st = db_err(db, e, "cannot write");
  } else {
    bind_key(q, en);
    sqlite3_bind_text(q, 11, en->config, -1, SQLITE_TRANSIENT);
    sqlite3_bind_double(q, 12, en->time_us);
    sqlite3_bind_double(q, 13, en->tflops);
    sqlite3_bind_double(q, 14, en->model_us);
    sqlite3_bind_text(q, 15, en->backend, -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(q, 16, en->version, -1, SQLITE_TRANSIENT);
    if (sqlite3_step(q) != SQLITE_DONE) st = db_err(db, e, "cannot write");
  }
  sqlite3_finalize(q);
  if (st == FSIM_OK && sqlite3_exec(db->h, "COMMIT;", NULL, NULL, NULL) != SQLITE_OK) st = db_err(db, e, "cannot commit");
  if (st != FSIM_OK) sqlite3_exec(db->h, "ROLLBACK;", NULL, NULL, NULL);
  return st;
}

static void read_row(sqlite3_stmt *q, fsim_db_entry *en) {
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
}

fsim_status fsim_db_get(fsim_db *db, const fsim_db_entry *key, fsim_db_entry *out, int *found, fsim_err *e) {
  *found = 0;
  sqlite3_stmt *q = NULL;
  const char *sql = "SELECT * FROM winners WHERE arch=? AND op=? AND m=? AND n=? AND k=? AND groups=? AND a_type=? "
                    "AND b_type=? AND c_type=? AND layout=?;";
  if (sqlite3_prepare_v2(db->h, sql, -1, &q, NULL) != SQLITE_OK) return db_err(db, e, "cannot read");
  bind_key(q, key);
  int rc = sqlite3_step(q);
  if (rc == SQLITE_ROW) {
    read_row(q, out);
    *found = 1;
  }
  sqlite3_finalize(q);
  if (rc != SQLITE_ROW && rc != SQLITE_DONE) return db_err(db, e, "cannot read");
  return FSIM_OK;
}

fsim_status fsim_db_list(fsim_db *db, fsim_db_entry **out, int *n, fsim_err *e) {
  *out = NULL;
  *n = 0;
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
    read_row(q, &(*out)[(*n)++]);
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
