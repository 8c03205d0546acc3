/* Kernel schedules: what a FlyDSL kernel does, as data.  A schedule names the operator and
 * problem, the block tile and wave layout, the MMA atom, for each operand the copy atom and
 * path from global memory (direct to LDS or through registers), its LDS layout and swizzle
 * and the atom that reads it back, the number of stages, the pipeline (plain, ping-pong or
 * dual-wave groups, with interleave hints like sched_group_barrier), and the epilogue.
 *
 * The text form is an INI file read by the table loader (util/ini_table): comments start
 * with ';' or '#', errors name file:line: [section] key, and fsim_schedule_write prints a
 * file that parses back to the same struct.  Keys apply per operator (an attention schedule
 * has no [tile] bk); docs/schedules.md lists them and kernels/schedules/ has examples. */
#ifndef FSIM_SCHEDULE_H
#define FSIM_SCHEDULE_H

#include <stdio.h>

#include "kernels/atom.h"
#include "kernels/layout.h"
#include "model/arch.h"
#include "util/ini_table.h"

typedef enum fsim_kop {
  FSIM_KOP_GEMM,
  FSIM_KOP_GROUPED_GEMM,
  FSIM_KOP_SCALED_GEMM,
  FSIM_KOP_ATTENTION,
  FSIM_KOP_RMSNORM,
  FSIM_KOP_TOPK,
  FSIM_KOP_COUNT
} fsim_kop;
#define FSIM_KOP_NAMES "gemm|grouped-gemm|scaled-gemm|attention|rmsnorm|topk"

/* Operand layouts in BLAS letters for A then B: T = K contiguous for A, N = K contiguous for B. */
typedef enum fsim_gemm_layout { FSIM_LAYOUT_TN, FSIM_LAYOUT_NN, FSIM_LAYOUT_NT, FSIM_LAYOUT_TT } fsim_gemm_layout;
#define FSIM_LAYOUT_NAMES "TN|NN|NT|TT"

typedef enum fsim_copy_path { FSIM_PATH_DIRECT, FSIM_PATH_REGISTERS } fsim_copy_path;
typedef enum fsim_lds_major { FSIM_LDS_K_MAJOR, FSIM_LDS_MN_MAJOR } fsim_lds_major;
typedef enum fsim_pipe_kind { FSIM_PIPE_PLAIN, FSIM_PIPE_PINGPONG, FSIM_PIPE_DUAL_WAVE } fsim_pipe_kind;
typedef enum fsim_epilogue { FSIM_EPI_LDS, FSIM_EPI_DIRECT } fsim_epilogue;

#define FSIM_SCHED_MAX_OPERANDS 4
#define FSIM_SCHED_NAME 64

typedef struct fsim_sched_operand {
  char id[8];                      /* "A", "B", "Q", "K", "V", "X" */
  char global_copy[32];            /* copy atom from global memory */
  int path;                        /* fsim_copy_path */
  int lds_major;                   /* fsim_lds_major */
  char swizzle[24];                /* "none" or "B,M,S" (CuTe Swizzle<B,M,S> on element offsets) */
  int lds_pad;                     /* elements of padding after each LDS row */
  char lds_read[32];               /* copy atom from LDS to registers */
} fsim_sched_operand;

