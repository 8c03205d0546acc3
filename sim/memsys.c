/* The memory system below the CUs: see memsys.h. */
#include "config.h"

#include "sim/memsys.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

int fsim__memsys_create(fsim__memsys *m, const fsim_arch *a, int xcds, double share) {
  memset(m, 0, sizeof *m);
  const double clk = a->device.sustained_clock_ghz; /* cycles are of this clock */
  m->xcds = xcds;
  m->l2_channels = a->memory.l2_channels;
  m->l2_service = (double)a->memory.l2_line / a->memory.l2_bytes_per_clk;
  m->l2_latency = a->memory.l2_latency;
  m->atomics_in_l2 = a->memory.atomics_in_l2;
  m->l2_stride = (m->l2_channels + 7) / 8 * 8; /* 64-byte lines of doubles */
  m->l2 = aligned_alloc(64, (size_t)xcds * sizeof *m->l2);
  m->l2_free = aligned_alloc(64, (size_t)xcds * m->l2_stride * sizeof *m->l2_free);
  m->xstats = aligned_alloc(64, (size_t)xcds * sizeof *m->xstats);
  m->now = calloc(1, sizeof *m->now);
  if (m->l2 == NULL || m->l2_free == NULL || m->xstats == NULL || m->now == NULL) goto fail;
  memset(m->l2, 0, (size_t)xcds * sizeof *m->l2);
  memset(m->l2_free, 0, (size_t)xcds * m->l2_stride * sizeof *m->l2_free);
  memset(m->xstats, 0, (size_t)xcds * sizeof *m->xstats);
  /* the pass of one access answered at issue: room for the most a wave's access needs (two
   * lines a lane; a line takes at most two symbols, two requests, two references and one
   * entry of the access's list), so that it never grows */
  {
    fsim__mpass *p = m->now;
    const int most = 2 * 2 * FSIM_MAX_WAVE;
    p->sym = malloc((size_t)most * sizeof *p->sym);
    p->req = malloc((size_t)most * sizeof *p->req);
    p->fix = malloc((size_t)most * sizeof *p->fix);
    p->list = malloc((size_t)most * sizeof *p->list);
    if (!p->sym || !p->req || !p->fix || !p->list) goto fail;
    p->sym_cap = p->req_cap = p->fix_cap = p->list_cap = most;
  }
  for (int x = 0; x < xcds; x++)
    if (fsim__cache_create(&m->l2[x], a->memory.l2_bytes, a->memory.l2_line, a->memory.l2_ways) != 0) goto fail;
  int shift = 0;
  while ((1 << shift) < a->memory.l2_line) shift++;
  m->line_shift = shift;

  int slices = (int)(a->memory.dram_channels * share + 0.5);
  if (slices < 1) slices = 1;
  m->has_mall = a->memory.mall_bytes > 0;
  if (m->has_mall) {
    m->mall_slices = slices;
    double mall_bpc = a->memory.mall_tbps * share * 1e12 / (clk * 1e9);
    m->mall_service = a->memory.l2_line / (mall_bpc / slices);
    if (fsim__servers_create(&m->mall_slice, slices, m->mall_service) != 0) goto fail;
    m->mall_latency = a->memory.mall_latency;
    if (fsim__cache_create(&m->mall, (int64_t)(a->memory.mall_bytes * share), a->memory.l2_line,
                           a->memory.mall_ways) != 0)
      goto fail;
  }
  double dram_bpc = a->memory.dram_bus_bits * a->memory.dram_gbps_per_pin / 8.0 * a->memory.dram_efficiency * share / clk;
  if (fsim__hbm_create(&m->dram, slices, dram_bpc, a->memory.l2_line, a->memory.dram_latency) != 0) goto fail;
  return 0;
fail:
  fsim__memsys_free(m);
  return -1;
}

void fsim__memsys_free(fsim__memsys *m) {
  for (int x = 0; m->l2 && x < m->xcds; x++) fsim__cache_free(&m->l2[x]);
  free(m->l2);
  free(m->l2_free);
  free(m->xstats);
  if (m->now) fsim__mpass_free(m->now);
  free(m->now);
  fsim__cache_free(&m->mall);
  fsim__servers_free(&m->mall_slice);
  fsim__hbm_free(&m->dram);
  memset(m, 0, sizeof *m);
}

