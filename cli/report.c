/* Printing simulation results (text and JSON), shared by sim, micro and predict. */
#include "config.h"

#include "cli/report.h"
#include "cli/common.h"

#include <string.h>

json_t *fsim_cli_sim_json(const fsim_sim_result *r, const char *timeline_path) {
  json_t *o = json_object();
  json_object_set_new(o, "cycles", json_integer(r->cycles));
  json_object_set_new(o, "time_us", json_real(r->time_us));
  json_object_set_new(o, "kernel_us", json_real(r->kernel_us));
  json_object_set_new(o, "clock_ghz", json_real(r->clock_ghz));
  json_object_set_new(o, "wave_instructions", json_integer(r->wave_instructions));
  json_object_set_new(o, "simulated_wave_instructions", json_integer(r->simulated_wave_instructions));
  json_object_set_new(o, "workgroups", json_integer(r->workgroups));
  json_object_set_new(o, "sampled", json_boolean(r->sampled));
  json_object_set_new(o, "caches", json_string(r->warm ? "warm" : "cold"));
  if (r->sampled) {
    json_object_set_new(o, "sample_period_cycles", json_real(r->sample_period_cycles));
    json_object_set_new(o, "sample_unseen_writeback_us", json_real(r->sample_unseen_writeback_us));
    json_object_set_new(o, "sample_share_skipped", json_boolean(r->sample_share_skipped));
    json_t *sp = json_object();
    json_object_set_new(sp, "xcds", json_integer(r->sample_xcds));
    json_object_set_new(sp, "loop_trips", json_integer(r->sample_loop_trips));
    json_object_set_new(sp, "trips", json_pack("[II]", (json_int_t)r->sample_trips[0], (json_int_t)r->sample_trips[1]));
    json_object_set_new(sp, "rounds", json_integer(r->sample_rounds));
    json_object_set_new(sp, "rounds_run",
                        json_pack("[II]", (json_int_t)r->sample_rounds_run[0], (json_int_t)r->sample_rounds_run[1]));
    json_object_set_new(o, "sample", sp);
  }
  json_t *occ = json_object();
  json_object_set_new(occ, "workgroups_per_cu", json_integer(r->wgs_per_cu));
  json_object_set_new(occ, "waves_per_simd", json_integer(r->waves_per_simd));
  json_object_set_new(occ, "limit", fsim_json_text(r->occupancy_limit));
  json_object_set_new(o, "occupancy", occ);
  json_t *u = json_object();
  json_object_set_new(u, "mfma", json_real(r->util_mfma));
  json_object_set_new(u, "valu", json_real(r->util_valu));
  json_object_set_new(u, "lds", json_real(r->util_lds));
  json_object_set_new(u, "l1", json_real(r->util_l1));
  json_object_set_new(u, "l2", json_real(r->util_l2));
  json_object_set_new(u, "mall", json_real(r->util_mall));
  json_object_set_new(u, "hbm", json_real(r->util_dram));
  json_object_set_new(o, "utilisation", u);
  json_t *m = json_object();
  json_object_set_new(m, "l1_hits", json_integer(r->l1_hits));
  json_object_set_new(m, "l1_misses", json_integer(r->l1_misses));
  json_object_set_new(m, "l2_hits", json_integer(r->l2_hits));
  json_object_set_new(m, "l2_misses", json_integer(r->l2_misses));
  json_object_set_new(m, "mall_hits", json_integer(r->mall_hits));
  json_object_set_new(m, "mall_misses", json_integer(r->mall_misses));
  json_object_set_new(m, "hbm_read_bytes", json_integer(r->dram_read_bytes));
  json_object_set_new(m, "hbm_write_bytes", json_integer(r->dram_write_bytes));
  json_object_set_new(m, "store_bytes", json_integer(r->store_bytes));
  json_object_set_new(m, "lds_accesses", json_integer(r->lds_accesses));
  json_object_set_new(m, "lds_bank_cycles", json_integer(r->lds_bank_cycles));
  json_object_set_new(o, "memory", m);
  json_t *st = json_object();
  double per_wave = r->waves > 0 ? 1.0 / (double)r->waves : 0;
  for (int i = 0; i < FSIM_STALL_COUNT; i++)
    json_object_set_new(st, fsim_stall_name((fsim_stall)i), json_real(r->stall[i] * per_wave));
  json_object_set_new(st, "issue", json_real(r->issue_cycles * per_wave));
  json_object_set_new(st, "wave_lifetime", json_real(r->wave_cycles * per_wave));
  json_object_set_new(o, "stalls_per_wave_cycles", st);
  json_t *waves = json_array();
  for (int w = 0; w < r->nwave_records; w++) {
    const fsim_sim_wave *rec = &r->wave_record[w];
    json_t *jw = json_object();
    json_object_set_new(jw, "workgroup", json_integer(rec->workgroup));
    json_object_set_new(jw, "wave", json_integer(rec->wave));
    json_object_set_new(jw, "simd", json_integer(rec->simd));
    json_object_set_new(jw, "start", json_integer(rec->start));
    json_object_set_new(jw, "end", json_integer(rec->end));
    json_object_set_new(jw, "issued", json_integer(rec->issued));
    json_t *js = json_object();
    for (int i = 0; i < FSIM_STALL_COUNT; i++) json_object_set_new(js, fsim_stall_name((fsim_stall)i), json_real(rec->stall[i]));
    json_object_set_new(jw, "stall_cycles", js);
    json_array_append_new(waves, jw);
  }
  json_object_set_new(o, "waves_cu0", waves);
  if (timeline_path != NULL || r->timeline_events > 0 || r->timeline_dropped > 0) {
    json_t *tl = json_object();
    if (timeline_path != NULL) json_object_set_new(tl, "path", fsim_json_text(timeline_path));
    json_object_set_new(tl, "spans", json_integer(r->timeline_events));
    json_object_set_new(tl, "spans_left_out", json_integer(r->timeline_dropped));
    if (r->timeline_dropped > 0) json_object_set_new(tl, "complete_until_cycle", json_integer(r->timeline_cut_cycle));
    json_object_set_new(o, "timeline", tl);
  }
  json_object_set_new(o, "host_seconds", json_real(r->host_seconds));
  return o;
}

