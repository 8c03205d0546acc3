/* Tests of kernels/atom: every MMA atom's thread-value layouts are bijections onto their
 * tiles; several atoms agree lane by lane with AMD's documented operand layouts, written out
 * here as independent formulas (not derived from the layout strings in atom.c); lookups by
 * name, short name and shape; the copy atoms' widths, ISAs and transposes; and the atom
 * table agrees with the [mfma.*] tables of the arch files in both directions.
 *
 * Layout sources (see /docs/atoms.md and the research notes they came from):
 *   CALC  ROCm/amd_matrix_instruction_calculator (CDNA3 and RDNA4 formulas)
 *   ISA4  AMD CDNA4 ISA guide, 7.2.1 (scaled MFMA: scale lanes, FP4 K order)
 *   IREE  iree-org/iree IREEGPUAttrs.cpp getSingleSubgroupLayout (gfx950 16x16x32 / 32x32x16)
 *   BLOG  ROCm blog "matrix-cores-cdna" (FP8 K order of the 32x32x64 scaled MFMA) */
#include "config.h"

#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/atom.h"
#include "kernels/layout.h"
#include "model/arch.h"
#include "tests/testutil.h"

static const fsim_mma_atom *find(const char *name) {
  const fsim_mma_atom *t = fsim_mma_atom_find(name);
  ck_assert_msg(t != NULL, "no atom %s", name);
  return t;
}

static fsim_layout tv(const fsim_mma_atom *t, char which) {
  fsim_layout l;
  fsim_err e;
  fsim_err_clear(&e);
  fsim_status st = fsim_mma_atom_layout(t, which, &l, &e);
  ck_assert_msg(st == FSIM_OK, "%s %c: %s", t->name, which, e.msg);
  return l;
}

/* Rows and columns of an operand's tile: A M x K, B N x K, C M x N, S (scales) MN x K/32. */
static void tile_of(const fsim_mma_atom *t, char which, int *rows, int *cols) {
  switch (which) {
  case 'A': *rows = t->m, *cols = t->k; break;
  case 'B': *rows = t->n, *cols = t->k; break;
  case 'C': *rows = t->m, *cols = t->n; break;
  default: *rows = t->m, *cols = t->k / 32; break; /* one E8M0 scale per 32 K values */
  }
}

static void load_arch(fsim_arch *a, const char *name) {
  fsim_err e;
  fsim_err_clear(&e);
  ck_assert_msg(fsim_arch_load(a, name, &e) == FSIM_OK, "%s: %s", name, e.msg);
}

/* ---- 1. every layout is a bijection onto its tile ------------------------------------------ */

