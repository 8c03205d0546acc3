/* GEMM plans: legality of a GEMM-family schedule on an arch, the geometry every later step
 * shares, and the per-lane address functions (see gemm.h).
 *
 * LDS tiles.  Element (mn, k) of operand o sits at logical element offset
 *   k-major:  mn * row_len + k      (row_len = bk + pad)
 *   mn-major: k * row_len + mn      (row_len = rows + pad)
 * and at physical offset swizzle(logical).  Direct-to-LDS copies write each lane's bytes at
 * consecutive LDS addresses (M0 + lane * bytes), so for them the swizzle is applied on the
 * global side: the lane that writes physical chunk q fetches the element whose logical
 * offset is swizzle(q) (a swizzle is its own inverse).  Copies through registers load
 * consecutive chunks in global order and write them to their swizzled LDS place.
 *
 * Fragment reads.  A plain read (ds_read_b32/b64/b128) gives lane l the consecutive values
 * [r*vr, (r+1)*vr) of its fragment, which must be consecutive along k in the atom's layout
 * (checked).  The transposing reads (ds_read_b64_tr_b16, ds_read_b64_tr_b8) work in 16-lane
 * groups on 64 bits a lane, v = 64 / bits values: source lane s of a group reads v
 * consecutive mn values at (mn_base + v*(s % (16/v)), k_base + s / (16/v)) and, after the
 * transpose, lane i of the group holds (mn_base + i, k_base + j) for j = 0..v-1 (CDNA4 ISA
 * 11.4 for tr_b16; docs/atoms.md gives the sources for tr_b8); the bases come from the atom's
 * layout, and the delivered elements are checked against it. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "kernels/gemm.h"
#include "model/occupancy.h"
#include "util/text.h"

#define PERR(e, sec, key, ...) gemm_err((e), __LINE__, (sec), (key), __VA_ARGS__)
static fsim_status gemm_err(fsim_err *e, int line, const char *sec, const char *key, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
#include <stdarg.h>
static fsim_status gemm_err(fsim_err *e, int line, const char *sec, const char *key, const char *fmt, ...) {
  if (e == NULL) return FSIM_EINVAL; /* enumerating: the reason is not wanted */
  char msg[600];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  return fsim__err_set(e, FSIM_EINVAL, __FILE__, line, "[%s] %s: %s", sec, key, msg);
}

static int ilog2(int v) {
  int r = 0;
  while ((1 << (r + 1)) <= v) r++;
  return r;
}

static int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }

/* ---- per-lane addresses ----------------------------------------------------------------------- */

static inline int64_t lds_logical(const fsim_gemm_operand *op, int mn, int k) {
  return op->lds_major == FSIM_LDS_K_MAJOR ? (int64_t)mn * op->row_len + k : (int64_t)k * op->row_len + mn;
}

static inline int elem_bytes_x2(const fsim_gemm_operand *op) { return op->elem_bits / 4; } /* bytes * 2 */

/* Logical element offset -> (mn, k). */
static inline void lds_coords(const fsim_gemm_operand *op, int64_t logical, int *mn, int *k) {
  if (op->lds_major == FSIM_LDS_K_MAJOR) {
    *mn = (int)(logical / op->row_len);
    *k = (int)(logical % op->row_len);
  } else {
    *k = (int)(logical / op->row_len);
    *mn = (int)(logical % op->row_len);
  }
}

static inline int64_t global_off(const fsim_gemm_operand *op, int mn, int k) {
  int64_t el = op->k_contig ? (int64_t)mn * op->ld + k : (int64_t)k * op->ld + mn;
  return el * elem_bytes_x2(op) / 2;
}

/* Elements are addressed in storage units: fp4 pairs share a byte, so a "storage element"
 * of a 4-bit type is one byte holding two values.  The plan keeps 4-bit operands in bytes. */

/* A copy through registers (not direct to LDS): the (mn, k) of the first element of copy q
 * (copy c of thread t is q = c x threads + t) in global order: consecutive chunks along the
 * contiguous dimension, then the other (in storage elements: a 4-bit operand's BK values are
 * BK / 2 bytes). */
static void copy_coords_global(const fsim_gemm_plan *p, int o, int64_t q, int *mn, int *k) {
  const fsim_gemm_operand *op = &p->op[o];
  int ce = op->gcopy->bytes / (op->elem_bits / 8); /* elements per copy */
  int contig = op->k_contig ? p->s.bk / op->vals_per_elem : op->rows;
  int64_t first = q * ce;
  int along = (int)(first % contig), across = (int)(first / contig);
  *mn = op->k_contig ? across : along;
  *k = op->k_contig ? along : across;
}

/* The lane functions with the swizzle given (the plan's, or a candidate the plan weighs). */
static void lane_copy_coords(const fsim_gemm_plan *p, int o, const fsim_swizzle *sw, int t, int c, int *mn_out,
                             int *k_out, int64_t *lds) {
  const fsim_gemm_operand *op = &p->op[o];
  int eb = op->elem_bits / 8;
  int ce = op->gcopy->bytes / eb; /* elements per copy */
  int64_t q = (int64_t)c * p->threads + t;
  int mn, k;
  if (op->gcopy->op == FSIM_OP_LOAD_LDS) {
    int64_t phys = q * ce;
    lds_coords(op, fsim_swizzle_apply(sw, phys), &mn, &k);
    *lds = phys * eb;
  } else {
    copy_coords_global(p, o, q, &mn, &k);
    *lds = fsim_swizzle_apply(sw, lds_logical(op, mn, k)) * eb;
  }
  *mn_out = mn;
  *k_out = k;
}

static void lane_copy_sw(const fsim_gemm_plan *p, int o, const fsim_swizzle *sw, int t, int c, int64_t *global,
                         int64_t *lds) {
  int mn, k;
  lane_copy_coords(p, o, sw, t, c, &mn, &k, lds);
  *global = global_off(&p->op[o], mn, k);
}

void fsim_gemm_lane_copy(const fsim_gemm_plan *p, int o, int t, int c, int64_t *global, int64_t *lds) {
  lane_copy_sw(p, o, &p->op[o].sw, t, c, global, lds);
}

int fsim_gemm_scale_loads(const fsim_gemm_plan *p, int o, int *width, int64_t *chunk) {
  *width = 0, *chunk = 0;
  if (p->s.op != FSIM_KOP_SCALED_GEMM) return 0;
  *chunk = (int64_t)(o == 0 ? p->wave_tm : p->wave_tn) * (p->s.bk / 32);
  int w = 4;
  while (w < 16 && (int64_t)2 * w * p->wave_size <= *chunk) w *= 2;
  *width = w;
  return (int)((*chunk + (int64_t)w * p->wave_size - 1) / ((int64_t)w * p->wave_size));
}

int64_t fsim_gemm_lane_scale(const fsim_gemm_plan *p, int o, int j, int w, int l) {
  int width;
  int64_t chunk;
  fsim_gemm_scale_loads(p, o, &width, &chunk);
  int64_t kt = (int64_t)p->s.split_k * p->k_tiles; /* K tiles of the whole K */
  int block = o == 0 ? w % p->s.waves_m : w / p->s.waves_m;
  /* lanes past the chunk (a chunk smaller than a load) read its bytes again: the same lines */
  int64_t at = (((int64_t)j * p->wave_size + l) * width) % chunk;
  return block * kt * chunk + at;
}

int fsim_gemm_used_stages(const fsim_gemm_plan *p) {
  const int64_t cap = (int64_t)p->k_tiles + 1; /* the prologue issues all T tiles with T + 1 */
  return p->s.stages < cap ? p->s.stages : (int)cap;
}

int fsim_gemm_loads_per_tile(const fsim_gemm_plan *p) {
  int n = p->op[0].copies + p->op[1].copies, width;
  int64_t chunk;
  for (int o = 0; o < 2; o++) n += fsim_gemm_scale_loads(p, o, &width, &chunk);
  return n;
}

void fsim_gemm_lane_copy_at(const fsim_gemm_plan *p, int o, int t, int c, int *mn, int *k) {
  int64_t lds;
  lane_copy_coords(p, o, &p->op[o].sw, t, c, mn, k, &lds);
}

/* The atom-relative (mn, k) of value v of lane l. */
static void atom_mnk(const fsim_gemm_plan *p, const fsim_layout *tv, int o, int l, int v, int *mn, int *k) {
  int rows = o == 0 ? p->atom->m : p->atom->n;
  fsim_mma_atom_coord(tv, rows, l, v, mn, k);
}

static const fsim_layout *atom_tv(const fsim_gemm_plan *p, int o);

/* Read r of fragment (i, kk) by lane l of wave w: its LDS element before the swizzle. */
static int64_t lane_read_logical(const fsim_gemm_plan *p, int o, int w, int i, int kk, int r, int l) {
  const fsim_gemm_operand *op = &p->op[o];
  const fsim_layout *tv = atom_tv(p, o);
  int wave_pos = o == 0 ? w % p->s.waves_m : w / p->s.waves_m;
  int mn0 = wave_pos * (o == 0 ? p->wave_tm : p->wave_tn) + i * (o == 0 ? p->atom->m : p->atom->n);
  int k0 = kk * p->atom->k; /* in values; LDS rows hold storage elements of vpe values each */
  int eb = op->elem_bits / 8, vpe = op->vals_per_elem;
  int mn, k;
  if (op->lread->transpose) {
    int g = l / 16, s = l % 16, mnb, kb, v = op->lread->bytes / eb, across = 16 / v;
    atom_mnk(p, tv, o, g * 16, v * r, &mnb, &kb);
    mn = mnb + v * (s % across);
    k = kb + s / across;
  } else {
    int vr = op->lread->bytes / eb * vpe;
    atom_mnk(p, tv, o, l, r * vr, &mn, &k);
  }
  return lds_logical(op, mn0 + mn, (k0 + k) / vpe);
}

