/* Tuning: see tune.h.  Candidates are ranked by the model's time; ties keep enumeration
 * order, so the result is deterministic.  With fsim_tune_opts.compiled the simulated winners
 * are also compiled and read back (kernels/verify.h), for what the wave program leaves out:
 * clang's register moves and address arithmetic.  Kernels of more than FSIM_TUNE_FULL_LIMIT wave
 * instructions are simulated in the sampled mode unless asked otherwise. */
#include "config.h"

#include "tune/tune.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "kernels/verify.h"

#define FSIM_TUNE_FULL_LIMIT 1000000 /* wave instructions simulated in full when sampling is auto */

/* Ranking: the threads share the space's chunks (fsim_gemm_enumerate_shared), each keeping
 * the candidates it visits with their chunk; the merged ranking is the one a single pass
 * would give (below). */
typedef struct rank_ctx {
  const fsim_arch *a;
  const fsim_gemm_problem *pr;
  const fsim_gemm_config *fixed;
  atomic_int *next_chunk;
  fsim_tune_candidate *all;
  int64_t *chunk; /* per candidate: its chunk (fsim_gemm_chunk_of) */
  int64_t n, cap, tried, legal;
  int oom;
  fsim_status st;
  fsim_err e;
} rank_ctx;

static int visit(void *vctx, const fsim_gemm_plan *p) {
  rank_ctx *ctx = vctx;
  fsim_plan_summary sum;
  fsim_estimate est;
  fsim_gemm_summary(p, &sum);
  if (fsim_model_estimate(ctx->a, &sum, &est) != 0) return 0;
  if (ctx->n == ctx->cap) {
    int64_t nc = ctx->cap ? ctx->cap * 2 : 4096;
    fsim_tune_candidate *na = realloc(ctx->all, (size_t)nc * sizeof *na);
    if (na != NULL) ctx->all = na;
    int64_t *nk = na != NULL ? realloc(ctx->chunk, (size_t)nc * sizeof *nk) : NULL;
    if (nk == NULL) {
      ctx->oom = 1;
      return 1;
    }
    ctx->chunk = nk;
    ctx->cap = nc;
  }
  ctx->chunk[ctx->n] = fsim_gemm_chunk_of(p);
  fsim_tune_candidate *c = &ctx->all[ctx->n++];
  fsim_gemm_config_format(&p->s, c->config, sizeof c->config);
  c->model_us = est.time_us;
  c->model_bound = est.bound;
  c->sim_us = 0;
  c->agprs_full = ctx->a->cu.max_agprs > 0 && p->agprs >= ctx->a->cu.max_agprs;
  c->stages_used = fsim_gemm_used_stages(p);
  return 0;
}

static void *rank_worker(void *v) {
  rank_ctx *ctx = v;
  fsim_err_clear(&ctx->e);
  ctx->st = fsim_gemm_enumerate_shared(ctx->pr, ctx->fixed, ctx->a, visit, ctx, ctx->next_chunk, &ctx->tried, &ctx->legal,
                                       &ctx->e);
  return NULL;
}

/* Stable by model time: sorted by time, then in enumeration order (chunk, then the position
 * in the list of the thread that visited the chunk), NaN last; then the candidates are moved
 * once into that order (sorting the 232-byte candidates themselves moved each of them
 * log2(n) times). */
typedef struct rank_key {
  double t;
  int64_t chunk, pos;
  int k; /* the thread whose list holds it */
} rank_key;

static int rank_key_before(const rank_key *a, const rank_key *b) {
  int na = a->t != a->t, nb = b->t != b->t;
  if (na != nb) return nb;
  if (!na && a->t != b->t) return a->t < b->t;
  if (a->chunk != b->chunk) return a->chunk < b->chunk;
  return a->pos < b->pos;
}