START_TEST(test_layouts_are_bijections) {
  int n;
  const fsim_mma_atom *all = fsim_mma_atoms(&n);
  ck_assert_int_eq(n, 19); /* 10 plain MFMA + 7 scaled (3 types x 2 shapes, and fp8 x fp4 on 16x16x128) + 2 WMMA */
  int scaled = 0;
  for (int i = 0; i < n; i++) {
    const fsim_mma_atom *t = &all[i];
    ck_assert_msg(t->wave_size == ((t->isas & FSIM_RDNA4) ? 32 : 64), "%s: wave size %d", t->name, t->wave_size);
    ck_assert_msg(strncmp(t->builtin, "__builtin_amdgcn_", 17) == 0, "%s: builtin %s", t->name, t->builtin);
    ck_assert_msg(t->source != NULL && t->source[0] != '\0', "%s has no source", t->name);
    ck_assert_msg(t->c_type == FSIM_DT_F32, "%s accumulates in f32", t->name);
    /* The scale operand exists exactly for the scaled atoms. */
    ck_assert_int_eq(t->scaled, t->scale_tv != NULL);
    ck_assert_int_eq(t->scaled, strncmp(t->name, "v_mfma_scale_", 13) == 0);
    scaled += t->scaled;
    const char *ops = t->scaled ? "ABCS" : "ABC";
    for (const char *w = ops; *w; w++) {
      fsim_layout l = tv(t, *w);
      int rows, cols, vals = fsim_mma_atom_values(t, *w);
      tile_of(t, *w, &rows, &cols);
      ck_assert_msg(vals * t->wave_size == rows * cols, "%s %c: %d values x %d lanes for a %dx%d tile", t->name, *w,
                    vals, t->wave_size, rows, cols);
      ck_assert_msg(fsim_layout_size(&l) == (int64_t)t->wave_size * vals, "%s %c: size %lld", t->name, *w,
                    (long long)fsim_layout_size(&l));
      /* (lane, value): two top-level modes of wave_size lanes and vals values (scales: one
       * value per lane, "((16,4),1):((1,16),0)") */
      ck_assert_int_eq(fsim_layout_rank(&l), 2);
      fsim_layout m0, m1;
      ck_assert_int_eq(fsim_layout_get(&m0, &l, 0, NULL), FSIM_OK);
      ck_assert_int_eq(fsim_layout_get(&m1, &l, 1, NULL), FSIM_OK);
      ck_assert_int_eq(fsim_layout_size(&m0), t->wave_size);
      ck_assert_int_eq(fsim_layout_size(&m1), vals);
      ck_assert_int_eq(fsim_layout_cosize(&l), rows * cols);
      unsigned char *hit = calloc((size_t)(rows * cols), 1);
      for (int lane = 0; lane < t->wave_size; lane++)
        for (int v = 0; v < vals; v++) {
          int r, c;
          fsim_mma_atom_coord(&l, rows, lane, v, &r, &c);
          ck_assert_msg(r >= 0 && r < rows && c >= 0 && c < cols, "%s %c: lane %d value %d -> (%d,%d) outside %dx%d",
                        t->name, *w, lane, v, r, c, rows, cols);
          ck_assert_msg(hit[r + rows * c]++ == 0, "%s %c: (%d,%d) held twice (lane %d value %d)", t->name, *w, r, c,
                        lane, v);
          /* the flat index lane + wave_size * value gives the same element */
          ck_assert_int_eq(fsim_layout_eval(&l, lane + (int64_t)t->wave_size * v), r + (int64_t)rows * c);
        }
      for (int x = 0; x < rows * cols; x++) ck_assert_msg(hit[x] == 1, "%s %c: element %d not held", t->name, *w, x);
      free(hit);
    }
    /* no S operand on plain atoms, nor a fifth operand anywhere */
    fsim_layout l;
    fsim_err e;
    if (!t->scaled) {
      ck_assert_int_eq(fsim_mma_atom_layout(t, 'S', &l, &e), FSIM_EINVAL);
      ck_assert_int_eq(fsim_mma_atom_values(t, 'S'), 0);
    }
    ck_assert_int_eq(fsim_mma_atom_layout(t, 'D', &l, &e), FSIM_EINVAL);
    /* names are unique */
    for (int j = 0; j < i; j++) ck_assert_str_ne(all[j].name, t->name);
  }
  ck_assert_int_eq(scaled, 7);
  fsim_err e;
  fsim_layout l;
  fsim_err_clear(&e);
  ck_assert_int_eq(fsim_mma_atom_layout(find("v_mfma_f32_16x16x32_bf16"), 'S', &l, &e), FSIM_EINVAL);
  ck_assert_str_eq(e.msg, "v_mfma_f32_16x16x32_bf16 has no 'S' operand");
}
END_TEST

/* ---- 2. lane by lane against AMD's documented layouts ------------------------------------- */

/* A formula: (lane, value) -> (row, column) of an operand, as documented. */
typedef void (*layout_fn)(int l, int v, int *row, int *col);

/* CDNA3 v_mfma_f32_16x16x16_{f16,bf16} (CALC): A[i][k] i = l%16, k = 4*(l/16)+v (B the same with
 * j for i); C[i][j] i = 4*(l/16)+v, j = l%16.  Every 16x16 f32 accumulator on CDNA has this C. */
static void ab_16x16x16(int l, int v, int *r, int *c) { *r = l % 16, *c = 4 * (l / 16) + v; }
static void c_16x16(int l, int v, int *r, int *c) { *r = 4 * (l / 16) + v, *c = l % 16; }
/* CDNA3 v_mfma_f32_32x32x8_{f16,bf16} (CALC): A i = l%32, k = 4*(l/32)+v;
 * C i = 8*(v/4) + 4*(l/32) + v%4, j = l%32 (16 values). */
static void ab_32x32x8(int l, int v, int *r, int *c) { *r = l % 32, *c = 4 * (l / 32) + v; }
static void c_32x32(int l, int v, int *r, int *c) { *r = 8 * (v / 4) + 4 * (l / 32) + v % 4, *c = l % 32; }
/* gfx950 v_mfma_f32_16x16x32_{bf16,f16} and CDNA3 v_mfma_f32_16x16x32_fp8_fp8 (IREE, CK; CALC for
 * fp8): i = l%16, k = 8*(l/16)+v. */
