/* GEMM schedules (gemm, grouped-gemm, scaled-gemm): from a schedule and an arch to a plan
 * (the geometry every later step shares: tiles, waves, atoms, LDS layouts, per-lane
 * addresses, resources), then to wave programs for the simulator and to a functional run on
 * random data checked against a GSL BLAS reference.
 *
 * Every per-lane address comes from one place, fsim_gemm_lane_*: the global-to-LDS copies,
 * the LDS fragment reads (plain or transposing) and the epilogue.  The wave programs, the
 * functional run and the emitted HIP use the same functions, so a swizzle or layout that is
 * wrong shows up as a wrong result, and what the simulator times is what the kernel does.
 *
 * Conventions: C (m x n) = A (m x k) B (k x n) with A and B stored as the layout letters say
 * (docs/gemm.md).  A wave w of the workgroup sits at (w mod waves_m, w div waves_m) in the
 * wave grid and owns a (bm/waves_m) x (bn/waves_n) tile of C made of rm x rn atoms. */
#ifndef FSIM_GEMM_H
#define FSIM_GEMM_H

#include <stdint.h>

#include "kernels/atom.h"
#include "model/access.h"
#include "kernels/schedule.h"
#include "traces/wprog.h"

/* One operand (0 = A, 1 = B) as the plan sees it. */
typedef struct fsim_gemm_operand {
  const fsim_copy_atom *gcopy;  /* global -> LDS (direct) or global -> registers */
  const fsim_copy_atom *lwrite; /* registers -> LDS (register path), else NULL */
  const fsim_copy_atom *lread;  /* LDS -> registers */
  fsim_swizzle sw;              /* on LDS element offsets */
  int k_contig;                 /* 1: K is the contiguous dimension in global memory */
  int lds_major;                /* fsim_lds_major */
  int rows;                     /* bm (A) or bn (B) */
  int row_len;                  /* LDS row length in elements (with padding) */
  int nrows_lds;                /* LDS rows: rows (k-major) or bk (mn-major) */
  int elem_bits;
  int64_t stage_bytes;          /* LDS bytes of one stage of this operand */
  int copies;                   /* copy instructions per thread per K tile */
  int reads_per_frag;           /* LDS reads per atom fragment */
  int frag_regs;                /* VGPRs of one atom fragment */
  int64_t ld;                   /* leading dimension in elements (global) */
  int vals_per_elem;            /* values per storage element: 2 for 4-bit types, else 1 */
  int lds_cycles_per_kstep;     /* bank cycles of one wave's fragment reads in a K step */
  int lds_cycles_per_tile_writes; /* bank cycles of one wave's copy writes per K tile (register path) */
} fsim_gemm_operand;

typedef struct fsim_gemm_plan {
  fsim_schedule s;
  const fsim_arch *a;
  const fsim_mma_atom *atom;
  const fsim_mfma_entry *mfma;
  int wave_size, waves, threads;
  int wave_tm, wave_tn;         /* C tile per wave */
  int rm, rn, ki;               /* atoms per wave along M, N, and per bk along K */
  fsim_gemm_operand op[2];
  int64_t lds_bytes;            /* per workgroup */
  int64_t lds_stage_a, lds_stage_b; /* byte offsets of stage 0 of A and B; stage i adds i * lds_stride */
  int64_t lds_stride;
  int64_t lds_c;                /* C staging buffer (epilogue through LDS), aliased with the stages */
  int c_pitch;                  /* its column pitch in elements */
  int vgprs, agprs, sgprs;
  int tiles_m, tiles_n;
  int64_t workgroups;           /* tiles_m * tiles_n * split_k * groups */
  int k_tiles;                  /* bk tiles per K slice */
  int c_bits;
  fsim_layout a_tv, b_tv, c_tv; /* the atom's layouts, parsed */
  /* the epilogue's costs for the model (fsim_gemm_summary): the lines one C store instruction
   * of wave 0 touches (its first fragment's first run, or its first 16-byte chunk through
   * LDS), and with c_path = lds the bank cycles of one accumulator-run write and of one
   * 16-byte chunk read at the staging pitch (0 with c_path = direct) */
  int c_store_lines, c_write_cycles, c_read_cycles;
  /* for the model's traffic: the distinct tile rows of A and tile columns of B (each with its
   * z: split-K slice and group) among the workgroups XCD 0 holds at once, with the launch's
   * id-to-tile map (XCD remap, GROUP_M) */
  int64_t xcd_rows, xcd_cols;
  /* for the model's DRAM term: the bytes of A and B read from DRAM over the kernel, re-reads
   * past the MALL included (dram_reads in gemm_plan.c; 0 when it could not be worked out) */
  int64_t dram_ab_bytes;
} fsim_gemm_plan;

/* Checks s against a and builds the plan; errors name [section] key and the reason. */
fsim_status fsim_gemm_plan_make(fsim_gemm_plan *p, const fsim_schedule *s, const fsim_arch *a, fsim_err *e);
/* The same, remembering per-operand results (read checks, swizzle choice, bank cycles) in
 * memo, for enumerating many configurations that share them. */
