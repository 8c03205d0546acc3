/* flysim emit: writes the HIP kernel of a GEMM schedule (kernels/emit.h).  The schedule is
 * chosen as predict chooses it (a --schedule file, a complete --config, the tuning
 * database's winner, or a tuning run over what --config leaves free: the model ranks every
 * config and the simulator times its best few); the header carries the model's predicted
 * time. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "cli/commands.h"
#include "cli/gemm_args.h"
#include "kernels/emit.h"
#include "tune/predict.h"
#include "util/file.h"

static const char *const CMD = "emit";

static void usage(FILE *f) {
  fprintf(f,
          "usage: flysim emit OP (MxNxK | --m M --n N --k K) --arch NAME [--config CFG | --schedule FILE]\n"
          "                   -o OUT.hip [--json]\n"
          "       flysim emit --schedule FILE --arch NAME -o OUT.hip [--json]   (OP and shape from the file)\n"
          "\n"
          "Writes one self-contained HIP file for the schedule: the kernel (tile loops, LDS with the\n"
          "schedule's swizzles, buffer and direct-to-LDS loads, ds_read including transposing reads,\n"
          "MFMA or WMMA builtins, waits, barriers, sched_group_barrier hints, the epilogue), a host\n"
          "launcher and test program for the HIP runtime, and an address self-test.  The header gives\n"
          "the schedule, the flysim version and the predicted time (analytical model).  The file is\n"
          "written atomically.  It compiles without ROCm:\n"
          "  clang-22 -x hip --offload-arch=gfx950 -nogpulib -nogpuinc --cuda-device-only \\\n"
          "           --no-gpu-bundle-output -O3 -c -o k.o OUT.hip\n"
          "and 'flysim verify OUT.hip --arch NAME' checks it against the plan (docs/emit.md).  A problem\n"
          "the FlyDSL path does not take (it falls back in PyTorch) has no kernel to emit: exit 1.\n"
          "\n" FSIM_CLI_GEMM_HELP_EMITTED
          "output:\n"
          "  -o, --output FILE  the HIP file to write (required)\n"
          "  --json             machine-readable summary on stdout\n");
}

int fsim_cmd_emit(int argc, char **argv) {
  static const struct option opts[] = {FSIM_CLI_GEMM_OPTIONS,
                                       {"output", required_argument, NULL, 'o'},
                                       {"json", no_argument, NULL, 'j'},
                                       {"help", no_argument, NULL, 'h'},
                                       {NULL, 0, NULL, 0}};
  fsim_cli_gemm g;
  fsim_cli_gemm_init(&g, CMD);
  const char *output = NULL;
  int json = 0, c;
  optind = 0;
  opterr = 0;
  while ((c = fsim_cli_getopt(argc, argv, ":ho:", opts)) != -1) {
    int taken = fsim_cli_gemm_option(&g, c, optarg);
    if (taken == 1) continue;
    if (taken) return taken;
    switch (c) {
    case 'o':
      /* "-o=x.hip" would write "=x.hip" (getopt takes the rest of a short option as its value) */
      if (optarg[0] == '=')
        return fsim_cli_usage_error(CMD, "-o%s: write '-o %s' or '--output=%s'", optarg, optarg + 1, optarg + 1);
      output = optarg;
      break;
    case 'j': json = 1; break;
    case 'h': usage(stdout); return FSIM_EXIT_OK;
    default: return fsim_cli_bad_option(CMD, argc, argv);
    }
  }
  if (fsim_cli_gemm_positional(&g, argc, argv, optind)) return FSIM_EXIT_USAGE;
  if (output == NULL) return fsim_cli_usage_error(CMD, "-o OUT.hip is required");
  if (*output == '\0') return fsim_cli_usage_error(CMD, "-o: an empty file name");
  int rc = fsim_cli_gemm_finish(&g);
  if (rc) return rc;
  if ((rc = fsim_cli_check_db_path(CMD, g.db)) != 0) return rc;
  if ((rc = fsim_cli_check_output(CMD, "-o", output, g.db ? "--db" : "the database", fsim_cli_db_path(g.db))) != 0 ||
      (rc = fsim_cli_check_output(CMD, "-o", output, "--schedule", g.schedule_path)) != 0 ||
      (rc = fsim_cli_check_output(CMD, "-o", output, "--arch", g.a.file)) != 0)
    return rc;
  fsim_err e;
  fsim_err_clear(&e);
  if (fsim_file_out_check(output, &e) != FSIM_OK) { /* before the work, not after it */
    fsim_err_prefix(&e, "-o");
    return fsim_cli_report(CMD, &e);
  }
  char why[300];
  if (!g.schedule_path && !fsim_gemm_supported(&g.pr, &g.a, why, sizeof why)) {
    if ((rc = fsim_cli_gemm_check_config(&g)) != 0) return rc;
    fprintf(stderr, "flysim %s: no FlyDSL kernel to emit: %s (the fallback path is not a flysim kernel)\n", CMD, why);
    return FSIM_EXIT_FAIL;
  }
  fsim_predict_req req = {.pr = g.pr, .schedule = g.schedule_path ? &g.schedule : NULL, .config = g.config,
                          .db_path = fsim_cli_db_path(g.db), .mode = FSIM_MODE_MODEL, .sampled = -1};
  fsim_schedule *s = malloc(sizeof *s);
  fsim_gemm_plan *p = malloc(sizeof *p);
  fsim_prediction *pred = malloc(sizeof *pred);
  if (s == NULL || p == NULL || pred == NULL) {
    free(s), free(p), free(pred);
    return fsim_cli_usage_error(CMD, "out of memory");
  }
  const char *source = NULL;
  /* chosen as predict chooses it: a tuning run simulates the model's best few (the header's
   * time stays the model's) */
  fsim_predict_req pick = req;
  pick.mode = FSIM_MODE_SIM;
  fsim_status st = fsim_predict_choose(&g.a, &pick, s, &source, NULL, 0, &e);
  if (st == FSIM_OK) st = fsim_gemm_plan_make(p, s, &g.a, &e);
  if (st == FSIM_OK) {
    /* time the chosen schedule itself (no second tuning run) */
    fsim_predict_req again = req;
    again.schedule = s;
    st = fsim_predict_gemm(&g.a, &again, pred, &e);
  }
  fsim_emit_info info;
  if (st == FSIM_OK && !fsim_emit_supported(p, why, sizeof why)) {
    fprintf(stderr, "flysim %s: cannot emit this schedule: %s\n", CMD, why);
    free(s), free(p), free(pred);
    return FSIM_EXIT_FAIL;
  }
  if (st == FSIM_OK) {
    fsim_emit_opts eo = {.predicted_us = pred->time_us, .predicted_how = "analytical model",
                         .predicted_bound = pred->bound, .config_source = source};
    st = fsim_emit_hip_file(p, &eo, output, &info, &e);
    /* the path was checked before the work; what only creating or renaming the file finds
     * (a read-only file system) or writing it (a full disk) is reported the same way */
    if ((st == FSIM_EINVAL || st == FSIM_EIO) && strncmp(e.msg, output, strlen(output)) == 0) fsim_err_prefix(&e, "-o");
  }
  if (st != FSIM_OK) {
    free(s), free(p), free(pred);
    return fsim_cli_report(CMD, &e);
  }
  char cfg[200];
  fsim_gemm_config_format(s, cfg, sizeof cfg);
  if (json) {
    json_t *o = json_object();
    json_object_set_new(o, "produced_by", fsim_cli_provenance(&g.a));
    json_object_set_new(o, "problem", fsim_cli_problem_json(&g.pr));
    json_object_set_new(o, "output", fsim_json_text(output));
    json_object_set_new(o, "kernel", fsim_json_text(info.kernel));
    json_object_set_new(o, "config", fsim_json_text(cfg));
    json_object_set_new(o, "config_source", fsim_json_text(source));
    json_object_set_new(o, "predicted_us", json_real(pred->time_us));
    json_object_set_new(o, "predicted_mode", json_string("model"));
    json_object_set_new(o, "bound", fsim_json_text(pred->bound ? pred->bound : "none"));
    json_object_set_new(o, "lds_bytes", json_integer(p->lds_bytes));
    json_object_set_new(o, "threads", json_integer(p->threads));
    json_object_set_new(o, "workgroups", json_integer(p->workgroups));
    json_object_set_new(o, "vgprs_estimate", json_integer(p->vgprs));
    json_object_set_new(o, "agprs_estimate", json_integer(p->agprs));
    json_object_set_new(o, "lines", json_integer(info.lines));
    json_object_set_new(o, "masked_loads", json_boolean(info.masked_loads));
    json_object_set_new(o, "masked_stores", json_boolean(info.masked_stores));
    json_object_set_new(o, "atomic_epilogue", json_boolean(info.atomic_epilogue));
    json_object_set_new(o, "sched_group_barriers", json_integer(info.sched_groups));
    free(s), free(p), free(pred);
    return fsim_cli_print_json(o);
  }
  char prob[160];
  fsim_cli_problem_text(&g.pr, prob, sizeof prob);
  fsim_cli_print_provenance(stdout, &g.a);
  printf("problem      %s\n", prob);
  printf("config       %s (from %s)\n", cfg, source);
  printf("predicted    %.3f us (analytical model, bound %s)\n", pred->time_us, pred->bound ? pred->bound : "none");
  printf("kernel       %s: %d threads, %lld workgroups, %lld bytes of LDS\n", info.kernel, p->threads,
         (long long)p->workgroups, (long long)p->lds_bytes);
  printf("wrote        %s (%d lines)\n", output, info.lines);
  free(s), free(p), free(pred);
  return FSIM_EXIT_OK;
}
