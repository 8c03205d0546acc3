/* The GEMM problem flags shared by several subcommands: see gemm_args.h. */
#include "config.h"

#include "cli/gemm_args.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "tune/db.h"
#include "util/ini_table.h"

void fsim_cli_gemm_init(fsim_cli_gemm *g, const char *cmd) {
  memset(g, 0, sizeof *g);
  g->cmd = cmd;
  g->op = FSIM_KOP_GEMM;
  g->m = g->n = g->k = -1;
  g->groups = 1;
}

static int dim(fsim_cli_gemm *g, const char *flag, const char *arg, long long *out) {
  long v;
  if (fsim_cli_parse_long(g->cmd, flag, arg, 1, 1L << 24, &v)) return FSIM_EXIT_USAGE;
  *out = v;
  return 1;
}

int fsim_cli_gemm_option(fsim_cli_gemm *g, int c, const char *arg) {
  long v;
  switch (c) {
  case FSIM_OPT_M: return dim(g, "--m", arg, &g->m);
  case FSIM_OPT_N: return dim(g, "--n", arg, &g->n);
  case FSIM_OPT_K: return dim(g, "--k", arg, &g->k);
  case FSIM_OPT_DTYPE: g->dtype = arg; return 1;
  case FSIM_OPT_B_DTYPE: g->b_dtype = arg; return 1;
  case FSIM_OPT_C_DTYPE: g->c_dtype = arg; return 1;
  case FSIM_OPT_LAYOUT: g->layout = arg; return 1;
  case FSIM_OPT_GROUPS:
    if (fsim_cli_parse_long(g->cmd, "--groups", arg, 1, 65536, &v)) return FSIM_EXIT_USAGE; /* as schedule files */
    g->groups = (int)v;
    g->groups_given = 1;
    return 1;
  case FSIM_OPT_CONFIG:
    if (*arg == '\0')
      return fsim_cli_usage_error(g->cmd, "--config: empty (give key=value pairs, or leave it out to tune every key)");
    g->config = arg;
    return 1;
  case FSIM_OPT_SCHEDULE:
    if (*arg == '\0') return fsim_cli_usage_error(g->cmd, "--schedule: an empty file name");
    g->schedule_path = arg;
    return 1;
  case FSIM_OPT_ARCH: g->arch = arg; return 1;
  case FSIM_OPT_DB:
    if (*arg == '\0') return fsim_cli_usage_error(g->cmd, "--db: an empty file name");
    g->db = arg;
    return 1;
  case FSIM_OPT_SET: return fsim_cli_sets_add(&g->sets, g->cmd, arg) ? FSIM_EXIT_USAGE : 1;
  default: return 0;
  }
}

int fsim_cli_sampled_flag(const char *cmd, int c, int *sampled) {
  if (*sampled == (c == 'F')) return fsim_cli_usage_error(cmd, "--sampled and --full: give one of them");
  *sampled = c == 'S';
  return 0;
}

/* SHAPE "MxNxK": each a whole number in the range --m/--n/--k take; a flag given too must agree. */
static int shape_arg(fsim_cli_gemm *g, const char *text) {
  long long v[3];
  const char *p = text;
  if (!isdigit((unsigned char)text[0])) /* a word, not a shape with a typo ('extra' is not M = 'e') */
    return fsim_cli_usage_error(g->cmd, "SHAPE '%s': expected MxNxK, e.g. 4096x4096x4096", text);
  int xs = 0;
  for (const char *q = text; *q; q++) xs += *q == 'x';
  if (xs == 3 && g->op == FSIM_KOP_GROUPED_GEMM) /* db list prints a grouped problem's shape so */
    return fsim_cli_usage_error(g->cmd, "SHAPE '%s': expected MxNxK; give GxMxNxK's G as --groups G", text);
  for (int i = 0; i < 3; i++) {
    char part[32];
    size_t len = strcspn(p, "x");
    if (len == 0 || len >= sizeof part || (i < 2 && p[len] != 'x') || (i == 2 && p[len] != '\0'))
      return fsim_cli_usage_error(g->cmd, "SHAPE '%s': expected MxNxK, e.g. 4096x4096x4096", text);
    memcpy(part, p, len);
    part[len] = '\0';
    long x;
    static const char *const names[3] = {"SHAPE's M", "SHAPE's N", "SHAPE's K"};
    if (fsim_cli_parse_long(g->cmd, names[i], part, 1, 1L << 24, &x)) return FSIM_EXIT_USAGE;
    v[i] = x;
    p += len + (i < 2);
  }
  long long *dst[3] = {&g->m, &g->n, &g->k};
  static const char *const flags[3] = {"--m", "--n", "--k"};
  for (int i = 0; i < 3; i++) {
    if (*dst[i] > 0 && *dst[i] != v[i])
      return fsim_cli_usage_error(g->cmd, "SHAPE '%s' and %s %lld disagree", text, flags[i], *dst[i]);
    *dst[i] = v[i];
  }
  return 0;
}

