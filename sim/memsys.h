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
  double *l2_free;        /* per XCD (l2_stride apart, whole host cache lines) x channel */
  int l2_stride;
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
  /* per XCD, counted by the private pass (below) */
  struct fsim__l2_stats {
    _Alignas(64) int64_t l2_reads, l2_writes; /* a host cache line per XCD, as l2_free's */
    int64_t atomics;      /* atomic line requests (counted in l2_writes too: they pass the L2 as writes) */
    int64_t l2_serves;    /* lines its channels served, l2_service cycles each */
  } *xstats;
  struct {
    int64_t mall_reads;
    double mall_busy;
  } stats;
  struct fsim__mpass *now; /* the pass of the answers at issue (fsim__memsys_at_once, fsim__vmem_load) */
} fsim__memsys;

/* share: 1 for the whole device; 1/xcds when one XCD stands for all (sampled mode), which
 * scales the shared MALL and DRAM to that XCD's part. */
int fsim__memsys_create(fsim__memsys *m, const fsim_arch *a, int xcds, double share);
void fsim__memsys_free(fsim__memsys *m);

/* ---- two passes ------------------------------------------------------------------------------
 * A batch of requests from one XCD goes through the memory system in two passes.  The private
 * pass (fsim__vmem_load_p and co.) runs the L1s, the XCD's L2 channels and its L2's tags; what
 * reaches the MALL or DRAM (a read that misses the L2, a write-back, an atomic) it queues as a
 * shared request, in order.  The shared pass (fsim__memsys_shared) runs those through the
 * MALL and DRAM, and it alone touches them, so that batches of different XCDs can take their
 * private passes on different host threads while the shared passes keep one order.  No
 * decision of the private pass depends on a time from the shared pass (hits, misses, victims
 * and the channels' queues follow the requests' order and issue times), so a time that does
 * is a symbol: "the latest of a known time, another symbol's and a shared request's result
 * plus an offset, rounded up to a cycle".  Rounding up loses nothing: every such time ends up
 * rounded up, in a cache way or as an op's completion, and rounding up the latest of times
 * gives the latest of the times rounded up.  A cache way that holds a symbol's time holds
 * FSIM__SYM_REF plus the symbol's index (times never get that far: sim/internal.h stops runs at
 * 2^31 - 2^24), and fsim__memsys_resolve writes the times in once the shared pass is done.  The
 * results are those of answering each request in one go, which fsim__memsys_at_once does
 * (with a pass of the memory system's own, for answers at issue). */
#define FSIM__SYM_REF 0x7fc00000u
#define FSIM__SYM_MAX 0x3ffff0 /* symbols a pass may hold */

/* A line's time: max(t, the time of symbol s), rounded up; s = -1: t alone. */
typedef struct fsim__stime {
  double t;
  int32_t s;
} fsim__stime;

/* An access's time: max(t, the times of the symbols at list[first], ... list[first + n - 1]),
 * rounded up. */
typedef struct fsim__atime {
  double t;
  int32_t first, n;
} fsim__atime;

typedef struct fsim__msym {
  double t;                /* the known part (the time, once resolved) */
  double off;              /* added to the request's result */
  int32_t a, req;          /* a symbol, a shared request; -1: none */
} fsim__msym;

enum { FSIM__MREQ_READ, FSIM__MREQ_WB, FSIM__MREQ_ATOMIC };
typedef struct fsim__mreq {
  uint64_t line, h;        /* the line and its fsim__hash_line */
  double t;                /* arrival (the L2 channel's start) */
  double result;           /* the shared pass's answer */
  int32_t kind, shared;
} fsim__mreq;

typedef struct fsim__mfix {
  fsim__cache_way *set;    /* the ways of a cache set where the way for line holds symbol sym's reference */
  int32_t ways;
  uint32_t key;            /* line's tag there */
  int32_t sym;
} fsim__mfix;

typedef struct fsim__mpass {
  fsim__msym *sym;
  fsim__mreq *req;
  fsim__mfix *fix;
  int32_t *list;           /* the symbols of accesses' times (fsim__atime) */
  int nsym, sym_cap, nreq, req_cap, nfix, fix_cap, nlist, list_cap;
  int full;                /* 1: a list could not grow (host memory, or FSIM__SYM_MAX symbols) */
} fsim__mpass;

