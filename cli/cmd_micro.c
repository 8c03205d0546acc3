/* flysim micro: microbenchmarks of the model (MFMA rate and latency, LDS bank conflicts,
 * memory latency and bandwidth), each beside what the arch file implies. */
#include "config.h"

#include <getopt.h>
#include <limits.h>
#include <string.h>

#include "cli/commands.h"
#include "cli/common.h"
#include "sim/micro.h"

static const char *const CMD = "micro";

static void usage(FILE *f) {
  fprintf(f,
          "usage: flysim micro mfma --inst NAME [--waves-per-simd N] [--dependent] --arch NAME\n"
          "                         [--set S.K=V]... [--json]\n"
          "       flysim micro lds --stride BYTES --width (32|64|128) --arch NAME [--set S.K=V]... [--json]\n"
          "       flysim micro latency --level (l1|l2|mall|hbm) --arch NAME [--set S.K=V]... [--json]\n"
          "       flysim micro bandwidth --level (lds|l1|l2|mall|hbm) --arch NAME [--set S.K=V]... [--json]\n"
          "\n"
          "Runs a small program through the simulator and prints what it measured beside what the\n"
          "arch file implies ('expected'), so a what-if change (--set S.K=V) shows its effect.\n"
          "  mfma       FLOP/clk/CU and cycles per instruction; --dependent chains each MFMA on the\n"
          "             previous result (latency) instead of independent accumulators (throughput);\n"
          "             --waves-per-simd N (default 1): the run is one workgroup, so N is at most\n"
          "             max_workgroup_size / (wave size x SIMDs), 4 on CDNA\n"
          "  lds        bank-conflict degree and cycles per ds_read at a lane stride\n"
          "  latency    pointer-chase latency in cycles at a level of the memory hierarchy\n"
          "  bandwidth  whole-GPU streaming bandwidth in TB/s at the sustained clock\n");
}

