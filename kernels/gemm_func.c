/* Functional execution of a GEMM plan: the schedule's own index maps run on random data and
 * the result is checked against a GSL BLAS reference.
 *
 * Nothing here restates the schedule: copies move bytes from the addresses that
 * fsim_gemm_lane_copy gives into an LDS byte array at the addresses it gives; fragment reads
 * take bytes from the addresses fsim_gemm_lane_read gives and deliver them to lanes as the
 * read instruction does (the transposes of ds_read_b64_tr_b16 and _tr_b8 across 16-lane groups included);
 * the MMA interprets each lane's values through the atom's A, B and C layouts; the epilogue
 * writes accumulator runs and copies C chunks through the same lane functions the wave
 * programs and the emitted HIP use.  A wrong swizzle, layout or pitch therefore gives a wrong
 * result.  Faults can be planted on purpose (tests show that each one is caught). */
#include "config.h"

#include <gsl/gsl_blas.h>
#include <gsl/gsl_rng.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/gemm.h"
#include "util/numeric.h"

typedef struct fexec {
  const fsim_gemm_plan *p;   /* copies and the epilogue */
  const fsim_gemm_plan *rd;  /* fragment reads (the same plan unless a fault is planted) */
  const fsim_gemm_plan *ep;  /* the epilogue's accumulator placement (likewise) */
  int c_read_pitch;          /* the pitch the staged C tile is read back with (likewise) */
  int swap_lane_groups;      /* fault: the MMA takes A values from lane l ^ 16 */
  fsim_dtype at, bt, ct;
  int64_t m, n, k;
  uint8_t *a, *b;            /* operands in their storage layout */
  uint8_t *sa, *sb;          /* E8M0 scales: [m][k/32], [n][k/32] (scaled GEMM) */
  float *c;                  /* result, column-major m x n, accumulated over K slices */
  uint8_t *lds;
  float *acc;                /* per wave: rm*rn atoms x wave_size lanes x c values */
  float *fa, *fb;            /* per wave: fragment values [frag][lane][value] */
} fexec;

static int vals_per_byte(fsim_dtype t) { return fsim_dtype_bits(t) == 4 ? 2 : 1; }

/* Element (mn, k) of operand o: its index in the operand's buffer (in values). */
static int64_t elem_index(const fexec *x, int o, int64_t mn, int64_t k) {
  const fsim_gemm_operand *op = &x->p->op[o];
  int64_t ld_vals = op->ld * vals_per_byte(o == 0 ? x->at : x->bt);
  int64_t rows = o == 0 ? x->m : x->n;
  return op->k_contig ? mn * ld_vals + k : k * rows + mn;
}

/* Copies operand o's tile (tile row tmn, k tile kt) into LDS stage `stage`. */
static void copy_tile(fexec *x, int o, int64_t tmn, int64_t kt, int stage) {
  const fsim_gemm_plan *p = x->p;
  const fsim_gemm_operand *op = &p->op[o];
  fsim_dtype t = o == 0 ? x->at : x->bt;
  int vb = vals_per_byte(t);
  int eb = op->elem_bits / 8; /* storage bytes per storage element */
  int64_t mn0 = tmn * op->rows, k0 = kt * p->s.bk;
  int64_t rows = o == 0 ? x->m : x->n;
  int64_t ld_store = op->k_contig ? op->ld : rows; /* storage elements per global row */
  int64_t lds_base = (o == 0 ? p->lds_stage_a : p->lds_stage_b) + stage * p->lds_stride;
  const uint8_t *src = o == 0 ? x->a : x->b;
  int cb = op->gcopy->bytes;
  for (int c = 0; c < op->copies; c++)
    for (int tid = 0; tid < p->threads; tid++) {
      int64_t g, l;
      int cmn, ck; /* the tile element the copy starts at (storage elements) */
      fsim_gemm_lane_copy(p, o, tid, c, &g, &l);
      fsim_gemm_lane_copy_at(p, o, tid, c, &cmn, &ck);
      for (int byte = 0; byte < cb; byte++) {
        /* the storage element this byte belongs to (the copy's elements run along the
         * contiguous dimension), and the values it holds; from the tile coordinates, as the
         * kernel's bounds check does, since the global offset of a tile that reaches past K
         * wraps into the next row */
        int64_t e = byte / eb;
        int64_t mn_rel = op->k_contig ? cmn : cmn + e, k_rel = op->k_contig ? ck + e : ck;
        int64_t mn = mn0 + mn_rel, kk = k0 + k_rel * vb;
        uint8_t v = 0;
        if (mn < rows && kk < x->k) {
          int64_t gi = op->k_contig ? mn * ld_store + k0 / vb + k_rel : (k0 / vb + k_rel) * ld_store + mn;
          v = src[gi * eb + (g + byte) % eb];
        }
        x->lds[lds_base + l + byte] = v;
      }
    }
}

