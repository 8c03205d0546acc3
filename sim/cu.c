/* One compute unit: its waves, the issue rules of its SIMDs, waitcnt counters, barriers and
 * the effects of each instruction class on the CU's units and the memory system.
 *
 * A SIMD is stepped at its issue slots (every issue_period cycles, at cycles congruent to its
 * index).  In a step it walks its waves in arbitration order (priority, then age) and lets
 * each wave whose ready time has come try its next instruction.  An instruction issues when
 * its source registers are ready (a register scoreboard of times, so dependences cost the
 * producer's latency), its unit can take it (VALU cadence, MFMA pipe, counter capacity) and
 * its issue type is still free in this slot; otherwise the wave's ready time moves to the
 * earliest cycle it could issue and the wait is charged to the reason that set it.  Memory
 * instructions compute their completion time at issue from the LDS and memory models, so the
 * only events are SIMD wake-ups (gpu.c runs them), and runs of MFMAs need none (mfma_run).
 *
 * s_waitcnt and s_setprio take no issue slot; s_waitcnt waits until the counters allow.
 * Vector memory and LDS operations complete in issue order (the counters decrement in
 * order).  s_barrier releases the workgroup barrier_latency cycles after its last wave
 * arrives. */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "sim/internal.h"

/* The first issue slot of SIMD s at or after t (slots come every period cycles, at cycles
 * congruent to s). */
static inline int64_t slot_align(const fsim__gpu *g, int s, int64_t t) {
  if (__builtin_expect(g->period_mask >= 0, 1)) return t + (((int64_t)s - t) & g->period_mask);
  int64_t r = ((int64_t)s - t) % g->period;
  if (r < 0) r += g->period;
  return t + r;
}

static inline int64_t ceil_cycle(double t) {
  int64_t c = (int64_t)t;
  return (double)c < t ? c + 1 : c;
}

static const int dep_reason[] = {
    [FSIM__P_NONE] = FSIM_STALL_DEP_VALU, [FSIM__P_VALU] = FSIM_STALL_DEP_VALU, [FSIM__P_MFMA] = FSIM_STALL_DEP_MFMA,
    [FSIM__P_LDS] = FSIM_STALL_DEP_LDS,   [FSIM__P_VMEM] = FSIM_STALL_DEP_VMEM, [FSIM__P_SMEM] = FSIM_STALL_DEP_SMEM,
    [FSIM__P_SALU] = FSIM_STALL_DEP_VALU,
};

/* ---- the front end: loops ----------------------------------------------------------------- */

static void skip_markers_slow(fsim__wave *w) {
  const fsim__xprog *p = w->prog;
  while (w->pc < p->ninst) {
    const fsim_wp_inst *in = &p->inst[w->pc];
    if (in->op == FSIM_OP_LOOP && p->loop_empty[in->arg]) {
      w->pc = p->loops[in->arg].end + 1; /* nothing to run in it */
    } else if (in->op == FSIM_OP_LOOP) {
      w->loop[w->depth] = in->arg;
      w->iter[w->depth] = 0;
      w->depth++;
      w->pc++;
    } else if (in->op == FSIM_OP_END) {
      int d = w->depth - 1;
      const fsim_wp_loop *l = &p->loops[w->loop[d]];
      if (++w->iter[d] < l->trip) {
        w->pc = l->begin + 1;
      } else {
        w->depth--;
        w->pc++;
      }
    } else {
      return;
    }
  }
}

/* Moves the wave past LOOP and END markers to its next instruction. */
static inline void skip_markers(fsim__wave *w) {
  if (w->pc < w->prog->ninst && w->prog->inst[w->pc].op >= FSIM_OP_LOOP) skip_markers_slow(w);
}

/* ---- counters ------------------------------------------------------------------------------ */

/* Pushes an operation completing at `done` on a counter ring; returns its completion in issue
 * order (no earlier than the operation before it). */
static inline int64_t ring_push(int64_t *ring, int mask, int head, int *n, int64_t done) {
  if (*n > 0) {
    int64_t last = ring[(head + *n - 1) & mask];
    if (done < last) done = last; /* in-order completion */
  }
  ring[(head + *n) & mask] = done;
  (*n)++;
  return done;
}

static inline void ring_retire(const int64_t *ring, int mask, int *head, int *n, int64_t t) {
  while (*n > 0 && ring[*head] <= t) {
    *head = (*head + 1) & mask;
    (*n)--;
  }
}

/* When at most `allow` operations will be outstanding. */
static inline int64_t ring_wait(const int64_t *ring, int mask, int head, int n, int allow) {
  if (n <= allow) return 0;
  return ring[(head + n - allow - 1) & mask];
}

/* ---- addresses ----------------------------------------------------------------------------- */

static int64_t addr_base(const fsim__cu *cu, const fsim__wave *w, const fsim_wp_addr *ad) {
  const fsim__wg *wg = &cu->wgs[w->wg];
  int64_t b = ad->base + ad->wave_stride * w->wave_in_wg + ad->wg_stride[0] * wg->coord[0] +
              ad->wg_stride[1] * wg->coord[1] + ad->wg_stride[2] * wg->coord[2];
  for (int i = 0; i < ad->nterms; i++) {
    int lv = ad->term[i].level;
    if (lv >= w->depth) continue;
    int64_t it = w->iter[lv] + ad->term[i].phase;
    int64_t mod = ad->term[i].mod;
    if (mod > 0) it = it >= 0 && (mod & (mod - 1)) == 0 ? it & (mod - 1) : it % mod; /* no division for stages */
    b += it * ad->term[i].stride;
  }
  return b;
}

/* Patterns are memoized per (lane table, row, width class); widths outside 1, 2, 4, 8, 12
 * share the last class. */
static const uint8_t width_classes[17] = {5, 0, 1, 5, 2, 5, 5, 5, 3, 5, 5, 5, 4, 5, 5, 5, 5};
static inline int width_class(int width) { return width <= 16 ? width_classes[width] : 5; }

static inline fsim__pattern *pattern_of(fsim__gpu *g, const fsim_wp_addr *ad, int row, int width) {
  return &g->patterns[(g->row_base[ad->lanes] + row) * 6 + width_class(width)];
}

static inline int lane_row(const fsim__gpu *g, const fsim_wp_addr *ad, const fsim__wave *w) {
  return g->wp->lanes[ad->lanes].rows > 1 ? w->wave_in_wg : 0;
}

/* Records the first access fault of the run (the LDS's or global memory's, below); gpu.c
 * stops the run at the end of the window and reports it. */
static void __attribute__((cold)) access_fault(fsim__gpu *g, const fsim__cu *cu, const fsim__wave *w,
                                                const fsim_wp_addr *ad, const char *space, int64_t lo, int64_t hi,
                                                const char *why) {
  if (g->fault[0]) return;
  snprintf(g->fault, sizeof g->fault, "%s: address pattern '%s' reaches %s bytes %lld to %lld (workgroup %lld, wave %d), %s",
           g->wp->name, ad->name, space, (long long)lo, (long long)hi - 1, (long long)cu->wgs[w->wg].id, w->wave_in_wg,
           why);
}

