/* The analytical cost model (see estimate.h and docs/model.md).
 *
 * Occupancy gives the workgroups a CU holds (W).  Round-robin dispatch gives the busiest XCD
 * ceil(N / xcds) workgroups and its busiest CU q = ceil(that / CUs per XCD); the CU runs
 * them c = min(W, q) at a time in ceil(q / c) batches.  One main-loop iteration of a batch
 * takes the largest of the times its resources need, all at the sustained clock:
 *   MFMA   c * waves * mfma_per_wave * mfma_cycles / SIMDs   (at least one wave's chain)
 *   LDS    the bank array: c * waves * bank cycles per wave, plus DMA writes at the array's
 *          bytes per clock; the ports: a SIMD's waves' read bytes at the port's bytes/clock
 *   issue  c * waves per SIMD * (LDS reads + copies) issue periods
 *   L1     c * load bytes / L1 bytes per clock
 *   L2     CUs per XCD * c * load bytes / (channels * bytes per clock * 0.9)  [hash imbalance,
 *          measured by `flysim micro bandwidth --level l2`]
 *   MALL   xcds * the XCD's distinct tile bytes per iteration / MALL bytes per clock
 * plus what the pipeline does not hide: the barrier and the first LDS read of each iteration,
 * and the global-load latency beyond the iterations of that work between issuing a tile's
 * copies and waiting for them (fsim_plan_summary.copy_lead: stages - 1 in the plain case),
 * shared among the c workgroups (a ping-pong pays a barrier and a phase's reads at each of
 * its phases).  A workgroup adds a prologue (first tile's latency) and an epilogue (C
 * stores).  DRAM bounds the whole kernel: the unique bytes when they fit the Infinity Cache,
 * every L2 miss otherwise, at the achievable bandwidth. */
#include "config.h"

#include "model/estimate.h"

#include <math.h>
#include <string.h>

#include "model/occupancy.h"

static double dmax(double a, double b) { return a > b ? a : b; }
static double dmin(double a, double b) { return a < b ? a : b; }

/* Workgroups an XCD runs at once with c on each CU: no more than its share of the grid. */
static double xcd_resident(const fsim_arch *a, const fsim_plan_summary *s, int c) {
  const int xcds = a->device.xcds, cus_per_xcd = a->device.cus / xcds;
  double per_xcd = (double)((s->workgroups + xcds - 1) / xcds);
  double full = (double)cus_per_xcd * c;
  return per_xcd < full && per_xcd > 0 ? per_xcd : full;
}

