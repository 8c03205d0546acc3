/* The memory system below the CUs: see memsys.h. */
#include "config.h"

#include "sim/memsys.h"

#include <stdlib.h>
#include <string.h>

int fsim__memsys_create(fsim__memsys *m, const fsim_arch *a, int xcds, double share) {
  memset(m, 0, sizeof *m);
  const double clk = a->device.sustained_clock_ghz; /* cycles are of this clock */
  m->xcds = xcds;
  m->l2_channels = a->memory.l2_channels;
  m->l2_service = (double)a->memory.l2_line / a->memory.l2_bytes_per_clk;
  m->l2_latency = a->memory.l2_latency;
  m->atomics_in_l2 = a->memory.atomics_in_l2;
  m->l2 = calloc((size_t)xcds, sizeof *m->l2);
  m->l2_free = calloc((size_t)xcds * m->l2_channels, sizeof *m->l2_free);
  if (m->l2 == NULL || m->l2_free == NULL) goto fail;
  for (int x = 0; x < xcds; x++)
    if (fsim__cache_create(&m->l2[x], a->memory.l2_bytes, a->memory.l2_line, a->memory.l2_ways) != 0) goto fail;
  int shift = 0;
  while ((1 << shift) < a->memory.l2_line) shift++;
  m->line_shift = shift;

  int slices = (int)(a->memory.dram_channels * share + 0.5);
  if (slices < 1) slices = 1;
  m->has_mall = a->memory.mall_bytes > 0;
  if (m->has_mall) {
    m->mall_slices = slices;
    double mall_bpc = a->memory.mall_tbps * share * 1e12 / (clk * 1e9);
    m->mall_service = a->memory.l2_line / (mall_bpc / slices);
    if (fsim__servers_create(&m->mall_slice, slices, m->mall_service) != 0) goto fail;
    m->mall_latency = a->memory.mall_latency;
    if (fsim__cache_create(&m->mall, (int64_t)(a->memory.mall_bytes * share), a->memory.l2_line,
                           a->memory.mall_ways) != 0)
      goto fail;
  }
  double dram_bpc = a->memory.dram_bus_bits * a->memory.dram_gbps_per_pin / 8.0 * a->memory.dram_efficiency * share / clk;
  if (fsim__hbm_create(&m->dram, slices, dram_bpc, a->memory.l2_line, a->memory.dram_latency) != 0) goto fail;
  return 0;
fail:
  fsim__memsys_free(m);
  return -1;
}

void fsim__memsys_free(fsim__memsys *m) {
  for (int x = 0; m->l2 && x < m->xcds; x++) fsim__cache_free(&m->l2[x]);
  free(m->l2);
  free(m->l2_free);
  fsim__cache_free(&m->mall);
  fsim__servers_free(&m->mall_slice);
  fsim__hbm_free(&m->dram);
  memset(m, 0, sizeof *m);
}

static inline int l2_channel(const fsim__memsys *m, uint64_t h) {
  h >>= 40;
  return (m->l2_channels & (m->l2_channels - 1)) == 0 ? (int)(h & (uint64_t)(m->l2_channels - 1))
                                                      : (int)(h % (uint64_t)m->l2_channels);
}

/* An L2 channel is a FIFO server: its requests come from the CUs of one XCD, out of time
 * order by at most the run window and the CUs' L1 queues, and a calendar (server.h) here
 * moved the kernel times tried by 1-2.3% at a third more host time (docs/simulator.md). */
static inline double l2_serve(fsim__memsys *m, int x, uint64_t h, double t) {
  double *f = &m->l2_free[x * m->l2_channels + l2_channel(m, h)];
  double start = t > *f ? t : *f;
  *f = start + m->l2_service;
  m->stats.l2_busy += m->l2_service;
  return start;
}

/* The MALL slice of a line with hash h: the one fronting its DRAM channel. */
static inline int mall_slice(const fsim__memsys *m, uint64_t h) {
  int c = fsim__hbm_channel_h(&m->dram, h);
  return (m->mall_slices & (m->mall_slices - 1)) == 0 ? c & (m->mall_slices - 1) : c % m->mall_slices;
}

/* Writes a dirty line evicted from an L2 back to the MALL (or DRAM); returns when the level
 * below takes it: when its MALL slice, or its DRAM channel, starts serving it, and where the
 * MALL evicts a dirty line of its own to make room, when DRAM starts writing that one. */
static double write_back_from_l2(fsim__memsys *m, uint64_t line, double t) {
  uint64_t h = fsim__hash_line(line);
  if (!m->has_mall) return fsim__hbm_write(&m->dram, h, t) - m->dram.latency;
  double start = fsim__servers_book(&m->mall_slice, mall_slice(m, h), t); /* the slice fronting its channel */
  m->stats.mall_busy += m->mall_service;
  uint64_t victim;
  if (fsim__cache_fill_h(&m->mall, line, h, start, 1, &victim)) {
    double out = fsim__hbm_write(&m->dram, fsim__hash_line(victim), start) - m->dram.latency;
    if (out > start) start = out;
  }
  return start;
}