static int64_t lane_read_sw(const fsim_gemm_plan *p, int o, const fsim_swizzle *sw, int w, int i, int kk, int r,
                            int l) {
  return fsim_swizzle_apply(sw, lane_read_logical(p, o, w, i, kk, r, l)) * (p->op[o].elem_bits / 8);
}

int64_t fsim_gemm_lane_read(const fsim_gemm_plan *p, int o, int w, int i, int kk, int r, int l) {
  return lane_read_sw(p, o, &p->op[o].sw, w, i, kk, r, l);
}

void fsim_gemm_read_delivers(const fsim_gemm_plan *p, int o, int r, int l, int v, int *mn, int *k) {
  const fsim_gemm_operand *op = &p->op[o];
  const fsim_layout *tv = atom_tv(p, o);
  if (op->lread->transpose) {
    int g = l / 16, i = l % 16, mnb, kb;
    atom_mnk(p, tv, o, g * 16, op->lread->bytes / (op->elem_bits / 8) * r, &mnb, &kb);
    *mn = mnb + i;
    *k = kb + v;
  } else {
    int vr = op->lread->bytes / (op->elem_bits / 8) * op->vals_per_elem;
    atom_mnk(p, tv, o, l, r * vr, mn, k);
    *k += v; /* a plain read delivers consecutive values of the LDS row */
  }
}

static const fsim_layout *atom_tv(const fsim_gemm_plan *p, int o) { return o == 0 ? &p->a_tv : &p->b_tv; }

/* ---- checks ----------------------------------------------------------------------------------- */

int fsim_transpose_read_fits(const fsim_copy_atom *r, int elem_bits, int lds_major, const char *id, char *why, size_t n) {
  if (r->transpose && r->transpose != elem_bits)
    snprintf(why, n, "%s transposes %d-bit elements; %s is %d-bit", r->name, r->transpose, id, elem_bits);
  else if (r->transpose && lds_major != FSIM_LDS_MN_MAJOR)
    snprintf(why, n, "%s reads an mn-major tile; this one is k-major", r->name);
  else
    return 1;
  return 0;
}

/* Does the read atom deliver exactly the atom's fragment layout?  Fills reads per fragment. */
static fsim_status check_reads(fsim_gemm_plan *p, int o, fsim_err *e) {
  fsim_gemm_operand *op = &p->op[o];
  const char *id = o == 0 ? "A" : "B", *sec = o == 0 ? "operand.A" : "operand.B";
  int vals = fsim_mma_atom_values(p->atom, o == 0 ? 'A' : 'B');
  int eb = op->elem_bits / 8;
  int vr = op->lread->bytes / eb * op->vals_per_elem; /* values per read (a transposing read's too) */
  char why[160];
  if (!fsim_transpose_read_fits(op->lread, op->elem_bits, op->lds_major, id, why, sizeof why))
    return PERR(e, sec, "lds_read", "%s", why);
  if (!op->lread->transpose && op->lds_major == FSIM_LDS_MN_MAJOR && vr != 1)
    return PERR(e, sec, "lds_read",
                "an mn-major tile needs a transposing read (ds_read_b64_tr_b16, ds_read_b64_tr_b8) or one "
                "element per read (ds_read_u16); %s reads %d",
                op->lread->name, vr);
  if (vr < 1 || vals % vr != 0)
    return PERR(e, sec, "lds_read", "%s reads %d values; a lane holds %d of the %s fragment", op->lread->name, vr, vals,
                id);
  op->reads_per_frag = vals / vr;
  const fsim_layout *tv = atom_tv(p, o);
  for (int l = 0; l < p->wave_size; l++)
    for (int r = 0; r < op->reads_per_frag; r++)
      for (int v = 0; v < vr; v++) {
        int mn, k, wmn, wk;
        fsim_gemm_read_delivers(p, o, r, l, v, &mn, &k);
        atom_mnk(p, tv, o, l, r * vr + v, &wmn, &wk);
        if (mn != wmn || k != wk)
          return PERR(e, sec, "lds_read",
                      "%s does not deliver the %s layout of %s: lane %d value %d would get (%d,%d), the atom wants "
                      "(%d,%d)",
                      op->lread->name, id, p->atom->name, l, r * vr + v, mn, k, wmn, wk);
      }
  return FSIM_OK;
}

/* Bank cycles of one wave's fragment reads for a k step (all i) with swizzle sw. */
/* Bank cycles of the first nfrag fragments' reads and the first ncopy copies' writes. */
static void bank_cycles_n(const fsim_gemm_plan *p, int o, const fsim_swizzle *sw, int nfrag, int ncopy, int *reads,
                          int *writes);

void fsim_gemm_bank_cycles(const fsim_gemm_plan *p, int o, const fsim_swizzle *sw, int *reads, int *writes) {
  bank_cycles_n(p, o, sw, o == 0 ? p->rm : p->rn, p->op[o].copies, reads, writes);
}

/* Bank cycles of fragment i's reads (one K step, wave 0) under swizzle sw. */
static int frag_read_cycles(const fsim_gemm_plan *p, int o, const fsim_swizzle *sw, int i) {
  int32_t off[FSIM_MAX_WAVE];
  uint64_t all = p->wave_size >= 64 ? ~0ULL : (1ULL << p->wave_size) - 1;
  int cyc = 0;
  for (int r = 0; r < p->op[o].reads_per_frag; r++) {
    for (int l = 0; l < p->wave_size; l++) off[l] = (int32_t)lane_read_sw(p, o, sw, 0, i, 0, r, l);
    cyc += fsim_lds_bank_cycles(p->a, off, all, 0, p->op[o].lread->bytes, NULL);
  }
  return cyc;
}

static void bank_cycles_n(const fsim_gemm_plan *p, int o, const fsim_swizzle *sw, int nfrag, int ncopy, int *reads,
                          int *writes) {
  int32_t off[FSIM_MAX_WAVE];
  uint64_t all = p->wave_size >= 64 ? ~0ULL : (1ULL << p->wave_size) - 1;
  *reads = *writes = 0;
  for (int i = 0; i < nfrag; i++) *reads += frag_read_cycles(p, o, sw, i);
  if (p->op[o].lwrite != NULL) /* register path: the ds_write side too */
    for (int c = 0; c < ncopy; c++) {
      for (int l = 0; l < p->wave_size; l++) {
        int64_t g, d;
        lane_copy_sw(p, o, sw, l, c, &g, &d);
        off[l] = (int32_t)d;
      }
      *writes += fsim_lds_bank_cycles(p->a, off, all, 0, p->op[o].lwrite->bytes, NULL);
    }
}

/* ---- memo: operand results that only depend on a few fields, for enumerating many configs */

typedef struct memo_key {
  const fsim_arch *a;
  const fsim_mma_atom *atom;
  const fsim_copy_atom *gcopy, *lread, *lwrite;
  int o, elem_bits, vpe, lds_major, k_contig, row_len, rows, bk, nfrag, threads, ki, wave_size;
  char swizzle[24];
} memo_key;

typedef struct memo_val {
  fsim_status st;
  char msg[sizeof(((fsim_err *)0)->msg)];
  int reads_per_frag;
  fsim_swizzle sw;
  int read_cycles, write_cycles;
  /* direct path: bank cycles of fragment i's reads under sw, for i < frags_known (the key
   * leaves the fragment count out, so plans with more fragments extend the list) */
  int frags_known;
  int frag_cycles[64];
} memo_val;

/* What the epilogue's costs depend on (epilogue_costs). */
typedef struct epi_key {
  const fsim_arch *a;
  const fsim_mma_atom *atom;
  int64_t m;
  int bm, c_bits, c_path, split, pitch;
} epi_key;
#define EPI_SLOTS 4096

/* What the tiles XCD 0 holds at once depend on (xcd_tiles). */
typedef struct tiles_key {
  const fsim_arch *a;
  int64_t resident;
  int tiles_m, tiles_n, z, remap, group_m;
} tiles_key;
#define TILES_SLOTS 1024

/* What the DRAM reads of A and B depend on (dram_reads). */
typedef struct dram_key {
  const fsim_arch *a;
  int64_t resident;
  int tiles_m, tiles_n, z, remap, group_m;
  int64_t panel_a, panel_b, tile_c; /* bytes */
} dram_key;
#define DRAM_SLOTS 1024

#define MEMO_SLOTS 32768
#define MEMO_ATOMS 64
struct fsim_gemm_memo {
  const fsim_mma_atom *atom[MEMO_ATOMS]; /* parsed layouts per atom */
  fsim_layout a_tv[MEMO_ATOMS], b_tv[MEMO_ATOMS], c_tv[MEMO_ATOMS];
  int used[MEMO_SLOTS];
  memo_key key[MEMO_SLOTS];
  memo_val val[MEMO_SLOTS];
  int64_t hits, misses;
  /* the epilogue's costs (epilogue_costs) by their inputs */
  int epi_used[EPI_SLOTS];
  epi_key epi_key[EPI_SLOTS];
  int epi_val[EPI_SLOTS][3];
  /* the tiles XCD 0 holds at once (xcd_tiles) by their inputs */
  int tiles_used[TILES_SLOTS];
  tiles_key tiles_key[TILES_SLOTS];
  int64_t tiles_val[TILES_SLOTS][2];
  /* the DRAM reads of A and B past the MALL (dram_reads) by their inputs */
  int dram_used[DRAM_SLOTS];
  dram_key dram_key[DRAM_SLOTS];
  int64_t dram_val[DRAM_SLOTS];
  /* bank cycles of an accumulator write at pitch bm + pad: [atom][c bytes 1,2,4][log2 bm][pad / 2] */
  short pitch_cycles[MEMO_ATOMS][3][9][9];
};

