/* Set-associative LRU tag cache: see cache.h.
 *
 * The model is a list of ways per set in recency order (most recent first; lines fill the
 * first empty way, a hit or a fill moves its way to the front, the last way is the victim).
 * Each set is stored as a ring over its ways with a head index (the most recent way), so that
 * a fill, the common case in streaming kernels, writes one way instead of moving all of them:
 * the way before the head is the empty one a fill takes, or the least recent, which it evicts.
 * A hit moves the ways between the head and itself, or those after it, whichever are fewer.
 * Probes compare the tags of all ways at once with SSE2 (every x86-64).
 *
 * Lines are kept modulo 2^32 as tag = line + 1, 0 marking an empty way, so a line congruent to
 * 2^32 - 1 would look empty: the simulator keeps global addresses to lines 0 to 2^32 - 2
 * (sim/internal.h, fsim__gpu.global_limit).  Until 2026-12-02 it took addresses to 2^39 - 1
 * and a cache that met that line turned into the plain list, whose probe then took an empty
 * way for the line: a cold read of it hit. */
#include "config.h"

#include "sim/cache.h"
#include "sim/hugemem.h"

#include <stdlib.h>
#include <string.h>

#define DIRTY FSIM__CACHE_DIRTY
#define SLOT_SHIFT FSIM__CACHE_SLOT_SHIFT

int fsim__cache_create(fsim__cache *c, int64_t bytes, int line, int ways) {
  memset(c, 0, sizeof *c);
  int shift = 0;
  while ((1 << shift) < line) shift++;
  c->line_shift = shift;
  c->ways = ways;
  c->sets = bytes / ((int64_t)line * ways);
  if (c->sets < 1) c->sets = 1;
  c->set_mask = (c->sets & (c->sets - 1)) == 0 ? c->sets - 1 : -1;
  c->way = fsim__huge_calloc((size_t)(c->sets * ways) * sizeof *c->way); /* the MALL's are 16 MiB */
  c->head = calloc((size_t)c->sets, sizeof *c->head);
  c->list = ways > 32; /* the ring compares at most 32 ways at once */
  return c->way && c->head ? 0 : -1;
}

void fsim__cache_free(fsim__cache *c) {
  free(c->way);
  free(c->head);
  memset(c, 0, sizeof *c);
}

void fsim__cache_reset(fsim__cache *c) {
  memset(c->way, 0, (size_t)(c->sets * c->ways) * sizeof *c->way);
  memset(c->head, 0, (size_t)c->sets * sizeof *c->head);
  c->list = c->ways > 32;
  memset(&c->stats, 0, sizeof c->stats);
}

/* ---- the plain list (sets of more than 32 ways) ------------------------------------------ */

/* The first way holding key or empty (tag 0), or `ways` if none: where the list's probe stops
 * and where its fill goes. */
static inline int first_key_or_empty(const fsim__cache_way *w, int ways, uint32_t key) {
  int i = 0;
  for (; i < ways; i++)
    if (w[i].tag == key || w[i].tag == 0) break;
  return i;
}

/* w[1..n] := w[0..n-1] */
static inline void shift_back(fsim__cache_way *w, int n) { memmove(&w[1], &w[0], (size_t)n * sizeof *w); }

/* ---- entries ------------------------------------------------------------------------------- */

/* w[1..n] := w[0..n-1] */
static inline void move_up(fsim__cache_way *w, int n) {
#ifdef __SSE2__
  while (n >= 2) {
    n -= 2;
    _mm_storeu_si128((__m128i *)(void *)&w[n + 1], _mm_loadu_si128((const __m128i *)(const void *)&w[n]));
  }
  if (n == 1) w[1] = w[0];
#else
  memmove(&w[1], &w[0], (size_t)n * sizeof *w);
#endif
}

/* w[0..n-1] := w[1..n] */
static inline void move_down(fsim__cache_way *w, int n) {
#ifdef __SSE2__
  int i = 0;
  for (; i + 2 <= n; i += 2)
    _mm_storeu_si128((__m128i *)(void *)&w[i], _mm_loadu_si128((const __m128i *)(const void *)&w[i + 1]));
  if (i < n) w[i] = w[i + 1];
#else
  memmove(&w[0], &w[1], (size_t)n * sizeof *w);
#endif
}

