/* Memory for the simulator's large tables (the Infinity Cache's tags, the CUs' waves and
 * register scoreboards): on the host's 2 MiB pages where the host offers them.  The
 * simulator reads these tables at random, and on 4 KiB pages most such reads also miss the
 * host's TLB; on large pages the 8192^3 GEMM runs about 10% faster (docs/simulator.md). */
#ifndef FSIM_HUGEMEM_H
#define FSIM_HUGEMEM_H

#include <stddef.h>

/* bytes of zeroed memory, 64-byte aligned (2 MiB aligned and advised for large pages when at
 * least 1 MiB); NULL when out of memory.  Released with free(). */
void *fsim__huge_calloc(size_t bytes);
/* The same, not zeroed: for a table whose parts are written before they are read, so that only
 * the parts used take host memory (a wave slot's registers: written at its launch). */
void *fsim__huge_malloc(size_t bytes);

#endif
