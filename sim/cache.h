/* A set-associative cache of line tags with LRU replacement, used for the vector L1 of each
 * CU, the L2 of each XCD and the Infinity Cache.  It holds no data, only which lines are
 * present, when each line's data arrives (a line still in flight is "present" but a hit on
 * it completes when the fill does: the miss-merging that MSHRs do), and whether it is dirty.
 * Lookups cost one pass over the ways of one set; nothing allocates after create. */
#ifndef FSIM_CACHE_H
#define FSIM_CACHE_H

#include <stdint.h>

/* Host-memory layout matters here: a lookup reads one set's tags, which are 32-bit and
 * contiguous (a 16-way set is one 64-byte host line), and touches the per-way metadata only
 * on a hit.  Line addresses are kept modulo 2^32 (addresses below 512 GiB are exact). */
typedef struct fsim__cache_meta {
  uint32_t ready;      /* cycle the line's data is there */
  uint32_t stamp;      /* last use, for LRU */
} fsim__cache_meta;

typedef struct fsim__cache {
  int64_t sets;        /* power of two is not required */
  int ways;
  int line_shift;      /* log2(line bytes) */
  uint32_t *tag;       /* sets * ways; (line mod 2^32) + 1, 0 = empty */
  fsim__cache_meta *meta;
  uint8_t *dirty;
  uint32_t clock;
  struct {
    int64_t hits, misses, evictions, dirty_evictions;
  } stats;
} fsim__cache;

/* Mixes a line address into well-spread bits (the splitmix64 finalizer); sets, channels and
 * slices all use it, each with its own modulus. */
static inline uint64_t fsim__hash_line(uint64_t line) {
  uint64_t z = line + 0x9E3779B97F4A7C15ULL;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

/* bytes / (line * ways) sets; returns -1 on allocation failure. */
int fsim__cache_create(fsim__cache *c, int64_t bytes, int line, int ways);
void fsim__cache_free(fsim__cache *c);
void fsim__cache_reset(fsim__cache *c);

/* Looks up a line (address >> line_shift).  On a hit returns 1 and sets *ready; on a miss
 * returns 0.  Either way the line becomes most recently used when present. */
int fsim__cache_lookup(fsim__cache *c, uint64_t line, double *ready);
/* Inserts (or refreshes) a line with its arrival time.  If a dirty line is evicted, returns 1
 * and sets *victim to its line address; else 0. */
int fsim__cache_fill(fsim__cache *c, uint64_t line, double ready, int dirty, uint64_t *victim);

#endif
