/* Set-associative LRU tag cache with recency-ordered sets: see cache.h. */
#include "config.h"

#include "sim/cache.h"

#include <stdlib.h>
#include <string.h>

#define DIRTY 0x80000000u

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
static inline size_t set_of(const fsim__cache *c, uint64_t line) {
  uint64_t h = fsim__hash_line(line);
  return c->set_mask >= 0 ? (size_t)(h & (uint64_t)c->set_mask) : (size_t)(h % (uint64_t)c->sets);
}

static inline uint32_t to_cycle(double t) {
  if (t <= 0) return 0;
  if (t >= 2147483647.0) return 0x7fffffffu;
  uint32_t c = (uint32_t)t;
  return (double)c < t ? c + 1 : c;
}

void fsim__cache_prefetch(const fsim__cache *c, uint64_t line) {
  const fsim__cache_way *w = &c->way[set_of(c, line) * (size_t)c->ways];
  __builtin_prefetch(w);
  __builtin_prefetch((const char *)w + 64);
}

int fsim__cache_probe(fsim__cache *c, uint64_t line, double *ready, size_t *set) {
  size_t s = set_of(c, line);
  fsim__cache_way *w = &c->way[s * (size_t)c->ways];
  uint32_t key = (uint32_t)line + 1;
  for (int i = 0; i < c->ways; i++) {
    if (w[i].tag == key) {
      fsim__cache_way hit = w[i];
      memmove(&w[1], &w[0], (size_t)i * sizeof *w); /* to the front: most recent */
      w[0] = hit;
      *ready = hit.ready & ~DIRTY;
      c->stats.hits++;
      return 1;
    }
    if (w[i].tag == 0) break; /* ways fill from the front: the rest are empty */
  }
  *set = s;
  c->stats.misses++;
  return 0;
}

int fsim__cache_lookup(fsim__cache *c, uint64_t line, double *ready) {
  size_t s;
  return fsim__cache_probe(c, line, ready, &s);
}

int fsim__cache_fill_set(fsim__cache *c, size_t s, uint64_t line, double ready, int dirty, uint64_t *victim) {
  fsim__cache_way *w = &c->way[s * (size_t)c->ways];
  uint32_t key = (uint32_t)line + 1;
  int last = c->ways - 1, evicted_dirty = 0;
  for (int i = 0; i < c->ways; i++)
    if (w[i].tag == key || w[i].tag == 0) {
      last = i; /* refresh in place, or take the first empty way */
      break;
    }
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
  memmove(&w[1], &w[0], (size_t)last * sizeof *w);
  w[0].tag = key;
  w[0].ready = r | (dirty ? DIRTY : 0);
  return evicted_dirty;
}

int fsim__cache_fill(fsim__cache *c, uint64_t line, double ready, int dirty, uint64_t *victim) {
  return fsim__cache_fill_set(c, set_of(c, line), line, ready, dirty, victim);
}
