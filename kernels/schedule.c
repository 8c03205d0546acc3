/* Kernel schedules: the key table, loading and writing, and the legality check against an
 * arch.  See schedule.h for the model and docs/schedules.md for the format. */
#include "config.h"

#include "kernels/schedule.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#define S_OFF(f) offsetof(fsim_schedule, f)
#define O_OFF(f) offsetof(fsim_sched_operand, f)

/* Which operators a key applies to. */
#define GEMMF ((1u << FSIM_KOP_GEMM) | (1u << FSIM_KOP_GROUPED_GEMM) | (1u << FSIM_KOP_SCALED_GEMM))
#define ATT (1u << FSIM_KOP_ATTENTION)
#define NORM (1u << FSIM_KOP_RMSNORM)
#define TOPK (1u << FSIM_KOP_TOPK)
#define GROUPED (1u << FSIM_KOP_GROUPED_GEMM)
#define ALL (GEMMF | ATT | NORM | TOPK)

/* X(section, key, type, offset, min, max, size, choices, optional, ops, unit, doc) */
#define SCHEDULE_KEYS(X)                                                                                       \
  X("schedule", "name", FSIM_KEY_STRING, S_OFF(name), 0, 0, FSIM_SCHED_NAME, NULL, 0, ALL, "", "name")        \
  X("schedule", "op", FSIM_KEY_ENUM, S_OFF(op), 0, 0, 0, FSIM_KOP_NAMES, 0, ALL, "", "operator")              \
  X("schedule", "arch", FSIM_KEY_STRING, S_OFF(arch), 0, 0, 16, NULL, 1, ALL, "", "target gfx name")         \
  X("schedule", "doc", FSIM_KEY_STRING, S_OFF(doc), 0, 0, 160, NULL, 1, ALL, "", "where it comes from")      \
  X("problem", "m", FSIM_KEY_LLONG, S_OFF(m), 1, 16777216, 0, NULL, 0, GEMMF, "rows", "rows of C")               \
  X("problem", "n", FSIM_KEY_LLONG, S_OFF(n), 1, 16777216, 0, NULL, 0, GEMMF, "columns", "columns of C")          \
  X("problem", "k", FSIM_KEY_LLONG, S_OFF(k), 1, 16777216, 0, NULL, 0, GEMMF, "values", "reduction length")       \
  X("problem", "groups", FSIM_KEY_INT, S_OFF(groups), 1, 65536, 0, NULL, 0, GROUPED, "groups",               \
    "independent m x n x k problems")                                                                        \
  X("problem", "a_type", FSIM_KEY_DTYPE, S_OFF(a_type), 0, 0, 0, NULL, 0, GEMMF | ATT | NORM | TOPK, "",     \
    "A (or input) data type")                                                                                \
  X("problem", "b_type", FSIM_KEY_DTYPE, S_OFF(b_type), 0, 0, 0, NULL, 0, GEMMF, "", "B data type")         \
  X("problem", "c_type", FSIM_KEY_DTYPE, S_OFF(c_type), 0, 0, 0, NULL, 1, GEMMF | ATT | NORM, "",           \
    "output data type")                                                                                      \
  X("problem", "layout", FSIM_KEY_ENUM, S_OFF(layout), 0, 0, 0, FSIM_LAYOUT_NAMES, 1, GEMMF, "",             \
    "A and B in BLAS letters: T = K contiguous for A, N = K contiguous for B")                               \
  X("problem", "batch", FSIM_KEY_INT, S_OFF(batch), 1, 1 << 20, 0, NULL, 0, ATT, "", "batch")               \
  X("problem", "heads", FSIM_KEY_INT, S_OFF(heads), 1, 1 << 16, 0, NULL, 0, ATT, "", "attention heads")     \
  X("problem", "seq_q", FSIM_KEY_INT, S_OFF(seq_q), 1, 1 << 24, 0, NULL, 0, ATT, "tokens", "query length")  \
  X("problem", "seq_kv", FSIM_KEY_INT, S_OFF(seq_kv), 1, 1 << 24, 0, NULL, 0, ATT, "tokens", "key length")  \
  X("problem", "head_dim", FSIM_KEY_INT, S_OFF(head_dim), 16, 1024, 0, NULL, 0, ATT, "", "head dimension")  \
  X("problem", "causal", FSIM_KEY_INT, S_OFF(causal), 0, 1, 0, NULL, 1, ATT, "flag", "causal mask")         \
  X("problem", "rows", FSIM_KEY_LLONG, S_OFF(rows), 1, 1e9, 0, NULL, 0, NORM | TOPK, "rows", "rows")         \
  X("problem", "cols", FSIM_KEY_INT, S_OFF(cols), 1, 1 << 24, 0, NULL, 0, NORM, "values", "row length")      \
  X("problem", "experts", FSIM_KEY_INT, S_OFF(experts), 2, 1 << 16, 0, NULL, 0, TOPK, "", "values per row") \
  X("problem", "topk", FSIM_KEY_INT, S_OFF(topk), 1, 1 << 16, 0, NULL, 0, TOPK, "", "values kept per row")  \
  X("tile", "bm", FSIM_KEY_INT, S_OFF(bm), 1, 1024, 0, NULL, 0, GEMMF | ATT, "rows", "block tile rows")     \
  X("tile", "bn", FSIM_KEY_INT, S_OFF(bn), 1, 1024, 0, NULL, 0, GEMMF | ATT, "columns", "block tile columns") \
  X("tile", "bk", FSIM_KEY_INT, S_OFF(bk), 1, 4096, 0, NULL, 0, GEMMF, "values", "block tile depth")        \
  X("tile", "waves_m", FSIM_KEY_INT, S_OFF(waves_m), 1, 16, 0, NULL, 0, GEMMF | ATT, "waves",               \
    "waves along M")                                                                                         \
  X("tile", "waves_n", FSIM_KEY_INT, S_OFF(waves_n), 1, 16, 0, NULL, 0, GEMMF, "waves", "waves along N")    \
  X("tile", "split_k", FSIM_KEY_INT, S_OFF(split_k), 1, 256, 0, NULL, 1, GEMMF, "", "K slices")             \
  X("tile", "lds_split", FSIM_KEY_INT, S_OFF(lds_split), 1, 8, 0, NULL, 1, GEMMF, "",                       \
    "LDS buffers per operand tile and stage")                                                                \
  X("tile", "head_split", FSIM_KEY_INT, S_OFF(head_split), 1, 8, 0, NULL, 1, ATT, "",                       \
    "parts the head dimension is processed in")                                                              \
  X("tile", "threads", FSIM_KEY_INT, S_OFF(threads), 32, 1024, 0, NULL, 0, NORM | TOPK, "work-items",       \
    "workgroup size")                                                                                        \
  X("tile", "vec", FSIM_KEY_INT, S_OFF(vec), 1, 64, 0, NULL, 0, NORM | TOPK, "values", "values per lane")   \
  X("mma", "atom", FSIM_KEY_STRING, S_OFF(atom), 0, 0, FSIM_ARCH_NAME_LEN, NULL, 0, GEMMF | ATT, "",        \
    "MMA atom")                                                                                              \
  X("mma", "atom2", FSIM_KEY_STRING, S_OFF(atom2), 0, 0, FSIM_ARCH_NAME_LEN, NULL, 0, ATT, "",              \
    "MMA atom of the second product (P V)")                                                                  \
  X("pipeline", "stages", FSIM_KEY_INT, S_OFF(stages), 1, 8, 0, NULL, 0, GEMMF | ATT, "", "stages")         \
  X("pipeline", "kind", FSIM_KEY_ENUM, S_OFF(kind), 0, 0, 0, "plain|pingpong|dual-wave", 1, GEMMF | ATT, "", \
    "wave scheduling")                                                                                       \
  X("pipeline", "interleave", FSIM_KEY_STRING, S_OFF(interleave), 0, 0, 96, NULL, 1, GEMMF | ATT, "",       \
    "interleave hints per K step (sched_group_barrier)")                                                    \
  X("pipeline", "xcd_remap", FSIM_KEY_INT, S_OFF(xcd_remap), 0, 1, 0, NULL, 1, GEMMF | ATT, "flag",         \
    "remap workgroup ids per XCD")                                                                           \
  X("pipeline", "group_m", FSIM_KEY_INT, S_OFF(group_m), 0, 1024, 0, NULL, 1, GEMMF, "tiles",               \
    "GROUP_M tile swizzle (0: none)")                                                                        \
  X("epilogue", "c_path", FSIM_KEY_ENUM, S_OFF(c_path), 0, 0, 0, "lds|direct", 1, GEMMF, "",                \
    "C through LDS or stored directly")                                                                      \
  X("epilogue", "store", FSIM_KEY_STRING, S_OFF(store), 0, 0, 32, NULL, 1, GEMMF | ATT | NORM, "",          \
    "store atom")                                                                                            \
  X("operand", "global_copy", FSIM_KEY_STRING, O_OFF(global_copy), 0, 0, 32, NULL, 0, ALL, "",              \
    "copy atom from global memory")                                                                          \
  X("operand", "path", FSIM_KEY_ENUM, O_OFF(path), 0, 0, 0, "direct|registers", 1, ALL, "",                 \
    "direct to LDS or through registers")                                                                    \
  X("operand", "lds_major", FSIM_KEY_ENUM, O_OFF(lds_major), 0, 0, 0, "k-major|mn-major", 1, ALL, "",       \
    "which dimension is contiguous in LDS")                                                                  \
  X("operand", "swizzle", FSIM_KEY_STRING, O_OFF(swizzle), 0, 0, 24, NULL, 1, ALL, "",                      \
    "LDS swizzle B,M,S or none")                                                                            \
  X("operand", "lds_pad", FSIM_KEY_INT, O_OFF(lds_pad), 0, 64, 0, NULL, 1, ALL, "values",                   \
    "padding after each LDS row")                                                                           \
  X("operand", "lds_read", FSIM_KEY_STRING, O_OFF(lds_read), 0, 0, 32, NULL, 1, ALL, "",                    \
    "copy atom from LDS, or none")

