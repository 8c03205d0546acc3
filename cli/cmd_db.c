/* flysim db: reads the tuning database (list, show, export). */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/commands.h"
#include "cli/gemm_args.h"
#include "tune/db.h"
#include "tune/predict.h"
#include "util/file.h"

static const char *const CMD = "db";

static void usage(FILE *f) {
  fprintf(f,
          "usage: flysim db list [--db FILE] [--arch NAME [--set S.K=V]...] [--json]\n"
          "       flysim db show OP (MxNxK | --m M --n N --k K) --arch NAME [--set S.K=V]... [shape flags]\n"
          "                      [--db FILE] [--json]\n"
          "       flysim db export [--db FILE] [-o/--output OUT.json] [--json]   (JSON either way)\n"
          "\n"
          "Reads the tuning database that 'flysim tune' writes (default $FLYSIM_DB, else\n"
          "./flysim-tuning.db): every stored winner, the winner of one problem, or all of them as\n"
          "JSON (to OUT.json, written whole or not at all, or to stdout).\n"
          "\n"
          "  --db FILE     the database\n"
          "  --arch NAME   list: only this part's winners, its what-if variants' included (--set\n"
          "                narrows to one); show: the part (as for predict)\n"
          "  --set S.K=V   with --arch: the part as changed (a what-if part's winners are stored\n"
          "                under its own name, e.g. mi355x[lds.banks=32])\n"
          "  -o, --output OUT.json  export: write here instead of stdout\n"
          "  --json        machine-readable output\n");
}

static json_t *entry_json(const fsim_db_entry *en) {
  json_t *o = json_object();
  json_object_set_new(o, "arch", fsim_json_text(en->arch));
  json_object_set_new(o, "op", fsim_json_text(en->op));
  json_object_set_new(o, "m", json_integer(en->m));
  json_object_set_new(o, "n", json_integer(en->n));
  json_object_set_new(o, "k", json_integer(en->k));
  json_object_set_new(o, "groups", json_integer(en->groups));
  json_object_set_new(o, "a_type", fsim_json_text(en->a_type));
  json_object_set_new(o, "b_type", fsim_json_text(en->b_type));
  json_object_set_new(o, "c_type", fsim_json_text(en->c_type));
  json_object_set_new(o, "layout", fsim_json_text(en->layout));
  json_object_set_new(o, "config", en->config[0] ? fsim_json_text(en->config) : json_null());
  json_object_set_new(o, "time_us", json_real(en->time_us));
  json_object_set_new(o, "tflops", json_real(en->tflops));
  json_object_set_new(o, "model_us", en->model_us > 0 ? json_real(en->model_us) : json_null());
  json_object_set_new(o, "backend", fsim_json_text(en->backend));
  json_object_set_new(o, "version", fsim_json_text(en->version));
  json_object_set_new(o, "compiled_us", en->compiled_us > 0 ? json_real(en->compiled_us) : json_null());
  return o;
}

/* aw: the arch column's width (a what-if part's key, mi355x[device.sustained_clock_ghz=1.2], is
 * longer than the 10 a part name needs) */
static void entry_print(const fsim_db_entry *en, int aw) {
  char shape[80];
  if (en->groups > 1)
    snprintf(shape, sizeof shape, "%dx%lldx%lldx%lld", en->groups, en->m, en->n, en->k);
  else
    snprintf(shape, sizeof shape, "%lldx%lldx%lld", en->m, en->n, en->k);
  char comp[32] = "-", types[48];
  if (en->compiled_us > 0) snprintf(comp, sizeof comp, "%.3f", en->compiled_us);
  /* A's type, then B's where it differs: fp8xfp4 and fp4xfp8 are different rows */
  if (strcmp(en->a_type, en->b_type) == 0)
    snprintf(types, sizeof types, "%s", en->a_type);
  else
    snprintf(types, sizeof types, "%sx%s", en->a_type, en->b_type);
  printf("%-*s %-12s %-20s %-9s %-3s %-5s %10.3f %11s %8.1f  %-8s %-14s %s\n", aw, en->arch, en->op, shape, types,
         en->layout, en->c_type, en->time_us, comp,
         en->tflops, en->backend, en->version, en->config[0] ? en->config : "-");
}

/* The report's first line: what produced it and from which file. */
/* The report's first line: what produced it, the database, and the part it is filtered by (its
 * file and --set overrides, as other commands' reports give them) */
static void print_source(const char *path, const fsim_arch *a) {
  if (a == NULL) printf("# flysim %s  db %s\n", PACKAGE_VERSION, path);
  else
    printf("# flysim %s  db %s  arch %s (%s)  file %s  overrides %s\n", PACKAGE_VERSION, path, a->device.name,
           a->device.gfx, a->file, a->overrides[0] ? a->overrides : "none");
}

static void header(int aw) {
  printf("%-*s %-12s %-20s %-9s %-3s %-5s %10s %11s %8s  %-8s %-14s %s\n", aw, "arch", "op", "shape", "dtype", "lay", "c",
         "time_us", "compiled_us", "TFLOP/s", "backend", "version", "config");
}