/* An LDS access that reaches outside the workgroup's LDS bytes: a fault of the program, which
 * hardware would not flag (reads there return zero and writes are dropped). */
static void __attribute__((cold)) lds_fault(fsim__gpu *g, const fsim__cu *cu, const fsim__wave *w,
                                             const fsim_wp_addr *ad, int64_t lo, int64_t hi) {
  char why[96];
  snprintf(why, sizeof why, "outside the %d bytes the kernel declares (resources lds=%d)", g->wp->lds_bytes,
           g->wp->lds_bytes);
  access_fault(g, cu, w, ad, "LDS", lo, hi, why);
}

/* A global access outside the addresses the simulated caches tell apart (fsim__gpu.global_limit). */
static void __attribute__((cold)) global_fault(fsim__gpu *g, const fsim__cu *cu, const fsim__wave *w,
                                                const fsim_wp_addr *ad, int64_t lo, int64_t hi) {
  char why[160];
  snprintf(why, sizeof why, "outside 0 to %lld (%lld lines of %d bytes), the range the simulated caches tell lines apart in",
           (long long)g->global_limit - 1, (long long)(g->global_limit >> g->mem.line_shift), 1 << g->mem.line_shift);
  access_fault(g, cu, w, ad, "global", lo, hi, why);
}

/* Checks an LDS access of `width` bytes per lane at base against the workgroup's LDS. */
static inline void lds_bounds(fsim__gpu *g, const fsim__cu *cu, const fsim__wave *w, const fsim_wp_addr *ad,
                              int64_t base, int width) {
  int k = g->row_base[ad->lanes] + lane_row(g, ad, w);
  if (g->row_active[k] == 0) return;
  int64_t lo = base + g->row_min_off[k], hi = base + g->row_max_off[k] + width;
  if (__builtin_expect(lo < 0 || hi > g->wp->lds_bytes, 0)) lds_fault(g, cu, w, ad, lo, hi);
}

static inline int lds_cost(fsim__gpu *g, const fsim_wp_addr *ad, const fsim__wave *w, int width, int64_t base,
                           int *bytes) {
  const fsim_wp_lanes *l = &g->wp->lanes[ad->lanes];
  int row = l->rows > 1 ? w->wave_in_wg : 0;
  *bytes = g->row_active[g->row_base[ad->lanes] + row] * width;
  int64_t period = g->lds_period;
  if ((period & (period - 1)) == 0 ? (base & (period - 1)) != 0 : base % period != 0)
    return fsim_lds_bank_cycles(g->a, &l->offset[row * g->wp->wave_size], l->active[row], base, width, NULL);
  fsim__pattern *p = &g->patterns[(g->row_base[ad->lanes] + row) * 6 + width_class(width)];
  if (p->lds_cycles < 0)
    p->lds_cycles = fsim_lds_bank_cycles(g->a, &l->offset[row * g->wp->wave_size], l->active[row], 0, width, NULL);
  return p->lds_cycles;
}

/* The lines of an access whose base is r bytes past a line start.  When no lane reaches below
 * that line (base >= 0, r + every active offset >= 0), they are the lines of the same access
 * at base r moved by base's line, so they are memoized per pattern and r (a few r each, in a
 * pool of their own); otherwise, or when the memo is full, computed. */
static const uint64_t *unaligned_lines(fsim__gpu *g, const fsim_wp_addr *ad, int row, const int32_t *off,
                                       uint64_t act, int width, int64_t base, int64_t r, int *n) {
  const int ws = g->wp->wave_size, shift = g->mem.line_shift;
  int pi = (g->row_base[ad->lanes] + row) * 6 + width_class(width);
  if (base >= 0 && r + g->row_min_off[g->row_base[ad->lanes] + row] >= 0) {
    fsim__ua_memo *m = &g->ua_memo[pi];
    int k = 0;
    while (k < FSIM__UA_SLOTS && m->r[k] >= 0 && m->r[k] != r) k++;
    if (k < FSIM__UA_SLOTS) {
      if (m->r[k] < 0) {
        int c = fsim_vmem_coalesce(off, act, ws, r, width, shift, g->scratch_lines);
        if (g->ua_pool_n + c <= g->ua_pool_cap) {
          memcpy(&g->ua_pool[g->ua_pool_n], g->scratch_lines, (size_t)c * sizeof(uint64_t));
          m->r[k] = (int32_t)r;
          m->n[k] = c;
          m->at[k] = g->ua_pool_n;
          g->ua_pool_n += c;
        }
      }
      if (m->r[k] == r) {
        uint64_t first = (uint64_t)base >> shift;
        const uint64_t *rel = &g->ua_pool[m->at[k]];
        for (int i = 0; i < m->n[k]; i++) g->scratch_lines[i] = first + rel[i];
        *n = m->n[k];
        return g->scratch_lines;
      }
    }
  }
  *n = fsim_vmem_coalesce(off, act, ws, base, width, shift, g->scratch_lines);
  return g->scratch_lines;
}

/* The lines a global access touches; returns a pointer to n line addresses. */
static const uint64_t *global_lines(fsim__gpu *g, const fsim__cu *cu, const fsim_wp_addr *ad, const fsim__wave *w,
                                    int width, int64_t base, int *n) {
  const fsim_wp_lanes *l = &g->wp->lanes[ad->lanes];
  int row = lane_row(g, ad, w);
  const int rk = g->row_base[ad->lanes] + row;
  if (__builtin_expect(g->row_active[rk] != 0 && (base + g->row_min_off[rk] < 0 ||
                                                  base + g->row_max_off[rk] + width > g->global_limit), 0))
    global_fault(g, cu, w, ad, base + g->row_min_off[rk], base + g->row_max_off[rk] + width);
  const int32_t *off = &l->offset[row * g->wp->wave_size];
  int shift = g->mem.line_shift;
  int64_t r = base & (((int64_t)1 << shift) - 1);
  if (r != 0) return unaligned_lines(g, ad, row, off, l->active[row], width, base, r, n);
  if (base < 0 || g->row_min_off[rk] < 0) {
    /* a lane below the base: its line is not the base's line plus a line of offsets from 0 */
    *n = fsim_vmem_coalesce(off, l->active[row], g->wp->wave_size, base, width, shift, g->scratch_lines);
    return g->scratch_lines;
  }
  fsim__pattern *p = pattern_of(g, ad, row, width);
  if (p->nlines < 0) {
    int k = fsim_vmem_coalesce(off, l->active[row], g->wp->wave_size, 0, width, shift, g->scratch_lines);
    if (g->line_pool_n + k > g->line_pool_cap) {
      /* no room to memoize (the pool is sized for every pattern; this is a safety net) */
      *n = fsim_vmem_coalesce(off, l->active[row], g->wp->wave_size, base, width, shift, g->scratch_lines);
      return g->scratch_lines;
    }
    memcpy(&g->line_pool[g->line_pool_n], g->scratch_lines, (size_t)k * sizeof(uint64_t));
    p->lines_at = g->line_pool_n;
    p->nlines = k;
    g->line_pool_n += k;
  }
  uint64_t first = (uint64_t)base >> shift;
  for (int i = 0; i < p->nlines; i++) g->scratch_lines[i] = first + g->line_pool[p->lines_at + i];
  *n = p->nlines;
  return g->scratch_lines;
}