static int gemm_family(fsim_kop k) { return k == FSIM_KOP_GEMM || k == FSIM_KOP_GROUPED_GEMM || k == FSIM_KOP_SCALED_GEMM; }

int fsim_cli_gemm_positional(fsim_cli_gemm *g, int argc, char **argv, int optind_) {
  if (optind_ >= argc) {
    if (g->schedule_path) {
      g->op_from_schedule = 1;
      return 0;
    }
    return fsim_cli_usage_error(g->cmd, "expected OP (gemm, grouped-gemm or scaled-gemm; see --help)");
  }
  if (optind_ + 2 < argc) return fsim_cli_usage_error(g->cmd, "unexpected argument '%s'", argv[optind_ + 2]);
  const char *op = argv[optind_];
  fsim_kop k;
  if (fsim_kop_parse(op, &k) != 0)
    return fsim_cli_usage_error(g->cmd, "OP '%s': expected one of " FSIM_KOP_NAMES, op);
  if (!gemm_family(k))
    return fsim_cli_usage_error(g->cmd,
                                "OP '%s': only the GEMM family (gemm, grouped-gemm, scaled-gemm) is modelled end to "
                                "end so far; its schedules can be checked with 'flysim schedule'",
                                op);
  g->op = k;
  if (optind_ + 1 < argc && shape_arg(g, argv[optind_ + 1])) return FSIM_EXIT_USAGE;
  return 0;
}

static int type_flag(fsim_cli_gemm *g, const char *flag, const char *text, fsim_dtype *out) {
  if (fsim_dtype_parse(text, out) != 0)
    return fsim_cli_usage_error(g->cmd, "%s '%s': expected bf16, fp16, fp8 or fp4 (or f32 for --c-dtype)", flag, text);
  return 0;
}

static int finish_with(fsim_cli_gemm *g, char **text);

int fsim_cli_gemm_finish(fsim_cli_gemm *g) {
  char *text = NULL; /* the schedule file as read, to locate what later checks find */
  int rc = finish_with(g, &text);
  free(text);
  return rc;
}

