/* The layout algebra: see layout.h for the contract.
 *
 * A layout is stored flat: the leaves' shapes and strides in colexicographic order plus a
 * profile string that records the tree ("(x(xx))").  Evaluation only needs the flat arrays
 * (a mixed-radix split of the index), so it is a short loop; tree operations walk the
 * profile.  Every operation builds its result through a small builder that counts leaves
 * and profile characters against the fixed capacity and checks depth and 64-bit range at
 * the end, so an oversized result is an FSIM_ERANGE error, never an overflow.
 *
 * The algorithms are CuTe's (composition by dividing out strides and modding out shapes
 * over coalesce(a); complement by sorting strides; the right inverse by following the
 * stride-1 chain), written from its documentation.  Where CuTe asserts a divisibility
 * condition at compile time, these functions check it and fail with a message. */
#include "config.h"

#include "kernels/layout.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- profile walking ---- */

static int is_leaf_tok(char c) { return c == 'x' || c == '_'; }

/* The index just past the node that starts at p[i]. */
static int node_end(const char *p, int i) {
  if (p[i] != '(') return i + 1;
  int depth = 0;
  do {
    if (p[i] == '(')
      depth++;
    else if (p[i] == ')')
      depth--;
    i++;
  } while (depth > 0);
  return i;
}

/* Leaf tokens in p[b, e). */
static int leaves_in(const char *p, int b, int e) {
  int n = 0;
  for (int i = b; i < e; i++) n += is_leaf_tok(p[i]);
  return n;
}

static int prof_depth(const char *p) {
  int d = 0, best = 0;
  for (; *p; p++) {
    if (*p == '(')
      best = ++d > best ? d : best;
    else if (*p == ')')
      d--;
  }
  return best;
}

static int prof_rank(const char *p) {
  if (p[0] != '(') return 1;
  int n = 0;
  for (int i = 1; p[i] != ')'; i = node_end(p, i)) n++;
  return n;
}

/* The first token of top-level mode i, or -1.  Mode 0 of a leaf is the leaf itself. */
static int mode_tok(const char *p, int i) {
  if (p[0] != '(') return i == 0 ? 0 : -1;
  int k = 0;
  for (int t = 1; p[t] != ')'; t = node_end(p, t), k++)
    if (k == i) return t;
  return -1;
}

/* ---- the builder ---- */

typedef struct lbuild {
  fsim_layout *l;
  int len;      /* profile characters so far */
  int overflow; /* bit 0: too many leaves; bit 1: profile too long */
} lbuild;

static void lb_begin(lbuild *b, fsim_layout *l) {
  b->l = l;
  b->len = 0;
  b->overflow = 0;
  l->nleaf = 0;
  l->prof[0] = '\0';
}

static void lb_tok(lbuild *b, char c) {
  if (b->len >= FSIM_LAYOUT_MAX_PROFILE) {
    b->overflow |= 2;
    return;
  }
  b->l->prof[b->len++] = c;
  b->l->prof[b->len] = '\0';
}

static void lb_leaf(lbuild *b, int64_t s, int64_t d) {
  if (b->l->nleaf >= FSIM_LAYOUT_MAX_LEAVES) {
    b->overflow |= 1;
    return;
  }
  lb_tok(b, 'x');
  b->l->shape[b->l->nleaf] = s;
  b->l->stride[b->l->nleaf] = d;
  b->l->nleaf++;
}

/* Copies the node of src that starts at token t. */
static void lb_node(lbuild *b, const fsim_layout *src, int t) {
  int end = node_end(src->prof, t), leaf = leaves_in(src->prof, 0, t);
  for (int i = t; i < end; i++) {
    if (src->prof[i] == 'x') {
      lb_leaf(b, src->shape[leaf], src->stride[leaf]);
      leaf++;
    } else {
      lb_tok(b, src->prof[i]);
    }
  }
}

/* Copies the children of the node at token t (the node itself when it is a leaf). */
static void lb_children(lbuild *b, const fsim_layout *src, int t) {
  if (src->prof[t] != '(') {
    lb_node(b, src, t);
    return;
  }
  for (int c = t + 1; src->prof[c] != ')'; c = node_end(src->prof, c)) lb_node(b, src, c);
}

/* Adds the flat modes as a leaf, a flat tuple, or 1:0 when there are none. */
static void lb_flat(lbuild *b, int n, const int64_t *s, const int64_t *d) {
  if (n == 0) {
    lb_leaf(b, 1, 0);
  } else if (n == 1) {
    lb_leaf(b, s[0], d[0]);
  } else {
    lb_tok(b, '(');
    for (int i = 0; i < n; i++) lb_leaf(b, s[i], d[i]);
    lb_tok(b, ')');
  }
}

/* Size and the span of offsets must fit in 64 bits, so evaluation inside the domain cannot
 * overflow. */
static int range_ok(const fsim_layout *l) {
  int64_t size = 1, hi = 0, lo = 0;
  for (int k = 0; k < l->nleaf; k++) {
    int64_t span;
    if (l->stride[k] == INT64_MIN) return 0; /* -2^63 has no positive twin: the parser cannot read it back */
    if (__builtin_mul_overflow(size, l->shape[k], &size)) return 0;
    if (__builtin_mul_overflow(l->shape[k] - 1, l->stride[k], &span)) return 0;
    if (span > 0 ? __builtin_add_overflow(hi, span, &hi) : __builtin_add_overflow(lo, span, &lo)) return 0;
  }
  return hi < INT64_MAX && lo > INT64_MIN; /* the cosize, hi + 1, fits too; and the offsets mirror */
}

/* Finishes a result: capacity, depth and range checks, then copies it out. */
static fsim_status lb_end(lbuild *b, fsim_layout *out, fsim_err *e, const char *what) {
  if (b->overflow & 1)
    return FSIM_ERR(e, FSIM_ERANGE, "%s: the result has more than %d leaves", what, FSIM_LAYOUT_MAX_LEAVES);
  if (b->overflow & 2)
    return FSIM_ERR(e, FSIM_ERANGE, "%s: the result has more than %d profile characters", what,
                    FSIM_LAYOUT_MAX_PROFILE);
  if (prof_depth(b->l->prof) > FSIM_LAYOUT_MAX_DEPTH)
    return FSIM_ERR(e, FSIM_ERANGE, "%s: the result is nested deeper than %d levels", what, FSIM_LAYOUT_MAX_DEPTH);
  if (!range_ok(b->l)) return FSIM_ERR(e, FSIM_ERANGE, "%s: the result's size or offsets overflow 64 bits", what);
  if (out != b->l) *out = *b->l;
  return FSIM_OK;
}

/* "name(a, b)" for messages. */
static const char *describe(char *buf, size_t n, const char *name, const fsim_layout *a, const fsim_layout *b) {
  char fa[384], fb[384];
  fsim_layout_format(a, fa, sizeof fa);
  if (b == NULL) {
    snprintf(buf, n, "%s(%s)", name, fa);
  } else {
    fsim_layout_format(b, fb, sizeof fb);
    snprintf(buf, n, "%s(%s, %s)", name, fa, fb);
  }
  return buf;
}

