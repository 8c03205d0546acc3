/* The layout algebra: CuTe-style hierarchical layouts as FlyDSL uses them.
 *
 * A layout is a pair of congruent hierarchical integer tuples, shape:stride, read as a
 * function from an index (or a coordinate) to an offset: the index is split into
 * colexicographic coordinates over the leaves of the shape (leftmost fastest) and the offset
 * is the sum of coordinate times stride.  "(4,(2,8)):(2,(1,8))" is a 4 x (2x8) layout.  The
 * operations (composition, complement, inverses, divides, products, slicing) follow CuTe's
 * definitions (NVIDIA CUTLASS docs "cute/01_layout" and "02_layout_algebra"); where CuTe
 * relies on a static assertion (the stride and shape divisibility conditions, injectivity)
 * these functions return FSIM_EINVAL with a message instead.  Swizzles S<B,M,S> and swizzled
 * ("composed") layouts S o offset o L describe the XOR-permuted LDS tiles of FlyDSL kernels.
 *
 * Every type here is a plain value with fixed capacity (no malloc): at most
 * FSIM_LAYOUT_MAX_LEAVES leaves, nesting depth FSIM_LAYOUT_MAX_DEPTH, so layouts live on the
 * stack and inside other structs and copy with '='.  Exceeding a capacity is an error
 * (FSIM_ERANGE), never a crash.  Output arguments may alias inputs.  Indices and strides are
 * int64_t; shapes are at least 1; strides may be 0 or negative (some operations reject
 * negative strides and say so). */
#ifndef FSIM_LAYOUT_H
#define FSIM_LAYOUT_H

#include <stddef.h>
#include <stdint.h>

#include "util/status.h"

#define FSIM_LAYOUT_MAX_LEAVES 32  /* integer leaves of one tuple or layout */
#define FSIM_LAYOUT_MAX_DEPTH 6    /* nesting depth: "(4,(2,8))" has depth 2 */
#define FSIM_LAYOUT_MAX_PROFILE 96 /* profile characters: one per leaf, two per tuple */
#define FSIM_TILER_MAX_MODES 8     /* layouts in one by-mode tiler <L0,L1,...> */
/* Room for any formatted layout (64 numbers of up to 20 characters and two profiles' commas
 * and parentheses: under 1,500), and for any formatted value (a tiler of 8 layouts, a
 * swizzle's prefix); 512 and 2,048 once cut large tilers, which then did not parse back. */
#define FSIM_LAYOUT_TEXT_MAX 2048
#define FSIM_LAYOUT_VALUE_TEXT_MAX (FSIM_TILER_MAX_MODES * FSIM_LAYOUT_TEXT_MAX + 128)

/* The profile is the tree of a tuple as characters: '(' and ')' around a tuple's children,
 * 'x' for an integer leaf and '_' for a wildcard leaf (coordinates only).  "(4,(2,8))" has
 * profile "(x(xx))" and leaves 4, 2, 8; the integer 8 has profile "x".  It is the internal
 * encoding; use the functions below rather than reading it. */

/* A hierarchical integer tuple: a shape, a stride or a coordinate ('_' wildcards allowed
 * in coordinates passed to fsim_layout_slice). */
typedef struct fsim_itup {
  int64_t v[FSIM_LAYOUT_MAX_LEAVES]; /* leaf values in order; a wildcard's slot is 0 */
  int nleaf;
  char prof[FSIM_LAYOUT_MAX_PROFILE + 1];
} fsim_itup;

/* A layout: one profile shared by shape and stride, so they are congruent by construction. */
typedef struct fsim_layout {
  int64_t shape[FSIM_LAYOUT_MAX_LEAVES];  /* elements per leaf mode, >= 1 */
  int64_t stride[FSIM_LAYOUT_MAX_LEAVES]; /* offset step per leaf mode */
  int nleaf;
  char prof[FSIM_LAYOUT_MAX_PROFILE + 1];
} fsim_layout;

/* A tiler for divides and products: one layout applied to the whole layout (rank 0) or a
 * tuple of layouts <L0,L1,...> applied mode by mode (rank = number of layouts). */
