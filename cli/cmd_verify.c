/* flysim verify: compiles an emitted kernel for its arch and checks it against the plan
 * (kernels/verify.h): address math, LDS bytes, scratch and spills, registers and occupancy,
 * the main loop's instruction mix, the assembly read back and simulated, and optionally a
 * run on an AMD GPU.  Exit status: 0 every check passed, 1 a check failed (or could not run,
 * as when no AMDGPU clang was configured), 2 invalid input. */
#include "config.h"

#include <stdlib.h>
#include <errno.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli/commands.h"
#include "cli/gemm_args.h"
#include "kernels/verify.h"
#include "tune/predict.h"

static const char *const CMD = "verify";

static void usage(FILE *f) {
  fprintf(f,
          "usage: flysim verify OUT.hip --arch NAME [--set S.K=V]... [--sampled | --full] [--warm] [--with-hip]\n"
          "                     [--keep] [--json]\n"
          "       flysim verify OP (MxNxK | --m M --n N --k K) --arch NAME [--config CFG | --schedule FILE]\n"
          "                     [--json]\n"
          "       flysim verify --schedule FILE --arch NAME [--json]   (OP and shape from the file)\n"
          "\n"
          "Checks an emitted kernel (flysim emit) against the plan it came from, or emits the kernel of\n"
          "a problem into a private folder and checks that.  The checks (docs/emit.md):\n"
          "  source           the file is what flysim emits for its schedule (no hand edits)\n"
          "  functional       the plan's index maps on random data match a GSL reference (on a smaller\n"
          "                   problem of the same schedule, edges kept, past 2^22 multiply-adds)\n"
          "  addresses        the file's index math, compiled for the host, equals the plan's per lane\n"
          "  compiled         clang compiles the device code for the arch (no ROCm needed)\n"
          "  lds_bytes        the code object's LDS equals the plan's\n"
          "  no_scratch       no scratch memory and no spills\n"
          "  registers        VGPR + AGPR within the budget of the occupancy the simulation assumed\n"
          "  occupancy        that occupancy holds with the compiled resources\n"
          "  instruction_mix  the main loop's MFMAs, LDS reads and writes, VMEM loads, waits and\n"
          "                   barriers per K tile against the wave program's, within the tolerances\n"
          "  asm_simulation   the disassembly read back into a wave program and simulated: its time\n"
          "                   within 25%% of the schedule's\n"
          "  hip_run          with --with-hip, the HIP runtime and a GPU of the arch: random inputs,\n"
          "                   results against a reference, a measured time; otherwise skipped\n"
          "\n" FSIM_CLI_GEMM_HELP_EMITTED
          "verification:\n"
          "  --with-hip         build the test program with hipcc (or $HIPCC) and run it on the GPU\n"
          "  --keep             keep the work folder (compiler logs, disassembly) and print its path\n"
          "  --sampled, --full  how the two simulations run (default: sampled above a million wave\n"
          "                     instructions)\n"
          "  --warm             both simulations time a launch that follows an identical one (caches\n"
          "                     warm, as predict --warm); in full when A, B and C pass the MALL\n"
          "  --json             machine-readable output: compiled, lds_bytes, vgprs, agprs,\n"
          "                     scratch_bytes, checks [{name, ok, detail}], ok, ...\n"
          "\n"
          "exit status: 0 every check passed, 1 a check failed, 2 invalid input\n");
}

static json_t *mix_json(const fsim_asm_mix *m) {
  json_t *o = json_object();
  json_object_set_new(o, "mfma", json_integer(m->mfma));
  json_object_set_new(o, "lds_read", json_integer(m->lds_read));
  json_object_set_new(o, "lds_read_bytes", json_integer(m->lds_read_bytes));
  json_object_set_new(o, "lds_write", json_integer(m->lds_write));
  json_object_set_new(o, "lds_write_bytes", json_integer(m->lds_write_bytes));
  json_object_set_new(o, "vmem_load", json_integer(m->vmem_load + m->load_lds));
  json_object_set_new(o, "vmem_store", json_integer(m->vmem_store));
  json_object_set_new(o, "waitcnt", json_integer(m->waitcnt));
  json_object_set_new(o, "barrier", json_integer(m->barrier));
  json_object_set_new(o, "setprio", json_integer(m->setprio));
  json_object_set_new(o, "valu", json_integer(m->valu));
  json_object_set_new(o, "salu", json_integer(m->salu));
  return o;
}

