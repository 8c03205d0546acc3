/* HIP source for a GEMM plan: one self-contained file with the kernel the schedule describes
 * (tile loops, the LDS buffer with the schedule's swizzles, the copy atoms: buffer loads,
 * gfx9's direct global-to-LDS loads, ds_read including the transposing reads, the MFMA or
 * WMMA builtins, waits, barriers, s_setprio and sched_group_barrier hints, the epilogue), a
 * host launcher for the HIP runtime, a test program that runs it on random data, and an
 * address self-test that plain C++ compiles.
 *
 * The kernel is a translation of the plan's wave program (kernels/gemm_wprog.c), instruction
 * by instruction and in its order, so that what the compiler is asked to schedule is what the
 * simulator timed.  Every per-lane offset comes from the plan's lane functions
 * (fsim_gemm_lane_copy, fsim_gemm_lane_read, fsim_gemm_lane_c_*): the file carries the same
 * index math written as small functions, and the emitter proves, for every wave and lane,
 * that the kernel's "base function plus constant" form of each access gives exactly the
 * plan's offset (the self-test checks the same thing once compiled).  docs/emit.md describes
 * the file.
 *
 * The file's first lines are machine-readable: "// flysim-plan: ..." and the schedule's INI
 * text between "// flysim-schedule-begin" and "// flysim-schedule-end", so `flysim verify`
 * rebuilds the plan from the file alone. */
#ifndef FSIM_EMIT_H
#define FSIM_EMIT_H

#include <stdio.h>

#include "kernels/gemm.h"

typedef struct fsim_emit_opts {
  double predicted_us;       /* <= 0: no prediction in the header */
  const char *predicted_how; /* "analytical model", ... */
  const char *predicted_bound;
  const char *config_source; /* where the schedule came from: config, schedule, database, tuned */
} fsim_emit_opts;

typedef struct fsim_emit_info {
  char kernel[96];           /* the kernel's symbol */
  int lines;                 /* lines written */
  int read_bases[2];         /* per-lane LDS read offsets kept in registers, per operand */
  int copy_bases[2];         /* per-lane global offsets of the copies, per operand */
  int masked_loads;          /* 1: loads check the problem's edges (K or M/N not tile multiples) */
  int masked_stores;         /* 1: the epilogue's stores check the edges of C (M or N not tile multiples) */
  int atomic_epilogue;       /* 1: split-K partial sums are added with atomics */
  int sched_groups;          /* sched_group_barrier calls in the main loop */
} fsim_emit_info;

/* Whether the emitter handles the plan; if not, why (the operator, an atom or a copy it does
 * not translate). */
int fsim_emit_supported(const fsim_gemm_plan *p, char *why, size_t n);

/* Writes the HIP file for plan p to f.  Deterministic: the same plan and options give the
 * same bytes. */
fsim_status fsim_emit_hip(const fsim_gemm_plan *p, const fsim_emit_opts *o, FILE *f, fsim_emit_info *info,
                          fsim_err *e);
/* The same into `path`, atomically: a temporary file in the same folder renamed into place;
 * on any error no file (and no partial file) is left. */
fsim_status fsim_emit_hip_file(const fsim_gemm_plan *p, const fsim_emit_opts *o, const char *path,
                               fsim_emit_info *info, fsim_err *e);

/* What the header of an emitted file says. */
typedef struct fsim_emit_header {
  char gfx[16];              /* the target, "gfx950" */
  char part[256];            /* the part, "mi355x" (fsim_arch_identity's name) */
  char overrides[1024];      /* --set overrides the plan was made with ("" for none) */
  char kernel[96];
  char version[32];          /* flysim version that wrote it */
  char swizzle[2][24];       /* the plan's resolved swizzles of A and B ("B,M,S" or "none") */
  fsim_schedule schedule;    /* parsed from the embedded INI */
} fsim_emit_header;

/* Reads the header of an emitted file (its text); errors name the file and the line. */
fsim_status fsim_emit_read_header(const char *text, const char *path, fsim_emit_header *h, fsim_err *e);

/* internal (emit_host.c): writes the host launcher and test program of kernel `kernel`;
 * returns the lines written */
int fsim__emit_host(FILE *f, const fsim_gemm_plan *p, const char *kernel);

/* Compares the output of the file's address self-test (FSIM_ADDRESS_SELFTEST) with the plan's
 * lane functions: 1 when every access of every thread agrees (*checked counts the values),
 * else 0 with the first difference in why. */
int fsim_emit_check_selftest(const fsim_gemm_plan *p, const char *output, int *checked, char *why, size_t n);

#endif
