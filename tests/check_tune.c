/* Tests of tuning (tune/): the analytical model's agreement with the simulator (a stated
 * threshold), deterministic tuning whose winner is the fastest simulated candidate, the
 * SQLite tuning database (round trips, replacement, refusing files that are not one,
 * concurrent writers losing nothing, a writer killed mid-run leaving a valid file), and the
 * predict, tune and db commands (JSON keys of the contract, fallback, errors, stored winners). */
#include "config.h"

#include <check.h>
#include <math.h>
#include <signal.h>
#include <sqlite3.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tests/testutil.h"
#include "kernels/gemm_space.h"
#include "tune/agree.h"
#include "tune/db.h"
#include "tune/predict.h"
#include "tune/suite.h"
#include "util/file.h"

static fsim_arch arch_of(const char *name) {
  fsim_arch a;
  fsim_err e;
  ck_assert_msg(fsim_arch_load(&a, name, &e) == FSIM_OK, "%s", e.msg);
  return a;
}

static fsim_gemm_problem bf16(long long m, long long n, long long k) {
  fsim_gemm_problem pr = {.op = FSIM_KOP_GEMM, .m = m, .n = n, .k = k, .groups = 1, .a = FSIM_DT_BF16,
                          .b = FSIM_DT_BF16, .c = FSIM_DT_BF16, .layout = FSIM_LAYOUT_TN};
  return pr;
}

/* A fresh path for a database in the temporary directory (the file does not exist). */
static const char *db_path(void) {
  const char *p = tu_write_temp("", ".db");
  unlink(p);
  return p;
}

/* The first column of the first row sql gives on the database at path, as text. */
static void sql_is(const char *path, const char *sql, const char *want) {
  sqlite3 *h;
  ck_assert_int_eq(sqlite3_open(path, &h), SQLITE_OK);
  sqlite3_stmt *q;
  ck_assert_int_eq(sqlite3_prepare_v2(h, sql, -1, &q, NULL), SQLITE_OK);
  ck_assert_int_eq(sqlite3_step(q), SQLITE_ROW);
  ck_assert_str_eq((const char *)sqlite3_column_text(q, 0), want);
  sqlite3_finalize(q);
  sqlite3_close(h);
}

/* ---- the model against the simulator ---------------------------------------------------------- */

/* The threshold docs/validation.md states: over configs spread evenly across the model's
 * ranking, Spearman's rank correlation between model and simulator is at least 0.7 and the
 * median relative difference at most 35%, on a compute-bound and a decode problem of the
 * default suite's kind. */
START_TEST(test_model_agrees_with_simulator) {
  fsim_arch a = arch_of("mi355x");
  static const long long shapes[][3] = {{2048, 2048, 2048}, {64, 1280, 8192}};
  for (int i = 0; i < 2; i++) {
    fsim_gemm_problem pr = bf16(shapes[i][0], shapes[i][1], shapes[i][2]);
    static fsim_agreement ag;
    fsim_err e;
    ck_assert_msg(fsim_tune_agreement(&a, &pr, 24, &ag, &e) == FSIM_OK, "%s", e.msg);
    ck_assert_int_eq(ag.n, 24);
    ck_assert_msg(ag.spearman >= 0.7, "%lldx%lldx%lld: Spearman %.3f", pr.m, pr.n, pr.k, ag.spearman);
    ck_assert_msg(ag.median_abs_rel <= 0.35, "%lldx%lldx%lld: median |rel| %.3f", pr.m, pr.n, pr.k,
                  ag.median_abs_rel);
    /* the sample spans the ranking: its first point is the model's best */
    ck_assert_int_eq(ag.pt[0].rank, 0);
    ck_assert_int_eq(ag.pt[23].rank, ag.legal - 1);
  }
}
END_TEST

/* One-stage kernels: the model's iteration (a closed queueing network of the CU's workgroups
 * over compute and memory, estimate.c) lies between the larger of the two and their sum plus
 * the unhidden latency, and grows with each workgroup the CU holds less than linearly. */
START_TEST(test_model_one_stage) {
  fsim_arch a = arch_of("mi300x");
  fsim_gemm_problem pr = bf16(4096, 4096, 4096);
  fsim_gemm_config c;
  fsim_err e;
  ck_assert(fsim_gemm_config_parse("tile=128x64x32,waves=2x1,stages=1,mfma=32x32x8,splitk=1,path=direct,c=lds,"
                                   "remap=1,groupm=0,kind=plain",
                                   &c, &e) == FSIM_OK);
  fsim_schedule s;
  ck_assert_msg(fsim_gemm_schedule_from(&pr, &c, &a, &s, &e) == FSIM_OK, "%s", e.msg);
  static fsim_gemm_plan p;
  ck_assert(fsim_gemm_plan_make(&p, &s, &a, &e) == FSIM_OK);
  fsim_plan_summary sum;
  fsim_estimate est;
  fsim_gemm_summary(&p, &sum);
  ck_assert_int_eq(fsim_model_estimate(&a, &sum, &est), 0);
  ck_assert_int_eq(est.wgs_per_cu, 4);
  double compute = fmax(fmax(est.t_mfma, est.t_lds), est.t_issue);
  double memory = fmax(fmax(est.t_l2, est.t_mall), est.t_dram);
  ck_assert(est.t_iter >= fmax(compute, memory));
  ck_assert(est.t_iter <= compute + memory + 4 * a.issue.barrier_latency + a.lds.latency + est.t_lds +
                               a.memory.dram_latency);
  /* the simulator puts this kernel at 398.2 us (--full; 376.5 on 2026-11-29, L2 76.7% busy,
   * waves 45% in vmcnt waits); the earlier rule, max(compute, memory) plus a quarter of the
   * latency, said 231.  The model (477.2 us) is within the stated agreement threshold, 35% */
  const double clock = a.device.sustained_clock_ghz * 1e9;
  ck_assert_msg(est.cycles > 1.25 * 231.065e-6 * clock, "%.0f cycles", est.cycles);
  ck_assert_msg(fabs(est.cycles / clock - 396.159e-6) <= 0.35 * 396.159e-6, "%.0f cycles", est.cycles);
}
END_TEST

/* ---- tuning ------------------------------------------------------------------------------------ */

/* A K slice of T tiles keeps T + 1 stages busy at most (the prologue issues every tile): with
 * one tile the model times stage counts past two as two (they ranked ahead of it, simulate
 * alike and hold more LDS), the winner has two, and the refinement spends no simulation on a
 * config that differs from a simulated one in its idle stages alone; with two tiles three
 * stages come out ahead of two and four as three.  Where the slice has the tiles (K = 512, 8
 * of 64), a third stage leads further and the model times it shorter (3.407 us against 3.685;
 * a fourth hides no more). */
START_TEST(test_tune_short_k) {
  fsim_arch a = arch_of("mi355x");
  fsim_gemm_problem pr = bf16(64, 64, 64);
  static fsim_tune_result r;
  fsim_err e;
  fsim_tune_opts o = {.refine = 4, .sampled = -1};
  ck_assert_msg(fsim_tune_gemm(&a, &pr, &o, &r, &e) == FSIM_OK, "%s", e.msg);
  ck_assert_ptr_nonnull(strstr(r.cand[r.best].config, ",stages=2,"));
  int simulated = 0;
  for (int i = 0; i < r.ncand; i++) {
    if (r.cand[i].sim_us <= 0) continue;
    simulated++;
    ck_assert_int_le(r.cand[i].stages_used, 2);
    for (int j = 0; j < i; j++) {
      if (r.cand[j].sim_us <= 0) continue;
      /* their configs but for the stages */
      char ci[200], cj[200];
      snprintf(ci, sizeof ci, "%s", r.cand[i].config);
      snprintf(cj, sizeof cj, "%s", r.cand[j].config);
      char *si = strstr(ci, ",stages="), *sj = strstr(cj, ",stages=");
      ck_assert(si && sj);
      si[8] = sj[8] = '*';
      ck_assert_msg(strcmp(ci, cj) != 0, "%s and %s both simulated", r.cand[i].config, r.cand[j].config);
    }
  }
  ck_assert_int_eq(simulated, 4);
  const char *cfg = "tile=16x16x64,waves=1x1,stages=%d,mfma=16x16x32,splitk=1,path=direct,c=direct,remap=1,groupm=0,"
                    "kind=plain";
  static const int ks[] = {64, 128, 512};
  for (size_t ki = 0; ki < sizeof ks / sizeof ks[0]; ki++) {
    const int k = ks[ki];
    double t[3];
    for (int s = 2; s <= 4; s++) {
      char c[200], args[400];
      snprintf(c, sizeof c, cfg, s);
      snprintf(args, sizeof args, "predict gemm 64x64x%d --arch mi355x --mode model --db /nonexistent --json --config %s",
               k, c);
      t[s - 2] = tu_json_number(args, "time_us");
    }
    if (k == 64) {
      ck_assert(t[0] == t[1] && t[1] == t[2]);
    } else if (k == 128) { /* two tiles: three stages issue both in the prologue (2.622 us against
                              2.691; the simulator: 2.882 against 3.159), four no more */
      ck_assert_msg(t[1] < t[0] && t[2] == t[1], "K %d: %g %g %g", k, t[0], t[1], t[2]);
    } else {
      ck_assert_msg(t[1] < t[0] && t[2] <= t[1], "K %d: %g %g %g", k, t[0], t[1], t[2]); /* 3.685, 3.407, 3.407 */
    }
  }
}
END_TEST

START_TEST(test_tune_deterministic) {
  fsim_arch a = arch_of("mi355x");
  fsim_gemm_problem pr = bf16(1024, 1024, 1024);
  static fsim_tune_result r1, r2;
  fsim_err e;
  fsim_tune_opts o = {.refine = 4, .sampled = -1};
  /* the candidates are simulated on threads: one thread or three give the same result */
  setenv("FLYSIM_THREADS", "1", 1);
  ck_assert_msg(fsim_tune_gemm(&a, &pr, &o, &r1, &e) == FSIM_OK, "%s", e.msg);
  setenv("FLYSIM_THREADS", "3", 1);
  ck_assert_msg(fsim_tune_gemm(&a, &pr, &o, &r2, &e) == FSIM_OK, "%s", e.msg);
  unsetenv("FLYSIM_THREADS");
  ck_assert_int_eq(r1.ncand, r2.ncand);
  for (int i = 0; i < r1.ncand; i++) {
    ck_assert_str_eq(r1.cand[i].config, r2.cand[i].config);
    ck_assert(r1.cand[i].sim_us == r2.cand[i].sim_us);
  }
  ck_assert_int_eq(r1.legal, r2.legal);
  ck_assert_int_eq(r1.best, r2.best);
  ck_assert_str_eq(r1.cand[r1.best].config, r2.cand[r2.best].config);
  ck_assert(r1.cand[r1.best].sim_us == r2.cand[r2.best].sim_us);
  /* ranked by the model; the winner is the fastest of the simulated ones */
  for (int i = 1; i < r1.ncand; i++) ck_assert(r1.cand[i - 1].model_us <= r1.cand[i].model_us);
  int simulated = 0;
  for (int i = 0; i < r1.ncand; i++) {
    if (r1.cand[i].sim_us == 0) continue;
    simulated++;
    ck_assert(r1.cand[r1.best].sim_us <= r1.cand[i].sim_us);
  }
  ck_assert_int_eq(simulated, 4);
  ck_assert(r1.cand[0].sim_us > 0); /* the model's best is always simulated */
  /* the threads share the enumeration's chunks: the whole ranking (with its many ties of
   * equal model time, kept in enumeration order) is the same on one thread and on three */
  fsim_tune_candidate *all[2];
  int64_t n[2], tried[2], legal[2], ties = 0;
  for (int k = 0; k < 2; k++) {
    setenv("FLYSIM_THREADS", k == 0 ? "1" : "3", 1);
    ck_assert_msg(fsim_tune_rank(&a, &pr, NULL, &all[k], &n[k], &tried[k], &legal[k], &e) == FSIM_OK, "%s", e.msg);
  }
  unsetenv("FLYSIM_THREADS");
  ck_assert_int_eq(n[0], n[1]);
  ck_assert_int_eq(tried[0], tried[1]);
  ck_assert_int_eq(legal[0], legal[1]);
  ck_assert_int_eq(n[0], 82096);
  for (int64_t i = 0; i < n[0]; i++) {
    ck_assert_str_eq(all[0][i].config, all[1][i].config);
    ck_assert(all[0][i].model_us == all[1][i].model_us);
    ties += i > 0 && all[0][i].model_us == all[0][i - 1].model_us;
  }
  ck_assert_int_gt(ties, 1000);
  free(all[0]);
  free(all[1]);
  /* a fixed key is kept */
  fsim_gemm_config fixed;
  ck_assert(fsim_gemm_config_parse("tile=128x128x64,waves=2x2", &fixed, &e) == FSIM_OK);
  o.fixed = &fixed;
  ck_assert(fsim_tune_gemm(&a, &pr, &o, &r1, &e) == FSIM_OK);
  ck_assert_int_eq(r1.schedule.bm, 128);
  ck_assert_int_eq(r1.schedule.waves_n, 2);
  /* nothing legal within the fixed keys */
  ck_assert(fsim_gemm_config_parse("tile=256x256x256,waves=1x1,stages=4", &fixed, &e) == FSIM_OK);
  ck_assert_int_eq(fsim_tune_gemm(&a, &pr, &o, &r1, &e), FSIM_EINVAL);
  ck_assert_str_eq(e.msg, "--config tile=256x256x256: one stage of 256x256 and 256x256 tiles needs 262144 bytes of "
                         "LDS, more than the 163840 a workgroup may use on MI355X");
}
END_TEST

/* The refinement simulates two distinct tiles among its four: at 2048^3 the model's four best
 * cores (tile, waves, stages, atom, split-K, kind) are all 128x128x128 tiles. */
/* Tunes an MI355X BF16 problem as `flysim tune` does by default (four simulated). */
static void tune_mi355x(long long m, long long n, long long k, fsim_tune_result *r) {
  fsim_arch a = arch_of("mi355x");
  fsim_gemm_problem pr = bf16(m, n, k);
  fsim_err e;
  fsim_tune_opts o = {.refine = 4, .sampled = -1};
  ck_assert_msg(fsim_tune_gemm(&a, &pr, &o, r, &e) == FSIM_OK, "%s", e.msg);
}

START_TEST(test_tune_picks_two_tiles) {
  static fsim_tune_result r;
  tune_mi355x(2048, 2048, 2048, &r);
  char tiles[4][32];
  int ntiles = 0, simulated = 0;
  for (int i = 0; i < r.ncand; i++) {
    if (r.cand[i].sim_us == 0) continue;
    simulated++;
    char t[32];
    snprintf(t, sizeof t, "%.*s", (int)strcspn(r.cand[i].config, ","), r.cand[i].config);
    int seen = 0;
    for (int j = 0; j < ntiles; j++) seen |= strcmp(tiles[j], t) == 0;
    if (!seen && ntiles < 4) snprintf(tiles[ntiles++], sizeof tiles[0], "%s", t);
  }
  ck_assert_int_eq(simulated, 4);
  ck_assert(r.cand[0].sim_us > 0);
  ck_assert_int_eq(ntiles, 2);
  ck_assert_str_eq(tiles[0], "tile=128x128x128");
  /* the first four distinct cores in model order share the tile (what the rule is for) */
  char cores[4][200];
  int ncores = 0;
  for (int i = 0; i < r.ncand && ncores < 4; i++) {
    const char *c = r.cand[i].config, *cut = strstr(c, ",path="), *kind = strstr(c, ",kind=");
    char core[200];
    snprintf(core, sizeof core, "%.*s%s", (int)(cut - c), c, kind);
    int seen = 0;
    for (int j = 0; j < ncores; j++) seen |= strcmp(cores[j], core) == 0;
    if (seen) continue;
    snprintf(cores[ncores++], sizeof cores[0], "%s", core);
    ck_assert_msg(strncmp(core, "tile=128x128x128,", 17) == 0, "%s", core);
  }
}
END_TEST

/* The tuner's candidates put configs whose accumulators fill the AGPR file after all the
 * others (tune.h says why); fsim_tune_rank stays in model order.  FP8 4096^3 on MI355X is a
 * problem where the model's best config is such a one. */
/* A split-K the model puts within 5% of its best is simulated too (tune.c, pick_split_k):
 * 64x8192x3584 on MI355X, whose model ranks four split-K 1 tiles first (13.24-13.28 us; they
 * simulate to 19.2-19.9) and split-K 2 0.7% behind, which simulates fastest.  Without the rule
 * the winner was a split-K 1 tile at 19.188 us. */
START_TEST(test_tune_picks_split_k) {
  static fsim_tune_result r;
  tune_mi355x(64, 8192, 3584, &r);
  ck_assert(strstr(r.cand[0].config, "splitk=1,") != NULL);
  int split = 0, simulated = 0;
  for (int i = 0; i < r.ncand; i++)
    if (r.cand[i].sim_us > 0) simulated++, split += strstr(r.cand[i].config, "splitk=1,") == NULL;
  ck_assert_int_eq(simulated, 4);
  ck_assert_int_eq(split, 1);
  const fsim_tune_candidate *best = &r.cand[r.best];
  ck_assert_msg(strstr(best->config, "splitk=2,") != NULL, "%s", best->config);
  ck_assert_msg(fabs(best->sim_us - 15.045) < 0.0005, "%.4f", best->sim_us);
}
END_TEST

START_TEST(test_tune_agprs_full_last) {
  fsim_arch a = arch_of("mi355x");
  fsim_gemm_problem pr = bf16(4096, 4096, 4096);
  pr.a = pr.b = FSIM_DT_FP8;
  fsim_err e;
  fsim_tune_candidate *all;
  int64_t n, tried, legal, full = 0;
  ck_assert_msg(fsim_tune_rank(&a, &pr, NULL, &all, &n, &tried, &legal, &e) == FSIM_OK, "%s", e.msg);
  for (int64_t i = 0; i < n; i++) {
    full += all[i].agprs_full;
    if (i > 0) ck_assert(all[i - 1].model_us <= all[i].model_us);
  }
  ck_assert_int_eq(full, 1308);
  ck_assert(all[0].agprs_full); /* the model's best fills the file */
  /* the flag is the plan's: 256 accumulator AGPRs, the whole file */
  fsim_gemm_config c;
  fsim_schedule s;
  static fsim_gemm_plan p;
  ck_assert(fsim_gemm_config_parse(all[0].config, &c, &e) == FSIM_OK);
  ck_assert(fsim_gemm_schedule_from(&pr, &c, &a, &s, &e) == FSIM_OK);
  ck_assert_msg(fsim_gemm_plan_make(&p, &s, &a, &e) == FSIM_OK, "%s", e.msg);
  ck_assert_int_eq(p.agprs, a.cu.max_agprs);
  /* the tuner's candidates: the best 64 that leave room, in model order (the model's choice
   * alone here: nothing simulated) */
  static fsim_tune_result r;
  fsim_tune_opts o = {.model_only = 1};
  ck_assert_msg(fsim_tune_gemm(&a, &pr, &o, &r, &e) == FSIM_OK, "%s", e.msg);
  ck_assert_int_eq(r.agprs_full, 1308);
  ck_assert_int_eq(r.ncand, 64);
  int64_t k = 0;
  for (int i = 0; i < r.ncand; i++) {
    while (all[k].agprs_full) k++;
    ck_assert_str_eq(r.cand[i].config, all[k++].config);
  }
  ck_assert_int_eq(r.best, 0);
  ck_assert(fsim_gemm_config_parse(r.cand[0].config, &c, &e) == FSIM_OK);
  ck_assert(fsim_gemm_schedule_from(&pr, &c, &a, &s, &e) == FSIM_OK);
  ck_assert(fsim_gemm_plan_make(&p, &s, &a, &e) == FSIM_OK);
  ck_assert_int_lt(p.agprs, a.cu.max_agprs);
  free(all);
  /* a --config that asks for such a tile still gets it: the rule orders, it forbids nothing */
  fsim_gemm_config fixed;
  ck_assert(fsim_gemm_config_parse("tile=256x256x128,waves=4x1,mfma=32x32x64", &fixed, &e) == FSIM_OK);
  o.fixed = &fixed;
  ck_assert(fsim_tune_gemm(&a, &pr, &o, &r, &e) == FSIM_OK);
  ck_assert_int_gt(r.ncand, 0);
  ck_assert_int_eq(r.agprs_full, r.legal);
  for (int i = 0; i < r.ncand; i++) ck_assert(r.cand[i].agprs_full);
  /* no AGPRs at all (RDNA): nothing is flagged */
  fsim_arch rx = arch_of("rx9070xt");
  pr = bf16(1024, 1024, 1024);
  ck_assert(fsim_tune_rank(&rx, &pr, NULL, &all, &n, &tried, &legal, &e) == FSIM_OK);
  for (int64_t i = 0; i < n; i++) ck_assert(!all[i].agprs_full);
  free(all);
}
END_TEST

START_TEST(test_default_suite) {
  int n;
  const fsim_suite_entry *s = fsim_suite_find("default", &n);
  ck_assert_ptr_nonnull(s);
  ck_assert_int_eq(n, 15);
  int decode = 0, squares = 0, large_k = 0;
  for (int i = 0; i < n; i++) {
    decode += s[i].m <= 64;
    squares += s[i].m == s[i].n && s[i].n == s[i].k;
    large_k += s[i].k >= 14336;
    ck_assert(strlen(s[i].source) > 10);
  }
  ck_assert_int_eq(decode, 6);
  ck_assert_int_eq(squares, 5);
  ck_assert_int_ge(large_k, 3);
  ck_assert_ptr_null(fsim_suite_find("nope", &n));
}
END_TEST

/* ---- the database ------------------------------------------------------------------------------ */

static fsim_db_entry entry(const char *arch, long long m, const char *config, double us) {
  fsim_db_entry en;
  memset(&en, 0, sizeof en);
  snprintf(en.arch, sizeof en.arch, "%s", arch);
  snprintf(en.op, sizeof en.op, "gemm");
  en.m = m, en.n = 4096, en.k = 4096, en.groups = 1;
  strcpy(en.a_type, "bf16");
  strcpy(en.b_type, "bf16");
  strcpy(en.c_type, "bf16");
  strcpy(en.layout, "TN");
  snprintf(en.config, sizeof en.config, "%s", config);
  en.time_us = us;
  en.tflops = 1.0;
  strcpy(en.backend, "flydsl");
  strcpy(en.version, "test");
  return en;
}

/* The root page of the table or index of sqlite_master matching `where`, and the page size. */
static long root_page(const char *path, const char *where, long *page_size) {
  sqlite3 *h;
  sqlite3_stmt *q;
  char sql[200];
  snprintf(sql, sizeof sql, "SELECT rootpage FROM sqlite_master WHERE %s;", where);
  ck_assert_int_eq(sqlite3_open(path, &h), SQLITE_OK);
  ck_assert_int_eq(sqlite3_prepare_v2(h, sql, -1, &q, NULL), SQLITE_OK);
  ck_assert_int_eq(sqlite3_step(q), SQLITE_ROW);
  long page = sqlite3_column_int(q, 0);
  sqlite3_finalize(q);
  ck_assert_int_eq(sqlite3_prepare_v2(h, "PRAGMA page_size;", -1, &q, NULL), SQLITE_OK);
  ck_assert_int_eq(sqlite3_step(q), SQLITE_ROW);
  *page_size = sqlite3_column_int(q, 0);
  sqlite3_finalize(q);
  sqlite3_close(h);
  return page;
}

