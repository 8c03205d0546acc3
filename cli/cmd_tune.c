/* flysim tune: ranks every legal config of a problem (or of each problem of a suite) with the
 * analytical model, simulates the best few, prints the ranking and stores the winner. */
#include "config.h"

#include <errno.h>
#include <gsl/gsl_sort.h>
#include <libgen.h>
#include <gsl/gsl_statistics_double.h>
#include <stdlib.h>
#include <ctype.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli/commands.h"
#include "cli/gemm_args.h"
#include "tune/agree.h"
#include "tune/db.h"
#include "tune/predict.h"
#include "tune/suite.h"

static const char *const CMD = "tune";
enum { DEFAULT_REFINE = 4 }; /* candidates simulated by default */

static void usage(FILE *f) {
  fprintf(f,
          "usage: flysim tune OP (MxNxK | --m M --n N --k K) --arch NAME [--config CFG] [options]\n"
          "       flysim tune [gemm] --suite default --arch NAME [options]\n"
          "\n"
          "Enumerates every legal config (LDS capacity, register budget, divisibility, alignment),\n"
          "ranks them all with the analytical model, simulates the best few with the cycle-level\n"
          "model, prints the ranking and stores the fastest in the tuning database.  Keys that\n"
          "--config fixes are kept; the rest are searched.  A stored winner is replaced only by a\n"
          "better one (faster; a verified one, --compiled, by a verified one that compiles faster)\n"
          "or by another flysim version's.  --suite tunes every problem of a suite\n"
          "(default: fifteen BF16 LLM-serving GEMMs, docs/gemm.md) with a progress bar on a\n"
          "terminal.\n"
          "\n" FSIM_CLI_GEMM_HELP_PROBLEM("required unless --suite") FSIM_CLI_GEMM_HELP_CONFIG FSIM_CLI_GEMM_HELP_PART
          "tuning:\n"
          "  --suite NAME       tune a suite of problems instead of one (default)\n"
          "  --top N            candidates printed (default 10; the JSON lists as many), and\n"
          "                     any simulated candidate ranked below them\n"
          "  --refine N         simulate the model's best N, half of them distinct tiles (default 4)\n"
          "  --compiled N       also emit, compile (clang-22) and verify the N fastest simulated\n"
          "                     candidates (flysim verify's checks), and keep the fastest compiled\n"
          "                     code that passes them all; such a winner replaces a stored one\n"
          "                     that was only simulated, and only it can replace a verified one\n"
          "  --sampled, --full  how refinement simulates (default: sampled above a million wave\n"
          "                     instructions)\n"
          "  --warm             simulate launches that follow an identical one (caches warm, as in\n"
          "                     a benchmark loop that reuses its buffers; default: cold); the\n"
          "                     database holds cold winners, so this goes with --no-db; in full\n"
          "                     when A, B and C pass the MALL (docs/cli.md)\n"
          "  --no-db            store nothing\n"
          "  --agreement N      instead of tuning: simulate N configs spread over the model's ranking\n"
          "                     and report the model's agreement with the simulator (Spearman rank\n"
          "                     correlation, median relative difference); stores nothing\n"
          "  --quiet            no progress bar\n"
          "  --json             machine-readable output (docs/cli.md lists the keys)\n"
          "\n"
          "FLYSIM_THREADS=N sets the host threads the ranking and the simulations use (default: the\n"
          "CPUs flysim may run on, fewer than the host's under an affinity mask or a control group's\n"
          "CPU quota); the results do not depend on it.\n");
}

typedef struct tune_args {
  int top, refine, sampled, no_db, json, quiet, agreement, compiled, warm;
} tune_args;

typedef struct outcome {
  fsim_gemm_problem pr;
  const fsim_suite_entry *entry;
  int fallback;
  char why[200];
  double fallback_us;    /* a fallback without a nearest problem: the roofline */
  const char *fallback_bound;
  int has_near;          /* a fallback estimated by tuning the nearest problem the FlyDSL path takes (in r) */
  fsim_gemm_problem near;
  char near_how[160];
  fsim_tune_result r;
  double peak;
  int compiled;          /* --compiled was given */
  int warm;              /* --warm was given */
  int stored;            /* 1: written to the database; 0: it kept its winner, as fast or faster (below) */
  fsim_db_entry kept;    /* that winner, when stored is 0 */
} outcome;


/* The winner's time and bound: the ranked run's best (the problem's, or a fallback's nearest
 * problem's), else the roofline. */
static double best_us(const outcome *o) {
  if (o->fallback && !o->has_near) return o->fallback_us;
  const fsim_tune_candidate *b = &o->r.cand[o->r.best];
  return b->sim_us > 0 ? b->sim_us : b->model_us;
}

static const char *best_bound(const outcome *o) {
  if (o->fallback && !o->has_near) return o->fallback_bound;
  return o->r.cand[o->r.best].sim_us > 0 ? fsim_tune_bound(&o->r.sim, &o->r.estimate) : o->r.estimate.bound;
}