/* (parts[0], ..., parts[n-1]); name is the operation for messages. */
static fsim_status concat_named(fsim_layout *out, const fsim_layout *parts, int n, const char *name, fsim_err *e) {
  fsim_layout r;
  lbuild b;
  lb_begin(&b, &r);
  lb_tok(&b, '(');
  for (int i = 0; i < n; i++) lb_node(&b, &parts[i], 0);
  lb_tok(&b, ')');
  return lb_end(&b, out, e, name);
}

/* ---- integer tuples ---- */

void fsim_itup_make_int(fsim_itup *out, int64_t v) {
  out->nleaf = 1;
  out->v[0] = v;
  strcpy(out->prof, "x");
}

fsim_status fsim_itup_make_flat(fsim_itup *out, int n, const int64_t *v, fsim_err *e) {
  if (n < 0 || n > FSIM_LAYOUT_MAX_LEAVES)
    return FSIM_ERR(e, FSIM_ERANGE, "a tuple of %d integers: at most %d are allowed", n, FSIM_LAYOUT_MAX_LEAVES);
  if (n == 1) {
    fsim_itup_make_int(out, v[0]);
    return FSIM_OK;
  }
  out->nleaf = n;
  int p = 0;
  out->prof[p++] = '(';
  for (int i = 0; i < n; i++) {
    out->v[i] = v[i];
    out->prof[p++] = 'x';
  }
  out->prof[p++] = ')';
  out->prof[p] = '\0';
  return FSIM_OK;
}

int fsim_itup_size_ok(const fsim_itup *t, int64_t *size) {
  int64_t s = 1;
  int ok = 1;
  for (int i = 0, k = 0; t->prof[i]; i++)
    if (is_leaf_tok(t->prof[i])) {
      if (t->prof[i] == 'x' && __builtin_mul_overflow(s, t->v[k], &s)) ok = 0;
      k++;
    }
  *size = ok ? s : 0;
  return ok;
}


int fsim_itup_rank(const fsim_itup *t) { return prof_rank(t->prof); }
int fsim_itup_depth(const fsim_itup *t) { return prof_depth(t->prof); }

int fsim_itup_equal(const fsim_itup *a, const fsim_itup *b) {
  if (a->nleaf != b->nleaf || strcmp(a->prof, b->prof) != 0) return 0;
  for (int i = 0; i < a->nleaf; i++)
    if (a->v[i] != b->v[i]) return 0;
  return 1;
}

/* ---- building and reading layouts ---- */

void fsim_layout_make_1d(fsim_layout *out, int64_t shape, int64_t stride) {
  out->nleaf = 1;
  out->shape[0] = shape;
  out->stride[0] = stride;
  strcpy(out->prof, "x");
}

fsim_status fsim_layout_make_flat(fsim_layout *out, int n, const int64_t *shape, const int64_t *stride, fsim_err *e) {
  if (n < 1 || n > FSIM_LAYOUT_MAX_LEAVES)
    return FSIM_ERR(e, FSIM_ERANGE, "a layout of %d modes: 1 to %d are allowed", n, FSIM_LAYOUT_MAX_LEAVES);
  fsim_layout r;
  lbuild b;
  lb_begin(&b, &r);
  for (int i = 0; i < n; i++)
    if (shape[i] < 1)
      return FSIM_ERR(e, FSIM_EINVAL, "a layout's shape must be positive, not %lld", (long long)shape[i]);
  lb_flat(&b, n, shape, stride);
  return lb_end(&b, out, e, "make_layout");
}

fsim_status fsim_layout_make(fsim_layout *out, const fsim_itup *shape, const fsim_itup *stride, fsim_err *e) {
  char fs[384], fd[384];
  if (strcmp(shape->prof, stride->prof) != 0 || strchr(shape->prof, '_') != NULL) {
    fsim_itup_format(shape, fs, sizeof fs);
    fsim_itup_format(stride, fd, sizeof fd);
    if (strchr(shape->prof, '_') != NULL || strchr(stride->prof, '_') != NULL)
      return FSIM_ERR(e, FSIM_EINVAL, "make_layout(%s, %s): '_' is not a shape or stride", fs, fd);
    return FSIM_ERR(e, FSIM_EINVAL, "make_layout(%s, %s): the stride is not congruent with the shape", fs, fd);
  }
  for (int i = 0; i < shape->nleaf; i++)
    if (shape->v[i] < 1) {
      fsim_itup_format(shape, fs, sizeof fs);
      return FSIM_ERR(e, FSIM_EINVAL, "make_layout: shape %s: %lld is not positive", fs, (long long)shape->v[i]);
    }
  if (prof_depth(shape->prof) > FSIM_LAYOUT_MAX_DEPTH)
    return FSIM_ERR(e, FSIM_ERANGE, "make_layout: nested deeper than %d levels", FSIM_LAYOUT_MAX_DEPTH);
  fsim_layout r;
  r.nleaf = shape->nleaf;
  strcpy(r.prof, shape->prof);
  memcpy(r.shape, shape->v, sizeof(int64_t) * (size_t)shape->nleaf);
  memcpy(r.stride, stride->v, sizeof(int64_t) * (size_t)shape->nleaf);
  if (!range_ok(&r)) return FSIM_ERR(e, FSIM_ERANGE, "make_layout: the size or the offsets overflow 64 bits");
  *out = r;
  return FSIM_OK;
}

fsim_status fsim_layout_make_major(fsim_layout *out, const fsim_itup *shape, fsim_layout_major major, fsim_err *e) {
  fsim_itup stride = *shape;
  int64_t acc = 1;
  for (int k = 0; k < shape->nleaf; k++) {
    int i = major == FSIM_COL_MAJOR ? k : shape->nleaf - 1 - k;
    stride.v[i] = acc;
    if (shape->v[i] < 1) break; /* fsim_layout_make reports it */
    if (__builtin_mul_overflow(acc, shape->v[i], &acc))
      return FSIM_ERR(e, FSIM_ERANGE, "make_layout: the size overflows 64 bits");
  }
  return fsim_layout_make(out, shape, &stride, e);
}

fsim_status fsim_layout_make_ordered(fsim_layout *out, const fsim_itup *shape, const fsim_itup *order, fsim_err *e) {
  if (order->nleaf != shape->nleaf || strchr(order->prof, '_') != NULL) {
    char fs[384], fo[384];
    fsim_itup_format(shape, fs, sizeof fs);
    fsim_itup_format(order, fo, sizeof fo);
    return FSIM_ERR(e, FSIM_EINVAL, "make_ordered_layout(%s, %s): the order needs one integer per leaf of the shape",
                    fs, fo);
  }
  fsim_itup stride = *shape;
  int done[FSIM_LAYOUT_MAX_LEAVES] = {0};
  int64_t acc = 1;
  for (int n = 0; n < shape->nleaf; n++) {
    int best = -1;
    for (int i = 0; i < shape->nleaf; i++)
      if (!done[i] && (best < 0 || order->v[i] < order->v[best])) best = i;
    done[best] = 1;
    stride.v[best] = acc;
    if (shape->v[best] < 1) break;
    if (__builtin_mul_overflow(acc, shape->v[best], &acc))
      return FSIM_ERR(e, FSIM_ERANGE, "make_ordered_layout: the size overflows 64 bits");
  }
  return fsim_layout_make(out, shape, &stride, e);
}

void fsim_layout_shape(const fsim_layout *l, fsim_itup *shape) {
  shape->nleaf = l->nleaf;
  strcpy(shape->prof, l->prof);
  memcpy(shape->v, l->shape, sizeof(int64_t) * (size_t)l->nleaf);
}