static void ab_16x16x32(int l, int v, int *r, int *c) { *r = l % 16, *c = 8 * (l / 16) + v; }
/* gfx950 v_mfma_f32_32x32x16_{bf16,f16} and v_mfma_f32_32x32x16_fp8_fp8: i = l%32, k = 8*(l/32)+v. */
static void ab_32x32x16(int l, int v, int *r, int *c) { *r = l % 32, *c = 8 * (l / 32) + v; }
/* gfx12 v_wmma_f32_16x16x16_{f16,bf16}, wave32 (CALC rdna4): A i = l%16,
 * k = 8*(v/4) + 4*(l/16) + v%4; C i = 8*(l/16)+v, j = l%16. */
static void ab_wmma(int l, int v, int *r, int *c) { *r = l % 16, *c = 8 * (v / 4) + 4 * (l / 16) + v % 4; }
static void c_wmma(int l, int v, int *r, int *c) { *r = 8 * (l / 16) + v, *c = l % 16; }
/* gfx950 v_mfma_scale_f32_16x16x128_f8f6f4 with FP4 (ISA4 7.2.1: "K=0..31 in lanes 0..15, K=32..63 in
 * lanes 16..31 ..."): i = l%16, k = 32*(l/16)+v.  The scales (ISA4 table: "Lane 0 M=0 K=0..31; Lane 16
 * M=0 K=32..63; Lane 32 M=0 K=64..95; Lane 63 M=15 K=96..127"): lane l scales row l%16, K block l/16. */
static void ab_16x16x128_f4(int l, int v, int *r, int *c) { *r = l % 16, *c = 32 * (l / 16) + v; }
static void s_16x16x128(int l, int v, int *r, int *c) { (void)v, *r = l % 16, *c = l / 16; }
/* v_mfma_scale_f32_32x32x64_f8f6f4: FP4 i = l%32, k = 32*(l/32)+v; FP8 (BLOG:
 * a_reg[i*16+j] = A[l%32][(l/32)*16 + 32*i + j]) k = 32*(v/16) + 16*(l/32) + v%16; scales
 * (ISA4: "Lane 16 M=16 K=0..31; Lane 32 M=0 K=32..63"): row l%32, K block l/32. */
static void ab_32x32x64_f4(int l, int v, int *r, int *c) { *r = l % 32, *c = 32 * (l / 32) + v; }
static void ab_32x32x64_f8(int l, int v, int *r, int *c) { *r = l % 32, *c = 32 * (v / 16) + 16 * (l / 32) + v % 16; }
static void s_32x32x64(int l, int v, int *r, int *c) { (void)v, *r = l % 32, *c = l / 32; }

static void check_formula(const char *name, char which, layout_fn f) {
  const fsim_mma_atom *t = find(name);
  fsim_layout l = tv(t, which);
  int rows, cols;
  tile_of(t, which, &rows, &cols);
  for (int lane = 0; lane < t->wave_size; lane++)
    for (int v = 0; v < fsim_mma_atom_values(t, which); v++) {
      int r, c, wr, wc;
      fsim_mma_atom_coord(&l, rows, lane, v, &r, &c);
      f(lane, v, &wr, &wc);
      ck_assert_msg(r == wr && c == wc, "%s %c: lane %d value %d holds (%d,%d), documented (%d,%d)", name, which, lane,
                    v, r, c, wr, wc);
    }
}

/* One literal (lane, value) -> (row, column), worked out by hand from the documents. */
static void check_sample(const char *name, char which, int lane, int v, int row, int col) {
  const fsim_mma_atom *t = find(name);
  fsim_layout l = tv(t, which);
  int rows, cols, r, c;
  tile_of(t, which, &rows, &cols);
  fsim_mma_atom_coord(&l, rows, lane, v, &r, &c);
  ck_assert_msg(r == row && c == col, "%s %c: lane %d value %d holds (%d,%d), want (%d,%d)", name, which, lane, v, r,
                c, row, col);
}

