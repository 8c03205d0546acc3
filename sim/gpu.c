/* The whole GPU: occupancy, dispatch of workgroups to XCDs and CUs, the run loop, results,
 * and the sampled mode.
 *
 * Dispatch follows the arch's policy (round-robin: workgroup i to XCD i mod xcds), fills each
 * XCD's CUs breadth-first up to the occupancy the resources allow, spaced wg_launch_cycles
 * apart per XCD, and refills a CU as soon as one of its workgroups ends.  The kernel's time
 * is the end of its last workgroup.
 *
 * Sampled mode simulates the steady state of a representative subset and extrapolates.  The
 * subset is XCD 0 with its share of the workgroups (round-robin gives it the most) and a
 * 1/xcds share of the Infinity Cache and DRAM; the steady state comes from running the main
 * loop (the loop with the largest share of executed instructions) with two short trip counts
 * and extrapolating linearly in the trip count.  bench/ measures its deviation from full
 * runs; docs/simulator.md reports it. */
#include "config.h"

#include <assert.h>
#include <jansson.h>
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "model/occupancy.h"
#include "sim/host.h"
#include "sim/hugemem.h"
#include "sim/internal.h"
#include "util/file.h"
#include "util/text.h"

static const char *stall_names[] = {
#define FSIM__STALL_NAME(id, name) name,
    FSIM_STALL_TABLE(FSIM__STALL_NAME)
#undef FSIM__STALL_NAME
};

const char *fsim_stall_name(fsim_stall s) { return (unsigned)s < FSIM_STALL_COUNT ? stall_names[s] : "?"; }

int fsim_host_threads(void) {
  const char *env = getenv("FLYSIM_THREADS");
  char *end = NULL;
  long n = env && *env ? strtol(env, &end, 10) : 0;
  if (end == NULL || *end != '\0' || n < 1) n = fsim__host_cpus(); /* unset or not a count */
  if (n < 1) n = 1;
  return n > 64 ? 64 : (int)n;
}

int fsim_sim_threads_for(const fsim_wprog *wp) {
  /* threads split the XCDs and meet at every window's end (about a microsecond): worth it for
   * a long run whose workgroups keep several XCDs busy, not for a few long-lived waves (one
   * wave looping 10 million times ran 3x slower on two threads) */
  return fsim_wprog_total_wave_instructions(wp) >= ((int64_t)1 << 22) && fsim_wprog_workgroups(wp) >= 64
             ? fsim_host_threads()
             : 1;
}

int fsim_sim_occupancy(const fsim_arch *a, const fsim_wprog *wp, int *waves_per_simd, const char **limit) {
  fsim_occupancy o;
  fsim_occupancy_of(a, wp->waves_per_wg, wp->vgprs, wp->agprs, wp->sgprs, wp->lds_bytes, &o);
  if (waves_per_simd) *waves_per_simd = o.waves_per_simd;
  if (limit) *limit = o.limit;
  return o.wgs_per_cu;
}

/* Dispatches XCD x's next workgroup to cu at the earliest allowed cycle >= t. */
static int dispatch_next(fsim__gpu *g, fsim__cu *cu, int64_t t) {
  int x = cu->xcd;
  if (g->xcd_next[x] < 0) return 0;
  int64_t id = g->xcd_next[x];
  int64_t at = t > g->xcd_launch[x] ? t : g->xcd_launch[x];
  g->xcd_launch[x] = at + g->a->dispatch.wg_launch_cycles;
  int64_t nxt = id + g->xcd_stride;
  g->xcd_next[x] = nxt < g->xcd_end_id[x] ? nxt : -1;
  fsim__cu_launch_wg(g, cu, id, at);
  return 1;
}

void fsim__gpu_wg_done(fsim__gpu *g, fsim__cu *cu, int64_t t) {
  g->wgs_done++;
  dispatch_next(g, cu, t);
}

static void gpu_free(fsim__gpu *g) {
  for (int c = 0; g->cus && c < g->ncus; c++) {
    fsim__cu *cu = &g->cus[c];
    free(cu->phantoms);
    free(cu->wgs);
    fsim__vmem_free(&cu->vmem);
  }
  free(g->cus);
  free(g->wave_block);
  free(g->reg_block);
  fsim__memsys_free(&g->mem);
  free(g->xcd_next);
  free(g->xcd_launch);
  free(g->xcd_end_id);
  for (int i = 0; g->xprogs && i < g->wp->nprograms; i++) {
    free(g->xprogs[i].dep_at);
    free(g->xprogs[i].deps);
    free(g->xprogs[i].loop_empty);
  }
  free(g->xprogs);
  free(g->ops);
  free(g->op_lines);
  free(g->parked);
  for (int x = 0; g->passes && x < g->xcds; x++) fsim__mpass_free(&g->passes[x]);
  free(g->passes);
  free(g->row_base);
  free(g->row_active);
  free(g->patterns);
  free(g->line_pool);
  free(g->ua_memo);
  free(g->row_min_off);
  free(g->row_max_off);
  free(g->ua_pool);
  free(g->share_key);
  free(g->share_mask);
  free(g->share_table);
  free(g->share_rep);
  free(g->share_base);
  free(g->share_slots);
  free(g->share_block);
  if (g->timeline) json_decref((json_t *)g->timeline);
}

/* ---- sampled mode: lines other XCDs read too ---------------------------------------------------
 * XCD 0 simulated alone sees only its own requests at the MALL, so every line it reads misses
 * there once, although in the full run the other XCDs' workgroups bring in much of what it
 * reads (a GEMM's every XCD reads all of B, or of A): the sampled runs read far more from DRAM
 * (1.22 GB against 0.29 GB for 8192^3) and memory-bound configs came out 8-10% slow.  So
 * XCD 0 is told, per address pattern and workgroup, how many XCDs of the real device read at
 * the same place: a workgroup's addresses through a pattern depend on the workgroup only
 * through its offset, the sum of wg_stride x coordinate, so the XCDs whose workgroups share
 * that offset read the same lines.  A MALL miss of such a line goes to DRAM for one of them
 * (by the line's hash); for the others it is a hit that waits as long as an unloaded DRAM
 * read, as one finding the line on its way in would (memsys.c).  Measured against full runs
 * in docs/simulator.md. */

/* The XCD of the real device that runs workgroup id (reset_queues's assignment). */
static int xcd_of(const fsim__gpu *g, int64_t id, int64_t total) {
  if (g->a->dispatch.policy == FSIM_DISPATCH_ROUND_ROBIN) return (int)(id % g->xcd_total);
  int64_t chunk = (total + g->xcd_total - 1) / g->xcd_total;
  return (int)(id / chunk);
}

static int64_t wg_offset(const fsim_wp_addr *ad, const int coord[3]) {
  return ad->wg_stride[0] * coord[0] + ad->wg_stride[1] * coord[1] + ad->wg_stride[2] * coord[2];
}

#define SHARE_EMPTY INT64_MIN

/* The slot of (class k, offset off) in the share tables: the one holding it, or the empty one
 * where it goes. */
static int64_t share_slot(const fsim__gpu *g, int k, int64_t off) {
  uint64_t h = fsim__hash_line((uint64_t)off);
  int64_t base = g->share_base[k], mask = g->share_slots[k] - 1;
  for (int64_t i = (int64_t)(h & (uint64_t)mask);; i = (i + 1) & mask)
    if (g->share_key[base + i] == off || g->share_key[base + i] == SHARE_EMPTY) return base + i;
}

/* The walk's bounds: pairs of a class and a workgroup (a hash probe each: the 2^20 workgroups
 * of test_sampled_share_bounds, one class, take about 0.3 s), and slots (12 bytes each: 96 MB). */
#define SHARE_MAX_PAIRS ((int64_t)1 << 24)
#define SHARE_MAX_SLOTS ((int64_t)1 << 23)

/* Builds the tables over every workgroup of the grid, for the global patterns that loads read
 * and atomics update (the `shared` count only matters to what reads a line: split-K's slices,
 * on several XCDs, add into one C line, which the full run reads from DRAM once).  Patterns with the same wg_stride have the same
 * offsets (a GEMM's copies of A, and of B: two classes however many copy instructions), so
 * they share a table; a class's table holds at most as many offsets as the grid has
 * coordinates along the dimensions its strides use (the M or N tiles of a GEMM).  Leaves sharing off
 * (share_cap 0) when there is one XCD, and, with share_skipped set, when the grid is too
 * large to walk (SHARE_MAX_*: grids of millions of workgroups).  Returns -1 when out of
 * memory. */
static int share_build(fsim__gpu *g, int64_t total) {
  const fsim_wprog *wp = g->wp;
  if (g->xcd_total < 2 || g->xcd_total > 32) return 0; /* the masks are 32 bits */
  size_t n = (size_t)(wp->naddrs > 0 ? wp->naddrs : 1);
  g->share_table = malloc(n * sizeof *g->share_table);
  g->share_rep = malloc(n * sizeof *g->share_rep);
  g->share_base = malloc(n * sizeof *g->share_base);
  g->share_slots = malloc(n * sizeof *g->share_slots);
  if (!g->share_table || !g->share_rep || !g->share_base || !g->share_slots) return -1;
  /* only what loads read and atomics update counts (memsys.c reads `shared` for those alone):
   * share_table first holds 1 for those patterns, then each pattern's class */
  for (int p = 0; p < wp->naddrs; p++) g->share_table[p] = 0;
  for (int i = 0; i < wp->nprograms; i++)
    for (int k = 0; k < wp->programs[i].ninst; k++) {
      const fsim_wp_inst *in = &wp->programs[i].inst[k];
      int reads = in->op == FSIM_OP_LOAD || in->op == FSIM_OP_LOAD_LDS ||
                  (in->op == FSIM_OP_STORE && (in->flags & FSIM_IF_ATOMIC));
      if (reads && in->addr >= 0 && in->addr < wp->naddrs)
        g->share_table[in->addr] = 1;
    }
  int64_t cap = 0;
  for (int p = 0; p < wp->naddrs; p++) {
    const fsim_wp_addr *ad = &wp->addrs[p];
    int loaded = g->share_table[p];
    g->share_table[p] = -1;
    if (ad->space != FSIM_SPACE_GLOBAL || !loaded) continue;
    int k = 0;
    while (k < g->nshare && memcmp(wp->addrs[g->share_rep[k]].wg_stride, ad->wg_stride, sizeof ad->wg_stride) != 0) k++;
    g->share_table[p] = k;
    if (k < g->nshare) continue;
    g->share_rep[g->nshare++] = p;
    int64_t offsets = 1; /* at most the coordinates along the dimensions with a stride, and the workgroups */
    for (int d = 0; d < 3; d++) {
      int64_t extent = ad->wg_stride[d] != 0 && wp->grid[d] > 1 ? wp->grid[d] : 1;
      offsets = offsets > total / extent ? total : offsets * extent;
    }
    int64_t slots = 1;
    while (slots < 2 * offsets && slots <= SHARE_MAX_SLOTS) slots *= 2;
    g->share_base[k] = cap;
    g->share_slots[k] = slots;
    if (cap <= SHARE_MAX_SLOTS) cap += slots; /* stops growing once past the bound */
  }
  if (g->nshare == 0) return 0;
  if (cap > SHARE_MAX_SLOTS || total > SHARE_MAX_PAIRS / g->nshare) {
    g->share_skipped = 1;
    return 0;
  }
  g->share_key = malloc((size_t)cap * sizeof *g->share_key);
  g->share_mask = calloc((size_t)cap, sizeof *g->share_mask);
  if (!g->share_key || !g->share_mask) return -1;
  for (int64_t i = 0; i < cap; i++) g->share_key[i] = SHARE_EMPTY;
  g->share_cap = cap;
  for (int64_t id = 0; id < total; id++) {
    int coord[3];
    fsim_wprog_wg_coords(wp, id, coord);
    uint32_t bit = (uint32_t)1 << xcd_of(g, id, total);
    for (int k = 0; k < g->nshare; k++) {
      int64_t off = wg_offset(&wp->addrs[g->share_rep[k]], coord), s = share_slot(g, k, off);
      g->share_key[s] = off;
      g->share_mask[s] |= bit;
    }
  }
  return 0;
}

void fsim__gpu_share_of(const fsim__gpu *g, const int coord[3], uint8_t *shared) {
  const fsim_wprog *wp = g->wp;
  for (int p = 0; p < wp->naddrs; p++) {
    int k = g->share_table[p];
    shared[p] = 1;
    if (k < 0) continue;
    int n = __builtin_popcount(g->share_mask[share_slot(g, k, wg_offset(&wp->addrs[p], coord))]);
    shared[p] = (uint8_t)(n > 1 ? n : 1);
  }
}