/* A stored arch key is the part's name, with its changed values in brackets (or its
 * fingerprint after '#') for what-if parts.  --arch NAME lists the part and its what-if
 * variants: a shipped part ("mi355x"), every key of its name; a changed one ("mi355x[a=1]",
 * an edited file), the keys of its name whose changes include all of its (its variants add
 * more); one known by its fingerprint (a part file of another name, "mine#..."), every key
 * of its name so known, as a variant's fingerprint does not tell whose it is (an audit found
 * the variants of both left out).  With --set (exact), the key itself. */
static int has_token(const char *list, size_t len, const char *tok, size_t tl) {
  for (size_t i = 0; i + tl <= len; i++)
    if ((i == 0 || list[i - 1] == ' ') && memcmp(list + i, tok, tl) == 0 && (i + tl == len || list[i + tl] == ' '))
      return 1;
  return 0;
}

static int arch_matches(const char *stored, const char *part, int exact) {
  if (exact) return strcmp(stored, part) == 0;
  size_t nl = strcspn(part, "[#");
  if (strncmp(stored, part, nl) != 0 || (stored[nl] != '\0' && stored[nl] != '[' && stored[nl] != '#')) return 0;
  if (part[nl] == '\0') return 1;
  if (part[nl] == '#') return stored[nl] == '#';
  if (stored[nl] != '[') return 0;
  const char *pl = part + nl + 1, *sl = stored + nl + 1;
  size_t plen = strcspn(pl, "]"), slen = strcspn(sl, "]");
  for (size_t i = 0; i < plen;) {
    size_t tl = strcspn(pl + i, " ]");
    if (tl > 0 && !has_token(sl, slen, pl + i, tl)) return 0;
    i += tl + 1;
  }
  return 1;
}

static int open_db(const char *path, fsim_db **db) {
  fsim_err e;
  fsim_err_clear(&e);
  fsim_status st = fsim_db_check_path(path, 0, &e);
  if (st == FSIM_ENOENT) return fsim_cli_usage_error(CMD, "--db %s: no such file (run 'flysim tune' first)", path);
  if (st == FSIM_OK) st = fsim_db_open(db, path, 0, &e);
  if (st != FSIM_OK) return fsim_cli_report(CMD, &e);
  return 0;
}

/* Writes text to path through a temporary file and a rename: all or nothing. */
static int write_whole(const char *path, const char *text) {
  fsim_err e;
  fsim_file_out o;
  fsim_status st = fsim_file_out_open(&o, path, &e);
  if (st == FSIM_OK) {
    fputs(text, o.f);
    fputc('\n', o.f);
    st = fsim_file_out_commit(&o, &e);
  }
  if (st == FSIM_OK) return FSIM_EXIT_OK;
  fsim_err_prefix(&e, "-o");
  return fsim_cli_report(CMD, &e);
}

