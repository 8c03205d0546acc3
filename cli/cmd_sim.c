/* flysim sim: simulates a wave-program file from traces/ on a part. */
#include "config.h"

#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/commands.h"
#include "cli/common.h"
#include "cli/report.h"
#include "sim/sim.h"
#include "traces/asm.h"
#include "util/file.h"

static const char *const CMD = "sim";

static void usage(FILE *f) {
  fprintf(f,
          "usage: flysim sim FILE --arch NAME [--set S.K=V]... [--sampled] [--compare-full] [--warm]\n"
          "                  [--sample-trips S1,S2] [--trips N[,N...]] [--kernel NAME]\n"
          "                  [--timeline OUT.json] [--waves] [--print] [--json]\n"
          "\n"
          "Simulates the wave programs in FILE (the text format of docs/traces.md; examples in\n"
          "traces/) cycle by cycle on the part and reports time, occupancy, utilisation, cache\n"
          "behaviour and where the waves stalled.  FILE may also be AMDGPU assembly (.s, as\n"
          "clang -S or llvm-objdump -d write it): its instructions are classified and timed as\n"
          "one wave of one workgroup, loops running --trips times (in order; default once) and\n"
          "memory accesses at synthetic linear addresses (flysim verify times an emitted kernel's\n"
          "assembly with the plan's grid and addresses instead).\n"
          "\n"
          "  --arch NAME        the part (see 'flysim arch list')\n"
          "  --set S.K=V        override an arch key (what-if)\n"
          "  --sampled          simulate XCD 0 with shortened main loops and extrapolate\n"
          "  --sample-trips S1,S2\n"
          "                     with --sampled: the short runs' main-loop trip counts (default\n"
          "                     6,12); longer ones cost more and come closer for small tiles\n"
          "                     (docs/simulator.md, Sampled mode)\n"
          "  --compare-full     with --sampled: also run in full and report the deviation\n"
          "  --warm             time a launch that follows an identical one (its caches hold what\n"
          "                     that one left); default: the first launch, caches cold\n"
          "  --timeline OUT     write a Chrome/Perfetto trace of CU 0 (a wave slot's instructions,\n"
          "                     MFMAs, VALU and stalls as threads)\n"
          "  --waves            also print the stall breakdown of each of CU 0's first waves (the\n"
          "                     JSON always has it, as waves_cu0)\n"
          "  --print            print the parsed program back in the text format and exit\n"
          "  --trips N,...      assembly: trip counts of its loops, in order\n"
          "  --kernel NAME      assembly: which kernel of the file (default: the first)\n"
          "  --json             machine-readable output\n"
          "\n"
          "FLYSIM_THREADS=N sets the host threads a long simulation runs the XCDs on, and a sampled\n"
          "one its short runs (default: the CPUs flysim may run on, fewer than the host's under an\n"
          "affinity mask or a control group's CPU quota); the results do not depend on it.\n");
}

/* Assembly: by the name (.s, .S, .asm; .wp), else by the text: a line whose first word is
 * s_endpgm or .amdgcn_target (a comment mentioning s_endpgm in a wave program is not one). */
static int is_assembly(const char *file, const char *text) {
  const char *dot = strrchr(file, '.');
  if (dot && (strcmp(dot, ".s") == 0 || strcmp(dot, ".S") == 0 || strcmp(dot, ".asm") == 0)) return 1;
  if (dot && strcmp(dot, ".wp") == 0) return 0;
  int yes = 0;
  for (const char *l = text; l != NULL && *l && !yes; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
    l += strspn(l, " \t");
    yes = strncmp(l, "s_endpgm", 8) == 0 || strncmp(l, ".amdgcn_target", 14) == 0;
  }
  return yes;
}

/* The gfx name a clang -S file says it was compiled for (.amdgcn_target "...--gfx950"), or "". */
static void asm_target(const char *text, char *gfx, size_t n) {
  gfx[0] = '\0';
  const char *t = strstr(text, ".amdgcn_target");
  if (t == NULL) return;
  const char *g = strstr(t, "gfx");
  const char *nl = strchr(t, '\n');
  if (g == NULL || (nl && g > nl)) return;
  size_t len = strcspn(g, ":\"' \t\r\n"); /* gfx950, or a generic target: gfx9-4-generic */
  snprintf(gfx, n, "%.*s", (int)len, g);
}