/* host_seconds: the whole command's wall time (host timing, like every *host_seconds key) */
static int report(const fsim_arch *a, const fsim_verify_report *r, double host_seconds, int json) {
  if (json) {
    json_t *o = json_object();
    json_object_set_new(o, "produced_by", fsim_cli_provenance(a));
    json_object_set_new(o, "file", r->file[0] ? fsim_json_text(r->file) : json_null());
    json_object_set_new(o, "kernel", fsim_json_text(r->kernel));
    json_object_set_new(o, "arch", fsim_json_text(r->gfx));
    json_object_set_new(o, "compiled", json_boolean(r->compiled));
    json_object_set_new(o, "compile_host_seconds", json_real(r->compile_host_seconds));
    json_object_set_new(o, "lds_bytes", r->compiled ? json_integer(r->lds_bytes) : json_null());
    json_object_set_new(o, "vgprs", r->compiled ? json_integer(r->vgprs) : json_null());
    json_object_set_new(o, "agprs", r->compiled ? json_integer(r->agprs) : json_null());
    json_object_set_new(o, "sgprs", r->compiled ? json_integer(r->sgprs) : json_null());
    json_object_set_new(o, "scratch_bytes", r->compiled ? json_integer(r->scratch_bytes) : json_null());
    json_object_set_new(o, "spills", r->compiled ? json_integer(r->vgpr_spills + r->sgpr_spills) : json_null());
    json_t *plan = json_object();
    json_object_set_new(plan, "lds_bytes", json_integer(r->plan_lds_bytes));
    json_object_set_new(plan, "vgprs", json_integer(r->plan_vgprs));
    json_object_set_new(plan, "agprs", json_integer(r->plan_agprs));
    json_object_set_new(plan, "register_budget", json_integer(r->reg_budget));
    json_object_set_new(plan, "workgroups_per_cu", json_integer(r->plan_wgs_per_cu));
    json_object_set_new(plan, "waves_per_simd", json_integer(r->plan_waves_per_simd));
    json_object_set_new(o, "plan", plan);
    if (r->compiled) {
      json_t *occ = json_object();
      json_object_set_new(occ, "workgroups_per_cu", json_integer(r->wgs_per_cu));
      json_object_set_new(occ, "waves_per_simd", json_integer(r->waves_per_simd));
      json_object_set_new(o, "occupancy", occ);
    }
    if (r->mix_scope[0]) {
      json_t *mx = json_object();
      json_object_set_new(mx, "scope", fsim_json_text(r->mix_scope));
      json_object_set_new(mx, "compiled", mix_json(&r->mix_asm));
      json_object_set_new(mx, "wave_program", mix_json(&r->mix_plan));
      json_object_set_new(o, "instruction_mix", mx);
    }
    json_object_set_new(o, "predicted_us", r->tuned_us > 0 ? json_real(r->tuned_us) : json_null());
    json_object_set_new(o, "predicted_schedule_us", r->sched_us > 0 ? json_real(r->sched_us) : json_null());
    json_object_set_new(o, "predicted_compiled_us", r->asm_us > 0 ? json_real(r->asm_us) : json_null());
    json_object_set_new(o, "caches", json_string(r->sim_warm ? "warm" : "cold"));
    if (r->asm_us > 0) {
      json_t *wp = json_object();
      json_object_set_new(wp, "paths", json_integer(r->asm_paths));
      json_object_set_new(wp, "schedule_programs", json_integer(r->asm_programs));
      json_object_set_new(wp, "branches_decided", json_integer(r->asm_branches_decided));
      json_object_set_new(wp, "loop_exits", json_integer(r->asm_loop_exits));
      json_object_set_new(wp, "branches_undecided", json_integer(r->asm_branches_undecided));
      json_object_set_new(o, "compiled_paths", wp);
    }
    json_object_set_new(o, "measured_us", r->hip_ran ? json_real(r->hip_us) : json_null());
    json_t *cs = json_array();
    for (int i = 0; i < r->nchecks; i++) {
      json_t *c = json_object();
      json_object_set_new(c, "name", fsim_json_text(r->checks[i].name));
      json_object_set_new(c, "ok", json_boolean(r->checks[i].ok));
      json_object_set_new(c, "skipped", json_boolean(r->checks[i].skipped));
      json_object_set_new(c, "detail", fsim_json_text(r->checks[i].detail));
      json_array_append_new(cs, c);
    }
    json_object_set_new(o, "checks", cs);
    if (r->workdir[0]) json_object_set_new(o, "workdir", fsim_json_text(r->workdir));
    json_object_set_new(o, "ok", json_boolean(r->ok));
    json_object_set_new(o, "host_seconds", json_real(host_seconds));
    int rc = fsim_cli_print_json(o);
    return rc ? rc : (r->ok ? FSIM_EXIT_OK : FSIM_EXIT_FAIL);
  }
  fsim_cli_print_provenance(stdout, a);
  printf("file         %s\n", r->file[0] ? r->file : "(emitted into a work folder, removed; --keep keeps it)");
  printf("kernel       %s for %s\n", r->kernel, r->gfx);
  if (r->compiled)
    printf("code object  %d VGPR, %d AGPR, %d SGPR, %lld bytes of LDS, %lld of scratch\n", r->vgprs, r->agprs, r->sgprs,
           r->lds_bytes, r->scratch_bytes);
  if (r->sched_us > 0 && r->sched_us != r->tuned_us)
    printf("predicted    %.3f us (schedule as tuned), %.3f us (with the split-K atomics), %.3f us (compiled code)\n",
           r->tuned_us, r->sched_us, r->asm_us);
  else if (r->sched_us > 0)
    printf("predicted    %.3f us (schedule), %.3f us (compiled code)\n", r->sched_us, r->asm_us);
  if (r->hip_ran) printf("measured     %.3f us\n", r->hip_us);
  for (int i = 0; i < r->nchecks; i++)
    printf("%-5s %-16s %s\n", r->checks[i].skipped ? "skip" : r->checks[i].ok ? "ok" : "FAIL", r->checks[i].name,
           r->checks[i].detail);
  if (r->workdir[0]) printf("work folder  %s\n", r->workdir);
  printf("host         %.3f s (compile %.2f s)\n", host_seconds, r->compile_host_seconds);
  printf("result       %s\n", r->ok ? "ok" : "FAILED");
  return r->ok ? FSIM_EXIT_OK : FSIM_EXIT_FAIL;
}