/* One main-loop iteration with c workgroups on the CU; fills the components. */
static double iteration(const fsim_arch *a, const fsim_plan_summary *s, int c, fsim_estimate *o) {
  const int simds = a->cu.simds;
  double waves = (double)c * s->waves_per_wg;
  double waves_per_simd = waves / simds < 1 ? 1 : waves / simds;
  double chain = (double)s->mfma_per_wave * s->mfma_cycles;
  o->t_mfma = dmax(chain, waves * chain / simds);
  double clk_bytes = a->device.sustained_clock_ghz * 1e9;
  double bank = waves * s->lds_bank_cycles_per_wave +
                (double)c * s->lds_write_bytes_per_wg / (a->lds.banks * a->lds.bank_bytes);
  double port = waves_per_simd * a->lds.simds_per_port * (double)s->lds_read_bytes_per_wave / a->lds.port_bytes_per_clk;
  o->t_lds = dmax(bank, port);
  o->t_issue = waves_per_simd * (s->lds_reads_per_wave + s->vmem_per_wave) * a->issue.issue_period;
  /* The k steps' chain on a SIMD.  A wave reads the fragments of k step kk+1 among the MFMAs
   * of kk (kernels/gemm_wprog.c), and kk+1's first MFMA waits for the reads it needs (A's and
   * B's first fragments).  Only kk's MFMAs issued after that read hide its LDS latency (the
   * summary counts them by replaying the order; at least the one still in the pipe).  With few
   * MFMAs a step (small wave tiles) the rest is exposed at every step, unless the SIMD's other
   * waves fill it. */
  o->t_chain = 0;
  if (s->wave_groups <= 1 && s->ksteps > 0 && s->mfma_per_wave > 0 && s->lds_reads_per_wave > 0) {
    double ks = s->ksteps, mfma_k = s->mfma_per_wave / ks;
    double step = mfma_k * s->mfma_cycles;
    double after = dmax(1, s->kstep_hiding_mfmas);
    double gap = dmax(0, a->lds.latency + s->lds_bank_cycles_per_wave / ks - after * s->mfma_cycles);
    o->t_chain = (ks - 1) * dmax(waves_per_simd * step, step + gap) + waves_per_simd * step;
  }
  /* the L1 takes every line a copy touches; the L2 only those the L1 has lost since the
   * previous K tile, which used the rest of a line its rows share (a tile's rows shorter than a
   * line): all of them when the CU's workgroups touch more lines in a K tile than the L1 holds */
  double lines = (double)(s->load_line_bytes_per_wg > s->load_bytes_per_wg ? s->load_line_bytes_per_wg
                                                                             : s->load_bytes_per_wg);
  double l2_bytes = (double)c * lines > (double)a->memory.l1_bytes ? lines : (double)s->load_bytes_per_wg;
  double l1 = (double)c * lines / a->memory.l1_bytes_per_clk;
  o->t_l2 = dmax(l1, xcd_resident(a, s, c) * l2_bytes /
                         (a->memory.l2_channels * (double)a->memory.l2_bytes_per_clk * 0.9));
  double mall_bpc = a->memory.mall_tbps * 1e12 / clk_bytes;
  o->t_mall = a->memory.mall_bytes > 0 && mall_bpc > 0
                  ? (double)a->device.xcds * s->xcd_unique_bytes_per_iter / mall_bpc
                  : 0;
  /* the share of loaded bytes that come from DRAM: each byte once (a decode GEMM streams its
   * weights), and past the MALL the re-reads the plan's walk found: their latency is DRAM's,
   * and every CU's share of them goes through the DRAM bandwidth each iteration */
  double loaded = (double)s->workgroups * s->iters * (double)s->load_bytes_per_wg;
  double once = loaded > 0 ? (double)(s->dram_ab_bytes > 0 ? s->dram_ab_bytes : s->unique_ab_bytes) / loaded : 0;
  if (once > 1) once = 1;
  double dram_bpc = a->memory.dram_bus_bits * a->memory.dram_gbps_per_pin / 8.0 * 1e9 * a->memory.dram_efficiency /
                    clk_bytes;
  double active = (double)a->device.cus * c;
  if (active > (double)s->workgroups) active = (double)s->workgroups;
  o->t_dram = active * s->load_bytes_per_wg * once / dram_bpc;
  double compute = dmax(dmax(dmax(o->t_mfma, o->t_lds), o->t_issue), o->t_chain), memory = dmax(dmax(o->t_l2, o->t_mall), o->t_dram);
  double mem_latency = (1 - once) * a->memory.l2_latency + once * a->memory.dram_latency;
  /* not hidden: the barrier, and the reads of the first atom k step (the MFMAs wait for
   * them; later steps' reads overlap the previous step's MFMAs), at the LDS latency plus
   * their share of the LDS time */
  double first_reads = a->lds.latency + o->t_lds / (s->ksteps > 0 ? s->ksteps : 1);
  /* other workgroups on the CU fill the gaps, as far as their waves share this workgroup's
   * SIMDs: two 2-wave workgroups on a 4-SIMD CU run side by side, each with its own gaps
   * (with fillers = c the model predicted such a pair faster than one workgroup alone) */
  double own = (double)s->waves_per_wg / simds < 1 ? 1 : (double)s->waves_per_wg / simds;
  double fillers = waves_per_simd / own < 1 ? 1 : waves_per_simd / own;
  if (s->stages <= 1) {
    /* One stage: each workgroup loads its tile, waits, then computes, in turn, and the c
     * workgroups on the CU share the compute and memory paths.  That is a closed queueing
     * network of c customers, solved exactly by mean value analysis: two queueing stations,
     * compute and memory, each asking 1/c of the batch's time per workgroup-iteration, and a
     * delay of the latency nothing hides.  With one workgroup it is their sum; with many it
     * tends to the larger station's time. */
    double dc = compute / c, dm = memory / c;
    double z = 2.0 * a->issue.barrier_latency + first_reads + mem_latency;
    /* workgroups on separate SIMDs do not queue for each other's compute: the compute station
     * is c / fillers servers, each serving its fillers' share; Seidmann's approximation
     * keeps the one queue at compute / c and adds the rest of a workgroup's own compute,
     * compute / fillers - compute / c, as delay */
    if (fillers < c) z += compute / fillers - compute / c;
    double qc = 0, qm = 0, x = 0;
    for (int n = 1; n <= c; n++) {
      double rc = dc * (1 + qc), rm = dm * (1 + qm);
      x = n / (z + rc + rm);
      qc = x * rc;
      qm = x * rm;
    }
    o->t_iter = c / x;
    o->t_exposed = dmax(0, o->t_iter - dmax(compute, memory));
    return o->t_iter;
  }
  double work = dmax(compute, memory);
  double fixed = a->issue.barrier_latency + first_reads; /* exposed at every iteration */
  if (s->wave_groups > 1) {
    /* ping-pong (kernels/gemm_wprog.c): each of the tile's P phases ends at a barrier that
     * pairs one group's MFMAs with the other's reads; the group that runs its MFMAs second
     * then reads its next phase's fragments with nothing beside it: a barrier, the LDS
     * latency and that group's share of a phase's LDS work at every phase.  The copies'
     * latency is hidden as far as the summary's copy_lead says. */
    int P = s->phases > 1 ? s->phases : 2;
    double per_phase = a->issue.barrier_latency + a->lds.latency + o->t_lds / (2.0 * P);
    fixed = P * per_phase;
  }
  /* A copy is waited for copy_lead iterations after it issues: n = copy_lead_whole whole
   * iterations, their own exposed time included, and the rest (r) of one iteration's work.
   * With f fillers, T = work + (fixed + max(0, L - n x T - r x work)) / f, whose solution is
   * the larger of work + fixed / f (the latency hidden) and (f x work + fixed + L - r x work) /
   * (f + n).  (Until 2026-11-30 the whole lead covered lead x work only, which an audit found
   * doubling the time of latency-bound decode kernels with 2 to 4 stages against the
   * simulator; counting the copies through registers, issued at the start of a K step and
   * waited for at its end, as whole iterations too made them up to 2.3x too fast.) */
  double n = s->copy_lead_whole > 0 ? s->copy_lead_whole : 0;
  double r = s->copy_lead > n ? s->copy_lead - n : 0;
  double hidden = work + fixed / fillers;
  double waiting = (fillers * work + fixed + mem_latency - r * work) / (fillers + n);
  o->t_iter = dmax(hidden, waiting);
  o->t_exposed = o->t_iter - work;
  return o->t_iter;
}