static inline int l2_channel(const fsim__memsys *m, uint64_t h) {
  h >>= 40;
  return (m->l2_channels & (m->l2_channels - 1)) == 0 ? (int)(h & (uint64_t)(m->l2_channels - 1))
                                                      : (int)(h % (uint64_t)m->l2_channels);
}

int64_t fsim__memsys_l2_serves(const fsim__memsys *m) {
  int64_t n = 0;
  for (int x = 0; x < m->xcds; x++) n += m->xstats[x].l2_serves;
  return n;
}

int64_t fsim__memsys_l2_writes(const fsim__memsys *m) {
  int64_t n = 0;
  for (int x = 0; x < m->xcds; x++) n += m->xstats[x].l2_writes;
  return n;
}

void fsim__memsys_reset_stats(fsim__memsys *m) {
  memset(&m->stats, 0, sizeof m->stats);
  memset(m->xstats, 0, (size_t)m->xcds * sizeof *m->xstats);
}

/* An L2 channel is a FIFO server: its requests come from the CUs of one XCD, out of time
 * order by at most the run window and the CUs' L1 queues, and a calendar (server.h) here
 * moved the kernel times tried by 1-2.3% at a third more host time (docs/simulator.md). */
static inline double l2_serve(fsim__memsys *m, int x, uint64_t h, double t) {
  double *f = &m->l2_free[x * m->l2_stride + l2_channel(m, h)];
  double start = t > *f ? t : *f;
  *f = start + m->l2_service;
  m->xstats[x].l2_serves++;
  return start;
}

/* The MALL slice of a line with hash h: the one fronting its DRAM channel. */
static inline int mall_slice(const fsim__memsys *m, uint64_t h) {
  int c = fsim__hbm_channel_h(&m->dram, h);
  return (m->mall_slices & (m->mall_slices - 1)) == 0 ? c & (m->mall_slices - 1) : c % m->mall_slices;
}

/* ---- passes: lists ------------------------------------------------------------------------- */

void fsim__mpass_free(fsim__mpass *p) {
  free(p->sym);
  free(p->req);
  free(p->fix);
  free(p->list);
  memset(p, 0, sizeof *p);
}

/* Room for one more element in a list of *cap; 0 (and p->full) when it cannot grow. */
static int room(fsim__mpass *p, void **list, int n, int *cap, size_t size, int most) {
  if (n < *cap) return 1;
  int c = *cap ? 2 * *cap : 256;
  if (c > most) c = most;
  void *q = c > n ? realloc(*list, (size_t)c * size) : NULL;
  if (q == NULL) {
    p->full = 1;
    return 0;
  }
  *list = q;
  *cap = c;
  return 1;
}

/* A new symbol, max(t, symbol a's time, request req's result + off) rounded up; -1 (and
 * p->full) when there is no room. */
static int32_t new_sym(fsim__mpass *p, double t, int32_t a, int32_t req, double off) {
  if (!room(p, (void **)&p->sym, p->nsym, &p->sym_cap, sizeof *p->sym, FSIM__SYM_MAX)) return -1;
  p->sym[p->nsym] = (fsim__msym){.t = t, .off = off, .a = a, .req = req};
  return p->nsym++;
}

/* A new shared request; -1 (and p->full) when there is no room. */
static int32_t new_req(fsim__mpass *p, int kind, uint64_t line, uint64_t h, double t, int shared) {
  if (!room(p, (void **)&p->req, p->nreq, &p->req_cap, sizeof *p->req, INT32_MAX / 2)) return -1;
  p->req[p->nreq] = (fsim__mreq){.line = line, .h = h, .t = t, .kind = kind, .shared = shared};
  return p->nreq++;
}

/* The time "request req's result plus off, not before t" (a new symbol). */
static fsim__stime from_req(fsim__mpass *p, double t, int32_t req, double off) {
  if (req < 0) return (fsim__stime){t, -1}; /* p->full: the run fails */
  return (fsim__stime){-HUGE_VAL, new_sym(p, t, -1, req, off)};
}