/* ---- registers ----------------------------------------------------------------------------- */

static inline void write_reg(fsim__wave *w, const fsim_wp_reg *r, int64_t ready, int64_t acc, int producer) {
  /* acc and ready differ by an MFMA's latency less its pipe cycles, which gpu.c checked fit */
  fsim__reg v = {.ready = ready, .acc_lead = (int32_t)(ready - acc), .reason = (uint8_t)dep_reason[producer]};
  fsim__reg *d = &w->reg[r->first];
  if (r->count == 1) {
    d[0] = v;
    return;
  }
  for (int i = 0; i < r->count; i++) d[i] = v;
}

/* Computes when the current instruction's sources are ready.  Those times are final once it
 * is current: only the wave's own earlier instructions write its registers.  The sources are
 * flattened per instruction (gpu.c), in operand order, so ties go to the same register. */
static inline void decode(fsim__wave *w) {
  int64_t dep = 0;
  int reason = FSIM_STALL_ISSUE;
  const fsim__xprog *p = w->prog;
  if (w->pc < p->ninst) {
    const fsim__reg *reg = w->reg;
    for (int32_t j = p->dep_at[w->pc], end = p->dep_at[w->pc + 1]; j < end; j++) {
      uint32_t d = p->deps[j];
      const fsim__reg *rg = &reg[d & ~FSIM__DEP_ACC];
      /* the accumulator time where the mark says so: ready less its lead (without a branch) */
      int64_t rr = rg->ready - (rg->acc_lead & -(int32_t)(d >> 31));
      if (rr > dep) {
        dep = rr;
        reason = rg->reason;
      }
    }
  }
  w->dep_ready = dep;
  w->dep_reason = reason;
}

/* ---- waves --------------------------------------------------------------------------------- */

static inline void block(fsim__gpu *g, fsim__cu *cu, fsim__wave *w, int64_t t, int64_t until, int reason) {
  w->ready_at = until;
  w->stall[reason] += (double)(until - t);
  if (g->timeline && cu->index == 0 && until > t)
    fsim__timeline_span(g, cu, (int)(w - cu->waves), FSIM__TL_STALL, fsim_stall_name((fsim_stall)reason), "stall", t,
                        until);
}

static void sort_simd(fsim__cu *cu, fsim__simd *sd) {
  cu->sorts++;
  for (int i = 1; i < sd->nwaves; i++) {
    int32_t x = sd->waves[i];
    const fsim__wave *wx = &cu->waves[x];
    int j = i;
    while (j > 0) {
      const fsim__wave *wy = &cu->waves[sd->waves[j - 1]];
      if (wy->prio > wx->prio || (wy->prio == wx->prio && wy->age < wx->age)) break;
      sd->waves[j] = sd->waves[j - 1];
      j--;
    }
    sd->waves[j] = x;
  }
}

static void release_barrier(fsim__gpu *g, fsim__cu *cu, fsim__wg *wg, int64_t t) {
  int64_t when = t + g->a->issue.barrier_latency;
  for (int i = 0; i < g->wp->waves_per_wg; i++) {
    fsim__wave *w = &cu->waves[wg->wave_slot[i]];
    if (w->state != FSIM__W_BARRIER) continue;
    w->state = FSIM__W_READY;
    int64_t at = slot_align(g, w->simd, when);
    w->stall[FSIM_STALL_BARRIER] += (double)(at - w->ready_at);
    if (g->timeline && cu->index == 0 && at > w->ready_at)
      fsim__timeline_span(g, cu, (int)(w - cu->waves), FSIM__TL_STALL, "barrier", "stall", w->ready_at, at);
    w->ready_at = at;
    fsim__gpu_schedule_simd(g, cu, w->simd, at);
  }
  wg->arrived = 0;
}

static void wave_finish(fsim__gpu *g, fsim__cu *cu, fsim__wave *w, int64_t t) {
  w->state = FSIM__W_DONE;
  fsim_sim_result *r = g->r;
  r->wave_cycles += (double)(t - w->start);
  r->issue_cycles += (double)w->issued * g->period;
  for (int k = 0; k < FSIM_STALL_COUNT; k++) r->stall[k] += w->stall[k];
  r->waves++;
  fsim__wg *wg = &cu->wgs[w->wg];
  if (cu->index == 0 && r->nwave_records < FSIM_SIM_WAVE_RECORDS) {
    fsim_sim_wave *rec = &r->wave_record[r->nwave_records++];
    rec->workgroup = wg->id;
    rec->wave = w->wave_in_wg;
    rec->simd = w->simd;
    rec->start = w->start;
    rec->end = t;
    rec->issued = w->issued;
    for (int k = 0; k < FSIM_STALL_COUNT; k++) rec->stall[k] = w->stall[k];
  }
  wg->waves_left--;
  if (wg->waves_left == 0) cu->wgs_finished++;
  if (wg->waves_left > 0 && wg->arrived == wg->waves_left) release_barrier(g, cu, wg, t);
  if (t > g->end_cycle) g->end_cycle = t;
}

static inline void consume(fsim__gpu *g, fsim__wave *w) {
  g->wave_instructions++;
  w->pc++;
  skip_markers(w);
  decode(w);
}

/* When the wave's current instruction, of class op, can issue from t on: its sources, its
 * unit (free at unit_free: the VALU's or the matrix pipe's time) and its counter's room
 * (retired to t); *reason is what sets that time.  Later than FSIM__PEND when it depends on a
 * deferred op's time. */
static inline int64_t issue_wait(const fsim__wave *w, int op, int64_t t, int64_t unit_free, int *reason) {
  int64_t e = t;
  int r = FSIM_STALL_ISSUE;
  if (w->dep_ready > e) e = w->dep_ready, r = w->dep_reason;
  if (op == FSIM_OP_VALU || op == FSIM_OP_MFMA) {
    if (unit_free > e) e = unit_free, r = op == FSIM_OP_VALU ? FSIM_STALL_PIPE_VALU : FSIM_STALL_PIPE_MFMA;
  } else if (op == FSIM_OP_LDS_READ || op == FSIM_OP_LDS_WRITE || op == FSIM_OP_SMEM) {
    if (w->lgkm_n >= 15 && w->lgkm_done[w->lgkm_head] > e) e = w->lgkm_done[w->lgkm_head], r = FSIM_STALL_QUEUE_FULL;
  } else if (op == FSIM_OP_LOAD || op == FSIM_OP_STORE || op == FSIM_OP_LOAD_LDS) {
    if (w->vm_n >= 63 && w->vm_done[w->vm_head] > e) e = w->vm_done[w->vm_head], r = FSIM_STALL_QUEUE_FULL;
  }
  *reason = r;
  return e;
}