START_TEST(test_db_round_trip) {
  const char *path = db_path();
  fsim_db *db;
  fsim_err e;
  /* without create, a missing file is an error naming it */
  ck_assert_int_eq(fsim_db_open(&db, path, 0, &e), FSIM_ENOENT);
  ck_assert_ptr_nonnull(strstr(e.msg, path));
  ck_assert(fsim_db_open(&db, path, 1, &e) == FSIM_OK);
  fsim_db_entry a1 = entry("mi355x", 1, "tile=16x16x64", 9.5), got;
  int found;
  ck_assert(fsim_db_put(db, &a1, 0, NULL, &e) == FSIM_OK);
  ck_assert(fsim_db_get(db, &a1, &got, &found, &e) == FSIM_OK);
  ck_assert(found);
  ck_assert_str_eq(got.config, "tile=16x16x64");
  ck_assert(got.time_us == 9.5);
  /* same key: replaced; another key: added */
  fsim_db_entry a2 = entry("mi355x", 1, "tile=32x32x64", 8.0), b = entry("mi300x", 1, "x", 12.0);
  ck_assert(fsim_db_put(db, &a2, 0, NULL, &e) == FSIM_OK);
  ck_assert(fsim_db_put(db, &b, 0, NULL, &e) == FSIM_OK);
  fsim_db_entry *all;
  int n;
  ck_assert(fsim_db_list(db, &all, &n, &e) == FSIM_OK);
  ck_assert_int_eq(n, 2);
  ck_assert_str_eq(all[0].arch, "mi300x"); /* key order */
  ck_assert_str_eq(all[1].config, "tile=32x32x64");
  free(all);
  fsim_db_entry other = entry("mi355x", 2, "", 0);
  ck_assert(fsim_db_get(db, &other, &got, &found, &e) == FSIM_OK);
  ck_assert(!found);
  /* a batch (a suite's winners) is stored whole or not at all: rolled back, neither of its
   * writes is there, and a second connection sees nothing of it before the commit */
  fsim_db_entry c1 = entry("mi350x", 1, "c1", 3.0), c2 = entry("mi350x", 2, "c2", 4.0);
  ck_assert(fsim_db_begin(db, &e) == FSIM_OK);
  ck_assert(fsim_db_put(db, &c1, 0, NULL, &e) == FSIM_OK);
  ck_assert(fsim_db_put(db, &c2, 0, NULL, &e) == FSIM_OK);
  fsim_db_rollback(db);
  ck_assert(fsim_db_list(db, &all, &n, &e) == FSIM_OK);
  ck_assert_int_eq(n, 2);
  free(all);
  ck_assert(fsim_db_begin(db, &e) == FSIM_OK);
  ck_assert(fsim_db_put(db, &c1, 0, NULL, &e) == FSIM_OK);
  ck_assert(fsim_db_put(db, &c2, 0, NULL, &e) == FSIM_OK);
  sqlite3 *peek;
  sqlite3_stmt *q;
  ck_assert_int_eq(sqlite3_open_v2(path, &peek, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
  ck_assert_int_eq(sqlite3_prepare_v2(peek, "SELECT count(*) FROM winners;", -1, &q, NULL), SQLITE_OK);
  ck_assert_int_eq(sqlite3_step(q), SQLITE_ROW);
  ck_assert_int_eq(sqlite3_column_int(q, 0), 2);
  sqlite3_finalize(q);
  ck_assert(fsim_db_commit(db, &e) == FSIM_OK);
  ck_assert_int_eq(sqlite3_prepare_v2(peek, "SELECT count(*) FROM winners;", -1, &q, NULL), SQLITE_OK);
  ck_assert_int_eq(sqlite3_step(q), SQLITE_ROW);
  ck_assert_int_eq(sqlite3_column_int(q, 0), 4);
  sqlite3_finalize(q);
  sqlite3_close(peek);
  fsim_db_close(db);
  /* a text file, and an SQLite file of something else, are refused and left as they were */
  const char *text = tu_write_temp("not a database\n", ".db");
  ck_assert_int_eq(fsim_db_open(&db, text, 1, &e), FSIM_EINVAL);
  char *left = tu_read_file(text);
  ck_assert_str_eq(left, "not a database\n");
  free(left);
  char expect[1100];
  snprintf(expect, sizeof expect, "--db %s: not a flysim tuning database", text);
  ck_assert_ptr_nonnull(strstr(e.msg, expect));
  /* nor is a file shorter than SQLite's header, which SQLite would take for an empty
   * database and write over (an audit found a one-byte file of a newline overwritten) */
  const char *nl = tu_write_temp("\n", ".db");
  for (int create = 0; create < 2; create++) {
    ck_assert_int_eq(fsim_db_open(&db, nl, create, &e), FSIM_EINVAL);
    ck_assert_ptr_nonnull(strstr(e.msg, "not a flysim tuning database (not an SQLite file)"));
  }
  left = tu_read_file(nl);
  ck_assert_str_eq(left, "\n");
  free(left);
  const char *foreign = db_path();
  sqlite3 *h;
  ck_assert_int_eq(sqlite3_open(foreign, &h), SQLITE_OK);
  ck_assert_int_eq(sqlite3_exec(h, "CREATE TABLE t (x); INSERT INTO t VALUES (1);", NULL, NULL, NULL), SQLITE_OK);
  sqlite3_close(h);
  ck_assert_int_eq(fsim_db_open(&db, foreign, 1, &e), FSIM_EINVAL);
  ck_assert_str_eq(strstr(e.msg, "not a flysim"), "not a flysim tuning database (it holds other tables)");
  /* a damaged index (its entry's row id changed: the b-trees are sound, so SQLite's
   * quick_check passed it and tune wrote into it, while db list refused it) is refused too */
  const char *ix = db_path();
  ck_assert(fsim_db_open(&db, ix, 1, &e) == FSIM_OK);
  ck_assert(fsim_db_put(db, &a1, 0, NULL, &e) == FSIM_OK);
  fsim_db_close(db);
  long ipage_size, ipage = root_page(ix, "type = 'index' AND tbl_name = 'winners'", &ipage_size);
  FILE *fi = fopen(ix, "r+b");
  ck_assert_ptr_nonnull(fi);
  /* the page's one cell ends the page; its last byte is the layout's (the key's last column,
   * "TN"; the row id 1 takes no bytes): "TM" leaves a sound b-tree whose key is not the row's */
  ck_assert_int_eq(fseek(fi, ipage * ipage_size - 1, SEEK_SET), 0);
  ck_assert_int_eq(fgetc(fi), 'N');
  ck_assert_int_eq(fseek(fi, ipage * ipage_size - 1, SEEK_SET), 0);
  ck_assert_int_eq(fputc('M', fi), 'M');
  fclose(fi);
  for (int create = 0; create < 2; create++) {
    ck_assert_int_eq(fsim_db_open(&db, ix, create, &e), FSIM_EINVAL);
    ck_assert_ptr_nonnull(strstr(e.msg, "the database is damaged (SQLite's integrity_check: "));
  }
  /* a flysim database damaged inside the winners table's page: refused when opened, to read
   * or to write (before a tune spends its time), in one line, and left as it was */
  ck_assert(fsim_db_open(&db, path, 1, &e) == FSIM_OK);
  fsim_db_close(db);
  long page_size, page = root_page(path, "name = 'winners'", &page_size);
  FILE *f = fopen(path, "r+b");
  ck_assert_ptr_nonnull(f);
  unsigned char junk[40]; /* over the page's cell pointers, past its 8-byte header */
  memset(junk, 0xff, sizeof junk);
  ck_assert_int_eq(fseek(f, (page - 1) * page_size + 8, SEEK_SET), 0);
  ck_assert_int_eq((int)fwrite(junk, 1, sizeof junk, f), (int)sizeof junk);
  fclose(f);
  size_t nbefore, nafter;
  char *before = fsim_file_read(path, &nbefore);
  for (int create = 0; create < 2; create++) {
    ck_assert_int_eq(fsim_db_open(&db, path, create, &e), FSIM_EINVAL);
    ck_assert_ptr_nonnull(strstr(e.msg, "the database is damaged (SQLite's integrity_check: "));
    ck_assert_ptr_null(strchr(e.msg, '\n'));
  }
  char *after = fsim_file_read(path, &nafter);
  ck_assert(nbefore == nafter && memcmp(before, after, nafter) == 0);
  free(before);
  free(after);
}
END_TEST

/* Makes path a new database holding one winner (mi355x, 1x4096x4096, "tile=16x16x64", 9.5 us). */
static void one_winner_db(const char *path) {
  fsim_db *db;
  fsim_err e;
  ck_assert(fsim_db_open(&db, path, 1, &e) == FSIM_OK);
  fsim_db_entry a1 = entry("mi355x", 1, "tile=16x16x64", 9.5);
  ck_assert(fsim_db_put(db, &a1, 0, NULL, &e) == FSIM_OK);
  fsim_db_close(db);
}

/* One winner's database (one_winner_db), then edited by hand with `sql`; returns its path. */
static const char *edited_db(const char *sql) {
  const char *path = db_path();
  one_winner_db(path);
  sqlite3 *h;
  ck_assert_int_eq(sqlite3_open(path, &h), SQLITE_OK);
  ck_assert_int_eq(sqlite3_exec(h, sql, NULL, NULL, NULL), SQLITE_OK);
  sqlite3_close(h);
  return path;
}

/* A row flysim cannot have written (edited by hand: an infinite or negative time, a config
 * stored as a blob) is an error naming it, for get and list, rather than an entry whose JSON
 * lacks time_us (jansson drops non-finite numbers); tune replaces it. */
/* db list --arch: the part and its what-if variants, whether the part is shipped, changed (an
 * edited file: its variants add to its changes) or known by its fingerprint (a file of another
 * name); with --set, the one key.  (An audit found the variants of the last two left out.) */
static int listed(const char *prefix, const char *args) {
  tu_run r = tu_flysim_via(prefix, args);
  ck_assert_msg(r.status == 0, "%s: %s", args, r.err);
  json_t *j = tu_json(&r);
  int n = (int)json_array_size(json_object_get(j, "entries"));
  json_decref(j);
  tu_run_free(&r);
  return n;
}

START_TEST(test_db_list_variants) {
  const char *path = db_path();
  fsim_db *db;
  fsim_err e;
  ck_assert(fsim_db_open(&db, path, 1, &e) == FSIM_OK);
  static const char *const keys[] = {"mi355x", "mi355x[device.cus=240]",
                                     "mi355x[device.cus=240 device.sustained_clock_ghz=1.3]",
                                     "mi355x[device.sustained_clock_ghz=1.3]", "mine#00000000aaaaaaaa",
                                     "mine#00000000bbbbbbbb", "mi300x", "mi355xx"};
  for (int i = 0; i < 8; i++) {
    fsim_db_entry en = entry(keys[i], 64, "c", 1.0);
    ck_assert(fsim_db_put(db, &en, 0, NULL, &e) == FSIM_OK);
  }
  fsim_db_close(db);
  char args[1400], dir[1100], ini[1200], prefix[1200];
  snprintf(args, sizeof args, "db list --db %s --json --arch mi355x", path);
  ck_assert_int_eq(listed("", args), 4);
  snprintf(args, sizeof args, "db list --db %s --json --arch mi355x --set device.sustained_clock_ghz=1.3", path);
  ck_assert_int_eq(listed("", args), 1);
  /* an edited mi355x.ini (240 CUs) found first on FLYSIM_ARCH_PATH, and a copy under another name */
  snprintf(dir, sizeof dir, "%s", tu_write_temp("", ".d"));
  unlink(dir);
  ck_assert_int_eq(mkdir(dir, 0700), 0);
  char *text = tu_read_file(tu_src_path("model/arch/mi355x.ini"));
  char *edited = tu_replace(text, "\ncus = 256", "\ncus = 240");
  snprintf(ini, sizeof ini, "%s/mi355x.ini", dir);
  FILE *f = fopen(ini, "w");
  fputs(edited, f);
  fclose(f);
  snprintf(prefix, sizeof prefix, "FLYSIM_ARCH_PATH='%s'", dir);
  snprintf(args, sizeof args, "db list --db %s --json --arch mi355x", path);
  ck_assert_int_eq(listed(prefix, args), 2);
  unlink(ini);
  snprintf(ini, sizeof ini, "%s/mine.ini", dir);
  f = fopen(ini, "w");
  fputs(text, f);
  fclose(f);
  snprintf(args, sizeof args, "db list --db %s --json --arch %s", path, ini);
  ck_assert_int_eq(listed("", args), 2);
  unlink(ini);
  rmdir(dir);
  free(text);
  free(edited);
  unlink(path);
}
END_TEST

/* A grouped GEMM reads each group's operands once: the next group's A is M x K values on,
 * whatever the layout (an M-contiguous A was placed M x M on, so groups overlapped and NN read
 * less than A and B hold); its split-K, which the wave programs cannot address, is refused. */
START_TEST(test_grouped_layouts) {
  static const char *const layouts[] = {"TN", "NN", "NT", "TT"};
  for (int i = 0; i < 4; i++) {
    char args[600];
    snprintf(args, sizeof args,
             "predict grouped-gemm 256x512x512 --groups 3 --layout %s --arch mi355x --full --json --db /nonexistent "
             "--config tile=128x128x64,waves=2x2,stages=2,mfma=32x32x16,splitk=1,path=registers,c=lds,remap=1,"
             "groupm=0,kind=plain",
             layouts[i]);
    tu_run r = tu_flysim(args);
    ck_assert_msg(r.status == 0, "%s", r.err);
    json_t *j = tu_json(&r);
    json_t *v = json_object_get(json_object_get(json_object_get(j, "simulation"), "memory"), "hbm_read_bytes");
    ck_assert_msg(v != NULL, "%s: no hbm_read_bytes", args);
    ck_assert_int_eq(json_integer_value(v), 3 * (256 + 512) * 512 * 2);
    json_decref(j);
    tu_run_free(&r);
  }
  tu_expect_err("predict grouped-gemm 256x512x512 --groups 3 --arch mi355x --db /nonexistent --config "
                "tile=128x128x64,waves=2x2,stages=2,mfma=32x32x16,splitk=2,path=registers,c=lds,kind=plain",
                2,
                "flysim predict: --config: [tile] split_k: 2 slices of a grouped GEMM are not simulated (the wave "
                "program's addresses are linear in the workgroup's grid coordinates, and z would be group x 2 + "
                "slice); use split_k = 1\n");
}
END_TEST

START_TEST(test_db_damaged_rows) {
  static const struct {
    const char *sql, *why;
  } edits[] = {
      {"UPDATE winners SET time_us = 1e999", "its time_us is not a finite number >= 0"},
      {"UPDATE winners SET time_us = -3", "its time_us is not a finite number >= 0"},
      {"UPDATE winners SET time_us = 'fast'", "its time_us is not a finite number >= 0"},
      {"UPDATE winners SET config = x'00ff'", "its config is not text"},
      {"UPDATE winners SET model_us = -1e999", "its model_us is not a finite number"},
      {"UPDATE winners SET tflops = 'x'", "its tflops is not a finite number"},
      /* flysim writes NULL for a winner that was not verified, never 0 */
      {"UPDATE winners SET compiled_us = 0", "its compiled_us is not a finite number > 0"},
      {"UPDATE winners SET version = char(7)", "its version is not a name"},
  };
  for (size_t i = 0; i < sizeof edits / sizeof edits[0]; i++) {
    const char *path = edited_db(edits[i].sql);
    fsim_db *db;
    fsim_err e;
    fsim_db_entry a1 = entry("mi355x", 1, "tile=16x16x64", 9.5), got, *all;
    int found, n;
    char want[1200];
    snprintf(want, sizeof want, "--db %s: the winner of mi355x gemm 1x4096x4096 is damaged: %s", path, edits[i].why);
    ck_assert(fsim_db_open(&db, path, 1, &e) == FSIM_OK);
    ck_assert_int_eq(fsim_db_get(db, &a1, &got, &found, &e), FSIM_EINVAL);
    ck_assert_str_eq(e.msg, want);
    ck_assert(!found && fsim_db_damaged(db));
    ck_assert_int_eq(fsim_db_list(db, &all, &n, &e), FSIM_EINVAL);
    ck_assert_str_eq(e.msg, want);
    ck_assert(n == 0 && all == NULL && fsim_db_damaged(db));
    /* a writer may replace it (tune does, whatever the stored time) */
    ck_assert(fsim_db_put(db, &a1, 0, NULL, &e) == FSIM_OK);
    ck_assert(fsim_db_get(db, &a1, &got, &found, &e) == FSIM_OK);
    ck_assert(found && !fsim_db_damaged(db) && got.time_us == 9.5);
    fsim_db_close(db);
  }
  /* a damaged key (no command can name the row): list refuses the file, naming the column */
  static const struct {
    const char *sql, *why;
  } keys[] = {
      {"UPDATE winners SET m = -5", "its m, n or k is not a whole number from 1 to 2^24"},
      {"UPDATE winners SET k = 4096.5", "its m, n or k is not a whole number from 1 to 2^24"},
      {"UPDATE winners SET arch = 'a' || char(10) || 'b'", "its arch is not a part's name"},
      {"UPDATE winners SET a_type = 'zzz'", "a type is not a data type"},
      {"UPDATE winners SET layout = 'XY'", "its layout is not TN, NN, NT or TT"},
      {"UPDATE winners SET op = 'conv'", "its op is not an operator"},
      {"UPDATE winners SET groups = 0", "its groups is not a whole number >= 1"},
  };
  for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++) {
    const char *kp = edited_db(keys[i].sql);
    fsim_db *db;
    fsim_err e;
    fsim_db_entry *all;
    int n;
    char want[1200];
    snprintf(want, sizeof want, "--db %s: a winner row is damaged: %s (flysim did not write it; delete the row)", kp,
             keys[i].why);
    ck_assert(fsim_db_open(&db, kp, 0, &e) == FSIM_OK);
    ck_assert_int_eq(fsim_db_list(db, &all, &n, &e), FSIM_EINVAL);
    ck_assert_str_eq(e.msg, want);
    fsim_db_close(db);
  }
  /* the commands: a reader exits 2 in one line; tune replaces the row */
  const char *path = db_path();
  char args[1200];
  snprintf(args, sizeof args, "tune gemm 256x256x256 --arch mi355x --db '%s'", path);
  tu_run r = tu_flysim(args);
  ck_assert_msg(r.status == 0, "%s", r.err);
  tu_run_free(&r);
  sqlite3 *h;
  ck_assert_int_eq(sqlite3_open(path, &h), SQLITE_OK);
  ck_assert_int_eq(sqlite3_exec(h, "UPDATE winners SET time_us = 1e999", NULL, NULL, NULL), SQLITE_OK);
  sqlite3_close(h);
  char want[1300];
  snprintf(want, sizeof want,
           "flysim db: --db %s: the winner of mi355x gemm 256x256x256 is damaged: its time_us is not a finite number >= "
           "0\n",
           path);
  snprintf(args, sizeof args, "db list --db '%s' --json", path);
  r = tu_flysim(args);
  ck_assert_int_eq(r.status, 2);
  ck_assert_str_eq(r.err, want);
  ck_assert_str_eq(r.out, "");
  tu_run_free(&r);
  snprintf(args, sizeof args, "tune gemm 256x256x256 --arch mi355x --db '%s' --json", path);
  r = tu_flysim(args);
  ck_assert_msg(r.status == 0, "%s", r.err);
  json_t *j = tu_json(&r);
  ck_assert(json_is_true(json_object_get(j, "stored")));
  json_decref(j);
  tu_run_free(&r);
  snprintf(args, sizeof args, "db list --db '%s' --json", path);
  r = tu_flysim(args);
  ck_assert_msg(r.status == 0, "%s", r.err);
  j = tu_json(&r);
  json_t *en = json_array_get(json_object_get(j, "entries"), 0);
  ck_assert(json_real_value(json_object_get(en, "time_us")) > 0);
  json_decref(j);
  tu_run_free(&r);
}
END_TEST

/* Winners verified by compiling (tune --compiled: compiled_us > 0) against simulated ones: a
 * verified winner replaces a simulated one whatever their times, is replaced only by a verified
 * one that compiles faster, and a simulated one never replaces it (the pathological 4x1 winner
 * of 4096^3 simulates faster than the 2x2 one but compiles 9% slower). */
START_TEST(test_db_verified_winners) {
  const char *path = db_path();
  fsim_db *db;
  fsim_err e;
  ck_assert(fsim_db_open(&db, path, 1, &e) == FSIM_OK);
  static const struct {
    const char *config;
    double sim_us, compiled_us;
    int stored;
    const char *holds;
  } steps[] = {
      {"sim-10", 10.0, 0, 1, "sim-10"},
      {"ver-11", 11.0, 12.0, 1, "ver-11"},  /* verified beats simulated, though slower */
      {"sim-9", 9.0, 0, 0, "ver-11"},       /* simulated never replaces verified */
      {"ver-9", 9.0, 13.0, 0, "ver-11"},    /* verified, compiles slower */
      {"ver-12", 12.0, 11.5, 1, "ver-12"},  /* verified, compiles faster */
  };
  for (size_t i = 0; i < sizeof steps / sizeof steps[0]; i++) {
    fsim_db_entry en = entry("mi355x", 1, steps[i].config, steps[i].sim_us), got;
    en.compiled_us = steps[i].compiled_us;
    int stored, found;
    ck_assert(fsim_db_put(db, &en, 1, &stored, &e) == FSIM_OK);
    ck_assert_msg(stored == steps[i].stored, "step %zu: stored %d", i, stored);
    ck_assert(fsim_db_get(db, &en, &got, &found, &e) == FSIM_OK && found);
    ck_assert_str_eq(got.config, steps[i].holds);
  }
  fsim_db_entry en = entry("mi355x", 1, "x", 1.0), got;
  int found;
  ck_assert(fsim_db_get(db, &en, &got, &found, &e) == FSIM_OK);
  ck_assert(got.compiled_us == 11.5 && got.time_us == 12.0);
  /* another flysim version's verified winner is replaced by a simulated one */
  sqlite3 *h;
  ck_assert_int_eq(sqlite3_open(path, &h), SQLITE_OK);
  ck_assert_int_eq(sqlite3_exec(h, "UPDATE winners SET version = '0.0.1'", NULL, NULL, NULL), SQLITE_OK);
  sqlite3_close(h);
  int stored;
  en = entry("mi355x", 1, "sim-20", 20.0);
  ck_assert(fsim_db_put(db, &en, 1, &stored, &e) == FSIM_OK);
  ck_assert(stored);
  ck_assert(fsim_db_get(db, &en, &got, &found, &e) == FSIM_OK);
  ck_assert(got.compiled_us == 0);
  fsim_db_close(db);
}
END_TEST

/* 1 when the file at path holds exactly the n bytes at want. */
static int same_bytes(const char *path, const char *want, size_t n) {
  size_t got_n;
  char *got = fsim_file_read(path, &got_n);
  int same = got != NULL && got_n == n && memcmp(got, want, n) == 0;
  free(got);
  return same;
}

/* A file of flysim 0.3 and before (schema 1: no compiled_us column) is read as it is, left as
 * it is by a writer that stores nothing, and gets the column, its rows kept, at the first
 * write; a schema-1 file whose table is not schema 1's is refused, not migrated. */
START_TEST(test_db_schema_1) {
  const char *path = db_path();
  sqlite3 *h;
  ck_assert_int_eq(sqlite3_open(path, &h), SQLITE_OK);
  ck_assert_int_eq(
      sqlite3_exec(h,
                   "CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);"
                   "INSERT INTO meta VALUES ('format', 'flysim-tuning'), ('schema', '1');"
                   "CREATE TABLE winners (arch TEXT NOT NULL, op TEXT NOT NULL, m INTEGER NOT NULL, n INTEGER NOT NULL,"
                   " k INTEGER NOT NULL, groups INTEGER NOT NULL, a_type TEXT NOT NULL, b_type TEXT NOT NULL,"
                   " c_type TEXT NOT NULL, layout TEXT NOT NULL, config TEXT NOT NULL, time_us REAL NOT NULL,"
                   " tflops REAL, model_us REAL, backend TEXT NOT NULL, version TEXT NOT NULL,"
                   " PRIMARY KEY (arch, op, m, n, k, groups, a_type, b_type, c_type, layout));"
                   "INSERT INTO winners VALUES ('mi355x', 'gemm', 1, 4096, 4096, 1, 'bf16', 'bf16', 'bf16', 'TN',"
                   " 'old', 5.0, 1.0, NULL, 'flydsl', '0.3.0');",
                   NULL, NULL, NULL),
      SQLITE_OK);
  sqlite3_close(h);
  size_t n0;
  char *before = fsim_file_read(path, &n0);
  fsim_db *db;
  fsim_err e;
  fsim_db_entry *all, got;
  int n, found;
  ck_assert(fsim_db_open(&db, path, 0, &e) == FSIM_OK); /* a reader changes nothing */
  ck_assert(fsim_db_list(db, &all, &n, &e) == FSIM_OK);
  ck_assert(n == 1 && strcmp(all[0].config, "old") == 0 && all[0].compiled_us == 0);
  free(all);
  fsim_db_close(db);
  ck_assert(same_bytes(path, before, n0));
  ck_assert(fsim_db_open(&db, path, 1, &e) == FSIM_OK); /* a writer that stores nothing */
  fsim_db_close(db);
  ck_assert(same_bytes(path, before, n0));
  /* a write that stores nothing (a slower winner of the stored one's version) leaves it too */
  ck_assert(fsim_db_open(&db, path, 1, &e) == FSIM_OK);
  fsim_db_entry slower = entry("mi355x", 1, "slower", 6.0);
  strcpy(slower.version, "0.3.0");
  int stored = -1;
  ck_assert(fsim_db_put(db, &slower, 1, &stored, &e) == FSIM_OK);
  ck_assert_int_eq(stored, 0);
  ck_assert(fsim_db_get(db, &slower, &got, &found, &e) == FSIM_OK && found);
  ck_assert_str_eq(got.config, "old");
  fsim_db_close(db);
  ck_assert(same_bytes(path, before, n0));
  free(before);
  sql_is(path, "SELECT value FROM meta WHERE key = 'schema';", "1");
  ck_assert(fsim_db_open(&db, path, 1, &e) == FSIM_OK);
  fsim_db_entry en = entry("mi355x", 1, "new", 4.0);
  en.compiled_us = 4.5;
  ck_assert(fsim_db_get(db, &en, &got, &found, &e) == FSIM_OK && found);
  ck_assert_str_eq(got.config, "old");
  ck_assert(fsim_db_put(db, &en, 1, NULL, &e) == FSIM_OK);
  ck_assert(fsim_db_get(db, &en, &got, &found, &e) == FSIM_OK && found);
  ck_assert(strcmp(got.config, "new") == 0 && got.compiled_us == 4.5);
  fsim_db_close(db);
  sql_is(path, "SELECT value FROM meta WHERE key = 'schema';", "2");
  sql_is(path, "SELECT count(*) FROM pragma_table_info('winners');", "17");
  /* schema '1' on a table that already has 17 columns: refused by the writer too */
  ck_assert_int_eq(sqlite3_open(path, &h), SQLITE_OK);
  ck_assert_int_eq(sqlite3_exec(h, "UPDATE meta SET value = '1' WHERE key = 'schema';", NULL, NULL, NULL), SQLITE_OK);
  sqlite3_close(h);
  char want[1200];
  snprintf(want, sizeof want, "--db %s: not a flysim tuning database (its winners table has 17 columns, not 16)", path);
  for (int create = 0; create < 2; create++) {
    ck_assert_int_eq(fsim_db_open(&db, path, create, &e), FSIM_EINVAL);
    ck_assert_str_eq(e.msg, want);
  }
}
END_TEST

/* fsim_db_put_unless judges the stored winner inside its write: one the caller's test overrules
 * (a config no longer legal) is replaced even by a slower winner, but a better one another
 * writer stored since is kept (tune once read the row first and then replaced it blindly). */
static int overrule_illegal(const fsim_db_entry *old, void *ctx) {
  (void)ctx;
  return strcmp(old->config, "illegal") == 0;
}

START_TEST(test_db_put_unless) {
  const char *path = db_path();
  fsim_db *db;
  fsim_err e;
  ck_assert(fsim_db_open(&db, path, 1, &e) == FSIM_OK);
  fsim_db_entry illegal = entry("mi355x", 1, "illegal", 0.5), better = entry("mi355x", 1, "better", 3.305),
                mine = entry("mi355x", 1, "mine", 3.328), got;
  int stored = -1, found;
  ck_assert(fsim_db_put(db, &illegal, 0, NULL, &e) == FSIM_OK);
  ck_assert(fsim_db_put_unless(db, &mine, overrule_illegal, NULL, &stored, &e) == FSIM_OK);
  ck_assert_int_eq(stored, 1); /* the illegal row goes, although it was faster */
  ck_assert(fsim_db_put(db, &illegal, 0, NULL, &e) == FSIM_OK);
  ck_assert(fsim_db_put(db, &better, 0, NULL, &e) == FSIM_OK); /* another tuner, in between */
  ck_assert(fsim_db_put_unless(db, &mine, overrule_illegal, NULL, &stored, &e) == FSIM_OK);
  ck_assert_int_eq(stored, 0);
  ck_assert(fsim_db_get(db, &mine, &got, &found, &e) == FSIM_OK && found);
  ck_assert_str_eq(got.config, "better");
  fsim_db_close(db);
}
END_TEST

/* A winner's version carries a fingerprint of the part's values: a shipped file edited in
 * place keeps its name and key, and the next tune then replaces the winner found with the old
 * values (as another version's) instead of keeping its time, found for another part (an
 * audit's lds.latency edit kept 3.333 us against the edited part's 4.043). */
START_TEST(test_db_version_fingerprint) {
  fsim_arch a = arch_of("mi355x"), b = a;
  fsim_err e;
  ck_assert(fsim_arch_set(&b, "lds.latency=400", &e) == FSIM_OK);
  fsim_gemm_problem pr = {.op = FSIM_KOP_GEMM, .m = 256, .n = 256, .k = 256, .groups = 1, .a = FSIM_DT_BF16,
                          .b = FSIM_DT_BF16, .c = FSIM_DT_BF16, .layout = FSIM_LAYOUT_TN};
  fsim_db_entry x, y, z;
  fsim_predict_db_entry(&a, &pr, "cfg", "flydsl", 3.0, 1.0, 2.0, &x);
  fsim_predict_db_entry(&b, &pr, "cfg", "flydsl", 3.0, 1.0, 2.0, &y);
  fsim_predict_db_entry(&a, &pr, "cfg", "flydsl", 3.0, 1.0, 2.0, &z);
  ck_assert_str_eq(x.version, z.version);
  ck_assert_str_ne(x.version, y.version);
  ck_assert(strncmp(x.version, PACKAGE_VERSION "#", strlen(PACKAGE_VERSION) + 1) == 0);
  /* stored under one key, the other values' winner replaces the faster one */
  strcpy(y.arch, x.arch);
  y.time_us = 4.0;
  const char *path = db_path();
  fsim_db *db;
  int stored = 0, found = 0;
  ck_assert(fsim_db_open(&db, path, 1, &e) == FSIM_OK);
  ck_assert(fsim_db_put(db, &x, 1, &stored, &e) == FSIM_OK && stored);
  strcpy(y.config, "other");
  ck_assert(fsim_db_put(db, &y, 1, &stored, &e) == FSIM_OK && stored);
  fsim_db_entry got;
  ck_assert(fsim_db_get(db, &x, &got, &found, &e) == FSIM_OK && found);
  ck_assert_str_eq(got.config, "other");
  fsim_db_close(db);
}
END_TEST

/* A search of part of the space (keep_faster) replaces a stored winner only with a faster one
 * or one of another flysim version; a full search always replaces it. */
START_TEST(test_db_keep_faster) {
  const char *path = db_path();
  fsim_db *db;
  fsim_err e;
  ck_assert(fsim_db_open(&db, path, 1, &e) == FSIM_OK);
  fsim_db_entry fast = entry("mi355x", 1, "fast", 3.0), slow = entry("mi355x", 1, "slow", 4.0), got;
  int stored = -1, found;
  ck_assert(fsim_db_put(db, &fast, 1, &stored, &e) == FSIM_OK);
  ck_assert_int_eq(stored, 1); /* nothing there yet */
  ck_assert(fsim_db_put(db, &slow, 1, &stored, &e) == FSIM_OK);
  ck_assert_int_eq(stored, 0);
  ck_assert(fsim_db_get(db, &slow, &got, &found, &e) == FSIM_OK);
  ck_assert_str_eq(got.config, "fast");
  strcpy(slow.version, "other");
  ck_assert(fsim_db_put(db, &slow, 1, &stored, &e) == FSIM_OK);
  ck_assert_int_eq(stored, 1);
  ck_assert(fsim_db_get(db, &slow, &got, &found, &e) == FSIM_OK);
  ck_assert_str_eq(got.config, "slow");
  ck_assert(fsim_db_put(db, &fast, 1, &stored, &e) == FSIM_OK); /* faster, other version again */
  ck_assert_int_eq(stored, 1);
  /* the same config found again takes the new time, slower or not (a full run after a
   * sampled one), unless that would drop its verification */
  fsim_db_entry again = entry("mi355x", 1, "fast", 3.5);
  ck_assert(fsim_db_put(db, &again, 1, &stored, &e) == FSIM_OK);
  ck_assert_int_eq(stored, 1);
  ck_assert(fsim_db_get(db, &again, &got, &found, &e) == FSIM_OK);
  ck_assert(got.time_us == 3.5);
  again.compiled_us = 3.8;
  ck_assert(fsim_db_put(db, &again, 1, &stored, &e) == FSIM_OK);
  ck_assert_int_eq(stored, 1);
  fsim_db_entry unverified = entry("mi355x", 1, "fast", 3.2);
  ck_assert(fsim_db_put(db, &unverified, 1, &stored, &e) == FSIM_OK);
  ck_assert_int_eq(stored, 0);
  ck_assert(fsim_db_get(db, &unverified, &got, &found, &e) == FSIM_OK);
  ck_assert(got.time_us == 3.5 && got.compiled_us == 3.8);
  slow = entry("mi355x", 1, "slow", 4.0);
  ck_assert(fsim_db_put(db, &slow, 0, &stored, &e) == FSIM_OK);
  ck_assert_int_eq(stored, 1);
  ck_assert(fsim_db_get(db, &slow, &got, &found, &e) == FSIM_OK);
  ck_assert_str_eq(got.config, "slow");
  /* no model estimate (a fallback) is stored as NULL and read as 0 */
  ck_assert(got.model_us == 0);
  fsim_db_close(db);
  sql_is(path, "SELECT model_us IS NULL FROM winners;", "1");
}
END_TEST

/* Readers write nothing: an empty file or an SQLite file without tables (a writer killed before
 * its first commit) is an empty database, left as it is; another program's database is refused
 * and left byte for byte, journal mode included.  Paths SQLite would take for something else
 * are refused by name. */
START_TEST(test_db_readers_write_nothing) {
  fsim_db *db;
  fsim_err e;
  const char *empty = tu_write_temp("", ".db");
  ck_assert(fsim_db_open(&db, empty, 0, &e) == FSIM_OK);
  fsim_db_entry *all, key = entry("mi355x", 1, "", 0), got;
  int n = -1, found = -1;
  ck_assert(fsim_db_list(db, &all, &n, &e) == FSIM_OK);
  ck_assert_int_eq(n, 0);
  ck_assert(fsim_db_get(db, &key, &got, &found, &e) == FSIM_OK);
  ck_assert_int_eq(found, 0);
  fsim_db_close(db);
  struct stat sb;
  ck_assert_int_eq(stat(empty, &sb), 0);
  ck_assert_int_eq((int)sb.st_size, 0);
  const char *wal = db_path();
  sqlite3 *h;
  ck_assert_int_eq(sqlite3_open(wal, &h), SQLITE_OK);
  ck_assert_int_eq(sqlite3_exec(h, "PRAGMA journal_mode=WAL;", NULL, NULL, NULL), SQLITE_OK);
  sqlite3_close(h);
  ck_assert(fsim_db_open(&db, wal, 0, &e) == FSIM_OK);
  ck_assert(fsim_db_list(db, &all, &n, &e) == FSIM_OK);
  ck_assert_int_eq(n, 0);
  fsim_db_close(db);
  char side[1100];
  snprintf(side, sizeof side, "%s-wal", wal);
  ck_assert_int_ne(access(side, F_OK), 0); /* a reader leaves no side files */
  snprintf(side, sizeof side, "%s-shm", wal);
  ck_assert_int_ne(access(side, F_OK), 0);
  /* a writer takes it, and turns the WAL journal (flysim's before) into the rollback one */
  ck_assert(fsim_db_open(&db, wal, 1, &e) == FSIM_OK);
  fsim_db_close(db);
  sql_is(wal, "PRAGMA journal_mode;", "delete");
  const char *foreign = db_path();
  ck_assert_int_eq(sqlite3_open(foreign, &h), SQLITE_OK);
  ck_assert_int_eq(sqlite3_exec(h, "CREATE TABLE people (name); INSERT INTO people VALUES ('a');", NULL, NULL, NULL),
                   SQLITE_OK);
  sqlite3_close(h);
  char *before = tu_read_file(foreign);
  ck_assert_int_eq(stat(foreign, &sb), 0);
  off_t size = sb.st_size;
  ck_assert_int_eq(fsim_db_open(&db, foreign, 0, &e), FSIM_EINVAL);
  ck_assert_int_eq(stat(foreign, &sb), 0);
  ck_assert_int_eq((int)sb.st_size, (int)size);
  char *after = tu_read_file(foreign);
  ck_assert(memcmp(before, after, (size_t)size) == 0);
  free(before);
  free(after);
  snprintf(side, sizeof side, "%s-wal", foreign);
  ck_assert_int_ne(access(side, F_OK), 0);
  /* names SQLite keeps in memory, directories, paths through a file */
  ck_assert_int_eq(fsim_db_open(&db, ":memory:", 1, &e), FSIM_EINVAL);
  ck_assert_ptr_nonnull(strstr(e.msg, "in memory"));
  ck_assert_int_eq(fsim_db_open(&db, "/tmp", 1, &e), FSIM_EINVAL);
  ck_assert_str_eq(e.msg, "--db /tmp: is a directory");
  /* a folder's name for a file not there yet: SQLite would create "fresh" */
  char fresh[1100];
  snprintf(fresh, sizeof fresh, "%s.d/", foreign);
  ck_assert_int_eq(fsim_db_open(&db, fresh, 1, &e), FSIM_EINVAL);
  ck_assert_ptr_nonnull(strstr(e.msg, "names a directory, not a file"));
  fresh[strlen(fresh) - 1] = '\0';
  ck_assert_int_ne(access(fresh, F_OK), 0);
  char through[1100];
  snprintf(through, sizeof through, "%s/x.db", foreign);
  ck_assert_int_eq(fsim_db_open(&db, through, 1, &e), FSIM_EINVAL);
  ck_assert_ptr_nonnull(strstr(e.msg, "Not a directory"));
}
END_TEST

/* Four processes write 25 entries each into one file at once: all 100 are there. */
START_TEST(test_db_concurrent_writers) {
  const char *path = db_path();
  fsim_db *db;
  fsim_err e;
  ck_assert(fsim_db_open(&db, path, 1, &e) == FSIM_OK);
  fsim_db_close(db);
  pid_t kids[4];
  for (int w = 0; w < 4; w++) {
    kids[w] = fork();
    ck_assert(kids[w] >= 0);
    if (kids[w] == 0) {
      fsim_db *d;
      fsim_err ce;
      if (fsim_db_open(&d, path, 1, &ce) != FSIM_OK) _exit(10);
      for (int i = 0; i < 25; i++) {
        fsim_db_entry en = entry("mi355x", 1000 * (w + 1) + i, "cfg", i);
        if (fsim_db_put(d, &en, 0, NULL, &ce) != FSIM_OK) _exit(11);
      }
      fsim_db_close(d);
      _exit(0);
    }
  }
  for (int w = 0; w < 4; w++) {
    int status;
    ck_assert(waitpid(kids[w], &status, 0) == kids[w]);
    ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0, "writer %d failed (%d)", w, status);
  }
  ck_assert(fsim_db_open(&db, path, 0, &e) == FSIM_OK);
  fsim_db_entry *all;
  int n;
  ck_assert(fsim_db_list(db, &all, &n, &e) == FSIM_OK);
  ck_assert_int_eq(n, 100);
  free(all);
  fsim_db_close(db);
}
END_TEST