/* Fills the XCD queues with the workgroup ids each XCD runs (less the first g->skip_wgs of
 * each, in sampled mode); launches start at t0. */
static void reset_queues(fsim__gpu *g, int64_t total, int64_t t0) {
  g->nwg = 0;
  g->wgs_done = 0;
  if (g->a->dispatch.policy == FSIM_DISPATCH_ROUND_ROBIN) {
    g->xcd_stride = g->xcd_total;
    for (int x = 0; x < g->xcds; x++) {
      int64_t first = x + g->skip_wgs * g->xcd_total;
      g->xcd_next[x] = first < total ? first : -1;
      g->xcd_end_id[x] = total;
      g->xcd_launch[x] = t0;
      g->nwg += first < total ? (total - first + g->xcd_total - 1) / g->xcd_total : 0;
    }
  } else {
    g->xcd_stride = 1;
    int64_t chunk = (total + g->xcd_total - 1) / g->xcd_total;
    for (int x = 0; x < g->xcds; x++) {
      int64_t lo = x * chunk + g->skip_wgs, hi = x * chunk + chunk < total ? x * chunk + chunk : total;
      g->xcd_next[x] = lo < hi ? lo : -1;
      g->xcd_end_id[x] = hi;
      g->xcd_launch[x] = t0;
      g->nwg += hi > lo ? hi - lo : 0;
    }
  }
}

/* ---- threads ---------------------------------------------------------------------------------
 * In deferred mode the XCDs' windows can run on several host threads with the results
 * unchanged.  An XCD's window has two phases.  In its CU phase its CUs run the window with
 * their vector-memory ops queued, and the ops then take the memory system's private pass
 * (memsys.h: the XCD's L1s and L2, with the times the MALL and DRAM decide left as symbols).
 * In its memory phase the ops' requests to the MALL and DRAM take the shared pass.  CU phases
 * of different XCDs share nothing; an XCD's CU phase needs its memory phase of the window
 * before (the times its waves and caches wait on) and the window's start; the memory phases
 * must run in XCD order, window after window, as on one thread, for the shared MALL and DRAM
 * to see the same sequence of requests.
 *
 * So thread 0 runs every memory phase, in that order, each once its XCD's CU phase is done;
 * the CU phases of XCD 0 and of the XCDs from `split` on are its own too (those past XCD 0
 * while it would otherwise wait).  The other threads run the CU phases of XCDs 1 to split - 1
 * in turn, window after window, each as soon as the XCD's memory phase of the window before
 * is done and the window is known: thread 0 makes the next window known after all of this
 * one's memory phases, or right after XCD 0's when some wake-up of XCD 0 is at the window's
 * end (wake-ups are never earlier, so the next window starts there); then a thread can run
 * XCD 1's next window while thread 0 still runs this one's memory phases.  Should the run stop
 * at this window (its workgroups all done, or a fault), a CU phase of the next that has run
 * early did nothing that counts: no wave was left, or the run fails.
 *
 * The MALL and DRAM stay on thread 0's host core, and each XCD's waves, L1s and L2 on their
 * thread's: the times the shared pass decides are written to the waves and the caches
 * (fsim__cu_apply_ops) by the thread of the XCD's next CU phase, unless a wave is parked on
 * them: those are decided in the memory phase, as a parked wave's wake-up may start the next
 * window.  When all of the memory system ran in the memory phases, and those went from thread
 * to thread with the XCDs (passed on in order by a token), they took 1.7x their one-thread time
 * and two threads ran no faster than one; when thread 0 took on whichever CU phase was free
 * while it waited, the CU phases took 1.4x theirs, their waves' host cache lines moving between
 * cores; and with the L1s and L2s in thread 0's memory phases, those were a serial 38% of the
 * one-thread time (docs/simulator.md).
 *
 * `split` starts past the last XCD (thread 0 runs XCD 0's CU phases alone) and follows the
 * host times: every BALANCE_WINDOWS windows thread 0 takes on one more XCD when it waited for
 * the others' CU phases longer than an XCD's CU phase takes, and gives one back when they
 * waited that long (fsim_sim_opts.shuffle_xcds moves it every window instead, for the tests:
 * the results do not depend on which thread runs what).  Waves are numbered per CU for
 * oldest-first arbitration, so the thread that launches them does not matter either.  Each
 * thread but thread 0 works on a copy of the fsim__gpu with its own pattern memo, counters
 * and result sums.  Waits spin briefly and then yield, so that more threads than free host
 * cores slow the run rather than stall it. */
#define BALANCE_WINDOWS 64

typedef struct team team;
typedef struct worker {
  fsim__gpu g;             /* the thread's copy (worker 0 uses the caller's) */
  fsim_sim_result r;       /* its sums of wave results */
  _Alignas(64) _Atomic int64_t waited_ns; /* its waits since thread 0 last balanced */
  _Atomic int64_t seen;    /* the latest window whose end and split it has read */
  int index;
  pthread_t th;
  team *tm;
} worker;

/* An XCD's op queue and what its phases of a window left for each other. */
typedef struct xcd_queue {
  _Alignas(64) _Atomic int64_t cu_done;  /* the latest window whose CU phase is done */
  _Atomic int64_t mem_done; /* the latest window whose memory phase is done */
  fsim__vmop *ops;
  uint64_t *op_lines;
  int32_t *parked;
  int nops, nop_lines, nparked;
  int pending;             /* 1: its ops' times are still to be written to its waves */
  int64_t next;            /* its CUs' earliest wake-up after the CU phase's window */
  int64_t wgs;             /* workgroups that ended in that CU phase */
  int64_t fault_gen;       /* the window of the fault below, 0 if none */
  char fault[sizeof ((fsim__gpu *)0)->fault];
} xcd_queue;

struct team {
  fsim__gpu *main;
  int n;
  worker *w;
  xcd_queue *q;            /* per XCD */
  /* windows 1, 2, ...: gen's end and split are at gen & 1, written before published is gen */
  int64_t end[2];
  int split[2];
  _Alignas(64) _Atomic int64_t published; /* the latest window known; -1: stop */
  /* thread 0's balance: its waits for other threads' CU phases (ns), its own CU phases'
   * host time and count, and the windows, since it last balanced */
  double waited, cu_ns;
  int cu_runs, windows;
};

/* The host's monotonic clock in ns, for the balance alone. */
static int64_t host_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* The k-th turn of a wait: a pause for the first 200, then giving the CPU away. */
static inline void wait_turn(int k) {
  if (k < 200) {
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#endif
  } else {
    sched_yield();
  }
}

/* Waits until *v reaches want or goes negative (the team stops); returns the host time
 * waited in ns (0 when there was no wait). */
static int64_t wait_for(_Atomic int64_t *v, int64_t want) {
  int64_t x = atomic_load_explicit(v, memory_order_acquire);
  if (x >= want || x < 0) return 0;
  int64_t t = host_ns();
  for (int k = 0; (x = atomic_load_explicit(v, memory_order_acquire)) < want && x >= 0; k++) wait_turn(k);
  return host_ns() - t;
}

/* A memory phase whose lists could not grow (sim/memsys.h): the run fails. */
static void __attribute__((cold)) pass_full(fsim__gpu *g) {
  if (!g->fault[0])
    snprintf(g->fault, sizeof g->fault,
             "%s: out of host memory for a window's memory requests (or past %d symbols in one XCD's window)",
             g->wp->name, FSIM__SYM_MAX);
}

/* The thread that runs XCD x's CU phases with split s (see above). */
static inline int xcd_thread(const team *tm, int s, int x) {
  return x == 0 || x >= s ? 0 : 1 + (x - 1) % (tm->n - 1);
}

/* Points g's op queue at XCD queue q's, as its last CU phase left it. */
static void use_queue(fsim__gpu *g, const xcd_queue *q) {
  g->ops = q->ops;
  g->op_lines = q->op_lines;
  g->parked = q->parked;
  g->nops = q->nops;
  g->nop_lines = q->nop_lines;
  g->nparked = q->nparked;
}

/* Runs XCD x's CU phase of window gen, ending at end, on thread copy g: first its waves get
 * the times of the memory phase before, then its CUs run with their ops queued in the XCD's
 * queue. */
static void run_cus(team *tm, fsim__gpu *g, int x, int64_t gen, int64_t end) {
  xcd_queue *q = &tm->q[x];
  use_queue(g, q);
  if (q->pending) {
    fsim__cu_apply_ops(g, &g->passes[x]);
    q->pending = 0;
  }
  g->nops = g->nop_lines = g->nparked = 0;
  g->win_end = end;
  g->fault[0] = 0;
  const int64_t wgs = g->wgs_done;
  int64_t next = INT64_MAX;
  for (int c = x * g->cus_per_xcd; c < (x + 1) * g->cus_per_xcd; c++) {
    int64_t t = fsim__cu_run(g, &g->cus[c], end);
    if (t < next) next = t;
  }
  /* the memory phase's private pass: the XCD's L1s and L2 stay with its CUs' thread */
  fsim__cu_mem_private(g, &tm->main->mem, &g->passes[x]);
  if (g->passes[x].full) pass_full(g);
  if (g->fault[0]) {
    memcpy(q->fault, g->fault, sizeof q->fault);
    q->fault_gen = gen;
    g->fault[0] = 0;
  }
  q->nops = g->nops;
  q->nop_lines = g->nop_lines;
  q->nparked = g->nparked;
  q->next = next;
  q->wgs = g->wgs_done - wgs;
  atomic_store_explicit(&q->cu_done, gen, memory_order_release);
}

/* Thread 0 runs XCD x's CU phase of window gen, timed for the balance. */
static void run_own(team *tm, int x, int64_t gen) {
  int64_t t = host_ns();
  run_cus(tm, tm->main, x, gen, tm->end[gen & 1]);
  tm->cu_ns += (double)(host_ns() - t);
  tm->cu_runs++;
}

/* Makes window gen + 1, starting at now, known to the other threads, with the split the
 * balance gives. */
static void publish(team *tm, int64_t gen, int64_t now) {
  fsim__gpu *g = tm->main;
  int s = tm->split[gen & 1];
  if (g->shuffle_xcds) {
    s = 1 + (int)((gen + 1) % g->xcds); /* every split from 1 to xcds, in turn */
  } else if (++tm->windows == BALANCE_WINDOWS) {
    double per = tm->cu_ns / tm->cu_runs * BALANCE_WINDOWS, theirs = 0;
    for (int k = 1; k < tm->n; k++) {
      double w = (double)atomic_exchange_explicit(&tm->w[k].waited_ns, 0, memory_order_relaxed);
      if (w > theirs) theirs = w;
    }
    if (tm->waited > per && s > 1)
      s--;
    else if (theirs > per && s < g->xcds)
      s++;
    tm->waited = tm->cu_ns = 0;
    tm->cu_runs = tm->windows = 0;
  }
  /* the slot of window gen + 1 held gen - 1's: every thread has read that one */
  for (int k = 1; k < tm->n; k++) wait_for(&tm->w[k].seen, gen - 1);
  tm->end[(gen + 1) & 1] = now + g->window;
  tm->split[(gen + 1) & 1] = s;
  atomic_store_explicit(&tm->published, gen + 1, memory_order_release);
}

/* Thread 0's share of window gen: every memory phase, in XCD order, each once its XCD's CU
 * phase is done, and its own CU phases, XCD 0's first and the others' while it would wait
 * for another thread's.  Returns the earliest wake-up after the window, adds the workgroups
 * that ended in it to *wgs and sets *published when it made the next window known (at XCD 0's
 * end).  The first fault of the window, in XCD order, goes to the caller's copy.  What the CU
 * phases left in an XCD's queue is read before its memory phase is marked done: from then on
 * another thread may run its next CU phase. */
