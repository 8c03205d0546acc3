/* Text for the layout algebra: printing and parsing tuples, layouts and swizzled layouts,
 * and the expression language of `flysim layout` (docs/layout.md).
 *
 * The notation is CuTe's: "(4,(2,8)):(2,(1,8))", "8:1", tilers "<4:1,8:1>", swizzles
 * "S<3,3,3> o (8,64):(64,1)" (CuTe's "Sw<3,3,3> o _0 o ..." and its static "_4" integers are
 * accepted so printed CuTe output can be pasted).  Expressions are function calls over these
 * literals, parsed by recursive descent: our own small language, so a hand-written parser
 * with exact positions beats a generated one.  Every syntax error names the text, the
 * 1-based character position and what was expected; errors from the algebra get the
 * position of the call that raised them.  Function arguments are allocated per call so deep
 * nesting does not pile large values onto the stack. */
#include "config.h"

#include "kernels/layout.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- printing ---- */

typedef struct sbuf {
  char *buf;
  size_t n, len;
} sbuf;

static void sb_put(sbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void sb_put(sbuf *b, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  int w = vsnprintf(b->len < b->n ? b->buf + b->len : NULL, b->len < b->n ? b->n - b->len : 0, fmt, ap);
  va_end(ap);
  if (w > 0) b->len += (size_t)w;
}

static void sb_tuple(sbuf *b, const char *prof, const int64_t *v) {
  int leaf = 0;
  char prev = '(';
  if (b->n > 0 && b->len == 0) b->buf[0] = '\0';
  for (const char *c = prof; *c; prev = *c++) {
    if (*c != ')' && prev != '(') sb_put(b, ",");
    if (*c == '(' || *c == ')') {
      sb_put(b, "%c", *c);
    } else if (*c == '_') {
      sb_put(b, "_");
      leaf++;
    } else {
      sb_put(b, "%lld", (long long)v[leaf++]);
    }
  }
}

int fsim_itup_format(const fsim_itup *t, char *buf, size_t n) {
  sbuf b = {buf, n, 0};
  sb_tuple(&b, t->prof, t->v);
  return (int)b.len;
}

int fsim_layout_format(const fsim_layout *l, char *buf, size_t n) {
  sbuf b = {buf, n, 0};
  sb_tuple(&b, l->prof, l->shape);
  sb_put(&b, ":");
  sb_tuple(&b, l->prof, l->stride);
  return (int)b.len;
}

int fsim_composed_format(const fsim_composed_layout *c, char *buf, size_t n) {
  sbuf b = {buf, n, 0};
  if (b.n > 0) b.buf[0] = '\0';
  if (c->sw.b != 0 || c->offset != 0) sb_put(&b, "S<%d,%d,%d> o ", c->sw.b, c->sw.m, c->sw.s);
  if (c->offset != 0) sb_put(&b, "%lld o ", (long long)c->offset);
  sb_tuple(&b, c->layout.prof, c->layout.shape);
  sb_put(&b, ":");
  sb_tuple(&b, c->layout.prof, c->layout.stride);
  return (int)b.len;
}

const char *fsim_layout_value_kind_name(fsim_layout_value_kind k) {
  switch (k) {
  case FSIM_LV_INT: return "integer";
  case FSIM_LV_TUPLE: return "tuple";
  case FSIM_LV_LAYOUT: return "layout";
  case FSIM_LV_TILER: return "tiler";
  case FSIM_LV_SWIZZLED: return "swizzled layout";
  }
  return "value";
}

int fsim_layout_value_format(const fsim_layout_value *v, char *buf, size_t n) {
  switch (v->kind) {
  case FSIM_LV_INT: return snprintf(buf, n, "%lld", (long long)v->u.i);
  case FSIM_LV_TUPLE: return fsim_itup_format(&v->u.t, buf, n);
  case FSIM_LV_LAYOUT: return fsim_layout_format(&v->u.l, buf, n);
  case FSIM_LV_TILER: return fsim_tiler_format(&v->u.tiler, buf, n);
  case FSIM_LV_SWIZZLED: return fsim_composed_format(&v->u.c, buf, n);
  }
  return snprintf(buf, n, "?");
}

/* ---- the scanner ---- */

#define EXPR_MAX_ARGS 8
#define EXPR_MAX_NESTING 32

typedef struct pstate {
  const char *text;
  const char *what; /* "layout", "tuple" or "expression", for messages */
  size_t pos;
  fsim_err *e;
  int nesting;
} pstate;

/* Records a syntax or evaluation error at character at (0-based). */
static fsim_status perr(pstate *p, size_t at, fsim_status code, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static fsim_status perr(pstate *p, size_t at, fsim_status code, const char *fmt, ...) {
  char why[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(why, sizeof why, fmt, ap);
  va_end(ap);
  return FSIM_ERR(p->e, code, "%s '%.200s': position %zu: %s", p->what, p->text, at + 1, why);
}

/* Gives an error from the algebra the text and position of the call that raised it. */
static fsim_status pfail(pstate *p, size_t at, fsim_status st) {
  fsim_err_prefix(p->e, "%s '%.200s': position %zu", p->what, p->text, at + 1);
  return st;
}

static void skip_ws(pstate *p) {
  while (isspace((unsigned char)p->text[p->pos])) p->pos++;
}

/* "found X" for messages. */
static const char *found(const pstate *p, char *buf, size_t n) {
  char c = p->text[p->pos];
  if (c == '\0')
    snprintf(buf, n, "the end of the text");
  else
    snprintf(buf, n, "'%c'", c);
  return buf;
}

static int is_ident(char c) { return isalnum((unsigned char)c) || c == '_'; }

/* An integer: -12, 12 or CuTe's static _12. */
static fsim_status parse_int(pstate *p, int64_t *out) {
  size_t at = p->pos;
  int neg = 0;
  if (p->text[p->pos] == '_')
    p->pos++;
  else if (p->text[p->pos] == '-')
    neg = 1, p->pos++;
  if (!isdigit((unsigned char)p->text[p->pos])) {
    char f[32];
    return perr(p, p->pos, FSIM_EINVAL, "expected a digit, found %s", found(p, f, sizeof f));
  }
  int64_t v = 0;
  while (isdigit((unsigned char)p->text[p->pos])) {
    int d = p->text[p->pos++] - '0';
    if (v > (INT64_MAX - d) / 10) return perr(p, at, FSIM_ERANGE, "number out of range");
    v = v * 10 + d;
  }
  *out = neg ? -v : v;
  return FSIM_OK;
}

/* A tuple being parsed, with the position of each leaf for later messages. */
typedef struct tparse {
  fsim_itup t;
  size_t leafpos[FSIM_LAYOUT_MAX_LEAVES];
  int len;
} tparse;

static fsim_status tp_tok(pstate *p, tparse *tp, char c, size_t at) {
  if (tp->len >= FSIM_LAYOUT_MAX_PROFILE)
    return perr(p, at, FSIM_ERANGE, "the tuple is too large (more than %d parentheses and integers)",
                FSIM_LAYOUT_MAX_PROFILE);
  if ((c == 'x' || c == '_') && tp->t.nleaf >= FSIM_LAYOUT_MAX_LEAVES)
    return perr(p, at, FSIM_ERANGE, "more than %d integers in one tuple", FSIM_LAYOUT_MAX_LEAVES);
  tp->t.prof[tp->len++] = c;
  tp->t.prof[tp->len] = '\0';
  return FSIM_OK;
}

static fsim_status parse_tuple_node(pstate *p, tparse *tp, int allow_wild, int depth) {
  fsim_status st;
  char f[32];
  skip_ws(p);
  size_t at = p->pos;
  char c = p->text[at];
  if (c == '(') {
    if (depth >= FSIM_LAYOUT_MAX_DEPTH)
      return perr(p, at, FSIM_ERANGE, "nested deeper than %d levels", FSIM_LAYOUT_MAX_DEPTH);
    if ((st = tp_tok(p, tp, '(', at)) != FSIM_OK) return st;
    p->pos++;
    skip_ws(p);
    if (p->text[p->pos] == ')') {
      p->pos++;
      return tp_tok(p, tp, ')', at);
    }
    for (;;) {
      if ((st = parse_tuple_node(p, tp, allow_wild, depth + 1)) != FSIM_OK) return st;
      skip_ws(p);
      if (p->text[p->pos] == ',') {
        p->pos++;
        continue;
      }
      if (p->text[p->pos] == ')') {
        p->pos++;
        return tp_tok(p, tp, ')', at);
      }
      return perr(p, p->pos, FSIM_EINVAL, "expected ',' or ')', found %s", found(p, f, sizeof f));
    }
  }
  if (c == '_' && !isdigit((unsigned char)p->text[at + 1])) {
    if (!allow_wild) return perr(p, at, FSIM_EINVAL, "'_' is only allowed in a coordinate");
    if ((st = tp_tok(p, tp, '_', at)) != FSIM_OK) return st;
    tp->leafpos[tp->t.nleaf] = at;
    tp->t.v[tp->t.nleaf++] = 0;
    p->pos++;
    return FSIM_OK;
  }
  if (c == '-' || c == '_' || isdigit((unsigned char)c)) {
    int64_t v;
    if ((st = tp_tok(p, tp, 'x', at)) != FSIM_OK) return st;
    if ((st = parse_int(p, &v)) != FSIM_OK) return st;
    tp->leafpos[tp->t.nleaf] = at;
    tp->t.v[tp->t.nleaf++] = v;
    return FSIM_OK;
  }
  return perr(p, at, FSIM_EINVAL, "expected a number, '_' or '(', found %s", found(p, f, sizeof f));
}

static fsim_status parse_tuple(pstate *p, tparse *tp, int allow_wild) {
  tp->t.nleaf = 0;
  tp->t.prof[0] = '\0';
  tp->len = 0;
  return parse_tuple_node(p, tp, allow_wild, 0);
}

/* The profile index of leaf i. */
static int leaf_tok(const char *prof, int i) {
  int t = 0;
  for (int k = -1; prof[t]; t++)
    if ((prof[t] == 'x' || prof[t] == '_') && ++k == i) break;
  return t;
}

/* The layout shape:stride once shape has been read (at is where it started). */
static fsim_status finish_layout(pstate *p, const tparse *shape, size_t at, fsim_layout *out) {
  fsim_status st;
  tparse stride;
  for (int i = 0; i < shape->t.nleaf; i++) {
    if (shape->t.prof[leaf_tok(shape->t.prof, i)] == '_')
      return perr(p, shape->leafpos[i], FSIM_EINVAL, "'_' is only allowed in a coordinate");
    if (shape->t.v[i] < 1)
      return perr(p, shape->leafpos[i], FSIM_EINVAL, "shape %lld is not positive", (long long)shape->t.v[i]);
  }
  p->pos++; /* ':' */
  skip_ws(p);
  size_t sat = p->pos;
  if ((st = parse_tuple(p, &stride, 0)) != FSIM_OK) return st;
  if (strcmp(stride.t.prof, shape->t.prof) != 0) {
    char fs[384];
    fsim_itup_format(&shape->t, fs, sizeof fs);
    return perr(p, sat, FSIM_EINVAL, "the stride is not congruent with the shape %s", fs);
  }
  if (fsim_layout_make(out, &shape->t, &stride.t, p->e) != FSIM_OK) return pfail(p, at, p->e->code);
  return FSIM_OK;
}

/* ---- parsing tuples and layouts ---- */

fsim_status fsim_itup_parse(fsim_itup *out, const char *text, int allow_wildcard, fsim_err *e) {
  fsim_err local;
  pstate p = {text, "tuple", 0, e ? e : &local, 0};
  tparse tp;
  fsim_status st = parse_tuple(&p, &tp, allow_wildcard);
  if (st != FSIM_OK) return st;
  skip_ws(&p);
  if (text[p.pos] != '\0') return perr(&p, p.pos, FSIM_EINVAL, "unexpected text after the tuple");
  *out = tp.t;
  return FSIM_OK;
}

fsim_status fsim_layout_parse(fsim_layout *out, const char *text, fsim_err *e) {
  fsim_err local;
  pstate p = {text, "layout", 0, e ? e : &local, 0};
  tparse shape;
  skip_ws(&p);
  size_t at = p.pos;
  fsim_status st = parse_tuple(&p, &shape, 0);
  if (st != FSIM_OK) return st;
  skip_ws(&p);
  fsim_layout r;
  if (text[p.pos] == ':') {
    if ((st = finish_layout(&p, &shape, at, &r)) != FSIM_OK) return st;
  } else {
    for (int i = 0; i < shape.t.nleaf; i++)
      if (shape.t.v[i] < 1)
        return perr(&p, shape.leafpos[i], FSIM_EINVAL, "shape %lld is not positive", (long long)shape.t.v[i]);
    if (fsim_layout_make_major(&r, &shape.t, FSIM_COL_MAJOR, p.e) != FSIM_OK) return pfail(&p, at, p.e->code);
  }
  skip_ws(&p);
  if (text[p.pos] != '\0') {
    char f[32];
    return perr(&p, p.pos, FSIM_EINVAL, "expected ':' or the end of the layout, found %s", found(&p, f, sizeof f));
  }
  *out = r;
  return FSIM_OK;
}

/* ---- expressions ---- */

typedef struct ecall {
  pstate *p;
  const char *name;
  size_t at; /* position of the function name */
  fsim_layout_value *a;
  size_t *apos;
  int n;
  fsim_layout_value *out;
} ecall;

static fsim_status parse_expr(pstate *p, fsim_layout_value *out);

/* Argument coercions.  An integer n is the layout n:1 and a shape is its compact
 * column-major layout; as a tiler a flat shape is <s0:1,s1:1,...>. */
static fsim_status arg_err(ecall *c, int i, const char *want) {
  return perr(c->p, c->apos[i], FSIM_EINVAL, "%s: argument %d must be %s, not a%s %s", c->name, i + 1, want,
              c->a[i].kind == FSIM_LV_INT ? "n" : "", fsim_layout_value_kind_name(c->a[i].kind));
}

static fsim_status arg_int(ecall *c, int i, int64_t *out) {
  *out = 0;
  if (c->a[i].kind != FSIM_LV_INT) return arg_err(c, i, "an integer");
  *out = c->a[i].u.i;
  return FSIM_OK;
}

static fsim_status arg_tuple(ecall *c, int i, fsim_itup *out) {
  if (c->a[i].kind == FSIM_LV_INT)
    fsim_itup_make_int(out, c->a[i].u.i);
  else if (c->a[i].kind == FSIM_LV_TUPLE)
    *out = c->a[i].u.t;
  else
    return arg_err(c, i, "an integer or a tuple");
  return FSIM_OK;
}

static fsim_status to_layout(pstate *p, size_t at, const fsim_layout_value *v, fsim_layout *out) {
  if (v->kind == FSIM_LV_INT) {
    if (v->u.i < 1) return perr(p, at, FSIM_EINVAL, "%lld is not a positive size", (long long)v->u.i);
    fsim_layout_make_1d(out, v->u.i, 1);
  } else if (v->kind == FSIM_LV_TUPLE) {
    if (fsim_layout_make_major(out, &v->u.t, FSIM_COL_MAJOR, p->e) != FSIM_OK) return pfail(p, at, p->e->code);
  } else if (v->kind == FSIM_LV_LAYOUT) {
    *out = v->u.l;
  } else {
    return perr(p, at, FSIM_EINVAL, "expected a layout, not a %s", fsim_layout_value_kind_name(v->kind));
  }
  return FSIM_OK;
}

static fsim_status arg_layout(ecall *c, int i, fsim_layout *out) {
  if (c->a[i].kind == FSIM_LV_TILER || c->a[i].kind == FSIM_LV_SWIZZLED) return arg_err(c, i, "a layout");
  return to_layout(c->p, c->apos[i], &c->a[i], out);
}

static fsim_status arg_tiler(ecall *c, int i, fsim_tiler *out) {
  const fsim_layout_value *v = &c->a[i];
  if (v->kind == FSIM_LV_TILER) {
    *out = v->u.tiler;
  } else if (v->kind == FSIM_LV_TUPLE) {
    if (fsim_tiler_from_shape(out, &v->u.t, c->p->e) != FSIM_OK) return pfail(c->p, c->apos[i], c->p->e->code);
  } else if (v->kind == FSIM_LV_SWIZZLED) {
    return arg_err(c, i, "a layout or a tiler");
  } else {
    out->rank = 0;
    return to_layout(c->p, c->apos[i], v, &out->mode[0]);
  }
  return FSIM_OK;
}

/* The first argument as a layout; a swizzled layout gives its inner layout and sets *sw. */
static fsim_status arg_layout_or_swizzled(ecall *c, int i, fsim_layout *out, const fsim_composed_layout **sw) {
  *sw = NULL;
  if (c->a[i].kind == FSIM_LV_SWIZZLED) {
    *sw = &c->a[i].u.c;
    *out = c->a[i].u.c.layout;
    return FSIM_OK;
  }
  return arg_layout(c, i, out);
}

/* A swizzled layout's offset plus its layout's values must stay well inside 64 bits (the
 * swizzle works on them as bit patterns): within [-2^62, 2^62]. */
static fsim_status swizzled_bounds(pstate *p, size_t at, int64_t offset, const fsim_layout *l) {
  int64_t lo = 0, hi = 0, part;
  for (int k = 0; k < l->nleaf; k++) {
    if (__builtin_mul_overflow(l->shape[k] - 1, l->stride[k], &part) ||
        __builtin_add_overflow(part > 0 ? hi : lo, part, part > 0 ? &hi : &lo))
      return perr(p, at, FSIM_EINVAL, "the layout's values overflow 64 bits");
  }
  const int64_t limit = INT64_C(1) << 62;
  /* the sums formed with overflow checks (hi may be near 2^63; limit - offset overflowed for
   * offset -2^62, refusing a legal one) */
  int64_t top, bottom;
  if (offset > limit || offset < -limit || __builtin_add_overflow(hi, offset, &top) ||
      __builtin_add_overflow(lo, offset, &bottom) || top > limit || bottom < -limit)
    return perr(p, at, FSIM_EINVAL, "offset %lld plus the layout's values (%lld to %lld) leave [-2^62, 2^62]",
                (long long)offset, (long long)lo, (long long)hi);
  return FSIM_OK;
}

/* Stores a layout result, re-wrapped in the swizzle of the first argument when it had one
 * (held to the bound of a swizzled layout again: an operation can grow the values). */
static fsim_status put_layout(ecall *c, const fsim_layout *l, const fsim_composed_layout *sw, int64_t extra_offset) {
  if (sw != NULL) {
    int64_t offset;
    if (__builtin_add_overflow(sw->offset, extra_offset, &offset))
      return perr(c->p, c->at, FSIM_EINVAL, "%s: the swizzled layout's offset overflows 64 bits", c->name);
    fsim_status st = swizzled_bounds(c->p, c->at, offset, l);
    if (st != FSIM_OK) return st;
    c->out->kind = FSIM_LV_SWIZZLED;
    fsim_composed_make(&c->out->u.c, &sw->sw, offset, l);
  } else {
    c->out->kind = FSIM_LV_LAYOUT;
    c->out->u.l = *l;
  }
  return FSIM_OK;
}

static fsim_status put_int(ecall *c, int64_t v) {
  c->out->kind = FSIM_LV_INT;
  c->out->u.i = v;
  return FSIM_OK;
}

/* A tuple result; a single integer stays an integer. */
static fsim_status put_tuple(ecall *c, const fsim_itup *t) {
  if (strcmp(t->prof, "x") == 0) return put_int(c, t->v[0]);
  c->out->kind = FSIM_LV_TUPLE;
  c->out->u.t = *t;
  return FSIM_OK;
}

#define TRY(x)                      \
  do {                              \
    fsim_status st_ = (x);          \
    if (st_ != FSIM_OK) return st_; \
  } while (0)
/* Runs an algebra call and, on failure, gives its message the call's position. */
#define ALG(c, x)                                           \
  do {                                                      \
    fsim_status st_ = (x);                                  \
    if (st_ != FSIM_OK) return pfail((c)->p, (c)->at, st_); \
  } while (0)

/* The size of a tuple argument, or an error when it overflows 64 bits. */
static fsim_status tuple_size(ecall *c, const fsim_itup *t, int64_t *size) {
  if (!fsim_itup_size_ok(t, size)) ALG(c, FSIM_ERR(c->p->e, FSIM_ERANGE, "the size overflows 64 bits"));
  return FSIM_OK;
}

static fsim_status fn_size(ecall *c) {
  const fsim_layout_value *v = &c->a[0];
  int64_t n;
  switch (v->kind) {
  case FSIM_LV_INT: return put_int(c, v->u.i);
  case FSIM_LV_TUPLE: TRY(tuple_size(c, &v->u.t, &n)); return put_int(c, n);
  case FSIM_LV_LAYOUT: return put_int(c, fsim_layout_size(&v->u.l));
  case FSIM_LV_SWIZZLED: return put_int(c, fsim_composed_size(&v->u.c));
  default: return arg_err(c, 0, "a layout or a tuple");
  }
}

static fsim_status fn_cosize(ecall *c) {
  if (c->a[0].kind == FSIM_LV_SWIZZLED) {
    /* evaluated index by index (a swizzle permutes within blocks of its period, which the
     * layout's values need not fill); refused where that would take seconds */
    const fsim_composed_layout *cl = &c->a[0].u.c;
    if (cl->sw.ymask != 0 && fsim_composed_size(cl) > (INT64_C(1) << 26))
      return perr(c->p, c->apos[0], FSIM_EINVAL, "cosize: a swizzled layout of %lld values (more than 2^26) is not "
                  "evaluated", (long long)fsim_composed_size(cl));
    return put_int(c, fsim_composed_cosize(cl));
  }
  fsim_layout l;
  TRY(arg_layout(c, 0, &l));
  return put_int(c, fsim_layout_cosize(&l));
}

static fsim_status fn_rank_depth(ecall *c) {
  int depth = c->name[0] == 'd';
  const fsim_layout_value *v = &c->a[0];
  switch (v->kind) {
  case FSIM_LV_INT: return put_int(c, depth ? 0 : 1);
  case FSIM_LV_TUPLE: return put_int(c, depth ? fsim_itup_depth(&v->u.t) : fsim_itup_rank(&v->u.t));
  case FSIM_LV_LAYOUT: return put_int(c, depth ? fsim_layout_depth(&v->u.l) : fsim_layout_rank(&v->u.l));
  case FSIM_LV_SWIZZLED:
    return put_int(c, depth ? fsim_layout_depth(&v->u.c.layout) : fsim_layout_rank(&v->u.c.layout));
  default: return arg_err(c, 0, "a layout or a tuple");
  }
}

static fsim_status fn_shape_stride(ecall *c) {
  fsim_layout l;
  const fsim_composed_layout *sw;
  TRY(arg_layout_or_swizzled(c, 0, &l, &sw));
  fsim_itup t;
  if (strcmp(c->name, "shape") == 0)
    fsim_layout_shape(&l, &t);
  else
    fsim_layout_stride(&l, &t);
  return put_tuple(c, &t);
}

static fsim_status fn_get(ecall *c) {
  fsim_layout_value *v = &c->a[0];
  for (int k = 1; k < c->n; k++) {
    int64_t i = 0;
    TRY(arg_int(c, k, &i));
    if (v->kind == FSIM_LV_TILER) {
      if (i < 0 || i >= (v->u.tiler.rank ? v->u.tiler.rank : 1))
        return perr(c->p, c->apos[k], FSIM_ERANGE, "get: the tiler has no mode %lld", (long long)i);
      fsim_layout m = v->u.tiler.mode[i];
      v->kind = FSIM_LV_LAYOUT;
      v->u.l = m;
    } else if (v->kind == FSIM_LV_TUPLE || v->kind == FSIM_LV_INT) {
      fsim_itup t;
      fsim_layout tl, ml;
      TRY(arg_tuple(c, 0, &t));
      /* borrow the layout walker: the tuple as a shape with the same leaves */
      tl.nleaf = t.nleaf;
      strcpy(tl.prof, t.prof);
      for (int q = 0; q < t.nleaf; q++) tl.shape[q] = 1, tl.stride[q] = t.v[q];
      if (strchr(t.prof, '_') != NULL) return arg_err(c, 0, "a tuple without '_'");
      if (i < 0 || i >= fsim_itup_rank(&t)) {
        char ft[384];
        fsim_itup_format(&t, ft, sizeof ft);
        return perr(c->p, c->at, FSIM_ERANGE, "get(%s, %lld): the tuple has %d mode%s", ft, (long long)i,
                    fsim_itup_rank(&t), fsim_itup_rank(&t) == 1 ? "" : "s");
      }
      ALG(c, fsim_layout_get(&ml, &tl, (int)i, c->p->e));
      fsim_layout_stride(&ml, &t);
      if (strcmp(t.prof, "x") == 0)
        v->kind = FSIM_LV_INT, v->u.i = t.v[0];
      else
        v->kind = FSIM_LV_TUPLE, v->u.t = t;
    } else {
      fsim_layout *l = v->kind == FSIM_LV_SWIZZLED ? &v->u.c.layout : &v->u.l;
      if (i < 0 || i >= fsim_layout_rank(l)) { /* said here: the index may not fit an int */
        char fl[384];
        fsim_layout_format(l, fl, sizeof fl);
        return perr(c->p, c->at, FSIM_ERANGE, "get(%s, %lld): the layout has %d mode%s", fl, (long long)i,
                    fsim_layout_rank(l), fsim_layout_rank(l) == 1 ? "" : "s");
      }
      ALG(c, fsim_layout_get(l, l, (int)i, c->p->e));
    }
  }
  *c->out = *v;
  return FSIM_OK;
}

static fsim_status fn_crd2idx(ecall *c) {
  fsim_layout l;
  const fsim_composed_layout *sw;
  fsim_itup crd;
  int64_t idx;
  TRY(arg_layout_or_swizzled(c, 0, &l, &sw));
  TRY(arg_tuple(c, 1, &crd));
  if (strchr(crd.prof, '_') != NULL) return arg_err(c, 1, "a coordinate without '_'");
  ALG(c, fsim_layout_crd2idx(&l, &crd, &idx, c->p->e));
  if (sw != NULL) idx = fsim_swizzle_apply(&sw->sw, sw->offset + idx);
  return put_int(c, idx);
}

static fsim_status fn_idx2crd(ecall *c) {
  fsim_layout l;
  const fsim_composed_layout *sw;
  int64_t i = 0;
  fsim_itup crd;
  TRY(arg_layout_or_swizzled(c, 0, &l, &sw));
  TRY(arg_int(c, 1, &i));
  ALG(c, fsim_layout_idx2crd(&l, i, &crd, c->p->e));
  return put_tuple(c, &crd);
}

static fsim_status fn_coalesce(ecall *c) {
  fsim_layout l;
  const fsim_composed_layout *sw;
  TRY(arg_layout_or_swizzled(c, 0, &l, &sw));
  if (c->n == 2) {
    fsim_itup prof;
    TRY(arg_tuple(c, 1, &prof));
    ALG(c, fsim_layout_coalesce_by_mode(&l, &l, &prof, c->p->e));
  } else if (strcmp(c->name, "filter") == 0) {
    fsim_layout_filter(&l, &l);
  } else if (strcmp(c->name, "flatten") == 0) {
    fsim_layout_flatten(&l, &l);
  } else {
    fsim_layout_coalesce(&l, &l);
  }
  return put_layout(c, &l, sw, 0);
}

static fsim_status fn_composition(ecall *c) {
  fsim_layout a, r;
  const fsim_composed_layout *sw;
  fsim_tiler t;
  TRY(arg_layout_or_swizzled(c, 0, &a, &sw));
  TRY(arg_tiler(c, 1, &t));
  ALG(c, fsim_layout_compose_tiler(&r, &a, &t, c->p->e));
  return put_layout(c, &r, sw, 0);
}

static fsim_status fn_complement(ecall *c) {
  fsim_layout l, r;
  TRY(arg_layout(c, 0, &l));
  int64_t target;
  if (c->n == 2) {
    fsim_itup t;
    TRY(arg_tuple(c, 1, &t));
    if (strchr(t.prof, '_') != NULL) return arg_err(c, 1, "a size");
    TRY(tuple_size(c, &t, &target));
  } else {
    fsim_layout f;
    fsim_layout_filter(&f, &l);
    target = fsim_layout_cosize(&f);
  }
  ALG(c, fsim_layout_complement(&r, &l, target, c->p->e));
  return put_layout(c, &r, NULL, 0);
}

static fsim_status fn_inverse(ecall *c) {
  fsim_layout l, r;
  TRY(arg_layout(c, 0, &l));
  if (c->name[0] == 'r')
    ALG(c, fsim_layout_right_inverse(&r, &l, c->p->e));
  else
    ALG(c, fsim_layout_left_inverse(&r, &l, c->p->e));
  return put_layout(c, &r, NULL, 0);
}

typedef fsim_status (*tiler_op)(fsim_layout *, const fsim_layout *, const fsim_tiler *, fsim_err *);

static fsim_status run_tiler_op(ecall *c, tiler_op op, int swizzle_ok) {
  fsim_layout a, r;
  const fsim_composed_layout *sw = NULL;
  fsim_tiler t;
  if (swizzle_ok)
    TRY(arg_layout_or_swizzled(c, 0, &a, &sw));
  else
    TRY(arg_layout(c, 0, &a));
  TRY(arg_tiler(c, 1, &t));
  ALG(c, op(&r, &a, &t, c->p->e));
  return put_layout(c, &r, sw, 0);
}

static fsim_status fn_logical_divide(ecall *c) { return run_tiler_op(c, fsim_layout_logical_divide, 1); }
static fsim_status fn_zipped_divide(ecall *c) { return run_tiler_op(c, fsim_layout_zipped_divide, 1); }
static fsim_status fn_tiled_divide(ecall *c) { return run_tiler_op(c, fsim_layout_tiled_divide, 1); }
static fsim_status fn_flat_divide(ecall *c) { return run_tiler_op(c, fsim_layout_flat_divide, 1); }
static fsim_status fn_logical_product(ecall *c) { return run_tiler_op(c, fsim_layout_logical_product, 0); }
static fsim_status fn_zipped_product(ecall *c) { return run_tiler_op(c, fsim_layout_zipped_product, 0); }
static fsim_status fn_tiled_product(ecall *c) { return run_tiler_op(c, fsim_layout_tiled_product, 0); }
static fsim_status fn_flat_product(ecall *c) { return run_tiler_op(c, fsim_layout_flat_product, 0); }

static fsim_status fn_rank_product(ecall *c) {
  fsim_layout a, b, r;
  TRY(arg_layout(c, 0, &a));
  TRY(arg_layout(c, 1, &b));
  if (c->name[0] == 'r')
    ALG(c, fsim_layout_raked_product(&r, &a, &b, c->p->e));
  else
    ALG(c, fsim_layout_blocked_product(&r, &a, &b, c->p->e));
  return put_layout(c, &r, NULL, 0);
}

static fsim_status fn_slice(ecall *c) {
  fsim_layout l, r;
  const fsim_composed_layout *sw;
  fsim_itup crd;
  int64_t off;
  TRY(arg_layout_or_swizzled(c, 0, &l, &sw));
  if (c->a[1].kind == FSIM_LV_TUPLE)
    crd = c->a[1].u.t;
  else
    TRY(arg_tuple(c, 1, &crd));
  ALG(c, fsim_layout_slice(&r, &off, &l, &crd, c->p->e));
  if (strcmp(c->name, "slice_offset") == 0) return put_int(c, off);
  return put_layout(c, &r, sw, off);
}

static fsim_status fn_make_layout(ecall *c) {
  fsim_layout r;
  int all_tuples = 1;
  for (int i = 0; i < c->n; i++) all_tuples &= c->a[i].kind == FSIM_LV_INT || c->a[i].kind == FSIM_LV_TUPLE;
  if (c->n == 1) {
    TRY(arg_layout(c, 0, &r));
  } else if (c->n == 2 && all_tuples) {
    fsim_itup s, d;
    TRY(arg_tuple(c, 0, &s));
    TRY(arg_tuple(c, 1, &d));
    ALG(c, fsim_layout_make(&r, &s, &d, c->p->e));
  } else {
    fsim_layout parts[EXPR_MAX_ARGS];
    for (int i = 0; i < c->n; i++) TRY(arg_layout(c, i, &parts[i]));
    ALG(c, fsim_layout_concat(&r, parts, c->n, c->p->e));
  }
  return put_layout(c, &r, NULL, 0);
}

static fsim_status fn_major(ecall *c) {
  fsim_itup s;
  fsim_layout r;
  TRY(arg_tuple(c, 0, &s));
  ALG(c, fsim_layout_make_major(&r, &s, c->name[0] == 'r' ? FSIM_ROW_MAJOR : FSIM_COL_MAJOR, c->p->e));
  return put_layout(c, &r, NULL, 0);
}

static fsim_status fn_ordered(ecall *c) {
  fsim_itup s, o;
  fsim_layout r;
  TRY(arg_tuple(c, 0, &s));
  TRY(arg_tuple(c, 1, &o));
  ALG(c, fsim_layout_make_ordered(&r, &s, &o, c->p->e));
  return put_layout(c, &r, NULL, 0);
}

static fsim_status fn_append_prepend(ecall *c) {
  fsim_layout l, m, r;
  TRY(arg_layout(c, 0, &l));
  TRY(arg_layout(c, 1, &m));
  if (c->name[0] == 'a')
    ALG(c, fsim_layout_append(&r, &l, &m, c->p->e));
  else
    ALG(c, fsim_layout_prepend(&r, &l, &m, c->p->e));
  return put_layout(c, &r, NULL, 0);
}

/* Argument i as a small int (a mode index, a swizzle's bits): past +-10^6 it is refused here,
 * naming the value (clamped to 10^6, the callee's refusal quoted 1000000 for 4294967298). */
static fsim_status arg_small(ecall *c, int i, int *out) {
  int64_t v = 0;
  TRY(arg_int(c, i, &v));
  if (v > 1000000 || v < -1000000)
    return perr(c->p, c->apos[i], FSIM_EINVAL, "%s: argument %d, %lld, is out of range [-1000000, 1000000]", c->name,
                i + 1, (long long)v);
  *out = (int)v;
  return FSIM_OK;
}

static fsim_status fn_group(ecall *c) {
  fsim_layout l, r;
  int b = 0, e = 0;
  TRY(arg_layout(c, 0, &l));
  TRY(arg_small(c, 1, &b));
  TRY(arg_small(c, 2, &e));
  ALG(c, fsim_layout_group(&r, &l, b, e, c->p->e));
  return put_layout(c, &r, NULL, 0);
}

static fsim_status fn_select(ecall *c) {
  fsim_layout l, r;
  int idx[EXPR_MAX_ARGS];
  TRY(arg_layout(c, 0, &l));
  for (int i = 1; i < c->n; i++) TRY(arg_small(c, i, &idx[i - 1]));
  ALG(c, fsim_layout_select(&r, &l, idx, c->n - 1, c->p->e));
  return put_layout(c, &r, NULL, 0);
}

static fsim_status fn_swizzle(ecall *c) {
  int bms[3] = {0, 0, 0};
  fsim_swizzle sw;
  fsim_layout l;
  for (int i = 0; i < 3; i++) TRY(arg_small(c, i, &bms[i]));
  if (c->a[3].kind == FSIM_LV_SWIZZLED) return arg_err(c, 3, "a layout without a swizzle");
  TRY(arg_layout(c, 3, &l));
  ALG(c, fsim_swizzle_make(&sw, bms[0], bms[1], bms[2], c->p->e));
  c->out->kind = FSIM_LV_SWIZZLED;
  fsim_composed_make(&c->out->u.c, &sw, 0, &l);
  return FSIM_OK;
}

static const struct efn {
  const char *name;
  int min, max;
  fsim_status (*run)(ecall *c);
} functions[] = {
    {"size", 1, 1, fn_size},
    {"cosize", 1, 1, fn_cosize},
    {"rank", 1, 1, fn_rank_depth},
    {"depth", 1, 1, fn_rank_depth},
    {"shape", 1, 1, fn_shape_stride},
    {"stride", 1, 1, fn_shape_stride},
    {"get", 2, EXPR_MAX_ARGS, fn_get},
    {"mode", 2, EXPR_MAX_ARGS, fn_get},
    {"crd2idx", 2, 2, fn_crd2idx},
    {"idx2crd", 2, 2, fn_idx2crd},
    {"coalesce", 1, 2, fn_coalesce},
    {"filter", 1, 1, fn_coalesce},
    {"flatten", 1, 1, fn_coalesce},
    {"composition", 2, 2, fn_composition},
    {"compose", 2, 2, fn_composition},
    {"complement", 1, 2, fn_complement},
    {"right_inverse", 1, 1, fn_inverse},
    {"left_inverse", 1, 1, fn_inverse},
    {"logical_divide", 2, 2, fn_logical_divide},
    {"zipped_divide", 2, 2, fn_zipped_divide},
    {"tiled_divide", 2, 2, fn_tiled_divide},
    {"flat_divide", 2, 2, fn_flat_divide},
    {"logical_product", 2, 2, fn_logical_product},
    {"zipped_product", 2, 2, fn_zipped_product},
    {"tiled_product", 2, 2, fn_tiled_product},
    {"flat_product", 2, 2, fn_flat_product},
    {"blocked_product", 2, 2, fn_rank_product},
    {"block_product", 2, 2, fn_rank_product},
    {"raked_product", 2, 2, fn_rank_product},
    {"slice", 2, 2, fn_slice},
    {"slice_offset", 2, 2, fn_slice},
    {"make_layout", 1, EXPR_MAX_ARGS, fn_make_layout},
    {"col_major", 1, 1, fn_major},
    {"row_major", 1, 1, fn_major},
    {"make_ordered_layout", 2, 2, fn_ordered},
    {"make_ordered", 2, 2, fn_ordered},
    {"append", 2, 2, fn_append_prepend},
    {"prepend", 2, 2, fn_append_prepend},
    {"group", 3, 3, fn_group},
    {"select", 2, EXPR_MAX_ARGS, fn_select},
    {"swizzle", 4, 4, fn_swizzle},
};

/* 'o' as a word: the composition sign of swizzle literals. */
static int at_o(pstate *p) {
  skip_ws(p);
  return p->text[p->pos] == 'o' && !is_ident(p->text[p->pos + 1]);
}

/* S<B,M,S> o [OFFSET o] LAYOUT, after the name S or Sw. */
static fsim_status parse_swizzle(pstate *p, size_t at, fsim_layout_value *out) {
  int64_t v[3];
  char f[32];
  p->pos++; /* '<' */
  for (int i = 0; i < 3; i++) {
    skip_ws(p);
    size_t vat = p->pos;
    TRY(parse_int(p, &v[i]));
    if (v[i] > 1000000 || v[i] < -1000000) /* quoted as given (it was clamped to 10^6 first) */
      return perr(p, vat, FSIM_EINVAL, "swizzle: %lld is out of range [-1000000, 1000000]", (long long)v[i]);
    skip_ws(p);
    char want = i < 2 ? ',' : '>';
    if (p->text[p->pos] != want)
      return perr(p, p->pos, FSIM_EINVAL, "expected '%c', found %s", want, found(p, f, sizeof f));
    p->pos++;
  }
  fsim_swizzle sw;
  if (fsim_swizzle_make(&sw, (int)v[0], (int)v[1], (int)v[2], p->e) != FSIM_OK)
    return pfail(p, at, p->e->code);
  if (!at_o(p))
    return perr(p, p->pos, FSIM_EINVAL, "expected 'o' and a layout after the swizzle, found %s", found(p, f, sizeof f));
  p->pos++;
  skip_ws(p);
  size_t lat = p->pos;
  TRY(parse_expr(p, out));
  int64_t offset = 0;
  if (out->kind == FSIM_LV_INT && at_o(p)) {
    offset = out->u.i;
    p->pos++;
    skip_ws(p);
    lat = p->pos;
    TRY(parse_expr(p, out));
  }
  fsim_layout l;
  if (out->kind == FSIM_LV_SWIZZLED || out->kind == FSIM_LV_TILER)
    return perr(p, lat, FSIM_EINVAL, "expected a layout after 'o', not a %s", fsim_layout_value_kind_name(out->kind));
  TRY(to_layout(p, lat, out, &l));
  TRY(swizzled_bounds(p, lat, offset, &l));
  out->kind = FSIM_LV_SWIZZLED;
  fsim_composed_make(&out->u.c, &sw, offset, &l);
  return FSIM_OK;
}

static fsim_status parse_call(pstate *p, size_t at, const char *name, fsim_layout_value *out) {
  char f[32];
  const struct efn *fn = NULL;
  for (size_t i = 0; i < sizeof functions / sizeof functions[0]; i++)
    if (strcmp(functions[i].name, name) == 0) fn = &functions[i];
  if (fn == NULL) return perr(p, at, FSIM_EINVAL, "unknown function '%s' (see 'flysim layout --help')", name);
  skip_ws(p);
  if (p->text[p->pos] != '(')
    return perr(p, p->pos, FSIM_EINVAL, "expected '(' after '%s', found %s", name, found(p, f, sizeof f));
  p->pos++;
  ecall c = {p, fn->name, at, calloc(EXPR_MAX_ARGS, sizeof(fsim_layout_value)), NULL, 0, out};
  size_t apos[EXPR_MAX_ARGS];
  c.apos = apos;
  if (c.a == NULL) return FSIM_ERR(p->e, FSIM_ENOMEM, "out of memory evaluating '%s'", name);
  fsim_status st = FSIM_OK;
  skip_ws(p);
  if (p->text[p->pos] == ')') {
    p->pos++;
  } else {
    for (;;) {
      skip_ws(p);
      if (c.n == EXPR_MAX_ARGS) {
        st = perr(p, p->pos, FSIM_EINVAL, "%s: too many arguments (at most %d)", name, EXPR_MAX_ARGS);
        break;
      }
      apos[c.n] = p->pos;
      if ((st = parse_expr(p, &c.a[c.n])) != FSIM_OK) break;
      c.n++;
      skip_ws(p);
      if (p->text[p->pos] == ',') {
        p->pos++;
        continue;
      }
      if (p->text[p->pos] == ')') {
        p->pos++;
        break;
      }
      st = perr(p, p->pos, FSIM_EINVAL, "expected ',' or ')', found %s", found(p, f, sizeof f));
      break;
    }
  }
  if (st == FSIM_OK && (c.n < fn->min || c.n > fn->max)) {
    char want[64];
    if (fn->min == fn->max)
      snprintf(want, sizeof want, "%d argument%s", fn->min, fn->min == 1 ? "" : "s");
    else if (fn->max == EXPR_MAX_ARGS)
      snprintf(want, sizeof want, "at least %d argument%s", fn->min, fn->min == 1 ? "" : "s");
    else
      snprintf(want, sizeof want, "%d or %d arguments", fn->min, fn->max);
    st = perr(p, at, FSIM_EINVAL, "%s takes %s, not %d", name, want, c.n);
  }
  if (st == FSIM_OK) st = fn->run(&c);
  free(c.a);
  return st;
}

/* <L0, L1, ...> */
static fsim_status parse_tiler(pstate *p, fsim_layout_value *out) {
  char f[32];
  p->pos++;
  fsim_layout_value *v = malloc(sizeof *v);
  if (v == NULL) return FSIM_ERR(p->e, FSIM_ENOMEM, "out of memory");
  fsim_tiler *t = &out->u.tiler;
  fsim_status st = FSIM_OK;
  t->rank = 0;
  for (;;) {
    skip_ws(p);
    size_t eat = p->pos;
    if (t->rank == FSIM_TILER_MAX_MODES) {
      st = perr(p, eat, FSIM_ERANGE, "a tiler has at most %d modes", FSIM_TILER_MAX_MODES);
      break;
    }
    if ((st = parse_expr(p, v)) != FSIM_OK) break;
    if (v->kind != FSIM_LV_INT && v->kind != FSIM_LV_LAYOUT) {
      st = perr(p, eat, FSIM_EINVAL, "a tiler's modes must be layouts or integers, not a %s",
                fsim_layout_value_kind_name(v->kind));
      break;
    }
    if ((st = to_layout(p, eat, v, &t->mode[t->rank])) != FSIM_OK) break;
    t->rank++;
    skip_ws(p);
    if (p->text[p->pos] == ',') {
      p->pos++;
      continue;
    }
    if (p->text[p->pos] == '>') {
      p->pos++;
      break;
    }
    st = perr(p, p->pos, FSIM_EINVAL, "expected ',' or '>', found %s", found(p, f, sizeof f));
    break;
  }
  free(v);
  if (st == FSIM_OK) out->kind = FSIM_LV_TILER;
  return st;
}

static fsim_status parse_expr(pstate *p, fsim_layout_value *out) {
  char f[32];
  skip_ws(p);
  size_t at = p->pos;
  char c = p->text[at];
  /* the limit is on calls: the operand inside the deepest allowed call is one level more, and
   * no expression goes deeper than that (a parenthesis recurses too) */
  if (++p->nesting > EXPR_MAX_NESTING + 1 || (p->nesting > EXPR_MAX_NESTING && isalpha((unsigned char)c)))
    return perr(p, at, FSIM_EINVAL, "nested deeper than %d calls", EXPR_MAX_NESTING);
  fsim_status st;
  if (isalpha((unsigned char)c)) {
    char name[40];
    size_t n = 0;
    while (is_ident(p->text[p->pos])) {
      if (n + 1 < sizeof name) name[n++] = p->text[p->pos];
      p->pos++;
    }
    name[n] = '\0';
    skip_ws(p);
    if ((strcmp(name, "S") == 0 || strcmp(name, "Sw") == 0) && p->text[p->pos] == '<')
      st = parse_swizzle(p, at, out);
    else
      st = parse_call(p, at, name, out);
  } else if (c == '<') {
    st = parse_tiler(p, out);
  } else if (c == '(' || c == '-' || c == '_' || isdigit((unsigned char)c)) {
    tparse tp;
    st = parse_tuple(p, &tp, 1);
    if (st == FSIM_OK) {
      skip_ws(p);
      if (p->text[p->pos] == ':') {
        st = finish_layout(p, &tp, at, &out->u.l);
        out->kind = FSIM_LV_LAYOUT;
      } else if (strcmp(tp.t.prof, "x") == 0) {
        out->kind = FSIM_LV_INT;
        out->u.i = tp.t.v[0];
      } else {
        out->kind = FSIM_LV_TUPLE;
        out->u.t = tp.t;
      }
    }
  } else {
    st = perr(p, at, FSIM_EINVAL, "expected a function, a number, a tuple, a layout or '<', found %s",
              found(p, f, sizeof f));
  }
  p->nesting--;
  return st;
}

static fsim_status eval_text(fsim_layout_value *out, const char *text, const char *what, fsim_err *e) {
  fsim_err local;
  pstate p = {text, what, 0, e ? e : &local, 0};
  fsim_status st = parse_expr(&p, out);
  if (st != FSIM_OK) return st;
  skip_ws(&p);
  if (text[p.pos] != '\0') {
    char f[32];
    return perr(&p, p.pos, FSIM_EINVAL, "unexpected %s after the %s", found(&p, f, sizeof f), what);
  }
  return FSIM_OK;
}

fsim_status fsim_layout_expr(fsim_layout_value *out, const char *text, fsim_err *e) {
  return eval_text(out, text, "expression", e);
}

fsim_status fsim_composed_parse(fsim_composed_layout *out, const char *text, fsim_err *e) {
  fsim_layout_value *v = malloc(sizeof *v);
  if (v == NULL) return FSIM_ERR(e, FSIM_ENOMEM, "out of memory");
  fsim_status st = eval_text(v, text, "layout", e);
  if (st == FSIM_OK) {
    if (v->kind == FSIM_LV_SWIZZLED) {
      *out = v->u.c;
    } else if (v->kind == FSIM_LV_LAYOUT) {
      fsim_swizzle id;
      fsim_swizzle_make(&id, 0, 0, 0, NULL);
      fsim_composed_make(out, &id, 0, &v->u.l);
    } else {
      st = FSIM_ERR(e, FSIM_EINVAL, "layout '%.200s': position 1: expected a layout or a swizzled layout, not a%s %s",
                    text, v->kind == FSIM_LV_INT ? "n" : "", fsim_layout_value_kind_name(v->kind));
    }
  }
  free(v);
  return st;
}