typedef struct fsim_schedule {
  /* [schedule] */
  char name[FSIM_SCHED_NAME];
  int op;                          /* fsim_kop */
  char arch[16];                   /* target gfx name, informational */
  char doc[160];                   /* one line: where the schedule comes from */
  /* [problem] */
  long long m, n, k;               /* gemm family: C is m x n, reduction k */
  int groups;                      /* grouped-gemm: independent problems of m x n x k */
  fsim_dtype a_type, b_type, c_type;
  int layout;                      /* fsim_gemm_layout */
  int batch, heads, seq_q, seq_kv, head_dim, causal; /* attention */
  long long rows;                  /* rmsnorm, topk: rows (tokens) */
  int cols;                        /* rmsnorm: row length */
  int experts, topk;               /* topk: values per row and how many to keep */
  /* [tile] */
  int bm, bn, bk;                  /* block tile (attention: q rows, kv rows) */
  int waves_m, waves_n;            /* wave layout over the block tile */
  int split_k;
  int lds_split;                   /* LDS buffers per operand tile per stage (ping-pong halves) */
  int head_split;                  /* attention: head dimension processed in this many parts */
  int threads, vec;                /* rmsnorm, topk: workgroup size and values per lane */
  /* [mma] */
  char atom[FSIM_ARCH_NAME_LEN];   /* e.g. v_mfma_f32_16x16x32_bf16 */
  char atom2[FSIM_ARCH_NAME_LEN];  /* attention: the P*V atom */
  /* [pipeline] */
  int stages;                      /* LDS buffers in flight (K/V prefetch buffers for attention) */
  int kind;                        /* fsim_pipe_kind */
  char interleave[96];             /* hints: "vmem:2 dsrd:4 mfma:8" groups per K step, or "none" */
  int xcd_remap;                   /* 1: remap workgroup ids so an XCD's ids are contiguous */
  int group_m;                     /* GROUP_M swizzle of tiles (0: none) */
  /* [epilogue] */
  int c_path;                      /* fsim_epilogue */
  char store[32];                  /* copy atom for C */
  /* [operand.ID] */
  int n_operands;
  fsim_sched_operand operand[FSIM_SCHED_MAX_OPERANDS];
} fsim_schedule;

const char *fsim_kop_name(fsim_kop op);
int fsim_kop_parse(const char *s, fsim_kop *out);
const char *fsim_layout_name(fsim_gemm_layout l);
int fsim_gemm_layout_parse(const char *s, fsim_gemm_layout *out);

/* Defaults for every optional key (what a file may leave out). */
void fsim_schedule_defaults(fsim_schedule *s);
fsim_status fsim_schedule_load(fsim_schedule *s, const char *path, fsim_err *e);
/* The same, handing the file's text back in *text (the caller frees it) to locate the
 * errors later checks find (fsim_ini_err_locate_in). */
fsim_status fsim_schedule_load_keep(fsim_schedule *s, const char *path, char **text, fsim_err *e);
fsim_status fsim_schedule_load_string(fsim_schedule *s, const char *text, const char *source, fsim_err *e);
fsim_status fsim_schedule_write(const fsim_schedule *s, FILE *f, fsim_err *e);
/* What fsim_schedule_write writes, as a string in *text (the caller frees it; NULL on error). */
fsim_status fsim_schedule_text(const fsim_schedule *s, char **text, fsim_err *e);
const fsim_ini_spec *fsim_schedule_spec(void);

/* The operand with this id, or NULL. */
const fsim_sched_operand *fsim_schedule_operand(const fsim_schedule *s, const char *id);
/* Parses an operand's swizzle ("none" gives B = 0). */
fsim_status fsim_schedule_swizzle(const fsim_sched_operand *o, fsim_swizzle *out, fsim_err *e);

/* What a schedule needs of a CU, derived from it. */
typedef struct fsim_sched_resources {
  int waves;            /* per workgroup */
  int threads;
  long long lds_bytes;  /* per workgroup */
  int vgprs, agprs;     /* per wave, estimated */
  long long workgroups; /* grid size for the problem */
} fsim_sched_resources;

/* The most groups an interleave hint has (kernels/gemm_wprog.c reads that many). */
#define FSIM_SCHED_MAX_HINT_GROUPS 8

/* Checks that the schedule is legal on arch a (atoms exist there, tiles divide by the wave
 * and atom layouts, LDS within the limit, registers within budget) and fills r.  Errors name
 * the schedule's section and key. */
fsim_status fsim_schedule_check(const fsim_schedule *s, const fsim_arch *a, fsim_sched_resources *r, fsim_err *e);
/* Whether an interleave hint string is well formed ("none", or CLASS:COUNT items with CLASS
 * vmem, dsrd or mfma); if not, *why says what is wrong. */
int fsim_schedule_interleave_valid(const char *text, char *why, size_t n);

#endif