/* When an s_waitcnt lets the wave go on (its counters retired to now); *reason as above. */
static inline int64_t waitcnt_wait(const fsim__wave *w, const fsim_wp_inst *in, int *reason) {
  int64_t tv = in->arg != 0xffff ? ring_wait(w->vm_done, 63, w->vm_head, w->vm_n, in->arg) : 0;
  int64_t tl = in->arg2 != 0xffff ? ring_wait(w->lgkm_done, 15, w->lgkm_head, w->lgkm_n, in->arg2) : 0;
  *reason = tv >= tl ? FSIM_STALL_WAIT_VMCNT : FSIM_STALL_WAIT_LGKMCNT;
  return tv > tl ? tv : tl;
}

/* When a wave that has run out of instructions may end: as s_endpgm, once its memory
 * operations are complete (both counters at zero) and its registers written (the MFMAs and
 * loads still in flight have landed), so that a kernel's time includes them; *reason as
 * waitcnt_wait.  Later than FSIM__PEND when that waits on a deferred op. */
static inline int64_t end_wait(const fsim__gpu *g, const fsim__wave *w, int *reason) {
  int64_t tv = ring_wait(w->vm_done, 63, w->vm_head, w->vm_n, 0);
  int64_t tl = ring_wait(w->lgkm_done, 15, w->lgkm_head, w->lgkm_n, 0);
  int64_t e = tv >= tl ? tv : tl;
  *reason = tv >= tl ? FSIM_STALL_WAIT_VMCNT : FSIM_STALL_WAIT_LGKMCNT;
  for (int i = 0; i < g->wp->nregs; i++)
    if (w->reg[i].ready > e) e = w->reg[i].ready, *reason = w->reg[i].reason;
  return e;
}

/* Deferred mode: the wave waits on a time not yet known; fsim__cu_drain_parked decides the
 * wait as it would have been decided at t. */
static void park(fsim__gpu *g, fsim__cu *cu, fsim__wave *w, int64_t t, int64_t unit_free) {
  w->ready_at = FSIM__PEND_WAIT;
  w->park_t = t;
  w->park_unit = unit_free;
  g->parked[g->nparked++] = cu->index;
  g->parked[g->nparked++] = (int32_t)(w - cu->waves);
}

/* A wave's source times can be codes of deferred ops that have since been filled in. */
static inline void redecode(fsim__wave *w) {
  if (__builtin_expect(w->dep_ready >= FSIM__PEND, 0)) decode(w);
}

/* Issues the wave's current instruction, an MFMA, at slot `at` of SIMD sd: the matrix pipe,
 * the destination registers, the VALU issue type of the slot, the wave's counts. */
static inline void mfma_commit(fsim__gpu *g, fsim__cu *cu, fsim__simd *sd, fsim__wave *w, const fsim_wp_inst *in,
                               int64_t at) {
  const fsim__mfma_kind *mk = &g->mfma_kind[in->arg];
  sd->slot_used[FSIM__IT_VALU] = at;
  fsim__mfma_issue(&sd->mfma, at, mk->cycles, mk->flops);
  write_reg(w, &in->dst, at + mk->latency, at + mk->acc, FSIM__P_MFMA);
  if (g->timeline && cu->index == 0)
    fsim__timeline_span(g, cu, (int)(w - cu->waves), FSIM__TL_MFMA, g->a->mfma[in->arg].inst, "issue", at,
                        at + mk->cycles);
  w->issued++;
  consume(g, w);
}

/* A run of MFMAs issued without going through the event queue.  While no other wave can act
 * on the SIMD, the wave that just issued an MFMA issues its following MFMAs at times decided
 * by its registers and the matrix pipe alone, each at the first slot of this SIMD where the
 * pipe is free and its operands are ready, which a loop computes exactly as the event path
 * would at its slots.  "No other wave can act" is until the earliest ready time of the others
 * (a wave at a barrier counts from the earliest release, barrier_latency from now; a parked
 * one from the window's end), and only while no workgroup can be launched onto the CU (one
 * workgroup slot, or no more workgroups for its XCD).  It stops at the first instruction that
 * is not an MFMA.
 *
 * Being first in the SIMD's arbitration order is not enough, although such a wave wins every
 * slot it is ready for: another wave issues an MFMA in a slot where the pipe is free while the
 * run waits on an operand, takes the VALU issue type in the slots the run does not use, and
 * can raise its priority over the run with s_setprio (docs/simulator.md gives what running
 * such waves regardless cost).  tests/check_sim.c holds the runs to the event path
 * (fsim_sim_opts.no_mfma_runs).
 *
 * The SIMD steps the event path would have taken at the run's slots do nothing else, but the
 * run loop starts a window at the earliest wake-up of all CUs when they are all idle, so they
 * are kept as phantom wake-ups (fsim__cu_run reports the first one at or after a window's
 * end).  Not with a timeline of this CU, whose spans would come out of order. */
static int64_t others_idle_until(const fsim__gpu *g, const fsim__cu *cu, int s, const fsim__wave *w, int64_t t) {
  if (cu->nwg_slots > 1 && g->xcd_next[cu->xcd] >= 0) return t;
  const fsim__simd *sd = &cu->simd[s];
  int64_t x = INT64_MAX;
  for (int i = 0; i < sd->nwaves; i++) {
    const fsim__wave *o = &cu->waves[sd->waves[i]];
    if (o == w) continue;
    if (o->state == FSIM__W_READY) {
      /* a parked wave waits at least to the window's end */
      int64_t r = o->ready_at == FSIM__PEND_WAIT ? slot_align(g, s, g->win_end) : o->ready_at;
      if (r < x) x = r;
    } else if (o->state == FSIM__W_BARRIER) {
      int64_t r = slot_align(g, s, t + g->a->issue.barrier_latency);
      if (r < x) x = r;
    }
  }
  return x;
}

