/* Wave programs: the one currency between kernels/ (which generates them from schedules),
 * traces/ (which reads and writes them as text, and reads them back from compiled assembly)
 * and sim/ (which times them).
 *
 * A wave program describes one kernel launch: the grid of workgroups, the waves per
 * workgroup, the resources each wave and workgroup holds, and for each wave an instruction
 * stream that is loop-compressed: LOOP markers bracket a body that runs `trip` times, so a
 * program of a million executed instructions takes a few hundred entries in memory.  Loops
 * nest up to FSIM_WP_MAX_DEPTH deep.
 *
 * Each instruction has a class (SALU, VALU, MFMA, LDS read/write, VMEM load/store, direct
 * global-to-LDS load, SMEM, branch, s_waitcnt, s_barrier, s_setprio, s_nop), register
 * dependences (named registers, numbered densely per program) and, for memory operations,
 * an address pattern: a base, per-lane offsets (a table of wave_size entries, optionally one
 * row per wave of the workgroup), per-workgroup terms and per-loop-iteration terms with an
 * optional modulus (stage buffers that rotate).  The per-lane offsets come from the layout
 * algebra in kernels/, so bank conflicts and coalescing are computed, not guessed. */
#ifndef FSIM_WPROG_H
#define FSIM_WPROG_H

#include <stdint.h>
#include <stdio.h>

#include "model/arch.h"
#include "util/status.h"

#define FSIM_WP_MAX_DEPTH 4  /* loop nesting */
#define FSIM_WP_MAX_WORKGROUPS (INT64_C(1) << 31)
/* Executed wave instructions of a launch, all waves of all workgroups: a wave instruction moves
 * at most 2^14 bytes of cache lines, so bytes and accesses counted in 64 bits cannot wrap. */
#define FSIM_WP_MAX_WAVE_INSTRUCTIONS (INT64_C(1) << 44)
#define FSIM_WP_MAX_SRC 5 /* an MFMA's A, B and C, and a scaled MFMA's two scale registers */
#define FSIM_WP_NAME 48

/* X(enum suffix, text name, counts as a wave instruction) */
#define FSIM_OP_TABLE(X)        \
  X(SALU, "salu", 1)            \
  X(VALU, "valu", 1)            \
  X(MFMA, "mfma", 1)            \
  X(LDS_READ, "lds_read", 1)    \
  X(LDS_WRITE, "lds_write", 1)  \
  X(LOAD, "load", 1)            \
  X(STORE, "store", 1)          \
  X(LOAD_LDS, "load_lds", 1)    \
  X(SMEM, "smem", 1)            \
  X(BRANCH, "branch", 1)        \
  X(WAITCNT, "waitcnt", 1)      \
  X(BARRIER, "barrier", 1)      \
  X(SETPRIO, "setprio", 1)      \
  X(NOP, "nop", 1)              \
  X(LOOP, "loop", 0)            \
  X(END, "end", 0)

typedef enum fsim_op {
#define FSIM__OP_ENUM(id, name, counted) FSIM_OP_##id,
  FSIM_OP_TABLE(FSIM__OP_ENUM)
#undef FSIM__OP_ENUM
  FSIM_OP_COUNT
} fsim_op;

const char *fsim_op_name(fsim_op op);
int fsim_op_parse(const char *s, fsim_op *out);

/* Instruction flags. */
#define FSIM_IF_TRANSPOSE 0x01 /* ds_read_b64_tr_b16 and relatives */
#define FSIM_IF_ATOMIC 0x02    /* a STORE that is an atomic read-modify-write
                                  (global_atomic_add_f32, ..._pk_add_bf16): timed where the
                                  part performs atomics (arch memory.atomics_in_l2); one with
                                  a destination returns the old value there, when performed */

/* A register operand: `count` consecutive registers from `first` (ids are per program). */
typedef struct fsim_wp_reg {
  uint16_t first;
  uint16_t count; /* 0: absent */
} fsim_wp_reg;