void fsim_layout_stride(const fsim_layout *l, fsim_itup *stride) {
  stride->nleaf = l->nleaf;
  strcpy(stride->prof, l->prof);
  memcpy(stride->v, l->stride, sizeof(int64_t) * (size_t)l->nleaf);
}

int64_t fsim_layout_size(const fsim_layout *l) {
  int64_t s = 1;
  for (int k = 0; k < l->nleaf; k++) s *= l->shape[k];
  return s;
}

int64_t fsim_layout_cosize(const fsim_layout *l) {
  int64_t hi = 0;
  for (int k = 0; k < l->nleaf; k++)
    if (l->stride[k] > 0) hi += (l->shape[k] - 1) * l->stride[k];
  return hi + 1;
}

int fsim_layout_rank(const fsim_layout *l) { return prof_rank(l->prof); }
int fsim_layout_depth(const fsim_layout *l) { return prof_depth(l->prof); }

int fsim_layout_equal(const fsim_layout *a, const fsim_layout *b) {
  if (a->nleaf != b->nleaf || strcmp(a->prof, b->prof) != 0) return 0;
  for (int k = 0; k < a->nleaf; k++)
    if (a->shape[k] != b->shape[k] || a->stride[k] != b->stride[k]) return 0;
  return 1;
}

fsim_status fsim_layout_get(fsim_layout *out, const fsim_layout *l, int i, fsim_err *e) {
  int t = i < 0 ? -1 : mode_tok(l->prof, i);
  if (t < 0) {
    char fl[384];
    fsim_layout_format(l, fl, sizeof fl);
    return FSIM_ERR(e, FSIM_ERANGE, "get(%s, %d): the layout has %d mode%s", fl, i, prof_rank(l->prof),
                    prof_rank(l->prof) == 1 ? "" : "s");
  }
  fsim_layout r;
  lbuild b;
  lb_begin(&b, &r);
  lb_node(&b, l, t);
  return lb_end(&b, out, e, "get");
}

/* ---- evaluation ---- */

int64_t fsim_layout_eval_modes(const fsim_layout *l, const int64_t *crd) {
  const char *p = l->prof;
  if (p[0] != '(') return fsim_layout_eval(l, crd[0]);
  /* One pass over the profile (depth counts the parentheses inside the top level): each leaf
   * of a mode adds its digit of the mode's index (index mod shape, times stride) and passes
   * the quotient on; at the mode's end its last leaf, which takes all that is left rather
   * than a digit, adds the quotient times its shape and stride (digit + shape x quotient is
   * what it had).  A leaf at the top level is a mode of one. */
  int64_t r = 0, i = 0;
  int leaf = 0, m = 0, depth = 0, last = -1;
  for (int t = 1;; t++) {
    char c = p[t];
    if (c == '(') {
      if (depth++ == 0) i = crd[m], last = -1;
    } else if (c == ')') {
      if (depth == 0) break;
      if (--depth == 0) {
        if (last >= 0) r += i * l->shape[last] * l->stride[last];
        m++;
      }
    } else if (is_leaf_tok(c)) {
      if (depth == 0) {
        r += crd[m++] * l->stride[leaf++];
      } else {
        r += (i % l->shape[leaf]) * l->stride[leaf];
        i /= l->shape[leaf];
        last = leaf++;
      }
    } else if (c == '\0') {
      break;
    }
  }
  return r;
}

/* Adds the offset of coordinate node ct of crd inside layout node lt of l; wildcards add 0.
 * Returns 0, or -1 with why filled. */
static int crd_node(const fsim_layout *l, int lt, const fsim_itup *crd, int ct, int64_t *idx, char *why, size_t nwhy) {
  char c = crd->prof[ct];
  if (c == '_') return 0;
  if (c == 'x') {
    int64_t v = crd->v[leaves_in(crd->prof, 0, ct)];
    int l0 = leaves_in(l->prof, 0, lt), n = leaves_in(l->prof, lt, node_end(l->prof, lt));
    int64_t size = 1;
    for (int k = l0; k < l0 + n; k++) size *= l->shape[k];
    if (v < 0 || v >= size) {
      snprintf(why, nwhy, "component %lld is outside a mode of size %lld", (long long)v, (long long)size);
      return -1;
    }
    for (int k = l0; k < l0 + n; k++) {
      *idx += (v % l->shape[k]) * l->stride[k];
      v /= l->shape[k];
    }
    return 0;
  }
  /* a tuple coordinate needs a tuple mode of the same rank */
  if (l->prof[lt] != '(') {
    snprintf(why, nwhy, "the coordinate is not congruent with the shape");
    return -1;
  }
  int a = ct + 1, b = lt + 1;
  while (crd->prof[a] != ')' && l->prof[b] != ')') {
    if (crd_node(l, b, crd, a, idx, why, nwhy) < 0) return -1;
    a = node_end(crd->prof, a);
    b = node_end(l->prof, b);
  }
  if (crd->prof[a] != ')' || l->prof[b] != ')') {
    snprintf(why, nwhy, "the coordinate's rank differs from the shape's");
    return -1;
  }
  return 0;
}

fsim_status fsim_layout_crd2idx(const fsim_layout *l, const fsim_itup *crd, int64_t *idx, fsim_err *e) {
  char why[128];
  int64_t r = 0;
  if (crd_node(l, 0, crd, 0, &r, why, sizeof why) < 0) {
    char fl[384], fc[384];
    fsim_layout_format(l, fl, sizeof fl);
    fsim_itup_format(crd, fc, sizeof fc);
    return FSIM_ERR(e, strstr(why, "outside") ? FSIM_ERANGE : FSIM_EINVAL, "crd2idx(%s, %s): %s", fl, fc, why);
  }
  *idx = r;
  return FSIM_OK;
}

fsim_status fsim_layout_idx2crd(const fsim_layout *l, int64_t idx, fsim_itup *crd, fsim_err *e) {
  int64_t size = fsim_layout_size(l);
  if (idx < 0 || idx >= size) {
    char fl[384];
    fsim_layout_format(l, fl, sizeof fl);
    return FSIM_ERR(e, FSIM_ERANGE, "idx2crd(%s, %lld): the index is outside [0, %lld)", fl, (long long)idx,
                    (long long)size);
  }
  fsim_layout_shape(l, crd);
  for (int k = 0; k < l->nleaf; k++) {
    crd->v[k] = idx % l->shape[k];
    idx /= l->shape[k];
  }
  return FSIM_OK;
}

/* ---- coalesce, filter, flatten ---- */

/* Coalesces n flat modes in place: drops size-1 modes and merges a mode into the previous
 * one when s0*d0 == d1.  Returns the modes left (0 when all had size 1). */
static int coalesce_modes(int n, int64_t *s, int64_t *d) {
  int m = 0;
  for (int i = 0; i < n; i++) {
    int64_t ext;
    if (s[i] == 1) continue;
    if (m > 0 && !__builtin_mul_overflow(s[m - 1], d[m - 1], &ext) && ext == d[i]) {
      s[m - 1] *= s[i];
      continue;
    }
    s[m] = s[i];
    d[m] = d[i];
    m++;
  }
  return m;
}

