/* HIP emission of GEMM plans: see emit.h.
 *
 * How the file is made.  The plan's wave program (fsim_gemm_wave_program) is generated and
 * walked instruction by instruction; each one becomes a statement: a copy (buffer load to
 * registers or straight to LDS), a staged ds_write, a fragment ds_read (plain or
 * transposing), an MFMA/WMMA, a wait and/or barrier (inline assembly with a memory clobber,
 * so the compiler neither moves memory operations across it nor drops it), s_setprio
 * around ping-pong MFMA phases, and the epilogue's conversions, LDS writes, chunk reads and
 * stores.  The emitter walks the first wave group's program; a ping-pong kernel's second
 * group differs only by its extra barrier after the prologue, and the first group by its
 * extra barrier before an epilogue through LDS, which become barriers under a test of the
 * wave's group.  Each stretch of copies, reads, writes and MFMAs between two waits or
 * barriers is followed by __builtin_amdgcn_sched_group_barrier calls that ask the
 * compiler's scheduler for the same order; the compiler inserts the lgkmcnt waits that
 * register dependences need.
 *
 * Per-lane offsets.  For each kind of access (fragment reads of A, copies of B, ...) the
 * emitter evaluates the plan's lane function for every wave and lane, and splits the
 * accesses into a few "bases" (a vector of per-lane offsets computed once at kernel start
 * by the file's index functions) plus one constant per access (the offset field of the
 * instruction, or a scalar).  The split is exact by construction: an access joins a base
 * only if it differs from it by the same constant in every lane of every wave.  The index
 * functions are transliterations of gemm_plan.c's; the address self-test in the file
 * (compiled as plain C++) prints every access in the kernel's form, and
 * fsim_emit_check_selftest compares it with the plan.
 *
 * Edges.  Buffer loads past the end of an operand return zeros, so rows beyond M or N of a
 * K-contiguous operand need no code; a K-contiguous operand whose K is not a multiple of the
 * K slices' tiles, and an M/N-contiguous operand whose rows do not fill the tile, get a
 * per-lane bounds check that moves the offset out of range.  The epilogue stores whole
 * vectors when every tile is full, and element by element with bounds checks otherwise.
 * Split-K adds its partial sums with packed atomics into a zeroed C. */
#include "config.h"

#include "kernels/emit.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "model/occupancy.h"
#include "util/file.h"

/* ---- kinds of per-lane values ---------------------------------------------------------------- */

enum {
  K_READ_A, K_READ_B, K_COPYG_A, K_COPYG_B, K_COPYL_A, K_COPYL_B, K_COPYMN_A, K_COPYMN_B, K_COPYK_A, K_COPYK_B,
  K_C_ROW, K_C_COL, K_C_LDS, K_C_OFF, K_CH_ROW, K_CH_COL, K_CH_LDS, K_CH_OFF, N_KINDS
};

static const struct {
  const char *name; /* in the self-test output */
  const char *fn;   /* the file's index function */
  int nargs;        /* access arguments after the lane (or thread) */
  int by_wave;      /* 1: fn(wave, lane, ...); 0: fn(thread, ...) */
  const char *var;  /* the kernel's name for its bases */
} kinds[N_KINDS] = {
    {"read_a", "A_read", 3, 1, "a_rd"},          {"read_b", "B_read", 3, 1, "b_rd"},
    {"copy_global_a", "A_copy_global", 1, 0, "a_cg"}, {"copy_global_b", "B_copy_global", 1, 0, "b_cg"},
    {"copy_lds_a", "A_copy_lds", 1, 0, "a_cl"},  {"copy_lds_b", "B_copy_lds", 1, 0, "b_cl"},
    {"copy_mn_a", "A_copy_mn", 1, 0, "a_cmn"},   {"copy_mn_b", "B_copy_mn", 1, 0, "b_cmn"},
    {"copy_k_a", "A_copy_k", 1, 0, "a_ck"},      {"copy_k_b", "B_copy_k", 1, 0, "b_ck"},
    {"c_row", "C_row", 3, 1, "c_row"},           {"c_col", "C_col", 3, 1, "c_col"},
    {"c_lds", "C_lds", 3, 1, "c_ld"},            {"c_off", "C_off", 3, 1, "c_off"},
    {"chunk_row", "C_chunk_row", 1, 0, "ch_row"}, {"chunk_col", "C_chunk_col", 1, 0, "ch_col"},
    {"chunk_lds", "C_chunk_lds", 1, 0, "ch_ld"}, {"chunk_off", "C_chunk_off", 1, 0, "ch_off"},
};

#define MAX_BASES 512
#define MAX_ACC 4096

typedef struct basis {
  int used;
  int nb;
  int rep[MAX_BASES][3];   /* the arguments of the access each base was made from */
  int32_t *vec[MAX_BASES]; /* its value per thread */
  int nacc;
  int acc_args[MAX_ACC][3];
  int acc_base[MAX_ACC];
  int32_t acc_d[MAX_ACC];
} basis;


static int chunk_elems(const fsim_gemm_plan *p) { return 16 * 8 / p->c_bits; }

/* The plan's value of kind k for thread t (= wave * wave_size + lane). */
static int64_t plan_value(const fsim_gemm_plan *p, int k, const int *a, int t) {
  int w = t / p->wave_size, l = t % p->wave_size, o = k & 1;
  int64_t g, d;
  int mn, kk, row, col;
  switch (k) {
  case K_READ_A:
  case K_READ_B: return fsim_gemm_lane_read(p, o, w, a[0], a[1], a[2], l);
  case K_COPYG_A:
  case K_COPYG_B: fsim_gemm_lane_copy(p, o, t, a[0], &g, &d); return g;
  case K_COPYL_A:
  case K_COPYL_B: fsim_gemm_lane_copy(p, o, t, a[0], &g, &d); return d;
  case K_COPYMN_A:
  case K_COPYMN_B: fsim_gemm_lane_copy_at(p, o, t, a[0], &mn, &kk); return mn;
  case K_COPYK_A:
  case K_COPYK_B: fsim_gemm_lane_copy_at(p, o, t, a[0], &mn, &kk); return kk;
  case K_C_ROW: fsim_gemm_c_run_coord(p, a[0], a[1], a[2], w, l, &row, &col); return row;
  case K_C_COL: fsim_gemm_c_run_coord(p, a[0], a[1], a[2], w, l, &row, &col); return col;
  case K_C_LDS: return fsim_gemm_lane_c_lds(p, a[0], a[1], a[2], p->c_pitch, w, l);
  case K_C_OFF: return fsim_gemm_lane_c_direct(p, a[0], a[1], a[2], 0, w, l);
  case K_CH_ROW: fsim_gemm_c_chunk_coord(p, a[0], w, l, &row, &col); return row;
  case K_CH_COL: fsim_gemm_c_chunk_coord(p, a[0], w, l, &row, &col); return col;
  case K_CH_LDS: return fsim_gemm_lane_c_chunk(p, a[0], p->c_pitch, 0, 0, w, l);
  case K_CH_OFF: return fsim_gemm_lane_c_chunk(p, a[0], p->c_pitch, 1, 0, w, l);
  default: return 0;
  }
}

/* ---- the generator ---------------------------------------------------------------------------- */

typedef struct em {
  const fsim_gemm_plan *p;
  FILE *f;
  fsim_err *e;
  fsim_status st;
  int lines;
  int gfx12;            /* RDNA4: split barrier, s_wait_* counters, other buffer descriptor */
  int pingpong;
  int nbuf;             /* fragment buffers: 2, or the K tile's atom K steps (ping-pong) */
  int masked_op[2];     /* operand needs bounds checks on its copies */
  int edge_c;           /* epilogue needs bounds checks */
  int whole_runs;       /* ... and each of its vector stores lies wholly inside C or outside */
  int atomic;           /* split-K: atomics */
  int pairs;            /* atomics on aligned pairs (M even) */
  int run_vals;         /* accumulator values per run (4) */
  int runs;             /* runs per fragment */
  int chunks;           /* C chunks per thread (c = lds) */
  basis *b[N_KINDS];
  fsim_wprog wp;
  int sched_groups;
  /* sched_group_barrier bookkeeping for the current stretch */
  int grp_mask[4096], grp_n[4096], ngrp;
} em;