static fsim_status tune_one(const fsim_arch *a, const fsim_gemm_problem *pr, const fsim_gemm_config *fixed,
                            const tune_args *ta, outcome *o, fsim_err *e) {
  o->pr = *pr;
  o->compiled = ta->compiled > 0;
  o->warm = ta->warm;
  fsim_arch_derived d;
  fsim_arch_derive(a, &d);
  const char *cls = fsim_gemm_peak_class(pr, a);
  int ci = fsim_arch_peak_class_index(cls);
  o->peak = ci >= 0 ? d.peak_tflops[ci] : 0;
  if (!fsim_gemm_supported(pr, a, o->why, sizeof o->why)) {
    o->fallback = 1;
    if (fsim_gemm_nearest_supported(pr, a, &o->near, o->near_how, sizeof o->near_how)) {
      /* as predict estimates it: flysim's best kernel for the nearest problem the FlyDSL path
       * takes (--config and --compiled were for the problem asked) */
      fsim_gemm_config none;
      fsim_gemm_config_free_all(&none);
      fsim_tune_opts to = {.fixed = &none, .refine = ta->refine, .sampled = ta->sampled, .warm = ta->warm};
      fsim_status st = fsim_tune_gemm(a, &o->near, &to, &o->r, e);
      if (st == FSIM_OK) o->has_near = 1;
      return st;
    }
    o->fallback_us = fsim_model_roofline_us(a, fsim_gemm_problem_flops(pr), fsim_gemm_problem_bytes(pr), cls,
                                            &o->fallback_bound);
    return FSIM_OK;
  }
  fsim_tune_opts to = {.fixed = fixed, .refine = ta->refine, .sampled = ta->sampled, .compiled = ta->compiled,
                       .warm = ta->warm};
  return fsim_tune_gemm(a, pr, &to, &o->r, e);
}

/* The winner's compiled code, simulated (--compiled); 0 when it was not verified or failed. */
static double compiled_us(const outcome *o) {
  if (o->fallback) return 0;
  int b = o->r.best;
  return o->r.compiled_us[b] > 0 && o->r.compiled_note[b][0] == '\0' ? o->r.compiled_us[b] : 0;
}

static json_t *best_json(const fsim_arch *a, const outcome *o) {
  json_t *b = json_object();
  double t = best_us(o);
  double tf = fsim_gemm_problem_flops(&o->pr) / (t * 1e-6) / 1e12;
  json_object_set_new(b, "time_us", json_real(t));
  json_object_set_new(b, "clock_ghz", json_real(a->device.sustained_clock_ghz));
  json_object_set_new(b, "bound", fsim_json_text(best_bound(o)));
  json_object_set_new(b, "config", o->fallback ? json_null() : fsim_json_text(o->r.cand[o->r.best].config));
  json_object_set_new(b, "backend", fsim_json_text(o->fallback ? "fallback" : "flydsl"));
  if (o->fallback) json_object_set_new(b, "fallback_reason", fsim_json_text(o->why));
  json_object_set_new(b, "tflops", json_real(tf));
  json_object_set_new(b, "percent_of_peak", json_real(o->peak > 0 ? 100.0 * tf / o->peak : 0));
  json_object_set_new(b, "peak_tflops", json_real(o->peak));
  /* predict's keys for the winner: it was simulated (mode sim) unless the tune was the
   * model's alone or the problem fell back */
  const int roofline = o->fallback && !o->has_near, timed = !roofline; /* a kernel was ranked (a fallback's: the nearest problem's) */
  int simulated = timed && o->r.cand[o->r.best].sim_us > 0;
  json_object_set_new(b, "mode", fsim_json_text(roofline ? "roofline" : simulated ? "sim" : "model"));
  json_object_set_new(b, "config_source", fsim_json_text(roofline ? "roofline" : o->fallback ? "nearest" : "tuned"));
  if (o->has_near) {
    json_t *nj = json_object();
    json_object_set_new(nj, "problem", fsim_cli_problem_json(&o->near));
    json_object_set_new(nj, "differs", fsim_json_text(o->near_how));
    json_object_set_new(nj, "config", fsim_json_text(o->r.cand[o->r.best].config));
    json_object_set_new(b, "nearest", nj);
  }
  json_object_set_new(b, "wave_instructions", simulated ? json_integer(o->r.sim.wave_instructions) : json_null());
  json_object_set_new(b, "model_us", o->fallback ? json_null() : json_real(o->r.cand[o->r.best].model_us));
  if (o->compiled) json_object_set_new(b, "compiled_us", compiled_us(o) > 0 ? json_real(compiled_us(o)) : json_null());
  json_object_set_new(b, "host_seconds", json_real(timed ? o->r.host_seconds : 0));
  return b;
}