static fsim_status load_assembly(const char *file, const char *text, const char *kernel, const int64_t *trips,
                                 int ntrips, const fsim_arch *a, fsim_wprog *wp, fsim_asm_wprog_info *info,
                                 int *unknown, fsim_err *e) {
  char gfx[32];
  asm_target(text, gfx, sizeof gfx);
  if (gfx[0] && strcmp(gfx, a->device.gfx) != 0)
    return FSIM_ERR(e, FSIM_EINVAL, "%s: compiled for %s, not for %s (%s)", file, gfx, a->device.gfx, a->device.name);
  fsim_asm_kernel k;
  fsim_status st = fsim_asm_parse(&k, text, file, kernel, e);
  if (st != FSIM_OK) return st;
  *unknown = k.unknown;
  if (ntrips > 0 && ntrips != k.nloops)
    st = FSIM_ERR(e, FSIM_EINVAL, "--trips: %s has %d loop(s), %d trip count(s) given", file, k.nloops, ntrips);
  fsim_asm_wprog_opts o = {.tmpl = NULL, .trips = ntrips ? trips : NULL, .ntrips = ntrips,
                           .vgprs = -1, .agprs = -1, .sgprs = -1, .lds_bytes = -1};
  if (st == FSIM_OK) {
    st = fsim_asm_to_wprog(&k, a, &o, wp, info, e);
    /* "line N: ..." from the conversion: say which file */
    if (st != FSIM_OK && e && strncmp(e->msg, "line ", 5) == 0) {
      char msg[sizeof e->msg];
      snprintf(msg, sizeof msg, "%s:%s", file, e->msg + 5);
      snprintf(e->msg, sizeof e->msg, "%s", msg);
    }
  }
  fsim_asm_free(&k);
  return st;
}