typedef struct fsim_tiler {
  int rank;
  fsim_layout mode[FSIM_TILER_MAX_MODES];
} fsim_tiler;

/* CuTe's Swizzle<B,M,S>: f(x) = x ^ ((x & (((1<<B)-1) << (M+max(S,0)))) >> S), where a
 * negative S shifts left instead.  It is its own inverse and permutes every block of
 * 2^(B+M+|S|) consecutive integers. */
typedef struct fsim_swizzle {
  int b, m, s;   /* bits, base, shift */
  int64_t ymask; /* the B source bits, derived by fsim_swizzle_make */
} fsim_swizzle;

/* A swizzled layout, CuTe's ComposedLayout: i -> swizzle(offset + layout(i)). */
typedef struct fsim_composed_layout {
  fsim_swizzle sw;
  int64_t offset;
  fsim_layout layout;
} fsim_composed_layout;

/* ---- integer tuples ---- */

/* The integer v as a tuple (a leaf). */
void fsim_itup_make_int(fsim_itup *out, int64_t v);
/* The flat tuple (v[0],...,v[n-1]); n == 1 gives the leaf v[0]. */
fsim_status fsim_itup_make_flat(fsim_itup *out, int n, const int64_t *v, fsim_err *e);
/* Parses "(4,(2,8))", "8", "_4" (CuTe's static 4) and, when allow_wildcard, "_". */
fsim_status fsim_itup_parse(fsim_itup *out, const char *text, int allow_wildcard, fsim_err *e);
/* Writes the tuple like snprintf and returns the length it needs. */
int fsim_itup_format(const fsim_itup *t, char *buf, size_t n);
/* *size = the product of the leaves (wildcards count 1); 0 (false) when it overflows 64 bits */
int fsim_itup_size_ok(const fsim_itup *t, int64_t *size);
int fsim_itup_rank(const fsim_itup *t);     /* top-level modes: 1 for a leaf */
int fsim_itup_depth(const fsim_itup *t);    /* 0 for a leaf */
int fsim_itup_equal(const fsim_itup *a, const fsim_itup *b);

/* ---- building and reading layouts ---- */

/* s:d. */
void fsim_layout_make_1d(fsim_layout *out, int64_t shape, int64_t stride);
/* (s0,...,sn-1):(d0,...,dn-1); n == 1 gives s0:d0. */
fsim_status fsim_layout_make_flat(fsim_layout *out, int n, const int64_t *shape, const int64_t *stride, fsim_err *e);
/* shape:stride; the tuples must be congruent, shapes >= 1, no wildcards. */
fsim_status fsim_layout_make(fsim_layout *out, const fsim_itup *shape, const fsim_itup *stride, fsim_err *e);

typedef enum fsim_layout_major { FSIM_COL_MAJOR, FSIM_ROW_MAJOR } fsim_layout_major;
/* The compact layout of shape: column-major (leftmost leaf stride 1, CuTe's LayoutLeft) or
 * row-major (rightmost leaf stride 1, LayoutRight). */
fsim_status fsim_layout_make_major(fsim_layout *out, const fsim_itup *shape, fsim_layout_major major, fsim_err *e);
/* The compact layout of shape whose leaves take strides in increasing order of the
 * matching leaves of order (FlyDSL make_ordered_layout): order (1,0) is row-major.  Ties
 * go to the leftmost leaf first. */
fsim_status fsim_layout_make_ordered(fsim_layout *out, const fsim_itup *shape, const fsim_itup *order, fsim_err *e);

void fsim_layout_shape(const fsim_layout *l, fsim_itup *shape);
void fsim_layout_stride(const fsim_layout *l, fsim_itup *stride);

/* Parses "(4,(2,8)):(2,(1,8))" or "8:1"; a shape alone, "(4,8)", is its compact
 * column-major layout.  CuTe's static spelling "_4" is read as 4.  Errors name the text,
 * the 1-based character position and the reason (FSIM_EINVAL). */
fsim_status fsim_layout_parse(fsim_layout *out, const char *text, fsim_err *e);
/* Writes "shape:stride" like snprintf and returns the length it needs. */
int fsim_layout_format(const fsim_layout *l, char *buf, size_t n);

