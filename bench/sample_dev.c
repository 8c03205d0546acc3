/* sample_dev: the sampled mode's deviation from the full simulation over a problem's space.
 *
 *   sample_dev --arch NAME --m M --n N --k K [--points P] [--trips S1 S2]
 *
 * Ranks every legal BF16 TN config of the problem with the model, takes P of them evenly over
 * the ranking, simulates each in full and sampled, and prints the deviation of the sampled
 * cycles per config, then the mean and worst deviation and the host-time ratio. */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tune/tune.h"

int main(int argc, char **argv) {
  const char *arch = "mi355x";
  long long m = 4096, n = 4096, k = 2048;
  int points = 16;
  int trips[2] = {0, 0}; /* the sampled runs' short trip counts (0: the default) */
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--arch") && i + 1 < argc) arch = argv[++i];
    else if (!strcmp(argv[i], "--m") && i + 1 < argc) m = atoll(argv[++i]);
    else if (!strcmp(argv[i], "--n") && i + 1 < argc) n = atoll(argv[++i]);
    else if (!strcmp(argv[i], "--k") && i + 1 < argc) k = atoll(argv[++i]);
    else if (!strcmp(argv[i], "--points") && i + 1 < argc) points = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--trips") && i + 2 < argc) {
      trips[0] = atoi(argv[++i]);
      trips[1] = atoi(argv[++i]);
    }
    else {
      fprintf(stderr, "usage: sample_dev [--arch NAME] [--m M --n N --k K] [--points P] [--trips S1 S2]\n");
      return 2;
    }
  }
  if (points < 2) points = 2;
  fsim_arch a;
  fsim_err e;
  if (fsim_arch_load(&a, arch, &e) != FSIM_OK) {
    fprintf(stderr, "sample_dev: %s\n", e.msg);
    return 2;
  }
  fsim_gemm_problem pr = {.op = FSIM_KOP_GEMM, .m = m, .n = n, .k = k, .groups = 1, .a = FSIM_DT_BF16,
                          .b = FSIM_DT_BF16, .c = FSIM_DT_BF16, .layout = FSIM_LAYOUT_TN};
  fsim_tune_candidate *all;
  int64_t cnt, tried, legal;
  if (fsim_tune_rank(&a, &pr, NULL, &all, &cnt, &tried, &legal, &e) != FSIM_OK) {
    fprintf(stderr, "sample_dev: %s\n", e.msg);
    return 1;
  }
  double sum = 0, worst = 0, t_full = 0, t_samp = 0;
  static fsim_schedule s;
  for (int i = 0; i < points; i++) {
    int64_t rank = (int64_t)((double)i * (double)(cnt - 1) / (points - 1) + 0.5);
    fsim_gemm_config c;
    fsim_sim_result rf, rs;
    if (fsim_gemm_config_parse(all[rank].config, &c, &e) != FSIM_OK || fsim_gemm_schedule_from(&pr, &c, &a, &s, &e) ||
        fsim_tune_evaluate(&a, &s, 0, 0, NULL, fsim_host_threads(), NULL, &rf, NULL, &e) ||
        fsim_tune_evaluate(&a, &s, 1, 0, trips[0] ? trips : NULL, 1, NULL, &rs, NULL, &e)) {
      fprintf(stderr, "sample_dev: %s\n", e.msg);
      return 1;
    }
    double dev = (double)(rs.cycles - rf.cycles) / (double)rf.cycles;
    sum += fabs(dev);
    if (fabs(dev) > fabs(worst)) worst = dev;
    t_full += rf.host_seconds, t_samp += rs.host_seconds;
    printf("%+7.2f%%  full %7.3f s  sampled %6.3f s  %s\n", 100 * dev, rf.host_seconds, rs.host_seconds, all[rank].config);
  }
  printf("%lldx%lldx%lld, %d configs over the model's ranking: mean |deviation| %.2f%%, worst %+.2f%%; sampled "
         "runs take %.1f%% of the full runs' host time\n",
         m, n, k, points, 100 * sum / points, 100 * worst, 100 * t_samp / t_full);
  free(all);
  return 0;
}