/* The leaves of node t of l coalesced into s, d; returns their count. */
static int coalesce_node(const fsim_layout *l, int t, int64_t *s, int64_t *d) {
  int l0 = leaves_in(l->prof, 0, t), n = leaves_in(l->prof, t, node_end(l->prof, t));
  memcpy(s, l->shape + l0, sizeof(int64_t) * (size_t)n);
  memcpy(d, l->stride + l0, sizeof(int64_t) * (size_t)n);
  return coalesce_modes(n, s, d);
}

void fsim_layout_coalesce(fsim_layout *out, const fsim_layout *l) {
  int64_t s[FSIM_LAYOUT_MAX_LEAVES], d[FSIM_LAYOUT_MAX_LEAVES];
  int m = coalesce_node(l, 0, s, d);
  fsim_layout r;
  lbuild b;
  lb_begin(&b, &r);
  lb_flat(&b, m, s, d);
  *out = r; /* never larger than l */
}

/* Coalesces node t of l at the leaves of profile node pt of prof. */
static int coalesce_by(lbuild *b, const fsim_layout *l, int t, const fsim_itup *prof, int pt) {
  if (prof->prof[pt] != '(') {
    int64_t s[FSIM_LAYOUT_MAX_LEAVES], d[FSIM_LAYOUT_MAX_LEAVES];
    int m = coalesce_node(l, t, s, d);
    lb_flat(b, m, s, d);
    return 0;
  }
  if (l->prof[t] != '(' && prof_rank(prof->prof + pt) > 1) return -1;
  if (l->prof[t] != '(') return coalesce_by(b, l, t, prof, pt + 1); /* (x) against a leaf */
  lb_tok(b, '(');
  int c = t + 1, q = pt + 1;
  for (; l->prof[c] != ')'; c = node_end(l->prof, c)) {
    if (prof->prof[q] != ')') {
      if (coalesce_by(b, l, c, prof, q) < 0) return -1;
      q = node_end(prof->prof, q);
    } else {
      lb_node(b, l, c);
    }
  }
  if (prof->prof[q] != ')') return -1;
  lb_tok(b, ')');
  return 0;
}

fsim_status fsim_layout_coalesce_by_mode(fsim_layout *out, const fsim_layout *l, const fsim_itup *profile,
                                         fsim_err *e) {
  fsim_layout r;
  lbuild b;
  lb_begin(&b, &r);
  if (coalesce_by(&b, l, 0, profile, 0) < 0) {
    char fl[384], fp[384];
    fsim_layout_format(l, fl, sizeof fl);
    fsim_itup_format(profile, fp, sizeof fp);
    return FSIM_ERR(e, FSIM_EINVAL, "coalesce(%s, %s): the profile has more modes than the layout", fl, fp);
  }
  return lb_end(&b, out, e, "coalesce");
}

void fsim_layout_filter(fsim_layout *out, const fsim_layout *l) {
  fsim_layout z = *l;
  for (int k = 0; k < z.nleaf; k++)
    if (z.stride[k] == 0) z.shape[k] = 1;
  fsim_layout_coalesce(out, &z);
}

void fsim_layout_flatten(fsim_layout *out, const fsim_layout *l) {
  fsim_layout r = *l;
  if (l->prof[0] == '(') {
    int p = 0;
    r.prof[p++] = '(';
    for (int k = 0; k < l->nleaf; k++) r.prof[p++] = 'x';
    r.prof[p++] = ')';
    r.prof[p] = '\0';
  }
  *out = r;
}

/* ---- composition ---- */

/* coalesce(a) as CuTe's coalesce_x: a trailing size-1 leaf is kept (as size 2, which is
 * never read) so that a keeps its meaning past its size, where the last mode extends. */
static int flat_x(const fsim_layout *a, int64_t *s, int64_t *d) {
  int n = a->nleaf;
  if (n == 0) {
    s[0] = 2, d[0] = 0;
    return 1;
  }
  memcpy(s, a->shape, sizeof(int64_t) * (size_t)n);
  memcpy(d, a->stride, sizeof(int64_t) * (size_t)n);
  if (s[n - 1] == 1) s[n - 1] = 2;
  return coalesce_modes(n, s, d);
}

/* a o (s:d) for the flat modes as, ad of coalesce_x(a); adds the result (a leaf or a flat
 * tuple) to the builder and, for each mode k of a, the largest digit the leaf puts there to
 * span[k].  Returns 0, or -1 with why filled. */
static int compose_leaf(lbuild *b, const int64_t *as, const int64_t *ad, int na, int64_t s, int64_t d, int64_t *span,
                        char *why, size_t nwhy) {
  if (d == 0 || (s == 1 && d < 0)) { /* a(0) == 0: a constant mode */
    lb_leaf(b, s, 0);
    return 0;
  }
  if (s == 1) {
    /* a single element, at a(0) == 0; its stride is where the next one would be, a(d) (the
     * last mode of a taking the rest), as CuTe gives rhs_stride * lhs_stride for a one-mode a
     * (d > 0 here: a negative d keeps 0, as above, and is refused on a larger mode).
     * It was 0, and a later composition that runs the index on past the mode's size then
     * broke associativity: (8:1 o 1:1) o 4:1 was 4:0, 8:1 o (1:1 o 4:1) 4:1 */
    int64_t rem = d, v = 0, t;
    for (int k = 0; k < na - 1; k++) {
      if (__builtin_mul_overflow(rem % as[k], ad[k], &t) || __builtin_add_overflow(v, t, &v)) goto overflow;
      rem /= as[k];
    }
    if (__builtin_mul_overflow(rem, ad[na - 1], &t) || __builtin_add_overflow(v, t, &v)) goto overflow;
    lb_leaf(b, 1, v);
    return 0;
  }
  if (d < 0) {
    snprintf(why, nwhy, "has a negative stride");
    return -1;
  }
  int64_t rs[FSIM_LAYOUT_MAX_LEAVES], rd[FSIM_LAYOUT_MAX_LEAVES], step[FSIM_LAYOUT_MAX_LEAVES];
  if (na == 1) {
    if (__builtin_mul_overflow(d, ad[0], &rd[0])) goto overflow;
    lb_leaf(b, s, rd[0]);
    return 0;
  }
  /* Divide the stride out of the modes of a, left to right. */
  int64_t rest = d;
  for (int k = 0; k < na - 1; k++) {
    step[k] = rest;
    if (rest % as[k] == 0) {
      rs[k] = 1, rd[k] = 0;
      rest /= as[k];
    } else if (as[k] % rest == 0) {
      rs[k] = as[k] / rest;
      if (__builtin_mul_overflow(ad[k], rest, &rd[k])) goto overflow;
      rest = 1;
    } else {
      snprintf(why, nwhy,
               "fails the stride divisibility condition: the remaining stride %lld and the mode of size %lld "
               "do not divide each other",
               (long long)rest, (long long)as[k]);
      return -1;
    }
  }
  /* Keep the first s elements, again left to right; the last mode of a takes the rest. */
  int64_t left = s;
  for (int k = 0; k < na - 1; k++) {
    int64_t n = rs[k];
    rs[k] = n < left ? n : left;
    span[k] += (rs[k] - 1) * step[k];
    if (left % n == 0) {
      left /= n;
    } else if (left < n) {
      left = 1;
    } else {
      snprintf(why, nwhy,
               "fails the shape divisibility condition: the remaining size %lld and the mode of size %lld "
               "do not divide each other",
               (long long)left, (long long)n);
      return -1;
    }
  }
  rs[na - 1] = left;
  if (__builtin_mul_overflow(rest, ad[na - 1], &rd[na - 1])) goto overflow;
  int m = coalesce_modes(na, rs, rd);
  lb_flat(b, m, rs, rd);
  return 0;
overflow:
  snprintf(why, nwhy, "gives a stride that overflows 64 bits");
  return -1;
}