static int64_t run_window(team *tm, int64_t gen, int64_t *wgs, int *published) {
  fsim__gpu *g = tm->main;
  const int64_t end = tm->end[gen & 1];
  const int split = tm->split[gen & 1];
  int64_t next = INT64_MAX;
  int mine = split; /* its next XCD from split on whose CU phase is still to run */
  char first[sizeof g->fault] = ""; /* the window's first fault */
  *published = 0;
  run_own(tm, 0, gen);
  for (int x = 0; x < g->xcds; x++) {
    xcd_queue *q = &tm->q[x];
    if (x >= mine) {
      run_own(tm, x, gen);
      mine = x + 1;
    }
    while (atomic_load_explicit(&q->cu_done, memory_order_acquire) < gen) {
      if (mine < g->xcds)
        run_own(tm, mine++, gen);
      else
        tm->waited += (double)wait_for(&q->cu_done, gen);
    }
    use_queue(g, q);
    g->win_end = end;
    g->fault[0] = 0;
    fsim__memsys_shared(&g->mem, &g->passes[x]);
    q->pending = q->nparked == 0;
    if (!q->pending) fsim__cu_apply_ops(g, &g->passes[x]);
    int64_t nx = fsim__cu_drain_parked(g, q->next);
    if (nx < next) next = nx;
    if (!first[0]) /* the CU phase's fault comes before the memory phase's */
      memcpy(first, q->fault_gen == gen ? q->fault : g->fault, sizeof first);
    *wgs += q->wgs;
    const int faulted = q->fault_gen == gen || g->fault[0];
    atomic_store_explicit(&q->mem_done, gen, memory_order_release);
    /* every wake-up is at or after the window's end: one of XCD 0's there starts the next */
    if (x == 0 && nx == end && end + g->window <= FSIM__CYCLE_LIMIT && !faulted) {
      publish(tm, gen, end);
      *published = 1;
    }
  }
  memcpy(g->fault, first, sizeof g->fault);
  return next;
}

/* A worker thread: the CU phases of its share of the XCDs, window after window. */
static void *worker_main(void *p) {
  worker *w = p;
  team *tm = w->tm;
  for (int64_t gen = 1;; gen++) {
    int64_t waited = wait_for(&tm->published, gen);
    if (atomic_load_explicit(&tm->published, memory_order_acquire) < 0) break;
    const int64_t end = tm->end[gen & 1];
    const int split = tm->split[gen & 1];
    atomic_store_explicit(&w->seen, gen, memory_order_release); /* its slot may be reused for gen + 2 */
    for (int x = 1; x < split; x++) {
      if (xcd_thread(tm, split, x) != w->index) continue;
      waited += wait_for(&tm->q[x].mem_done, gen - 1);
      if (atomic_load_explicit(&tm->published, memory_order_acquire) < 0) break;
      run_cus(tm, &w->g, x, gen, end);
    }
    atomic_fetch_add_explicit(&w->waited_ns, waited, memory_order_relaxed);
  }
  return NULL;
}

/* The copy of g that thread k > 0 works on (its op queues are the XCDs'). */
static int worker_init(worker *w, fsim__gpu *g, int rows) {
  w->g = *g;
  fsim__gpu *c = &w->g;
  memset(&w->r, 0, sizeof w->r);
  c->r = &w->r;
  c->wgs_done = 0;
  c->wave_instructions = 0;
  c->fault[0] = 0;
  c->timeline = NULL;
  c->ops = NULL;
  c->op_lines = NULL;
  c->parked = NULL;
  c->patterns = malloc((size_t)rows * 6 * sizeof *c->patterns);
  c->ua_memo = malloc((size_t)rows * 6 * sizeof *c->ua_memo);
  c->line_pool = malloc((size_t)g->line_pool_cap * sizeof *c->line_pool);
  c->ua_pool = malloc((size_t)g->ua_pool_cap * sizeof *c->ua_pool);
  if (!c->patterns || !c->ua_memo || !c->line_pool || !c->ua_pool) return -1;
  memcpy(c->patterns, g->patterns, (size_t)rows * 6 * sizeof *c->patterns);
  memcpy(c->ua_memo, g->ua_memo, (size_t)rows * 6 * sizeof *c->ua_memo);
  memcpy(c->line_pool, g->line_pool, (size_t)g->line_pool_n * sizeof *c->line_pool);
  memcpy(c->ua_pool, g->ua_pool, (size_t)g->ua_pool_n * sizeof *c->ua_pool);
  return 0;
}

static void worker_free(worker *w) {
  fsim__gpu *c = &w->g;
  free(c->patterns);
  free(c->ua_memo);
  free(c->line_pool);
  free(c->ua_pool);
}

/* Adds thread copy c's counts and wave sums to g. */
static void worker_merge(fsim__gpu *g, const fsim__gpu *c) {
  fsim_sim_result *r = g->r;
  const fsim_sim_result *q = c->r;
  for (int k = 0; k < FSIM_STALL_COUNT; k++) r->stall[k] += q->stall[k]; /* whole cycles: exact in any order */
  r->wave_cycles += q->wave_cycles;
  r->issue_cycles += q->issue_cycles;
  r->waves += q->waves;
  g->wave_instructions += c->wave_instructions;
  g->wgs_done += c->wgs_done;
  if (c->end_cycle > g->end_cycle) g->end_cycle = c->end_cycle;
}

/* Records that a window ending at end would pass the cycles the caches' time stamps allow;
 * returns 1 if so. */
static int past_cycle_limit(fsim__gpu *g, int64_t end) {
  if (end <= FSIM__CYCLE_LIMIT) return 0;
  snprintf(g->fault, sizeof g->fault,
           "%s: the run reaches cycle %lld, past the %lld that the simulated caches' 31-bit time stamps allow "
           "(a sampled run shortens its main loop alone: the loops inside it still run in full)",
           g->wp->name, (long long)end, (long long)FSIM__CYCLE_LIMIT);
  return 1;
}

/* run_kernel on nth threads (see above); returns as it does, or -3 when the threads cannot
 * be set up. */
static int run_threads(fsim__gpu *g, int64_t t0, int nth) {
  team tm = {.main = g, .n = nth};
  int started = 0, rc = 0;
  /* the caller's queue is XCD 0's */
  fsim__vmop *own_ops = g->ops;
  uint64_t *own_op_lines = g->op_lines;
  int32_t *own_parked = g->parked;
  tm.w = aligned_alloc(_Alignof(worker), (size_t)nth * sizeof *tm.w);
  tm.q = aligned_alloc(_Alignof(xcd_queue), (size_t)g->xcds * sizeof *tm.q);
  if (tm.w == NULL || tm.q == NULL) {
    free(tm.w);
    free(tm.q);
    return -3;
  }
  memset(tm.w, 0, (size_t)nth * sizeof *tm.w);
  memset(tm.q, 0, (size_t)g->xcds * sizeof *tm.q);
  tm.q[0].ops = own_ops;
  tm.q[0].op_lines = own_op_lines;
  tm.q[0].parked = own_parked;
  for (int x = 1; x < g->xcds; x++) {
    tm.q[x].ops = malloc((size_t)g->ops_cap * sizeof *g->ops);
    tm.q[x].op_lines = malloc((size_t)g->op_lines_cap * sizeof *g->op_lines);
    tm.q[x].parked = malloc((size_t)g->parked_cap * sizeof *g->parked);
    if (!tm.q[x].ops || !tm.q[x].op_lines || !tm.q[x].parked) rc = -3;
  }
  int rows = 0;
  for (int i = 0; i < g->wp->nlanes; i++) rows += g->wp->lanes[i].rows;
  if (rows < 1) rows = 1;
  for (int k = 1; k < nth && rc == 0; k++) {
    tm.w[k].index = k;
    tm.w[k].tm = &tm;
    if (worker_init(&tm.w[k], g, rows) != 0) rc = -3;
  }
  for (int k = 1; k < nth && rc == 0; k++) {
    if (pthread_create(&tm.w[k].th, NULL, worker_main, &tm.w[k]) != 0) {
      rc = -3;
      break;
    }
    started = k;
  }
  int64_t done = 0;
  if (rc == 0 && g->nwg > 0) {
    if (past_cycle_limit(g, t0 + g->window)) {
      rc = -2;
    } else {
      tm.end[1] = t0 + g->window;
      tm.split[1] = g->xcds;
      atomic_store_explicit(&tm.published, 1, memory_order_release);
    }
  }
  for (int64_t gen = 1; rc == 0 && done < g->nwg; gen++) {
    const int64_t end = tm.end[gen & 1];
    int published;
    int64_t next = run_window(&tm, gen, &done, &published);
    if (g->fault[0]) {
      rc = -2;
    } else if (done < g->nwg && next == INT64_MAX) {
      rc = -1;
    } else if (done < g->nwg && !published) {
      int64_t now = next > end ? next : end;
      if (past_cycle_limit(g, now + g->window))
        rc = -2;
      else
        publish(&tm, gen, now);
    }
  }
  /* a CU phase of a window the run stopped before did nothing that counts (see above) */
  atomic_store_explicit(&tm.published, -1, memory_order_release);
  for (int k = 1; k <= started; k++) pthread_join(tm.w[k].th, NULL);
  /* the times of the last memory phases, into the waves and caches (a warm launch goes on with
   * the caches as they are) */
  for (int x = 0; x < g->xcds && rc != -3; x++)
    if (tm.q[x].pending) {
      use_queue(g, &tm.q[x]);
      fsim__cu_apply_ops(g, &g->passes[x]);
      tm.q[x].pending = 0;
    }
  for (int k = 1; k < nth; k++) {
    if (rc != -3) worker_merge(g, &tm.w[k].g);
    worker_free(&tm.w[k]); /* also one whose set-up failed part way (its pointers NULL) */
  }
  free(tm.w);
  for (int x = 1; x < g->xcds; x++) {
    free(tm.q[x].ops);
    free(tm.q[x].op_lines);
    free(tm.q[x].parked);
  }
  free(tm.q);
  g->ops = own_ops;
  g->op_lines = own_op_lines;
  g->parked = own_parked;
  g->nops = g->nop_lines = g->nparked = 0;
  return rc;
}

/* One thread: every XCD's CU phase then its memory phase, in XCD order, through the window
 * ending at end; returns the earliest wake-up after it. */
static int64_t run_window_alone(fsim__gpu *g, int64_t end) {
  int64_t next = INT64_MAX;
  g->win_end = end;
  for (int x = 0; x < g->xcds; x++) {
    for (int c = x * g->cus_per_xcd; c < (x + 1) * g->cus_per_xcd; c++) {
      int64_t t = fsim__cu_run(g, &g->cus[c], end);
      if (t < next) next = t;
    }
    if (g->defer) {
      fsim__mpass *p = &g->passes[x];
      fsim__cu_mem_private(g, &g->mem, p);
      if (p->full) pass_full(g);
      fsim__memsys_shared(&g->mem, p);
      fsim__cu_apply_ops(g, p);
      next = fsim__cu_drain_parked(g, next);
    }
  }
  return next;
}

/* Dispatches every workgroup from t0 and runs until the last ends (0) or nothing is left to
 * run (-1).  Time advances in windows of g->window cycles: in each window every CU in turn
 * runs its SIMDs' wake-ups in time order up to the window's end.  A CU's own units see its
 * events in exact order; the memory system shared between CUs sees requests from different
 * CUs up to one window out of order, which keeps each CU's state hot in the host's caches.
 * tests/check_sim.c bounds the effect against a one-cycle window.  With g->threads > 1 (and
 * deferred memory) the XCDs run on that many threads (see above). */
static int run_kernel(fsim__gpu *g, int64_t t0) {
  const int simds = g->a->cu.simds;
  g->simds = simds;
  for (int c = 0; c < g->ncus; c++) {
    for (int s = 0; s < simds; s++) {
      g->cus[c].simd_next[s] = INT64_MAX;
      g->cus[c].simd[s].ph_n = g->cus[c].simd[s].ph_i = 0;
    }
    g->cus[c].ph_any = 0;
  }
  for (int round = 0; round < g->wgs_per_cu; round++)
    for (int c = 0; c < g->ncus; c++) dispatch_next(g, &g->cus[c], t0);
  int nth = g->defer && g->threads > 1 ? (g->threads < g->xcds ? g->threads : g->xcds) : 1;
  if (nth > 1) return run_threads(g, t0, nth);
  int rc = 0;
  int64_t now = t0;
  while (g->wgs_done < g->nwg) {
    int64_t end = now + g->window;
    if (past_cycle_limit(g, end)) {
      rc = -2;
      break;
    }
    int64_t next = run_window_alone(g, end);
    if (g->fault[0]) {
      rc = -2;
      break;
    }
    if (next == INT64_MAX) break;
    now = next > end ? next : end;
  }
  if (rc == 0 && g->wgs_done < g->nwg) rc = -1;
  return rc;
}

