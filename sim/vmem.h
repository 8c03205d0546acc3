/* The vector memory path of one CU: the coalescer, which turns a wave's per-lane addresses
 * into the set of cache lines it touches, and the vector L1 (tags, LRU, bandwidth).  Misses
 * go to the memory system of the CU's XCD.  Stores write through to the L2 (no L1 allocate). */
#ifndef FSIM_VMEM_H
#define FSIM_VMEM_H

#include <stdint.h>

#include "model/access.h"
#include "sim/cache.h"
#include "sim/memsys.h"


/* Lines of one access whose hashes are computed up front (a wave touches at most 2 lines per
 * lane; longer lists hash the rest as they go). */
#define FSIM_VMEM_MAX_LINES 128

typedef struct fsim__vmem {
  fsim__cache l1;
  double l1_free;       /* L1 port */
  double l1_service;    /* cycles per line */
  double l1_latency;
  struct {
    int64_t loads, stores, lines, l1_hits, l1_misses;
  } stats;
} fsim__vmem;

int fsim__vmem_create(fsim__vmem *v, const fsim_arch *a);
void fsim__vmem_free(fsim__vmem *v);
/* A load of n lines at t from a CU of XCD x; returns when all data is back (the cycle, both
 * passes of memsys.h run).  shared: as fsim__memsys_read_p's (1 but in a sampled run). */
double fsim__vmem_load(fsim__vmem *v, fsim__memsys *m, int x, const uint64_t *lines, int n, double t, int shared);
/* A store of n lines; returns when the last write is acknowledged.  atomic: an atomic
 * read-modify-write (FSIM_IF_ATOMIC), which bypasses the L1 as stores do and is performed where
 * fsim__memsys_atomic_p says (shared: as a load's, for an atomic). */
double fsim__vmem_store(fsim__vmem *v, fsim__memsys *m, int x, const uint64_t *lines, int n, double t, int atomic,
                        int shared);
/* The same as the private pass of a batch (memsys.h): their times, with symbols where the
 * shared pass decides them. */
fsim__atime fsim__vmem_load_p(fsim__vmem *v, fsim__memsys *m, fsim__mpass *p, int x, const uint64_t *lines, int n,
                             double t, int shared);
fsim__atime fsim__vmem_store_p(fsim__vmem *v, fsim__memsys *m, fsim__mpass *p, int x, const uint64_t *lines, int n,
                              double t, int atomic, int shared);

#endif