/* The values lane l holds of fragment i of operand o after its reads (k step kk, stage). */
static void read_fragment(fexec *x, int o, int w, int i, int kk, int stage, float *vals) {
  const fsim_gemm_plan *p = x->rd;
  const fsim_gemm_operand *op = &p->op[o];
  fsim_dtype t = o == 0 ? x->at : x->bt;
  int vb = vals_per_byte(t), eb = op->elem_bits / 8;
  int nv = fsim_mma_atom_values(p->atom, o == 0 ? 'A' : 'B');
  int64_t base = (o == 0 ? p->lds_stage_a : p->lds_stage_b) + stage * p->lds_stride;
  int ws = p->wave_size;
  if (op->lread->transpose) {
    /* 16-lane groups, v = 64 / bits elements a lane: source lane s reads v elements; lane i
     * gets element i % v of source lane (16 / v) j + i / v as its value j */
    int v = op->lread->bytes / eb, across = 16 / v;
    for (int r = 0; r < op->reads_per_frag; r++)
      for (int l = 0; l < ws; l++) {
        int g0 = l & ~15, i16 = l & 15;
        for (int j = 0; j < v; j++) {
          int src = g0 + across * j + i16 / v;
          int64_t addr = base + fsim_gemm_lane_read(p, o, w, i, kk, r, src) + (int64_t)(i16 % v) * eb;
          vals[l * nv + v * r + j] = fsim_load_elem(t, x->lds, addr / eb);
        }
      }
    return;
  }
  int vr = op->lread->bytes / eb * vb; /* values per read */
  for (int r = 0; r < op->reads_per_frag; r++)
    for (int l = 0; l < ws; l++) {
      int64_t addr = base + fsim_gemm_lane_read(p, o, w, i, kk, r, l);
      for (int v = 0; v < vr; v++) vals[l * nv + r * vr + v] = fsim_load_elem(t, x->lds, addr * vb / eb + v);
    }
}

/* One MMA: acc (lane-major C values) += A x B through the atom's layouts, scaled per 32 K. */
static void mma(fexec *x, const float *av, const float *bv, float *acc, int64_t row0, int64_t col0, int64_t k0) {
  const fsim_gemm_plan *p = x->p;
  const fsim_mma_atom *at = p->atom;
  int M = at->m, N = at->n, K = at->k, ws = p->wave_size;
  int na = fsim_mma_atom_values(at, 'A'), nb = fsim_mma_atom_values(at, 'B'), nc = fsim_mma_atom_values(at, 'C');
  float A[64 * 128], B[64 * 128];
  for (int l = 0; l < ws; l++) {
    for (int v = 0; v < na; v++) {
      int r, c;
      fsim_mma_atom_coord(&p->a_tv, M, l, v, &r, &c);
      A[r + M * c] = av[(x->swap_lane_groups ? l ^ 16 : l) * na + v];
    }
    for (int v = 0; v < nb; v++) {
      int r, c;
      fsim_mma_atom_coord(&p->b_tv, N, l, v, &r, &c);
      B[r + N * c] = bv[l * nb + v];
    }
  }
  for (int l = 0; l < ws; l++)
    for (int v = 0; v < nc; v++) {
      int r, c;
      fsim_mma_atom_coord(&p->c_tv, M, l, v, &r, &c);
      float s = 0;
      if (at->scaled) {
        for (int kb = 0; kb < K / 32; kb++) {
          float part = 0;
          for (int kk = kb * 32; kk < kb * 32 + 32; kk++) part += A[r + M * kk] * B[c + N * kk];
          int64_t gr = row0 + r, gc = col0 + c, gk = (k0 + kb * 32) / 32;
          float sa = gr < x->m && k0 + kb * 32 < x->k ? fsim_e8m0_to_float(x->sa[gr * ((x->k + 31) / 32) + gk]) : 0;
          float sb = gc < x->n && k0 + kb * 32 < x->k ? fsim_e8m0_to_float(x->sb[gc * ((x->k + 31) / 32) + gk]) : 0;
          s += part * sa * sb;
        }
      } else {
        for (int kk = 0; kk < K; kk++) s += A[r + M * kk] * B[c + N * kk];
      }
      acc[l * nc + v] += s;
    }
}

