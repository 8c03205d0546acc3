/* Tuning: enumerate every legal configuration of a problem (kernels/gemm_space), rank them
 * all with the analytical model (model/estimate), simulate the best few with the
 * cycle-level model (sim/) and keep the fastest.  The layer above kernels/, model/ and sim/:
 * it only orchestrates them. */
#ifndef FSIM_TUNE_H
#define FSIM_TUNE_H

#include "kernels/gemm_space.h"
#include "model/estimate.h"
#include "sim/sim.h"

typedef struct fsim_tune_opts {
  const fsim_gemm_config *fixed; /* constraints (NULL: all free) */
  int refine;                    /* configurations simulated (default 4) */
  int sampled;                   /* -1 auto (large kernels sampled), 0 full, 1 sampled */
  int warm;                      /* simulate warm launches */
  int model_only;                /* rank with the model and keep its best; simulate nothing */
  int compiled;                  /* > 0: emit, compile and verify (kernels/verify.h) the N fastest
                                    simulated candidates and keep the fastest compiled code that
                                    passes every check (needs FSIM_HIP_CLANG) */
} fsim_tune_opts;

typedef struct fsim_tune_candidate {
  char config[200];
  double model_us;
  const char *model_bound;
  double sim_us;                 /* 0 when not simulated */
  int agprs_full;                /* its accumulators fill the part's AGPR file (fsim_tune_gemm) */
  int stages_used;               /* the stages its K slice keeps busy (fsim_gemm_used_stages) */
} fsim_tune_candidate;

typedef struct fsim_tune_result {
  int64_t tried, legal;          /* configurations considered, and legal */
  int64_t agprs_full;            /* legal ones whose accumulators fill the AGPR file (ranked last) */
  int ncand;                     /* candidates kept (the best by the model), model order but
                                    those filling the AGPR file last (fsim_tune_gemm) */
  fsim_tune_candidate cand[64];
  int best;                      /* index into cand: fastest simulated (with compiled: fastest
                                    compiled code that passed, or the fastest simulated if none) */
  /* fsim_tune_opts.compiled, per candidate: its compiled code simulated (0: not verified), and
   * why it was not kept ("" when it passed or was not verified) */
  double compiled_us[64];
  char compiled_note[64][200];
  int compiled_tried, compiled_ok; /* candidates verified (emitted and compiled), and those that
                                      passed every check */
  fsim_schedule schedule;        /* the winner's */
  fsim_estimate estimate;        /* the winner's */
  fsim_sim_result sim;           /* the winner's */
  double host_seconds;
} fsim_tune_result;

/* Every legal config of pr within fixed (NULL: all free), with the model's time, sorted by
 * it (ties in enumeration order).  The caller frees *out. */
fsim_status fsim_tune_rank(const fsim_arch *a, const fsim_gemm_problem *pr, const fsim_gemm_config *fixed,
                           fsim_tune_candidate **out, int64_t *n, int64_t *tried, int64_t *legal, fsim_err *e);

/* Tunes pr on a.  A problem with no legal configuration fails with FSIM_EINVAL.  The
 * candidates (fsim_tune_result.cand) are in model order, except that configs whose
 * accumulators fill the AGPR file come after all the others: clang-22 then takes the whole
 * register file, moves accumulators between AGPRs and VGPRs and at times spills, which neither
 * the model nor the wave program sees (their compiled code measured 1-92% slower than
 * scheduled, against -0.2% to +6.2% with half the accumulators; docs/gemm.md). */
fsim_status fsim_tune_gemm(const fsim_arch *a, const fsim_gemm_problem *pr, const fsim_tune_opts *o, fsim_tune_result *r,
                           fsim_err *e);

/* Simulates one schedule (full or sampled, see fsim_tune_opts.sampled; sample_trips as
 * fsim_sim_opts', NULL for the default) on `threads` host threads (fsim_sim_opts.threads: the
 * result does not depend on it) and estimates it. */
fsim_status fsim_tune_evaluate(const fsim_arch *a, const fsim_schedule *s, int sampled, int warm,
                               const int *sample_trips, int threads, const char *timeline, fsim_sim_result *sim,
                               fsim_estimate *est, fsim_err *e);

/* The bound a simulation shows: the busiest unit ("mfma", "lds", "l1", "l2", "mall", "hbm"),
 * or "latency" when none is busy more than 60% of the time. */
const char *fsim_tune_sim_bound(const fsim_sim_result *r);
/* The same, with the model's estimate of the kernel to discount a sampled run's MALL and HBM
 * utilisation (XCD 0 alone reads them high where operands are shared among the XCDs). */
const char *fsim_tune_bound(const fsim_sim_result *r, const fsim_estimate *est);

#endif