/* Forgets the statistics of a warm-up run (the caches keep their contents). */
static void reset_stats(fsim__gpu *g) {
  for (int c = 0; c < g->ncus; c++) {
    fsim__cu *cu = &g->cus[c];
    for (int s = 0; s < g->a->cu.simds; s++) {
      cu->simd[s].mfma.busy = cu->simd[s].mfma.issued = 0;
      cu->simd[s].mfma.flops = 0;
      cu->simd[s].valu_busy = 0;
    }
    memset(&cu->lds.stats, 0, sizeof cu->lds.stats);
    memset(&cu->vmem.stats, 0, sizeof cu->vmem.stats);
    memset(&cu->vmem.l1.stats, 0, sizeof cu->vmem.l1.stats);
    cu->store_bytes = 0;
  }
  for (int x = 0; x < g->xcds; x++) memset(&g->mem.l2[x].stats, 0, sizeof g->mem.l2[x].stats);
  memset(&g->mem.mall.stats, 0, sizeof g->mem.mall.stats);
  fsim__memsys_reset_stats(&g->mem);
  memset(&g->mem.dram.stats, 0, sizeof g->mem.dram.stats);
  fsim_sim_result *r = g->r;
  memset(r->stall, 0, sizeof r->stall);
  r->wave_cycles = r->issue_cycles = 0;
  r->waves = 0;
  r->nwave_records = 0;
  g->wave_instructions = 0;
  g->timeline_n = 0;
  g->timeline_dropped = g->timeline_cut = 0;
  if (g->timeline) json_array_clear((json_t *)g->timeline);
}

/* The reference paths a run can be held to (fsim_sim_opts): vector memory answered at issue,
 * every MFMA through the event path. */
enum { REF_IMMEDIATE = 1, REF_EVENTS = 2, REF_SHUFFLE = 4 };

/* One simulation of wp; only XCD 0 when one_xcd; after an identical warm-up launch when warm;
 * without each XCD's first skip_rounds rounds of workgroups (sampled mode). */
static fsim_status run_once(const fsim_arch *a, const fsim_wprog *wp, int one_xcd, int64_t skip_rounds, int warm,
                            int64_t window, int ref, int threads, int record_timeline, int timeline_max, fsim_sim_result *r,
                            json_t **timeline, fsim_err *e) {
  fsim__gpu g;
  memset(&g, 0, sizeof g);
  memset(r, 0, sizeof *r);
  g.a = a;
  g.wp = wp;
  g.r = r;
  for (int i = 0; i < a->n_mfma; i++) {
    const fsim_mfma_entry *mf = &a->mfma[i];
    fsim__mfma_kind *k = &g.mfma_kind[i];
    k->cycles = fsim_mfma_cycles(a, mf);
    k->latency = mf->latency;
    k->acc = a->issue.mfma_srcc_forwarding ? k->cycles : mf->latency;
    k->flops = 2.0 * mf->m * mf->n * mf->k;
    /* a register keeps its accumulator time as an int32 lead over its ready time (cu.c) */
    int64_t lead = (int64_t)k->latency - k->acc;
    assert(lead >= INT32_MIN && lead <= INT32_MAX);
    (void)lead;
  }
  g.period = a->issue.issue_period;
  g.period_mask = (g.period & (g.period - 1)) == 0 ? g.period - 1 : -1;
  g.xcd_total = a->device.xcds;
  g.cus_per_xcd = a->device.cus / a->device.xcds;
  g.xcds = one_xcd ? 1 : a->device.xcds;
  g.ncus = g.xcds * g.cus_per_xcd;
  const char *lim = NULL;
  g.wgs_per_cu = fsim_sim_occupancy(a, wp, &g.waves_per_simd, &lim);
  r->wgs_per_cu = g.wgs_per_cu;
  r->waves_per_simd = g.waves_per_simd;
  snprintf(r->occupancy_limit, sizeof r->occupancy_limit, "%s", lim);
  if (g.wgs_per_cu < 1)
    return FSIM_ERR(e, FSIM_EINVAL, "%s: a workgroup does not fit on one CU (%s limit: %d waves of %d VGPRs, %d LDS bytes)",
                    wp->name, lim, wp->waves_per_wg, wp->vgprs + wp->agprs, wp->lds_bytes);
  /* the caches' tag tables, one way entry a line: a what-if part can ask for more than any
   * host holds (4096 CUs of 64 MiB L1s in 16-byte lines: 128 GiB), refused before allocating;
   * arch validation refuses such a part at load (FSIM_ARCH_MAX_CACHE_LINES), this catches one
   * built in code */
  _Static_assert(FSIM_ARCH_MAX_CACHE_LINES * sizeof(fsim__cache_way) <= FSIM__TAG_BYTES_LIMIT,
                 "validation lets through parts whose tags the simulator refuses");
  {
    double lines = (double)g.ncus * (a->memory.l1_bytes / (double)a->memory.l1_line) +
                   (double)g.xcds * (a->memory.l2_bytes / (double)a->memory.l2_line) +
                   a->memory.mall_bytes / (double)a->memory.l2_line;
    double bytes = lines * sizeof(fsim__cache_way);
    if (bytes > FSIM__TAG_BYTES_LIMIT)
      return FSIM_ERR(e, FSIM_ENOMEM, "%s: the simulated caches' tags would take %.1f GiB (%d CUs' L1s, %d L2s and the "
                      "MALL in lines of %d and %d bytes), more than the %.0f GiB allowed", wp->name, bytes / 0x1p30,
                      g.ncus, g.xcds, a->memory.l1_line, a->memory.l2_line, FSIM__TAG_BYTES_LIMIT / 0x1p30);
  }
  fsim_status st = FSIM_OK;
  int64_t total = fsim_wprog_workgroups(wp);
  /* workgroup queues per simulated XCD */
  g.xcd_next = calloc((size_t)g.xcds, sizeof *g.xcd_next);
  g.xcd_launch = calloc((size_t)g.xcds, sizeof *g.xcd_launch);
  g.xcd_end_id = calloc((size_t)g.xcds, sizeof *g.xcd_end_id);
  if (!g.xcd_next || !g.xcd_launch || !g.xcd_end_id) goto oom;
  g.skip_wgs = skip_rounds * g.cus_per_xcd * g.wgs_per_cu;
  reset_queues(&g, total, 0);
  r->workgroups = total;
  if (fsim__memsys_create(&g.mem, a, g.xcds, one_xcd ? 1.0 / g.xcd_total : 1.0) != 0) goto oom;
  g.global_limit = (int64_t)UINT32_MAX << g.mem.line_shift;
  g.window = window > 0 ? window : 1;
  /* programs with flattened sources */
  g.xprogs = calloc((size_t)wp->nprograms, sizeof *g.xprogs);
  if (!g.xprogs) goto oom;
  for (int i = 0; i < wp->nprograms; i++) {
    const fsim_wp_program *p = &wp->programs[i];
    fsim__xprog *x = &g.xprogs[i];
    x->inst = p->inst;
    x->loops = p->loops;
    x->ninst = p->ninst;
    size_t n = 0;
    for (int k = 0; k < p->ninst; k++)
      for (int j = 0; j < p->inst[k].nsrc; j++) n += p->inst[k].src[j].count;
    x->dep_at = malloc(((size_t)p->ninst + 1) * sizeof *x->dep_at);
    x->deps = malloc((n > 0 ? n : 1) * sizeof *x->deps);
    if (!x->dep_at || !x->deps) goto oom;
    n = 0;
    for (int k = 0; k < p->ninst; k++) {
      const fsim_wp_inst *in = &p->inst[k];
      x->dep_at[k] = (int32_t)n;
      for (int j = 0; j < in->nsrc; j++) {
        /* SrcC of an MFMA that accumulates into itself waits only for the pipe when forwarded */
        int acc = in->op == FSIM_OP_MFMA && a->issue.mfma_srcc_forwarding && j == 2 && in->src[j].first == in->dst.first;
        for (int q = 0; q < in->src[j].count; q++)
          x->deps[n++] = (uint32_t)(in->src[j].first + q) | (acc ? FSIM__DEP_ACC : 0);
      }
    }
    x->dep_at[p->ninst] = (int32_t)n;
    /* a loop of markers only is skipped whole, not stepped trip by trip (2^40 trips of
     * nothing are legal and would take hours) */
    x->loop_empty = calloc((size_t)(p->nloops > 0 ? p->nloops : 1), 1);
    if (!x->loop_empty) goto oom;
    for (int l = 0; l < p->nloops; l++)
      x->loop_empty[l] = fsim_wp_program_range_count(p, p->loops[l].begin + 1, p->loops[l].end) == 0;
  }
  /* per-pattern memo */
  g.row_base = calloc((size_t)wp->nlanes + 1, sizeof *g.row_base);
  if (!g.row_base) goto oom;
  int rows = 0;
  for (int i = 0; i < wp->nlanes; i++) {
    g.row_base[i] = rows;
    rows += wp->lanes[i].rows;
  }
  g.row_active = malloc((size_t)(rows > 0 ? rows : 1) * sizeof *g.row_active);
  if (!g.row_active) goto oom;
  for (int i = 0; i < wp->nlanes; i++)
    for (int q = 0; q < wp->lanes[i].rows; q++) g.row_active[g.row_base[i] + q] = __builtin_popcountll(wp->lanes[i].active[q]);
  g.lds_period = (int64_t)a->lds.banks * a->lds.bank_bytes;
  g.patterns = malloc((size_t)(rows > 0 ? rows : 1) * 6 * sizeof *g.patterns);
  g.line_pool_cap = (rows > 0 ? rows : 1) * 6 * wp->wave_size * 2;
  g.line_pool = malloc((size_t)g.line_pool_cap * sizeof *g.line_pool);
  if (!g.patterns || !g.line_pool) goto oom;
  for (int i = 0; i < rows * 6; i++) g.patterns[i] = (fsim__pattern){-1, -1, 0};
  g.ua_memo = malloc((size_t)(rows > 0 ? rows : 1) * 6 * sizeof *g.ua_memo);
  g.row_min_off = malloc((size_t)(rows > 0 ? rows : 1) * sizeof *g.row_min_off);
  g.row_max_off = malloc((size_t)(rows > 0 ? rows : 1) * sizeof *g.row_max_off);
  g.ua_pool_cap = (rows > 0 ? rows : 1) * 6 * 2 * wp->wave_size * 2; /* two offsets per pattern in full */
  g.ua_pool = malloc((size_t)g.ua_pool_cap * sizeof *g.ua_pool);
  if (!g.ua_memo || !g.row_min_off || !g.row_max_off || !g.ua_pool) goto oom;
  for (int i = 0; i < rows * 6; i++)
    for (int k = 0; k < FSIM__UA_SLOTS; k++) g.ua_memo[i].r[k] = -1;
  for (int i = 0; i < wp->nlanes; i++)
    for (int q = 0; q < wp->lanes[i].rows; q++) {
      int64_t m = INT64_MAX, x = INT64_MIN;
      for (int lane = 0; lane < wp->wave_size; lane++) {
        if (!((wp->lanes[i].active[q] >> lane) & 1)) continue;
        int64_t o = wp->lanes[i].offset[q * wp->wave_size + lane];
        if (o < m) m = o;
        if (o > x) x = o;
      }
      g.row_min_off[g.row_base[i] + q] = m == INT64_MAX ? 0 : m;
      g.row_max_off[g.row_base[i] + q] = x == INT64_MIN ? 0 : x;
    }
  /* sampled mode: what other XCDs read too (above) */
  if (one_xcd) {
    if (share_build(&g, total) != 0) goto oom;
    r->sample_share_skipped = g.share_skipped;
    if (g.share_cap > 0) {
      g.share_block = calloc((size_t)g.ncus * g.wgs_per_cu * wp->naddrs, 1);
      if (!g.share_block) goto oom;
    }
  }
  /* CUs */
  g.cus = fsim__huge_calloc((size_t)g.ncus * sizeof *g.cus);
  /* every CU's waves and register scoreboards in two blocks (8 MiB of registers on MI355X) */
  const int slots = g.wgs_per_cu * wp->waves_per_wg;
  const size_t nregs = wp->nregs > 0 ? (size_t)wp->nregs : 1;
  const size_t regs_per_cu = ((size_t)slots * nregs * sizeof(fsim__reg) + 63) / 64 * 64 / sizeof(fsim__reg);
  /* a slot's registers are zeroed at each launch (fsim__cu_launch_wg), so only the slots that
   * launch waves take host memory: a program of 60,000 registers in one wave took 3.9 GB, and
   * 65,535 registers in 16-wave workgroups on every CU 8.4 GB (an audit, 2026-12-02): past the
   * tags' limit it is refused, as they are */
  if ((double)g.ncus * (double)regs_per_cu * sizeof(fsim__reg) > FSIM__TAG_BYTES_LIMIT) {
    st = FSIM_ERR(e, FSIM_ENOMEM, "%s: the register scoreboards would take %.1f GiB (%d registers in %d wave slots on "
                  "each of %d CUs), more than the %.0f GiB allowed", wp->name,
                  (double)g.ncus * (double)regs_per_cu * sizeof(fsim__reg) / 0x1p30, wp->nregs, slots, g.ncus,
                  FSIM__TAG_BYTES_LIMIT / 0x1p30);
    goto done;
  }
  g.wave_block = fsim__huge_calloc((size_t)g.ncus * slots * sizeof *g.wave_block);
  g.reg_block = fsim__huge_malloc((size_t)g.ncus * regs_per_cu * sizeof *g.reg_block);
  if (!g.cus || !g.wave_block || !g.reg_block) goto oom;
  for (int c = 0; c < g.ncus; c++) {
    fsim__cu *cu = &g.cus[c];
    cu->index = c;
    cu->xcd = c / g.cus_per_xcd;
    cu->nwg_slots = g.wgs_per_cu;
    cu->nwave_slots = slots;
    cu->wgs = calloc((size_t)cu->nwg_slots, sizeof *cu->wgs);
    if (cu->wgs && g.share_cap > 0)
      for (int wi = 0; wi < cu->nwg_slots; wi++)
        cu->wgs[wi].shared = &g.share_block[((size_t)c * g.wgs_per_cu + wi) * wp->naddrs];
    cu->waves = &g.wave_block[(size_t)c * slots];
    cu->regs = &g.reg_block[(size_t)c * regs_per_cu];
    cu->phantoms = malloc((size_t)a->cu.simds * FSIM__PHANTOMS * sizeof *cu->phantoms);
    if (!cu->wgs || !cu->phantoms) goto oom;
    for (int s = 0; s < a->cu.simds; s++) cu->simd[s].ph = &cu->phantoms[(size_t)s * FSIM__PHANTOMS];
    for (int s = 0; s < a->cu.simds; s++)
      for (int k = 0; k < FSIM__IT_COUNT; k++) cu->simd[s].slot_used[k] = -1;
    for (int w = 0; w < cu->nwave_slots; w++) cu->waves[w].reg = &cu->regs[(size_t)w * nregs];
    fsim__lds_init(&cu->lds, a);
    if (fsim__vmem_create(&cu->vmem, a) != 0) goto oom;
  }
  if (record_timeline) {
    g.timeline = json_array();
    g.timeline_max = timeline_max;
  }
  /* Deferred vector memory: each XCD's CUs run the window with their vector-memory ops queued,
   * then the ops go through the memory system in the order the CUs issued them (cu.c,
   * fsim__cu_mem_private, then memsys.c's shared pass).  The memory system sees what it would have seen at issue, in the same
   * order, and no wave can use a time before the window's end when the shortest memory latency
   * is at least the window, so the results are those of answering at issue (tests/check_sim.c
   * holds the two equal); the batch lets the host overlap the ops' cache misses.  Not with a
   * timeline, whose spans would be recorded out of order. */
  double min_lat = a->memory.l1_latency;
  if (a->memory.l2_latency < min_lat) min_lat = a->memory.l2_latency;
  if (a->memory.mall_bytes > 0 && a->memory.mall_latency < min_lat) min_lat = a->memory.mall_latency;
  if (a->memory.dram_latency < min_lat) min_lat = a->memory.dram_latency;
  g.defer = !(ref & REF_IMMEDIATE) && !record_timeline && min_lat >= (double)g.window;
  g.mfma_runs = !(ref & REF_EVENTS);
  g.threads = threads;
  g.shuffle_xcds = (ref & REF_SHUFFLE) != 0;
  if (g.defer) {
    /* a SIMD issues at most one vector-memory op per slot, of at most two lines per lane */
    int64_t per = (int64_t)g.cus_per_xcd * a->cu.simds * (g.window / g.period + 2);
    g.ops_cap = (int)per;
    g.op_lines_cap = (int)(per * wp->wave_size * 2);
    g.parked_cap = 2 * g.cus_per_xcd * slots;
    g.ops = malloc((size_t)g.ops_cap * sizeof *g.ops);
    g.op_lines = malloc((size_t)g.op_lines_cap * sizeof *g.op_lines);
    g.parked = malloc((size_t)g.parked_cap * sizeof *g.parked);
    g.passes = calloc((size_t)g.xcds, sizeof *g.passes); /* empty passes */
    if (!g.ops || !g.op_lines || !g.parked || !g.passes) goto oom;
  }
  int64_t t0 = 0;
  int dead = 0;
  if (warm) {
    /* an identical launch first: caches hold what it left, as in a benchmark's repeats, but
     * the L1s, which the command processor invalidates at the start of every dispatch (LLVM
     * AMDGPUUsage, memory model); the L2s keep theirs (docs/simulator.md) */
    dead = run_kernel(&g, 0);
    t0 = g.end_cycle + 1;
    for (int c = 0; c < g.ncus; c++) fsim__cache_reset(&g.cus[c].vmem.l1);
    reset_stats(&g);
    reset_queues(&g, total, t0);
  }
  if (!dead) dead = run_kernel(&g, t0);
  if (dead == -3) {
    st = FSIM_ERR(e, FSIM_ENOMEM, "%s: cannot set up %d simulation threads (out of memory or threads)", wp->name,
                  g.threads);
    goto done;
  }
  if (dead == -2) {
    st = FSIM_ERR(e, FSIM_EINVAL, "%s", g.fault);
    goto done;
  }
  if (dead) {
    int64_t waiting = 0;
    for (int c = 0; c < g.ncus; c++)
      for (int w = 0; w < g.cus[c].nwave_slots; w++) waiting += g.cus[c].waves[w].state == FSIM__W_BARRIER;
    /* cannot happen: a wave that ends releases its workgroup's barriers; defended anyway */
    st = FSIM_ERR(e, FSIM_EFAIL, "%s: internal error: the simulation stopped with %lld waves at a barrier", wp->name,
                  (long long)waiting);
    goto done;
  }
  /* results */
  r->cycles = g.end_cycle - t0;
  r->wave_instructions = g.wave_instructions;
  r->simulated_wave_instructions = g.wave_instructions;
  double cyc = r->cycles > 0 ? (double)r->cycles : 1;
  double mfma_busy = 0, valu_busy = 0;
  for (int c = 0; c < g.ncus; c++) {
    fsim__cu *cu = &g.cus[c];
    for (int s = 0; s < a->cu.simds; s++) {
      mfma_busy += (double)cu->simd[s].mfma.busy;
      valu_busy += (double)cu->simd[s].valu_busy;
      r->mfma_flops += cu->simd[s].mfma.flops;
    }
    r->util_lds += (double)cu->lds.stats.bank_cycles;
    r->lds_bank_cycles += cu->lds.stats.bank_cycles;
    r->lds_accesses += cu->lds.stats.accesses;
    r->util_l1 += (double)cu->vmem.stats.lines * cu->vmem.l1_service;
    r->l1_hits += cu->vmem.stats.l1_hits;
    r->l1_misses += cu->vmem.stats.l1_misses;
    r->store_bytes += cu->store_bytes;
  }
  double lanes = cyc * g.ncus * a->cu.simds;
  r->util_mfma = mfma_busy / lanes;
  r->util_valu = valu_busy / lanes;
  r->util_lds /= cyc * g.ncus;
  r->util_l1 /= cyc * g.ncus;
  for (int x = 0; x < g.xcds; x++) {
    r->l2_hits += g.mem.l2[x].stats.hits;
    r->l2_misses += g.mem.l2[x].stats.misses;
  }
  r->util_l2 = (double)fsim__memsys_l2_serves(&g.mem) * g.mem.l2_service / (cyc * g.xcds * g.mem.l2_channels);
  if (g.mem.has_mall) {
    r->mall_hits = g.mem.mall.stats.hits;
    r->mall_misses = g.mem.mall.stats.misses;
    r->util_mall = g.mem.stats.mall_busy / (cyc * g.mem.mall_slices);
  }
  r->util_dram = g.mem.dram.stats.busy / (cyc * g.mem.dram.channels);
  r->dram_read_bytes = g.mem.dram.stats.read_lines * ((int64_t)1 << g.mem.line_shift);
  r->dram_write_bytes = g.mem.dram.stats.write_lines * ((int64_t)1 << g.mem.line_shift);
  r->store_line_bytes = fsim__memsys_l2_writes(&g.mem) * ((int64_t)1 << g.mem.line_shift);
  if (g.timeline && timeline) {
    *timeline = g.timeline; /* handed to the caller */
    g.timeline = NULL;
    r->timeline_events = g.timeline_n;
    r->timeline_dropped = g.timeline_dropped;
    r->timeline_cut_cycle = g.timeline_dropped ? g.timeline_cut : 0;
  }
  goto done;
oom:
  st = FSIM_ERR(e, FSIM_ENOMEM, "%s: out of memory setting up the simulation", wp->name);
done:
  gpu_free(&g);
  return st;
}