int fsim_cmd_db(int argc, char **argv) {
  static const struct option opts[] = {FSIM_CLI_GEMM_OPTIONS,
                                       {"json", no_argument, NULL, 'j'},
                                       {"output", required_argument, NULL, 'o'},
                                       {"help", no_argument, NULL, 'h'},
                                       {NULL, 0, NULL, 0}};
  if (argc < 2) return fsim_cli_usage_error(CMD, "expected list, show or export (see --help)");
  const char *verb = argv[1];
  if (strcmp(verb, "--help") == 0 || strcmp(verb, "-h") == 0) {
    usage(stdout);
    return FSIM_EXIT_OK;
  }
  if (strcmp(verb, "list") != 0 && strcmp(verb, "show") != 0 && strcmp(verb, "export") != 0)
    return fsim_cli_usage_error(CMD, "'%s': expected list, show or export", verb);
  fsim_cli_gemm g;
  fsim_cli_gemm_init(&g, CMD);
  int json = 0, c;
  const char *out_path = NULL;
  optind = 0;
  opterr = 0;
  argc--, argv++;
  while ((c = fsim_cli_getopt(argc, argv, ":ho:", opts)) != -1) {
    int taken = fsim_cli_gemm_option(&g, c, optarg);
    if (taken == 1) continue;
    if (taken) return taken;
    switch (c) {
    case 'j': json = 1; break;
    case 'o':
      /* "-o=x.hip" would write "=x.hip" (getopt takes the rest of a short option as its value) */
      if (optarg[0] == '=')
        return fsim_cli_usage_error(CMD, "-o%s: write '-o %s' or '--output=%s'", optarg, optarg + 1, optarg + 1);
      out_path = optarg;
      break;
    case 'h': usage(stdout); return FSIM_EXIT_OK;
    default: return fsim_cli_bad_option(CMD, argc, argv);
    }
  }
  const char *path = fsim_cli_db_path(g.db);
  fsim_err e;
  fsim_err_clear(&e);
  fsim_db *db = NULL;
  int rc;
  if (strcmp(verb, "export") != 0 && out_path) return fsim_cli_usage_error(CMD, "-o goes with export");
  if (out_path && strcmp(out_path, "-") == 0) out_path = NULL; /* "-": standard output, as without -o */
  if (strcmp(verb, "show") == 0) {
    if (fsim_cli_gemm_positional(&g, argc, argv, optind)) return FSIM_EXIT_USAGE;
    if (g.config || g.schedule_path) return fsim_cli_usage_error(CMD, "show: --config and --schedule do not apply");
    if ((rc = fsim_cli_gemm_finish(&g)) != 0) return rc;
    if ((rc = open_db(path, &db)) != 0) return rc;
    fsim_db_entry key, got;
    int found = 0;
    fsim_predict_db_entry(&g.a, &g.pr, "", "", 0, 0, 0, &key);
    fsim_status st = fsim_db_get(db, &key, &got, &found, &e);
    fsim_db_close(db);
    if (st != FSIM_OK) return fsim_cli_report(CMD, &e);
    char prob[160];
    fsim_cli_problem_text(&g.pr, prob, sizeof prob);
    if (!found) {
      fprintf(stderr, "flysim db: no winner stored for %s on %s in %s\n", prob, key.arch, path);
      return FSIM_EXIT_FAIL;
    }
    if (json) {
      json_t *o = entry_json(&got);
      json_object_set_new(o, "produced_by", fsim_cli_provenance(&g.a));
      json_object_set_new(o, "db", fsim_json_text(path));
      return fsim_cli_print_json(o);
    }
    print_source(path, &g.a);
    int aw = (int)strlen(got.arch) > 10 ? (int)strlen(got.arch) : 10;
    header(aw);
    entry_print(&got, aw);
    return FSIM_EXIT_OK;
  }
  if (optind < argc) return fsim_cli_usage_error(CMD, "%s: unexpected argument '%s'", verb, argv[optind]);
  if (g.m > 0 || g.n > 0 || g.k > 0 || g.config || g.schedule_path || g.dtype || g.b_dtype || g.c_dtype || g.layout ||
      g.groups_given)
    return fsim_cli_usage_error(CMD, "%s: the shape flags go with show", verb);
  if (strcmp(verb, "export") == 0 && (g.arch || g.sets.n > 0))
    return fsim_cli_usage_error(CMD, "export writes every entry; --arch and --set go with list and show");
  if (g.sets.n > 0 && !g.arch) return fsim_cli_usage_error(CMD, "list: --set needs --arch (the part it changes)");
  /* --arch filters by the part's key: its name (gfx aliases resolved), with --set the
   * what-if part's */
  const char *part = NULL;
  char key[1200];
  if (g.arch) {
    if ((rc = fsim_cli_load_arch(CMD, g.arch, &g.sets, &g.a)) != 0) return rc;
    fsim_db_arch_key(&g.a, key, sizeof key);
    part = key;
  }
  if (out_path && (rc = fsim_cli_check_output(CMD, "-o", out_path, g.db ? "--db" : "the database", path)) != 0) return rc;
  if ((rc = open_db(path, &db)) != 0) return rc;
  fsim_db_entry *all;
  int n;
  fsim_status st = fsim_db_list(db, &all, &n, &e);
  fsim_db_close(db);
  if (st != FSIM_OK) return fsim_cli_report(CMD, &e);
  json_t *arr = json_array();
  int shown = 0, aw = 10;
  for (int i = 0; i < n; i++)
    if ((!part || arch_matches(all[i].arch, part, g.sets.n > 0)) && (int)strlen(all[i].arch) > aw) aw = (int)strlen(all[i].arch);
  if (!json && strcmp(verb, "list") == 0) {
    print_source(path, g.arch ? &g.a : NULL);
    header(aw);
  }
  for (int i = 0; i < n; i++) {
    if (part && !arch_matches(all[i].arch, part, g.sets.n > 0)) continue;
    shown++;
    if (json || strcmp(verb, "export") == 0) json_array_append_new(arr, entry_json(&all[i]));
    else entry_print(&all[i], aw);
  }
  free(all);
  if (strcmp(verb, "list") == 0) {
    if (json) {
      json_t *o = json_object();
      json_object_set_new(o, "produced_by", fsim_cli_provenance(g.arch ? &g.a : NULL));
      json_object_set_new(o, "db", fsim_json_text(path));
      json_object_set_new(o, "entries", arr);
      return fsim_cli_print_json(o);
    }
    json_decref(arr);
    if (shown == 0) printf("(no entries)\n");
    return FSIM_EXIT_OK;
  }
  /* export */
  json_t *o = json_object();
  json_object_set_new(o, "format", json_string("flysim-tuning"));
  json_object_set_new(o, "schema", json_integer(2)); /* 2: entries carry compiled_us */
  json_object_set_new(o, "produced_by", fsim_cli_provenance(NULL));
  json_object_set_new(o, "entries", arr);
  if (out_path == NULL) return fsim_cli_print_json(o);
  char *text = json_dumps(o, JSON_INDENT(2) | JSON_REAL_PRECISION(12));
  json_decref(o);
  if (text == NULL) return fsim_cli_usage_error(CMD, "out of memory");
  rc = write_whole(out_path, text);
  free(text);
  return rc;
}
