/* flysim schedule: reads a schedule file, prints it back normalised, and checks it against a
 * part (atoms on the ISA, tiles divisible, LDS and registers within limits). */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "cli/commands.h"
#include "cli/common.h"
#include "kernels/schedule.h"

static const char *const CMD = "schedule";

static void usage(FILE *f) {
  fprintf(f,
          "usage: flysim schedule check FILE --arch NAME [--set S.K=V]... [--json]\n"
          "       flysim schedule print FILE [--json]\n"
          "\n"
          "A schedule file (docs/schedules.md; examples in kernels/schedules/) describes a FlyDSL\n"
          "kernel: operator and problem, block tile and waves, MMA atom, per-operand copy atoms,\n"
          "LDS layouts and swizzles, stages, pipeline and epilogue.\n"
          "  check   verifies it on the part and prints the resources it needs\n"
          "  print   writes it back in normalised form (every key, defaults filled in); with --json\n"
          "          as an object of sections, each an object of its keys\n");
}

static int print_text(const fsim_schedule *s) {
  fsim_err e;
  fsim_err_clear(&e);
  fsim_cli_print_provenance(stdout, NULL); /* a comment line to the INI reader */
  return fsim_schedule_write(s, stdout, &e) == FSIM_OK ? FSIM_EXIT_OK : fsim_cli_report(CMD, &e);
}

/* The normalised file as JSON: {"produced_by", "file", "sections": {"tile": {"bm": 256, ...}}}.
 * It is built from what print writes, so the two never disagree; whole numbers are numbers. */
static int print_json(const fsim_schedule *s, const char *file) {
  char *text;
  fsim_err e;
  fsim_err_clear(&e);
  if (fsim_schedule_text(s, &text, &e) != FSIM_OK) return fsim_cli_report(CMD, &e);
  json_t *sections = json_object(), *cur = NULL;
  char sec[64] = "";
  for (char *save = NULL, *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
    if (*line == ';' || *line == '\0') continue;
    if (*line == '[') {
      line[strcspn(line, "]")] = '\0';
      snprintf(sec, sizeof sec, "%s", line + 1);
      cur = json_object();
      json_object_set_new(sections, line + 1, cur);
      continue;
    }
    /* "key = value", or "key =;value" for a value that starts with ';' (which the reader
     * would take for a comment after a blank; util/ini_table.c, write_pair) */
    char *eq = strstr(line, " =");
    if (cur == NULL || eq == NULL) continue;
    *eq = '\0';
    const char *v = eq[2] == ' ' ? eq + 3 : eq + 2;
    /* numbers for numeric keys only: a name of digits stays text ("0042") */
    const fsim_ini_key *k = fsim_ini_find(fsim_schedule_spec(), sec, line);
    if (k == NULL && strchr(sec, '.') != NULL) {
      char prefix[64];
      snprintf(prefix, sizeof prefix, "%.*s", (int)strcspn(sec, "."), sec);
      k = fsim_ini_find(fsim_schedule_spec(), prefix, line);
    }
    int numeric = k != NULL && (k->type == FSIM_KEY_INT || k->type == FSIM_KEY_LLONG);
    char *end;
    errno = 0;
    long long n = strtoll(v, &end, 10);
    json_object_set_new(cur, line, numeric && *v && *end == '\0' && errno == 0 ? json_integer(n) : fsim_json_text(v));
  }
  free(text);
  json_t *o = json_object();
  json_object_set_new(o, "produced_by", fsim_cli_provenance(NULL));
  json_object_set_new(o, "file", fsim_json_text(file));
  json_object_set_new(o, "sections", sections);
  return fsim_cli_print_json(o);
}

int fsim_cmd_schedule(int argc, char **argv) {
  static const struct option opts[] = {{"arch", required_argument, NULL, 'a'},
                                       {"set", required_argument, NULL, 's'},
                                       {"json", no_argument, NULL, 'j'},
                                       {"help", no_argument, NULL, 'h'},
                                       {NULL, 0, NULL, 0}};
  const char *arch = NULL;
  int json = 0, c;
  fsim_cli_sets sets = {.n = 0};
  optind = 0;
  opterr = 0;
  while ((c = fsim_cli_getopt(argc, argv, ":h", opts)) != -1) {
    switch (c) {
    case 'a': arch = optarg; break;
    case 's':
      if (fsim_cli_sets_add(&sets, CMD, optarg)) return FSIM_EXIT_USAGE;
      break;
    case 'j': json = 1; break;
    case 'h': usage(stdout); return FSIM_EXIT_OK;
    default: return fsim_cli_bad_option(CMD, argc, argv);
    }
  }
  if (optind + 2 != argc) return fsim_cli_usage_error(CMD, "expected 'check FILE' or 'print FILE' (see --help)");
  const char *verb = argv[optind], *file = argv[optind + 1];
  if (strcmp(verb, "check") != 0 && strcmp(verb, "print") != 0)
    return fsim_cli_usage_error(CMD, "'%s' is not a verb of schedule (check, print)", verb);
  if (strcmp(verb, "print") == 0 && (arch || sets.n))
    return fsim_cli_usage_error(CMD, "print: --arch and --set go with check");
  if (*file == '\0') return fsim_cli_usage_error(CMD, "FILE: an empty file name");
  fsim_err e;
  fsim_err_clear(&e);
  fsim_schedule s;
  char *text = NULL; /* the file as read, to locate what the check finds */
  if (fsim_schedule_load_keep(&s, file, &text, &e) != FSIM_OK) return fsim_cli_report(CMD, &e);
  if (strcmp(verb, "print") == 0) {
    free(text);
    return json ? print_json(&s, file) : print_text(&s);
  }
  fsim_arch a;
  int rc = fsim_cli_load_arch(CMD, arch, &sets, &a);
  if (rc) {
    free(text);
    return rc;
  }
  fsim_sched_resources r;
  fsim_status cst = fsim_schedule_check(&s, &a, &r, &e);
  if (cst != FSIM_OK) fsim_ini_err_locate_in(&e, file, text);
  free(text);
  if (cst != FSIM_OK) return fsim_cli_report(CMD, &e);
  if (json) {
    json_t *o = json_object();
    json_object_set_new(o, "produced_by", fsim_cli_provenance(&a));
    json_object_set_new(o, "schedule", fsim_json_text(s.name));
    json_object_set_new(o, "op", fsim_json_text(fsim_kop_name((fsim_kop)s.op)));
    json_object_set_new(o, "ok", json_true());
    json_object_set_new(o, "waves", json_integer(r.waves));
    json_object_set_new(o, "threads", json_integer(r.threads));
    json_object_set_new(o, "lds_bytes", json_integer(r.lds_bytes));
    json_object_set_new(o, "lds_limit", json_integer(a.lds.max_bytes_per_wg));
    json_object_set_new(o, "vgprs", json_integer(r.vgprs));
    json_object_set_new(o, "agprs", json_integer(r.agprs));
    json_object_set_new(o, "workgroups", json_integer(r.workgroups));
    return fsim_cli_print_json(o);
  }
  fsim_cli_print_provenance(stdout, &a);
  printf("%s (%s): legal on %s\n", s.name, fsim_kop_name((fsim_kop)s.op), a.device.name);
  printf("  workgroup  %d waves (%d threads), %lld workgroups\n", r.waves, r.threads, r.workgroups);
  printf("  LDS        %lld of %d bytes\n", r.lds_bytes, a.lds.max_bytes_per_wg);
  printf("  registers  ~%d VGPRs + %d AGPRs per wave (estimate)\n", r.vgprs, r.agprs);
  return FSIM_EXIT_OK;
}
