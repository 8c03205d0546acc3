/* The host CPUs the simulator and the tuner may use: see host.h. */
#include "config.h"

#include "sim/host.h"

#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Reads the whole numbers that file `dir/name` starts with (at most 2) into v; returns how
 * many it read: 0 where the file is missing or starts otherwise ("max" included). */
static int read_numbers(const char *dir, const char *name, long long v[2]) {
  char path[4096];
  if (snprintf(path, sizeof path, "%s/%s", dir, name) >= (int)sizeof path) return 0;
  FILE *f = fopen(path, "r");
  if (f == NULL) return 0;
  int n = fscanf(f, "%lld %lld", &v[0], &v[1]);
  fclose(f);
  return n > 0 ? n : 0;
}

/* Whole CPUs for quota microseconds per period: 0 for no quota (v1 writes -1). */
static int quota_cpus(long long quota, long long period) {
  if (quota <= 0 || period <= 0) return 0;
  long long c = (quota + period - 1) / period;
  return c > 4096 ? 4096 : (int)c;
}

/* The smallest quota of group dir and its ancestors up to the mount's root, which ends at
 * dir[base] (cgroup v2's cpu.max or v1's cfs files); 0 if none.  dir is cut as it goes. */
static int walk_quota(char *dir, size_t base, int v2) {
  int best = 0;
  for (;;) {
    long long q[2], p[2];
    int c = 0;
    if (v2 && read_numbers(dir, "cpu.max", q) == 2)
      c = quota_cpus(q[0], q[1]);
    else if (!v2 && read_numbers(dir, "cpu.cfs_quota_us", q) == 1 && read_numbers(dir, "cpu.cfs_period_us", p) == 1)
      c = quota_cpus(q[0], p[0]);
    if (c > 0 && (best == 0 || c < best)) best = c;
    char *slash = strrchr(dir, '/');
    if (slash == NULL || (size_t)(slash - dir) < base) return best; /* dir was the mount's root */
    *slash = '\0';
  }
}

int fsim__cgroup_cpus(const char *self_cgroup, const char *root) {
  char dir[4096];
  int best = 0;
  /* each line of /proc/self/cgroup: hierarchy-id:controllers:path; v2's is 0::path, and
   * v1's CPU controller is in a list such as "cpu,cpuacct" mounted at root/cpu */
  for (const char *line = self_cgroup; line && *line;) {
    const char *eol = strchr(line, '\n'), *end = eol ? eol : line + strlen(line);
    const char *c1 = memchr(line, ':', (size_t)(end - line));
    const char *c2 = c1 ? memchr(c1 + 1, ':', (size_t)(end - c1 - 1)) : NULL;
    const char *start = line;
    line = eol ? eol + 1 : NULL;
    if (c2 == NULL || c2[1] != '/') continue;
    int v2 = c1 - start == 1 && start[0] == '0' && c2 == c1 + 1, v1 = 0;
    for (const char *p = c1 + 1; !v2 && p < c2;) {
      const char *q = memchr(p, ',', (size_t)(c2 - p));
      if (q == NULL) q = c2;
      if (q - p == 3 && memcmp(p, "cpu", 3) == 0) v1 = 1;
      p = q + 1;
    }
    int n = snprintf(dir, sizeof dir, "%s%s%.*s", root, v2 ? "" : "/cpu", (int)(end - c2 - 1), c2 + 1);
    if (!(v1 || v2) || n <= 0 || n >= (int)sizeof dir) continue;
    int c = walk_quota(dir, strlen(root) + (v2 ? 0 : 4), v2);
    if (c > 0 && (best == 0 || c < best)) best = c;
  }
  return best;
}

int fsim__host_cpus(void) {
  long n = sysconf(_SC_NPROCESSORS_ONLN);
  if (n < 1) n = 1;
#ifdef CPU_COUNT
  cpu_set_t set;
  if (sched_getaffinity(0, sizeof set, &set) == 0) {
    int c = CPU_COUNT(&set);
    if (c >= 1 && c < n) n = c;
  }
#endif
  FILE *f = fopen("/proc/self/cgroup", "r");
  if (f != NULL) {
    char text[8192];
    size_t len = fread(text, 1, sizeof text - 1, f);
    fclose(f);
    text[len] = '\0';
    int c = fsim__cgroup_cpus(text, "/sys/fs/cgroup");
    if (c >= 1 && c < n) n = c;
  }
  return n > 4096 ? 4096 : (int)n;
}