static json_t *outcome_json(const fsim_arch *a, const outcome *o, int top, int no_db) {
  json_t *out = json_object();
  json_object_set_new(out, "problem", fsim_cli_problem_json(&o->pr));
  json_object_set_new(out, "best", best_json(a, o));
  json_t *cands = json_array();
  for (int i = 0; !o->fallback && i < o->r.ncand; i++) {
    const fsim_tune_candidate *c = &o->r.cand[i];
    if (i >= top && !(c->sim_us > 0)) continue; /* the top N, and every simulated one */
    json_t *j = json_object();
    json_object_set_new(j, "rank", json_integer(i + 1));
    json_object_set_new(j, "config", fsim_json_text(c->config));
    json_object_set_new(j, "model_us", json_real(c->model_us));
    json_object_set_new(j, "model_bound", fsim_json_text(c->model_bound));
    json_object_set_new(j, "sim_us", c->sim_us > 0 ? json_real(c->sim_us) : json_null());
    json_object_set_new(j, "agprs_full", json_boolean(c->agprs_full));
    if (o->compiled) {
      json_object_set_new(j, "compiled_us", o->r.compiled_us[i] > 0 ? json_real(o->r.compiled_us[i]) : json_null());
      json_object_set_new(j, "compiled_note",
                          o->r.compiled_note[i][0] ? fsim_json_text(o->r.compiled_note[i]) : json_null());
    }
    json_array_append_new(cands, j);
  }
  json_object_set_new(out, "candidates", cands);
  json_object_set_new(out, "caches", json_string(o->warm ? "warm" : "cold"));
  json_object_set_new(out, "evaluated", json_integer(o->fallback ? 0 : o->r.legal));
  json_object_set_new(out, "tried", json_integer(o->fallback ? 0 : o->r.tried));
  json_object_set_new(out, "agprs_full", json_integer(o->fallback ? 0 : o->r.agprs_full));
  json_object_set_new(out, "host_seconds", json_real(o->r.host_seconds));
  /* stored: whether the database took this winner (false: it kept one as fast or faster, under kept) */
  json_object_set_new(out, "stored", no_db ? json_null() : json_boolean(o->stored));
  if (!no_db && !o->stored) {
    json_t *k = json_object();
    json_object_set_new(k, "time_us", json_real(o->kept.time_us));
    json_object_set_new(k, "config", o->kept.config[0] ? fsim_json_text(o->kept.config) : json_null());
    json_object_set_new(k, "version", fsim_json_text(o->kept.version));
    json_object_set_new(k, "compiled_us", o->kept.compiled_us > 0 ? json_real(o->kept.compiled_us) : json_null());
    json_object_set_new(out, "kept", k);
  }
  return out;
}

static void outcome_print(const outcome *o, int top) {
  char prob[160];
  fsim_cli_problem_text(&o->pr, prob, sizeof prob);
  printf("problem      %s\n", prob);
  if (o->fallback) {
    printf("backend      fallback: %s\n", o->why);
    if (o->has_near) {
      char near[160];
      fsim_cli_problem_text(&o->near, near, sizeof near);
      printf("estimate     %.3f us (bound %s): flysim's best kernel for the nearest problem the FlyDSL path takes "
             "(%s): %s, config %s; the fallback library's own kernel is not modelled\n",
             best_us(o), best_bound(o), o->near_how, near, o->r.cand[o->r.best].config);
    } else {
      printf("roofline     %.3f us (bound %s)\n", o->fallback_us, o->fallback_bound);
    }
    return;
  }
  const fsim_tune_result *r = &o->r;
  int simulated = 0;
  for (int i = 0; i < r->ncand; i++) simulated += r->cand[i].sim_us > 0;
  char full[96] = "";
  if (r->agprs_full > 0)
    snprintf(full, sizeof full, " (%lld fill the AGPR file: ranked last)", (long long)r->agprs_full);
  printf("space        %lld configs tried, %lld legal%s, all ranked by the model; %d simulated%s; %.3f s\n",
         (long long)r->tried, (long long)r->legal, full, simulated, o->warm ? " (warm launches)" : "", r->host_seconds);
  /* the compiled_us column only with --compiled */
  /* the model's bound of each config; the best line gives the simulator's of the winner */
  printf("%5s %10s %10s %s %-11s %s\n", "rank", "model_us", "sim_us", o->compiled ? "compiled_us " : "", "model_bound",
         "config");
  for (int i = 0; i < r->ncand; i++) {
    const fsim_tune_candidate *c = &r->cand[i];
    if (i >= top && !(c->sim_us > 0)) continue; /* the top N, and every simulated one */
    char sim[32] = "-", comp[32] = "";
    if (c->sim_us > 0) snprintf(sim, sizeof sim, "%.3f", c->sim_us);
    if (o->compiled && r->compiled_note[i][0])
      snprintf(comp, sizeof comp, "%11s ", "not kept");
    else if (o->compiled && r->compiled_us[i] > 0)
      snprintf(comp, sizeof comp, "%11.3f ", r->compiled_us[i]);
    else if (o->compiled)
      snprintf(comp, sizeof comp, "%11s ", "-");
    printf("%5d %10.3f %10s %s %-11s %s%s%s\n", i + 1, c->model_us, sim, comp, c->model_bound, c->config,
           c->agprs_full ? "  (fills the AGPRs)" : "", i == r->best ? "  <- best" : "");
  }
  for (int i = 0; i < r->ncand; i++)
    if (r->compiled_note[i][0]) printf("not kept     rank %d: %s\n", i + 1, r->compiled_note[i]);
  double t = best_us(o), tf = fsim_gemm_problem_flops(&o->pr) / (t * 1e-6) / 1e12;
  printf("best         %.3f us  %.1f TFLOP/s = %.1f%% of peak, bound %s\n", t, tf,
         o->peak > 0 ? 100.0 * tf / o->peak : 0, best_bound(o));
  if (o->compiled) {
    if (r->compiled_ok > 0)
      printf("compiled     %.3f us as compiled by clang and read back (%d verified, %d passed every check; "
             "flysim verify)\n", r->compiled_us[r->best], r->compiled_tried, r->compiled_ok);
    else if (r->compiled_tried > 0)
      printf("compiled     none of the %d verified passed every check: the winner is the fastest simulated\n",
             r->compiled_tried);
    else
      printf("compiled     no candidate could be emitted (above): the winner is the fastest simulated\n");
  }
}

