/* flysim layout: evaluates an expression of the layout algebra (kernels/layout.h) and prints
 * the result, its image of 0..size-1 (--indices), a rows-by-columns table of a rank-2
 * result (--grid, like CuTe's print_layout) or JSON.  The expression language and every
 * function are described in docs/layout.md; this file only parses options and prints. */
#include "config.h"

#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "cli/commands.h"
#include "cli/common.h"
#include "kernels/layout.h"

static const char *const CMD = "layout";

#define MAX_LIST (1L << 20) /* elements --indices and --json list */
#define MAX_GRID (1L << 16) /* cells --grid draws */

static void usage(FILE *f) {
  fprintf(f, "usage: flysim layout EXPR [--indices] [--grid] [--json]\n"
             "\n"
             "Evaluates an expression of the CuTe/FlyDSL layout algebra and prints the result.\n"
             "A layout is SHAPE:STRIDE over nested tuples, read colexicographically (the leftmost\n"
             "mode runs fastest): 8:1, (8,64):(64,1), (4,(2,8)):(2,(1,8)).\n"
             "\n"
             "  --indices  the image of 0..size-1, space-separated, on one line\n"
             "  --grid     a rank-2 result as a table: rows are mode 0, columns mode 1\n"
             "  --json     layout, size, cosize and indices (and the table with --grid)\n"
             "\n"
             "Values: integers; tuples (4,8) ('_' leaves a mode open in slice); layouts S:D;\n"
             "tilers <4:1,8:1> (one layout per mode; the shape (4,8) also means <4:1,8:1>);\n"
             "swizzled layouts S<B,M,S> o L or S<B,M,S> o OFFSET o L.  Where a layout is\n"
             "expected an integer n means n:1 and a shape its column-major layout.\n"
             "\n"
             "Functions:\n"
             "  size cosize rank depth shape stride get(L,i,...) crd2idx(L,crd) idx2crd(L,i)\n"
             "  coalesce(L[,profile]) filter(L) flatten(L) composition(A,B) complement(L[,n])\n"
             "  right_inverse(L) left_inverse(L) logical_divide(A,T) zipped_divide tiled_divide\n"
             "  flat_divide logical_product(A,T) zipped_product tiled_product flat_product\n"
             "  blocked_product(A,B) raked_product(A,B) slice(L,crd) slice_offset(L,crd)\n"
             "  make_layout(S[,D]) make_layout(L,L,...) col_major(S) row_major(S)\n"
             "  make_ordered_layout(S,order) append(L,M) prepend(L,M) group(L,b,e)\n"
             "  select(L,i,...) swizzle(B,M,S,L)\n"
             "\n"
             "Examples:\n"
             "  flysim layout 'composition(20:2,(5,4):(4,1))'           # (5,4):(8,2)\n"
             "  flysim layout 'complement(4:2,24)'                      # (2,3):(1,8)\n"
             "  flysim layout 'logical_divide((4,2,3):(2,1,8),4:2)'     # ((2,2),(2,3)):((4,1),(2,8))\n"
             "  flysim layout 'zipped_divide((8,16):(16,1),<2:1,4:1>)'  # 2x4 tiles of a row-major 8x16\n"
             "  flysim layout 'blocked_product((2,2):(1,2),(2,3):(3,1))' --grid\n"
             "  flysim layout 'S<3,3,3> o (8,64):(64,1)' --grid        # the LDS swizzle of a bf16 tile\n"
             "  flysim layout 'slice(S<3,3,3> o (8,64):(64,1),(2,_))' --indices\n"
             "  flysim layout 'crd2idx((4,(2,8)):(2,(1,8)),(3,(1,5)))'  # 47\n"
             "\n"
             "Quote EXPR for the shell; put -- before an EXPR that starts with '-'.\n"
             "docs/layout.md describes the notation and every function.\n");
}

/* The result as a composed layout (a plain layout gets the identity swizzle). */
static void as_composed(const fsim_layout_value *v, fsim_composed_layout *c) {
  if (v->kind == FSIM_LV_SWIZZLED) {
    *c = v->u.c;
    return;
  }
  fsim_swizzle id;
  fsim_swizzle_make(&id, 0, 0, 0, NULL);
  fsim_composed_make(c, &id, 0, &v->u.l);
}

static int digits(long long v) {
  int n = v < 0 ? 2 : 1;
  /* counted on the magnitude as unsigned: -v overflows for LLONG_MIN */
  for (unsigned long long m = v < 0 ? 0ULL - (unsigned long long)v : (unsigned long long)v; m >= 10; m /= 10) n++;
  return n;
}