typedef struct fsim_wp_inst {
  uint8_t op;      /* fsim_op */
  uint8_t width;   /* bytes per lane for memory operations (4, 8, 12, 16) */
  uint8_t flags;   /* FSIM_IF_* */
  uint8_t nsrc;
  /* MFMA: index of the arch's MFMA entry; VALU: cycles multiplier (0 = 1);
   * WAITCNT: vmcnt (0xffff = do not wait); SETPRIO: priority; NOP: cycles;
   * LOOP: index into the program's loop table; END: unused. */
  uint16_t arg;
  uint16_t arg2;   /* WAITCNT: lgkmcnt (0xffff = do not wait) */
  int32_t addr;    /* address pattern, -1 if none (LOAD_LDS: the global side) */
  int32_t addr2;   /* LOAD_LDS: the LDS side; -1 otherwise */
  fsim_wp_reg dst;
  fsim_wp_reg src[FSIM_WP_MAX_SRC];
} fsim_wp_inst;

typedef struct fsim_wp_loop {
  int64_t trip;  /* times the body runs, >= 1 */
  int32_t begin; /* index of the LOOP instruction */
  int32_t end;   /* index of the matching END */
} fsim_wp_loop;

typedef enum fsim_space { FSIM_SPACE_GLOBAL, FSIM_SPACE_LDS } fsim_space;

/* Per-lane byte offsets: wave_size entries per row, rows = 1 or waves per workgroup. */
typedef struct fsim_wp_lanes {
  char name[FSIM_WP_NAME];
  int rows;
  int32_t *offset;   /* rows * wave_size */
  uint64_t *active;  /* per row: lanes that access memory (bit i = lane i; wave_size <= 64) */
} fsim_wp_lanes;

/* address(lane, wave, workgroup, iterations) =
 *   base + lanes[row][lane] + wave_stride * wave + wg_stride[d] * wgcoord[d]
 *        + sum over terms of stride * ((iteration of loop `level` + phase) mod mod, or unreduced if mod == 0) */
#define FSIM_WP_MAX_TERMS 3
typedef struct fsim_wp_addr {
  char name[FSIM_WP_NAME];
  uint8_t space;       /* fsim_space */
  int32_t lanes;       /* lane table index */
  int64_t base;
  int64_t wave_stride;
  int64_t wg_stride[3];
  int nterms;
  struct {
    int8_t level;      /* loop nesting level, 0 = outermost */
    int32_t mod;       /* 0: none */
    int32_t phase;
    int64_t stride;
  } term[FSIM_WP_MAX_TERMS];
} fsim_wp_addr;

/* How a linear workgroup id becomes grid coordinates. */
typedef enum fsim_wp_remap {
  FSIM_REMAP_NONE,   /* x fastest */
  FSIM_REMAP_XCD,    /* FlyDSL BlockSwizzle: ids dispatched to one XCD become contiguous */
} fsim_wp_remap;

typedef struct fsim_wp_program {
  int ninst, cap;
  fsim_wp_inst *inst;
  int nloops, loop_cap;
  fsim_wp_loop *loops;
} fsim_wp_program;

typedef struct fsim_wprog {
  char name[FSIM_WP_NAME];
  int grid[3];               /* workgroups in x, y, z */
  int waves_per_wg;
  int wave_size;             /* 64 on CDNA, 32 on RDNA: must match the arch */
  /* resources per wave / per workgroup */
  int vgprs, agprs, sgprs;
  int lds_bytes;
  fsim_wp_remap remap;
  int remap_xcds;            /* FSIM_REMAP_XCD: XCD count the ids are spread over */
  int group_m;               /* > 0: GROUP_M swizzle of (x, y) after the XCD remap */

  int nregs, regs_cap;       /* registers named across all programs */
  char (*reg_names)[FSIM_WP_NAME];

  int nprograms;
  fsim_wp_program *programs;
  int *wave_program;         /* waves_per_wg entries: the program each wave runs */

  int nlanes, lanes_cap;
  fsim_wp_lanes *lanes;
  int naddrs, addrs_cap;
  fsim_wp_addr *addrs;

  /* The arch the MFMA indices refer to (a copy of its name, for checks). */
  char arch_gfx[16];
} fsim_wprog;

