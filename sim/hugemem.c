/* Large-page allocations: see hugemem.h. */
#include "config.h"

#include "sim/hugemem.h"

#include <stdlib.h>
#include <string.h>
#ifdef HAVE_SYS_MMAN_H
#include <sys/mman.h>
#endif

#define LARGE_PAGE ((size_t)2 << 20)

static void *huge_alloc(size_t bytes, int zero) {
  if (bytes == 0) bytes = 1;
  void *p = NULL;
  if (bytes >= LARGE_PAGE / 2) {
    size_t n = (bytes + LARGE_PAGE - 1) & ~(LARGE_PAGE - 1);
    if (n < bytes || posix_memalign(&p, LARGE_PAGE, n) != 0) return NULL;
#if defined(HAVE_SYS_MMAN_H) && defined(MADV_HUGEPAGE)
    (void)madvise(p, n, MADV_HUGEPAGE); /* advice only: without it the pages are just small */
#endif
    if (zero) memset(p, 0, n);
    return p;
  }
  size_t n = (bytes + 63) & ~(size_t)63;
  if (n < bytes || (p = aligned_alloc(64, n)) == NULL) return NULL;
  if (zero) memset(p, 0, n);
  return p;
}

void *fsim__huge_calloc(size_t bytes) { return huge_alloc(bytes, 1); }

void *fsim__huge_malloc(size_t bytes) { return huge_alloc(bytes, 0); }