/* a merge sort of the keys (qsort calls back through a pointer for every comparison) */
static void sort_keys(rank_key *k, rank_key *tmp, int64_t n) {
  if (n < 2) return;
  int64_t h = n / 2, i = 0, j = h, o = 0;
  sort_keys(k, tmp, h);
  sort_keys(k + h, tmp, n - h);
  while (i < h && j < n) tmp[o++] = rank_key_before(&k[j], &k[i]) ? k[j++] : k[i++];
  while (i < h) tmp[o++] = k[i++];
  while (j < n) tmp[o++] = k[j++];
  memcpy(k, tmp, (size_t)n * sizeof *k);
}

/* The threads' candidates (nctx lists, n in all) in ranking order into out; -1 when out of
 * memory. */
static int merge_ranked(const rank_ctx *ctx, int nctx, int64_t n, fsim_tune_candidate *out) {
  rank_key *k = malloc((size_t)(n > 0 ? 2 * n : 1) * sizeof *k);
  if (k == NULL) return -1;
  int64_t m = 0;
  for (int c = 0; c < nctx; c++)
    for (int64_t i = 0; i < ctx[c].n; i++) k[m++] = (rank_key){ctx[c].all[i].model_us, ctx[c].chunk[i], i, c};
  sort_keys(k, k + n, n);
  for (int64_t i = 0; i < n; i++) out[i] = ctx[k[i].k].all[k[i].pos];
  free(k);
  return 0;
}

const char *fsim_tune_sim_bound(const fsim_sim_result *r) { return fsim_tune_bound(r, NULL); }

const char *fsim_tune_bound(const fsim_sim_result *r, const fsim_estimate *est) {
  /* A sampled run simulates XCD 0 alone, whose share of the MALL does not see the lines the
   * other XCDs bring in: its MALL and DRAM utilisation read high where the operands are
   * shared.  Those two only name the bound then if the model's DRAM time (the unique bytes)
   * is itself a large part of the kernel. */
  int memory_ok = !r->sampled || est == NULL || est->cycles <= 0 || est->t_hbm >= 0.6 * est->cycles;
  struct {
    const char *name;
    double u;
    int memory;
  } u[] = {{"mfma", r->util_mfma, 0}, {"lds", r->util_lds, 0},   {"l1", r->util_l1, 0},
           {"l2", r->util_l2, 0},     {"mall", r->util_mall, 1}, {"hbm", r->util_dram, 1}};
  int best = -1;
  for (int i = 0; i < 6; i++) {
    if (u[i].memory && !memory_ok) continue;
    if (best < 0 || u[i].u > u[best].u) best = i;
  }
  return u[best].u >= 0.6 ? u[best].name : "latency";
}

/* What simulating schedule s needs: its wave program (*wp, to free) and the simulator's
 * options (sampled < 0: sampled above FSIM_TUNE_FULL_LIMIT wave instructions, unless a warm
 * launch's footprint passes the caches), and the model's estimate (est, if not NULL). */
static fsim_status evaluate_prepare(const fsim_arch *a, const fsim_schedule *s, int sampled, int warm, int threads,
                                    const char *timeline, fsim_wprog *wp, fsim_sim_opts *o, fsim_estimate *est,
                                    fsim_err *e) {
  fsim_gemm_plan *p = malloc(sizeof *p);
  if (p == NULL) return FSIM_ERR(e, FSIM_ENOMEM, "out of memory");
  fsim_status st = fsim_gemm_plan_make(p, s, a, e);
  int64_t footprint = 0;
  if (st == FSIM_OK) {
    fsim_plan_summary sum;
    fsim_gemm_summary(p, &sum);
    footprint = sum.unique_bytes;
    if (est && fsim_model_estimate(a, &sum, est) != 0) memset(est, 0, sizeof *est);
    st = fsim_gemm_wave_program(p, wp, e);
  }
  free(p);
  if (st != FSIM_OK) return st;
  if (warm && (st = fsim_sim_warm_sampled(a, footprint, &sampled, e)) != FSIM_OK) {
    fsim_wprog_free(wp);
    return st;
  }
  if (sampled < 0) sampled = fsim_wprog_total_wave_instructions(wp) > FSIM_TUNE_FULL_LIMIT;
  *o = (fsim_sim_opts){.sampled = sampled, .warm = warm, .timeline_path = timeline,
                       .threads = threads > 1 && fsim_sim_threads_for(wp) > 1 ? threads : 1};
  return FSIM_OK;
}