fsim_gemm_memo *fsim_gemm_memo_create(void) { return calloc(1, sizeof(fsim_gemm_memo)); }

int fsim__gemm_memo_pitch_get(fsim_gemm_memo *m, const fsim_gemm_plan *p, int pad) {
  int n, ai = (int)(p->atom - fsim_mma_atoms(&n)), cb = p->c_bits / 8, lb = 0;
  while ((1 << lb) < p->s.bm) lb++;
  if (m == NULL || ai >= MEMO_ATOMS || (cb != 1 && cb != 2 && cb != 4) || lb > 8 || pad > 16) return 0;
  return m->pitch_cycles[ai][cb / 2][lb][pad / 2];
}

void fsim__gemm_memo_pitch_put(fsim_gemm_memo *m, const fsim_gemm_plan *p, int pad, int cycles) {
  int n, ai = (int)(p->atom - fsim_mma_atoms(&n)), cb = p->c_bits / 8, lb = 0;
  while ((1 << lb) < p->s.bm) lb++;
  if (m == NULL || ai >= MEMO_ATOMS || (cb != 1 && cb != 2 && cb != 4) || lb > 8 || pad > 16) return;
  m->pitch_cycles[ai][cb / 2][lb][pad / 2] = (short)cycles;
}
void fsim_gemm_memo_free(fsim_gemm_memo *m) { free(m); }

static uint64_t hash_bytes(const void *p, size_t n) {
  const unsigned char *b = p;
  uint64_t h = 1469598103934665603ULL;
  for (size_t i = 0; i < n; i++) h = (h ^ b[i]) * 1099511628211ULL;
  return h;
}

/* Looks key (ksize bytes) up in one of the memo's small open-addressing tables: n slots, their
 * keys ksize bytes apart at `keys`, used[i] set when slot i holds one.  Returns its slot
 * (*hit = 1), else the free slot it would take (*hit = 0), or -1 when the table is full. */
static long table_find(const void *keys, const int *used, size_t n, size_t ksize, const void *key, int *hit) {
  size_t slot = (size_t)(hash_bytes(key, ksize) % n);
  *hit = 0;
  for (size_t probe = 0; probe < n; probe++, slot = (slot + 1) % n) {
    if (!used[slot]) return (long)slot;
    if (memcmp((const char *)keys + slot * ksize, key, ksize) == 0) {
      *hit = 1;
      return (long)slot;
    }
  }
  return -1;
}

static memo_val *memo_find(fsim_gemm_memo *m, const memo_key *k, int *found) {
  size_t i = hash_bytes(k, sizeof *k) % MEMO_SLOTS;
  for (int probe = 0; probe < MEMO_SLOTS; probe++, i = (i + 1) % MEMO_SLOTS) {
    if (!m->used[i]) {
      m->used[i] = 1;
      m->key[i] = *k;
      *found = 0;
      m->misses++;
      return &m->val[i];
    }
    if (memcmp(&m->key[i], k, sizeof *k) == 0) {
      *found = 1;
      m->hits++;
      return &m->val[i];
    }
  }
  *found = 0;
  return NULL; /* full: work without it */
}

/* The swizzle with the fewest bank cycles per K tile (reads of every k step, plus the
 * register path's writes): S<b,m,s> with m the access granule, or none when nothing beats it.
 * Candidates are compared on the first two fragments and the first two copies (the rest
 * repeat their pattern further down the tile), weighted to the whole tile; the plan then
 * counts all of them with the winner.  With a memo, the candidates' read costs are kept per
 * read geometry and their write costs per copy geometry, so configurations that differ only
 * in the other one (or in the weights) do not recount them. */
#define SWZ_MAX 32

/* The candidates' costs as bank_cycles_n gives them for each (rd[i]: the reads of the first
 * nfrag fragments; wr[i]: the register path's writes of the first ncopy copies), with the
 * lanes' LDS elements computed once: a swizzle only moves them. */
static void bank_cycles_cands(const fsim_gemm_plan *p, int o, const fsim_swizzle *cand, int ncand, int nfrag, int ncopy,
                              int *rd, int *wr) {
  enum { MAX_ACCESSES = 32 };
  const fsim_gemm_operand *op = &p->op[o];
  const int eb = op->elem_bits / 8, rpf = op->reads_per_frag;
  if (op->lwrite == NULL) ncopy = 0;
  int nacc = nfrag * rpf + ncopy;
  if (nacc > MAX_ACCESSES) { /* more than choose_swizzle asks for: one by one */
    for (int i = 0; i < ncand; i++) bank_cycles_n(p, o, &cand[i], nfrag, ncopy, &rd[i], &wr[i]);
    return;
  }
  int64_t el[MAX_ACCESSES][FSIM_MAX_WAVE];
  int width[MAX_ACCESSES], is_read[MAX_ACCESSES], a = 0;
  for (int i = 0; i < nfrag; i++)
    for (int r = 0; r < rpf; r++, a++) {
      for (int l = 0; l < p->wave_size; l++) el[a][l] = lane_read_logical(p, o, 0, i, 0, r, l);
      width[a] = op->lread->bytes, is_read[a] = 1;
    }
  for (int c = 0; c < ncopy; c++, a++) {
    for (int l = 0; l < p->wave_size; l++) {
      int mn, k;
      copy_coords_global(p, o, (int64_t)c * p->threads + l, &mn, &k);
      el[a][l] = lds_logical(op, mn, k);
    }
    width[a] = op->lwrite->bytes, is_read[a] = 0;
  }
  int32_t off[FSIM_MAX_WAVE];
  uint64_t all = p->wave_size >= 64 ? ~0ULL : (1ULL << p->wave_size) - 1;
  for (int i = 0; i < ncand; i++) {
    rd[i] = wr[i] = 0;
    for (a = 0; a < nacc; a++) {
      for (int l = 0; l < p->wave_size; l++) off[l] = (int32_t)(fsim_swizzle_apply(&cand[i], el[a][l]) * eb);
      *(is_read[a] ? &rd[i] : &wr[i]) += fsim_lds_bank_cycles(p->a, off, all, 0, width[a], NULL);
    }
  }
}

static void choose_swizzle(fsim_gemm_plan *p, int o, fsim_gemm_memo *memo) {
  fsim_gemm_operand *op = &p->op[o];
  int eb = op->elem_bits / 8;
  int gran = op->lread->bytes / eb;
  int copy_el = op->gcopy->bytes / eb;
  if (copy_el > gran) gran = copy_el;
  if (op->lwrite && op->lwrite->bytes / eb > gran) gran = op->lwrite->bytes / eb;
  int m = ilog2(gran);
  int nfrag = o == 0 ? p->rm : p->rn, nf = nfrag < 2 ? nfrag : 2, nc = op->copies < 2 ? op->copies : 2;
  int row_bits = ilog2(op->row_len);
  fsim_swizzle cand[SWZ_MAX];
  int ncand = 0;
  fsim_swizzle_make(&cand[ncand++], 0, 0, 0, NULL);
  for (int b = 1; b <= 4; b++)
    for (int s = b; s <= 7; s++) {
      if (m + s > row_bits + 6) continue;
      if (fsim_swizzle_make(&cand[ncand], b, m, s, NULL) == FSIM_OK) ncand++;
    }
  /* the read costs: by the read geometry (the copy atoms only through m) */
  memo_key rk;
  memset(&rk, 0, sizeof rk);
  rk.a = p->a, rk.atom = p->atom, rk.lread = op->lread, rk.gcopy = op->gcopy, rk.lwrite = op->lwrite;
  rk.o = o + 10, rk.elem_bits = op->elem_bits, rk.vpe = op->vals_per_elem, rk.lds_major = op->lds_major;
  rk.row_len = op->row_len, rk.nfrag = nf, rk.wave_size = p->wave_size;
  int found = 0;
  memo_val *rv = memo ? memo_find(memo, &rk, &found) : NULL;
  int rd_local[SWZ_MAX], wr_local[SWZ_MAX];
  int *rd = rv ? rv->frag_cycles : rd_local;
  if (rv == NULL || !found) {
    int w[SWZ_MAX];
    bank_cycles_cands(p, o, cand, ncand, nf, 0, rd, w);
    if (rv) rv->st = FSIM_OK;
  }
  /* the write costs (register path): by the copy geometry */
  int *wr = wr_local;
  memset(wr_local, 0, sizeof wr_local);
  if (op->lwrite != NULL) {
    memo_key wk;
    memset(&wk, 0, sizeof wk);
    wk.a = p->a, wk.gcopy = op->gcopy, wk.lwrite = op->lwrite, wk.lread = op->lread;
    wk.o = o + 20, wk.elem_bits = op->elem_bits, wk.vpe = op->vals_per_elem, wk.lds_major = op->lds_major;
    wk.k_contig = op->k_contig, wk.row_len = op->row_len, wk.rows = op->rows, wk.bk = p->s.bk;
    wk.threads = p->threads, wk.nfrag = nc, wk.wave_size = p->wave_size;
    memo_val *wv = memo ? memo_find(memo, &wk, &found) : NULL;
    if (wv) wr = wv->frag_cycles;
    if (wv == NULL || !found) {
      int r[SWZ_MAX];
      bank_cycles_cands(p, o, cand, ncand, 0, nc, r, wr);
      if (wv) wv->st = FSIM_OK;
    }
  }
  int best = 0;
  int64_t best_cyc = 0;
  for (int i = 0; i < ncand; i++) {
    int64_t cyc = (int64_t)p->ki * rd[i] * nfrag / (nf > 0 ? nf : 1) + (int64_t)wr[i] * op->copies / (nc > 0 ? nc : 1);
    if (i == 0 || cyc < best_cyc) best = i, best_cyc = cyc;
  }
  op->sw = cand[best];
}