/* Runs one workgroup (tile coordinates tm, tn, K slice z). */
static void run_workgroup(fexec *x, int64_t tm, int64_t tn, int z) {
  const fsim_gemm_plan *p = x->p;
  int ws = p->wave_size;
  int na = fsim_mma_atom_values(p->atom, 'A'), nb = fsim_mma_atom_values(p->atom, 'B'),
      nc = fsim_mma_atom_values(p->atom, 'C');
  size_t acc_per_wave = (size_t)p->rm * p->rn * ws * nc;
  memset(x->acc, 0, acc_per_wave * p->waves * sizeof *x->acc);
  int64_t kt0 = (int64_t)z * p->k_tiles;
  int64_t ktiles_total = (x->k + p->s.bk - 1) / p->s.bk;
  for (int t = 0; t < p->k_tiles && kt0 + t < ktiles_total; t++) {
    int stage = t % p->s.stages;
    copy_tile(x, 0, tm, kt0 + t, stage);
    copy_tile(x, 1, tn, kt0 + t, stage);
    for (int w = 0; w < p->waves; w++) {
      int wm = w % p->s.waves_m, wn = w / p->s.waves_m;
      float *acc = x->acc + acc_per_wave * w;
      for (int kk = 0; kk < p->ki; kk++) {
        for (int i = 0; i < p->rm; i++) read_fragment(x, 0, w, i, kk, stage, x->fa + (size_t)i * ws * na);
        for (int j = 0; j < p->rn; j++) read_fragment(x, 1, w, j, kk, stage, x->fb + (size_t)j * ws * nb);
        for (int i = 0; i < p->rm; i++)
          for (int j = 0; j < p->rn; j++) {
            int64_t row0 = tm * p->s.bm + wm * p->wave_tm + i * p->atom->m;
            int64_t col0 = tn * p->s.bn + wn * p->wave_tn + j * p->atom->n;
            int64_t k0 = (kt0 + t) * p->s.bk + kk * p->atom->k;
            mma(x, x->fa + (size_t)i * ws * na, x->fb + (size_t)j * ws * nb, acc + ((size_t)i * p->rn + j) * ws * nc,
                row0, col0, k0);
          }
      }
    }
  }
  /* epilogue: runs of 4 consecutive rows through LDS (or direct), rounded to the output type */
  int64_t c_row0 = tm * p->s.bm, c_col0 = tn * p->s.bn;
  int cbytes = p->c_bits / 8, runs = nc / 4;
  if (p->s.c_path == FSIM_EPI_DIRECT) {
    for (int w = 0; w < p->waves; w++)
      for (int i = 0; i < p->rm; i++)
        for (int j = 0; j < p->rn; j++)
          for (int r = 0; r < runs; r++)
            for (int l = 0; l < ws; l++) {
              int row, col; /* in the C tile: the store is masked at the edges of C */
              fsim_gemm_c_run_coord(x->ep, i, j, r, w, l, &row, &col);
              const float *acc = x->acc + acc_per_wave * w + ((size_t)i * p->rn + j) * ws * nc + (size_t)l * nc;
              for (int q = 0; q < 4; q++) {
                int64_t gr = c_row0 + row + q, gc = c_col0 + col;
                uint8_t rounded[4];
                fsim_store_elem(x->ct, rounded, 0, acc[4 * r + q]);
                if (gr < x->m && gc < x->n) x->c[gc * x->m + gr] += fsim_load_elem(x->ct, rounded, 0);
              }
            }
    return;
  }
  int pitch = p->c_pitch;
  uint8_t *lds = x->lds;
  for (int w = 0; w < p->waves; w++)
    for (int i = 0; i < p->rm; i++)
      for (int j = 0; j < p->rn; j++)
        for (int r = 0; r < runs; r++)
          for (int l = 0; l < ws; l++) {
            int64_t off = p->lds_c + fsim_gemm_lane_c_lds(x->ep, i, j, r, pitch, w, l);
            const float *acc = x->acc + acc_per_wave * w + ((size_t)i * p->rn + j) * ws * nc + (size_t)l * nc;
            for (int q = 0; q < 4; q++) fsim_store_elem(x->ct, lds, off / cbytes + q, acc[4 * r + q]);
          }
  int per = 16 / cbytes;
  int chunks = (int)((int64_t)p->s.bm * p->s.bn * cbytes / (16 * p->threads));
  if (chunks < 1) chunks = 1;
  for (int c = 0; c < chunks; c++)
    for (int w = 0; w < p->waves; w++)
      for (int l = 0; l < ws; l++) {
        int64_t lo = p->lds_c + fsim_gemm_lane_c_chunk(p, c, x->c_read_pitch, 0, 0, w, l);
        int row, col;
        fsim_gemm_c_chunk_coord(p, c, w, l, &row, &col);
        for (int q = 0; q < per; q++) {
          int64_t gr = c_row0 + row + q, gc = c_col0 + col;
          if (gr < x->m && gc < x->n) x->c[gc * x->m + gr] += fsim_load_elem(x->ct, lds, lo / cbytes + q);
        }
      }
}