fsim_status fsim_tune_evaluate(const fsim_arch *a, const fsim_schedule *s, int sampled, int warm,
                               const int *sample_trips, int threads, const char *timeline, fsim_sim_result *sim,
                               fsim_estimate *est, fsim_err *e) {
  fsim_wprog wp;
  fsim_sim_opts o;
  fsim_status st = evaluate_prepare(a, s, sampled, warm, threads, timeline, &wp, &o, est, e);
  if (st != FSIM_OK) return st;
  if (sample_trips) o.sample_trips[0] = sample_trips[0], o.sample_trips[1] = sample_trips[1];
  st = fsim_sim_run(a, &wp, &o, sim, e);
  fsim_wprog_free(&wp);
  return st;
}

fsim_status fsim_tune_rank(const fsim_arch *a, const fsim_gemm_problem *pr, const fsim_gemm_config *fixed,
                           fsim_tune_candidate **out, int64_t *n, int64_t *tried, int64_t *legal, fsim_err *e) {
  *out = NULL;
  *n = 0;
  fsim_gemm_config free_all;
  fsim_gemm_config_free_all(&free_all);
  /* the host's threads share the chunks, claiming them as they go: a thread that does not
   * start leaves its chunks to the others */
  enum { MAX_RANK_THREADS = 8 };
  rank_ctx ctx[MAX_RANK_THREADS];
  pthread_t th[MAX_RANK_THREADS];
  int started[MAX_RANK_THREADS] = {0};
  atomic_int next_chunk;
  atomic_init(&next_chunk, 0);
  int nt = fsim_host_threads();
  if (nt > MAX_RANK_THREADS) nt = MAX_RANK_THREADS;
  if (nt < 1) nt = 1;
  for (int k = 0; k < nt; k++)
    ctx[k] = (rank_ctx){.a = a, .pr = pr, .fixed = fixed ? fixed : &free_all, .next_chunk = &next_chunk};
  for (int k = 1; k < nt; k++) started[k] = pthread_create(&th[k], NULL, rank_worker, &ctx[k]) == 0;
  rank_worker(&ctx[0]);
  started[0] = 1;
  fsim_status st = FSIM_OK;
  int64_t total = 0;
  if (tried) *tried = 0;
  if (legal) *legal = 0;
  for (int k = 0; k < nt; k++) {
    if (!started[k]) continue;
    if (k > 0) pthread_join(th[k], NULL);
    if (st == FSIM_OK && ctx[k].st != FSIM_OK) {
      st = ctx[k].st;
      if (e) *e = ctx[k].e;
    }
    if (st == FSIM_OK && ctx[k].oom) st = FSIM_ERR(e, FSIM_ENOMEM, "out of memory ranking configurations");
    total += ctx[k].n;
    if (tried) *tried += ctx[k].tried;
    if (legal) *legal += ctx[k].legal;
  }
  if (st == FSIM_OK && total == 0) {
    char keys[400] = "";
    if (fixed) fsim_gemm_config_fixed_text(fixed, keys, sizeof keys);
    if (keys[0]) /* name the fixed key at fault and why */
      st = fsim_gemm_config_explain(pr, fixed, a, e);
    else
      st = FSIM_ERR(e, FSIM_EINVAL, "no legal configuration for %s %lldx%lldx%lld %s on %s", fsim_kop_name(pr->op),
                    pr->m, pr->n, pr->k, fsim_dtype_name(pr->a), a->device.name);
  }
  fsim_tune_candidate *sorted = st == FSIM_OK ? malloc((size_t)(total > 0 ? total : 1) * sizeof *sorted) : NULL;
  if (st == FSIM_OK && (sorted == NULL || merge_ranked(ctx, nt, total, sorted) != 0))
    st = FSIM_ERR(e, FSIM_ENOMEM, "out of memory");
  for (int k = 0; k < nt; k++) {
    free(ctx[k].all);
    free(ctx[k].chunk);
  }
  if (st != FSIM_OK) {
    free(sorted);
    return st;
  }
  *out = sorted;
  *n = total;
  return FSIM_OK;
}