/* A writer killed (SIGKILL) in the middle of its run leaves a valid database holding whole
 * entries only. */
START_TEST(test_db_killed_writer) {
  const char *path = db_path();
  fsim_db *db;
  fsim_err e;
  ck_assert(fsim_db_open(&db, path, 1, &e) == FSIM_OK);
  fsim_db_close(db);
  int ready[2];
  ck_assert(pipe(ready) == 0);
  pid_t kid = fork();
  ck_assert(kid >= 0);
  if (kid == 0) {
    fsim_db *d;
    fsim_err ce;
    if (fsim_db_open(&d, path, 1, &ce) != FSIM_OK) _exit(10);
    for (long long i = 0;; i++) {
      fsim_db_entry en = entry("mi355x", i + 1, "tile=256x256x64,waves=2x4,stages=2", (double)i);
      if (fsim_db_put(d, &en, 0, NULL, &ce) != FSIM_OK) _exit(11);
      if (i == 20 && write(ready[1], "x", 1) != 1) _exit(12);
    }
  }
  char c;
  ck_assert(read(ready[0], &c, 1) == 1);
  usleep(20000);
  kill(kid, SIGKILL);
  int status;
  waitpid(kid, &status, 0);
  ck_assert(WIFSIGNALED(status));
  close(ready[0]);
  close(ready[1]);
  sql_is(path, "PRAGMA integrity_check;", "ok");
  ck_assert(fsim_db_open(&db, path, 0, &e) == FSIM_OK);
  fsim_db_entry *all;
  int n;
  ck_assert(fsim_db_list(db, &all, &n, &e) == FSIM_OK);
  ck_assert_int_ge(n, 21);
  /* entries 1..n, each whole */
  for (int i = 0; i < n; i++) {
    ck_assert_str_eq(all[i].config, "tile=256x256x64,waves=2x4,stages=2");
    ck_assert(all[i].time_us == (double)(all[i].m - 1));
  }
  free(all);
  fsim_db_close(db);
  /* the next writer rolls back what the killed one left half done: its hot journal goes (the
   * tests left such journals in TMPDIR) */
  ck_assert(fsim_db_open(&db, path, 1, &e) == FSIM_OK);
  fsim_db_entry en = entry("mi355x", 1, "tile=256x256x64,waves=2x4,stages=2", 0);
  ck_assert(fsim_db_put(db, &en, 0, NULL, &e) == FSIM_OK);
  fsim_db_close(db);
  char journal[600];
  snprintf(journal, sizeof journal, "%s-journal", path);
  ck_assert_int_ne(access(journal, F_OK), 0);
}
END_TEST

/* A writer killed while creating a new file, after SQLite spilled pages to it but before page 1
 * (zeros there, a hot journal beside it), leaves what SQLite rolls back to an empty file on
 * opening.  flysim refused it as not an SQLite file until 2026-12-01, for readers and writers
 * alike.  The state is made here by copying a new file and its journal in mid-transaction. */
START_TEST(test_db_killed_creator) {
  const char *live = db_path(), *path = db_path();
  sqlite3 *h;
  ck_assert_int_eq(sqlite3_open(live, &h), SQLITE_OK);
  ck_assert_int_eq(sqlite3_exec(h,
                                "PRAGMA cache_size=1; BEGIN IMMEDIATE; CREATE TABLE t (x TEXT);"
                                "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 2000) "
                                "INSERT INTO t SELECT printf('%0200d', i) FROM n;",
                                NULL, NULL, NULL),
                   SQLITE_OK);
  char from[1100], to[1100];
  for (int j = 0; j < 2; j++) {
    snprintf(from, sizeof from, "%s%s", live, j ? "-journal" : "");
    snprintf(to, sizeof to, "%s%s", path, j ? "-journal" : "");
    char *bytes = tu_read_file(from);
    struct stat sb;
    ck_assert_int_eq(stat(from, &sb), 0);
    ck_assert_int_gt((int)sb.st_size, j ? 0 : 4096);
    FILE *f = fopen(to, "wb");
    ck_assert_ptr_nonnull(f);
    ck_assert_int_eq((int)fwrite(bytes, 1, (size_t)sb.st_size, f), (int)sb.st_size);
    fclose(f);
    if (j == 0) {
      /* the state the test is about: page 1 not written yet */
      static const char zeros[100];
      ck_assert(memcmp(bytes, zeros, sizeof zeros) == 0);
    }
    free(bytes);
  }
  sqlite3_exec(h, "ROLLBACK;", NULL, NULL, NULL);
  sqlite3_close(h);
  fsim_db *db;
  fsim_err e;
  /* a reader: rolled back, an empty database */
  ck_assert_msg(fsim_db_open(&db, path, 0, &e) == FSIM_OK, "%s", e.msg);
  fsim_db_entry *all;
  int n = -1;
  ck_assert(fsim_db_list(db, &all, &n, &e) == FSIM_OK);
  ck_assert_int_eq(n, 0);
  fsim_db_close(db);
  struct stat sb;
  ck_assert_int_eq(stat(path, &sb), 0);
  ck_assert_int_eq((int)sb.st_size, 0);
  ck_assert_int_ne(access(to, F_OK), 0); /* the journal is gone */
  /* a writer takes it */
  ck_assert(fsim_db_open(&db, path, 1, &e) == FSIM_OK);
  fsim_db_entry en = entry("mi355x", 7, "cfg", 1.5), got;
  int found = 0;
  ck_assert(fsim_db_put(db, &en, 0, NULL, &e) == FSIM_OK);
  ck_assert(fsim_db_get(db, &en, &got, &found, &e) == FSIM_OK);
  ck_assert_int_eq(found, 1);
  fsim_db_close(db);
  sql_is(path, "PRAGMA integrity_check;", "ok");
  /* zeros at the start with no journal, or an empty one, are still no database */
  const char *zeroed = tu_write_temp("", ".db");
  FILE *f = fopen(zeroed, "wb");
  ck_assert_ptr_nonnull(f);
  for (int i = 0; i < 8192; i++) fputc(0, f);
  fclose(f);
  ck_assert_int_eq(fsim_db_open(&db, zeroed, 0, &e), FSIM_EINVAL);
  snprintf(to, sizeof to, "%s-journal", zeroed);
  f = fopen(to, "wb");
  ck_assert_ptr_nonnull(f);
  fclose(f);
  ck_assert_int_eq(fsim_db_open(&db, zeroed, 1, &e), FSIM_EINVAL);
  ck_assert_ptr_nonnull(strstr(e.msg, "not an SQLite file"));
  unlink(to);
  /* a file that is not one, with a journal beside it, is refused before SQLite sees it (it
   * would delete a journal it cannot read: a reviewer's notes.db-journal went) */
  const char *notes = tu_write_temp("some notes, not a database\n", ".db");
  snprintf(to, sizeof to, "%s-journal", notes);
  f = fopen(to, "wb");
  ck_assert_ptr_nonnull(f);
  fputs("garbage\n", f);
  fclose(f);
  ck_assert_int_eq(fsim_db_open(&db, notes, 0, &e), FSIM_EINVAL);
  ck_assert_int_eq(fsim_db_open(&db, notes, 1, &e), FSIM_EINVAL);
  ck_assert_int_eq(access(to, F_OK), 0);
  unlink(to);
}
END_TEST

/* The outputs being written are remembered for the command's signal handler, which removes
 * their temporary files (docs/cli.md): an open one goes, a committed one stays. */
START_TEST(test_file_out_pending) {
  char dir[] = "/tmp/check-tune-out-XXXXXX";
  ck_assert(mkdtemp(dir) != NULL);
  char path[64], path2[64];
  snprintf(path, sizeof path, "%s/a.json", dir);
  snprintf(path2, sizeof path2, "%s/b.json", dir);
  fsim_file_out o, o2;
  fsim_err e;
  ck_assert(fsim_file_out_open(&o, path, &e) == FSIM_OK);
  ck_assert(fsim_file_out_open(&o2, path2, &e) == FSIM_OK);
  fputs("{}\n", o2.f);
  char tmp2[128];
  snprintf(tmp2, sizeof tmp2, "%s", o2.tmp);
  ck_assert(fsim_file_out_commit(&o2, &e) == FSIM_OK);
  /* a file at the committed output's old temporary name is no longer the output's */
  FILE *other = fopen(tmp2, "w");
  ck_assert(other != NULL);
  fclose(other);
  fputs("{\"partial\":", o.f);
  fflush(o.f);
  ck_assert_int_eq(access(o.tmp, F_OK), 0);
  fsim_file_out_unlink_pending();
  ck_assert_int_ne(access(o.tmp, F_OK), 0);
  ck_assert_int_ne(access(path, F_OK), 0);
  ck_assert_int_eq(access(path2, F_OK), 0);
  ck_assert_int_eq(access(tmp2, F_OK), 0);
  fsim_file_out_abort(&o);
  ck_assert(unlink(path2) == 0 && unlink(tmp2) == 0 && rmdir(dir) == 0);
}
END_TEST

/* A write that fails says why: stdio keeps only an error flag, so a full disk read "write
 * error: Input/output error" (an audit, 2026-12-01).  A file-size limit makes the writes fail
 * here (EFBIG, its signal ignored), for the output itself, emit's -o and sim's --timeline,
 * and nothing is left behind. */
START_TEST(test_file_out_write_error) {
  char dir[] = "/tmp/check-tune-full-XXXXXX";
  ck_assert(mkdtemp(dir) != NULL);
  char path[96], args[600], want[300];
  snprintf(path, sizeof path, "%s/a.json", dir);
  struct rlimit was, lim = {4096, 4096};
  ck_assert(getrlimit(RLIMIT_FSIZE, &was) == 0);
  lim.rlim_max = was.rlim_max;
  void (*old)(int) = signal(SIGXFSZ, SIG_IGN);
  ck_assert(setrlimit(RLIMIT_FSIZE, &lim) == 0);
  fsim_file_out o;
  fsim_err e;
  ck_assert(fsim_file_out_open(&o, path, &e) == FSIM_OK);
  for (int i = 0; i < 2048; i++) fputs("0123456789abcdef0123456789abcdef", o.f);
  ck_assert(fsim_file_out_commit(&o, &e) == FSIM_EIO);
  snprintf(want, sizeof want, "%s: write error: File too large", path);
  ck_assert_str_eq(e.msg, want);
  snprintf(path, sizeof path, "%s/k.hip", dir);
  snprintf(args, sizeof args, "emit gemm 256x256x256 --arch mi355x --db /nonexistent --config "
           "tile=128x128x64,waves=2x2,stages=2,mfma=16x16x32,splitk=1,path=direct,c=direct,kind=plain -o '%s'", path);
  tu_expect_err(args, 1, "flysim emit: -o: %s: write error: File too large\n", path);
  snprintf(path, sizeof path, "%s/t.json", dir);
  snprintf(args, sizeof args, "sim '%s' --arch mi355x --timeline '%s'", tu_src_path("traces/examples/gemm_small.wp"),
           path);
  tu_run r = tu_flysim(args);
  ck_assert_int_eq(r.status, 1);
  snprintf(want, sizeof want, "flysim sim: --timeline: %s: write error: File too large\n", path);
  ck_assert_str_eq(r.err, want);
  tu_run_free(&r);
  ck_assert(setrlimit(RLIMIT_FSIZE, &was) == 0);
  signal(SIGXFSZ, old);
  ck_assert_int_eq(rmdir(dir), 0); /* empty: no output and no temporary file left */
}
END_TEST