static void mfma_run(fsim__gpu *g, fsim__cu *cu, int s, fsim__wave *w, int64_t t) {
  const fsim__xprog *p = w->prog;
  if (!g->mfma_runs || (g->timeline && cu->index == 0) || w->pc >= p->ninst || p->inst[w->pc].op != FSIM_OP_MFMA)
    return;
  const int64_t period = g->period;
  const int64_t until = others_idle_until(g, cu, s, w, t); /* MFMAs issue in the run only before this */
  if (until <= t + period) return;
  fsim__simd *sd = &cu->simd[s];
  int64_t prev = t;
  for (int n = 0; n < 256 && w->pc < p->ninst; n++) {
    const fsim_wp_inst *in = &p->inst[w->pc];
    if (in->op != FSIM_OP_MFMA || w->dep_ready >= FSIM__PEND) break;
    int64_t e = prev + period;
    int reason = FSIM_STALL_ISSUE;
    if (w->dep_ready > e) e = w->dep_ready, reason = w->dep_reason;
    if (sd->mfma.free > e) e = sd->mfma.free, reason = FSIM_STALL_PIPE_MFMA;
    int64_t at = slot_align(g, s, e);
    if (at >= until) break;
    if (n == 0) sd->ph_n = sd->ph_i = 0; /* earlier ones are all before t, inside the window being run */
    if (sd->ph_n + 2 > FSIM__PHANTOMS) break;
    /* the event path's wake-ups for it: its try, and its issue when the try blocks */
    sd->ph[sd->ph_n++] = prev + period;
    if (at > prev + period) {
      sd->ph[sd->ph_n++] = at;
      w->stall[reason] += (double)(at - prev - period);
    }
    cu->ph_any = 1;
    mfma_commit(g, cu, sd, w, in, at);
    prev = at;
  }
  w->ready_at = prev + period; /* prev is a slot of s */
}

/* Adds a phantom wake-up at `at` (>= t, the slot being run) to SIMD sd; returns 0 when there
 * is no room.  Phantoms before t are inside the window being run and are dropped to make room. */
static int add_phantom(fsim__cu *cu, fsim__simd *sd, int64_t t, int64_t at) {
  if (sd->ph_n == FSIM__PHANTOMS) {
    int k = 0;
    for (int i = 0; i < sd->ph_n; i++)
      if (sd->ph[i] >= t) sd->ph[k++] = sd->ph[i];
    sd->ph_n = k;
    sd->ph_i = 0; /* those kept are at or after t, so at or after the window's start */
    if (k == FSIM__PHANTOMS) return 0;
  }
  sd->ph[sd->ph_n++] = at;
  cu->ph_any = 1;
  return 1;
}

/* The wave has just issued an instruction (at slot t or, after an MFMA run, later) and its
 * next try is at the next slot, its ready time.  When its next instruction is an MFMA and the
 * matrix pipe is still busy then, that try would only block it until the pipe and its operands
 * allow, so the block is taken now and the try is not made.  The times are final: no wave
 * issues an MFMA on the SIMD before the pipe is free (so none does before the try), and only
 * the wave's own instructions write its registers (unless a source waits on a deferred op:
 * that is left to the try).  The try's wake-up is kept as a phantom (mfma_run says why).
 * Not with a timeline of this CU, nor on the reference path (fsim_sim_opts.no_mfma_runs), which
 * tests/check_sim.c holds it to. */
static void __attribute__((noinline)) block_next_try_slow(fsim__gpu *g, fsim__cu *cu, int s, fsim__wave *w,
                                                          int64_t t) {
  if (!g->mfma_runs || w->dep_ready >= FSIM__PEND || (g->timeline && cu->index == 0)) return;
  fsim__simd *sd = &cu->simd[s];
  const int64_t next = w->ready_at;
  if (sd->mfma.free <= next || !add_phantom(cu, sd, t, next)) return;
  int reason;
  int64_t e = issue_wait(w, FSIM_OP_MFMA, next, sd->mfma.free, &reason);
  block(g, cu, w, next, slot_align(g, s, e), reason);
}

/* The common case, inline: the next instruction is not an MFMA. */
static inline void block_next_try(fsim__gpu *g, fsim__cu *cu, int s, fsim__wave *w, int64_t t) {
  const fsim__xprog *p = w->prog;
  if (w->pc < p->ninst && p->inst[w->pc].op == FSIM_OP_MFMA) block_next_try_slow(g, cu, s, w, t);
}

/* An MFMA at slot t, if its sources, the matrix pipe and the VALU issue type allow. */
static void issue_mfma(fsim__gpu *g, fsim__cu *cu, int s, fsim__wave *w, const fsim_wp_inst *in, int64_t t) {
  fsim__simd *sd = &cu->simd[s];
  int reason;
  redecode(w);
  int64_t e = issue_wait(w, FSIM_OP_MFMA, t, sd->mfma.free, &reason);
  if (e > t) {
    if (e >= FSIM__PEND)
      park(g, cu, w, t, sd->mfma.free);
    else
      block(g, cu, w, t, slot_align(g, s, e), reason);
    return;
  }
  if (sd->slot_used[FSIM__IT_VALU] == t) {
    block(g, cu, w, t, t + g->period, FSIM_STALL_ISSUE);
    return;
  }
  mfma_commit(g, cu, sd, w, in, t);
  w->ready_at = t + g->period; /* t is a slot of s (every wake-up is) */
  mfma_run(g, cu, s, w, t);
  block_next_try(g, cu, s, w, t);
}

/* Deferred mode: queues a vector-memory op of n lines issued at t; returns the code that
 * stands for its completion time (the caller pushes it on the counter ring and writes it to a
 * load's registers, as it would the time). */
static int64_t defer_op(fsim__gpu *g, fsim__cu *cu, fsim__wave *w, const fsim_wp_inst *in, int op,
                        const uint64_t *lines, int n, int shared, int64_t t) {
  fsim__vmop *o = &g->ops[g->nops];
  o->t = t;
  o->cu = cu->index;
  o->wave = (int16_t)(w - cu->waves);
  o->slot = (int8_t)((w->vm_head + w->vm_n) & 63);
  o->prev = (int8_t)(w->vm_n > 0 ? (w->vm_head + w->vm_n - 1) & 63 : -1);
  o->op = (uint8_t)op;
  o->shared = (uint8_t)shared;
  o->atomic = (in->flags & FSIM_IF_ATOMIC) != 0;
  o->reg_first = in->dst.first;
  o->reg_count = op == FSIM_OP_LOAD || op == FSIM_OP_STORE ? in->dst.count : 0; /* a store's: an atomic's return */
  o->nlines = n;
  o->lines_at = g->nop_lines;
  o->age = (uint32_t)w->age;
  memcpy(&g->op_lines[g->nop_lines], lines, (size_t)n * sizeof *lines);
  g->nop_lines += n;
  return FSIM__PEND + g->nops++;
}

/* Issues the wave's instruction of class `op` (a constant where it is inlined, so each class
 * gets its own copy) at slot t if it can; otherwise moves its ready time. */