int fsim_cmd_sim(int argc, char **argv) {
  static const struct option opts[] = {{"arch", required_argument, NULL, 'a'},
                                       {"set", required_argument, NULL, 's'},
                                       {"json", no_argument, NULL, 'j'},
                                       {"timeline", required_argument, NULL, 't'},
                                       {"sampled", no_argument, NULL, 'S'},
                                       {"compare-full", no_argument, NULL, 'C'},
                                       {"sample-trips", required_argument, NULL, 'R'},
                                       {"warm", no_argument, NULL, 'w'},
                                       {"print", no_argument, NULL, 'p'},
                                       {"waves", no_argument, NULL, 'W'},
                                       {"trips", required_argument, NULL, 'T'},
                                       {"kernel", required_argument, NULL, 'K'},
                                       {"help", no_argument, NULL, 'h'},
                                       {NULL, 0, NULL, 0}};
  const char *arch = NULL, *timeline = NULL;
  int json = 0, sampled = 0, compare = 0, print = 0, waves = 0, warm = 0, c;
  int sample_trips[2] = {0, 0};
  const char *kernel = NULL;
  int64_t trips[FSIM_ASM_MAX_LOOPS];
  int ntrips = 0;
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
    case 't': timeline = optarg; break;
    case 'S': sampled = 1; break;
    case 'C': compare = 1; break;
    case 'R':
      if (fsim_cli_parse_sample_trips(CMD, optarg, sample_trips)) return FSIM_EXIT_USAGE;
      break;
    case 'w': warm = 1; break;
    case 'p': print = 1; break;
    case 'W': waves = 1; break;
    case 'K': kernel = optarg; break;
    case 'T': {
      /* the whole value (a copy cut to 255 characters once read "000...064" as 6) */
      char *buf = strdup(optarg);
      if (buf == NULL) return fsim_cli_usage_error(CMD, "out of memory");
      ntrips = 0; /* given again: the last --trips holds, as for other flags */
      int bad = 0;
      /* split at each ',' (an empty count, "3,,4" or "", is an error, not skipped) */
      for (char *t = buf, *next; t != NULL && !bad; t = next) {
        char *comma = strchr(t, ',');
        next = comma ? comma + 1 : NULL;
        if (comma) *comma = '\0';
        long v;
        if (ntrips == FSIM_ASM_MAX_LOOPS)
          bad = fsim_cli_usage_error(CMD, "--trips: at most %d loops", FSIM_ASM_MAX_LOOPS);
        else if (fsim_cli_parse_long(CMD, "--trips", t, 1, 1L << 30, &v))
          bad = FSIM_EXIT_USAGE;
        else
          trips[ntrips++] = v;
      }
      free(buf);
      if (bad) return bad;
      break;
    }
    case 'h': usage(stdout); return FSIM_EXIT_OK;
    default: return fsim_cli_bad_option(CMD, argc, argv);
    }
  }
  if (print && (json || timeline || sampled || compare || waves || warm))
    return fsim_cli_usage_error(CMD, "--print writes the program back and exits: it takes none of --json, --timeline, "
                                     "--sampled, --compare-full, --waves, --warm");
  if (optind + 1 != argc) {
    if (optind >= argc) return fsim_cli_usage_error(CMD, "expected one FILE (see --help)");
    return fsim_cli_usage_error(CMD, "unexpected argument '%s'", argv[optind + 1]);
  }
  if (compare && !sampled) return fsim_cli_usage_error(CMD, "--compare-full goes with --sampled");
  if (sample_trips[0] && !sampled) return fsim_cli_usage_error(CMD, "--sample-trips goes with --sampled");
  const char *file = argv[optind];
  if (*file == '\0') return fsim_cli_usage_error(CMD, "FILE: an empty file name");
  fsim_arch a;
  int rc = fsim_cli_load_arch(CMD, arch, &sets, &a);
  if (rc) return rc;
  if ((rc = fsim_cli_check_output(CMD, "--timeline", timeline, "FILE", file)) != 0 ||
      (rc = fsim_cli_check_output(CMD, "--timeline", timeline, "--arch", a.file)) != 0)
    return rc;
  fsim_err e;
  fsim_err_clear(&e);
  fsim_wprog wp;
  fsim_asm_wprog_info ainfo;
  int unknown = 0;
  if (kernel && *kernel == '\0') return fsim_cli_usage_error(CMD, "--kernel: an empty name");
  /* read once: a pipe or FIFO gives its text one time (it was read twice, and a FIFO hung) */
  char *text;
  size_t len;
  if (fsim_file_load(file, &text, &len, &e) != FSIM_OK) return fsim_cli_report(CMD, &e);
  if (memchr(text, '\0', len) != NULL) {
    free(text);
    return fsim_cli_usage_error(CMD, "%s: not a text file", file);
  }
  int is_asm = is_assembly(file, text);
  fsim_status lst = FSIM_OK;
  if (!is_asm && (ntrips || kernel))
    rc = fsim_cli_usage_error(CMD, "--trips and --kernel go with an assembly FILE");
  else if (is_asm)
    lst = load_assembly(file, text, kernel, trips, ntrips, &a, &wp, &ainfo, &unknown, &e);
  else
    lst = fsim_wprog_parse_string(&wp, text, file, &a, &e);
  free(text);
  if (rc) return rc;
  if (lst != FSIM_OK) return fsim_cli_report(CMD, &e);
  if (print) {
    fsim_cli_print_provenance(stdout, &a); /* a comment line to the .wp reader */
    rc = fsim_wprog_print(&wp, &a, stdout, &e) == FSIM_OK ? 0 : fsim_cli_report(CMD, &e);
    fsim_wprog_free(&wp);
    return rc;
  }
  /* the full run of --compare-full first: a fault only it meets (in an iteration the sampled
   * run skips) then stops the command before the sampled run writes the timeline */
  fsim_sim_opts o = {.sampled = sampled, .warm = warm, .sample_trips = {sample_trips[0], sample_trips[1]},
                     .timeline_path = timeline, .threads = fsim_sim_threads_for(&wp)};
  fsim_sim_opts of = {.warm = warm, .threads = fsim_sim_threads_for(&wp)};
  fsim_sim_result r, full;
  if ((compare && fsim_sim_run(&a, &wp, &of, &full, &e) != FSIM_OK) || fsim_sim_run(&a, &wp, &o, &r, &e) != FSIM_OK) {
    fsim_wprog_free(&wp);
    /* about the program (an LDS fault, a workgroup too large): name the file; an argument's
     * error ("--timeline: ...") names its argument already */
    if (e.code == FSIM_EINVAL && strncmp(e.msg, file, strlen(file)) != 0 && strncmp(e.msg, "--", 2) != 0)
      fsim_err_prefix(&e, "%s", file);
    return fsim_cli_report(CMD, &e);
  }
  if (json) {
    json_t *out = json_object();
    json_t *prov = fsim_cli_provenance(&a);
    json_object_set_new(prov, "file", fsim_json_text(file));
    json_object_set_new(out, "produced_by", prov);
    json_object_set_new(out, "kernel", fsim_json_text(wp.name));
    if (is_asm) {
      json_t *ai = json_object();
      json_object_set_new(ai, "loops_without_trip", json_integer(ainfo.loops_without_trip));
      json_object_set_new(ai, "loops_not_walked", json_integer(ainfo.loops_not_walked));
      json_object_set_new(ai, "synthetic_addresses", json_integer(ainfo.synthetic));
      json_object_set_new(ai, "unknown_mnemonics", json_integer(unknown));
      json_object_set_new(ai, "branches_undecided", json_integer(ainfo.branches_undecided));
      json_object_set_new(ai, "branches_kept_straight", json_integer(ainfo.branches_kept_straight));
      json_object_set_new(ai, "loop_guards", json_integer(ainfo.loop_guards));
      json_object_set_new(out, "assembly", ai);
    }
    json_t *res = fsim_cli_sim_json(&r, timeline);
    json_object_update(out, res);
    json_decref(res);
    if (compare) {
      json_t *cmp = json_object();
      json_object_set_new(cmp, "full_cycles", json_integer(full.cycles));
      json_object_set_new(cmp, "full_host_seconds", json_real(full.host_seconds));
      /* null when the full run takes no cycles (an empty program): no relative deviation */
      json_object_set_new(cmp, "deviation", full.cycles > 0 ? json_real((double)(r.cycles - full.cycles) / (double)full.cycles)
                                                            : json_null());
      json_object_set_new(out, "compare_full", cmp);
    }
    fsim_wprog_free(&wp);
    return fsim_cli_print_json(out);
  }
  fsim_cli_print_provenance(stdout, &a);
  printf("kernel       %s  (grid %dx%dx%d, %d wave%s per workgroup)  file %s\n", wp.name, wp.grid[0], wp.grid[1],
         wp.grid[2], wp.waves_per_wg, wp.waves_per_wg == 1 ? "" : "s", file);
  if (is_asm) {
    char unk[96] = "";
    if (unknown > 0) snprintf(unk, sizeof unk, "; %d mnemonic(s) not recognised, timed as VALU", unknown);
    char br[200] = "";
    if (ainfo.branches_undecided > 0 || ainfo.loop_guards > 0)
      snprintf(br, sizeof br, "; on unknown conditions %d branch(es) read as falling through, %d loop guard(s) taken",
               ainfo.branches_undecided, ainfo.loop_guards);
    if (ainfo.branches_kept_straight > 0) {
      size_t l = strlen(br);
      snprintf(br + l, sizeof br - l, "; %d taken branch(es) out of a loop sideways read as falling through",
               ainfo.branches_kept_straight);
    }
    char nw[160] = "";
    if (ainfo.loops_not_walked > 0)
      snprintf(nw, sizeof nw, "; %d loop(s) on no wave's path (behind a branch read the other way: its trip count changes nothing)",
               ainfo.loops_not_walked);
    printf("assembly     one wave of one workgroup; %d loop(s)%s; %d memory instruction(s) at synthetic addresses%s%s%s\n",
           ainfo.loops_without_trip > 0 ? ainfo.loops_without_trip : ntrips,
           ainfo.loops_without_trip > 0 ? " run once for want of --trips"
           : ntrips > 0                  ? " at the given trip counts"
                                         : "",
           ainfo.synthetic, unk, br, nw);
  }
  fsim_cli_sim_print(stdout, &r);
  if (waves) fsim_cli_sim_print_waves(stdout, &r);
  if (compare) {
    char dev[32] = "n/a (no cycles)";
    if (full.cycles > 0) snprintf(dev, sizeof dev, "%+.2f%%", 100.0 * (double)(r.cycles - full.cycles) / (double)full.cycles);
    printf("full run     %lld cycles in %.3f s; sampled deviation %s, %.1fx faster\n", (long long)full.cycles,
           full.host_seconds, dev, r.host_seconds > 0 ? full.host_seconds / r.host_seconds : 0);
  }
  if (timeline) fsim_cli_timeline_print(stdout, timeline, &r);
  fsim_wprog_free(&wp);
  return FSIM_EXIT_OK;
}
