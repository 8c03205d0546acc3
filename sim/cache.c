/* Set-associative LRU tag cache: see cache.h. */
#include "config.h"

#include "sim/cache.h"

#include <stdlib.h>
#include <string.h>

int fsim__cache_create(fsim__cache *c, int64_t bytes, int line, int ways) {
  memset(c, 0, sizeof *c);
  int shift = 0;
  while ((1 << shift) < line) shift++;
  c->line_shift = shift;
  c->ways = ways;
  c->sets = bytes / ((int64_t)line * ways);
  if (c->sets < 1) c->sets = 1;
  size_t n = (size_t)(c->sets * ways);
  c->tag = calloc(n, sizeof *c->tag);
  c->meta = calloc(n, sizeof *c->meta);
  c->dirty = calloc(n, sizeof *c->dirty);
  if (!c->tag || !c->meta || !c->dirty) {
    fsim__cache_free(c);
    return -1;
  }
  return 0;
}

void fsim__cache_free(fsim__cache *c) {
  free(c->tag);
  free(c->meta);
  free(c->dirty);
  memset(c, 0, sizeof *c);
}

void fsim__cache_reset(fsim__cache *c) {
  size_t n = (size_t)(c->sets * c->ways);
  memset(c->tag, 0, n * sizeof *c->tag);
  memset(c->dirty, 0, n * sizeof *c->dirty);
  memset(&c->stats, 0, sizeof c->stats);
  c->clock = 0;
}

/* Sets are picked by a multiplicative hash of the line address, so that strided footprints
 * spread over all sets as the hardware's XOR hashing intends. */
static inline int64_t set_of(const fsim__cache *c, uint64_t line) {
  return (int64_t)(fsim__hash_line(line) % (uint64_t)c->sets);
}

static inline uint32_t to_cycle(double t) {
  if (t <= 0) return 0;
  if (t >= 4294967295.0) return UINT32_MAX;
  uint32_t c = (uint32_t)t;
  return (double)c < t ? c + 1 : c;
}

int fsim__cache_lookup(fsim__cache *c, uint64_t line, double *ready) {
  size_t base = (size_t)(set_of(c, line) * c->ways);
  uint32_t key = (uint32_t)line + 1;
  const uint32_t *tag = &c->tag[base];
  for (int w = 0; w < c->ways; w++)
    if (tag[w] == key) {
      c->meta[base + w].stamp = ++c->clock;
      *ready = c->meta[base + w].ready;
      c->stats.hits++;
      return 1;
    }
  c->stats.misses++;
  return 0;
}

int fsim__cache_fill(fsim__cache *c, uint64_t line, double ready, int dirty, uint64_t *victim) {
  size_t base = (size_t)(set_of(c, line) * c->ways);
  uint32_t key = (uint32_t)line + 1, r = to_cycle(ready);
  size_t lru = base;
  for (int w = 0; w < c->ways; w++) {
    size_t i = base + w;
    if (c->tag[i] == key) {
      c->meta[i].stamp = ++c->clock;
      if (r < c->meta[i].ready) c->meta[i].ready = r;
      c->dirty[i] |= (uint8_t)dirty;
      return 0;
    }
    if (c->tag[i] == 0) {
      lru = i;
      break;
    }
    if (c->meta[i].stamp < c->meta[lru].stamp) lru = i;
  }
  int evicted_dirty = 0;
  if (c->tag[lru] != 0) {
    c->stats.evictions++;
    if (c->dirty[lru]) {
      c->stats.dirty_evictions++;
      evicted_dirty = 1;
      /* the victim's high address bits are not kept: rebuild them from the filled line's */
      if (victim) *victim = (line & ~(uint64_t)UINT32_MAX) | (uint64_t)(c->tag[lru] - 1);
    }
  }
  c->tag[lru] = key;
  c->meta[lru].ready = r;
  c->meta[lru].stamp = ++c->clock;
  c->dirty[lru] = (uint8_t)dirty;
  return evicted_dirty;
}