#define AS_KEY(sec, key, type, off, lo, hi, size, choices, opt, ops, unit, doc) \
  {sec, key, type, off, lo, hi, size, choices, opt, unit, doc},
#define AS_OPS(sec, key, type, off, lo, hi, size, choices, opt, ops, unit, doc) ops,

static const fsim_ini_key sched_keys[] = {SCHEDULE_KEYS(AS_KEY)};
static const unsigned sched_ops[] = {SCHEDULE_KEYS(AS_OPS)};
#define N_KEYS ((int)(sizeof sched_keys / sizeof sched_keys[0]))

static const fsim_ini_group sched_groups[] = {
    {"operand", offsetof(fsim_schedule, operand), sizeof(fsim_sched_operand), FSIM_SCHED_MAX_OPERANDS,
     offsetof(fsim_schedule, n_operands), offsetof(fsim_sched_operand, id), 8},
};

static int sched_applies(const void *base, const fsim_ini_key *k) {
  const fsim_schedule *s = base;
  unsigned ops = sched_ops[k - sched_keys];
  return ops == ALL || (s->op >= 0 && s->op < FSIM_KOP_COUNT && ((ops >> s->op) & 1));
}

static const char *sched_hint(const void *base) {
  static const char *const hints[] = {"a gemm schedule does not use it", "a grouped-gemm schedule does not use it",
                                      "a scaled-gemm schedule does not use it", "an attention schedule does not use it",
                                      "an rmsnorm schedule does not use it", "a topk schedule does not use it"};
  const fsim_schedule *s = base;
  return s->op >= 0 && s->op < FSIM_KOP_COUNT ? hints[s->op] : "no [schedule] op was given";
}

