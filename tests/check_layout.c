/* Tests of kernels/layout: golden values from CuTe's layout-algebra documentation, property
 * tests on random layouts (one seeded gsl_rng mt19937, so every run sees the same cases)
 * comparing each operation with its pointwise definition, parse/print round trips, the
 * capacity limits, the exact text of the expression language's error messages, and the
 * output and exit codes of `flysim layout`. */
#include "config.h"

#include <check.h>
#include <gsl/gsl_rng.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/layout.h"
#include "tests/testutil.h"

#define SEED 20260901UL

/* Check's ck_assert records every passing assertion through a pipe, which costs a system
 * call; the property loops run hundreds of thousands of checks, so they only call into
 * Check on failure. */
#define REQUIRE(cond)                                                  \
  do {                                                                 \
    if (!(cond)) ck_abort_msg("%s:%d: %s", __FILE__, __LINE__, #cond); \
  } while (0)
#define REQUIRE_MSG(cond, ...)              \
  do {                                      \
    if (!(cond)) ck_abort_msg(__VA_ARGS__); \
  } while (0)

/* ---- helpers ---- */

static fsim_layout lay(const char *text) {
  fsim_layout l;
  fsim_err e;
  fsim_err_clear(&e);
  ck_assert_msg(fsim_layout_parse(&l, text, &e) == FSIM_OK, "parsing %s: %s", text, e.msg);
  return l;
}

static const char *fmt(const fsim_layout *l) {
  static char buf[8][512];
  static int next = 0;
  char *b = buf[next++ % 8];
  fsim_layout_format(l, b, 512);
  return b;
}

static void expr_is(const char *expr, const char *want) {
  fsim_layout_value *v = malloc(sizeof *v);
  fsim_err e;
  fsim_err_clear(&e);
  fsim_status st = fsim_layout_expr(v, expr, &e);
  ck_assert_msg(st == FSIM_OK, "%s: %s", expr, e.msg);
  char got[1024];
  fsim_layout_value_format(v, got, sizeof got);
  ck_assert_msg(strcmp(got, want) == 0, "%s = %s, want %s", expr, got, want);
  free(v);
}

static void expr_fails(const char *expr, fsim_status code, const char *msg) {
  fsim_layout_value *v = malloc(sizeof *v);
  fsim_err e;
  fsim_err_clear(&e);
  fsim_status st = fsim_layout_expr(v, expr, &e);
  ck_assert_msg(st == code, "%s: status %d, want %d (%s)", expr, st, code, e.msg);
  ck_assert_str_eq(e.msg, msg);
  free(v);
}

static int cmp64(const void *a, const void *b) {
  int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
  return x < y ? -1 : x > y;
}

/* Whether l is injective on [0, size) (sizes here are small). */
static int injective(const fsim_layout *l) {
  int64_t n = fsim_layout_size(l);
  int64_t *v = malloc(sizeof(int64_t) * (size_t)n);
  for (int64_t i = 0; i < n; i++) v[i] = fsim_layout_eval(l, i);
  qsort(v, (size_t)n, sizeof *v, cmp64);
  int ok = 1;
  for (int64_t i = 1; i < n; i++) ok &= v[i] != v[i - 1];
  free(v);
  return ok;
}

/* A random tree of n leaves as a profile, nested at most 4 deep. */
static void gen_prof(gsl_rng *r, int n, int depth, char *out, int *len) {
  if (n == 1 && (depth >= 3 || gsl_rng_uniform(r) < 0.8)) {
    out[(*len)++] = 'x';
    return;
  }
  out[(*len)++] = '(';
  for (int left = n; left > 0;) {
    int k = depth >= 3 ? 1 : 1 + (int)gsl_rng_uniform_int(r, (unsigned long)left);
    gen_prof(r, k, depth + 1, out, len);
    left -= k;
  }
  out[(*len)++] = ')';
}

static const int64_t SHAPES[] = {1, 2, 2, 3, 4, 4, 8, 6};

/* A random layout of 1..maxleaf leaves with a random tree; strides from the given list. */
static void rand_layout(gsl_rng *r, fsim_layout *l, int maxleaf, const int64_t *strides, int nstrides) {
  int n = 1 + (int)gsl_rng_uniform_int(r, (unsigned long)maxleaf), len = 0;
  gen_prof(r, n, 0, l->prof, &len);
  l->prof[len] = '\0';
  l->nleaf = n;
  for (int k = 0; k < n; k++) {
    l->shape[k] = SHAPES[gsl_rng_uniform_int(r, sizeof SHAPES / sizeof SHAPES[0])];
    l->stride[k] = strides[gsl_rng_uniform_int(r, (unsigned long)nstrides)];
  }
}

/* A random flat injective layout whose strides leave holes: modes in a random order, each
 * stride a multiple (gap) of the extent of the modes below it.  *extent = max(d*s). */
static void rand_injective(gsl_rng *r, fsim_layout *l, int maxmodes, int64_t *extent) {
  static const int64_t shapes[] = {2, 2, 3, 4, 4};
  static const int64_t gaps[] = {1, 1, 1, 2, 3};
  int n = 1 + (int)gsl_rng_uniform_int(r, (unsigned long)maxmodes);
  int order[8];
  int64_t s[8], d[8], cur = 1;
  for (int i = 0; i < n; i++) order[i] = i;
  for (int i = n - 1; i > 0; i--) {
    int j = (int)gsl_rng_uniform_int(r, (unsigned long)i + 1), t = order[i];
    order[i] = order[j], order[j] = t;
  }
  for (int i = 0; i < n; i++) {
    int k = order[i];
    s[k] = shapes[gsl_rng_uniform_int(r, 5)];
    d[k] = cur * gaps[gsl_rng_uniform_int(r, 5)];
    cur = d[k] * s[k];
  }
  *extent = cur;
  fsim_err e;
  REQUIRE(fsim_layout_make_flat(l, n, s, d, &e) == FSIM_OK);
}

/* A random bijection of [0, N): a column-major layout of random shapes with its modes
 * permuted, then nested at random. */
static void rand_bijection(gsl_rng *r, fsim_layout *l, int maxmodes, const int64_t *shapes, int nshapes) {
  int n = 1 + (int)gsl_rng_uniform_int(r, (unsigned long)maxmodes), len = 0;
  int64_t s[8], d[8];
  int order[8];
  for (int i = 0; i < n; i++) order[i] = i, s[i] = shapes[gsl_rng_uniform_int(r, (unsigned long)nshapes)];
  for (int i = n - 1; i > 0; i--) {
    int j = (int)gsl_rng_uniform_int(r, (unsigned long)i + 1), t = order[i];
    order[i] = order[j], order[j] = t;
  }
  int64_t cur = 1;
  for (int i = 0; i < n; i++) d[order[i]] = cur, cur *= s[order[i]];
  gen_prof(r, n, 0, l->prof, &len);
  l->prof[len] = '\0';
  l->nleaf = n;
  memcpy(l->shape, s, sizeof(int64_t) * (size_t)n);
  memcpy(l->stride, d, sizeof(int64_t) * (size_t)n);
}

/* ---- golden values ---- */

START_TEST(test_golden_cute_docs) {
  /* composition (02_layout_algebra, "Composition" and its examples) */
  expr_is("composition(20:2,(5,4):(4,1))", "(5,4):(8,2)");
  expr_is("composition((6,2):(8,2),(4,3):(3,1))", "((2,2),3):((24,2),8)");
  expr_is("composition((10,2):(16,4),(5,4):(1,5))", "(5,(2,2)):(16,(80,4))");
  expr_is("composition((12,(4,8)):(59,(13,1)),<3:4,8:2>)", "(3,(2,4)):(236,(26,1))");
  expr_is("composition((12,(4,8)):(59,(13,1)),(3,8))", "(3,(4,2)):(59,(13,1))");
  /* (3,6,2,8):(w,x,y,z) o 16:9 = (1,2,2,4):(9w,3x,y,z) */
  expr_is("composition((3,6,2,8):(1,10,100,1000),16:9)", "(2,2,4):(30,100,1000)");
  expr_is("composition(8:1,4:0)", "4:0");
  expr_is("composition((4,2):(1,10),(4,2):(1,0))", "(4,2):(1,0)");
  /* coalesce */
  expr_is("coalesce((2,(1,6)):(1,(6,2)))", "12:1");
  expr_is("coalesce((2,(1,6)):(1,(6,2)),(1,1))", "(2,6):(1,2)");
  expr_is("coalesce((2,4):(1,2))", "8:1");
  expr_is("coalesce((1,1):(3,5))", "1:0");
  expr_is("filter((4,2,3):(1,0,4))", "12:1");
  /* complement */
  expr_is("complement(4:1,24)", "6:4");
  expr_is("complement(6:4,24)", "4:1");
  expr_is("complement((4,6):(1,4),24)", "1:0");
  expr_is("complement(4:2,24)", "(2,3):(1,8)");
  expr_is("complement((2,4):(1,6),24)", "3:2");
  expr_is("complement((2,2):(1,6),24)", "(3,2):(2,12)");
  expr_is("complement(4:2)", "2:1");
  expr_is("complement(4:0,6)", "6:1");
  /* divides */
  expr_is("logical_divide((4,2,3):(2,1,8),4:2)", "((2,2),(2,3)):((4,1),(2,8))");
  expr_is("logical_divide((9,(4,8)):(59,(13,1)),<3:3,(2,4):(1,8)>)",
          "((3,3),((2,4),(2,2))):((177,59),((13,2),(26,1)))");
  expr_is("zipped_divide((9,(4,8)):(59,(13,1)),<3:3,(2,4):(1,8)>)", "((3,(2,4)),(3,(2,2))):((177,(13,2)),(59,(26,1)))");
  expr_is("get(zipped_divide((9,(4,8)):(59,(13,1)),<3:3,(2,4):(1,8)>),0)", "(3,(2,4)):(177,(13,2))");
  expr_is("tiled_divide((9,(4,8)):(59,(13,1)),<3:3,(2,4):(1,8)>)", "((3,(2,4)),3,(2,2)):((177,(13,2)),59,(26,1))");
  expr_is("flat_divide((9,(4,8)):(59,(13,1)),<3:3,(2,4):(1,8)>)", "(3,(2,4),3,(2,2)):(177,(13,2),59,(26,1))");
  expr_is("zipped_divide((8,16):(16,1),(2,4))", "((2,4),(4,4)):((16,1),(32,4))");
  expr_is("logical_divide(8:1,3:1)", "(3,3):(1,3)"); /* CuTe rounds the rest up */
  /* products */
  expr_is("logical_product((2,2):(4,1),6:1)", "((2,2),(2,3)):((4,1),(2,8))");
  expr_is("logical_product((2,2):(4,1),(4,2):(2,1))", "((2,2),(4,2)):((4,1),(8,2))");
  expr_is("blocked_product((2,5):(5,1),(3,4):(1,3))", "(6,(5,4)):(5,(1,30))");
  expr_is("raked_product((2,5):(5,1),(3,4):(1,3))", "((3,2),(4,5)):((10,5),(30,1))");
  expr_is("block_product(4:1,2:1)", "(8):(1)");
  /* rank 1: the one mode of complement(A) o B is all of it even when it is a tuple (it took
   * only the first leaf, losing elements) */
  expr_is("blocked_product(3:2,4:1)", "((3,2,2)):((2,1,6))");
  expr_is("raked_product(3:2,4:1)", "((2,2,3)):((1,6,2))");
  expr_is("blocked_product((2):(2),6:1)", "((2,2,3)):((2,1,4))");
  /* by-mode products treat each mode alone (why CuTe recommends blocked/raked instead) */
  expr_is("logical_product((2,2):(1,2),<3:1,2:1>)", "((2,3),(2,2)):((1,2),(2,1))");
  expr_is("zipped_product((2,2):(1,2),<3:1,2:1>)", "((2,2),(3,2)):((1,2),(2,1))");
  expr_is("tiled_product((2,2):(1,2),<3:1,2:1>)", "((2,2),3,2):((1,2),2,1)");
  expr_is("flat_product((2,2):(1,2),<3:1,2:1>)", "(2,2,3,2):(1,2,2,1)");
  /* inverses */
  expr_is("right_inverse((4,8):(8,1))", "(8,4):(4,1)");
  expr_is("right_inverse((2,4):(1,4))", "2:1");
  expr_is("right_inverse(4:2)", "1:0");
  expr_is("left_inverse(4:2)", "(2,4):(4,1)");
  expr_is("left_inverse((4,8):(8,1))", "(8,4):(4,1)");
}
END_TEST

START_TEST(test_golden_helpers) {
  expr_is("make_ordered_layout((4,8,2),(1,0,2))", "(4,8,2):(8,1,32)");
  expr_is("make_ordered((4,8),(1,0))", "(4,8):(8,1)");
  expr_is("row_major((4,(2,8)))", "(4,(2,8)):(16,(8,1))");
  expr_is("col_major((4,(2,8)))", "(4,(2,8)):(1,(4,8))");
  expr_is("make_layout((4,8))", "(4,8):(1,4)");
  expr_is("make_layout((4,8),(8,1))", "(4,8):(8,1)");
  expr_is("make_layout(4:1,8:4)", "(4,8):(1,4)");
  expr_is("make_layout(8,2)", "8:2");
  expr_is("(4,(2,8))", "(4,(2,8))");
  expr_is("12", "12");
  expr_is("<4:1,8>", "<4:1,8:1>");
  expr_is("append(4:1,2:4)", "(4,2):(1,4)");
  expr_is("prepend((4,2):(1,4),3:8)", "(3,4,2):(8,1,4)");
  expr_is("group((2,3,4):(1,2,6),1,3)", "(2,(3,4)):(1,(2,6))");
  expr_is("select((2,3,4):(1,2,6),2,0)", "(4,2):(6,1)");
  expr_is("flatten((4,(2,(8,2))):(2,(1,(8,64))))", "(4,2,8,2):(2,1,8,64)");
  expr_is("size((4,(2,8)):(2,(1,8)))", "64");
  expr_is("cosize((4,(2,8)):(2,(1,8)))", "64");
  expr_is("cosize((4,2):(-1,8))", "9");
  expr_is("rank((4,(2,8)):(2,(1,8)))", "2");
  expr_is("depth((4,(2,8)):(2,(1,8)))", "2");
  expr_is("depth(8:1)", "0");
  expr_is("shape((4,(2,8)):(2,(1,8)))", "(4,(2,8))");
  expr_is("stride((4,(2,8)):(2,(1,8)))", "(2,(1,8))");
  expr_is("get((4,(2,8)):(2,(1,8)),1)", "(2,8):(1,8)");
  expr_is("get((4,(2,8)):(2,(1,8)),1,0)", "2:1");
  expr_is("get((4,(2,8)),1)", "(2,8)");
  expr_is("crd2idx((4,(2,8)):(2,(1,8)),(3,(1,5)))", "47");
  expr_is("crd2idx((4,(2,8)):(2,(1,8)),(3,11))", "47"); /* 11 = (1,5) inside (2,8) */
  expr_is("crd2idx((4,(2,8)):(2,(1,8)),5)", "3");       /* a flat index: (1,(1,0)) */
  expr_is("idx2crd((4,(2,8)):(2,(1,8)),47)", "(3,(1,5))");
  expr_is("slice((4,(2,8)):(2,(1,8)),(_,(1,_)))", "(4,8):(2,8)");
  expr_is("slice_offset((4,(2,8)):(2,(1,8)),(_,(1,_)))", "1");
  expr_is("slice((4,8):(1,4),(_,1))", "(4):(1)");
  expr_is("slice((4,8):(1,4),_)", "(4,8):(1,4)");
  /* CuTe's printed spellings are accepted */
  expr_is("(_4,_2):(_1,_4)", "(4,2):(1,4)");
  expr_is("Sw<3,3,3> o _0 o (_8,_64):(_64,_1)", "S<3,3,3> o (8,64):(64,1)");
  expr_is("  ( 4 , 2 ) : ( 1 , 4 )  ", "(4,2):(1,4)");
}
END_TEST

START_TEST(test_golden_swizzle) {
  expr_is("swizzle(3,3,3,(8,64):(64,1))", "S<3,3,3> o (8,64):(64,1)");
  expr_is("S<3,3,3> o (8,64):(64,1)", "S<3,3,3> o (8,64):(64,1)");
  expr_is("S<3,3,3> o 32 o (8,64):(64,1)", "S<3,3,3> o 32 o (8,64):(64,1)");
  expr_is("crd2idx(S<3,3,3> o (8,64):(64,1),(1,0))", "72");
  expr_is("crd2idx(S<3,3,3> o (8,64):(64,1),(1,8))", "64");
  expr_is("crd2idx(S<3,3,3> o (8,64):(64,1),(2,0))", "144");
  expr_is("slice(S<3,3,3> o (8,64):(64,1),(2,_))", "S<3,3,3> o 128 o (64):(1)");
  expr_is("get(S<2,4,3> o (64,16):(16,1),1)", "S<2,4,3> o 16:1");
  expr_is("zipped_divide(S<3,3,3> o (8,64):(64,1),<8:1,8:1>)", "S<3,3,3> o ((8,8),(1,8)):((64,1),(0,8))");
  expr_is("size(S<3,3,3> o (8,64):(64,1))", "512");
  expr_is("cosize(S<3,3,3> o (8,64):(64,1))", "512");
  expr_is("S<0,0,0> o 8:1", "8:1");

  fsim_swizzle sw;
  fsim_err e;
  ck_assert(fsim_swizzle_make(&sw, 3, 3, 3, &e) == FSIM_OK);
  ck_assert_int_eq(fsim_swizzle_period(&sw), 512);
  ck_assert_int_eq(fsim_swizzle_apply(&sw, 64), 72);
  ck_assert_int_eq(fsim_swizzle_apply(&sw, 0x1c0 | 0x3f), 0x1c0 | (0x3f ^ 0x38));
  /* negative shift: bits [M, M+B) are XORed into bits [M+|S|, M+|S|+B) */
  ck_assert(fsim_swizzle_make(&sw, 2, 4, -3, &e) == FSIM_OK);
  ck_assert_int_eq(fsim_swizzle_apply(&sw, 16), 16 | 128);
  ck_assert_int_eq(fsim_swizzle_apply(&sw, 48), 48 | 384);

  fsim_composed_layout c;
  ck_assert(fsim_composed_parse(&c, "S<3,3,3> o 8 o (8,64):(64,1)", &e) == FSIM_OK);
  ck_assert_int_eq(fsim_composed_eval(&c, 1), fsim_swizzle_apply(&c.sw, 8 + 64));
  ck_assert_int_eq(fsim_composed_size(&c), 512);
  char buf[128];
  fsim_composed_format(&c, buf, sizeof buf);
  ck_assert_str_eq(buf, "S<3,3,3> o 8 o (8,64):(64,1)");
  ck_assert(fsim_composed_parse(&c, "(8,64):(64,1)", &e) == FSIM_OK);
  ck_assert_int_eq(c.sw.b, 0);
  ck_assert(fsim_composed_parse(&c, "size(8:1)", &e) == FSIM_EINVAL);
  ck_assert_str_eq(e.msg, "layout 'size(8:1)': position 1: expected a layout or a swizzled layout, not an integer");
}
END_TEST

/* The programmatic API, as kernel code uses it. */
START_TEST(test_api) {
  fsim_err e;
  fsim_layout l, m;
  int64_t s[2] = {8, 64}, d[2] = {64, 1};
  ck_assert(fsim_layout_make_flat(&l, 2, s, d, &e) == FSIM_OK);
  ck_assert_str_eq(fmt(&l), "(8,64):(64,1)");
  ck_assert_int_eq(fsim_layout_eval(&l, 9), 64 + 1);
  int64_t crd[2] = {3, 5};
  ck_assert_int_eq(fsim_layout_eval_modes(&l, crd), 3 * 64 + 5);
  ck_assert_int_eq(fsim_layout_size(&l), 512);
  ck_assert_int_eq(fsim_layout_cosize(&l), 512);
  ck_assert_int_eq(fsim_layout_rank(&l), 2);
  /* past the size, the last mode extends (CuTe) */
  fsim_layout_make_1d(&m, 4, 3);
  ck_assert_int_eq(fsim_layout_eval(&m, 10), 30);
  /* outputs may alias inputs */
  l = lay("(4,2,3):(2,1,8)");
  fsim_tiler t;
  fsim_layout_make_1d(&m, 4, 2);
  fsim_tiler_from_layout(&t, &m);
  ck_assert(fsim_layout_logical_divide(&l, &l, &t, &e) == FSIM_OK);
  ck_assert_str_eq(fmt(&l), "((2,2),(2,3)):((4,1),(2,8))");
  fsim_layout_coalesce(&l, &l);
  ck_assert_str_eq(fmt(&l), "(2,4,3):(4,1,8)");
  /* tuples and coordinates */
  fsim_itup tup, crd2;
  ck_assert(fsim_itup_parse(&tup, "(3,(1,_))", 1, &e) == FSIM_OK);
  ck_assert_int_eq(fsim_itup_rank(&tup), 2);
  ck_assert_int_eq(fsim_itup_depth(&tup), 2);
  ck_assert(fsim_itup_parse(&tup, "(3,(1,_))", 0, &e) == FSIM_EINVAL);
  ck_assert_str_eq(e.msg, "tuple '(3,(1,_))': position 7: '_' is only allowed in a coordinate");
  l = lay("(4,(2,8)):(2,(1,8))");
  int64_t idx, off;
  ck_assert(fsim_layout_idx2crd(&l, 47, &crd2, &e) == FSIM_OK);
  char buf[128];
  fsim_itup_format(&crd2, buf, sizeof buf);
  ck_assert_str_eq(buf, "(3,(1,5))");
  ck_assert(fsim_layout_crd2idx(&l, &crd2, &idx, &e) == FSIM_OK);
  ck_assert_int_eq(idx, 47);
  ck_assert(fsim_layout_idx2crd(&l, 64, &crd2, &e) == FSIM_ERANGE);
  ck_assert_str_eq(e.msg, "idx2crd((4,(2,8)):(2,(1,8)), 64): the index is outside [0, 64)");
  ck_assert(fsim_itup_parse(&tup, "(_,(1,_))", 1, &e) == FSIM_OK);
  ck_assert(fsim_layout_slice(&m, &off, &l, &tup, &e) == FSIM_OK);
  ck_assert_str_eq(fmt(&m), "(4,8):(2,8)");
  ck_assert_int_eq(off, 1);
  /* a shape without strides is column-major; bad text names the position */
  l = lay("(4,8)");
  ck_assert_str_eq(fmt(&l), "(4,8):(1,4)");
  ck_assert(fsim_layout_parse(&l, "(4,2:(1,4)", &e) == FSIM_EINVAL);
  ck_assert_str_eq(e.msg, "layout '(4,2:(1,4)': position 5: expected ',' or ')', found ':'");
  ck_assert(fsim_layout_parse(&l, "(4,2):(1,4", &e) == FSIM_EINVAL);
  ck_assert_str_eq(e.msg, "layout '(4,2):(1,4': position 11: expected ',' or ')', found the end of the text");
  ck_assert(fsim_layout_parse(&l, "(4,2):(1,4))", &e) == FSIM_EINVAL);
  ck_assert_str_eq(e.msg, "layout '(4,2):(1,4))': position 12: expected ':' or the end of the layout, found ')'");
  ck_assert(fsim_layout_parse(&l, "(4,2):(1,(4,1))", &e) == FSIM_EINVAL);
  ck_assert_str_eq(e.msg, "layout '(4,2):(1,(4,1))': position 7: the stride is not congruent with the shape (4,2)");
  ck_assert(fsim_layout_parse(&l, "(4,-2):(1,4)", &e) == FSIM_EINVAL);
  ck_assert_str_eq(e.msg, "layout '(4,-2):(1,4)': position 4: shape -2 is not positive");
  ck_assert(fsim_layout_parse(&l, "4:x", &e) == FSIM_EINVAL);
  ck_assert_str_eq(e.msg, "layout '4:x': position 3: expected a number, '_' or '(', found 'x'");
  ck_assert(fsim_layout_parse(&l, "4:-", &e) == FSIM_EINVAL);
  ck_assert_str_eq(e.msg, "layout '4:-': position 4: expected a digit, found the end of the text");
  /* congruence is checked when building from tuples */
  fsim_itup a, b;
  ck_assert(fsim_itup_parse(&a, "(4,2)", 0, &e) == FSIM_OK);
  ck_assert(fsim_itup_parse(&b, "(1,(4,1))", 0, &e) == FSIM_OK);
  ck_assert(fsim_layout_make(&l, &a, &b, &e) == FSIM_EINVAL);
  ck_assert_str_eq(e.msg, "make_layout((4,2), (1,(4,1))): the stride is not congruent with the shape");
}
END_TEST

/* Fixed capacity: exceeding it is an error with a message, never a crash. */
START_TEST(test_capacity) {
  fsim_err e;
  fsim_layout l, one;
  fsim_layout_make_1d(&one, 2, 1);
  fsim_layout_make_1d(&l, 2, 1);
  fsim_status st = FSIM_OK;
  int n;
  for (n = 1; n < 40 && st == FSIM_OK; n++) st = fsim_layout_append(&l, &l, &one, &e);
  ck_assert_int_eq(st, FSIM_ERANGE);
  ck_assert_int_eq(n, FSIM_LAYOUT_MAX_LEAVES + 1);
  ck_assert_str_eq(e.msg, "append: the result has more than 32 leaves");
  ck_assert_int_eq(l.nleaf, FSIM_LAYOUT_MAX_LEAVES); /* the input survives */
  /* depth */
  fsim_layout_make_1d(&l, 2, 1);
  st = FSIM_OK;
  for (n = 0; n < 10 && st == FSIM_OK; n++) st = fsim_layout_group(&l, &l, 0, 1, &e);
  ck_assert_int_eq(st, FSIM_ERANGE);
  ck_assert_str_eq(e.msg, "group: the result is nested deeper than 6 levels");
  ck_assert(fsim_layout_parse(&l, "((((((((2))))))))", &e) == FSIM_ERANGE);
  ck_assert_str_eq(e.msg, "layout '((((((((2))))))))': position 7: nested deeper than 6 levels");
  /* 64-bit range */
  ck_assert(fsim_layout_parse(&l, "(65536,65536,65536,65536):(1,65536,0,0)", &e) == FSIM_ERANGE);
  ck_assert_str_eq(e.msg, "layout '(65536,65536,65536,65536):(1,65536,0,0)': position 1: make_layout: the size or "
                          "the offsets overflow 64 bits");
  /* a product that outgrows the leaves */
  char text[1024], want[1024];
  strcpy(text, "logical_product((2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2):(1");
  for (int i = 1; i < 17; i++) sprintf(text + strlen(text), ",%lld", 1LL << (2 * i));
  strcat(text, "),(2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2):(1");
  for (int i = 1; i < 16; i++) sprintf(text + strlen(text), ",%d", 1 << i);
  strcat(text, "))");
  snprintf(want, sizeof want, "expression '%.200s': position 1: logical_product: the result has more than 32 leaves",
           text);
  expr_fails(text, FSIM_ERANGE, want);
  /* a bare tuple's size too (it wrapped: 0 here, and complement then read a wrong target) */
  expr_fails("size((4294967296,4294967296))", FSIM_ERANGE,
             "expression 'size((4294967296,4294967296))': position 1: the size overflows 64 bits");
  expr_fails("complement(4:1,(4294967296,4294967297))", FSIM_ERANGE,
             "expression 'complement(4:1,(4294967296,4294967297))': position 1: the size overflows 64 bits");
  /* a product's overflow names the function called (blocked, raked, zipped, tiled and flat
   * products once named logical_product) */
  expr_fails("blocked_product(4:1,4611686018427387904:1)", FSIM_ERANGE,
             "expression 'blocked_product(4:1,4611686018427387904:1)': position 1: blocked_product: size(A)*cosize(B) "
             "overflows 64 bits");
  expr_fails("raked_product(4:1,4611686018427387904:1)", FSIM_ERANGE,
             "expression 'raked_product(4:1,4611686018427387904:1)': position 1: raked_product: size(A)*cosize(B) "
             "overflows 64 bits");
  expr_fails("zipped_product(4:1,4611686018427387904:1)", FSIM_ERANGE,
             "expression 'zipped_product(4:1,4611686018427387904:1)': position 1: zipped_product: size(A)*cosize(B) "
             "overflows 64 bits");
  expr_fails("flat_product(4:1,4611686018427387904:1)", FSIM_ERANGE,
             "expression 'flat_product(4:1,4611686018427387904:1)': position 1: flat_product: size(A)*cosize(B) "
             "overflows 64 bits");
  expr_fails("logical_product(4:1,4611686018427387904:1)", FSIM_ERANGE,
             "expression 'logical_product(4:1,4611686018427387904:1)': position 1: logical_product: size(A)*cosize(B) "
             "overflows 64 bits");
}
END_TEST

/* Every message a user of the expression language can meet, word for word. */
START_TEST(test_expression_errors) {
  expr_fails("(4,2:(1,4)", FSIM_EINVAL, "expression '(4,2:(1,4)': position 5: expected ',' or ')', found ':'");
  expr_fails("composition(20:2", FSIM_EINVAL,
             "expression 'composition(20:2': position 17: expected ',' or ')', found the end of the text");
  expr_fails("composition 20:2", FSIM_EINVAL,
             "expression 'composition 20:2': position 13: expected '(' after 'composition', found '2'");
  expr_fails("foo(1)", FSIM_EINVAL,
             "expression 'foo(1)': position 1: unknown function 'foo' (see 'flysim layout --help')");
  expr_fails("complement(4:2,24,3)", FSIM_EINVAL,
             "expression 'complement(4:2,24,3)': position 1: complement takes 1 or 2 arguments, not 3");
  expr_fails("size()", FSIM_EINVAL, "expression 'size()': position 1: size takes 1 argument, not 0");
  expr_fails("make_layout()", FSIM_EINVAL,
             "expression 'make_layout()': position 1: make_layout takes at least 1 argument, not 0");
  expr_fails("get((4,8),2)", FSIM_ERANGE,
             "expression 'get((4,8),2)': position 1: get((4,8), 2): the tuple has 2 modes");
  expr_fails("get(8:1)", FSIM_EINVAL, "expression 'get(8:1)': position 1: get takes at least 2 arguments, not 1");
  expr_fails("select(8:1,0,0,0,0,0,0,0,0)", FSIM_EINVAL,
             "expression 'select(8:1,0,0,0,0,0,0,0,0)': position 26: select: too many arguments (at most 8)");
  expr_fails("complement(4:2,(1,2):(1,1))", FSIM_EINVAL,
             "expression 'complement(4:2,(1,2):(1,1))': position 16: complement: argument 2 must be an integer or a "
             "tuple, not a layout");
  expr_fails("group(8:1,1:1,2)", FSIM_EINVAL,
             "expression 'group(8:1,1:1,2)': position 11: group: argument 2 must be an integer, not a layout");
  expr_fails("size(<1:1>)", FSIM_EINVAL,
             "expression 'size(<1:1>)': position 6: size: argument 1 must be a layout or a tuple, not a tiler");
  expr_fails("S<1,0,1> o 9223372036854775807 o 2:1", FSIM_EINVAL,
             "expression 'S<1,0,1> o 9223372036854775807 o 2:1': position 34: offset 9223372036854775807 plus the "
             "layout's values (0 to 1) leave [-2^62, 2^62]");
  expr_fails("cosize(S<3,3,3> o 1099511627776:1)", FSIM_EINVAL,
             "expression 'cosize(S<3,3,3> o 1099511627776:1)': position 8: cosize: a swizzled layout of 1099511627776 "
             "values (more than 2^26) is not evaluated");
  expr_is("cosize(S<0,0,0> o 5 o 1099511627776:1)", "1099511627781");
  /* 2:(2^63 - 1) itself is refused now: its cosize, 2^63, does not fit */
  expr_fails("S<1,0,1> o 1 o 2:9223372036854775807", FSIM_ERANGE,
             "expression 'S<1,0,1> o 1 o 2:9223372036854775807': position 16: make_layout: the size or the offsets "
             "overflow 64 bits");
  expr_fails("S<1,0,1> o 1 o 2:4611686018427387904", FSIM_EINVAL,
             "expression 'S<1,0,1> o 1 o 2:4611686018427387904': position 16: offset 1 plus the layout's values (0 to "
             "4611686018427387904) leave [-2^62, 2^62]");
  /* a tiler of 32-leaf layouts with 19-digit strides prints whole and parses back (a 512-byte
   * buffer cut it) */
  {
    char tl[2400] = "<(1", *got = malloc(FSIM_LAYOUT_VALUE_TEXT_MAX);
    for (int i = 1; i < 32; i++) strcat(tl, ",1");
    strcat(tl, "):(-4611686018427387904");
    for (int i = 1; i < 32; i++) strcat(tl, ",-4611686018427387904");
    strcat(tl, ")>");
    fsim_layout_value *v = malloc(sizeof *v), *w = malloc(sizeof *w);
    fsim_err e;
    ck_assert_msg(fsim_layout_expr(v, tl, &e) == FSIM_OK, "%s", e.msg);
    ck_assert_int_gt(fsim_layout_value_format(v, got, FSIM_LAYOUT_VALUE_TEXT_MAX), 512);
    ck_assert_msg(fsim_layout_expr(w, got, &e) == FSIM_OK, "%s", e.msg);
    char *again = malloc(FSIM_LAYOUT_VALUE_TEXT_MAX);
    fsim_layout_value_format(w, again, FSIM_LAYOUT_VALUE_TEXT_MAX);
    ck_assert_str_eq(again, got);
    ck_assert_str_eq(got, tl);
    free(again);
    free(v);
    free(w);
    free(got);
  }
  /* found by an audit: the bound's own end refused (limit - offset overflowed), an operation
   * growing a swizzled layout's values past it (its evaluation overflowed), a cosize of 2^63 */
  expr_is("S<1,0,1> o -4611686018427387904 o 2:1", "S<1,0,1> o -4611686018427387904 o 2:1");
  expr_fails("composition(S<1,0,1> o 1 o 2:1, 2:4611686018427387904)", FSIM_EINVAL,
             "expression 'composition(S<1,0,1> o 1 o 2:1, 2:4611686018427387904)': position 1: offset 1 plus the "
             "layout's values (0 to 4611686018427387904) leave [-2^62, 2^62]");
  expr_fails("cosize((2,2):(4611686018427387904,4611686018427387903))", FSIM_ERANGE,
             "expression 'cosize((2,2):(4611686018427387904,4611686018427387903))': position 8: make_layout: the size "
             "or the offsets overflow 64 bits");
  expr_fails("blocked_product(S<1,1,1> o 4:1,2:1)", FSIM_EINVAL,
             "expression 'blocked_product(S<1,1,1> o 4:1,2:1)': position 17: blocked_product: argument 1 must be a "
             "layout, not a swizzled layout");
  expr_fails("composition((4,3):(1,10),3:3)", FSIM_EINVAL,
             "expression 'composition((4,3):(1,10),3:3)': position 1: composition((4,3):(1,10), 3:3): mode 3:3 of "
             "the right-hand layout fails the stride divisibility condition: the remaining stride 3 and the mode of "
             "size 4 do not divide each other");
  expr_fails("composition((4,3):(1,10),6:1)", FSIM_EINVAL,
             "expression 'composition((4,3):(1,10),6:1)': position 1: composition((4,3):(1,10), 6:1): mode 6:1 of "
             "the right-hand layout fails the shape divisibility condition: the remaining size 6 and the mode of "
             "size 4 do not divide each other");
  expr_fails("composition((6,4,2):(3,2,30),(6,2):(2,3))", FSIM_EINVAL,
             "expression 'composition((6,4,2):(3,2,30),(6,2):(2,3))': position 1: composition((6,4,2):(3,2,30), "
             "(6,2):(2,3)): the modes of the right-hand layout overlap in the mode 6:3 of the left-hand one (their "
             "offsets add up past it), so the composition is not a layout");
  expr_is("composition((8,2):(1,100),(2,2):(1,1))", "(2,2):(1,1)"); /* overlap without a carry is exact */
  expr_fails("composition(8:1,4:-1)", FSIM_EINVAL,
             "expression 'composition(8:1,4:-1)': position 1: composition(8:1, 4:-1): mode 4:-1 of the right-hand "
             "layout has a negative stride");
  expr_fails("complement((2,2):(1,3),12)", FSIM_EINVAL,
             "expression 'complement((2,2):(1,3),12)': position 1: complement((2,2):(1,3)): no complement exists: "
             "stride 3 is not a multiple of 2, the extent of the modes below it");
  expr_fails("complement((2,2):(1,1),12)", FSIM_EINVAL,
             "expression 'complement((2,2):(1,1),12)': position 1: complement((2,2):(1,1)): no complement exists: "
             "stride 1 lies inside the extent 2 of the modes below it (they overlap or interleave)");
  /* injective, 0 2 3 5, but interleaved: it was called "not injective" */
  expr_fails("complement((2,2):(2,3))", FSIM_EINVAL,
             "expression 'complement((2,2):(2,3))': position 1: complement((2,2):(2,3)): no complement exists: "
             "stride 3 lies inside the extent 4 of the modes below it (they overlap or interleave)");
  /* a one-element right-hand side keeps where its next element would be, as CuTe does, so that
   * composition stays associative when a later one runs the index on (it was 1:0, and
   * (8:1 o 1:1) o 4:1 gave 4:0 where 8:1 o (1:1 o 4:1) gives 4:1) */
  expr_is("composition(8:1,1:1)", "1:1");
  expr_is("composition(composition(8:1,1:1),4:1)", "4:1");
  expr_is("composition((4,2):(1,4),1:3)", "1:3");
  expr_is("composition((4,2):(1,4),1:5)", "1:5");
  expr_is("zipped_divide(8:1,1:1)", "(1,8):(1,1)");
  /* past its size a layout continues along its last mode, a trailing size-1 mode included, as
   * CuTe's coalesce_x keeps it (an audit compared with pycute, whose composition coalesces it
   * away): (3,1):(2,1) runs on along stride 1, 3:2 along 2 */
  expr_is("composition((3,1):(2,1),(3,2):(1,3))", "(3,2):(2,1)");
  expr_is("composition(3:2,(3,2):(1,3))", "(3,2):(2,6)");
  /* values all below zero: 1 + the largest, swizzled or not (swizzled it said 0) */
  expr_is("cosize(S<1,0,1> o -10 o 4:1)", "-6");
  expr_is("cosize(S<0,0,0> o -10 o 4:1)", "-6");
  /* small-integer arguments past 10^6 are refused quoting the value (it was clamped to 10^6
   * first, and the refusal quoted that) */
  expr_fails("group((2,3):(1,2),0,4294967298)", FSIM_EINVAL,
             "expression 'group((2,3):(1,2),0,4294967298)': position 21: group: argument 3, 4294967298, is out of "
             "range [-1000000, 1000000]");
  expr_fails("S<3,3,4294967299> o 8:1", FSIM_EINVAL,
             "expression 'S<3,3,4294967299> o 8:1': position 7: swizzle: 4294967299 is out of range [-1000000, "
             "1000000]");
  expr_fails("swizzle(99999999999,3,3,4:1)", FSIM_EINVAL,
             "expression 'swizzle(99999999999,3,3,4:1)': position 9: swizzle: argument 1, 99999999999, is out of range "
             "[-1000000, 1000000]");
  /* a stride of -2^63 could be printed but not read back */
  expr_fails("composition(2:-4611686018427387904,2:2)", FSIM_ERANGE,
             "expression 'composition(2:-4611686018427387904,2:2)': position 1: composition(2:-4611686018427387904, "
             "2:2): the result's size or offsets overflow 64 bits");
  expr_fails("complement(4:-1,12)", FSIM_EINVAL,
             "expression 'complement(4:-1,12)': position 1: complement(4:-1): negative strides are not supported");
  expr_fails("complement(4:1,0)", FSIM_EINVAL,
             "expression 'complement(4:1,0)': position 1: complement(4:1, 0): the target size must be positive");
  expr_fails("left_inverse((4,2):(1,0))", FSIM_EINVAL,
             "expression 'left_inverse((4,2):(1,0))': position 1: left_inverse((4,2):(1,0)): the layout is not "
             "injective (a mode of size 2 has stride 0)");
  expr_fails("right_inverse((2,2):(-1,2))", FSIM_EINVAL,
             "expression 'right_inverse((2,2):(-1,2))': position 1: right_inverse((2,2):(-1,2)): negative strides "
             "are not supported");
  expr_fails("logical_divide((4,4):(1,4),<2:1,2:1,2:1>)", FSIM_EINVAL,
             "expression 'logical_divide((4,4):(1,4),<2:1,2:1,2:1>)': position 1: logical_divide((4,4):(1,4), "
             "<2:1,2:1,2:1>): the tiler has 3 modes but the layout only 2");
  expr_fails("logical_divide(8:1,(2,(2,2)))", FSIM_EINVAL,
             "expression 'logical_divide(8:1,(2,(2,2)))': position 20: tiler (2,(2,2)): a shape used as a tiler must "
             "be flat (write <L0,L1,...> instead)");
  expr_fails("crd2idx((4,8):(1,4),(4,0))", FSIM_ERANGE,
             "expression 'crd2idx((4,8):(1,4),(4,0))': position 1: crd2idx((4,8):(1,4), (4,0)): component 4 is "
             "outside a mode of size 4");
  expr_fails("crd2idx((4,8):(1,4),(1,(0,1)))", FSIM_EINVAL,
             "expression 'crd2idx((4,8):(1,4),(1,(0,1)))': position 1: crd2idx((4,8):(1,4), (1,(0,1))): the "
             "coordinate is not congruent with the shape");
  expr_fails("crd2idx((4,8):(1,4),(1,2,3))", FSIM_EINVAL,
             "expression 'crd2idx((4,8):(1,4),(1,2,3))': position 1: crd2idx((4,8):(1,4), (1,2,3)): the "
             "coordinate's rank differs from the shape's");
  expr_fails("get((4,8):(1,4),2)", FSIM_ERANGE,
             "expression 'get((4,8):(1,4),2)': position 1: get((4,8):(1,4), 2): the layout has 2 modes");
  expr_fails("group((4,8):(1,4),1,1)", FSIM_ERANGE,
             "expression 'group((4,8):(1,4),1,1)': position 1: group((4,8):(1,4), 1, 1): needs 0 <= begin < end <= 2");
  expr_fails("(4,0):(1,4)", FSIM_EINVAL, "expression '(4,0):(1,4)': position 4: shape 0 is not positive");
  expr_fails("(_,2):(1,2)", FSIM_EINVAL, "expression '(_,2):(1,2)': position 2: '_' is only allowed in a coordinate");
  expr_fails("(4,2):(1,_)", FSIM_EINVAL, "expression '(4,2):(1,_)': position 10: '_' is only allowed in a coordinate");
  expr_fails("(4,2):(1,4) x", FSIM_EINVAL,
             "expression '(4,2):(1,4) x': position 13: unexpected 'x' after the expression");
  expr_fails("", FSIM_EINVAL,
             "expression '': position 1: expected a function, a number, a tuple, a layout or '<', found the end of "
             "the text");
  expr_fails("99999999999999999999", FSIM_ERANGE, "expression '99999999999999999999': position 1: number out of range");
  expr_fails(
      "(1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24,25,26,27,28,29,30,31,32,33)", FSIM_ERANGE,
      "expression '(1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24,25,26,27,28,29,30,31,32,33)': "
      "position 89: more than 32 integers in one tuple");
  expr_fails("<4:1,(2,2)>", FSIM_EINVAL,
             "expression '<4:1,(2,2)>': position 6: a tiler's modes must be layouts or integers, not a tuple");
  expr_fails("<4:1,2:1", FSIM_EINVAL,
             "expression '<4:1,2:1': position 9: expected ',' or '>', found the end of the text");
  expr_fails("<1,2,3,4,5,6,7,8,9>", FSIM_ERANGE,
             "expression '<1,2,3,4,5,6,7,8,9>': position 18: a tiler has at most 8 modes");
  expr_fails("S<3,3,2> o 8:1", FSIM_EINVAL,
             "expression 'S<3,3,2> o 8:1': position 1: swizzle S<3,3,2>: |S| must be at least B");
  expr_fails("S<3,3,3> 8:1", FSIM_EINVAL,
             "expression 'S<3,3,3> 8:1': position 10: expected 'o' and a layout after the swizzle, found '8'");
  expr_fails("S<3,3 o 8:1", FSIM_EINVAL, "expression 'S<3,3 o 8:1': position 7: expected ',', found 'o'");
  expr_fails("S<3,3,3> o <8:1>", FSIM_EINVAL,
             "expression 'S<3,3,3> o <8:1>': position 12: expected a layout after 'o', not a tiler");
  expr_fails("swizzle(-1,3,3,8:1)", FSIM_EINVAL,
             "expression 'swizzle(-1,3,3,8:1)': position 1: swizzle S<-1,3,3>: B and M must not be negative");
  expr_fails("swizzle(20,20,30,8:1)", FSIM_ERANGE,
             "expression 'swizzle(20,20,30,8:1)': position 1: swizzle S<20,20,30>: B+M+|S| must be at most 62");
  expr_fails("swizzle(3,3,3,S<1,1,1> o 8:1)", FSIM_EINVAL,
             "expression 'swizzle(3,3,3,S<1,1,1> o 8:1)': position 15: swizzle: argument 4 must be a layout without a "
             "swizzle, not a swizzled layout");
  expr_fails("coalesce((4,8):(1,4),(1,1,1))", FSIM_EINVAL,
             "expression 'coalesce((4,8):(1,4),(1,1,1))': position 1: coalesce((4,8):(1,4), (1,1,1)): the profile has "
             "more modes than the layout");
  expr_fails("make_ordered_layout((4,8),(1,0,2))", FSIM_EINVAL,
             "expression 'make_ordered_layout((4,8),(1,0,2))': position 1: make_ordered_layout((4,8), (1,0,2)): the "
             "order needs one integer per leaf of the shape");
  expr_fails("make_layout((4,8),(1,(4,1)))", FSIM_EINVAL,
             "expression 'make_layout((4,8),(1,(4,1)))': position 1: make_layout((4,8), (1,(4,1))): the stride is not "
             "congruent with the shape");
  expr_fails("idx2crd(8:1,8)", FSIM_ERANGE,
             "expression 'idx2crd(8:1,8)': position 1: idx2crd(8:1, 8): the index is outside [0, 8)");
  expr_fails("size(size(size(size(size(size(size(size(size(size(size(size(size(size(size(size(size(size(size(size("
             "size(size(size(size(size(size(size(size(size(size(size(size(size(1)))))))))))))))))))))))))))))))))",
             FSIM_EINVAL,
             "expression 'size(size(size(size(size(size(size(size(size(size(size(size(size(size(size(size(size(size("
             "size(size(size(size(size(size(size(size(size(size(size(size(size(size(size(1)))))))))))))))))))))))))))"
             "))))))': position 161: nested deeper than 32 calls");
  /* 32 calls are allowed, the operand inside the last one included (it was refused as a 33rd) */
  char deep[400] = "";
  for (int i = 0; i < 32; i++) strcat(deep, "size(");
  strcat(deep, "1");
  for (int i = 0; i < 32; i++) strcat(deep, ")");
  fsim_layout_value *lv = malloc(sizeof *lv);
  fsim_err le;
  fsim_err_clear(&le);
  ck_assert_msg(fsim_layout_expr(lv, deep, &le) == FSIM_OK, "%s", le.msg);
  /* but nothing deeper, calls or not: 300 '<' overflowed the stack while only calls were
   * counted past the limit (tools/fuzz.sh, tests/fuzz/corpus/layout/found_deep_angles) */
  char angles[41];
  memset(angles, '<', 40);
  angles[40] = '\0';
  fsim_err_clear(&le);
  ck_assert_int_eq(fsim_layout_expr(lv, angles, &le), FSIM_EINVAL);
  ck_assert_msg(strstr(le.msg, "position 34: nested deeper than 32 calls") != NULL, "%s", le.msg);
  free(lv);
}
END_TEST

/* ---- properties ---- */

static const int64_t ANY_STRIDES[] = {-3, -1, 0, 0, 1, 1, 2, 3, 4, 5, 8, 12, 16, 24, 64};
static const int64_t POS_STRIDES[] = {0, 1, 1, 2, 3, 4, 6, 8, 12, 16, 32};

/* l(i0, i1, ...) with one index per top-level mode, as the plans evaluate the MMA atoms'
 * layouts: the same as crd2idx of that coordinate on random layouts with nested modes, and,
 * past a mode's size, its last leaf extends (CuTe), as one flat mode's does. */
START_TEST(test_prop_eval_modes) {
  gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
  gsl_rng_set(r, SEED + 7);
  fsim_err e;
  int nested = 0;
  for (int n = 0; n < 3000; n++) {
    fsim_layout l;
    rand_layout(r, &l, 8, ANY_STRIDES, (int)(sizeof ANY_STRIDES / sizeof ANY_STRIDES[0]));
    int rank = fsim_layout_rank(&l);
    nested += fsim_layout_depth(&l) >= 2;
    int64_t v[FSIM_LAYOUT_MAX_LEAVES], idx;
    for (int rep = 0; rep < 8; rep++) {
      for (int m = 0; m < rank; m++) {
        fsim_layout mode;
        REQUIRE(fsim_layout_get(&mode, &l, m, &e) == FSIM_OK);
        v[m] = (int64_t)gsl_rng_uniform_int(r, (unsigned long)fsim_layout_size(&mode));
      }
      fsim_itup crd;
      if (rank == 1 && l.prof[0] != '(') fsim_itup_make_int(&crd, v[0]);
      else REQUIRE(fsim_itup_make_flat(&crd, rank, v, &e) == FSIM_OK);
      REQUIRE(fsim_layout_crd2idx(&l, &crd, &idx, &e) == FSIM_OK);
      REQUIRE_MSG(fsim_layout_eval_modes(&l, v) == idx, "%s at mode indices (%lld, ...): %lld, crd2idx %lld", fmt(&l),
                  (long long)v[0], (long long)fsim_layout_eval_modes(&l, v), (long long)idx);
    }
  }
  REQUIRE(nested > 500); /* the cases reach past flat modes */
  /* ((2,4),3):((1,10),100) at (9, 1): mode 0's last leaf (4:10) takes 9 / 2 = 4, past its size */
  fsim_layout x;
  REQUIRE(fsim_layout_parse(&x, "((2,4),3):((1,10),100)", &e) == FSIM_OK);
  int64_t c[2] = {9, 1};
  ck_assert_int_eq(fsim_layout_eval_modes(&x, c), 1 + 4 * 10 + 100);
  gsl_rng_free(r);
}
END_TEST

START_TEST(test_prop_print_parse_coalesce) {
  gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
  gsl_rng_set(r, SEED);
  fsim_err e;
  for (int n = 0; n < 3000; n++) {
    fsim_layout l, p, c;
    rand_layout(r, &l, 6, ANY_STRIDES, (int)(sizeof ANY_STRIDES / sizeof ANY_STRIDES[0]));
    /* parse(print(l)) == l */
    char text[512];
    fsim_layout_format(&l, text, sizeof text);
    REQUIRE_MSG(fsim_layout_parse(&p, text, &e) == FSIM_OK, "%s: %s", text, e.msg);
    REQUIRE_MSG(fsim_layout_equal(&p, &l), "%s read back as %s", text, fmt(&p));
    /* coalesce keeps the function on the domain and flattens */
    fsim_layout_coalesce(&c, &l);
    REQUIRE(fsim_layout_size(&c) == fsim_layout_size(&l));
    REQUIRE(fsim_layout_depth(&c) <= 1);
    for (int64_t i = 0; i < fsim_layout_size(&l); i++)
      REQUIRE_MSG(fsim_layout_eval(&c, i) == fsim_layout_eval(&l, i), "coalesce(%s) = %s differs at %lld", text,
                  fmt(&c), (long long)i);
    /* by-mode coalesce keeps every mode's function */
    fsim_itup prof;
    char ptext[64] = "(1";
    for (int m = 1; m < fsim_layout_rank(&l); m++) strcat(ptext, ",1");
    strcat(ptext, ")");
    REQUIRE(fsim_itup_parse(&prof, ptext, 0, &e) == FSIM_OK);
    REQUIRE(fsim_layout_coalesce_by_mode(&c, &l, &prof, &e) == FSIM_OK);
    REQUIRE(fsim_layout_rank(&c) == fsim_layout_rank(&l));
    for (int64_t i = 0; i < fsim_layout_size(&l); i++) REQUIRE(fsim_layout_eval(&c, i) == fsim_layout_eval(&l, i));
    /* crd2idx(idx2crd(i)) == l(i) */
    int64_t i = (int64_t)gsl_rng_uniform_int(r, (unsigned long)fsim_layout_size(&l)), idx;
    fsim_itup crd;
    REQUIRE(fsim_layout_idx2crd(&l, i, &crd, &e) == FSIM_OK);
    REQUIRE(fsim_layout_crd2idx(&l, &crd, &idx, &e) == FSIM_OK);
    REQUIRE(idx == fsim_layout_eval(&l, i));
  }
  gsl_rng_free(r);
}
END_TEST

START_TEST(test_prop_composition) {
  gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
  gsl_rng_set(r, SEED + 1);
  fsim_err e;
  int ok = 0, checked = 0;
  for (int n = 0; n < 4000; n++) {
    fsim_layout a, b, c, bf;
    rand_layout(r, &a, 4, POS_STRIDES, (int)(sizeof POS_STRIDES / sizeof POS_STRIDES[0]));
    rand_layout(r, &b, 3, POS_STRIDES, (int)(sizeof POS_STRIDES / sizeof POS_STRIDES[0]));
    fsim_status st = fsim_layout_compose(&c, &a, &b, &e);
    if (st != FSIM_OK) {
      REQUIRE_MSG(st == FSIM_EINVAL && (strstr(e.msg, "divisibility condition") || strstr(e.msg, "overlap")), "%s",
                  e.msg);
      continue;
    }
    ok++;
    /* the result has b's domain: the same size and, when b is a tuple, the same rank and
     * the same size in every mode (a leaf of b may become a tuple) */
    REQUIRE(fsim_layout_size(&c) == fsim_layout_size(&b));
    if (b.prof[0] == '(') REQUIRE(fsim_layout_rank(&c) == fsim_layout_rank(&b));
    for (int m = 0; b.prof[0] == '(' && m < fsim_layout_rank(&b); m++) {
      fsim_layout cm, bm;
      REQUIRE(fsim_layout_get(&cm, &c, m, &e) == FSIM_OK && fsim_layout_get(&bm, &b, m, &e) == FSIM_OK);
      REQUIRE(fsim_layout_size(&cm) == fsim_layout_size(&bm));
    }
    /* pointwise a(b(i)), whether b is injective or not */
    bf = b;
    for (int k = 0; k < bf.nleaf; k++)
      if (bf.stride[k] == 0) bf.shape[k] = 1;
    checked += !injective(&bf);
    for (int64_t i = 0; i < fsim_layout_size(&b); i++)
      REQUIRE_MSG(fsim_layout_eval(&c, i) == fsim_layout_eval(&a, fsim_layout_eval(&b, i)),
                  "composition(%s, %s) = %s differs at %lld", fmt(&a), fmt(&b), fmt(&c), (long long)i);
  }
  REQUIRE(ok >= 1500);
  REQUIRE(checked >= 100); /* non-injective right-hand layouts among them */
  gsl_rng_free(r);
}
END_TEST

START_TEST(test_prop_complement) {
  gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
  gsl_rng_set(r, SEED + 2);
  fsim_err e;
  for (int n = 0; n < 3000; n++) {
    fsim_layout l, c;
    int64_t extent;
    rand_injective(r, &l, 4, &extent);
    int64_t target = extent * (1 + (int64_t)gsl_rng_uniform_int(r, 3));
    REQUIRE_MSG(fsim_layout_complement(&c, &l, target, &e) == FSIM_OK, "%s", e.msg);
    int64_t sl = fsim_layout_size(&l), sc = fsim_layout_size(&c);
    REQUIRE_MSG(sl * sc == target, "complement(%s, %lld) = %s", fmt(&l), (long long)target, fmt(&c));
    /* (l, c) covers [0, target) exactly once, c is ordered and c(j) misses l's image for j >= 1 */
    char *seen = calloc((size_t)target, 1);
    for (int64_t j = 0; j < sc; j++) {
      if (j > 0) REQUIRE(fsim_layout_eval(&c, j) > fsim_layout_eval(&c, j - 1));
      for (int64_t i = 0; i < sl; i++) {
        int64_t v = fsim_layout_eval(&l, i) + fsim_layout_eval(&c, j);
        REQUIRE_MSG(v >= 0 && v < target && !seen[v], "complement(%s, %lld) = %s: %lld twice", fmt(&l),
                    (long long)target, fmt(&c), (long long)v);
        seen[v] = 1;
        if (j > 0) REQUIRE(fsim_layout_eval(&c, j) != fsim_layout_eval(&l, i));
      }
    }
    free(seen);
  }
  gsl_rng_free(r);
}
END_TEST

START_TEST(test_prop_inverses) {
  static const int64_t shapes[] = {2, 3, 4, 8};
  gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
  gsl_rng_set(r, SEED + 3);
  fsim_err e;
  for (int n = 0; n < 3000; n++) {
    fsim_layout l, ri, li;
    /* any layout: l(r(i)) == i on r's domain */
    rand_layout(r, &l, 5, POS_STRIDES, (int)(sizeof POS_STRIDES / sizeof POS_STRIDES[0]));
    REQUIRE(fsim_layout_right_inverse(&ri, &l, &e) == FSIM_OK);
    for (int64_t i = 0; i < fsim_layout_size(&ri); i++)
      REQUIRE_MSG(fsim_layout_eval(&l, fsim_layout_eval(&ri, i)) == i, "right_inverse(%s) = %s fails at %lld", fmt(&l),
                  fmt(&ri), (long long)i);
    /* a bijection: the right inverse is complete and also a left inverse */
    rand_bijection(r, &l, 5, shapes, 4);
    REQUIRE(fsim_layout_right_inverse(&ri, &l, &e) == FSIM_OK);
    REQUIRE(fsim_layout_size(&ri) == fsim_layout_size(&l));
    for (int64_t i = 0; i < fsim_layout_size(&l); i++) {
      REQUIRE(fsim_layout_eval(&l, fsim_layout_eval(&ri, i)) == i);
      REQUIRE(fsim_layout_eval(&ri, fsim_layout_eval(&l, i)) == i);
    }
    /* an injective layout with holes: r(l(i)) == i */
    int64_t extent;
    rand_injective(r, &l, 4, &extent);
    REQUIRE_MSG(fsim_layout_left_inverse(&li, &l, &e) == FSIM_OK, "%s", e.msg);
    for (int64_t i = 0; i < fsim_layout_size(&l); i++)
      REQUIRE_MSG(fsim_layout_eval(&li, fsim_layout_eval(&l, i)) == i, "left_inverse(%s) = %s fails at %lld", fmt(&l),
                  fmt(&li), (long long)i);
  }
  gsl_rng_free(r);
}
END_TEST

START_TEST(test_prop_divide) {
  static const int64_t shapes[] = {2, 2, 4, 4, 8, 3};
  gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
  gsl_rng_set(r, SEED + 4);
  fsim_err e;
  int ok = 0;
  for (int n = 0; n < 3000; n++) {
    fsim_layout a, b, d, z, t, f, bb[2], full;
    rand_bijection(r, &a, 4, shapes, 6);
    int64_t size = fsim_layout_size(&a), extent;
    int tries = 0;
    do rand_injective(r, &b, 3, &extent);
    while (size % extent != 0 && ++tries < 50);
    if (size % extent != 0) continue;
    fsim_tiler tl;
    fsim_tiler_from_layout(&tl, &b);
    fsim_status st = fsim_layout_logical_divide(&d, &a, &tl, &e);
    if (st != FSIM_OK) {
      REQUIRE_MSG(strstr(e.msg, "divisibility condition") != NULL, "%s", e.msg);
      continue;
    }
    ok++;
    /* the size is kept and d(i) == a((b, complement(b, size(a)))(i)) */
    REQUIRE(fsim_layout_size(&d) == size);
    bb[0] = b;
    REQUIRE(fsim_layout_complement(&bb[1], &b, size, &e) == FSIM_OK);
    REQUIRE(fsim_layout_concat(&full, bb, 2, &e) == FSIM_OK);
    for (int64_t i = 0; i < size; i++)
      REQUIRE_MSG(fsim_layout_eval(&d, i) == fsim_layout_eval(&a, fsim_layout_eval(&full, i)),
                  "logical_divide(%s, %s) = %s differs at %lld", fmt(&a), fmt(&b), fmt(&d), (long long)i);
    /* mode 0 is the tile a o b */
    fsim_layout m0, ab;
    REQUIRE(fsim_layout_get(&m0, &d, 0, &e) == FSIM_OK);
    REQUIRE(fsim_layout_compose(&ab, &a, &b, &e) == FSIM_OK);
    REQUIRE(fsim_layout_equal(&m0, &ab));
    /* the zipped, tiled and flat forms are the same function, regrouped */
    REQUIRE(fsim_layout_zipped_divide(&z, &a, &tl, &e) == FSIM_OK);
    REQUIRE(fsim_layout_tiled_divide(&t, &a, &tl, &e) == FSIM_OK);
    REQUIRE(fsim_layout_flat_divide(&f, &a, &tl, &e) == FSIM_OK);
    REQUIRE(fsim_layout_depth(&f) <= fsim_layout_depth(&d));
    for (int64_t i = 0; i < size; i++) {
      REQUIRE(fsim_layout_eval(&z, i) == fsim_layout_eval(&d, i));
      REQUIRE(fsim_layout_eval(&t, i) == fsim_layout_eval(&d, i));
      REQUIRE(fsim_layout_eval(&f, i) == fsim_layout_eval(&d, i));
    }
  }
  REQUIRE(ok >= 1000);

  /* by mode: a rank-2 layout and a tiler <b0,b1> */
  ok = 0;
  for (int n = 0; n < 1500; n++) {
    fsim_layout m[2], a, d, z, zc;
    fsim_tiler tl;
    tl.rank = 2;
    for (int k = 0; k < 2; k++) {
      int64_t extent;
      rand_bijection(r, &m[k], 2, shapes, 6);
      do rand_injective(r, &tl.mode[k], 2, &extent);
      while (fsim_layout_size(&m[k]) % extent != 0);
    }
    REQUIRE(fsim_layout_concat(&a, m, 2, &e) == FSIM_OK);
    /* scale mode 1 so that a is a bijection of rank 2 */
    int l1 = fsim_layout_get(&z, &a, 0, &e) == FSIM_OK ? z.nleaf : 0;
    for (int k = l1; k < a.nleaf; k++) a.stride[k] *= fsim_layout_size(&m[0]);
    fsim_status st = fsim_layout_logical_divide(&d, &a, &tl, &e);
    if (st != FSIM_OK) continue;
    ok++;
    REQUIRE(fsim_layout_size(&d) == fsim_layout_size(&a));
    for (int k = 0; k < 2; k++) {
      fsim_layout dk, ak, want;
      fsim_tiler one;
      REQUIRE(fsim_layout_get(&dk, &d, k, &e) == FSIM_OK && fsim_layout_get(&ak, &a, k, &e) == FSIM_OK);
      fsim_tiler_from_layout(&one, &tl.mode[k]);
      REQUIRE(fsim_layout_logical_divide(&want, &ak, &one, &e) == FSIM_OK);
      REQUIRE_MSG(fsim_layout_equal(&dk, &want), "mode %d: %s vs %s", k, fmt(&dk), fmt(&want));
    }
    /* layout<0>(zipped_divide(a, t)) == composition(a, t) */
    REQUIRE(fsim_layout_zipped_divide(&z, &a, &tl, &e) == FSIM_OK);
    REQUIRE(fsim_layout_compose_tiler(&zc, &a, &tl, &e) == FSIM_OK);
    fsim_layout z0;
    REQUIRE(fsim_layout_get(&z0, &z, 0, &e) == FSIM_OK);
    REQUIRE_MSG(fsim_layout_equal(&z0, &zc), "%s vs %s", fmt(&z0), fmt(&zc));
    REQUIRE(fsim_layout_size(&z) == fsim_layout_size(&a));
  }
  REQUIRE(ok >= 500);
  gsl_rng_free(r);
}
END_TEST

START_TEST(test_prop_product) {
  static const int64_t shapes[] = {2, 3, 4};
  gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
  gsl_rng_set(r, SEED + 5);
  fsim_err e;
  int ok = 0;
  for (int n = 0; n < 2000; n++) {
    fsim_layout a, b, p, p0, p1, c, tmp;
    int64_t extent;
    rand_injective(r, &a, 3, &extent);
    rand_layout(r, &b, 3, POS_STRIDES + 1, (int)(sizeof POS_STRIDES / sizeof POS_STRIDES[0]) - 1);
    fsim_tiler tl;
    fsim_tiler_from_layout(&tl, &b);
    if (fsim_layout_logical_product(&p, &a, &tl, &e) != FSIM_OK) {
      /* complement(a) o b can fail CuTe's divisibility conditions when a has holes */
      REQUIRE_MSG(strstr(e.msg, "divisibility condition") || strstr(e.msg, "overlap"), "%s", e.msg);
    } else {
      ok++;
      REQUIRE(fsim_layout_size(&p) == fsim_layout_size(&a) * fsim_layout_size(&b));
      REQUIRE(fsim_layout_get(&p0, &p, 0, &e) == FSIM_OK && fsim_layout_get(&p1, &p, 1, &e) == FSIM_OK);
      REQUIRE(fsim_layout_equal(&p0, &a));
      REQUIRE(fsim_layout_complement(&c, &a, fsim_layout_size(&a) * fsim_layout_cosize(&b), &e) == FSIM_OK);
      for (int64_t j = 0; j < fsim_layout_size(&b); j++)
        REQUIRE_MSG(fsim_layout_eval(&p1, j) == fsim_layout_eval(&c, fsim_layout_eval(&b, j)),
                    "logical_product(%s, %s) = %s differs at %lld", fmt(&a), fmt(&b), fmt(&p), (long long)j);
    }

    /* blocked and raked products of rank-2 layouts, against their 2-D definitions */
    fsim_layout pa[2], pb[2], bl, rk;
    for (int k = 0; k < 2; k++) {
      rand_bijection(r, &pa[k], 2, shapes, 3);
      rand_bijection(r, &pb[k], 2, shapes, 3);
    }
    REQUIRE(fsim_layout_concat(&a, pa, 2, &e) == FSIM_OK);
    REQUIRE(fsim_layout_concat(&b, pb, 2, &e) == FSIM_OK);
    int64_t a0 = fsim_layout_size(&pa[0]), a1 = fsim_layout_size(&pa[1]);
    int64_t b0 = fsim_layout_size(&pb[0]), b1 = fsim_layout_size(&pb[1]);
    int split = fsim_layout_get(&tmp, &a, 0, &e) == FSIM_OK ? tmp.nleaf : 0;
    for (int k = split; k < a.nleaf; k++) a.stride[k] *= a0; /* a and b bijections of rank 2 */
    split = fsim_layout_get(&tmp, &b, 0, &e) == FSIM_OK ? tmp.nleaf : 0;
    for (int k = split; k < b.nleaf; k++) b.stride[k] *= b0;
    REQUIRE_MSG(fsim_layout_blocked_product(&bl, &a, &b, &e) == FSIM_OK, "%s", e.msg);
    REQUIRE_MSG(fsim_layout_raked_product(&rk, &a, &b, &e) == FSIM_OK, "%s", e.msg);
    REQUIRE(fsim_layout_rank(&bl) == 2);
    REQUIRE(fsim_layout_rank(&rk) == 2);
    REQUIRE(fsim_layout_complement(&c, &a, a0 * a1 * fsim_layout_cosize(&b), &e) == FSIM_OK);
    fsim_layout cb;
    REQUIRE(fsim_layout_compose(&cb, &c, &b, &e) == FSIM_OK);
    int64_t total = a0 * a1 * b0 * b1;
    char *seen = calloc((size_t)total, 1);
    for (int64_t i = 0; i < a0 * b0; i++)
      for (int64_t j = 0; j < a1 * b1; j++) {
        int64_t x[2] = {i, j};
        int64_t ai[2] = {i % a0, j % a1}, bi[2] = {i / a0, j / a1};
        int64_t want = fsim_layout_eval_modes(&a, ai) + fsim_layout_eval_modes(&cb, bi);
        int64_t got = fsim_layout_eval_modes(&bl, x);
        REQUIRE_MSG(got == want, "blocked_product(%s, %s) = %s at (%lld,%lld): %lld, want %lld", fmt(&a), fmt(&b),
                    fmt(&bl), (long long)i, (long long)j, (long long)got, (long long)want);
        REQUIRE(got >= 0 && got < total && !seen[got]); /* a bijection */
        seen[got] = 1;
        int64_t ar[2] = {i / b0, j / b1}, br[2] = {i % b0, j % b1};
        REQUIRE(fsim_layout_eval_modes(&rk, x) == fsim_layout_eval_modes(&a, ar) + fsim_layout_eval_modes(&cb, br));
      }
    free(seen);
  }
  REQUIRE(ok >= 1000);
  gsl_rng_free(r);
}
END_TEST

START_TEST(test_prop_swizzle) {
  fsim_err e;
  int cases = 0;
  for (int b = 0; b <= 4; b++)
    for (int m = 0; m <= 4; m++)
      for (int s = -6; s <= 6; s++) {
        fsim_swizzle sw;
        if (s * s < b * b) {
          REQUIRE(fsim_swizzle_make(&sw, b, m, s, &e) == FSIM_EINVAL);
          continue;
        }
        REQUIRE(fsim_swizzle_make(&sw, b, m, s, &e) == FSIM_OK);
        int64_t period = fsim_swizzle_period(&sw);
        char *seen = calloc((size_t)period, 1);
        for (int64_t x = 0; x < period; x++) {
          int64_t y = fsim_swizzle_apply(&sw, x);
          REQUIRE_MSG(y >= 0 && y < period && !seen[y], "S<%d,%d,%d> is not a bijection at %lld", b, m, s,
                      (long long)x);
          seen[y] = 1;
          REQUIRE(fsim_swizzle_apply(&sw, y) == x); /* an involution */
          /* the same in every block of the period */
          REQUIRE(fsim_swizzle_apply(&sw, x + 5 * period) == y + 5 * period);
        }
        free(seen);
        cases++;
      }
  REQUIRE(cases > 200);

  /* a swizzled layout evaluates as swizzle(offset + layout(i)), and prints and parses back */
  gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
  gsl_rng_set(r, SEED + 6);
  for (int n = 0; n < 1000; n++) {
    fsim_layout l;
    fsim_swizzle sw;
    fsim_composed_layout c, back;
    rand_layout(r, &l, 4, POS_STRIDES, (int)(sizeof POS_STRIDES / sizeof POS_STRIDES[0]));
    int b = (int)gsl_rng_uniform_int(r, 4), m = (int)gsl_rng_uniform_int(r, 4);
    int s = b + (int)gsl_rng_uniform_int(r, 3);
    if (gsl_rng_uniform(r) < 0.3) s = -s;
    REQUIRE(fsim_swizzle_make(&sw, b, m, s, &e) == FSIM_OK);
    fsim_composed_make(&c, &sw, 8 * (int64_t)gsl_rng_uniform_int(r, 4), &l);
    for (int64_t i = 0; i < fsim_layout_size(&l); i++)
      REQUIRE(fsim_composed_eval(&c, i) == fsim_swizzle_apply(&sw, c.offset + fsim_layout_eval(&l, i)));
    char text[512];
    fsim_composed_format(&c, text, sizeof text);
    REQUIRE_MSG(fsim_composed_parse(&back, text, &e) == FSIM_OK, "%s: %s", text, e.msg);
    REQUIRE(fsim_layout_equal(&back.layout, &c.layout) && back.offset == c.offset);
    for (int64_t i = 0; i < fsim_layout_size(&l); i++)
      REQUIRE(fsim_composed_eval(&back, i) == fsim_composed_eval(&c, i));
  }
  gsl_rng_free(r);
}
END_TEST

START_TEST(test_prop_slice) {
  gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
  gsl_rng_set(r, SEED + 7);
  fsim_err e;
  for (int n = 0; n < 2000; n++) {
    fsim_layout l, s, mode;
    rand_layout(r, &l, 6, ANY_STRIDES, (int)(sizeof ANY_STRIDES / sizeof ANY_STRIDES[0]));
    if (l.prof[0] != '(') continue;
    int rank = fsim_layout_rank(&l);
    /* a coordinate that fixes some top-level modes and leaves the others open */
    fsim_itup crd;
    int64_t fixed[16], msize[16];
    int open[16], p = 0;
    crd.nleaf = rank;
    crd.prof[p++] = '(';
    for (int m = 0; m < rank; m++) {
      REQUIRE(fsim_layout_get(&mode, &l, m, &e) == FSIM_OK);
      msize[m] = fsim_layout_size(&mode);
      open[m] = gsl_rng_uniform(r) < 0.5;
      fixed[m] = (int64_t)gsl_rng_uniform_int(r, (unsigned long)msize[m]);
      crd.prof[p++] = open[m] ? '_' : 'x';
      crd.v[m] = open[m] ? 0 : fixed[m];
    }
    crd.prof[p++] = ')';
    crd.prof[p] = '\0';
    int64_t off;
    REQUIRE(fsim_layout_slice(&s, &off, &l, &crd, &e) == FSIM_OK);
    /* s(j) + off == l at the coordinate whose open modes take j's digits */
    for (int64_t j = 0; j < fsim_layout_size(&s); j++) {
      int64_t x[16], rest = j;
      for (int m = 0; m < rank; m++) {
        if (open[m]) {
          x[m] = rest % msize[m];
          rest /= msize[m];
        } else {
          x[m] = fixed[m];
        }
      }
      REQUIRE_MSG(fsim_layout_eval(&s, j) + off == fsim_layout_eval_modes(&l, x), "slice of %s differs at %lld",
                  fmt(&l), (long long)j);
    }
  }
  gsl_rng_free(r);
}
END_TEST

/* ---- the command ---- */

START_TEST(test_cli_layout) {
  tu_run r = tu_flysim("layout 'composition(20:2,(5,4):(4,1))'");
  ck_assert_int_eq(r.status, 0);
  ck_assert_str_eq(r.out, "(5,4):(8,2)\n");
  ck_assert_str_eq(r.err, "");
  tu_run_free(&r);

  r = tu_flysim("layout '(2,3):(3,1)' --indices");
  ck_assert_int_eq(r.status, 0);
  ck_assert_str_eq(r.out, "0 3 1 4 2 5\n");
  tu_run_free(&r);

  r = tu_flysim("layout --indices 'slice(S<3,3,3> o (8,64):(64,1),(1,_))'");
  ck_assert_int_eq(r.status, 0);
  ck_assert_msg(strncmp(r.out, "72 73 74 75 76 77 78 79 64 65 66 67 68 69 70 71 88 ", 51) == 0, "%s", r.out);
  tu_run_free(&r);

  r = tu_flysim("layout '(2,3):(3,1)' --grid");
  ck_assert_int_eq(r.status, 0);
  ck_assert_str_eq(r.out, "(2,3):(3,1)\n"
                          "    0   1   2\n"
                          "  +---+---+---+\n"
                          "0 | 0 | 1 | 2 |\n"
                          "  +---+---+---+\n"
                          "1 | 3 | 4 | 5 |\n"
                          "  +---+---+---+\n");
  tu_run_free(&r);

  r = tu_flysim("layout 'zipped_divide((4,16):(16,1),<2:1,8:1>)' --grid");
  ck_assert_int_eq(r.status, 0);
  ck_assert_str_eq(r.out, "((2,8),(2,2)):((16,1),(32,8))\n"
                          "      0    1    2    3\n"
                          "   +----+----+----+----+\n"
                          " 0 |  0 | 32 |  8 | 40 |\n"
                          "   +----+----+----+----+\n"
                          " 1 | 16 | 48 | 24 | 56 |\n"
                          "   +----+----+----+----+\n"
                          " 2 |  1 | 33 |  9 | 41 |\n"
                          "   +----+----+----+----+\n"
                          " 3 | 17 | 49 | 25 | 57 |\n"
                          "   +----+----+----+----+\n"
                          " 4 |  2 | 34 | 10 | 42 |\n"
                          "   +----+----+----+----+\n"
                          " 5 | 18 | 50 | 26 | 58 |\n"
                          "   +----+----+----+----+\n"
                          " 6 |  3 | 35 | 11 | 43 |\n"
                          "   +----+----+----+----+\n"
                          " 7 | 19 | 51 | 27 | 59 |\n"
                          "   +----+----+----+----+\n"
                          " 8 |  4 | 36 | 12 | 44 |\n"
                          "   +----+----+----+----+\n"
                          " 9 | 20 | 52 | 28 | 60 |\n"
                          "   +----+----+----+----+\n"
                          "10 |  5 | 37 | 13 | 45 |\n"
                          "   +----+----+----+----+\n"
                          "11 | 21 | 53 | 29 | 61 |\n"
                          "   +----+----+----+----+\n"
                          "12 |  6 | 38 | 14 | 46 |\n"
                          "   +----+----+----+----+\n"
                          "13 | 22 | 54 | 30 | 62 |\n"
                          "   +----+----+----+----+\n"
                          "14 |  7 | 39 | 15 | 47 |\n"
                          "   +----+----+----+----+\n"
                          "15 | 23 | 55 | 31 | 63 |\n"
                          "   +----+----+----+----+\n");
  tu_run_free(&r);

  r = tu_flysim("layout 'complement(4:2,24)' --json");
  ck_assert_int_eq(r.status, 0);
  json_t *j = tu_json(&r);
  ck_assert_str_eq(json_string_value(json_object_get(j, "layout")), "(2,3):(1,8)");
  ck_assert_int_eq(json_integer_value(json_object_get(j, "size")), 6);
  ck_assert_int_eq(json_integer_value(json_object_get(j, "cosize")), 18);
  json_t *idx = json_object_get(j, "indices");
  ck_assert_int_eq(json_array_size(idx), 6);
  static const int want[] = {0, 1, 8, 9, 16, 17};
  for (int i = 0; i < 6; i++) ck_assert_int_eq(json_integer_value(json_array_get(idx, (size_t)i)), want[i]);
  ck_assert_str_eq(json_string_value(json_object_get(json_object_get(j, "produced_by"), "tool")), "flysim");
  json_decref(j);
  tu_run_free(&r);

  r = tu_flysim("layout 'S<3,3,3> o (8,64):(64,1)' --json --grid");
  ck_assert_int_eq(r.status, 0);
  j = tu_json(&r);
  ck_assert_str_eq(json_string_value(json_object_get(j, "swizzle")), "S<3,3,3>");
  ck_assert_int_eq(json_integer_value(json_object_get(j, "cosize")), 512);
  ck_assert_int_eq(json_integer_value(json_array_get(json_array_get(json_object_get(j, "grid"), 1), 0)), 72);
  json_decref(j);
  tu_run_free(&r);

  r = tu_flysim("layout 'size((4,8))' --json");
  ck_assert_int_eq(r.status, 0);
  j = tu_json(&r);
  ck_assert_int_eq(json_integer_value(json_object_get(j, "value")), 32);
  ck_assert_str_eq(json_string_value(json_object_get(j, "kind")), "integer");
  json_decref(j);
  tu_run_free(&r);

  r = tu_flysim("layout 'size((4,8))'");
  ck_assert_int_eq(r.status, 0);
  ck_assert_str_eq(r.out, "32\n");
  tu_run_free(&r);

  r = tu_flysim("layout --help");
  ck_assert_int_eq(r.status, 0);
  ck_assert(strstr(r.out, "usage: flysim layout EXPR") != NULL && strstr(r.out, "Examples:") != NULL);
  tu_run_free(&r);

  /* invalid input: exit 2, one line naming the argument and the position */
  struct {
    const char *args, *err;
  } bad[] = {
      {"layout '(4,2:(1,4)'", "flysim layout: expression '(4,2:(1,4)': position 5: expected ',' or ')', found ':'\n"},
      {"layout 'foo(1)'",
       "flysim layout: expression 'foo(1)': position 1: unknown function 'foo' (see 'flysim layout --help')\n"},
      {"layout '(2,2,2):(1,2,4)' --grid",
       "flysim layout: --grid: the result has rank 3; --grid draws rank-2 layouts (rows = mode 0, columns = mode 1)\n"},
      {"layout 'size(8:1)' --indices", "flysim layout: --indices: the result 8 is an integer, not a layout\n"},
      {"layout '(4,8)' --grid", "flysim layout: --grid: the result (4,8) is a tuple, not a layout\n"},
      {"layout '(1024,1024):(1,1024)' --grid",
       "flysim layout: --grid: 1024x1024 is too large to draw (at most 65536 cells)\n"},
      {"layout '(2048,1024):(1,2048)' --indices",
       "flysim layout: --indices: the layout has 2097152 elements; at most 1048576 are listed\n"},
      {"layout 8:1 2:1",
       "flysim layout: expected one EXPR, got 2 arguments starting with '8:1' (quote the expression)\n"},
      {"layout 8:1 --bogus", "flysim layout: option '--bogus': unknown (see --help)\n"},
  };
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    r = tu_flysim(bad[i].args);
    ck_assert_msg(r.status == 2, "%s: exit %d", bad[i].args, r.status);
    ck_assert_str_eq(r.out, "");
    ck_assert_str_eq(r.err, bad[i].err);
    tu_run_free(&r);
  }
  r = tu_flysim("layout");
  ck_assert_int_eq(r.status, 2);
  ck_assert_str_eq(r.err, "flysim layout: expected a layout EXPR (see --help)\n"); /* one line */
  tu_run_free(&r);
  r = tu_flysim("layout -- -4:1"); /* negative-looking text after -- */
  ck_assert_int_eq(r.status, 2);
  ck_assert_str_eq(r.err, "flysim layout: expression '-4:1': position 1: shape -4 is not positive\n");
  tu_run_free(&r);
}
END_TEST

static Suite *suite(void) {
  Suite *s = suite_create("layout");
  TCase *tc = tcase_create("golden");
  tcase_add_test(tc, test_golden_cute_docs);
  tcase_add_test(tc, test_golden_helpers);
  tcase_add_test(tc, test_golden_swizzle);
  tcase_add_test(tc, test_api);
  tcase_add_test(tc, test_capacity);
  tcase_add_test(tc, test_expression_errors);
  suite_add_tcase(s, tc);
  TCase *tp = tcase_create("properties");
  tcase_add_test(tp, test_prop_print_parse_coalesce);
  tcase_add_test(tp, test_prop_eval_modes);
  tcase_add_test(tp, test_prop_composition);
  tcase_add_test(tp, test_prop_complement);
  tcase_add_test(tp, test_prop_inverses);
  tcase_add_test(tp, test_prop_divide);
  tcase_add_test(tp, test_prop_product);
  tcase_add_test(tp, test_prop_swizzle);
  tcase_add_test(tp, test_prop_slice);
  suite_add_tcase(s, tp);
  TCase *tcli = tcase_create("cli");
  tcase_add_test(tcli, test_cli_layout);
  suite_add_tcase(s, tcli);
  return s;
}

int main(void) { return tu_run_suite(suite()); }