/* The fault layouts: tv with its lanes transposed, out(l, v) = tv(l', v) where lane
 * l = a + 16 b (a < 16) becomes l' = a (W/16) + b, composed through the layout algebra and
 * checked against that rule value by value. */
static fsim_status lanes_transposed(fsim_layout *out, const fsim_layout *tv, int ws, int vals, fsim_err *e) {
  char text[96];
  snprintf(text, sizeof text, "((16,%d),%d):((%d,1),%d)", ws / 16, vals, ws / 16, ws);
  fsim_layout perm;
  if (ws % 16 != 0 || fsim_layout_parse(&perm, text, e) != FSIM_OK || fsim_layout_compose(out, tv, &perm, e) != FSIM_OK)
    return FSIM_ERR(e, FSIM_EINVAL, "functional check: cannot plant a layout fault on a %d-lane layout", ws);
  for (int l = 0; l < ws; l++)
    for (int v = 0; v < vals; v++) {
      int64_t got[2] = {l, v}, want[2] = {l % 16 * (ws / 16) + l / 16, v};
      if (fsim_layout_eval_modes(out, got) != fsim_layout_eval_modes(tv, want))
        return FSIM_ERR(e, FSIM_EFAIL, "functional check: the transposed layout of lane %d value %d is wrong", l,
                        v);
    }
  return FSIM_OK;
}

static float random_value(gsl_rng *rng, fsim_dtype t) {
  double u = gsl_rng_uniform(rng) * 2 - 1;
  switch (t) {
  case FSIM_DT_FP4: return fsim_fp4_to_float((uint8_t)gsl_rng_uniform_int(rng, 16));
  case FSIM_DT_FP8:
  case FSIM_DT_BF8: return (float)(u * 4);
  default: return (float)u;
  }
}