START_TEST(test_documented_layouts) {
  static const struct {
    const char *name;
    layout_fn ab, c;
  } plain[] = {
      {"v_mfma_f32_16x16x16_f16", ab_16x16x16, c_16x16},
      {"v_mfma_f32_16x16x16_bf16", ab_16x16x16, c_16x16},
      {"v_mfma_f32_32x32x8_f16", ab_32x32x8, c_32x32},
      {"v_mfma_f32_32x32x8_bf16", ab_32x32x8, c_32x32},
      {"v_mfma_f32_16x16x32_bf16", ab_16x16x32, c_16x16},
      {"v_mfma_f32_16x16x32_f16", ab_16x16x32, c_16x16},
      {"v_mfma_f32_32x32x16_bf16", ab_32x32x16, c_32x32},
      {"v_mfma_f32_16x16x32_fp8_fp8", ab_16x16x32, c_16x16},
      {"v_mfma_f32_32x32x16_fp8_fp8", ab_32x32x16, c_32x32},
      {"v_wmma_f32_16x16x16_f16", ab_wmma, c_wmma},
      {"v_wmma_f32_16x16x16_bf16", ab_wmma, c_wmma},
      {"v_mfma_scale_f32_16x16x128_f8f6f4.fp4", ab_16x16x128_f4, c_16x16},
      {"v_mfma_scale_f32_32x32x64_f8f6f4.fp4", ab_32x32x64_f4, c_32x32},
      {"v_mfma_scale_f32_32x32x64_f8f6f4.fp8", ab_32x32x64_f8, c_32x32},
  };
  for (size_t i = 0; i < sizeof plain / sizeof plain[0]; i++) {
    check_formula(plain[i].name, 'A', plain[i].ab);
    check_formula(plain[i].name, 'B', plain[i].ab);
    check_formula(plain[i].name, 'C', plain[i].c);
  }
  check_formula("v_mfma_scale_f32_16x16x128_f8f6f4.fp4", 'S', s_16x16x128);
  check_formula("v_mfma_scale_f32_16x16x128_f8f6f4.fp8", 'S', s_16x16x128);
  check_formula("v_mfma_scale_f32_16x16x128_f8f6f4.fp6", 'S', s_16x16x128);
  check_formula("v_mfma_scale_f32_32x32x64_f8f6f4.fp4", 'S', s_32x32x64);
  check_formula("v_mfma_scale_f32_32x32x64_f8f6f4.fp8", 'S', s_32x32x64);

  /* Literal samples.  16x16x16 f16: lane 37 is row 37%16 = 5 of lane group 2, so its values
   * are k = 8..11; value 2 is k = 10.  Its accumulator value 2 is row 4*2+2 = 10, column 5. */
  check_sample("v_mfma_f32_16x16x16_f16", 'A', 37, 2, 5, 10);
  check_sample("v_mfma_f32_16x16x16_f16", 'B', 63, 3, 15, 15);
  check_sample("v_mfma_f32_16x16x16_f16", 'C', 37, 2, 10, 5);
  check_sample("v_mfma_f32_16x16x16_f16", 'C', 0, 0, 0, 0);
  /* 32x32x8 f16: lane 45 = row 13 of the upper half, k = 4..7; accumulator value 13 is in
   * block 13/4 = 3 (rows 24..31), upper half (+4), row 1 of the group: row 29, column 13. */
  check_sample("v_mfma_f32_32x32x8_f16", 'A', 45, 3, 13, 7);
  check_sample("v_mfma_f32_32x32x8_f16", 'C', 45, 13, 29, 13);
  check_sample("v_mfma_f32_32x32x8_f16", 'C', 31, 15, 27, 31);
  /* gfx950 16x16x32 bf16: lane 17 holds row 1, k = 8..15; value 5 is k = 13.  Lane 48: k = 24..31. */
  check_sample("v_mfma_f32_16x16x32_bf16", 'A', 17, 5, 1, 13);
  check_sample("v_mfma_f32_16x16x32_bf16", 'A', 48, 7, 0, 31);
  /* gfx12 WMMA: lane 20 is row 4 of the upper lane half; value 5 = VGPR 2 (v/4 = 1: k += 8),
   * lane half 1 (k += 4), v%4 = 1: k = 13.  The accumulator: value 5 of lane 20 is row 8+5. */
  check_sample("v_wmma_f32_16x16x16_f16", 'A', 20, 5, 4, 13);
  check_sample("v_wmma_f32_16x16x16_f16", 'A', 0, 4, 0, 8);
  check_sample("v_wmma_f32_16x16x16_f16", 'C', 20, 5, 13, 4);
  /* Scales of the 16x16x128 MFMA, the ISA's table verbatim: lane 0 M=0 K-block 0, lane 16 M=0
   * block 1 (K 32..63), lane 32 M=0 block 2 (K 64..95), lane 63 M=15 block 3 (K 96..127). */
  check_sample("v_mfma_scale_f32_16x16x128_f8f6f4.fp4", 'S', 0, 0, 0, 0);
  check_sample("v_mfma_scale_f32_16x16x128_f8f6f4.fp4", 'S', 16, 0, 0, 1);
  check_sample("v_mfma_scale_f32_16x16x128_f8f6f4.fp4", 'S', 32, 0, 0, 2);
  check_sample("v_mfma_scale_f32_16x16x128_f8f6f4.fp4", 'S', 63, 0, 15, 3);
  /* 32x32x64: lane 16 M=16 block 0, lane 32 M=0 block 1, lane 63 M=31 block 1. */
  check_sample("v_mfma_scale_f32_32x32x64_f8f6f4.fp8", 'S', 16, 0, 16, 0);
  check_sample("v_mfma_scale_f32_32x32x64_f8f6f4.fp8", 'S', 32, 0, 0, 1);
  check_sample("v_mfma_scale_f32_32x32x64_f8f6f4.fp8", 'S', 63, 0, 31, 1);
  /* The FP4 values of lane 16 are K 32..63, the ones its scale covers; with FP8 (BLOG) lane 32
   * holds bytes K 16..31 and 48..63, both in scale block 0 or 1 that lanes 0 and 32 scale. */
  check_sample("v_mfma_scale_f32_16x16x128_f8f6f4.fp4", 'A', 16, 0, 0, 32);
  check_sample("v_mfma_scale_f32_16x16x128_f8f6f4.fp4", 'A', 16, 31, 0, 63);
  check_sample("v_mfma_scale_f32_32x32x64_f8f6f4.fp8", 'A', 32, 0, 0, 16);
  check_sample("v_mfma_scale_f32_32x32x64_f8f6f4.fp8", 'A', 32, 16, 0, 48);
}
END_TEST

