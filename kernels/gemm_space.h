/* GEMM problems as users give them, --config strings, the legal configuration space, and
 * the summary of a plan that the analytical model reads.
 *
 * A config is what `--config` says: tile=BMxBNxBK, waves=WMxWN, stages=S, mfma=MxNxK (or an
 * atom name), splitk=S, and optionally path=direct|registers, c=lds|direct, remap=0|1,
 * groupm=G, kind=plain|pingpong, swizzle=auto|none|B,M,S (or B:M:S).  Keys left out are free: the
 * enumeration visits every legal value of them (docs/gemm.md lists the space). */
#ifndef FSIM_GEMM_SPACE_H
#define FSIM_GEMM_SPACE_H

#include <stdatomic.h>

#include "kernels/gemm.h"
#include "model/estimate.h"

typedef struct fsim_gemm_problem {
  fsim_kop op;          /* gemm, grouped-gemm or scaled-gemm */
  long long m, n, k;
  int groups;           /* grouped-gemm */
  fsim_dtype a, b, c;
  fsim_gemm_layout layout;
} fsim_gemm_problem;

/* Constraints; 0 (or -1 for the enums, "" for strings) leaves a key free. */
typedef struct fsim_gemm_config {
  int bm, bn, bk, waves_m, waves_n, stages, split_k;
  int atom_m, atom_n, atom_k;
  char atom[64];
  int path, c_path, xcd_remap, group_m, kind;
  char swizzle[24];
} fsim_gemm_config;

void fsim_gemm_config_free_all(fsim_gemm_config *c);
/* Parses "tile=256x256x64,waves=2x4,..." into constraints (starting from all free). */
fsim_status fsim_gemm_config_parse(const char *text, fsim_gemm_config *c, fsim_err *e);
/* The canonical config string of a GEMM schedule. */
int fsim_gemm_config_format(const fsim_schedule *s, char *buf, size_t n);
/* 1 when every key that shapes the kernel is fixed (nothing to choose). */
int fsim_gemm_config_complete(const fsim_gemm_config *c);

/* Whether FlyDSL's path takes the problem; if not, *why says why (PyTorch falls back). */
int fsim_gemm_supported(const fsim_gemm_problem *pr, const fsim_arch *a, char *why, size_t n);
/* For a problem the FlyDSL path does not take, the nearest one it does, whose kernel stands in
 * for the fallback path's in an estimate (docs/gemm.md, What falls back): K rounded up to the
 * 4-byte copies (and to 128 for a scaled GEMM), operands the part cannot read M/N-contiguous
 * read K-contiguous (fp8 on gfx942, a scaled GEMM's), and A's and B's types swapped by
 * computing C^T = B^T A^T where only that order has an MMA atom.  Returns 1 with *out and `how` (e.g. "K 4098") set, or 0 when there is none (a scaled
 * GEMM on a part without scaled MFMA, types without an atom in either order, a nearest
 * problem past the part's memory). */
int fsim_gemm_nearest_supported(const fsim_gemm_problem *pr, const fsim_arch *a, fsim_gemm_problem *out, char *how,
                                size_t n);
/* The problem's FLOPs (2 M N K, times the groups of a grouped GEMM) and the bytes of its A, B
 * and C (and a scaled GEMM's E8M0 scales). */
double fsim_gemm_problem_flops(const fsim_gemm_problem *pr);
double fsim_gemm_problem_bytes(const fsim_gemm_problem *pr);
/* The peak class ("bf16", "fp8", ...) the problem's MMAs run at on part a: the slower of A's and
 * B's (fp8 x fp4 runs at the fp8 rate), or "fp32" where the part has no MMA rate for them. */
const char *fsim_gemm_peak_class(const fsim_gemm_problem *pr, const fsim_arch *a);
/* Checks the problem's own values (types for the operator, sizes); errors name the flag. */
fsim_status fsim_gemm_problem_check(const fsim_gemm_problem *pr, fsim_err *e);
/* The same, naming A's and B's types as a_label and b_label ("--dtype" and "--b-dtype" above;
 * "[problem] a_type" where the type came from a schedule file). */
