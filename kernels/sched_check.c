/* Legality of a schedule on an arch, per operator.  GEMMs go through their plan
 * (gemm_plan.c), which has the full geometry; attention, RMSNorm and TopK are checked here
 * for what the schedule alone decides: atoms on the ISA, tiles divisible by the wave and
 * atom layouts, LDS within the limit, registers within budget. */
#include "config.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/gemm.h"
#include "kernels/schedule.h"

static fsim_status bad(fsim_err *e, const char *sec, const char *key, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static fsim_status bad(fsim_err *e, const char *sec, const char *key, const char *fmt, ...) {
  char msg[600];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  return FSIM_ERR(e, FSIM_EINVAL, "[%s] %s: %s", sec, key, msg);
}

static fsim_status atom_on(const fsim_arch *a, const char *key, const char *name, fsim_dtype want,
                           const fsim_mma_atom **out, fsim_err *e) {
  const fsim_mma_atom *t = fsim_mma_atom_find_on(name, fsim_isa_bit(a));
  if (t == NULL) return bad(e, "mma", key, "'%s' is not an MMA atom (see docs/atoms.md)", name);
  if (!(t->isas & fsim_isa_bit(a))) return bad(e, "mma", key, "%s does not exist on %s (%s)", t->name, a->device.gfx, a->device.name);
  if (fsim_arch_find_mfma(a, t->name) == NULL) return bad(e, "mma", key, "%s has no timing in %s", t->name, a->file);
  if (t->a_type != want || t->b_type != want)
    return bad(e, "mma", key, "%s multiplies %s x %s, the problem is %s x %s", t->name, fsim_dtype_name(t->a_type),
               fsim_dtype_name(t->b_type), fsim_dtype_name(want), fsim_dtype_name(want));
  if (t->wave_size != a->cu.wave_size) return bad(e, "mma", key, "%s is a wave%d instruction on a wave%d part", t->name, t->wave_size, a->cu.wave_size);
  *out = t;
  return FSIM_OK;
}

static fsim_status operands_exist(const fsim_schedule *s, const fsim_arch *a, const char *ids, fsim_err *e) {
  for (const char *p = ids; *p; p++) {
    char id[2] = {*p, 0};
    const fsim_sched_operand *o = fsim_schedule_operand(s, id);
    char sec[16];
    snprintf(sec, sizeof sec, "operand.%s", id);
    if (o == NULL) return bad(e, sec, "global_copy", "the schedule has no [operand.%s] section", id);
    const fsim_copy_atom *c = fsim_copy_atom_find(o->global_copy);
    if (c == NULL || (c->op != FSIM_OP_LOAD && c->op != FSIM_OP_LOAD_LDS))
      return bad(e, sec, "global_copy", "'%s' is not a load atom", o->global_copy);
    if (!(c->isas & fsim_isa_bit(a))) return bad(e, sec, "global_copy", "%s does not exist on %s", c->name, a->device.gfx);
    if ((o->path == FSIM_PATH_DIRECT) != (c->op == FSIM_OP_LOAD_LDS))
      return bad(e, sec, "path", "%s does not match path %s", c->name, o->path == FSIM_PATH_DIRECT ? "direct" : "registers");
    if (strcmp(o->lds_read, "none") != 0) {
      const fsim_copy_atom *r = fsim_copy_atom_find(o->lds_read);
      if (r == NULL || r->op != FSIM_OP_LDS_READ) return bad(e, sec, "lds_read", "'%s' is not an LDS read atom", o->lds_read);
      if (!(r->isas & fsim_isa_bit(a))) return bad(e, sec, "lds_read", "%s does not exist on %s", r->name, a->device.gfx);
    }
  }
  return FSIM_OK;
}

/* Operand id's swizzle: 'none' or B,M,S (not 'auto', which only a GEMM plan chooses), keeping
 * the `elements` of its LDS stage inside the stage (0: the operand has none). */
static fsim_status swizzle_ok(const fsim_schedule *s, const char *id, int64_t elements, fsim_err *e) {
  const fsim_sched_operand *o = fsim_schedule_operand(s, id);
  char sec[16];
  snprintf(sec, sizeof sec, "operand.%s", id);
  if (strcmp(o->swizzle, "auto") == 0)
    return bad(e, sec, "swizzle", "'auto' is for GEMM schedules; give 'none' or B,M,S");
  fsim_swizzle sw;
  fsim_status st = fsim_schedule_swizzle(o, &sw, e);
  int64_t top;
  if (st != FSIM_OK || elements <= 0) return st;
  if (fsim_swizzle_leaves(&sw, elements, &top)) /* as the GEMM plan requires (gemm_plan.c) */
    return bad(e, sec, "swizzle", "S<%d,%d,%d> moves elements of the %lld-element LDS stage outside it", sw.b, sw.m,
               sw.s, (long long)elements);
  return FSIM_OK;
}

/* The epilogue's store atom: a store that exists on the part. */
static fsim_status store_ok(const fsim_schedule *s, const fsim_arch *a, fsim_err *e) {
  const fsim_copy_atom *c = fsim_copy_atom_find(s->store);
  if (c == NULL || c->op != FSIM_OP_STORE) return bad(e, "epilogue", "store", "'%s' is not a store atom", s->store);
  if (!(c->isas & fsim_isa_bit(a))) return bad(e, "epilogue", "store", "%s does not exist on %s", c->name, a->device.gfx);
  return FSIM_OK;
}

/* An operand the kernel keeps in registers (attention's Q, TopK's X): no LDS stage, so no
 * direct-to-LDS copy, LDS read or padding (the LDS budget holds none of it). */
static fsim_status in_registers(const fsim_schedule *s, const char *id, const char *why, fsim_err *e) {
  const fsim_sched_operand *o = fsim_schedule_operand(s, id);
  char sec[16];
  snprintf(sec, sizeof sec, "operand.%s", id);
  if (o->path == FSIM_PATH_DIRECT)
    return bad(e, sec, "path", "%s; a direct-to-LDS copy writes an LDS stage it does not have: use registers", why);
  if (strcmp(o->lds_read, "none") != 0) return bad(e, sec, "lds_read", "%s, not read from LDS: use none", why);
  if (o->lds_pad != 0) return bad(e, sec, "lds_pad", "%s; there is no LDS row to pad", why);
  return FSIM_OK;
}

/* An operand staged in LDS and read back (attention's K and V, RMSNorm's row): the tile order
 * the copies keep (`major`, FSIM_LDS_*; -1: any), a read atom that delivers it (a transposing
 * read needs the element width it transposes and an mn-major tile; a plain read of an
 * mn-major tile reads one element), and padding only through registers, in whole accesses,
 * as a GEMM's operands (gemm_plan.c). */
static fsim_status staged(const fsim_schedule *s, const char *id, int major, const char *order, fsim_err *e) {
  const fsim_sched_operand *o = fsim_schedule_operand(s, id);
  char sec[16];
  snprintf(sec, sizeof sec, "operand.%s", id);
  if (strcmp(o->lds_read, "none") == 0) return bad(e, sec, "lds_read", "%s is read from LDS: give its read atom", id);
  if (major >= 0 && o->lds_major != major)
    return bad(e, sec, "lds_major", "%s, and copies keep that order: use %s", order,
               major == FSIM_LDS_K_MAJOR ? "k-major" : "mn-major");
  const int bits = fsim_dtype_bits(s->a_type);
  const fsim_copy_atom *r = fsim_copy_atom_find(o->lds_read), *c = fsim_copy_atom_find(o->global_copy);
  char why[160];
  if (!fsim_transpose_read_fits(r, bits, o->lds_major, id, why, sizeof why)) return bad(e, sec, "lds_read", "%s", why);
  if (!r->transpose && o->lds_major == FSIM_LDS_MN_MAJOR && (long long)r->bytes * 8 != bits)
    return bad(e, sec, "lds_read",
               "an mn-major tile needs a transposing read (ds_read_b64_tr_b16, ds_read_b64_tr_b8) or one element per "
               "read; %s reads %d bytes", r->name, r->bytes);
  if (o->lds_pad != 0) {
    if (o->path == FSIM_PATH_DIRECT)
      return bad(e, sec, "lds_pad", "direct-to-LDS copies write consecutive addresses; padding needs path registers");
    int gran = r->bytes * 8 / bits, wr = c->bytes * 8 / bits; /* the read's and the row write's elements */
    if (wr > gran) gran = wr;
    if (gran < 1) gran = 1;
    if (o->lds_pad % gran != 0)
      return bad(e, sec, "lds_pad", "%d %s elements put rows off the alignment of %s and its %d-byte writes; pad by a "
                 "multiple of %d", o->lds_pad, fsim_dtype_name(s->a_type), r->name, c->bytes, gran);
  }
  return FSIM_OK;
}

static fsim_status check_attention(const fsim_schedule *s, const fsim_arch *a, fsim_sched_resources *r, fsim_err *e) {
  const fsim_mma_atom *qk, *pv;
  fsim_status st;
  if ((st = atom_on(a, "atom", s->atom, s->a_type, &qk, e)) != FSIM_OK) return st;
  if ((st = atom_on(a, "atom2", s->atom2, s->a_type, &pv, e)) != FSIM_OK) return st;
  if ((st = operands_exist(s, a, "QKV", e)) != FSIM_OK) return st;
  int waves = s->waves_m;
  if (s->bm % waves != 0) return bad(e, "tile", "bm", "%d query rows do not divide over %d waves", s->bm, waves);
  int rows = s->bm / waves;
  if (rows % qk->m != 0) return bad(e, "tile", "bm", "%d rows per wave are not a multiple of the atom's M = %d", rows, qk->m);
  if (rows % pv->m != 0)
    return bad(e, "tile", "bm", "%d rows per wave are not a multiple of the P*V atom's M = %d", rows, pv->m);
  if (s->bn % qk->n != 0) return bad(e, "tile", "bn", "%d key rows are not a multiple of the atom's N = %d", s->bn, qk->n);
  if (s->bn % pv->k != 0) return bad(e, "tile", "bn", "%d key rows are not a multiple of the P*V atom's K = %d", s->bn, pv->k);
  if (s->head_dim % s->head_split != 0) return bad(e, "tile", "head_split", "%d does not divide head_dim %d", s->head_split, s->head_dim);
  int d = s->head_dim / s->head_split;
  if (d % qk->k != 0) return bad(e, "tile", "head_split", "a head part of %d is not a multiple of the atom's K = %d", d, qk->k);
  if (d % pv->n != 0) return bad(e, "tile", "head_split", "a head part of %d is not a multiple of the P*V atom's N = %d", d, pv->n);
  if (s->kind != FSIM_PIPE_PLAIN && waves % 2 != 0)
    return bad(e, "pipeline", "kind", "a two-group pipeline needs an even number of waves, not %d", waves);
  if (s->kind == FSIM_PIPE_PINGPONG) { /* as a GEMM's ping-pong (gemm_plan.c) */
    if (s->stages < 2)
      return bad(e, "pipeline", "stages", "ping-pong needs two or more stages: one group copies the next tile while "
                 "the other still reads this one");
    if ((rows / qk->m) * (s->bn / qk->n) < 2)
      return bad(e, "pipeline", "kind", "ping-pong cuts a step into phases by halves of the wave's %dx%d tile, which is "
                 "one atom", rows, s->bn);
    if (strcmp(s->interleave, "none") != 0 && s->interleave[0] != '\0')
      return bad(e, "pipeline", "interleave", "'%s': interleave hints order a plain step; ping-pong runs its step in "
                 "phases of reads and MFMAs", s->interleave);
  }
  /* Q stays in registers; K (the QK^T product's B, head_dim contiguous) and V (P*V's B,
   * head_dim, its N, contiguous) are staged in LDS in the order the copies keep */
  if ((st = in_registers(s, "Q", "Q is kept in registers", e)) != FSIM_OK ||
      (st = staged(s, "K", FSIM_LDS_K_MAJOR, "K's rows are contiguous along head_dim, the QK^T product's K", e)) != FSIM_OK ||
      (st = staged(s, "V", FSIM_LDS_MN_MAJOR, "V's rows are contiguous along head_dim, the P*V product's N", e)) != FSIM_OK)
    return st;
  /* Q stays in registers; K and V stages hold bn rows of the head part */
  if ((st = swizzle_ok(s, "Q", 0, e)) != FSIM_OK || (st = swizzle_ok(s, "K", (int64_t)s->bn * d, e)) != FSIM_OK ||
      (st = swizzle_ok(s, "V", (int64_t)s->bn * d, e)) != FSIM_OK || (st = store_ok(s, a, e)) != FSIM_OK)
    return st;
  const long long bits = fsim_dtype_bits(s->a_type); /* sub-byte types too: sizes in bits, bytes rounded up */
  /* K and V tiles of bn rows of the head part (and their padding) per stage; Q stays in registers */
  const int pad_k = fsim_schedule_operand(s, "K")->lds_pad, pad_v = fsim_schedule_operand(s, "V")->lds_pad;
  r->lds_bytes = ((long long)s->stages * s->bn * (2LL * d + pad_k + pad_v) * bits + 7) / 8;
  if (r->lds_bytes > a->lds.max_bytes_per_wg)
    return bad(e, "pipeline", "stages", "%d stages of %dx%d K and V tiles%s need %lld bytes of LDS, more than %d",
               s->stages, s->bn, d, pad_k || pad_v ? " with their padding" : "", r->lds_bytes, a->lds.max_bytes_per_wg);
  r->waves = waves;
  r->threads = waves * a->cu.wave_size;
  if (r->threads > a->cu.max_workgroup_size) return bad(e, "tile", "waves_m", "%d work-items exceed %d", r->threads, a->cu.max_workgroup_size);
  int o_acc = rows * d / a->cu.wave_size, p_acc = rows * s->bn / a->cu.wave_size;
  int q_regs = (int)(((long long)rows * d * bits + 31) / 32 / a->cu.wave_size);
  r->agprs = a->cu.max_agprs > 0 ? o_acc : 0;
  r->vgprs = p_acc + q_regs + 32 + (a->cu.max_agprs > 0 ? 0 : o_acc);
  if (r->vgprs > a->cu.max_vgprs || r->agprs > (a->cu.max_agprs ? a->cu.max_agprs : 0))
    return bad(e, "tile", "bm", "%d rows per wave with head part %d need %d VGPRs and %d AGPRs", rows, d, r->vgprs, r->agprs);
  r->workgroups = (long long)s->batch * s->heads * ((s->seq_q + s->bm - 1) / s->bm) * s->head_split;
  return FSIM_OK;
}

static fsim_status check_rows(const fsim_schedule *s, const fsim_arch *a, fsim_sched_resources *r, fsim_err *e) {
  fsim_status st;
  if ((st = operands_exist(s, a, "X", e)) != FSIM_OK) return st;
  if (s->threads % a->cu.wave_size != 0)
    return bad(e, "tile", "threads", "%d is not a multiple of the wave size %d", s->threads, a->cu.wave_size);
  if (s->threads > a->cu.max_workgroup_size) return bad(e, "tile", "threads", "%d exceeds %d", s->threads, a->cu.max_workgroup_size);
  r->threads = s->threads;
  r->waves = s->threads / a->cu.wave_size;
  const long long bits = fsim_dtype_bits(s->a_type); /* sub-byte types too: sizes in bits */
  const fsim_sched_operand *x = fsim_schedule_operand(s, "X");
  const fsim_copy_atom *c = fsim_copy_atom_find(x->global_copy);
  if ((s->vec * bits) % (8LL * c->bytes) != 0)
    return bad(e, "tile", "vec", "%d %s values per lane are %g bytes, not a whole number of %d-byte %s copies", s->vec,
               fsim_dtype_name(s->a_type), (double)(s->vec * bits) / 8, c->bytes, c->name);
  if (s->op == FSIM_KOP_RMSNORM) {
    if (s->cols % s->vec != 0) return bad(e, "tile", "vec", "%d does not divide the row length %d", s->vec, s->cols);
    if ((st = swizzle_ok(s, "X", s->cols, e)) != FSIM_OK || (st = staged(s, "X", -1, NULL, e)) != FSIM_OK ||
        (st = store_ok(s, a, e)) != FSIM_OK)
      return st;
    /* the row (and its padding) is cached in LDS between the sum-of-squares pass and the scaling pass */
    r->lds_bytes = ((long long)(s->cols + x->lds_pad) * bits + 7) / 8;
    if (r->lds_bytes > a->lds.max_bytes_per_wg)
      return bad(e, "problem", "cols", "a cached row of %d values%s needs %lld bytes of LDS, more than %d", s->cols,
                 x->lds_pad ? " with its padding" : "", r->lds_bytes, a->lds.max_bytes_per_wg);
    r->vgprs = 2 * s->vec + 16;
    r->workgroups = s->rows;
  } else {
    if (s->topk > s->experts) return bad(e, "problem", "topk", "%d is more than the %d experts", s->topk, s->experts);
    if ((st = swizzle_ok(s, "X", 0, e)) != FSIM_OK || (st = in_registers(s, "X", "TopK keeps its rows in registers", e)) != FSIM_OK)
      return st; /* no LDS stage */
    if (s->experts % s->vec != 0) return bad(e, "tile", "vec", "%d does not divide the %d experts", s->vec, s->experts);
    int lanes_per_row = s->experts / s->vec;
    if (lanes_per_row > a->cu.wave_size || a->cu.wave_size % lanes_per_row != 0)
      return bad(e, "tile", "vec", "%d experts at %d per lane take %d lanes, which must divide a wave of %d", s->experts,
                 s->vec, lanes_per_row, a->cu.wave_size);
    int rows_per_wg = s->threads / lanes_per_row;
    r->lds_bytes = 0;
    r->vgprs = 2 * s->vec + 2 * s->topk + 16;
    r->workgroups = (s->rows + rows_per_wg - 1) / rows_per_wg;
    /* the key that the estimate's larger term comes from */
    if (r->vgprs > a->cu.max_vgprs && s->topk > s->vec)
      return bad(e, "problem", "topk", "an estimated %d VGPRs (2 x vec %d + 2 x topk %d + 16) exceed %d", r->vgprs, s->vec,
                 s->topk, a->cu.max_vgprs);
  }
  r->agprs = 0;
  if (r->vgprs > a->cu.max_vgprs) return bad(e, "tile", "vec", "an estimated %d VGPRs exceed %d", r->vgprs, a->cu.max_vgprs);
  return FSIM_OK;
}

int fsim_schedule_interleave_valid(const char *text, char *why, size_t n) {
  if (*text == '\0' || strcmp(text, "none") == 0) return 1;
  char buf[128];
  snprintf(buf, sizeof buf, "%s", text);
  char *save = NULL;
  int groups = 0;
  for (char *t = strtok_r(buf, " ", &save); t; t = strtok_r(NULL, " ", &save)) {
    if (++groups > FSIM_SCHED_MAX_HINT_GROUPS) {
      snprintf(why, n, "'%s': more than %d groups", text, FSIM_SCHED_MAX_HINT_GROUPS);
      return 0;
    }
    char *colon = strchr(t, ':');
    char *end = NULL;
    long cnt = colon ? strtol(colon + 1, &end, 10) : 0;
    /* digits alone, as every other count (strtol also took "+2" and " 2") */
    if (colon == NULL || end == colon + 1 || *end != '\0' || !isdigit((unsigned char)colon[1])) {
      snprintf(why, n, "'%s': expected CLASS:COUNT (e.g. mfma:8)", t);
      return 0;
    }
    if (cnt < 1 || cnt > 1024) {
      snprintf(why, n, "'%s': the count is out of range [1, 1024]", t);
      return 0;
    }
    size_t len = (size_t)(colon - t);
    if (!(len == 4 && (strncmp(t, "vmem", 4) == 0 || strncmp(t, "dsrd", 4) == 0 || strncmp(t, "mfma", 4) == 0))) {
      snprintf(why, n, "'%s': the classes are vmem (copies), dsrd (LDS reads) and mfma", t);
      return 0;
    }
  }
  return 1;
}

/* An operand section the operator does not read is a mistake (a typo'd ID, a section left
 * from another operator), not something to ignore. */
static fsim_status operands_used(const fsim_schedule *s, fsim_err *e) {
  const char *ids = s->op == FSIM_KOP_ATTENTION                          ? "QKV"
                    : s->op == FSIM_KOP_RMSNORM || s->op == FSIM_KOP_TOPK ? "X"
                                                                          : "AB";
  const char *names = s->op == FSIM_KOP_ATTENTION ? "Q, K and V" : ids[1] ? "A and B" : "X";
  for (int i = 0; i < s->n_operands; i++) {
    const char *id = s->operand[i].id;
    if (strlen(id) != 1 || strchr(ids, id[0]) == NULL) {
      char sec[24];
      snprintf(sec, sizeof sec, "operand.%s", id);
      return bad(e, sec, "global_copy", "%s has no operand %s (its operands: %s)", fsim_kop_name((fsim_kop)s->op), id,
                 names);
    }
  }
  return FSIM_OK;
}

fsim_status fsim_schedule_check(const fsim_schedule *s, const fsim_arch *a, fsim_sched_resources *r, fsim_err *e) {
  fsim_sched_resources tmp;
  if (r == NULL) r = &tmp;
  memset(r, 0, sizeof *r);
  fsim_status ust = operands_used(s, e);
  if (ust != FSIM_OK) return ust;
  char why[160];
  if (!fsim_schedule_interleave_valid(s->interleave, why, sizeof why))
    return bad(e, "pipeline", "interleave", "%s", why);
  switch (s->op) {
  case FSIM_KOP_GEMM:
  case FSIM_KOP_GROUPED_GEMM:
  case FSIM_KOP_SCALED_GEMM: {
    fsim_gemm_plan p;
    fsim_status st = fsim_gemm_plan_make(&p, s, a, e);
    if (st != FSIM_OK) return st;
    r->waves = p.waves;
    r->threads = p.threads;
    r->lds_bytes = p.lds_bytes;
    r->vgprs = p.vgprs;
    r->agprs = p.agprs;
    r->workgroups = p.workgroups;
    return FSIM_OK;
  }
  case FSIM_KOP_ATTENTION: return check_attention(s, a, r, e);
  case FSIM_KOP_RMSNORM:
  case FSIM_KOP_TOPK: return check_rows(s, a, r, e);
  default: return bad(e, "schedule", "op", "unknown operator");
  }
}
