/* flysim predict: one prediction of a GEMM-family problem (see tune/predict.h). */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "cli/commands.h"
#include "cli/gemm_args.h"
#include "cli/report.h"
#include "tune/predict.h"
#include "util/file.h"

static const char *const CMD = "predict";

static void usage(FILE *f) {
  fprintf(f,
          "usage: flysim predict OP (MxNxK | --m M --n N --k K) --arch NAME [--config CFG | --schedule FILE]\n"
          "                      [--mode sim|model] [--sampled | --full] [--sample-trips S1,S2] [--warm]\n"
          "                      [--timeline OUT.json] [--json]\n"
          "       flysim predict --schedule FILE --arch NAME [...]   (OP and shape from the file)\n"
          "\n"
          "Predicts the time of the FlyDSL kernel for one problem.  The schedule is the --schedule\n"
          "file, the --config (complete), the tuning database's winner, or else the best config\n"
          "a tuning run finds for what --config leaves free.  A problem FlyDSL does not take falls\n"
          "back (as PyTorch does): the output says \"backend\": \"fallback\" and why, and estimates it\n"
          "by flysim's kernel for the nearest problem FlyDSL takes (K rounded up, K-contiguous\n"
          "operands where the part cannot read them otherwise, ...), or by a roofline where there\n"
          "is none (docs/gemm.md).\n"
          "\n" FSIM_CLI_GEMM_HELP
          "prediction:\n"
          "  --mode sim         the cycle-level simulator (default)\n"
          "  --mode model       the analytical model (microseconds per config; a config left to\n"
          "                     choose is ranked by the model alone, over the whole space)\n"
          "  --sampled, --full  sim mode: simulate XCD 0's steady state and extrapolate, or the\n"
          "                     whole kernel (default: sampled above a million wave instructions);\n"
          "                     a config chosen now (none given or stored) is chosen as tune does\n"
          "  --sample-trips S1,S2\n"
          "                     a sampled prediction's short runs of the main loop (default 6,12;\n"
          "                     implies --sampled, but with --warm give --sampled too); longer\n"
          "                     ones cost more and come closer for small tiles (docs/simulator.md,\n"
          "                     Sampled mode); a config chosen now is not chosen with them\n"
          "  --warm             sim mode: time a launch that follows an identical one, its caches\n"
          "                     holding what that one left (a benchmark loop that reuses its\n"
          "                     buffers); default: the first launch, caches cold (a loop that\n"
          "                     rotates its buffers); a config chosen now is chosen warm too;\n"
          "                     in full when A, B and C pass the MALL (docs/cli.md)\n"
          "  --refine N         when tuning: simulate the model's best N configs, half of them distinct\n"
          "                     tiles (default 4)\n"
          "  --timeline OUT     sim mode: Chrome/Perfetto trace of CU 0\n"
          "  --waves            sim mode: also print the stall breakdown of CU 0's first waves\n"
          "  --json             machine-readable output (docs/cli.md lists the keys)\n"
          "\n"
          "FLYSIM_THREADS=N sets the host threads a full simulation, a sampled one's short runs and a\n"
          "tuning run use (default: the CPUs flysim may run on, fewer than the host's under an\n"
          "affinity mask or a control group's CPU quota); the results do not depend on it.\n");
}

static json_t *estimate_json(const fsim_estimate *e) {
  json_t *o = json_object();
  json_object_set_new(o, "time_us", json_real(e->time_us));
  json_object_set_new(o, "bound", fsim_json_text(e->bound ? e->bound : "none"));
  json_object_set_new(o, "cycles", json_real(e->cycles));
  json_t *it = json_object();
  json_object_set_new(it, "mfma", json_real(e->t_mfma));
  json_object_set_new(it, "lds", json_real(e->t_lds));
  json_object_set_new(it, "issue", json_real(e->t_issue));
  json_object_set_new(it, "kstep_chain", json_real(e->t_chain));
  json_object_set_new(it, "l2", json_real(e->t_l2));
  json_object_set_new(it, "mall", json_real(e->t_mall));
  json_object_set_new(it, "dram", json_real(e->t_dram));
  json_object_set_new(it, "exposed_latency", json_real(e->t_exposed));
  json_object_set_new(it, "total", json_real(e->t_iter));
  json_object_set_new(o, "iteration_cycles", it);
  json_object_set_new(o, "hbm_cycles", json_real(e->t_hbm));
  json_object_set_new(o, "hbm_bytes", json_real(e->dram_bytes));
  json_object_set_new(o, "launch_cycles", json_real(e->t_launch));
  json_object_set_new(o, "workgroup_cycles", json_real(e->t_wg));
  json_object_set_new(o, "rounds", json_real(e->rounds));
  json_t *occ = json_object();
  json_object_set_new(occ, "workgroups_per_cu", json_integer(e->wgs_per_cu));
  json_object_set_new(occ, "waves_per_simd", json_integer(e->waves_per_simd));
  json_object_set_new(occ, "limit", fsim_json_text(e->occupancy_limit ? e->occupancy_limit : "none"));
  json_object_set_new(o, "occupancy", occ);
  return o;
}