/* The part of a config that shapes the kernel most: the text up to ",path=" (tile, waves,
 * stages, MMA atom, split-K) plus the pipeline kind; its stages as many as its K slice keeps
 * busy, T + 1 for T tiles (stage counts past that simulate alike: they only hold LDS). */
static void core_of(const fsim_tune_candidate *c, char *out, size_t n) {
  const char *config = c->config;
  const char *cut = strstr(config, ",path=");
  const char *kind = strstr(config, ",kind=");
  const char *st = strstr(config, ",stages=");
  if (st == NULL || (cut != NULL && st > cut)) {
    snprintf(out, n, "%.*s%s", cut ? (int)(cut - config) : (int)strlen(config), config, kind ? kind : "");
    return;
  }
  const char *after = st + strcspn(st + 1, ",") + 1;
  snprintf(out, n, "%.*s,stages=%d%.*s%s", (int)(st - config), config, c->stages_used,
           cut ? (int)(cut - after) : (int)strlen(after), after, kind ? kind : "");
}

static int picked(const int *pick, int n, int i) {
  for (int j = 0; j < n; j++)
    if (pick[j] == i) return 1;
  return 0;
}

/* 1 when one of the n picks has candidate i's key (key_of: the config's tile, core or split-K). */
static int key_picked(const fsim_tune_result *r, const int *pick, int n, int i,
                      void (*key_of)(const fsim_tune_candidate *, char *, size_t)) {
  char key[200], other[200];
  key_of(&r->cand[i], key, sizeof key);
  for (int j = 0; j < n; j++) {
    key_of(&r->cand[pick[j]], other, sizeof other);
    if (strcmp(other, key) == 0) return 1;
  }
  return 0;
}

/* Adds to pick (n so far, up to want) the candidates in model order whose key (key_of: the
 * config's tile, or its core) no earlier pick has; returns the new count. */
static int pick_distinct(const fsim_tune_result *r, int want, int *pick, int n,
                         void (*key_of)(const fsim_tune_candidate *, char *, size_t)) {
  for (int i = 0; i < r->ncand && n < want; i++)
    if (!picked(pick, n, i) && !key_picked(r, pick, n, i, key_of)) pick[n++] = i;
  return n;
}

/* The block tile: the text up to the first ','. */
static void tile_of(const fsim_tune_candidate *c, char *out, size_t n) {
  snprintf(out, n, "%.*s", (int)strcspn(c->config, ","), c->config);
}

/* split_k=N of a config ("" when it has none). */
static void split_k_of(const fsim_tune_candidate *c, char *out, size_t n) {
  const char *at = strstr(c->config, "splitk=");
  snprintf(out, n, "%.*s", at ? (int)strcspn(at, ",") : 0, at ? at : "");
}

/* Adds the model's best candidate whose split-K no pick has, when the model puts it within 5%
 * of its best: split-K changes the grid and the epilogue (atomics past the L2 on MI300 and
 * MI350), where the model's error differs most between near-tied configs.  Found when atomics
 * were first timed where the part performs them (flysim 0.4.4): 64x8192x3584's split-K 2
 * configs came 0.7% behind split-K 1 tiles in the model, and four of those took the
 * refinement, simulating to 19.2-19.9 us against 14.1-15.1 for split-K 2 configs. */