fsim_status fsim_layout_compose(fsim_layout *out, const fsim_layout *a, const fsim_layout *b, fsim_err *e) {
  int64_t as[FSIM_LAYOUT_MAX_LEAVES], ad[FSIM_LAYOUT_MAX_LEAVES], span[FSIM_LAYOUT_MAX_LEAVES] = {0};
  int na = flat_x(a, as, ad);
  fsim_layout r;
  lbuild lb;
  lb_begin(&lb, &r);
  char why[256], what[900];
  for (int t = 0, leaf = 0; b->prof[t]; t++) {
    if (b->prof[t] != 'x') {
      lb_tok(&lb, b->prof[t]);
      continue;
    }
    if (compose_leaf(&lb, as, ad, na, b->shape[leaf], b->stride[leaf], span, why, sizeof why) < 0)
      return FSIM_ERR(e, FSIM_EINVAL, "%s: mode %lld:%lld of the right-hand layout %s",
                      describe(what, sizeof what, "composition", a, b), (long long)b->shape[leaf],
                      (long long)b->stride[leaf], why);
    leaf++;
  }
  /* Composing leaf by leaf is exact only when adding the leaves' offsets never carries from
   * one mode of a into the next; otherwise CuTe's by-mode answer is not a o b. */
  for (int k = 0; k < na - 1; k++)
    if (span[k] >= as[k])
      return FSIM_ERR(e, FSIM_EINVAL,
                      "%s: the modes of the right-hand layout overlap in the mode %lld:%lld of the left-hand one "
                      "(their offsets add up past it), so the composition is not a layout",
                      describe(what, sizeof what, "composition", a, b), (long long)as[k], (long long)ad[k]);
  return lb_end(&lb, out, e, describe(what, sizeof what, "composition", a, b));
}

static fsim_status tiler_rank_check(const fsim_layout *a, const fsim_tiler *t, const char *op, fsim_err *e) {
  if (t->rank > fsim_layout_rank(a)) {
    char fa[384], ft[900];
    fsim_layout_format(a, fa, sizeof fa);
    fsim_tiler_format(t, ft, sizeof ft);
    return FSIM_ERR(e, FSIM_EINVAL, "%s(%s, %s): the tiler has %d modes but the layout only %d", op, fa, ft, t->rank,
                    fsim_layout_rank(a));
  }
  return FSIM_OK;
}

fsim_status fsim_layout_compose_tiler(fsim_layout *out, const fsim_layout *a, const fsim_tiler *t, fsim_err *e) {
  if (t->rank == 0) return fsim_layout_compose(out, a, &t->mode[0], e);
  fsim_status st = tiler_rank_check(a, t, "composition", e);
  if (st != FSIM_OK) return st;
  fsim_layout r, ai, ri;
  lbuild b;
  lb_begin(&b, &r);
  lb_tok(&b, '(');
  for (int i = 0; i < t->rank; i++) {
    if ((st = fsim_layout_get(&ai, a, i, e)) != FSIM_OK) return st;
    if ((st = fsim_layout_compose(&ri, &ai, &t->mode[i], e)) != FSIM_OK) return st;
    lb_node(&b, &ri, 0);
  }
  lb_tok(&b, ')');
  return lb_end(&b, out, e, "composition");
}

/* ---- complement and inverses ---- */

fsim_status fsim_layout_complement(fsim_layout *out, const fsim_layout *l, int64_t cotarget, fsim_err *e) {
  char what[900];
  if (cotarget < 1) {
    char fl[384];
    fsim_layout_format(l, fl, sizeof fl);
    return FSIM_ERR(e, FSIM_EINVAL, "complement(%s, %lld): the target size must be positive", fl, (long long)cotarget);
  }
  /* filter: flat modes with stride != 0 and size != 1, sorted by stride */
  int64_t s[FSIM_LAYOUT_MAX_LEAVES], d[FSIM_LAYOUT_MAX_LEAVES];
  int n = 0;
  for (int k = 0; k < l->nleaf; k++) {
    if (l->stride[k] < 0)
      return FSIM_ERR(e, FSIM_EINVAL, "%s: negative strides are not supported",
                      describe(what, sizeof what, "complement", l, NULL));
    if (l->stride[k] == 0 || l->shape[k] == 1) continue;
    int i = n++;
    while (i > 0 && d[i - 1] > l->stride[k]) {
      s[i] = s[i - 1], d[i] = d[i - 1];
      i--;
    }
    s[i] = l->shape[k], d[i] = l->stride[k];
  }
  int64_t rs[FSIM_LAYOUT_MAX_LEAVES + 1], rd[FSIM_LAYOUT_MAX_LEAVES + 1];
  int m = 0;
  int64_t cur = 1; /* the extent covered so far */
  for (int i = 0; i < n; i++) {
    /* the modes below reach past this stride: they interleave with this mode (the layout may
     * still be injective, (2,2):(2,3) is: 0 2 3 5), so no layout fills the gaps */
    if (d[i] < cur)
      return FSIM_ERR(e, FSIM_EINVAL,
                      "%s: no complement exists: stride %lld lies inside the extent %lld of the modes below it (they "
                      "overlap or interleave)",
                      describe(what, sizeof what, "complement", l, NULL), (long long)d[i], (long long)cur);
    if (d[i] % cur != 0)
      return FSIM_ERR(e, FSIM_EINVAL,
                      "%s: no complement exists: stride %lld is not a multiple of %lld, the extent of the "
                      "modes below it",
                      describe(what, sizeof what, "complement", l, NULL), (long long)d[i], (long long)cur);
    rs[m] = d[i] / cur, rd[m] = cur, m++;
    if (__builtin_mul_overflow(d[i], s[i], &cur))
      return FSIM_ERR(e, FSIM_ERANGE, "%s: the extent overflows 64 bits",
                      describe(what, sizeof what, "complement", l, NULL));
  }
  rs[m] = cotarget / cur + (cotarget % cur != 0), rd[m] = cur, m++;
  m = coalesce_modes(m, rs, rd);
  fsim_layout r;
  lbuild b;
  lb_begin(&b, &r);
  lb_flat(&b, m, rs, rd);
  return lb_end(&b, out, e, "complement");
}

