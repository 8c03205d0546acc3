/* One SIMD of a CU: its issue slots, VALU and matrix pipe, and the waves resident on it in
 * arbitration order.  The CU gives each SIMD an issue slot every issue_period cycles (at
 * cycles congruent to the SIMD's index); in a slot the SIMD issues at most one instruction
 * per wave and one per issue type (VALU and MFMA share the VALU type, SALU and SMEM the
 * scalar type), choosing waves by priority and then age. */
#ifndef FSIM_SIMD_H
#define FSIM_SIMD_H

#include <stdint.h>

#include "sim/mfma.h"

enum fsim__issue_type { FSIM__IT_VALU, FSIM__IT_SALU, FSIM__IT_VMEM, FSIM__IT_LDS, FSIM__IT_BRANCH, FSIM__IT_COUNT };

#define FSIM__MAX_WAVES_PER_SIMD 32
#define FSIM__MAX_SIMDS 16

/* Laid out for the host's caches: a step reads the first line (and the wave list in the
 * second), an issue the first and the matrix pipe in the second. */
typedef struct fsim__simd {
  _Alignas(64) int nwaves;
  int64_t valu_free;
  int64_t slot_used[FSIM__IT_COUNT]; /* the last slot each type issued in */
  int64_t valu_busy;
  fsim__mfma mfma;
  int16_t waves[FSIM__MAX_WAVES_PER_SIMD]; /* CU wave slots, in arbitration order */
  int ph_n, ph_i;          /* phantom wake-ups (cu.c, mfma_run): count, first not yet passed */
  int64_t *ph;             /* FSIM__PHANTOMS cycles, ascending */
} fsim__simd;

#define FSIM__PHANTOMS 128

#endif