static const fsim_ini_spec sched_spec = {sched_keys, N_KEYS, sched_groups, 1,
                                         "schedule problem tile mma pipeline epilogue operand.ID", NULL,
                                         sched_applies, sched_hint};

const fsim_ini_spec *fsim_schedule_spec(void) { return &sched_spec; }

static const char *const kop_names[] = {"gemm", "grouped-gemm", "scaled-gemm", "attention", "rmsnorm", "topk"};
static const char *const layout_names[] = {"TN", "NN", "NT", "TT"};

const char *fsim_kop_name(fsim_kop op) { return (unsigned)op < FSIM_KOP_COUNT ? kop_names[op] : "?"; }

int fsim_kop_parse(const char *s, fsim_kop *out) {
  for (int i = 0; i < FSIM_KOP_COUNT; i++)
    if (strcmp(s, kop_names[i]) == 0) {
      *out = (fsim_kop)i;
      return 0;
    }
  return -1;
}

const char *fsim_layout_name(fsim_gemm_layout l) { return (unsigned)l < 4 ? layout_names[l] : "?"; }

int fsim_gemm_layout_parse(const char *s, fsim_gemm_layout *out) {
  for (int i = 0; i < 4; i++)
    if (strcmp(s, layout_names[i]) == 0) {
      *out = (fsim_gemm_layout)i;
      return 0;
    }
  return -1;
}

