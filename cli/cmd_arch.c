/* flysim arch: list the hardware descriptions, show one with its derived figures, or diff
 * two.  Everything printed comes from the loader's key table, so a new key shows up here
 * without changes to this file. */
#include "config.h"

#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "cli/commands.h"
#include "cli/common.h"

static const char *const CMD = "arch";

static void usage(FILE *f) {
  fprintf(f,
          "usage: flysim arch list [--json]\n"
          "       flysim arch show NAME [--set SECTION.KEY=VALUE]... [--json]\n"
          "       flysim arch diff A B [--set SECTION.KEY=VALUE]... [--json]\n"
          "\n"
          "NAME is a part (mi355x, mi350x, mi300x, rx9070xt), its gfx name (gfx950 = mi355x,\n"
          "gfx942 = mi300x, gfx1201 = rx9070xt) or the path of an .ini file.  Parts are looked\n"
          "up in $FLYSIM_ARCH_PATH, then the installed and source model/arch folders.\n"
          "\n"
          "  --set S.K=V  override one key for a what-if study (checked like the file); with\n"
          "               diff it applies to B, so 'diff mi355x mi355x --set ...' shows the change\n"
          "  --json       machine-readable output\n"
          "\n"
          "Derived figures (peak TFLOP/s per data type, LDS/L1/L2/DRAM bandwidth) are computed\n"
          "from the description at the peak engine clock.  docs/arch.md gives every value's source.\n");
}

static json_t *key_json(const fsim_arch *a, const fsim_mfma_entry *m, const fsim_arch_key *k) {
  switch (k->type) {
  case FSIM_KEY_INT:
  case FSIM_KEY_LLONG: return json_integer((json_int_t)fsim_arch_numeric_value(a, m, k));
  case FSIM_KEY_DOUBLE: return json_real(fsim_arch_numeric_value(a, m, k));
  default: {
    char buf[FSIM_ARCH_VALUE_MAX];
    fsim_arch_format_value(a, m, k, buf, sizeof buf);
    return fsim_json_text(buf);
  }
  }
}

static json_t *derived_json(const fsim_arch *a) {
  fsim_arch_derived d;
  fsim_arch_derive(a, &d);
  json_t *o = json_object();
  json_t *peak = json_object();
  for (int i = 0; i < FSIM_PEAK_CLASS_COUNT; i++)
    if (d.peak_tflops[i] > 0) json_object_set_new(peak, fsim_arch_peak_class_name(i), json_real(d.peak_tflops[i]));
  json_object_set_new(o, "peak_tflops", peak);
  json_object_set_new(o, "lds_tbps", json_real(d.lds_tbps));
  json_object_set_new(o, "l1_tbps", json_real(d.l1_tbps));
  json_object_set_new(o, "l2_tbps", json_real(d.l2_tbps));
  json_object_set_new(o, "mall_tbps", json_real(d.mall_tbps));
  json_object_set_new(o, "hbm_tbps", json_real(d.dram_tbps));
  json_object_set_new(o, "max_waves_per_cu", json_integer(d.max_waves_per_cu));
  return o;
}

static json_t *arch_json(const fsim_arch *a) {
  fsim_arch_derived d;
  fsim_arch_derive(a, &d);
  json_t *o = json_object();
  json_object_set_new(o, "produced_by", fsim_cli_provenance(a));
  json_object_set_new(o, "name", fsim_json_text(a->device.name));
  json_object_set_new(o, "gfx", fsim_json_text(a->device.gfx));
  json_object_set_new(o, "cus", json_integer(a->device.cus));
  json_object_set_new(o, "xcds", json_integer(a->device.xcds));
  json_object_set_new(o, "clock_ghz", json_real(a->device.clock_ghz));
  json_object_set_new(o, "sustained_clock_ghz", json_real(a->device.sustained_clock_ghz));
  json_object_set_new(o, "lds_bytes_per_cu", json_integer(a->lds.bytes_per_cu));
  json_object_set_new(o, "lds_banks", json_integer(a->lds.banks));
  json_object_set_new(o, "hbm_tbps", json_real(d.dram_tbps));
  json_t *derived = derived_json(a);
  json_object_set(o, "peak_tflops", json_object_get(derived, "peak_tflops"));
  json_object_set_new(o, "derived", derived);
  int nk;
  const fsim_arch_key *keys = fsim_arch_keys(&nk);
  json_t *sections = json_object();
  for (int i = 0; i < nk; i++) {
    if (strcmp(keys[i].section, "mfma") == 0) continue;
    json_t *sec = json_object_get(sections, keys[i].section);
    if (sec == NULL) {
      sec = json_object();
      json_object_set_new(sections, keys[i].section, sec);
    }
    json_object_set_new(sec, keys[i].key, key_json(a, NULL, &keys[i]));
  }
  json_t *mfma = json_array();
  for (int j = 0; j < a->n_mfma; j++) {
    const fsim_mfma_entry *m = &a->mfma[j];
    json_t *e = json_object();
    json_object_set_new(e, "id", fsim_json_text(m->name));
    for (int i = 0; i < nk; i++)
      if (strcmp(keys[i].section, "mfma") == 0) json_object_set_new(e, keys[i].key, key_json(a, m, &keys[i]));
    json_object_set_new(e, "cycles", json_integer(fsim_mfma_cycles(a, m)));
    json_object_set_new(e, "flops_per_clk_per_cu",
                        json_real(2.0 * m->m * m->n * m->k / fsim_mfma_cycles(a, m) * a->cu.simds));
    json_array_append_new(mfma, e);
  }
  json_object_set_new(sections, "mfma", mfma);
  json_object_set_new(o, "sections", sections);
  return o;
}

