/* Problem suites for tuning.  The default suite is fifteen BF16 GEMMs (TN, bf16 out) that
 * LLM serving runs: decode (M from 1 to 64), prefill, squares from 1K to 16K, and large K.
 * docs/gemm.md gives where each shape comes from. */
#ifndef FSIM_SUITE_H
#define FSIM_SUITE_H

#include "kernels/gemm_space.h"

typedef struct fsim_suite_entry {
  const char *name;   /* e.g. "llama3-8b.qkv.decode1" */
  const char *source; /* the model layer and where its shape comes from */
  long long m, n, k;
} fsim_suite_entry;

/* The suite's entries, or NULL when there is no suite of that name ("default"). */
const fsim_suite_entry *fsim_suite_find(const char *name, int *n);
/* A suite entry as a BF16 TN GEMM problem. */
void fsim_suite_problem(const fsim_suite_entry *s, fsim_gemm_problem *pr);

#endif