/* Ring: moves way j (holding e), p places after the head h, to the front of set s. */
void fsim__cache_ring_to_front(fsim__cache *c, size_t s, fsim__cache_way *w, int j, int p, fsim__cache_way e) {
  const int ways = c->ways;
  int h = c->head[s];
  /* Either the p ways before it move back one place, or the valid ways after it move forward
   * one place (and it goes before the head); the second only when they are fewer. */
  int after = p;
  if (p > (ways - 1) / 2) {
    int n = ways - fsim__popcount32(fsim__cache_match(w, ways, 0)); /* empty ways have tag 0, valid ones never */
    after = n - 1 - p;
  }
  int hm1 = h == 0 ? ways - 1 : h - 1; /* the way before the head: empty, or the least recent */
  if (p <= after) {
    /* ways head..j-1 move back one place (in two runs when they wrap around) */
    if (j > h) {
      move_up(&w[h], p);
    } else {
      move_up(&w[0], j);
      w[0] = w[ways - 1];
      move_up(&w[h], ways - 1 - h);
    }
    w[h] = e;
  } else {
    /* the ways after it move forward one place, the last place they leave is emptied (when
     * the set is full that is the way before the head), and it goes before the head */
    int last = j + after; /* where the last of them is, unwrapped */
    if (last < ways) {
      move_down(&w[j], after);
    } else {
      move_down(&w[j], ways - 1 - j);
      w[ways - 1] = w[0];
      move_down(&w[0], last - ways);
    }
    int k = last < ways ? last : last - ways;
    w[k].tag = 0;
    w[k].ready = 0;
    w[hm1] = e;
    c->head[s] = (uint8_t)hm1;
  }
}

int fsim__cache_probe_list(fsim__cache *c, uint64_t line, uint64_t h, double *ready, size_t *slot) {
  size_t s = fsim__cache_set(c, h);
  fsim__cache_way *w = &c->way[s * (size_t)c->ways];
  uint32_t key = (uint32_t)line + 1;
  int i = first_key_or_empty(w, c->ways, key);
  if (i < c->ways && w[i].tag == key) {
    fsim__cache_way hit = w[i];
    shift_back(w, i); /* to the front: most recent */
    w[0] = hit;
    *ready = hit.ready & ~DIRTY;
    c->stats.hits++;
    return 1;
  }
  *slot = s << SLOT_SHIFT | (size_t)(i < c->ways ? i : c->ways - 1);
  c->stats.misses++;
  return 0;
}

int fsim__cache_lookup(fsim__cache *c, uint64_t line, double *ready) {
  size_t slot;
  return fsim__cache_probe_h(c, line, fsim__hash_line(line), ready, &slot);
}

/* List: puts line at way `last` of the set (refreshing it in place when it is there, else
 * replacing what was there) and moves it to the front. */
static int list_fill_at(fsim__cache *c, fsim__cache_way *w, int last, uint64_t line, double ready, int dirty,
                        uint64_t *victim) {
  int evicted_dirty;
  fsim__cache_way nw = fsim__cache_replace(c, w[last], line, ready, dirty, victim, &evicted_dirty);
  shift_back(w, last);
  w[0] = nw;
  return evicted_dirty;
}

int fsim__cache_fill_list(fsim__cache *c, size_t slot, uint64_t line, double ready, int dirty, uint64_t *victim) {
  return list_fill_at(c, &c->way[(slot >> SLOT_SHIFT) * (size_t)c->ways], (int)(slot & ((1u << SLOT_SHIFT) - 1)), line,
                      ready, dirty, victim);
}

int fsim__cache_fill_h_list(fsim__cache *c, uint64_t line, uint64_t h, double ready, int dirty, uint64_t *victim) {
  size_t s = fsim__cache_set(c, h);
  fsim__cache_way *w = &c->way[s * (size_t)c->ways];
  int i = first_key_or_empty(w, c->ways, (uint32_t)line + 1); /* refresh in place, or the first empty way */
  return list_fill_at(c, w, i < c->ways ? i : c->ways - 1, line, ready, dirty, victim);
}

int fsim__cache_fill(fsim__cache *c, uint64_t line, double ready, int dirty, uint64_t *victim) {
  return fsim__cache_fill_h(c, line, fsim__hash_line(line), ready, dirty, victim);
}

void fsim__cache_prefetch(const fsim__cache *c, uint64_t line) { fsim__cache_prefetch_h(c, fsim__hash_line(line)); }
