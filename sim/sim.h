/* The cycle-level simulator's public interface: run a wave program (traces/wprog.h) on a GPU
 * described by an arch file and get the kernel's cycles and time, per-unit utilisation,
 * cache behaviour, occupancy and a stall breakdown, optionally with a Chrome/Perfetto
 * timeline of CU 0.
 *
 * The model, unit by unit (one struct and file each): simd.h and mfma.h (issue slots, VALU and matrix pipes), lds.c (banks, phases,
 * ports), vmem.c (coalescer and vector L1), cache.c, memsys.c (L2 per XCD, Infinity Cache),
 * hbm.c (DRAM channels), cu.c (waves, issue rules, waitcnt, barriers), gpu.c (dispatch of
 * workgroups to XCDs and CUs, the windowed run loop, sampling).  docs/simulator.md describes it.
 *
 * Time is counted in cycles of the arch's sustained clock and converted to microseconds
 * with it.  Runs are deterministic: the same inputs give the same result, bit for bit. */
#ifndef FSIM_SIM_H
#define FSIM_SIM_H

#include <stdint.h>

#include "model/arch.h"
#include "traces/wprog.h"
#include "util/status.h"

/* X(enum suffix, name) */
#define FSIM_STALL_TABLE(X)          \
  X(DEP_VALU, "dep_valu")            \
  X(DEP_MFMA, "dep_mfma")            \
  X(DEP_LDS, "dep_lds")              \
  X(DEP_VMEM, "dep_vmem")            \
  X(DEP_SMEM, "dep_smem")            \
  X(PIPE_VALU, "pipe_valu")          \
  X(PIPE_MFMA, "pipe_mfma")          \
  X(WAIT_VMCNT, "waitcnt_vm")        \
  X(WAIT_LGKMCNT, "waitcnt_lgkm")    \
  X(QUEUE_FULL, "queue_full")        \
  X(BARRIER, "barrier")              \
  X(ISSUE, "issue_slot")             \
  X(FIXED, "branch_nop")

typedef enum fsim_stall {
#define FSIM__STALL_ENUM(id, name) FSIM_STALL_##id,
  FSIM_STALL_TABLE(FSIM__STALL_ENUM)
#undef FSIM__STALL_ENUM
  FSIM_STALL_COUNT
} fsim_stall;

const char *fsim_stall_name(fsim_stall s);

/* Host threads to use: $FLYSIM_THREADS (a whole number from 1), else the CPUs this process may
 * run on (the online CPUs, fewer where its affinity mask or its control group's CPU quota
 * allows fewer: sim/host.h); at most 64. */
int fsim_host_threads(void);
/* Host threads worth using for a full simulation of wp: fsim_host_threads() for a program of
 * millions of wave instructions in at least 64 workgroups, else 1 (the threads meet once per
 * window, which costs more than they save on a short run, or on a few long-lived waves that
 * keep one XCD busy). */
int fsim_sim_threads_for(const fsim_wprog *wp);

/* Cycles each CU runs ahead of the others between turns (gpu.c explains). */
#define FSIM_SIM_DEFAULT_WINDOW 32

typedef struct fsim_sim_opts {
  int sampled;               /* 1: simulate XCD 0's share with shortened main loops and extrapolate */
  int warm;                  /* 1: time a launch that follows an identical one (warm caches) */
  int sample_trips[2];       /* main-loop trip counts of the two sampled runs (default 6 and 12) */
  int no_sample_rounds;      /* 1: sampled mode simulates all of XCD 0's rounds of workgroups */
  const char *timeline_path; /* write a Chrome trace of CU 0 here (NULL: none) */
  int timeline_max_events;   /* 0: 200000 */
  int window;                /* cycles a CU runs ahead of the others (0: the default); 1 is exact */
  int immediate_memory;      /* 1: answer every vector-memory op at issue, never deferred (the reference
                                that tests hold the deferred mode to; gpu.c explains) */
  int no_mfma_runs;          /* 1: issue every MFMA through the event path, never in a run, and
                                make every try (the reference that tests hold the runs and the
                                skipped tries to; sim/cu.c, mfma_run and block_next_try) */
  int threads;               /* host threads to run the XCDs on (0 or 1: the caller's alone); the
                                results do not depend on it */
  int shuffle_xcds;          /* 1: with threads, the XCDs change threads every window, rather than
                                as the host times balance them (tests: sim/gpu.c) */
} fsim_sim_opts;

/* One wave's life on CU 0: where it ran, when, and what it waited on, cycle totals by
 * reason (the per-wave stall breakdown; the aggregate over all waves is in the result). */
#define FSIM_SIM_WAVE_RECORDS 64
typedef struct fsim_sim_wave {
  int64_t workgroup;         /* workgroup id */
  int wave;                  /* wave in its workgroup */
  int simd;
  int64_t start, end;        /* cycles */
  int64_t issued;            /* instructions issued */
  double stall[FSIM_STALL_COUNT];
} fsim_sim_wave;

