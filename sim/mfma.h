/* The matrix pipe of one SIMD: an MFMA holds it for passes x pass_cycles cycles; independent
 * MFMAs issue back to back when it frees.  Dependences on its results are tracked by the
 * wave's register scoreboard (cu.c) with the instruction's latency, or only the pipe time
 * for an accumulate chain when the arch forwards SrcC. */
#ifndef FSIM_MFMA_H
#define FSIM_MFMA_H

#include <stdint.h>

typedef struct fsim__mfma {
  int64_t free;    /* cycle the pipe can take the next instruction */
  int64_t busy;    /* cycles busy, for utilisation */
  int64_t issued;
  double flops;
} fsim__mfma;

static inline void fsim__mfma_issue(fsim__mfma *p, int64_t t, int cycles, double flops) {
  p->free = t + cycles;
  p->busy += cycles;
  p->issued++;
  p->flops += flops;
}

#endif