/* Every value of a scaled operand is scaled by the scale of its row and K block, and that scale
 * sits in the lane the ISA table names: each row's 32-value block must be covered by the scale
 * lane (row, block).  This ties A/B to S without assuming a K order inside a block. */
START_TEST(test_scale_blocks_cover_values) {
  int n;
  const fsim_mma_atom *all = fsim_mma_atoms(&n);
  for (int i = 0; i < n; i++) {
    const fsim_mma_atom *t = &all[i];
    if (!t->scaled) continue;
    fsim_layout a = tv(t, 'A'), s = tv(t, 'S');
    /* scale lane for each (row, block) */
    int lane_of[32][4];
    memset(lane_of, 0xff, sizeof lane_of);
    for (int l = 0; l < t->wave_size; l++) {
      int r, b;
      fsim_mma_atom_coord(&s, t->m, l, 0, &r, &b);
      lane_of[r][b] = l;
    }
    for (int r = 0; r < t->m; r++)
      for (int b = 0; b < t->k / 32; b++) ck_assert_int_ge(lane_of[r][b], 0);
    /* The FP4/FP6 layouts put a whole 32-value block in one lane, the scale's own lane. */
    if (t->a_type != FSIM_DT_FP8)
      for (int l = 0; l < t->wave_size; l++)
        for (int v = 0; v < fsim_mma_atom_values(t, 'A'); v++) {
          int r, k;
          fsim_mma_atom_coord(&a, t->m, l, v, &r, &k);
          ck_assert_msg(lane_of[r][k / 32] == l, "%s: lane %d value %d (row %d, k %d) is scaled by lane %d", t->name, l,
                        v, r, k, lane_of[r][k / 32]);
        }
  }
}
END_TEST

/* ---- 3. lookups ----------------------------------------------------------------------------- */