static fsim_status setup_operand(fsim_gemm_plan *p, int o, fsim_gemm_memo *memo, fsim_err *e) {
  const fsim_schedule *s = &p->s;
  const char *id = o == 0 ? "A" : "B", *sec = o == 0 ? "operand.A" : "operand.B";
  const fsim_sched_operand *so = fsim_schedule_operand(s, id);
  if (so == NULL) return PERR(e, sec, "global_copy", "the schedule has no [operand.%s] section", id);
  fsim_gemm_operand *op = &p->op[o];
  unsigned isa = fsim_isa_bit(p->a);
  op->gcopy = fsim_copy_atom_find(so->global_copy);
  if (op->gcopy == NULL) return PERR(e, sec, "global_copy", "'%s' is not a copy atom", so->global_copy);
  if (!(op->gcopy->isas & isa))
    return PERR(e, sec, "global_copy", "%s does not exist on %s (%s)%s", op->gcopy->name, p->a->device.gfx,
                p->a->device.name,
                op->gcopy->op == FSIM_OP_LOAD_LDS ? "; its direct-to-LDS loads move 4 bytes per lane" : "");
  if (so->path == FSIM_PATH_DIRECT && op->gcopy->op != FSIM_OP_LOAD_LDS)
    return PERR(e, sec, "global_copy", "path direct needs a direct-to-LDS load (e.g. buffer_load_lds_dwordx4), not %s",
                op->gcopy->name);
  if (so->path == FSIM_PATH_REGISTERS && op->gcopy->op != FSIM_OP_LOAD)
    return PERR(e, sec, "global_copy", "path registers needs a load to registers (e.g. buffer_load_dwordx4), not %s",
                op->gcopy->name);
  fsim_dtype t = o == 0 ? s->a_type : s->b_type;
  op->elem_bits = fsim_dtype_bits(t) < 8 ? 8 : fsim_dtype_bits(t); /* 4- and 6-bit: bytes (two values each) */
  int vals_per_elem = fsim_dtype_bits(t) == 4 ? 2 : 1;
  op->vals_per_elem = vals_per_elem;
  if (fsim_dtype_bits(t) == 6)
    return PERR(e, "problem", o == 0 ? "a_type" : "b_type", "6-bit operands are not generated yet (fp4 and fp8 are)");
  int bk = s->bk / vals_per_elem;
  op->rows = o == 0 ? s->bm : s->bn;
  int layout = s->layout;
  op->k_contig = o == 0 ? (layout == FSIM_LAYOUT_TN || layout == FSIM_LAYOUT_TT)
                        : (layout == FSIM_LAYOUT_TN || layout == FSIM_LAYOUT_NN);
  op->lds_major = so->lds_major;
  /* the scaled GEMMs' kernels take TN only (their scales run along K with A's rows and B's
   * columns); fsim_gemm_supported sends the other layouts to the fallback path */
  if (s->op == FSIM_KOP_SCALED_GEMM && !op->k_contig)
    return PERR(e, "problem", "layout", "a scaled GEMM reads its operands K-contiguous (layout TN), not %s",
                fsim_layout_name((fsim_gemm_layout)layout));
  int want = op->k_contig ? FSIM_LDS_K_MAJOR : FSIM_LDS_MN_MAJOR;
  if (op->lds_major != want)
    return PERR(e, sec, "lds_major", "%s is %s-contiguous in layout %s, and copies keep that order: use %s", id,
                op->k_contig ? "K" : "MN", fsim_layout_name((fsim_gemm_layout)layout),
                want == FSIM_LDS_K_MAJOR ? "k-major" : "mn-major");
  if (so->path == FSIM_PATH_DIRECT && so->lds_pad != 0)
    return PERR(e, sec, "lds_pad", "direct-to-LDS copies write consecutive addresses; padding needs path registers");
  op->row_len = (op->lds_major == FSIM_LDS_K_MAJOR ? bk : op->rows) + so->lds_pad;
  op->nrows_lds = op->lds_major == FSIM_LDS_K_MAJOR ? op->rows : bk;
  op->lread = fsim_copy_atom_find(so->lds_read);
  if (op->lread == NULL || op->lread->op != FSIM_OP_LDS_READ)
    return PERR(e, sec, "lds_read", "'%s' is not an LDS read atom (ds_read_b128, ds_read_b64, ds_read_b64_tr_b16, ...)",
                so->lds_read);
  if (!(op->lread->isas & isa))
    return PERR(e, sec, "lds_read", "%s does not exist on %s (%s)", op->lread->name, p->a->device.gfx, p->a->device.name);
  if (vals_per_elem == 2 && op->lread->transpose)
    return PERR(e, sec, "lds_read", "4-bit operands need a k-major tile (ds_read_b64_tr_b4 is not modelled)");
  op->lwrite = NULL;
  if (so->path == FSIM_PATH_REGISTERS) {
    static const char *by_width[] = {NULL, NULL, "ds_write_b16", NULL, "ds_write_b32", NULL, NULL, NULL, "ds_write_b64",
                                     NULL, NULL, NULL, NULL, NULL, NULL, NULL, "ds_write_b128"};
    op->lwrite = op->gcopy->bytes <= 16 && by_width[op->gcopy->bytes] ? fsim_copy_atom_find(by_width[op->gcopy->bytes])
                                                                     : NULL;
    if (op->lwrite == NULL) return PERR(e, sec, "global_copy", "no ds_write matches %s", op->gcopy->name);
  }
  int eb = op->elem_bits / 8;
  /* a padded row must keep every LDS access on its own width: the widest of the copy's write
   * and the read (a transposing read's 64 bits too), in elements.  An odd pad once put 16-byte
   * reads and writes 2 bytes off their alignment, and with a swizzle, whose granule assumes
   * aligned accesses, gave wrong results that the plan, the emitted kernel and its address
   * self-test all agreed on. */
  if (so->lds_pad != 0) {
    int gran = op->lread->bytes / eb;
    if (op->lwrite && op->lwrite->bytes / eb > gran) gran = op->lwrite->bytes / eb;
    if (gran < 1) gran = 1;
    if (so->lds_pad % gran != 0)
      return PERR(e, sec, "lds_pad", "%d %s elements put rows off the %d-byte alignment of %s%s%s; pad by a multiple of %d",
                  so->lds_pad, fsim_dtype_name(t), gran * eb, op->lread->name, op->lwrite ? " and " : "",
                  op->lwrite ? op->lwrite->name : "", gran);
  }
  int64_t tile_bytes = (int64_t)op->rows * bk * eb;
  int64_t chunk = (int64_t)p->threads * op->gcopy->bytes;
  if (tile_bytes % chunk != 0)
    return PERR(e, sec, "global_copy", "a %dx%d %s tile (%lld bytes) is not a whole number of %d threads x %d-byte copies",
                op->rows, s->bk, fsim_dtype_name(t), (long long)tile_bytes, p->threads, op->gcopy->bytes);
  op->copies = (int)(tile_bytes / chunk);
  int contig = op->k_contig ? bk : op->rows;
  if ((contig * eb) % op->gcopy->bytes != 0)
    return PERR(e, sec, "global_copy", "%d-byte copies do not fit the %d-byte contiguous rows of the tile",
                op->gcopy->bytes, contig * eb);
  op->ld = op->k_contig ? s->k / vals_per_elem : (o == 0 ? s->m : s->n);
  /* a copy at the end of a K row would read the next row's first values into k >= K (the
   * kernels test each copy against the edge, not each value; gemm_space.c says why K only) */
  if (op->k_contig && ((int64_t)s->k * fsim_dtype_bits(t)) % (8 * op->gcopy->bytes) != 0)
    return PERR(e, sec, "global_copy", "%s's rows of K = %lld %s values are not a whole number of %d-byte copies", id,
                (long long)s->k, fsim_dtype_name(t), op->gcopy->bytes);
  op->stage_bytes = (int64_t)op->nrows_lds * op->row_len * eb;
  op->frag_regs = fsim_mma_atom_values(p->atom, o == 0 ? 'A' : 'B') * fsim_dtype_bits(t) / 32;
  if (op->frag_regs < 1) op->frag_regs = 1;
  memo_key key;
  memset(&key, 0, sizeof key); /* padding too: the key is compared as bytes */
  key.a = p->a;
  key.atom = p->atom;
  key.gcopy = op->gcopy;
  key.lread = op->lread;
  key.lwrite = op->lwrite;
  key.o = o;
  key.elem_bits = op->elem_bits;
  key.vpe = op->vals_per_elem;
  key.lds_major = op->lds_major;
  key.k_contig = op->k_contig;
  key.row_len = op->row_len;
  key.rows = op->rows;
  key.bk = s->bk;
  key.nfrag = o == 0 ? p->rm : p->rn;
  key.threads = p->threads;
  key.ki = p->ki;
  key.wave_size = p->wave_size;
  fsim_text_copy(key.swizzle, sizeof key.swizzle, so->swizzle);
  int nfrag = o == 0 ? p->rm : p->rn;
  int direct = op->lwrite == NULL && nfrag <= 64;
  if (direct) {
    /* direct copies write consecutive addresses: the writes cost nothing extra, so neither the
     * copies' shape nor the K steps' weight change the choice, which compares the first two
     * fragments; the read cycles are summed per fragment below.  The copy atom stays in the
     * key: its width is the swizzle's smallest granule (a swizzle finer than a 16-byte copy
     * would split it), so plans with 4- and 16-byte copies choose apart */
    key.threads = key.rows = key.bk = key.ki = 0;
    key.nfrag = nfrag < 2 ? nfrag : 2;
  }
  int found = 0;
  memo_val *mv = memo ? memo_find(memo, &key, &found) : NULL;
  if (mv != NULL && found) {
    if (mv->st != FSIM_OK) return FSIM_ERR(e, mv->st, "%s", mv->msg);
    op->reads_per_frag = mv->reads_per_frag;
    op->sw = mv->sw;
    if (direct) {
      for (; mv->frags_known < nfrag; mv->frags_known++)
        mv->frag_cycles[mv->frags_known] = frag_read_cycles(p, o, &op->sw, mv->frags_known);
      op->lds_cycles_per_kstep = 0;
      for (int i = 0; i < nfrag; i++) op->lds_cycles_per_kstep += mv->frag_cycles[i];
      op->lds_cycles_per_tile_writes = 0;
    } else {
      op->lds_cycles_per_kstep = mv->read_cycles;
      op->lds_cycles_per_tile_writes = mv->write_cycles;
    }
    return FSIM_OK;
  }
  fsim_err local;
  fsim_err_clear(&local);
  fsim_status st = check_reads(p, o, &local);
  if (st == FSIM_OK) {
    if (strcmp(so->swizzle, "auto") == 0) {
      choose_swizzle(p, o, memo);
    } else {
      st = fsim_schedule_swizzle(so, &op->sw, &local);
      if (st == FSIM_OK) {
        int gran = op->lread->bytes / eb;
        int copy_el = op->gcopy->bytes / eb;
        if (copy_el > gran) gran = copy_el;
        if (op->sw.b > 0 && (1 << op->sw.m) < gran)
          st = PERR(&local, sec, "swizzle", "S<%d,%d,%d> splits the %d-element accesses of this operand (M must be >= %d)",
                    op->sw.b, op->sw.m, op->sw.s, gran, ilog2(gran));
        /* the swizzle must keep every element of the stage inside it (a negative S moves bits
         * up, past the stage into the other operand's or the next stage) */
        int64_t stage = (int64_t)op->nrows_lds * op->row_len, top;
        if (st == FSIM_OK && fsim_swizzle_leaves(&op->sw, stage, &top))
          st = PERR(&local, sec, "swizzle", "S<%d,%d,%d> moves elements of the %lld-element stage up to %lld, outside it",
                    op->sw.b, op->sw.m, op->sw.s, (long long)stage, (long long)top);
      }
    }
  }
  if (st == FSIM_OK) fsim_gemm_bank_cycles(p, o, &op->sw, &op->lds_cycles_per_kstep, &op->lds_cycles_per_tile_writes);
  if (mv != NULL) {
    mv->st = st;
    memcpy(mv->msg, local.msg, sizeof mv->msg);
    mv->reads_per_frag = op->reads_per_frag;
    mv->sw = op->sw;
    mv->read_cycles = op->lds_cycles_per_kstep;
    mv->write_cycles = op->lds_cycles_per_tile_writes;
    mv->frags_known = 0;
    if (direct && st == FSIM_OK)
      for (; mv->frags_known < nfrag; mv->frags_known++)
        mv->frag_cycles[mv->frags_known] = frag_read_cycles(p, o, &op->sw, mv->frags_known);
  }
  if (st != FSIM_OK) {
    if (e) *e = local;
    return st;
  }
  return FSIM_OK;
}