void fsim_cli_timeline_print(FILE *f, const char *path, const fsim_sim_result *r) {
  char what[256] = "", cut[160] = "";
  if (r->sampled && (r->sample_xcds > 1 || r->sample_loop_trips > 0 || r->sample_rounds > 0)) {
    /* the run that records is the one with the most trips and rounds (sim/gpu.c, sample_runs) */
    char xcd[48] = "", loop[80] = "", rounds[80] = "";
    if (r->sample_xcds > 1) snprintf(xcd, sizeof xcd, "XCD 0's share, ");
    if (r->sample_loop_trips > 0)
      snprintf(loop, sizeof loop, "the main loop at %d of its %lld trips, ", r->sample_trips[1],
               (long long)r->sample_loop_trips);
    if (r->sample_rounds > 0)
      snprintf(rounds, sizeof rounds, "the last %lld of %lld rounds of workgroups, ", (long long)r->sample_rounds_run[1],
               (long long)r->sample_rounds);
    snprintf(what, sizeof what, " (CU 0 of a sampled run: %s%s%snot the whole kernel)", xcd, loop, rounds);
  }
  if (r->timeline_dropped > 0)
    snprintf(cut, sizeof cut, "; %lld spans, cut at the event limit: complete until cycle %lld (%.3f us), %lld left out",
             (long long)r->timeline_events, (long long)r->timeline_cut_cycle,
             (double)r->timeline_cut_cycle / (r->clock_ghz * 1e3), (long long)r->timeline_dropped);
  fprintf(f, "timeline     %s%s%s\n", path, what, cut);
}

static const char *pct(double x, char *buf, size_t n) {
  snprintf(buf, n, "%.1f%%", 100.0 * x);
  return buf;
}