static inline __attribute__((always_inline)) void issue_op(fsim__gpu *g, fsim__cu *cu, int s, fsim__wave *w,
                                                           const fsim_wp_inst *in, int64_t t, const int op) {
  const fsim_arch *a = g->a;
  fsim__simd *sd = &cu->simd[s];
  const int lgkm = op == FSIM_OP_LDS_READ || op == FSIM_OP_LDS_WRITE || op == FSIM_OP_SMEM;
  const int vm = op == FSIM_OP_LOAD || op == FSIM_OP_STORE || op == FSIM_OP_LOAD_LDS;
  if (lgkm) ring_retire(w->lgkm_done, 15, &w->lgkm_head, &w->lgkm_n, t);
  if (vm) ring_retire(w->vm_done, 63, &w->vm_head, &w->vm_n, t);
  int reason;
  redecode(w);
  int64_t e = issue_wait(w, op, t, op == FSIM_OP_VALU ? sd->valu_free : 0, &reason);
  if (e > t) {
    if (e >= FSIM__PEND)
      park(g, cu, w, t, op == FSIM_OP_VALU ? sd->valu_free : 0);
    else
      block(g, cu, w, t, slot_align(g, s, e), reason);
    return;
  }
  const int type = op == FSIM_OP_VALU                                   ? FSIM__IT_VALU
                   : op == FSIM_OP_SALU || op == FSIM_OP_SMEM           ? FSIM__IT_SALU
                   : vm                                                 ? FSIM__IT_VMEM
                   : op == FSIM_OP_LDS_READ || op == FSIM_OP_LDS_WRITE ? FSIM__IT_LDS
                                                                        : FSIM__IT_BRANCH;
  if (sd->slot_used[type] == t) {
    block(g, cu, w, t, t + g->period, FSIM_STALL_ISSUE);
    return;
  }
  sd->slot_used[type] = t;
  int64_t next = t + g->period;
  int64_t dur = g->period;
  if (op == FSIM_OP_SALU) {
    write_reg(w, &in->dst, t + a->issue.salu_latency, t + a->issue.salu_latency, FSIM__P_SALU);
  } else if (op == FSIM_OP_VALU) {
    int cyc = a->issue.valu_cycles * (in->arg > 1 ? in->arg : 1);
    sd->valu_free = t + cyc;
    sd->valu_busy += cyc;
    int64_t ready = t + a->issue.valu_latency + cyc - a->issue.valu_cycles;
    write_reg(w, &in->dst, ready, ready, FSIM__P_VALU);
    dur = cyc;
  } else if (op == FSIM_OP_SMEM) {
    int64_t done = t + a->issue.smem_latency;
    ring_push(w->lgkm_done, 15, w->lgkm_head, &w->lgkm_n, done);
    write_reg(w, &in->dst, done, done, FSIM__P_SMEM);
  } else if (op == FSIM_OP_LDS_READ || op == FSIM_OP_LDS_WRITE) {
    const fsim_wp_addr *ad = &g->wp->addrs[in->addr];
    int64_t base = addr_base(cu, w, ad);
    lds_bounds(g, cu, w, ad, base, in->width);
    int bytes;
    int cyc = lds_cost(g, ad, w, in->width, base, &bytes);
    int64_t done = fsim__lds_access(&cu->lds, s, t, bytes, cyc);
    ring_push(w->lgkm_done, 15, w->lgkm_head, &w->lgkm_n, done);
    if (op == FSIM_OP_LDS_READ) write_reg(w, &in->dst, done, done, FSIM__P_LDS);
  } else if (vm) {
    const fsim_wp_addr *ad = &g->wp->addrs[in->addr];
    int64_t base = addr_base(cu, w, ad);
    int n;
    const uint64_t *lines = global_lines(g, cu, ad, w, in->width, base, &n);
    int64_t done;
    if (op == FSIM_OP_STORE)
      cu->store_bytes += (int64_t)g->row_active[g->row_base[ad->lanes] + lane_row(g, ad, w)] * in->width;
    /* the XCDs that read these lines too (sampled mode; else 1) */
    const int shared = cu->wgs[w->wg].shared ? cu->wgs[w->wg].shared[in->addr] : 1;
    /* deferred, unless it touches no line and follows no deferred op (then it completes now) */
    if (g->defer && (n > 0 || (w->vm_n > 0 && w->vm_done[(w->vm_head + w->vm_n - 1) & 63] >= FSIM__PEND))) {
      done = defer_op(g, cu, w, in, op, lines, n, shared, t);
    } else {
      double d = op == FSIM_OP_STORE ? fsim__vmem_store(&cu->vmem, &g->mem, cu->xcd, lines, n, (double)t,
                                                         (in->flags & FSIM_IF_ATOMIC) != 0, shared)
                                     : fsim__vmem_load(&cu->vmem, &g->mem, cu->xcd, lines, n, (double)t, shared);
      done = ceil_cycle(d);
    }
    if (op == FSIM_OP_LOAD_LDS) {
      const fsim_wp_addr *ld = &g->wp->addrs[in->addr2];
      int bytes;
      int64_t lbase = addr_base(cu, w, ld);
      lds_bounds(g, cu, w, ld, lbase, in->width);
      int cyc = lds_cost(g, ld, w, in->width, lbase, &bytes);
      fsim__lds_dma_write(&cu->lds, t, bytes, cyc);
    }
    /* loads return their data in issue order: the registers too (the deferred drain agrees) */
    done = ring_push(w->vm_done, 63, w->vm_head, &w->vm_n, done);
    if (op == FSIM_OP_LOAD || (op == FSIM_OP_STORE && in->dst.count)) write_reg(w, &in->dst, done, done, FSIM__P_VMEM);
  } else if (op == FSIM_OP_BRANCH) {
    next = t + (a->issue.branch_cycles > g->period ? a->issue.branch_cycles : g->period);
  }
  if (g->timeline && cu->index == 0)
    fsim__timeline_span(g, cu, (int)(w - cu->waves), op == FSIM_OP_VALU ? FSIM__TL_VALU : FSIM__TL_ISSUE,
                        fsim_op_name((fsim_op)op), "issue", t, t + dur);
  w->issued++;
  consume(g, w);
  if (next > t + g->period) {
    w->stall[FSIM_STALL_FIXED] += (double)(next - t - g->period);
    /* on the timeline too (a branch's extra cycles were counted and not drawn) */
    if (g->timeline && cu->index == 0)
      fsim__timeline_span(g, cu, (int)(w - cu->waves), FSIM__TL_STALL, fsim_stall_name(FSIM_STALL_FIXED), "stall",
                          t + g->period, next);
  }
  w->ready_at = op == FSIM_OP_BRANCH ? slot_align(g, s, next) : next; /* else t + period, a slot of s */
  if (op != FSIM_OP_BRANCH) block_next_try(g, cu, s, w, t);
}

/* A wait on the wave's counters (an s_waitcnt, or its end) decided at slot t: the wave is held
 * until e (parked when e stands for a deferred op) and 1 returned, or 0 when e has come. */
static inline int hold_until(fsim__gpu *g, fsim__cu *cu, int s, fsim__wave *w, int64_t t, int64_t e, int reason) {
  if (e <= t) return 0;
  if (e >= FSIM__PEND)
    park(g, cu, w, t, 0);
  else
    block(g, cu, w, t, slot_align(g, s, e), reason);
  return 1;
}

