/* The calendar event queue: see events.h. */
#include "config.h"

#include "sim/events.h"

#include <stdlib.h>
#include <string.h>

#define MASK (FSIM__EVQ_BUCKETS - 1)

int fsim__evq_init(fsim__evq *q, int n_ids) {
  memset(q, 0, sizeof *q);
  q->n_ids = n_ids;
  q->when = malloc((size_t)n_ids * sizeof *q->when);
  q->next = malloc((size_t)n_ids * sizeof *q->next);
  q->prev = malloc((size_t)n_ids * sizeof *q->prev);
  q->tok = calloc((size_t)n_ids, sizeof *q->tok);
  q->far_cap = 2 * n_ids + 64;
  q->far = malloc((size_t)q->far_cap * sizeof *q->far);
  if (!q->when || !q->next || !q->prev || !q->tok || !q->far) {
    fsim__evq_done(q);
    return -1;
  }
  for (int i = 0; i < n_ids; i++) q->when[i] = -1;
  for (int b = 0; b < FSIM__EVQ_BUCKETS; b++) q->head[b] = q->tail[b] = -1;
  return 0;
}

void fsim__evq_done(fsim__evq *q) {
  free(q->when);
  free(q->next);
  free(q->prev);
  free(q->tok);
  free(q->far);
  memset(q, 0, sizeof *q);
}

static int far_less(const struct fsim__evq_far *a, const struct fsim__evq_far *b) {
  return a->t < b->t || (a->t == b->t && a->seq < b->seq);
}

static void far_sift_up(fsim__evq *q, int i, struct fsim__evq_far x) {
  while (i > 0) {
    int p = (i - 1) / 2;
    if (!far_less(&x, &q->far[p])) break;
    q->far[i] = q->far[p];
    i = p;
  }
  q->far[i] = x;
}

/* The heap never reallocates: it holds at most one live entry per id, and when stale
 * entries fill it, it is rebuilt without them. */
static void far_push(fsim__evq *q, int32_t id, int64_t t) {
  if (q->nfar == q->far_cap) {
    int n = 0;
    for (int i = 0; i < q->nfar; i++) {
      struct fsim__evq_far f = q->far[i];
      if (q->tok[f.id] == f.tok && q->when[f.id] == f.t) far_sift_up(q, n++, f);
    }
    q->nfar = n;
  }
  struct fsim__evq_far x = {t, q->seq++, q->tok[id], id};
  far_sift_up(q, q->nfar++, x);
}

static struct fsim__evq_far far_pop(fsim__evq *q) {
  struct fsim__evq_far top = q->far[0], x = q->far[--q->nfar];
  int i = 0;
  for (;;) {
    int c = 2 * i + 1;
    if (c >= q->nfar) break;
    if (c + 1 < q->nfar && far_less(&q->far[c + 1], &q->far[c])) c++;
    if (!far_less(&q->far[c], &x)) break;
    q->far[i] = q->far[c];
    i = c;
  }
  if (q->nfar > 0) q->far[i] = x;
  return top;
}

static void bucket_append(fsim__evq *q, int32_t id, int64_t t) {
  int b = (int)(t & MASK);
  q->next[id] = -1;
  q->prev[id] = q->tail[b];
  if (q->tail[b] >= 0)
    q->next[q->tail[b]] = id;
  else
    q->head[b] = id;
  q->tail[b] = id;
  q->nonempty[b >> 6] |= 1ULL << (b & 63);
}

static void bucket_unlink(fsim__evq *q, int32_t id, int64_t t) {
  int b = (int)(t & MASK);
  if (q->prev[id] >= 0)
    q->next[q->prev[id]] = q->next[id];
  else
    q->head[b] = q->next[id];
  if (q->next[id] >= 0)
    q->prev[q->next[id]] = q->prev[id];
  else
    q->tail[b] = q->prev[id];
  if (q->head[b] < 0) q->nonempty[b >> 6] &= ~(1ULL << (b & 63));
}

void fsim__evq_push(fsim__evq *q, int32_t id, int64_t t) {
  if (t < q->now) t = q->now;
  int64_t old = q->when[id];
  if (old >= 0) {
    if (old == t) return;
    if (old - q->now < FSIM__EVQ_BUCKETS) {
      bucket_unlink(q, id, old);
    } else {
      /* in the far heap: leave a stale entry; it is skipped when popped */
    }
    q->queued--;
  }
  q->when[id] = t;
  q->tok[id]++;
  q->queued++;
  if (t - q->now < FSIM__EVQ_BUCKETS)
    bucket_append(q, id, t);
  else
    far_push(q, id, t);
}

/* Moves far events that are now within the horizon into buckets. */
static void pull_far(fsim__evq *q) {
  while (q->nfar > 0 && q->far[0].t - q->now < FSIM__EVQ_BUCKETS) {
    struct fsim__evq_far f = far_pop(q);
    if (q->tok[f.id] != f.tok || q->when[f.id] != f.t) continue; /* stale: the id moved */
    bucket_append(q, f.id, f.t);
  }
}

int32_t fsim__evq_pop(fsim__evq *q, int64_t *t) {
  if (q->queued == 0) return -1;
  for (;;) {
    pull_far(q);
    /* next non-empty bucket at or after now, within one lap of the ring */
    int start = (int)(q->now & MASK);
    int w = start >> 6;
    uint64_t bits = q->nonempty[w] & (~0ULL << (start & 63));
    int found = -1;
    for (int k = 0; k <= FSIM__EVQ_BUCKETS / 64; k++) {
      if (bits) {
        found = ((w << 6) | __builtin_ctzll(bits));
        break;
      }
      w = (w + 1) & (FSIM__EVQ_BUCKETS / 64 - 1);
      bits = q->nonempty[w];
    }
    if (found >= 0) {
      int64_t delta = (found - start) & MASK;
      q->now += delta;
      int32_t id = q->head[found];
      bucket_unlink(q, id, q->now);
      q->when[id] = -1;
      q->queued--;
      *t = q->now;
      return id;
    }
    /* nothing within the horizon: jump to the earliest far event */
    while (q->nfar > 0 && (q->tok[q->far[0].id] != q->far[0].tok || q->when[q->far[0].id] != q->far[0].t))
      far_pop(q);
    if (q->nfar == 0) return -1;
    q->now = q->far[0].t;
  }
}