static void progress(int done, int total, const char *what) {
  const int width = 30;
  int fill = total > 0 ? done * width / total : width;
  fprintf(stderr, "\r[");
  for (int i = 0; i < width; i++) fputc(i < fill ? '#' : ' ', stderr);
  fprintf(stderr, "] %d/%d %-40.40s", done, total, what);
  if (done == total) fprintf(stderr, "\r%*s\r", width + 50, "");
  fflush(stderr);
}

/* A stored winner that is no longer a legal plan (the space changed) is replaced whatever it
 * is; fsim_db_put_unless asks this inside its write transaction. */
typedef struct overrule_ctx {
  const fsim_arch *a;
  const fsim_gemm_problem *pr;
} overrule_ctx;

static int stored_illegal(const fsim_db_entry *old, void *vctx) {
  const overrule_ctx *c = vctx;
  fsim_err why;
  return strcmp(old->backend, "fallback") != 0 && !fsim_predict_stored_legal(c->a, c->pr, old->config, NULL, &why);
}

/* Names the suite problem an error is about: "suite problem NAME (MxNxK): REASON". */
static void suite_problem_err(fsim_err *e, const fsim_suite_entry *en) {
  char msg[sizeof e->msg + 200];
  snprintf(msg, sizeof msg, "suite problem %s (%lldx%lldx%lld): %s", en->name, (long long)en->m, (long long)en->n,
           (long long)en->k, e->msg);
  msg[sizeof e->msg - 1] = '\0';
  memcpy(e->msg, msg, sizeof e->msg);
}

/* Stores the outcome's winner, unless the database holds a winner as good or better found by
 * this flysim version for this part (another search, perhaps of more of the space: --refine
 * 64, or keys --config fixed differently): as fast or faster, or verified where this one is
 * not, or verified and compiling as fast or faster (fsim_db_put).  The key is the part's
 * identity, so a changed arch file or --set is another key; another version's winner is
 * always replaced, and so is one whose config is not a legal plan now (predict would not use
 * it) or whose row is damaged. */
static fsim_status store(fsim_db *db, const fsim_arch *a, outcome *o, fsim_err *e) {
  fsim_db_entry en;
  double t = best_us(o);
  fsim_predict_db_entry(a, &o->pr, o->fallback ? "" : o->r.cand[o->r.best].config, o->fallback ? "fallback" : "flydsl",
                        t, fsim_gemm_problem_flops(&o->pr) / (t * 1e-6) / 1e12, o->fallback ? 0 : o->r.cand[o->r.best].model_us, &en);
  en.compiled_us = compiled_us(o); /* 0 unless --compiled verified it */
  /* a damaged row (edited by hand) or a stored config that is no longer legal is replaced;
   * otherwise the better winner stays (decided in the write's transaction) */
  overrule_ctx oc = {.a = a, .pr = &o->pr};
  fsim_status st = fsim_db_put_unless(db, &en, stored_illegal, &oc, &o->stored, e);
  int found = 0;
  if (st == FSIM_OK && !o->stored) st = fsim_db_get(db, &en, &o->kept, &found, e);
  /* removed since: nothing to report */
  if (st == FSIM_OK && !o->stored && !found) o->stored = 1;
  return st;
}

/* The database's folder must be writable: a database that does not exist yet is created
 * there, and SQLite writes an existing one's journal beside it.  Checked before tuning so
 * that a bad --db fails at once. */