fsim_status fsim_gemm_problem_check_as(const fsim_gemm_problem *pr, const char *a_label, const char *b_label,
                                       fsim_err *e);
/* FSIM_EINVAL when A, B and C (and a scaled GEMM's scales) do not fit in the part's memory. */
fsim_status fsim_gemm_problem_fits(const fsim_gemm_problem *pr, const fsim_arch *a, fsim_err *e);
/* The same, the error naming `label` (a schedule file's keys) instead of the shape flags;
 * NULL: the flags; "": nothing (the caller names the problem). */
fsim_status fsim_gemm_problem_fits_as(const fsim_gemm_problem *pr, const fsim_arch *a, const char *label,
                                      fsim_err *e);

/* What the kernel of schedule file s has that its config (fsim_gemm_config_format) does not
 * say: where the plan the config builds differs from s's (the MMA atom; per operand its copy
 * atoms, LDS swizzle, order and padding; C's store; the interleave hints), as text such as
 * "A's swizzle 2,4,4 (the config's 3,3,3)", "; "-separated, into out; empty when the config
 * builds the same kernel.  A config that builds no legal kernel by itself is said so there.
 * FSIM_OK, or FSIM_ENOMEM. */
fsim_status fsim_gemm_config_gaps(const fsim_gemm_problem *pr, const fsim_schedule *s, const fsim_arch *a, char *out,
                                  size_t n, fsim_err *e);

/* The schedule of a problem under a complete config; fails if a key is still free. */
fsim_status fsim_gemm_schedule_from(const fsim_gemm_problem *pr, const fsim_gemm_config *c, const fsim_arch *a,
                                    fsim_schedule *s, fsim_err *e);

/* Visits every legal plan consistent with the constraints; a visit returning nonzero stops. */
typedef int (*fsim_gemm_visit)(void *ctx, const fsim_gemm_plan *p);
fsim_status fsim_gemm_enumerate(const fsim_gemm_problem *pr, const fsim_gemm_config *fixed, const fsim_arch *a,
                                fsim_gemm_visit visit, void *ctx, int64_t *tried, int64_t *legal, fsim_err *e);

/* The same space cut into chunks, one per MMA atom and block-tile M (bm), that threads share:
 * each call visits the chunks it claims from *next_chunk (start it at 0; every call on one
 * counter must have the same problem, constraints and arch), so that threads calling it
 * together visit every legal plan once.  Within a chunk the plans come in
 * fsim_gemm_enumerate's order, and its chunks come in order of atom (fsim_mma_atoms) and
 * then of bm: fsim_gemm_chunk_of orders them. */
fsim_status fsim_gemm_enumerate_shared(const fsim_gemm_problem *pr, const fsim_gemm_config *fixed, const fsim_arch *a,
                                       fsim_gemm_visit visit, void *ctx, atomic_int *next_chunk, int64_t *tried,
                                       int64_t *legal, fsim_err *e);
/* A plan's chunk as a number that sorts in enumeration order. */
static inline int64_t fsim_gemm_chunk_of(const fsim_gemm_plan *p) {
  int n;
  return (int64_t)(p->atom - fsim_mma_atoms(&n)) << 32 | (uint32_t)p->s.bm;
}

/* The keys a config fixes as --config text ("tile=256x256x64,waves=2x4"); "" when none. */
void fsim_gemm_config_fixed_text(const fsim_gemm_config *c, char *buf, size_t n);
/* Called when no legal plan has the fixed keys: an error that names the key at fault and why
 * (an MMA atom the part lacks, waves that divide no tile, a tile beyond the LDS, or a key no
 * legal config has alone), else all the fixed keys.  Always returns an error. */
fsim_status fsim_gemm_config_explain(const fsim_gemm_problem *pr, const fsim_gemm_config *fixed, const fsim_arch *a,
                                     fsim_err *e);

/* What the analytical model needs of a plan. */
void fsim_gemm_summary(const fsim_gemm_plan *p, fsim_plan_summary *s);

#endif