/* Lets wave w act at its SIMD's slot t. */
static void wave_step(fsim__gpu *g, fsim__cu *cu, int s, fsim__wave *w, int64_t t) {
  for (;;) {
    int reason;
    int64_t e; /* set before hold_until reads reason: argument order is unspecified */
    if (w->pc >= w->prog->ninst) {
      ring_retire(w->vm_done, 63, &w->vm_head, &w->vm_n, t);
      ring_retire(w->lgkm_done, 15, &w->lgkm_head, &w->lgkm_n, t);
      e = end_wait(g, w, &reason);
      if (hold_until(g, cu, s, w, t, e, reason)) return;
      wave_finish(g, cu, w, t);
      return;
    }
    const fsim_wp_inst *in = &w->prog->inst[w->pc];
    switch (in->op) {
    case FSIM_OP_WAITCNT: {
      ring_retire(w->vm_done, 63, &w->vm_head, &w->vm_n, t);
      ring_retire(w->lgkm_done, 15, &w->lgkm_head, &w->lgkm_n, t);
      e = waitcnt_wait(w, in, &reason);
      if (hold_until(g, cu, s, w, t, e, reason)) return;
      consume(g, w);
      continue;
    }
    case FSIM_OP_SETPRIO:
      w->prio = (uint8_t)in->arg;
      sort_simd(cu, &cu->simd[s]);
      consume(g, w);
      continue;
    case FSIM_OP_BARRIER: {
      consume(g, w);
      fsim__wg *wg = &cu->wgs[w->wg];
      w->state = FSIM__W_BARRIER;
      w->ready_at = t; /* arrival, for the stall account */
      if (++wg->arrived == wg->waves_left) release_barrier(g, cu, wg, t);
      return;
    }
    case FSIM_OP_NOP: {
      consume(g, w);
      int64_t until = slot_align(g, s, t + (in->arg > 0 ? in->arg : 1));
      block(g, cu, w, t, until, FSIM_STALL_FIXED);
      return;
    }
    case FSIM_OP_MFMA: issue_mfma(g, cu, s, w, in, t); return;
    case FSIM_OP_LDS_READ: issue_op(g, cu, s, w, in, t, FSIM_OP_LDS_READ); return;
    case FSIM_OP_LDS_WRITE: issue_op(g, cu, s, w, in, t, FSIM_OP_LDS_WRITE); return;
    case FSIM_OP_LOAD: issue_op(g, cu, s, w, in, t, FSIM_OP_LOAD); return;
    case FSIM_OP_LOAD_LDS: issue_op(g, cu, s, w, in, t, FSIM_OP_LOAD_LDS); return;
    case FSIM_OP_STORE: issue_op(g, cu, s, w, in, t, FSIM_OP_STORE); return;
    case FSIM_OP_VALU: issue_op(g, cu, s, w, in, t, FSIM_OP_VALU); return;
    case FSIM_OP_SALU: issue_op(g, cu, s, w, in, t, FSIM_OP_SALU); return;
    case FSIM_OP_SMEM: issue_op(g, cu, s, w, in, t, FSIM_OP_SMEM); return;
    default: issue_op(g, cu, s, w, in, t, FSIM_OP_BRANCH); return;
    }
  }
}

static void simd_step(fsim__gpu *g, fsim__cu *cu, int s, int64_t t) {
  fsim__simd *sd = &cu->simd[s];
  const int n = sd->nwaves; /* a step adds no waves to its SIMD before the walk ends */
  const unsigned sorts = cu->sorts;
  int finished = 0;
  int64_t next = INT64_MAX; /* the earliest ready wave after the walk */
  unsigned seen = sorts;
  for (int i = 0; i < n; i++) {
    fsim__wave *w = &cu->waves[sd->waves[i]];
    if (w->state != FSIM__W_READY) continue;
    if (w->ready_at <= t) {
      wave_step(g, cu, s, w, t);
      finished |= w->state == FSIM__W_DONE;
      if (cu->sorts != seen) {
        /* an s_setprio re-sorted the SIMD's waves during the walk: waves it passed may now sit
         * at indices already walked, so walk again from the start; the waves that acted in
         * this slot are ready later than t (or no longer ready) and are passed over, the
         * others get their turn in the new order */
        seen = cu->sorts;
        i = -1;
        continue;
      }
      if (w->state != FSIM__W_READY) continue;
    }
    if (w->ready_at < next) next = w->ready_at;
  }
  /* drop finished waves; free finished workgroups (after the walk, so slots are not reused in it) */
  if (finished) {
    int k = 0;
    for (int i = 0; i < sd->nwaves; i++)
      if (cu->waves[sd->waves[i]].state != FSIM__W_DONE) sd->waves[k++] = sd->waves[i];
    sd->nwaves = k;
  }
  for (int wi = 0; cu->wgs_finished > 0 && wi < cu->nwg_slots; wi++) {
    fsim__wg *wg = &cu->wgs[wi];
    if (!wg->active || wg->waves_left > 0) continue;
    cu->wgs_finished--;
    for (int i = 0; i < g->wp->waves_per_wg; i++) cu->waves[wg->wave_slot[i]].state = FSIM__W_FREE;
    wg->active = 0;
    cu->wgs_active--;
    fsim__gpu_wg_done(g, cu, t);
  }
  /* The minimum taken in the walk is that of every ready wave of the SIMD, except when a
   * re-sort moved waves in it (s_setprio, a launch); waves that a barrier released or a launch
   * added scheduled themselves no later than this would. */
  if (cu->sorts != sorts) {
    next = INT64_MAX;
    for (int i = 0; i < sd->nwaves; i++) {
      const fsim__wave *w = &cu->waves[sd->waves[i]];
      if (w->state == FSIM__W_READY && w->ready_at < next) next = w->ready_at;
    }
  }
  /* ready times of the SIMD's waves are slots of s, and so is t */
  if (next != INT64_MAX) fsim__gpu_schedule_simd(g, cu, s, next > t ? next : t + g->period);
}

/* The earlier of t and the CU's first phantom wake-up at or after end (mfma_run); the ones
 * before end are dropped. */
static int64_t first_phantom(fsim__gpu *g, fsim__cu *cu, int64_t end, int64_t t) {
  int any = 0;
  for (int k = 0; k < g->simds; k++) {
    fsim__simd *sd = &cu->simd[k];
    while (sd->ph_i < sd->ph_n && sd->ph[sd->ph_i] < end) sd->ph_i++;
    if (sd->ph_i < sd->ph_n) {
      any = 1;
      if (sd->ph[sd->ph_i] < t) t = sd->ph[sd->ph_i];
    }
  }
  cu->ph_any = any;
  return t;
}