static int finish_with(fsim_cli_gemm *g, char **text) {
  int rc = fsim_cli_load_arch(g->cmd, g->arch, &g->sets, &g->a);
  if (rc) return rc;
  fsim_gemm_problem *pr = &g->pr;
  memset(pr, 0, sizeof *pr);
  fsim_err e;
  fsim_err_clear(&e);
  if (g->schedule_path && !g->config) {
    if (fsim_schedule_load_keep(&g->schedule, g->schedule_path, text, &e) != FSIM_OK) return fsim_cli_report(g->cmd, &e);
    if (g->op_from_schedule) {
      g->op = (fsim_kop)g->schedule.op;
      if (!gemm_family(g->op))
        return fsim_cli_usage_error(g->cmd,
                                    "--schedule %s: it schedules %s; only the GEMM family (gemm, grouped-gemm, "
                                    "scaled-gemm) is modelled end to end so far ('flysim schedule check' checks it)",
                                    g->schedule_path, fsim_kop_name(g->op));
    }
  }
  pr->op = g->op;
  pr->groups = g->groups;
  pr->a = pr->b = g->op == FSIM_KOP_SCALED_GEMM ? FSIM_DT_FP8 : FSIM_DT_BF16;
  pr->c = FSIM_DT_BF16;
  pr->layout = FSIM_LAYOUT_TN;
  pr->m = pr->n = pr->k = -1;
  if (g->schedule_path) {
    if (g->config) return fsim_cli_usage_error(g->cmd, "--config and --schedule: give one of them");
    if (g->schedule.op != (int)g->op)
      return fsim_cli_usage_error(g->cmd, "--schedule %s: it schedules %s, not %s", g->schedule_path,
                                  fsim_kop_name((fsim_kop)g->schedule.op), fsim_kop_name(g->op));
    pr->m = g->schedule.m, pr->n = g->schedule.n, pr->k = g->schedule.k;
    pr->groups = g->schedule.groups > 0 ? g->schedule.groups : 1;
    pr->a = g->schedule.a_type, pr->b = g->schedule.b_type, pr->c = g->schedule.c_type;
    pr->layout = (fsim_gemm_layout)g->schedule.layout;
  }
  if (g->m > 0) pr->m = g->m;
  if (g->n > 0) pr->n = g->n;
  if (g->k > 0) pr->k = g->k;
  if (g->groups_given) pr->groups = g->groups; /* overrides the file's, 1 included */
  /* tune and db take no schedule file */
  const char *or_file =
      strcmp(g->cmd, "tune") == 0 || strncmp(g->cmd, "db", 2) == 0 ? "" : ", or a --schedule file's [problem]";
  if (pr->m < 0) return fsim_cli_usage_error(g->cmd, "--m is required (or the shape MxNxK after OP%s)", or_file);
  if (pr->n < 0) return fsim_cli_usage_error(g->cmd, "--n is required (or the shape MxNxK after OP%s)", or_file);
  if (pr->k < 0) return fsim_cli_usage_error(g->cmd, "--k is required (or the shape MxNxK after OP%s)", or_file);
  if (g->dtype) {
    if (type_flag(g, "--dtype", g->dtype, &pr->a)) return FSIM_EXIT_USAGE;
    pr->b = pr->a;
  }
  if (g->b_dtype && type_flag(g, "--b-dtype", g->b_dtype, &pr->b)) return FSIM_EXIT_USAGE;
  if (g->c_dtype && type_flag(g, "--c-dtype", g->c_dtype, &pr->c)) return FSIM_EXIT_USAGE;
  if (pr->c != FSIM_DT_BF16 && pr->c != FSIM_DT_F16 && pr->c != FSIM_DT_F32) {
    if (g->c_dtype) return fsim_cli_usage_error(g->cmd, "--c-dtype %s: the output is bf16, fp16 or f32", g->c_dtype);
    FSIM_ERR(&e, FSIM_EINVAL, "[problem] c_type %s: the output is bf16, fp16 or f32", fsim_dtype_name(pr->c));
    fsim_ini_err_locate_in(&e, g->schedule_path ? g->schedule_path : "", *text);
    return fsim_cli_report(g->cmd, &e);
  }
  if (g->layout) {
    fsim_gemm_layout l;
    if (fsim_gemm_layout_parse(g->layout, &l) != 0)
      return fsim_cli_usage_error(g->cmd, "--layout '%s': expected TN, NN, NT or TT", g->layout);
    pr->layout = l;
  }
  if (g->groups > 1 && g->op != FSIM_KOP_GROUPED_GEMM)
    return fsim_cli_usage_error(g->cmd, "--groups: only grouped-gemm has groups");
  /* operand types that came from a schedule file are named by its keys and lines, not by the
   * flags (--dtype sets both types, so its message stands for B too) */
  const int file_a = g->schedule_path && !g->dtype, file_b = file_a && !g->b_dtype;
  if (fsim_gemm_problem_check_as(pr, file_a ? "[problem] a_type" : "--dtype", file_b ? "[problem] b_type" : "--b-dtype",
                                 &e) != FSIM_OK) {
    if (e.msg[0] == '[') fsim_ini_err_locate_in(&e, g->schedule_path, *text);
    return fsim_cli_report(g->cmd, &e);
  }
  /* a shape that came from the file is named by its keys and lines */
  const int file_shape = g->schedule_path && g->m <= 0 && g->n <= 0 && g->k <= 0 && !g->groups_given;
  if (fsim_gemm_problem_fits_as(pr, &g->a, file_shape ? "[problem] m" : NULL, &e) != FSIM_OK) {
    if (file_shape) fsim_ini_err_locate_in(&e, g->schedule_path, *text);
    return fsim_cli_report(g->cmd, &e);
  }
  if (g->schedule_path) {
    /* the shape flags override the file's problem */
    g->schedule.m = pr->m, g->schedule.n = pr->n, g->schedule.k = pr->k, g->schedule.groups = pr->groups;
    g->schedule.a_type = pr->a, g->schedule.b_type = pr->b, g->schedule.c_type = pr->c;
    g->schedule.layout = pr->layout;
    fsim_sched_resources r;
    char why[300];
    if (g->falls_back && !fsim_gemm_supported(pr, &g->a, why, sizeof why)) return 0;
    if (fsim_schedule_check(&g->schedule, &g->a, &r, &e) != FSIM_OK) {
      fsim_ini_err_locate_in(&e, g->schedule_path, *text);
      return fsim_cli_report(g->cmd, &e);
    }
  }
  return 0;
}

