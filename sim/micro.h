/* Microbenchmarks of the model (see micro.c): each builds a small wave program, simulates
 * it and returns what it measured beside what the arch file implies. */
#ifndef FSIM_MICRO_H
#define FSIM_MICRO_H

#include <stdint.h>

#include "sim/sim.h"

typedef struct fsim_micro_result {
  int64_t cycles;          /* of the (last) simulation */
  double value;            /* mfma: FLOP/clk/CU; lds: bank cycles; latency: cycles; bandwidth: TB/s */
  double cycles_per_instr;
  double expected;         /* what the arch file implies for the measured quantity */
  int degree;              /* lds: worst conflict degree */
  int whole_run;           /* bandwidth: 1 when value is the whole run's rate (see fsim_micro_bandwidth) */
} fsim_micro_result;

/* Throughput (independent accumulators) or dependent latency (each MFMA reads the previous
 * result as its A operand) of one instruction, waves_per_simd waves on each SIMD of one CU.
 * cycles_per_instr: cycles between instructions on a SIMD (all its waves' together);
 * expected: the least the simulator's issue rules allow, the larger of the pipe's cycles in
 * whole issue slots and the chain's wait in whole slots shared by the SIMD's chains (dependent:
 * the latency over waves_per_simd chains; independent: the accumulator's wait, the pipe's
 * cycles with SrcC forwarding or the latency without, over 4 chains a wave).  Met within 1%
 * by one wave; a lower bound with several (arbitration can leave slots unused). */
fsim_status fsim_micro_mfma(const fsim_arch *a, const char *inst, long waves_per_simd, int dependent,
                            fsim_micro_result *out, fsim_err *e);
/* One wave reading width_bits per lane at lane * stride bytes. expected: cycles per read by
 * the simulator's rules: the larger of the bank and port cycles, the issue period, and the
 * latency after the bank or port cycles, in whole issue slots, over the 15 reads the lgkm
 * counter keeps in flight. */
fsim_status fsim_micro_lds(const fsim_arch *a, long stride, long width_bits, fsim_micro_result *out, fsim_err *e);
/* Pointer-chase latency at level l1, l2, mall or hbm. expected: the arch's latency.  The
 * footprint is at least twice each cache in front of the level and at most half of it; a
 * what-if with no such footprint is refused (FSIM_EINVAL, naming the keys). */
fsim_status fsim_micro_latency(const fsim_arch *a, const char *level, fsim_micro_result *out, fsim_err *e);
/* Whole-GPU streaming bandwidth at level lds, l1, l2, mall or hbm, TB/s at the sustained
 * clock. expected: the arch's peak for that level at the sustained clock (HBM: achievable).
 * The rate is the difference of two runs (start-up and drain left out); where that exceeds the
 * level's peak, the runs did not stream on every CU at once (workgroup launches spread out by a
 * large dispatch.wg_launch_cycles), and the longer run's whole rate is given (whole_run).  Each
 * CU's share of the footprint misses the caches in front of the level and fits it (micro.c,
 * stream_fit); a what-if with no such share is refused (FSIM_EINVAL, naming the keys). */
fsim_status fsim_micro_bandwidth(const fsim_arch *a, const char *level, fsim_micro_result *out, fsim_err *e);

#endif
