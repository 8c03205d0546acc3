/* Occupancy: see occupancy.h.  Registers are allocated in granules: the arch VGPRs are
 * rounded to 4 before the AGPRs are added (the unified file of CDNA parts), and the sum to
 * the arch's granule; LDS in the arch's allocation granule. */
#include "config.h"

#include "model/occupancy.h"

static int round_up(long long v, int g) { return g > 0 ? (int)((v + g - 1) / g * g) : (int)v; }

void fsim_occupancy_of(const fsim_arch *a, int waves_per_wg, int vgprs, int agprs, int sgprs, long long lds_bytes,
                       fsim_occupancy *out) {
  int vg = round_up(round_up(vgprs, 4) + agprs, a->cu.vgpr_granule);
  if (vg < a->cu.vgpr_granule) vg = a->cu.vgpr_granule;
  int sg = round_up(sgprs > 0 ? sgprs : 1, a->cu.sgpr_granule);
  int wps = a->cu.waves_per_simd;
  const char *lim = "waves";
  if (a->cu.vgprs_per_lane / vg < wps) wps = a->cu.vgprs_per_lane / vg, lim = "vgprs";
  if (a->cu.sgprs_per_simd / sg < wps) wps = a->cu.sgprs_per_simd / sg, lim = "sgprs";
  int wgs = waves_per_wg > 0 ? wps * a->cu.simds / waves_per_wg : 0;
  if (a->cu.workgroups_per_cu < wgs) wgs = a->cu.workgroups_per_cu, lim = "workgroups";
  if (lds_bytes > 0) {
    int by_lds = (int)(a->lds.bytes_per_cu / round_up(lds_bytes, a->lds.alloc_granule));
    if (by_lds < wgs) wgs = by_lds, lim = "lds";
  }
  if (lds_bytes > a->lds.max_bytes_per_wg) wgs = 0, lim = "lds";
  out->wgs_per_cu = wgs;
  out->waves_per_simd = wgs > 0 ? (wgs * waves_per_wg + a->cu.simds - 1) / a->cu.simds : 0;
  out->limit = lim;
}