static void estimate_print(FILE *f, const fsim_estimate *e) {
  fprintf(f, "model        %.3f us, bound %s; per main-loop iteration (cycles): MFMA %.0f  LDS %.0f  issue %.0f  "
             "k-step chain %.0f  L1/L2 %.0f  MALL %.0f  DRAM %.0f  exposed latency %.0f  = %.0f\n",
          e->time_us, e->bound, e->t_mfma, e->t_lds, e->t_issue, e->t_chain, e->t_l2, e->t_mall, e->t_dram,
          e->t_exposed, e->t_iter);
  fprintf(f, "             occupancy %d workgroups/CU, %d waves/SIMD (limited by %s); %.2f rounds of workgroups; "
             "HBM %.0f cycles (%.1f MB); launches %.0f cycles\n",
          e->wgs_per_cu, e->waves_per_simd, e->occupancy_limit, e->rounds, e->t_hbm, e->dram_bytes / 1e6,
          e->t_launch);
}

/* The "predicted" line; how: what the time is, after the clock ("" for a FlyDSL kernel's). */
static void print_predicted(const fsim_prediction *p, const fsim_arch *a, const char *how) {
  double pct = p->peak_tflops > 0 ? 100.0 * p->tflops / p->peak_tflops : 0;
  printf("predicted    %.3f us  %.1f TFLOP/s = %.1f%% of the %.1f TFLOP/s %s peak at the %.4g GHz peak clock, "
         "timed at %.4g GHz%s; bound %s\n",
         p->time_us, p->tflops, pct, p->peak_tflops, p->peak_class, a->device.clock_ghz, p->clock_ghz, how, p->bound);
}

static const char *source_text(const fsim_prediction *p, const char *db) {
  static char buf[1200];
  if (strcmp(p->source, "database") == 0) snprintf(buf, sizeof buf, "the tuning database %s", db);
  else if (strcmp(p->source, "tuned") == 0) snprintf(buf, sizeof buf, "tuned now (%s)", p->source_note);
  else if (strcmp(p->source, "config") == 0) snprintf(buf, sizeof buf, "--config");
  else snprintf(buf, sizeof buf, "%s", p->source);
  return buf;
}