typedef struct fsim_sim_result {
  int64_t cycles;            /* first dispatch to the last workgroup's end */
  double kernel_us;          /* cycles at the sustained clock */
  double time_us;            /* kernel_us + the arch's launch overhead */
  double clock_ghz;          /* the clock used */
  int64_t wave_instructions; /* executed, all waves */
  int64_t simulated_wave_instructions; /* what the simulator actually stepped (less when sampled) */
  int64_t workgroups;
  double host_seconds;
  int sampled;               /* 1: the numbers above are extrapolated from a sampled run */
  int warm;                  /* 1: the launch timed followed an identical one (fsim_sim_opts.warm) */
  double sample_period_cycles; /* sampled: cycles per main-loop iteration (all of XCD 0) */
  /* sampled: what was simulated and extrapolated (docs/simulator.md, Sampled mode) */
  int sample_xcds;             /* XCDs the simulated share stands for (1: the whole grid was run) */
  int64_t sample_loop_trips;   /* the main loop's trip count, run at sample_trips and extrapolated
                                  (0: no main loop was shortened) */
  int sample_trips[2];         /* the short runs' trip counts (0 when none was shortened) */
  int64_t sample_rounds;       /* XCD 0's complete rounds of workgroups, extrapolated from
                                  sample_rounds_run[0] and [1] of them (0: all simulated) */
  int64_t sample_rounds_run[2];

  /* occupancy */
  int wgs_per_cu;            /* resident workgroups per CU the resources allow */
  int waves_per_simd;        /* resident waves per SIMD at that occupancy */
  char occupancy_limit[32];  /* what limits it: "waves", "vgprs", "sgprs", "lds", "workgroups" */

  /* utilisation over the kernel's cycles, 0..1 */
  double util_mfma, util_valu, util_lds, util_l1, util_l2, util_mall, util_dram;
  double mfma_flops;         /* FLOPs the MFMAs performed */

  /* memory */
  int64_t l1_hits, l1_misses, l2_hits, l2_misses, mall_hits, mall_misses;
  int64_t dram_read_bytes, dram_write_bytes;
  int64_t store_bytes;       /* what the vector stores wrote (active lanes x width) */
  int64_t store_line_bytes;  /* the lines they wrote, whole (a line per store that touches it) */
  /* sampled, on a part with a MALL: the time HBM needs for the stored bytes a full run would
   * write back but the short runs did not (the stores beyond the MALL's capacity, less the
   * write-back the runs saw), at the HBM's sustained bandwidth; 0 when none.  The short runs
   * never fill the MALL with dirty lines, so a kernel whose steady state is that write-back is
   * not seen in it: this says how much time that may leave out (docs/simulator.md). */
  double sample_unseen_writeback_us;
  /* sampled, XCD 0 alone: 1 when the grid was too large to walk for the lines that other XCDs
   * read too (past about 4 million workgroups where a load's offset follows every coordinate
   * of the grid: gpu.c, share_build), so XCD 0 fetched every line it missed in its MALL share
   * from HBM itself; the time of a kernel whose XCDs share operands through the MALL then
   * comes out too long (docs/simulator.md) */
  int sample_share_skipped;
  /* the timeline (fsim_sim_opts.timeline_path; all 0 without one): the spans it holds, the
   * spans past the event limit left out, and the earliest cycle among those (the record is
   * complete before it) */
  int64_t timeline_events, timeline_dropped, timeline_cut_cycle;
  int64_t lds_bank_cycles, lds_accesses;

  /* stalls: cycles summed over all waves, by reason, plus issue cycles and lifetimes */
  double stall[FSIM_STALL_COUNT];
  double wave_cycles;        /* sum of wave lifetimes */
  double issue_cycles;       /* sum of instructions issued x issue period */
  int64_t waves;             /* waves that ran */

  /* the first FSIM_SIM_WAVE_RECORDS waves to finish on CU 0 (in sampled mode: of the last
   * shortened run, so their lifetimes are the sample's, not the kernel's) */
  int nwave_records;
  fsim_sim_wave wave_record[FSIM_SIM_WAVE_RECORDS];
} fsim_sim_result;

/* Runs wp on arch a.  Fails with FSIM_EINVAL when the program does not fit the arch (it is
 * validated first), FSIM_EIO when the timeline cannot be written. */
fsim_status fsim_sim_run(const fsim_arch *a, const fsim_wprog *wp, const fsim_sim_opts *opts, fsim_sim_result *r,
                         fsim_err *e);

/* Runs the n simulations wps[i] with opts[i] (no timeline) as fsim_sim_run does, their runs
 * (one each in full mode, up to four sampled) shared by `threads` host threads, the costliest
 * first, so that no thread waits while another simulation has runs left; a run gets the
 * threads left over (when there are more than runs) up to its opts[i].threads.  The results
 * do not depend on the threads.  r[i], st[i] and errs[i] are simulation i's
 * result, status and error; r[i].host_seconds is the host time its runs took.  Returns the
 * first failed simulation's status (in order), FSIM_OK when none failed. */
fsim_status fsim_sim_run_batch(const fsim_arch *a, int n, const fsim_wprog *const *wps, const fsim_sim_opts *opts,
                               int threads, fsim_sim_result *r, fsim_status *st, fsim_err *errs);

/* Whether a warm launch of a kernel whose data (a GEMM's A, B and C) take `footprint` bytes may
 * be simulated sampled: *sampled (-1 auto, 0 full, 1 sampled) is left as asked when they fit the
 * last cache level (the MALL, else the L2s); past it auto becomes full, and sampled fails with
 * FSIM_EINVAL. */
fsim_status fsim_sim_warm_sampled(const fsim_arch *a, int64_t footprint, int *sampled, fsim_err *e);

/* Occupancy the resources of wp allow on a (also used by model/): workgroups per CU and the
 * limiting resource's name. */
int fsim_sim_occupancy(const fsim_arch *a, const fsim_wprog *wp, int *waves_per_simd, const char **limit);

#endif