void fsim__mpass_add_sym(fsim__mpass *p, fsim__atime *x, int32_t s) {
  if (!room(p, (void **)&p->list, p->nlist, &p->list_cap, sizeof *p->list, INT32_MAX / 2)) return;
  p->list[p->nlist++] = s;
  x->n++;
}

double fsim__mpass_keep_sym(fsim__mpass *p, fsim__cache *c, uint64_t line, uint64_t h, fsim__stime x) {
  /* a symbol of its own, unless x is a symbol's time alone */
  int32_t k = x.t == -HUGE_VAL ? x.s : new_sym(p, x.t, x.s, -1, 0);
  if (k < 0 || !room(p, (void **)&p->fix, p->nfix, &p->fix_cap, sizeof *p->fix, INT32_MAX / 2)) return x.t;
  p->fix[p->nfix++] = (fsim__mfix){.set = &c->way[fsim__cache_set(c, h) * (size_t)c->ways],
                                   .ways = c->ways,
                                   .key = (uint32_t)line + 1,
                                   .sym = k};
  return (double)(FSIM__SYM_REF + (uint32_t)k);
}

int64_t fsim__mpass_time(const fsim__mpass *p, fsim__atime x) {
  int64_t t = x.t <= 0 ? 0 : (int64_t)fsim__cache_cycle(x.t);
  for (int32_t i = 0; i < x.n; i++) {
    int64_t v = (int64_t)p->sym[p->list[x.first + i]].t;
    if (v > t) t = v;
  }
  return t;
}

/* ---- the private pass ----------------------------------------------------------------------- */

fsim__stime fsim__memsys_read_p(fsim__memsys *m, fsim__mpass *p, int x, uint64_t line, uint64_t h, double t,
                                int shared) {
  m->xstats[x].l2_reads++;
  double start = l2_serve(m, x, h, t), ready;
  size_t slot;
  if (fsim__cache_probe_h(&m->l2[x], line, h, &ready, &slot)) return fsim__mpass_hit(start + m->l2_latency, ready);
  /* the MALL or DRAM answers (the shared pass); the line is filled with that time, and a
   * dirty victim goes below after the read, as the requests reach the MALL in that order */
  fsim__stime done = from_req(p, -HUGE_VAL, new_req(p, FSIM__MREQ_READ, line, h, start, shared), 0);
  uint64_t victim;
  if (fsim__cache_fill_slot(&m->l2[x], slot, line, fsim__mpass_keep(p, &m->l2[x], line, h, done), 0, &victim))
    new_req(p, FSIM__MREQ_WB, victim, fsim__hash_line(victim), start, 1);
  return done;
}

fsim__stime fsim__memsys_write_p(fsim__memsys *m, fsim__mpass *p, int x, uint64_t line, uint64_t h, double t) {
  m->xstats[x].l2_writes++;
  double start = l2_serve(m, x, h, t);
  double done = start + m->l2_latency;
  uint64_t victim;
  /* A line that evicts a dirty one is written once the victim has gone below (no write-back
   * buffer is modelled), so stores are held to the write-back's bandwidth.  Nothing waited on
   * it until 2026-12-02: a kernel storing 671 MB, past the MALL, ended as its stores reached
   * the L2, with HBM 225% busy (its write-back at 14 TB/s against a peak of 8.2).  A read's
   * write-back takes DRAM time from the reads behind it on its channel, which is how reads
   * feel it. */
  if (fsim__cache_fill_h(&m->l2[x], line, h, done, 1, &victim)) {
    /* its data is there once the victim has gone (and its write reached the L2), not before */
    fsim__stime gone = from_req(p, done, new_req(p, FSIM__MREQ_WB, victim, fsim__hash_line(victim), start, 1), m->l2_latency);
    fsim__cache_set_recent_ready_h(&m->l2[x], line, h, fsim__mpass_keep(p, &m->l2[x], line, h, gone));
    return gone;
  }
  return (fsim__stime){done, -1};
}

