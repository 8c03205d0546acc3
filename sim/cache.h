/* A set-associative cache of line tags with LRU replacement, used for the vector L1 of each
 * CU, the L2 of each XCD and the Infinity Cache.  It holds no data, only which lines are
 * present, when each line's data arrives (a line still in flight is "present" but a hit on
 * it completes when the fill does: the miss-merging that MSHRs do), and whether it is dirty.
 * Lookups cost one pass over the ways of one set; nothing allocates after create. */
#ifndef FSIM_CACHE_H
#define FSIM_CACHE_H

#include <stddef.h>
#include <stdint.h>

/* Host-memory layout matters here: a probe walks one set, which is one contiguous array of
 * ways kept in recency order (most recent first, so the victim is the last way and a hit
 * moves its way to the front); a 16-way set is 128 bytes.  Line addresses are kept modulo
 * 2^32 (addresses below 512 GiB are exact); times as whole cycles. */
typedef struct fsim__cache_way {
  uint32_t tag;        /* (line mod 2^32) + 1, 0 = empty */
  uint32_t ready;      /* cycle the line's data is there; the top bit marks a dirty line */
} fsim__cache_way;

typedef struct fsim__cache {
  int64_t sets;        /* power of two is not required */
  int64_t set_mask;    /* sets - 1 when a power of two, else -1 */
  int ways;
  int line_shift;      /* log2(line bytes) */
  fsim__cache_way *way; /* sets * ways */
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

/* Asks the host to start loading the line's set (a probe soon after finds it in cache). */
void fsim__cache_prefetch(const fsim__cache *c, uint64_t line);

/* Looks up a line (address >> line_shift).  On a hit returns 1 and sets *ready; on a miss
 * returns 0.  Either way the line becomes most recently used when present. */
int fsim__cache_lookup(fsim__cache *c, uint64_t line, double *ready);
/* The same, and on a miss returns the line's set, so that a following fsim__cache_fill_set of
 * the same line (with no other access to this cache in between) skips the hash. */
int fsim__cache_probe(fsim__cache *c, uint64_t line, double *ready, size_t *set);
int fsim__cache_fill_set(fsim__cache *c, size_t set, uint64_t line, double ready, int dirty, uint64_t *victim);
/* Inserts (or refreshes) a line with its arrival time.  If a dirty line is evicted, returns 1
 * and sets *victim to its line address; else 0. */
int fsim__cache_fill(fsim__cache *c, uint64_t line, double ready, int dirty, uint64_t *victim);

#endif