int64_t fsim_layout_size(const fsim_layout *l);   /* elements in the domain */
int64_t fsim_layout_cosize(const fsim_layout *l); /* 1 + the largest offset (negative strides count 0) */
int fsim_layout_rank(const fsim_layout *l);       /* top-level modes: 1 for s:d */
int fsim_layout_depth(const fsim_layout *l);      /* 0 for s:d */
int fsim_layout_equal(const fsim_layout *a, const fsim_layout *b); /* same shape and stride */

/* Mode i of l (CuTe get<i>/layout<i>); mode 0 of s:d is s:d itself. */
fsim_status fsim_layout_get(fsim_layout *out, const fsim_layout *l, int i, fsim_err *e);

/* ---- evaluation ---- */

/* l(i) for a flat index i >= 0, colexicographic over the leaves.  As in CuTe, an index past
 * size(l) continues along the last leaf.  No checks and no allocation: for hot loops. */
static inline int64_t fsim_layout_eval(const fsim_layout *l, int64_t i) {
  int64_t r = 0;
  int n = l->nleaf;
  for (int k = 0; k < n - 1; k++) {
    int64_t s = l->shape[k];
    r += (i % s) * l->stride[k];
    i /= s;
  }
  if (n > 0) r += i * l->stride[n - 1];
  return r;
}

/* l at a coordinate given as one index per top-level mode (crd[0..rank-1]), each index
 * colexicographic inside its mode; for rank-2 layouts l(row, column).  Unchecked. */
int64_t fsim_layout_eval_modes(const fsim_layout *l, const int64_t *crd);

/* The offset of a coordinate; crd may be an integer (a flat index), congruent to the shape,
 * or have integers where the shape has tuples (an index inside that mode).  Every
 * component must lie inside its mode (FSIM_ERANGE otherwise). */
fsim_status fsim_layout_crd2idx(const fsim_layout *l, const fsim_itup *crd, int64_t *idx, fsim_err *e);
/* The hierarchical coordinate (congruent to the shape) of flat index idx in [0, size). */
fsim_status fsim_layout_idx2crd(const fsim_layout *l, int64_t idx, fsim_itup *crd, fsim_err *e);

/* ---- the algebra (CuTe semantics) ---- */

/* Same function on [0, size), fewest flat modes; s:d when one mode is left, 1:0 when none. */
void fsim_layout_coalesce(fsim_layout *out, const fsim_layout *l);
/* Coalesces each mode named by profile (a tuple whose values are ignored), keeping the rest:
 * coalesce((2,(1,6)):(1,(6,2)), (1,1)) = (2,6):(1,2). */
fsim_status fsim_layout_coalesce_by_mode(fsim_layout *out, const fsim_layout *l, const fsim_itup *profile, fsim_err *e);
/* Coalesce after dropping stride-0 modes (CuTe filter). */
void fsim_layout_filter(fsim_layout *out, const fsim_layout *l);
/* Depth at most 1, same leaves in the same order. */
void fsim_layout_flatten(fsim_layout *out, const fsim_layout *l);

/* a o b: out(c) = a(b(c)) for every coordinate c of b, with b's profile (each leaf of b may
 * become a tuple).  As in CuTe the leaves of b are composed one by one.  Fails with
 * FSIM_EINVAL when a leaf of b has a negative stride or violates CuTe's stride or shape
 * divisibility condition against coalesce(a), and when the leaves' offsets would carry from
 * one mode of coalesce(a) into the next (where CuTe's by-mode answer is not a o b), so a
 * result is always exact. */
fsim_status fsim_layout_compose(fsim_layout *out, const fsim_layout *a, const fsim_layout *b, fsim_err *e);
/* a o tiler: a layout tiler as above; a by-mode tiler <B0,...> gives (a0 o B0, a1 o B1, ...)
 * and, as in CuTe, drops the modes of a that it does not name. */
fsim_status fsim_layout_compose_tiler(fsim_layout *out, const fsim_layout *a, const fsim_tiler *t, fsim_err *e);
/* The ordered layout that fills the holes of l's image and repeats it up to cotarget:
 * complement(4:2, 24) = (2,3):(1,8).  l must be injective (apart from stride-0 modes), have
 * no negative stride, and each stride must be a multiple of the extent of the smaller ones. */
