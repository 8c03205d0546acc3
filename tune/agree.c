/* Model-versus-simulator agreement: see agree.h. */
#include "config.h"

#include "tune/agree.h"

#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>
#include <stdlib.h>
#include <string.h>

fsim_status fsim_tune_agreement(const fsim_arch *a, const fsim_gemm_problem *pr, int n, fsim_agreement *out,
                                fsim_err *e) {
  memset(out, 0, sizeof *out);
  if (n < 2) n = 2;
  if (n > 64) n = 64;
  fsim_tune_candidate *all;
  int64_t count, tried;
  fsim_status st = fsim_tune_rank(a, pr, NULL, &all, &count, &tried, &out->legal, e);
  if (st != FSIM_OK) return st;
  if (n > count) n = (int)count;
  fsim_schedule *s = malloc(sizeof *s);
  if (s == NULL) {
    free(all);
    return FSIM_ERR(e, FSIM_ENOMEM, "out of memory");
  }
  for (int i = 0; i < n && st == FSIM_OK; i++) {
    /* evenly over the ranking, the best and the worst included */
    int64_t rank = n > 1 ? (int64_t)((double)i * (double)(count - 1) / (double)(n - 1) + 0.5) : 0;
    fsim_agree_point *p = &out->pt[i];
    snprintf(p->config, sizeof p->config, "%s", all[rank].config);
    p->rank = (int)rank;
    p->model_us = all[rank].model_us;
    p->model_bound = all[rank].model_bound;
    fsim_gemm_config c;
    fsim_sim_result sim;
    st = fsim_gemm_config_parse(p->config, &c, e);
    if (st == FSIM_OK) st = fsim_gemm_schedule_from(pr, &c, a, s, e);
    fsim_estimate est;
    if (st == FSIM_OK) st = fsim_tune_evaluate(a, s, -1, 0, NULL, fsim_host_threads(), NULL, &sim, &est, e);
    if (st == FSIM_OK) {
      p->sim_us = sim.time_us;
      p->sim_bound = fsim_tune_bound(&sim, &est);
    }
  }
  free(s);
  free(all);
  if (st != FSIM_OK) return st;
  out->n = n;
  double m[64], sm[64], rel[64], absrel[64], work[128];
  for (int i = 0; i < n; i++) {
    m[i] = out->pt[i].model_us;
    sm[i] = out->pt[i].sim_us;
    rel[i] = (m[i] - sm[i]) / sm[i];
    absrel[i] = rel[i] < 0 ? -rel[i] : rel[i];
  }
  out->spearman = gsl_stats_spearman(m, 1, sm, 1, (size_t)n, work);
  gsl_sort(rel, 1, (size_t)n);
  gsl_sort(absrel, 1, (size_t)n);
  out->median_rel = gsl_stats_median_from_sorted_data(rel, 1, (size_t)n);
  out->median_abs_rel = gsl_stats_median_from_sorted_data(absrel, 1, (size_t)n);
  return FSIM_OK;
}