int64_t fsim__cu_run(fsim__gpu *g, fsim__cu *cu, int64_t end) {
  const int simds = g->simds;
  int64_t *nx = cu->simd_next;
  for (;;) {
    /* the earliest wake-up, the lowest SIMD on a tie */
    int s = 0;
    int64_t t = nx[0];
    if (simds == 4) {
      int s01 = nx[1] < nx[0], s23 = 2 + (nx[3] < nx[2]);
      int64_t t01 = nx[s01], t23 = nx[s23];
      s = t23 < t01 ? s23 : s01;
      t = t23 < t01 ? t23 : t01;
    } else {
      for (int k = 1; k < simds; k++)
        if (nx[k] < t) t = nx[k], s = k;
    }
    if (t >= end) return cu->ph_any ? first_phantom(g, cu, end, t) : t;
    nx[s] = INT64_MAX;
    simd_step(g, cu, s, t);
  }
}

void fsim__cu_launch_wg(fsim__gpu *g, fsim__cu *cu, int64_t id, int64_t t) {
  const fsim_wprog *wp = g->wp;
  int wi = 0;
  while (cu->wgs[wi].active) wi++;
  fsim__wg *wg = &cu->wgs[wi];
  uint8_t *shared = wg->shared;
  memset(wg, 0, sizeof *wg);
  wg->shared = shared;
  wg->active = 1;
  wg->id = id;
  wg->start = t;
  wg->waves_left = wp->waves_per_wg;
  fsim_wprog_wg_coords(wp, id, wg->coord);
  if (shared) fsim__gpu_share_of(g, wg->coord, shared);
  cu->wgs_active++;
  int slot = 0;
  for (int i = 0; i < wp->waves_per_wg; i++) {
    while (cu->waves[slot].state != FSIM__W_FREE) slot++;
    fsim__wave *w = &cu->waves[slot];
    fsim__reg *reg = w->reg;
    memset(w, 0, sizeof *w);
    w->reg = reg;
    memset(reg, 0, (size_t)wp->nregs * sizeof *reg);
    w->state = FSIM__W_READY;
    w->wg = (int16_t)wi;
    w->wave_in_wg = (int16_t)i;
    w->prog = &g->xprogs[wp->wave_program[i]];
    w->age = cu->age++;
    w->start = t;
    /* the next SIMD in turn, or after it the first with room: workgroups that end out of
     * order can leave the turn's SIMD full (the occupancy leaves room for the whole workgroup) */
    int s = (cu->next_simd + i) % g->a->cu.simds;
    for (int k = 1; k < g->a->cu.simds && cu->simd[s].nwaves >= g->waves_per_simd; k++)
      s = (cu->next_simd + i + k) % g->a->cu.simds;
    w->simd = (uint8_t)s;
    skip_markers(w);
    decode(w);
    w->ready_at = slot_align(g, s, t);
    wg->wave_slot[i] = (int16_t)slot;
    fsim__simd *sd = &cu->simd[s];
    sd->waves[sd->nwaves++] = (int16_t)slot;
    sort_simd(cu, sd);
    fsim__gpu_schedule_simd(g, cu, s, w->ready_at);
  }
  cu->next_simd = (cu->next_simd + wp->waves_per_wg) % g->a->cu.simds;
}

/* ---- deferred vector memory ------------------------------------------------------------------
 * The ops run through the memory system in the order they were queued, which is the order the
 * immediate mode issues them in (CU by CU, each CU's in time order), so the memory system sees
 * the same requests in the same order (its private pass here, its shared pass after: memsys.h);
 * only the waves learn the times later.  That is exact while every op completes at or after
 * the window's end: gpu.c uses the mode only when the shortest memory latency is at least the
 * window. */
/* Op i's completion, done (ceil of the memory system's time), to its wave: its counter entry
 * (in issue order) and its destination registers. */
static inline void apply_op(fsim__gpu *g, int i, int64_t done) {
  const fsim__vmop *o = &g->ops[i];
  fsim__wave *w = &g->cus[o->cu].waves[o->wave];
  /* the wave slot changed hands since the op was queued: only the memory system sees the
   * op.  Defended, not expected: a wave with ops outstanding waits for them at its end
   * (end_wait), so its slot is not reused before they are drained. */
  if ((uint32_t)w->age != o->age) return;
  if (o->prev >= 0 && w->vm_done[o->prev] > done) done = w->vm_done[o->prev]; /* in-order completion */
  w->vm_done[o->slot] = done;
  const int64_t code = FSIM__PEND + i;
  for (int q = 0; q < o->reg_count; q++) {
    fsim__reg *r = &w->reg[o->reg_first + q];
    if (r->ready == code) r->ready = done; /* unless a later instruction wrote it */
  }
}

void fsim__cu_mem_private(fsim__gpu *g, fsim__memsys *m, fsim__mpass *p) {
  for (int i = 0; i < g->nops; i++) {
    fsim__vmop *o = &g->ops[i];
    fsim__vmem *v = &g->cus[o->cu].vmem;
    const int x = o->cu / g->cus_per_xcd;
    const uint64_t *lines = &g->op_lines[o->lines_at];
    o->done = o->op == FSIM_OP_STORE
                  ? fsim__vmem_store_p(v, m, p, x, lines, o->nlines, (double)o->t, o->atomic, o->shared)
                  : fsim__vmem_load_p(v, m, p, x, lines, o->nlines, (double)o->t, o->shared);
  }
}

void fsim__cu_apply_ops(fsim__gpu *g, fsim__mpass *p) {
  fsim__memsys_resolve(p);
  for (int i = 0; i < g->nops; i++) apply_op(g, i, fsim__mpass_time(p, g->ops[i].done));
  fsim__mpass_clear(p);
  g->nops = g->nop_lines = 0;
}

int64_t fsim__cu_drain_parked(fsim__gpu *g, int64_t next) {
  for (int i = 0; i < g->nparked; i += 2) {
    fsim__cu *cu = &g->cus[g->parked[i]];
    fsim__wave *w = &cu->waves[g->parked[i + 1]];
    const int64_t t = w->park_t;
    int reason;
    int64_t e;
    decode(w);
    if (w->pc >= w->prog->ninst) {
      e = end_wait(g, w, &reason); /* parked at its end */
    } else {
      const fsim_wp_inst *in = &w->prog->inst[w->pc];
      if (in->op == FSIM_OP_WAITCNT)
        e = waitcnt_wait(w, in, &reason);
      else
        e = issue_wait(w, in->op, t, w->park_unit, &reason); /* it checks the classes issue_op passes */
    }
    if (e < g->win_end || e >= FSIM__PEND) {
      /* cannot happen while memory latencies are at least the window (gpu.c checks); defended */
      if (!g->fault[0])
        snprintf(g->fault, sizeof g->fault, "%s: internal error: a deferred memory time came before the window's end",
                 g->wp->name);
      e = g->win_end;
    }
    block(g, cu, w, t, slot_align(g, w->simd, e), reason);
    fsim__gpu_schedule_simd(g, cu, w->simd, w->ready_at);
    if (w->ready_at < next) next = w->ready_at;
  }
  g->nparked = 0;
  return next;
}