static int pick_split_k(const fsim_tune_result *r, int want, int *pick, int n) {
  if (n >= want || n == 0 || r->ncand == 0) return n;
  const double limit = 1.05 * r->cand[0].model_us;
  for (int i = 0; i < r->ncand; i++) {
    /* AGPR-full configs rank last, and stay there */
    if (r->cand[i].model_us > limit || r->cand[i].agprs_full || picked(pick, n, i)) continue;
    if (!key_picked(r, pick, n, i, split_k_of)) {
      pick[n++] = i;
      break;
    }
  }
  return n;
}

/* The candidates to simulate, `want` of them: first, half of them (rounded up), the model's
 * best of distinct tiles; then the best of another split-K if the model nearly ties it
 * (pick_split_k); then the best whose core no pick has (the model often ties variants
 * that differ in copy path or epilogue only); then, if the top 64 run out of those, the best
 * of the rest in model order.  Without the first step the model's four best cores were often
 * one tile in four wave layouts or stage counts (2048^3, 1024x8192x1024), so a tile the model
 * misjudges took the whole refinement: 8192x50016x6144's four 256x128x32 configs simulated to
 * 4649-5366 us where 256x256x64 on 2x4 waves, fifth by the model, simulates to 3570. */
static int pick_diverse(const fsim_tune_result *r, int want, int *pick) {
  int n = pick_distinct(r, (want + 1) / 2, pick, 0, tile_of); /* half of them distinct tiles */
  n = pick_split_k(r, want, pick, n);
  n = pick_distinct(r, want, pick, n, core_of);
  for (int i = 0; i < r->ncand && n < want; i++)
    if (!picked(pick, n, i)) pick[n++] = i;
  return n;
}

/* A candidate's config text has no swizzle (the plan chooses it); a fixed one is kept. */
static void keep_swizzle(fsim_gemm_config *c, const fsim_gemm_config *fixed) {
  if (fixed && fixed->swizzle[0]) snprintf(c->swizzle, sizeof c->swizzle, "%s", fixed->swizzle);
}

/* One simulated candidate of the refinement. */
typedef struct refine_out {
  fsim_status st;
  fsim_err err;
  fsim_schedule s;
  fsim_sim_result sim;
  fsim_estimate est;
} refine_out;

typedef struct refine_job {
  const fsim_arch *a;
  const int *pick;
  int npick;
  refine_out *out; /* per pick */
} refine_job;

/* Simulates the picks: their schedules and wave programs are built here, then all of them
 * go to the simulator at once (fsim_sim_run_batch), whose runs share the host's threads. */
static void refine_picks(const fsim_arch *a, const fsim_gemm_problem *pr, const fsim_tune_opts *o,
                         const fsim_tune_result *r, const int *pick, refine_job *job) {
  int n = job->npick, nsim = 0;
  fsim_wprog *wp = calloc((size_t)n, sizeof *wp);
  fsim_sim_opts *so = calloc((size_t)n, sizeof *so);
  const fsim_wprog **wps = calloc((size_t)n, sizeof *wps);
  fsim_sim_result *res = calloc((size_t)n, sizeof *res);
  fsim_status *sst = calloc((size_t)n, sizeof *sst);
  fsim_err *serr = calloc((size_t)n, sizeof *serr);
  int *of = calloc((size_t)n, sizeof *of); /* the pick of each simulation */
  int threads = fsim_host_threads();
  for (int pi = 0; pi < n; pi++) {
    refine_out *ro = &job->out[pi];
    fsim_err_clear(&ro->err);
    if (!wp || !so || !wps || !res || !sst || !serr || !of) {
      ro->st = FSIM_ERR(&ro->err, FSIM_ENOMEM, "out of memory");
      continue;
    }
    fsim_gemm_config c;
    ro->st = fsim_gemm_config_parse(r->cand[pick[pi]].config, &c, &ro->err);
    if (ro->st == FSIM_OK) keep_swizzle(&c, o->fixed);
    if (ro->st == FSIM_OK) ro->st = fsim_gemm_schedule_from(pr, &c, a, &ro->s, &ro->err);
    if (ro->st == FSIM_OK)
      ro->st = evaluate_prepare(a, &ro->s, o->sampled, o->warm, threads, NULL, &wp[nsim], &so[nsim], &ro->est, &ro->err);
    if (ro->st == FSIM_OK) wps[nsim] = &wp[nsim], of[nsim++] = pi;
  }
  if (nsim > 0) fsim_sim_run_batch(a, nsim, wps, so, threads, res, sst, serr);
  for (int i = 0; i < nsim; i++) {
    refine_out *ro = &job->out[of[i]];
    ro->st = sst[i];
    if (sst[i] == FSIM_OK) ro->sim = res[i];
    else ro->err = serr[i];
    fsim_wprog_free(&wp[i]);
  }
  free(wp), free(so), free(wps), free(res), free(sst), free(serr), free(of);
}

