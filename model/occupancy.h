/* Occupancy: how many workgroups of a kernel a CU holds at once, and what limits it (wave
 * slots, vector registers, scalar registers, LDS, or the workgroup limit).  A hardware law
 * shared by the simulator and the analytical model. */
#ifndef FSIM_OCCUPANCY_H
#define FSIM_OCCUPANCY_H

#include "model/arch.h"

typedef struct fsim_occupancy {
  int wgs_per_cu;       /* resident workgroups per CU (0: one does not fit) */
  int waves_per_simd;   /* resident waves per SIMD at that occupancy */
  const char *limit;    /* "waves", "vgprs", "sgprs", "lds" or "workgroups" */
} fsim_occupancy;

/* Registers are per wave (VGPRs and AGPRs share the unified file where the part has one),
 * LDS per workgroup. */
void fsim_occupancy_of(const fsim_arch *a, int waves_per_wg, int vgprs, int agprs, int sgprs, long long lds_bytes,
                       fsim_occupancy *out);

#endif