int fsim_cmd_predict(int argc, char **argv) {
  static const struct option opts[] = {FSIM_CLI_GEMM_OPTIONS,
                                       {"mode", required_argument, NULL, 'M'},
                                       {"sampled", no_argument, NULL, 'S'},
                                       {"full", no_argument, NULL, 'F'},
                                       {"sample-trips", required_argument, NULL, 'R'},
                                       {"warm", no_argument, NULL, 'w'},
                                       {"refine", required_argument, NULL, 'r'},
                                       {"timeline", required_argument, NULL, 't'},
                                       {"waves", no_argument, NULL, 'W'},
                                       {"json", no_argument, NULL, 'j'},
                                       {"help", no_argument, NULL, 'h'},
                                       {NULL, 0, NULL, 0}};
  fsim_cli_gemm g;
  fsim_cli_gemm_init(&g, CMD);
  g.falls_back = 1;
  fsim_predict_req req = {.mode = FSIM_MODE_SIM, .sampled = -1};
  int json = 0, waves = 0, c;
  long v;
  optind = 0;
  opterr = 0;
  while ((c = fsim_cli_getopt(argc, argv, ":h", opts)) != -1) {
    int taken = fsim_cli_gemm_option(&g, c, optarg);
    if (taken == 1) continue;
    if (taken) return taken;
    switch (c) {
    case 'M':
      if (strcmp(optarg, "sim") == 0) req.mode = FSIM_MODE_SIM;
      else if (strcmp(optarg, "model") == 0) req.mode = FSIM_MODE_MODEL;
      else return fsim_cli_usage_error(CMD, "--mode '%s': expected sim or model", optarg);
      break;
    case 'S':
    case 'F':
      if (fsim_cli_sampled_flag(CMD, c, &req.sampled)) return FSIM_EXIT_USAGE;
      break;
    case 'w': req.warm = 1; break;
    case 'R':
      if (fsim_cli_parse_sample_trips(CMD, optarg, req.sample_trips)) return FSIM_EXIT_USAGE;
      break;
    case 'r':
      if (fsim_cli_parse_long(CMD, "--refine", optarg, 1, 64, &v)) return FSIM_EXIT_USAGE;
      req.refine = (int)v;
      break;
    case 't': req.timeline = optarg; break;
    case 'W': waves = 1; break;
    case 'j': json = 1; break;
    case 'h': usage(stdout); return FSIM_EXIT_OK;
    default: return fsim_cli_bad_option(CMD, argc, argv);
    }
  }
  if (fsim_cli_gemm_positional(&g, argc, argv, optind)) return FSIM_EXIT_USAGE;
  if (req.mode == FSIM_MODE_MODEL && req.timeline)
    return fsim_cli_usage_error(CMD, "--timeline: only the simulator (--mode sim) records one");
  if (req.mode == FSIM_MODE_MODEL && req.sampled >= 0)
    return fsim_cli_usage_error(CMD, "--%s: a mode of the simulator; --mode model does not simulate",
                                req.sampled ? "sampled" : "full");
  if (req.sample_trips[0] && (req.mode == FSIM_MODE_MODEL || req.sampled == 0))
    return fsim_cli_usage_error(CMD, "--sample-trips: the sampled simulation's; %s",
                                req.sampled == 0 ? "--full runs every trip" : "--mode model does not simulate");
  /* short runs ask for the sampled mode; a warm launch is sampled only where its data fit the
   * last cache level, so there it takes --sampled said (else the refusal names a flag not given) */
  if (req.sample_trips[0] && req.sampled < 0 && req.warm)
    return fsim_cli_usage_error(CMD, "--sample-trips and --warm: add --sampled (a warm launch is simulated in full "
                                     "unless asked, where A, B and C pass the MALL)");
  if (req.sample_trips[0] && req.sampled < 0) req.sampled = 1;
  if (req.mode == FSIM_MODE_MODEL && req.warm)
    return fsim_cli_usage_error(CMD, "--warm: the simulator's caches; --mode model does not simulate");
  if (req.mode == FSIM_MODE_MODEL && waves)
    return fsim_cli_usage_error(CMD, "--waves: the simulator's wave records; --mode model does not simulate");
  if (req.mode == FSIM_MODE_MODEL && req.refine > 0)
    return fsim_cli_usage_error(CMD, "--refine: simulates the model's best configs; --mode model ranks by the model "
                                     "alone and simulates nothing");
  int rc = fsim_cli_gemm_finish(&g);
  if (rc) return rc;
  if ((rc = fsim_cli_check_db_path(CMD, g.db)) != 0) return rc;
  char why[400];
  const int supported = fsim_gemm_supported(&g.pr, &g.a, why, sizeof why);
  if (req.refine > 0 && supported) {
    /* --refine shapes a tuning run; a schedule file or a complete config leaves nothing to tune
     * (a problem that falls back tunes its nearest problem, to which neither applies) */
    fsim_gemm_config fixed;
    fsim_err ignore;
    if (g.schedule_path || (g.config && fsim_gemm_config_parse(g.config, &fixed, &ignore) == FSIM_OK &&
                            fsim_gemm_config_complete(&fixed)))
      return fsim_cli_usage_error(CMD, "--refine: only when predict tunes; %s fixes the kernel",
                                  g.schedule_path ? "--schedule" : "a complete --config");
  }
  const char *db = fsim_cli_db_path(g.db);
  if ((rc = fsim_cli_check_output(CMD, "--timeline", req.timeline, g.db ? "--db" : "the database", db)) != 0 ||
      (rc = fsim_cli_check_output(CMD, "--timeline", req.timeline, "--schedule", g.schedule_path)) != 0 ||
      (rc = fsim_cli_check_output(CMD, "--timeline", req.timeline, "--arch", g.a.file)) != 0)
    return rc;
  if (req.timeline && !supported)
    return fsim_cli_usage_error(CMD, "--timeline: the problem falls back (%s): there is no flysim kernel to trace", why);
  if (req.timeline) {
    fsim_err fe;
    fsim_err_clear(&fe);
    if (fsim_file_out_check(req.timeline, &fe) != FSIM_OK) { /* before the work (tuning can take seconds) */
      fsim_err_prefix(&fe, "--timeline");
      return fsim_cli_report(CMD, &fe);
    }
  }
  req.pr = g.pr;
  req.schedule = g.schedule_path ? &g.schedule : NULL;
  req.config = g.config;
  req.db_path = db;
  fsim_prediction *p = malloc(sizeof *p);
  if (p == NULL) return fsim_cli_usage_error(CMD, "out of memory");
  fsim_err e;
  fsim_err_clear(&e);
  if (fsim_predict_gemm(&g.a, &req, p, &e) != FSIM_OK) {
    free(p);
    return fsim_cli_report(CMD, &e);
  }
  int fallback = strcmp(p->backend, "fallback") == 0;
  const int roofline = strcmp(p->source, "roofline") == 0; /* else a kernel was timed (a fallback's: the nearest problem's) */
  double pct = p->peak_tflops > 0 ? 100.0 * p->tflops / p->peak_tflops : 0;
  /* a schedule file's kernel can hold what no config says (per-operand swizzles, copy atoms,
   * interleave hints): then the config printed alone names another kernel */
  char gaps[600] = "";
  const int from_file = !fallback && strcmp(p->source, "schedule") == 0;
  if (from_file && fsim_gemm_config_gaps(&g.pr, &p->schedule, &g.a, gaps, sizeof gaps, &e) != FSIM_OK) {
    free(p);
    return fsim_cli_report(CMD, &e);
  }
  if (json) {
    json_t *out = json_object();
    json_object_set_new(out, "produced_by", fsim_cli_provenance(&g.a));
    json_object_set_new(out, "problem", fsim_cli_problem_json(&g.pr));
    json_object_set_new(out, "time_us", json_real(p->time_us));
    json_object_set_new(out, "clock_ghz", json_real(p->clock_ghz));
    json_object_set_new(out, "bound", fsim_json_text(p->bound));
    json_object_set_new(out, "config", fallback ? json_null() : fsim_json_text(p->config));
    json_object_set_new(out, "backend", fsim_json_text(p->backend));
    if (fallback) json_object_set_new(out, "fallback_reason", fsim_json_text(p->fallback_reason));
    json_object_set_new(out, "tflops", json_real(p->tflops));
    json_object_set_new(out, "percent_of_peak", json_real(pct));
    json_object_set_new(out, "peak_tflops", json_real(p->peak_tflops));
    json_object_set_new(out, "peak_class", json_string(p->peak_class));
    json_object_set_new(out, "mode", fsim_json_text(roofline ? "roofline" : req.mode == FSIM_MODE_SIM ? "sim" : "model"));
    json_object_set_new(out, "config_source", fsim_json_text(p->source));
    if (fallback && !roofline) { /* the nearest problem whose kernel stands in for the fallback's */
      json_t *nj = json_object();
      json_object_set_new(nj, "problem", fsim_cli_problem_json(&p->nearest));
      json_object_set_new(nj, "differs", fsim_json_text(p->nearest_how));
      json_object_set_new(nj, "config", fsim_json_text(p->config));
      json_object_set_new(out, "nearest", nj);
    }
    if (!fallback) /* the schedule's hints, which config does not hold (a schedule file's) */
      json_object_set_new(out, "interleave", fsim_json_text(p->schedule.interleave[0] ? p->schedule.interleave : "none"));
    if (from_file) json_object_set_new(out, "config_omits", fsim_json_text(gaps));
    if (!roofline) json_object_set_new(out, "model", estimate_json(&p->est));
    if (p->simulated) {
      json_object_set_new(out, "wave_instructions", json_integer(p->sim.wave_instructions));
      json_object_set_new(out, "simulation", fsim_cli_sim_json(&p->sim, req.timeline));
    } else if (req.mode == FSIM_MODE_SIM) {
      json_object_set_new(out, "wave_instructions", json_null()); /* a roofline: nothing simulated */
    }
    json_object_set_new(out, "host_seconds", json_real(p->host_seconds));
    free(p);
    return fsim_cli_print_json(out);
  }
  char prob[160];
  fsim_cli_problem_text(&g.pr, prob, sizeof prob);
  fsim_cli_print_provenance(stdout, &g.a);
  printf("problem      %s\n", prob);
  if (fallback) {
    printf("backend      fallback: %s\n", p->fallback_reason);
    if (g.schedule_path || g.config)
      printf("             (%s describes a FlyDSL kernel of the problem asked, which has none: not applied)\n",
             g.schedule_path ? "--schedule" : "--config");
  }
  if (fallback && roofline) {
    print_predicted(p, &g.a, " (roofline of the fallback path)");
  } else if (fallback) {
    char near[160];
    fsim_cli_problem_text(&p->nearest, near, sizeof near);
    printf("estimate     flysim's kernel for the nearest problem the FlyDSL path takes (%s): %s, config %s; the "
           "fallback library's own kernel is not modelled\n",
           p->nearest_how, near, p->config);
    print_predicted(p, &g.a, p->simulated ? " (that kernel's simulated time)" : " (that kernel's model time)");
  } else {
    printf("backend      flydsl, config from %s\n", source_text(p, db));
    printf("config       %s\n", p->config);
    if (gaps[0]) printf("             and from the file, which --config cannot give: %s\n", gaps);
    print_predicted(p, &g.a, "");
    if (p->simulated) fsim_cli_sim_print(stdout, &p->sim);
    if (p->simulated && waves) fsim_cli_sim_print_waves(stdout, &p->sim);
    estimate_print(stdout, &p->est);
    if (req.timeline && p->simulated) fsim_cli_timeline_print(stdout, req.timeline, &p->sim);
  }
  printf("host total   %.3f s\n", p->host_seconds);
  free(p);
  return FSIM_EXIT_OK;
}