void fsim_cli_sim_print(FILE *f, const fsim_sim_result *r) {
  char a[16], b[16], c[16], d[16], e[16], g[16], h[16];
  fprintf(f, "time         %.3f us = %lld cycles at %.4g GHz (%.3f us) + %.3g us launch%s%s\n", r->time_us,
          (long long)r->cycles, r->clock_ghz, r->kernel_us, r->time_us - r->kernel_us,
          r->sampled ? "  [sampled: extrapolated]" : "", r->warm ? "  [warm: after an identical launch]" : "");
  if (r->sampled) {
    /* what the extrapolation stands on, so that a reader can judge it (docs/simulator.md) */
    char xcd[48] = "the whole grid", loop[96] = "main loop not shortened", rounds[96] = "";
    if (r->sample_xcds > 1) snprintf(xcd, sizeof xcd, "XCD 0's share, times %d XCDs", r->sample_xcds);
    if (r->sample_loop_trips > 0)
      snprintf(loop, sizeof loop, "main loop run %d and %d of its %lld trips", r->sample_trips[0], r->sample_trips[1],
               (long long)r->sample_loop_trips);
    if (r->sample_rounds > 0)
      snprintf(rounds, sizeof rounds, "; %lld and %lld of %lld rounds of workgroups", (long long)r->sample_rounds_run[0],
               (long long)r->sample_rounds_run[1], (long long)r->sample_rounds);
    fprintf(f, "sample       %s; %s%s\n", xcd, loop, rounds);
  }
  fprintf(f, "occupancy    %d workgroups/CU, %d waves/SIMD (limited by %s); %lld workgroup%s\n", r->wgs_per_cu,
          r->waves_per_simd, r->occupancy_limit, (long long)r->workgroups, r->workgroups == 1 ? "" : "s");
  fprintf(f, "utilisation  MFMA %s  VALU %s  LDS %s  L1 %s  L2 %s  MALL %s  HBM %s\n", pct(r->util_mfma, a, sizeof a),
          pct(r->util_valu, b, sizeof b), pct(r->util_lds, c, sizeof c), pct(r->util_l1, d, sizeof d),
          pct(r->util_l2, e, sizeof e), pct(r->util_mall, g, sizeof g), pct(r->util_dram, h, sizeof h));
  double l1 = (double)(r->l1_hits + r->l1_misses), l2 = (double)(r->l2_hits + r->l2_misses),
         ml = (double)(r->mall_hits + r->mall_misses);
  fprintf(f, "memory       L1 hits %s  L2 hits %s  MALL hits %s  HBM read %.3g MB  written %.3g MB",
          pct(l1 > 0 ? r->l1_hits / l1 : 0, a, sizeof a), pct(l2 > 0 ? r->l2_hits / l2 : 0, b, sizeof b),
          pct(ml > 0 ? r->mall_hits / ml : 0, c, sizeof c), r->dram_read_bytes / 1e6, r->dram_write_bytes / 1e6);
  /* lines still dirty in the L2s and the MALL when the kernel ends are not written back
   * (docs/simulator.md, Limits): say so where that leaves stores out of the HBM count */
  if (r->store_bytes > r->dram_write_bytes)
    fprintf(f, " (evictions only; the kernel stores %.3g MB)", r->store_bytes / 1e6);
  fputc('\n', f);
  if (r->sampled && r->sample_xcds > 1 && !r->sample_share_skipped) /* not where one XCD ran the whole grid */
    fprintf(f, "             [sampled: XCD 0's MALL misses of lines the other XCDs also read are fetched from HBM "
               "by one XCD each, by hash]\n");
  if (r->sampled && r->sample_share_skipped)
    fprintf(f, "warning      [sampled: the grid is too large to find the lines other XCDs also read, so XCD 0 fetches "
               "all its MALL misses from HBM; where XCDs share operands through the MALL the time is too long: "
               "simulate in full (predict --full; sim without --sampled)]\n");
  /* a share of the time worth a warning: the short runs may leave out that much write-back */
  if (r->sampled && r->sample_unseen_writeback_us > 0.05 * r->kernel_us)
    fprintf(f, "warning      [sampled: the kernel stores %.3g MB, more than the MALL holds; a full run writes back up to "
               "%.3g us more of it to HBM (%.0f%% of the kernel's time) than the short runs saw, which the time counts "
               "as HBM time only: simulate in full (predict --full; sim without --sampled)]\n",
            r->store_bytes / 1e6, r->sample_unseen_writeback_us, 100.0 * r->sample_unseen_writeback_us / r->kernel_us);
  double life = r->wave_cycles > 0 ? r->wave_cycles : 1;
  fprintf(f, "stalls       per wave, share of its lifetime (%.0f cycles): issued %s", r->waves ? r->wave_cycles / r->waves : 0,
          pct(r->issue_cycles / life, a, sizeof a));
  for (int i = 0; i < FSIM_STALL_COUNT; i++)
    if (r->stall[i] / life >= 0.0005) fprintf(f, "  %s %s", fsim_stall_name((fsim_stall)i), pct(r->stall[i] / life, b, sizeof b));
  fputc('\n', f);
  fprintf(f, "host         %lld wave instructions (%lld simulated) in %.3f s = %.1f M/s\n",
          (long long)r->wave_instructions, (long long)r->simulated_wave_instructions, r->host_seconds,
          r->host_seconds > 0 ? r->simulated_wave_instructions / r->host_seconds / 1e6 : 0);
}

void fsim_cli_sim_print_waves(FILE *f, const fsim_sim_result *r) {
  fprintf(f, "waves of CU 0 (the first %d to finish%s): cycles waited, by reason\n", r->nwave_records,
          r->sampled ? "; sampled: of the shortened run" : "");
  fprintf(f, "%8s %4s %4s %9s %9s %8s", "wg", "wave", "simd", "start", "end", "issued");
  for (int i = 0; i < FSIM_STALL_COUNT; i++) fprintf(f, " %12s", fsim_stall_name((fsim_stall)i));
  fputc('\n', f);
  for (int w = 0; w < r->nwave_records; w++) {
    const fsim_sim_wave *rec = &r->wave_record[w];
    fprintf(f, "%8lld %4d %4d %9lld %9lld %8lld", (long long)rec->workgroup, rec->wave, rec->simd, (long long)rec->start,
            (long long)rec->end, (long long)rec->issued);
    for (int i = 0; i < FSIM_STALL_COUNT; i++) fprintf(f, " %12.0f", rec->stall[i]);
    fputc('\n', f);
  }
}