static void print_arch(const fsim_arch *a) {
  fsim_cli_print_provenance(stdout, a);
  int nk;
  const fsim_arch_key *keys = fsim_arch_keys(&nk);
  const char *cur = "";
  for (int i = 0; i < nk; i++) {
    const fsim_arch_key *k = &keys[i];
    if (strcmp(k->section, "mfma") == 0) continue;
    if (strcmp(k->section, cur) != 0) {
      printf("%s[%s]\n", *cur ? "\n" : "", k->section);
      cur = k->section;
    }
    char buf[FSIM_ARCH_VALUE_MAX];
    fsim_arch_format_value(a, NULL, k, buf, sizeof buf);
    printf("  %-24s %-14s %-10s %s\n", k->key, buf, k->unit, k->doc);
  }
  printf("\n[mfma] (cycles = passes x %d; latency = issue to dependent read)\n", a->issue.mfma_pass_cycles);
  printf("  %-40s %4s %4s %4s %-5s %-5s %-4s %6s %6s %6s %7s %12s\n", "id", "M", "N", "K", "A", "B", "C",
         "scaled", "passes", "cycles", "latency", "FLOP/clk/CU");
  for (int j = 0; j < a->n_mfma; j++) {
    const fsim_mfma_entry *m = &a->mfma[j];
    printf("  %-40s %4d %4d %4d %-5s %-5s %-4s %6d %6d %6d %7d %12.0f\n", m->name, m->m, m->n, m->k,
           fsim_dtype_name(m->a_type), fsim_dtype_name(m->b_type), fsim_dtype_name(m->c_type), m->scaled,
           m->passes, fsim_mfma_cycles(a, m), m->latency,
           2.0 * m->m * m->n * m->k / fsim_mfma_cycles(a, m) * a->cu.simds);
  }
  fsim_arch_derived d;
  fsim_arch_derive(a, &d);
  printf("\n[derived] (at the peak clock, %.3g GHz)\n", a->device.clock_ghz);
  for (int i = 0; i < FSIM_PEAK_CLASS_COUNT; i++)
    if (d.peak_tflops[i] > 0)
      printf("  peak %-6s %10.1f TFLOP/s  (%.0f FLOP/clk/CU)\n", fsim_arch_peak_class_name(i), d.peak_tflops[i],
             d.peak_flops_per_clk_per_cu[i]);
  printf("  LDS         %10.1f TB/s\n", d.lds_tbps);
  printf("  L1          %10.1f TB/s\n", d.l1_tbps);
  printf("  L2          %10.1f TB/s\n", d.l2_tbps);
  printf("  MALL        %10.1f TB/s\n", d.mall_tbps);
  printf("  HBM         %10.3f TB/s (pins; x %.2f achievable)\n", d.dram_tbps, a->memory.dram_efficiency);
  printf("  waves/CU    %10d\n", d.max_waves_per_cu);
}