/* Random values for operand o in its storage format, and their double copies with the scales
 * applied for the reference: A as m x k (row-major), B as k x n, and their absolute values. */
static void fill_operand(fexec *x, int o, gsl_rng *rng, int64_t kblocks, double *ref, double *refabs) {
  fsim_dtype t = o == 0 ? x->at : x->bt;
  uint8_t *store = o == 0 ? x->a : x->b;
  const uint8_t *scale = o == 0 ? x->sa : x->sb;
  int64_t rows = o == 0 ? x->m : x->n;
  for (int64_t mn = 0; mn < rows; mn++)
    for (int64_t k = 0; k < x->k; k++) {
      int64_t idx = elem_index(x, o, mn, k);
      fsim_store_elem(t, store, idx, random_value(rng, t));
      double q = fsim_load_elem(t, store, idx) * (double)fsim_e8m0_to_float(scale[mn * kblocks + k / 32]);
      int64_t at = o == 0 ? mn * x->k + k : k * x->n + mn;
      ref[at] = q;
      refabs[at] = fabs(q);
    }
}

fsim_status fsim_gemm_functional(const fsim_gemm_plan *p, uint64_t seed, unsigned faults, fsim_gemm_check *out,
                                 fsim_err *e) {
  memset(out, 0, sizeof *out);
  const fsim_schedule *s = &p->s;
  if (s->op == FSIM_KOP_GROUPED_GEMM && s->groups > 1)
    return FSIM_ERR(e, FSIM_EINVAL, "functional check: run one group (groups = 1) at a time");
  double macs = (double)s->m * s->n * s->k;
  if (macs > (double)(1 << 30))
    return FSIM_ERR(e, FSIM_EINVAL, "functional check of %lldx%lldx%lld (%.3g MACs) is too large; use m*n*k <= 2^30",
                    s->m, s->n, s->k, macs);
  fexec x = {.p = p, .rd = p, .ep = p, .c_read_pitch = p->c_pitch, .at = s->a_type, .bt = s->b_type,
             .ct = s->c_type, .m = s->m, .n = s->n, .k = s->k};
  static const unsigned known = FSIM_FAULT_READ_SWIZZLE | FSIM_FAULT_A_LAYOUT | FSIM_FAULT_A_READ_LAYOUT |
                                FSIM_FAULT_B_READ_LAYOUT | FSIM_FAULT_C_LAYOUT | FSIM_FAULT_C_PITCH;
  if (faults & ~known) return FSIM_ERR(e, FSIM_EINVAL, "functional check: unknown fault 0x%x", faults & ~known);
  fsim_gemm_plan faulty = *p, faulty_ep = *p;
  if (faults & FSIM_FAULT_READ_SWIZZLE) {
    /* reads use another swizzle than the copies wrote with */
    for (int o = 0; o < 2; o++)
      fsim_swizzle_make(&faulty.op[o].sw, p->op[o].sw.b ? 0 : 2, p->op[o].sw.b ? 0 : 3, p->op[o].sw.b ? 0 : 3, NULL);
    x.rd = &faulty;
  }
  fsim_status fst = FSIM_OK;
  if (faults & FSIM_FAULT_A_READ_LAYOUT)
    fst = lanes_transposed(&faulty.a_tv, &p->a_tv, p->wave_size, fsim_mma_atom_values(p->atom, 'A'), e);
  if (fst == FSIM_OK && (faults & FSIM_FAULT_B_READ_LAYOUT))
    fst = lanes_transposed(&faulty.b_tv, &p->b_tv, p->wave_size, fsim_mma_atom_values(p->atom, 'B'), e);
  if (fst == FSIM_OK && (faults & FSIM_FAULT_C_LAYOUT))
    fst = lanes_transposed(&faulty_ep.c_tv, &p->c_tv, p->wave_size, fsim_mma_atom_values(p->atom, 'C'), e);
  if (fst != FSIM_OK) return fst;
  if (faults & (FSIM_FAULT_A_READ_LAYOUT | FSIM_FAULT_B_READ_LAYOUT)) x.rd = &faulty;
  if (faults & FSIM_FAULT_C_LAYOUT) x.ep = &faulty_ep;
  if (faults & FSIM_FAULT_C_PITCH) {
    if (s->c_path != FSIM_EPI_LDS)
      return FSIM_ERR(e, FSIM_EINVAL, "functional check: a C pitch fault needs C staged through LDS");
    x.c_read_pitch = p->c_pitch - 8;
  }
  x.swap_lane_groups = (faults & FSIM_FAULT_A_LAYOUT) != 0;
  int64_t asz = (x.m * x.k * fsim_dtype_bits(x.at) + 7) / 8, bsz = (x.n * x.k * fsim_dtype_bits(x.bt) + 7) / 8;
  int64_t kblocks = (x.k + 31) / 32;
  int ws = p->wave_size;
  size_t accn = (size_t)p->waves * p->rm * p->rn * ws * fsim_mma_atom_values(p->atom, 'C');
  x.a = calloc((size_t)asz + 16, 1);
  x.b = calloc((size_t)bsz + 16, 1);
  x.sa = calloc((size_t)(x.m * kblocks), 1);
  x.sb = calloc((size_t)(x.n * kblocks), 1);
  x.c = calloc((size_t)(x.m * x.n), sizeof *x.c);
  x.lds = calloc((size_t)p->lds_bytes + 64, 1);
  x.acc = calloc(accn, sizeof *x.acc);
  x.fa = calloc((size_t)p->rm * ws * fsim_mma_atom_values(p->atom, 'A'), sizeof *x.fa);
  x.fb = calloc((size_t)p->rn * ws * fsim_mma_atom_values(p->atom, 'B'), sizeof *x.fb);
  double *ad = malloc((size_t)(x.m * x.k) * sizeof *ad), *bd = malloc((size_t)(x.k * x.n) * sizeof *bd);
  double *cd = calloc((size_t)(x.m * x.n), sizeof *cd), *absd = calloc((size_t)(x.m * x.n), sizeof *absd);
  double *aabs = malloc((size_t)(x.m * x.k) * sizeof *aabs), *babs = malloc((size_t)(x.k * x.n) * sizeof *babs);
  double *psum = NULL, *part = NULL; /* split-K: sum over slices of |partial sum|, and one partial */
  gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
  fsim_status st = FSIM_OK;
  if (!x.a || !x.b || !x.sa || !x.sb || !x.c || !x.lds || !x.acc || !x.fa || !x.fb || !ad || !bd || !cd || !absd ||
      !aabs || !babs || !rng) {
    st = FSIM_ERR(e, FSIM_ENOMEM, "functional check: out of memory");
    goto done;
  }
  gsl_rng_set(rng, seed);
  int scaled = p->atom->scaled && s->op == FSIM_KOP_SCALED_GEMM;
  for (int64_t i = 0; i < x.m * kblocks; i++) x.sa[i] = scaled ? (uint8_t)(127 + gsl_rng_uniform_int(rng, 5) - 2) : 127;
  for (int64_t i = 0; i < x.n * kblocks; i++) x.sb[i] = scaled ? (uint8_t)(127 + gsl_rng_uniform_int(rng, 5) - 2) : 127;
  /* operands, and their double copies (scales applied) for the reference */
  fill_operand(&x, 0, rng, kblocks, ad, aabs);
  fill_operand(&x, 1, rng, kblocks, bd, babs);
  /* the schedule, workgroup by workgroup (the remap only orders them) */
  for (int z = 0; z < s->split_k; z++)
    for (int64_t tm = 0; tm < p->tiles_m; tm++)
      for (int64_t tn = 0; tn < p->tiles_n; tn++) run_workgroup(&x, tm, tn, z);
  /* the reference and its error bound */
  gsl_matrix_view A = gsl_matrix_view_array(ad, (size_t)x.m, (size_t)x.k);
  gsl_matrix_view B = gsl_matrix_view_array(bd, (size_t)x.k, (size_t)x.n);
  gsl_matrix_view C = gsl_matrix_view_array(cd, (size_t)x.m, (size_t)x.n);
  gsl_matrix_view AA = gsl_matrix_view_array(aabs, (size_t)x.m, (size_t)x.k);
  gsl_matrix_view BB = gsl_matrix_view_array(babs, (size_t)x.k, (size_t)x.n);
  gsl_matrix_view CC = gsl_matrix_view_array(absd, (size_t)x.m, (size_t)x.n);
  gsl_blas_dgemm(CblasNoTrans, CblasNoTrans, 1.0, &A.matrix, &B.matrix, 0.0, &C.matrix);
  gsl_blas_dgemm(CblasNoTrans, CblasNoTrans, 1.0, &AA.matrix, &BB.matrix, 0.0, &CC.matrix);
  /* output rounding plus f32 accumulation (a unit roundoff per K term, bounded with the
   * absolute-value product).  Split-K rounds each slice's partial sum to the output type and
   * adds the partials in f32, so the rounding is bounded by the sum of |partial| over slices,
   * computed here slice by slice. */
  double u_out = ldexp(1.0, -(fsim_dtype_mantissa_bits(x.ct) + 1));
  double u_acc = ldexp(1.0, -24) * (double)(s->k + 8);
  out->tolerance_rel = u_out;
  if (s->split_k > 1) {
    psum = calloc((size_t)(x.m * x.n), sizeof *psum);
    part = malloc((size_t)(x.m * x.n) * sizeof *part);
    if (psum == NULL || part == NULL) {
      st = FSIM_ERR(e, FSIM_ENOMEM, "functional check: out of memory");
      goto done;
    }
    int64_t slice = (int64_t)p->k_tiles * s->bk;
    for (int z = 0; z < s->split_k; z++) {
      int64_t k0 = z * slice, k1 = k0 + slice < x.k ? k0 + slice : x.k;
      if (k0 >= k1) continue;
      gsl_matrix_view As = gsl_matrix_submatrix(&A.matrix, 0, (size_t)k0, (size_t)x.m, (size_t)(k1 - k0));
      gsl_matrix_view Bs = gsl_matrix_submatrix(&B.matrix, (size_t)k0, 0, (size_t)(k1 - k0), (size_t)x.n);
      gsl_matrix_view P = gsl_matrix_view_array(part, (size_t)x.m, (size_t)x.n);
      gsl_blas_dgemm(CblasNoTrans, CblasNoTrans, 1.0, &As.matrix, &Bs.matrix, 0.0, &P.matrix);
      for (int64_t i = 0; i < x.m * x.n; i++) psum[i] += fabs(part[i]);
    }
  }
  for (int64_t r = 0; r < x.m; r++)
    for (int64_t c = 0; c < x.n; c++) {
      double ref = cd[r * x.n + c], got = x.c[c * x.m + r];
      double rounded = psum ? psum[r * x.n + c] : fabs(ref);
      double err = fabs(got - ref), tol = u_out * rounded * 1.01 + u_acc * absd[r * x.n + c] + 1e-30;
      out->elements++;
      if (err > out->max_abs_err) out->max_abs_err = err;
      double rel = err / (absd[r * x.n + c] + 1e-30);
      if (rel > out->max_rel_err) out->max_rel_err = rel;
      if (!(err <= tol)) {
        if (out->mismatches == 0) {
          out->first_row = r;
          out->first_col = c;
          out->first_got = got;
          out->first_want = ref;
        }
        out->mismatches++;
      }
    }
  out->ok = out->mismatches == 0;
done:
  free(x.a);
  free(x.b);
  free(x.sa);
  free(x.sb);
  free(x.c);
  free(x.lds);
  free(x.acc);
  free(x.fa);
  free(x.fb);
  free(ad);
  free(bd);
  free(cd);
  free(absd);
  free(aabs);
  free(babs);
  free(psum);
  free(part);
  gsl_rng_free(rng);
  return st;
}