double fsim__memsys_read(fsim__memsys *m, int x, uint64_t line, uint64_t h, double t, int shared) {
  m->stats.l2_reads++;
  double start = l2_serve(m, x, h, t), ready;
  size_t slot;
  if (fsim__cache_probe_h(&m->l2[x], line, h, &ready, &slot)) {
    double done = start + m->l2_latency;
    return done > ready ? done : ready;
  }
  double done;
  if (m->has_mall) {
    m->stats.mall_reads++;
    double ms = fsim__servers_book(&m->mall_slice, mall_slice(m, h), start); /* the slice fronting its channel */
    m->stats.mall_busy += m->mall_service;
    size_t mslot;
    if (fsim__cache_probe_h(&m->mall, line, h, &ready, &mslot)) {
      done = ms + m->mall_latency;
      if (ready > done) done = ready;
    } else if (shared > 1 && (h >> 32) % (uint64_t)shared != 0) {
      /* another XCD of the real device reads it from DRAM (sampled mode): here it is a hit,
       * at DRAM's unloaded latency, as a request that finds the line on its way in from that
       * XCD's fetch waits for it (XCDs reading the same lines read them at about the same
       * time); the DRAM channel is not booked */
      m->mall.stats.misses--;
      m->mall.stats.hits++;
      done = ms + m->dram.latency;
      uint64_t victim;
      if (fsim__cache_fill_slot(&m->mall, mslot, line, done, 0, &victim))
        fsim__hbm_write(&m->dram, fsim__hash_line(victim), ms);
    } else {
      done = fsim__hbm_read(&m->dram, h, ms);
      uint64_t victim;
      if (fsim__cache_fill_slot(&m->mall, mslot, line, done, 0, &victim))
        fsim__hbm_write(&m->dram, fsim__hash_line(victim), ms);
    }
  } else {
    done = fsim__hbm_read(&m->dram, h, start);
  }
  uint64_t victim;
  if (fsim__cache_fill_slot(&m->l2[x], slot, line, done, 0, &victim)) write_back_from_l2(m, victim, start);
  return done;
}

double fsim__memsys_write(fsim__memsys *m, int x, uint64_t line, uint64_t h, double t) {
  m->stats.l2_writes++;
  double start = l2_serve(m, x, h, t);
  double done = start + m->l2_latency;
  uint64_t victim;
  /* A line that evicts a dirty one is written once the victim has gone below (no write-back
   * buffer is modelled), so stores are held to the write-back's bandwidth.  Nothing waited on
   * it until 2026-12-02: a kernel storing 671 MB, past the MALL, ended as its stores reached
   * the L2, with HBM 225% busy (its write-back at 14 TB/s against a peak of 8.2).  A read's
   * write-back takes DRAM time from the reads behind it on its channel, which is how reads
   * feel it. */
  if (fsim__cache_fill_h(&m->l2[x], line, h, done, 1, &victim)) {
    double gone = write_back_from_l2(m, victim, start) + m->l2_latency;
    if (gone > done) {
      done = gone;
      fsim__cache_set_recent_ready_h(&m->l2[x], line, h, done); /* its data is there then, not before */
    }
  }
  return done;
}

double fsim__memsys_atomic(fsim__memsys *m, int x, uint64_t line, uint64_t h, double t, int shared) {
  m->stats.atomics++;
  uint64_t victim;
  if (m->atomics_in_l2) {
    double done = fsim__memsys_read(m, x, line, h, t, shared);
    m->stats.l2_reads--; /* one request, counted as the write it is */
    m->stats.l2_writes++;
    if (fsim__cache_fill_h(&m->l2[x], line, h, done, 1, &victim)) write_back_from_l2(m, victim, t);
    return done;
  }
  m->stats.l2_writes++;
  double start = l2_serve(m, x, h, t);
  if (!m->has_mall) {
    double done = fsim__hbm_read(&m->dram, h, start);
    fsim__hbm_write(&m->dram, h, done);
    return done;
  }
  double ms = fsim__servers_book(&m->mall_slice, mall_slice(m, h), start), ready, done;
  m->stats.mall_busy += m->mall_service;
  size_t mslot;
  if (fsim__cache_probe_h(&m->mall, line, h, &ready, &mslot)) {
    done = ms + m->mall_latency;
    if (ready > done) done = ready;
    fsim__cache_fill_h(&m->mall, line, h, done, 1, &victim); /* there: marks it dirty, evicts nothing */
  } else {
    /* another XCD's slice brought it in first (sampled mode: as fsim__memsys_read) */
    int other = shared > 1 && (h >> 32) % (uint64_t)shared != 0;
    if (other) {
      m->mall.stats.misses--;
      m->mall.stats.hits++;
    }
    done = other ? ms + m->dram.latency : fsim__hbm_read(&m->dram, h, ms);
    if (fsim__cache_fill_slot(&m->mall, mslot, line, done, 1, &victim))
      fsim__hbm_write(&m->dram, fsim__hash_line(victim), ms);
  }
  return done;
}
