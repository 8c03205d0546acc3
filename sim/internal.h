/* State shared by the simulator's CU and GPU code (cu.c, gpu.c).  Not installed. */
#ifndef FSIM_SIM_INTERNAL_H
#define FSIM_SIM_INTERNAL_H

/* The last cycle a run may reach: the caches keep arrival times in 31 bits (cache.h), less a
 * margin for fills still in flight. */
#define FSIM__CYCLE_LIMIT ((INT64_C(1) << 31) - (INT64_C(1) << 24))
/* The most bytes of cache tags a run may allocate (gpu.c), and of register scoreboards: 4 GiB,
 * far above any real part's (MI355X: 29 MB of tags) and below what this project's 24 GiB hosts
 * hold with room to spare. */
#define FSIM__TAG_BYTES_LIMIT 0x1p32

#include <stdint.h>
#include <stdio.h>

#include "sim/lds.h"
#include "sim/memsys.h"
#include "sim/sim.h"
#include "sim/simd.h"
#include "sim/vmem.h"

enum { FSIM__W_FREE, FSIM__W_READY, FSIM__W_BARRIER, FSIM__W_DONE };

/* What produced a register's value, for the stall reason of a dependence on it. */
enum { FSIM__P_NONE, FSIM__P_VALU, FSIM__P_MFMA, FSIM__P_LDS, FSIM__P_VMEM, FSIM__P_SMEM, FSIM__P_SALU };

/* A program as the CU runs it: the wave program's instructions and loops, plus each
 * instruction's source registers flattened (gpu.c builds them). */
#define FSIM__DEP_ACC 0x80000000u /* in deps: the register is read as an MFMA accumulator */
typedef struct fsim__xprog {
  const fsim_wp_inst *inst;
  const fsim_wp_loop *loops;
  int ninst;
  int32_t *dep_at;   /* per instruction: its first entry in deps; ninst + 1 entries */
  uint32_t *deps;    /* register ids, FSIM__DEP_ACC where SrcC is forwarded */
  uint8_t *loop_empty; /* per loop: 1 when its body holds no instruction (markers only) */
} fsim__xprog;

/* Deferred vector memory (gpu.c explains when it is used): a vector-memory operation's
 * completion is computed after its XCD's CUs have run the window, and until then the wave's
 * counter entry and destination registers hold a code from FSIM__PEND up (the op's index in
 * the window's queue), which is later than any time.  A wave that must wait on such a time
 * is parked (ready_at FSIM__PEND_WAIT) and its wait is decided once the time is known. */
#define FSIM__PEND ((int64_t)1 << 52)
#define FSIM__PEND_WAIT INT64_MAX

typedef struct fsim__vmop {
  int64_t t;         /* issue cycle */
  fsim__atime done;  /* its completion as the private pass of the memory phase gives it (memsys.h) */
  int32_t cu;        /* CU index */
  int16_t wave;      /* wave slot in the CU */
  int8_t slot;       /* its entry in the wave's vm counter ring */
  int8_t prev;       /* the entry before it at issue (in-order completion), -1 if none */
  uint8_t op;        /* FSIM_OP_LOAD, _LOAD_LDS or _STORE */
  uint8_t shared;    /* the XCDs that read its lines (fsim__memsys_read_p); 1 but in sampled mode */
  uint8_t atomic;    /* a store that is an atomic add (FSIM_IF_ATOMIC) */
  uint16_t reg_first, reg_count; /* a load's destination registers */
  int32_t nlines, lines_at; /* its lines, in the queue's line pool */
  uint32_t age;      /* the wave's dispatch number (mod 2^32): a wave slot reused since is left alone */
} fsim__vmop;

/* A register's scoreboard entry: 16 bytes, so that a dependence check reads one host line. */
typedef struct fsim__reg {
  int64_t ready;     /* cycle the value is readable */
  int32_t acc_lead;  /* ready minus the cycle it is readable as an MFMA accumulator (SrcC forwarding) */
  uint8_t reason;    /* the stall reason of a dependence on it (fsim_stall, from what wrote it) */
} fsim__reg;