/* Rows and columns of a rank-2 result, or an error naming the option. */
static int grid_dims(const fsim_composed_layout *c, int64_t *rows, int64_t *cols) {
  int rank = fsim_layout_rank(&c->layout);
  if (rank != 2)
    return fsim_cli_usage_error(CMD,
                                "--grid: the result has rank %d; --grid draws rank-2 layouts "
                                "(rows = mode 0, columns = mode 1)",
                                rank);
  fsim_layout m;
  fsim_layout_get(&m, &c->layout, 0, NULL);
  *rows = fsim_layout_size(&m);
  fsim_layout_get(&m, &c->layout, 1, NULL);
  *cols = fsim_layout_size(&m);
  if (*rows * *cols > MAX_GRID)
    return fsim_cli_usage_error(CMD, "--grid: %lldx%lld is too large to draw (at most %ld cells)", (long long)*rows,
                                (long long)*cols, MAX_GRID);
  return 0;
}

static int64_t grid_at(const fsim_composed_layout *c, int64_t r, int64_t col) {
  int64_t crd[2] = {r, col};
  return fsim_swizzle_apply(&c->sw, c->offset + fsim_layout_eval_modes(&c->layout, crd));
}

static void print_grid(const fsim_composed_layout *c, int64_t rows, int64_t cols) {
  int w = digits(cols - 1), lw = digits(rows - 1);
  for (int64_t r = 0; r < rows; r++)
    for (int64_t k = 0; k < cols; k++) {
      int d = digits(grid_at(c, r, k));
      if (d > w) w = d;
    }
  printf("%*s", lw + 1, "");
  for (int64_t k = 0; k < cols; k++) printf("  %*lld%s", w, (long long)k, k + 1 < cols ? " " : "\n");
  for (int64_t r = 0; r <= rows; r++) {
    printf("%*s", lw + 1, "");
    for (int64_t k = 0; k < cols; k++) printf("+%.*s", w + 2, "------------------------");
    printf("+\n");
    if (r == rows) break;
    printf("%*lld ", lw, (long long)r);
    for (int64_t k = 0; k < cols; k++) printf("| %*lld ", w, (long long)grid_at(c, r, k));
    printf("|\n");
  }
}

static int print_json(const char *expr, const fsim_layout_value *v, int grid) {
  char buf[FSIM_LAYOUT_VALUE_TEXT_MAX];
  json_t *o = json_object();
  json_object_set_new(o, "produced_by", fsim_cli_provenance(NULL));
  json_object_set_new(o, "expression", fsim_json_text(expr));
  json_object_set_new(o, "kind", fsim_json_text(fsim_layout_value_kind_name(v->kind)));
  fsim_layout_value_format(v, buf, sizeof buf);
  if (v->kind == FSIM_LV_INT) {
    json_object_set_new(o, "value", json_integer((json_int_t)v->u.i));
    return fsim_cli_print_json(o);
  }
  json_object_set_new(o, "value", fsim_json_text(buf));
  if (v->kind == FSIM_LV_TUPLE) {
    int64_t size;
    /* a tuple of large leaves is a value; only its size does not exist (null) */
    json_object_set_new(o, "size", fsim_itup_size_ok(&v->u.t, &size) ? json_integer((json_int_t)size) : json_null());
    json_object_set_new(o, "rank", json_integer(fsim_itup_rank(&v->u.t)));
    json_object_set_new(o, "depth", json_integer(fsim_itup_depth(&v->u.t)));
    return fsim_cli_print_json(o);
  }
  if (v->kind == FSIM_LV_TILER) {
    json_object_set_new(o, "rank", json_integer(v->u.tiler.rank));
    return fsim_cli_print_json(o);
  }
  fsim_composed_layout c;
  as_composed(v, &c);
  int64_t size = fsim_composed_size(&c);
  json_object_set_new(o, "layout", fsim_json_text(buf));
  fsim_itup t;
  fsim_layout_shape(&c.layout, &t);
  fsim_itup_format(&t, buf, sizeof buf);
  json_object_set_new(o, "shape", fsim_json_text(buf));
  fsim_layout_stride(&c.layout, &t);
  fsim_itup_format(&t, buf, sizeof buf);
  json_object_set_new(o, "stride", fsim_json_text(buf));
  if (v->kind == FSIM_LV_SWIZZLED) {
    snprintf(buf, sizeof buf, "S<%d,%d,%d>", c.sw.b, c.sw.m, c.sw.s);
    json_object_set_new(o, "swizzle", fsim_json_text(buf));
    json_object_set_new(o, "offset", json_integer((json_int_t)c.offset));
  }
  json_object_set_new(o, "size", json_integer((json_int_t)size));
  if (v->kind == FSIM_LV_LAYOUT)
    json_object_set_new(o, "cosize", json_integer((json_int_t)fsim_layout_cosize(&c.layout)));
  else
    json_object_set_new(o, "cosize",
                        size <= MAX_LIST ? json_integer((json_int_t)fsim_composed_cosize(&c)) : json_null());
  json_object_set_new(o, "rank", json_integer(fsim_layout_rank(&c.layout)));
  json_object_set_new(o, "depth", json_integer(fsim_layout_depth(&c.layout)));
  if (size <= MAX_LIST) {
    json_t *idx = json_array();
    for (int64_t i = 0; i < size; i++) json_array_append_new(idx, json_integer((json_int_t)fsim_composed_eval(&c, i)));
    json_object_set_new(o, "indices", idx);
  } else {
    json_object_set_new(o, "indices", json_null());
  }
  if (grid) {
    int64_t rows, cols;
    json_t *g = json_array();
    grid_dims(&c, &rows, &cols); /* checked by the caller */
    for (int64_t r = 0; r < rows; r++) {
      json_t *row = json_array();
      for (int64_t k = 0; k < cols; k++) json_array_append_new(row, json_integer((json_int_t)grid_at(&c, r, k)));
      json_array_append_new(g, row);
    }
    json_object_set_new(o, "grid", g);
  }
  return fsim_cli_print_json(o);
}