int fsim_cli_gemm_check_config(const fsim_cli_gemm *g) {
  if (g->config == NULL) return 0;
  fsim_gemm_config c;
  fsim_err e;
  fsim_err_clear(&e);
  if (fsim_gemm_config_parse(g->config, &c, &e) != FSIM_OK) return fsim_cli_report(g->cmd, &e);
  return 0;
}

const char *fsim_cli_db_path(const char *flag) {
  if (flag) return flag;
  const char *env = getenv("FLYSIM_DB"); /* set but empty: refused at the start (flysim.c) */
  if (env != NULL) {
    fsim_cli_db_source("$FLYSIM_DB", env);
    return env;
  }
  fsim_cli_db_source("the default --db", "flysim-tuning.db");
  return "flysim-tuning.db";
}

int fsim_cli_check_db_path(const char *cmd, const char *flag) {
  const char *path = fsim_cli_db_path(flag);
  fsim_err e;
  fsim_err_clear(&e);
  fsim_status st = fsim_db_check_path(path, 0, &e);
  return st == FSIM_OK || st == FSIM_ENOENT ? 0 : fsim_cli_report(cmd, &e);
}

void fsim_cli_problem_text(const fsim_gemm_problem *pr, char *buf, size_t n) {
  char groups[32] = "";
  if (pr->op == FSIM_KOP_GROUPED_GEMM) snprintf(groups, sizeof groups, "%d x ", pr->groups);
  if (pr->a == pr->b)
    snprintf(buf, n, "%s %s%lldx%lldx%lld %s %s -> %s", fsim_kop_name(pr->op), groups, pr->m, pr->n, pr->k,
             fsim_dtype_name(pr->a), fsim_layout_name(pr->layout), fsim_dtype_name(pr->c));
  else
    snprintf(buf, n, "%s %s%lldx%lldx%lld %s x %s %s -> %s", fsim_kop_name(pr->op), groups, pr->m, pr->n, pr->k,
             fsim_dtype_name(pr->a), fsim_dtype_name(pr->b), fsim_layout_name(pr->layout), fsim_dtype_name(pr->c));
}

json_t *fsim_cli_problem_json(const fsim_gemm_problem *pr) {
  json_t *o = json_object();
  json_object_set_new(o, "op", fsim_json_text(fsim_kop_name(pr->op)));
  json_object_set_new(o, "m", json_integer(pr->m));
  json_object_set_new(o, "n", json_integer(pr->n));
  json_object_set_new(o, "k", json_integer(pr->k));
  json_object_set_new(o, "groups", json_integer(pr->op == FSIM_KOP_GROUPED_GEMM ? pr->groups : 1));
  json_object_set_new(o, "a_type", fsim_json_text(fsim_dtype_name(pr->a)));
  json_object_set_new(o, "b_type", fsim_json_text(fsim_dtype_name(pr->b)));
  json_object_set_new(o, "c_type", fsim_json_text(fsim_dtype_name(pr->c)));
  json_object_set_new(o, "layout", fsim_json_text(fsim_layout_name(pr->layout)));
  return o;
}