fsim_status fsim_layout_right_inverse(fsim_layout *out, const fsim_layout *l, fsim_err *e) {
  int64_t s[FSIM_LAYOUT_MAX_LEAVES], d[FSIM_LAYOUT_MAX_LEAVES], col[FSIM_LAYOUT_MAX_LEAVES];
  int m = coalesce_node(l, 0, s, d);
  int64_t acc = 1;
  for (int k = 0; k < m; k++) {
    if (d[k] < 0) {
      char what[900];
      return FSIM_ERR(e, FSIM_EINVAL, "%s: negative strides are not supported",
                      describe(what, sizeof what, "right_inverse", l, NULL));
    }
    col[k] = acc;
    acc *= s[k];
  }
  /* Follow the chain: the mode of stride 1, then the mode whose stride is its extent, ... */
  int64_t rs[FSIM_LAYOUT_MAX_LEAVES], rd[FSIM_LAYOUT_MAX_LEAVES];
  int used[FSIM_LAYOUT_MAX_LEAVES] = {0}, n = 0;
  int64_t next = 1;
  for (;;) {
    int k = 0;
    while (k < m && (used[k] || d[k] != next)) k++;
    if (k == m) break;
    used[k] = 1;
    rs[n] = s[k], rd[n] = col[k], n++;
    next = s[k] * d[k];
  }
  fsim_layout r;
  lbuild b;
  lb_begin(&b, &r);
  lb_flat(&b, n, rs, rd);
  return lb_end(&b, out, e, "right_inverse");
}

fsim_status fsim_layout_left_inverse(fsim_layout *out, const fsim_layout *l, fsim_err *e) {
  fsim_layout parts[2];
  fsim_layout f;
  for (int k = 0; k < l->nleaf; k++)
    if (l->stride[k] == 0 && l->shape[k] > 1) {
      char what[900];
      return FSIM_ERR(e, FSIM_EINVAL, "%s: the layout is not injective (a mode of size %lld has stride 0)",
                      describe(what, sizeof what, "left_inverse", l, NULL), (long long)l->shape[k]);
    }
  fsim_layout_filter(&f, l);
  parts[0] = *l;
  fsim_status st = fsim_layout_complement(&parts[1], l, fsim_layout_cosize(&f), e);
  if (st == FSIM_OK) st = concat_named(&f, parts, 2, "left_inverse", e);
  if (st == FSIM_OK) st = fsim_layout_right_inverse(out, &f, e);
  return st;
}

/* ---- divides and products ---- */

/* a o (t, complement(t, size(a))) */
static fsim_status divide1(fsim_layout *out, const fsim_layout *a, const fsim_layout *t, fsim_err *e) {
  fsim_layout parts[2], bb;
  parts[0] = *t;
  fsim_status st = fsim_layout_complement(&parts[1], t, fsim_layout_size(a), e);
  if (st == FSIM_OK) st = concat_named(&bb, parts, 2, "logical_divide", e);
  if (st == FSIM_OK) st = fsim_layout_compose(out, a, &bb, e);
  return st;
}

/* (a, complement(a, size(a)*cosize(t)) o t); errors name `name`, the function the user called */
static fsim_status product_named(fsim_layout *out, const fsim_layout *a, const fsim_layout *t, const char *name,
                                 fsim_err *e) {
  fsim_layout parts[2], c;
  int64_t target;
  if (__builtin_mul_overflow(fsim_layout_size(a), fsim_layout_cosize(t), &target))
    return FSIM_ERR(e, FSIM_ERANGE, "%s: size(A)*cosize(B) overflows 64 bits", name);
  parts[0] = *a;
  fsim_status st = fsim_layout_complement(&c, a, target, e);
  if (st == FSIM_OK) st = fsim_layout_compose(&parts[1], &c, t, e);
  if (st == FSIM_OK) st = concat_named(out, parts, 2, name, e);
  return st;
}

static fsim_status product1(fsim_layout *out, const fsim_layout *a, const fsim_layout *t, fsim_err *e) {
  return product_named(out, a, t, "logical_product", e);
}
/* the same for the products built on logical_product, so that their errors name them */
static fsim_status product1_zipped(fsim_layout *out, const fsim_layout *a, const fsim_layout *t, fsim_err *e) {
  return product_named(out, a, t, "zipped_product", e);
}
static fsim_status product1_tiled(fsim_layout *out, const fsim_layout *a, const fsim_layout *t, fsim_err *e) {
  return product_named(out, a, t, "tiled_product", e);
}
static fsim_status product1_flat(fsim_layout *out, const fsim_layout *a, const fsim_layout *t, fsim_err *e) {
  return product_named(out, a, t, "flat_product", e);
}

typedef fsim_status (*mode_op)(fsim_layout *, const fsim_layout *, const fsim_layout *, fsim_err *);

/* op with a layout tiler, or by mode keeping the modes the tiler does not name. */
static fsim_status by_mode(fsim_layout *out, const fsim_layout *a, const fsim_tiler *t, mode_op op, const char *name,
                           fsim_err *e) {
  if (t->rank == 0) return op(out, a, &t->mode[0], e);
  fsim_status st = tiler_rank_check(a, t, name, e);
  if (st != FSIM_OK) return st;
  fsim_layout r, ai, ri;
  lbuild b;
  lb_begin(&b, &r);
  lb_tok(&b, '(');
  int rank = fsim_layout_rank(a);
  for (int i = 0; i < rank; i++) {
    if ((st = fsim_layout_get(&ai, a, i, e)) != FSIM_OK) return st;
    if (i < t->rank) {
      if ((st = op(&ri, &ai, &t->mode[i], e)) != FSIM_OK) return st;
      lb_node(&b, &ri, 0);
    } else {
      lb_node(&b, &ai, 0);
    }
  }
  lb_tok(&b, ')');
  return lb_end(&b, out, e, name);
}

/* ((m0.0, m1.0, ...), (m0.1, m1.1, ..., rest...)) from a by-mode divide or product whose
 * first k modes are (tile, rest) pairs; a layout tiler's result is already (tile, rest). */
static fsim_status zip2(fsim_layout *out, const fsim_layout *l, int k, const char *name, fsim_err *e) {
  if (k == 0) {
    if (out != l) *out = *l;
    return FSIM_OK;
  }
  fsim_layout r;
  lbuild b;
  lb_begin(&b, &r);
  lb_tok(&b, '(');
  for (int half = 0; half < 2; half++) {
    lb_tok(&b, '(');
    for (int i = 0; i < k; i++) {
      int t = mode_tok(l->prof, i);
      lb_node(&b, l, mode_tok(l->prof + t, half) + t);
    }
    if (half == 1)
      for (int i = k, t; (t = mode_tok(l->prof, i)) >= 0; i++) lb_node(&b, l, t);
    lb_tok(&b, ')');
  }
  lb_tok(&b, ')');
  return lb_end(&b, out, e, name);
}

/* Unpacks the second (tiled) or both (flat) modes of a zipped result. */
static fsim_status unpack(fsim_layout *out, const fsim_layout *z, int both, const char *name, fsim_err *e) {
  fsim_layout r;
  lbuild b;
  lb_begin(&b, &r);
  lb_tok(&b, '(');
  int t0 = mode_tok(z->prof, 0), t1 = mode_tok(z->prof, 1);
  if (both)
    lb_children(&b, z, t0);
  else
    lb_node(&b, z, t0);
  lb_children(&b, z, t1);
  lb_tok(&b, ')');
  return lb_end(&b, out, e, name);
}

fsim_status fsim_layout_logical_divide(fsim_layout *out, const fsim_layout *a, const fsim_tiler *t, fsim_err *e) {
  return by_mode(out, a, t, divide1, "logical_divide", e);
}

fsim_status fsim_layout_zipped_divide(fsim_layout *out, const fsim_layout *a, const fsim_tiler *t, fsim_err *e) {
  fsim_layout l;
  fsim_status st = fsim_layout_logical_divide(&l, a, t, e);
  return st != FSIM_OK ? st : zip2(out, &l, t->rank, "zipped_divide", e);
}