/* fsim_tune_opts.compiled: verifies the o->compiled fastest simulated picks (in order of their
 * simulated time, ties in pick order) and makes the fastest compiled code that passes every
 * check the winner; with none passing, the simulated winner stays.  Each candidate's compiled
 * time, or why it was not kept, goes to its entry. */
static fsim_status keep_compiled(const fsim_tune_opts *o, const refine_job *job, fsim_tune_result *r, fsim_err *e) {
  int order[64], n = job->npick;
  for (int i = 0; i < n; i++) order[i] = i;
  for (int i = 1; i < n; i++) /* insertion sort by simulated time: stable, so ties keep pick order */
    for (int j = i; j > 0 && job->out[order[j]].sim.time_us < job->out[order[j - 1]].sim.time_us; j--) {
      int t = order[j];
      order[j] = order[j - 1];
      order[j - 1] = t;
    }
  if (n > o->compiled) n = o->compiled;
  fsim_gemm_plan *p = malloc(sizeof *p);
  fsim_verify_report *rep = malloc(sizeof *rep);
  fsim_status st = p && rep ? FSIM_OK : FSIM_ERR(e, FSIM_ENOMEM, "out of memory");
  int best = -1;
  for (int k = 0; k < n && st == FSIM_OK; k++) {
    refine_out *ro = &job->out[order[k]];
    const int ci = job->pick[order[k]];
    char *note = r->compiled_note[ci];
    char why[160];
    st = fsim_gemm_plan_make(p, &ro->s, job->a, e);
    if (st != FSIM_OK) break;
    if (!fsim_emit_supported(p, why, sizeof why)) {
      snprintf(note, sizeof r->compiled_note[ci], "not emitted: %s", why);
      continue;
    }
    fsim_emit_opts eo = {.config_source = "tuned"};
    fsim_verify_opts vo = {.sampled = o->sampled, .warm = o->warm};
    st = fsim_verify_plan(p, &eo, &vo, rep, e);
    if (st != FSIM_OK) break;
    r->compiled_tried++;
    r->compiled_us[ci] = rep->asm_us;
    if (!rep->ok) {
      for (int i = 0; i < rep->nchecks; i++)
        if (!rep->checks[i].ok) {
          snprintf(note, sizeof r->compiled_note[ci], "fails %s: %.150s", rep->checks[i].name,
                   rep->checks[i].detail);
          break;
        }
      continue;
    }
    r->compiled_ok++;
    if (best < 0 || rep->asm_us < r->compiled_us[job->pick[order[best]]]) best = k;
  }
  if (st == FSIM_OK && best >= 0) {
    const refine_out *ro = &job->out[order[best]];
    r->best = job->pick[order[best]];
    r->schedule = ro->s;
    r->sim = ro->sim;
    r->estimate = ro->est;
  }
  free(p);
  free(rep);
  return st;
}

