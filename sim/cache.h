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

/* The set of a line from its hash (fsim__hash_line), so that one hash serves every level. */
static inline size_t fsim__cache_set(const fsim__cache *c, uint64_t h) {
  return c->set_mask >= 0 ? (size_t)(h & (uint64_t)c->set_mask) : (size_t)(h % (uint64_t)c->sets);
}

/* Asks the host to start loading the memory at p.  GCC 12 deletes a loop of
 * __builtin_prefetch whose addresses need a division (it counts the builtin as free of side
 * effects), so on x86-64 the instruction is written out. */
#if defined(__GNUC__) && defined(__x86_64__)
#define FSIM__PREFETCH(p) __asm__ volatile("prefetcht0 %0" : : "m"(*(const char *)(p)))
#else
#define FSIM__PREFETCH(p) __builtin_prefetch(p)
#endif

/* Asks the host to start loading the set of a line with hash h (a probe soon after finds it
 * in the host's cache). */
static inline void fsim__cache_prefetch_h(const fsim__cache *c, uint64_t h) {
  const fsim__cache_way *w = &c->way[fsim__cache_set(c, h) * (size_t)c->ways];
  FSIM__PREFETCH(w);
  FSIM__PREFETCH((const char *)w + 64);
}
void fsim__cache_prefetch(const fsim__cache *c, uint64_t line);

/* Looks up a line (address >> line_shift) whose hash is h.  On a hit returns 1 and sets
 * *ready; on a miss returns 0 and sets *slot to where a following fsim__cache_fill_slot of the
 * same line puts it (valid while nothing else touches this cache).  Either way the line becomes
 * most recently used when present. */
int fsim__cache_probe_h(fsim__cache *c, uint64_t line, uint64_t h, double *ready, size_t *slot);
int fsim__cache_fill_slot(fsim__cache *c, size_t slot, uint64_t line, double ready, int dirty, uint64_t *victim);
/* The same without a known hash. */
int fsim__cache_lookup(fsim__cache *c, uint64_t line, double *ready);
/* Inserts (or refreshes) a line with its arrival time.  If a dirty line is evicted, returns 1
 * and sets *victim to its line address; else 0. */
int fsim__cache_fill(fsim__cache *c, uint64_t line, double ready, int dirty, uint64_t *victim);
int fsim__cache_fill_h(fsim__cache *c, uint64_t line, uint64_t h, double ready, int dirty, uint64_t *victim);

#endif