int fsim_cmd_verify(int argc, char **argv) {
  struct timespec t0, t1;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  static const struct option opts[] = {FSIM_CLI_GEMM_OPTIONS,
                                       {"with-hip", no_argument, NULL, 'H'},
                                       {"keep", no_argument, NULL, 'K'},
                                       {"sampled", no_argument, NULL, 'S'},
                                       {"full", no_argument, NULL, 'F'},
                                       {"warm", no_argument, NULL, 'w'},
                                       {"json", no_argument, NULL, 'j'},
                                       {"help", no_argument, NULL, 'h'},
                                       {NULL, 0, NULL, 0}};
  fsim_cli_gemm g;
  fsim_cli_gemm_init(&g, CMD);
  fsim_verify_opts vo = {.sampled = -1};
  int json = 0, c, shape_flags = 0;
  optind = 0;
  opterr = 0;
  while ((c = fsim_cli_getopt(argc, argv, ":h", opts)) != -1) {
    int taken = fsim_cli_gemm_option(&g, c, optarg);
    if (taken == 1) {
      if (c != FSIM_OPT_ARCH && c != FSIM_OPT_SET) shape_flags = 1;
      continue;
    }
    if (taken) return taken;
    switch (c) {
    case 'H':
#ifndef FSIM_HAVE_HIP
      /* asked for a GPU run that this build cannot make: said, not passed as skipped */
      return fsim_cli_usage_error(CMD, "--with-hip: flysim was configured without the HIP runtime (./configure "
                                       "--with-hip, with ROCm's libamdhip64 and hipcc installed)");
#endif
      vo.with_hip = 1;
      break;
    case 'K': vo.keep = 1; break;
    case 'S':
    case 'F':
      if (fsim_cli_sampled_flag(CMD, c, &vo.sampled)) return FSIM_EXIT_USAGE;
      break;
    case 'w': vo.warm = 1; break;
    case 'j': json = 1; break;
    case 'h': usage(stdout); return FSIM_EXIT_OK;
    default: return fsim_cli_bad_option(CMD, argc, argv);
    }
  }
  if (optind >= argc && !g.schedule_path)
    return fsim_cli_usage_error(CMD, "expected OUT.hip or OP (gemm, grouped-gemm, scaled-gemm; see --help)");
  fsim_kop k;
  int file_mode = optind < argc && fsim_kop_parse(argv[optind], &k) != 0;
  fsim_verify_report *r = malloc(sizeof *r);
  if (r == NULL) return fsim_cli_usage_error(CMD, "out of memory");
  fsim_err e;
  fsim_err_clear(&e);
  int rc;
  if (file_mode) {
    const char *path = argv[optind];
    if (optind + 1 < argc) {
      free(r);
      return fsim_cli_usage_error(CMD, "unexpected argument '%s'", argv[optind + 1]);
    }
    if (shape_flags) {
      free(r);
      return fsim_cli_usage_error(CMD, "%s: a file carries its own problem and schedule; give only --arch (and --set)",
                                  path);
    }
    if (*path == '\0') {
      free(r);
      return fsim_cli_usage_error(CMD, "OUT.hip: an empty file name");
    }
    if (access(path, R_OK) != 0) {
      int err = errno;
      free(r);
      return fsim_cli_usage_error(CMD, "'%s' is neither an OP (gemm, grouped-gemm, scaled-gemm) nor a readable file (%s)",
                                  path, strerror(err));
    }
    rc = fsim_cli_load_arch(CMD, g.arch, &g.sets, &g.a);
    if (rc) {
      free(r);
      return rc;
    }
    if (fsim_verify_file(path, &g.a, &vo, r, &e) != FSIM_OK) {
      free(r);
      return fsim_cli_report(CMD, &e);
    }
  } else {
    if (fsim_cli_gemm_positional(&g, argc, argv, optind)) {
      free(r);
      return FSIM_EXIT_USAGE;
    }
    rc = fsim_cli_gemm_finish(&g);
    if (rc == 0) rc = fsim_cli_check_db_path(CMD, g.db);
    if (rc) {
      free(r);
      return rc;
    }
    char why[300];
    if (!g.schedule_path && !fsim_gemm_supported(&g.pr, &g.a, why, sizeof why)) {
      free(r);
      if ((rc = fsim_cli_gemm_check_config(&g)) != 0) return rc;
      fprintf(stderr, "flysim %s: no FlyDSL kernel to verify: %s\n", CMD, why);
      return FSIM_EXIT_FAIL;
    }
    if (vo.warm && vo.sampled == 1) {
      /* refused before a tuning run picks the config, as predict refuses it (A, B and C are
       * the least any config's footprint holds) */
      int sampled = 1;
      if (fsim_sim_warm_sampled(&g.a, (int64_t)fsim_gemm_problem_bytes(&g.pr), &sampled, &e) != FSIM_OK) {
        free(r);
        return fsim_cli_report(CMD, &e);
      }
    }
    fsim_predict_req req = {.pr = g.pr, .schedule = g.schedule_path ? &g.schedule : NULL, .config = g.config,
                            .db_path = fsim_cli_db_path(g.db), .mode = FSIM_MODE_MODEL, .sampled = -1};
    fsim_schedule *s = malloc(sizeof *s);
    fsim_gemm_plan *p = malloc(sizeof *p);
    const char *source = NULL;
    fsim_status st = s && p ? FSIM_OK : FSIM_ERR(&e, FSIM_ENOMEM, "out of memory");
    /* chosen as predict chooses it: a tuning run simulates the model's best few (the time
     * below stays the model's) */
    fsim_predict_req pick = req;
    pick.mode = FSIM_MODE_SIM;
    pick.warm = vo.warm;
    if (st == FSIM_OK) st = fsim_predict_choose(&g.a, &pick, s, &source, NULL, 0, &e);
    if (st == FSIM_OK) st = fsim_gemm_plan_make(p, s, &g.a, &e);
    if (st == FSIM_OK && !fsim_emit_supported(p, why, sizeof why)) {
      fprintf(stderr, "flysim %s: cannot emit this schedule: %s\n", CMD, why);
      free(s), free(p), free(r);
      return FSIM_EXIT_FAIL;
    }
    if (st == FSIM_OK) {
      fsim_emit_opts eo = {.config_source = source};
      st = fsim_verify_plan(p, &eo, &vo, r, &e);
    }
    free(s);
    free(p);
    if (st != FSIM_OK) {
      free(r);
      return fsim_cli_report(CMD, &e);
    }
  }
  clock_gettime(CLOCK_MONOTONIC, &t1);
  rc = report(&g.a, r, (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) * 1e-9, json);
  free(r);
  return rc;
}