START_TEST(test_lookups) {
  int n;
  const fsim_mma_atom *all = fsim_mma_atoms(&n);
  for (int i = 0; i < n; i++) ck_assert_ptr_eq(fsim_mma_atom_find(all[i].name), &all[i]);
  /* short names: the tail after an underscore */
  ck_assert_str_eq(find("16x16x32_bf16")->name, "v_mfma_f32_16x16x32_bf16");
  ck_assert_str_eq(find("32x32x8_f16")->name, "v_mfma_f32_32x32x8_f16");
  ck_assert_str_eq(find("32x32x16_fp8_fp8")->name, "v_mfma_f32_32x32x16_fp8_fp8");
  ck_assert_str_eq(find("16x16x128_f8f6f4.fp4")->name, "v_mfma_scale_f32_16x16x128_f8f6f4.fp4");
  ck_assert_str_eq(find("32x32x64_f8f6f4.fp8")->name, "v_mfma_scale_f32_32x32x64_f8f6f4.fp8");
  /* "16x16x16_f16" is the tail of both the CDNA MFMA and the RDNA4 WMMA: table order gives the
   * MFMA, so RDNA4 schedules must spell the WMMA out. */
  ck_assert_str_eq(find("16x16x16_f16")->name, "v_mfma_f32_16x16x16_f16");
  /* a short name resolves to the ISA's atom when asked with one */
  ck_assert_str_eq(fsim_mma_atom_find_on("16x16x16_f16", FSIM_RDNA4)->name, "v_wmma_f32_16x16x16_f16");
  ck_assert_ptr_null(fsim_mma_atom_find("bf16")); /* not a short name: no shape */
  ck_assert_ptr_null(fsim_mma_atom_find("f32_32x32x16_fp8_fp8"));
  static const char *unknown[] = {"v_mfma_nope", "", "x32_bf16", "16x16x32_bf16x", "v_mfma_f32_16x16x32_bf16 ",
                                  "v_mfma_f32_16x16x64_bf16", "v_mfma_scale_f32_16x16x128_f8f6f4",
                                  "16x16x128_f8f6f4.fp5"};
  for (size_t i = 0; i < sizeof unknown / sizeof unknown[0]; i++)
    ck_assert_msg(fsim_mma_atom_find(unknown[i]) == NULL, "'%s' found", unknown[i]);

  /* by shape: gfx950's double-rate bf16 MFMA exists only on CDNA4 */
  const fsim_mma_atom *t = fsim_mma_atom_for(FSIM_CDNA4, 16, 16, 32, FSIM_DT_BF16, FSIM_DT_BF16);
  ck_assert_ptr_nonnull(t);
  ck_assert_str_eq(t->name, "v_mfma_f32_16x16x32_bf16");
  ck_assert_ptr_null(fsim_mma_atom_for(FSIM_CDNA3, 16, 16, 32, FSIM_DT_BF16, FSIM_DT_BF16));
  ck_assert_ptr_null(fsim_mma_atom_for(FSIM_RDNA4, 16, 16, 32, FSIM_DT_BF16, FSIM_DT_BF16));
  ck_assert_str_eq(fsim_mma_atom_for(FSIM_CDNA3, 16, 16, 16, FSIM_DT_BF16, FSIM_DT_BF16)->name,
                   "v_mfma_f32_16x16x16_bf16");
  ck_assert_str_eq(fsim_mma_atom_for(FSIM_CDNA3, 32, 32, 16, FSIM_DT_FP8, FSIM_DT_FP8)->name,
                   "v_mfma_f32_32x32x16_fp8_fp8");
  ck_assert_str_eq(fsim_mma_atom_for(FSIM_CDNA4, 16, 16, 128, FSIM_DT_FP4, FSIM_DT_FP4)->name,
                   "v_mfma_scale_f32_16x16x128_f8f6f4.fp4");
  ck_assert_str_eq(fsim_mma_atom_for(FSIM_RDNA4, 16, 16, 16, FSIM_DT_F16, FSIM_DT_F16)->name,
                   "v_wmma_f32_16x16x16_f16");
  ck_assert_ptr_null(fsim_mma_atom_for(FSIM_CDNA4, 16, 16, 32, FSIM_DT_BF16, FSIM_DT_F16));
  ck_assert_str_eq(fsim_mma_atom_for(FSIM_CDNA4, 16, 16, 128, FSIM_DT_FP8, FSIM_DT_FP4)->name,
                   "v_mfma_scale_f32_16x16x128_f8f6f4.fp8_fp4");
  ck_assert_ptr_null(fsim_mma_atom_for(FSIM_CDNA4, 32, 32, 64, FSIM_DT_FP8, FSIM_DT_FP4)); /* no timing for it */
  ck_assert_ptr_null(fsim_mma_atom_for(FSIM_CDNA4, 16, 16, 128, FSIM_DT_FP4, FSIM_DT_FP8));
}
END_TEST

