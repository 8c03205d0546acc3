/* The host CPUs the simulator and the tuner may use. */
#ifndef FSIM_HOST_H
#define FSIM_HOST_H

/* The CPUs this process may run on: the online CPUs, or fewer where its CPU affinity mask
 * (taskset, a container's cpuset) or its control group's CPU quota (a container's --cpus)
 * allows fewer.  At least 1. */
int fsim__host_cpus(void);

/* The CPU quota of the control group that self_cgroup (the text of /proc/self/cgroup) names,
 * under the cgroup file system at root ("/sys/fs/cgroup"), rounded up to whole CPUs: the
 * smallest of the group's and its ancestors' quotas, from cpu.max (cgroup v2) or from
 * cpu/cpu.cfs_quota_us over cpu.cfs_period_us (v1).  0 when none is set or none can be read. */
int fsim__cgroup_cpus(const char *self_cgroup, const char *root);

#endif