/* The epilogue's costs (fsim_gemm_plan: c_store_lines, c_write_cycles, c_read_cycles), kept in
 * the memo by what they depend on: wave 0's first store, write and read touch lane offsets
 * that only the atom's C layout, M, the tile's rows, C's type, the path, split-K (packed
 * atomics) and the staging pitch decide. */
static void epilogue_costs(fsim_gemm_plan *p, fsim_gemm_memo *memo) {
  epi_key k;
  memset(&k, 0, sizeof k); /* padding too: the key is compared as bytes */
  k.a = p->a, k.atom = p->atom, k.m = p->s.m, k.bm = p->s.bm, k.c_bits = p->c_bits, k.c_path = p->s.c_path;
  k.split = p->s.split_k > 1, k.pitch = p->c_pitch;
  long slot = -1;
  int hit = 0;
  if (memo != NULL) {
    slot = table_find(memo->epi_key, memo->epi_used, EPI_SLOTS, sizeof k, &k, &hit);
    if (hit) {
      p->c_store_lines = memo->epi_val[slot][0];
      p->c_write_cycles = memo->epi_val[slot][1];
      p->c_read_cycles = memo->epi_val[slot][2];
      return;
    }
  }
  const fsim_arch *a = p->a;
  int32_t off[FSIM_MAX_WAVE];
  uint64_t lines[FSIM_MAX_WAVE * 2];
  uint64_t all = p->wave_size >= 64 ? ~0ULL : (1ULL << p->wave_size) - 1;
  int direct = p->s.c_path == FSIM_EPI_DIRECT;
  int bytes = direct ? 4 * p->c_bits / 8 : 16;
  int parts = p->s.split_k > 1 ? bytes / 4 : 1;
  for (int l = 0; l < p->wave_size; l++)
    off[l] = (int32_t)(direct ? fsim_gemm_lane_c_direct(p, 0, 0, 0, 0, 0, l)
                              : fsim_gemm_lane_c_chunk(p, 0, p->c_pitch, 1, 0, 0, l));
  int shift = 0;
  while ((1 << shift) < a->memory.l2_line) shift++;
  p->c_store_lines = fsim_vmem_coalesce(off, all, p->wave_size, 0, bytes / parts, shift, lines);
  p->c_write_cycles = p->c_read_cycles = 0;
  if (!direct) {
    for (int l = 0; l < p->wave_size; l++) off[l] = (int32_t)fsim_gemm_lane_c_lds(p, 0, 0, 0, p->c_pitch, 0, l);
    p->c_write_cycles = fsim_lds_bank_cycles(a, off, all, 0, 4 * p->c_bits / 8, NULL);
    for (int l = 0; l < p->wave_size; l++) off[l] = (int32_t)fsim_gemm_lane_c_chunk(p, 0, p->c_pitch, 0, 0, 0, l);
    p->c_read_cycles = fsim_lds_bank_cycles(a, off, all, 0, 16, NULL);
  }
  if (slot >= 0) { /* (a full table works without it) */
    memo->epi_used[slot] = 1;
    memo->epi_key[slot] = k;
    memo->epi_val[slot][0] = p->c_store_lines;
    memo->epi_val[slot][1] = p->c_write_cycles;
    memo->epi_val[slot][2] = p->c_read_cycles;
  }
}

/* Whether the launch remaps workgroup ids to XCDs: asked for, and a grid of at least 256
 * workgroups that the XCDs divide. */
static int remap_applies(const fsim_gemm_plan *p) {
  return p->s.xcd_remap && p->workgroups >= 256 && p->workgroups % p->a->device.xcds == 0;
}

/* A launch with only the plan's id-to-tile map (grid, XCD remap, GROUP_M), for
 * fsim_wprog_wg_coords; z is the grid's third dimension (split-K slices times groups). */
static void launch_map(const fsim_gemm_plan *p, int z, int remap, fsim_wprog *w) {
  memset(w, 0, sizeof *w);
  w->grid[0] = p->tiles_n, w->grid[1] = p->tiles_m, w->grid[2] = z;
  if (remap) {
    w->remap = FSIM_REMAP_XCD;
    w->remap_xcds = p->a->device.xcds;
  }
  w->group_m = p->s.group_m;
}

/* fsim_gemm_plan.xcd_rows and xcd_cols: the workgroups XCD 0 holds at once are its first
 * `resident` in dispatch order (ids 0, xcds, 2 xcds, ...: at most 1024, 32 CUs x 32
 * workgroups); their distinct (tile row, z) and (tile column, z) keys are counted with two
 * small hash sets, and kept in the memo by what they depend on. */
