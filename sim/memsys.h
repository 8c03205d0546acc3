/* The memory system below the CUs: an L2 per XCD (banked into channels, each a FIFO server),
 * the device-wide Infinity Cache (MALL, sliced like the DRAM channels it fronts) and DRAM;
 * the MALL slices and DRAM channels, which every XCD's requests reach out of time order, are
 * calendar servers (server.h).
 * A request enters at the L2 of its CU's XCD; misses go to the MALL and then DRAM, and the
 * line is filled on the way back with the time its data arrives.  Writes allocate in the L2
 * (write-back); dirty lines evicted from the L2 go to the MALL, and from the MALL to DRAM.
 *
 * Latencies in the arch file are totals from issue, so a level's latency is added to the
 * time the request starts service there (which already includes queueing above it). */
#ifndef FSIM_MEMSYS_H
#define FSIM_MEMSYS_H

#include <stdint.h>

#include "model/arch.h"
#include "sim/cache.h"
#include "sim/hbm.h"
#include "sim/server.h"

typedef struct fsim__memsys {
  int xcds;
  int line_shift;
  fsim__cache *l2;        /* per XCD */
  double *l2_free;        /* per XCD x channel */
  int l2_channels;
  double l2_service;      /* cycles per line per channel */
  double l2_latency;
  int has_mall;
  fsim__cache mall;
  fsim__servers mall_slice; /* per slice */
  int mall_slices;
  double mall_service;
  double mall_latency;
  fsim__hbm dram;
  int atomics_in_l2;      /* arch memory.atomics_in_l2 */
  struct {
    int64_t l2_reads, l2_writes, mall_reads;
    int64_t atomics;      /* atomic line requests (counted in l2_writes too: they pass the L2 as writes) */
    double l2_busy, mall_busy;
  } stats;
} fsim__memsys;

/* share: 1 for the whole device; 1/xcds when one XCD stands for all (sampled mode), which
 * scales the shared MALL and DRAM to that XCD's part. */
int fsim__memsys_create(fsim__memsys *m, const fsim_arch *a, int xcds, double share);
void fsim__memsys_free(fsim__memsys *m);
/* Starts fetching the host memory that a read from XCD x of a line with hash h
 * (fsim__hash_line) will touch: its L2 set and its MALL set (which a miss in the L2 reads; the
 * MALL's tags are too large for the host's caches, so this hides most of a probe's cost). */
static inline void fsim__memsys_prefetch(const fsim__memsys *m, int x, uint64_t h) {
  fsim__cache_prefetch_h(&m->l2[x], h);
  if (m->has_mall) fsim__cache_prefetch_h(&m->mall, h);
}
/* A line read from XCD x arriving at the L2 at t; h is the line's fsim__hash_line.  Returns
 * when the data reaches the CU.  shared: the XCDs of the real device that read the line (1
 * in a full run; the sampled run of XCD 0 alone passes more for lines other XCDs read too:
 * a MALL miss then goes to DRAM for one XCD in `shared`, chosen by the line's hash, and the
 * others find the line that XCD brought in, as they would in the full run). */
double fsim__memsys_read(fsim__memsys *m, int x, uint64_t line, uint64_t h, double t, int shared);
/* A line write from XCD x at t; returns when the L2 acknowledges it. */
double fsim__memsys_write(fsim__memsys *m, int x, uint64_t line, uint64_t h, double t);
/* An atomic read-modify-write on a line from XCD x at t; returns when it is performed (and
 * the old value of one that returns it is back).  Where the part performs atomics in the L2
 * (atomics_in_l2), the L2 needs the line: a miss reads it as a load would, and the line is
 * then dirty there.  Otherwise (MI300, MI350: every atomic is forwarded to the Infinity
 * Fabric) it passes its L2 channel without a lookup and the MALL slice fronting its DRAM
 * channel performs it, reading the line from DRAM where it misses and keeping it dirty (DRAM
 * itself without a MALL).  Which unit of the fabric performs it is not published; the MALL is
 * flysim's estimate.  shared: as fsim__memsys_read's (split-K's slices on other XCDs update
 * the same lines). */
double fsim__memsys_atomic(fsim__memsys *m, int x, uint64_t line, uint64_t h, double t, int shared);

#endif
