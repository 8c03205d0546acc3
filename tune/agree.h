/* The analytical model's agreement with the cycle-level simulator on one problem: rank all
 * legal configs with the model, simulate a sample spread evenly over the ranking, and compare
 * (Spearman rank correlation, median relative difference).  docs/validation.md reports it on
 * the default suite; tests/check_tune.c holds it to a stated threshold. */
#ifndef FSIM_AGREE_H
#define FSIM_AGREE_H

#include "tune/tune.h"

typedef struct fsim_agree_point {
  char config[200];
  int rank;                  /* model rank, 0 = best */
  double model_us, sim_us;
  const char *model_bound, *sim_bound;
} fsim_agree_point;

typedef struct fsim_agreement {
  int n;
  fsim_agree_point pt[64];
  double spearman;           /* rank correlation of model and simulated times */
  double median_rel;         /* median of (model - sim) / sim */
  double median_abs_rel;     /* median of |model - sim| / sim */
  int64_t legal;
} fsim_agreement;

/* Samples n (at most 64) configs of pr evenly over the model's ranking, simulates them
 * (sampled as tune does) and compares. */
fsim_status fsim_tune_agreement(const fsim_arch *a, const fsim_gemm_problem *pr, int n, fsim_agreement *out,
                                fsim_err *e);

#endif