fsim__stime fsim__memsys_atomic_p(fsim__memsys *m, fsim__mpass *p, int x, uint64_t line, uint64_t h, double t,
                                  int shared) {
  m->xstats[x].atomics++;
  uint64_t victim;
  if (m->atomics_in_l2) {
    fsim__stime done = fsim__memsys_read_p(m, p, x, line, h, t, shared);
    m->xstats[x].l2_reads--; /* one request, counted as the write it is */
    m->xstats[x].l2_writes++;
    if (fsim__cache_fill_h(&m->l2[x], line, h, fsim__mpass_keep(p, &m->l2[x], line, h, done), 1, &victim))
      new_req(p, FSIM__MREQ_WB, victim, fsim__hash_line(victim), t, 1);
    return done;
  }
  m->xstats[x].l2_writes++;
  double start = l2_serve(m, x, h, t);
  return from_req(p, -HUGE_VAL, new_req(p, FSIM__MREQ_ATOMIC, line, h, start, shared), 0);
}

/* ---- the shared pass -------------------------------------------------------------------------- */

/* Writes a dirty line evicted from an L2 back to the MALL (or DRAM); returns when the level
 * below takes it: when its MALL slice, or its DRAM channel, starts serving it, and where the
 * MALL evicts a dirty line of its own to make room, when DRAM starts writing that one. */
static double write_back_from_l2(fsim__memsys *m, uint64_t line, uint64_t h, double t) {
  if (!m->has_mall) return fsim__hbm_write(&m->dram, h, t) - m->dram.latency;
  double start = fsim__servers_book(&m->mall_slice, mall_slice(m, h), t); /* the slice fronting its channel */
  m->stats.mall_busy += m->mall_service;
  uint64_t victim;
  if (fsim__cache_fill_h(&m->mall, line, h, start, 1, &victim)) {
    double out = fsim__hbm_write(&m->dram, fsim__hash_line(victim), start) - m->dram.latency;
    if (out > start) start = out;
  }
  return start;
}

/* A read that missed the L2, arriving below it at start: when its data is back. */
static double read_below_l2(fsim__memsys *m, uint64_t line, uint64_t h, double start, int shared) {
  if (!m->has_mall) return fsim__hbm_read(&m->dram, h, start);
  m->stats.mall_reads++;
  double ms = fsim__servers_book(&m->mall_slice, mall_slice(m, h), start), ready, done; /* the slice fronting its channel */
  m->stats.mall_busy += m->mall_service;
  size_t mslot;
  if (fsim__cache_probe_h(&m->mall, line, h, &ready, &mslot)) {
    done = ms + m->mall_latency;
    if (ready > done) done = ready;
  } else if (shared > 1 && (h >> 32) % (uint64_t)shared != 0) {
    /* another XCD of the real device reads it from DRAM (sampled mode): here it is a hit,
     * at DRAM's unloaded latency, as a request that finds the line on its way in from that
     * XCD's fetch waits for it (XCDs reading the same lines read them at about the same
     * time); the DRAM channel is not booked */
    m->mall.stats.misses--;
    m->mall.stats.hits++;
    done = ms + m->dram.latency;
    uint64_t victim;
    if (fsim__cache_fill_slot(&m->mall, mslot, line, done, 0, &victim))
      fsim__hbm_write(&m->dram, fsim__hash_line(victim), ms);
  } else {
    done = fsim__hbm_read(&m->dram, h, ms);
    uint64_t victim;
    if (fsim__cache_fill_slot(&m->mall, mslot, line, done, 0, &victim))
      fsim__hbm_write(&m->dram, fsim__hash_line(victim), ms);
  }
  return done;
}