static int folder_writable(const char *path, int exists) {
  char *copy = strdup(path);
  if (copy == NULL) return fsim_cli_usage_error(CMD, "out of memory");
  const char *dir = dirname(copy);
  int ok = access(dir, W_OK | X_OK) == 0, err = errno;
  int rc = 0;
  if (!ok && !exists) rc = fsim_cli_usage_error(CMD, "--db %s: cannot create it: %s", path, strerror(err));
  else if (!ok)
    rc = fsim_cli_usage_error(CMD, "--db %s: cannot write: its folder %s: %s (SQLite writes a journal beside the file)",
                              path, dir, strerror(err));
  free(copy);
  return rc;
}

static int agreement(fsim_cli_gemm *g, const fsim_suite_entry *entries, int nentries, const tune_args *ta) {
  fsim_agreement *ag = calloc((size_t)nentries, sizeof *ag);
  fsim_gemm_problem *prs = calloc((size_t)nentries, sizeof *prs);
  if (ag == NULL || prs == NULL) {
    free(ag);
    free(prs);
    return fsim_cli_usage_error(CMD, "out of memory");
  }
  fsim_err e;
  fsim_err_clear(&e);
  int bar = entries && !ta->quiet && isatty(fileno(stderr));
  fsim_status st = FSIM_OK;
  for (int i = 0; i < nentries && st == FSIM_OK; i++) {
    prs[i] = g->pr;
    if (entries) {
      fsim_suite_problem(&entries[i], &prs[i]);
      if (bar) progress(i, nentries, entries[i].name);
    }
    st = fsim_tune_agreement(&g->a, &prs[i], ta->agreement, &ag[i], &e);
  }
  if (bar) progress(nentries, nentries, "");
  if (st != FSIM_OK) {
    free(ag);
    free(prs);
    return fsim_cli_report(CMD, &e);
  }
  /* over all problems: the medians of the per-problem figures */
  double rho[64], med[64];
  for (int i = 0; i < nentries && i < 64; i++) rho[i] = ag[i].spearman, med[i] = ag[i].median_rel;
  int n = nentries < 64 ? nentries : 64;
  gsl_sort(rho, 1, (size_t)n);
  gsl_sort(med, 1, (size_t)n);
  double rho_med = gsl_stats_median_from_sorted_data(rho, 1, (size_t)n);
  double rel_med = gsl_stats_median_from_sorted_data(med, 1, (size_t)n);
  if (ta->json) {
    json_t *out = json_object();
    json_object_set_new(out, "produced_by", fsim_cli_provenance(&g->a));
    json_t *list = json_array();
    for (int i = 0; i < nentries; i++) {
      json_t *o = json_object();
      if (entries) json_object_set_new(o, "name", fsim_json_text(entries[i].name));
      json_object_set_new(o, "problem", fsim_cli_problem_json(&prs[i]));
      json_object_set_new(o, "legal", json_integer(ag[i].legal));
      json_object_set_new(o, "spearman", json_real(ag[i].spearman));
      json_object_set_new(o, "median_relative_difference", json_real(ag[i].median_rel));
      json_object_set_new(o, "median_abs_relative_difference", json_real(ag[i].median_abs_rel));
      json_t *pts = json_array();
      for (int j = 0; j < ag[i].n; j++) {
        const fsim_agree_point *p = &ag[i].pt[j];
        json_t *pj = json_object();
        json_object_set_new(pj, "rank", json_integer(p->rank + 1));
        json_object_set_new(pj, "config", fsim_json_text(p->config));
        json_object_set_new(pj, "model_us", json_real(p->model_us));
        json_object_set_new(pj, "sim_us", json_real(p->sim_us));
        json_object_set_new(pj, "model_bound", fsim_json_text(p->model_bound));
        json_object_set_new(pj, "sim_bound", fsim_json_text(p->sim_bound));
        json_array_append_new(pts, pj);
      }
      json_object_set_new(o, "points", pts);
      json_array_append_new(list, o);
    }
    json_object_set_new(out, "results", list);
    json_object_set_new(out, "median_spearman", json_real(rho_med));
    json_object_set_new(out, "median_relative_difference", json_real(rel_med));
    free(ag);
    free(prs);
    return fsim_cli_print_json(out);
  }
  fsim_cli_print_provenance(stdout, &g->a);
  printf("model against simulator: %d configs per problem, spread evenly over the model's ranking\n",
         ta->agreement);
  printf("%-26s %-22s %8s %9s %11s %11s\n", "name", "m x n x k", "legal", "spearman", "median rel", "median |rel|");
  for (int i = 0; i < nentries; i++) {
    char shape[48];
    snprintf(shape, sizeof shape, "%lldx%lldx%lld", prs[i].m, prs[i].n, prs[i].k);
    printf("%-26s %-22s %8lld %9.3f %+10.1f%% %10.1f%%\n", entries ? entries[i].name : "-", shape,
           (long long)ag[i].legal, ag[i].spearman, 100 * ag[i].median_rel, 100 * ag[i].median_abs_rel);
  }
  printf("overall: median Spearman %.3f, median relative difference %+.1f%% (model - sim) / sim\n", rho_med,
         100 * rel_med);
  free(ag);
  free(prs);
  return FSIM_EXIT_OK;
}