START_TEST(test_copy_atoms) {
  const fsim_copy_atom *c = fsim_copy_atom_find("global_load_lds_dwordx4");
  ck_assert_ptr_nonnull(c);
  ck_assert_int_eq(c->bytes, 16);
  ck_assert_int_eq(c->op, FSIM_OP_LOAD_LDS);
  ck_assert_uint_eq(c->isas, FSIM_CDNA4); /* gfx942's direct-to-LDS loads move 4 bytes per lane */
  c = fsim_copy_atom_find("buffer_load_lds_dwordx4");
  ck_assert_uint_eq(c->isas, FSIM_CDNA4);
  c = fsim_copy_atom_find("buffer_load_lds_dword");
  ck_assert_int_eq(c->bytes, 4);
  ck_assert_int_eq(c->op, FSIM_OP_LOAD_LDS);
  ck_assert_uint_eq(c->isas, FSIM_CDNA3 | FSIM_CDNA4);
  c = fsim_copy_atom_find("ds_read_b64_tr_b16");
  ck_assert_int_eq(c->bytes, 8);
  ck_assert_int_eq(c->transpose, 16);
  ck_assert_int_eq(c->op, FSIM_OP_LDS_READ);
  ck_assert_uint_eq(c->isas, FSIM_CDNA4);
  c = fsim_copy_atom_find("ds_read_b64_tr_b8");
  ck_assert_int_eq(c->bytes, 8);
  ck_assert_int_eq(c->transpose, 8);
  ck_assert_int_eq(c->op, FSIM_OP_LDS_READ);
  ck_assert_uint_eq(c->isas, FSIM_CDNA4);
  ck_assert_int_eq(fsim_copy_atom_find("ds_read_b128")->transpose, 0);
  ck_assert_int_eq(fsim_copy_atom_find("ds_read_b128")->bytes, 16);
  ck_assert_int_eq(fsim_copy_atom_find("buffer_store_dwordx4")->op, FSIM_OP_STORE);
  ck_assert_ptr_null(fsim_copy_atom_find("ds_read_b96"));
  ck_assert_ptr_null(fsim_copy_atom_find("global_load_dwordx8"));
  ck_assert_ptr_null(fsim_copy_atom_find(""));

  /* Every atom's width is the one its mnemonic spells, its class matches the mnemonic, and
   * only ds_read_b64_tr_b16 and _tr_b8 transpose, the element bits their names end in. */
  int n, transposing = 0;
  const fsim_copy_atom *all = fsim_copy_atoms(&n);
  ck_assert_int_ge(n, 20);
  /* the lookup (a binary search over the names) finds every atom, and nothing else */
  for (int i = 0; i < n; i++) ck_assert_ptr_eq(fsim_copy_atom_find(all[i].name), &all[i]);
  ck_assert_ptr_null(fsim_copy_atom_find("zz"));
  ck_assert_ptr_null(fsim_copy_atom_find("ds_read_b128 "));
  ck_assert_ptr_null(fsim_copy_atom_find("buffer_load_dword_"));
  for (int i = 0; i < n; i++) {
    const char *nm = all[i].name;
    int want = 0;
    const char *tail = strrchr(nm, '_');
    if (strstr(nm, "dwordx4")) want = 16;
    else if (strstr(nm, "dwordx3")) want = 12;
    else if (strstr(nm, "dwordx2")) want = 8;
    else if (strstr(nm, "dword")) want = 4;
    else if (strstr(nm, "_tr_")) want = 8; /* ds_read_b64_tr_bN: 64 bits per lane */
    else if (tail && (tail[1] == 'b' || tail[1] == 'u')) want = atoi(tail + 2) / 8;
    ck_assert_msg(all[i].bytes == want, "%s: %d bytes, its name says %d", nm, all[i].bytes, want);
    fsim_op cls = strncmp(nm, "ds_read", 7) == 0     ? FSIM_OP_LDS_READ
                  : strncmp(nm, "ds_write", 8) == 0  ? FSIM_OP_LDS_WRITE
                  : strstr(nm, "_store_") != NULL    ? FSIM_OP_STORE
                  : strstr(nm, "_load_lds_") != NULL ? FSIM_OP_LOAD_LDS
                                                     : FSIM_OP_LOAD;
    ck_assert_msg(all[i].op == cls, "%s: class %d", nm, (int)all[i].op);
    ck_assert_msg(all[i].isas != 0 && (all[i].isas & ~(FSIM_CDNA3 | FSIM_CDNA4 | FSIM_RDNA4)) == 0, "%s", nm);
    /* RDNA has no direct-to-LDS loads (and no transposing read) in this table */
    if (all[i].op == FSIM_OP_LOAD_LDS || all[i].transpose) ck_assert_msg(!(all[i].isas & FSIM_RDNA4), "%s", nm);
    if (strstr(nm, "_tr_b")) ck_assert_int_eq(all[i].transpose, atoi(strstr(nm, "_tr_b") + 5));
    else ck_assert_int_eq(all[i].transpose, 0);
    transposing += all[i].transpose != 0;
    ck_assert_ptr_eq(fsim_copy_atom_find(nm), &all[i]);
  }
  ck_assert_int_eq(transposing, 2);
}
END_TEST

