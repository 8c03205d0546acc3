/* A set-associative cache of line tags with LRU replacement, used for the vector L1 of each
 * CU, the L2 of each XCD and the Infinity Cache.  It holds no data, only which lines are
 * present, when each line's data arrives (a line still in flight is "present" but a hit on
 * it completes when the fill does: the miss-merging that MSHRs do), and whether it is dirty.
 * Lookups cost one pass over the ways of one set; nothing allocates after create. */
#ifndef FSIM_CACHE_H
#define FSIM_CACHE_H

#include <stddef.h>
#include <stdint.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

/* Host-memory layout matters here: a probe reads one set, which is one contiguous array of
 * ways kept in recency order as a ring (cache.c); a 16-way set is 128 bytes.  Line addresses
 * are kept modulo 2^32 and times as whole cycles in 31 bits, so the simulator refuses global
 * addresses past line 2^32 - 2 (2^39 - 128 bytes with 128-byte lines; the line after would
 * have the empty way's tag) and runs past cycle 2^31 - 2^24 (sim/internal.h): wider ways made
 * the 8192^3 GEMM run 28% slower. */
typedef struct fsim__cache_way {
  uint32_t tag;        /* (line mod 2^32) + 1, 0 = empty */
  uint32_t ready;      /* cycle the line's data is there; the top bit marks a dirty line */
} fsim__cache_way;

typedef struct fsim__cache {
  /* on host cache lines of its own: the L2s of different XCDs sit side by side and take
   * their private passes (memsys.h) on different host threads */
  _Alignas(64) int64_t sets; /* power of two is not required */
  int64_t set_mask;    /* sets - 1 when a power of two, else -1 */
  int ways;
  int line_shift;      /* log2(line bytes) */
  fsim__cache_way *way; /* sets * ways */
  uint8_t *head;       /* per set: the way holding its most recent line */
  int list;            /* 1: sets are plain lists in recency order, heads 0 (more than 32 ways) */
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
  size_t s = fsim__cache_set(c, h);
  const fsim__cache_way *w = &c->way[s * (size_t)c->ways];
  FSIM__PREFETCH(w);
  FSIM__PREFETCH((const char *)w + 64);
  FSIM__PREFETCH(&c->head[s]);
}
void fsim__cache_prefetch(const fsim__cache *c, uint64_t line);

/* ---- probes and fills ------------------------------------------------------------------------
 * The ring's common paths are inline here; the plain list (cache.c) serves sets of more than
 * 32 ways. */
#define FSIM__CACHE_DIRTY 0x80000000u
#define FSIM__CACHE_SLOT_SHIFT 11 /* a probe's slot: set << 11 | way (the arch allows up to 1024 ways) */

int fsim__cache_probe_list(fsim__cache *c, uint64_t line, uint64_t h, double *ready, size_t *slot);
int fsim__cache_fill_list(fsim__cache *c, size_t slot, uint64_t line, double ready, int dirty, uint64_t *victim);
int fsim__cache_fill_h_list(fsim__cache *c, uint64_t line, uint64_t h, double ready, int dirty, uint64_t *victim);
void fsim__cache_ring_to_front(fsim__cache *c, size_t s, fsim__cache_way *w, int j, int p, fsim__cache_way e);

/* popcount without the POPCNT instruction (not in the baseline x86-64) or a libgcc call */
static inline int fsim__popcount32(uint32_t x) {
  x = x - ((x >> 1) & 0x55555555u);
  x = (x & 0x33333333u) + ((x >> 2) & 0x33333333u);
  return (int)((((x + (x >> 4)) & 0x0f0f0f0fu) * 0x01010101u) >> 24);
}

/* Bit i set where way i of the set holds tag `key` (ways <= 32).  With SSE2 (every x86-64)
 * four ways at a time: two loads hold four (tag, ready) pairs, a shuffle keeps the tags. */
#ifdef __SSE2__
static inline uint32_t fsim__cache_match4(const fsim__cache_way *w, __m128i k) {
  __m128 a = _mm_loadu_ps((const float *)(const void *)w);
  __m128 b = _mm_loadu_ps((const float *)(const void *)(w + 2));
  __m128i tags = _mm_castps_si128(_mm_shuffle_ps(a, b, _MM_SHUFFLE(2, 0, 2, 0)));
  return (uint32_t)_mm_movemask_ps(_mm_castsi128_ps(_mm_cmpeq_epi32(tags, k)));
}
#endif

static inline uint32_t fsim__cache_match(const fsim__cache_way *w, int ways, uint32_t key) {
  uint32_t m = 0;
  int i = 0;
#ifdef __SSE2__
  const __m128i k = _mm_set1_epi32((int)key);
  if (ways == 16)
    return fsim__cache_match4(w, k) | fsim__cache_match4(w + 4, k) << 4 | fsim__cache_match4(w + 8, k) << 8 |
           fsim__cache_match4(w + 12, k) << 12;
  for (; i + 4 <= ways; i += 4) m |= fsim__cache_match4(w + i, k) << i;
#endif
  for (; i < ways; i++) m |= (uint32_t)(w[i].tag == key) << i;
  return m;
}

static inline uint32_t fsim__cache_cycle(double t) {
  if (t <= 0) return 0;
  if (t >= 2147483647.0) return 0x7fffffffu;
  uint32_t c = (uint32_t)t;
  return (double)c < t ? c + 1 : c;
}

/* Replaces `old` by line (refreshing it when it is the same line) and returns the new way;
 * counts an eviction and reports a dirty victim. */