static void xcd_tiles(fsim_gemm_plan *p, int wgs_per_cu, fsim_gemm_memo *memo) {
  const fsim_arch *a = p->a;
  const fsim_schedule *sc = &p->s;
  tiles_key k;
  memset(&k, 0, sizeof k); /* padding too: the key is compared as bytes */
  k.a = a;
  k.resident = (int64_t)(a->device.cus / a->device.xcds) * wgs_per_cu;
  k.tiles_m = p->tiles_m, k.tiles_n = p->tiles_n;
  k.z = sc->split_k * (sc->op == FSIM_KOP_GROUPED_GEMM ? sc->groups : 1);
  k.remap = remap_applies(p);
  k.group_m = sc->group_m;
  long slot = -1;
  int hit = 0;
  if (memo != NULL) {
    slot = table_find(memo->tiles_key, memo->tiles_used, TILES_SLOTS, sizeof k, &k, &hit);
    if (hit) {
      p->xcd_rows = memo->tiles_val[slot][0];
      p->xcd_cols = memo->tiles_val[slot][1];
      return;
    }
  }
  fsim_wprog w;
  launch_map(p, k.z, k.remap, &w);
  enum { SET = 2048 };
  int64_t set_a[SET], set_b[SET];
  uint8_t used_a[SET] = {0}, used_b[SET] = {0};
  int64_t rows_seen = 0, cols_seen = 0;
  for (int64_t i = 0, id = 0; id < p->workgroups && i < k.resident && i < 1024; i++, id += a->device.xcds) {
    int coord[3];
    fsim_wprog_wg_coords(&w, id, coord);
    int64_t ka = (int64_t)coord[1] * 4096 + coord[2], kb = (int64_t)coord[0] * 4096 + coord[2];
    uint64_t h = ((uint64_t)ka * 0x9E3779B97F4A7C15ULL) >> 53;
    while (used_a[h] && set_a[h] != ka) h = (h + 1) & (SET - 1);
    if (!used_a[h]) used_a[h] = 1, set_a[h] = ka, rows_seen++;
    h = ((uint64_t)kb * 0x9E3779B97F4A7C15ULL) >> 53;
    while (used_b[h] && set_b[h] != kb) h = (h + 1) & (SET - 1);
    if (!used_b[h]) used_b[h] = 1, set_b[h] = kb, cols_seen++;
  }
  p->xcd_rows = rows_seen, p->xcd_cols = cols_seen;
  if (slot >= 0) { /* (a full table works without it) */
    memo->tiles_used[slot] = 1;
    memo->tiles_key[slot] = k;
    memo->tiles_val[slot][0] = rows_seen;
    memo->tiles_val[slot][1] = cols_seen;
  }
}

void fsim__gemm_footprint(const fsim_gemm_plan *p, int64_t *a_bytes, int64_t *b_bytes, int64_t *c_bytes) {
  const fsim_schedule *sc = &p->s;
  int groups = sc->op == FSIM_KOP_GROUPED_GEMM ? sc->groups : 1;
  *a_bytes = groups * (sc->m * sc->k * fsim_dtype_bits(sc->a_type) / 8);
  *b_bytes = groups * (sc->n * sc->k * fsim_dtype_bits(sc->b_type) / 8);
  if (sc->op == FSIM_KOP_SCALED_GEMM) *a_bytes += sc->m * (sc->k / 32), *b_bytes += sc->n * (sc->k / 32);
  *c_bytes = (int64_t)groups * sc->split_k * (sc->m * sc->n * p->c_bits / 8); /* each split-K slice writes its partial C */
}

/* fsim_gemm_plan.dram_ab_bytes: the bytes of A and B read from DRAM over the kernel.  When A,
 * B and C fit the MALL that is each byte once.  When they do not, the workgroups are walked in
 * dispatch order, a round of them at a time (the workgroups all CUs hold at once), and each
 * round's distinct A panels (tile row, z: bm rows by the K slice) and B panels (tile column,
 * z) are found.  The round's workgroups go through K side by side, so a panel that an earlier
 * round also read is still in the MALL only if the distinct bytes read and written since fit
 * it: the panels last used in the rounds after that one, this round's included, and the C
 * tiles those rounds wrote (an LRU at panel granularity, in rounds; a Fenwick tree over the
 * rounds holds the bytes by their last round).  Panels read again from DRAM are counted; the
 * first reads are A and B once.  The walk stops once 4 MALLs of traffic (first reads, re-reads
 * and C) have passed, or at WALK_MAX workgroups, after 8 rounds at least; the rounds after the
 * first 2 MALLs of traffic (the later half of the walk without them) give the re-reads per
 * round for the rest.  docs/model.md compares it with the whole walk and the simulator. */
#define WALK_MAX ((int64_t)1 << 16)
static double fenwick_sum(const double *f, int64_t i) { /* rounds 0..i-1 */
  double t = 0;
  for (; i > 0; i -= i & -i) t += f[i];
  return t;
}
static void fenwick_add(double *f, int64_t n, int64_t i, double v) { /* round i */
  for (i++; i <= n; i += i & -i) f[i] += v;
}

/* The tile after c (x, y, z) in the launch's order before the XCD remap (row-major, or
 * GROUP_M's columns of group_m rows): what fsim_wprog_wg_coords gives for the next linear
 * index, without its divisions. */
void fsim__gemm_tile_step(const fsim_wprog *w, int c[3]) {
  const int tn = w->grid[0], tm = w->grid[1];
  if (w->group_m > 0) {
    int first = c[1] / w->group_m * w->group_m, size = tm - first < w->group_m ? tm - first : w->group_m;
    if (++c[1] < first + size) return;
    c[1] = first;
    if (++c[0] < tn) return;
    c[0] = 0;
    c[1] = first + size;
  } else {
    if (++c[0] < tn) return;
    c[0] = 0;
    c[1]++;
  }
  if (c[1] < tm) return;
  c[1] = 0;
  c[2]++;
}

static void dram_reads(fsim_gemm_plan *p, int wgs_per_cu, fsim_gemm_memo *memo) {
  const fsim_arch *a = p->a;
  const fsim_schedule *sc = &p->s;
  int groups = sc->op == FSIM_KOP_GROUPED_GEMM ? sc->groups : 1;
  int64_t bytes_a, bytes_b, bytes_c;
  fsim__gemm_footprint(p, &bytes_a, &bytes_b, &bytes_c);
  p->dram_ab_bytes = bytes_a + bytes_b;
  if (a->memory.mall_bytes <= 0 || bytes_a + bytes_b + bytes_c <= a->memory.mall_bytes) return;
  dram_key k;
  memset(&k, 0, sizeof k); /* padding too: the key is compared as bytes */
  k.a = a;
  k.resident = (int64_t)a->device.cus * wgs_per_cu;
  k.tiles_m = p->tiles_m, k.tiles_n = p->tiles_n;
  k.z = sc->split_k * groups;
  k.remap = remap_applies(p);
  k.group_m = sc->group_m;
  /* each panel's share of its operand (the last tile row or column may be partial) */
  k.panel_a = bytes_a / ((int64_t)k.tiles_m * k.z);
  k.panel_b = bytes_b / ((int64_t)k.tiles_n * k.z);
  k.tile_c = bytes_c / p->workgroups;
  long slot = -1;
  int hit = 0;
  if (memo != NULL) {
    slot = table_find(memo->dram_key, memo->dram_used, DRAM_SLOTS, sizeof k, &k, &hit);
    if (hit) {
      p->dram_ab_bytes += memo->dram_val[slot];
      return;
    }
  }
  fsim_wprog w;
  launch_map(p, k.z, k.remap, &w);
  const int xcds = a->device.xcds;
  const int64_t W = p->workgroups, S = k.resident, na = (int64_t)k.tiles_m * k.z, np = na + (int64_t)k.tiles_n * k.z;
  const int64_t R = (W + S - 1) / S;
  int64_t cap = WALK_MAX / S > 8 ? WALK_MAX / S : 8; /* rounds walked at most */
  if (cap > R) cap = R;
  int64_t *last = malloc((size_t)np * sizeof *last);
  int64_t *seen = malloc((size_t)(2 * S) * sizeof *seen), *prev = malloc((size_t)(2 * S) * sizeof *prev);
  double *fw = calloc((size_t)cap + 1, sizeof *fw), *again = calloc((size_t)cap, sizeof *again);
  int64_t rereads = -1, walk = 0;
  if (last != NULL && seen != NULL && prev != NULL && fw != NULL && again != NULL) {
    const double mall = (double)a->memory.mall_bytes;
    double traffic = 0, total = 0; /* bytes read from DRAM and C written so far; re-reads */
    int64_t steady = -1;           /* the first round after 2 MALLs of traffic */
    for (int64_t i = 0; i < np; i++) last[i] = -1;
    for (int64_t r = 0; r < cap && !(r >= 8 && traffic >= 4 * mall); r++, walk++) {
      if (steady < 0 && traffic >= 2 * mall) steady = r;
      int64_t n = 0, end = (r + 1) * S < W ? (r + 1) * S : W;
      /* the round's ids are r S .. end - 1, S a multiple of the XCDs: with the remap each
       * XCD's share is one run of consecutive tiles, without it the round is one */
      int runs = k.remap ? xcds : 1;
      for (int x = 0; x < runs; x++) {
        int64_t from = k.remap ? (r * S + x) : r * S, count = k.remap ? (end - from + xcds - 1) / xcds : end - from;
        if (count <= 0) continue;
        int c[3];
        fsim_wprog_wg_coords(&w, from, c);
        for (int64_t i = 0; i < count; i++, fsim__gemm_tile_step(&w, c)) {
          int64_t pan[2] = {(int64_t)c[1] * k.z + c[2], na + (int64_t)c[0] * k.z + c[2]};
          for (int j = 0; j < 2; j++) {
            int64_t q = pan[j];
            if (last[q] == r) continue;
            double b = (double)(q < na ? k.panel_a : k.panel_b);
            if (last[q] >= 0) fenwick_add(fw, cap, last[q], -b);
            fenwick_add(fw, cap, r, b);
            prev[n] = last[q], seen[n++] = q;
            last[q] = r;
          }
        }
      }
      double cb = (double)(end - r * S) * k.tile_c;
      fenwick_add(fw, cap, r, cb);
      double upto = fenwick_sum(fw, r + 1);
      for (int64_t i = 0; i < n; i++) {
        double b = (double)(seen[i] < na ? k.panel_a : k.panel_b);
        if (prev[i] < 0)
          traffic += b;
        else if (upto - fenwick_sum(fw, prev[i] + 1) - b > mall)
          again[r] += b;
      }
      traffic += again[r] + cb;
      total += again[r];
    }
    if (walk < R) { /* the rest re-read at the rate of the steady rounds (the later half without any) */
      if (steady < 0 || steady >= walk) steady = walk / 2;
      double rate = 0;
      for (int64_t r = steady; r < walk; r++) rate += again[r];
      total += rate / (double)(walk - steady) * (double)(R - walk);
    }
    rereads = (int64_t)total;
  }
  free(last), free(seen), free(prev), free(fw), free(again);
  if (rereads < 0) {
    p->dram_ab_bytes = 0; /* no room to walk: the model falls back to its bound */
    return;
  }
  p->dram_ab_bytes += rereads;
  if (slot >= 0) {
    memo->dram_used[slot] = 1;
    memo->dram_key[slot] = k;
    memo->dram_val[slot] = rereads;
  }
}

