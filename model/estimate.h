/* The analytical cost model: a closed-form estimate of a kernel's time from a summary of its
 * plan (what one wave and one workgroup do per main-loop iteration, what the problem moves
 * through memory, its resources), in microseconds per configuration, so that a tuner can
 * rank every legal configuration before the cycle-level simulator refines the best few.
 *
 * The summary is plain numbers: model/ knows nothing of schedules or layouts, kernels/
 * fills it (fsim_gemm_summary).  docs/model.md gives every formula; docs/validation.md
 * measures its agreement with the simulator. */
#ifndef FSIM_ESTIMATE_H
#define FSIM_ESTIMATE_H

#include <stdint.h>

#include "model/arch.h"

typedef struct fsim_plan_summary {
  /* launch and resources */
  int64_t workgroups;
  int waves_per_wg;
  int vgprs, agprs, sgprs;
  int64_t lds_bytes;
  /* the main loop, per workgroup */
  int iters;                 /* main-loop iterations (K tiles) */
  int stages;                /* tiles in flight: loads are issued stages-1 iterations ahead */
  int barriers_per_iter;
  /* per iteration and wave */
  int mfma_per_wave;
  int mfma_cycles;           /* matrix-pipe cycles of one MFMA */
  int mfma_latency;
  int lds_reads_per_wave;
  int64_t lds_read_bytes_per_wave;
  int lds_bank_cycles_per_wave; /* reads (and register-path writes), from the conflict law */
  int vmem_per_wave;         /* copy instructions */
  int ksteps;                /* atom steps per iteration (reads of one overlap MFMAs of the previous) */
  double kstep_hiding_mfmas; /* MFMAs of a k step issued after the last LDS read the next step's
                                first MFMA waits for (kernels/gemm_space.c replays the order) */
  int wave_groups;           /* 2 for ping-pong: two groups a barrier apart */
  int phases;                /* ping-pong: phases of a K tile, each ending at a barrier (else 1) */
  double copy_lead;          /* iterations between issuing a tile's copies and the first wait
                                for them: what hides their latency (stages >= 2); of them */
  double copy_lead_whole;    /* whole iterations (their exposed time included: the copies of
                                tile t+S-1 issued at t are waited for at t+S-1), the rest being
                                work within an iteration (through registers, issued at the start
                                of a K step and waited for at its end) */
  /* per iteration and workgroup */
  int64_t load_bytes_per_wg; /* global bytes the copies move */
  int64_t load_line_bytes_per_wg; /* cache-line bytes they touch: more where a tile's rows are
                                     shorter than a line (the L1 and L2 serve whole lines) */
  int64_t lds_write_bytes_per_wg;
  /* once per workgroup */
  int64_t store_bytes_per_wg;
  int64_t store_line_bytes_per_wg; /* cache-line bytes its C stores touch (poorly coalesced or
                                       split-K's 4-byte atomics touch more than they write) */
  int64_t epilogue_lds_cycles; /* bank cycles of the C staging (writes and reads), all waves of a workgroup */
  int store_atomics;         /* 1: the C stores are atomic adds (split-K), performed where the
                                part performs atomics (arch memory.atomics_in_l2) */
  /* the problem's traffic */
  int64_t unique_bytes;      /* A + B + C footprint */
  int64_t unique_ab_bytes;   /* A + B footprint: the bytes that must come from DRAM at least once */
  int64_t xcd_unique_bytes_per_iter; /* distinct A and B bytes one XCD's resident workgroups load per iteration */
  int64_t dram_ab_bytes;     /* A and B bytes read from DRAM over the kernel, re-reads past the MALL
                                included (0: not known; then the model bounds them) */
  double flops;
} fsim_plan_summary;

typedef struct fsim_estimate {
  double cycles;             /* kernel, at the sustained clock */
  double kernel_us, time_us; /* time_us adds the launch overhead */
  const char *bound;         /* "mfma", "lds", "l2", "mall", "hbm", "latency", "issue" or "launch" */
  /* per main-loop iteration of one workgroup at the modelled occupancy, cycles */
  double t_mfma, t_lds, t_l2, t_mall, t_dram, t_issue, t_exposed, t_iter;
  double t_chain;            /* the k steps on a SIMD with the LDS latency each step's reads leave
                                exposed (>= t_mfma when its waves' MFMAs fill the pipe) */
  double t_hbm;              /* DRAM over the whole kernel (unique bytes, or misses past the MALL) */
  double t_launch;           /* the dispatcher's bound: an XCD's launches, wg_launch_cycles apart, and
                                the last workgroup's time */
  double dram_bytes;         /* the bytes it moves: A and B as read (re-reads past the MALL), C once */
  double t_wg;               /* one workgroup, prologue to epilogue */
  double rounds;             /* workgroups per CU slot on the busiest CU */
  int wgs_per_cu, waves_per_simd;
  const char *occupancy_limit;
} fsim_estimate;

/* Estimates s on a; returns 0, or -1 when a workgroup does not fit on a CU. */
int fsim_model_estimate(const fsim_arch *a, const fsim_plan_summary *s, fsim_estimate *out);

/* A roofline estimate for a kernel flysim does not model in detail (the fallback path):
 * flops at the peak of the data-type class (fp32's where the part has none) and bytes at the
 * achievable DRAM bandwidth, both at the sustained clock, plus the launch overhead.  *bound
 * is "mfma" or "hbm". */
double fsim_model_roofline_us(const fsim_arch *a, double flops, double bytes, const char *peak_class,
                              const char **bound);

#endif