/* A wave slot.  The fields a SIMD step reads are in the first two host cache lines (the
 * simulator's time goes mostly to fetching state that other CUs pushed out of the host's
 * caches); the stall account and the counters' rings come after. */
typedef struct fsim__wave {
  _Alignas(64) uint8_t state;
  uint8_t depth;     /* open loops */
  uint8_t prio;
  uint8_t simd;
  int16_t wg;        /* CU workgroup slot */
  int16_t wave_in_wg;
  int32_t pc;
  int32_t dep_reason; /* the stall reason of the latest source of the current instruction */
  const fsim__xprog *prog;
  int64_t ready_at;  /* earliest cycle the next instruction may issue */
  int64_t dep_ready; /* when the current instruction's source registers are all readable */
  fsim__reg *reg;    /* per register of the program */
  int vm_head, vm_n;
  int lgkm_head, lgkm_n;
  int32_t loop[FSIM_WP_MAX_DEPTH];
  int64_t iter[FSIM_WP_MAX_DEPTH];
  int64_t issued;
  int64_t age;       /* dispatch order on its CU, for oldest-first arbitration */
  int64_t start;
  double stall[FSIM_STALL_COUNT];
  int64_t lgkm_done[16];
  int64_t vm_done[64];
  int64_t park_t;    /* deferred mode: the cycle it was parked at */
  int64_t park_unit; /* and the VALU's or matrix pipe's free time then */
} fsim__wave;

typedef struct fsim__wg {
  int active;
  int64_t id;
  int coord[3];
  int waves_left;
  int arrived;       /* waves at the current barrier */
  int16_t wave_slot[32];
  int64_t start;
  uint8_t *shared;   /* sampled mode: per address pattern, the XCDs whose workgroups read what
                        this one reads through it (fsim__gpu_share_of); NULL otherwise */
} fsim__wg;

typedef struct fsim__cu {
  _Alignas(64) int64_t simd_next[FSIM__MAX_SIMDS]; /* per SIMD: next cycle it has a wave to look at, INT64_MAX if none */
  int index, xcd;
  fsim__wave *waves;       /* wave slots */
  fsim__reg *regs;         /* the waves' registers, nregs per slot */
  int nwave_slots;
  fsim__wg *wgs;
  int nwg_slots, wgs_active;
  int wgs_finished;        /* workgroups whose waves all ended, not yet freed */
  int next_simd;           /* rotating start for placing a workgroup's waves */
  int64_t age;             /* waves launched on it so far: the next one's age (per CU, so that
                              whichever host thread runs it numbers its waves alike: gpu.c) */
  unsigned sorts;          /* times a SIMD's arbitration order was re-sorted (cu.c) */
  int ph_any;              /* 1: some SIMD may have phantom wake-ups left (cu.c) */
  int64_t store_bytes;     /* bytes its vector stores wrote (active lanes x width) */
  int64_t *phantoms;       /* the SIMDs' phantom wake-up buffers */
  fsim__lds lds;
  /* on host cache lines of its own: the memory passes use it, and with threads a memory phase
   * on another host core can write times into it (gpu.c) */
  _Alignas(64) fsim__vmem vmem;
  _Alignas(64) fsim__simd simd[FSIM__MAX_SIMDS]; /* the first a->cu.simds are used */
} fsim__cu;

/* Per (lane table, row, width class): precomputed costs for an aligned base. */
typedef struct fsim__pattern {
  int lds_cycles;          /* -1: not computed */
  int nlines;              /* -1: not computed */
  int lines_at;            /* index into the line pool */
} fsim__pattern;