static void out(em *m, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void out(em *m, const char *fmt, ...) {
  if (m->st != FSIM_OK) return;
  va_list ap;
  va_start(ap, fmt);
  vfprintf(m->f, fmt, ap);
  va_end(ap);
  fputc('\n', m->f);
  m->lines++;
}

static void blank(em *m) {
  if (m->st != FSIM_OK) return;
  fputc('\n', m->f);
  m->lines++;
}

static fsim_status fail(em *m, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static fsim_status fail(em *m, const char *fmt, ...) {
  if (m->st != FSIM_OK) return m->st;
  char msg[600];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  m->st = fsim__err_set(m->e, FSIM_EFAIL, __FILE__, __LINE__, "%s", msg);
  return m->st;
}

/* Adds access (kind, args) to its basis; returns the access index. */
static int basis_access(em *m, int k, const int *args) {
  const fsim_gemm_plan *p = m->p;
  basis *b = m->b[k];
  if (b == NULL) {
    b = m->b[k] = calloc(1, sizeof *b);
    if (b == NULL) return fail(m, "out of memory"), -1;
  }
  b->used = 1;
  for (int i = 0; i < b->nacc; i++)
    if (memcmp(b->acc_args[i], args, 3 * sizeof(int)) == 0) return i;
  if (b->nacc == MAX_ACC) return fail(m, "internal: more than %d accesses of one kind", MAX_ACC), -1;
  int n = p->threads;
  int32_t *v = malloc((size_t)n * sizeof *v);
  if (v == NULL) return fail(m, "out of memory"), -1;
  for (int t = 0; t < n; t++) v[t] = (int32_t)plan_value(p, k, args, t);
  int found = -1;
  int32_t d = 0;
  for (int j = 0; j < b->nb && found < 0; j++) {
    d = v[0] - b->vec[j][0];
    int same = 1;
    for (int t = 1; t < n && same; t++) same = v[t] - b->vec[j][t] == d;
    if (same) found = j;
  }
  if (found < 0) {
    if (b->nb == MAX_BASES) {
      free(v);
      return fail(m, "internal: more than %d bases of one kind", MAX_BASES), -1;
    }
    found = b->nb++;
    b->vec[found] = v;
    memcpy(b->rep[found], args, 3 * sizeof(int));
    d = 0;
  } else {
    free(v);
  }
  int a = b->nacc++;
  memcpy(b->acc_args[a], args, 3 * sizeof(int));
  b->acc_base[a] = found;
  b->acc_d[a] = d;
  return a;
}

/* "a_rd3 + a_rd_d[17]" for access (k, args): its base plus its constant, which the kernel
 * and the address self-test both read from the kind's table (emit_constants), so that a
 * constant changed in the file changes what the self-test prints. */
static const char *lane_expr(em *m, int k, int a0, int a1, int a2, char *buf, size_t n) {
  int args[3] = {a0, a1, a2};
  int a = basis_access(m, k, args);
  if (a < 0) return "0";
  const basis *b = m->b[k];
  snprintf(buf, n, "%s%d + %s_d[%d]", kinds[k].var, b->acc_base[a], kinds[k].var, a);
  return buf;
}

static void free_bases(em *m) {
  for (int k = 0; k < N_KINDS; k++) {
    if (m->b[k] == NULL) continue;
    for (int j = 0; j < m->b[k]->nb; j++) free(m->b[k]->vec[j]);
    free(m->b[k]);
    m->b[k] = NULL;
  }
}

/* ---- what the emitter translates ------------------------------------------------------------- */

typedef struct atom_types {
  const char *name;  /* atom */
  const char *ab;    /* operand type of the builtin */
  const char *acc;   /* accumulator type */
  int form;          /* 0: MFMA (a, b, c, cbsz, abid, blgp); 1: gfx12 WMMA (a, b, c); 2: scaled MFMA
                        (a, b, c, fmt_a, fmt_b, opsel_a, scale_a, opsel_b, scale_b) with unit scales */
} atom_types;

static const atom_types atom_tab[] = {
    {"v_mfma_f32_16x16x32_bf16", "bf16x8", "f32x4", 0},   {"v_mfma_f32_16x16x32_f16", "f16x8", "f32x4", 0},
    {"v_mfma_f32_32x32x16_bf16", "bf16x8", "f32x16", 0},  {"v_mfma_f32_32x32x16_f16", "f16x8", "f32x16", 0},
    {"v_mfma_f32_16x16x16_bf16", "i16x4", "f32x4", 0},    {"v_mfma_f32_16x16x16_f16", "f16x4", "f32x4", 0},
    {"v_mfma_f32_32x32x8_bf16", "i16x4", "f32x16", 0},    {"v_mfma_f32_32x32x8_f16", "f16x4", "f32x16", 0},
    {"v_mfma_f32_16x16x32_fp8_fp8", "long", "f32x4", 0},  {"v_mfma_f32_32x32x16_fp8_fp8", "long", "f32x16", 0},
    {"v_wmma_f32_16x16x16_f16", "f16x8", "f32x8", 1},     {"v_wmma_f32_16x16x16_bf16", "bf16x8", "f32x8", 1},
    /* a plain fp8 GEMM on gfx950 may use the scaled MFMA with every E8M0 scale 127 (= 1.0), as
     * FlyDSL does; format code 0 is fp8 E4M3 */
    {"v_mfma_scale_f32_16x16x128_f8f6f4.fp8", "i32x8", "f32x4", 2},
    {"v_mfma_scale_f32_32x32x64_f8f6f4.fp8", "i32x8", "f32x16", 2},
};

static const atom_types *atom_types_of(const fsim_mma_atom *at) {
  for (size_t i = 0; i < sizeof atom_tab / sizeof atom_tab[0]; i++)
    if (strcmp(atom_tab[i].name, at->name) == 0) return &atom_tab[i];
  return NULL;
}

static int copy_ok(const fsim_copy_atom *c) {
  static const char *ok[] = {"buffer_load_dword", "buffer_load_dwordx2", "buffer_load_dwordx4", "buffer_load_lds_dword",
                             "buffer_load_lds_dwordx4", "global_load_dword", "global_load_dwordx2", "global_load_dwordx4",
                             "global_load_lds_dword", "global_load_lds_dwordx4"};
  for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++)
    if (strcmp(c->name, ok[i]) == 0) return 1;
  return 0;
}

static int needs_mask(const fsim_gemm_plan *p, int o);
static int k_ragged(const fsim_gemm_plan *p);
static int is_global_copy(const fsim_copy_atom *c);

int fsim_emit_supported(const fsim_gemm_plan *p, char *why, size_t n) {
  if (p->s.op == FSIM_KOP_SCALED_GEMM) {
    snprintf(why, n, "scaled-gemm kernels are not emitted yet (E8M0 scale operands); gemm and grouped-gemm are");
    return 0;
  }
  if (atom_types_of(p->atom) == NULL) {
    snprintf(why, n, "the emitter has no builtin mapping for %s", p->atom->name);
    return 0;
  }
  for (int o = 0; o < 2; o++) {
    if (!copy_ok(p->op[o].gcopy)) {
      snprintf(why, n, "operand %c: the copy %s is not translated (dword, dwordx2 and dwordx4 loads are)", "AB"[o],
               p->op[o].gcopy->name);
      return 0;
    }
    if (p->op[o].vals_per_elem != 1) {
      snprintf(why, n, "operand %c: packed 4-bit elements are not translated", "AB"[o]);
      return 0;
    }
  }
  int64_t bytes[3] = {(int64_t)p->s.m * p->s.k * p->op[0].elem_bits / 8, (int64_t)p->s.n * p->s.k * p->op[1].elem_bits / 8,
                      (int64_t)p->s.m * p->s.n * p->c_bits / 8};
  for (int i = 0; i < 3; i++)
    if (bytes[i] >= ((int64_t)1 << 31)) {
      snprintf(why, n, "%c is %lld bytes; the kernel addresses each matrix with 31-bit buffer offsets", "ABC"[i],
               (long long)bytes[i]);
      return 0;
    }
  if (p->c_bits != 16 && p->c_bits != 32) {
    snprintf(why, n, "a %d-bit output is not translated", p->c_bits);
    return 0;
  }
  /* a global_load reads whatever lies past a partial tile, in M or N and in K (past the end of
   * an M- or N-contiguous operand's K rows, which a buffer load would read as zeros) */
  for (int o = 0; o < 2; o++)
    if (is_global_copy(p->op[o].gcopy) && (needs_mask(p, o) || k_ragged(p) || (o == 0 ? p->s.m % p->s.bm : p->s.n % p->s.bn))) {
      snprintf(why, n, "operand %c: %s has no out-of-range protection and the problem has partial tiles; use a "
                       "buffer_load copy",
               "AB"[o], p->op[o].gcopy->name);
      return 0;
    }
  why[0] = '\0';
  return 1;
}

/* ---- edges ---------------------------------------------------------------------------------- */

/* 1 when the K slices' tiles run past K. */
static int k_ragged(const fsim_gemm_plan *p) { return (int64_t)p->k_tiles * p->s.split_k * p->s.bk != p->s.k; }

/* 1 when operand o's copies need per-lane bounds checks (see the file comment). */
static int needs_mask(const fsim_gemm_plan *p, int o) {
  const fsim_gemm_operand *op = &p->op[o];
  if (op->k_contig) return k_ragged(p);
  int64_t rows = o == 0 ? p->s.m : p->s.n;
  return rows % op->rows != 0;
}

static int c_edges(const fsim_gemm_plan *p) { return p->s.m % p->s.bm != 0 || p->s.n % p->s.bn != 0; }

static int is_global_copy(const fsim_copy_atom *c) { return strncmp(c->name, "global_", 7) == 0; }

/* ---- the header ----------------------------------------------------------------------------- */

static void swizzle_text(const fsim_swizzle *sw, char *buf, size_t n) {
  if (sw->b == 0) snprintf(buf, n, "none");
  else snprintf(buf, n, "%d,%d,%d", sw->b, sw->m, sw->s);
}

static void kernel_name(const fsim_gemm_plan *p, char *buf, size_t n) {
  snprintf(buf, n, "fsim_%s_%s_%dx%dx%d_w%dx%d_s%d%s", p->s.op == FSIM_KOP_GROUPED_GEMM ? "grouped_gemm" : "gemm",
           p->a->device.gfx, p->s.bm, p->s.bn, p->s.bk, p->s.waves_m, p->s.waves_n, p->s.stages,
           p->s.kind == FSIM_PIPE_PINGPONG ? "_pp" : "");
}

static void emit_header(em *m, const fsim_emit_opts *o, const char *kname) {
  const fsim_gemm_plan *p = m->p;
  const fsim_schedule *s = &p->s;
  char swa[24], swb[24];
  swizzle_text(&p->op[0].sw, swa, sizeof swa);
  swizzle_text(&p->op[1].sw, swb, sizeof swb);
  /* the part as fsim_arch_identity names it: however it was spelt (gfx950, a path) and
   * changed (--set, an edited copy), the same part gives the same header */
  char part[256], changes[900];
  fsim_arch_identity(p->a, part, sizeof part, changes, sizeof changes);
  out(m, "// flysim-plan: version=%s gfx=%s part=%s kernel=%s swizzle_a=%s swizzle_b=%s", PACKAGE_VERSION,
      p->a->device.gfx, part, kname, swa, swb);
  out(m, "// flysim-overrides: %s", changes[0] ? changes : "none");
  out(m, "//");
  out(m, "// Generated by flysim %s (flysim emit): the kernel of the schedule below, translated from", PACKAGE_VERSION);
  out(m, "// the wave program the simulator times, in its order.  Edit the schedule, not this file.");
  out(m, "// Problem: %s %lldx%lldx%lld%s, %s x %s -> %s, layout %s, on %s (%s)", fsim_kop_name((fsim_kop)s->op), s->m,
      s->n, s->k, s->op == FSIM_KOP_GROUPED_GEMM ? " per group" : "", fsim_dtype_name(s->a_type),
      fsim_dtype_name(s->b_type), fsim_dtype_name(s->c_type), fsim_layout_name((fsim_gemm_layout)s->layout),
      p->a->device.name, p->a->device.gfx);
  if (o && o->predicted_us > 0)
    out(m, "// Predicted: %.3f us (%s%s%s)", o->predicted_us, o->predicted_how ? o->predicted_how : "flysim",
        o->predicted_bound ? ", bound " : "", o->predicted_bound ? o->predicted_bound : "");
  if (o && o->config_source) out(m, "// Schedule from: %s", o->config_source);
  out(m, "// Plan: %dx%dx%d tile, %dx%d waves (%d threads), %s, %dx%d atoms per wave, %d per K tile;", s->bm, s->bn,
      s->bk, s->waves_m, s->waves_n, p->threads, p->atom->name, p->rm, p->rn, p->ki);
  out(m, "//   %d LDS stage(s) of A %lld + B %lld bytes, %lld bytes in all; A by %s (swizzle %s), B by %s (swizzle %s);",
      s->stages, (long long)p->op[0].stage_bytes, (long long)p->op[1].stage_bytes, (long long)p->lds_bytes,
      p->op[0].gcopy->name, swa, p->op[1].gcopy->name, swb);
  out(m, "//   fragments by %s (A) and %s (B); C %s; %lld workgroups of %d K tiles;", p->op[0].lread->name,
      p->op[1].lread->name, s->c_path == FSIM_EPI_LDS ? "staged through LDS" : "stored from the accumulators",
      (long long)p->workgroups, p->k_tiles);
  out(m, "//   registers estimated %d VGPR + %d AGPR + %d SGPR per wave; pipeline %s.", p->vgprs, p->agprs, p->sgprs,
      s->kind == FSIM_PIPE_PINGPONG ? "ping-pong (two wave groups a barrier apart; MFMA phases at s_setprio 1)"
                                    : "plain");
  out(m, "//");
  out(m, "// Device code only (no ROCm needed):");
  out(m, "//   clang-22 -x hip --offload-arch=%s -nogpulib -nogpuinc --cuda-device-only --no-gpu-bundle-output -O3 -c "
         "-o kernel.o THIS.hip",
      p->a->device.gfx);
  out(m, "// Run it on random data and time it with the HIP runtime (docs/emit.md):");
  out(m, "//   hipcc --offload-arch=%s -O3 -DFSIM_HIP_RUNTIME -DFSIM_HOST_MAIN -o run -x hip THIS.hip && ./run",
      p->a->device.gfx);
  out(m, "// Check the index math on the host (prints every access; flysim verify compares it with the plan):");
  out(m, "//   c++ -std=c++17 -x c++ -DFSIM_ADDRESS_SELFTEST -o selftest THIS.hip && ./selftest");
  out(m, "//");
  out(m, "// The schedule (flysim schedule format; `flysim verify` reads it back):");
  out(m, "// flysim-schedule-begin");
  char *text;
  fsim_err e2;
  fsim_err_clear(&e2);
  fsim_status st = fsim_schedule_text(s, &text, &e2);
  if (st != FSIM_OK) {
    if (m->e) *m->e = e2;
    m->st = st;
    return;
  }
  for (char *save = NULL, *ln = strtok_r(text, "\n", &save); ln; ln = strtok_r(NULL, "\n", &save)) out(m, "// %s", ln);
  free(text);
  out(m, "// flysim-schedule-end");
  blank(m);
}

/* ---- the index functions --------------------------------------------------------------------- */

/* C expression of one mode of a layout applied to variable x. */
static void mode_expr(const fsim_layout *mode, const char *x, char *buf, size_t n) {
  int64_t below = 1;
  size_t used = 0;
  int terms = 0;
  buf[0] = '\0';
  for (int k = 0; k < mode->nleaf; k++) {
    int64_t s = mode->shape[k], d = mode->stride[k];
    int last = k == mode->nleaf - 1;
    if (d != 0 && (s > 1 || last)) {
      char t[96], div[32] = "";
      if (below > 1) snprintf(div, sizeof div, " / %lld", (long long)below);
      if (last) snprintf(t, sizeof t, "(%s%s)", x, div);
      else snprintf(t, sizeof t, "(%s%s %% %lld)", x, div, (long long)s);
      if (used < n) used += (size_t)snprintf(buf + used, n - used, "%s%s * %lld", terms ? " + " : "", t, (long long)d);
      terms++;
    }
    below *= s;
  }
  if (terms == 0) snprintf(buf, n, "0");
}

static void emit_tv(em *m, const char *name, const fsim_layout *tv, const char *text) {
  fsim_layout lane, val;
  if (fsim_layout_get(&lane, tv, 0, NULL) != FSIM_OK || fsim_layout_get(&val, tv, 1, NULL) != FSIM_OK) {
    fail(m, "internal: the layout %s has no lane and value modes", text);
    return;
  }
  char le[400], ve[400];
  mode_expr(&lane, "lane", le, sizeof le);
  mode_expr(&val, "value", ve, sizeof ve);
  out(m, "// %s (lane, value) -> column-major index in the atom's operand, layout %s", name, text);
  out(m, "FSIM_HD static inline int %s(int lane, int value) { return %s + %s; }", name, le, ve);
}

static void emit_swizzle(em *m, const char *name, const fsim_swizzle *sw) {
  if (sw->b == 0)
    out(m, "FSIM_HD static inline int %s(int x) { return x; } // no swizzle", name);
  else if (sw->s >= 0)
    out(m, "FSIM_HD static inline int %s(int x) { return x ^ ((x & 0x%llx) >> %d); } // Swizzle<%d,%d,%d>", name,
        (unsigned long long)sw->ymask, sw->s, sw->b, sw->m, sw->s);
  else
    out(m, "FSIM_HD static inline int %s(int x) { return x ^ ((x & 0x%llx) << %d); } // Swizzle<%d,%d,%d>", name,
        (unsigned long long)sw->ymask, -sw->s, sw->b, sw->m, sw->s);
}

static void emit_operand_functions(em *m, int o) {
  const fsim_gemm_plan *p = m->p;
  const fsim_gemm_operand *op = &p->op[o];
  char X = "AB"[o];
  int eb = op->elem_bits / 8, ce = op->gcopy->bytes / eb, kmaj = op->lds_major == FSIM_LDS_K_MAJOR;
  int amn = o == 0 ? p->atom->m : p->atom->n, wt = o == 0 ? p->wave_tm : p->wave_tn;
  int direct = op->gcopy->op == FSIM_OP_LOAD_LDS;
  blank(m);
  out(m, "// ---- %c: %s in memory (leading dimension %lld elements of %d bytes); LDS %s, rows of %d elements ----", X,
      op->k_contig ? "K-contiguous" : (o == 0 ? "M-contiguous" : "N-contiguous"), (long long)op->ld, eb,
      kmaj ? "k-major" : "mn-major", op->row_len);
  if (kmaj) out(m, "FSIM_HD static inline int %c_lds_index(int mn, int k) { return mn * %d + k; }", X, op->row_len);
  else out(m, "FSIM_HD static inline int %c_lds_index(int mn, int k) { return k * %d + mn; }", X, op->row_len);
  out(m, "// copy c (%s, %d bytes a lane) by thread t: the tile element (mn, k) it starts at and its LDS byte offset",
      op->gcopy->name, op->gcopy->bytes);
  out(m, "FSIM_HD static inline void %c_copy_at(int t, int c, int *mn, int *k, int *lds) {", X);
  out(m, "  const int q = c * THREADS + t;");
  if (direct) {
    out(m, "  // a direct-to-LDS load writes lane by lane at consecutive addresses, so the swizzle applies");
    out(m, "  // on the global side: the lane writing physical element phys fetches logical element swz(phys)");
    out(m, "  const int phys = q * %d, logical = %c_swz(phys);", ce, X);
    if (kmaj) out(m, "  *mn = logical / %d;\n  *k = logical %% %d;", op->row_len, op->row_len);
    else out(m, "  *k = logical / %d;\n  *mn = logical %% %d;", op->row_len, op->row_len);
    m->lines += 1;
    out(m, "  *lds = phys * %d;", eb);
  } else {
    int contig = op->k_contig ? p->s.bk : op->rows;
    out(m, "  // through registers: consecutive chunks in memory order, written to their swizzled LDS place");
    out(m, "  const int first = q * %d, along = first %% %d, across = first / %d;", ce, contig, contig);
    if (op->k_contig) out(m, "  *mn = across;\n  *k = along;");
    else out(m, "  *mn = along;\n  *k = across;");
    m->lines += 1;
    out(m, "  *lds = %c_swz(%c_lds_index(*mn, *k)) * %d;", X, X, eb);
  }
  out(m, "}");
  out(m, "FSIM_HD static inline int %c_copy_mn(int t, int c) { int mn, k, lds; %c_copy_at(t, c, &mn, &k, &lds); return mn; }",
      X, X);
  out(m, "FSIM_HD static inline int %c_copy_k(int t, int c) { int mn, k, lds; %c_copy_at(t, c, &mn, &k, &lds); return k; }",
      X, X);
  out(m, "FSIM_HD static inline int %c_copy_lds(int t, int c) { int mn, k, lds; %c_copy_at(t, c, &mn, &k, &lds); return lds; }",
      X, X);
  out(m, "// byte offset in memory from the tile's first element");
  if (op->k_contig)
    out(m, "FSIM_HD static inline int %c_copy_global(int t, int c) { return (%c_copy_mn(t, c) * %lld + %c_copy_k(t, c)) * %d; }",
        X, X, (long long)op->ld, X, eb);
  else
    out(m, "FSIM_HD static inline int %c_copy_global(int t, int c) { return (%c_copy_k(t, c) * %lld + %c_copy_mn(t, c)) * %d; }",
        X, X, (long long)op->ld, X, eb);
  out(m, "// LDS read r of fragment (i along %s, kk along K) by lane l of wave w (%s): byte offset in the stage",
      o == 0 ? "M" : "N", op->lread->name);
  out(m, "FSIM_HD static inline int %c_read(int w, int l, int i, int kk, int r) {", X);
  out(m, "  const int mn0 = (w %s WAVES_M) * %d + i * %d, k0 = kk * ATOM_K;", o == 0 ? "%" : "/", wt, amn);
  if (op->lread->transpose) {
    int v = op->lread->bytes / eb, across = 16 / v;
    out(m, "  // %s: source lane s of a 16-lane group reads %d consecutive mn values at", op->lread->name, v);
    out(m, "  // (base + %d (s %% %d), base + s / %d); the transpose hands lane i value (base + i, base + j)", v, across,
        across);
    out(m, "  const int g = l / 16, s = l %% 16, idx = %c_tv(g * 16, %d * r);", X, v);
    out(m, "  const int mn = idx %% %d + %d * (s %% %d), k = idx / %d + s / %d;", amn, v, across, amn, across);
  } else {
    int vr = op->lread->bytes / eb;
    out(m, "  const int idx = %c_tv(l, r * %d); // a plain read delivers %d consecutive K values", X, vr, vr);
    out(m, "  const int mn = idx %% %d, k = idx / %d;", amn, amn);
  }
  out(m, "  return %c_swz(%c_lds_index(mn0 + mn, k0 + k)) * %d;", X, X, eb);
  out(m, "}");
}

static void emit_c_functions(em *m) {
  const fsim_gemm_plan *p = m->p;
  blank(m);
  out(m, "// ---- C: column-major (ldc = M); runs of 4 consecutive rows of an accumulator ----");
  out(m, "FSIM_HD static inline int C_row(int w, int l, int i, int j, int run) {");
  out(m, "  return C_tv(l, run * 4) %% %d + (w %% WAVES_M) * %d + i * %d;", p->atom->m, p->wave_tm, p->atom->m);
  out(m, "}");
  out(m, "FSIM_HD static inline int C_col(int w, int l, int i, int j, int run) {");
  out(m, "  return C_tv(l, run * 4) / %d + (w / WAVES_M) * %d + j * %d;", p->atom->m, p->wave_tn, p->atom->n);
  out(m, "}");
  out(m, "FSIM_HD static inline int C_off(int w, int l, int i, int j, int run) {");
  out(m, "  return (C_col(w, l, i, j, run) * M + C_row(w, l, i, j, run)) * CB;");
  out(m, "}");
  out(m, "// the LDS staging buffer: column-major with a pitch of %d elements (conflict-free run writes)", p->c_pitch);
  out(m, "FSIM_HD static inline int C_lds(int w, int l, int i, int j, int run) {");
  out(m, "  return (C_col(w, l, i, j, run) * C_PITCH + C_row(w, l, i, j, run)) * CB;");
  out(m, "}");
  out(m, "// 16-byte chunk c of the C tile for thread t (%d elements)", chunk_elems(p));
  out(m, "FSIM_HD static inline int C_chunk_row(int t, int c) { return (c * THREADS + t) * %d %% BM; }", chunk_elems(p));
  out(m, "FSIM_HD static inline int C_chunk_col(int t, int c) { return (c * THREADS + t) * %d / BM; }", chunk_elems(p));
  out(m, "FSIM_HD static inline int C_chunk_lds(int t, int c) { return (C_chunk_col(t, c) * C_PITCH + C_chunk_row(t, c)) * CB; }");
  out(m, "FSIM_HD static inline int C_chunk_off(int t, int c) { return (C_chunk_col(t, c) * M + C_chunk_row(t, c)) * CB; }");
}

static void emit_prelude(em *m) {
  const fsim_gemm_plan *p = m->p;
  const fsim_schedule *s = &p->s;
  out(m, "#if defined(FSIM_HIP_RUNTIME)");
  out(m, "#include <hip/hip_runtime.h>");
  out(m, "#define FSIM_HD __host__ __device__");
  out(m, "#elif defined(__HIP__)");
  out(m, "// device code without the HIP headers (clang -nogpuinc): the few keywords the kernel uses");
  out(m, "#define __global__ __attribute__((global))");
  out(m, "#define __device__ __attribute__((device))");
  out(m, "#define __host__ __attribute__((host))");
  out(m, "#define __shared__ __attribute__((shared))");
  out(m, "#define FSIM_HD __host__ __device__");
  out(m, "#else");
  out(m, "#define FSIM_HD // plain C++: the address self-test");
  out(m, "#endif");
  blank(m);
  out(m, "// ---- sizes ----");
  out(m, "static constexpr int M = %lld, N = %lld, K = %lld, GROUPS = %d;", s->m, s->n, s->k,
      s->op == FSIM_KOP_GROUPED_GEMM ? s->groups : 1);
  out(m, "static constexpr int BM = %d, BN = %d, BK = %d, WAVES_M = %d, WAVES_N = %d, WAVE = %d, THREADS = %d;", s->bm,
      s->bn, s->bk, s->waves_m, s->waves_n, p->wave_size, p->threads);
  out(m, "static constexpr int TILES_M = %d, TILES_N = %d, SPLIT_K = %d, K_TILES = %d, STAGES = %d;", p->tiles_m,
      p->tiles_n, s->split_k, p->k_tiles, s->stages);
  out(m, "static constexpr int ATOM_M = %d, ATOM_N = %d, ATOM_K = %d, RM = %d, RN = %d, KI = %d;", p->atom->m,
      p->atom->n, p->atom->k, p->rm, p->rn, p->ki);
  out(m, "static constexpr int LDS_BYTES = %lld, LDS_STRIDE = %lld, LDS_A = %lld, LDS_B = %lld, LDS_C = %lld;",
      (long long)p->lds_bytes, (long long)p->lds_stride, (long long)p->lds_stage_a, (long long)p->lds_stage_b,
      (long long)p->lds_c);
  out(m, "static constexpr int C_PITCH = %d, CB = %d; // C staging pitch (elements), bytes per C element", p->c_pitch,
      p->c_bits / 8);
  out(m, "static constexpr long long WORKGROUPS = %lld;", (long long)p->workgroups);
  out(m, "static constexpr long long A_BYTES = %lld, B_BYTES = %lld, C_BYTES = %lld; // per group",
      (long long)(s->m * s->k * p->op[0].elem_bits / 8), (long long)(s->n * s->k * p->op[1].elem_bits / 8),
      (long long)(s->m * s->n * p->c_bits / 8));
  /* CDNA range-checks a multi-dword buffer load per dword: a dword that does not end within
   * num_records reads 0 (CDNA4 ISA 9.1.5.1, note 4).  An M/N-contiguous operand's copies start
   * 2-byte aligned where M (or N) is odd, so the copy of its last element may end up to 3 bytes
   * past the operand: without the slack that element read as 0 (an audit's emulation of the
   * rule: C's last row wrong in 7x300x64 NN).  Whatever the slack admits lies past the operand,
   * in rows or columns past M or N, which no store writes; copies wholly past the end are
   * predicated off (FSIM_OOB), so the offset rule of gfx12 reads nothing more. */
  out(m, "static constexpr long long READ_SLACK = 3; // bytes past A's and B's end a copy's last dword may reach");
  blank(m);
  out(m, "// ---- index math: the plan's lane functions (kernels/gemm_plan.c) written out ----");
  emit_swizzle(m, "A_swz", &p->op[0].sw);
  emit_swizzle(m, "B_swz", &p->op[1].sw);
  emit_tv(m, "A_tv", &p->a_tv, p->atom->a_tv);
  emit_tv(m, "B_tv", &p->b_tv, p->atom->b_tv);
  emit_tv(m, "C_tv", &p->c_tv, p->atom->c_tv);
  emit_operand_functions(m, 0);
  emit_operand_functions(m, 1);
  emit_c_functions(m);
  blank(m);
}

/* ---- the kernel body: the wave program, statement by statement -------------------------------- */

static const char *vec_type(int bytes) {
  switch (bytes) {
  case 2: return "u16";
  case 4: return "u32";
  case 8: return "u32x2";
  default: return "u32x4";
  }
}

/* Access the operands of this workgroup start at; stage offset expressions. */
static void stage_expr(const fsim_gemm_plan *p, int level, int phase, char *buf, size_t n) {
  if (p->s.stages == 1) snprintf(buf, n, "0");
  else if (level < 0) snprintf(buf, n, "%lld", (long long)(phase % p->s.stages) * p->lds_stride);
  else snprintf(buf, n, "((it%d + %d) %% STAGES) * LDS_STRIDE", level, phase);
}

static void tile_expr(int level, int phase, char *buf, size_t n) {
  if (level < 0) snprintf(buf, n, "kslice * K_TILES + %d", phase);
  else snprintf(buf, n, "kslice * K_TILES + it%d + %d", level, phase);
}

/* The loop level and phase of an address pattern; level -1 for straight-line code, with the
 * tile or stage index taken from the name's "_proN" suffix. */
static void addr_phase(const fsim_wprog *wp, int ai, int *level, int *phase) {
  const fsim_wp_addr *ad = &wp->addrs[ai];
  if (ad->nterms > 0) {
    *level = ad->term[0].level;
    *phase = ad->term[0].phase;
    return;
  }
  *level = -1;
  const char *pro = strstr(ad->name, "_pro");
  *phase = pro ? atoi(pro + 4) : 0;
}

/* sched_group_barrier masks (LLVM AMDGPU IGroupLP) */
#define SG_MFMA 0x008
#define SG_VMEM_READ 0x020
#define SG_DS_READ 0x100
#define SG_DS_WRITE 0x200

static void group_note(em *m, int mask) {
  if (m->ngrp > 0 && m->grp_mask[m->ngrp - 1] == mask) {
    m->grp_n[m->ngrp - 1]++;
    return;
  }
  if (m->ngrp == (int)(sizeof m->grp_mask / sizeof m->grp_mask[0])) return;
  m->grp_mask[m->ngrp] = mask;
  m->grp_n[m->ngrp++] = 1;
}

static void group_flush(em *m, const char *ind, int in_loop) {
  if (in_loop && m->ngrp >= 2) {
    out(m, "%s// keep the wave program's order: %d groups (sched_group_barrier: mask, count, sync id)", ind, m->ngrp);
    for (int g = 0; g < m->ngrp; g++) {
      static const struct {
        int mask;
        const char *what;
      } nm[] = {{SG_MFMA, "MFMA"}, {SG_VMEM_READ, "VMEM read"}, {SG_DS_READ, "DS read"}, {SG_DS_WRITE, "DS write"}};
      const char *what = "";
      for (size_t k = 0; k < sizeof nm / sizeof nm[0]; k++)
        if (nm[k].mask == m->grp_mask[g]) what = nm[k].what;
      out(m, "%s__builtin_amdgcn_sched_group_barrier(0x%03x, %d, 0); // %d %s", ind, m->grp_mask[g], m->grp_n[g],
          m->grp_n[g], what);
      m->sched_groups++;
    }
  }
  m->ngrp = 0;
}

static void emit_wait(em *m, const char *ind, int vm, int lgkm, int barrier, int pin) {
  char text[200] = "";
  size_t u = 0;
  if (m->gfx12) {
    if (vm >= 0) u += (size_t)snprintf(text + u, sizeof text - u, "s_wait_loadcnt %d\\n\\t", vm);
    if (lgkm >= 0) u += (size_t)snprintf(text + u, sizeof text - u, "s_wait_dscnt %d\\n\\t", lgkm);
    if (barrier) u += (size_t)snprintf(text + u, sizeof text - u, "s_barrier_signal -1\\n\\ts_barrier_wait -1\\n\\t");
  } else {
    if (vm >= 0 || lgkm >= 0) {
      u += (size_t)snprintf(text + u, sizeof text - u, "s_waitcnt");
      if (vm >= 0) u += (size_t)snprintf(text + u, sizeof text - u, " vmcnt(%d)", vm);
      if (lgkm >= 0) u += (size_t)snprintf(text + u, sizeof text - u, " lgkmcnt(%d)", lgkm);
      u += (size_t)snprintf(text + u, sizeof text - u, "\\n\\t");
    }
    if (barrier) u += (size_t)snprintf(text + u, sizeof text - u, "s_barrier\\n\\t");
  }
  if (u >= 4) text[u - 4] = '\0'; /* drop the last "\n\t" */
  /* the memory clobber keeps memory operations on their side, not MFMAs: without the
   * scheduling barrier clang 22 hoisted a K tile's vmcnt wait above its last twelve WMMAs on
   * gfx1201, exposing the next tile's load latency (+26.7% as compiled).  Not under the
   * ping-pong's one-group ifs (pin 0), whose body is this one statement. */
  if (pin) out(m, "%s__builtin_amdgcn_sched_barrier(0);", ind);
  out(m, "%sasm volatile(\"%s\" ::: \"memory\");", ind, text);
}

typedef struct ctx {
  int depth;
  char ind[64];
  int in_loop;
} ctx;

static void set_indent(ctx *c) {
  int n = 2 + 2 * c->depth;
  if (n > 60) n = 60;
  memset(c->ind, ' ', (size_t)n);
  c->ind[n] = '\0';
}

static int reg_scan(const fsim_wprog *wp, fsim_wp_reg r, const char *fmt, int *x, int *y) {
  if (r.count == 0 || r.first >= wp->nregs) return 0;
  return sscanf(wp->reg_names[r.first], fmt, x, y);
}

static void emit_copy(em *m, ctx *c, int o, int cp, int level, int phase) {
  const fsim_gemm_plan *p = m->p;
  const fsim_gemm_operand *op = &p->op[o];
  char X = "AB"[o], x = "ab"[o];
  int bytes = op->gcopy->bytes, eb = op->elem_bits / 8;
  char st[96], kt[96], mnb[64], kb[64];
  stage_expr(p, level, phase, st, sizeof st);
  tile_expr(level, phase, kt, sizeof kt);
  long long kstride = (long long)(op->k_contig ? 1 : op->ld) * p->s.bk * eb;
  int args[3] = {cp, 0, 0};
  int ga = basis_access(m, o == 0 ? K_COPYG_A : K_COPYG_B, args);
  if (ga < 0) return;
  const basis *gb = m->b[o == 0 ? K_COPYG_A : K_COPYG_B];
  int32_t d = gb->acc_d[ga];
  /* the constant (from the table, as lane_expr) goes to the scalar offset, which is unsigned,
   * when it is not negative, else to the lane's offset */
  const char *gv = kinds[o == 0 ? K_COPYG_A : K_COPYG_B].var;
  char voff[512], soff[200];
  if (d < 0) snprintf(voff, sizeof voff, "%s%d + %s_d[%d]", gv, gb->acc_base[ga], gv, ga);
  else snprintf(voff, sizeof voff, "%s%d", gv, gb->acc_base[ga]);
  snprintf(soff, sizeof soff, "(%s) * %lld", kt, kstride);
  if (d >= 0) snprintf(soff + strlen(soff), sizeof soff - strlen(soff), " + %s_d[%d]", gv, ga); /* every entry read */
  if (m->masked_op[o]) {
    char cond[300];
    if (op->k_contig)
      snprintf(cond, sizeof cond, "%s < K - (%s) * BK", lane_expr(m, o == 0 ? K_COPYK_A : K_COPYK_B, cp, 0, 0, kb, sizeof kb),
               kt);
    else
      snprintf(cond, sizeof cond, "%s < %c_left", lane_expr(m, o == 0 ? K_COPYMN_A : K_COPYMN_B, cp, 0, 0, mnb, sizeof mnb),
               x);
    char tmp[sizeof voff];
    snprintf(tmp, sizeof tmp, "%s", voff);
    snprintf(voff, sizeof voff, "(%.250s) ? %.200s : FSIM_OOB", cond, tmp);
  }
  out(m, "%s// copy %d of %c (%s): K tile %s into stage %s", c->ind, cp, X, op->gcopy->name, kt, st);
  if (op->gcopy->op == FSIM_OP_LOAD_LDS) {
    /* the LDS side: consecutive per lane from a wave-uniform base (M0) */
    for (int t = 0; t < p->threads; t++) {
      int64_t g, l;
      fsim_gemm_lane_copy(p, o, t, cp, &g, &l);
      if (l != ((int64_t)cp * p->threads + t) * bytes) {
        fail(m, "internal: direct copy %d of %c does not write consecutive LDS addresses", cp, X);
        return;
      }
    }
    char m0[200];
    snprintf(m0, sizeof m0, "lds + LDS_%c + %s + %lld + wave * %d", X, st, (long long)cp * p->threads * bytes,
             p->wave_size * bytes);
    if (is_global_copy(op->gcopy))
      out(m, "%s__builtin_amdgcn_global_load_lds((global_void *)(%c_tile + (%s) + (%s)), (lds_void *)(%s), %d, 0, 0);",
          c->ind, x, soff, voff, m0, bytes);
    else
      out(m, "%s__builtin_amdgcn_raw_ptr_buffer_load_lds(rsrc_%c, (lds_void *)(%s), %d, %s, %s, 0, 0);", c->ind, x, m0,
          bytes, voff, soff);
    group_note(m, SG_VMEM_READ);
  } else {
    if (is_global_copy(op->gcopy))
      out(m, "%ss%c[%d] = *(const %s *)(%c_tile + (%s) + (%s));", c->ind, x, cp, vec_type(bytes), x, soff, voff);
    else
      out(m, "%ss%c[%d] = __builtin_amdgcn_raw_buffer_load_b%d(rsrc_%c, %s, %s, 0);", c->ind, x, cp, bytes * 8, x, voff,
          soff);
    group_note(m, SG_VMEM_READ);
  }
}

static void emit_staged_write(em *m, ctx *c, int o, int cp, int level, int phase) {
  const fsim_gemm_plan *p = m->p;
  char X = "AB"[o], x = "ab"[o], st[96], le[64];
  stage_expr(p, level, phase, st, sizeof st);
  int bytes = p->op[o].lwrite->bytes;
  out(m, "%s*(lds_%s *)(lds + LDS_%c + %s + %s) = s%c[%d]; // %s", c->ind, vec_type(bytes), X, st,
      lane_expr(m, o == 0 ? K_COPYL_A : K_COPYL_B, cp, 0, 0, le, sizeof le), x, cp, p->op[o].lwrite->name);
  group_note(m, SG_DS_WRITE);
}

static void emit_read(em *m, ctx *c, int o, int i, int kk, int r, int level, int phase) {
  const fsim_gemm_plan *p = m->p;
  const fsim_gemm_operand *op = &p->op[o];
  char X = "AB"[o], x = "ab"[o], st[96], le[64];
  stage_expr(p, level, phase, st, sizeof st);
  lane_expr(m, o == 0 ? K_READ_A : K_READ_B, i, kk, r, le, sizeof le);
  int bytes = op->lread->bytes, frag_bytes = op->frag_regs * 4, buf = kk % m->nbuf;
  char addr[200];
  snprintf(addr, sizeof addr, "lds + LDS_%c + %s + %s", X, st, le);
  if (op->lread->transpose) {
    /* clang's builtin for the read and the LDS pointer type it takes */
    int b8 = op->lread->transpose == 8;
    out(m, "%s{ const u32x2 v = __builtin_bit_cast(u32x2, __builtin_amdgcn_ds_read_%s((%s *)(%s)));", c->ind,
        b8 ? "tr8_b64_v2i32" : "tr16_b64_v4i16", b8 ? "lds_i32x2" : "lds_i16x4", addr);
    out(m, "%s  f%c[%d][%d][%d] = v.x; f%c[%d][%d][%d] = v.y; } // %s %c%d k%d.%d", c->ind, x, buf, i, 2 * r, x, buf, i,
        2 * r + 1, op->lread->name, X, i, kk, r);
  } else if (bytes == frag_bytes) {
    out(m, "%sf%c[%d][%d] = *(const lds_%s *)(%s); // %s %c%d k%d", c->ind, x, buf, i, vec_type(bytes), addr,
        op->lread->name, X, i, kk);
  } else if (bytes == 2) {
    out(m, "%sf%c[%d][%d][%d] = *(const lds_u16 *)(%s); // %s %c%d k%d.%d", c->ind, x, buf, i, r, addr, op->lread->name,
        X, i, kk, r);
  } else if (bytes == 4) {
    out(m, "%sf%c[%d][%d][%d] = *(const lds_u32 *)(%s); // %s %c%d k%d.%d", c->ind, x, buf, i, r, addr, op->lread->name,
        X, i, kk, r);
  } else if (bytes == 8 || bytes == 16) {
    int dw = bytes / 4;
    char parts[200];
    size_t u = 0;
    for (int q = 0; q < dw; q++)
      u += (size_t)snprintf(parts + u, sizeof parts - u, " f%c[%d][%d][%d] = v[%d];", x, buf, i, dw * r + q, q);
    out(m, "%s{ const %s v = *(const lds_%s *)(%s);%s } // %s %c%d k%d.%d", c->ind, vec_type(bytes), vec_type(bytes), addr,
        parts, op->lread->name, X, i, kk, r);
  } else {
    fail(m, "internal: a %d-byte read into a %d-byte fragment", bytes, frag_bytes);
  }
  group_note(m, SG_DS_READ);
}

static void emit_mfma(em *m, ctx *c, int i, int j, int buf) {
  const fsim_gemm_plan *p = m->p;
  const atom_types *t = atom_types_of(p->atom);
  out(m, "%sacc[%d][%d] = %s(__builtin_bit_cast(%s, fa[%d][%d]), __builtin_bit_cast(%s, fb[%d][%d]), acc[%d][%d]%s);",
      c->ind, i, j, p->atom->builtin, t->ab, buf, i, t->ab, buf, j, i, j,
      t->form == 1 ? "" : t->form == 2 ? ", 0, 0, 0, 127, 0, 127" : ", 0, 0, 0");
  group_note(m, SG_MFMA);
}

/* The stores of one run or chunk: VEC holds it (dwords), `run_bytes` long; rowk/colk the
 * kinds of its row and column, offk of its offset; args its access.  With split-K the wave
 * program stores a run as several atomic adds of `part_bytes` each (addresses named
 * ..._atomicQ), and at edges that cut through the vectors as one store per element
 * (..._elemQ); `part` is then Q, and only the elements of bytes [Q * part_bytes,
 * (Q + 1) * part_bytes) of the run are stored (part -1: the whole run). */
static void emit_c_store(em *m, ctx *c, const char *vec, int run_bytes, int rowk, int colk, int offk, int a0, int a1,
                         int a2, int part, int part_bytes) {
  const fsim_gemm_plan *p = m->p;
  int cb = p->c_bits / 8, elems = run_bytes / cb;
  char rb[64], cbuf[64];
  int e0 = 0, e1 = elems;
  if (part >= 0) {
    if (part_bytes < cb || part_bytes % cb != 0 || (part + 1) * part_bytes > run_bytes) {
      fail(m, "internal: C store part %d of %d bytes in a %d-byte run", part, part_bytes, run_bytes);
      return;
    }
    e0 = part * part_bytes / cb;
    e1 = e0 + part_bytes / cb;
  }
  if (m->atomic) {
    lane_expr(m, rowk, a0, a1, a2, rb, sizeof rb);
    lane_expr(m, colk, a0, a1, a2, cbuf, sizeof cbuf);
    out(m, "%s{ const int row = %s, col = %s;", c->ind, rb, cbuf);
    int step = cb == 2 && m->pairs ? 2 : 1;
    for (int e = e0; e < e1; e += step) {
      /* at an edge an element outside C adds 0 at C's first element instead: no branch */
      char ok[96] = "1";
      if (m->edge_c) snprintf(ok, sizeof ok, "col < n_left && row + %d < m_left", e);
      if (cb == 4)
        out(m, "%s  { const bool ok = %s; fsim_atomic_add_f32(ok ? c_tile + ((long long)col * M + row + %d) * CB : c_group, "
               "ok ? __builtin_bit_cast(float, (u32)%s[%d]) : 0.0f); }",
            c->ind, ok, e, vec, e);
      else if (m->pairs)
        out(m, "%s  { const bool ok = %s; fsim_atomic_add_pk(ok ? c_tile + ((long long)col * M + row + %d) * CB : c_group, "
               "ok ? %s[%d] : 0u); }",
            c->ind, ok, e, vec, e / 2);
      else
        out(m, "%s  { const bool ok = %s; fsim_atomic_add_elem(c_group, ok ? c_first + (long long)col * M + row + %d : 0, "
               "ok ? (%s[%d] >> %d) & 0xffffu : 0u); }",
            c->ind, ok, e, vec, e / 2, 16 * (e % 2));
    }
    out(m, "%s}", c->ind);
    return;
  }
  if (m->edge_c && !m->whole_runs) {
    lane_expr(m, rowk, a0, a1, a2, rb, sizeof rb);
    lane_expr(m, colk, a0, a1, a2, cbuf, sizeof cbuf);
    out(m, "%s{ const int row = %s, col = %s;", c->ind, rb, cbuf);
    for (int e = e0; e < e1; e++) {
      char val[64];
      if (cb == 4) snprintf(val, sizeof val, "%s[%d]", vec, e);
      else snprintf(val, sizeof val, "(u16)(%s[%d] >> %d)", vec, e / 2, 16 * (e % 2));
      out(m, "%s  __builtin_amdgcn_raw_buffer_store_b%d(%s, rsrc_c, col < n_left && row + %d < m_left ? (col * M + row + %d) * CB : FSIM_OOB, 0, 0);",
          c->ind, cb * 8, val, e, e);
    }
    out(m, "%s}", c->ind);
    return;
  }
  char ob[64], pred[256];
  lane_expr(m, offk, a0, a1, a2, ob, sizeof ob);
  if (m->edge_c) {
    /* every run lies wholly inside C or wholly outside it: one bounds check moves the whole
     * vector's offset out of range */
    lane_expr(m, rowk, a0, a1, a2, rb, sizeof rb);
    lane_expr(m, colk, a0, a1, a2, cbuf, sizeof cbuf);
    snprintf(pred, sizeof pred, "(%s < n_left && %s < m_left ? %s : FSIM_OOB)", cbuf, rb, ob);
    snprintf(ob, sizeof ob, "off");
    out(m, "%s{ const unsigned off = %s;", c->ind, pred);
  }
  const fsim_copy_atom *sa = fsim_copy_atom_find(p->s.store);
  int w = sa && sa->bytes <= run_bytes ? sa->bytes : run_bytes;
  for (int q = 0; q < run_bytes / w; q++) {
    char piece[64];
    if (w == run_bytes) snprintf(piece, sizeof piece, "%s", vec);
    else if (w == 4) snprintf(piece, sizeof piece, "%s[%d]", vec, q);
    else snprintf(piece, sizeof piece, "%s.%s", vec, q == 0 ? "xy" : "zw");
    out(m, "%s__builtin_amdgcn_raw_buffer_store_b%d(%s, rsrc_c, %s + %d, 0, 0);", c->ind, w * 8, piece, ob, q * w);
  }
  if (m->edge_c) out(m, "%s}", c->ind);
}

/* Walks program 0 of the wave program and writes the statements of the kernel body. */
static void emit_body(em *m) {
  const fsim_gemm_plan *p = m->p;
  const fsim_wprog *wp = &m->wp;
  const fsim_wp_program *prog = &wp->programs[0];
  ctx c = {0};
  set_indent(&c);
  int loop_level = -1, lds_c = p->s.c_path == FSIM_EPI_LDS, outv_ready = 0;
  /* ping-pong: the first group's program has a barrier of its own right after its last loop
   * when the epilogue goes through LDS (gemm_wprog.c) */
  int staggered = 0, balance_at = -1;
  if (m->pingpong) {
    int last_end = -1;
    for (int i = 0; i < prog->ninst; i++)
      if (prog->inst[i].op == FSIM_OP_END) last_end = i;
    if (last_end >= 0 && last_end + 1 < prog->ninst && prog->inst[last_end + 1].op == FSIM_OP_BARRIER)
      balance_at = last_end + 1;
  }
  for (int ii = 0; ii < prog->ninst && m->st == FSIM_OK; ii++) {
    const fsim_wp_inst *in = &prog->inst[ii];
    const char *an = in->addr >= 0 && in->addr < wp->naddrs ? wp->addrs[in->addr].name : "";
    int level = -1, phase = 0, o = -1, x = 0, y = 0, z = 0;
    char ch = 0;
    if (in->addr >= 0 && in->addr < wp->naddrs) addr_phase(wp, in->addr, &level, &phase);
    switch (in->op) {
    case FSIM_OP_LOOP: {
      group_flush(m, c.ind, c.in_loop);
      loop_level++;
      out(m, "%s#pragma clang loop unroll(disable)", c.ind);
      out(m, "%sfor (int it%d = 0; it%d < %lld; ++it%d) {", c.ind, loop_level, loop_level,
          (long long)prog->loops[in->arg].trip, loop_level);
      c.depth++;
      c.in_loop = 1;
      set_indent(&c);
      if (!m->pingpong)
        out(m, "%sfrag_a fa[2][RM]; // fragments of K steps kk (even, odd): the next is read while this one multiplies",
            c.ind);
      else
        out(m, "%sfrag_a fa[%d][RM]; // fragments of every K step of the tile: a phase reads them before its MFMAs",
            c.ind, m->nbuf);
      out(m, "%sfrag_b fb[%d][RN];", c.ind, m->nbuf);
      break;
    }
    case FSIM_OP_END:
      group_flush(m, c.ind, c.in_loop);
      c.depth--;
      loop_level--;
      c.in_loop = loop_level >= 0;
      set_indent(&c);
      out(m, "%s}", c.ind);
      break;
    case FSIM_OP_WAITCNT: {
      int vm = in->arg == 0xffff ? -1 : in->arg, lg = in->arg2 == 0xffff ? -1 : in->arg2;
      int next_barrier = ii + 1 < prog->ninst && prog->inst[ii + 1].op == FSIM_OP_BARRIER;
      if (next_barrier) {
        group_flush(m, c.ind, c.in_loop);
        emit_wait(m, c.ind, vm, lg, 1, 1);
        ii++;
        if (m->pingpong && !staggered && loop_level < 0) {
          /* the prologue's barrier: the second group meets one more */
          char ind2[sizeof c.ind + 2];
          snprintf(ind2, sizeof ind2, "%s  ", c.ind);
          out(m, "%sif (wave >= WAVES_M * WAVES_N / 2) // ping-pong: the second group falls one barrier behind", c.ind);
          emit_wait(m, ind2, -1, -1, 1, 0);
          staggered = 1;
        }
      } else if (vm >= 0 && ii + 1 < prog->ninst) {
        group_flush(m, c.ind, c.in_loop);
        emit_wait(m, c.ind, vm, -1, 0, 1);
      } /* an lgkmcnt wait alone: the compiler inserts what register dependences need */
      break;
    }
    case FSIM_OP_BARRIER:
      group_flush(m, c.ind, c.in_loop);
      if (ii == balance_at) {
        char ind2[sizeof c.ind + 2];
        snprintf(ind2, sizeof ind2, "%s  ", c.ind);
        out(m, "%sif (wave < WAVES_M * WAVES_N / 2) // ping-pong: the first group meets one more, so "
               "that the epilogue's barriers pair", c.ind);
        emit_wait(m, ind2, -1, -1, 1, 0);
      } else {
        emit_wait(m, c.ind, -1, -1, 1, 1);
      }
      break;
    case FSIM_OP_SETPRIO:
      group_flush(m, c.ind, c.in_loop);
      out(m, "%s__builtin_amdgcn_s_setprio(%d);%s", c.ind, in->arg, in->arg ? " // ping-pong: an MFMA phase" : "");
      break;
    case FSIM_OP_LOAD:
    case FSIM_OP_LOAD_LDS:
      if (sscanf(an, "%c%d_g_", &ch, &x) != 2 || (ch != 'A' && ch != 'B')) {
        fail(m, "internal: wave-program copy '%s' not understood", an);
        break;
      }
      emit_copy(m, &c, ch == 'A' ? 0 : 1, x, level, phase);
      break;
    case FSIM_OP_LDS_WRITE:
      if (in->nsrc > 0 && in->src[0].first < wp->nregs &&
          sscanf(wp->reg_names[in->src[0].first], "stage_%c%d", &ch, &x) == 2) {
        emit_staged_write(m, &c, ch == 'A' ? 0 : 1, x, level, phase);
      } else if (sscanf(an, "C_lds%d_%d_%d", &x, &y, &z) == 3) {
        char le[64];
        out(m, "%s*(lds_crun *)(lds + LDS_C + %s) = outv[%d][%d][%d];", c.ind, lane_expr(m, K_C_LDS, x, y, z, le, sizeof le),
            x, y, z);
      } else {
        fail(m, "internal: wave-program LDS write '%s' not understood", an);
      }
      break;
    case FSIM_OP_LDS_READ:
      if (sscanf(an, "%c%d_%d_%d_", &ch, &x, &y, &z) == 4 && (ch == 'A' || ch == 'B')) {
        o = ch == 'A' ? 0 : 1;
        emit_read(m, &c, o, x, y, z, level, phase);
      } else if (sscanf(an, "C_read%d", &x) == 1) {
        char le[64];
        out(m, "%schunk[%d] = *(const lds_chunk *)(lds + LDS_C + %s);", c.ind, x,
            lane_expr(m, K_CH_LDS, x, 0, 0, le, sizeof le));
      } else {
        fail(m, "internal: wave-program LDS read '%s' not understood", an);
      }
      break;
    case FSIM_OP_MFMA: {
      int b = 0, i2 = 0;
      if (reg_scan(wp, in->dst, "c%d_%d", &x, &y) != 2 || reg_scan(wp, in->src[0], "a%d_%d", &b, &i2) != 2) {
        fail(m, "internal: wave-program MFMA registers not understood");
        break;
      }
      emit_mfma(m, &c, x, y, b);
      break;
    }
    case FSIM_OP_VALU:
      if (reg_scan(wp, in->dst, "o%d_%d", &x, &y) == 2) {
        group_flush(m, c.ind, c.in_loop);
        if (!outv_ready) {
          out(m, "%s// epilogue: accumulators to %s, in runs of 4 rows", c.ind, fsim_dtype_name(p->s.c_type));
          outv_ready = 1;
        }
        for (int r = 0; r < m->runs; r++) out(m, "%soutv[%d][%d][%d] = fsim_cvt_run(acc[%d][%d], %d);", c.ind, x, y, r, x, y, r);
      }
      break;
    case FSIM_OP_STORE: {
      /* split-K: one wave-program store per packed atomic of the run, named ..._atomicQ; at
       * edges that cut the vectors, one per element, ..._elemQ */
      const char *at = strstr(an, "_atomic"), *el = strstr(an, "_elem");
      int part = -1;
      if (at && sscanf(at, "_atomic%d", &part) != 1) part = -1;
      if (el && sscanf(el, "_elem%d", &part) != 1) part = -1;
      if (at && !m->atomic) {
        fail(m, "internal: wave-program store '%s' is an atomic part in a kernel without split-K", an);
      } else if (el && (m->atomic || !m->edge_c || m->whole_runs)) {
        fail(m, "internal: wave-program store '%s' is one element where the kernel stores whole vectors", an);
      } else if (sscanf(an, "C_direct%d_%d_%d", &x, &y, &z) == 3) {
        char v[64];
        snprintf(v, sizeof v, "outv[%d][%d][%d]", x, y, z);
        emit_c_store(m, &c, v, 4 * p->c_bits / 8, K_C_ROW, K_C_COL, K_C_OFF, x, y, z, part, in->width);
      } else if (sscanf(an, "C_store%d", &x) == 1 && lds_c) {
        char v[64];
        snprintf(v, sizeof v, "chunk[%d]", x);
        emit_c_store(m, &c, v, 16, K_CH_ROW, K_CH_COL, K_CH_OFF, x, 0, 0, part, in->width);
      } else {
        fail(m, "internal: wave-program store '%s' not understood", an);
      }
      break;
    }
    default: break;
    }
  }
  group_flush(m, c.ind, c.in_loop);
}

/* ---- the kernel ------------------------------------------------------------------------------ */

static void emit_types(em *m) {
  const fsim_gemm_plan *p = m->p;
  out(m, "#if defined(__HIP__)");
  out(m, "// ---- types ----");
  out(m, "typedef unsigned int u32;");
  out(m, "typedef unsigned short u16;");
  out(m, "typedef u32 u32x2 __attribute__((ext_vector_type(2)));");
  out(m, "typedef u32 u32x4 __attribute__((ext_vector_type(4)));");
  out(m, "typedef u16 u16x4 __attribute__((ext_vector_type(4)));");
  out(m, "typedef u16 u16x8 __attribute__((ext_vector_type(8)));");
  out(m, "typedef short i16x4 __attribute__((ext_vector_type(4)));");
  out(m, "typedef int i32x8 __attribute__((ext_vector_type(8)));");
  out(m, "typedef float f32x4 __attribute__((ext_vector_type(4)));");
  out(m, "typedef float f32x8 __attribute__((ext_vector_type(8)));");
  out(m, "typedef float f32x16 __attribute__((ext_vector_type(16)));");
  out(m, "typedef __bf16 bf16x2 __attribute__((ext_vector_type(2)));");
  out(m, "typedef __bf16 bf16x8 __attribute__((ext_vector_type(8)));");
  out(m, "typedef _Float16 f16x2 __attribute__((ext_vector_type(2)));");
  out(m, "typedef _Float16 f16x4 __attribute__((ext_vector_type(4)));");
  out(m, "typedef _Float16 f16x8 __attribute__((ext_vector_type(8)));");
  out(m, "typedef __attribute__((address_space(3))) unsigned char lds_u8;");
  out(m, "typedef __attribute__((address_space(3))) void lds_void;");
  out(m, "typedef __attribute__((address_space(1))) void global_void;");
  out(m, "typedef __attribute__((address_space(3))) u16 lds_u16;");
  out(m, "typedef __attribute__((address_space(3))) u32 lds_u32;");
  out(m, "typedef __attribute__((address_space(3))) u32x2 lds_u32x2;");
  out(m, "typedef __attribute__((address_space(3))) u32x4 lds_u32x4;");
  out(m, "typedef __attribute__((address_space(3))) i16x4 lds_i16x4;");
  out(m, "typedef int i32x2 __attribute__((ext_vector_type(2)));");
  out(m, "typedef __attribute__((address_space(3))) i32x2 lds_i32x2;");
  const atom_types *t = atom_types_of(p->atom);
  for (int o = 0; o < 2; o++) {
    const fsim_gemm_operand *op = &p->op[o];
    if (op->lread->bytes == 2)
      out(m, "typedef u16 frag_%c __attribute__((ext_vector_type(%d))); // %c fragment", "ab"[o], 2 * op->frag_regs,
          "AB"[o]);
    else
      out(m, "typedef u32 frag_%c __attribute__((ext_vector_type(%d))); // %c fragment (%s)", "ab"[o], op->frag_regs,
          "AB"[o], t->ab);
  }
  out(m, "typedef %s acc_t; // accumulator of one atom", t->acc);
  int run_bytes = 4 * p->c_bits / 8;
  out(m, "typedef %s crun; // 4 consecutive rows of C in %s", run_bytes == 8 ? "u32x2" : "u32x4", fsim_dtype_name(p->s.c_type));
  /* the alignment the C staging buffer guarantees */
  int align_run = run_bytes, align_chunk = 16;
  if (p->s.c_path == FSIM_EPI_LDS) {
    for (int w = 0; w < p->waves; w++)
      for (int l = 0; l < p->wave_size; l++) {
        for (int i = 0; i < p->rm; i++)
          for (int j = 0; j < p->rn; j++)
            for (int r = 0; r < m->runs; r++)
              while (fsim_gemm_lane_c_lds(p, i, j, r, p->c_pitch, w, l) % align_run) align_run /= 2;
        for (int ck = 0; ck < m->chunks; ck++)
          while (fsim_gemm_lane_c_chunk(p, ck, p->c_pitch, 0, 0, w, l) % align_chunk) align_chunk /= 2;
      }
  }
  out(m, "typedef crun crun_al __attribute__((aligned(%d)));", align_run);
  out(m, "typedef __attribute__((address_space(3))) crun_al lds_crun; // C buffer writes (%d-byte aligned)", align_run);
  out(m, "typedef u32x4 chunk_al __attribute__((aligned(%d)));", align_chunk);
  out(m, "typedef __attribute__((address_space(3))) chunk_al lds_chunk; // C buffer reads (%d-byte aligned)", align_chunk);
  blank(m);
  out(m, "#define FSIM_OOB 0x80000000u // a buffer offset past every record: loads give 0, stores are dropped");
  out(m, "__device__ static inline __amdgpu_buffer_rsrc_t fsim_rsrc(const void *base, long long bytes) {");
  out(m, "  // raw buffer, stride 0; word 3 as CK sets it for %s", m->gfx12 ? "gfx11/gfx12" : "gfx9");
  out(m, "  return __builtin_amdgcn_make_buffer_rsrc((void *)base, (short)0, (int)bytes, %s);",
      m->gfx12 ? "0x31004000" : "0x00020000");
  out(m, "}");
  if (p->c_bits == 32) {
    out(m, "__device__ static inline crun fsim_cvt_run(acc_t a, int r) {");
    /* each element read into a scalar first: clang 22 bit-casts an element of a vector
     * (__builtin_bit_cast(u32, a[i])) as element 0, so every run stored its first value 4 times */
    out(m, "  return (crun){__builtin_bit_cast(u32, (float)a[4 * r]), __builtin_bit_cast(u32, (float)a[4 * r + 1]),");
    out(m, "                __builtin_bit_cast(u32, (float)a[4 * r + 2]), __builtin_bit_cast(u32, (float)a[4 * r + 3])};");
    out(m, "}");
  } else {
    const char *pt = p->s.c_type == FSIM_DT_BF16 ? "bf16x2" : "f16x2", *et = p->s.c_type == FSIM_DT_BF16 ? "__bf16" : "_Float16";
    out(m, "__device__ static inline u32 fsim_pack2(float a, float b) { return __builtin_bit_cast(u32, (%s){(%s)a, (%s)b}); }",
        pt, et, et);
    out(m, "__device__ static inline crun fsim_cvt_run(acc_t a, int r) {");
    out(m, "  return (crun){fsim_pack2(a[4 * r], a[4 * r + 1]), fsim_pack2(a[4 * r + 2], a[4 * r + 3])};");
    out(m, "}");
  }
  if (m->atomic) {
    if (p->c_bits == 32) {
      out(m, "__device__ static inline void fsim_atomic_add_f32(char *at, float v) {");
      out(m, "  __hip_atomic_fetch_add((float *)at, v, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT);");
      out(m, "}");
    } else {
      const char *bt = p->s.c_type == FSIM_DT_BF16 ? "bf16" : "f16";
      out(m, "// split-K: packed atomic adds of two %s values (global_atomic_pk_add_%s)", bt, bt);
      out(m, "__device__ static inline void fsim_atomic_add_pk(char *at, u32 v) {");
      out(m, "  __builtin_amdgcn_global_atomic_fadd_v2%s((__attribute__((address_space(1))) %sx2 *)at, __builtin_bit_cast(%sx2, v));",
          bt, bt, bt);
      out(m, "}");
      out(m, "// one element: the other half of its 32-bit word gets +0");
      out(m, "__device__ static inline void fsim_atomic_add_elem(char *c_group, long long e, u32 bits) {");
      out(m, "  fsim_atomic_add_pk(c_group + (e & ~1LL) * 2, (e & 1) ? bits << 16 : bits);");
      out(m, "}");
    }
  }
  blank(m);
}

static void emit_bases(em *m, const char *ind) {
  for (int k = 0; k < N_KINDS; k++) {
    const basis *b = m->b[k];
    if (b == NULL || !b->used) continue;
    out(m, "%s// %s: %d per-lane base(s) for %d accesses (%s)", ind, kinds[k].name, b->nb, b->nacc, kinds[k].fn);
    for (int j = 0; j < b->nb; j++) {
      if (kinds[k].by_wave) {
        if (kinds[k].nargs == 3)
          out(m, "%sconst int %s%d = %s(wave, lane, %d, %d, %d);", ind, kinds[k].var, j, kinds[k].fn, b->rep[j][0],
              b->rep[j][1], b->rep[j][2]);
      } else {
        out(m, "%sconst int %s%d = %s(tid, %d);", ind, kinds[k].var, j, kinds[k].fn, b->rep[j][0]);
      }
    }
  }
}

/* Per kind, the constants of its accesses (access a adds x_d[a] to its base). */
static void emit_constants(em *m) {
  out(m, "// ---- each access's constant, added to its base (the kernel and the address self-test both read these) ----");
  for (int k = 0; k < N_KINDS; k++) {
    const basis *b = m->b[k];
    if (b == NULL || !b->used) continue;
    out(m, "static constexpr int %s_d[%d] = {", kinds[k].var, b->nacc);
    for (int a = 0; a < b->nacc; a += 16) {
      char line[16 * 13 + 8];
      int len = 0;
      for (int i = a; i < b->nacc && i < a + 16; i++)
        len += snprintf(line + len, sizeof line - (size_t)len, "%s%d,", i > a ? " " : "", b->acc_d[i]);
      out(m, "    %s", line);
    }
    out(m, "};");
  }
  blank(m);
}

static void emit_kernel(em *m, const char *kname, const char *body) {
  const fsim_gemm_plan *p = m->p;
  const fsim_schedule *s = &p->s;
  fsim_occupancy occ;
  fsim_occupancy_of(p->a, p->waves, p->vgprs, p->agprs, p->sgprs, p->lds_bytes, &occ);
  out(m, "// ---- the kernel: grid of %lld workgroups of %d threads ----", (long long)p->workgroups, p->threads);
  out(m, "// waves_per_eu %d: the occupancy the simulation assumed (%d workgroup(s) per CU, limited by %s)",
      occ.waves_per_simd, occ.wgs_per_cu, occ.limit);
  out(m, "extern \"C\" __global__ void __attribute__((amdgpu_flat_work_group_size(%d, %d), amdgpu_waves_per_eu(%d)))",
      p->threads, p->threads, occ.waves_per_simd > 0 ? occ.waves_per_simd : 1);
  out(m, "%s(const void *A, const void *B, void *C) {", kname);
  out(m, "  __shared__ __attribute__((aligned(16))) unsigned char lds_raw[LDS_BYTES];");
  out(m, "  lds_u8 *const lds = (lds_u8 *)lds_raw;");
  out(m, "  const int tid = __builtin_amdgcn_workitem_id_x();");
  out(m, "  const int lane = tid %% WAVE;");
  out(m, "  const int wave = __builtin_amdgcn_readfirstlane(tid / WAVE);");
  out(m, "  // the workgroup's tile (as traces/wprog.c's fsim_wprog_wg_coords maps ids)");
  out(m, "  int wg = __builtin_amdgcn_workgroup_id_x();");
  if (s->xcd_remap && p->workgroups >= 256 && p->workgroups % p->a->device.xcds == 0)
    out(m, "  wg = (wg %% %d) * %lld + wg / %d; // XCD remap: the ids one XCD receives become contiguous",
        p->a->device.xcds, (long long)(p->workgroups / p->a->device.xcds), p->a->device.xcds);
  out(m, "  const int z = wg / (TILES_M * TILES_N), rest = wg %% (TILES_M * TILES_N);");
  if (s->group_m > 0) {
    out(m, "  // GROUP_M = %d: the M tile advances fastest inside groups of %d rows", s->group_m, s->group_m);
    out(m, "  const int in_group = %d * TILES_N, first_m = rest / in_group * %d;", s->group_m, s->group_m);
    out(m, "  const int size_m = TILES_M - first_m < %d ? TILES_M - first_m : %d;", s->group_m, s->group_m);
    out(m, "  const int tile_m = first_m + rest %% in_group %% size_m, tile_n = rest %% in_group / size_m;");
  } else {
    out(m, "  const int tile_n = rest %% TILES_N, tile_m = rest / TILES_N;");
  }
  out(m, "  const int group = z / SPLIT_K, kslice = z %% SPLIT_K;");
  for (int o = 0; o < 2; o++) {
    const fsim_gemm_operand *op = &p->op[o];
    long long step = (long long)op->rows * (op->k_contig ? op->ld : 1) * (op->elem_bits / 8);
    out(m, "  const char *const %c_tile = (const char *)%c + group * %c_BYTES + (long long)tile_%c * %lld;", "ab"[o],
        "AB"[o], "AB"[o], o == 0 ? 'm' : 'n', step);
    out(m, "  const __amdgpu_buffer_rsrc_t rsrc_%c = fsim_rsrc(%c_tile, %c_BYTES + READ_SLACK - (long long)tile_%c * %lld);",
        "ab"[o], "ab"[o], "AB"[o], o == 0 ? 'm' : 'n', step);
  }
  out(m, "  const int a_left = M - tile_m * BM, b_left = N - tile_n * BN; // rows of A and B in this tile");
  out(m, "  const int m_left = a_left, n_left = b_left;");
  out(m, "  char *const c_group = (char *)C + group * C_BYTES;");
  out(m, "  const long long c_first = (long long)tile_n * BN * M + (long long)tile_m * BM; // first element of the tile");
  out(m, "  char *const c_tile = c_group + c_first * CB;");
  out(m, "  const __amdgpu_buffer_rsrc_t rsrc_c = fsim_rsrc(c_tile, C_BYTES - c_first * CB);");
  out(m, "  (void)a_left, (void)b_left, (void)m_left, (void)n_left, (void)lane, (void)rsrc_a, (void)rsrc_b, (void)c_tile;");
  emit_bases(m, "  ");
  out(m, "  acc_t acc[RM][RN];");
  out(m, "  for (int i = 0; i < RM; ++i)");
  out(m, "    for (int j = 0; j < RN; ++j) acc[i][j] = acc_t{};");
  for (int o = 0; o < 2; o++)
    if (p->op[o].lwrite)
      out(m, "  %s s%c[%d]; // %c staged in registers (%s)", vec_type(p->op[o].gcopy->bytes), "ab"[o], p->op[o].copies,
          "AB"[o], p->op[o].gcopy->name);
  out(m, "  crun outv[RM][RN][%d];", m->runs);
  if (s->c_path == FSIM_EPI_LDS) out(m, "  u32x4 chunk[%d];", m->chunks);
  if (m->st == FSIM_OK) {
    fputs(body, m->f);
    for (const char *q = body; *q; q++) m->lines += *q == '\n';
  }
  out(m, "}");
}

/* ---- the address self-test ------------------------------------------------------------------- */

static void emit_selftest(em *m) {
  const fsim_gemm_plan *p = m->p;
  blank(m);
  out(m, "#if defined(FSIM_ADDRESS_SELFTEST)");
  out(m, "// Every per-lane offset the kernel computes, in the kernel's form (a base computed by an index");
  out(m, "// function at start-up, plus the access's constant), for every thread; `flysim verify` compares");
  out(m, "// each one with the plan's lane functions.");
  out(m, "#include <stdio.h>");
  out(m, "struct fsim_access { int kind, a0, a1, a2, r0, r1, r2, d; };");
  out(m, "static const fsim_access fsim_accesses[] = {");
  int n = 0;
  for (int k = 0; k < N_KINDS; k++) {
    const basis *b = m->b[k];
    if (b == NULL || !b->used) continue;
    for (int a = 0; a < b->nacc; a++, n++) {
      const int *r = b->rep[b->acc_base[a]];
      out(m, "    {%d, %d, %d, %d, %d, %d, %d, %s_d[%d]},", k, b->acc_args[a][0], b->acc_args[a][1], b->acc_args[a][2],
          r[0], r[1], r[2], kinds[k].var, a);
    }
  }
  if (n == 0) out(m, "    {-1, 0, 0, 0, 0, 0, 0, 0},");
  out(m, "};");
  out(m, "static const char *const fsim_kind_names[] = {");
  for (int k = 0; k < N_KINDS; k++) out(m, "    \"%s\",", kinds[k].name);
  out(m, "};");
  out(m, "static int fsim_eval(const fsim_access *x, int t) {");
  out(m, "  const int w = t / WAVE, l = t %% WAVE;");
  out(m, "  (void)w, (void)l;");
  out(m, "  switch (x->kind) {");
  for (int k = 0; k < N_KINDS; k++) {
    if (m->b[k] == NULL || !m->b[k]->used) continue;
    if (kinds[k].by_wave)
      out(m, "  case %d: return %s(w, l, x->r0, x->r1, x->r2) + x->d;", k, kinds[k].fn);
    else
      out(m, "  case %d: return %s(t, x->r0) + x->d;", k, kinds[k].fn);
  }
  out(m, "  default: return 0;");
  out(m, "  }");
  out(m, "}");
  out(m, "int main(void) {");
  out(m, "  printf(\"fsim-selftest threads %%d accesses %%d\\n\", THREADS, %d);", n);
  out(m, "  for (unsigned i = 0; i < sizeof fsim_accesses / sizeof fsim_accesses[0]; i++) {");
  out(m, "    const fsim_access *x = &fsim_accesses[i];");
  out(m, "    if (x->kind < 0) continue;");
  out(m, "    printf(\"%%s %%d %%d %%d\", fsim_kind_names[x->kind], x->a0, x->a1, x->a2);");
  out(m, "    for (int t = 0; t < THREADS; t++) printf(\" %%d\", fsim_eval(x, t));");
  out(m, "    printf(\"\\n\");");
  out(m, "  }");
  out(m, "  return 0;");
  out(m, "}");
  out(m, "#endif // FSIM_ADDRESS_SELFTEST");
  (void)p;
}

/* ---- the file -------------------------------------------------------------------------------- */

fsim_status fsim_emit_hip(const fsim_gemm_plan *p, const fsim_emit_opts *o, FILE *f, fsim_emit_info *info,
                          fsim_err *e) {
  char why[300];
  if (info) memset(info, 0, sizeof *info);
  if (!fsim_emit_supported(p, why, sizeof why)) return FSIM_ERR(e, FSIM_EFAIL, "cannot emit this plan: %s", why);
  em *m = calloc(1, sizeof *m);
  if (m == NULL) return FSIM_ERR(e, FSIM_ENOMEM, "out of memory");
  m->p = p;
  m->e = e;
  m->gfx12 = p->a->device.isa == FSIM_ISA_RDNA4;
  m->pingpong = p->s.kind == FSIM_PIPE_PINGPONG;
  m->nbuf = m->pingpong ? p->ki : 2;
  m->masked_op[0] = needs_mask(p, 0);
  m->masked_op[1] = needs_mask(p, 1);
  m->edge_c = c_edges(p);
  m->atomic = p->s.split_k > 1;
  m->pairs = p->c_bits == 16 && p->s.m % 2 == 0;
  m->runs = fsim_mma_atom_values(p->atom, 'C') / 4;
  m->chunks = (int)((int64_t)p->s.bm * p->s.bn * p->c_bits / 8 / (16 * p->threads));
  if (m->chunks < 1) m->chunks = 1;
  m->whole_runs = m->edge_c && !m->atomic && fsim_gemm_c_stores_whole(p);
  char kname[96];
  kernel_name(p, kname, sizeof kname);
  fsim_status st = fsim_gemm_wave_program(p, &m->wp, e);
  if (st != FSIM_OK) {
    free(m);
    return st;
  }
  /* the body first (it finds the accesses and their bases), into memory */
  char *body = NULL;
  size_t blen = 0;
  m->f = open_memstream(&body, &blen);
  if (m->f == NULL) {
    fsim_wprog_free(&m->wp);
    free(m);
    return FSIM_ERR(e, FSIM_ENOMEM, "out of memory");
  }
  emit_body(m);
  fclose(m->f);
  m->lines = 0; /* the body's lines are counted again when it is copied into the file */
  m->f = f;
  if (m->st == FSIM_OK) {
    emit_header(m, o, kname);
    emit_prelude(m);
    emit_constants(m); /* outside the device code: the host self-test reads them too */
    emit_types(m);
    emit_kernel(m, kname, body ? body : "");
    m->lines += fsim__emit_host(m->f, p, kname);
    out(m, "#endif // __HIP__");
    emit_selftest(m);
  }
  free(body);
  if (m->st == FSIM_OK && ferror(f)) m->st = FSIM_ERR(e, FSIM_EIO, "writing the HIP file failed");
  if (info && m->st == FSIM_OK) {
    snprintf(info->kernel, sizeof info->kernel, "%s", kname);
    info->lines = m->lines;
    for (int x = 0; x < 2; x++) {
      info->read_bases[x] = m->b[x == 0 ? K_READ_A : K_READ_B] ? m->b[x == 0 ? K_READ_A : K_READ_B]->nb : 0;
      info->copy_bases[x] = m->b[x == 0 ? K_COPYG_A : K_COPYG_B] ? m->b[x == 0 ? K_COPYG_A : K_COPYG_B]->nb : 0;
    }
    info->masked_loads = m->masked_op[0] || m->masked_op[1];
    info->masked_stores = m->edge_c;
    info->atomic_epilogue = m->atomic;
    info->sched_groups = m->sched_groups;
  }
  st = m->st;
  free_bases(m);
  fsim_wprog_free(&m->wp);
  free(m);
  return st;
}

fsim_status fsim_emit_hip_file(const fsim_gemm_plan *p, const fsim_emit_opts *o, const char *path,
                               fsim_emit_info *info, fsim_err *e) {
  fsim_file_out out;
  fsim_status st = fsim_file_out_open(&out, path, e);
  if (st != FSIM_OK) return st;
  st = fsim_emit_hip(p, o, out.f, info, e);
  if (st == FSIM_OK || ferror(out.f)) st = fsim_file_out_commit(&out, e); /* a write failed: it says why */
  else fsim_file_out_abort(&out);
  return st;
}

int fsim_emit_check_selftest(const fsim_gemm_plan *p, const char *output, int *checked, char *why, size_t n) {
  *checked = 0;
  const char *s = output;
  int threads = 0, naccess = 0;
  if (sscanf(s, "fsim-selftest threads %d accesses %d", &threads, &naccess) != 2) {
    snprintf(why, n, "the self-test printed no 'fsim-selftest' header");
    return 0;
  }
  if (threads != p->threads) {
    snprintf(why, n, "the self-test has %d threads, the plan %d", threads, p->threads);
    return 0;
  }
  s = strchr(s, '\n');
  int lines = 0;
  while (s && *++s) {
    char name[32];
    int args[3], used = 0;
    if (sscanf(s, "%31s %d %d %d%n", name, &args[0], &args[1], &args[2], &used) != 4) break;
    int k = -1;
    for (int i = 0; i < N_KINDS; i++)
      if (strcmp(kinds[i].name, name) == 0) k = i;
    if (k < 0) {
      snprintf(why, n, "the self-test printed an unknown kind '%s'", name);
      return 0;
    }
    const char *q = s + used;
    for (int t = 0; t < threads; t++) {
      char *end;
      long v = strtol(q, &end, 10);
      if (end == q) {
        snprintf(why, n, "%s (%d, %d, %d): %d values, %d expected", name, args[0], args[1], args[2], t, threads);
        return 0;
      }
      q = end;
      int64_t want = plan_value(p, k, args, t);
      if (v != want) {
        snprintf(why, n, "%s (%d, %d, %d) wave %d lane %d: the kernel computes %ld, the plan says %lld", name, args[0],
                 args[1], args[2], t / p->wave_size, t % p->wave_size, v, (long long)want);
        return 0;
      }
      (*checked)++;
    }
    lines++;
    s = strchr(s, '\n');
  }
  if (lines != naccess) {
    snprintf(why, n, "the self-test printed %d accesses of the %d it announced", lines, naccess);
    return 0;
  }
  why[0] = '\0';
  return 1;
}