/* An empty pass is all zeros; fsim__mpass_free releases one. */
void fsim__mpass_free(fsim__mpass *p);
/* The shared pass of p's requests, in order. */
void fsim__memsys_shared(fsim__memsys *m, fsim__mpass *p);
/* After the shared pass: every symbol's time, written into the cache ways that hold it; the
 * times stay readable (fsim__mpass_time) until fsim__mpass_clear. */
void fsim__memsys_resolve(fsim__mpass *p);
/* An access's time, resolved: the cycle it completes at. */
int64_t fsim__mpass_time(const fsim__mpass *p, fsim__atime x);
static inline void fsim__mpass_clear(fsim__mpass *p) { p->nsym = p->nreq = p->nfix = p->nlist = 0; }
/* Both passes and the resolution of the requests just made into m's own pass: x's time. */
int64_t fsim__memsys_at_once(fsim__memsys *m, fsim__atime x);
/* The private passes of the requests of a line; their times are those of the request
 * answered in one go (the passes run), rounded up to a cycle.
 * A line read from XCD x arriving at the L2 at t; h is the line's fsim__hash_line: when the
 * data reaches the CU.  shared: the XCDs of the real device that read the line (1 in a full
 * run; the sampled run of XCD 0 alone passes more for lines other XCDs read too: a MALL miss
 * then goes to DRAM for one XCD in `shared`, chosen by the line's hash, and the others find
 * the line that XCD brought in, as they would in the full run). */
fsim__stime fsim__memsys_read_p(fsim__memsys *m, fsim__mpass *p, int x, uint64_t line, uint64_t h, double t,
                                int shared);
/* A line write from XCD x at t: when the L2 acknowledges it. */
fsim__stime fsim__memsys_write_p(fsim__memsys *m, fsim__mpass *p, int x, uint64_t line, uint64_t h, double t);
/* An atomic read-modify-write on a line from XCD x at t: when it is performed (and the old
 * value of one that returns it is back).  Where the part performs atomics in the L2
 * (atomics_in_l2), the L2 needs the line: a miss reads it as a load would, and the line is
 * then dirty there.  Otherwise (MI300, MI350: every atomic is forwarded to the Infinity
 * Fabric) it passes its L2 channel without a lookup and the MALL slice fronting its DRAM
 * channel performs it, reading the line from DRAM where it misses and keeping it dirty (DRAM
 * itself without a MALL).  Which unit of the fabric performs it is not published; the MALL is
 * flysim's estimate.  shared: as a read's (split-K's slices on other XCDs update the same
 * lines). */
fsim__stime fsim__memsys_atomic_p(fsim__memsys *m, fsim__mpass *p, int x, uint64_t line, uint64_t h, double t,
                                  int shared);
/* A line write answered in one go, through m's own pass: the cycle of fsim__memsys_write_p's
 * time. */
double fsim__memsys_write(fsim__memsys *m, int x, uint64_t line, uint64_t h, double t);
/* Adds line time y to access time *x. */
void fsim__mpass_add_sym(fsim__mpass *p, fsim__atime *x, int32_t s);
static inline void fsim__mpass_add(fsim__mpass *p, fsim__atime *x, fsim__stime y) {
  if (y.t > x->t) x->t = y.t;
  if (y.s >= 0) fsim__mpass_add_sym(p, x, y.s);
}
/* What a cache keeps for a fill of a line with hash h at time x: the time, or a reference to
 * a symbol (recorded for fsim__memsys_resolve, which finds line's way in its set of c). */
double fsim__mpass_keep_sym(fsim__mpass *p, fsim__cache *c, uint64_t line, uint64_t h, fsim__stime x);
static inline double fsim__mpass_keep(fsim__mpass *p, fsim__cache *c, uint64_t line, uint64_t h, fsim__stime x) {
  return x.s < 0 ? x.t : fsim__mpass_keep_sym(p, c, line, h, x);
}
/* A hit at t + latency on a way that keeps `ready` (a cycle or a reference). */
static inline fsim__stime fsim__mpass_hit(double t, double ready) {
  if (ready >= (double)FSIM__SYM_REF) return (fsim__stime){t, (int32_t)(ready - (double)FSIM__SYM_REF)};
  return (fsim__stime){ready > t ? ready : t, -1};
}

/* The L2 lines served and written of all XCDs. */
int64_t fsim__memsys_l2_serves(const fsim__memsys *m);
int64_t fsim__memsys_l2_writes(const fsim__memsys *m);
void fsim__memsys_reset_stats(fsim__memsys *m);
#endif