/* One workgroup's time with c workgroups on the CU. */
static double workgroup(const fsim_arch *a, const fsim_plan_summary *s, int c, fsim_estimate *o) {
  double it = iteration(a, s, c, o);
  double prologue = a->memory.l2_latency + a->lds.latency;
  double l2_share = a->memory.l2_channels * (double)a->memory.l2_bytes_per_clk / xcd_resident(a, s, c);
  double stored = s->store_line_bytes_per_wg > s->store_bytes_per_wg ? (double)s->store_line_bytes_per_wg
                                                                      : (double)s->store_bytes_per_wg;
  double epilogue = stored / l2_share + a->memory.l2_latency + s->epilogue_lds_cycles +
                    2.0 * a->issue.barrier_latency;
  if (s->store_atomics && !a->memory.atomics_in_l2) {
    /* atomics forwarded past the L2 (MI300, MI350): the MALL performs them (the simulator's
     * rule, sim/memsys.h), its bandwidth shared by every workgroup resident on the device, at
     * its latency: a C line's later slices find it where the first slice's atomic brought it
     * (that one DRAM read is not charged); without a MALL, DRAM performs them */
    const int mall = a->memory.mall_bytes > 0;
    double clk = a->device.sustained_clock_ghz * 1e9;
    double bpc = mall ? a->memory.mall_tbps * 1e12 / clk
                      : a->memory.dram_bus_bits * a->memory.dram_gbps_per_pin / 8.0 * 1e9 * a->memory.dram_efficiency / clk;
    double share = bpc / (xcd_resident(a, s, c) * a->device.xcds);
    epilogue += dmax(stored / l2_share, stored / share) - stored / l2_share +
                (mall ? a->memory.mall_latency : a->memory.dram_latency) - a->memory.l2_latency;
  }
  return prologue + s->iters * it + epilogue;
}