int fsim_cmd_tune(int argc, char **argv) {
  static const struct option opts[] = {FSIM_CLI_GEMM_OPTIONS,
                                       {"suite", required_argument, NULL, 'u'},
                                       {"top", required_argument, NULL, 'T'},
                                       {"refine", required_argument, NULL, 'r'},
                                       {"compiled", required_argument, NULL, 'C'},
                                       {"sampled", no_argument, NULL, 'S'},
                                       {"full", no_argument, NULL, 'F'},
                                       {"warm", no_argument, NULL, 'w'},
                                       {"no-db", no_argument, NULL, 'N'},
                                       {"agreement", required_argument, NULL, 'A'},
                                       {"quiet", no_argument, NULL, 'q'},
                                       {"json", no_argument, NULL, 'j'},
                                       {"help", no_argument, NULL, 'h'},
                                       {NULL, 0, NULL, 0}};
  fsim_cli_gemm g;
  fsim_cli_gemm_init(&g, CMD);
  tune_args ta = {.top = 10, .refine = DEFAULT_REFINE, .sampled = -1};
  const char *suite = NULL;
  int top_given = 0, refine_given = 0;
  int c;
  long v;
  optind = 0;
  opterr = 0;
  while ((c = fsim_cli_getopt(argc, argv, ":h", opts)) != -1) {
    int taken = fsim_cli_gemm_option(&g, c, optarg);
    if (taken == 1) continue;
    if (taken) return taken;
    switch (c) {
    case 'u':
      if (strncmp(optarg, "--", 2) == 0)
        return fsim_cli_usage_error(CMD, "--suite: expected a suite name (default), not '%s'", optarg);
      suite = optarg;
      break;
    case 'T':
      if (fsim_cli_parse_long(CMD, "--top", optarg, 1, 64, &v)) return FSIM_EXIT_USAGE;
      ta.top = (int)v;
      top_given = 1;
      break;
    case 'r':
      if (fsim_cli_parse_long(CMD, "--refine", optarg, 1, 64, &v)) return FSIM_EXIT_USAGE;
      ta.refine = (int)v;
      refine_given = 1;
      break;
    case 'C':
      if (fsim_cli_parse_long(CMD, "--compiled", optarg, 1, 64, &v)) return FSIM_EXIT_USAGE;
      ta.compiled = (int)v;
      break;
    case 'S':
    case 'F':
      if (fsim_cli_sampled_flag(CMD, c, &ta.sampled)) return FSIM_EXIT_USAGE;
      break;
    case 'N': ta.no_db = 1; break;
    case 'w': ta.warm = 1; break;
    case 'A':
      if (fsim_cli_parse_long(CMD, "--agreement", optarg, 2, 64, &v)) return FSIM_EXIT_USAGE;
      ta.agreement = (int)v;
      break;
    case 'q': ta.quiet = 1; break;
    case 'j': ta.json = 1; break;
    case 'h': usage(stdout); return FSIM_EXIT_OK;
    default: return fsim_cli_bad_option(CMD, argc, argv);
    }
  }
  const fsim_suite_entry *entries = NULL;
  int nentries = 1;
  if (suite) {
    if (optind < argc && strcmp(argv[optind], "gemm") != 0)
      return fsim_cli_usage_error(CMD, "--suite %s: the suite is of gemm problems, not '%s'", suite, argv[optind]);
    if (optind + 2 == argc && isdigit((unsigned char)argv[optind + 1][0])) /* a SHAPE, as without --suite */
      return fsim_cli_usage_error(CMD, "--suite: the suite gives the shapes; drop the shape '%s'", argv[optind + 1]);
    if (optind + 1 < argc) return fsim_cli_usage_error(CMD, "unexpected argument '%s'", argv[optind + 1]);
    entries = fsim_suite_find(suite, &nentries);
    if (entries == NULL) return fsim_cli_usage_error(CMD, "--suite '%s': no such suite (default)", suite);
    if (g.m > 0 || g.n > 0 || g.k > 0 || g.dtype || g.b_dtype || g.c_dtype || g.layout || g.schedule_path ||
        g.groups_given)
      return fsim_cli_usage_error(CMD, "--suite: the suite gives the shapes; drop the shape flags");
    int rc = fsim_cli_load_arch(CMD, g.arch, &g.sets, &g.a);
    if (rc) return rc;
  } else {
    if (fsim_cli_gemm_positional(&g, argc, argv, optind)) return FSIM_EXIT_USAGE;
    if (g.schedule_path) return fsim_cli_usage_error(CMD, "--schedule: a schedule file is one config; use predict");
    int rc = fsim_cli_gemm_finish(&g);
    if (rc) return rc;
    if (ta.compiled && g.pr.op == FSIM_KOP_SCALED_GEMM)
      return fsim_cli_usage_error(CMD, "--compiled: scaled-gemm kernels are not emitted yet (gemm and grouped-gemm are)");
  }
  fsim_err e;
  fsim_err_clear(&e);
  fsim_gemm_config fixed;
  fsim_gemm_config_free_all(&fixed);
  if (g.config && fsim_gemm_config_parse(g.config, &fixed, &e) != FSIM_OK) return fsim_cli_report(CMD, &e);
  if (ta.compiled) {
#ifndef FSIM_HIP_CLANG
    return fsim_cli_usage_error(CMD, "--compiled: flysim was configured without an AMDGPU clang (install clang-22 "
                                     "and reconfigure)");
#endif
    if (ta.agreement) return fsim_cli_usage_error(CMD, "--compiled and --agreement: --agreement tunes nothing");
    if (ta.compiled > ta.refine)
      return fsim_cli_usage_error(CMD, "--compiled %d: only the %d candidates --refine simulates can be compiled",
                                  ta.compiled, ta.refine);
  }
  if (ta.warm && ta.agreement)
    return fsim_cli_usage_error(CMD, "--warm and --agreement: the agreement is measured on cold launches");
  if (ta.warm && !ta.no_db)
    return fsim_cli_usage_error(CMD, "--warm: the database holds winners of cold launches; add --no-db");
  if (ta.agreement) {
    if (g.config) return fsim_cli_usage_error(CMD, "--agreement samples the whole space; drop --config");
    /* options that would do nothing are said, not ignored */
    if (g.db) return fsim_cli_usage_error(CMD, "--agreement stores nothing; drop --db");
    if (top_given || refine_given)
      return fsim_cli_usage_error(CMD, "--agreement %s: it ranks no table and refines nothing (N configs are simulated)",
                                  top_given ? "--top" : "--refine");
    return agreement(&g, entries, nentries, &ta);
  }
  /* inputs are valid: an existing database is checked now, as a reader checks it, and not
   * written; it is opened for writing (its tables created, a WAL file turned to the rollback
   * journal) only when there are winners to store, as a new one is created only then, so a
   * run that fails leaves the file as it was (an audit found an empty file given the tables,
   * and a WAL file converted, by runs that then exited 2) */
  const char *db_path = fsim_cli_db_path(g.db);
  fsim_db *db = NULL;
  if (ta.no_db && g.db) return fsim_cli_usage_error(CMD, "--no-db and --db %s: store nothing, or store there?", g.db);
  if (!ta.no_db) {
    if (fsim_db_check_path(db_path, 1, &e) != FSIM_OK) return fsim_cli_report(CMD, &e);
    int exists = access(db_path, F_OK) == 0;
    if (exists) {
      if (access(db_path, W_OK) != 0)
        return fsim_cli_usage_error(CMD, "--db %s: cannot write: %s", db_path, strerror(errno));
      fsim_db *probe = NULL;
      if (fsim_db_open(&probe, db_path, 0, &e) != FSIM_OK) return fsim_cli_report(CMD, &e);
      fsim_db_close(probe);
    }
    int rc = folder_writable(db_path, exists);
    if (rc) return rc;
  }
  outcome *outs = calloc((size_t)nentries, sizeof *outs);
  if (outs == NULL) {
    fsim_db_close(db);
    return fsim_cli_usage_error(CMD, "out of memory");
  }
  int bar = suite && !ta.quiet && isatty(fileno(stderr));
  struct timespec t0, t1;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  fsim_status st = FSIM_OK;
  int done = 0, tuned = 0;
  /* every problem is tuned before anything is stored or printed: a suite problem that the
   * input does not fit (a --config key, a what-if part's memory) is invalid input, exit 2 with
   * nothing written, even when earlier problems took it (an audit found the first problem's
   * winner stored and printed before problem 2 refused --config's split-K) */
  for (int i = 0; entries && i < nentries && st == FSIM_OK; i++) { /* what can be checked first, is */
    fsim_gemm_problem pr = g.pr;
    fsim_suite_problem(&entries[i], &pr);
    st = fsim_gemm_problem_fits_as(&pr, &g.a, "", &e);
    if (st != FSIM_OK) suite_problem_err(&e, &entries[i]);
  }
  for (int i = 0; i < nentries && st == FSIM_OK; i++) {
    fsim_gemm_problem pr = g.pr;
    if (entries) {
      fsim_suite_problem(&entries[i], &pr);
      outs[i].entry = &entries[i];
      if (bar) progress(i, nentries, entries[i].name);
    }
    st = tune_one(&g.a, &pr, &fixed, &ta, &outs[i], &e);
    if (st == FSIM_OK) tuned++;
    else if (entries) suite_problem_err(&e, &entries[i]);
  }
  if (bar) progress(nentries, nentries, "");
  if (st != FSIM_OK) {
    /* a problem that fails stops the run with nothing stored or printed, whatever the
     * failure: invalid input (2), or the work failing (1; an audit found a suite that ran
     * out of memory at its ninth problem storing and printing the eight before) */
    free(outs);
    return fsim_cli_report(CMD, &e);
  }
  /* the winners in one transaction: a run killed while storing them leaves none stored, as a
   * run stopped earlier does (an audit's kill -9 there left 1 to 13 of the suite's 15) */
  fsim_status sst = FSIM_OK;
  if (tuned > 0 && !ta.no_db) sst = fsim_db_open(&db, db_path, 1, &e);
  if (sst == FSIM_OK && db) sst = fsim_db_begin(db, &e);
  for (int i = 0; i < tuned && sst == FSIM_OK; i++) {
    if (db) sst = store(db, &g.a, &outs[i], &e);
    if (sst == FSIM_OK) done++;
  }
  if (sst == FSIM_OK && db) sst = fsim_db_commit(db, &e);
  if (sst != FSIM_OK) {
    fsim_db_rollback(db);
    if (db) done = 0; /* nothing stored: nothing reported as stored */
    st = sst;
  }
  clock_gettime(CLOCK_MONOTONIC, &t1);
  double host = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) * 1e-9;
  fsim_db_close(db);
  int rc = FSIM_EXIT_OK;
  if (st != FSIM_OK) rc = fsim_cli_report(CMD, &e);
  if (done == 0) {
    free(outs);
    return rc;
  }
  if (ta.json) {
    json_t *out = json_object();
    json_object_set_new(out, "produced_by", fsim_cli_provenance(&g.a));
    if (!suite) {
      json_t *one = outcome_json(&g.a, &outs[0], ta.top, ta.no_db);
      json_object_update(out, one);
      json_decref(one);
      json_object_set_new(out, "host_seconds", json_real(host));
    } else {
      json_object_set_new(out, "suite", fsim_json_text(suite));
      json_t *list = json_array();
      int64_t total = 0;
      for (int i = 0; i < done; i++) {
        json_t *one = outcome_json(&g.a, &outs[i], ta.top, ta.no_db);
        json_object_set_new(one, "name", fsim_json_text(outs[i].entry->name));
        json_array_append_new(list, one);
        total += outs[i].fallback ? 0 : outs[i].r.legal;
      }
      json_object_set_new(out, "results", list);
      json_object_set_new(out, "evaluated", json_integer(total));
      json_object_set_new(out, "host_seconds", json_real(host));
    }
    json_object_set_new(out, "db", ta.no_db ? json_null() : fsim_json_text(db_path));
    free(outs);
    int jrc = fsim_cli_print_json(out);
    return rc ? rc : jrc;
  }
  fsim_cli_print_provenance(stdout, &g.a);
  if (!suite) {
    outcome_print(&outs[0], ta.top);
  } else {
    printf("suite %s on %s: %d problems; the winners (simulated time, or the model's where not simulated)\n", suite,
           g.a.device.name, done);
    printf("%-26s %-22s %10s %8s %6s  %-8s %s%s\n", "name", "m x n x k", "time_us", "TFLOP/s", "%peak", "bound",
           ta.compiled ? "compiled_us  " : "", "config");
    for (int i = 0; i < done; i++) {
      const outcome *o = &outs[i];
      char shape[48], comp[32] = "";
      snprintf(shape, sizeof shape, "%lldx%lldx%lld", o->pr.m, o->pr.n, o->pr.k);
      double t = best_us(o), tf = fsim_gemm_problem_flops(&o->pr) / (t * 1e-6) / 1e12;
      if (ta.compiled && compiled_us(o) > 0)
        snprintf(comp, sizeof comp, "%11.3f  ", compiled_us(o));
      else if (ta.compiled)
        snprintf(comp, sizeof comp, "%11s  ", "-");
      printf("%-26s %-22s %10.3f %8.1f %5.1f%%  %-8s %s%s\n", o->entry->name, shape, t, tf,
             o->peak > 0 ? 100.0 * tf / o->peak : 0, best_bound(o), comp,
             o->fallback ? "(fallback)" : o->r.cand[o->r.best].config);
    }
  }
  int kept = 0;
  for (int i = 0; i < done; i++) kept += !ta.no_db && !outs[i].stored;
  if (ta.no_db)
    printf("host         %.3f s\n", host);
  else if (!suite && kept)
    printf("host         %.3f s; %s keeps the winner it has, %.3f us%s with %s (as good or better: a winner is "
           "replaced only by a faster one, a verified one only by a verified one that compiles faster, or by another "
           "flysim version's)\n",
           host, db_path, outs[0].kept.time_us, outs[0].kept.compiled_us > 0 ? " (verified)" : "",
           outs[0].kept.config[0] ? outs[0].kept.config : "(fallback)");
  else if (kept)
    printf("host         %.3f s; winners stored in %s, except %d where it keeps the winner it has (as good or "
           "better)\n",
           host, db_path, kept);
  else
    printf("host         %.3f s; %s stored in %s\n", host, suite ? "winners" : "winner", db_path);
  free(outs);
  return rc;
}