/* ---- the commands ------------------------------------------------------------------------------ */

/* Sets an environment variable for a run; returns its old value (a copy, or NULL when unset)
 * for env_restore, so that the harness's FLYSIM_DB (tests/local.mk) holds for later rows. */
static char *env_set(const char *name, const char *value) {
  const char *was = getenv(name);
  char *copy = was ? strdup(was) : NULL;
  ck_assert(setenv(name, value, 1) == 0);
  return copy;
}

static void env_restore(const char *name, char *was) {
  ck_assert((was ? setenv(name, was, 1) : unsetenv(name)) == 0);
  free(was);
}

static void has_keys(json_t *o, const char *const *keys) {
  for (int i = 0; keys[i]; i++) ck_assert_msg(json_object_get(o, keys[i]) != NULL, "missing key %s", keys[i]);
}

START_TEST(test_cli_predict) {
  static const char *const keys[] = {"time_us", "clock_ghz", "bound", "config", "backend", "tflops",
                                     "host_seconds", "wave_instructions", NULL};
  const char *db = db_path();
  char args[2048];
  snprintf(args, sizeof args,
           "predict gemm --m 1024 --n 1024 --k 1024 --arch mi355x --db %s --json --config "
           "tile=128x128x64,waves=2x2,stages=2,mfma=16x16x32,splitk=1,path=direct,c=lds,kind=plain",
           db);
  tu_run r = tu_flysim(args);
  ck_assert_msg(r.status == 0, "%s", r.err);
  json_t *j = tu_json(&r);
  has_keys(j, keys);
  ck_assert_str_eq(json_string_value(json_object_get(j, "backend")), "flydsl");
  ck_assert_str_eq(json_string_value(json_object_get(j, "config_source")), "config");
  ck_assert_str_eq(json_string_value(json_object_get(json_object_get(j, "simulation"), "caches")), "cold");
  ck_assert_str_eq(json_string_value(json_object_get(j, "config")),
                   "tile=128x128x64,waves=2x2,stages=2,mfma=16x16x32,splitk=1,path=direct,c=lds,remap=1,groupm=0,"
                   "kind=plain");
  double t = json_real_value(json_object_get(j, "time_us")), tf = json_real_value(json_object_get(j, "tflops"));
  ck_assert_msg(fabs(t - 12.4690909091) < 1e-9, "%.10f us", t); /* 17274 cycles at 1.65 GHz + 2 us launch */
  ck_assert(fabs(tf - 2.0 * 1024 * 1024 * 1024 / (t * 1e-6) / 1e12) < 1e-6 * tf);
  ck_assert(json_real_value(json_object_get(j, "clock_ghz")) == 1.65);
  /* the same again: byte-identical but for the host time */
  tu_run r2 = tu_flysim(args);
  json_t *j2 = tu_json(&r2);
  json_object_del(j, "host_seconds");
  json_object_del(j2, "host_seconds");
  json_object_del(json_object_get(j, "simulation"), "host_seconds");
  json_object_del(json_object_get(j2, "simulation"), "host_seconds");
  ck_assert(json_equal(j, j2));
  json_decref(j);
  json_decref(j2);
  tu_run_free(&r);
  tu_run_free(&r2);
  /* --warm: the launch after an identical one; 1024^3's A and B (4 MiB) then come from the L2s
   * and the MALL, so no HBM read, and the time is shorter (cold: 12.469 us; warm: 11.342) */
  double cold_us = t;
  snprintf(args, sizeof args,
           "predict gemm --m 1024 --n 1024 --k 1024 --arch mi355x --db %s --json --warm --config "
           "tile=128x128x64,waves=2x2,stages=2,mfma=16x16x32,splitk=1,path=direct,c=lds,kind=plain",
           db);
  r = tu_flysim(args);
  ck_assert_msg(r.status == 0, "%s", r.err);
  j = tu_json(&r);
  json_t *sim = json_object_get(j, "simulation");
  ck_assert_str_eq(json_string_value(json_object_get(sim, "caches")), "warm");
  ck_assert(json_integer_value(json_object_get(json_object_get(sim, "memory"), "hbm_read_bytes")) == 0);
  ck_assert_msg(fabs(json_real_value(json_object_get(j, "time_us")) - 11.3424242424) < 1e-9 &&
                    json_real_value(json_object_get(j, "time_us")) < cold_us - 0.5,
                "warm %.10f us, cold %.3f", json_real_value(json_object_get(j, "time_us")), cold_us);
  json_decref(j);
  tu_run_free(&r);
  /* a warm launch is sampled only while A, B and C fit the MALL (2048^3: 24 MiB; a 16 MiB
   * MALL by --set): the sampled run's shortened warm-up would leave all of them cached */
  for (int small = 0; small < 2; small++) {
    snprintf(args, sizeof args,
             "predict gemm 2048x2048x2048 --arch mi355x --db %s --json --warm%s --config "
             "tile=128x128x64,waves=2x2,stages=2,mfma=16x16x32,splitk=1,path=direct,c=lds,kind=plain",
             db, small ? " --set memory.mall_bytes=16777216" : "");
    r = tu_flysim(args);
    ck_assert_msg(r.status == 0, "%s", r.err);
    j = tu_json(&r);
    sim = json_object_get(j, "simulation");
    ck_assert_int_eq(json_integer_value(json_object_get(sim, "wave_instructions")), 2216960);
    ck_assert_msg(json_is_true(json_object_get(sim, "sampled")) == !small, "%s", args);
    json_decref(j);
    tu_run_free(&r);
  }
  /* with --timeline the JSON names the file it wrote, as the text report does (only the text
   * named it before 2026-12-03), and the file holds the spans counted */
  const char *tl_path = tu_write_temp("", ".json");
  snprintf(args, sizeof args,
           "predict gemm 256x256x256 --arch mi355x --db %s --json --timeline %s --config "
           "tile=128x128x64,waves=2x2,stages=2,mfma=16x16x32,splitk=1,path=direct,c=lds,kind=plain",
           db, tl_path);
  r = tu_flysim(args);
  ck_assert_msg(r.status == 0, "%s", r.err);
  j = tu_json(&r);
  json_t *tl = json_object_get(json_object_get(j, "simulation"), "timeline");
  ck_assert_str_eq(json_string_value(json_object_get(tl, "path")), tl_path);
  json_error_t tle;
  json_t *trace = json_load_file(tl_path, 0, &tle);
  ck_assert_msg(trace != NULL, "%s", tle.text);
  ck_assert_int_eq(json_integer_value(json_object_get(tl, "spans")),
                   json_integer_value(json_object_get(json_object_get(trace, "metadata"), "spans")));
  ck_assert_int_gt(json_integer_value(json_object_get(tl, "spans")), 0);
  json_decref(trace);
  json_decref(j);
  tu_run_free(&r);
  remove(tl_path);
  /* the model mode */
  snprintf(args, sizeof args, "predict gemm --m 4096 --n 4096 --k 4096 --arch gfx950 --mode model --db %s --json "
           "--config tile=256x256x64", db);
  r = tu_flysim(args);
  ck_assert_msg(r.status == 0, "%s", r.err);
  j = tu_json(&r);
  ck_assert_str_eq(json_string_value(json_object_get(j, "mode")), "model");
  ck_assert_str_eq(json_string_value(json_object_get(j, "config_source")), "tuned");
  ck_assert_ptr_nonnull(strstr(json_string_value(json_object_get(j, "config")), "tile=256x256x64,"));
  ck_assert_ptr_null(json_object_get(j, "wave_instructions"));
  /* A, B and C fit the MALL: the DRAM bytes are each once, 3 x 32 MiB */
  ck_assert(json_real_value(json_object_get(json_object_get(j, "model"), "hbm_bytes")) == 3.0 * 4096 * 4096 * 2);
  json_decref(j);
  tu_run_free(&r);
  /* a scaled GEMM whose K is not a multiple of 128 falls back, as PyTorch does */
  r = tu_flysim("predict scaled-gemm --m 256 --n 256 --k 200 --dtype fp8 --arch mi355x --json");
  ck_assert_msg(r.status == 0, "%s", r.err);
  j = tu_json(&r);
  ck_assert_str_eq(json_string_value(json_object_get(j, "backend")), "fallback");
  ck_assert_str_eq(json_string_value(json_object_get(j, "fallback_reason")),
                   "scaled GEMM needs K to be a multiple of 128 (K = 200); PyTorch falls back");
  ck_assert(json_is_null(json_object_get(j, "config")));
  ck_assert(json_real_value(json_object_get(j, "time_us")) > 0);
  json_decref(j);
  tu_run_free(&r);
}
END_TEST

/* `flysim predict ARGS --arch ARCH --db /nonexistent --json`, which must succeed: its JSON. */
static json_t *predict_json_on(const char *arch, const char *args) {
  char buf[600];
  snprintf(buf, sizeof buf, "predict %s --arch %s --db /nonexistent --json", args, arch);
  tu_run r = tu_flysim(buf);
  ck_assert_msg(r.status == 0, "%s: %s", buf, r.err);
  json_t *j = tu_json(&r);
  tu_run_free(&r);
  return j;
}

static json_t *predict_json(const char *args) { return predict_json_on("mi355x", args); }

/* A fallback is estimated by flysim's kernel for the nearest problem the FlyDSL path takes:
 * the same time, to the last digit, as predicting that problem (K rounded up to whole 4-byte
 * copies or 128-value scale groups, a scaled GEMM's operands K-contiguous, C^T = B^T A^T for types only
 * that order has an atom for); a part without the instructions at all keeps the roofline. */