static inline fsim__cache_way fsim__cache_replace(fsim__cache *c, fsim__cache_way old, uint64_t line, double ready,
                                                  int dirty, uint64_t *victim, int *evicted_dirty) {
  uint32_t key = (uint32_t)line + 1;
  *evicted_dirty = 0;
  if (old.tag != 0 && old.tag != key) {
    c->stats.evictions++;
    if (old.ready & FSIM__CACHE_DIRTY) {
      c->stats.dirty_evictions++;
      *evicted_dirty = 1;
      /* the victim's high address bits are not kept: rebuild them from the filled line's */
      if (victim) *victim = (line & ~(uint64_t)UINT32_MAX) | (uint64_t)(old.tag - 1);
    }
  }
  uint32_t r = fsim__cache_cycle(ready);
  if (old.tag == key) {
    /* a write into a line that is there: the line is whole when its fill arrives, which a
     * write into a line still in flight does not bring forward */
    r = old.ready & ~FSIM__CACHE_DIRTY;
    dirty |= (old.ready & FSIM__CACHE_DIRTY) != 0;
  }
  fsim__cache_way nw = {key, r | (dirty ? FSIM__CACHE_DIRTY : 0)};
  return nw;
}

/* Moves way j of set s (holding e) to the front. */
static inline void fsim__cache_to_front(fsim__cache *c, size_t s, fsim__cache_way *w, int j, fsim__cache_way e) {
  int h = c->head[s];
  int p = j - h < 0 ? j - h + c->ways : j - h; /* its place in recency order */
  if (p == 0)
    w[j] = e;
  else
    fsim__cache_ring_to_front(c, s, w, j, p, e);
}

/* Looks up a line (address >> line_shift) whose hash is h.  On a hit returns 1 and sets
 * *ready; on a miss returns 0 and sets *slot to where a following fsim__cache_fill_slot of the
 * same line puts it (valid while nothing else touches this cache).  Either way the line becomes
 * most recently used when present. */
static inline int fsim__cache_probe_h(fsim__cache *c, uint64_t line, uint64_t h, double *ready, size_t *slot) {
  uint32_t key = (uint32_t)line + 1;
  if (c->list) return fsim__cache_probe_list(c, line, h, ready, slot);
  size_t s = fsim__cache_set(c, h);
  fsim__cache_way *w = &c->way[s * (size_t)c->ways];
  uint32_t m = fsim__cache_match(w, c->ways, key);
  if (m) {
    int j = __builtin_ctz(m);
    fsim__cache_way hit = w[j];
    fsim__cache_to_front(c, s, w, j, hit);
    *ready = hit.ready & ~FSIM__CACHE_DIRTY;
    c->stats.hits++;
    return 1;
  }
  *slot = s << FSIM__CACHE_SLOT_SHIFT;
  c->stats.misses++;
  return 0;
}

/* Ring: a line not in set s goes before the head, into the empty way or over the least recent. */
static inline int fsim__cache_fill_new(fsim__cache *c, size_t s, uint64_t line, double ready, int dirty,
                                       uint64_t *victim) {
  fsim__cache_way *w = &c->way[s * (size_t)c->ways];
  int h = c->head[s];
  int hm1 = h == 0 ? c->ways - 1 : h - 1;
  int evicted_dirty;
  w[hm1] = fsim__cache_replace(c, w[hm1], line, ready, dirty, victim, &evicted_dirty);
  c->head[s] = (uint8_t)hm1;
  return evicted_dirty;
}

/* Fills the line a probe missed at *slot.  If a dirty line is evicted, returns 1 and sets
 * *victim to its line address; else 0. */
static inline int fsim__cache_fill_slot(fsim__cache *c, size_t slot, uint64_t line, double ready, int dirty,
                                        uint64_t *victim) {
  if (c->list) return fsim__cache_fill_list(c, slot, line, ready, dirty, victim);
  return fsim__cache_fill_new(c, slot >> FSIM__CACHE_SLOT_SHIFT, line, ready, dirty, victim);
}

/* Inserts (or refreshes) a line with hash h and its arrival time; as fsim__cache_fill_slot. */
static inline int fsim__cache_fill_h(fsim__cache *c, uint64_t line, uint64_t h, double ready, int dirty,
                                     uint64_t *victim) {
  uint32_t key = (uint32_t)line + 1;
  if (c->list) return fsim__cache_fill_h_list(c, line, h, ready, dirty, victim);
  size_t s = fsim__cache_set(c, h);
  fsim__cache_way *w = &c->way[s * (size_t)c->ways];
  uint32_t m = fsim__cache_match(w, c->ways, key);
  if (!m) return fsim__cache_fill_new(c, s, line, ready, dirty, victim);
  /* refresh in place and move to the front */
  int j = __builtin_ctz(m), evicted_dirty;
  fsim__cache_way nw = fsim__cache_replace(c, w[j], line, ready, dirty, victim, &evicted_dirty);
  fsim__cache_to_front(c, s, w, j, nw);
  return evicted_dirty;
}

/* Moves the arrival time of the line with hash h, the most recent of its set (just filled or
 * refreshed), to `ready`, keeping its dirty bit: for a write that turns out to complete later
 * than the time its fill was given (memsys.c).  Nothing happens if it is not the most recent. */
static inline void fsim__cache_set_recent_ready_h(fsim__cache *c, uint64_t line, uint64_t h, double ready) {
  size_t s = fsim__cache_set(c, h);
  fsim__cache_way *w = &c->way[s * (size_t)c->ways + (c->list ? 0 : c->head[s])];
  if (w->tag == (uint32_t)line + 1) w->ready = fsim__cache_cycle(ready) | (w->ready & FSIM__CACHE_DIRTY);
}

/* The same without a known hash. */
int fsim__cache_lookup(fsim__cache *c, uint64_t line, double *ready);
int fsim__cache_fill(fsim__cache *c, uint64_t line, double ready, int dirty, uint64_t *victim);

#endif