fsim_status fsim_layout_complement(fsim_layout *out, const fsim_layout *l, int64_t cotarget, fsim_err *e);
/* r with l(r(i)) == i for i < size(r), as large as the stride-1 chain of l allows (1:0 if
 * none).  Negative strides are rejected. */
fsim_status fsim_layout_right_inverse(fsim_layout *out, const fsim_layout *l, fsim_err *e);
/* r with r(l(i)) == i for i < size(l); l must be injective. */
fsim_status fsim_layout_left_inverse(fsim_layout *out, const fsim_layout *l, fsim_err *e);

/* Divides: a o (B, complement(B, size(a))) for each tiler layout B (per mode with a by-mode
 * tiler, which keeps the modes it does not name).  logical: ((Tile,Rest),...); zipped:
 * ((Tiles...),(Rests...,others)); tiled: ((Tiles...),Rests...,others); flat: all unpacked. */
fsim_status fsim_layout_logical_divide(fsim_layout *out, const fsim_layout *a, const fsim_tiler *t, fsim_err *e);
fsim_status fsim_layout_zipped_divide(fsim_layout *out, const fsim_layout *a, const fsim_tiler *t, fsim_err *e);
fsim_status fsim_layout_tiled_divide(fsim_layout *out, const fsim_layout *a, const fsim_tiler *t, fsim_err *e);
fsim_status fsim_layout_flat_divide(fsim_layout *out, const fsim_layout *a, const fsim_tiler *t, fsim_err *e);
/* Products: (A, complement(A, size(A)*cosize(B)) o B) per tiler layout B, regrouped like
 * the divides. */
fsim_status fsim_layout_logical_product(fsim_layout *out, const fsim_layout *a, const fsim_tiler *t, fsim_err *e);
fsim_status fsim_layout_zipped_product(fsim_layout *out, const fsim_layout *a, const fsim_tiler *t, fsim_err *e);
fsim_status fsim_layout_tiled_product(fsim_layout *out, const fsim_layout *a, const fsim_tiler *t, fsim_err *e);
fsim_status fsim_layout_flat_product(fsim_layout *out, const fsim_layout *a, const fsim_tiler *t, fsim_err *e);
/* Rank-sensitive products: block a repeated over the layout of blocks b; mode i of the
 * result is mode i of a then mode i of b (blocked) or the reverse (raked, interleaved),
 * each coalesced.  rank(out) = max(rank(a), rank(b)). */
fsim_status fsim_layout_blocked_product(fsim_layout *out, const fsim_layout *a, const fsim_layout *b, fsim_err *e);
fsim_status fsim_layout_raked_product(fsim_layout *out, const fsim_layout *a, const fsim_layout *b, fsim_err *e);

/* The layout of the modes crd leaves open with '_' and the offset of its fixed components
 * (CuTe slice_and_offset): slice((4,(2,8)):(2,(1,8)), (_,(1,_))) = (4,8):(2,8), offset 1.
 * offset may be NULL. */
fsim_status fsim_layout_slice(fsim_layout *out, int64_t *offset, const fsim_layout *l, const fsim_itup *crd,
                              fsim_err *e);

/* Structure: (l, m) or l with m added last / first; modes [b,e) grouped into one mode;
 * (parts[0],...,parts[n-1]) (CuTe make_layout of layouts); (l_idx[0], ...). */
fsim_status fsim_layout_append(fsim_layout *out, const fsim_layout *l, const fsim_layout *m, fsim_err *e);
fsim_status fsim_layout_prepend(fsim_layout *out, const fsim_layout *l, const fsim_layout *m, fsim_err *e);
fsim_status fsim_layout_group(fsim_layout *out, const fsim_layout *l, int b, int e_, fsim_err *e);
fsim_status fsim_layout_concat(fsim_layout *out, const fsim_layout *parts, int n, fsim_err *e);
fsim_status fsim_layout_select(fsim_layout *out, const fsim_layout *l, const int *idx, int n, fsim_err *e);