/* The main loop of a program: the one holding the most executed instructions; -1 if none. */
static int main_loop(const fsim_wp_program *p) {
  int best = -1;
  int64_t best_n = 0;
  for (int l = 0; l < p->nloops; l++) {
    const fsim_wp_loop *lp = &p->loops[l];
    int64_t n = fsim_count_mul(lp->trip, fsim_wp_program_range_count(p, lp->begin + 1, lp->end));
    if (n > best_n) best = l, best_n = n;
  }
  return best;
}

/* A copy of wp sharing its instructions, with each program's main loop run `trip` times. */
static fsim_status clone_with_trip(const fsim_wprog *wp, const int *loops, int64_t trip, fsim_wprog *out,
                                   fsim_err *e) {
  *out = *wp;
  out->programs = calloc((size_t)wp->nprograms, sizeof *out->programs);
  if (out->programs == NULL) return FSIM_ERR(e, FSIM_ENOMEM, "out of memory");
  for (int i = 0; i < wp->nprograms; i++) {
    out->programs[i] = wp->programs[i];
    out->programs[i].loops = malloc((size_t)(wp->programs[i].nloops > 0 ? wp->programs[i].nloops : 1) *
                                    sizeof(fsim_wp_loop));
    if (out->programs[i].loops == NULL) {
      for (int j = 0; j < i; j++) free(out->programs[j].loops);
      free(out->programs);
      return FSIM_ERR(e, FSIM_ENOMEM, "out of memory");
    }
    memcpy(out->programs[i].loops, wp->programs[i].loops, (size_t)wp->programs[i].nloops * sizeof(fsim_wp_loop));
    if (loops[i] >= 0) out->programs[i].loops[loops[i]].trip = trip;
  }
  return FSIM_OK;
}

static void clone_free(fsim_wprog *c) {
  for (int i = 0; i < c->nprograms; i++) free(c->programs[i].loops);
  free(c->programs);
}

