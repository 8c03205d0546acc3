/* model_speed: how fast the analytical model and the tuner run.
 *
 *   model_speed --arch NAME [--reps R]
 *
 * For each problem of the default suite: enumerating its legal space (configs tried and
 * legal per second), evaluating the model on every legal plan summary (evaluations per
 * second, the fastest of R passes), and a whole tuning run as `flysim tune` does it (the
 * refinement simulations included).  One line per problem, then the totals.  Host times
 * vary with the machine and its load; the rates are what bench/run reports. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "tune/suite.h"
#include "tune/tune.h"

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

typedef struct collect {
  fsim_plan_summary *s;
  int64_t n, cap;
} collect;

static int keep(void *ctx, const fsim_gemm_plan *p) {
  collect *c = ctx;
  if (c->n == c->cap) {
    int64_t nc = c->cap ? 2 * c->cap : 4096;
    fsim_plan_summary *ns = realloc(c->s, (size_t)nc * sizeof *ns);
    if (ns == NULL) return 1;
    c->s = ns;
    c->cap = nc;
  }
  fsim_gemm_summary(p, &c->s[c->n++]);
  return 0;
}

int main(int argc, char **argv) {
  const char *arch = "mi355x";
  int reps = 5;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--arch") && i + 1 < argc) arch = argv[++i];
    else if (!strcmp(argv[i], "--reps") && i + 1 < argc) reps = atoi(argv[++i]);
    else {
      fprintf(stderr, "usage: model_speed [--arch NAME] [--reps R]\n");
      return 2;
    }
  }
  fsim_arch a;
  fsim_err e;
  if (fsim_arch_load(&a, arch, &e) != FSIM_OK) {
    fprintf(stderr, "model_speed: %s\n", e.msg);
    return 2;
  }
  int n;
  const fsim_suite_entry *suite = fsim_suite_find("default", &n);
  printf("%-26s %8s %8s %10s %12s %10s\n", "problem", "tried", "legal", "enum s", "model M/s", "tune s");
  double t_enum = 0, t_tune = 0, worst_tune = 0, evals = 0, t_model = 0;
  int64_t all_legal = 0;
  static fsim_tune_result r;
  for (int i = 0; i < n; i++) {
    fsim_gemm_problem pr;
    fsim_suite_problem(&suite[i], &pr);
    fsim_gemm_config free_all;
    fsim_gemm_config_free_all(&free_all);
    collect c = {0};
    int64_t tried, legal;
    double t0 = now();
    if (fsim_gemm_enumerate(&pr, &free_all, &a, keep, &c, &tried, &legal, &e) != FSIM_OK) {
      fprintf(stderr, "model_speed: %s\n", e.msg);
      return 1;
    }
    double te = now() - t0, best = 1e30, sink = 0;
    for (int rep = 0; rep < reps; rep++) {
      double t1 = now();
      for (int64_t j = 0; j < c.n; j++) {
        fsim_estimate est;
        fsim_model_estimate(&a, &c.s[j], &est);
        sink += est.cycles;
      }
      double dt = now() - t1;
      if (dt < best) best = dt;
    }
    double t2 = now();
    if (fsim_tune_gemm(&a, &pr, NULL, &r, &e) != FSIM_OK) {
      fprintf(stderr, "model_speed: %s\n", e.msg);
      return 1;
    }
    double tt = now() - t2;
    printf("%-26s %8lld %8lld %10.3f %12.1f %10.3f%s\n", suite[i].name, (long long)tried, (long long)legal, te,
           (double)c.n / best / 1e6, tt, sink > 0 ? "" : " ?");
    t_enum += te, t_tune += tt, evals += (double)c.n, t_model += best, all_legal += legal;
    if (tt > worst_tune) worst_tune = tt;
    free(c.s);
  }
  printf("total: %lld legal configs enumerated in %.3f s (%.0f configs/s); model %.1f M evaluations/s; "
         "tuning %.3f s for %d problems (%.3f s each on average, %.3f s at most)\n",
         (long long)all_legal, t_enum, (double)all_legal / t_enum, evals / t_model / 1e6, t_tune, n, t_tune / n,
         worst_tune);
  return 0;
}