START_TEST(test_fallback_nearest) {
  static const struct {
    const char *asked, *nearest, *differs, *arch;
  } cases[] = {
      {"gemm 1024x512x1023", "gemm 1024x512x1024", "K 1024", "mi355x"},
      {"gemm 512x512x999 --dtype fp16", "gemm 512x512x1000 --dtype fp16", "K 1000", "mi355x"},
      {"scaled-gemm 256x512x256 --dtype fp8 --layout NN", "scaled-gemm 256x512x256 --dtype fp8", "layout TN", "mi355x"},
      /* gfx942 has no transposing read for 8-bit values (gfx950 has: no fallback there) */
      {"gemm 512x768x1024 --dtype fp8 --layout NN", "gemm 512x768x1024 --dtype fp8", "layout TN", "mi300x"},
      {"gemm 512x768x1024 --dtype fp8 --layout TT", "gemm 512x768x1024 --dtype fp8", "layout TN", "mi300x"},
      {"scaled-gemm 256x512x200 --dtype fp8", "scaled-gemm 256x512x256 --dtype fp8", "K 256", "mi355x"},
      {"scaled-gemm 1024x2048x512 --dtype fp4 --b-dtype fp8", "scaled-gemm 2048x1024x512 --dtype fp8 --b-dtype fp4",
       "C^T = B^T A^T, fp8 x fp4", "mi355x"},
      {"scaled-gemm 256x512x200 --dtype fp4 --b-dtype fp8", "scaled-gemm 512x256x256 --dtype fp8 --b-dtype fp4",
       "C^T = B^T A^T, fp8 x fp4, K 256", "mi355x"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    json_t *fj = predict_json_on(cases[i].arch, cases[i].asked), *nj = predict_json_on(cases[i].arch, cases[i].nearest);
    ck_assert_str_eq(json_string_value(json_object_get(fj, "backend")), "fallback");
    ck_assert_str_eq(json_string_value(json_object_get(fj, "config_source")), "nearest");
    ck_assert_str_eq(json_string_value(json_object_get(fj, "mode")), "sim");
    ck_assert(json_is_null(json_object_get(fj, "config")));
    json_t *near = json_object_get(fj, "nearest");
    ck_assert_str_eq(json_string_value(json_object_get(near, "differs")), cases[i].differs);
    ck_assert_str_eq(json_string_value(json_object_get(near, "config")), json_string_value(json_object_get(nj, "config")));
    ck_assert_msg(json_real_value(json_object_get(fj, "time_us")) == json_real_value(json_object_get(nj, "time_us")),
                  "%s: %.17g against %.17g", cases[i].asked, json_real_value(json_object_get(fj, "time_us")),
                  json_real_value(json_object_get(nj, "time_us")));
    ck_assert(json_equal(json_object_get(near, "problem"), json_object_get(nj, "problem")));
    json_decref(fj);
    json_decref(nj);
  }
  /* on gfx950 the same fp8 NN problem is a FlyDSL kernel of its own (ds_read_b64_tr_b8) */
  json_t *own = predict_json("gemm 512x768x1024 --dtype fp8 --layout NN");
  ck_assert_str_eq(json_string_value(json_object_get(own, "backend")), "flydsl");
  ck_assert(json_is_string(json_object_get(own, "config")));
  json_decref(own);
  /* a nearest problem past the part's memory is no estimate: the roofline (a review found the
   * rounded-up K refused as if asked) */
  tu_run m = tu_flysim("predict gemm 1024x1024x1023 --arch mi355x --set memory.dram_bytes=6290000 --mode model --db "
                       "/nonexistent --json");
  ck_assert_msg(m.status == 0, "%s", m.err);
  json_t *mj = tu_json(&m);
  ck_assert_str_eq(json_string_value(json_object_get(mj, "config_source")), "roofline");
  json_decref(mj);
  tu_run_free(&m);
  /* no scaled MFMA on gfx942: nothing near, the roofline as before */
  tu_run r = tu_flysim("predict scaled-gemm 256x256x256 --dtype fp8 --arch mi300x --db /nonexistent --json");
  ck_assert_msg(r.status == 0, "%s", r.err);
  json_t *j = tu_json(&r);
  ck_assert_str_eq(json_string_value(json_object_get(j, "config_source")), "roofline");
  ck_assert_str_eq(json_string_value(json_object_get(j, "mode")), "roofline");
  ck_assert_ptr_null(json_object_get(j, "nearest"));
  json_decref(j);
  tu_run_free(&r);
  /* tune estimates it the same way, and stores it as the fallback's winner */
  r = tu_flysim("tune gemm 1024x512x1023 --arch mi355x --no-db --json");
  ck_assert_msg(r.status == 0, "%s", r.err);
  j = tu_json(&r);
  json_t *best = json_object_get(j, "best"), *nj = predict_json("gemm 1024x512x1024");
  ck_assert_str_eq(json_string_value(json_object_get(best, "config_source")), "nearest");
  ck_assert(json_real_value(json_object_get(best, "time_us")) == json_real_value(json_object_get(nj, "time_us")));
  json_decref(nj);
  json_decref(j);
  tu_run_free(&r);
}
END_TEST

/* A command line and the one line it must print on stderr with exit status 2. */
typedef struct cli_error {
  const char *args, *msg;
} cli_error;

static void expect_usage_errors(const cli_error *bad, size_t n) {
  for (size_t i = 0; i < n; i++) {
    tu_run r = tu_flysim(bad[i].args);
    ck_assert_msg(r.status == 2, "%s: status %d", bad[i].args, r.status);
    ck_assert_str_eq(r.err, bad[i].msg);
    ck_assert_str_eq(r.out, "");
    tu_run_free(&r);
  }
}

/* With --schedule, OP may be left out: the file's operator (scaled-gemm here) gives the same
 * prediction as naming it; a schedule of another operator is refused in one line. */
START_TEST(test_cli_op_from_schedule) {
  char args[1200];
  const char *mx = tu_src_path("kernels/schedules/mxfp4_gemm_4wave.sched");
  double t[2];
  for (int i = 0; i < 2; i++) {
    snprintf(args, sizeof args, "predict %s --schedule '%s' --arch mi355x --mode model --db /nonexistent --json",
             i ? "scaled-gemm" : "", mx);
    tu_run r = tu_flysim(args);
    ck_assert_msg(r.status == 0, "%s: %s", args, r.err);
    json_t *j = tu_json(&r);
    ck_assert_str_eq(json_string_value(json_object_get(json_object_get(j, "problem"), "op")), "scaled-gemm");
    t[i] = json_real_value(json_object_get(j, "time_us"));
    json_decref(j);
    tu_run_free(&r);
  }
  ck_assert(t[0] > 0 && t[0] == t[1]);
  /* a shape the family does not take falls back with a schedule file as with a config (K not
   * a multiple of 128 for a scaled GEMM), rather than failing the schedule's copies */
  snprintf(args, sizeof args, "predict --schedule '%s' --k 1000 --arch mi355x --db /nonexistent --json", mx);
  tu_run fb = tu_flysim(args);
  ck_assert_msg(fb.status == 0, "%s: %s", args, fb.err);
  json_t *fj = tu_json(&fb);
  ck_assert_str_eq(json_string_value(json_object_get(fj, "backend")), "fallback");
  ck_assert_str_eq(json_string_value(json_object_get(fj, "config_source")), "nearest"); /* K 1024 */
  json_decref(fj);
  tu_run_free(&fb);
  /* the file's interleave hints, which the config string does not carry, are reported */
  snprintf(args, sizeof args, "predict --schedule '%s' --arch mi355x --mode model --db /nonexistent --json", mx);
  fb = tu_flysim(args);
  ck_assert_msg(fb.status == 0, "%s: %s", args, fb.err);
  fj = tu_json(&fb);
  ck_assert_str_eq(json_string_value(json_object_get(fj, "interleave")), "mfma:4 dsrd:2 vmem:1");
  ck_assert_str_eq(json_string_value(json_object_get(fj, "config_omits")), "the interleave hints 'mfma:4 dsrd:2 vmem:1'");
  json_decref(fj);
  tu_run_free(&fb);
  /* and what else of the file's kernel the config cannot say: per-operand swizzles and copy
   * atoms (an audit found the printed config naming another kernel without a word) */
  {
    char *src = tu_read_file(tu_src_path("kernels/schedules/flydsl_bf16_gemm_gfx950.sched"));
    ck_assert_ptr_nonnull(src);
    char *opb = strstr(src, "[operand.B]");
    ck_assert_ptr_nonnull(opb);
    char *noswz = tu_replace(opb, "swizzle = 2,4,4", "swizzle = none");
    ck_assert_ptr_nonnull(noswz);
    char *tailb = tu_replace(noswz, "buffer_load_lds_dwordx4", "buffer_load_lds_dword");
    ck_assert_ptr_nonnull(tailb);
    free(noswz);
    *opb = '\0';
    char whole[8192];
    snprintf(whole, sizeof whole, "%s%s", src, tailb);
    const char *mixed = tu_write_temp(whole, ".sched");
    snprintf(args, sizeof args, "predict --schedule '%s' --arch mi355x --mode model --db /nonexistent", mixed);
    fb = tu_flysim(args);
    ck_assert_msg(fb.status == 0, "%s: %s", args, fb.err);
    ck_assert_msg(strstr(fb.out, "\n             and from the file, which --config cannot give: A's swizzle 2,4,4 (the "
                                 "config's 3,3,4); B's copy buffer_load_lds_dword (the config's buffer_load_lds_dwordx4); "
                                 "B's swizzle none (the config's 3,3,4); the interleave hints 'vmem:2 dsrd:4 mfma:8'\n"),
                  "%s", fb.out);
    tu_run_free(&fb);
    free(tailb);
    free(src);
    src = tu_read_file(tu_src_path("kernels/schedules/flydsl_bf16_gemm_gfx950.sched")); /* whole again */
    ck_assert_ptr_nonnull(src);
    /* more of it, from a review: the C store atom; the same swizzle spelt B,M,S and B:M:S and
     * an empty interleave are no gap; and a config that builds no legal kernel on its own (the
     * file's dword copies under a swizzle that splits the config's 16-byte ones) is a gap,
     * not an error after the prediction */
    static const struct {
      const char *edits[4][2], *omits; /* each replaces the first occurrence left */
    } gap[] = {
        {{{"c_path = lds", "c_path = direct"}, {"store = buffer_store_dwordx4", "store = buffer_store_dword"}},
         "C's store buffer_store_dword (the config's buffer_store_dwordx2); the interleave hints 'vmem:2 dsrd:4 mfma:8'"},
        {{{"interleave = vmem:2 dsrd:4 mfma:8", "interleave ="}}, ""},
        {{{"buffer_load_lds_dwordx4", "buffer_load_lds_dword"},
          {"buffer_load_lds_dwordx4", "buffer_load_lds_dword"},
          {"swizzle = 2,4,4", "swizzle = 2,2,4"},
          {"swizzle = 2,4,4", "swizzle = 2,2,4"}},
         "the config alone builds no legal kernel ([operand.A] swizzle: S<2,2,4> splits the 8-element accesses of this "
         "operand (M must be >= 3))"},
    };
    for (size_t i = 0; i < sizeof gap / sizeof gap[0]; i++) {
      char *text = strdup(src);
      for (int k = 0; k < 4 && gap[i].edits[k][0]; k++) {
        char *next = tu_replace(text, gap[i].edits[k][0], gap[i].edits[k][1]);
        ck_assert_msg(next != NULL, "%s", gap[i].edits[k][0]);
        free(text);
        text = next;
      }
      snprintf(args, sizeof args, "--schedule '%s' --mode model", tu_write_temp(text, ".sched"));
      free(text);
      fj = predict_json(args);
      ck_assert_str_eq(json_string_value(json_object_get(fj, "config_omits")), gap[i].omits);
      json_decref(fj);
    }
    /* B's swizzle spelt B:M:S is the same swizzle as A's B,M,S: the config gives it */
    char *colon = strdup(src), *opb2 = strstr(colon, "[operand.B]");
    char *sw = strstr(opb2, "swizzle = 2,4,4");
    ck_assert_ptr_nonnull(sw);
    memcpy(sw, "swizzle = 2:4:4", 15);
    snprintf(args, sizeof args, "--schedule '%s' --mode model", tu_write_temp(colon, ".sched"));
    free(colon);
    fj = predict_json(args);
    ck_assert_ptr_nonnull(strstr(json_string_value(json_object_get(fj, "config")), ",swizzle=2,4,4"));
    ck_assert_str_eq(json_string_value(json_object_get(fj, "config_omits")), "the interleave hints 'vmem:2 dsrd:4 mfma:8'");
    json_decref(fj);
    free(src);
  }
  /* an output type a GEMM cannot store, from the file (no --c-dtype given): named by the file
   * and key, not by a flag (the message printed a NULL flag value before) */
  char *fly = tu_read_file(tu_src_path("kernels/schedules/flydsl_bf16_gemm_gfx950.sched"));
  char *bad = tu_replace(fly, "c_type = bf16", "c_type = fp8");
  ck_assert_ptr_nonnull(bad);
  const char *badpath = tu_write_temp(bad, ".sched");
  snprintf(args, sizeof args, "predict --schedule '%s' --arch mi355x --mode model", badpath);
  fb = tu_flysim(args);
  ck_assert_int_eq(fb.status, 2);
  char want_ct[1400];
  snprintf(want_ct, sizeof want_ct, "flysim predict: %s:18: [problem] c_type fp8: the output is bf16, fp16 or f32\n",
           badpath);
  ck_assert_str_eq(fb.err, want_ct);
  tu_run_free(&fb);
  free(bad);
  /* so are A's and B's types (until 2026-11-30 named as --dtype and --b-dtype, which were not
   * given) */
  static const struct {
    const char *from, *to, *want;
  } types[] = {{"a_type = bf16", "a_type = f32", "16: [problem] a_type: a GEMM takes bf16, fp16 or fp8, not f32"},
               {"b_type = bf16", "b_type = f16",
                "17: [problem] b_type fp16: a gemm takes A and B of one type (A is bf16; scaled-gemm mixes fp8 and fp4)"}};
  for (int i = 0; i < 2; i++) {
    bad = tu_replace(fly, types[i].from, types[i].to);
    ck_assert_ptr_nonnull(bad);
    badpath = tu_write_temp(bad, ".sched");
    snprintf(args, sizeof args, "predict --schedule '%s' --arch mi355x --mode model", badpath);
    fb = tu_flysim(args);
    ck_assert_int_eq(fb.status, 2);
    snprintf(want_ct, sizeof want_ct, "flysim predict: %s:%s\n", badpath, types[i].want);
    ck_assert_str_eq(fb.err, want_ct);
    tu_run_free(&fb);
    free(bad);
  }
  free(fly);
  /* TT (A K-contiguous, B N-contiguous) is a layout of the family too */
  fb = tu_flysim("predict gemm 256x256x512 --layout TT --arch mi355x --mode model --db /nonexistent --json");
  ck_assert_msg(fb.status == 0, "%s", fb.err);
  fj = tu_json(&fb);
  ck_assert_str_eq(json_string_value(json_object_get(json_object_get(fj, "problem"), "layout")), "TT");
  ck_assert_str_eq(json_string_value(json_object_get(fj, "backend")), "flydsl");
  json_decref(fj);
  tu_run_free(&fb);
  const char *rms = tu_src_path("kernels/schedules/rmsnorm.sched");
  snprintf(args, sizeof args, "predict --schedule '%s' --arch mi355x", rms);
  tu_run r = tu_flysim(args);
  ck_assert_int_eq(r.status, 2);
  char want[1400];
  snprintf(want, sizeof want,
           "flysim predict: --schedule %s: it schedules rmsnorm; only the GEMM family (gemm, grouped-gemm, "
           "scaled-gemm) is modelled end to end so far ('flysim schedule check' checks it)\n",
           rms);
  ck_assert_str_eq(r.err, want);
  ck_assert_str_eq(r.out, "");
  tu_run_free(&r);
  static const cli_error bare[] = {
      {"predict --arch mi355x", "flysim predict: expected OP (gemm, grouped-gemm or scaled-gemm; see --help)\n"}};
  expect_usage_errors(bare, 1);
}
END_TEST

START_TEST(test_cli_errors) {
  static const cli_error bad[] = {
      {"predict gemm --m 64 --n 64 --arch mi355x",
       "flysim predict: --k is required (or the shape MxNxK after OP, or a --schedule file's [problem])\n"},
      {"tune gemm --arch mi355x", "flysim tune: --m is required (or the shape MxNxK after OP)\n"},
      {"predict gemm --m 64 --n 64 --k --arch mi355x",
       "flysim predict: --k: missing its value (the next argument is the flag --arch)\n"},
      {"predict gemm 64x64x64 --arch mi355x --config ''",
       "flysim predict: --config: empty (give key=value pairs, or leave it out to tune every key)\n"},
      {"help frob", "flysim: help 'frob': not a command or an operator (see 'flysim --help')\n"},
      {"--help frob", "flysim: --help 'frob': not a command or an operator (see 'flysim --help')\n"},
      /* a value left out before another flag, for every kind of option (a file option took the
       * flag as its file: --timeline --json wrote a file named "--json") */
      {"predict gemm 64x64x64 --arch mi355x --timeline --json",
       "flysim predict: --timeline: missing its value (the next argument is the flag --json)\n"},
      {"predict gemm 64x64x64 --arch mi355x --db --json",
       "flysim predict: --db: missing its value (the next argument is the flag --json)\n"},
      {"predict gemm 64x64x64 --arch --json", "flysim predict: --arch: missing its value (the next argument is the flag "
                                              "--json)\n"},
      {"emit gemm 64x64x64 --arch mi355x -o --json",
       "flysim emit: -o: missing its value (the next argument is the flag --json)\n"},
      {"emit gemm 64x64x64 --arch mi355x --output -o",
       "flysim emit: --output: missing its value (the next argument is the flag -o)\n"},
      /* an operator where a command goes (design.md: each OP documents its own in 'flysim OP --help') */
      {"gemm --m 64", "flysim: 'gemm' is an operator, not a command (see 'flysim gemm --help')\n"},
      {"predict gemm 64x64x64 --arch mi355x --mode model --waves",
       "flysim predict: --waves: the simulator's wave records; --mode model does not simulate\n"},
      {"predict gemm 64x64x64 --arch mi355x --mode model --refine 8",
       "flysim predict: --refine: simulates the model's best configs; --mode model ranks by the model alone and "
       "simulates nothing\n"},
      {"predict gemm 64x64x64 --arch mi355x --refine 3 "
       "--config tile=64x64x64,waves=2x2,stages=2,mfma=16x16x32,splitk=1,path=direct,c=lds,kind=plain",
       "flysim predict: --refine: only when predict tunes; a complete --config fixes the kernel\n"},
      {"predict gemm --m 0 --n 64 --k 64 --arch mi355x", "flysim predict: --m: 0 is out of range [1, 16777216]\n"},
      {"predict gemm --m 99999999999999999999999 --n 64 --k 64 --arch mi355x",
       "flysim predict: --m: 99999999999999999999999 is out of range [1, 16777216]\n"},
      {"predict gemm --m 64 --n 64 --k 64", "flysim predict: --arch NAME is required (see 'flysim arch list')\n"},
      {"predict gemm --m 64 --n 64 --k 64 --arch mi355x --dtype int3",
       "flysim predict: --dtype 'int3': expected bf16, fp16, fp8 or fp4 (or f32 for --c-dtype)\n"},
      {"predict gemm --m 64 --n 64 --k 64 --arch mi355x --layout TX",
       "flysim predict: --layout 'TX': expected TN, NN, NT or TT\n"},
      {"predict gemm --m 64 --n 64 --k 64 --arch mi355x --config tile=1x2x3x4",
       "flysim predict: --config tile=1x2x3x4: expected BMxBNxBK or BMxBN, e.g. 256x256x64\n"},
      {"predict gemm --m 64 --n 64 --k 64 --arch mi355x --frobnicate",
       "flysim predict: option '--frobnicate': unknown (see --help)\n"},
      /* a known flag given a value (it read "unknown or missing its value"); a missing value at
       * the end of the line, and an unknown short flag (both read "unknown or missing its value"
       * until 2026-12-03, which left the user to guess which) */
      {"predict gemm --m 64 --n 64 --k 64 --arch mi355x --mode model --json=1",
       "flysim predict: option '--json' takes no value, not '1' (see --help)\n"},
      {"predict gemm --m 64 --n 64 --k 64 --arch mi355x --mode model --js=1",
       "flysim predict: option '--js': give the whole name (see --help)\n"},
      {"predict gemm --m 64 --n 64 --k 64 --arch mi355x --config",
       "flysim predict: option '--config': missing its value (see --help)\n"},
      {"emit gemm 64x64x64 --arch mi355x -o", "flysim emit: option '-o': missing its value (see --help)\n"},
      {"emit gemm 64x64x64 --arch mi355x -z", "flysim emit: option '-z': unknown (see --help)\n"},
      {"predict conv --m 64 --n 64 --k 64 --arch mi355x",
       "flysim predict: OP 'conv': expected one of gemm|grouped-gemm|scaled-gemm|attention|rmsnorm|topk\n"},
      {"predict gemm --m 64 --n 64 --k 64 --arch mi355x --mode exact", "flysim predict: --mode 'exact': expected sim or model\n"},
      {"predict gemm --m 64 --n 64 --k 64 --arch mi355x --mode model --timeline t.json",
       "flysim predict: --timeline: only the simulator (--mode sim) records one\n"},
      {"predict gemm --m 64 --n 64 --k 64 --arch mi355x --dtype fp4",
       "flysim predict: --dtype: a GEMM takes bf16, fp16 or fp8, not fp4\n"},
      /* the type as the help spells it, whichever alias was typed */
      {"predict gemm --m 64 --n 64 --k 64 --arch mi355x --dtype i8",
       "flysim predict: --dtype: a GEMM takes bf16, fp16 or fp8, not int8\n"},
      /* a number past 64 bits, for a flag whose range the part decides later: no range to give */
      {"micro lds --stride 99999999999999999999999 --width 32 --arch mi355x",
       "flysim micro: --stride: 99999999999999999999999 does not fit in 64 bits\n"},
      {"tune --suite small --arch mi355x", "flysim tune: --suite 'small': no such suite (default)\n"},
      {"tune --suite default --arch mi355x --m 4", "flysim tune: --suite: the suite gives the shapes; drop the shape flags\n"},
      {"db frob", "flysim db: 'frob': expected list, show or export\n"},
      {"predict gemm 64x64 --arch mi355x", "flysim predict: SHAPE '64x64': expected MxNxK, e.g. 4096x4096x4096\n"},
      /* a stray word where the shape goes is not a shape whose M is 'e' */
      {"predict gemm --m 64 --n 64 --k 64 --arch mi355x extra",
       "flysim predict: SHAPE 'extra': expected MxNxK, e.g. 4096x4096x4096\n"},
      {"tune gemm 64x64x0 --arch mi355x", "flysim tune: SHAPE's K: 0 is out of range [1, 16777216]\n"},
      {"predict gemm 64x64x64 --m 32 --arch mi355x", "flysim predict: SHAPE '64x64x64' and --m 32 disagree\n"},
      {"predict gemm 64x64x64 64 --arch mi355x", "flysim predict: unexpected argument '64'\n"},
      {"predict gemm 64x64x64 --arch mi355x --sampled --full", "flysim predict: --sampled and --full: give one of them\n"},
      {"", "flysim: expected a command (see flysim --help)\n"},
      {"arch", "flysim arch: expected list, show or diff (see --help)\n"},
      {"tune gemm 64x64x64 --arch mi355x --db ''", "flysim tune: --db: an empty file name\n"},
      {"predict gemm 64x64x64 --ar mi355x", "flysim predict: option '--ar': give the whole name (see --help)\n"},
      /* a problem that falls back still checks its config, and has no kernel to trace */
      {"predict gemm 1024x1024x1024 --dtype fp8 --layout NN --arch mi300x --config bogus=1",
       "flysim predict: --config: unknown key 'bogus' (tile, waves, stages, mfma, splitk, path, c, remap, groupm, kind, "
       "swizzle)\n"},
      {"predict gemm 64x64x64 --dtype fp8 --layout NT --arch mi300x --timeline t.json",
       "flysim predict: --timeline: the problem falls back (gfx942 has no transposing LDS read for 8-bit fp8, so the "
       "schedule family reads it K-contiguous only (layout TN), this is NT; PyTorch falls back): there is no flysim "
       "kernel to trace\n"},
      {"predict gemm 64x64x64 --arch mi355x --config tile=128x128x64,tile=64x64x64",
       "flysim predict: --config: key 'tile' given twice\n"},
      {"predict gemm 64x64x64 --arch mi355x --config tile=64x64x64,,waves=2x2",
       "flysim predict: --config 'tile=64x64x64,,waves=2x2': an empty item (two commas, or one at an end)\n"},
      {"predict gemm 64x64x64 --arch mi355x --mode model --sampled",
       "flysim predict: --sampled: a mode of the simulator; --mode model does not simulate\n"},
      {"tune gemm 64x64x64 --arch mi355x --no-db --db x.db", "flysim tune: --no-db and --db x.db: store nothing, or store there?\n"},
      {"db list --set lds.banks=32", "flysim db: list: --set needs --arch (the part it changes)\n"},
      {"db list --groups 4", "flysim db: list: the shape flags go with show\n"},
      {"tune gemm 64x64x64 --arch mi355x --db :memory:",
       "flysim tune: --db ':memory:': SQLite keeps that database in memory and nothing would be stored; give a file "
       "name\n"},
      {"tune gemm 64x64x64 --arch mi355x --db /tmp", "flysim tune: --db /tmp: is a directory\n"},
      /* refused by name even where a complete --config leaves the database unread (an audit,
       * 2026-12-01: these ran and exited 0) */
      {"predict gemm 256x256x256 --arch mi355x --config tile=32x32x256 --db /tmp",
       "flysim predict: --db /tmp: is a directory\n"},
      {"emit gemm 256x256x256 --arch mi355x --config tile=32x32x256 --db /dev/null -o x.hip",
       "flysim emit: --db /dev/null: not a regular file\n"},
      {"verify gemm 256x256x256 --arch mi355x --config tile=32x32x256 --db /tmp",
       "flysim verify: --db /tmp: is a directory\n"},
      {"tune gemm -1x64x64 --arch mi355x",
       "flysim tune: option '-1': not an option; a negative SHAPE or value? (they are whole numbers from 1)\n"},
      {"tune --suite --arch mi355x", "flysim tune: --suite: missing its value (the next argument is the flag --arch)\n"},
      {"predict gemm --m ' 1024' --n 64 --k 64 --arch mi355x", "flysim predict: --m: ' 1024' is not an integer\n"},
      /* no sign either (strtol takes one: '+64' passed where ' 64' did not) */
      {"predict gemm --m +1024 --n 64 --k 64 --arch mi355x", "flysim predict: --m: '+1024' is not an integer\n"},
      {"predict gemm 64x+64x64 --arch mi355x", "flysim predict: SHAPE's N: '+64' is not an integer\n"},
      {"predict gemm 64x64x64 --arch mi355x --config 'tile=+64x64x64'",
       "flysim predict: --config tile=+64x64x64: expected BMxBNxBK or BMxBN, e.g. 256x256x64\n"},
      {"predict gemm 64x64x64 --arch mi355x --config 'stages= 2'",
       "flysim predict: --config stages= 2: expected an integer from 1 to 8\n"},
      /* "-" is standard output's name, not a file to write (a file named '-' was written) */
      {"emit gemm 64x64x64 --arch mi355x -o -", "flysim emit: -o -: give a file name (standard output holds the report)\n"},
      {"predict gemm 64x64x64 --arch mi355x --timeline -",
       "flysim predict: --timeline -: give a file name (standard output holds the report)\n"},
      /* the shape db list prints for a grouped problem, and a shape with --suite */
      {"db show grouped-gemm 3x256x256x512 --arch mi355x",
       "flysim db: SHAPE '3x256x256x512': expected MxNxK; give GxMxNxK's G as --groups G\n"},
      {"tune gemm 256x256x256 --suite default --arch mi355x",
       "flysim tune: --suite: the suite gives the shapes; drop the shape '256x256x256'\n"},
      {"sim nofile.wp --arch mi355x --print --json",
       "flysim sim: --print writes the program back and exits: it takes none of --json, --timeline, --sampled, "
       "--compare-full, --waves, --warm\n"},
      {"predict gemm 64x64x64 --arch mi355x --mode model --warm",
       "flysim predict: --warm: the simulator's caches; --mode model does not simulate\n"},
      {"tune gemm 64x64x64 --arch mi355x --warm",
       "flysim tune: --warm: the database holds winners of cold launches; add --no-db\n"},
      {"tune gemm 64x64x64 --arch mi355x --warm --no-db --agreement 4",
       "flysim tune: --warm and --agreement: the agreement is measured on cold launches\n"},
      {"predict gemm 8192x8192x8192 --arch mi355x --warm --sampled",
       "flysim predict: --sampled and --warm: A, B and C (384.0 MiB) pass the MALL (256.0 MiB), and a sampled run "
       "cannot tell which part of them a warm launch finds there; use --full\n"},
      {"tune gemm 8192x8192x8192 --arch mi355x --warm --sampled --no-db",
       "flysim tune: --sampled and --warm: A, B and C (384.0 MiB) pass the MALL (256.0 MiB), and a sampled run "
       "cannot tell which part of them a warm launch finds there; use --full\n"},
      {"verify gemm 8192x8192x8192 --arch mi355x --warm --sampled",
       "flysim verify: --sampled and --warm: A, B and C (384.0 MiB) pass the MALL (256.0 MiB), and a sampled run "
       "cannot tell which part of them a warm launch finds there; use --full\n"},
      {"sim nofile.s --arch mi355x --trips 3,,4", "flysim sim: --trips: '' is not an integer\n"},
      {"predict gemm 64x64x64 --arch mi355x --sample-trips 12",
       "flysim predict: --sample-trips: '12': expected S1,S2 (two main-loop trip counts)\n"},
      {"predict gemm 64x64x64 --arch mi355x --sample-trips 6,12,24",
       "flysim predict: --sample-trips: '6,12,24': expected S1,S2 (two main-loop trip counts)\n"},
      {"predict gemm 64x64x64 --arch mi355x --sample-trips 12,6",
       "flysim predict: --sample-trips: 12,6: the second trip count must be larger than the first\n"},
      {"predict gemm 64x64x64 --arch mi355x --sample-trips 0,6",
       "flysim predict: --sample-trips: 0 is out of range [1, 65536]\n"},
      {"predict gemm 64x64x64 --arch mi355x --sample-trips ,6", "flysim predict: --sample-trips: '' is not an integer\n"},
      {"predict gemm 64x64x64 --arch mi355x --sample-trips 123456789012345678901234567890123456,5",
       "flysim predict: --sample-trips: 123456789012345678901234567890123456 is out of range [1, 65536]\n"},
      {"predict gemm 64x64x64 --arch mi355x --sample-trips 6,x", "flysim predict: --sample-trips: 'x' is not an integer\n"},
      {"predict gemm 64x64x64 --arch mi355x --full --sample-trips 6,12",
       "flysim predict: --sample-trips: the sampled simulation's; --full runs every trip\n"},
      {"predict gemm 64x64x64 --arch mi355x --warm --sample-trips 6,12",
       "flysim predict: --sample-trips and --warm: add --sampled (a warm launch is simulated in full unless asked, "
       "where A, B and C pass the MALL)\n"},
      {"predict gemm 64x64x64 --arch mi355x --mode model --sample-trips 6,12",
       "flysim predict: --sample-trips: the sampled simulation's; --mode model does not simulate\n"},
      {"sim nofile.wp --arch mi355x --sample-trips 6,12", "flysim sim: --sample-trips goes with --sampled\n"},
      {"micro mfma --inst v_mfma_f32_16x16x32_bf16 --stride 4 --arch mi355x",
       "flysim micro: mfma: --stride and --width go with lds\n"},
      {"micro latency --level l1 --dependent --arch mi355x",
       "flysim micro: latency: --inst, --waves-per-simd and --dependent go with mfma\n"},
      {"tune gemm 64x64x64 --arch mi355x --js", "flysim tune: option '--js': give the whole name (see --help)\n"},
      /* an empty file argument is named as the argument, like an option's (it read ": : cannot open") */
      {"sim '' --arch mi355x", "flysim sim: FILE: an empty file name\n"},
      {"schedule check '' --arch mi355x", "flysim schedule: FILE: an empty file name\n"},
      {"schedule print ''", "flysim schedule: FILE: an empty file name\n"},
      {"verify '' --arch mi355x", "flysim verify: OUT.hip: an empty file name\n"},
      {"predict gemm 256x256x256 --arch ''", "flysim predict: --arch: an empty name (see 'flysim arch list')\n"},
      {"arch show ''", "flysim arch: NAME: an empty name (see 'flysim arch list')\n"},
      {"sim nofile.s --arch mi355x --kernel ''", "flysim sim: --kernel: an empty name\n"},
      /* a number beyond 64 bits gets the argument's range, not int64's */
      {"predict gemm 64x64x64 --arch mi355x --refine 99999999999999999999",
       "flysim predict: --refine: 99999999999999999999 is out of range [1, 64]\n"},
      /* help's own help is the top-level one; more than one command is still an error */
      {"help help sim", "flysim: help 'sim': expected one command, not more\n"},
  };
  expect_usage_errors(bad, sizeof bad / sizeof bad[0]);
  /* FLYSIM_THREADS that is not a whole number from 1 to 64 is an input error, not "every CPU" */
  static const char *const threads[] = {"0", "65", "2x", " 2", "", "+2"}; /* set but empty too (unset: the default) */
  for (size_t i = 0; i < sizeof threads / sizeof threads[0]; i++) {
    ck_assert_int_eq(setenv("FLYSIM_THREADS", threads[i], 1), 0);
    tu_run r = tu_flysim("arch list");
    char want[160];
    snprintf(want, sizeof want, "flysim: FLYSIM_THREADS='%s': expected a whole number from 1 to 64\n", threads[i]);
    ck_assert_int_eq(r.status, 2);
    ck_assert_str_eq(r.err, want);
    ck_assert_str_eq(r.out, "");
    tu_run_free(&r);
  }
  ck_assert_int_eq(unsetenv("FLYSIM_THREADS"), 0);
  /* an empty FLYSIM_DB too (it was taken as unset, where an empty --db is refused) */
  char *harness_db = env_set("FLYSIM_DB", "");
  {
    tu_run r = tu_flysim("db list");
    env_restore("FLYSIM_DB", harness_db);
    ck_assert_int_eq(r.status, 2);
    ck_assert_str_eq(r.err, "flysim: FLYSIM_DB='': an empty file name (unset it for the default ./flysim-tuning.db)\n");
    ck_assert_str_eq(r.out, "");
    tu_run_free(&r);
  }
  /* a GEMM beyond what the simulator holds is refused in one line (no overflow), the model
   * still estimates it.  (Each operand must fit 128 GiB, which keeps GEMMs below the 2^44 wave
   * instructions the simulator counts; check_sim tests that limit with a wave program.)  One
   * beyond the part's memory is refused by both. */
  {
    tu_run r = tu_flysim("predict gemm 1048576x64x102400 --arch mi355x --db /nonexistent");
    ck_assert_int_eq(r.status, 2);
    ck_assert_str_eq(r.err, "flysim predict: --m/--n/--k: A of gemm_1048576x64x102400 takes 214748364800 bytes, more "
                            "than the 137438953472 (128 GiB) a wave program, which the simulator and emit work from, "
                            "holds an operand in (predict --mode model has no such limit)\n");
    ck_assert_str_eq(r.out, "");
    tu_run_free(&r);
    tu_run m = tu_flysim("predict gemm 1048576x64x102400 --arch mi355x --mode model --db /nonexistent --json");
    ck_assert_msg(m.status == 0, "%s", m.err);
    json_t *j = tu_json(&m);
    ck_assert(json_real_value(json_object_get(j, "time_us")) > 1e4);
    json_decref(j);
    tu_run_free(&m);
    static const char *const modes[] = {"", " --mode model"};
    for (int i = 0; i < 2; i++) {
      char args[200];
      snprintf(args, sizeof args, "predict gemm 65536x65536x65536 --arch rx9070xt --db /nonexistent%s", modes[i]);
      tu_expect_err(args, 2,
                    "flysim predict: --m/--n/--k: the operands and result of 65536x65536x65536 take 25769803776 bytes, "
                    "more than the 17179869184 bytes of memory of RX 9070 XT ([memory] dram_bytes)\n");
    }
    /* both sizes exact on a small part (they read "0.0 GiB, more than the 0.0 GiB") */
    tu_expect_err("predict gemm 1024x1024x1024 --arch mi355x --set memory.dram_bytes=1000000 --mode model", 2,
                  "flysim predict: --m/--n/--k: the operands and result of 1024x1024x1024 take 6291456 bytes, more "
                  "than the 1000000 bytes of memory of MI355X ([memory] dram_bytes)\n");
  }
  /* a --timeline that cannot be written is refused before the run */
  {
    tu_run r = tu_flysim("predict gemm 256x256x256 --arch mi355x --db /nonexistent --timeline /");
    ck_assert_int_eq(r.status, 2);
    ck_assert_str_eq(r.err, "flysim predict: --timeline: /: is a directory\n");
    ck_assert_str_eq(r.out, "");
    tu_run_free(&r);
  }
  /* SHAPE after OP is the same problem as the three flags */
  {
    tu_run f = tu_flysim("predict gemm --m 96 --n 200 --k 64 --arch mi355x --mode model --db /nonexistent --json");
    tu_run p = tu_flysim("predict gemm 96x200x64 --arch mi355x --mode model --db /nonexistent --json");
    ck_assert_int_eq(f.status, 0);
    ck_assert_int_eq(p.status, 0);
    json_t *jf = tu_json(&f), *jp = tu_json(&p);
    json_object_del(jf, "host_seconds"); /* the one key that measures this host */
    json_object_del(jp, "host_seconds");
    ck_assert(json_equal(jf, jp));
    ck_assert_int_eq(json_integer_value(json_object_get(json_object_get(jp, "problem"), "n")), 200);
    json_decref(jf);
    json_decref(jp);
    tu_run_free(&f);
    tu_run_free(&p);
  }
  /* a complete but illegal config names the key and the reason */
  tu_run r = tu_flysim("predict gemm --m 64 --n 64 --k 64 --arch mi355x --config "
                       "tile=256x256x64,waves=1x1,stages=4,mfma=16x16x32,splitk=1,path=direct,c=lds,kind=plain");
  ck_assert_int_eq(r.status, 2);
  ck_assert_str_eq(r.err, "flysim predict: --config: [pipeline] stages: 4 stages of 256x64 and 256x64 tiles need 262144 "
                          "bytes of LDS, more than the 163840 a workgroup may use on MI355X\n");
  tu_run_free(&r);
  /* a database that is not one: exit 2, and the file is untouched */
  const char *text = tu_write_temp("hello\n", ".db");
  char args[1200];
  snprintf(args, sizeof args, "tune gemm --m 64 --n 64 --k 64 --arch mi355x --db %s", text);
  r = tu_flysim(args);
  ck_assert_int_eq(r.status, 2);
  ck_assert_ptr_nonnull(strstr(r.err, "not a flysim tuning database"));
  char *left = tu_read_file(text);
  ck_assert_str_eq(left, "hello\n");
  free(left);
  tu_run_free(&r);
}
END_TEST

/* tune stores its winner; predict then uses it; db lists, shows and exports it. */
START_TEST(test_cli_tune_db) {
  static const char *const keys[] = {"best", "candidates", "evaluated", "host_seconds", NULL};
  static const char *const best_keys[] = {"time_us", "clock_ghz", "bound", "config", "backend", "tflops", NULL};
  const char *db = db_path();
  char args[1500];
  snprintf(args, sizeof args, "tune gemm --m 512 --n 1024 --k 2048 --arch mi355x --db %s --json --top 5", db);
  tu_run r = tu_flysim(args);
  ck_assert_msg(r.status == 0, "%s", r.err);
  json_t *j = tu_json(&r);
  has_keys(j, keys);
  has_keys(json_object_get(j, "best"), best_keys);
  /* the first 5, and the simulated ones ranked below them (a split-K config since 0.4.4) */
  json_t *cands = json_object_get(j, "candidates");
  ck_assert_int_ge(json_array_size(cands), 5);
  for (size_t i = 5; i < json_array_size(cands); i++)
    ck_assert(json_is_real(json_object_get(json_array_get(cands, i), "sim_us")));
  ck_assert_int_gt(json_integer_value(json_object_get(j, "evaluated")), 1000);
  char best[256];
  snprintf(best, sizeof best, "%s", json_string_value(json_object_get(json_object_get(j, "best"), "config")));
  double best_us = json_real_value(json_object_get(json_object_get(j, "best"), "time_us"));
  json_decref(j);
  tu_run_free(&r);
  snprintf(args, sizeof args, "predict gemm --m 512 --n 1024 --k 2048 --arch mi355x --db %s --json", db);
  r = tu_flysim(args);
  ck_assert_msg(r.status == 0, "%s", r.err);
  j = tu_json(&r);
  ck_assert_str_eq(json_string_value(json_object_get(j, "config_source")), "database");
  ck_assert_str_eq(json_string_value(json_object_get(j, "config")), best);
  ck_assert(json_real_value(json_object_get(j, "time_us")) == best_us);
  json_decref(j);
  tu_run_free(&r);
  snprintf(args, sizeof args, "db show gemm --m 512 --n 1024 --k 2048 --arch gfx950 --db %s --json", db);
  r = tu_flysim(args);
  ck_assert_msg(r.status == 0, "%s", r.err);
  j = tu_json(&r);
  ck_assert_str_eq(json_string_value(json_object_get(j, "config")), best);
  ck_assert_str_eq(json_string_value(json_object_get(j, "arch")), "mi355x");
  /* the version and the fingerprint of the part's values: "0.4.1#xxxxxxxx" */
  const char *ver = json_string_value(json_object_get(j, "version"));
  ck_assert_msg(strncmp(ver, PACKAGE_VERSION "#", strlen(PACKAGE_VERSION) + 1) == 0 &&
                    strlen(ver) == strlen(PACKAGE_VERSION) + 9,
                "%s", ver);
  json_decref(j);
  tu_run_free(&r);
  /* the same tune again stores the same winner: nothing "kept" to report */
  snprintf(args, sizeof args, "tune gemm --m 512 --n 1024 --k 2048 --arch mi355x --db %s --json --top 5", db);
  r = tu_flysim(args);
  ck_assert_msg(r.status == 0, "%s", r.err);
  j = tu_json(&r);
  ck_assert(json_is_true(json_object_get(j, "stored")));
  ck_assert_ptr_null(json_object_get(j, "kept"));
  json_decref(j);
  tu_run_free(&r);
  /* a search of part of the space finds a slower winner: the stored one stays, and predict
   * goes on using it */
  snprintf(args, sizeof args, "tune gemm --m 512 --n 1024 --k 2048 --arch mi355x --db %s --json --refine 1 "
           "--config tile=16x16x64", db);
  r = tu_flysim(args);
  ck_assert_msg(r.status == 0, "%s", r.err);
  j = tu_json(&r);
  ck_assert(json_real_value(json_object_get(json_object_get(j, "best"), "time_us")) > best_us);
  ck_assert(json_is_false(json_object_get(j, "stored")));
  ck_assert_str_eq(json_string_value(json_object_get(json_object_get(j, "kept"), "config")), best);
  ck_assert(json_real_value(json_object_get(json_object_get(j, "best"), "host_seconds")) > 0);
  char slower[200];
  snprintf(slower, sizeof slower, "%s", json_string_value(json_object_get(json_object_get(j, "best"), "config")));
  json_decref(j);
  tu_run_free(&r);
  /* a stored winner that is not a legal config now (edited by hand here) is replaced even by a
   * slower one, which predict then uses; the best stays the database's winner afterwards */
  sqlite3 *h;
  ck_assert_int_eq(sqlite3_open(db, &h), SQLITE_OK);
  ck_assert_int_eq(sqlite3_exec(h, "UPDATE winners SET config = 'garbage!!';", NULL, NULL, NULL), SQLITE_OK);
  sqlite3_close(h);
  snprintf(args, sizeof args, "tune gemm --m 512 --n 1024 --k 2048 --arch mi355x --db %s --json --refine 1 "
           "--config tile=16x16x64", db);
  r = tu_flysim(args);
  ck_assert_msg(r.status == 0, "%s", r.err);
  j = tu_json(&r);
  ck_assert(json_is_true(json_object_get(j, "stored")));
  json_decref(j);
  tu_run_free(&r);
  sql_is(db, "SELECT config FROM winners;", slower);
  snprintf(args, sizeof args, "tune gemm --m 512 --n 1024 --k 2048 --arch mi355x --db %s --json --top 5", db);
  r = tu_flysim(args);
  ck_assert_msg(r.status == 0, "%s", r.err);
  tu_run_free(&r);
  sql_is(db, "SELECT config FROM winners;", best);
  snprintf(args, sizeof args, "db show gemm --m 7 --n 1024 --k 2048 --arch mi355x --db %s", db);
  r = tu_flysim(args);
  ck_assert_int_eq(r.status, 1);
  ck_assert_ptr_nonnull(strstr(r.err, "no winner stored for gemm 7x1024x2048 bf16 TN -> bf16 on mi355x"));
  tu_run_free(&r);
  snprintf(args, sizeof args, "db list --db %s --json", db);
  r = tu_flysim(args);
  j = tu_json(&r);
  ck_assert_int_eq(json_array_size(json_object_get(j, "entries")), 1);
  json_decref(j);
  tu_run_free(&r);
  const char *out = db_path();
  snprintf(args, sizeof args, "db export --db %s -o %s", db, out);
  r = tu_flysim(args);
  ck_assert_msg(r.status == 0, "%s", r.err);
  char *text = tu_read_file(out);
  ck_assert_ptr_nonnull(text);
  json_error_t err;
  j = json_loads(text, 0, &err);
  ck_assert_ptr_nonnull(j);
  ck_assert_str_eq(json_string_value(json_object_get(j, "format")), "flysim-tuning");
  ck_assert_str_eq(json_string_value(json_object_get(json_array_get(json_object_get(j, "entries"), 0), "config")), best);
  json_decref(j);
  tu_run_free(&r);
  /* -o - is standard output, as no -o: the same text */
  snprintf(args, sizeof args, "db export --db %s -o -", db);
  r = tu_flysim(args);
  ck_assert_msg(r.status == 0, "%s", r.err);
  ck_assert_str_eq(r.out, text);
  free(text);
  tu_run_free(&r);
  /* an output path that cannot be written: one line naming it and why, exit 2, no file */
  static const char *const bad_out[][2] = {
      {"/nonexistent/x.json", "flysim db: -o: /nonexistent/x.json: cannot write: No such file or directory\n"},
      {"/", "flysim db: -o: /: is a directory\n"},
  };
  for (int i = 0; i < 2; i++) {
    snprintf(args, sizeof args, "db export --db %s -o %s", db, bad_out[i][0]);
    r = tu_flysim(args);
    ck_assert_int_eq(r.status, 2);
    ck_assert_str_eq(r.err, bad_out[i][1]);
    tu_run_free(&r);
  }
  /* a what-if part keeps its own winners */
  snprintf(args, sizeof args, "db show gemm --m 512 --n 1024 --k 2048 --arch mi355x --set lds.banks=32 --db %s", db);
  r = tu_flysim(args);
  ck_assert_int_eq(r.status, 1);
  ck_assert_msg(strstr(r.err, "no winner stored for gemm 512x1024x2048 bf16 TN -> bf16 on mi355x[lds.banks=32]"), "%s",
                r.err);
  tu_run_free(&r);
}
END_TEST

/* --config: errors that name the key and why; mixed types; swizzle B,M,S. */
START_TEST(test_cli_config_errors) {
  static const cli_error bad[] = {
      {"tune gemm 256x256x256 --arch mi355x --no-db --config waves=3x3",
       "flysim tune: --config waves=3x3: no BM searched (powers of two from 16 to 256) is a multiple of WM x the "
       "MFMA's M (3 x 16); give tile= as well\n"},
      {"tune gemm 256x256x256 --arch mi355x --no-db --config tile=64x64x64,waves=3x3",
       "flysim tune: --config waves=3x3: tile BM 64 is not a multiple of WM x the MFMA's M (3 x 16)\n"},
      {"tune gemm 256x256x256 --arch mi355x --no-db --config waves=8x4",
       "flysim tune: --config waves=8x4: 32 waves are 2048 work-items, more than the 1024 of a workgroup on MI355X\n"},
      {"tune gemm 256x256x256 --arch mi355x --no-db --config tile=1024x1024x1024",
       "flysim tune: --config tile=1024x1024x1024: one stage of 1024x1024 and 1024x1024 tiles needs 4194304 bytes of "
       "LDS, more than the 163840 a workgroup may use on MI355X\n"},
      {"tune gemm 256x256x256 --arch mi355x --no-db --config tile=256x256x64,stages=4",
       "flysim tune: --config tile=256x256x64,stages=4: 4 stages of 256x64 and 256x64 tiles need 262144 bytes of LDS, "
       "more than the 163840 a workgroup may use on MI355X\n"},
      {"tune gemm 256x256x256 --arch mi355x --no-db --config mfma=1x1x1",
       "flysim tune: --config mfma=1x1x1: gfx950 has no bf16 x bf16 matrix instruction of that shape (it has "
       "16x16x32, 32x32x16, 16x16x16, 32x32x8)\n"},
      {"predict gemm 256x256x256 --arch mi355x --db /nonexistent --config waves=1x1,kind=pingpong",
       "flysim predict: --config waves=1x1,kind=pingpong: no legal configuration of gemm 256x256x256 bf16 on MI355X "
       "has these keys together (each alone is possible); e.g. tile=16x64x32,waves=1x1,stages=2,"
       "mfma=16x16x32,splitk=1,path=direct,c=lds,remap=1,groupm=0,kind=pingpong: [pipeline] kind: a two-group pipeline "
       "needs an even number of waves, not 1\n"},
      /* the example keeps every key given (it once showed c=lds and advised c_path = direct to
       * one who had given c=direct), and names the key no legal config has */
      {"predict gemm 33x65x130 --arch mi355x --db /nonexistent --config c=direct,splitk=2",
       "flysim predict: --config splitk=2,c=direct: no legal configuration of gemm 33x65x130 bf16 on MI355X has "
       "splitk=2; e.g. tile=16x16x32,waves=1x1,stages=1,mfma=16x16x32,splitk=2,path=direct,c=direct,"
       "remap=1,groupm=0,kind=plain: [tile] split_k: 2 slices add bf16 partial sums in 4-byte pairs, but a C of 33x65 values (an odd "
       "number) leaves its last value in a pair with the value past its end; use split_k = 1 or an even M x N\n"},
      /* a key whose candidates are all skipped before a plan is built: the reason comes from one
       * built with every key (it once gave none) */
      {"predict gemm 480x480x480 --arch mi355x --db /nonexistent --config waves=2x3,tile=64x96x64",
       "flysim predict: --config tile=64x96x64,waves=2x3: no legal configuration of gemm 480x480x480 bf16 on MI355X "
       "has waves=2x3; e.g. tile=64x96x64,waves=2x3,stages=1,mfma=16x16x32,splitk=1,path=direct,"
       "c=lds,remap=1,groupm=0,kind=plain: [operand.A] global_copy: no direct-to-LDS copy divides a 64x64 tile on 384 threads\n"},
      /* ping-pong with the stages free: not the one stage that every ping-pong plan refuses, but
       * what stops two (it once blamed the stages) */
      {"predict gemm 2048x2048x2048 --arch mi300x --db /nonexistent --config kind=pingpong,tile=256x256x64,waves=2x4",
       "flysim predict: --config tile=256x256x64,waves=2x4,kind=pingpong: no legal configuration of gemm "
       "2048x2048x2048 bf16 on MI300X has these keys together (each alone is possible); e.g. tile=256x256x64,"
       "waves=2x4,stages=2,mfma=16x16x16,splitk=1,path=direct,c=lds,remap=1,groupm=0,kind=pingpong: [pipeline] "
       "stages: 2 stages of 256x64 and 256x64 tiles need 131072 bytes of LDS, more than the 65536 a workgroup may use "
       "on MI300X\n"},
      /* a key whose first candidate fails for a reason of its own (a grouped GEMM's split-K once
       * came with the C path of the first tile): the example is a legal config with only the
       * key changed */
      {"predict grouped-gemm 4096x4096x4096 --groups 4 --arch mi355x --db /nonexistent --config splitk=2",
       "flysim predict: --config splitk=2: no legal configuration of grouped-gemm 4096x4096x4096 bf16 on MI355X has "
       "it; e.g. tile=16x16x32,waves=1x1,stages=1,mfma=16x16x32,splitk=2,path=direct,c=direct,remap=1,groupm=0,"
       "kind=plain: [tile] split_k: 2 slices of a grouped GEMM are not simulated (the wave program's addresses are "
       "linear in the workgroup's grid coordinates, and z would be group x 2 + slice); use split_k = 1\n"},
      /* tile=BMxBN leaves BK to the legal config (a review: the example's BK was 0, "an incomplete
       * config") */
      {"predict grouped-gemm 4096x4096x4096 --groups 4 --arch mi355x --db /nonexistent --config tile=64x64,splitk=2",
       "flysim predict: --config tile=64x64,splitk=2: no legal configuration of grouped-gemm 4096x4096x4096 bf16 on "
       "MI355X has splitk=2; e.g. tile=64x64x32,waves=1x1,stages=1,mfma=16x16x32,splitk=2,path=direct,c=lds,remap=1,"
       "groupm=0,kind=plain: [tile] split_k: 2 slices of a grouped GEMM are not simulated (the wave program's "
       "addresses are linear in the workgroup's grid coordinates, and z would be group x 2 + slice); use split_k = 1\n"},
      /* nothing at all is legal: the keys are not named as the reason (they once were, with an
       * example that contradicted them) */
      {"predict gemm 256x256x256 --arch mi355x --db /nonexistent --config tile=64x64x64,waves=2x2 --set "
       "cu.max_vgprs=8",
       "flysim predict: --config tile=64x64x64,waves=2x2: no configuration of gemm 256x256x256 bf16 on MI355X is "
       "legal, whatever --config fixes; e.g. tile=16x16x32,waves=1x1,stages=1,mfma=v_mfma_f32_16x16x32_bf16,splitk=1,"
       "path=direct,c=lds,kind=plain: [tile] bm: the tile needs an estimated 32 VGPRs per wave, more than 8\n"},
      /* a tile no atom divides, and a scaled GEMM's BK (until 2026-11-30 both without a reason) */
      {"predict gemm 1024x1024x1024 --arch mi355x --db /nonexistent --config tile=128x128x63",
       "flysim predict: --config tile=128x128x63: no bf16 x bf16 matrix instruction of gfx950 divides the tile (their "
       "M x N x K: 16x16x32, 32x32x16, 16x16x16, 32x32x8)\n"},
      {"predict gemm 200x136x264 --arch mi355x --db /nonexistent --mode model --config tile=17x17x32",
       "flysim predict: --config tile=17x17x32: no bf16 x bf16 matrix instruction of gfx950 divides the tile (their "
       "M x N x K: 16x16x32, 32x32x16, 16x16x16, 32x32x8)\n"},
      {"predict scaled-gemm 256x256x256 --dtype fp8 --arch mi355x --db /nonexistent --mode model --config tile=64x64x64",
       "flysim predict: --config tile=64x64x64: BK 64; a scaled GEMM's tiles hold whole 128-value scale groups (BK a "
       "multiple of 128)\n"},
      {"predict gemm 64x64x64 --arch mi355x --b-dtype fp8",
       "flysim predict: --b-dtype fp8: a gemm takes A and B of one type (A is bf16; scaled-gemm mixes fp8 and fp4)\n"},
      {"predict gemm 64x64x64 --arch mi355x --dtype fp16 --b-dtype bf16",
       "flysim predict: --b-dtype bf16: a gemm takes A and B of one type (A is fp16; scaled-gemm mixes fp8 and fp4)\n"},
      {"predict scaled-gemm 64x64x128 --arch mi355x --b-dtype bf16",
       "flysim predict: --b-dtype: a scaled GEMM takes fp8 (E4M3) or fp4 (E2M1) operands, not bf16\n"},
      {"predict gemm 64x64x64 --arch mi355x --config swizzle=3,4,2",
       "flysim predict: --config swizzle=3,4,2: expected |S| at least B (the XOR's bits must not overlap)\n"},
      {"predict gemm 64x64x64 --arch mi355x --config swizzle=11,4,4",
       "flysim predict: --config swizzle=11,4,4: expected B and M from 0 to 10 and S from -10 to 10\n"},
      {"predict gemm 64x64x64 --arch mi355x --config swizzle=2,4",
       "flysim predict: --config swizzle=2,4: expected auto, none, B,M,S or B:M:S\n"},
      {"predict gemm 64x64x64 --arch mi355x --config swizzle=+1,+3,+3", /* digits, as the other numbers */
       "flysim predict: --config swizzle=+1,+3,+3: expected auto, none, B,M,S or B:M:S\n"},
      /* a name holding another atom's shape (6x16x32 in 16x16x32) is not taken for it */
      {"predict gemm 64x64x64 --arch mi355x --config mfma=v_mfma_f32_6x16x32_bf16",
       "flysim predict: --config mfma=v_mfma_f32_6x16x32_bf16: expected MxNxK (16x16x32) or an atom name (docs/atoms.md "
       "lists them)\n"},
      /* a problem that falls back has its config read: a value outside its key's own range */
      {"predict scaled-gemm 256x256x7 --dtype fp8 --arch mi355x --config stages=9",
       "flysim predict: --config stages=9: expected an integer from 1 to 8\n"},
      {"predict gemm 256x256x256 --arch mi355x --db /nonexistent --config tile=100x100x64",
       "flysim predict: --config tile=100x100x64: no bf16 x bf16 matrix instruction of gfx950 divides the tile (their "
       "M x N x K: 16x16x32, 32x32x16, 16x16x16, 32x32x8)\n"},
  };
  expect_usage_errors(bad, sizeof bad / sizeof bad[0]);
  /* but not checked as a kernel, since no kernel of the family takes the problem (docs/cli.md):
   * the tile refused above for 256x256x256 passes where the problem falls back */
  static const char *const fallbacks[] = {"scaled-gemm 256x256x7 --dtype fp8", "gemm 255x255x255"};
  for (int i = 0; i < 2; i++) {
    char fb[300];
    snprintf(fb, sizeof fb, "predict %s --arch mi355x --db /nonexistent --json --config tile=100x100x64", fallbacks[i]);
    tu_run f = tu_flysim(fb);
    ck_assert_msg(f.status == 0, "%s: %s", fb, f.err);
    json_t *fj = tu_json(&f);
    ck_assert_str_eq(json_string_value(json_object_get(fj, "backend")), "fallback");
    json_decref(fj);
    tu_run_free(&f);
  }
  /* swizzle=B,M,S (or B:M:S) is one key, wherever it stands */
  fsim_gemm_config c;
  fsim_err e;
  ck_assert_msg(fsim_gemm_config_parse("tile=64x64x64,swizzle=2,4,4,stages=2", &c, &e) == FSIM_OK, "%s", e.msg);
  ck_assert_str_eq(c.swizzle, "2,4,4");
  ck_assert_int_eq(c.stages, 2);
  ck_assert_int_eq(c.bm, 64);
  ck_assert(fsim_gemm_config_parse("swizzle=3:4:-3", &c, &e) == FSIM_OK);
  ck_assert_str_eq(c.swizzle, "3,4,-3");
  /* and it reaches the kernel: a fixed swizzle changes the simulated time of the same tile */
  const char *cfg = "tile=64x64x64,waves=2x2,stages=2,mfma=16x16x32,splitk=1,path=direct,c=lds,kind=plain";
  char args[600];
  double t[2];
  for (int i = 0; i < 2; i++) {
    snprintf(args, sizeof args, "predict gemm 256x256x256 --arch mi355x --db /nonexistent --json --config %s,%s", cfg,
             i == 0 ? "swizzle=none" : "swizzle=2,4,4");
    t[i] = tu_json_number(args, "time_us");
  }
  ck_assert(t[0] > 0 && t[1] > 0 && t[0] != t[1]);
  /* the config text keeps a fixed swizzle, so the stored winner is the kernel tuned: predict
   * without --config gives the same time as with the swizzle */
  const char *db = db_path();
  snprintf(args, sizeof args, "tune gemm 256x256x256 --arch mi355x --db %s --config %s,swizzle=2,4,4 --json", db, cfg);
  tu_run r = tu_flysim(args);
  ck_assert_msg(r.status == 0, "%s", r.err);
  ck_assert_msg(strstr(r.out, "kind=plain,swizzle=2,4,4\"") != NULL, "%.400s", r.out);
  tu_run_free(&r);
  snprintf(args, sizeof args, "predict gemm 256x256x256 --arch mi355x --db %s --json", db);
  r = tu_flysim(args);
  ck_assert_msg(r.status == 0, "%s", r.err);
  json_t *j = tu_json(&r);
  ck_assert_str_eq(json_string_value(json_object_get(j, "config_source")), "database");
  ck_assert(json_real_value(json_object_get(j, "time_us")) == t[1]);
  json_decref(j);
  tu_run_free(&r);
}
END_TEST

/* predict --timeline onto link, a symbolic link to target: refused (status 2) with want in
 * the message; the link is removed. */
static void timeline_link_refused(const char *link, const char *target, const char *want) {
  char args[1300];
  ck_assert_int_eq(symlink(target, link), 0);
  snprintf(args, sizeof args, "predict gemm 64x64x64 --arch mi355x --timeline %s", link);
  tu_run r = tu_flysim(args);
  ck_assert_int_eq(r.status, 2);
  ck_assert_msg(strstr(r.err, want) != NULL, "%s", r.err);
  tu_run_free(&r);
  unlink(link);
}

/* Invalid input creates no database; outputs never overwrite inputs; other databases are refused. */
/* An output file its user may not write (mode 0444) is refused, not replaced by the rename
 * that writes outputs whole: a user other than root runs flysim (here as nobody, through
 * setpriv, when the tests run as root, whom no mode stops). */
START_TEST(test_cli_write_protected) {
  const char *prefix = "";
  if (geteuid() == 0) {
    if (system("setpriv --version > /dev/null 2>&1") != 0) return; /* util-linux: on every Debian */
    prefix = "setpriv --reuid=65534 --regid=65534 --clear-groups";
    tu_run probe = tu_flysim_via(prefix, "arch show mi355x");
    int can = probe.status == 0;
    tu_run_free(&probe);
    if (!can) { /* the build or the arch files lie where nobody may not read them */
      fprintf(stderr, "check_tune: write-protected outputs not checked: flysim cannot run as nobody here\n");
      return;
    }
  }
  char dir[256];
  const char *tmp = getenv("TMPDIR");
  snprintf(dir, sizeof dir, "%s/flysim-test-roXXXXXX", tmp && *tmp ? tmp : "/tmp");
  ck_assert_ptr_nonnull(mkdtemp(dir));
  ck_assert_int_eq(chmod(dir, 0777), 0);
  char path[300], args[600];
  if (*prefix) { /* nobody must reach the folder (a parent nobody cannot search would refuse for that) */
    char probe[800];
    snprintf(probe, sizeof probe, "%s sh -c 'touch \"%s/probe\" && rm \"%s/probe\"' 2>/dev/null", prefix, dir, dir);
    if (system(probe) != 0) {
      fprintf(stderr, "check_tune: write-protected outputs not checked: nobody cannot write in %s\n", dir);
      ck_assert_int_eq(rmdir(dir), 0);
      return;
    }
  }
  snprintf(path, sizeof path, "%s/kept.hip", dir);
  FILE *f = fopen(path, "w");
  ck_assert_ptr_nonnull(f);
  fputs("mine\n", f);
  fclose(f);
  ck_assert_int_eq(chmod(path, 0444), 0);
  static const char *const cmds[] = {"emit gemm 256x256x256 --arch mi355x --db /nonexistent -o '%s'",
                                     "predict gemm 256x256x256 --arch mi355x --db /nonexistent --timeline '%s'"};
  static const char *const what[] = {"flysim emit: -o: %s: cannot write: Permission denied\n",
                                     "flysim predict: --timeline: %s: cannot write: Permission denied\n"};
  for (int i = 0; i < 2; i++) {
    snprintf(args, sizeof args, cmds[i], path);
    tu_run r = tu_flysim_via(prefix, args);
    char want[400];
    snprintf(want, sizeof want, what[i], path);
    ck_assert_int_eq(r.status, 2);
    ck_assert_str_eq(r.err, want);
    ck_assert_str_eq(r.out, "");
    tu_run_free(&r);
    char *kept = tu_read_file(path);
    ck_assert_str_eq(kept, "mine\n");
    free(kept);
  }
  /* writable, the same file is written */
  ck_assert_int_eq(chmod(path, 0666), 0);
  snprintf(args, sizeof args, cmds[0], path);
  tu_run r = tu_flysim_via(prefix, args);
  ck_assert_msg(r.status == 0, "%s", r.err);
  tu_run_free(&r);
  char *made = tu_read_file(path);
  ck_assert_ptr_nonnull(strstr(made, "__global__"));
  free(made);
  ck_assert_int_eq(unlink(path), 0);
  /* a database of flysim 0.1 (WAL mode) that its reader may not write: read, with no log or
   * index left beside it, which would block its owner's next tune (an audit's) */
  char wal[400];
  snprintf(path, sizeof path, "%s/old.db", dir);
  one_winner_db(path);
  sqlite3 *h;
  ck_assert_int_eq(sqlite3_open(path, &h), SQLITE_OK);
  ck_assert_int_eq(sqlite3_exec(h, "PRAGMA journal_mode=WAL;", NULL, NULL, NULL), SQLITE_OK);
  sqlite3_close(h);
  ck_assert_int_eq(chmod(path, 0444), 0);
  /* the path as given, and with a second leading slash (an SQLite URI took "//tmp" for an
   * authority) */
  for (int twice = 0; twice < 2; twice++) {
    snprintf(args, sizeof args, "db list --db %s%s --json", twice && path[0] == '/' ? "/" : "", path);
    r = tu_flysim_via(prefix, args);
    ck_assert_msg(r.status == 0, "%s", r.err);
    json_t *j = tu_json(&r);
    ck_assert_int_eq(json_array_size(json_object_get(j, "entries")), 1);
    json_decref(j);
    tu_run_free(&r);
  }
  struct stat sb;
  snprintf(wal, sizeof wal, "%s-wal", path);
  ck_assert_msg(stat(wal, &sb) != 0, "%s left behind", wal);
  snprintf(wal, sizeof wal, "%s-shm", path);
  ck_assert_msg(stat(wal, &sb) != 0, "%s left behind", wal);
  ck_assert_int_eq(unlink(path), 0);
  ck_assert_int_eq(rmdir(dir), 0);
}
END_TEST

START_TEST(test_cli_db_safety) {
  char args[1500];
  const char *db = db_path();
  static const char *const cfgs[] = {"waves=3x3", "tile=1024x1024x1024"};
  for (int i = 0; i < 2; i++) {
    snprintf(args, sizeof args, "tune gemm 256x256x256 --arch mi355x --db %s --config %s", db, cfgs[i]);
    tu_run r = tu_flysim(args);
    ck_assert_int_eq(r.status, 2);
    ck_assert_ptr_nonnull(strstr(r.err, cfgs[i]));
    ck_assert_msg(access(db, F_OK) != 0, "%s: the database was created", cfgs[i]);
    tu_run_free(&r);
  }
  tu_run r = tu_flysim("tune gemm 64x64x64 --arch mi355x --db /nonexistent/dir/x.db");
  ck_assert_int_eq(r.status, 2);
  ck_assert_str_eq(r.err, "flysim tune: --db /nonexistent/dir/x.db: cannot create it: No such file or directory\n");
  tu_run_free(&r);
  /* a path from $FLYSIM_DB is named as such, not as --db */
  char *harness_db = env_set("FLYSIM_DB", "/");
  r = tu_flysim("db list");
  env_restore("FLYSIM_DB", harness_db);
  ck_assert_int_eq(r.status, 2);
  ck_assert_str_eq(r.err, "flysim db: $FLYSIM_DB /: is a directory\n");
  tu_run_free(&r);
  /* a dangling symbolic link is refused by readers too, not read as a missing database */
  const char *dangling = db_path();
  ck_assert(symlink("/nonexistent-flysim-target.db", dangling) == 0);
  snprintf(args, sizeof args, "db list --db %s", dangling);
  tu_expect_err(args, 2, "flysim db: --db %s: a symbolic link to a file that does not exist\n", dangling);
  unlink(dangling);
  /* -o goes with export only */
  r = tu_flysim("db show gemm 64x64x64 --arch mi355x --db /nonexistent -o x.json");
  ck_assert_int_eq(r.status, 2);
  ck_assert_str_eq(r.err, "flysim db: -o goes with export\n");
  tu_run_free(&r);
  /* a database with one winner; export onto itself is refused and leaves it readable */
  one_winner_db(db);
  snprintf(args, sizeof args, "db export --db %s -o %s", db, db);
  r = tu_flysim(args);
  ck_assert_int_eq(r.status, 2);
  char want[1200];
  snprintf(want, sizeof want, "flysim db: -o %s: the same file as --db %s; refusing to overwrite an input\n", db, db);
  ck_assert_str_eq(r.err, want);
  tu_run_free(&r);
  snprintf(args, sizeof args, "db list --db %s --json", db);
  r = tu_flysim(args);
  ck_assert_int_eq(r.status, 0);
  json_t *j = tu_json(&r);
  ck_assert_int_eq(json_array_size(json_object_get(j, "entries")), 1);
  json_decref(j);
  tu_run_free(&r);
  /* a report that cannot reach standard output is a failure, with the reason */
  if (access("/dev/full", W_OK) == 0) {
    snprintf(args, sizeof args, "db list --db %s --json >/dev/full", db);
    r = tu_flysim(args);
    ck_assert_int_eq(r.status, 1);
    ck_assert_str_eq(r.err, "flysim: standard output: No space left on device\n");
    tu_run_free(&r);
  }
  snprintf(args, sizeof args, "predict gemm 64x64x64 --arch mi355x --db %s --timeline %s", db, db);
  r = tu_flysim(args);
  ck_assert_int_eq(r.status, 2);
  ck_assert_ptr_nonnull(strstr(r.err, "the same file as --db"));
  tu_run_free(&r);
  /* emit -o onto its --schedule, sim --timeline onto its FILE: refused, the input unchanged */
  char *sched = tu_read_file(tu_src_path("kernels/schedules/flydsl_bf16_gemm_gfx950.sched"));
  const char *copy = tu_write_temp(sched, ".sched");
  snprintf(args, sizeof args, "emit gemm --schedule %s --arch mi355x -o %s", copy, copy);
  r = tu_flysim(args);
  ck_assert_int_eq(r.status, 2);
  ck_assert_ptr_nonnull(strstr(r.err, "the same file as --schedule"));
  char *left = tu_read_file(copy);
  ck_assert_str_eq(left, sched);
  free(left);
  free(sched);
  unlink(copy);
  tu_run_free(&r);
  char *wp = tu_read_file(tu_src_path("traces/examples/mfma_chain.wp"));
  copy = tu_write_temp(wp, ".wp");
  snprintf(args, sizeof args, "sim %s --arch mi355x --timeline %s", copy, copy);
  r = tu_flysim(args);
  ck_assert_int_eq(r.status, 2);
  ck_assert_ptr_nonnull(strstr(r.err, "the same file as FILE"));
  left = tu_read_file(copy);
  ck_assert_str_eq(left, wp);
  free(left);
  free(wp);
  unlink(copy);
  tu_run_free(&r);
  unlink(db);
  /* SQLite files that are not this schema: exit 2, one line, nothing written */
  static const struct {
    const char *sql, *why;
  } other[] = {
      {"CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);"
       "INSERT INTO meta VALUES ('format', 'flysim-tuning'), ('schema', '1');",
       "not a flysim tuning database (it has no winners table)"},
      {"CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);"
       "INSERT INTO meta VALUES ('format', 'flysim-tuning'), ('schema', '3'); CREATE TABLE winners (x);",
       "schema version '3' is not one this flysim reads and writes (1, 2)"},
  };
  for (int i = 0; i < 2; i++) {
    const char *path = db_path();
    sqlite3 *s3;
    ck_assert_int_eq(sqlite3_open(path, &s3), SQLITE_OK);
    ck_assert_int_eq(sqlite3_exec(s3, other[i].sql, NULL, NULL, NULL), SQLITE_OK);
    sqlite3_close(s3);
    static const char *const cmds[] = {"db list --db %s", "db export --db %s",
                                       "predict gemm 64x64x64 --arch mi355x --mode model --db %s", NULL};
    static const char *const who[] = {"db", "db", "predict"};
    for (int k = 0; cmds[k]; k++) {
      snprintf(args, sizeof args, cmds[k], path);
      r = tu_flysim(args);
      ck_assert_msg(r.status == 2, "%s: status %d", args, r.status);
      snprintf(want, sizeof want, "flysim %s: --db %s: %s\n", who[k], path, other[i].why);
      ck_assert_str_eq(r.err, want);
      ck_assert_str_eq(r.out, "");
      tu_run_free(&r);
    }
    if (i == 1) { /* tune adds nothing to a database of another version */
      snprintf(args, sizeof args, "tune gemm 64x64x64 --arch mi355x --db %s", path);
      r = tu_flysim(args);
      ck_assert_int_eq(r.status, 2);
      tu_run_free(&r);
      ck_assert_int_eq(sqlite3_open(path, &s3), SQLITE_OK);
      sqlite3_stmt *q;
      ck_assert_int_eq(sqlite3_prepare_v2(s3, "SELECT count(*) FROM pragma_table_info('winners');", -1, &q, NULL),
                       SQLITE_OK);
      ck_assert_int_eq(sqlite3_step(q), SQLITE_ROW);
      ck_assert_int_eq(sqlite3_column_int(q, 0), 1);
      sqlite3_finalize(q);
      sqlite3_close(s3);
    }
    unlink(path);
  }
  /* an output path that is a symbolic link: the file it names is written (mode kept), the
   * link stays; a link in /dev (/dev/stdout) and a dangling one are refused */
  const char *real = tu_write_temp("old\n", ".json");
  ck_assert_int_eq(chmod(real, 0640), 0); /* not mkstemp's 0600: the test sees the mode kept */
  char link[1100];
  snprintf(link, sizeof link, "%s.link", real);
  unlink(link);
  ck_assert_int_eq(symlink(real, link), 0);
  snprintf(args, sizeof args,
           "predict gemm 64x64x64 --arch mi355x --config tile=64x64x64,waves=2x2,stages=2,mfma=16x16x32,splitk=1 "
           "--timeline %s", link);
  r = tu_flysim(args);
  ck_assert_msg(r.status == 0, "%s", r.err);
  tu_run_free(&r);
  struct stat sb;
  ck_assert_int_eq(lstat(link, &sb), 0);
  ck_assert(S_ISLNK(sb.st_mode));
  ck_assert_int_eq(stat(real, &sb), 0);
  ck_assert_int_eq((int)(sb.st_mode & 0777), 0640);
  char *trace = tu_read_file(real);
  ck_assert_ptr_nonnull(strstr(trace, "traceEvents"));
  free(trace);
  unlink(link);
  unlink(real);
  timeline_link_refused(link, "/nonexistent/dir/t.json",
                        "a symbolic link to /nonexistent/dir/t.json: No such file or directory");
  r = tu_flysim("predict gemm 64x64x64 --arch mi355x --timeline /dev/stdout");
  ck_assert_int_eq(r.status, 2);
  ck_assert_str_eq(r.err, "flysim predict: --timeline: /dev/stdout: not a regular file\n");
  tu_run_free(&r);
  /* nor a link elsewhere that leads there, nor the file standard output goes to */
  timeline_link_refused(link, "/dev/stdout", ": not a regular file");
  /* nor one whose folder resolves into /proc or /dev, however it is written (an audit replaced
   * the file on standard input through /./proc/self/fd/0 and a relative link there) */
  const char *victim = tu_write_temp("precious\n", ".txt");
  static const char *const ways[] = {"/./proc/self/fd/0", "/tmp/../dev/stdin", "//proc/self/fd/0"};
  for (size_t i = 0; i < sizeof ways / sizeof ways[0]; i++) {
    snprintf(args, sizeof args, "emit gemm 64x64x64 --arch mi355x --db /nonexistent -o %s <%s", ways[i], victim);
    r = tu_flysim(args);
    ck_assert_int_eq(r.status, 2);
    snprintf(want, sizeof want, "flysim emit: -o: %s: not a regular file\n", ways[i]);
    ck_assert_str_eq(r.err, want);
    tu_run_free(&r);
  }
  timeline_link_refused(link, "../../../../../../../../../../proc/self/fd/0", ": not a regular file");
  char *kept = tu_read_file(victim);
  ck_assert_str_eq(kept, "precious\n");
  free(kept);
  /* a name of 249 bytes, which the temporary file's suffix would push past the 255 a folder
   * allows (refused as too long until 2026-12-02): written, with no temporary file left */
  {
    const char *dir = getenv("TMPDIR");
    char name[300], longpath[1400];
    memset(name, 'a', 245);
    snprintf(name + 245, sizeof name - 245, ".hip");
    snprintf(longpath, sizeof longpath, "%s/%s", dir && *dir ? dir : "/tmp", name);
    snprintf(args, sizeof args, "emit gemm 64x64x64 --arch mi355x --db /nonexistent -o %s", longpath);
    r = tu_flysim(args);
    ck_assert_msg(r.status == 0, "%s", r.err);
    tu_run_free(&r);
    struct stat lb;
    ck_assert_int_eq(stat(longpath, &lb), 0);
    unlink(longpath);
    snprintf(args, sizeof args, "ls -a '%s' | grep -q flysim-tmp", dir && *dir ? dir : "/tmp");
    ck_assert_msg(system(args) != 0, "a temporary file was left in %s", dir && *dir ? dir : "/tmp");
  }
  const char *report = tu_write_temp("", ".txt");
  snprintf(args, sizeof args, "predict gemm 64x64x64 --arch mi355x --timeline %s >%s", report, report);
  r = tu_flysim(args);
  ck_assert_int_eq(r.status, 2);
  ck_assert_ptr_nonnull(strstr(r.err, ": the file standard output or standard error goes to"));
  tu_run_free(&r);
  unlink(report);
}
END_TEST

/* tune's help does not offer --schedule, which it refuses; predict's does. */
/* Found by an audit (2026-11-30): the tuner simulated a candidate ranked below --top (rank 11
 * of 16x28672x4096 won with the default 10) and neither the table nor the JSON listed the
 * winner; and the model's report left out its per-iteration DRAM term, which decides a decode
 * iteration (3292 of the 3412 cycles below, bound hbm).  With --top 1 the simulated
 * candidates ranked 2 to 4 follow the first. */
START_TEST(test_cli_simulated_rows_and_dram) {
  tu_run r = tu_flysim("tune gemm 16x28672x4096 --arch mi355x --no-db --top 1 --json");
  ck_assert_msg(r.status == 0, "%s", r.err);
  json_t *j = tu_json(&r);
  const char *best = json_string_value(json_object_get(json_object_get(j, "best"), "config"));
  json_t *cs = json_object_get(j, "candidates");
  int found = 0, simulated = 0;
  for (size_t i = 0; i < json_array_size(cs); i++) {
    json_t *c = json_array_get(cs, i);
    found += strcmp(json_string_value(json_object_get(c, "config")), best) == 0;
    simulated += json_is_real(json_object_get(c, "sim_us"));
  }
  ck_assert_int_eq(found, 1);
  ck_assert_int_eq(simulated, 4);
  ck_assert_int_eq(json_array_size(cs), 4);
  json_decref(j);
  tu_run_free(&r);
  r = tu_flysim("tune gemm 16x28672x4096 --arch mi355x --no-db --top 1");
  ck_assert_msg(r.status == 0, "%s", r.err);
  ck_assert_ptr_nonnull(strstr(r.out, "<- best"));
  tu_run_free(&r);
  r = tu_flysim("predict gemm 1x6144x4096 --arch mi355x --mode model --db /nonexistent --json --config "
                "tile=16x64x512,waves=1x2,stages=2,mfma=16x16x16,splitk=2,path=direct,c=direct,remap=1,groupm=0,kind=plain");
  ck_assert_msg(r.status == 0, "%s", r.err);
  j = tu_json(&r);
  json_t *m = json_object_get(j, "model");
  ck_assert_ptr_nonnull(m);
  json_t *it = json_object_get(m, "iteration_cycles");
  ck_assert_ptr_nonnull(it);
  ck_assert_int_eq((int)(json_real_value(json_object_get(it, "dram")) + 0.5), 3292);
  ck_assert_int_eq((int)(json_real_value(json_object_get(it, "total")) + 0.5), 3412);
  json_decref(j);
  tu_run_free(&r);
}
END_TEST

/* The model's time of one config on a problem and on a larger one (--mode model). */
static double model_us(const char *shape, const char *cfg) {
  char args[600];
  snprintf(args, sizeof args, "predict gemm %s --arch mi355x --mode model --db /nonexistent --json --config %s", shape, cfg);
  tu_run r = tu_flysim(args);
  ck_assert_msg(r.status == 0, "%s", r.err);
  json_t *j = tu_json(&r);
  double t = json_real_value(json_object_get(j, "time_us"));
  json_decref(j);
  tu_run_free(&r);
  return t;
}

/* An audit (2026-11-30) found the model predicting more work faster where a CU's second
 * workgroup runs on other SIMDs: fillers counted every workgroup as hiding a workgroup's gaps,
 * and the one-stage network queued them for one compute station.  The ping-pong case is now
 * slower for the larger problem (433.0 -> 481.4 us; it was 381.5), the one-stage one within
 * 5% (9.160 -> 8.716 us; it was 7.584; the simulator says 8.145 -> 8.167). */
START_TEST(test_model_more_work_not_much_faster) {
  static const char pp[] = "tile=64x256x32,waves=1x2,stages=4,mfma=32x32x8,splitk=1,path=registers,c=lds,kind=pingpong,"
                           "remap=1,groupm=0";
  double a = model_us("512x6144x14336", pp), b = model_us("1024x6144x14336", pp);
  ck_assert_msg(b >= a, "%g then %g us", a, b);
  static const char one[] = "tile=32x128x128,waves=1x1,stages=1,mfma=32x32x8,splitk=4,path=direct,c=lds,kind=plain,"
                            "remap=0,groupm=4";
  a = model_us("1x8192x1024", one);
  b = model_us("1x8320x1024", one);
  ck_assert_msg(b >= 0.94 * a, "%g then %g us", a, b);
}
END_TEST

/* The L2 terms count the workgroups an XCD runs, not one a CU: 16x4096x4096 on 128x128 tiles
 * is 32 workgroups, 4 an XCD, and the model once charged the L2 for 32 an XCD, predicting the
 * MI355X L2-bound at 35.9 us and faster with 64 CUs than with 256 (33.5 us). */
START_TEST(test_model_l2_counts_resident_workgroups) {
  static const char cfg[] = "tile=128x128x64,waves=2x2,stages=2,mfma=16x16x32,splitk=1,path=direct,c=direct,kind=plain,"
                            "remap=0,groupm=0";
  char fewer[400];
  snprintf(fewer, sizeof fewer, "%s --set device.cus=64", cfg);
  double all = model_us("16x4096x4096", cfg), quarter = model_us("16x4096x4096", fewer);
  ck_assert_msg(quarter >= all, "256 CUs %g us, 64 CUs %g us", all, quarter);
  ck_assert_msg(fabs(all - 33.447) < 0.01, "%g us", all);
}
END_TEST

/* The dispatcher launches an XCD's workgroups wg_launch_cycles apart (sim/gpu.c), which holds
 * small tiles on a large grid: 2048x2048x32 on 16x16 tiles, 16,384 workgroups, simulates
 * (--full) to 22.198 us, latency-bound.  The model charged the launches of the first batch
 * only and said 12.4 us (an audit: 94.0 against 320.2 us at 8192x8192x32); it now names the
 * launches as the bound. */
START_TEST(test_model_launch_bound) {
  static const char cfg[] = "tile=16x16x32,waves=1x1,stages=1,mfma=16x16x32,splitk=1,path=direct,c=direct,kind=plain,"
                            "remap=1,groupm=0";
  char args[600];
  snprintf(args, sizeof args, "predict gemm 2048x2048x32 --arch mi355x --db /nonexistent --json --full --config %s", cfg);
  tu_run r = tu_flysim(args);
  ck_assert_msg(r.status == 0, "%s", r.err);
  json_t *j = tu_json(&r);
  double sim = json_real_value(json_object_get(j, "time_us"));
  json_t *m = json_object_get(j, "model");
  double model = json_real_value(json_object_get(m, "time_us"));
  ck_assert_msg(fabs(sim - 22.198) < 0.001, "simulated %g us", sim);
  ck_assert_msg(fabs(model / sim - 1) < 0.03, "model %g us, simulated %g us", model, sim);
  ck_assert_str_eq(json_string_value(json_object_get(m, "bound")), "launch");
  /* the launches: (16,384 / 8 - 1) x 16 cycles, and a workgroup's time */
  double launch = json_real_value(json_object_get(m, "launch_cycles"));
  ck_assert_msg(launch > 2047.0 * 16 && launch < 2047.0 * 16 + 5000, "%g cycles", launch);
  json_decref(j);
  tu_run_free(&r);
}
END_TEST

/* A copy's latency is hidden by the copy_lead iterations after it, exposure included: a
 * latency-bound decode GEMM (1x4096x4096 fp8, 32x64x32 on 1x4 waves) with 2, 3 and 4 stages
 * simulates (--full) to 31.81, 23.85 and 20.86 us; the model said 52.1, 49.3 and 46.5 when
 * the lead covered the iterations' work only, then 28.65, 19.91 and 15.54, and since the L1
 * term charges the whole lines its 32-byte K rows touch 30.98, 21.46 and 20.11. */
START_TEST(test_model_copy_lead_latency) {
  static const double sim_us[] = {31.81, 23.85, 20.86}, model_now[] = {30.977, 21.460, 20.114};
  for (int st = 2; st <= 4; st++) {
    char cfg[300];
    snprintf(cfg, sizeof cfg, "tile=32x64x32,waves=1x4,stages=%d,mfma=16x16x32,splitk=1,path=direct,c=direct,"
                              "kind=plain,remap=1,groupm=0", st);
    double t = model_us("1x4096x4096 --dtype fp8", cfg);
    ck_assert_msg(fabs(t - model_now[st - 2]) < 0.01, "stages %d: %g us", st, t);
    ck_assert_msg(t < 1.1 * sim_us[st - 2], "stages %d: %g us against the simulator's %g", st, t, sim_us[st - 2]);
  }
  /* copies through registers are issued at the start of a K step and waited for at its end:
   * their lead is that step's work, not a whole iteration with its exposed time (counted so,
   * 32x4096x14336 on 32x64x64 tiles came out 63.1 us against the simulator's 125.9; now 97.77) */
  double t = model_us("32x4096x14336", "tile=32x64x64,waves=2x2,stages=4,mfma=16x16x32,splitk=1,path=registers,"
                                       "c=direct,remap=1,groupm=0,kind=plain");
  ck_assert_msg(fabs(t - 97.768) < 0.01, "%g us", t);
}
END_TEST

/* Inputs an audit (2026-11-30) found getting past the contract: a --set name holding a newline
 * (it became a line of code in an emitted kernel), a wave size the simulator's 64-bit lane
 * masks cannot hold, byte counts past 64 bits, a --timeline checked only after tuning, and
 * --sampled with --full given to verify. */
/* Feeds text to a FIFO for one reader (a child process) and runs flysim on it.  A reader that
 * opened it again would block: the child opens it once more after 10 s, with nothing to say,
 * so that such a run fails (an empty file) rather than hanging. */
static tu_run run_on_fifo(const char *text, const char *fmt_args) {
  char dir[] = "/tmp/check-tune-fifo-XXXXXX", fifo[64], args[512];
  ck_assert(mkdtemp(dir) != NULL);
  snprintf(fifo, sizeof fifo, "%s/in", dir);
  ck_assert_int_eq(mkfifo(fifo, 0600), 0);
  pid_t kid = fork();
  ck_assert(kid >= 0);
  if (kid == 0) {
    FILE *f = fopen(fifo, "w");
    if (f == NULL) _exit(1);
    fputs(text, f);
    fclose(f);
    sleep(10);
    f = fopen(fifo, "w");
    if (f) fclose(f);
    _exit(0);
  }
  snprintf(args, sizeof args, fmt_args, fifo);
  tu_run r = tu_flysim(args);
  kill(kid, SIGKILL);
  waitpid(kid, NULL, 0);
  unlink(fifo);
  rmdir(dir);
  return r;
}

/* A file's bytes (NULL when it cannot be read), for comparing a database before and after. */
static unsigned char *file_bytes(const char *path, long *len) {
  FILE *f = fopen(path, "rb");
  if (f == NULL) return NULL;
  unsigned char *b = NULL;
  if (fseek(f, 0, SEEK_END) == 0 && (*len = ftell(f)) >= 0 && fseek(f, 0, SEEK_SET) == 0 &&
      (b = malloc((size_t)*len + 1)) != NULL && fread(b, 1, (size_t)*len, f) != (size_t)*len) {
    free(b);
    b = NULL;
  }
  fclose(f);
  return b;
}

static void expect_same_file(const unsigned char *was, long was_len, const char *path) {
  long len = -1;
  unsigned char *now = file_bytes(path, &len);
  ck_assert_msg(now != NULL && len == was_len && memcmp(now, was, (size_t)len) == 0, "%s changed", path);
  free(now);
}

/* An audit of the tuning database (2026-12-02), each found on the code before it:
 * - a tune that exited 2 had already opened an existing file for writing: an empty file got
 *   flysim's tables, a WAL-mode file (flysim 0.1's) was turned to the rollback journal;
 * - a suite that failed with exit 1 part-way (out of memory at a later problem) stored and
 *   printed the problems before it;
 * - a winners table with flysim's number of columns but another name or key was taken for
 *   flysim's, and failed at a read or write with exit 1;
 * - --groups 1 was taken with --suite and by db list, which refuse every other shape flag;
 * - a file with flysim's meta table and no winners table was refused by readers, and tune
 *   wrote into it. */
START_TEST(test_db_audit_third) {
  char dir[] = "/tmp/check-tune-audit3-XXXXXX", db[96], args[1024];
  ck_assert(mkdtemp(dir) != NULL);
  static const char bad_suite[] = "tune --suite default --arch mi355x --db %s --refine 1 --quiet --config "
                                  "mfma=16x16x16,splitk=128";
  /* an empty file stays empty */
  snprintf(db, sizeof db, "%s/empty.db", dir);
  FILE *f = fopen(db, "w");
  ck_assert(f != NULL && fclose(f) == 0);
  snprintf(args, sizeof args, bad_suite, db);
  tu_run r = tu_flysim(args);
  ck_assert_int_eq(r.status, 2);
  tu_run_free(&r);
  struct stat sb;
  ck_assert(stat(db, &sb) == 0 && sb.st_size == 0);
  /* a WAL-mode flysim file is left as it was, byte for byte */
  snprintf(db, sizeof db, "%s/wal.db", dir);
  snprintf(args, sizeof args, "tune gemm 64x64x64 --arch mi355x --db %s --refine 1 --quiet", db);
  r = tu_flysim(args);
  ck_assert_msg(r.status == 0, "%s", r.err);
  tu_run_free(&r);
  sqlite3 *h = NULL;
  ck_assert_int_eq(sqlite3_open(db, &h), SQLITE_OK);
  ck_assert_int_eq(sqlite3_exec(h, "PRAGMA journal_mode=WAL;", NULL, NULL, NULL), SQLITE_OK);
  ck_assert_int_eq(sqlite3_close(h), SQLITE_OK);
  long wal_len = -1;
  unsigned char *wal = file_bytes(db, &wal_len);
  ck_assert(wal != NULL && wal_len > 100 && wal[18] == 2 && wal[19] == 2);
  snprintf(args, sizeof args, bad_suite, db);
  r = tu_flysim(args);
  ck_assert_int_eq(r.status, 2);
  tu_run_free(&r);
  expect_same_file(wal, wal_len, db);
  free(wal);
  /* a meta table and no winners: refused by tune as by readers, and left as it was */
  snprintf(db, sizeof db, "%s/meta.db", dir);
  ck_assert_int_eq(sqlite3_open(db, &h), SQLITE_OK);
  ck_assert_int_eq(sqlite3_exec(h, "CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL); INSERT INTO meta "
                                   "VALUES ('format', 'flysim-tuning'), ('schema', '2');", NULL, NULL, NULL), SQLITE_OK);
  ck_assert_int_eq(sqlite3_close(h), SQLITE_OK);
  long meta_len = -1;
  unsigned char *meta = file_bytes(db, &meta_len);
  ck_assert(meta != NULL);
  snprintf(args, sizeof args, "db list --db %s", db);
  tu_expect_err(args, 2, "flysim db: --db %s: not a flysim tuning database (it has no winners table)\n", db);
  snprintf(args, sizeof args, "tune gemm 64x64x64 --arch mi355x --db %s --refine 1 --quiet", db);
  tu_expect_err(args, 2, "flysim tune: --db %s: not a flysim tuning database (it has no winners table)\n", db);
  expect_same_file(meta, meta_len, db);
  free(meta);
  /* a winners table of 17 columns that are not flysim's: a renamed column, no primary key */
  static const struct {
    const char *name, *sql, *why;
  } other[] = {
      {"renamed.db", "ALTER TABLE winners RENAME COLUMN version TO ver;", "its winners table's column 16 is 'ver', not 'version'"},
      {"nokey.db",
       "DROP TABLE winners; CREATE TABLE winners (arch TEXT NOT NULL, op TEXT NOT NULL, m INTEGER NOT NULL, n INTEGER NOT "
       "NULL, k INTEGER NOT NULL, groups INTEGER NOT NULL, a_type TEXT NOT NULL, b_type TEXT NOT NULL, c_type TEXT NOT "
       "NULL, layout TEXT NOT NULL, config TEXT NOT NULL, time_us REAL NOT NULL, tflops REAL, model_us REAL, backend "
       "TEXT NOT NULL, version TEXT NOT NULL, compiled_us REAL);",
       "its winners table's primary key differs from flysim's at column 'arch'"},
  };
  for (size_t i = 0; i < sizeof other / sizeof other[0]; i++) {
    snprintf(db, sizeof db, "%s/%s", dir, other[i].name);
    snprintf(args, sizeof args, "tune gemm 64x64x64 --arch mi355x --db %s --refine 1 --quiet", db);
    r = tu_flysim(args);
    ck_assert_msg(r.status == 0, "%s", r.err);
    tu_run_free(&r);
    ck_assert_int_eq(sqlite3_open(db, &h), SQLITE_OK);
    ck_assert_int_eq(sqlite3_exec(h, other[i].sql, NULL, NULL, NULL), SQLITE_OK);
    ck_assert_int_eq(sqlite3_close(h), SQLITE_OK);
    const char *verbs[] = {"db list", "db show gemm 64x64x64 --arch mi355x", "predict gemm 64x64x64 --arch mi355x",
                           "tune gemm 64x64x64 --arch mi355x --refine 1 --quiet"};
    for (size_t v = 0; v < sizeof verbs / sizeof verbs[0]; v++) {
      snprintf(args, sizeof args, "%s --db %s", verbs[v], db);
      char cmd[16];
      snprintf(cmd, sizeof cmd, "%.*s", (int)strcspn(verbs[v], " "), verbs[v]);
      tu_expect_err(args, 2, "flysim %s: --db %s: not a flysim tuning database (%s)\n", cmd, db, other[i].why);
    }
  }
  /* --groups 1 is a shape flag like the others */
  tu_expect_err("tune --suite default --arch mi355x --groups 1 --no-db", 2,
                "flysim tune: --suite: the suite gives the shapes; drop the shape flags\n");
  tu_expect_err("db list --groups 1", 2, "flysim db: list: the shape flags go with show\n");
  /* a suite that runs out of memory part-way stores and prints nothing: the limit on address
   * space that stops it after its first problem is looked for (it depends on the build) */
  snprintf(db, sizeof db, "%s/oom.db", dir);
  int seen = 0;
  for (long kib = 40000; kib <= 400000 && !seen; kib += 20000) {
    char prefix[96];
    snprintf(prefix, sizeof prefix, "ulimit -v %ld; FLYSIM_THREADS=1", kib);
    snprintf(args, sizeof args, "tune --suite default --arch mi355x --db %s --refine 1 --quiet", db);
    r = tu_flysim_via(prefix, args);
    if (r.status == 0) { /* enough memory for the whole suite: no later limit fails */
      tu_run_free(&r);
      break;
    }
    /* flysim's own report of a later problem (a sanitizer build's runtime fails on its own) */
    static const char first[] = "flysim tune: suite problem llama3-8b.qkv.m1 ";
    if (r.status == 1 && strncmp(r.err, "flysim tune: suite problem ", 27) == 0 && strstr(r.err, "out of memory") != NULL &&
        strncmp(r.err, first, sizeof first - 1) != 0) {
      seen = 1;
      ck_assert_msg(strchr(r.err, '\n') == r.err + strlen(r.err) - 1, "%s", r.err);
      ck_assert_str_eq(r.out, "");
      ck_assert_int_ne(access(db, F_OK), 0);
    }
    tu_run_free(&r);
  }
  if (!seen) fprintf(stderr, "check_tune: a suite out of memory part-way not checked: no limit stopped it there\n");
  unlink(db);
  static const char *const made[] = {"empty.db", "wal.db", "meta.db", "renamed.db", "nokey.db"};
  for (size_t i = 0; i < sizeof made / sizeof made[0]; i++) {
    snprintf(db, sizeof db, "%s/%s", dir, made[i]);
    ck_assert_int_eq(unlink(db), 0);
  }
  ck_assert_int_eq(rmdir(dir), 0);
}
END_TEST

/* A second audit of the command line (2026-12-01), each found on the code before it:
 * - tune --suite stored and printed the first problem's winner, then exited 2 on a --config
 *   key the second problem refuses; it did not check a what-if part's memory per problem;
 * - --db file:x.db was an SQLite URI to tune (it wrote x.db) and a name to db list;
 * - sim and verify opened their FILE twice: a FIFO hung, a pipe gave an empty program;
 * - [device] gfx took any text, into kernel names and clang's --offload-arch;
 * - an empty program's sampled deviation printed as "-nan%";
 * - -o=x.hip wrote "=x.hip"; verify --with-hip without the HIP runtime passed as skipped;
 * - a schedule file's too-large [problem] was blamed on --m/--n/--k, and db show pointed to a
 *   --schedule it does not take. */
START_TEST(test_cli_audit_second) {
  char dir[] = "/tmp/check-tune-audit2-XXXXXX", db[96], args[1024];
  ck_assert(mkdtemp(dir) != NULL);
  snprintf(db, sizeof db, "%s/s.db", dir);
  snprintf(args, sizeof args, "tune --suite default --arch mi355x --db %s --refine 1 --quiet --config mfma=16x16x16,splitk=128",
           db);
  tu_run r = tu_flysim(args);
  ck_assert_int_eq(r.status, 2);
  ck_assert_str_eq(r.out, "");
  static const char want_pre[] = "flysim tune: suite problem deepseek-v3.qkv_a.m8 (8x2112x7168): --config "
                                 "mfma=16x16x16,splitk=128: no legal configuration of gemm 8x2112x7168 bf16 on MI355X "
                                 "has splitk=128; ";
  ck_assert_msg(strncmp(r.err, want_pre, sizeof want_pre - 1) == 0, "%s", r.err);
  ck_assert_int_ne(access(db, F_OK), 0);
  tu_run_free(&r);
  snprintf(args, sizeof args, "tune --suite default --arch mi355x --set memory.dram_bytes=200000000 --db %s --json", db);
  tu_expect_err(args, 2,
                "flysim tune: suite problem llama3-8b.gate_up.m16 (16x28672x4096): the operands and result of "
                "16x28672x4096 take 235929600 bytes, more than the 200000000 bytes of memory of MI355X ([memory] "
                "dram_bytes)\n");
  ck_assert_int_ne(access(db, F_OK), 0);
  /* file: names a file */
  char uri[256];
  snprintf(uri, sizeof uri, "cd %s && '%s' tune gemm 64x64x64 --arch mi355x --db file:x.db --refine 1 --quiet >/dev/null", dir,
           getenv("FLYSIM") ? getenv("FLYSIM") : "flysim");
  ck_assert_int_eq(system(uri), 0);
  char made[128];
  snprintf(made, sizeof made, "%s/file:x.db", dir);
  ck_assert_int_eq(access(made, F_OK), 0);
  snprintf(made, sizeof made, "%s/x.db", dir);
  ck_assert_int_ne(access(made, F_OK), 0);
  snprintf(made, sizeof made, "%s/file:x.db", dir);
  unlink(made);
  /* FIFOs, read once */
  char *wp = tu_read_file(tu_src_path("traces/examples/mfma_chain.wp"));
  r = run_on_fifo(wp, "sim %s --arch mi355x --json");
  free(wp);
  ck_assert_msg(r.status == 0, "%s", r.err);
  json_t *j = tu_json(&r);
  ck_assert_int_eq(json_integer_value(json_object_get(j, "wave_instructions")), 4096000);
  json_decref(j);
  tu_run_free(&r);
  char hip[128];
  snprintf(hip, sizeof hip, "%s/k.hip", dir);
  snprintf(args, sizeof args, "emit gemm 256x256x256 --arch mi355x -o %s", hip);
  r = tu_flysim(args);
  ck_assert_msg(r.status == 0, "%s", r.err);
  tu_run_free(&r);
  char *k = tu_read_file(hip);
  r = run_on_fifo(k, "verify %s --arch mi355x --json");
  free(k);
  ck_assert_msg(r.status == 0, "%s\n%s", r.err, r.out);
  j = tu_json(&r);
  ck_assert(json_is_true(json_object_get(j, "ok")));
  json_decref(j);
  tu_run_free(&r);
  unlink(hip);
  /* gfx */
  tu_expect_err("arch show mi355x --set 'device.gfx=a;b'", 2,
                "flysim arch: --set device.gfx=a;b: [device] gfx: 'a;b' is not an LLVM AMDGPU target name (gfx942, "
                "gfx950, gfx90a, gfx1201)\n");
  r = tu_flysim("arch show mi355x --set device.gfx=gfx90a");
  ck_assert_int_eq(r.status, 0);
  tu_run_free(&r);
  /* no relative deviation of nothing */
  const char *empty = tu_write_temp("kernel k\ngrid 1\nprogram\n  loop 1\n  end\n", ".wp");
  snprintf(args, sizeof args, "sim %s --arch mi355x --sampled --compare-full", empty);
  r = tu_flysim(args);
  ck_assert_int_eq(r.status, 0);
  ck_assert_msg(strstr(r.out, "sampled deviation n/a (no cycles)") != NULL, "%s", r.out);
  tu_run_free(&r);
  snprintf(args, sizeof args, "sim %s --arch mi355x --sampled --compare-full --json", empty);
  r = tu_flysim(args);
  j = tu_json(&r);
  ck_assert(json_is_null(json_object_get(json_object_get(j, "compare_full"), "deviation")));
  json_decref(j);
  tu_run_free(&r);
  tu_expect_err("emit gemm 256x256x256 --arch mi355x -o=k.hip", 2,
                "flysim emit: -o=k.hip: write '-o k.hip' or '--output=k.hip'\n");
#ifndef FSIM_HAVE_HIP
  tu_expect_err("verify gemm 256x256x256 --arch mi355x --with-hip", 2,
                "flysim verify: --with-hip: flysim was configured without the HIP runtime (./configure --with-hip, "
                "with ROCm's libamdhip64 and hipcc installed)\n");
#endif
  tu_expect_err("db show gemm --arch mi355x", 2, "flysim db: --m is required (or the shape MxNxK after OP)\n");
  /* options that did nothing, abbreviations at the top level, the help of a command */
  tu_expect_err("tune --suite default --arch mi355x --agreement 2 --db x.db", 2,
                "flysim tune: --agreement stores nothing; drop --db\n");
  tu_expect_err("tune --suite default --arch mi355x --agreement 2 --refine 2", 2,
                "flysim tune: --agreement --refine: it ranks no table and refines nothing (N configs are simulated)\n");
  tu_expect_err("--hel", 2, "flysim: option '--hel': give the whole name\n");
  r = tu_flysim("--help predict");
  ck_assert_int_eq(r.status, 0);
  ck_assert_msg(strncmp(r.out, "usage: flysim predict ", 22) == 0, "%s", r.out);
  tu_run_free(&r);
  r = tu_flysim("predict gemm 16x16x64 --arch mi355x --db /nonexistent");
  ck_assert_msg(strstr(r.out, "; 1 workgroup\n") != NULL, "%s", r.out); /* not "1 workgroups" */
  tu_run_free(&r);
  const char *big = tu_src_path("kernels/schedules/flydsl_bf16_gemm_gfx950.sched"); /* [problem] m on line 13 */
  snprintf(args, sizeof args, "predict --schedule %s --arch mi355x --set memory.dram_bytes=100000000", big);
  r = tu_flysim(args);
  ck_assert_int_eq(r.status, 2);
  char want[1100];
  snprintf(want, sizeof want, "flysim predict: %s:13: [problem] m: the operands and result of 8192x8192x8192 ", big);
  ck_assert_msg(strncmp(r.err, want, strlen(want)) == 0, "%s", r.err);
  tu_run_free(&r);
  rmdir(dir);
}
END_TEST

START_TEST(test_cli_audit_inputs) {
  char out[512], args[1024];
  snprintf(out, sizeof out, "%s", tu_write_temp("", ".hip"));
  unlink(out);
  snprintf(args, sizeof args, "emit gemm 256x256x256 --arch mi355x --db /nonexistent --set \"device.name=$(printf "
                              "'X\\n#error injected')\" -o '%s'", out);
  tu_expect_err(args, 2, "flysim emit: --set device.name=X?#error injected: [device] name: byte 0x0a at character 2 "
                         "is not printable ASCII\n");
  ck_assert_int_ne(access(out, F_OK), 0);
  /* usage errors too (they went out as given, over two lines) */
  tu_expect_err("predict gemm \"$(printf '64x64\\nx64')\" --arch mi355x", 2,
                "flysim predict: SHAPE's N: '64?' is not an integer\n");
  tu_expect_err("\"$(printf -- '--fo\\no')\"", 2, "flysim: '--fo?o' is not a command (see 'flysim --help')\n");
  tu_expect_err("--version --bogus", 2, "flysim: --version takes no arguments, not '--bogus'\n");
  tu_expect_err("arch show mi355x --set cu.wave_size=128", 2,
                "flysim arch: --set cu.wave_size=128: [cu] wave_size: 128 is out of range [16, 64]\n");
  tu_expect_err("predict grouped-gemm 16777216x16777216x16777216 --groups 65536 --arch mi355x --mode model", 2,
                "flysim predict: --groups/--m/--n/--k: A, B and C of 16777216x16777216x16777216 x 65536 group(s) take "
                "about 1.11e+20 bytes, more than 2^52\n");
  tu_expect_err("predict gemm 16384x16384x8192 --arch mi355x --db /nonexistent --timeline /nonexistent/x.json", 2,
                "flysim predict: --timeline: /nonexistent/x.json: cannot write: No such file or directory\n");
  tu_expect_err("verify gemm 256x256x256 --arch mi355x --db /nonexistent --sampled --full", 2,
                "flysim verify: --sampled and --full: give one of them\n");
  /* a path that is not UTF-8 keeps its key in --json, its odd bytes as '?' (the key was dropped) */
  char odd[512], oddb[600];
  snprintf(odd, sizeof odd, "%s", tu_write_temp("", ".d"));
  unlink(odd);
  strcat(odd, "\xff");
  ck_assert_int_eq(mkdir(odd, 0700), 0);
  snprintf(oddb, sizeof oddb, "%s/t.db", odd);
  snprintf(args, sizeof args, "tune gemm 256x256x256 --arch mi355x --db '%s' --json --quiet", oddb);
  tu_run q = tu_flysim(args);
  ck_assert_msg(q.status == 0, "%s", q.err);
  json_t *qj = tu_json(&q);
  const char *dbv = json_string_value(json_object_get(qj, "db"));
  ck_assert_ptr_nonnull(dbv);
  ck_assert_int_eq((int)strlen(dbv), (int)strlen(oddb));
  ck_assert_ptr_nonnull(strstr(dbv, "?/t.db"));
  json_decref(qj);
  tu_run_free(&q);
  unlink(oddb);
  rmdir(odd);
  /* --json lists each override whole, blanks in its value included (it split them) */
  tu_run r = tu_flysim("arch show mi355x --set 'device.name=A B' --set cu.simds=4 --json");
  ck_assert_msg(r.status == 0, "%s", r.err);
  json_t *j = tu_json(&r);
  json_t *ov = json_object_get(json_object_get(j, "produced_by"), "overrides");
  ck_assert_int_eq(json_array_size(ov), 2);
  ck_assert_str_eq(json_string_value(json_array_get(ov, 0)), "device.name=A B");
  ck_assert_str_eq(json_string_value(json_array_get(ov, 1)), "cu.simds=4");
  json_decref(j);
  tu_run_free(&r);
}
END_TEST

START_TEST(test_cli_help) {
  tu_run r = tu_flysim("tune --help");
  ck_assert_int_eq(r.status, 0);
  ck_assert_ptr_null(strstr(r.out, "--schedule"));
  ck_assert_ptr_nonnull(strstr(r.out, "--config CFG"));
  tu_run_free(&r);
  r = tu_flysim("predict --help");
  ck_assert_int_eq(r.status, 0);
  ck_assert_ptr_nonnull(strstr(r.out, "--schedule FILE"));
  tu_run_free(&r);
  /* --help wins over bad values anywhere on the line */
  static const char *const lines[][2] = {{"predict gemm --m 0 --help", "usage: flysim predict "},
                                         {"db show --m 0 -h", "usage: flysim db list "},
                                         {"micro mfma --inst nosuch --waves-per-simd 0 --help", "usage: flysim micro "},
                                         /* help's own help (they were "not a command") */
                                         {"help --help", "usage: flysim COMMAND "},
                                         {"help help", "usage: flysim COMMAND "},
                                         {"help frob --help", "usage: flysim COMMAND "},
                                         {"help", "usage: flysim COMMAND "},
                                         {"help sim", "usage: flysim sim "},
                                         /* the operators' own (design.md) */
                                         {"gemm --help", "usage: flysim (predict|tune|emit|verify) gemm SHAPE"},
                                         {"help scaled-gemm", "usage: flysim (predict|tune) scaled-gemm SHAPE"},
                                         {"--help topk", "usage: flysim schedule check|print FILE"},
                                         /* the command's, whatever follows (it was the top-level usage) */
                                         {"--help tune extra", "usage: flysim tune "},
                                         {"--help tune --json", "usage: flysim tune "},
                                         {"--help --json", "usage: flysim COMMAND "},
                                         {"--help help", "usage: flysim COMMAND "},
                                         {"attention -h", "usage: flysim schedule check|print FILE"}};
  for (size_t i = 0; i < sizeof lines / sizeof lines[0]; i++) {
    r = tu_flysim(lines[i][0]);
    ck_assert_msg(r.status == 0, "%s: %s", lines[i][0], r.err);
    ck_assert_msg(strncmp(r.out, lines[i][1], strlen(lines[i][1])) == 0, "%s: %s", lines[i][0], r.out);
    tu_run_free(&r);
  }
  /* every help fits a 100-column terminal (an audit found five usage lines of 105-114) */
  static const char *const cmds[] = {"--help", "arch --help",  "layout --help", "sim --help",  "micro --help",
                                     "schedule --help", "predict --help", "tune --help", "db --help", "emit --help",
                                     "verify --help", "gemm --help", "grouped-gemm --help", "scaled-gemm --help",
                                     "attention --help", "rmsnorm --help", "topk --help"};
  for (size_t i = 0; i < sizeof cmds / sizeof cmds[0]; i++) {
    r = tu_flysim(cmds[i]);
    ck_assert_msg(r.status == 0, "%s: %s", cmds[i], r.err);
    for (const char *line = r.out; *line;) {
      size_t n = strcspn(line, "\n");
      ck_assert_msg(n <= 100, "flysim %s: a line of %zu columns: %.*s", cmds[i], n, (int)n, line);
      line += n + (line[n] == '\n');
    }
    tu_run_free(&r);
  }
}
END_TEST

static Suite *suite(void) {
  Suite *s = suite_create("tune");
  TCase *tc = tcase_create("tune");
  tcase_set_timeout(tc, 900);
  tcase_add_test(tc, test_model_agrees_with_simulator);
  tcase_add_test(tc, test_model_one_stage);
  tcase_add_test(tc, test_tune_deterministic);
  tcase_add_test(tc, test_tune_short_k);
  tcase_add_test(tc, test_tune_agprs_full_last);
  tcase_add_test(tc, test_tune_picks_two_tiles);
  tcase_add_test(tc, test_tune_picks_split_k);
  tcase_add_test(tc, test_default_suite);
  tcase_add_test(tc, test_db_round_trip);
  tcase_add_test(tc, test_db_damaged_rows);
  tcase_add_test(tc, test_db_verified_winners);
  tcase_add_test(tc, test_db_schema_1);
  tcase_add_test(tc, test_db_keep_faster);
  tcase_add_test(tc, test_db_version_fingerprint);
  tcase_add_test(tc, test_db_put_unless);
  tcase_add_test(tc, test_db_readers_write_nothing);
  tcase_add_test(tc, test_db_concurrent_writers);
  tcase_add_test(tc, test_db_killed_writer);
  tcase_add_test(tc, test_db_killed_creator);
  tcase_add_test(tc, test_file_out_pending);
  tcase_add_test(tc, test_cli_predict);
  tcase_add_test(tc, test_db_list_variants);
  tcase_add_test(tc, test_grouped_layouts);
  tcase_add_test(tc, test_cli_errors);
  tcase_add_test(tc, test_cli_simulated_rows_and_dram);
  tcase_add_test(tc, test_model_more_work_not_much_faster);
  tcase_add_test(tc, test_model_l2_counts_resident_workgroups);
  tcase_add_test(tc, test_model_launch_bound);
  tcase_add_test(tc, test_cli_audit_inputs);
  tcase_add_test(tc, test_cli_audit_second);
  tcase_add_test(tc, test_db_audit_third);
  tcase_add_test(tc, test_file_out_write_error);
  tcase_add_test(tc, test_model_copy_lead_latency);
  tcase_add_test(tc, test_cli_op_from_schedule);
  tcase_add_test(tc, test_fallback_nearest);
  tcase_add_test(tc, test_cli_tune_db);
  tcase_add_test(tc, test_cli_config_errors);
  tcase_add_test(tc, test_cli_db_safety);
  tcase_add_test(tc, test_cli_write_protected);
  tcase_add_test(tc, test_cli_help);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) { return tu_run_suite(suite()); }
