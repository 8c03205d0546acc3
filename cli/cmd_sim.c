/* flysim sim: simulates a wave-program file from traces/ on a part. */
#include "config.h"

#include <getopt.h>
#include <math.h>
#include <string.h>

#include "cli/commands.h"
#include "cli/common.h"
#include "cli/report.h"
#include "sim/sim.h"

static const char *const CMD = "sim";

static void usage(FILE *f) {
  fprintf(f,
          "usage: flysim sim FILE --arch NAME [--set S.K=V]... [--sampled] [--compare-full]\n"
          "                  [--timeline OUT.json] [--waves] [--print] [--json]\n"
          "\n"
          "Simulates the wave programs in FILE (the text format of docs/traces.md; examples in\n"
          "traces/) cycle by cycle on the part and reports time, occupancy, utilisation, cache\n"
          "behaviour and where the waves stalled.\n"
          "\n"
          "  --arch NAME        the part (see 'flysim arch list')\n"
          "  --set S.K=V        override an arch key (what-if)\n"
          "  --sampled          simulate XCD 0 with shortened main loops and extrapolate\n"
          "  --compare-full     with --sampled: also run in full and report the deviation\n"
          "  --timeline OUT     write a Chrome/Perfetto trace of CU 0 (waves as threads)\n"
          "  --waves            also print the stall breakdown of each of CU 0's first waves (the\n"
          "                     JSON always has it, as waves_cu0)\n"
          "  --print            print the parsed program back in the text format and exit\n"
          "  --json             machine-readable output\n");
}

int fsim_cmd_sim(int argc, char **argv) {
  static const struct option opts[] = {{"arch", required_argument, NULL, 'a'},
                                       {"set", required_argument, NULL, 's'},
                                       {"json", no_argument, NULL, 'j'},
                                       {"timeline", required_argument, NULL, 't'},
                                       {"sampled", no_argument, NULL, 'S'},
                                       {"compare-full", no_argument, NULL, 'C'},
                                       {"print", no_argument, NULL, 'p'},
                                       {"waves", no_argument, NULL, 'W'},
                                       {"help", no_argument, NULL, 'h'},
                                       {NULL, 0, NULL, 0}};
  const char *arch = NULL, *timeline = NULL;
  int json = 0, sampled = 0, compare = 0, print = 0, waves = 0, c;
  fsim_cli_sets sets = {.n = 0};
  optind = 0;
  opterr = 0;
  while ((c = getopt_long(argc, argv, ":h", opts, NULL)) != -1) {
    switch (c) {
    case 'a': arch = optarg; break;
    case 's':
      if (fsim_cli_sets_add(&sets, CMD, optarg)) return FSIM_EXIT_USAGE;
      break;
    case 'j': json = 1; break;
    case 't': timeline = optarg; break;
    case 'S': sampled = 1; break;
    case 'C': compare = 1; break;
    case 'p': print = 1; break;
    case 'W': waves = 1; break;
    case 'h': usage(stdout); return FSIM_EXIT_OK;
    default: return fsim_cli_bad_option(CMD, argc, argv);
    }
  }
  if (optind + 1 != argc) {
    if (optind >= argc) return fsim_cli_usage_error(CMD, "expected one FILE (see --help)");
    return fsim_cli_usage_error(CMD, "unexpected argument '%s'", argv[optind + 1]);
  }
  if (compare && !sampled) return fsim_cli_usage_error(CMD, "--compare-full goes with --sampled");
  const char *file = argv[optind];
  fsim_arch a;
  int rc = fsim_cli_load_arch(CMD, arch, &sets, &a);
  if (rc) return rc;
  fsim_err e;
  fsim_err_clear(&e);
  fsim_wprog wp;
  if (fsim_wprog_parse_file(&wp, file, &a, &e) != FSIM_OK) return fsim_cli_report(CMD, &e);
  if (print) {
    rc = fsim_wprog_print(&wp, &a, stdout, &e) == FSIM_OK ? 0 : fsim_cli_report(CMD, &e);
    fsim_wprog_free(&wp);
    return rc;
  }
  fsim_sim_opts o = {.sampled = sampled, .timeline_path = timeline};
  fsim_sim_result r, full;
  if (fsim_sim_run(&a, &wp, &o, &r, &e) != FSIM_OK) {
    fsim_wprog_free(&wp);
    return fsim_cli_report(CMD, &e);
  }
  if (compare) {
    fsim_sim_opts of = {0};
    if (fsim_sim_run(&a, &wp, &of, &full, &e) != FSIM_OK) {
      fsim_wprog_free(&wp);
      return fsim_cli_report(CMD, &e);
    }
  }
  if (json) {
    json_t *out = json_object();
    json_t *prov = fsim_cli_provenance(&a);
    json_object_set_new(prov, "file", json_string(file));
    json_object_set_new(out, "produced_by", prov);
    json_object_set_new(out, "kernel", json_string(wp.name));
    json_t *res = fsim_cli_sim_json(&r);
    json_object_update(out, res);
    json_decref(res);
    if (compare) {
      json_t *cmp = json_object();
      json_object_set_new(cmp, "full_cycles", json_integer(full.cycles));
      json_object_set_new(cmp, "full_host_seconds", json_real(full.host_seconds));
      json_object_set_new(cmp, "deviation", json_real((double)(r.cycles - full.cycles) / (double)full.cycles));
      json_object_set_new(out, "compare_full", cmp);
    }
    fsim_wprog_free(&wp);
    return fsim_cli_print_json(out);
  }
  fsim_cli_print_provenance(stdout, &a);
  printf("kernel       %s  (grid %dx%dx%d, %d waves per workgroup)  file %s\n", wp.name, wp.grid[0], wp.grid[1],
         wp.grid[2], wp.waves_per_wg, file);
  fsim_cli_sim_print(stdout, &r);
  if (waves) fsim_cli_sim_print_waves(stdout, &r);
  if (compare)
    printf("full run     %lld cycles in %.3f s; sampled deviation %+.2f%%, %.1fx faster\n", (long long)full.cycles,
           full.host_seconds, 100.0 * (double)(r.cycles - full.cycles) / (double)full.cycles,
           r.host_seconds > 0 ? full.host_seconds / r.host_seconds : 0);
  if (timeline) printf("timeline     %s\n", timeline);
  fsim_wprog_free(&wp);
  return FSIM_EXIT_OK;
}
