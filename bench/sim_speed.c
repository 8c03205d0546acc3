/* sim_speed: how fast the cycle-level simulator runs, and exactly what it computed.
 *
 * Runs one wave program (a .wp file, or the wave program of a GEMM problem under a complete
 * --config) through fsim_sim_run and prints every field of the result, floating-point ones
 * in hexadecimal ("%a") so that two builds can be compared byte for byte, followed by one
 * line with the host time and the rate in wave instructions per second (the only line that
 * may differ between runs; `grep -v ^host` drops it).  Used to check that a speed-up of the
 * simulator leaves its results unchanged:
 *
 *   sim_speed --arch mi355x --gemm 4096 4096 4096 tile=256x256x64,waves=2x4,... [--window W]
 *   sim_speed --arch mi355x --wp traces/examples/gemm_small.wp [--sampled] [--warm]
 *   sim_speed --arch mi355x --gemm ... --dump out.wp      (writes the program's text form)
 *
 * --reps R repeats the run R times and reports the fastest.  --immediate and --events run the
 * reference paths (vector memory answered at issue; every MFMA through the event path), which
 * the fast paths must match field for field. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "kernels/gemm_space.h"
#include "model/arch.h"
#include "sim/sim.h"
#include "traces/wprog.h"

static void print_result(const fsim_sim_result *r) {
  printf("cycles %lld\n", (long long)r->cycles);
  printf("kernel_us %a\ntime_us %a\nclock_ghz %a\n", r->kernel_us, r->time_us, r->clock_ghz);
  printf("wave_instructions %lld\nsimulated_wave_instructions %lld\nworkgroups %lld\n", (long long)r->wave_instructions,
         (long long)r->simulated_wave_instructions, (long long)r->workgroups);
  printf("sampled %d\nsample_period_cycles %a\n", r->sampled, r->sample_period_cycles);
  printf("wgs_per_cu %d\nwaves_per_simd %d\noccupancy_limit %s\n", r->wgs_per_cu, r->waves_per_simd,
         r->occupancy_limit);
  printf("util mfma %a valu %a lds %a l1 %a l2 %a mall %a dram %a\n", r->util_mfma, r->util_valu, r->util_lds,
         r->util_l1, r->util_l2, r->util_mall, r->util_dram);
  printf("mfma_flops %a\n", r->mfma_flops);
  printf("l1 %lld %lld l2 %lld %lld mall %lld %lld\n", (long long)r->l1_hits, (long long)r->l1_misses,
         (long long)r->l2_hits, (long long)r->l2_misses, (long long)r->mall_hits, (long long)r->mall_misses);
  printf("dram_bytes %lld %lld\nlds %lld %lld\n", (long long)r->dram_read_bytes, (long long)r->dram_write_bytes,
         (long long)r->lds_bank_cycles, (long long)r->lds_accesses);
  for (int i = 0; i < FSIM_STALL_COUNT; i++) printf("stall %s %a\n", fsim_stall_name((fsim_stall)i), r->stall[i]);
  printf("wave_cycles %a\nissue_cycles %a\nwaves %lld\n", r->wave_cycles, r->issue_cycles, (long long)r->waves);
}

static int usage(void) {
  fprintf(stderr, "usage: sim_speed --arch NAME (--wp FILE | --gemm M N K CONFIG) [--window W] [--immediate] [--events] [--threads N] [--sampled] [--warm]\n"
                  "                 [--no-rounds] [--trips S1 S2]\n"
                  "                 [--set S.K=V]... [--timeline OUT] [--dump OUT.wp] [--reps R]\n");
  return 2;
}

int main(int argc, char **argv) {
  const char *arch = "mi355x", *wpfile = NULL, *config = NULL, *dump = NULL, *timeline = NULL;
  long long m = 0, n = 0, k = 0;
  const char *sets[16];
  int nsets = 0;
  int reps = 1;
  fsim_sim_opts o = {0};
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--arch") && i + 1 < argc) arch = argv[++i];
    else if (!strcmp(argv[i], "--wp") && i + 1 < argc) wpfile = argv[++i];
    else if (!strcmp(argv[i], "--gemm") && i + 4 < argc) {
      m = atoll(argv[++i]), n = atoll(argv[++i]), k = atoll(argv[++i]);
      config = argv[++i];
    } else if (!strcmp(argv[i], "--window") && i + 1 < argc) o.window = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--immediate")) o.immediate_memory = 1;
    else if (!strcmp(argv[i], "--events")) o.no_mfma_runs = 1;
    else if (!strcmp(argv[i], "--threads") && i + 1 < argc) o.threads = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--sampled")) o.sampled = 1;
    else if (!strcmp(argv[i], "--warm")) o.warm = 1;
    else if (!strcmp(argv[i], "--no-rounds")) o.no_sample_rounds = 1;
    else if (!strcmp(argv[i], "--trips") && i + 2 < argc) {
      o.sample_trips[0] = atoi(argv[++i]);
      o.sample_trips[1] = atoi(argv[++i]);
    }
    else if (!strcmp(argv[i], "--timeline") && i + 1 < argc) timeline = argv[++i];
    else if (!strcmp(argv[i], "--dump") && i + 1 < argc) dump = argv[++i];
    else if (!strcmp(argv[i], "--reps") && i + 1 < argc) reps = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--set") && i + 1 < argc && nsets < 16) sets[nsets++] = argv[++i];
    else return usage();
  }
  if ((wpfile == NULL) == (config == NULL)) return usage();
  fsim_err e;
  fsim_err_clear(&e);
  fsim_arch a;
  if (fsim_arch_load(&a, arch, &e) != FSIM_OK) goto fail;
  for (int i = 0; i < nsets; i++)
    if (fsim_arch_set(&a, sets[i], &e) != FSIM_OK) goto fail;
  fsim_wprog wp;
  if (wpfile) {
    if (fsim_wprog_parse_file(&wp, wpfile, &a, &e) != FSIM_OK) goto fail;
  } else {
    fsim_gemm_problem pr;
    memset(&pr, 0, sizeof pr);
    pr.op = FSIM_KOP_GEMM;
    pr.m = m, pr.n = n, pr.k = k;
    pr.groups = 1;
    pr.a = pr.b = pr.c = FSIM_DT_BF16;
    pr.layout = FSIM_LAYOUT_TN;
    fsim_gemm_config c;
    fsim_gemm_config_free_all(&c);
    fsim_schedule s;
    static fsim_gemm_plan p;
    if (fsim_gemm_config_parse(config, &c, &e) != FSIM_OK || fsim_gemm_schedule_from(&pr, &c, &a, &s, &e) != FSIM_OK ||
        fsim_gemm_plan_make(&p, &s, &a, &e) != FSIM_OK || fsim_gemm_wave_program(&p, &wp, &e) != FSIM_OK)
      goto fail;
  }
  if (dump) {
    FILE *f = fopen(dump, "w");
    if (f == NULL || fsim_wprog_print(&wp, &a, f, &e) != FSIM_OK) goto fail;
    fclose(f);
  }
  o.timeline_path = timeline;
  fsim_sim_result r;
  double best = 1e30, best_cpu = 1e30;
  for (int i = 0; i < reps; i++) {
    struct timespec c0, c1;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &c0);
    if (fsim_sim_run(&a, &wp, &o, &r, &e) != FSIM_OK) goto fail;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &c1);
    double cpu = (double)(c1.tv_sec - c0.tv_sec) + (double)(c1.tv_nsec - c0.tv_nsec) * 1e-9;
    if (r.host_seconds < best) best = r.host_seconds;
    if (cpu < best_cpu) best_cpu = cpu;
  }
  print_result(&r);
  /* wall time, and the process's CPU time (less sensitive to other work on the host) */
  printf("host %lld simulated wave instructions in %.3f s = %.2f M/s (cpu %.3f s = %.2f M/s)\n",
         (long long)r.simulated_wave_instructions, best, (double)r.simulated_wave_instructions / best * 1e-6, best_cpu,
         (double)r.simulated_wave_instructions / best_cpu * 1e-6);
  fsim_wprog_free(&wp);
  return 0;
fail:
  fprintf(stderr, "sim_speed: %s\n", e.msg);
  return 1;
}