/* Per pattern: the lines of line-unaligned bases, by the base's offset in its line (cu.c). */
#define FSIM__UA_SLOTS 4
typedef struct fsim__ua_memo {
  int32_t r[FSIM__UA_SLOTS];  /* offset in the line, -1: free */
  int32_t n[FSIM__UA_SLOTS];  /* lines */
  int32_t at[FSIM__UA_SLOTS]; /* index into ua_pool */
} fsim__ua_memo;

/* An MFMA of the arch as the issue path uses it. */
typedef struct fsim__mfma_kind {
  int cycles;              /* matrix-pipe cycles */
  int latency;             /* to a dependent read of the result */
  int acc;                 /* to its use as the next MFMA's accumulator: cycles with SrcC forwarding, else latency */
  double flops;            /* 2 m n k */
} fsim__mfma_kind;

typedef struct fsim__gpu {
  const fsim_arch *a;
  const fsim_wprog *wp;
  int ncus;                /* simulated CUs */
  int simds;               /* SIMDs per CU */
  int xcds;                /* simulated XCDs */
  int cus_per_xcd;
  fsim__cu *cus;
  fsim__wave *wave_block;  /* every CU's wave slots */
  fsim__reg *reg_block;    /* every CU's register scoreboards */
  fsim__memsys mem;
  /* Global addresses the caches tell apart: they keep a line's tag as its address modulo 2^32
   * lines, plus one (0 marks an empty way, cache.h), so lines 0 to 2^32 - 2: 2^39 - 128
   * bytes with 128-byte lines (gpu.c) */
  int64_t global_limit;
  int64_t window;          /* cycles each CU runs ahead before the next CU (see gpu.c) */
  int period;              /* issue period */
  int period_mask;         /* period - 1 when a power of two, else -1 */
  /* dispatch */
  int64_t nwg;             /* workgroups to run (all of them, or XCD 0's share) */
  int64_t skip_wgs;        /* sampled mode: workgroups each XCD leaves out at the start */
  int64_t *xcd_next;       /* per XCD: next workgroup id to dispatch, or -1 */
  int64_t *xcd_launch;     /* per XCD: earliest cycle of its next launch */
  int64_t *xcd_end_id;     /* per XCD: ids stop before this */
  int64_t xcd_stride;      /* id step within one XCD's queue */
  int xcd_total;           /* XCDs of the real device, for the id -> XCD map */
  int wgs_per_cu;
  int waves_per_simd;
  int64_t wgs_done;
  int64_t end_cycle;
  int64_t wave_instructions;
  double valu_busy;
  fsim__xprog *xprogs;     /* per program of wp */
  fsim__mfma_kind mfma_kind[FSIM_ARCH_MAX_MFMA];
  /* per-pattern memo */
  int *row_base;           /* per lane table: index of its first row in patterns/6 */
  int *row_active;         /* per lane-table row: lanes that access memory */
  int64_t lds_period;      /* bytes after which the LDS banks repeat */
  fsim__pattern *patterns;
  fsim__ua_memo *ua_memo;  /* per pattern */
  int64_t *row_min_off;    /* per lane-table row: the smallest offset of an active lane */
  int64_t *row_max_off;    /* per lane-table row: the largest offset of an active lane */
  /* sampled mode, XCD 0 alone: per class of global address patterns with the same wg_stride,
   * an open-addressing table from a workgroup's offset through them (sum of wg_stride x
   * coordinate) to the mask of the real device's XCDs that read at that offset (gpu.c);
   * share_cap 0 when off */
  int64_t *share_key;
  uint32_t *share_mask;
  int *share_table;        /* per address pattern: its class, -1 for LDS and patterns no load reads */
  int nshare;              /* classes */
  int64_t *share_base;     /* per class: its first slot */
  int64_t *share_slots;    /* per class: its slots, a power of two */
  int *share_rep;          /* per class: a pattern of it (whose wg_stride it has) */
  int64_t share_cap;       /* slots of all classes */
  int share_skipped;       /* 1: XCD 0 alone, but the grid was too large to walk (sim.h) */
  uint8_t *share_block;    /* every workgroup slot's fsim__wg.shared */
  fsim__mpass *passes;     /* deferred vector memory: per XCD, its memory phase's passes (memsys.h) */
  /* deferred vector memory: the current XCD's ops of this window, their lines, the parked waves */
  int defer;               /* 1: deferred (gpu.c) */
  int mfma_runs;           /* 1: MFMAs may issue in runs (cu.c, mfma_run); 0: all through the event path */
  int64_t win_end;         /* the window being run ends here */
  fsim__vmop *ops;
  int nops, ops_cap;
  uint64_t *op_lines;
  int nop_lines, op_lines_cap;
  int32_t *parked;         /* (CU, wave slot) pairs */
  int nparked, parked_cap;
  int threads;             /* host threads for the XCDs (gpu.c) */
  int shuffle_xcds;        /* 1: the XCDs change threads every window (fsim_sim_opts) */
  char fault[512];         /* the first LDS or global access out of range (cu.c), or the cycle limit; "" if none */
  uint64_t *ua_pool;
  int ua_pool_n, ua_pool_cap;
  uint64_t *line_pool;
  int line_pool_n, line_pool_cap;
  uint64_t scratch_lines[FSIM_MAX_WAVE * 2];
  /* results */
  fsim_sim_result *r;
  /* timeline (CU 0) */
  void *timeline;          /* json_t array, or NULL */
  int timeline_max, timeline_n;
  int64_t timeline_dropped; /* spans past timeline_max, left out */
  int64_t timeline_cut;     /* the earliest start among them */
} fsim__gpu;

