/* The coalescer and vector L1 of one CU: see vmem.h. */
#include "config.h"

#include "sim/vmem.h"

#include <string.h>

int fsim__vmem_create(fsim__vmem *v, const fsim_arch *a) {
  memset(v, 0, sizeof *v);
  v->l1_service = (double)a->memory.l1_line / a->memory.l1_bytes_per_clk;
  v->l1_latency = a->memory.l1_latency;
  return fsim__cache_create(&v->l1, a->memory.l1_bytes, a->memory.l1_line, a->memory.l1_ways);
}

void fsim__vmem_free(fsim__vmem *v) { fsim__cache_free(&v->l1); }

fsim__atime fsim__vmem_load_p(fsim__vmem *v, fsim__memsys *m, fsim__mpass *p, int x, const uint64_t *lines, int n,
                             double t, int shared) {
  v->stats.loads++;
  v->stats.lines += n;
  /* the probes below walk sets spread over the host's memory: start them all at once (one
   * hash per line serves every level) */
  uint64_t hash[FSIM_VMEM_MAX_LINES];
  int nh = n < FSIM_VMEM_MAX_LINES ? n : FSIM_VMEM_MAX_LINES;
  for (int i = 0; i < nh; i++) {
    hash[i] = fsim__hash_line(lines[i]);
    fsim__cache_prefetch_h(&v->l1, hash[i]);
    fsim__cache_prefetch_h(&m->l2[x], hash[i]);
  }
  fsim__atime done = {t, p->nlist, 0};
  for (int i = 0; i < n; i++) {
    double start = t > v->l1_free ? t : v->l1_free;
    v->l1_free = start + v->l1_service;
    double ready;
    fsim__stime d;
    size_t slot;
    uint64_t h = i < nh ? hash[i] : fsim__hash_line(lines[i]);
    if (fsim__cache_probe_h(&v->l1, lines[i], h, &ready, &slot)) {
      v->stats.l1_hits++;
      d = fsim__mpass_hit(start + v->l1_latency, ready);
    } else {
      v->stats.l1_misses++;
      d = fsim__memsys_read_p(m, p, x, lines[i], h, start, shared);
      fsim__cache_fill_slot(&v->l1, slot, lines[i], fsim__mpass_keep(p, &v->l1, lines[i], h, d), 0, NULL);
    }
    fsim__mpass_add(p, &done, d);
  }
  return done;
}

fsim__atime fsim__vmem_store_p(fsim__vmem *v, fsim__memsys *m, fsim__mpass *p, int x, const uint64_t *lines, int n,
                              double t, int atomic, int shared) {
  v->stats.stores++;
  v->stats.lines += n;
  fsim__atime done = {t, p->nlist, 0};
  for (int i = 0; i < n; i++) {
    double start = t > v->l1_free ? t : v->l1_free;
    v->l1_free = start + v->l1_service;
    uint64_t h = fsim__hash_line(lines[i]);
    fsim__stime d = atomic ? fsim__memsys_atomic_p(m, p, x, lines[i], h, start, shared)
                           : fsim__memsys_write_p(m, p, x, lines[i], h, start);
    fsim__mpass_add(p, &done, d);
  }
  return done;
}

double fsim__vmem_load(fsim__vmem *v, fsim__memsys *m, int x, const uint64_t *lines, int n, double t, int shared) {
  return (double)fsim__memsys_at_once(m, fsim__vmem_load_p(v, m, m->now, x, lines, n, t, shared));
}

double fsim__vmem_store(fsim__vmem *v, fsim__memsys *m, int x, const uint64_t *lines, int n, double t, int atomic,
                        int shared) {
  return (double)fsim__memsys_at_once(m, fsim__vmem_store_p(v, m, m->now, x, lines, n, t, atomic, shared));
}