/* Builder API (used by kernels/ and the parser).  All return FSIM_OK or an error. */
fsim_status fsim_wprog_init(fsim_wprog *wp, const char *name, fsim_err *e);
void fsim_wprog_free(fsim_wprog *wp);
/* Creates n programs and assigns program 0 to every wave; call after waves_per_wg is set. */
fsim_status fsim_wprog_set_programs(fsim_wprog *wp, int n, fsim_err *e);
/* Register id by name, created on first use; -1 on error. */
int fsim_wprog_reg(fsim_wprog *wp, const char *name, fsim_err *e);
/* Adds a lane table with `rows` rows; returns its index or -1.  Offsets and masks are zeroed
 * and all lanes active. */
int fsim_wprog_add_lanes(fsim_wprog *wp, const char *name, int rows, fsim_err *e);
int fsim_wprog_add_addr(fsim_wprog *wp, const fsim_wp_addr *a, fsim_err *e);
int fsim_wprog_find_lanes(const fsim_wprog *wp, const char *name);
int fsim_wprog_find_addr(const fsim_wprog *wp, const char *name);
/* Appends an instruction; returns its index or -1. */
int fsim_wp_program_append(fsim_wp_program *p, const fsim_wp_inst *in, fsim_err *e);
/* Opens a loop (appends a LOOP) and closes the innermost open loop (appends an END). */
fsim_status fsim_wp_program_loop_begin(fsim_wp_program *p, int64_t trip, fsim_err *e);
fsim_status fsim_wp_program_loop_end(fsim_wp_program *p, fsim_err *e);

/* Checks the whole description against an arch (loops balanced, registers, address
 * patterns, MFMA indices, waves, resources within the arch's limits). */
fsim_status fsim_wprog_validate(const fsim_wprog *wp, const fsim_arch *a, fsim_err *e);
/* The same; where an instruction fails a check, *prog and *inst get its program and index
 * (else -1), so that the text parser can name the line it came from. */
fsim_status fsim_wprog_validate_at(const fsim_wprog *wp, const fsim_arch *a, int *prog, int *inst, fsim_err *e);

/* Counts executed wave instructions for one wave running program p (loops expanded). */
int64_t fsim_wp_program_dynamic_count(const fsim_wp_program *p);
/* Executed instructions of instructions [from, to) with loops expanded. */
int64_t fsim_wp_program_range_count(const fsim_wp_program *p, int from, int to);
/* All waves of all workgroups, and the workgroups of the grid.  Counts saturate at INT64_MAX
 * rather than wrap (as do fsim_count_mul and fsim_count_add, for counts >= 0). */
int64_t fsim_wprog_total_wave_instructions(const fsim_wprog *wp);
int64_t fsim_wprog_workgroups(const fsim_wprog *wp);
int64_t fsim_count_mul(int64_t a, int64_t b);
int64_t fsim_count_add(int64_t a, int64_t b);

/* Text format (docs/traces.md).  Parsing errors name the file, line and reason.  The MFMA
 * instruction names resolve against arch a. */
fsim_status fsim_wprog_parse_file(fsim_wprog *wp, const char *path, const fsim_arch *a, fsim_err *e);
fsim_status fsim_wprog_parse_string(fsim_wprog *wp, const char *text, const char *source_name,
                                    const fsim_arch *a, fsim_err *e);
/* Writes the text form; parsing it back gives an equal description. */
fsim_status fsim_wprog_print(const fsim_wprog *wp, const fsim_arch *a, FILE *f, fsim_err *e);

/* Linear workgroup id -> grid coordinates after the remap. */
void fsim_wprog_wg_coords(const fsim_wprog *wp, int64_t id, int coord[3]);

#endif