int fsim_cmd_layout(int argc, char **argv) {
  static const struct option opts[] = {{"indices", no_argument, NULL, 'i'},
                                       {"grid", no_argument, NULL, 'g'},
                                       {"json", no_argument, NULL, 'j'},
                                       {"help", no_argument, NULL, 'h'},
                                       {NULL, 0, NULL, 0}};
  int indices = 0, grid = 0, json = 0, c;
  optind = 0; /* GNU getopt: reinitialise, and permute so options may follow the expression */
  opterr = 0;
  while ((c = fsim_cli_getopt(argc, argv, ":h", opts)) != -1) {
    switch (c) {
    case 'i': indices = 1; break;
    case 'g': grid = 1; break;
    case 'j': json = 1; break;
    case 'h': usage(stdout); return FSIM_EXIT_OK;
    default: return fsim_cli_bad_option(CMD, argc, argv);
    }
  }
  if (optind >= argc) return fsim_cli_usage_error(CMD, "expected a layout EXPR (see --help)");
  if (argc - optind > 1)
    return fsim_cli_usage_error(CMD, "expected one EXPR, got %d arguments starting with '%s' (quote the expression)",
                                argc - optind, argv[optind]);
  const char *expr = argv[optind];
  fsim_layout_value *v = malloc(sizeof *v);
  if (v == NULL) {
    fprintf(stderr, "flysim %s: out of memory\n", CMD);
    return FSIM_EXIT_FAIL;
  }
  fsim_err e;
  fsim_err_clear(&e);
  int rc = FSIM_EXIT_OK;
  if (fsim_layout_expr(v, expr, &e) != FSIM_OK) {
    rc = fsim_cli_report(CMD, &e);
    goto done;
  }
  char buf[FSIM_LAYOUT_VALUE_TEXT_MAX];
  fsim_layout_value_format(v, buf, sizeof buf);
  int is_layout = v->kind == FSIM_LV_LAYOUT || v->kind == FSIM_LV_SWIZZLED;
  if ((indices || grid) && !is_layout) {
    rc = fsim_cli_usage_error(CMD, "%s: the result %s is a%s %s, not a layout", indices ? "--indices" : "--grid", buf,
                              v->kind == FSIM_LV_INT ? "n" : "", fsim_layout_value_kind_name(v->kind));
    goto done;
  }
  fsim_composed_layout cl;
  int64_t rows = 0, cols = 0;
  if (is_layout) {
    as_composed(v, &cl);
    if (indices && fsim_composed_size(&cl) > MAX_LIST) {
      rc = fsim_cli_usage_error(CMD, "--indices: the layout has %lld elements; at most %ld are listed",
                                (long long)fsim_composed_size(&cl), MAX_LIST);
      goto done;
    }
    if (grid && (rc = grid_dims(&cl, &rows, &cols)) != 0) goto done;
  }
  if (json) {
    rc = print_json(expr, v, grid);
    goto done;
  }
  if (indices) {
    int64_t n = fsim_composed_size(&cl);
    for (int64_t i = 0; i < n; i++) printf("%s%lld", i ? " " : "", (long long)fsim_composed_eval(&cl, i));
    printf("\n");
  }
  if (grid || !indices) printf("%s\n", buf);
  if (grid) print_grid(&cl, rows, cols);
done:
  free(v);
  return rc;
}