fsim_status fsim_gemm_plan_make(fsim_gemm_plan *p, const fsim_schedule *s, const fsim_arch *a, fsim_err *e) {
  return fsim_gemm_plan_make_memo(p, s, a, NULL, e);
}

fsim_status fsim_gemm_plan_make_memo(fsim_gemm_plan *p, const fsim_schedule *s, const fsim_arch *a, fsim_gemm_memo *memo,
                                    fsim_err *e) {
  memset(p, 0, sizeof *p);
  p->s = *s;
  p->a = a;
  if (s->op != FSIM_KOP_GEMM && s->op != FSIM_KOP_GROUPED_GEMM && s->op != FSIM_KOP_SCALED_GEMM)
    return PERR(e, "schedule", "op", "%s is not a GEMM", fsim_kop_name((fsim_kop)s->op));
  if (s->c_type != FSIM_DT_BF16 && s->c_type != FSIM_DT_F16 && s->c_type != FSIM_DT_F32)
    /* worded as the command line's check of a --schedule file (cli/gemm_args.c) */
    return e == NULL ? FSIM_EINVAL
                     : FSIM_ERR(e, FSIM_EINVAL, "[problem] c_type %s: the output is bf16, fp16 or f32",
                                fsim_dtype_name(s->c_type));
  unsigned isa = fsim_isa_bit(a);
  p->atom = fsim_mma_atom_find_on(s->atom, isa);
  if (p->atom == NULL) return PERR(e, "mma", "atom", "'%s' is not an MMA atom (see docs/atoms.md)", s->atom);
  if (!(p->atom->isas & isa))
    return PERR(e, "mma", "atom", "%s does not exist on %s (%s)", p->atom->name, a->device.gfx, a->device.name);
  p->mfma = fsim_arch_find_mfma(a, p->atom->name);
  if (p->mfma == NULL) return PERR(e, "mma", "atom", "%s has no [mfma.%s] timing in %s", p->atom->name, p->atom->name, a->file);
  if (p->atom->a_type != s->a_type || p->atom->b_type != s->b_type)
    return PERR(e, "mma", "atom", "%s multiplies %s x %s; the problem is %s x %s", p->atom->name,
                fsim_dtype_name(p->atom->a_type), fsim_dtype_name(p->atom->b_type), fsim_dtype_name(s->a_type),
                fsim_dtype_name(s->b_type));
  if (s->op == FSIM_KOP_SCALED_GEMM && !p->atom->scaled)
    return PERR(e, "mma", "atom", "a scaled GEMM needs a scaled atom (v_mfma_scale_f32_*), not %s", p->atom->name);
  int natoms, ai = (int)(p->atom - fsim_mma_atoms(&natoms));
  if (memo != NULL && ai < MEMO_ATOMS && memo->atom[ai] == p->atom) {
    p->a_tv = memo->a_tv[ai];
    p->b_tv = memo->b_tv[ai];
    p->c_tv = memo->c_tv[ai];
  } else {
    if (fsim_mma_atom_layout(p->atom, 'A', &p->a_tv, NULL) != FSIM_OK ||
        fsim_mma_atom_layout(p->atom, 'B', &p->b_tv, NULL) != FSIM_OK ||
        fsim_mma_atom_layout(p->atom, 'C', &p->c_tv, NULL) != FSIM_OK)
      return FSIM_ERR(e, FSIM_EFAIL, "internal: the layouts of %s do not parse", p->atom->name);
    if (memo != NULL && ai < MEMO_ATOMS) {
      memo->atom[ai] = p->atom;
      memo->a_tv[ai] = p->a_tv;
      memo->b_tv[ai] = p->b_tv;
      memo->c_tv[ai] = p->c_tv;
    }
  }
  p->wave_size = a->cu.wave_size;
  if (p->atom->wave_size != p->wave_size)
    return PERR(e, "mma", "atom", "%s is a wave%d instruction; %s runs wave%d", p->atom->name, p->atom->wave_size,
                a->device.name, p->wave_size);
  p->waves = s->waves_m * s->waves_n;
  p->threads = p->waves * p->wave_size;
  if (p->threads > a->cu.max_workgroup_size)
    return PERR(e, "tile", "waves_n", "%d x %d waves are %d work-items, more than %d", s->waves_m, s->waves_n,
                p->threads, a->cu.max_workgroup_size);
  if (s->bm % (s->waves_m * p->atom->m) != 0)
    return PERR(e, "tile", "bm", "%d is not a multiple of waves_m x atom M = %d x %d", s->bm, s->waves_m, p->atom->m);
  if (s->bn % (s->waves_n * p->atom->n) != 0)
    return PERR(e, "tile", "bn", "%d is not a multiple of waves_n x atom N = %d x %d", s->bn, s->waves_n, p->atom->n);
  if (s->bk % p->atom->k != 0)
    return PERR(e, "tile", "bk", "%d is not a multiple of the atom's K = %d", s->bk, p->atom->k);
  if (s->op == FSIM_KOP_SCALED_GEMM && s->bk % 128 != 0)
    return PERR(e, "tile", "bk", "%d: scaled GEMM tiles hold whole 128-value scale groups", s->bk);
  if (s->kind == FSIM_PIPE_DUAL_WAVE)
    return PERR(e, "pipeline", "kind", "dual-wave is the attention pipeline; a GEMM is plain or pingpong");
  {
    char why[160];
    if (!fsim_schedule_interleave_valid(s->interleave, why, sizeof why))
      return PERR(e, "pipeline", "interleave", "%s", why);
  }
  if (s->kind == FSIM_PIPE_PINGPONG && p->waves % 2 != 0)
    return PERR(e, "pipeline", "kind", "a two-group pipeline needs an even number of waves, not %d", p->waves);
  p->wave_tm = s->bm / s->waves_m;
  p->wave_tn = s->bn / s->waves_n;
  p->rm = p->wave_tm / p->atom->m;
  p->rn = p->wave_tn / p->atom->n;
  p->ki = s->bk / p->atom->k;
  if (s->kind == FSIM_PIPE_PINGPONG) {
    int sa, sb, phases = fsim_gemm_pp_slices(p, &sa, &sb);
    if (s->stages < 2)
      return PERR(e, "pipeline", "stages", "ping-pong needs two or more stages: one group copies the next tile while "
                  "the other still reads this one");
    if (phases < 2)
      return PERR(e, "pipeline", "kind", "ping-pong cuts a K tile into phases by halves of the wave's %dx%d tile, which "
                  "is one atom", p->wave_tm, p->wave_tn);
    if (strcmp(s->interleave, "none") != 0 && s->interleave[0] != '\0')
      return PERR(e, "pipeline", "interleave", "'%s': interleave hints order a plain K step; ping-pong runs its K "
                  "step in phases of reads and MFMAs", s->interleave);
  }
  for (int o = 0; o < 2; o++) {
    fsim_status st = setup_operand(p, o, memo, e);
    if (st != FSIM_OK) return st;
  }
  /* LDS: stages of A and B, each operand stage aligned to 1 KiB; C staging aliases them */
  int64_t sa = (p->op[0].stage_bytes + 1023) / 1024 * 1024, sb = (p->op[1].stage_bytes + 1023) / 1024 * 1024;
  p->lds_stride = sa + sb;
  p->lds_stage_a = 0;
  p->lds_stage_b = sa;
  p->c_bits = fsim_dtype_bits(s->c_type);
  p->lds_c = 0;
  int64_t stage_bytes = (int64_t)s->stages * p->lds_stride;
  if (stage_bytes > a->lds.max_bytes_per_wg)
    return PERR(e, "pipeline", "stages", "%d stages of %dx%d and %dx%d tiles need %lld bytes of LDS, more than the %d a "
                "workgroup may use on %s",
                s->stages, s->bm, s->bk, s->bn, s->bk, (long long)stage_bytes, a->lds.max_bytes_per_wg, a->device.name);
  p->lds_bytes = stage_bytes;
  /* registers per wave: accumulators (AGPRs where the part has them), operand fragments,
   * staging for copies through registers, addressing.
   *
   * Fragments, CDNA (wave64 MFMA): one K step's, two buffers when the step has two or more
   * atom K steps, as the wave program reads kk+1 while kk multiplies; ping-pong holds every
   * atom K step's fragments of the tile (its phases read them before their MFMAs).
   *
   * Fragments, RDNA (wave32 WMMA): the fragments of every atom K step of the tile plus one
   * step more.  clang does not keep the wave program's two buffers there: it merges the
   * ds_read_b64 halves of fragments at a constant distance into ds_load_2addr_b64 (K steps kk
   * and kk + 4 share a base 128 bytes apart; neighbouring fragments are 4 KiB apart, the
   * st64 form) and issues each merged load where its first half was, and the scheduler hoists
   * the rest of the tile's reads over the WMMAs, so by the middle of the tile every K step's
   * fragments are loaded; the halves are then copied into the contiguous 4-register operands
   * the WMMA takes (v_mov), which holds about one K step more.  Measured with clang-22 for
   * gfx1201 on 58 BF16 configs (docs/gemm.md): clang's VGPRs minus accumulators, staging and
   * per-lane bases came to 1.6-3.0 K steps of fragments at ki = 2, 1.3-4.3 at ki = 4, 6.4-8.8
   * at ki = 8; ki + 1 is not below any of them (it is above by up to 2.5 K steps where the
   * fragments of one step are large, where the scheduler, limited by pressure, hoists less).
   *
   * Addressing: 24 (thread and wave ids, the copies' global and LDS bases, the epilogue's).
   * On RDNA the split fragment reads keep a per-lane LDS base for each half and each K step
   * until the swizzle repeats (every 4 K steps of a 128-byte row), for A and B: 2 x 2 x
   * min(ki, 4) registers, of which the 24 covers 8; the count of bases in the emitted
   * kernels was 13-37 for these configs. */
  int acc = p->rm * p->rn * fsim_mma_atom_values(p->atom, 'C');
  int frag_step = p->rm * p->op[0].frag_regs + p->rn * p->op[1].frag_regs;
  int wmma = p->atom->wave_size == 32;
  int frag = (wmma ? p->ki + 1 : s->kind == FSIM_PIPE_PINGPONG ? p->ki : p->ki >= 2 ? 2 : 1) * frag_step;
  int staging = 0;
  for (int o = 0; o < 2; o++) {
    if (p->op[o].lwrite) staging += p->op[o].copies * p->op[o].gcopy->bytes / 4;
    /* scales: the tiles in flight and the one in use, each loads x width bytes */
    int width;
    int64_t chunk;
    staging += s->stages * fsim_gemm_scale_loads(p, o, &width, &chunk) * width / 4;
  }
  int addressing = 24;
  if (wmma) {
    int ksteps = p->ki < 4 ? p->ki : 4, bases = 2 * 2 * ksteps;
    if (bases > 8) addressing += bases - 8;
  }
  if (a->cu.max_agprs > 0) {
    p->agprs = acc;
    p->vgprs = frag + staging + addressing;
  } else {
    p->vgprs = acc + frag + staging + addressing;
  }
  if (p->agprs > a->cu.max_agprs)
    return PERR(e, "tile", "bm", "a %dx%d tile on %d waves needs %d accumulator registers per wave, more than the %d AGPRs",
                s->bm, s->bn, p->waves, acc, a->cu.max_agprs);
  if (p->vgprs > a->cu.max_vgprs)
    return PERR(e, "tile", "bm", "the tile needs an estimated %d VGPRs per wave, more than %d", p->vgprs,
                a->cu.max_vgprs);
  if (p->vgprs + p->agprs > a->cu.vgprs_per_lane)
    return PERR(e, "tile", "bm", "%d VGPRs + %d AGPRs per wave exceed the %d-register file", p->vgprs, p->agprs,
                a->cu.vgprs_per_lane);
  p->sgprs = 48;
  /* the C buffer (epilogue through LDS) aliases the stages; its columns are padded so that
   * the accumulator writes do not conflict */
  if (s->c_path == FSIM_EPI_LDS) {
    /* the threads store the staged tile in 16-byte chunks, the same number each */
    int64_t chunks = (int64_t)s->bm * s->bn * p->c_bits / 8 / 16;
    if (chunks % p->threads != 0)
      return PERR(e, "epilogue", "c_path", "the %dx%d %s C tile is %lld 16-byte chunks, not a multiple of the %d "
                  "threads; use c_path = direct",
                  s->bm, s->bn, fsim_dtype_name(s->c_type), (long long)chunks, p->threads);
    p->c_pitch = fsim__gemm_c_pitch_memo(p, memo);
    int64_t c_bytes = (int64_t)p->c_pitch * s->bn * p->c_bits / 8;
    if (c_bytes > a->lds.max_bytes_per_wg)
      return PERR(e, "epilogue", "c_path", "staging the %dx%d %s C tile needs %lld bytes of LDS, more than the %d a "
                  "workgroup may use on %s; use c_path = direct",
                  s->bm, s->bn, fsim_dtype_name(s->c_type), (long long)c_bytes, a->lds.max_bytes_per_wg, a->device.name);
    if (c_bytes > p->lds_bytes) p->lds_bytes = c_bytes;
  }
  fsim_occupancy occ;
  fsim_occupancy_of(a, p->waves, p->vgprs, p->agprs, p->sgprs, p->lds_bytes, &occ);
  if (occ.wgs_per_cu < 1)
    return PERR(e, "tile", "waves_n", "%d waves of %d VGPRs + %d AGPRs do not fit on one CU (%s)", p->waves, p->vgprs,
                p->agprs, occ.limit);
  /* epilogue store */
  const fsim_copy_atom *st = fsim_copy_atom_find(s->store);
  if (st == NULL || st->op != FSIM_OP_STORE) return PERR(e, "epilogue", "store", "'%s' is not a store atom", s->store);
  if (s->c_path == FSIM_EPI_DIRECT) {
    /* a lane's consecutive accumulator rows: 4 in both CDNA layouts, 8 in RDNA's */
    int run = p->atom->wave_size == 32 ? 8 : 4;
    if (st->bytes > run * p->c_bits / 8)
      return PERR(e, "epilogue", "store", "%s stores %d bytes; a lane holds %d consecutive %s values of C", st->name,
                  st->bytes, run, fsim_dtype_name(s->c_type));
  }
  p->tiles_m = (int)ceil_div(s->m, s->bm);
  p->tiles_n = (int)ceil_div(s->n, s->bn);
  p->k_tiles = (int)ceil_div(ceil_div(s->k, s->split_k), s->bk);
  p->workgroups = (int64_t)p->tiles_m * p->tiles_n * s->split_k * (s->op == FSIM_KOP_GROUPED_GEMM ? s->groups : 1);
  /* a HIP dispatch gives the grid's size in work-items in 32 bits: 8,388,608 workgroups of
   * 512 threads (a forced config of grouped-gemm 4096x4096x32 on 2048 groups) cannot launch */
  if ((double)p->workgroups * p->threads >= 0x1p32)
    return PERR(e, "tile", "bm", "%lld workgroups of %d threads are %.0f work-items, past the 2^32 - 1 a dispatch's "
                "grid holds; use larger tiles or fewer waves", (long long)p->workgroups, p->threads,
                (double)p->workgroups * p->threads);
  /* a slice is k_tiles whole K tiles, so fewer slices than asked for can cover K (7168 split 8
   * ways in 256-deep tiles: 7 slices of 4 tiles); the rest would load and add zeros */
  int64_t covering = ceil_div(s->k, (int64_t)p->k_tiles * s->bk);
  if (covering < s->split_k)
    return PERR(e, "tile", "split_k", "%d slices of %d K tiles of %d each: the first %lld cover K = %lld and the "
                "other %lld would be empty; use split_k = %lld", s->split_k, p->k_tiles, s->bk, (long long)covering,
                s->k, (long long)(s->split_k - covering), (long long)covering);
  /* split-K adds 16-bit partial sums in packed pairs (4-byte atomics, paired by element index
   * from the group's C): with M x N odd, C's last value shares its pair with the value after
   * C, which the atomic would touch, and every other group's C starts in the middle of a pair */
  if (s->split_k > 1 && p->c_bits == 16 && (s->m * s->n) % 2 != 0)
    return PERR(e, "tile", "split_k", "%d slices add %s partial sums in 4-byte pairs, but a C of %lldx%lld values (an "
                "odd number) leaves its last value in a pair with the value past its end; use split_k = 1 or an even "
                "M x N", s->split_k, fsim_dtype_name(s->c_type), s->m, s->n);
  /* a grouped GEMM's workgroups have z = group x split_k + slice (the emitted kernel's
   * split), and a wave program's addresses are linear in the workgroup's coordinates: its
   * slices would each read K from 0 in another group's operands and add into another group's
   * C (an audit found G = 1 reading C eight times over, unlike the plain GEMM).  Until the
   * wave programs can split z, such plans are not offered. */
  if (s->split_k > 1 && s->op == FSIM_KOP_GROUPED_GEMM)
    return PERR(e, "tile", "split_k", "%d slices of a grouped GEMM are not simulated (the wave program's addresses are "
                "linear in the workgroup's grid coordinates, and z would be group x %d + slice); use split_k = 1",
                s->split_k, s->split_k);
  epilogue_costs(p, memo);
  xcd_tiles(p, occ.wgs_per_cu, memo);
  dram_reads(p, occ.wgs_per_cu, memo);
  return FSIM_OK;
}

int fsim_gemm_pp_slices(const fsim_gemm_plan *p, int *sa, int *sb) {
  *sa = p->rm >= 2 ? 2 : 1;
  *sb = p->rn >= 2 ? 2 : 1;
  return *sa * *sb;
}
