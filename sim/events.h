/* The simulator's event queue: a calendar queue of SIMD wake-ups keyed by cycle.
 *
 * Every event is "SIMD s has a wave that may issue at cycle t".  Times within the horizon
 * (FSIM__EVQ_BUCKETS cycles ahead of now) go to a ring of per-cycle buckets with a bitmap of
 * the non-empty ones, so push and pop cost O(1) in the common case; later times wait in an
 * overflow heap.  Within one cycle events pop in the order they were pushed, which makes the
 * whole simulation deterministic.  A SIMD is queued at most once: pushing it again moves it. */
#ifndef FSIM_EVENTS_H
#define FSIM_EVENTS_H

#include <stdint.h>

#define FSIM__EVQ_BUCKETS 4096 /* power of two */

typedef struct fsim__evq {
  int64_t now;         /* time of the last pop; pushes must not be earlier */
  int n_ids;
  int64_t *when;       /* per id: queued time, or -1 */
  int32_t *next;       /* per id: next in its bucket list */
  int32_t *prev;
  int64_t *tok;        /* per id: push counter; a far entry is live only if its tok matches */
  int32_t head[FSIM__EVQ_BUCKETS], tail[FSIM__EVQ_BUCKETS];
  uint64_t nonempty[FSIM__EVQ_BUCKETS / 64];
  /* overflow: binary heap of (time, seq, id) */
  struct fsim__evq_far {
    int64_t t;
    int64_t seq;
    int64_t tok;
    int32_t id;
  } *far;
  int nfar, far_cap;
  int64_t seq;
  int64_t queued;      /* events in the queue */
} fsim__evq;

int fsim__evq_init(fsim__evq *q, int n_ids);
void fsim__evq_done(fsim__evq *q);
/* Queues id at time t (>= now); if id is already queued, it moves to t. */
void fsim__evq_push(fsim__evq *q, int32_t id, int64_t t);
/* Pops the earliest event; returns the id and sets *t, or -1 when empty. */
int32_t fsim__evq_pop(fsim__evq *q, int64_t *t);
/* The time id is queued at, or -1. */
static inline int64_t fsim__evq_when(const fsim__evq *q, int32_t id) { return q->when[id]; }

#endif