void fsim_schedule_defaults(fsim_schedule *s) {
  memset(s, 0, sizeof *s);
  s->op = -1; /* required: no key applies until it is read */
  s->c_type = FSIM_DT_BF16;
  s->layout = FSIM_LAYOUT_TN;
  s->split_k = 1;
  s->lds_split = 1;
  s->head_split = 1;
  s->kind = FSIM_PIPE_PLAIN;
  s->c_path = FSIM_EPI_LDS;
  strcpy(s->interleave, "none");
  strcpy(s->store, "buffer_store_dwordx4");
}

/* Operand strings a file left out read as "none". */
static void normalize(fsim_schedule *s) {
  for (int i = 0; i < s->n_operands; i++) {
    if (s->operand[i].swizzle[0] == '\0') strcpy(s->operand[i].swizzle, "none");
    if (s->operand[i].lds_read[0] == '\0') strcpy(s->operand[i].lds_read, "none");
  }
}

fsim_status fsim_schedule_load(fsim_schedule *s, const char *path, fsim_err *e) {
  return fsim_schedule_load_keep(s, path, NULL, e);
}

fsim_status fsim_schedule_load_keep(fsim_schedule *s, const char *path, char **text, fsim_err *e) {
  fsim_schedule_defaults(s);
  fsim_status st = fsim_ini_load_keep(&sched_spec, s, path, text, e);
  if (st == FSIM_OK) normalize(s);
  return st;
}

fsim_status fsim_schedule_load_string(fsim_schedule *s, const char *text, const char *source, fsim_err *e) {
  fsim_schedule_defaults(s);
  fsim_status st = fsim_ini_load_string(&sched_spec, s, text, source, e);
  if (st == FSIM_OK) normalize(s);
  return st;
}

fsim_status fsim_schedule_write(const fsim_schedule *s, FILE *f, fsim_err *e) {
  fprintf(f, "; flysim schedule (docs/schedules.md)\n");
  return fsim_ini_write(&sched_spec, s, f, e);
}

fsim_status fsim_schedule_text(const fsim_schedule *s, char **text, fsim_err *e) {
  size_t len = 0;
  *text = NULL;
  FILE *mem = open_memstream(text, &len);
  if (mem == NULL) return FSIM_ERR(e, FSIM_ENOMEM, "out of memory");
  fsim_status st = fsim_schedule_write(s, mem, e);
  fclose(mem);
  if (st != FSIM_OK) {
    free(*text);
    *text = NULL;
  }
  return st;
}

const fsim_sched_operand *fsim_schedule_operand(const fsim_schedule *s, const char *id) {
  for (int i = 0; i < s->n_operands; i++)
    if (strcmp(s->operand[i].id, id) == 0) return &s->operand[i];
  return NULL;
}

fsim_status fsim_schedule_swizzle(const fsim_sched_operand *o, fsim_swizzle *out, fsim_err *e) {
  memset(out, 0, sizeof *out);
  if (strcmp(o->swizzle, "none") == 0) return fsim_swizzle_make(out, 0, 0, 0, e);
  int b, m, s;
  char sep1, sep2, tail;
  /* B,M,S, or B:M:S as --config also takes it */
  /* digits, and a '-' on S, as --config takes them (sscanf also took "+2, +4, +4") */
  if (strpbrk(o->swizzle, "+ \t") != NULL ||
      sscanf(o->swizzle, "%d%c%d%c%d%c", &b, &sep1, &m, &sep2, &s, &tail) != 5 || sep1 != sep2 ||
      (sep1 != ',' && sep1 != ':') || b < 0 || b > 10 || m < 0 || m > 10 || s < -10 || s > 10)
    return FSIM_ERR(e, FSIM_EINVAL, "[operand.%s] swizzle: '%s' is not 'none' or B,M,S (or B:M:S) with small integers",
                    o->id, o->swizzle);
  fsim_status st = fsim_swizzle_make(out, b, m, s, e);
  if (st != FSIM_OK) fsim_err_prefix(e, "[operand.%s] swizzle", o->id);
  return st;
}