typedef struct fsim_gemm_memo fsim_gemm_memo;
fsim_gemm_memo *fsim_gemm_memo_create(void);
void fsim_gemm_memo_free(fsim_gemm_memo *m);
/* The bytes of A and B (with a scaled GEMM's scales) and of C (every split-K slice's partial
 * C) over the whole problem, every group included. */
void fsim__gemm_footprint(const fsim_gemm_plan *p, int64_t *a_bytes, int64_t *b_bytes, int64_t *c_bytes);
/* The tile after c (x, y, z) in w's launch order before its XCD remap: fsim_wprog_wg_coords of
 * the next index without the remap (the plan's DRAM walk steps through runs of tiles with it). */
void fsim__gemm_tile_step(const fsim_wprog *w, int c[3]);
fsim_status fsim_gemm_plan_make_memo(fsim_gemm_plan *p, const fsim_schedule *s, const fsim_arch *a, fsim_gemm_memo *memo,
                                    fsim_err *e);

/* ---- per-lane addresses (bytes, relative to the operand's tile origin) ---- */

/* Copy c (0..copies-1) of operand o by thread t: where it reads in global memory (relative
 * to the tile's first element, in bytes, given the row pitch) and where its data lands in
 * the LDS stage (bytes).  Both through the swizzle. */
void fsim_gemm_lane_copy(const fsim_gemm_plan *p, int o, int t, int c, int64_t *global, int64_t *lds);
/* The tile element the same copy starts at: (mn, k) relative to the tile's origin, k in
 * storage elements; its elements run along the contiguous dimension (k when the operand is
 * K-contiguous, else mn).  Bounds checks use these, not the global offset, which wraps into
 * the next row where a tile reaches past K. */
void fsim_gemm_lane_copy_at(const fsim_gemm_plan *p, int o, int t, int c, int *mn, int *k);
/* A scaled GEMM's E8M0 scales (one byte per 32 K values of a row of A or a column of B), as
 * FlyDSL's preshuffle GEMMs keep them: shuffled on the host so that the bytes each wave's
 * MFMAs need for one K tile, its wave_tm rows (A) or wave_tn columns (B) times bk / 32, lie
 * together (*chunk bytes), in [row block][K tile][chunk] order, row blocks of wave_tm (wave_tn)
 * rows.  Every wave loads its chunks into registers with the copies of each K tile (waves that
 * share rows load the same bytes): returns the loads per K tile of operand o, each of *width
 * bytes a lane (4, 8 or 16), and 0 for a plan without scales.  The MFMAs take them from
 * registers after the tile's vmcnt wait, as they take the tile from LDS. */
int fsim_gemm_scale_loads(const fsim_gemm_plan *p, int o, int *width, int64_t *chunk);
/* Byte offset of lane l's part of scale load j of operand o by wave w, from the chunk of the
 * wave's row block 0 and K tile 0; chunks of one row block follow each other by K tile. */
int64_t fsim_gemm_lane_scale(const fsim_gemm_plan *p, int o, int j, int w, int l);
/* The vector-memory loads a wave issues per K tile: the copies of A and B and the scales. */
int fsim_gemm_loads_per_tile(const fsim_gemm_plan *p);
/* The stages a workgroup's K slice can keep busy: its stages, but no more than its K tiles
 * plus one, with which the prologue issues every tile (the rest hold LDS and nothing else). */
int fsim_gemm_used_stages(const fsim_gemm_plan *p);
/* LDS read r (0..reads_per_frag-1) of fragment (i along M or N, kk along K) of operand o by
 * lane l of wave w: byte offset in the stage. */
int64_t fsim_gemm_lane_read(const fsim_gemm_plan *p, int o, int w, int i, int kk, int r, int l);
/* The (mn, k) element that value v of lane l holds after read r of a fragment, relative to
 * the fragment's origin: the data the read delivers (transposing reads included). */
void fsim_gemm_read_delivers(const fsim_gemm_plan *p, int o, int r, int l, int v, int *mn, int *k);

/* Bank cycles one wave's fragment reads of a K step and its copy writes of a K tile (register
 * path) cost for operand o under swizzle sw. */
void fsim_gemm_bank_cycles(const fsim_gemm_plan *p, int o, const fsim_swizzle *sw, int *reads, int *writes);

/* ---- the C epilogue ----
 * The LDS C buffer is column-major with a pitch (elements per column) that keeps the
 * fragment writes conflict-free; C in global memory is column-major with ldc = m.
 * Accumulators are written in runs of 4 consecutive rows (value 4*run of the lane). */