/* An atomic that passed its L2 channel at start, performed below the L2 (see memsys.h). */
static double atomic_below_l2(fsim__memsys *m, uint64_t line, uint64_t h, double start, int shared) {
  uint64_t victim;
  if (!m->has_mall) {
    double done = fsim__hbm_read(&m->dram, h, start);
    fsim__hbm_write(&m->dram, h, done);
    return done;
  }
  double ms = fsim__servers_book(&m->mall_slice, mall_slice(m, h), start), ready, done;
  m->stats.mall_busy += m->mall_service;
  size_t mslot;
  if (fsim__cache_probe_h(&m->mall, line, h, &ready, &mslot)) {
    done = ms + m->mall_latency;
    if (ready > done) done = ready;
    fsim__cache_fill_h(&m->mall, line, h, done, 1, &victim); /* there: marks it dirty, evicts nothing */
  } else {
    /* another XCD's slice brought it in first (sampled mode: as read_below_l2) */
    int other = shared > 1 && (h >> 32) % (uint64_t)shared != 0;
    if (other) {
      m->mall.stats.misses--;
      m->mall.stats.hits++;
    }
    done = other ? ms + m->dram.latency : fsim__hbm_read(&m->dram, h, ms);
    if (fsim__cache_fill_slot(&m->mall, mslot, line, done, 1, &victim))
      fsim__hbm_write(&m->dram, fsim__hash_line(victim), ms);
  }
  return done;
}

void fsim__memsys_shared(fsim__memsys *m, fsim__mpass *p) {
  /* the MALL's sets, a few requests ahead: its tags are too large for the host's caches */
  const int ahead = 4;
  for (int i = 0; m->has_mall && i < ahead && i < p->nreq; i++) fsim__cache_prefetch_h(&m->mall, p->req[i].h);
  for (int i = 0; i < p->nreq; i++) {
    fsim__mreq *r = &p->req[i];
    if (m->has_mall && i + ahead < p->nreq) fsim__cache_prefetch_h(&m->mall, p->req[i + ahead].h);
    switch (r->kind) {
    case FSIM__MREQ_READ: r->result = read_below_l2(m, r->line, r->h, r->t, r->shared); break;
    case FSIM__MREQ_WB: r->result = write_back_from_l2(m, r->line, r->h, r->t); break;
    default: r->result = atomic_below_l2(m, r->line, r->h, r->t, r->shared); break;
    }
  }
}

void fsim__memsys_resolve(fsim__mpass *p) {
  for (int i = 0; i < p->nsym; i++) {
    fsim__msym *y = &p->sym[i];
    double t = y->t;
    if (y->a >= 0 && p->sym[y->a].t > t) t = p->sym[y->a].t;
    if (y->req >= 0 && p->req[y->req].result + y->off > t) t = p->req[y->req].result + y->off;
    y->t = (double)fsim__cache_cycle(t);
  }
  /* the sets were last touched in the private pass: start loading them a few fixes ahead */
  const int ahead = 8;
  for (int i = 0; i < ahead && i < p->nfix; i++) FSIM__PREFETCH(p->fix[i].set);
  for (int i = 0; i < p->nfix; i++) {
    const fsim__mfix *f = &p->fix[i];
    if (i + ahead < p->nfix) FSIM__PREFETCH(p->fix[i + ahead].set);
    int j = 0;
    if (f->ways <= 32) {
      uint32_t m = fsim__cache_match(f->set, f->ways, f->key);
      j = m ? __builtin_ctz(m) : f->ways;
    } else {
      while (j < f->ways && f->set[j].tag != f->key) j++;
    }
    if (j == f->ways) continue; /* evicted since */
    fsim__cache_way *w = &f->set[j];
    if ((w->ready & ~FSIM__CACHE_DIRTY) == FSIM__SYM_REF + (uint32_t)f->sym)
      w->ready = (uint32_t)p->sym[f->sym].t | (w->ready & FSIM__CACHE_DIRTY);
  }
}

/* ---- in one go ------------------------------------------------------------------------------- */

int64_t fsim__memsys_at_once(fsim__memsys *m, fsim__atime x) {
  fsim__mpass *p = m->now;
  fsim__memsys_shared(m, p);
  fsim__memsys_resolve(p);
  int64_t t = fsim__mpass_time(p, x);
  fsim__mpass_clear(p);
  return t;
}

double fsim__memsys_write(fsim__memsys *m, int x, uint64_t line, uint64_t h, double t) {
  fsim__atime a = {-HUGE_VAL, m->now->nlist, 0};
  fsim__mpass_add(m->now, &a, fsim__memsys_write_p(m, m->now, x, line, h, t));
  return (double)fsim__memsys_at_once(m, a);
}