fsim_status fsim_layout_tiled_divide(fsim_layout *out, const fsim_layout *a, const fsim_tiler *t, fsim_err *e) {
  fsim_layout z;
  fsim_status st = fsim_layout_zipped_divide(&z, a, t, e);
  return st != FSIM_OK ? st : unpack(out, &z, 0, "tiled_divide", e);
}

fsim_status fsim_layout_flat_divide(fsim_layout *out, const fsim_layout *a, const fsim_tiler *t, fsim_err *e) {
  fsim_layout z;
  fsim_status st = fsim_layout_zipped_divide(&z, a, t, e);
  return st != FSIM_OK ? st : unpack(out, &z, 1, "flat_divide", e);
}

fsim_status fsim_layout_logical_product(fsim_layout *out, const fsim_layout *a, const fsim_tiler *t, fsim_err *e) {
  return by_mode(out, a, t, product1, "logical_product", e);
}

/* logical_product then zipped, its errors naming `name` through `op` */
static fsim_status zipped_as(fsim_layout *out, const fsim_layout *a, const fsim_tiler *t, mode_op op, const char *name,
                             fsim_err *e) {
  fsim_layout l;
  fsim_status st = by_mode(&l, a, t, op, name, e);
  return st != FSIM_OK ? st : zip2(out, &l, t->rank, name, e);
}

fsim_status fsim_layout_zipped_product(fsim_layout *out, const fsim_layout *a, const fsim_tiler *t, fsim_err *e) {
  return zipped_as(out, a, t, product1_zipped, "zipped_product", e);
}

fsim_status fsim_layout_tiled_product(fsim_layout *out, const fsim_layout *a, const fsim_tiler *t, fsim_err *e) {
  fsim_layout z;
  fsim_status st = zipped_as(&z, a, t, product1_tiled, "tiled_product", e);
  return st != FSIM_OK ? st : unpack(out, &z, 0, "tiled_product", e);
}

fsim_status fsim_layout_flat_product(fsim_layout *out, const fsim_layout *a, const fsim_tiler *t, fsim_err *e) {
  fsim_layout z;
  fsim_status st = zipped_as(&z, a, t, product1_flat, "flat_product", e);
  return st != FSIM_OK ? st : unpack(out, &z, 1, "flat_product", e);
}

/* l padded with 1:0 modes to rank r (CuTe append<R>); a leaf becomes a tuple when r > 1. */
static fsim_status pad_rank(fsim_layout *out, const fsim_layout *l, int r, fsim_err *e) {
  int have = fsim_layout_rank(l);
  if (have >= r) {
    *out = *l;
    return FSIM_OK;
  }
  fsim_layout p;
  lbuild b;
  lb_begin(&b, &p);
  lb_tok(&b, '(');
  lb_children(&b, l, 0);
  for (int i = have; i < r; i++) lb_leaf(&b, 1, 0);
  lb_tok(&b, ')');
  return lb_end(&b, out, e, "append");
}

static fsim_status rank_product(fsim_layout *out, const fsim_layout *a, const fsim_layout *bl, int raked, fsim_err *e) {
  const char *name = raked ? "raked_product" : "blocked_product";
  int ra = fsim_layout_rank(a), rb = fsim_layout_rank(bl), r = ra > rb ? ra : rb;
  fsim_layout pa, pb, p;
  fsim_status st = pad_rank(&pa, a, r, e);
  if (st == FSIM_OK) st = pad_rank(&pb, bl, r, e);
  if (st == FSIM_OK) st = product_named(&p, &pa, &pb, name, e);
  if (st != FSIM_OK) return st;
  /* p = (A, C) with C congruent to B: zip mode i of A with mode i of C and coalesce each */
  int ta = mode_tok(p.prof, 0), tc = mode_tok(p.prof, 1);
  /* rank 1: A and C are each the one mode, whatever their nesting (C, congruent with B, may be
   * a tuple like (2,2) for B = 4:1; its first child is not its mode) */
  fsim_layout res;
  lbuild b;
  lb_begin(&b, &res);
  lb_tok(&b, '(');
  for (int i = 0; i < r; i++) {
    int xa = r == 1 ? ta : mode_tok(p.prof + ta, i) + ta, xc = r == 1 ? tc : mode_tok(p.prof + tc, i) + tc;
    fsim_layout pair;
    lbuild bp;
    lb_begin(&bp, &pair);
    lb_tok(&bp, '(');
    lb_node(&bp, &p, raked ? xc : xa);
    lb_node(&bp, &p, raked ? xa : xc);
    lb_tok(&bp, ')');
    if (bp.overflow) b.overflow |= bp.overflow;
    fsim_layout_coalesce(&pair, &pair);
    lb_node(&b, &pair, 0);
  }
  lb_tok(&b, ')');
  return lb_end(&b, out, e, name);
}

fsim_status fsim_layout_blocked_product(fsim_layout *out, const fsim_layout *a, const fsim_layout *b, fsim_err *e) {
  return rank_product(out, a, b, 0, e);
}

fsim_status fsim_layout_raked_product(fsim_layout *out, const fsim_layout *a, const fsim_layout *b, fsim_err *e) {
  return rank_product(out, a, b, 1, e);
}

/* ---- slicing ---- */

/* Adds the modes of node lt of l kept by coordinate node ct: all of it for '_', those of
 * its children for a tuple (flattened into the parent, as CuTe does), none for an integer. */
static void slice_node(lbuild *b, const fsim_layout *l, int lt, const fsim_itup *crd, int ct) {
  if (crd->prof[ct] == '_') {
    lb_node(b, l, lt);
  } else if (crd->prof[ct] == '(') {
    for (int a = ct + 1, c = lt + 1; crd->prof[a] != ')'; a = node_end(crd->prof, a), c = node_end(l->prof, c))
      slice_node(b, l, c, crd, a);
  }
}

fsim_status fsim_layout_slice(fsim_layout *out, int64_t *offset, const fsim_layout *l, const fsim_itup *crd,
                              fsim_err *e) {
  int64_t off = 0;
  char why[128];
  if (crd_node(l, 0, crd, 0, &off, why, sizeof why) < 0) {
    char fl[384], fc[384];
    fsim_layout_format(l, fl, sizeof fl);
    fsim_itup_format(crd, fc, sizeof fc);
    return FSIM_ERR(e, strstr(why, "outside") ? FSIM_ERANGE : FSIM_EINVAL, "slice(%s, %s): %s", fl, fc, why);
  }
  fsim_layout r;
  lbuild b;
  lb_begin(&b, &r);
  if (crd->prof[0] == '_') {
    lb_node(&b, l, 0);
  } else {
    lb_tok(&b, '(');
    slice_node(&b, l, 0, crd, 0);
    lb_tok(&b, ')');
  }
  fsim_status st = lb_end(&b, out, e, "slice");
  if (st == FSIM_OK && offset != NULL) *offset = off;
  return st;
}

/* ---- structure ---- */

fsim_status fsim_layout_append(fsim_layout *out, const fsim_layout *l, const fsim_layout *m, fsim_err *e) {
  fsim_layout r;
  lbuild b;
  lb_begin(&b, &r);
  lb_tok(&b, '(');
  lb_children(&b, l, 0);
  lb_node(&b, m, 0);
  lb_tok(&b, ')');
  return lb_end(&b, out, e, "append");
}