fsim_status fsim_tune_gemm(const fsim_arch *a, const fsim_gemm_problem *pr, const fsim_tune_opts *o, fsim_tune_result *r,
                           fsim_err *e) {
  struct timespec t0, t1;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  memset(r, 0, sizeof *r);
  fsim_tune_opts def = {.refine = 4, .sampled = -1};
  if (o == NULL) o = &def;
  fsim_tune_candidate *all;
  int64_t n;
  fsim_status st = fsim_tune_rank(a, pr, o->fixed, &all, &n, &r->tried, &r->legal, e);
  if (st != FSIM_OK) return st;
  /* the candidates: those that leave room in the AGPR file first, then those that fill it,
   * each part in model order (tune.h says why) */
  r->ncand = 0;
  for (int full = 0; full <= 1; full++)
    for (int64_t i = 0; i < n; i++) {
      if (all[i].agprs_full != full) continue;
      r->agprs_full += full;
      if (r->ncand < 64) r->cand[r->ncand++] = all[i];
    }
  free(all);
  int refine = o->refine > 0 ? o->refine : 4;
  if (refine > r->ncand) refine = r->ncand;
  fsim_schedule *s = malloc(sizeof *s);
  if (s == NULL) return FSIM_ERR(e, FSIM_ENOMEM, "out of memory");
  r->best = -1;
  if (o->model_only) {
    /* the model's best, with its estimate; nothing simulated */
    fsim_gemm_config c;
    st = fsim_gemm_config_parse(r->cand[0].config, &c, e);
    if (st == FSIM_OK) keep_swizzle(&c, o->fixed);
    if (st == FSIM_OK) st = fsim_gemm_schedule_from(pr, &c, a, s, e);
    if (st == FSIM_OK) {
      r->best = 0;
      r->schedule = *s;
      fsim_gemm_plan *p = malloc(sizeof *p);
      if (p == NULL) st = FSIM_ERR(e, FSIM_ENOMEM, "out of memory");
      if (st == FSIM_OK) st = fsim_gemm_plan_make(p, s, a, e);
      if (st == FSIM_OK) {
        fsim_plan_summary sum;
        fsim_gemm_summary(p, &sum);
        fsim_model_estimate(a, &sum, &r->estimate);
      }
      free(p);
    }
    refine = 0;
  }
  int pick[64], npick = pick_diverse(r, refine, pick);
  refine_job job = {.a = a, .pick = pick, .npick = npick};
  if (st == FSIM_OK && npick > 0) {
    job.out = calloc((size_t)npick, sizeof *job.out);
    if (job.out == NULL) st = FSIM_ERR(e, FSIM_ENOMEM, "out of memory");
  }
  if (st == FSIM_OK && npick > 0) {
    /* simulate the picks; take the results in pick order, so the outcome does not depend on
     * the thread count */
    refine_picks(a, pr, o, r, pick, &job);
    for (int pi = 0; pi < npick && st == FSIM_OK; pi++) {
      refine_out *ro = &job.out[pi];
      int i = pick[pi];
      if (ro->st != FSIM_OK) {
        st = ro->st;
        if (e) *e = ro->err;
        break;
      }
      r->cand[i].sim_us = ro->sim.time_us;
      if (r->best < 0 || ro->sim.time_us < r->cand[r->best].sim_us) {
        r->best = i;
        r->schedule = ro->s;
        r->sim = ro->sim;
        r->estimate = ro->est;
      }
    }
  }
  if (st == FSIM_OK && o->compiled > 0 && npick > 0) st = keep_compiled(o, &job, r, e);
  free(job.out);
  free(s);
  clock_gettime(CLOCK_MONOTONIC, &t1);
  r->host_seconds = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) * 1e-9;
  return st;
}