int fsim_cmd_micro(int argc, char **argv) {
  static const struct option opts[] = {{"arch", required_argument, NULL, 'a'},
                                       {"set", required_argument, NULL, 's'},
                                       {"json", no_argument, NULL, 'j'},
                                       {"inst", required_argument, NULL, 'i'},
                                       {"waves-per-simd", required_argument, NULL, 'w'},
                                       {"dependent", no_argument, NULL, 'd'},
                                       {"stride", required_argument, NULL, 'S'},
                                       {"width", required_argument, NULL, 'W'},
                                       {"level", required_argument, NULL, 'l'},
                                       {"help", no_argument, NULL, 'h'},
                                       {NULL, 0, NULL, 0}};
  const char *arch = NULL, *inst = NULL, *level = NULL;
  long wps = 1, stride = -1, width = -1;
  int wps_given = 0, stride_given = 0, width_given = 0;
  int json = 0, dependent = 0, c;
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
    case 'i': inst = optarg; break;
    case 'w':
      /* the ranges depend on the part: the benchmarks check them (one message each) */
      if (fsim_cli_parse_long(CMD, "--waves-per-simd", optarg, LONG_MIN, LONG_MAX, &wps)) return FSIM_EXIT_USAGE;
      wps_given = 1;
      break;
    case 'd': dependent = 1; break;
    case 'S':
      if (fsim_cli_parse_long(CMD, "--stride", optarg, LONG_MIN, LONG_MAX, &stride)) return FSIM_EXIT_USAGE;
      stride_given = 1;
      break;
    case 'W':
      if (fsim_cli_parse_long(CMD, "--width", optarg, LONG_MIN, LONG_MAX, &width)) return FSIM_EXIT_USAGE;
      width_given = 1;
      break;
    case 'l': level = optarg; break;
    case 'h': usage(stdout); return FSIM_EXIT_OK;
    default: return fsim_cli_bad_option(CMD, argc, argv);
    }
  }
  if (optind + 1 != argc) return fsim_cli_usage_error(CMD, "expected one benchmark: mfma, lds, latency or bandwidth");
  const char *what = argv[optind];
  int kind = strcmp(what, "mfma") == 0 ? 0 : strcmp(what, "lds") == 0 ? 1 : strcmp(what, "latency") == 0 ? 2
           : strcmp(what, "bandwidth") == 0 ? 3 : -1;
  if (kind < 0) return fsim_cli_usage_error(CMD, "'%s' is not a benchmark (mfma, lds, latency, bandwidth)", what);
  /* options of another benchmark are mistakes, not ignored */
  if (kind != 0 && (inst || dependent || wps_given))
    return fsim_cli_usage_error(CMD, "%s: --inst, --waves-per-simd and --dependent go with mfma", what);
  if (kind != 1 && (stride_given || width_given)) return fsim_cli_usage_error(CMD, "%s: --stride and --width go with lds", what);
  if (kind < 2 && level) return fsim_cli_usage_error(CMD, "%s: --level goes with latency and bandwidth", what);
  if (kind == 0 && inst == NULL) return fsim_cli_usage_error(CMD, "mfma: --inst NAME is required");
  if (kind == 1 && (!stride_given || !width_given)) return fsim_cli_usage_error(CMD, "lds: --stride and --width are required");
  if (kind >= 2 && level == NULL) return fsim_cli_usage_error(CMD, "%s: --level is required", what);
  fsim_arch a;
  int rc = fsim_cli_load_arch(CMD, arch, &sets, &a);
  if (rc) return rc;
  fsim_err e;
  fsim_err_clear(&e);
  fsim_micro_result m;
  fsim_status st = kind == 0   ? fsim_micro_mfma(&a, inst, wps, dependent, &m, &e)
                   : kind == 1 ? fsim_micro_lds(&a, stride, width, &m, &e)
                   : kind == 2 ? fsim_micro_latency(&a, level, &m, &e)
                               : fsim_micro_bandwidth(&a, level, &m, &e);
  if (st != FSIM_OK) return fsim_cli_report(CMD, &e);
  if (json) {
    json_t *o = json_object();
    json_object_set_new(o, "produced_by", fsim_cli_provenance(&a));
    json_object_set_new(o, "benchmark", fsim_json_text(what));
    switch (kind) {
    case 0:
      json_object_set_new(o, "inst", fsim_json_text(inst));
      json_object_set_new(o, "dependent", json_boolean(dependent));
      json_object_set_new(o, "waves_per_simd", json_integer(wps));
      json_object_set_new(o, "flops_per_clk_per_cu", json_real(m.value));
      json_object_set_new(o, "cycles_per_instr", json_real(m.cycles_per_instr));
      break;
    case 1:
      json_object_set_new(o, "stride", json_integer(stride));
      json_object_set_new(o, "width", json_integer(width));
      json_object_set_new(o, "conflict_degree", json_integer(m.degree));
      json_object_set_new(o, "bank_cycles", json_real(m.value));
      json_object_set_new(o, "cycles_per_instr", json_real(m.cycles_per_instr));
      break;
    case 2:
      json_object_set_new(o, "level", fsim_json_text(level));
      json_object_set_new(o, "latency_cycles", json_real(m.value));
      break;
    default:
      json_object_set_new(o, "level", fsim_json_text(level));
      json_object_set_new(o, "tbps", json_real(m.value));
      json_object_set_new(o, "whole_run", json_boolean(m.whole_run));
      break;
    }
    json_object_set_new(o, "expected", json_real(m.expected));
    json_object_set_new(o, "cycles", json_integer(m.cycles));
    return fsim_cli_print_json(o);
  }
  fsim_cli_print_provenance(stdout, &a);
  switch (kind) {
  case 0:
    printf("mfma %s, %ld wave(s)/SIMD, %s: %.1f FLOP/clk/CU, %.2f cycles per instruction on a SIMD (arch: %.4g)\n", inst,
           wps, dependent ? "dependent" : "independent", m.value, m.cycles_per_instr, m.expected);
    break;
  case 1:
    printf("lds b%ld, lane stride %ld B: conflict degree %d, %.0f bank cycles, %.2f cycles per read (expected %.2f)\n",
           width, stride, m.degree, m.value, m.cycles_per_instr, m.expected);
    break;
  case 2: printf("latency %s: %.1f cycles (arch: %.0f)\n", level, m.value, m.expected); break;
  default:
    printf("bandwidth %s: %.2f TB/s at %.4g GHz (arch: %.2f TB/s)%s\n", level, m.value, a.device.sustained_clock_ghz,
           m.expected,
           m.whole_run ? "; the whole run's rate: the workgroup launches, not the level, set the time" : "");
    break;
  }
  return FSIM_EXIT_OK;
}