static fsim_status write_timeline(const char *path, json_t *events, const fsim_arch *a, const fsim_wprog *wp,
                                  const fsim_sim_result *r, fsim_err *e) {
  /* names for the threads the spans use (timeline.c: 4 w + track for wave slot w) */
  int64_t max_tid = -1;
  for (size_t i = 0; i < json_array_size(events); i++) {
    json_int_t tid = json_integer_value(json_object_get(json_array_get(events, i), "tid"));
    if (tid > max_tid) max_tid = tid;
  }
  json_array_append_new(events, json_pack("{s:s,s:s,s:i,s:{s:s}}", "name", "process_name", "ph", "M", "pid", 0, "args",
                                          "name", "CU 0"));
  for (int64_t t = 0; t <= max_tid; t++) {
    char name[64];
    static const char *const track[FSIM__TL_TRACKS] = {"instructions", "MFMA pipe", "VALU", "stalls"};
    snprintf(name, sizeof name, "wave slot %lld: %s", (long long)(t / FSIM__TL_TRACKS), track[t % FSIM__TL_TRACKS]);
    json_array_append_new(events, json_pack("{s:s,s:s,s:i,s:I,s:{s:s}}", "name", "thread_name", "ph", "M", "pid", 0,
                                            "tid", (json_int_t)t, "args", "name", name));
  }
  json_t *root = json_object();
  json_object_set_new(root, "traceEvents", events);
  json_object_set_new(root, "displayTimeUnit", json_string("ns"));
  json_t *meta = json_object();
  json_object_set_new(meta, "tool", json_string("flysim " PACKAGE_VERSION));
  json_object_set_new(meta, "arch", fsim_json_text(a->device.name));
  json_object_set_new(meta, "kernel", fsim_json_text(wp->name));
  json_object_set_new(meta, "clock_ghz", json_real(a->device.sustained_clock_ghz));
  json_object_set_new(meta, "note",
                      json_string("CU 0 only; per wave slot w, thread 4w holds its instructions but MFMAs and VALU, "
                                  "thread 4w+1 its MFMAs (each as long as its matrix-pipe cycles), thread 4w+2 its VALU "
                                  "instructions (each as long as its passes), thread 4w+3 its stalls; ts in "
                                  "microseconds"));
  json_object_set_new(meta, "spans", json_integer(r->timeline_events));
  json_object_set_new(meta, "spans_left_out", json_integer(r->timeline_dropped));
  if (r->timeline_dropped > 0) {
    json_object_set_new(meta, "complete_until_cycle", json_integer(r->timeline_cut_cycle));
    json_object_set_new(meta, "complete_until_us",
                        json_real((double)r->timeline_cut_cycle / (a->device.sustained_clock_ghz * 1e3)));
  }
  json_object_set_new(meta, "sampled", json_boolean(r->sampled));
  json_object_set_new(root, "metadata", meta);
  /* written next to the target and renamed, so a failure leaves no partial file */
  fsim_file_out o;
  fsim_status st = fsim_file_out_open(&o, path, e);
  if (st == FSIM_OK) {
    if (json_dumpf(root, o.f, JSON_COMPACT | JSON_REAL_PRECISION(10)) != 0 && !ferror(o.f)) {
      fsim_file_out_abort(&o);
      st = FSIM_ERR(e, FSIM_EIO, "%s: cannot encode the timeline", path);
    } else {
      st = fsim_file_out_commit(&o, e);
    }
  }
  json_decref(root);
  if (st != FSIM_OK) fsim_err_prefix(e, "--timeline");
  return st;
}

static void finish_result(const fsim_arch *a, fsim_sim_result *r) {
  r->clock_ghz = a->device.sustained_clock_ghz;
  r->kernel_us = (double)r->cycles / (r->clock_ghz * 1e3);
  r->time_us = r->kernel_us + a->dispatch.launch_overhead_us;
}

/* x + k (x - x1) for a count, which never goes below zero, although a straight line through
 * two short runs can (MALL hits that fall as the trips grow, for one). */
static int64_t extrap_count(int64_t x, int64_t x1, double k) {
  int64_t v = x + (int64_t)(k * (double)(x - x1) + 0.5);
  return v > 0 ? v : 0;
}

/* Lengthens an extrapolated result to c cycles (more than it has): its units' busy times are
 * those of the shorter run, so their utilisations fall. */
static void stretch(fsim_sim_result *r, int64_t c) {
  double f = r->cycles > 0 ? (double)r->cycles / (double)c : 0;
  r->util_mfma *= f, r->util_valu *= f, r->util_lds *= f, r->util_l1 *= f;
  r->util_l2 *= f, r->util_mall *= f, r->util_dram *= f;
  r->cycles = c;
}

/* Holds r to its units' busy time (extrapolate): the busiest utilisation at most 100%. */
static void stretch_to_units(fsim_sim_result *r) {
  const double u[] = {r->util_mfma, r->util_valu, r->util_lds, r->util_l1, r->util_l2, r->util_mall, r->util_dram};
  double busiest = 0;
  for (size_t i = 0; i < sizeof u / sizeof u[0]; i++)
    if (u[i] > busiest) busiest = u[i];
  if (busiest > 1) stretch(r, (int64_t)ceil((double)r->cycles * busiest));
}

/* r := r + k (r - r1), for every figure that grows linearly with the sampled dimension
 * (trip count or rounds of workgroups); utilisations through their busy times. */
static void extrapolate(fsim_sim_result *r, const fsim_sim_result *r1, double k) {
  double c1 = (double)r1->cycles, c2 = (double)r->cycles;
  r->cycles += (int64_t)(k * (c2 - c1) + 0.5);
  double cf = r->cycles > 0 ? (double)r->cycles : 1;
#define EXTRAP_UTIL(f) r->f = (r->f * c2 + k * (r->f * c2 - r1->f * c1)) / cf
  EXTRAP_UTIL(util_mfma);
  EXTRAP_UTIL(util_valu);
  EXTRAP_UTIL(util_lds);
  EXTRAP_UTIL(util_l1);
  EXTRAP_UTIL(util_l2);
  EXTRAP_UTIL(util_mall);
  EXTRAP_UTIL(util_dram);
#undef EXTRAP_UTIL
  for (int i = 0; i < FSIM_STALL_COUNT; i++) r->stall[i] += k * (r->stall[i] - r1->stall[i]);
  r->wave_cycles += k * (r->wave_cycles - r1->wave_cycles);
  r->issue_cycles += k * (r->issue_cycles - r1->issue_cycles);
  r->mfma_flops += k * (r->mfma_flops - r1->mfma_flops);
#define EXTRAP(f) r->f = extrap_count(r->f, r1->f, k)
  EXTRAP(waves);
  EXTRAP(l1_hits);
  EXTRAP(l1_misses);
  EXTRAP(l2_hits);
  EXTRAP(l2_misses);
  EXTRAP(mall_hits);
  EXTRAP(mall_misses);
  EXTRAP(dram_read_bytes);
  EXTRAP(dram_write_bytes);
  EXTRAP(store_bytes);
  EXTRAP(store_line_bytes);
  EXTRAP(lds_bank_cycles);
  EXTRAP(lds_accesses);
#undef EXTRAP
  r->simulated_wave_instructions += r1->simulated_wave_instructions;
  /* A straight line through two short runs can pass below what the waves must issue: a loop of
   * loads whose short runs never fill the memory counter (its trips' loads all in flight at
   * once) took 652 cycles extrapolated for a wave that issues 400,000 cycles' worth (the full
   * run: 400,516).  A wave lives at least its issue cycles, and the kernel at least its
   * average wave's: the figures are held to those bounds (they do not bind where the short
   * runs behave as the full one, whose issue is a small part of its time). */
  if (r->wave_cycles < r->issue_cycles) r->wave_cycles = r->issue_cycles;
  if (r->waves > 0) {
    double issue = r->issue_cycles / (double)r->waves;
    if ((double)r->cycles < issue) stretch(r, (int64_t)ceil(issue));
  }
  /* Nor can it pass below what the units serving one request at a time must do: a SIMD's
   * matrix pipe and its VALU, a CU's LDS banks and L1, the L2 channels, MALL slices and DRAM
   * channels.  Their utilisations are busy cycles over the run's cycles averaged over the
   * units, and the run lasts at least its average unit's busy time.  Waves that share a SIMD
   * overlap little in the short runs and much in the full one: mfma_chain.wp on 512
   * workgroups (two waves a SIMD) extrapolated to 107,438 cycles, an MFMA utilisation of 119%,
   * against the full run's 128,515; held to 100%, 127,959.  (The memory levels' bound came
   * later that day: grouped GEMMs' extrapolated HBM time reached 100.2% and 140.8%.) */
  stretch_to_units(r);
}

/* Sampled: the HBM time of the stores a full run would write back beyond what the short runs
 * did (sim.h, sample_unseen_writeback_us): the bytes stored past the MALL's capacity, less the
 * write-back they saw, at the HBM's sustained bandwidth. */
static double unseen_writeback_us(const fsim_arch *a, const fsim_sim_result *r) {
  if (a->memory.mall_bytes <= 0) return 0; /* without one, the L2s' write-back is seen */
  double unseen = (double)r->store_bytes - a->memory.mall_bytes - (double)r->dram_write_bytes;
  double bytes_per_us = a->memory.dram_bus_bits * a->memory.dram_gbps_per_pin / 8.0 * a->memory.dram_efficiency * 1e3;
  return unseen > 0 && bytes_per_us > 0 ? unseen / bytes_per_us : 0;
}

/* What the sampled mode simulates: XCD 0 alone (when every XCD has work), the main loop at two
 * short trip counts (when all programs share one main loop longer than the second), and,
 * when XCD 0 runs 4 or more complete rounds of workgroups, one and two of those rounds. */
typedef struct sample_plan {
  int one_xcd;
  int *loops;          /* main loop per program */
  int64_t trip;        /* its trip count; -1: no steady loop to shorten */
  int s1, s2;
  int64_t rounds;      /* complete rounds of workgroups on XCD 0's CUs */
  int64_t per_xcd;     /* workgroups per XCD */
  int64_t slots;       /* workgroups XCD 0's CUs hold at once */
} sample_plan;

static void sample_free(sample_plan *sp) {
  free(sp->loops);
  sp->loops = NULL;
}

/* The trips after which the global addresses that program p's loop l reads or writes repeat:
 * the least common multiple of their MOD terms at the loop's nesting level (1 when none has
 * one; at most 65536, past which it counts as 65536). */
static int64_t loop_address_period(const fsim_wprog *wp, const fsim_wp_program *p, int l) {
  const fsim_wp_loop *lp = &p->loops[l];
  int level = 0;
  for (int o = 0; o < p->nloops; o++) level += p->loops[o].begin < lp->begin && p->loops[o].end > lp->end;
  int64_t period = 1;
  for (int i = lp->begin + 1; i < lp->end; i++)
    for (int k = 0; k < 2; k++) {
      int ai = k == 0 ? p->inst[i].addr : p->inst[i].addr2;
      if (ai < 0 || ai >= wp->naddrs || wp->addrs[ai].space != FSIM_SPACE_GLOBAL) continue;
      const fsim_wp_addr *ad = &wp->addrs[ai];
      for (int t = 0; t < ad->nterms; t++) {
        int64_t m = ad->term[t].mod;
        if (ad->term[t].level != level || m <= 1 || period % m == 0) continue;
        int64_t x = period, y = m; /* period = lcm(period, m) */
        while (y) {
          int64_t r = x % y;
          x = y, y = r;
        }
        period = period / x * m;
        if (period > 65536) return 65536;
      }
    }
  return period;
}

static fsim_status sample_setup(const fsim_arch *a, const fsim_wprog *wp, const fsim_sim_opts *opts, sample_plan *sp,
                                fsim_err *e) {
  memset(sp, 0, sizeof *sp);
  sp->s1 = opts->sample_trips[0] > 0 ? opts->sample_trips[0] : 6;
  sp->s2 = opts->sample_trips[1] > sp->s1 ? opts->sample_trips[1] : 2 * sp->s1;
  const int default_trips = opts->sample_trips[0] <= 0;
  int64_t total = fsim_wprog_workgroups(wp);
  sp->one_xcd = a->device.xcds > 1 && total >= a->device.xcds;
  sp->loops = calloc((size_t)wp->nprograms, sizeof *sp->loops);
  if (sp->loops == NULL) return FSIM_ERR(e, FSIM_ENOMEM, "out of memory");
  sp->trip = -1;
  int uniform = 1;
  for (int i = 0; i < wp->nprograms; i++) {
    sp->loops[i] = main_loop(&wp->programs[i]);
    int64_t ti = sp->loops[i] >= 0 ? wp->programs[i].loops[sp->loops[i]].trip : -1;
    if (i == 0) sp->trip = ti;
    uniform &= ti == sp->trip;
  }
  if (uniform && sp->trip > 0 && default_trips) {
    /* a main loop whose global addresses repeat every P trips (MOD terms) hits in the caches
     * from trip P on: the default short runs are whole numbers of P trips, P at least, so
     * that both see the reuse (at 6 and 12 trips a period of 20 went unseen: +185% against
     * the full run; docs/simulator.md) */
    int64_t period = 1;
    for (int i = 0; i < wp->nprograms; i++)
      if (sp->loops[i] >= 0) {
        int64_t pi = loop_address_period(wp, &wp->programs[i], sp->loops[i]);
        if (pi > period) period = pi; /* the longest; a run of it covers the others' more often */
      }
    if (period > 1) {
      int64_t s1 = (sp->s1 + period - 1) / period * period;
      sp->s1 = s1 > 32768 ? 32768 : (int)s1;
      sp->s2 = 2 * sp->s1;
    }
  }
  if (!uniform || sp->trip <= sp->s2) sp->trip = -1;
  int wpc = fsim_sim_occupancy(a, wp, NULL, NULL);
  sp->per_xcd = (total + a->device.xcds - 1) / a->device.xcds;
  sp->slots = (int64_t)(a->device.cus / a->device.xcds) * (wpc > 0 ? wpc : 1);
  sp->rounds = sp->one_xcd && a->dispatch.policy == FSIM_DISPATCH_ROUND_ROBIN ? sp->per_xcd / sp->slots : 0;
  if (opts->no_sample_rounds) sp->rounds = 0;
  return FSIM_OK;
}