int fsim_gemm_c_pitch(const fsim_gemm_plan *p);
/* internal: the same with the memo's cache of write costs */
int fsim__gemm_c_pitch_memo(const fsim_gemm_plan *p, struct fsim_gemm_memo *memo);
int fsim__gemm_memo_pitch_get(struct fsim_gemm_memo *m, const fsim_gemm_plan *p, int pad);
void fsim__gemm_memo_pitch_put(struct fsim_gemm_memo *m, const fsim_gemm_plan *p, int pad, int cycles);
/* The (row, column) in the C tile of the first of run `run`'s 4 rows of fragment (i, j) for
 * lane l of wave w, and of the first element of thread (w, l)'s 16-byte chunk c.  At the
 * edges of C a kernel must store only elements with c_row0 + row < M and c_col0 + col < N:
 * a store past M in column-major C would land in the next column (buffer range checks only
 * guard the end of the whole buffer). */
void fsim_gemm_c_run_coord(const fsim_gemm_plan *p, int i, int j, int run, int w, int l, int *row, int *col);
void fsim_gemm_c_chunk_coord(const fsim_gemm_plan *p, int c, int w, int l, int *row, int *col);
/* 1 when the epilogue stores C's vectors whole (a run of 4 rows, or a 16-byte chunk through
 * LDS): C has no edges, or every vector starts at a row that is a multiple of its length and
 * so does M (each lies wholly inside C or wholly outside, behind one bounds test); 0 when the
 * kernel must store element by element (and with split-K, whose atomic adds are per 4 bytes). */
int fsim_gemm_c_stores_whole(const fsim_gemm_plan *p);
/* Byte offset in the C buffer of run `run` of fragment (i, j) for lane l of wave w. */
int64_t fsim_gemm_lane_c_lds(const fsim_gemm_plan *p, int i, int j, int run, int pitch, int w, int l);
/* Byte offset in the C tile (global, ldc = m) of the same run. */
int64_t fsim_gemm_lane_c_direct(const fsim_gemm_plan *p, int i, int j, int run, int unused, int w, int l);
/* Thread (w, l)'s 16-byte chunk c of the C tile: LDS offset (global = 0) or global offset. */
int64_t fsim_gemm_lane_c_chunk(const fsim_gemm_plan *p, int c, int pitch, int global, int unused, int w, int l);

/* Functional execution on random data (seeded) against a GSL BLAS reference; the problem
 * must be small (m*n*k <= 2^30).  faults plants a mistake on purpose, to show it is caught:
 * FSIM_FAULT_READ_SWIZZLE reads LDS with another swizzle than the copies wrote with,
 * FSIM_FAULT_A_LAYOUT makes the MMA take A values from the wrong lane group,
 * FSIM_FAULT_A_READ_LAYOUT and FSIM_FAULT_B_READ_LAYOUT compute the operand's fragment reads
 * from a thread-value layout whose lanes are transposed (its 16 x W/16 lanes taken as
 * W/16 x 16, a lane order mistake: the layout composed with ((16,W/16),V):((W/16,1),W)),
 * FSIM_FAULT_C_LAYOUT places the accumulators in C through the C layout transposed so,
 * FSIM_FAULT_C_PITCH (C through LDS) reads the staged C tile with a column pitch 8 elements
 * shorter than the one it was written with.  A fault that does not apply to the plan (a
 * pitch fault with C stored directly) is an FSIM_EINVAL error. */

/* A transposing LDS read (ds_read_b64_tr_b16, _b8) needs the element width it transposes and
 * an mn-major tile (fsim_lds_major); 1 when r is no such read or fits, else 0 and why, which
 * names the operand id.  GEMM plans and the other operators' schedule checks share it. */
int fsim_transpose_read_fits(const fsim_copy_atom *r, int elem_bits, int lds_major, const char *id, char *why, size_t n);

#define FSIM_FAULT_READ_SWIZZLE 1u
#define FSIM_FAULT_A_LAYOUT 2u
#define FSIM_FAULT_A_READ_LAYOUT 4u
#define FSIM_FAULT_B_READ_LAYOUT 8u
#define FSIM_FAULT_C_LAYOUT 16u
#define FSIM_FAULT_C_PITCH 32u
typedef struct fsim_gemm_check {
  int ok;
  int64_t elements, mismatches;
  double max_abs_err;       /* largest |result - reference| */
  double max_rel_err;       /* largest error relative to sum |a||b| of its dot product */
  double tolerance_rel;     /* the output rounding allowed, relative */
  int64_t first_row, first_col;
  double first_got, first_want;
} fsim_gemm_check;
fsim_status fsim_gemm_functional(const fsim_gemm_plan *p, uint64_t seed, unsigned faults, fsim_gemm_check *out,
                                 fsim_err *e);

/* Ping-pong: the phases a K tile is cut into, by halves of the wave's C tile along M (*sa)
 * and N (*sb), each 2 where the wave tile has two or more atoms that way, else 1; returns
 * *sa x *sb (gemm_wprog.c says how the phases run). */
int fsim_gemm_pp_slices(const fsim_gemm_plan *p, int *sa, int *sb);

/* The wave programs of the plan, for the simulator. */
fsim_status fsim_gemm_wave_program(const fsim_gemm_plan *p, fsim_wprog *wp, fsim_err *e);

#endif
