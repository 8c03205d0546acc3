/* Set-associative LRU tag cache with recency-ordered sets: see cache.h. */
#include "config.h"

#include "sim/cache.h"

#include <stdlib.h>
#include <string.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

#define DIRTY 0x80000000u
#define SLOT_SHIFT 11 /* a probe's slot: set << SLOT_SHIFT | way (the arch allows up to 1024 ways) */

int fsim__cache_create(fsim__cache *c, int64_t bytes, int line, int ways) {
  memset(c, 0, sizeof *c);
  int shift = 0;
  while ((1 << shift) < line) shift++;
  c->line_shift = shift;
  c->ways = ways;
  c->sets = bytes / ((int64_t)line * ways);
  if (c->sets < 1) c->sets = 1;
  c->set_mask = (c->sets & (c->sets - 1)) == 0 ? c->sets - 1 : -1;
  c->way = calloc((size_t)(c->sets * ways), sizeof *c->way);
  return c->way ? 0 : -1;
}

void fsim__cache_free(fsim__cache *c) {
  free(c->way);
  memset(c, 0, sizeof *c);
}

void fsim__cache_reset(fsim__cache *c) {
  memset(c->way, 0, (size_t)(c->sets * c->ways) * sizeof *c->way);
  memset(&c->stats, 0, sizeof c->stats);
}

/* Sets are picked by a hash of the line address, so that strided footprints spread over all
 * sets as the hardware's XOR hashing intends. */
static inline size_t set_of(const fsim__cache *c, uint64_t line) { return fsim__cache_set(c, fsim__hash_line(line)); }

static inline uint32_t to_cycle(double t) {
  if (t <= 0) return 0;
  if (t >= 2147483647.0) return 0x7fffffffu;
  uint32_t c = (uint32_t)t;
  return (double)c < t ? c + 1 : c;
}

/* The first way of a set holding key or empty (tag 0), or `ways` if none: where a probe stops
 * and where a fill goes.  Ways fill from the front and are never emptied, so the ways after
 * the first empty one are empty too.  With SSE2 (every x86-64) four ways are compared at once;
 * the ready words, interleaved with the tags, are masked out. */
static inline int first_key_or_empty(const fsim__cache_way *w, int ways, uint32_t key) {
  int i = 0;
#ifdef __SSE2__
  const __m128i k = _mm_set1_epi32((int)key), z = _mm_setzero_si128();
  for (; i + 4 <= ways; i += 4) {
    __m128i a = _mm_loadu_si128((const __m128i *)(const void *)&w[i]);
    __m128i b = _mm_loadu_si128((const __m128i *)(const void *)&w[i + 2]);
    __m128i ma = _mm_or_si128(_mm_cmpeq_epi32(a, k), _mm_cmpeq_epi32(a, z));
    __m128i mb = _mm_or_si128(_mm_cmpeq_epi32(b, k), _mm_cmpeq_epi32(b, z));
    int bits = (_mm_movemask_ps(_mm_castsi128_ps(ma)) | (_mm_movemask_ps(_mm_castsi128_ps(mb)) << 4)) & 0x55;
    if (bits) return i + (__builtin_ctz((unsigned)bits) >> 1);
  }
#endif
  for (; i < ways; i++)
    if (w[i].tag == key || w[i].tag == 0) break;
  return i;
}

/* w[1..n] := w[0..n-1] (the ways before a hit or a fill move back one place). */
static inline void shift_back(fsim__cache_way *w, int n) {
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

void fsim__cache_prefetch(const fsim__cache *c, uint64_t line) { fsim__cache_prefetch_h(c, fsim__hash_line(line)); }

int fsim__cache_probe_h(fsim__cache *c, uint64_t line, uint64_t h, double *ready, size_t *slot) {
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

/* Puts line at way `last` of the set starting at w (refreshing it in place when it is there,
 * else replacing what was there) and moves it to the front. */
static int fill_at(fsim__cache *c, fsim__cache_way *w, int last, uint64_t line, double ready, int dirty,
                   uint64_t *victim) {
  uint32_t key = (uint32_t)line + 1;
  int evicted_dirty = 0;
  fsim__cache_way old = w[last];
  if (old.tag != 0 && old.tag != key) {
    c->stats.evictions++;
    if (old.ready & DIRTY) {
      c->stats.dirty_evictions++;
      evicted_dirty = 1;
      /* the victim's high address bits are not kept: rebuild them from the filled line's */
      if (victim) *victim = (line & ~(uint64_t)UINT32_MAX) | (uint64_t)(old.tag - 1);
    }
  }
  uint32_t r = to_cycle(ready);
  if (old.tag == key) {
    uint32_t was = old.ready & ~DIRTY;
    if (was < r) r = was;
    dirty |= (old.ready & DIRTY) != 0;
  }
  shift_back(w, last);
  w[0].tag = key;
  w[0].ready = r | (dirty ? DIRTY : 0);
  return evicted_dirty;
}

int fsim__cache_fill_slot(fsim__cache *c, size_t slot, uint64_t line, double ready, int dirty, uint64_t *victim) {
  return fill_at(c, &c->way[(slot >> SLOT_SHIFT) * (size_t)c->ways], (int)(slot & ((1u << SLOT_SHIFT) - 1)), line, ready,
                 dirty, victim);
}

int fsim__cache_fill_h(fsim__cache *c, uint64_t line, uint64_t h, double ready, int dirty, uint64_t *victim) {
  fsim__cache_way *w = &c->way[fsim__cache_set(c, h) * (size_t)c->ways];
  int i = first_key_or_empty(w, c->ways, (uint32_t)line + 1); /* refresh in place, or the first empty way */
  return fill_at(c, w, i < c->ways ? i : c->ways - 1, line, ready, dirty, victim);
}

int fsim__cache_fill(fsim__cache *c, uint64_t line, double ready, int dirty, uint64_t *victim) {
  return fsim__cache_fill_h(c, line, fsim__hash_line(line), ready, dirty, victim);
}