/* The runs of the simulations (one in full mode, up to four sampled) are independent: each
 * its own GPU state, reading its own program (or clone).  With threads to spare they run side
 * by side, those of several simulations together (fsim_sim_run_batch), which changes no
 * result. */
typedef struct par_run {
  const fsim_arch *a;
  const fsim_wprog *wp;
  int one_xcd;
  int64_t skip;          /* rounds of workgroups each XCD leaves out */
  int warm, ref, tmax;
  int64_t win;
  int record;            /* this run records the timeline (into *tl) */
  int max_threads;       /* the most threads it may take (fsim_sim_opts.threads) */
  fsim_sim_result *r;
  json_t **tl;
  double cost;           /* estimated work: the threads take the costliest first */
  double seconds;        /* host time it took */
  fsim_err e;
  fsim_status st;
} par_run;

typedef struct par_pool {
  par_run **run;         /* in the order the threads take them */
  int n, inner;
  atomic_int next;
} par_pool;

static double now_seconds(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static void *par_pool_main(void *v) {
  par_pool *pp = v;
  for (int i; (i = atomic_fetch_add(&pp->next, 1)) < pp->n;) {
    par_run *p = pp->run[i];
    fsim_err_clear(&p->e);
    double t0 = now_seconds();
    int inner = pp->inner < p->max_threads ? pp->inner : p->max_threads;
    p->st = run_once(p->a, p->wp, p->one_xcd, p->skip, p->warm, p->win, p->ref, inner > 1 ? inner : 1, p->record,
                     p->tmax, p->r, p->record ? p->tl : NULL, &p->e);
    p->seconds = now_seconds() - t0;
  }
  return NULL;
}

/* Runs the n runs on up to thr threads (one: here), the costliest first (ties in run order),
 * each with the threads left over when there are more threads than runs, up to its
 * max_threads (a full run puts them on its XCDs).  Each run's status is in it. */
static void run_all(par_run *run, int n, int thr) {
  enum { MAXT = 64 };
  pthread_t th[MAXT];
  par_run *order[256], **ord = n <= 256 ? order : malloc((size_t)n * sizeof *ord);
  par_pool pp = {.run = ord, .n = n};
  if (ord == NULL) { /* out of memory: one at a time, in run order */
    par_run *one;
    pp.run = &one, pp.n = 1, pp.inner = thr > 1 ? thr : 1;
    for (int i = 0; i < n; i++) {
      one = &run[i];
      atomic_init(&pp.next, 0);
      par_pool_main(&pp);
    }
    return;
  }
  for (int i = 0; i < n; i++) { /* insertion sort, stable: by cost, descending */
    int j = i;
    for (; j > 0 && ord[j - 1]->cost < run[i].cost; j--) ord[j] = ord[j - 1];
    ord[j] = &run[i];
  }
  int nt = thr < n ? thr : n, started = 0;
  if (nt > MAXT) nt = MAXT;
  if (nt < 1) nt = 1;
  pp.inner = n > 0 && n < thr ? thr / n : 1;
  atomic_init(&pp.next, 0);
  while (started < nt - 1 && pthread_create(&th[started], NULL, par_pool_main, &pp) == 0) started++;
  par_pool_main(&pp);
  for (int k = 0; k < started; k++) pthread_join(th[k], NULL);
  if (ord != order) free(ord);
}

/* The first failed run's error, in run order. */
static fsim_status runs_status(const par_run *run, int n, fsim_err *e) {
  for (int i = 0; i < n; i++)
    if (run[i].st != FSIM_OK) {
      if (e) *e = run[i].e;
      return run[i].st;
    }
  return FSIM_OK;
}

/* One simulation: its runs, and for the sampled mode what they sample. */
typedef struct sim_job {
  const fsim_wprog *wp;
  const fsim_sim_opts *opts;
  fsim_sim_result *r;
  int tmax, ref;         /* the runs' timeline limit and reference modes (REF_*) */
  int64_t win;           /* and window */
  sample_plan sp;
  int npts;              /* sampled points: 1 or 2 */
  int64_t ra;            /* with 2 points: the rounds between them */
  int clones;            /* w1 and w2 are made */
  fsim_wprog w1, w2;     /* wp at the two short trip counts */
  fsim_sim_result pt[2], short_run[2];
  par_run run[4];
  int nrun;
  double seconds;        /* host time of its runs */
} sim_job;

/* Sampled points: the rounds after skip[k] for k < npts (1 or 2), each with the main loop
 * extrapolated from two short trip counts (or simulated as is when there is no steady loop),
 * into j->pt[k]; the last point records the timeline when asked.  Sets j->run to their runs
 * (up to four). */
static fsim_status sample_runs(const fsim_arch *a, sim_job *j, int npts, const int64_t *skip, int record, json_t **tl,
                               fsim_err *e) {
  const sample_plan *sp = &j->sp;
  j->npts = npts;
  j->nrun = 0;
  if (sp->trip >= 0) {
    fsim_status st = clone_with_trip(j->wp, sp->loops, sp->s1, &j->w1, e);
    if (st != FSIM_OK) return st;
    st = clone_with_trip(j->wp, sp->loops, sp->s2, &j->w2, e);
    if (st != FSIM_OK) {
      clone_free(&j->w1);
      return st;
    }
    j->clones = 1;
  }
  int64_t total = fsim_wprog_workgroups(j->wp);
  for (int k = npts - 1; k >= 0; k--) /* fewer rounds skipped: longer */
    for (int w = 2; w >= (sp->trip >= 0 ? 1 : 2); w--) {
      const fsim_wprog *p = sp->trip < 0 ? j->wp : w == 2 ? &j->w2 : &j->w1;
      /* its wave instructions, of the workgroups it simulates */
      double wgs = sp->one_xcd ? (double)(sp->per_xcd - skip[k] * sp->slots) : (double)total;
      double cost = (double)fsim_wprog_total_wave_instructions(p) / (double)(total > 0 ? total : 1) * wgs;
      j->run[j->nrun++] = (par_run){.a = a, .wp = p, .one_xcd = sp->one_xcd, .skip = skip[k], .warm = j->opts->warm,
                                    .ref = j->ref, .tmax = j->tmax, .win = j->win,
                                    .record = record && k == npts - 1 && w == 2,
                                    .max_threads = j->opts->threads, .r = w == 2 ? &j->pt[k] : &j->short_run[k],
                                    .tl = tl, .cost = cost};
    }
  return FSIM_OK;
}

/* After the runs of sample_runs: the clones freed, each point extrapolated to the full trip
 * count (cycles(T) = cycles(s2) + (T - s2) * slope). */
static void sample_points_done(sim_job *j, fsim_status st) {
  if (j->clones) {
    clone_free(&j->w2);
    clone_free(&j->w1);
    j->clones = 0;
  }
  const sample_plan *sp = &j->sp;
  if (st != FSIM_OK || sp->trip < 0) return;
  for (int k = 0; k < j->npts; k++) {
    double c1 = (double)j->short_run[k].cycles, c2 = (double)j->pt[k].cycles;
    extrapolate(&j->pt[k], &j->short_run[k], (double)(sp->trip - sp->s2) / (sp->s2 - sp->s1));
    j->pt[k].sample_period_cycles = (c2 - c1) / (sp->s2 - sp->s1);
  }
}

/* Sets up job j (its program validated) and its runs: the whole program in full mode; in
 * sampled mode the points of its plan: with 4 or more complete rounds of workgroups A and 2A
 * of them (plus the partial last round; A = 1, or 2 from 8 rounds on so that the increment is
 * past the first round's cold caches), to be extrapolated linearly to all of them; else all
 * of XCD 0's. */
static fsim_status job_start(const fsim_arch *a, sim_job *j, int record, json_t **tl, fsim_err *e) {
  const fsim_sim_opts *o = j->opts;
  j->tmax = o->timeline_max_events > 0 ? o->timeline_max_events : 200000;
  j->win = o->window > 0 ? o->window : FSIM_SIM_DEFAULT_WINDOW;
  j->ref = (o->immediate_memory ? REF_IMMEDIATE : 0) | (o->no_mfma_runs ? REF_EVENTS : 0) |
           (o->shuffle_xcds ? REF_SHUFFLE : 0);
  if (!o->sampled) {
    j->nrun = 1;
    j->run[0] = (par_run){.a = a, .wp = j->wp, .warm = o->warm, .ref = j->ref, .tmax = j->tmax, .win = j->win,
                          .record = record,
                          .max_threads = o->threads, .r = j->r, .tl = tl,
                          .cost = (double)fsim_wprog_total_wave_instructions(j->wp)};
    return FSIM_OK;
  }
  fsim_status st = sample_setup(a, j->wp, o, &j->sp, e);
  if (st != FSIM_OK) return st;
  if (j->sp.rounds >= 4) {
    j->ra = j->sp.rounds >= 8 ? 2 : 1;
    int64_t skip[2] = {j->sp.rounds - j->ra, j->sp.rounds - 2 * j->ra};
    return sample_runs(a, j, 2, skip, record, tl, e);
  }
  int64_t none = 0;
  return sample_runs(a, j, 1, &none, record, tl, e);
}

/* After job j's runs (their status st): its result in j->r.  A sampled job whose rounds did
 * not behave as the extrapolation needs runs again here, on thr threads. */
static fsim_status job_finish(const fsim_arch *a, sim_job *j, fsim_status st, int thr, int record, json_t **tl,
                              fsim_err *e) {
  for (int i = 0; i < j->nrun; i++) j->seconds += j->run[i].seconds;
  const fsim_sim_opts *o = j->opts;
  if (!o->sampled) return st;
  fsim_sim_result *r = j->r;
  sample_points_done(j, st);
  int64_t rounds_run[2] = {0, 0}; /* stays 0 unless the rounds are extrapolated */
  if (st == FSIM_OK && j->npts == 2) {
    /* A rounds add about A workgroup lifetimes: pt[0] (A rounds and the partial last) spans at
     * most A + 1, so an increment far above that share means the short trip counts did not
     * behave like the full ones (workgroups of one CU overlapping differently, as a one-stage
     * ping-pong with two workgroups per CU does), and one below 0.9 of it that the rounds
     * are not yet steady (the A rounds the longer run adds came out cheaper than the average
     * round of the shorter: on MI300X, small tiles six or more to a CU, whose cost per round
     * wanders from round to round, docs/simulator.md).  Then the rounds are not extrapolated:
     * XCD 0's whole share is simulated at the short trips. */
    const fsim_sim_result *r1 = &j->pt[0];
    int64_t ra = j->ra, inc = j->pt[1].cycles - r1->cycles;
    /* and where DRAM is busy for half the shorter run or more, its bytes decide the time: the
     * rounds' bytes must be steady too.  An increment below half of r1's share or above twice
     * it means the rounds' data come in blocks longer than the runs (split-K slices that XCD 0
     * works through eight rounds at a time: 0.04 of the share, and the rounds came out 6%
     * fast with HBM bytes below what any launch reads; docs/simulator.md).  No run of the
     * default suites' refinements is that DRAM-bound (0.24 at most) */
    double binc = (double)(j->pt[1].dram_read_bytes - r1->dram_read_bytes),
           bshare = (double)r1->dram_read_bytes * (double)ra / (double)(ra + 1);
    int bytes_unsteady = r1->util_dram >= 0.5 && (binc < 0.5 * bshare || binc > 2 * bshare);
    if (inc * 10 * (ra + 1) < r1->cycles * ra * 9 || inc > 2 * r1->cycles || bytes_unsteady) {
      if (tl && *tl) json_decref(*tl);
      if (tl) *tl = NULL;
      int64_t none = 0;
      st = sample_runs(a, j, 1, &none, record, tl, e);
      if (st == FSIM_OK) {
        run_all(j->run, j->nrun, thr);
        st = runs_status(j->run, j->nrun, e);
        for (int i = 0; i < j->nrun; i++) j->seconds += j->run[i].seconds;
      }
      sample_points_done(j, st);
      if (st == FSIM_OK) *r = j->pt[0];
    } else {
      *r = j->pt[1];
      extrapolate(r, r1, (double)(j->sp.rounds - 2 * ra) / (double)ra);
      rounds_run[0] = ra, rounds_run[1] = 2 * ra;
    }
  } else if (st == FSIM_OK) {
    *r = j->pt[0];
  }
  if (st == FSIM_OK && j->sp.one_xcd) {
    /* the other XCDs did the same work in the same time */
    int x = a->device.xcds;
    for (int i = 0; i < FSIM_STALL_COUNT; i++) r->stall[i] *= x;
    r->wave_cycles *= x;
    r->issue_cycles *= x;
    r->mfma_flops *= x;
    r->waves *= x;
    r->l1_hits *= x, r->l1_misses *= x, r->l2_hits *= x, r->l2_misses *= x;
    r->mall_hits *= x, r->mall_misses *= x, r->dram_read_bytes *= x, r->dram_write_bytes *= x;
    r->store_bytes *= x, r->store_line_bytes *= x;
    r->lds_bank_cycles *= x, r->lds_accesses *= x;
  }
  if (st == FSIM_OK) {
    r->sampled = 1;
    r->wave_instructions = fsim_wprog_total_wave_instructions(j->wp);
    /* only stored lines are ever written back; the short runs' write-back need not grow
     * with the trip count (a GEMM's C is written once), so its linear extrapolation is
     * held to that */
    if (r->dram_write_bytes > r->store_line_bytes) r->dram_write_bytes = r->store_line_bytes;
    r->sample_unseen_writeback_us = unseen_writeback_us(a, r);
    /* DRAM writes that write-back at its sustained bandwidth during the run, besides what the
     * short runs' channels did: it counts in the DRAM's utilisation, and the run lasts at least
     * the DRAM's time (a tall GEMM whose C passes the MALL came out 40% fast, below the HBM
     * time of its own bytes; a kernel that overlaps the write-back with compute is not held
     * back while DRAM has the time to spare) */
    if (r->sample_unseen_writeback_us > 0 && r->cycles > 0) {
      r->util_dram += r->sample_unseen_writeback_us * a->device.sustained_clock_ghz * 1e3 / (double)r->cycles;
      stretch_to_units(r);
    }
    r->sample_xcds = j->sp.one_xcd ? a->device.xcds : 1;
    if (j->sp.trip >= 0) {
      r->sample_loop_trips = j->sp.trip;
      r->sample_trips[0] = j->sp.s1, r->sample_trips[1] = j->sp.s2;
    }
    if (rounds_run[0] > 0) {
      r->sample_rounds = j->sp.rounds;
      r->sample_rounds_run[0] = rounds_run[0], r->sample_rounds_run[1] = rounds_run[1];
    }
  }
  return st;
}

static void job_free(sim_job *j) {
  if (j->clones) sample_points_done(j, FSIM_EFAIL);
  sample_free(&j->sp);
}

/* A full run that cannot end within the cycle limit, refused before it runs (it was refused
 * at the limit, after up to minutes of simulating): a wave needs at least a cycle for each
 * instruction that takes an issue slot and N for `nop N`, waits, barriers and priorities
 * none; and its SIMD's VALU and matrix pipe, which the workgroup's waves of the program
 * share, at least its own busy time times the waves on that SIMD (an audit found a loop of
 * `valu cycles=1000` on 16 waves a workgroup simulated 27 s to the limit). */
static fsim_status check_full_length(const fsim_arch *a, const fsim_wprog *wp, const fsim_sim_opts *opts,
                                     fsim_err *e) {
  if (opts->sampled) return FSIM_OK; /* the short runs are checked as they run */
  for (int pi = 0; pi < wp->nprograms; pi++) {
    const fsim_wp_program *p = &wp->programs[pi];
    int64_t issue = 0, valu = 0, mfma = 0;
    for (int i = 0; i < p->ninst; i++) {
      const fsim_wp_inst *in = &p->inst[i];
      int64_t c = in->op == FSIM_OP_NOP ? (in->arg > 0 ? in->arg : 1)
                  : in->op == FSIM_OP_WAITCNT || in->op == FSIM_OP_BARRIER || in->op == FSIM_OP_SETPRIO ||
                          in->op == FSIM_OP_LOOP || in->op == FSIM_OP_END
                      ? 0
                      : 1;
      int64_t u = in->op == FSIM_OP_VALU   ? (int64_t)a->issue.valu_cycles * (in->arg > 1 ? in->arg : 1)
                  : in->op == FSIM_OP_MFMA ? (int64_t)a->mfma[in->arg].passes * a->issue.mfma_pass_cycles
                                           : 0;
      for (int l = 0; l < p->nloops && (c > 0 || u > 0); l++)
        if (p->loops[l].begin < i && i < p->loops[l].end) c = fsim_count_mul(c, p->loops[l].trip), u = fsim_count_mul(u, p->loops[l].trip);
      issue = fsim_count_add(issue, c);
      if (in->op == FSIM_OP_VALU) valu = fsim_count_add(valu, u);
      if (in->op == FSIM_OP_MFMA) mfma = fsim_count_add(mfma, u);
    }
    int waves = 0; /* the workgroup's waves that run it, spread over the SIMDs */
    for (int w = 0; w < wp->waves_per_wg; w++) waves += wp->wave_program[w] == pi;
    int64_t per_simd = (waves + a->cu.simds - 1) / a->cu.simds;
    int64_t least = issue;
    const char *what = "issues for", *with = "";
    if (fsim_count_mul(valu, per_simd) > least)
      least = fsim_count_mul(valu, per_simd), what = "keeps its SIMD's VALU busy for";
    if (fsim_count_mul(mfma, per_simd) > least)
      least = fsim_count_mul(mfma, per_simd), what = "keeps its SIMD's matrix pipe busy for";
    if (least > issue && per_simd > 1) with = " (with the workgroup's other waves on that SIMD)";
    if (least > FSIM__CYCLE_LIMIT)
      return FSIM_ERR(e, FSIM_EINVAL,
                      "%s: a wave of program %d %s at least %lld cycles%s, past the %lld that the simulated caches' "
                      "31-bit time stamps allow; simulate it sampled (a few iterations of its main loop)",
                      wp->name, pi, what, (long long)least, with, (long long)FSIM__CYCLE_LIMIT);
  }
  return FSIM_OK;
}

fsim_status fsim_sim_run(const fsim_arch *a, const fsim_wprog *wp, const fsim_sim_opts *opts, fsim_sim_result *r,
                         fsim_err *e) {
  fsim_sim_opts def = {0};
  if (opts == NULL) opts = &def;
  double t0 = now_seconds();
  fsim_status st = fsim_wprog_validate(wp, a, e);
  if (st == FSIM_OK) st = check_full_length(a, wp, opts, e);
  if (st != FSIM_OK) return st;
  /* a bad --timeline path is refused before the run, not after it */
  if (opts->timeline_path != NULL && (st = fsim_file_out_check(opts->timeline_path, e)) != FSIM_OK) {
    fsim_err_prefix(e, "--timeline");
    return st;
  }
  if (opts->sampled) {
    /* 0 stands for the default (6, and twice the first) */
    const int *tr = opts->sample_trips;
    if (tr[0] < 0 || tr[1] < 0 || (tr[1] > 0 && tr[1] <= (tr[0] > 0 ? tr[0] : 6)))
      return FSIM_ERR(e, FSIM_EINVAL,
                      "sample trips %d and %d: the first must be at least 1 and the second larger (0: the default)",
                      tr[0], tr[1]);
  }
  const int record = opts->timeline_path != NULL;
  json_t *tl = NULL;
  sim_job *j = calloc(1, sizeof *j);
  if (j == NULL) return FSIM_ERR(e, FSIM_ENOMEM, "out of memory");
  j->wp = wp, j->opts = opts, j->r = r;
  st = job_start(a, j, record, &tl, e);
  if (st == FSIM_OK) {
    run_all(j->run, j->nrun, opts->threads);
    st = runs_status(j->run, j->nrun, e);
  }
  if (st == FSIM_OK || opts->sampled) st = job_finish(a, j, st, opts->threads, record, &tl, e);
  job_free(j);
  free(j);
  if (st == FSIM_OK && record && tl != NULL) {
    st = write_timeline(opts->timeline_path, tl, a, wp, r, e);
    tl = NULL;
  }
  if (tl) json_decref(tl);
  if (st != FSIM_OK) return st;
  finish_result(a, r);
  r->warm = opts->warm != 0;
  r->host_seconds = now_seconds() - t0;
  return FSIM_OK;
}

fsim_status fsim_sim_run_batch(const fsim_arch *a, int n, const fsim_wprog *const *wps, const fsim_sim_opts *opts,
                               int threads, fsim_sim_result *r, fsim_status *st, fsim_err *errs) {
  sim_job *jobs = calloc((size_t)(n > 0 ? n : 1), sizeof *jobs);
  par_run *runs = calloc((size_t)(n > 0 ? 4 * n : 1), sizeof *runs);
  int *first = calloc((size_t)(n > 0 ? n : 1), sizeof *first);
  if (jobs == NULL || runs == NULL || first == NULL) {
    for (int i = 0; i < n; i++) st[i] = FSIM_ERR(&errs[i], FSIM_ENOMEM, "out of memory");
    free(jobs), free(runs), free(first);
    return n > 0 ? FSIM_ENOMEM : FSIM_OK;
  }
  /* every job's runs in one list, for the threads to share; a job's runs stay together in
   * it, in the job's order, so that a job's first failure is found as fsim_sim_run finds it */
  int nruns = 0;
  for (int i = 0; i < n; i++) {
    sim_job *j = &jobs[i];
    j->wp = wps[i], j->opts = &opts[i], j->r = &r[i];
    fsim_err_clear(&errs[i]);
    st[i] = opts[i].timeline_path != NULL
                ? FSIM_ERR(&errs[i], FSIM_EINVAL, "internal: a batch of simulations records no timeline")
                : fsim_wprog_validate(wps[i], a, &errs[i]);
    if (st[i] == FSIM_OK) st[i] = check_full_length(a, wps[i], &opts[i], &errs[i]);
    if (st[i] == FSIM_OK) st[i] = job_start(a, j, 0, NULL, &errs[i]);
    first[i] = nruns;
    if (st[i] == FSIM_OK) { /* (their results go to the job: pt, short_run, r) */
      memcpy(&runs[nruns], j->run, (size_t)j->nrun * sizeof *runs);
      nruns += j->nrun;
    }
  }
  run_all(runs, nruns, threads);
  fsim_status first_failed = FSIM_OK;
  for (int i = 0; i < n; i++) {
    sim_job *j = &jobs[i];
    if (st[i] == FSIM_OK) {
      memcpy(j->run, &runs[first[i]], (size_t)j->nrun * sizeof *runs);
      st[i] = runs_status(j->run, j->nrun, &errs[i]);
      if (st[i] == FSIM_OK || opts[i].sampled) st[i] = job_finish(a, j, st[i], threads, 0, NULL, &errs[i]);
      if (st[i] == FSIM_OK) {
        finish_result(a, &r[i]);
        r[i].warm = opts[i].warm != 0;
        r[i].host_seconds = j->seconds;
      }
    }
    job_free(j);
    if (st[i] != FSIM_OK && first_failed == FSIM_OK) first_failed = st[i];
  }
  free(jobs), free(runs), free(first);
  return first_failed;
}

/* A sampled run's warm-up is itself sampled: its shortened loops leave their own, smaller
 * footprint in the caches, so past the last level's capacity it cannot tell which part of the
 * kernel's data a warm launch finds there (docs/simulator.md). */
fsim_status fsim_sim_warm_sampled(const fsim_arch *a, int64_t footprint, int *sampled, fsim_err *e) {
  long long cap = a->memory.mall_bytes > 0 ? a->memory.mall_bytes : (long long)a->memory.l2_bytes * a->device.xcds;
  if (footprint <= cap) return FSIM_OK;
  if (*sampled == 1)
    return FSIM_ERR(e, FSIM_EINVAL,
                    "--sampled and --warm: A, B and C (%.1f MiB) pass the %s (%.1f MiB), and a sampled run cannot "
                    "tell which part of them a warm launch finds there; use --full",
                    (double)footprint / 1048576.0, a->memory.mall_bytes > 0 ? "MALL" : "L2s", (double)cap / 1048576.0);
  *sampled = 0;
  return FSIM_OK;
}
