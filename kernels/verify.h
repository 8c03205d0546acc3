/* Verification of an emitted HIP kernel against the plan it came from (flysim verify).
 *
 * The file's header gives the schedule back (kernels/emit.h); the plan is rebuilt from it
 * for the arch, and the file is
 *   - checked on the host: its address self-test, compiled as plain C++, must print for every
 *     access and every thread exactly the offset the plan's lane functions give;
 *   - compiled for the arch with the configured clang (device code only, no ROCm needed),
 *     and the code object's metadata read with llvm-readelf: LDS bytes must equal the plan's,
 *     there must be no scratch and no spills, the registers must fit the budget of the
 *     occupancy the simulation assumed, and that occupancy must hold;
 *   - disassembled with llvm-objdump: the main loop's instruction mix (MFMAs, LDS reads and
 *     writes, VMEM loads, waits, barriers per K tile) is compared with the wave program's
 *     (tolerances in docs/emit.md);
 *   - read back into a wave program (traces/asm.h) and simulated beside the schedule's own
 *     wave program: the two predicted times must agree within a tolerance;
 *   - optionally (FSIM_HAVE_HIP and with_hip) built with hipcc and run on the GPU: random
 *     inputs, results against a double-precision reference, a median time.
 * Every check has a name, a result and a one-line detail; the library returns them and
 * prints nothing.  Tools run with fork/exec in a private folder that is removed afterwards. */
#ifndef FSIM_VERIFY_H
#define FSIM_VERIFY_H

#include "kernels/emit.h"
#include "traces/asm.h"

typedef struct fsim_verify_opts {
  int with_hip;          /* build and run on an AMD GPU when flysim has the HIP runtime */
  int keep;              /* keep the work folder (its path is in the report) */
  double time_tolerance; /* relative difference allowed between the two simulations (0: 0.25) */
  int sampled;           /* simulations: -1 auto (sampled above a million wave instructions), 0, 1 */
  int warm;              /* simulations: of a launch that follows an identical one (fsim_sim_opts) */
} fsim_verify_opts;

#define FSIM_VERIFY_MAX_CHECKS 12

typedef struct fsim_verify_check {
  char name[32];
  int ok;       /* 1: passed, or skipped for a reason that is not the kernel's fault */
  int skipped;  /* 1: not run (the detail says why) */
  char detail[700];
} fsim_verify_check;

typedef struct fsim_verify_report {
  char file[640];           /* the file verified; "" for a kernel emitted into a work folder not kept */
  char kernel[96];
  char gfx[16];
  char workdir[512];        /* when kept */
  int compiled;
  double compile_host_seconds; /* clang's wall time: host timing, kept out of the check details */
  /* the code object */
  int vgprs, agprs, sgprs, vgpr_spills, sgpr_spills;
  long long lds_bytes, scratch_bytes;
  int wgs_per_cu, waves_per_simd;     /* with the compiled resources */
  /* the plan */
  long long plan_lds_bytes;
  int plan_vgprs, plan_agprs, plan_sgprs;
  int plan_wgs_per_cu, plan_waves_per_simd, reg_budget;
  /* the instruction mix: per K tile of the main loop, or the whole kernel */
  char mix_scope[64];
  fsim_asm_mix mix_plan, mix_asm;
  int asm_loops, plan_loops;
  /* simulations */
  double tuned_us;          /* the schedule's wave program as the tuner timed it */
  double sched_us;          /* the same with a split-K epilogue of atomics (= tuned_us without split-K) */
  double asm_us;            /* the compiled code read back */
  int asm_paths;            /* distinct paths the waves of a workgroup take through the compiled code */
  int asm_programs;         /* the schedule's wave programs */
  int asm_branches_decided;   /* conditional branches on those paths whose condition evaluated */
  int asm_loop_exits;         /* loop exit tests (their counter unknown), read as falling through */
  int asm_branches_undecided; /* other branches read as falling through (traces/asm.h) */
  int sim_sampled;            /* the two simulations: sampled (1) or full */
  int sim_warm;               /* and of a launch that follows an identical one (as asked, run or not) */
  /* the GPU run */
  int hip_ran;
  double hip_us, hip_max_rel_err;
  int addresses_checked;
  int nchecks;
  fsim_verify_check checks[FSIM_VERIFY_MAX_CHECKS];
  int ok;                   /* every check ok */
} fsim_verify_report;

/* Verifies an emitted file for arch a.  Returns FSIM_OK when the checks ran (r->ok says how
 * they went); an error for input that is not right: a file that is missing (FSIM_ENOENT) or
 * was not written by flysim emit, or was emitted for another arch (FSIM_EINVAL, naming it). */
fsim_status fsim_verify_file(const char *path, const fsim_arch *a, const fsim_verify_opts *o, fsim_verify_report *r,
                             fsim_err *e);

/* Emits plan p into a private folder and verifies the result. */
fsim_status fsim_verify_plan(const fsim_gemm_plan *p, const fsim_emit_opts *eo, const fsim_verify_opts *o,
                             fsim_verify_report *r, fsim_err *e);

/* The named check of a report, or NULL. */
const fsim_verify_check *fsim_verify_find(const fsim_verify_report *r, const char *name);

#endif