/* cu.c */
/* Runs the CU's SIMD wake-ups before `end` in time order; returns the next one (INT64_MAX: none). */
int64_t fsim__cu_run(fsim__gpu *g, fsim__cu *cu, int64_t end);
void fsim__cu_launch_wg(fsim__gpu *g, fsim__cu *cu, int64_t id, int64_t t);
/* Deferred mode: the window's queued vector-memory ops go through the memory system in
 * issue order: fsim__cu_mem_private runs their private pass (memsys.h) into p, then after the
 * shared pass (fsim__memsys_shared) fsim__cu_apply_ops writes their times to the waves and
 * empties the queue; then fsim__cu_drain_parked decides the parked waves' waits, returning the
 * earlier of next and the wake-ups that scheduled. */
void fsim__cu_mem_private(fsim__gpu *g, fsim__memsys *m, fsim__mpass *p);
void fsim__cu_apply_ops(fsim__gpu *g, fsim__mpass *p);
int64_t fsim__cu_drain_parked(fsim__gpu *g, int64_t next);
/* gpu.c: sampled mode, the XCDs that read what a workgroup at coord reads, per address
 * pattern (1 for patterns of the LDS and lines no other XCD reads) */
void fsim__gpu_share_of(const fsim__gpu *g, const int coord[3], uint8_t *shared);
/* gpu.c: called by cu.c when a workgroup finishes */
void fsim__gpu_wg_done(fsim__gpu *g, fsim__cu *cu, int64_t t);
/* Wakes SIMD s of cu no later than t. */
static inline void fsim__gpu_schedule_simd(fsim__gpu *g, fsim__cu *cu, int s, int64_t t) {
  (void)g;
  if (t < cu->simd_next[s]) cu->simd_next[s] = t;
}
/* timeline.c: a span on one of wave slot w's threads, 4 w + track (spans of one thread never
 * overlap: an MFMA's matrix-pipe cycles and a multi-pass VALU's run on while the wave issues
 * other instructions or waits) */
enum { FSIM__TL_ISSUE, FSIM__TL_MFMA, FSIM__TL_VALU, FSIM__TL_STALL, FSIM__TL_TRACKS };
void fsim__timeline_span(fsim__gpu *g, const fsim__cu *cu, int wave_slot, int track, const char *name, const char *cat,
                         int64_t t0, int64_t t1);

#endif