static int cmd_list(int json) {
  fsim_err e;
  fsim_err_clear(&e);
  char **paths = NULL;
  int n = fsim_arch_list(&paths, &e);
  if (n < 0) return fsim_cli_report(CMD, &e);
  /* every file is loaded before anything is printed: a broken part file is an error (as for
   * 'arch show'), and then stdout stays empty */
  fsim_arch *all = calloc(n > 0 ? (size_t)n : 1, sizeof *all);
  if (all == NULL) {
    fsim_arch_list_free(paths, n);
    return fsim_cli_usage_error(CMD, "out of memory");
  }
  for (int i = 0; i < n; i++)
    if (fsim_arch_load_file(&all[i], paths[i], &e) != FSIM_OK) {
      free(all);
      fsim_arch_list_free(paths, n);
      return fsim_cli_report(CMD, &e);
    }
  json_t *arr = json ? json_array() : NULL;
  if (!json) {
    fsim_cli_print_provenance(stdout, NULL);
    printf("%-10s %-8s %-10s %-6s %5s %5s %9s  %s\n", "part", "gfx", "aliases", "isa", "CUs", "XCDs", "clock", "file");
  }
  for (int i = 0; i < n; i++) {
    const fsim_arch *a = &all[i];
    const char *base = strrchr(paths[i], '/');
    base = base ? base + 1 : paths[i];
    char part[64];
    snprintf(part, sizeof part, "%.*s", (int)(strlen(base) - 4), base);
    int nk;
    const fsim_arch_key *keys = fsim_arch_keys(&nk);
    char isa[16] = "";
    for (int k = 0; k < nk; k++)
      if (strcmp(keys[k].section, "device") == 0 && strcmp(keys[k].key, "isa") == 0)
        fsim_arch_format_value(a, NULL, &keys[k], isa, sizeof isa);
    if (json) {
      json_t *o = json_object();
      json_object_set_new(o, "part", fsim_json_text(part));
      json_object_set_new(o, "name", fsim_json_text(a->device.name));
      json_object_set_new(o, "gfx", fsim_json_text(a->device.gfx));
      json_object_set_new(o, "aliases", fsim_json_text(a->device.aliases));
      json_object_set_new(o, "isa", fsim_json_text(isa));
      json_object_set_new(o, "cus", json_integer(a->device.cus));
      json_object_set_new(o, "xcds", json_integer(a->device.xcds));
      json_object_set_new(o, "clock_ghz", json_real(a->device.clock_ghz));
      json_object_set_new(o, "file", fsim_json_text(paths[i]));
      json_array_append_new(arr, o);
    } else {
      printf("%-10s %-8s %-10s %-6s %5d %5d %5.2f GHz  %s\n", part, a->device.gfx,
             a->device.aliases[0] ? a->device.aliases : "-", isa, a->device.cus, a->device.xcds, a->device.clock_ghz,
             paths[i]);
    }
  }
  fsim_arch_list_free(paths, n);
  free(all);
  if (json) {
    json_t *o = json_object();
    json_object_set_new(o, "produced_by", fsim_cli_provenance(NULL));
    json_object_set_new(o, "parts", arr);
    return fsim_cli_print_json(o);
  }
  return FSIM_EXIT_OK;
}

/* One differing value, as a JSON row or a text line. */
static void diff_row(json_t *rows, const char *where, const char *va, const char *vb) {
  if (rows != NULL) {
    json_t *r = json_object();
    json_object_set_new(r, "key", fsim_json_text(where));
    json_object_set_new(r, "a", va ? fsim_json_text(va) : json_null());
    json_object_set_new(r, "b", vb ? fsim_json_text(vb) : json_null());
    json_array_append_new(rows, r);
  } else {
    printf("  %-48s %-16s -> %s\n", where, va ? va : "(absent)", vb ? vb : "(absent)");
  }
}

typedef struct diff_rows {
  json_t *rows; /* NULL: text */
  int n;
} diff_rows;

/* One differing key of the parts (fsim_arch_each_difference): [section] key, [mfma.NAME] key,
 * or [mfma.NAME] for an entry one side lacks. */
static int key_row(void *ctx, const char *sec, const char *mfma, const char *key, const char *va, const char *vb) {
  diff_rows *d = ctx;
  char where[160];
  if (mfma == NULL) snprintf(where, sizeof where, "[%s] %s", sec, key);
  else if (key != NULL) snprintf(where, sizeof where, "[mfma.%s] %s", mfma, key);
  else snprintf(where, sizeof where, "[mfma.%s]", mfma);
  diff_row(d->rows, where, va, vb);
  d->n++;
  return 0;
}