/* ---- tilers ---- */

void fsim_tiler_from_layout(fsim_tiler *t, const fsim_layout *l);
/* A flat shape (s0,s1,...) as the by-mode tiler <s0:1,s1:1,...>; an integer s as s:1. */
fsim_status fsim_tiler_from_shape(fsim_tiler *t, const fsim_itup *shape, fsim_err *e);
/* "<4:1,8:1>" or the single layout. */
int fsim_tiler_format(const fsim_tiler *t, char *buf, size_t n);

/* ---- swizzles ---- */

/* S<b,m,s>: b, m >= 0, |s| >= b, b + m + |s| <= 62. */
fsim_status fsim_swizzle_make(fsim_swizzle *out, int b, int m, int s, fsim_err *e);
static inline int64_t fsim_swizzle_apply(const fsim_swizzle *sw, int64_t x) {
  int64_t y = x & sw->ymask;
  return x ^ (sw->s >= 0 ? y >> sw->s : y << -sw->s);
}
/* 2^(b+m+|s|). */
int64_t fsim_swizzle_period(const fsim_swizzle *sw);
/* 1 when sw moves an element of [0, elements) to `elements` or past it (a negative S moves bits
 * up, past an LDS stage); *top is the largest place it moves one to (of the first 2^20 when
 * the range is larger, whose whole periods then decide). */
int fsim_swizzle_leaves(const fsim_swizzle *sw, int64_t elements, int64_t *top);

/* The composed layout sw o offset o l; a plain layout is S<0,0,0> o l. */
void fsim_composed_make(fsim_composed_layout *out, const fsim_swizzle *sw, int64_t offset, const fsim_layout *l);
static inline int64_t fsim_composed_eval(const fsim_composed_layout *c, int64_t i) {
  return fsim_swizzle_apply(&c->sw, c->offset + fsim_layout_eval(&c->layout, i));
}
int64_t fsim_composed_size(const fsim_composed_layout *c);
/* 1 + the largest value over the domain (computed by evaluating every index). */
int64_t fsim_composed_cosize(const fsim_composed_layout *c);
/* Parses "S<3,3,3> o (8,64):(64,1)", "S<3,3,3> o 32 o L", CuTe's "Sw<3,3,3> o _0 o L",
 * "swizzle(3,3,3,L)" or a plain layout. */
fsim_status fsim_composed_parse(fsim_composed_layout *out, const char *text, fsim_err *e);
/* "S<3,3,3> o (8,64):(64,1)", with " o OFFSET" when the offset is not 0; a plain layout
 * when the swizzle is the identity and the offset 0. */
int fsim_composed_format(const fsim_composed_layout *c, char *buf, size_t n);

/* ---- expressions (the language of `flysim layout`, docs/layout.md) ---- */

typedef enum fsim_layout_value_kind {
  FSIM_LV_INT,     /* 24 */
  FSIM_LV_TUPLE,   /* (2,3) */
  FSIM_LV_LAYOUT,  /* (2,3):(1,8) */
  FSIM_LV_TILER,   /* <4:1,8:1> */
  FSIM_LV_SWIZZLED /* S<3,3,3> o (8,64):(64,1) */
} fsim_layout_value_kind;

typedef struct fsim_layout_value {
  fsim_layout_value_kind kind;
  union {
    int64_t i;
    fsim_itup t;
    fsim_layout l;
    fsim_tiler tiler;
    fsim_composed_layout c;
  } u;
} fsim_layout_value;

/* Evaluates an expression such as "logical_divide((4,2,3):(2,1,8),4:2)".  Errors are
 * FSIM_EINVAL or FSIM_ERANGE with "expression 'TEXT': position N: reason". */
fsim_status fsim_layout_expr(fsim_layout_value *out, const char *text, fsim_err *e);
/* Writes the value in the notation the parser reads back, like snprintf. */
int fsim_layout_value_format(const fsim_layout_value *v, char *buf, size_t n);
/* "integer", "tuple", "layout", "tiler" or "swizzled layout". */
const char *fsim_layout_value_kind_name(fsim_layout_value_kind k);

#endif