int fsim_model_estimate(const fsim_arch *a, const fsim_plan_summary *s, fsim_estimate *o) {
  memset(o, 0, sizeof *o);
  fsim_occupancy occ;
  fsim_occupancy_of(a, s->waves_per_wg, s->vgprs, s->agprs, s->sgprs, s->lds_bytes, &occ);
  o->wgs_per_cu = occ.wgs_per_cu;
  o->waves_per_simd = occ.waves_per_simd;
  o->occupancy_limit = occ.limit;
  if (occ.wgs_per_cu < 1) return -1;
  const int xcds = a->device.xcds, cus_per_xcd = a->device.cus / xcds;
  int64_t per_xcd = (s->workgroups + xcds - 1) / xcds;
  int64_t q = (per_xcd + cus_per_xcd - 1) / cus_per_xcd;
  int c = q < occ.wgs_per_cu ? (int)q : occ.wgs_per_cu;
  int64_t batches = q / c, tail = q % c;
  double t_full = workgroup(a, s, c, o);
  fsim_estimate keep = *o; /* the full batch's components describe the kernel */
  double cycles = batches * t_full;
  if (tail > 0) cycles += workgroup(a, s, (int)tail, o);
  *o = keep;
  o->t_wg = t_full;
  o->rounds = (double)q / c;
  /* the dispatcher starts an XCD's first batch wg_launch_cycles apart */
  int64_t first = per_xcd < (int64_t)cus_per_xcd * c ? per_xcd : (int64_t)cus_per_xcd * c;
  cycles += (double)(first - 1) * a->dispatch.wg_launch_cycles;
  /* DRAM over the whole kernel */
  double clk = a->device.sustained_clock_ghz * 1e9;
  double dram_bpc = a->memory.dram_bus_bits * a->memory.dram_gbps_per_pin / 8.0 * 1e9 * a->memory.dram_efficiency / clk;
  double dram_bytes = (double)s->unique_bytes;
  if (s->dram_ab_bytes > 0) /* C once, A and B as the plan's walk found them read */
    dram_bytes += (double)(s->dram_ab_bytes - s->unique_ab_bytes);
  else if (s->unique_bytes > a->memory.mall_bytes) /* not known: every XCD reads its own every round */
    dram_bytes = dmax(dram_bytes, (double)xcds * s->xcd_unique_bytes_per_iter * s->iters * o->rounds);
  o->dram_bytes = dram_bytes;
  o->t_hbm = dram_bytes / dram_bpc;
  const char *bound = "mfma";
  double best = o->t_mfma;
  if (o->t_lds > best) best = o->t_lds, bound = "lds";
  if (o->t_issue > best) best = o->t_issue, bound = "issue";
  if (o->t_l2 > best) best = o->t_l2, bound = "l2";
  if (o->t_mall > best) best = o->t_mall, bound = "mall";
  if (o->t_dram > best) best = o->t_dram, bound = "hbm";
  if (o->t_exposed > best || o->t_chain > best) bound = "latency";
  if (o->t_hbm > cycles) {
    cycles = o->t_hbm;
    bound = "hbm";
  }
  /* the dispatcher launches every workgroup of an XCD wg_launch_cycles after the one before,
   * refills included (sim/gpu.c, dispatch_next): the last starts (per_xcd - 1) of those in and
   * then runs a workgroup's time, the shorter of a batch's and one alone on its CU (the
   * model's batch of two can be the shorter).  Small tiles on a large grid are held to that
   * (8192x8192x32 on 16x16 tiles: 262,144 workgroups, 16 cycles apart per XCD, 524,288 cycles;
   * the model said 94 us where the simulator, launch-bound, says 320 us) */
  double launch = (double)(per_xcd - 1) * a->dispatch.wg_launch_cycles + t_full;
  if (launch > cycles) { /* only then can it bind: the workgroup alone is worked out */
    fsim_estimate before = *o;
    double alone = workgroup(a, s, 1, o);
    *o = before;
    launch += dmin(alone, t_full) - t_full;
  }
  o->t_launch = launch;
  if (launch > cycles) {
    cycles = launch;
    bound = "launch";
  }
  o->bound = bound;
  o->cycles = cycles;
  o->kernel_us = cycles / (a->device.sustained_clock_ghz * 1e3);
  o->time_us = o->kernel_us + a->dispatch.launch_overhead_us;
  return 0;
}

double fsim_model_roofline_us(const fsim_arch *a, double flops, double bytes, const char *peak_class,
                              const char **bound) {
  fsim_arch_derived d;
  fsim_arch_derive(a, &d);
  int cls = fsim_arch_peak_class_index(peak_class);
  double per_clk = cls >= 0 ? d.peak_flops_per_clk_per_cu[cls] : 0;
  if (per_clk <= 0) per_clk = d.peak_flops_per_clk_per_cu[fsim_arch_peak_class_index("fp32")];
  double clk = a->device.sustained_clock_ghz * 1e9;
  double t_flops = flops / (per_clk * a->device.cus * clk);
  double dram = a->memory.dram_bus_bits * a->memory.dram_gbps_per_pin / 8.0 * 1e9 * a->memory.dram_efficiency;
  double t_bytes = bytes / dram;
  *bound = t_bytes > t_flops ? "hbm" : "mfma";
  return dmax(t_flops, t_bytes) * 1e6 + a->dispatch.launch_overhead_us;
}