/* ---- 4. the atom table and the arch files agree ------------------------------------------- */

static const fsim_mma_atom *atom_exact(const char *name) {
  int n;
  const fsim_mma_atom *all = fsim_mma_atoms(&n);
  for (int i = 0; i < n; i++)
    if (strcmp(all[i].name, name) == 0) return &all[i];
  return NULL;
}

START_TEST(test_arch_tables_agree) {
  static const struct {
    const char *part;
    unsigned isa;
    int matched; /* [mfma.*] sections that are atoms */
  } parts[] = {
      {"mi355x", FSIM_CDNA4, 17},
      {"mi350x", FSIM_CDNA4, 17},
      {"mi300x", FSIM_CDNA3, 6},
      {"rx9070xt", FSIM_RDNA4, 2},
  };
  int n;
  const fsim_mma_atom *all = fsim_mma_atoms(&n);
  for (size_t p = 0; p < sizeof parts / sizeof parts[0]; p++) {
    fsim_arch a;
    load_arch(&a, parts[p].part);
    ck_assert_uint_eq(fsim_isa_bit(&a), parts[p].isa);
    int matched = 0;
    /* Arch -> atoms: an [mfma.NAME] that is an atom describes the same instruction. */
    for (int i = 0; i < a.n_mfma; i++) {
      const fsim_mfma_entry *m = &a.mfma[i];
      const fsim_mma_atom *t = atom_exact(m->name);
      if (t == NULL) continue;
      matched++;
      ck_assert_msg(t->isas & parts[p].isa, "%s: [mfma.%s] but the atom is not on this ISA", parts[p].part, m->name);
      ck_assert_msg(t->m == m->m && t->n == m->n && t->k == m->k, "%s %s: shape %dx%dx%d vs %dx%dx%d", parts[p].part,
                    m->name, t->m, t->n, t->k, m->m, m->n, m->k);
      ck_assert_msg(t->a_type == m->a_type && t->b_type == m->b_type && t->c_type == m->c_type, "%s %s: types",
                    parts[p].part, m->name);
      ck_assert_int_eq(t->scaled, m->scaled);
      ck_assert_int_eq(t->wave_size, a.cu.wave_size);
      /* the section id is the mnemonic, plus ".type" for the scaled MFMA's operand variants */
      ck_assert_msg(strncmp(m->name, m->inst, strlen(m->inst)) == 0, "%s: inst %s", m->name, m->inst);
      ck_assert_ptr_eq(fsim_arch_find_mfma(&a, t->name), m);
    }
    ck_assert_int_eq(matched, parts[p].matched);
    /* Atoms -> arch: every atom of the part's ISA has timing there, and only those. */
    for (int i = 0; i < n; i++) {
      const fsim_mfma_entry *m = fsim_arch_find_mfma(&a, all[i].name);
      if (all[i].isas & parts[p].isa)
        ck_assert_msg(m != NULL, "%s is a %s atom with no [mfma.%s] in %s", all[i].name, parts[p].part, all[i].name,
                      a.file);
      else
        ck_assert_msg(m == NULL, "%s has timing in %s but is not on its ISA", all[i].name, a.file);
    }
  }
}
END_TEST

static Suite *suite(void) {
  Suite *s = suite_create("atom");
  TCase *tc = tcase_create("atom");
  tcase_add_test(tc, test_layouts_are_bijections);
  tcase_add_test(tc, test_documented_layouts);
  tcase_add_test(tc, test_scale_blocks_cover_values);
  tcase_add_test(tc, test_lookups);
  tcase_add_test(tc, test_copy_atoms);
  tcase_add_test(tc, test_arch_tables_agree);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) { return tu_run_suite(suite()); }
