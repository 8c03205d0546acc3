/* GEMM wave programs: a plan (gemm_plan.c) becomes the per-wave instruction streams the
 * simulator times.  Every address comes from the plan's lane functions.
 *
 * The pipeline (stages S, K tiles T of one K slice):
 *   prologue   copies of tiles 0 .. S-2 into stages 0 .. S-2
 *   main loop  T-S+1 iterations: wait for tile t (vmcnt), barrier, copy tile t+S-1 into
 *              stage (t+S-1) mod S, then the K step on stage t mod S
 *   drain loop S-1 iterations of the K step without copies
 *   epilogue   C through LDS (ds_write, barrier, ds_read, 16-byte stores) or stored directly
 * Stage and K offsets are iteration terms of the address patterns (modulo S for stages), so
 * the program stays loop-compressed.  Copies through registers are written to LDS at the end
 * of the iteration that loaded them.  S = 1 waits for its own copies inside the iteration.
 *
 * The K step reads fragments of k step kk+1 while the MFMAs of kk run (two fragment
 * buffers).  Interleave hints ("vmem:2 dsrd:4 mfma:8") emit the step's copies, reads and
 * MFMAs in rounds of those group sizes, as sched_group_barrier does; a read waits until
 * the MFMAs that last used its buffer are out, an MFMA until its fragments' reads are in
 * (s_waitcnt lgkmcnt computed from the order).  Ping-pong (two wave groups a barrier apart,
 * each K tile in phases) has a program of its own: see "ping-pong" below. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "kernels/gemm.h"
#include "model/occupancy.h"

typedef struct gen {
  const fsim_gemm_plan *p;
  fsim_wprog *wp;
  fsim_err *e;
  fsim_status st;
  int w;                 /* the wave being generated */
  fsim_wp_program *prog;
  /* lds read bookkeeping for waitcnt: per fragment buffer/index, the sequence number of its
   * last read; reads issued so far; the highest sequence known complete */
  int lgkm_issued, lgkm_done;
  int frag_seq[2][2][64]; /* [operand][k step parity][index]: the plain K step's two buffers
                            (ping-pong waits for all its reads before its MFMAs instead) */
  int c_whole;           /* C's vectors are stored whole (fsim_gemm_c_stores_whole) */
  int nbuf;              /* fragment buffers: 2 (k step kk in buffer kk mod 2), or every k step's (ping-pong) */
  int vm_outstanding;
  int lds_dma_pending;   /* a direct-to-LDS copy may be outstanding (no vmcnt(0) since) */
} gen;

/* ---- helpers ---------------------------------------------------------------------------------- */