static int cmd_diff(const fsim_arch *a, const fsim_arch *b, int json) {
  json_t *rows = json ? json_array() : NULL;
  if (!json) {
    printf("# flysim %s  diff  A %s (%s)  B %s (%s)  B overrides %s\n", PACKAGE_VERSION, a->device.name, a->file,
           b->device.name, b->file, b->overrides[0] ? b->overrides : "none");
  }
  /* MFMA entries are matched by id; entries present on one side only are listed. */
  diff_rows d = {rows, 0};
  fsim_arch_each_difference(a, b, key_row, &d);
  int ndiff = d.n;
  char va[64], vb[64], where[160];
  fsim_arch_derived da, db;
  fsim_arch_derive(a, &da);
  fsim_arch_derive(b, &db);
  struct {
    const char *name;
    double x, y;
  } figs[FSIM_PEAK_CLASS_COUNT + 5];
  int nf = 0;
  for (int i = 0; i < FSIM_PEAK_CLASS_COUNT; i++) {
    static char names[FSIM_PEAK_CLASS_COUNT][32];
    snprintf(names[i], sizeof names[i], "peak_tflops.%s", fsim_arch_peak_class_name(i));
    figs[nf].name = names[i];
    figs[nf].x = da.peak_tflops[i];
    figs[nf++].y = db.peak_tflops[i];
  }
  figs[nf].name = "lds_tbps", figs[nf].x = da.lds_tbps, figs[nf++].y = db.lds_tbps;
  figs[nf].name = "l1_tbps", figs[nf].x = da.l1_tbps, figs[nf++].y = db.l1_tbps;
  figs[nf].name = "l2_tbps", figs[nf].x = da.l2_tbps, figs[nf++].y = db.l2_tbps;
  figs[nf].name = "mall_tbps", figs[nf].x = da.mall_tbps, figs[nf++].y = db.mall_tbps;
  figs[nf].name = "hbm_tbps", figs[nf].x = da.dram_tbps, figs[nf++].y = db.dram_tbps;
  for (int i = 0; i < nf; i++) {
    snprintf(va, sizeof va, "%.6g", figs[i].x);
    snprintf(vb, sizeof vb, "%.6g", figs[i].y);
    if (strcmp(va, vb) == 0) continue;
    snprintf(where, sizeof where, "derived %s", figs[i].name);
    /* a part without a data type has no peak for it (arch show leaves it out), not a zero */
    const int peak = i < FSIM_PEAK_CLASS_COUNT;
    diff_row(rows, where, peak && figs[i].x <= 0 ? NULL : va, peak && figs[i].y <= 0 ? NULL : vb);
    ndiff++;
  }
  if (json) {
    json_t *o = json_object();
    json_object_set_new(o, "produced_by", fsim_cli_provenance(b));
    json_object_set_new(o, "a", fsim_json_text(a->file));
    json_object_set_new(o, "b", fsim_json_text(b->file));
    json_object_set_new(o, "differences", rows);
    return fsim_cli_print_json(o);
  }
  if (ndiff == 0) printf("  (no differences)\n");
  return FSIM_EXIT_OK;
}

int fsim_cmd_arch(int argc, char **argv) {
  static const struct option opts[] = {{"json", no_argument, NULL, 'j'},
                                       {"set", required_argument, NULL, 's'},
                                       {"help", no_argument, NULL, 'h'},
                                       {NULL, 0, NULL, 0}};
  int json = 0, c;
  fsim_cli_sets sets = {.n = 0};
  optind = 0; /* GNU getopt: reinitialise, and permute so options may follow positionals */
  opterr = 0;
  while ((c = fsim_cli_getopt(argc, argv, ":h", opts)) != -1) {
    switch (c) {
    case 'j': json = 1; break;
    case 's':
      if (fsim_cli_sets_add(&sets, CMD, optarg)) return FSIM_EXIT_USAGE;
      break;
    case 'h': usage(stdout); return FSIM_EXIT_OK;
    default: return fsim_cli_bad_option(CMD, argc, argv);
    }
  }
  if (optind >= argc) return fsim_cli_usage_error(CMD, "expected list, show or diff (see --help)");
  const char *verb = argv[optind];
  const char **pos = (const char **)argv + optind + 1;
  int npos = argc - optind - 1;
  if (strcmp(verb, "list") == 0) {
    if (npos != 0) return fsim_cli_usage_error(CMD, "list: unexpected argument '%s'", pos[0]);
    if (sets.n) return fsim_cli_usage_error(CMD, "list: --set applies to show and diff");
    return cmd_list(json);
  }
  if (strcmp(verb, "show") == 0) {
    if (npos != 1) return fsim_cli_usage_error(CMD, "show: expected one NAME (see 'flysim arch list')");
    fsim_arch a;
    int rc = fsim_cli_load_arch_as(CMD, "NAME", pos[0], &sets, &a);
    if (rc) return rc;
    if (json) return fsim_cli_print_json(arch_json(&a));
    print_arch(&a);
    return FSIM_EXIT_OK;
  }
  if (strcmp(verb, "diff") == 0) {
    if (npos != 2) return fsim_cli_usage_error(CMD, "diff: expected two names A and B");
    static fsim_arch a, b;
    int rc = fsim_cli_load_arch_as(CMD, "A", pos[0], NULL, &a);
    if (rc == 0) rc = fsim_cli_load_arch_as(CMD, "B", pos[1], &sets, &b);
    if (rc) return rc;
    return cmd_diff(&a, &b, json);
  }
  return fsim_cli_usage_error(CMD, "'%s' is not a verb of arch (list, show, diff)", verb);
}