fsim_status fsim_layout_prepend(fsim_layout *out, const fsim_layout *l, const fsim_layout *m, fsim_err *e) {
  fsim_layout r;
  lbuild b;
  lb_begin(&b, &r);
  lb_tok(&b, '(');
  lb_node(&b, m, 0);
  lb_children(&b, l, 0);
  lb_tok(&b, ')');
  return lb_end(&b, out, e, "prepend");
}

fsim_status fsim_layout_group(fsim_layout *out, const fsim_layout *l, int b_, int e_, fsim_err *e) {
  int rank = fsim_layout_rank(l);
  if (b_ < 0 || e_ > rank || b_ >= e_) {
    char fl[384];
    fsim_layout_format(l, fl, sizeof fl);
    return FSIM_ERR(e, FSIM_ERANGE, "group(%s, %d, %d): needs 0 <= begin < end <= %d", fl, b_, e_, rank);
  }
  fsim_layout r;
  lbuild b;
  lb_begin(&b, &r);
  lb_tok(&b, '(');
  for (int i = 0; i < rank; i++) {
    if (i == b_) lb_tok(&b, '(');
    lb_node(&b, l, mode_tok(l->prof, i));
    if (i == e_ - 1) lb_tok(&b, ')');
  }
  lb_tok(&b, ')');
  return lb_end(&b, out, e, "group");
}

fsim_status fsim_layout_concat(fsim_layout *out, const fsim_layout *parts, int n, fsim_err *e) {
  return concat_named(out, parts, n, "make_layout", e);
}

fsim_status fsim_layout_select(fsim_layout *out, const fsim_layout *l, const int *idx, int n, fsim_err *e) {
  fsim_layout r;
  lbuild b;
  lb_begin(&b, &r);
  lb_tok(&b, '(');
  for (int i = 0; i < n; i++) {
    int t = idx[i] < 0 ? -1 : mode_tok(l->prof, idx[i]);
    if (t < 0) {
      char fl[384];
      fsim_layout_format(l, fl, sizeof fl);
      return FSIM_ERR(e, FSIM_ERANGE, "select(%s): mode %d does not exist (rank %d)", fl, idx[i], fsim_layout_rank(l));
    }
    lb_node(&b, l, t);
  }
  lb_tok(&b, ')');
  return lb_end(&b, out, e, "select");
}

/* ---- tilers ---- */

void fsim_tiler_from_layout(fsim_tiler *t, const fsim_layout *l) {
  t->rank = 0;
  t->mode[0] = *l;
}

fsim_status fsim_tiler_from_shape(fsim_tiler *t, const fsim_itup *shape, fsim_err *e) {
  if (shape->prof[0] != '(') {
    if (shape->prof[0] != 'x' || shape->v[0] < 1)
      return FSIM_ERR(e, FSIM_EINVAL, "a tiler shape must be positive integers");
    t->rank = 0;
    fsim_layout_make_1d(&t->mode[0], shape->v[0], 1);
    return FSIM_OK;
  }
  char fs[384];
  fsim_itup_format(shape, fs, sizeof fs);
  if (prof_depth(shape->prof) > 1)
    return FSIM_ERR(e, FSIM_EINVAL, "tiler %s: a shape used as a tiler must be flat (write <L0,L1,...> instead)", fs);
  if (shape->nleaf > FSIM_TILER_MAX_MODES)
    return FSIM_ERR(e, FSIM_ERANGE, "tiler %s: at most %d modes", fs, FSIM_TILER_MAX_MODES);
  if (shape->nleaf == 0) return FSIM_ERR(e, FSIM_EINVAL, "tiler (): a tiler needs at least one mode");
  for (int i = 0; i < shape->nleaf; i++) {
    if (shape->prof[i + 1] != 'x' || shape->v[i] < 1)
      return FSIM_ERR(e, FSIM_EINVAL, "tiler %s: a shape used as a tiler must be positive integers", fs);
    fsim_layout_make_1d(&t->mode[i], shape->v[i], 1);
  }
  t->rank = shape->nleaf;
  return FSIM_OK;
}

int fsim_tiler_format(const fsim_tiler *t, char *buf, size_t n) {
  if (t->rank == 0) return fsim_layout_format(&t->mode[0], buf, n);
  size_t len = 0;
  char part[FSIM_LAYOUT_TEXT_MAX];
  for (int i = 0; i <= t->rank; i++) {
    const char *s = part;
    if (i == t->rank)
      s = ">";
    else
      fsim_layout_format(&t->mode[i], part, sizeof part);
    int w = snprintf(len < n ? buf + len : NULL, len < n ? n - len : 0, "%s%s",
                     i == 0        ? "<"
                     : i < t->rank ? ","
                                   : "",
                     s);
    len += (size_t)w;
  }
  return (int)len;
}

/* ---- swizzles ---- */

fsim_status fsim_swizzle_make(fsim_swizzle *out, int b, int m, int s, fsim_err *e) {
  int as = s < 0 ? -s : s;
  if (b < 0 || m < 0) return FSIM_ERR(e, FSIM_EINVAL, "swizzle S<%d,%d,%d>: B and M must not be negative", b, m, s);
  if (as < b) return FSIM_ERR(e, FSIM_EINVAL, "swizzle S<%d,%d,%d>: |S| must be at least B", b, m, s);
  if (b + m + as > 62) return FSIM_ERR(e, FSIM_ERANGE, "swizzle S<%d,%d,%d>: B+M+|S| must be at most 62", b, m, s);
  out->b = b, out->m = m, out->s = s;
  out->ymask = (((int64_t)1 << b) - 1) << (m + (s > 0 ? s : 0));
  return FSIM_OK;
}

int64_t fsim_swizzle_period(const fsim_swizzle *sw) {
  return (int64_t)1 << (sw->b + sw->m + (sw->s < 0 ? -sw->s : sw->s));
}

int fsim_swizzle_leaves(const fsim_swizzle *sw, int64_t elements, int64_t *top) {
  *top = 0;
  if (sw->b == 0) return 0;
  for (int64_t x = 0; x < elements && x < (INT64_C(1) << 20); x++) {
    int64_t y = fsim_swizzle_apply(sw, x);
    if (y > *top) *top = y;
  }
  return *top >= elements || (elements >= (INT64_C(1) << 20) && elements % fsim_swizzle_period(sw) != 0);
}

void fsim_composed_make(fsim_composed_layout *out, const fsim_swizzle *sw, int64_t offset, const fsim_layout *l) {
  out->sw = *sw;
  out->offset = offset;
  if (&out->layout != l) out->layout = *l;
}

int64_t fsim_composed_size(const fsim_composed_layout *c) { return fsim_layout_size(&c->layout); }

int64_t fsim_composed_cosize(const fsim_composed_layout *c) {
  if (c->sw.ymask == 0) return c->offset + fsim_layout_cosize(&c->layout); /* no swizzle: no need to evaluate */
  /* 1 + the largest value, as without a swizzle (it started from -1, so values all below zero
   * gave 0 swizzled and their own cosize unswizzled) */
  int64_t n = fsim_layout_size(&c->layout), hi = INT64_MIN;
  for (int64_t i = 0; i < n; i++) {
    int64_t v = fsim_composed_eval(c, i);
    if (v > hi) hi = v;
  }
  return n > 0 ? hi + 1 : 0;
}