static int reg(gen *g, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
#include <stdarg.h>
static int reg(gen *g, const char *fmt, ...) {
  char name[FSIM_WP_NAME];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(name, sizeof name, fmt, ap);
  va_end(ap);
  int id = fsim_wprog_reg(g->wp, name, g->e);
  if (id < 0 && g->st == FSIM_OK) g->st = g->e ? g->e->code : FSIM_ENOMEM;
  return id < 0 ? 0 : id;
}

static fsim_wp_reg R(int id) { return (fsim_wp_reg){(uint16_t)id, 1}; }

static void emit(gen *g, fsim_wp_inst in) {
  if (g->st != FSIM_OK) return;
  if (fsim_wp_program_append(g->prog, &in, g->e) < 0) g->st = g->e ? g->e->code : FSIM_ENOMEM;
}

static void waitcnt(gen *g, int vm, int lgkm) {
  emit(g, (fsim_wp_inst){.op = FSIM_OP_WAITCNT, .arg = (uint16_t)(vm < 0 ? 0xffff : vm),
                         .arg2 = (uint16_t)(lgkm < 0 ? 0xffff : lgkm), .addr = -1, .addr2 = -1});
  if (lgkm >= 0 && g->lgkm_issued - lgkm > g->lgkm_done) g->lgkm_done = g->lgkm_issued - lgkm;
  if (vm == 0) g->vm_outstanding = 0, g->lds_dma_pending = 0;
}

static void barrier(gen *g) { emit(g, (fsim_wp_inst){.op = FSIM_OP_BARRIER, .addr = -1, .addr2 = -1}); }

/* A lane table with one row per wave, filled by f(row=w, lane); returns its index. */
typedef int64_t (*lane_fn)(const fsim_gemm_plan *p, int a, int b, int c, int d, int w, int l);
static int lanes(gen *g, const char *name, lane_fn f, int a, int b, int c, int d) {
  int li = fsim_wprog_find_lanes(g->wp, name);
  if (li >= 0) return li;
  li = fsim_wprog_add_lanes(g->wp, name, g->p->waves, g->e);
  if (li < 0) {
    if (g->st == FSIM_OK) g->st = g->e ? g->e->code : FSIM_ENOMEM;
    return 0;
  }
  fsim_wp_lanes *t = &g->wp->lanes[li];
  for (int w = 0; w < g->p->waves; w++)
    for (int l = 0; l < g->p->wave_size; l++) t->offset[w * g->p->wave_size + l] = (int32_t)f(g->p, a, b, c, d, w, l);
  return li;
}

static int addr(gen *g, const char *name, fsim_space space, int lane_table, int64_t base, const int64_t wg[3],
                int nterms, const int8_t *level, const int32_t *mod, const int32_t *phase, const int64_t *stride) {
  int ai = fsim_wprog_find_addr(g->wp, name);
  if (ai >= 0) return ai;
  fsim_wp_addr ad;
  memset(&ad, 0, sizeof ad);
  snprintf(ad.name, sizeof ad.name, "%s", name);
  ad.space = (uint8_t)space;
  ad.lanes = lane_table;
  ad.base = base;
  if (wg) memcpy(ad.wg_stride, wg, sizeof ad.wg_stride);
  ad.nterms = nterms;
  for (int i = 0; i < nterms; i++) {
    ad.term[i].level = level[i];
    ad.term[i].mod = mod[i];
    ad.term[i].phase = phase[i];
    ad.term[i].stride = stride[i];
  }
  ai = fsim_wprog_add_addr(g->wp, &ad, g->e);
  if (ai < 0 && g->st == FSIM_OK) g->st = g->e ? g->e->code : FSIM_ENOMEM;
  return ai < 0 ? 0 : ai;
}

/* ---- lane functions ------------------------------------------------------------------------- */

static int64_t lane_copy_global(const fsim_gemm_plan *p, int o, int c, int unused1, int unused2, int w, int l) {
  (void)unused1, (void)unused2;
  int64_t gl, ld;
  fsim_gemm_lane_copy(p, o, w * p->wave_size + l, c, &gl, &ld);
  return gl;
}

static int64_t lane_copy_lds(const fsim_gemm_plan *p, int o, int c, int unused1, int unused2, int w, int l) {
  (void)unused1, (void)unused2;
  int64_t gl, ld;
  fsim_gemm_lane_copy(p, o, w * p->wave_size + l, c, &gl, &ld);
  return ld;
}

static int64_t lane_scale(const fsim_gemm_plan *p, int o, int j, int unused1, int unused2, int w, int l) {
  (void)unused1, (void)unused2;
  return fsim_gemm_lane_scale(p, o, j, w, l);
}

static int64_t lane_frag_read(const fsim_gemm_plan *p, int o, int i, int kk, int r, int w, int l) {
  return fsim_gemm_lane_read(p, o, w, i, kk, r, l);
}

/* ---- the K step ------------------------------------------------------------------------------- */

typedef struct kstep_item {
  char cls;   /* 'v' copy, 'r' LDS read, 'm' MFMA, 'w' LDS write of staged data */
  int o, i, j, kk, r, c;
} kstep_item;

/* Address patterns of the copies of operand o, copy c, for one loop: the global K offset
 * advances kstride per iteration from tile `first`; the stage is (iteration + first) mod S. */
static void copy_addrs(gen *g, int o, int c, const char *loop_name, int first, int level, int *ga, int *la) {
  const fsim_gemm_plan *p = g->p;
  const fsim_gemm_operand *op = &p->op[o];
  char name[48];
  snprintf(name, sizeof name, "%c_copy%d_g", "AB"[o], c);
  int lg = lanes(g, name, lane_copy_global, o, c, 0, 0);
  snprintf(name, sizeof name, "%c_copy%d_l", "AB"[o], c);
  int ll = lanes(g, name, lane_copy_lds, o, c, 0, 0);
  int eb = op->elem_bits / 8;
  int vals = fsim_dtype_bits(o == 0 ? p->s.a_type : p->s.b_type) == 4 ? 2 : 1;
  int64_t kstride = (op->k_contig ? 1 : op->ld) * (p->s.bk / vals) * eb;
  int64_t mnstride = (op->k_contig ? op->ld : 1) * (int64_t)op->rows * eb;
  int64_t base = o == 0 ? 0 : fsim_arch_global_region(p->a); /* A and B in separate address ranges */
  int64_t wg[3] = {0, 0, 0};
  wg[o == 0 ? 1 : 0] = mnstride;                      /* y = tile along M, x = tile along N */
  wg[2] = (int64_t)p->k_tiles * kstride;              /* z = K slice */
  /* z = group: the next group's operand, as the emitted kernel's A_BYTES and B_BYTES (its
   * M or N x K values: the row pitch times the rows was M x M for an M-contiguous A) */
  if (p->s.op == FSIM_KOP_GROUPED_GEMM) wg[2] = (o == 0 ? p->s.m : p->s.n) * p->s.k * (int64_t)op->elem_bits / 8;
  int8_t lv[1] = {(int8_t)level};
  int32_t mod0[1] = {0}, ph[1] = {first};
  int64_t st[1] = {kstride};
  snprintf(name, sizeof name, "%c%d_g_%s", "AB"[o], c, loop_name);
  *ga = addr(g, name, FSIM_SPACE_GLOBAL, lg, base + (level < 0 ? first * kstride : 0), wg, level < 0 ? 0 : 1, lv,
             mod0, ph, st);
  int32_t mods[1] = {p->s.stages};
  int64_t ls[1] = {p->lds_stride};
  int64_t lbase = o == 0 ? p->lds_stage_a : p->lds_stage_b;
  snprintf(name, sizeof name, "%c%d_l_%s", "AB"[o], c, loop_name);
  *la = addr(g, name, FSIM_SPACE_LDS, ll, lbase + (level < 0 ? (first % p->s.stages) * p->lds_stride : 0), NULL,
             level < 0 ? 0 : 1, lv, mods, ph, ls);
}

/* A scaled GEMM's scale loads of tile `first` for one loop (fsim_gemm_scale_loads): A's scales
 * in the region after C, B's half a region further.  The registers they load are read by the
 * MFMAs of that tile, which the tile's vmcnt wait covers; the program names one register per
 * load, so the MFMAs do not take them as sources (the loop's later iterations load into
 * others on the hardware: the estimate counts one set a stage). */
static void emit_scale_loads(gen *g, const char *loop_name, int first, int level) {
  const fsim_gemm_plan *p = g->p;
  for (int o = 0; o < 2; o++) {
    int width;
    int64_t chunk;
    int n = fsim_gemm_scale_loads(p, o, &width, &chunk);
    const int64_t region = fsim_arch_global_region(p->a);
    int64_t kt = (int64_t)p->s.split_k * p->k_tiles, base = 3 * region + o * (region / 2);
    int64_t wg[3] = {0, 0, p->k_tiles * chunk};
    wg[o == 0 ? 1 : 0] = (int64_t)(o == 0 ? p->s.waves_m : p->s.waves_n) * kt * chunk; /* a tile's row blocks */
    for (int j = 0; j < n; j++) {
      char name[48];
      snprintf(name, sizeof name, "%c_scale%d", "AB"[o], j);
      int lt = lanes(g, name, lane_scale, o, j, 0, 0);
      int8_t lv[1] = {(int8_t)level};
      int32_t mod0[1] = {0}, ph[1] = {first};
      int64_t st[1] = {chunk};
      snprintf(name, sizeof name, "%c_scale%d_%s", "AB"[o], j, loop_name);
      int ai = addr(g, name, FSIM_SPACE_GLOBAL, lt, base + (level < 0 ? first * chunk : 0), wg, level < 0 ? 0 : 1,
                    lv, mod0, ph, st);
      fsim_wp_inst in = {.op = FSIM_OP_LOAD, .width = (uint8_t)width, .addr = ai, .addr2 = -1};
      in.dst = R(reg(g, "scale_%c%d", "ab"[o], j));
      emit(g, in);
      g->vm_outstanding++;
    }
  }
}

static void emit_copies(gen *g, const char *loop_name, int first, int level) {
  const fsim_gemm_plan *p = g->p;
  emit_scale_loads(g, loop_name, first, level);
  for (int o = 0; o < 2; o++)
    for (int c = 0; c < p->op[o].copies; c++) {
      int ga, la;
      copy_addrs(g, o, c, loop_name, first, level, &ga, &la);
      const fsim_gemm_operand *op = &p->op[o];
      if (op->gcopy->op == FSIM_OP_LOAD_LDS) {
        emit(g, (fsim_wp_inst){.op = FSIM_OP_LOAD_LDS, .width = (uint8_t)op->gcopy->bytes, .addr = ga, .addr2 = la});
        g->lds_dma_pending = 1;
      } else {
        fsim_wp_inst in = {.op = FSIM_OP_LOAD, .width = (uint8_t)op->gcopy->bytes, .addr = ga, .addr2 = -1};
        in.dst = R(reg(g, "stage_%c%d", "AB"[o], c));
        emit(g, in);
      }
      g->vm_outstanding++;
    }
}

/* Register-path copies: write the staged data of this iteration's loads to their stage. */
static void emit_staged_writes(gen *g, const char *loop_name, int first, int level) {
  const fsim_gemm_plan *p = g->p;
  int any = 0;
  for (int o = 0; o < 2; o++) any |= p->op[o].lwrite != NULL;
  if (!any) return;
  waitcnt(g, 0, -1);
  for (int o = 0; o < 2; o++) {
    const fsim_gemm_operand *op = &p->op[o];
    if (op->lwrite == NULL) continue;
    for (int c = 0; c < op->copies; c++) {
      int ga, la;
      copy_addrs(g, o, c, loop_name, first, level, &ga, &la);
      fsim_wp_inst in = {.op = FSIM_OP_LDS_WRITE, .width = (uint8_t)op->lwrite->bytes, .addr = la, .addr2 = -1, .nsrc = 1};
      in.src[0] = R(reg(g, "stage_%c%d", "AB"[o], c));
      emit(g, in);
      g->lgkm_issued++;
    }
  }
}

static int read_addr(gen *g, int o, int i, int kk, int r, const char *loop_name, int first, int level) {
  const fsim_gemm_plan *p = g->p;
  char name[48];
  snprintf(name, sizeof name, "%c_frag%d_k%d_r%d", "AB"[o], i, kk, r);
  int lt = lanes(g, name, lane_frag_read, o, i, kk, r);
  int8_t lv[1] = {(int8_t)level};
  int32_t mods[1] = {p->s.stages}, ph[1] = {first};
  int64_t st[1] = {p->lds_stride};
  snprintf(name, sizeof name, "%c%d_%d_%d_%s", "AB"[o], i, kk, r, loop_name);
  int64_t lbase = o == 0 ? p->lds_stage_a : p->lds_stage_b;
  return addr(g, name, FSIM_SPACE_LDS, lt, lbase, NULL, 1, lv, mods, ph, st);
}

static void emit_read(gen *g, const kstep_item *it, const char *loop_name, int first, int level) {
  const fsim_gemm_plan *p = g->p;
  const fsim_gemm_operand *op = &p->op[it->o];
  /* The compiler cannot tell a transposing read (ds_read_b64_tr_b16, _tr_b8: intrinsics) from the
   * LDS that outstanding direct-to-LDS copies write, and waits for all of them first (clang
   * 22 puts s_waitcnt vmcnt(0) there, prefetch of the next tile included: docs/emit.md).
   * The program does what the compiled kernel does. */
  if (op->lread->transpose && g->lds_dma_pending) waitcnt(g, 0, -1);
  fsim_wp_inst in = {.op = FSIM_OP_LDS_READ, .width = (uint8_t)op->lread->bytes, .addr2 = -1};
  in.flags = op->lread->transpose ? FSIM_IF_TRANSPOSE : 0;
  in.addr = read_addr(g, it->o, it->i, it->kk, it->r, loop_name, first, level);
  in.dst = R(reg(g, "%c%d_%d", "ab"[it->o], it->kk % g->nbuf, it->i));
  emit(g, in);
  g->frag_seq[it->o][it->kk % 2][it->i] = ++g->lgkm_issued;
}

static void emit_mfma(gen *g, const kstep_item *it) {
  const fsim_gemm_plan *p = g->p;
  int buf = it->kk % g->nbuf, par = it->kk % 2;
  int need = g->frag_seq[0][par][it->i];
  if (g->frag_seq[1][par][it->j] > need) need = g->frag_seq[1][par][it->j];
  if (need > g->lgkm_done) {
    int allow = g->lgkm_issued - need;
    waitcnt(g, -1, allow > 15 ? 15 : allow);
  }
  fsim_wp_inst in = {.op = FSIM_OP_MFMA, .arg = (uint16_t)(p->mfma - p->a->mfma), .addr = -1, .addr2 = -1, .nsrc = 3};
  in.dst = R(reg(g, "c%d_%d", it->i, it->j));
  in.src[0] = R(reg(g, "a%d_%d", buf, it->i));
  in.src[1] = R(reg(g, "b%d_%d", buf, it->j));
  in.src[2] = in.dst;
  emit(g, in);
}

/* Interleave hints as (class, count) pairs; none: copies first, then reads one step ahead. */
typedef struct hint {
  char cls;
  int count;
} hint;

static int parse_hints(const char *text, hint *h, int max) {
  if (strcmp(text, "none") == 0 || *text == '\0') return 0;
  int n = 0;
  char buf[128];
  snprintf(buf, sizeof buf, "%s", text);
  char *save = NULL;
  for (char *t = strtok_r(buf, " ", &save); t && n < max; t = strtok_r(NULL, " ", &save)) {
    char *colon = strchr(t, ':');
    if (colon == NULL) return -1;
    *colon = '\0';
    int cnt = atoi(colon + 1);
    if (cnt < 1) return -1;
    char cls = strcmp(t, "vmem") == 0 ? 'v' : strcmp(t, "dsrd") == 0 ? 'r' : strcmp(t, "mfma") == 0 ? 'm' : 0;
    if (cls == 0) return -1;
    h[n].cls = cls;
    h[n].count = cnt;
    n++;
  }
  return n;
}

/* One K step on the stage of this loop's tile: copies (when `copies`), fragment reads and
 * MFMAs, in the order the hints give. */
static void emit_kstep(gen *g, int copies, const char *loop_name, int first, int level) {
  const fsim_gemm_plan *p = g->p;
  int nread = 0, nmfma = 0;
  int max_reads = p->ki * (p->rm * p->op[0].reads_per_frag + p->rn * p->op[1].reads_per_frag);
  kstep_item *reads = malloc((size_t)max_reads * sizeof *reads);
  kstep_item *mfmas = malloc((size_t)p->ki * p->rm * p->rn * sizeof *mfmas);
  if (reads == NULL || mfmas == NULL) {
    free(reads);
    free(mfmas);
    g->st = FSIM_ERR(g->e, FSIM_ENOMEM, "out of memory");
    return;
  }
  for (int kk = 0; kk < p->ki; kk++) {
    for (int o = 0; o < 2; o++)
      for (int i = 0; i < (o == 0 ? p->rm : p->rn); i++)
        for (int r = 0; r < p->op[o].reads_per_frag; r++) reads[nread++] = (kstep_item){'r', o, i, 0, kk, r, 0};
    for (int i = 0; i < p->rm; i++)
      for (int j = 0; j < p->rn; j++) mfmas[nmfma++] = (kstep_item){'m', 0, i, j, kk, 0, 0};
  }
  hint h[FSIM_SCHED_MAX_HINT_GROUPS];
  int nh = parse_hints(p->s.interleave, h, FSIM_SCHED_MAX_HINT_GROUPS);
  int ri = 0, mi = 0, copied = !copies;
  int reads_per_k = nread / p->ki, mfma_per_k = nmfma / p->ki;
  if (nh <= 0) {
    /* default, as a compiler's scheduler does it: copies first, the reads of the first k step,
     * then each k step's MFMAs with the next step's reads spread evenly among them */
    int per = reads_per_k > 0 ? mfma_per_k / reads_per_k : mfma_per_k;
    h[0] = (hint){'v', 1 << 20};
    h[1] = (hint){'r', 1};
    h[2] = (hint){'m', per > 1 ? per : 1};
    nh = 3;
  }
  int guard = 0;
  while ((ri < nread || mi < nmfma || !copied) && g->st == FSIM_OK && guard++ < 100000) {
    int progressed = 0;
    for (int k = 0; k < nh; k++) {
      for (int c = 0; c < h[k].count; c++) {
        if (h[k].cls == 'v' && !copied) {
          emit_copies(g, loop_name, first + p->s.stages - 1, level);
          copied = 1;
          progressed = 1;
          break;
        }
        if (h[k].cls == 'r' && ri < nread) {
          /* a read into buffer kk%2 waits for the MFMAs of kk-2 (same buffer) to be out */
          int kk = reads[ri].kk;
          if (kk >= 2 && mi < (kk - 1) * mfma_per_k) break;
          emit_read(g, &reads[ri++], loop_name, first, level);
          progressed = 1;
        } else if (h[k].cls == 'm' && mi < nmfma) {
          int kk = mfmas[mi].kk;
          if (ri < (kk + 1) * reads_per_k) break; /* its fragments are not read yet */
          emit_mfma(g, &mfmas[mi++]);
          progressed = 1;
        } else {
          break;
        }
      }
    }
    if (!progressed) {
      /* the hints cannot make progress on their own: take the next item in dependence order */
      if (!copied) {
        emit_copies(g, loop_name, first + p->s.stages - 1, level);
        copied = 1;
      } else if (ri < nread && (reads[ri].kk < 2 || mi >= (reads[ri].kk - 1) * mfma_per_k)) {
        emit_read(g, &reads[ri++], loop_name, first, level);
      } else if (mi < nmfma) {
        emit_mfma(g, &mfmas[mi++]);
      }
    }
  }
  free(reads);
  free(mfmas);
}

/* ---- epilogue ---------------------------------------------------------------------------------- */

/* The LDS C buffer is column-major with a pitch that keeps the fragment writes conflict-free. */
void fsim_gemm_c_run_coord(const fsim_gemm_plan *p, int i, int j, int run, int w, int l, int *row, int *col) {
  fsim_mma_atom_coord(&p->c_tv, p->atom->m, l, run * 4, row, col);
  int wm = w % p->s.waves_m, wn = w / p->s.waves_m;
  *row += wm * p->wave_tm + i * p->atom->m;
  *col += wn * p->wave_tn + j * p->atom->n;
}

void fsim_gemm_c_chunk_coord(const fsim_gemm_plan *p, int c, int w, int l, int *row, int *col) {
  int per = 16 * 8 / p->c_bits;
  int64_t e = ((int64_t)c * p->threads + w * p->wave_size + l) * per;
  *col = (int)(e / p->s.bm);
  *row = (int)(e % p->s.bm);
}

int fsim_gemm_c_stores_whole(const fsim_gemm_plan *p) {
  if (p->s.m % p->s.bm == 0 && p->s.n % p->s.bn == 0) return 1; /* no edges */
  const int lds = p->s.c_path == FSIM_EPI_LDS, elems = lds ? 16 * 8 / p->c_bits : 4;
  if (p->s.split_k > 1 || p->s.m % elems != 0) return 0;
  const int runs = fsim_mma_atom_values(p->atom, 'C') / 4;
  int chunks = (int)((int64_t)p->s.bm * p->s.bn * p->c_bits / 8 / (16 * p->threads));
  if (chunks < 1) chunks = 1;
  for (int w = 0; w < p->waves; w++)
    for (int l = 0; l < p->wave_size; l++) {
      int row, col;
      if (lds) {
        for (int ck = 0; ck < chunks; ck++) {
          fsim_gemm_c_chunk_coord(p, ck, w, l, &row, &col);
          if (row % elems != 0) return 0;
        }
      } else {
        for (int i = 0; i < p->rm; i++)
          for (int j = 0; j < p->rn; j++)
            for (int r = 0; r < runs; r++) {
              fsim_gemm_c_run_coord(p, i, j, r, w, l, &row, &col);
              if (row % elems != 0) return 0;
            }
      }
    }
  return 1;
}

int64_t fsim_gemm_lane_c_lds(const fsim_gemm_plan *p, int i, int j, int run, int pitch, int w, int l) {
  int row, col;
  fsim_gemm_c_run_coord(p, i, j, run, w, l, &row, &col);
  return ((int64_t)col * pitch + row) * p->c_bits / 8;
}

int64_t fsim_gemm_lane_c_direct(const fsim_gemm_plan *p, int i, int j, int run, int unused, int w, int l) {
  (void)unused;
  int row, col;
  fsim_gemm_c_run_coord(p, i, j, run, w, l, &row, &col);
  return ((int64_t)col * p->s.m + row) * p->c_bits / 8;
}

/* Thread t's chunk c of the C tile: byte offset in LDS (pitch) or global (ldc). */
int64_t fsim_gemm_lane_c_chunk(const fsim_gemm_plan *p, int c, int pitch, int global, int unused, int w, int l) {
  (void)unused;
  int row, col;
  fsim_gemm_c_chunk_coord(p, c, w, l, &row, &col);
  return ((int64_t)col * (global ? p->s.m : pitch) + row) * p->c_bits / 8;
}

int fsim_gemm_c_pitch(const fsim_gemm_plan *p) { return fsim__gemm_c_pitch_memo(p, NULL); }

int fsim__gemm_c_pitch_memo(const fsim_gemm_plan *p, fsim_gemm_memo *memo) {
  /* the padded pitch with the fewest bank cycles for an accumulator write, among those whose
   * buffer fits in the LDS the stages already use (the buffer aliases them) or grows the
   * workgroup's LDS within what a workgroup may use without lowering the occupancy: a C tile
   * as large as the stages (256x256 of bf16 over two stages of 256x64) once kept its unpadded
   * pitch, whose columns all start in bank 0 (16 times the bank cycles on every write) */
  int best = p->s.bm, best_cyc = 1 << 30;
  int64_t room = p->lds_bytes > (int64_t)p->s.bm * p->s.bn * p->c_bits / 8 ? p->lds_bytes
                                                                            : (int64_t)p->s.bm * p->s.bn * p->c_bits / 8;
  fsim_occupancy base;
  fsim_occupancy_of(p->a, p->waves, p->vgprs, p->agprs, p->sgprs, room, &base);
  for (int pad = 0; pad <= 16; pad += 2) {
    int pitch = p->s.bm + pad;
    int64_t need = (int64_t)pitch * p->s.bn * p->c_bits / 8;
    if (need > room) {
      fsim_occupancy grown;
      if (need > p->a->lds.max_bytes_per_wg) break;
      fsim_occupancy_of(p->a, p->waves, p->vgprs, p->agprs, p->sgprs, need, &grown);
      if (grown.wgs_per_cu < base.wgs_per_cu) break;
    }
    int cyc = fsim__gemm_memo_pitch_get(memo, p, pad);
    if (cyc == 0) {
      int32_t off[FSIM_MAX_WAVE];
      for (int l = 0; l < p->wave_size; l++) off[l] = (int32_t)fsim_gemm_lane_c_lds(p, 0, 0, 0, pitch, 0, l);
      cyc = fsim_lds_bank_cycles(p->a, off, ~0ULL >> (64 - p->wave_size), 0, 4 * p->c_bits / 8, NULL);
      fsim__gemm_memo_pitch_put(memo, p, pad, cyc);
    }
    if (cyc < best_cyc) best = pitch, best_cyc = cyc;
  }
  return best;
}

/* Stores `bytes` of C per lane through lane table lt: one store, or with split-K the packed
 * atomic adds of 4 bytes (two 16-bit values or one f32) that a kernel adding its partial
 * sums into C needs, one per 4 bytes, or, at edges of C that cut through the vectors
 * (fsim_gemm_c_stores_whole), one store per element, each behind its bounds test, as the
 * emitted kernel stores them. */
static void store_c(gen *g, const char *name, int lt, int64_t cbase, const int64_t wg[3], int bytes, fsim_wp_reg src) {
  const fsim_gemm_plan *p = g->p;
  int parts = p->s.split_k > 1 ? bytes / 4 : !g->c_whole ? bytes / (p->c_bits / 8) : 1, width = bytes / parts;
  for (int q = 0; q < parts; q++) {
    char nm[64];
    snprintf(nm, sizeof nm, "%s%s%d", name, parts == 1 ? "" : p->s.split_k > 1 ? "_atomic" : "_elem", parts > 1 ? q : 0);
    int ai = addr(g, parts > 1 ? nm : name, FSIM_SPACE_GLOBAL, lt, cbase + (int64_t)q * width, wg, 0, NULL, NULL,
                  NULL, NULL);
    fsim_wp_inst st = {.op = FSIM_OP_STORE, .width = (uint8_t)width, .flags = p->s.split_k > 1 ? FSIM_IF_ATOMIC : 0,
                       .addr = ai, .addr2 = -1, .nsrc = 1};
    st.src[0] = src;
    emit(g, st);
  }
}

static void emit_epilogue(gen *g) {
  const fsim_gemm_plan *p = g->p;
  int runs = fsim_mma_atom_values(p->atom, 'C') / 4; /* 4 consecutive rows per run */
  int run_bytes = 4 * p->c_bits / 8;
  int64_t cbase = 2 * fsim_arch_global_region(p->a);
  int64_t wg[3] = {(int64_t)p->s.bn * p->s.m * p->c_bits / 8, (int64_t)p->s.bm * p->c_bits / 8, 0};
  if (p->s.op == FSIM_KOP_GROUPED_GEMM) wg[2] = p->s.m * p->s.n * p->c_bits / 8;
  waitcnt(g, 0, 0);
  /* convert the accumulators to the output type (one VALU per run) */
  for (int i = 0; i < p->rm; i++)
    for (int j = 0; j < p->rn; j++) {
      fsim_wp_inst cv = {.op = FSIM_OP_VALU, .arg = (uint16_t)runs, .addr = -1, .addr2 = -1, .nsrc = 1};
      cv.dst = R(reg(g, "o%d_%d", i, j));
      cv.src[0] = R(reg(g, "c%d_%d", i, j));
      emit(g, cv);
    }
  char name[48];
  if (p->s.c_path == FSIM_EPI_DIRECT) {
    for (int i = 0; i < p->rm; i++)
      for (int j = 0; j < p->rn; j++)
        for (int r = 0; r < runs; r++) {
          snprintf(name, sizeof name, "C_direct%d_%d_%d", i, j, r);
          int lt = lanes(g, name, fsim_gemm_lane_c_direct, i, j, r, 0);
          store_c(g, name, lt, cbase, wg, run_bytes, R(reg(g, "o%d_%d", i, j)));
        }
    waitcnt(g, 0, -1);
    return;
  }
  int pitch = p->c_pitch;
  barrier(g); /* every wave is done reading the stages the C buffer aliases */
  for (int i = 0; i < p->rm; i++)
    for (int j = 0; j < p->rn; j++)
      for (int r = 0; r < runs; r++) {
        snprintf(name, sizeof name, "C_lds%d_%d_%d", i, j, r);
        int lt = lanes(g, name, fsim_gemm_lane_c_lds, i, j, r, pitch);
        int ai = addr(g, name, FSIM_SPACE_LDS, lt, p->lds_c, NULL, 0, NULL, NULL, NULL, NULL);
        fsim_wp_inst wr = {.op = FSIM_OP_LDS_WRITE, .width = (uint8_t)run_bytes, .addr = ai, .addr2 = -1, .nsrc = 1};
        wr.src[0] = R(reg(g, "o%d_%d", i, j));
        emit(g, wr);
      }
  waitcnt(g, -1, 0);
  barrier(g);
  int chunks = (int)((int64_t)p->s.bm * p->s.bn * p->c_bits / 8 / (16 * p->threads));
  if (chunks < 1) chunks = 1;
  for (int c = 0; c < chunks; c++) {
    snprintf(name, sizeof name, "C_read%d", c);
    int lr = lanes(g, name, fsim_gemm_lane_c_chunk, c, pitch, 0, 0);
    int ar = addr(g, name, FSIM_SPACE_LDS, lr, p->lds_c, NULL, 0, NULL, NULL, NULL, NULL);
    snprintf(name, sizeof name, "C_store%d", c);
    int ls = lanes(g, name, fsim_gemm_lane_c_chunk, c, pitch, 1, 0);
    fsim_wp_inst rd = {.op = FSIM_OP_LDS_READ, .width = 16, .addr = ar, .addr2 = -1};
    rd.dst = R(reg(g, "cout%d", c));
    emit(g, rd);
    store_c(g, name, ls, cbase, wg, 16, rd.dst);
  }
  waitcnt(g, 0, -1);
}

/* ---- the program ------------------------------------------------------------------------------- */

/* Starts a program with nbuf fragment buffers: its bookkeeping, and the prologue's copies of
 * tiles 0 .. pre-1 (pre = S-1, at most the tiles there are); returns pre. */
static int begin_program(gen *g, int nbuf) {
  const fsim_gemm_plan *p = g->p;
  int S = p->s.stages, T = p->k_tiles;
  int pre = S - 1 < T ? S - 1 : T;
  g->lgkm_issued = g->lgkm_done = 0;
  g->lds_dma_pending = 0;
  g->nbuf = nbuf;
  memset(g->frag_seq, 0, sizeof g->frag_seq);
  for (int t = 0; t < pre; t++) {
    char nm[16];
    snprintf(nm, sizeof nm, "pro%d", t);
    emit_copies(g, nm, t, -1);
    emit_staged_writes(g, nm, t, -1);
  }
  return pre;
}

static void gen_wave_program(gen *g) {
  const fsim_gemm_plan *p = g->p;
  int S = p->s.stages, T = p->k_tiles;
  int copies_per_tile = fsim_gemm_loads_per_tile(p);
  int pre = begin_program(g, 2);
  int main_trips = T - pre, drain = pre;
  if (S == 1) main_trips = 0, drain = T;
  if (main_trips > 0) {
    fsim_wp_program_loop_begin(g->prog, main_trips, g->e);
    int vm_allow = (S - 2) * copies_per_tile;
    if (p->op[0].lwrite || p->op[1].lwrite) vm_allow = 0;
    waitcnt(g, vm_allow < 0 ? 0 : (vm_allow > 63 ? 63 : vm_allow), p->op[0].lwrite || p->op[1].lwrite ? 0 : -1);
    barrier(g);
    emit_kstep(g, 1, "main", 0, 0);
    emit_staged_writes(g, "main", S - 1, 0);
    fsim_wp_program_loop_end(g->prog, g->e);
  }
  if (drain > 0) {
    fsim_wp_program_loop_begin(g->prog, drain, g->e);
    waitcnt(g, 0, 0);
    barrier(g);
    if (S == 1) {
      /* one stage: load, wait, barrier, compute, barrier (before the next overwrite) */
      emit_copies(g, "single", 0, 0);
      emit_staged_writes(g, "single", 0, 0);
      waitcnt(g, 0, 0);
      barrier(g);
    }
    emit_kstep(g, 0, "drain", S == 1 ? 0 : main_trips, 0);
    if (S == 1) barrier(g);
    fsim_wp_program_loop_end(g->prog, g->e);
  }
  emit_epilogue(g);
}

/* ---- ping-pong ---------------------------------------------------------------------------------
 * FlyDSL's 8-wave GEMMs (after HipKittens' 8-wave kernels) run two groups of waves, one of
 * each on every SIMD when the wave count is a multiple of twice the SIMDs, one phase (one
 * barrier) apart.  A K tile is cut into phases by the halves of the wave's C tile
 * (fsim_gemm_pp_slices: (A half, B half) = (0,0), (0,1), (1,0), (1,1) when both halve, two
 * phases when one does); a phase reads the fragments its slice needs that earlier phases of
 * the tile have not (with two phases, the first reads them all), phase 0 issues the copies of
 * the tile S-1 ahead, and each phase waits for its LDS reads and meets the workgroup at a
 * barrier, then runs its slice's MFMAs at s_setprio 1.  The second group meets one extra
 * barrier after the prologue, so each barrier pairs a group's memory phase with the other's,
 * and the two groups' MFMA runs alternate on the matrix pipe while the other group reads and
 * copies.  The first group meets one barrier more at the end when the epilogue goes through
 * LDS (its barriers must pair again); otherwise its end releases the other's last barrier, as
 * on the hardware.
 *
 * The lag is one barrier, so a phase's LDS reads and copies must be safe against the other
 * group's neighbouring phase:
 *   - the copies of tile t+S-1 in phase 0 of tile t overwrite the stage of tile t-1, which
 *     the second group reads until its phase P-2 of tile t-1 at the latest (the last phase
 *     reads nothing), and the barrier before the first group's phase 0 is the one the second
 *     group meets after that phase;
 *   - the first group reads tile t+1 in phase 0 of t+1, after a barrier the second group meets
 *     at the end of its phase P-2 of tile t: every wave waits for its copies of tile t+1
 *     there (vmcnt); with two phases and two stages that is the phase that issued them.
 * So a K tile needs two phases or more (fsim_gemm_plan refuses a one-atom wave tile).  Copies
 * through registers are written to their stage at that wait. */
static void pp_reads(gen *g, int o, int half, int halves, const char *loop_name, int first, int level) {
  const fsim_gemm_plan *p = g->p;
  int n = o == 0 ? p->rm : p->rn, lo = half * n / halves, hi = (half + 1) * n / halves;
  for (int kk = 0; kk < p->ki; kk++)
    for (int i = lo; i < hi; i++)
      for (int r = 0; r < p->op[o].reads_per_frag; r++) {
        kstep_item it = {'r', o, i, 0, kk, r, 0};
        emit_read(g, &it, loop_name, first, level);
      }
}

static void pp_kstep(gen *g, int copies, const char *loop_name, int first, int level) {
  const fsim_gemm_plan *p = g->p;
  int S = p->s.stages, cpt = fsim_gemm_loads_per_tile(p), sa, sb;
  int P = fsim_gemm_pp_slices(p, &sa, &sb);
  int wait_phase = P - 2;
  int staged = p->op[0].lwrite || p->op[1].lwrite;
  int a_read[2] = {0, 0}, b_read[2] = {0, 0};
  for (int q = 0; q < P && g->st == FSIM_OK; q++) {
    int qa = q / sb, qb = q % sb;
    for (int h = 0; h < sa; h++)
      if (!a_read[h] && (h == qa || P == 2)) pp_reads(g, 0, h, sa, loop_name, first, level), a_read[h] = 1;
    for (int h = 0; h < sb; h++)
      if (!b_read[h] && (h == qb || P == 2)) pp_reads(g, 1, h, sb, loop_name, first, level), b_read[h] = 1;
    if (copies && q == 0) emit_copies(g, loop_name, first + S - 1, level);
    if (q == wait_phase) {
      if (copies) emit_staged_writes(g, loop_name, first + S - 1, level);
      int allow = copies && !staged ? (S - 2) * cpt : 0;
      waitcnt(g, allow > 63 ? 63 : allow, 0);
    } else {
      waitcnt(g, -1, 0);
    }
    barrier(g);
    emit(g, (fsim_wp_inst){.op = FSIM_OP_SETPRIO, .arg = 1, .addr = -1, .addr2 = -1});
    for (int kk = 0; kk < p->ki; kk++)
      for (int i = qa * p->rm / sa; i < (qa + 1) * p->rm / sa; i++)
        for (int j = qb * p->rn / sb; j < (qb + 1) * p->rn / sb; j++) {
          kstep_item it = {'m', 0, i, j, kk, 0, 0};
          emit_mfma(g, &it);
        }
    emit(g, (fsim_wp_inst){.op = FSIM_OP_SETPRIO, .arg = 0, .addr = -1, .addr2 = -1});
  }
}

static void gen_pingpong_program(gen *g, int group) {
  const fsim_gemm_plan *p = g->p;
  int T = p->k_tiles, cpt = fsim_gemm_loads_per_tile(p);
  int pre = begin_program(g, p->ki);
  /* tile 0 in LDS for every wave; then the second group falls one barrier behind */
  int allow = p->op[0].lwrite || p->op[1].lwrite ? 0 : (pre - 1) * cpt;
  waitcnt(g, allow > 63 ? 63 : allow, 0);
  barrier(g);
  if (group == 1) barrier(g);
  int main_trips = T - pre;
  if (main_trips > 0) {
    fsim_wp_program_loop_begin(g->prog, main_trips, g->e);
    pp_kstep(g, 1, "main", 0, 0);
    fsim_wp_program_loop_end(g->prog, g->e);
  }
  if (pre > 0) {
    fsim_wp_program_loop_begin(g->prog, pre, g->e);
    pp_kstep(g, 0, "drain", main_trips, 0);
    fsim_wp_program_loop_end(g->prog, g->e);
  }
  if (group == 0 && p->s.c_path == FSIM_EPI_LDS) barrier(g);
  emit_epilogue(g);
}

fsim_status fsim_gemm_wave_program(const fsim_gemm_plan *p, fsim_wprog *wp, fsim_err *e) {
  /* A, B and C lie a region apart (fsim_arch_global_region: 2^37 bytes with 128-byte lines),
   * inside the lines the simulated caches tell apart (sim/internal.h) */
  const double region = (double)fsim_arch_global_region(p->a);
  const double ng = p->s.op == FSIM_KOP_GROUPED_GEMM ? p->s.groups : 1;
  const double bytes[3] = {ng * p->s.m * p->s.k * p->op[0].elem_bits / 8, ng * p->s.n * p->s.k * p->op[1].elem_bits / 8,
                           ng * p->s.m * p->s.n * p->c_bits / 8};
  for (int i = 0; i < 3; i++)
    if (bytes[i] > region)
      return FSIM_ERR(e, FSIM_EINVAL,
                      "--m/--n/--k: %c of %s takes %.0f bytes, more than the %.0f (%.0f GiB) a wave program, "
                      "which the simulator and emit work from, holds an operand in (predict --mode model has no "
                      "such limit)",
                      "ABC"[i], p->s.name, bytes[i], region, region / 0x1p30);
  fsim_status st = fsim_wprog_init(wp, p->s.name, e);
  if (st != FSIM_OK) return st;
  wp->grid[0] = p->tiles_n;
  wp->grid[1] = p->tiles_m;
  wp->grid[2] = p->s.split_k * (p->s.op == FSIM_KOP_GROUPED_GEMM ? p->s.groups : 1);
  wp->waves_per_wg = p->waves;
  wp->wave_size = p->wave_size;
  wp->vgprs = p->vgprs;
  wp->agprs = p->agprs;
  wp->sgprs = p->sgprs;
  wp->lds_bytes = (int)p->lds_bytes;
  snprintf(wp->arch_gfx, sizeof wp->arch_gfx, "%s", p->a->device.gfx);
  /* FlyDSL's BlockSwizzle applies when there are at least 256 workgroups and they split
   * evenly over the XCDs */
  if (p->s.xcd_remap && p->workgroups >= 256 && p->workgroups % p->a->device.xcds == 0) {
    wp->remap = FSIM_REMAP_XCD;
    wp->remap_xcds = p->a->device.xcds;
  }
  wp->group_m = p->s.group_m;
  int groups = p->s.kind == FSIM_PIPE_PINGPONG ? 2 : 1;
  st = fsim_wprog_set_programs(wp, p->waves, e); /* one program per wave: addresses differ by wave only through
                                                    lane tables, but ping-pong groups differ in code */
  if (st != FSIM_OK) {
    fsim_wprog_free(wp);
    return st;
  }
  wp->nprograms = groups;
  for (int w = 0; w < p->waves; w++) wp->wave_program[w] = groups == 2 ? (w >= p->waves / 2) : 0;
  gen g = {.p = p, .wp = wp, .e = e, .st = FSIM_OK, .c_whole = fsim_gemm_c_stores_whole(p)};
  for (int gi = 0; gi < groups && g.st == FSIM_OK; gi++) {
    g.prog = &wp->programs[gi];
    if (groups == 2) gen_pingpong_program(&g, gi);
    else gen_wave_program(&g);
  }
  if (g.st != FSIM_OK) {
    fsim_wprog_free(wp);
    return g.st;
  }
  return FSIM_OK;
}
