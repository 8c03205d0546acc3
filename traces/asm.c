/* AMDGPU assembly to wave programs: see asm.h.
 *
 * The parser is line-oriented.  A kernel starts at "name:" in column 0 (clang -S; one that a
 * branch names is a label of the kernel) or at "ADDR <name>:" (llvm-objdump) and runs to the
 * next one, or to a .Lfunc_end label; whatever
 * follows its last s_endpgm (objdump's s_nop padding) is dropped, but for blocks there that a
 * branch before it reaches (resolve).  Comments (';', '//') are
 * removed after the objdump address has been read from them.  Branch targets are labels
 * (clang -S) or <name+0xOFFSET> (objdump); a branch to an earlier block closes a loop when it is
 * a back edge of a natural loop (the blocks' dominators decide: struct cfg).
 *
 * Classification goes by mnemonic prefix, as the ISA names its encodings: v_mfma, v_smfmac,
 * v_wmma and v_swmmac are matrix instructions; other v_ are VALU; s_load, s_buffer_load and
 * s_store are SMEM; ds_read/ds_load and ds_write/ds_store are LDS reads and writes; buffer_,
 * global_, flat_ and scratch_ loads are VMEM loads (direct-to-LDS when the mnemonic has _lds or
 * the operands end in "lds"), their stores and atomics VMEM stores, their cache write-backs,
 * invalidates and prefetches (no load, store or atomic in the name) one-cycle NOPs, as they move
 * no data.  A mnemonic that is none of
 * these counts as VALU and is counted in `unknown`. */
#include "config.h"

#include "traces/asm.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* Label names, defined and branched to, are kept whole: they point into the text. */
typedef struct label {
  const char *name; /* len characters in the text */
  int len;
  int inst;         /* the instruction the label precedes */
  int line;
} label;

typedef struct pending {
  int inst;          /* branch instruction */
  const char *label; /* clang -S target: label_len characters in the text, NULL for none */
  int label_len;
  long long addr;    /* objdump target address (-1: none) */
} pending;

static int starts(const char *s, const char *prefix) { return strncmp(s, prefix, strlen(prefix)) == 0; }

static int grow(void **p, int *cap, int need, size_t elem) {
  if (need <= *cap) return 0;
  int nc = *cap ? *cap * 2 : 64;
  while (nc < need) nc *= 2;
  void *np = realloc(*p, (size_t)nc * elem);
  if (np == NULL) return -1;
  *p = np;
  *cap = nc;
  return 0;
}

/* ---- operands ------------------------------------------------------------------------------- */

/* Parses one operand token as a register; 0 if it is not one. */
/* An operand past its modifiers (-x, |x|, !x, neg(x), abs(x)). */
static const char *strip_modifiers(const char *t) {
  while (*t == '-' || *t == '|' || *t == '!') t++;
  return starts(t, "neg(") || starts(t, "abs(") ? t + 4 : t;
}

static int parse_reg(const char *t, fsim_asm_reg *r) {
  t = strip_modifiers(t);
  if (starts(t, "vcc")) {
    *r = (fsim_asm_reg){'c', 0, 1};
    return 1;
  }
  if (starts(t, "exec")) {
    *r = (fsim_asm_reg){'e', 0, 1};
    return 1;
  }
  if (strcmp(t, "m0") == 0 || starts(t, "m0)")) {
    *r = (fsim_asm_reg){'m', 0, 1};
    return 1;
  }
  char f = t[0];
  if (f != 'v' && f != 'a' && f != 's') return 0;
  if (t[1] == '[') {
    char *end;
    long lo = strtol(t + 2, &end, 10);
    if (end == t + 2 || *end != ':') return 0;
    long hi = strtol(end + 1, &end, 10);
    if (*end != ']' || hi < lo || lo < 0 || hi > 1023) return 0;
    *r = (fsim_asm_reg){f, (int)lo, (int)(hi - lo + 1)};
    return 1;
  }
  if (!isdigit((unsigned char)t[1])) return 0;
  char *end;
  long v = strtol(t + 1, &end, 10);
  if (v < 0 || v > 1023 || (*end != '\0' && *end != ')' && *end != '|')) return 0;
  *r = (fsim_asm_reg){f, (int)v, 1};
  return 1;
}

/* The first operand that looks like a register (v, a or s followed by a digit or '[') but is
 * not one parse_reg reads (a[3:0], a[0:3, v[0:99999]), copied into buf; NULL if none.  Such an
 * operand was dropped, and the operands after it moved up a place. */
static const char *bad_reg(const char *ops, char *buf, size_t n) {
  char copy[512];
  snprintf(copy, sizeof copy, "%s", ops);
  char *save = NULL;
  for (char *t = strtok_r(copy, ", \t", &save); t; t = strtok_r(NULL, ", \t", &save)) {
    const char *u = strip_modifiers(t);
    fsim_asm_reg r;
    size_t ul = strlen(u);
    if (ul > 2 && u[ul - 2] == '.' && (u[ul - 1] == 'l' || u[ul - 1] == 'h')) continue; /* gfx11+ 16-bit halves */
    if ((u[0] == 'v' || u[0] == 'a' || u[0] == 's') && (u[1] == '[' || isdigit((unsigned char)u[1])) &&
        !parse_reg(t, &r)) {
      snprintf(buf, n, "%s", t);
      return buf;
    }
  }
  return NULL;
}

/* The register that operand k (from 0; operands are comma-separated, and what follows one
 * after a space is a modifier) names, in *r; 0 when it is not a register or there is none. */
static int operand_reg_at(const char *ops, int k, fsim_asm_reg *r) {
  const char *s = ops;
  for (int i = 0; i < k; i++) {
    s = strchr(s, ',');
    if (s == NULL) return 0;
    s++;
  }
  while (isspace((unsigned char)*s)) s++;
  size_t n = strcspn(s, ", \t");
  char tok[64];
  snprintf(tok, sizeof tok, "%.*s", (int)(n < sizeof tok - 1 ? n : sizeof tok - 1), s);
  return tok[0] != '\0' && parse_reg(tok, r);
}

/* Whether the modifiers (the words after the operands) include `word` whole. */
static int has_word(const char *ops, const char *word) {
  size_t n = strlen(word);
  for (const char *p = strstr(ops, word); p; p = strstr(p + 1, word))
    if ((p == ops || isspace((unsigned char)p[-1])) && (p[n] == '\0' || isspace((unsigned char)p[n]))) return 1;
  return 0;
}

/* The registers among the operands, in order (at most max). */
static int operand_regs(const char *ops, fsim_asm_reg *regs, int max) {
  int n = 0;
  char buf[512];
  snprintf(buf, sizeof buf, "%s", ops);
  char *save = NULL;
  for (char *t = strtok_r(buf, ", \t", &save); t && n < max; t = strtok_r(NULL, ", \t", &save))
    if (parse_reg(t, &regs[n])) n++;
  return n;
}

/* Bytes per lane from the mnemonic's type suffix. */
static int width_in_name(const char *mn) {
  static const struct {
    const char *suffix;
    int bytes;
  } tab[] = {{"dwordx4", 16}, {"dwordx3", 12}, {"dwordx2", 8}, {"dword", 4}, {"b128", 16}, {"b96", 12},
             {"b64", 8},      {"b32", 4},      {"b16", 2},     {"b8", 1},    {"ushort", 2}, {"sshort", 2},
             {"short", 2},    {"ubyte", 1},    {"sbyte", 1},   {"byte", 1},  {"u16", 2},    {"i16", 2},
             {"u8", 1},       {"i8", 1},       {"x2", 8},      {"f64", 8},   {"u64", 8},    {"i64", 8}};
  const char *best = NULL;
  int bytes = 0;
  /* the last matching suffix token in the mnemonic wins (ds_read_b64_tr_b16 is read first) */
  for (size_t i = 0; i < sizeof tab / sizeof tab[0]; i++) {
    const char *p = strstr(mn, tab[i].suffix);
    while (p) {
      /* a whole token: "_dwordx7" is no "dword" */
      char after = p[strlen(tab[i].suffix)];
      int at_token = p > mn && p[-1] == '_' && (after == '\0' || after == '_');
      if (at_token && (best == NULL || p < best)) best = p, bytes = tab[i].bytes;
      p = strstr(p + 1, tab[i].suffix);
    }
  }
  return bytes;
}

/* Bytes per lane: the type suffix's, else 4 (an atomic's u32 or f32, a format load's x).  A
 * 64-bit atomic says u64, i64, f64, b64 or x2 (ds_max_rtn_i64, global_atomic_add_u64 were read
 * as 4 bytes until u64 and i64 were in the table). */
static int width_of(const char *mn) {
  int w = width_in_name(mn);
  return w ? w : 4;
}

static int lds_width(const char *mn) {
  if (strstr(mn, "_tr_b16") || strstr(mn, "_tr_b8") || strstr(mn, "_tr_b4")) return 8;
  if (strstr(mn, "_tr_b6")) return 12;
  int w = width_of(mn);
  if (strstr(mn, "read2") || strstr(mn, "write2") || strstr(mn, "load_2") || strstr(mn, "store_2")) w *= 2;
  return w > 16 ? 16 : w;
}

/* ---- classification ------------------------------------------------------------------------- */

/* The count N of "NAME(N)" in ops: -1 when ops does not name it, -2 when N is not a whole
 * number from 0 to 63 (the widest of the counters: gfx9's lgkmcnt holds 4 bits, gfx10's 6),
 * written as llvm-mc takes it (decimal, 0x.. hex, 0.. octal: vmcnt(0x3f) was refused). */
static int wait_count(const char *ops, const char *name) {
  const char *p = strstr(ops, name);
  if (p == NULL) return -1;
  p += strlen(name);
  if (!isdigit((unsigned char)*p)) return -2;
  char *end;
  errno = 0;
  long v = strtol(p, &end, 0);
  return errno == 0 && *end == ')' && v <= 63 ? (int)v : -2;
}

/* s (blanks around it aside) as a whole number from 0 to max, written as C writes integers
 * (0x.., 0..), or -2. */
static int count_in(const char *s, long max) {
  while (isspace((unsigned char)*s)) s++;
  if (!isdigit((unsigned char)*s)) return -2;
  char *end;
  errno = 0;
  long v = strtol(s, &end, 0);
  while (isspace((unsigned char)*end)) end++;
  return errno == 0 && *end == '\0' && v <= max ? (int)v : -2;
}

/* A count it names that is not one is left at -2 (add_inst refuses the line): a count past the
 * counter's 6 bits, a negative one or one that is not a number (they were read as whatever
 * strtol made of them, "s_wait_kmcnt -1" as no wait). */
static void parse_waitcnt(const char *mn, const char *ops, fsim_asm_inst *in) {
  in->vmcnt = in->lgkmcnt = -1;
  if (strcmp(mn, "s_waitcnt") == 0) {
    in->vmcnt = wait_count(ops, "vmcnt(");
    in->lgkmcnt = wait_count(ops, "lgkmcnt(");
    if (in->vmcnt == -2 || in->lgkmcnt == -2) return;
    if (in->vmcnt < 0 && in->lgkmcnt < 0 && strchr(ops, '(') == NULL && *ops) {
      /* a raw immediate: gfx9 encoding, vmcnt [3:0]+[15:14], lgkmcnt [11:8] */
      long v = count_in(ops, 0xffff);
      if (v < 0) {
        in->vmcnt = -2;
        return;
      }
      int vm = (int)((v & 0xf) | ((v >> 14) & 3) << 4), lg = (int)((v >> 8) & 0xf);
      if (vm != 63) in->vmcnt = vm;
      if (lg != 15) in->lgkmcnt = lg;
    }
    return;
  }
  if (strcmp(mn, "s_wait_loadcnt") == 0 || strcmp(mn, "s_wait_storecnt") == 0) in->vmcnt = count_in(ops, 63);
  else if (strcmp(mn, "s_wait_dscnt") == 0 || strcmp(mn, "s_wait_kmcnt") == 0) in->lgkmcnt = count_in(ops, 63);
  else if (strcmp(mn, "s_wait_loadcnt_dscnt") == 0 || strcmp(mn, "s_wait_storecnt_dscnt") == 0) {
    int v = count_in(ops, 0x3f3f); /* the two counts in bits 13:8 and 5:0 */
    in->vmcnt = v < 0 || (v & 0xc0c0) ? -2 : (v >> 8) & 0x3f;
    in->lgkmcnt = v < 0 || (v & 0xc0c0) ? -2 : v & 0x3f;
  } else if (strcmp(mn, "s_waitcnt_vscnt") == 0 || strcmp(mn, "s_waitcnt_vmcnt") == 0) {
    const char *c = strchr(ops, ',');
    in->vmcnt = count_in(c ? c + 1 : ops, 63);
  } else if (strcmp(mn, "s_waitcnt_lgkmcnt") == 0) {
    const char *c = strchr(ops, ',');
    in->lgkmcnt = count_in(c ? c + 1 : ops, 63);
  }
}

/* One operand for the evaluator (asm.h: fsim_asm_opnd). */
static void eval_operand(const char *t, fsim_asm_opnd *o) {
  memset(o, 0, sizeof *o);
  o->kind = 'x';
  static const struct {
    const char *name;
    int slot, count;
  } special[] = {{"vcc", FSIM_ASM_SLOT_VCC, 2},     {"vcc_lo", FSIM_ASM_SLOT_VCC, 1},
                 {"vcc_hi", FSIM_ASM_SLOT_VCC + 1, 1}, {"exec", FSIM_ASM_SLOT_EXEC, 2},
                 {"exec_lo", FSIM_ASM_SLOT_EXEC, 1},   {"exec_hi", FSIM_ASM_SLOT_EXEC + 1, 1},
                 {"m0", FSIM_ASM_SLOT_M0, 1},          {"null", FSIM_ASM_SLOT_NULL, 1}};
  for (size_t i = 0; i < sizeof special / sizeof special[0]; i++)
    if (strcmp(t, special[i].name) == 0) {
      o->kind = 's', o->first = (int16_t)special[i].slot, o->count = (int16_t)special[i].count;
      return;
    }
  if ((t[0] == 's' || t[0] == 'v') && (t[1] == '[' || isdigit((unsigned char)t[1]))) {
    char *end;
    long lo, hi;
    if (t[1] == '[') {
      lo = strtol(t + 2, &end, 10);
      if (end == t + 2 || *end != ':') return;
      hi = strtol(end + 1, &end, 10);
      if (*end != ']' || end[1] != '\0') return;
    } else {
      lo = hi = strtol(t + 1, &end, 10);
      if (*end != '\0') return;
    }
    int limit = t[0] == 's' ? FSIM_ASM_SLOT_VCC : 1024;
    if (lo < 0 || hi < lo || hi >= limit) return;
    o->kind = t[0], o->first = (int16_t)lo, o->count = (int16_t)(hi - lo + 1);
    return;
  }
  const char *d = t[0] == '-' ? t + 1 : t;
  if (isdigit((unsigned char)d[0])) {
    char *end;
    unsigned long long v = strtoull(d, &end, 0);
    if (*end != '\0' || v > (unsigned long long)INT64_MAX) return; /* a float (1.0) or something else */
    o->kind = 'i';
    o->imm = t[0] == '-' ? -(int64_t)v : (int64_t)v;
  }
}

/* The first operands (comma-separated; what follows an operand after a space is a modifier). */
static void eval_operands(const char *ops, fsim_asm_inst *in) {
  in->nopnd = 0;
  const char *s = ops;
  while (*s && in->nopnd < FSIM_ASM_MAX_OPNDS) {
    while (isspace((unsigned char)*s)) s++;
    size_t n = strcspn(s, ", \t");
    char tok[64];
    snprintf(tok, sizeof tok, "%.*s", (int)(n < sizeof tok - 1 ? n : sizeof tok - 1), s);
    if (tok[0] == '\0') break;
    eval_operand(tok, &in->opnd[in->nopnd++]);
    const char *c = strchr(s, ',');
    if (c == NULL) break;
    s = c + 1;
  }
}

static int is_vmem(const char *mn) {
  return starts(mn, "buffer_") || starts(mn, "global_") || starts(mn, "flat_") || starts(mn, "scratch_");
}

/* A vector-memory mnemonic that neither loads, stores nor is an atomic: the cache controls
 * (buffer_wbl2, buffer_inv, buffer_invl2, buffer_wbinvl1, buffer_wbinvl1_vol, buffer_gl0_inv,
 * buffer_gl1_inv; gfx12's global_inv, global_wb, global_wbinv) and prefetches, which fill a
 * cache and no register.  They were read as 4-byte stores. */
static int moves_no_data(const char *mn) {
  return strstr(mn, "_load") == NULL && strstr(mn, "_store") == NULL && strstr(mn, "_atomic") == NULL;
}

/* VALU instructions whose second operand is a second destination, a carry-out or a flag
 * (VOP2's vcc, VOP3b's SGPR pair). */
static int has_carry_out(const char *mn) {
  static const char *const names[] = {"v_add_co_",     "v_sub_co_",     "v_subrev_co_",  "v_addc_co_", "v_subb_co_",
                                      "v_subbrev_co_", "v_mad_u64_u32", "v_mad_i64_i32", "v_div_scale_"};
  for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
    if (starts(mn, names[i])) return 1;
  return 0;
}

/* VALU instructions that accumulate into their destination, reading it (v_fmac_f32 v2, v5, v6
 * is v2 += v5 * v6) */
static int reads_own_dst(const char *mn) {
  return strstr(mn, "fmac") != NULL || strstr(mn, "_mac_") != NULL ||
         strstr(mn, "dot2c") != NULL || strstr(mn, "dot4c") != NULL || strstr(mn, "dot8c") != NULL;
}

/* Fills op, width, flags and the register operands; returns 0 if the mnemonic is unknown
 * (it is then a VALU). */
static int classify(fsim_asm_inst *in, const char *ops) {
  const char *mn = in->mnemonic;
  fsim_asm_reg regs[8];
  int nr = operand_regs(ops, regs, 8);
  int has_dst = 1, known = 1;
  int reads_dst = 0; /* the destination is a source too (a buffer atomic's returned data) */
  in->vmcnt = in->lgkmcnt = -1;
  in->target = -1;
  if (starts(mn, "v_mfma") || starts(mn, "v_smfmac") || starts(mn, "v_wmma") || starts(mn, "v_swmmac")) {
    in->op = FSIM_OP_MFMA;
    /* A's format (cbsz) and B's (blgp), which the f8f6f4 MFMAs' timing depends on: arg = A | B << 4 */
    const char *cb = strstr(ops, "cbsz:"), *bl = strstr(ops, "blgp:");
    int fa = cb ? atoi(cb + 5) : 0, fb = bl ? atoi(bl + 5) : 0;
    in->arg = (uint16_t)((fa < 0 || fa > 15 ? 15 : fa) | (fb < 0 || fb > 15 ? 15 : fb) << 4);
  } else if (starts(mn, "v_")) {
    in->op = FSIM_OP_VALU;
    /* a VOPC compare writes vcc, which LLVM prints as its first operand (v_cmp_gt_u32_e32 vcc,
     * s0, v0), or nothing it names (gfx10+'s v_cmpx writes exec): the first register is its
     * destination only when it is vcc (it was read as a source) */
    if (starts(mn, "v_cmp") && strstr(mn, "_e32") && !(nr > 0 && regs[0].file == 'c'))
      has_dst = 0;
    if (starts(mn, "v_nop")) has_dst = 0;
    if (reads_own_dst(mn)) reads_dst = 1; /* v_fmac_f32 v2, v5, v6 reads v2 (it was a source of nothing) */
    /* a second destination, the carry-out (v_add_co_u32_e32 v2, vcc, v0, v1; v_mad_u64_u32
     * v[8:9], s[6:7], v1, v2, v[8:9]; v_div_scale_f32 v1, vcc, v2, v2, v3): not a source (it
     * was, and it pushed the last real source out of the three kept); the wave program keeps
     * one destination, the first */
    if (has_dst && nr > 1 && has_carry_out(mn)) {
      memmove(&regs[1], &regs[2], (size_t)(nr - 2) * sizeof regs[0]);
      nr--;
    }
  } else if (starts(mn, "ds_")) {
    /* an LDS atomic with return (ds_add_rtn_u32) reads into its first operand as a read does */
    int rd = starts(mn, "ds_read") || starts(mn, "ds_load") || starts(mn, "ds_bpermute") || starts(mn, "ds_permute") ||
             starts(mn, "ds_swizzle") || strstr(mn, "_rtn") != NULL || starts(mn, "ds_append") ||
             starts(mn, "ds_consume"); /* the last two return the counter's value into their operand */
    in->op = rd ? FSIM_OP_LDS_READ : FSIM_OP_LDS_WRITE;
    in->width = (uint8_t)lds_width(mn);
    if (strstr(mn, "_tr_")) in->flags |= FSIM_IF_TRANSPOSE;
    in->pair = strstr(mn, "read2") || strstr(mn, "write2") || strstr(mn, "load_2") || strstr(mn, "store_2");
    has_dst = rd;
  } else if (is_vmem(mn) && moves_no_data(mn)) {
    /* a cache write-back or invalidate (the fences' buffer_wbl2 sc1, buffer_inv sc0 sc1; gfx12's
     * global_inv scope:SCOPE_SYS): no lane reads or writes memory, so it is no access of the
     * memory system, which is timed by the bytes it moves: one issue cycle, as s_nop 0 */
    in->op = FSIM_OP_NOP;
    in->arg = 1;
    nr = 0;
  } else if (is_vmem(mn)) {
    int load = strstr(mn, "_load") != NULL;
    size_t ol = strlen(ops);
    int lds = strstr(mn, "_lds") != NULL || (ol >= 3 && strcmp(ops + ol - 3, "lds") == 0) || strstr(ops, " lds ") != NULL;
    if (load && lds) {
      in->op = FSIM_OP_LOAD_LDS;
      has_dst = 0;
    } else if (load) {
      in->op = FSIM_OP_LOAD;
    } else {
      in->op = FSIM_OP_STORE; /* stores and atomics */
      has_dst = 0;
    }
    in->width = (uint8_t)width_of(mn);
    if (strstr(mn, "atomic")) {
      in->flags |= FSIM_IF_ATOMIC;
      /* with return: LLVM's AMDGPU syntax gives a vdst "if and only if" glc is specified up to
       * gfx90a, sc0 on gfx940 and later; gfx12 writes th:TH_ATOMIC_RETURN.  The returned value
       * goes to the first operand (a buffer atomic's data register, which it also reads) */
      if (has_word(ops, "glc") || has_word(ops, "sc0") || strstr(ops, "TH_ATOMIC_RETURN") != NULL) {
        has_dst = 1;
        reads_dst = starts(mn, "buffer_");
      }
    }
  } else if (starts(mn, "s_load") || starts(mn, "s_buffer_load") || starts(mn, "s_store") || starts(mn, "s_dcache") ||
             starts(mn, "s_memtime") || starts(mn, "s_memrealtime")) {
    in->op = FSIM_OP_SMEM;
    if (starts(mn, "s_store") || starts(mn, "s_dcache")) has_dst = 0;
  } else if (starts(mn, "s_wait_alu") || starts(mn, "s_wait_idle") || starts(mn, "s_wait_event")) {
    /* gfx12: ALU dependency and idle waits, not memory counters */
    in->op = FSIM_OP_NOP;
    in->arg = 1;
    nr = 0;
  } else if (starts(mn, "s_waitcnt") || starts(mn, "s_wait_")) {
    in->op = FSIM_OP_WAITCNT;
    parse_waitcnt(mn, ops, in);
    nr = 0;
  } else if (strcmp(mn, "s_barrier") == 0 || strcmp(mn, "s_barrier_wait") == 0) {
    in->op = FSIM_OP_BARRIER;
    nr = 0;
  } else if (strcmp(mn, "s_setprio") == 0) {
    /* the fields of the 16-bit immediate the hardware reads (ISA3/ISA4, the SOPP table):
     * SIMM16[1:0] the priority, s_nop's SIMM16[3:0] wait states less one, s_sleep's
     * SIMM16[6:0] x 64 clocks ("s_sleep 0" sleeps 0) */
    in->op = FSIM_OP_SETPRIO;
    in->arg = (uint16_t)((unsigned long)strtol(ops, NULL, 0) & 3);
    nr = 0;
  } else if (strcmp(mn, "s_nop") == 0 || strcmp(mn, "s_sleep") == 0 || strcmp(mn, "s_delay_alu") == 0) {
    in->op = FSIM_OP_NOP;
    unsigned long v = strcmp(mn, "s_delay_alu") == 0 ? 0 : (unsigned long)strtol(ops, NULL, 0);
    in->arg = strcmp(mn, "s_sleep") == 0 ? (uint16_t)(64 * (v & 127)) : (uint16_t)((v & 15) + 1);
    nr = 0;
  } else if (starts(mn, "s_branch") || starts(mn, "s_cbranch") || starts(mn, "s_setpc") || starts(mn, "s_swappc")) {
    in->op = FSIM_OP_BRANCH;
    nr = 0;
  } else if (starts(mn, "s_")) {
    in->op = FSIM_OP_SALU;
    if (starts(mn, "s_cmp") || starts(mn, "s_bitcmp") || starts(mn, "s_barrier") || starts(mn, "s_sendmsg") ||
        starts(mn, "s_setreg") || starts(mn, "s_set_") || starts(mn, "s_icache") || starts(mn, "s_trap"))
      has_dst = 0;
  } else {
    in->op = FSIM_OP_VALU;
    known = 0;
  }
  const char *dual = in->op == FSIM_OP_VALU && starts(mn, "v_dual_") ? strstr(ops, "::") : NULL;
  if (dual) {
    /* gfx11/gfx12 VOPD, two VALU ops issued as one ("v_dual_mul_f32 v0, v1, v2 :: v_dual_mov_b32
     * v3, v4"): X's destination, then the sources of both (Y's destination was read as a
     * source, and pushed Y's own sources out).  The wave program keeps one destination: X's,
     * widened to Y's when they are neighbours (the ISA puts one in an even and the other in an
     * odd VGPR), else Y's is not tracked */
    char xops[512], ymn[48];
    snprintf(xops, sizeof xops, "%.*s", (int)(dual - ops), ops);
    const char *yops = dual + 2;
    yops += strspn(yops, " \t");
    size_t yl = strcspn(yops, " \t");
    snprintf(ymn, sizeof ymn, "%.*s", (int)yl, yops);
    yops += yl; /* Y's mnemonic */
    fsim_asm_reg xr[4], yr[4];
    int nx = operand_regs(xops, xr, 4), ny = operand_regs(yops, yr, 4);
    if (nx > 0) {
      in->dst = xr[0];
      if (ny > 0 && yr[0].file == xr[0].file && xr[0].count == 1 && yr[0].count == 1 &&
          (yr[0].first == xr[0].first + 1 || yr[0].first == xr[0].first - 1)) {
        in->dst.first = xr[0].first < yr[0].first ? xr[0].first : yr[0].first;
        in->dst.count = 2;
      } else if (ny > 0) {
        in->dst2 = yr[0];
      }
    }
    /* each op's sources, then its destination where it accumulates into it (v_dual_fmac_f32) */
    for (int i = 1; i < nx && in->nsrc < FSIM_WP_MAX_SRC; i++) in->src[in->nsrc++] = xr[i];
    if (nx > 0 && reads_own_dst(mn) && in->nsrc < FSIM_WP_MAX_SRC) in->src[in->nsrc++] = xr[0];
    for (int i = 1; i < ny && in->nsrc < FSIM_WP_MAX_SRC; i++) in->src[in->nsrc++] = yr[i];
    if (ny > 0 && reads_own_dst(ymn) && in->nsrc < FSIM_WP_MAX_SRC) in->src[in->nsrc++] = yr[0];
    return known;
  }
  if (in->op == FSIM_OP_MFMA) {
    /* by position: D, A, B, C, and a scaled MFMA's scales of A and B (v_mfma_scale_*: VGPRs,
     * SGPRs or constants), which it reads as it reads A and B.  C may be a constant (0 on the
     * first K step): the wave-program form always has three sources, and reads D there.  (A
     * constant A or B, which the ISA does not allow, drops out.) */
    operand_reg_at(ops, 0, &in->dst);
    for (int k = 1; k <= 5; k++) {
      fsim_asm_reg r;
      if (operand_reg_at(ops, k, &r))
        in->src[in->nsrc++] = r;
      else if (k == 3)
        in->src[in->nsrc++] = in->dst;
    }
    return known;
  }
  int at = 0;
  if (has_dst && nr > 0) {
    in->dst = regs[at++];
    if (reads_dst) in->src[in->nsrc++] = in->dst;
  }
  for (; at < nr && in->nsrc < 3; at++) in->src[in->nsrc++] = regs[at];
  return known;
}

/* ---- the parser ----------------------------------------------------------------------------- */

typedef struct parser {
  fsim_asm_kernel *k;
  const char *source;
  fsim_err *e;
  label *labels;
  int nlabels, labels_cap;
  pending *pend;
  int npend, pend_cap;
  long long *addr;       /* per instruction: objdump address, -1 if none */
  int addr_cap;
  long long func_addr;   /* objdump: the kernel symbol's address; -2: its first instruction's, not yet seen */
  int pending_labels;    /* labels seen since the last instruction */
  int nall;              /* instructions parsed, padding after the end included (k->n: to the end) */
} parser;

static int is_ident(char c) { return isalnum((unsigned char)c) || c == '_' || c == '.' || c == '$'; }

/* "name:" in column 0 (not a local .L label) or objdump "0000... <name>:": the kernel name,
 * *n characters at *name in the line, and *addr objdump's address (-1: none).  objdump's
 * --no-leading-addr writes "<name>:" alone: *addr is then -2, the address of the kernel's first
 * instruction (the comments give each instruction's). */
static int function_start(const char *line, const char **name, size_t *n, long long *addr) {
  *addr = -1;
  if (line[0] == '<') {
    const char *gt = strstr(line + 1, ">:");
    if (gt == NULL || gt == line + 1 || gt[2 + strspn(gt + 2, " \t\r")] != '\0') return 0;
    *name = line + 1, *n = (size_t)(gt - line - 1);
    *addr = -2;
    return 1;
  }
  if (isxdigit((unsigned char)line[0])) {
    char *end;
    long long a = strtoll(line, &end, 16);
    if (end[0] == ' ' && end[1] == '<') {
      const char *s = end + 2, *gt = strstr(s, ">:");
      if (gt == NULL) return 0;
      *name = s, *n = (size_t)(gt - s);
      *addr = a;
      return 1;
    }
  }
  if (line[0] == '.' || line[0] == ';' || line[0] == '#' || !is_ident(line[0]) || isdigit((unsigned char)line[0]))
    return 0;
  const char *c = line;
  while (is_ident(*c)) c++;
  if (*c != ':') return 0;
  for (const char *r = c + 1; *r; r++)
    if (!isspace((unsigned char)*r) && *r != ';') return 0;
    else if (*r == ';') break;
  *name = line, *n = (size_t)(c - line);
  return 1;
}

/* "SOURCE:LINE: fmt" and the first n characters of arg (n < 0: all of it). */
static fsim_status perr_n(parser *p, int line, const char *fmt, const char *arg, int n) {
  if (arg == NULL) arg = "", n = 0;
  return fsim__err_set(p->e, FSIM_EINVAL, __FILE__, __LINE__, "%s:%d: %s%.*s", p->source, line, fmt,
                       n < 0 ? (int)strlen(arg) : n, arg);
}

static fsim_status perr(parser *p, int line, const char *fmt, const char *arg) { return perr_n(p, line, fmt, arg, -1); }

/* Whether the n characters at s are a label's name as the assembler takes it unquoted: a letter,
 * '_', '.' or '$', then those and digits. */
static int is_label_name(const char *s, size_t n) {
  if (n == 0 || isdigit((unsigned char)s[0])) return 0;
  for (size_t i = 0; i < n; i++)
    if (!is_ident(s[i])) return 0;
  return 1;
}

/* The operands of the text's s_branch and s_cbranch instructions, each up to a blank, comma
 * or line end, listed once (a kernel's column-0 names each looked through the whole text). */
typedef struct branch_names {
  const char **at;
  size_t *len;
  int n, cap;
  int built;
} branch_names;

static int branch_names_build(branch_names *b, const char *text) {
  b->built = 1;
  for (const char *l = text; l != NULL && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
    const char *c = l + strspn(l, " \t");
    if (!starts(c, "s_branch") && !starts(c, "s_cbranch")) continue;
    c += strcspn(c, " \t\n");
    c += strspn(c, " \t");
    size_t len = 0;
    while (is_ident(c[len])) len++;
    if (len == 0) continue;
    if (b->n == b->cap) {
      int nc = b->cap ? 2 * b->cap : 64;
      const char **na = realloc(b->at, (size_t)nc * sizeof *na);
      if (na == NULL) return -1;
      b->at = na;
      size_t *nl = realloc(b->len, (size_t)nc * sizeof *nl);
      if (nl == NULL) return -1;
      b->len = nl;
      b->cap = nc;
    }
    b->at[b->n] = c, b->len[b->n] = len, b->n++;
  }
  return 0;
}

/* Whether an s_branch or s_cbranch in the text branches to the label named by the n characters
 * at name: such a label in column 0 ("myloop:") belongs to the kernel, where a name in column 0
 * that no branch names starts the next kernel.  -1: out of memory. */
static int branched_to(branch_names *b, const char *text, const char *name, size_t n) {
  if (!b->built && branch_names_build(b, text) != 0) return -1;
  for (int i = 0; i < b->n; i++)
    if (b->len[i] == n && memcmp(b->at[i], name, n) == 0) return 1;
  return 0;
}

static fsim_status add_label(parser *p, const char *name, int len, int line) {
  if (grow((void **)&p->labels, &p->labels_cap, p->nlabels + 1, sizeof *p->labels))
    return FSIM_ERR(p->e, FSIM_ENOMEM, "out of memory");
  p->labels[p->nlabels++] = (label){name, len, p->k->n, line};
  return FSIM_OK;
}

/* The target of the branch at `line` (`what`: the instruction): objdump's address, or the label
 * its operand names (text: the operand in the text, copy: the same in the line's copy).  An
 * operand that is neither is an error at the line: the branch went nowhere. */
static fsim_status add_branch(parser *p, const char *copy, const char *text, long long target, int line,
                              const char *what) {
  size_t n = strcspn(copy, " \t,");
  if (target < 0 && !is_label_name(copy, n))
    return perr(p, line, "a branch target that is neither a label nor objdump's <KERNEL+0xOFFSET>: ", what);
  if (grow((void **)&p->pend, &p->pend_cap, p->npend + 1, sizeof *p->pend))
    return FSIM_ERR(p->e, FSIM_ENOMEM, "out of memory");
  p->pend[p->npend++] = (pending){p->k->n, target < 0 ? text : NULL, target < 0 ? (int)n : 0, target};
  return FSIM_OK;
}

/* One line of the kernel: `body`, a copy of `text` (the line in the text) that it may modify. */
static fsim_status add_inst(parser *p, char *body, const char *text, int line) {
  fsim_asm_kernel *k = p->k;
  /* objdump: "mnemonic ops   // 000000001608: HEX <k+0x68>" */
  long long addr = -1, target = -1;
  char *cm = strstr(body, "//");
  if (cm) {
    char *end;
    long long a = strtoll(cm + 2, &end, 16);
    if (end != cm + 2 && *end == ':') addr = a;
    if (addr >= 0 && p->func_addr == -2) p->func_addr = addr; /* "<name>:" without an address */
    char *lt = strchr(cm, '<');
    if (lt && p->func_addr >= 0) {
      char *plus = strstr(lt, "+0x");
      if (plus && strchr(plus, '>')) target = p->func_addr + strtoll(plus + 3, NULL, 16);
      else if (strchr(lt, '>')) target = p->func_addr;
    }
    *cm = '\0';
  }
  char *sc = strchr(body, ';');
  if (sc) *sc = '\0';
  char *s = body;
  while (isspace((unsigned char)*s)) s++;
  size_t L = strlen(s);
  while (L > 0 && isspace((unsigned char)s[L - 1])) s[--L] = '\0';
  if (L == 0) return FSIM_OK;
  if (s[L - 1] == ':') /* a label (".LBB0_3:", "myloop:"), or a form the reader does not take */
    return is_label_name(s, L - 1) ? add_label(p, text + (s - body), (int)(L - 1), line) : FSIM_OK;
  if (s[0] == '.') return FSIM_OK; /* a directive */
  if (grow((void **)&k->inst, &k->cap, k->n + 1, sizeof *k->inst) ||
      grow((void **)&p->addr, &p->addr_cap, k->n + 1, sizeof *p->addr))
    return FSIM_ERR(p->e, FSIM_ENOMEM, "out of memory");
  fsim_asm_inst *in = &k->inst[k->n];
  memset(in, 0, sizeof *in);
  in->line = line;
  const char *ms = s;
  while (*s && !isspace((unsigned char)*s)) s++;
  snprintf(in->mnemonic, sizeof in->mnemonic, "%.*s", (int)(s - ms), ms);
  while (isspace((unsigned char)*s)) s++;
  if (!classify(in, s)) k->unknown++;
  /* control the reader cannot follow: a call runs instructions of another function, which the
   * wave program would leave out (they were read as a plain branch, silently) */
  if (starts(in->mnemonic, "s_swappc") || starts(in->mnemonic, "s_call"))
    return perr(p, line, "a function call, which the reader does not follow (the callee's instructions would be left "
                "out; make the callee inline): ", ms);
  if (starts(in->mnemonic, "s_setpc"))
    return perr(p, line, "a return or jump to a computed address, which the reader does not follow (a function that "
                "is not a kernel ends so; give the kernel with --kernel): ", ms);
  if (in->op == FSIM_OP_WAITCNT && (in->vmcnt == -2 || in->lgkmcnt == -2))
    return perr(p, line, "a wait count that is not a whole number from 0 to 63: ", ms);
  char badr[64];
  if (in->op != FSIM_OP_WAITCNT && bad_reg(s, badr, sizeof badr))
    return perr(p, line, "a register operand that is not vN, aN, sN or X[LO:HI] with 0 <= LO <= HI <= 1023: ", badr);
  if (in->op == FSIM_OP_MFMA && strstr(in->mnemonic, "f8f6f4") && ((in->arg & 15) > 4 || (in->arg >> 4) > 4))
    return perr(p, line, "cbsz and blgp give A's and B's formats, from 0 (fp8) to 4 (fp4): ", ms);
  eval_operands(s, in);
  /* what the simulator times is read from the line, not guessed: an audit's made-up
   * ds_read_b12 and global_load_dwordx7 ran as 4-byte accesses, a load with no destination
   * and an MFMA with neither B nor C as if they had them (and --print wrote them out as
   * programs the wave-program reader refuses) */
  {
    const char *mn = in->mnemonic;
    int lds = starts(mn, "ds_read") || starts(mn, "ds_load") || starts(mn, "ds_write") || starts(mn, "ds_store");
    int vmem = is_vmem(mn) && (strstr(mn, "_load") || strstr(mn, "_store")) && !strstr(mn, "atomic") &&
               !strstr(mn, "format");
    if ((lds || vmem) && width_in_name(mn) == 0)
      return perr(p, line, "the access width is not in the mnemonic (b32, b64, b128, dword, dwordx4, ...): ", ms);
    /* the data and the address; scratch's address may be a constant ("scratch_store_dwordx4
     * off, v[2:5], off offset:16"), and an addtid access's is the lane's id */
    fsim_asm_reg regs[4];
    int need = strstr(mn, "_addtid") || starts(mn, "scratch_") ? 1 : 2;
    if ((lds || (vmem && in->op != FSIM_OP_LOAD_LDS)) && operand_regs(s, regs, 4) < need)
      return perr(p, line, need == 1 ? "expected a data register: " : "expected a data register and an address register: ",
                  ms);
    fsim_asm_reg r;
    if (in->op == FSIM_OP_MFMA &&
        (in->nopnd < 4 || !operand_reg_at(s, 0, &r) || !operand_reg_at(s, 1, &r) || !operand_reg_at(s, 2, &r)))
      return perr(p, line, "expected D, A, B and C operands (D, A and B registers): ", ms);
  }
  p->addr[k->n] = addr;
  /* s_cbranch_join and the forks (gfx9 and before; no compiler emits them) take registers */
  if (in->op == FSIM_OP_BRANCH && (starts(in->mnemonic, "s_branch") || starts(in->mnemonic, "s_cbranch")) &&
      !strstr(in->mnemonic, "join") && !strstr(in->mnemonic, "fork")) {
    fsim_status st = add_branch(p, s, text + (s - body), target, line, ms);
    if (st != FSIM_OK) return st;
  }
  for (int i = -1; i <= in->nsrc; i++) {
    const fsim_asm_reg *r = i < 0 ? &in->dst2 : i == 0 ? &in->dst : &in->src[i - 1];
    int top = r->first + r->count;
    if (r->file == 'v' && top > k->max_vgpr) k->max_vgpr = top;
    if (r->file == 'a' && top > k->max_agpr) k->max_agpr = top;
    if (r->file == 's' && top > k->max_sgpr) k->max_sgpr = top;
  }
  k->n++;
  return FSIM_OK;
}

/* Basic blocks, their successors and their immediate dominators.  A backward branch closes a
 * loop when the loop's header, the nearest block that dominates both the branch and its target,
 * lies between the two (the target itself for a loop entered at its top; a block further down
 * for a rotated loop, entered in the middle): then the branch is the loop's back edge, or
 * closes the cycle through that header.  A header before the target means that the branch
 * jumps back inside an enclosing loop, from a block the compiler placed out of line to where
 * the loop's straight code continues (a cold `if` inside a loop, clang's -O0 loops): no loop
 * of its own.  A cycle that no block dominates (irreducible control flow) keeps the older
 * reading, a loop from the target to the branch. */
typedef struct cfg {
  int nb;
  int *start;     /* first instruction of each block */
  int *block_of;  /* per instruction */
  int (*succ)[2]; /* per block: up to two successors, -1 for none */
  int *idom;      /* per block: immediate dominator (the entry's is itself), -1 when unreachable */
  int *order;     /* per block: reverse postorder number from the entry, -1 when unreachable */
  int *tin, *tout; /* per block: entry and exit numbers in the dominator tree, -1 when unreachable */
  char *head;     /* per block: 1 for a loop header (an edge into it from a block it dominates) */
  int *pred_at;   /* per block: its first entry in pred; nb + 1 entries */
  int *pred;      /* predecessors, by block */
  char *seen;     /* search scratch */
  int *stack;
} cfg;

static int is_uncond(const fsim_asm_inst *in) { return strncmp(in->mnemonic, "s_branch", 8) == 0; }
/* An s_endpgm before the end (an early return, or the end of the code before blocks placed
 * past it): the wave ends there, its block has no successor. */
static int is_end(const fsim_asm_inst *in) { return strcmp(in->mnemonic, "s_endpgm") == 0; }
static int is_branch(const fsim_asm_inst *in) {
  return strncmp(in->mnemonic, "s_branch", 8) == 0 || strncmp(in->mnemonic, "s_cbranch", 9) == 0;
}

/* Numbers the blocks reachable from the entry in reverse postorder (g->order) and lists them
 * in that order in rpo; returns how many.  An iterative depth-first search: stack holds blocks,
 * seen[b] how many of b's successors have been visited plus one. */
static int cfg_reverse_postorder(cfg *g, int *rpo) {
  if (g->nb <= 0) return 0;
  memset(g->seen, 0, (size_t)g->nb);
  for (int b = 0; b < g->nb; b++) g->order[b] = -1;
  int sp = 0, post = 0;
  g->stack[sp++] = 0;
  g->seen[0] = 1;
  while (sp > 0) {
    int b = g->stack[sp - 1];
    if (g->seen[b] <= 2) {
      int s2 = g->succ[b][g->seen[b] - 1];
      g->seen[b]++;
      if (s2 >= 0 && !g->seen[s2]) g->seen[s2] = 1, g->stack[sp++] = s2;
      continue;
    }
    sp--;
    rpo[post++] = b; /* postorder for now */
  }
  for (int i = 0; i < post / 2; i++) {
    int x = rpo[i];
    rpo[i] = rpo[post - 1 - i];
    rpo[post - 1 - i] = x;
  }
  for (int i = 0; i < post; i++) g->order[rpo[i]] = i;
  return post;
}

/* The nearest common dominator of blocks a and b, both reachable (Cooper, Harvey and Kennedy,
 * "A Simple, Fast Dominance Algorithm": walk up the tree from the later one in reverse
 * postorder). */
static int cfg_common_dominator(const cfg *g, int a, int b) {
  while (a != b) {
    while (g->order[a] > g->order[b]) a = g->idom[a];
    while (g->order[b] > g->order[a]) b = g->idom[b];
  }
  return a;
}

/* Immediate dominators of the blocks reachable from the entry (the same paper's iteration over
 * the blocks in reverse postorder, each taking the common dominator of its predecessors). */
static int cfg_dominators(cfg *g) {
  size_t nb = (size_t)g->nb + 1;
  int *rpo = malloc(nb * sizeof *rpo), *first = calloc(nb + 1, sizeof *first), *pred = malloc(2 * nb * sizeof *pred);
  if (rpo == NULL || first == NULL || pred == NULL) return free(rpo), free(first), free(pred), -1;
  g->pred_at = first; /* cfg_free frees them */
  g->pred = pred;
  /* predecessors: those of block b are pred[first[b] .. first[b + 1]) */
  for (int b = 0; b < g->nb; b++)
    for (int q = 0; q < 2; q++)
      if (g->succ[b][q] >= 0) first[g->succ[b][q] + 2]++;
  for (int b = 0; b < g->nb; b++) first[b + 2] += first[b + 1];
  for (int b = 0; b < g->nb; b++)
    for (int q = 0; q < 2; q++)
      if (g->succ[b][q] >= 0) pred[first[g->succ[b][q] + 1]++] = b;
  int nr = cfg_reverse_postorder(g, rpo);
  for (int b = 0; b < g->nb; b++) g->idom[b] = -1;
  if (nr > 0) g->idom[0] = 0;
  for (int changed = 1; changed;) {
    changed = 0;
    for (int i = 1; i < nr; i++) {
      int b = rpo[i], nd = -1;
      for (int j = first[b]; j < first[b + 1]; j++)
        if (g->idom[pred[j]] >= 0) nd = nd < 0 ? pred[j] : cfg_common_dominator(g, pred[j], nd);
      if (nd != g->idom[b]) g->idom[b] = nd, changed = 1;
    }
  }
  free(rpo);
  return 0;
}

/* Whether block h dominates block b (both reachable), in constant time by their dominator-tree
 * numbers. */
static int dominates(const cfg *g, int h, int b) {
  return g->tin[h] >= 0 && g->tin[b] >= 0 && g->tin[h] <= g->tin[b] && g->tout[b] <= g->tout[h];
}

/* The dominator tree's entry and exit numbers (g->tin, g->tout) by an iterative depth-first
 * walk from the entry, and the loop headers (g->head). */
static int cfg_tree(cfg *g) {
  int nb = g->nb;
  g->tin = malloc(((size_t)nb + 1) * sizeof *g->tin);
  g->tout = malloc(((size_t)nb + 1) * sizeof *g->tout);
  g->head = calloc((size_t)nb + 1, 1);
  int *child = malloc(((size_t)nb + 1) * sizeof *child), *sib = malloc(((size_t)nb + 1) * sizeof *sib);
  if (g->tin == NULL || g->tout == NULL || g->head == NULL || child == NULL || sib == NULL)
    return free(child), free(sib), -1;
  for (int b = 0; b < nb; b++) child[b] = sib[b] = g->tin[b] = g->tout[b] = -1;
  for (int b = nb - 1; b >= 0; b--)
    if (g->idom[b] >= 0 && g->idom[b] != b) sib[b] = child[g->idom[b]], child[g->idom[b]] = b;
  if (nb > 0 && g->idom[0] == 0) {
    int sp = 0, clock = 0;
    g->stack[sp++] = 0;
    g->tin[0] = clock++;
    while (sp > 0) {
      int x = g->stack[sp - 1], c = child[x]; /* child[x]: the next child of x to visit */
      if (c >= 0) {
        child[x] = sib[c];
        g->tin[c] = clock++;
        g->stack[sp++] = c;
      } else {
        g->tout[x] = clock++;
        sp--;
      }
    }
  }
  free(child);
  free(sib);
  for (int u = 0; u < nb; u++)
    for (int q = 0; q < 2; q++) {
      int h = g->succ[u][q];
      if (h >= 0 && dominates(g, h, u)) g->head[h] = 1;
    }
  return 0;
}

static int cfg_build(const fsim_asm_kernel *k, cfg *g) {
  memset(g, 0, sizeof *g);
  int n = k->n;
  char *leader = calloc((size_t)n + 1, 1);
  g->block_of = malloc(((size_t)n + 1) * sizeof *g->block_of);
  g->start = malloc(((size_t)n + 1) * sizeof *g->start);
  g->succ = malloc(((size_t)n + 1) * sizeof *g->succ);
  g->idom = malloc(((size_t)n + 1) * sizeof *g->idom);
  g->order = malloc(((size_t)n + 1) * sizeof *g->order);
  g->seen = malloc((size_t)n + 1);
  g->stack = malloc(((size_t)n + 1) * sizeof *g->stack);
  if (leader == NULL || !g->block_of || !g->start || !g->succ || !g->idom || !g->order || !g->seen || !g->stack)
    return free(leader), -1;
  if (n > 0) leader[0] = 1;
  for (int i = 0; i < n; i++)
    if (is_branch(&k->inst[i]) || is_end(&k->inst[i])) {
      if (i + 1 < n) leader[i + 1] = 1;
      if (k->inst[i].target >= 0 && k->inst[i].target < n) leader[k->inst[i].target] = 1;
    }
  for (int i = 0; i < n; i++) {
    if (leader[i]) g->start[g->nb++] = i;
    g->block_of[i] = g->nb - 1;
  }
  free(leader);
  for (int b = 0; b < g->nb; b++) {
    const fsim_asm_inst *in = &k->inst[(b + 1 < g->nb ? g->start[b + 1] : n) - 1];
    int ns = 0;
    g->succ[b][0] = g->succ[b][1] = -1;
    if (!(is_branch(in) && is_uncond(in)) && !is_end(in) && b + 1 < g->nb) g->succ[b][ns++] = b + 1;
    if (is_branch(in) && in->target >= 0 && in->target < n) g->succ[b][ns++] = g->block_of[in->target];
  }
  return cfg_dominators(g) != 0 ? -1 : cfg_tree(g);
}

/* Whether a path leads from block `from` to block `to` (taking at least one edge), through
 * blocks that block `within` dominates when it is not -1. */
static int reaches_within(cfg *g, int from, int to, int within) {
  memset(g->seen, 0, (size_t)g->nb);
  int sp = 0;
  g->stack[sp++] = from;
  g->seen[from] = 1;
  while (sp > 0) {
    int b = g->stack[--sp];
    for (int q = 0; q < 2; q++) {
      int s2 = g->succ[b][q];
      if (s2 < 0) continue;
      if (s2 == to) return 1;
      if (!g->seen[s2] && (within < 0 || dominates(g, within, s2))) g->seen[s2] = 1, g->stack[sp++] = s2;
    }
  }
  return 0;
}

static int reaches(cfg *g, int from, int to) { return reaches_within(g, from, to, -1); }

/* Whether block b lies in the natural loop of header h: a path from b through blocks that h
 * dominates comes back to h (so h is a loop's header, and b in its body). */
static int in_natural_loop(cfg *g, int h, int b) { return dominates(g, h, b) && reaches_within(g, b, h, h); }

/* Whether the backward branch from block `from` to block `to` (to <= from) closes a loop (the
 * comment of struct cfg): -1 if not, else the loop's key.  The key is the header of the
 * innermost natural loop holding both blocks, so that the backward branches of one loop make
 * one loop: clang lays out an outer loop with its latch falling through into its header and
 * blocks of its body above the header, each branched back to (they were loops of their own,
 * which overlapped: "irreducible").  Where no natural loop holds both (code no path reaches,
 * irreducible control flow) it is nb + to: one loop per target, as before. */
static int closes_loop(cfg *g, int from, int to) {
  if (to != from && !reaches(g, to, from)) return -1; /* no cycle runs through it */
  if (g->idom[from] < 0 || g->idom[to] < 0) return g->nb + to; /* code no path reaches: the cycle decides */
  int head = cfg_common_dominator(g, from, to);
  if (!(head >= to && head <= from) && reaches(g, to, head)) return -1; /* back inside an enclosing loop */
  for (int h = from;; h = g->idom[h]) {
    if (g->head[h] && in_natural_loop(g, h, from) && in_natural_loop(g, h, to)) return h;
    if (g->idom[h] == h) break;
  }
  return g->nb + to; /* no loop through a header encloses it: irreducible */
}

/* Marks in g->seen the blocks of the natural loop of header h: h and the blocks from which a
 * path through blocks h dominates returns to it, found backwards from its back edges (a
 * block's predecessors, not passing h). */
static void natural_loop(cfg *g, int h) {
  memset(g->seen, 0, (size_t)g->nb);
  int sp = 0;
  g->seen[h] = 1;
  for (int j = g->pred_at[h]; j < g->pred_at[h + 1]; j++) {
    int u = g->pred[j];
    if (dominates(g, h, u) && !g->seen[u]) g->seen[u] = 1, g->stack[sp++] = u;
  }
  while (sp > 0) {
    int b = g->stack[--sp];
    for (int j = g->pred_at[b]; j < g->pred_at[b + 1]; j++) {
      int u = g->pred[j];
      if (!g->seen[u] && dominates(g, h, u)) g->seen[u] = 1, g->stack[sp++] = u;
    }
  }
}

static void cfg_free(cfg *g) {
  free(g->pred_at);
  free(g->pred);
  free(g->start);
  free(g->block_of);
  free(g->succ);
  free(g->idom);
  free(g->order);
  free(g->tin);
  free(g->tout);
  free(g->head);
  free(g->seen);
  free(g->stack);
}

static int name_cmp(const char *a, int na, const char *b, int nb) {
  int c = memcmp(a, b, (size_t)(na < nb ? na : nb));
  return c ? c : (na > nb) - (na < nb);
}

static int label_cmp(const void *x, const void *y) {
  const label *a = x, *b = y;
  int c = name_cmp(a->name, a->len, b->name, b->len);
  return c ? c : (a->line > b->line) - (a->line < b->line);
}

static fsim_status resolve(parser *p) {
  fsim_asm_kernel *k = p->k;
  /* the labels by name (then line): one defined twice is an error (it was taken, and a branch
   * went to the first), and a branch finds its target by a binary search */
  if (p->nlabels > 1) qsort(p->labels, (size_t)p->nlabels, sizeof *p->labels, label_cmp);
  for (int j = 1; j < p->nlabels; j++)
    if (name_cmp(p->labels[j - 1].name, p->labels[j - 1].len, p->labels[j].name, p->labels[j].len) == 0) {
      char why[96];
      snprintf(why, sizeof why, "a label defined twice (first on line %d): ", p->labels[j - 1].line);
      return perr_n(p, p->labels[j].line, why, p->labels[j].name, p->labels[j].len);
    }
  /* targets over all the instructions parsed: -2 for a label the kernel does not define */
  int *tgt = malloc(((size_t)p->npend + 1) * sizeof *tgt);
  if (tgt == NULL) return FSIM_ERR(p->e, FSIM_ENOMEM, "out of memory");
  for (int i = 0; i < p->npend; i++) {
    const pending *pd = &p->pend[i];
    int t = -1;
    if (pd->addr >= 0) {
      for (int j = 0; j < p->nall && t < 0; j++)
        if (p->addr[j] == pd->addr) t = j;
    } else if (pd->label) {
      int lo = 0, hi = p->nlabels; /* the first label not before the target's name */
      while (lo < hi) {
        int mid = (lo + hi) / 2;
        if (name_cmp(p->labels[mid].name, p->labels[mid].len, pd->label, pd->label_len) < 0) lo = mid + 1;
        else hi = mid;
      }
      t = lo < p->nlabels && name_cmp(p->labels[lo].name, p->labels[lo].len, pd->label, pd->label_len) == 0
              ? p->labels[lo].inst
              : -2;
    }
    tgt[i] = t;
  }
  /* Blocks past the last s_endpgm that a branch before the end reaches are code, not padding
   * (clang -O0 places the block of a loop's `break` there; the branch to it was read as
   * leaving the kernel): the program runs on to the first s_endpgm or s_branch after them. */
  for (int grew = 1; grew;) {
    grew = 0;
    for (int i = 0; i < p->npend; i++) {
      int t = tgt[i];
      if (p->pend[i].inst >= k->n || t < k->n || t >= p->nall || (t == k->n && is_end(&k->inst[t]))) continue;
      int j = t;
      while (j < p->nall && strcmp(k->inst[j].mnemonic, "s_endpgm") != 0 && !is_uncond(&k->inst[j])) j++;
      k->n = j < p->nall && is_uncond(&k->inst[j]) ? j + 1 : j; /* an s_endpgm at j ends it, cut as before */
      grew = 1;
    }
  }
  for (int i = 0; i < p->npend; i++) {
    const pending *pd = &p->pend[i];
    if (pd->inst >= k->n) continue; /* padding after the end */
    if (tgt[i] == -2) {
      free(tgt);
      return perr_n(p, k->inst[pd->inst].line, "a branch to a label the kernel does not define: ", pd->label,
                    pd->label_len);
    }
    /* the end (index k->n, a cut s_endpgm) is a target too */
    k->inst[pd->inst].target = tgt[i] <= k->n ? tgt[i] : -1;
  }
  free(tgt);
  cfg g;
  if (cfg_build(k, &g) != 0) {
    cfg_free(&g);
    return FSIM_ERR(p->e, FSIM_ENOMEM, "out of memory");
  }
  int key[FSIM_ASM_MAX_LOOPS];
  for (int i = 0; i < k->n; i++) {
    int t = k->inst[i].target;
    if (!is_branch(&k->inst[i]) || t < 0 || t > i) continue;
    int kl = closes_loop(&g, g.block_of[i], g.block_of[t]);
    if (kl < 0) continue;
    /* a loop is its header: several backward branches in it (latches, and branches to blocks
     * placed above the header) make one loop, from the highest target to the last branch */
    int same = -1;
    for (int l = 0; l < k->nloops && same < 0; l++)
      if (key[l] == kl) same = l;
    if (same >= 0) {
      if (i > k->loops[same].end) k->loops[same].end = i;
      if (t < k->loops[same].begin) k->loops[same].begin = t;
      continue;
    }
    if (k->nloops == FSIM_ASM_MAX_LOOPS) {
      cfg_free(&g);
      char why[96];
      snprintf(why, sizeof why, "more than %d loops, the most the reader keeps", FSIM_ASM_MAX_LOOPS);
      return perr(p, k->inst[i].line, why, NULL);
    }
    key[k->nloops] = kl;
    k->loops[k->nloops].begin = t;
    k->loops[k->nloops].end = i;
    k->nloops++;
  }
  /* A loop's range: clang can place blocks of a natural loop past its last backward branch
   * (the inner loop of a three-deep nest whose middle loop returns to the outer latch, placed
   * above the outer header; a `break` or `return` in the inner loop of a two-deep nest; every
   * -O0 nest, and its latch blocks), which then fell outside the range, so that the loops
   * overlapped and the kernel was refused as irreducible, or the inner loop was read as a loop
   * of its own after the outer one and not walked (an audit).  So the range covers every
   * block of the natural loop, unless that would reach a loop whose header lies outside it
   * (a cold block placed past the next loop); then it grows only to hold the loops whose
   * headers lie inside it. */
  {
    char inside[FSIM_ASM_MAX_LOOPS][FSIM_ASM_MAX_LOOPS]; /* [l][m]: m's header is in l's natural loop */
    int lo[FSIM_ASM_MAX_LOOPS], hi[FSIM_ASM_MAX_LOOPS];
    for (int l = 0; l < k->nloops; l++) {
      k->loops[l].head = key[l] < g.nb ? g.start[key[l]] : k->loops[l].begin;
      lo[l] = k->loops[l].begin, hi[l] = k->loops[l].end;
      if (key[l] < g.nb) {
        natural_loop(&g, key[l]);
        for (int b = 0; b < g.nb; b++)
          if (g.seen[b]) {
            int last = (b + 1 < g.nb ? g.start[b + 1] : k->n) - 1;
            if (g.start[b] < lo[l]) lo[l] = g.start[b];
            if (last > hi[l]) hi[l] = last;
          }
      }
      for (int m = 0; m < k->nloops; m++) inside[l][m] = key[l] < g.nb && m != l && key[m] < g.nb && g.seen[key[m]];
    }
    /* each loop's widening is weighed against the others' ranges as found, not as widened
     * earlier in this pass, so that the order of the loops changes nothing (an audit) */
    int ob[FSIM_ASM_MAX_LOOPS], oe[FSIM_ASM_MAX_LOOPS];
    for (int l = 0; l < k->nloops; l++) ob[l] = k->loops[l].begin, oe[l] = k->loops[l].end;
    for (int l = 0; l < k->nloops; l++) {
      int clash = 0;
      for (int m = 0; m < k->nloops; m++) /* a loop that holds l's natural loop holds its blocks */
        clash |= m != l && !inside[l][m] && !inside[m][l] && ob[m] <= hi[l] && oe[m] >= lo[l] &&
                 !(ob[m] <= lo[l] && oe[m] >= hi[l]);
      if (!clash) k->loops[l].begin = lo[l], k->loops[l].end = hi[l];
    }
    for (int grew = 1; grew;) {
      grew = 0;
      for (int l = 0; l < k->nloops; l++)
        for (int m = 0; m < k->nloops; m++) {
          fsim_asm_loop *x = &k->loops[l];
          const fsim_asm_loop *y = &k->loops[m];
          if (!inside[l][m] || (y->begin >= x->begin && y->end <= x->end)) continue;
          if (y->begin < x->begin) x->begin = y->begin;
          if (y->end > x->end) x->end = y->end;
          grew = 1;
        }
    }
  }
  /* sort by begin (outer first on ties), the keys along, then check nesting */
  for (int i = 1; i < k->nloops; i++) {
    fsim_asm_loop x = k->loops[i];
    int kx = key[i], j = i;
    while (j > 0 && (k->loops[j - 1].begin > x.begin || (k->loops[j - 1].begin == x.begin && k->loops[j - 1].end < x.end))) {
      k->loops[j] = k->loops[j - 1];
      key[j] = key[j - 1];
      j--;
    }
    k->loops[j] = x;
    key[j] = kx;
  }
  for (int i = 0; i < k->n; i++) k->inst[i].natural = 0;
  for (int l = 0; l < k->nloops; l++) {
    if (key[l] < g.nb) {
      natural_loop(&g, key[l]);
      for (int i = 0; i < k->n; i++)
        if (g.seen[g.block_of[i]]) k->inst[i].natural |= (uint16_t)(1u << l);
    } else {
      for (int i = k->loops[l].begin; i <= k->loops[l].end; i++) k->inst[i].natural |= (uint16_t)(1u << l);
    }
  }
  cfg_free(&g);
  for (int i = 0; i < k->nloops; i++)
    for (int j = i + 1; j < k->nloops; j++) {
      const fsim_asm_loop *a = &k->loops[i], *b = &k->loops[j];
      int disjoint = b->begin > a->end, inside = b->begin >= a->begin && b->end <= a->end;
      if (!disjoint && !inside)
        return perr(p, k->inst[b->end].line, "loops overlap without nesting (irreducible control flow)", NULL);
    }
  return FSIM_OK;
}

/* The LDS bytes the kernel descriptor of `name` allocates (`.amdhsa_kernel NAME` ...
 * `.amdhsa_group_segment_fixed_size N`, as clang -S writes it) into *bytes, -1 if the text has
 * none; a value that is not a whole number from 0 to 2^31 - 1 is an error at its line. */
static fsim_status descriptor_lds(parser *p, const char *text, const char *name, int64_t *bytes) {
  *bytes = -1;
  size_t nl = strlen(name);
  for (const char *s = strstr(text, ".amdhsa_kernel "); s; s = strstr(s + 1, ".amdhsa_kernel ")) {
    const char *n = s + strlen(".amdhsa_kernel ");
    while (*n == ' ' || *n == '\t') n++;
    if (strncmp(n, name, nl) != 0 || is_ident(n[nl])) continue;
    const char *end = strstr(n, ".end_amdhsa_kernel");
    const char *g = strstr(n, ".amdhsa_group_segment_fixed_size");
    if (g == NULL || (end && g > end)) return FSIM_OK;
    const char *v = g + strlen(".amdhsa_group_segment_fixed_size");
    while (*v == ' ' || *v == '\t') v++;
    /* decimal, as clang writes it, or 0x hex; not octal, not on the next line */
    int hex = v[0] == '0' && (v[1] == 'x' || v[1] == 'X');
    char *after = (char *)v;
    errno = 0;
    long long x = isdigit((unsigned char)*v) ? strtoll(v, &after, hex ? 16 : 10) : -1;
    while (*after == ' ' || *after == '\t' || *after == '\r') after++;
    if (after == v || errno != 0 || x < 0 || x > INT32_MAX || (*after != '\n' && *after != '\0')) {
      int line = 1;
      for (const char *c = text; c < g; c++) line += *c == '\n';
      return perr(p, line, ".amdhsa_group_segment_fixed_size: expected a byte count from 0 to 2147483647", NULL);
    }
    *bytes = x;
    return FSIM_OK;
  }
  return FSIM_OK;
}

/* Copies the len characters at s into *buf (grown to fit) as a string; -1 when out of memory. */
static int copy_line(char **buf, size_t *cap, const char *s, size_t len) {
  if (len + 1 > *cap) {
    size_t nc = *cap ? *cap : 1024;
    while (nc < len + 1) nc *= 2;
    char *nb = realloc(*buf, nc);
    if (nb == NULL) return -1;
    *buf = nb, *cap = nc;
  }
  memcpy(*buf, s, len);
  (*buf)[len] = '\0';
  return 0;
}

fsim_status fsim_asm_parse(fsim_asm_kernel *k, const char *text, const char *source, const char *kernel, fsim_err *e) {
  memset(k, 0, sizeof *k);
  parser p = {.k = k, .source = source ? source : "assembly", .e = e, .func_addr = 0};
  int in_kernel = 0, done = 0, line = 0;
  fsim_status st = FSIM_OK;
  const char *s = text;
  char *buf = NULL; /* the line, whole: a kernel's name or an objdump branch target <NAME+0x68> may be long */
  branch_names names = {0};
  size_t buf_cap = 0;
  while (*s && !done && st == FSIM_OK) {
    const char *here = s, *nl = strchr(s, '\n');
    size_t len = nl ? (size_t)(nl - s) : strlen(s);
    line++;
    if (copy_line(&buf, &buf_cap, s, len) != 0) {
      st = FSIM_ERR(e, FSIM_ENOMEM, "out of memory");
      break;
    }
    s = nl ? nl + 1 : s + len;
    const char *name;
    size_t nlen;
    long long faddr;
    /* a name in column 0 inside the kernel that a branch names is one of its labels */
    int is_label = 0; /* a name in column 0 that a branch names: a label of the kernel */
    if (in_kernel && function_start(buf, &name, &nlen, &faddr) && faddr == -1 &&
        (is_label = branched_to(&names, text, name, nlen)) < 0) {
      st = FSIM_ERR(e, FSIM_ENOMEM, "out of memory");
      break;
    }
    if (!is_label && function_start(buf, &name, &nlen, &faddr)) {
      if (in_kernel) {
        done = 1;
        break;
      }
      if (kernel == NULL || (strlen(kernel) == nlen && memcmp(kernel, name, nlen) == 0)) {
        in_kernel = 1;
        if ((k->name = malloc(nlen + 1)) == NULL) {
          st = FSIM_ERR(e, FSIM_ENOMEM, "out of memory");
          break;
        }
        memcpy(k->name, name, nlen);
        k->name[nlen] = '\0';
        p.func_addr = faddr >= 0 || faddr == -2 ? faddr : 0;
      }
      continue;
    }
    if (!in_kernel) continue;
    if (starts(buf, ".Lfunc_end")) {
      done = 1;
      break;
    }
    st = add_inst(&p, buf, here, line);
  }
  if (st == FSIM_OK && !in_kernel && line == 0) /* no line to name ("FILE:0:") */
    st = fsim__err_set(e, FSIM_EINVAL, __FILE__, __LINE__, "%s: an empty file: no kernel found in the assembly", p.source);
  else if (st == FSIM_OK && !in_kernel)
    st = kernel ? perr(&p, line, "no kernel named ", kernel) : perr(&p, line, "no kernel found in the assembly", NULL);
  if (st == FSIM_OK) {
    /* drop what follows the last s_endpgm (padding) */
    int last = -1;
    for (int i = 0; i < k->n; i++)
      if (strcmp(k->inst[i].mnemonic, "s_endpgm") == 0) last = i;
    p.nall = k->n;
    if (last < 0) st = perr(&p, line, "the kernel has no s_endpgm", NULL);
    else k->n = last; /* s_endpgm itself ends the program (resolve keeps blocks past it that branches reach) */
  }
  if (st == FSIM_OK) st = resolve(&p);
  if (st == FSIM_OK) st = descriptor_lds(&p, text, k->name, &k->lds_bytes);
  free(buf);
  free(names.at);
  free(names.len);
  free(p.labels);
  free(p.pend);
  free(p.addr);
  if (st != FSIM_OK) fsim_asm_free(k);
  return st;
}

void fsim_asm_free(fsim_asm_kernel *k) {
  if (k == NULL) return;
  free(k->name);
  free(k->inst);
  memset(k, 0, sizeof *k);
}

/* ---- mixes ---------------------------------------------------------------------------------- */

static void mix_add(fsim_asm_mix *m, int op, int width) {
  switch (op) {
  case FSIM_OP_MFMA: m->mfma++; break;
  case FSIM_OP_LDS_READ: m->lds_read++, m->lds_read_bytes += width; break;
  case FSIM_OP_LDS_WRITE: m->lds_write++, m->lds_write_bytes += width; break;
  case FSIM_OP_LOAD: m->vmem_load++; break;
  case FSIM_OP_LOAD_LDS: m->load_lds++; break;
  case FSIM_OP_STORE: m->vmem_store++; break;
  case FSIM_OP_WAITCNT: m->waitcnt++; break;
  case FSIM_OP_BARRIER: m->barrier++; break;
  case FSIM_OP_SETPRIO: m->setprio++; break;
  case FSIM_OP_VALU: m->valu++; break;
  case FSIM_OP_SALU: m->salu++; break;
  case FSIM_OP_SMEM: m->smem++; break;
  case FSIM_OP_BRANCH: m->branch++; break;
  case FSIM_OP_NOP: m->nop++; break;
  default: return;
  }
  m->total++;
}

void fsim_asm_mix_range(const fsim_asm_kernel *k, int from, int to, fsim_asm_mix *m) {
  memset(m, 0, sizeof *m);
  for (int i = from < 0 ? 0 : from; i < to && i < k->n; i++) mix_add(m, k->inst[i].op, k->inst[i].width);
}

void fsim_wp_mix_range(const fsim_wp_program *p, int from, int to, fsim_asm_mix *m) {
  memset(m, 0, sizeof *m);
  for (int i = from < 0 ? 0 : from; i < to && i < p->ninst; i++) mix_add(m, p->inst[i].op, p->inst[i].width);
}

int fsim_wp_top_loops(const fsim_wp_program *p, int *begin, int *end, int64_t *trip, int max) {
  int n = 0, depth = 0, open = -1;
  for (int i = 0; i < p->ninst; i++) {
    if (p->inst[i].op == FSIM_OP_LOOP) {
      if (depth++ == 0) open = i;
    } else if (p->inst[i].op == FSIM_OP_END) {
      if (--depth == 0 && open >= 0) {
        int64_t t = p->loops[p->inst[open].arg].trip;
        if (t > 1 && n < max) {
          begin[n] = open;
          end[n] = i;
          trip[n] = t;
          n++;
        }
        open = -1;
      }
    }
  }
  return n;
}

/* ---- the waves' paths ----------------------------------------------------------------------- */

/* The scalar state of one wave as far as it is known: SGPRs and the special slots (asm.h),
 * SCC, and lane 0 of each VGPR with whether every lane holds that value.  Enough to evaluate
 * the wave-uniform conditions a kernel branches on (its wave's index, loop-invariant
 * constants); whatever comes from memory, kernel arguments or workgroup ids is unknown. */
typedef struct evs {
  uint32_t s[FSIM_ASM_SLOTS];
  uint8_t sk[FSIM_ASM_SLOTS];
  int scc; /* 0, 1, -1 unknown */
  int nv;
  uint32_t *v;
  uint8_t *vk, *vu; /* known, uniform */
  int wave64;
} evs;

static int ev_init(evs *st, int nvgpr, int wave, int wave_size) {
  memset(st, 0, sizeof *st);
  st->scc = -1;
  st->nv = nvgpr > 1 ? nvgpr : 1;
  st->v = calloc((size_t)st->nv, sizeof *st->v);
  st->vk = calloc((size_t)st->nv, 1);
  st->vu = calloc((size_t)st->nv, 1);
  if (st->v == NULL || st->vk == NULL || st->vu == NULL) return -1;
  st->wave64 = wave_size > 32;
  st->s[FSIM_ASM_SLOT_EXEC] = 0xffffffffu; /* every lane of a full wave */
  st->s[FSIM_ASM_SLOT_EXEC + 1] = st->wave64 ? 0xffffffffu : 0;
  st->sk[FSIM_ASM_SLOT_EXEC] = st->sk[FSIM_ASM_SLOT_EXEC + 1] = 1;
  st->v[0] = (uint32_t)(wave * wave_size); /* v0: the thread's index in the workgroup */
  st->vk[0] = 1;
  st->vu[0] = wave_size == 1;
  return 0;
}

static void ev_free(evs *st) {
  free(st->v);
  free(st->vk);
  free(st->vu);
}

/* Reads a scalar operand (64 bits when wide); 1 if known. */
static int rd(const evs *st, const fsim_asm_opnd *o, int wide, uint64_t *val) {
  *val = 0;
  if (o->kind == 'i') {
    *val = wide ? (uint64_t)o->imm : (uint32_t)o->imm;
    return 1;
  }
  if (o->kind != 's' || o->first == FSIM_ASM_SLOT_NULL) return 0;
  int f = o->first;
  if (!st->sk[f]) return 0;
  *val = st->s[f];
  if (wide) {
    if (f + 1 >= FSIM_ASM_SLOTS || !st->sk[f + 1]) return 0;
    *val |= (uint64_t)st->s[f + 1] << 32;
  }
  return 1;
}

static void wr(evs *st, const fsim_asm_opnd *o, int wide, uint64_t val, int known) {
  if (o->kind != 's' || o->first == FSIM_ASM_SLOT_NULL) return;
  int n = wide ? 2 : 1;
  if (o->count > n) n = o->count; /* a wider destination than the op: the rest is unknown */
  for (int i = 0; i < n && o->first + i < FSIM_ASM_SLOT_NULL; i++) {
    st->s[o->first + i] = i < 2 ? (uint32_t)(val >> (32 * i)) : 0;
    st->sk[o->first + i] = (uint8_t)(known && i < (wide ? 2 : 1));
  }
}

/* A VALU source: lane 0's value and whether all lanes hold it. */
static int rdv(const evs *st, const fsim_asm_opnd *o, uint32_t *val, int *uni) {
  *val = 0;
  *uni = 1;
  if (o->kind == 'v') {
    if (o->count != 1 || o->first >= st->nv || !st->vk[o->first]) return 0;
    *val = st->v[o->first];
    *uni = st->vu[o->first];
    return 1;
  }
  uint64_t x;
  if (!rd(st, o, 0, &x)) return 0;
  *val = (uint32_t)x;
  return 1;
}

static void forget_opnd(evs *st, const fsim_asm_opnd *o) {
  if (o->kind == 's') {
    for (int i = 0; i < o->count && o->first + i < FSIM_ASM_SLOT_NULL; i++) st->sk[o->first + i] = 0;
  } else if (o->kind == 'v') {
    for (int i = 0; i < o->count && o->first + i < st->nv; i++) st->vk[o->first + i] = 0;
  }
}

static void forget_reg(evs *st, const fsim_asm_reg *r) {
  fsim_asm_opnd o = {0, 0, 0, 0};
  switch (r->file) {
  case 's': o = (fsim_asm_opnd){'s', (int16_t)r->first, (int16_t)r->count, 0}; break;
  case 'v': o = (fsim_asm_opnd){'v', (int16_t)r->first, (int16_t)r->count, 0}; break;
  case 'c': o = (fsim_asm_opnd){'s', FSIM_ASM_SLOT_VCC, 2, 0}; break;
  case 'e': o = (fsim_asm_opnd){'s', FSIM_ASM_SLOT_EXEC, 2, 0}; break;
  case 'm': o = (fsim_asm_opnd){'s', FSIM_ASM_SLOT_M0, 1, 0}; break;
  default: return;
  }
  forget_opnd(st, &o);
}

static int is_salu_compare(const char *mn) {
  return starts(mn, "s_cmp") || starts(mn, "s_bitcmp");
}

static int writes_carry(const char *mn) {
  return strstr(mn, "_co_") || strstr(mn, "addc") || strstr(mn, "subb") || starts(mn, "v_cmp") ||
         strstr(mn, "div_scale");
}

/* Forgets every register the instruction may write (a superset of what ev_step computes). */
static void forget_writes(evs *st, const fsim_asm_inst *in) {
  const char *mn = in->mnemonic;
  forget_reg(st, &in->dst);
  if (in->op == FSIM_OP_SALU) {
    if (!is_salu_compare(mn) && in->nopnd > 0) forget_opnd(st, &in->opnd[0]);
    if (strstr(mn, "saveexec") || strstr(mn, "wrexec")) st->sk[FSIM_ASM_SLOT_EXEC] = st->sk[FSIM_ASM_SLOT_EXEC + 1] = 0;
    st->scc = -1;
  } else if (in->op == FSIM_OP_VALU) {
    if (in->nopnd > 0) forget_opnd(st, &in->opnd[0]);
    if (writes_carry(mn)) {
      if (in->nopnd > 1 && in->opnd[1].kind == 's') forget_opnd(st, &in->opnd[1]);
      st->sk[FSIM_ASM_SLOT_VCC] = st->sk[FSIM_ASM_SLOT_VCC + 1] = 0;
    }
    if (starts(mn, "v_cmpx")) st->sk[FSIM_ASM_SLOT_EXEC] = st->sk[FSIM_ASM_SLOT_EXEC + 1] = 0;
  }
}

static int64_t sext(uint64_t v, int bits) {
  if (bits <= 0) return 0;
  if (bits >= 64) return (int64_t)v;
  uint64_t m = 1ull << (bits - 1);
  v &= (m << 1) - 1;
  return (int64_t)((v ^ m) - m);
}

/* Scalar ALU; returns 0 for a mnemonic it does not know (the caller forgets what it writes). */
static int salu(evs *st, const char *mn, const fsim_asm_opnd *o, int n) {
  if (!starts(mn, "s_") || n < 1) return 0;
  const char *us = strrchr(mn, '_');
  if (us == NULL || us <= mn + 2) return 0;
  const char *suf = us + 1;
  int wide = strcmp(suf, "b64") == 0 || strcmp(suf, "u64") == 0 || strcmp(suf, "i64") == 0;
  int sgn = suf[0] == 'i';
  if (!wide && strcmp(suf, "b32") != 0 && strcmp(suf, "u32") != 0 && strcmp(suf, "i32") != 0) return 0;
  char base[40];
  snprintf(base, sizeof base, "%.*s", (int)(us - (mn + 2)), mn + 2);
  /* gfx12 spellings */
  static const struct {
    const char *from, *to;
  } alias[] = {{"add_co", "add"},           {"sub_co", "sub"},         {"add_co_ci", "addc"},
               {"sub_co_ci", "subb"},       {"addk_co", "addk"},       {"and_not1", "andn2"},
               {"or_not1", "orn2"},         {"and_not1_saveexec", "andn2_saveexec"},
               {"or_not1_saveexec", "orn2_saveexec"}, {"and_not0_saveexec", "andn1_saveexec"}};
  for (size_t i = 0; i < sizeof alias / sizeof alias[0]; i++)
    if (strcmp(base, alias[i].from) == 0) snprintf(base, sizeof base, "%s", alias[i].to);
  const uint64_t mask = wide ? ~0ull : 0xffffffffull;
  const fsim_asm_opnd none = {0, 0, 0, 0};
  const fsim_asm_opnd *o1 = n > 1 ? &o[1] : &none, *o2 = n > 2 ? &o[2] : &none;
  uint64_t a = 0, b = 0, r = 0;
  int ka, kb, kr = 0, scc = -2; /* -2: SCC unchanged */
  /* compares: SCC only */
  if (starts(base, "cmp_") || starts(base, "cmpk_")) {
    const char *rel = strchr(base, '_') + 1;
    ka = rd(st, &o[0], wide, &a);
    if (starts(base, "cmpk_")) {
      kb = o1->kind == 'i';
      b = sgn ? (uint64_t)sext((uint64_t)o1->imm, 16) & mask : (uint64_t)o1->imm & 0xffff;
    } else {
      kb = rd(st, o1, wide, &b);
    }
    int64_t sa = sgn ? sext(a, wide ? 64 : 32) : 0, sb = sgn ? sext(b, wide ? 64 : 32) : 0;
    int res;
    if (strcmp(rel, "eq") == 0) res = a == b;
    else if (strcmp(rel, "lg") == 0 || strcmp(rel, "ne") == 0) res = a != b;
    else if (strcmp(rel, "gt") == 0) res = sgn ? sa > sb : a > b;
    else if (strcmp(rel, "ge") == 0) res = sgn ? sa >= sb : a >= b;
    else if (strcmp(rel, "lt") == 0) res = sgn ? sa < sb : a < b;
    else if (strcmp(rel, "le") == 0) res = sgn ? sa <= sb : a <= b;
    else return 0;
    st->scc = ka && kb ? res : -1;
    return 1;
  }
  if (strcmp(base, "bitcmp0") == 0 || strcmp(base, "bitcmp1") == 0) {
    ka = rd(st, &o[0], wide, &a);
    kb = rd(st, o1, 0, &b);
    int bit = (int)((a >> (b & (wide ? 63 : 31))) & 1);
    st->scc = ka && kb ? (base[6] == '1' ? bit : !bit) : -1;
    return 1;
  }
  if (strcmp(base, "mov") == 0) {
    kr = rd(st, o1, wide, &r);
  } else if (strcmp(base, "movk") == 0) {
    kr = o1->kind == 'i';
    r = (uint64_t)sext((uint64_t)o1->imm, 16) & mask;
  } else if (strcmp(base, "cmov") == 0 || strcmp(base, "cmovk") == 0) {
    uint64_t old;
    int kold = rd(st, &o[0], wide, &old);
    if (base[4] == 'k') {
      ka = o1->kind == 'i';
      a = (uint64_t)sext((uint64_t)o1->imm, 16) & mask;
    } else {
      ka = rd(st, o1, wide, &a);
    }
    kr = st->scc == 1 ? ka : st->scc == 0 ? kold : 0;
    r = st->scc == 1 ? a : old;
  } else if (strcmp(base, "cselect") == 0) {
    ka = rd(st, o1, wide, &a);
    kb = rd(st, o2, wide, &b);
    kr = st->scc == 1 ? ka : st->scc == 0 ? kb : 0;
    r = st->scc == 1 ? a : b;
  } else if (strcmp(base, "add") == 0 || strcmp(base, "sub") == 0 || strcmp(base, "addc") == 0 ||
             strcmp(base, "subb") == 0) {
    if (wide) return 0;
    ka = rd(st, o1, 0, &a);
    kb = rd(st, o2, 0, &b);
    int carry_in = base[3] == 'c' || base[3] == 'b';
    uint64_t ci = carry_in ? (uint64_t)(st->scc > 0) : 0;
    kr = ka && kb && (!carry_in || st->scc >= 0);
    int add = base[0] == 'a';
    uint64_t full = add ? a + b + ci : a - b - ci;
    r = full & mask;
    if (!kr) scc = -1;
    else if (sgn) {
      uint32_t x = (uint32_t)a, y = (uint32_t)b, z = (uint32_t)r;
      scc = (int)((add ? (~(x ^ y) & (x ^ z)) : ((x ^ y) & (x ^ z))) >> 31);
    } else {
      scc = add ? (int)(full >> 32 != 0) : (int)(a < b + ci);
    }
  } else if (strcmp(base, "addk") == 0 || strcmp(base, "mulk") == 0) {
    ka = rd(st, &o[0], 0, &a);
    kb = o1->kind == 'i';
    b = (uint64_t)sext((uint64_t)o1->imm, 16) & mask;
    kr = ka && kb;
    if (base[0] == 'a') {
      r = (a + b) & mask;
      uint32_t x = (uint32_t)a, y = (uint32_t)b, z = (uint32_t)r;
      scc = kr ? (int)((~(x ^ y) & (x ^ z)) >> 31) : -1;
    } else {
      r = (a * b) & mask;
    }
  } else if (strcmp(base, "mul") == 0) {
    ka = rd(st, o1, 0, &a);
    kb = rd(st, o2, 0, &b);
    kr = ka && kb && !wide;
    r = (a * b) & mask;
  } else if (strcmp(base, "lshl") == 0 || strcmp(base, "lshr") == 0 || strcmp(base, "ashr") == 0) {
    ka = rd(st, o1, wide, &a);
    kb = rd(st, o2, 0, &b);
    int sh = (int)(b & (wide ? 63 : 31));
    kr = ka && kb;
    if (base[0] == 'a') r = (uint64_t)(sext(a, wide ? 64 : 32) >> sh) & mask;
    else r = (base[2] == 'h' && base[3] == 'l' ? a << sh : a >> sh) & mask;
    scc = kr ? r != 0 : -1;
  } else if (strlen(base) == 9 && starts(base, "lshl") && strcmp(base + 5, "_add") == 0 && base[4] >= '1' &&
             base[4] <= '4') {
    ka = rd(st, o1, 0, &a);
    kb = rd(st, o2, 0, &b);
    kr = ka && kb && !wide;
    uint64_t full = ((a << (base[4] - '0')) & 0xffffffffull) + b;
    r = full & mask;
    scc = kr ? (int)((full >> 32) != 0 || (a >> (32 - (base[4] - '0'))) != 0) : -1;
  } else if (strcmp(base, "and") == 0 || strcmp(base, "or") == 0 || strcmp(base, "xor") == 0 ||
             strcmp(base, "andn2") == 0 || strcmp(base, "orn2") == 0 || strcmp(base, "nand") == 0 ||
             strcmp(base, "nor") == 0 || strcmp(base, "xnor") == 0) {
    ka = rd(st, o1, wide, &a);
    kb = rd(st, o2, wide, &b);
    kr = ka && kb;
    if (strcmp(base, "and") == 0) r = a & b;
    else if (strcmp(base, "or") == 0) r = a | b;
    else if (strcmp(base, "xor") == 0) r = a ^ b;
    else if (strcmp(base, "andn2") == 0) r = a & ~b;
    else if (strcmp(base, "orn2") == 0) r = a | ~b;
    else if (strcmp(base, "nand") == 0) r = ~(a & b);
    else if (strcmp(base, "nor") == 0) r = ~(a | b);
    else r = ~(a ^ b);
    r &= mask;
    /* x & 0 and x | ~0 are known whatever x is */
    if (!kr && strcmp(base, "and") == 0 && ((ka && a == 0) || (kb && b == 0))) kr = 1, r = 0;
    if (!kr && strcmp(base, "or") == 0 && ((ka && a == mask) || (kb && b == mask))) kr = 1, r = mask;
    scc = kr ? r != 0 : -1;
  } else if (strcmp(base, "not") == 0) {
    kr = rd(st, o1, wide, &a);
    r = ~a & mask;
    scc = kr ? r != 0 : -1;
  } else if (strcmp(base, "bfe") == 0) {
    ka = rd(st, o1, wide, &a);
    kb = rd(st, o2, 0, &b);
    int off = (int)(b & (wide ? 63 : 31)), w = (int)((b >> 16) & 0x7f);
    int bits = wide ? 64 : 32;
    if (w > bits - off) w = bits - off;
    uint64_t f = w >= 64 ? a >> off : (a >> off) & ((1ull << w) - 1);
    r = (sgn ? (uint64_t)sext(f, w) : f) & mask;
    kr = ka && kb;
    scc = kr ? r != 0 : -1;
  } else if (strcmp(base, "bitset0") == 0 || strcmp(base, "bitset1") == 0) {
    ka = rd(st, &o[0], wide, &a);
    kb = rd(st, o1, 0, &b);
    uint64_t bit = 1ull << (b & (wide ? 63 : 31));
    r = base[6] == '1' ? a | bit : a & ~bit;
    kr = ka && kb;
  } else if (strcmp(base, "min") == 0 || strcmp(base, "max") == 0) {
    ka = rd(st, o1, 0, &a);
    kb = rd(st, o2, 0, &b);
    int lt = sgn ? sext(a, 32) < sext(b, 32) : a < b;
    int pick_a = base[1] == 'i' ? lt : !lt;
    r = pick_a ? a : b;
    kr = ka && kb && !wide;
    scc = kr ? pick_a : -1;
  } else if (strstr(base, "saveexec") != NULL) {
    const fsim_asm_opnd ex = {'s', FSIM_ASM_SLOT_EXEC, (int16_t)(wide ? 2 : 1), 0};
    uint64_t e0;
    int ke = rd(st, &ex, wide, &e0);
    ka = rd(st, o1, wide, &a);
    uint64_t ne;
    if (starts(base, "and_")) ne = a & e0;
    else if (starts(base, "or_")) ne = a | e0;
    else if (starts(base, "xor_")) ne = a ^ e0;
    else if (starts(base, "andn2_")) ne = a & ~e0;
    else if (starts(base, "andn1_")) ne = ~a & e0;
    else if (starts(base, "orn2_")) ne = a | ~e0;
    else return 0;
    ne &= mask;
    wr(st, &o[0], wide, e0, ke);
    wr(st, &ex, wide, ne, ke && ka);
    st->scc = ke && ka ? ne != 0 : -1;
    return 1;
  } else {
    return 0;
  }
  wr(st, &o[0], wide, r, kr);
  if (scc != -2) st->scc = scc;
  return 1;
}

/* Vector ALU, lane 0; returns 0 for a mnemonic it does not know. */
static int valu(evs *st, const char *mn, const fsim_asm_opnd *o, int n) {
  if (strstr(mn, "_dpp") || strstr(mn, "_sdwa") || n < 2) return 0;
  char base[48];
  snprintf(base, sizeof base, "%s", mn);
  size_t L = strlen(base);
  if (L > 4 && (strcmp(base + L - 4, "_e32") == 0 || strcmp(base + L - 4, "_e64") == 0)) base[L - 4] = '\0';
  const uint64_t full = st->wave64 ? ~0ull : 0xffffffffull;
  if (strcmp(base, "v_readfirstlane_b32") == 0) {
    uint32_t x;
    int u;
    int k = rdv(st, &o[1], &x, &u) && st->sk[FSIM_ASM_SLOT_EXEC] && (st->s[FSIM_ASM_SLOT_EXEC] & 1);
    wr(st, &o[0], 0, x, k);
    return 1;
  }
  if (starts(base, "v_cmp_") || starts(base, "v_cmpx_")) {
    int x = base[5] == 'x';
    const char *rel = base + (x ? 7 : 6);
    const char *ty = strchr(rel, '_');
    if (ty == NULL || (strcmp(ty, "_u32") != 0 && strcmp(ty, "_i32") != 0)) return 0;
    int sgn = ty[1] == 'i';
    /* gfx9's v_cmpx and every v_cmp name a destination; gfx10+'s v_cmpx does not */
    int has_dst = !x || n >= 3;
    const fsim_asm_opnd *s0 = &o[has_dst ? 1 : 0], *s1 = &o[has_dst ? 2 : 1];
    if ((has_dst ? 3 : 2) > n) return 0;
    uint32_t a, b;
    int ua, ub;
    int ka = rdv(st, s0, &a, &ua), kb = rdv(st, s1, &b, &ub);
    int64_t sa = sext(a, 32), sb = sext(b, 32);
    int res;
    size_t rl = (size_t)(ty - rel);
    if (rl == 2 && strncmp(rel, "eq", 2) == 0) res = a == b;
    else if (rl == 2 && (strncmp(rel, "ne", 2) == 0 || strncmp(rel, "lg", 2) == 0)) res = a != b;
    else if (rl == 2 && strncmp(rel, "gt", 2) == 0) res = sgn ? sa > sb : a > b;
    else if (rl == 2 && strncmp(rel, "ge", 2) == 0) res = sgn ? sa >= sb : a >= b;
    else if (rl == 2 && strncmp(rel, "lt", 2) == 0) res = sgn ? sa < sb : a < b;
    else if (rl == 2 && strncmp(rel, "le", 2) == 0) res = sgn ? sa <= sb : a <= b;
    else return 0;
    const fsim_asm_opnd ex = {'s', FSIM_ASM_SLOT_EXEC, (int16_t)(st->wave64 ? 2 : 1), 0};
    uint64_t e0;
    int ke = rd(st, &ex, st->wave64, &e0);
    int k = ka && kb && ua && ub && ke; /* the same result in every lane */
    uint64_t m = res ? e0 & full : 0;
    if (has_dst) wr(st, &o[0], st->wave64, m, k);
    if (x) wr(st, &ex, st->wave64, m, k);
    return 1;
  }
  if (o[0].kind != 'v' || o[0].count != 1 || o[0].first >= st->nv) return 0;
  uint32_t v[3] = {0, 0, 0}, r = 0;
  int u[3] = {1, 1, 1}, k[3] = {0, 0, 0}, ns = n - 1 > 3 ? 3 : n - 1;
  for (int i = 0; i < ns; i++) k[i] = rdv(st, &o[1 + i], &v[i], &u[i]);
  int need = 0, uni = 1;
  if (strcmp(base, "v_cndmask_b32") == 0 && n >= 4) {
    uint64_t m;
    int km = rd(st, &o[3], st->wave64, &m);
    const fsim_asm_opnd ex = {'s', FSIM_ASM_SLOT_EXEC, (int16_t)(st->wave64 ? 2 : 1), 0};
    uint64_t e0;
    int ke = rd(st, &ex, st->wave64, &e0);
    int pick = (int)(m & 1);
    int known = km && k[pick];
    int all_same = ke && ((m & e0) == 0 || (m & e0) == e0);
    st->v[o[0].first] = v[pick];
    st->vk[o[0].first] = (uint8_t)known;
    st->vu[o[0].first] = (uint8_t)(known && u[pick] && all_same);
    return 1;
  }
  if (strcmp(base, "v_mov_b32") == 0) need = 1, r = v[0];
  else if (strcmp(base, "v_not_b32") == 0) need = 1, r = ~v[0];
  else if (strcmp(base, "v_lshlrev_b32") == 0) need = 2, r = v[1] << (v[0] & 31);
  else if (strcmp(base, "v_lshrrev_b32") == 0) need = 2, r = v[1] >> (v[0] & 31);
  else if (strcmp(base, "v_ashrrev_i32") == 0) need = 2, r = (uint32_t)(sext(v[1], 32) >> (v[0] & 31));
  else if (strcmp(base, "v_and_b32") == 0) need = 2, r = v[0] & v[1];
  else if (strcmp(base, "v_or_b32") == 0) need = 2, r = v[0] | v[1];
  else if (strcmp(base, "v_xor_b32") == 0) need = 2, r = v[0] ^ v[1];
  else if (strcmp(base, "v_add_u32") == 0 || strcmp(base, "v_add_nc_u32") == 0) need = 2, r = v[0] + v[1];
  else if (strcmp(base, "v_sub_u32") == 0 || strcmp(base, "v_sub_nc_u32") == 0) need = 2, r = v[0] - v[1];
  else if (strcmp(base, "v_subrev_u32") == 0 || strcmp(base, "v_subrev_nc_u32") == 0) need = 2, r = v[1] - v[0];
  else if (strcmp(base, "v_mul_lo_u32") == 0) need = 2, r = v[0] * v[1];
  else if (strcmp(base, "v_lshl_add_u32") == 0) need = 3, r = (v[0] << (v[1] & 31)) + v[2];
  else if (strcmp(base, "v_add_lshl_u32") == 0) need = 3, r = (v[0] + v[1]) << (v[2] & 31);
  else if (strcmp(base, "v_lshl_or_b32") == 0) need = 3, r = (v[0] << (v[1] & 31)) | v[2];
  else if (strcmp(base, "v_and_or_b32") == 0) need = 3, r = (v[0] & v[1]) | v[2];
  else if (strcmp(base, "v_or3_b32") == 0) need = 3, r = v[0] | v[1] | v[2];
  else if (strcmp(base, "v_xor3_b32") == 0) need = 3, r = v[0] ^ v[1] ^ v[2];
  else if (strcmp(base, "v_add3_u32") == 0) need = 3, r = v[0] + v[1] + v[2];
  else if (strcmp(base, "v_bfe_u32") == 0) {
    need = 3;
    uint32_t w = v[2] & 31;
    r = w ? (v[0] >> (v[1] & 31)) & ((1u << w) - 1) : 0;
  } else return 0;
  int known = need <= ns;
  for (int i = 0; i < need && i < ns; i++) known = known && k[i], uni = uni && u[i];
  st->v[o[0].first] = r;
  st->vk[o[0].first] = (uint8_t)known;
  st->vu[o[0].first] = (uint8_t)(known && uni);
  return 1;
}

static void ev_step(evs *st, const fsim_asm_inst *in) {
  switch (in->op) {
  case FSIM_OP_SALU:
    if (!salu(st, in->mnemonic, in->opnd, in->nopnd)) forget_writes(st, in);
    return;
  case FSIM_OP_VALU:
    if (!valu(st, in->mnemonic, in->opnd, in->nopnd)) forget_writes(st, in);
    return;
  case FSIM_OP_WAITCNT:
  case FSIM_OP_BARRIER:
  case FSIM_OP_SETPRIO:
  case FSIM_OP_NOP:
  case FSIM_OP_BRANCH: return;
  default: forget_writes(st, in); return;
  }
}

/* 1 taken, 0 not, -1 unknown. */
static int branch_taken(const evs *st, const fsim_asm_inst *in) {
  const char *mn = in->mnemonic;
  if (is_uncond(in)) return 1;
  if (starts(mn, "s_cbranch_scc")) return st->scc < 0 ? -1 : mn[13] == '1' ? st->scc : !st->scc;
  int slot = starts(mn, "s_cbranch_vcc") ? FSIM_ASM_SLOT_VCC : starts(mn, "s_cbranch_exec") ? FSIM_ASM_SLOT_EXEC : -1;
  if (slot < 0) return -1;
  if (!st->sk[slot] || (st->wave64 && !st->sk[slot + 1])) return -1;
  uint64_t v = st->s[slot] | (st->wave64 ? (uint64_t)st->s[slot + 1] << 32 : 0);
  int zero = v == 0;
  size_t L = strlen(mn);
  int wants_zero = mn[L - 1] == 'z' && mn[L - 2] != 'n';
  return wants_zero ? zero : !zero;
}

static int in_loop(const fsim_asm_kernel *k, int l, int i) { return i >= k->loops[l].begin && i <= k->loops[l].end; }

/* Whether a branch from `from` to `to` keeps the loops' structure: every loop holds both or
 * neither, except that `to` may be the first instruction of a loop that does not hold `from`
 * (entering it at its top).  A jump back to the top of a loop that holds it is a latch.  A
 * loop holds an instruction in its range that lies in its natural loop: its exits placed
 * inside its range (a latch's fall-through that jumps on past the loop) are not in it. */
static int keeps_loops(const fsim_asm_kernel *k, int from, int to) {
  for (int l = 0; l < k->nloops; l++) {
    int a = (k->inst[from].natural >> l) & 1, b = in_loop(k, l, to) && to < k->n && ((k->inst[to].natural >> l) & 1);
    if (a && b && to == k->loops[l].begin) return 0;
    if (a == b) continue;
    if (!a && b && to == k->loops[l].begin) continue;
    return 0;
  }
  return 1;
}

/* Whether an undecided conditional branch from `from` forward to `to` is the guard of a loop
 * laid out past the zero-trip path, as clang lays out `for (k = 0; k < n; ++k)` with n a
 * kernel argument: the fall-through (from + 1 .. to - 1) holds no loop and ends either in an
 * s_branch past a loop that starts at or after `to`, or in the kernel's end (s_endpgm: the
 * zero-trip path stores its result and ends, and a loop starts at or after `to`).  The loop's
 * trips are what --trips gives, so the reader enters it rather than take the zero-trip path. */
static int guards_loop(const fsim_asm_kernel *k, int from, int to) {
  if (to <= from + 1 || to > k->n) return 0;
  const fsim_asm_inst *last = &k->inst[to - 1];
  int rejoin; /* the loop must end before the zero-trip path rejoins */
  if (strcmp(last->mnemonic, "s_endpgm") == 0)
    rejoin = k->n;
  else if (is_uncond(last) && last->target > to)
    rejoin = last->target;
  else
    return 0;
  for (int l = 0; l < k->nloops; l++)
    if (k->loops[l].begin > from && k->loops[l].begin < to) return 0;
  for (int l = 0; l < k->nloops; l++)
    if (k->loops[l].begin >= to && k->loops[l].end < rejoin) return 1;
  return 0;
}

/* The loop whose guard an undecided conditional branch from `from` to `to` is, entered at its
 * header below a block of its own placed above it, or -1.  clang-22 for gfx1201 lays out the
 * inner loop of a three-deep nest with a cold `if` so: the guard jumps to the header, its
 * fall-through is an s_branch out of the loop (the zero-trip path, to the middle loop's
 * latch), and the `if`'s body lies between the two, at the loop's top.  guards_loop does not
 * take it (the zero-trip path jumps back, and the loop starts before `to`), and the loop was
 * never walked (an audit). */
static int guards_header(const fsim_asm_kernel *k, int from, int to) {
  if (to <= from + 2 || to >= k->n || !is_uncond(&k->inst[from + 1])) return -1;
  const int skip = k->inst[from + 1].target;
  int found = -1;
  for (int l = 0; l < k->nloops; l++) {
    const fsim_asm_loop *lp = &k->loops[l];
    if (lp->begin > from && lp->begin < to) {
      if (found >= 0 || lp->head != to || lp->begin < from + 2 || (skip >= lp->begin && skip <= lp->end)) return -1;
      /* its latch at its end, a conditional branch back to the header: an iteration entered
       * there ends there.  A loop whose latch block lies above the header, jumped back to from
       * the end (gfx1201's if3 of the audit's kernels), is not walked from its header: the walk
       * would run the header's blocks twice an iteration */
      const fsim_asm_inst *end = &k->inst[lp->end];
      if (!is_branch(end) || is_uncond(end) || end->target != to) return -1;
      found = l;
    }
  }
  return found;
}

/* A wave's path: instruction indices, with loop markers. */
#define PATH_BEGIN(l) (-1 - (l))
#define PATH_END(l) (-1 - FSIM_ASM_MAX_LOOPS - (l))
typedef struct path {
  int *e;
  int n, cap;
} path;

static int path_add(path *p, int x) {
  if (grow((void **)&p->e, &p->cap, p->n + 1, sizeof *p->e)) return -1;
  p->e[p->n++] = x;
  return 0;
}

enum { BR_DECIDED = 1, BR_UNDECIDED = 2, BR_STRAIGHT = 4, BR_EXIT = 8, BR_ENTER = 16, BR_GUARD = 32 };

/* Opens loop l on the walk's stack (its iteration's walk starts at the path's end) and puts its
 * begin marker in the path: one iteration stands for all, so what the body writes is unknown
 * at its top.  -1 when out of memory. */
static int enter_loop(const fsim_asm_kernel *k, int l, evs *st, path *pa, int *stack, int *it_start, int *sp) {
  it_start[*sp] = pa->n;
  stack[(*sp)++] = l;
  for (int i = k->loops[l].begin; i <= k->loops[l].end; i++) forget_writes(st, &k->inst[i]);
  return path_add(pa, PATH_BEGIN(l));
}

/* Walks the code as wave `wave` of the workgroup would (asm.h). */
static fsim_status walk(const fsim_asm_kernel *k, int wave, int wave_size, path *pa, uint8_t *br, fsim_err *e) {
  evs st;
  if (ev_init(&st, k->max_vgpr, wave, wave_size) != 0) {
    ev_free(&st);
    return FSIM_ERR(e, FSIM_ENOMEM, "out of memory");
  }
  int stack[FSIM_ASM_MAX_LOOPS], sp = 0, pc = 0;
  int it_start[FSIM_ASM_MAX_LOOPS]; /* per open loop: where its iteration's walk starts in the path */
  int *walked = malloc(((size_t)k->n + 1) * sizeof *walked); /* per instruction: its last place in the path */
  if (walked == NULL) {
    ev_free(&st);
    return FSIM_ERR(e, FSIM_ENOMEM, "out of memory");
  }
  for (int i = 0; i <= k->n; i++) walked[i] = -1;
  /* the fall-through arms of undecided branches being walked: [arm_from, arm_to) ends where
   * the taken path starts.  Once the walk reaches or passes arm_to, the paths have joined, and
   * what the arm wrote is no longer known: clang's two-step loop guard (`s_cbranch_scc1 .L2`
   * over an arm that sets s[4:5] = 0, .L2 setting it to -1, then `s_cbranch_vccnz` past the
   * loop on it) decided the second branch from the zero-trip arm's value, and the loop of a
   * kernel whose trip count is an argument was never walked (an audit) */
  enum { MAX_ARMS = 8 };
  int arm_from[MAX_ARMS], arm_to[MAX_ARMS], narms = 0;
  long steps = 0, limit = 8L * (k->n + 16);
  fsim_status rc = FSIM_OK;
  while (pc < k->n && rc == FSIM_OK) {
    if (++steps > limit) {
      rc = FSIM_ERR(e, FSIM_EINVAL, "line %d: control flow the reader cannot follow (wave %d)", k->inst[pc].line, wave);
      break;
    }
    for (int q = 0; q < narms;) {
      if (pc >= arm_to[q] || pc < arm_from[q]) {
        if (pc >= arm_to[q])
          for (int i = arm_from[q]; i < arm_to[q]; i++) forget_writes(&st, &k->inst[i]);
        arm_from[q] = arm_from[narms - 1], arm_to[q] = arm_to[narms - 1];
        narms--;
      } else {
        q++;
      }
    }
    for (int l = 0; l < k->nloops && rc == FSIM_OK; l++)
      if (k->loops[l].begin == pc && sp < FSIM_ASM_MAX_LOOPS && enter_loop(k, l, &st, pa, stack, it_start, &sp))
        rc = FSIM_ERR(e, FSIM_ENOMEM, "out of memory");
    if (rc != FSIM_OK) break;
    const fsim_asm_inst *in = &k->inst[pc];
    if (strcmp(in->mnemonic, "s_endpgm") == 0) break; /* an early end */
    ev_step(&st, in);
    if (path_add(pa, pc)) {
      rc = FSIM_ERR(e, FSIM_ENOMEM, "out of memory");
      break;
    }
    walked[pc] = pa->n - 1;
    if (sp > 0 && is_branch(in) && in->target >= 0) {
      const int top = stack[sp - 1], tk = branch_taken(&st, in);
      const fsim_asm_loop *lp = &k->loops[top];
      if (tk != 0 && !is_uncond(in) && pc != lp->end && (in->target == lp->head || in->target == lp->begin) &&
          pc + 1 < k->n && !(k->inst[pc + 1].natural & (1u << top))) {
        /* a latch inside the range (its natural loop's blocks run on past it: a cold `if`'s
         * body placed after it, clang -O0's latch above the body): a conditional branch back
         * to the top whose fall-through leaves the loop ends the iteration, as every iteration
         * but the last takes it, and the walk goes on where the last falls through to (the
         * walk went on past it, into the loop's exit and the blocks after) */
        if (tk < 0) br[pc] |= BR_EXIT; /* a loop exit test, read as staying in */
        if (path_add(pa, PATH_END(top))) rc = FSIM_ERR(e, FSIM_ENOMEM, "out of memory");
        sp--;
        pc++;
        continue;
      }
      if (tk > 0 && in->target >= lp->begin && in->target < pc && walked[in->target] < it_start[sp - 1]) {
        /* back to a block of the body that this iteration jumped over: a latch block placed
         * above (clang -O0 puts a loop's latch right after its header, the body after it and
         * jumps back to it; a cold `if`'s body jumps back to the latch it was placed past);
         * it is walked, and its branch to the header ends the iteration (above) */
        if (!is_uncond(in)) br[pc] |= BR_DECIDED;
        pc = in->target;
        continue;
      }
    }
    int closed = 0;
    while (sp > 0 && k->loops[stack[sp - 1]].end == pc) {
      closed = 1;
      if (path_add(pa, PATH_END(stack[--sp]))) rc = FSIM_ERR(e, FSIM_ENOMEM, "out of memory");
    }
    if (closed || !is_branch(in)) {
      pc++;
      continue;
    }
    int taken = branch_taken(&st, in);
    if (taken < 0) {
      /* a loop's exit test depends on its counter: falling through is what every iteration
       * but the last does */
      int leaves = 0;
      for (int q = 0; q < sp; q++) leaves |= in->target < 0 || !in_loop(k, stack[q], in->target);
      int gh = -1;
      if (!leaves && guards_loop(k, pc, in->target) && keeps_loops(k, pc, in->target)) {
        br[pc] |= BR_GUARD; /* taken, into the guarded loop */
      } else if (!leaves && sp < FSIM_ASM_MAX_LOOPS && (gh = guards_header(k, pc, in->target)) >= 0) {
        /* taken, into the guarded loop at its header: the loop is entered there */
        br[pc] |= BR_GUARD;
        if (enter_loop(k, gh, &st, pa, stack, it_start, &sp)) rc = FSIM_ERR(e, FSIM_ENOMEM, "out of memory");
        pc = in->target;
        continue;
      } else {
        br[pc] |= leaves ? BR_EXIT : BR_UNDECIDED;
        if (!leaves && in->target > pc + 1 && narms < MAX_ARMS)
          arm_from[narms] = pc + 1, arm_to[narms] = in->target, narms++;
        pc++;
        continue;
      }
    } else if (!is_uncond(in)) {
      br[pc] |= BR_DECIDED;
    }
    if (!taken) {
      pc++;
      continue;
    }
    int top = sp > 0 ? stack[sp - 1] : -1;
    if (top >= 0 && in->target >= k->loops[top].begin && in->target <= pc) {
      /* a jump back to the top of the loop from inside its body: the rest of the body is
       * skipped in every iteration (ping-pong's second group skipping its s_setprio 0); and a
       * jump back to a block of the body above it, which the walk of this iteration passed at
       * its top: clang's latch blocks placed above a loop's header, branched back to from the
       * end of an if's arm (the walk ran the body again from there until its step limit, and
       * refused the kernel: an audit, gfx1201 and -O0 code) */
      if (path_add(pa, PATH_END(top))) rc = FSIM_ERR(e, FSIM_ENOMEM, "out of memory");
      sp--;
      pc = k->loops[top].end + 1;
      /* an enclosing loop whose range ends there too (its range widened to a cold block at
       * the end) is done as well: the walk would go on past its end without closing it, and
       * count what follows it once per iteration of it (an audit: a three-deep nest whose
       * middle loop's latch jumps back to its top) */
      while (sp > 0 && rc == FSIM_OK && k->loops[stack[sp - 1]].end < pc)
        if (path_add(pa, PATH_END(stack[--sp]))) rc = FSIM_ERR(e, FSIM_ENOMEM, "out of memory");
      continue;
    }
    if (in->target >= 0 && keeps_loops(k, pc, in->target)) {
      pc = in->target;
      continue;
    }
    /* into the middle of a loop (a rotated loop's entry: the loop is read from its top), or
     * out of one sideways */
    int enters = in->target >= 0;
    for (int l = 0; l < k->nloops && enters; l++)
      if (in_loop(k, l, pc) && (in->target < 0 || !in_loop(k, l, in->target))) enters = 0;
    br[pc] |= enters ? BR_ENTER : BR_STRAIGHT;
    pc++;
  }
  while (sp > 0 && rc == FSIM_OK)
    if (path_add(pa, PATH_END(stack[--sp]))) rc = FSIM_ERR(e, FSIM_ENOMEM, "out of memory");
  ev_free(&st);
  free(walked);
  return rc;
}

/* ---- to a wave program ---------------------------------------------------------------------- */

/* Per class, the template's address patterns in program order, by segment (the straight
 * stretch before top-level loop j is segment 2j, loop j is 2j+1). */
#define N_CLASSES 5
static int class_of(int op) {
  switch (op) {
  case FSIM_OP_LDS_READ: return 0;
  case FSIM_OP_LDS_WRITE: return 1;
  case FSIM_OP_LOAD: return 2;
  case FSIM_OP_LOAD_LDS: return 3;
  case FSIM_OP_STORE: return 4;
  default: return -1;
  }
}

typedef struct addr_list {
  int n, cap;
  int32_t *addr, *addr2; /* all three cap long */
  uint8_t *width;        /* the bytes a lane of the template's access */
} addr_list;

static int list_add(addr_list *l, int32_t a, int32_t a2, int width) {
  if (l->n == l->cap) {
    int nc = l->cap ? 2 * l->cap : 16;
    int32_t *x = realloc(l->addr, (size_t)nc * sizeof *x);
    if (x == NULL) return -1;
    l->addr = x;
    int32_t *y = realloc(l->addr2, (size_t)nc * sizeof *y);
    if (y == NULL) return -1;
    l->addr2 = y;
    uint8_t *w = realloc(l->width, (size_t)nc);
    if (w == NULL) return -1;
    l->width = w;
    l->cap = nc;
  }
  l->addr[l->n] = a;
  l->addr2[l->n] = a2;
  l->width[l->n] = (uint8_t)width;
  l->n++;
  return 0;
}

/* Segment of each template instruction, with loops of one trip folded into the straight
 * stretch around them. */
static void template_segments(const fsim_wp_program *p, int *seg) {
  int b[FSIM_ASM_MAX_LOOPS], en[FSIM_ASM_MAX_LOOPS];
  int64_t t[FSIM_ASM_MAX_LOOPS];
  int nl = fsim_wp_top_loops(p, b, en, t, FSIM_ASM_MAX_LOOPS);
  int j = 0;
  for (int i = 0; i < p->ninst; i++) {
    while (j < nl && i > en[j]) j++;
    seg[i] = (j < nl && i >= b[j]) ? 2 * j + 1 : 2 * j;
  }
}

static int top_loops_asm(const fsim_asm_kernel *k, int *idx) {
  int n = 0;
  for (int i = 0; i < k->nloops; i++) {
    int inside = 0;
    for (int j = 0; j < k->nloops; j++)
      if (j != i && k->loops[j].begin <= k->loops[i].begin && k->loops[j].end >= k->loops[i].end &&
          !(k->loops[j].begin == k->loops[i].begin && k->loops[j].end == k->loops[i].end))
        inside = 1;
    if (!inside) idx[n++] = i;
  }
  return n;
}

static fsim_status copy_template(fsim_wprog *wp, const fsim_wprog *t, fsim_err *e) {
  for (int i = 0; i < t->nlanes; i++) {
    int li = fsim_wprog_add_lanes(wp, t->lanes[i].name, t->lanes[i].rows, e);
    if (li < 0) return e ? e->code : FSIM_ENOMEM;
    memcpy(wp->lanes[li].offset, t->lanes[i].offset, (size_t)t->lanes[i].rows * t->wave_size * sizeof(int32_t));
    memcpy(wp->lanes[li].active, t->lanes[i].active, (size_t)t->lanes[i].rows * sizeof(uint64_t));
  }
  for (int i = 0; i < t->naddrs; i++)
    if (fsim_wprog_add_addr(wp, &t->addrs[i], e) < 0) return e ? e->code : FSIM_ENOMEM;
  return FSIM_OK;
}

/* A synthetic address of the space, shared by all unmatched accesses; a global one at
 * global_base. */
static int synthetic_addr(fsim_wprog *wp, int lds, int64_t global_base, fsim_err *e) {
  const char *name = lds ? "asm_synthetic_lds" : "asm_synthetic_global";
  int ai = fsim_wprog_find_addr(wp, name);
  if (ai >= 0) return ai;
  int li = fsim_wprog_find_lanes(wp, "asm_linear16");
  if (li < 0) {
    li = fsim_wprog_add_lanes(wp, "asm_linear16", 1, e);
    if (li < 0) return -1;
    for (int l = 0; l < wp->wave_size; l++) wp->lanes[li].offset[l] = 16 * l;
  }
  fsim_wp_addr ad;
  memset(&ad, 0, sizeof ad);
  snprintf(ad.name, sizeof ad.name, "%s", name);
  ad.space = (uint8_t)(lds ? FSIM_SPACE_LDS : FSIM_SPACE_GLOBAL);
  ad.lanes = li;
  ad.base = lds ? 0 : global_base;
  return fsim_wprog_add_addr(wp, &ad, e);
}

static const fsim_mfma_entry *find_mfma(const fsim_arch *a, const char *mn, int format) {
  if (strstr(mn, "f8f6f4")) {
    /* the scaled MFMA's timing depends on both operands' formats (cbsz for A, blgp for B: 0 fp8,
     * 1 bf8, 2 fp6, 3 bf6, 4 fp4; add_inst refuses others): an 8-bit operand takes the 8-bit
     * rate whatever the other's (docs/atoms.md), with the fp8 x fp4 row where the part has
     * one; else a 6-bit one the 6-bit rate; else fp4's */
    int bits[2];
    for (int o = 0; o < 2; o++) {
      int f = o == 0 ? format & 15 : format >> 4;
      bits[o] = f <= 1 ? 8 : f <= 3 ? 6 : 4;
    }
    const char *row = bits[0] == 8 || bits[1] == 8 ? (bits[0] == 4 || bits[1] == 4 ? "fp8_fp4" : "fp8")
                      : bits[0] == 6 || bits[1] == 6 ? "fp6" : "fp4";
    char nm[96];
    snprintf(nm, sizeof nm, "%s.%s", mn, row);
    const fsim_mfma_entry *m = fsim_arch_find_mfma(a, nm);
    if (m == NULL && strcmp(row, "fp8_fp4") == 0) { /* no such row: the 8-bit rate */
      snprintf(nm, sizeof nm, "%s.fp8", mn);
      m = fsim_arch_find_mfma(a, nm);
    }
    if (m) return m;
  }
  const fsim_mfma_entry *m = fsim_arch_find_mfma(a, mn);
  if (m) return m;
  for (int i = 0; i < a->n_mfma; i++)
    if (strcmp(a->mfma[i].inst, mn) == 0) return &a->mfma[i];
  /* the legacy 8-bit MFMAs come in four operand-format combinations (fp8 or bf8 each) with one
   * timing (rocRoller's instruction table: the same passes for all four; docs/arch.md); the arch
   * files give the fp8_fp8 row */
  static const char *const combos[] = {"_bf8_fp8", "_fp8_bf8", "_bf8_bf8"};
  for (size_t i = 0; i < sizeof combos / sizeof combos[0]; i++) {
    const char *at = strstr(mn, combos[i]);
    if (at && at[8] == '\0') {
      char nm[96];
      snprintf(nm, sizeof nm, "%.*s_fp8_fp8", (int)(at - mn), mn);
      if ((m = fsim_arch_find_mfma(a, nm)) != NULL) return m;
    }
  }
  /* gfx942 spells some legacy bf16 MFMAs with a _1k suffix in older assemblers */
  char base[64];
  snprintf(base, sizeof base, "%s", mn);
  char *k1 = strstr(base, "_1k");
  if (k1) {
    *k1 = '\0';
    return fsim_arch_find_mfma(a, base);
  }
  return NULL;
}

/* A ds_read2 or ds_write2 is one lgkm count on the hardware but two accesses in the wave
 * program, so a wait for at most n outstanding LDS/SMEM instructions becomes a wait for at most
 * the accesses the last n of them made, counted back along the wave's path from position pe (in
 * a loop that holds the wait, the instructions before the loop's top are those at the end of its
 * body, as in every trip but the first). */
static int lgkm_entries(const fsim_asm_kernel *k, const path *pa, int pe, int n) {
  int need = n, entries = 0, q = pe - 1;
  uint32_t wrapped = 0;
  long steps = 0, limit = 4L * pa->n + 16;
  while (need > 0 && q >= 0 && steps++ < limit) {
    int x = pa->e[q];
    if (x >= 0) {
      const fsim_asm_inst *in = &k->inst[x];
      if (in->op == FSIM_OP_LDS_READ || in->op == FSIM_OP_LDS_WRITE || in->op == FSIM_OP_SMEM) {
        entries += in->pair && in->width >= 2 && in->op != FSIM_OP_SMEM ? 2 : 1;
        need--;
      }
      q--;
      continue;
    }
    int l = -1 - x;
    if (l < FSIM_ASM_MAX_LOOPS && !(wrapped & (1u << l))) {
      /* the top of a loop: if the wait is inside it, go on from the end of its body */
      int depth = 0, r = q;
      for (; r < pa->n; r++) {
        if (pa->e[r] == PATH_BEGIN(l)) depth++;
        else if (pa->e[r] == PATH_END(l) && --depth == 0) break;
      }
      wrapped |= 1u << l;
      if (r < pa->n && r > pe) {
        q = r - 1;
        continue;
      }
    }
    q--;
  }
  return entries + need; /* too little history: one each */
}

/* Opens loop l of the assembly, `depth` deep on the wave's path, in the program.  A wave
 * program's loops nest FSIM_WP_MAX_DEPTH deep at most: a deeper one is an error that names the
 * loop's first line (the wave-program check said "program 0: loops nest deeper than 4"). */
static fsim_status loop_begin(fsim_wp_program *prog, const fsim_asm_kernel *k, int l, int depth, int64_t trip,
                              fsim_err *e) {
  if (depth > FSIM_WP_MAX_DEPTH)
    return FSIM_ERR(e, FSIM_EINVAL,
                    "line %d: loops nest deeper than %d, the most a wave program holds (this loop, to line %d, is %d "
                    "deep)",
                    k->inst[k->loops[l].begin].line, FSIM_WP_MAX_DEPTH, k->inst[k->loops[l].end].line, depth);
  return fsim_wp_program_loop_begin(prog, trip, e);
}

/* The wave program's name for a kernel symbol: the symbol where it fits in n bytes, else its
 * first characters and "..." (a mangled C++ name of 48 characters or more was refused as "too
 * long"); "asm" for none. */
static void wprog_name(const char *symbol, char *name, size_t n) {
  if (symbol == NULL || symbol[0] == '\0') symbol = "asm";
  if (strlen(symbol) < n) snprintf(name, n, "%s", symbol);
  else snprintf(name, n, "%.*s...", (int)(n - 4), symbol);
}

fsim_status fsim_asm_to_wprog(const fsim_asm_kernel *k, const fsim_arch *a, const fsim_asm_wprog_opts *o,
                              fsim_wprog *wp, fsim_asm_wprog_info *info, fsim_err *e) {
  fsim_asm_wprog_info local;
  if (info == NULL) info = &local;
  memset(info, 0, sizeof *info);
  /* unmatched global accesses go after a GEMM plan's A, B and C (fsim_arch_global_region) */
  const int64_t synthetic_base = 3 * fsim_arch_global_region(a);
  const fsim_wprog *t = o ? o->tmpl : NULL;
  char name[FSIM_WP_NAME];
  wprog_name(k->name, name, sizeof name);
  fsim_status st = fsim_wprog_init(wp, name, e);
  if (st != FSIM_OK) return st;
  addr_list lists[2 * FSIM_ASM_MAX_LOOPS + 2][N_CLASSES], whole[N_CLASSES];
  memset(lists, 0, sizeof lists);
  memset(whole, 0, sizeof whole);
  int *tseg = NULL;
  int nseg = 2 * FSIM_ASM_MAX_LOOPS + 2;
  if (t) {
    wp->grid[0] = t->grid[0], wp->grid[1] = t->grid[1], wp->grid[2] = t->grid[2];
    wp->waves_per_wg = t->waves_per_wg;
    wp->wave_size = t->wave_size;
    wp->vgprs = t->vgprs, wp->agprs = t->agprs, wp->sgprs = t->sgprs, wp->lds_bytes = t->lds_bytes;
    wp->remap = t->remap, wp->remap_xcds = t->remap_xcds, wp->group_m = t->group_m;
    snprintf(wp->arch_gfx, sizeof wp->arch_gfx, "%s", t->arch_gfx);
    st = copy_template(wp, t, e);
  } else {
    wp->wave_size = a->cu.wave_size;
    wp->vgprs = k->max_vgpr, wp->agprs = k->max_agpr, wp->sgprs = k->max_sgpr;
    wp->lds_bytes = k->lds_bytes > 0 ? (int)(k->lds_bytes < INT32_MAX ? k->lds_bytes : INT32_MAX) : 0;
    snprintf(wp->arch_gfx, sizeof wp->arch_gfx, "%s", a->device.gfx);
  }
  if (o && o->vgprs >= 0) wp->vgprs = o->vgprs;
  if (o && o->agprs >= 0) wp->agprs = o->agprs;
  if (o && o->sgprs >= 0) wp->sgprs = o->sgprs < a->cu.max_sgprs ? o->sgprs : a->cu.max_sgprs;
  if (o && o->lds_bytes >= 0) wp->lds_bytes = o->lds_bytes;
  /* the template's address patterns by segment and class */
  int tl_b[FSIM_ASM_MAX_LOOPS], tl_e[FSIM_ASM_MAX_LOOPS], tloops = 0;
  int64_t tl_t[FSIM_ASM_MAX_LOOPS];
  if (st == FSIM_OK && t && t->nprograms > 0) {
    const fsim_wp_program *tp = &t->programs[0];
    tloops = fsim_wp_top_loops(tp, tl_b, tl_e, tl_t, FSIM_ASM_MAX_LOOPS);
    tseg = calloc((size_t)(tp->ninst > 0 ? tp->ninst : 1), sizeof *tseg);
    if (tseg == NULL) st = FSIM_ERR(e, FSIM_ENOMEM, "out of memory");
    else template_segments(tp, tseg);
    for (int i = 0; st == FSIM_OK && i < tp->ninst; i++) {
      int c = class_of(tp->inst[i].op);
      if (c < 0) continue;
      int sg = tseg[i] < nseg ? tseg[i] : nseg - 1;
      if (list_add(&lists[sg][c], tp->inst[i].addr, tp->inst[i].addr2, tp->inst[i].width) ||
          list_add(&whole[c], tp->inst[i].addr, tp->inst[i].addr2, tp->inst[i].width))
        st = FSIM_ERR(e, FSIM_ENOMEM, "out of memory");
    }
  }
  int aloops[FSIM_ASM_MAX_LOOPS];
  int natop = top_loops_asm(k, aloops);
  info->matched_by_loop = t != NULL && natop == tloops;
  /* registers: v0.., a0.., s0.., vcc, exec, m0 with consecutive ids per file */
  int vbase = 0, abase = 0, sbase = 0, special = 0;
  char rn[16];
  if (st == FSIM_OK) {
    vbase = wp->nregs;
    for (int i = 0; i < k->max_vgpr && st == FSIM_OK; i++) {
      snprintf(rn, sizeof rn, "v%d", i);
      if (fsim_wprog_reg(wp, rn, e) < 0) st = e ? e->code : FSIM_ENOMEM;
    }
    abase = wp->nregs;
    for (int i = 0; i < k->max_agpr && st == FSIM_OK; i++) {
      snprintf(rn, sizeof rn, "a%d", i);
      if (fsim_wprog_reg(wp, rn, e) < 0) st = e ? e->code : FSIM_ENOMEM;
    }
    sbase = wp->nregs;
    for (int i = 0; i < k->max_sgpr && st == FSIM_OK; i++) {
      snprintf(rn, sizeof rn, "s%d", i);
      if (fsim_wprog_reg(wp, rn, e) < 0) st = e ? e->code : FSIM_ENOMEM;
    }
    special = wp->nregs;
    if (st == FSIM_OK && (fsim_wprog_reg(wp, "vcc", e) < 0 || fsim_wprog_reg(wp, "exec", e) < 0 ||
                          fsim_wprog_reg(wp, "m0", e) < 0))
      st = e ? e->code : FSIM_ENOMEM;
  }
  /* each wave's path through the code; waves on the same path share a program */
  int nw = t && t->waves_per_wg > 0 ? t->waves_per_wg : 1, ws = t ? t->wave_size : a->cu.wave_size;
  path *paths = calloc((size_t)nw, sizeof *paths);
  int *path_of = calloc((size_t)nw, sizeof *path_of), *rep = calloc((size_t)nw + 1, sizeof *rep);
  uint8_t *br = calloc((size_t)k->n + 1, 1);
  if (st == FSIM_OK && (paths == NULL || path_of == NULL || rep == NULL || br == NULL))
    st = FSIM_ERR(e, FSIM_ENOMEM, "out of memory");
  int npaths = 0;
  for (int w = 0; w < nw && st == FSIM_OK; w++) {
    st = walk(k, w, ws, &paths[w], br, e);
    if (st != FSIM_OK) break;
    path_of[w] = -1;
    for (int q = 0; q < npaths && path_of[w] < 0; q++) {
      const path *x = &paths[rep[q]], *y = &paths[w];
      if (x->n == y->n && (x->n == 0 || memcmp(x->e, y->e, (size_t)x->n * sizeof *x->e) == 0)) path_of[w] = q;
    }
    if (path_of[w] < 0) {
      rep[npaths] = w;
      path_of[w] = npaths++;
    }
  }
  for (int i = 0; st == FSIM_OK && i < k->n; i++) {
    if (br[i] & BR_DECIDED) info->branches_decided++;
    if (br[i] & BR_UNDECIDED) info->branches_undecided++;
    if (br[i] & BR_STRAIGHT) info->branches_kept_straight++;
    if (br[i] & BR_EXIT) info->loop_exits++;
    if (br[i] & BR_ENTER) info->loops_entered_midway++;
    if (br[i] & BR_GUARD) info->loop_guards++;
  }
  info->paths = npaths;
  for (int l = 0; st == FSIM_OK && l < k->nloops; l++) {
    int on = 0;
    for (int q = 0; q < npaths && !on; q++)
      for (int x = 0; x < paths[rep[q]].n && !on; x++) on = paths[rep[q]].e[x] == PATH_BEGIN(l);
    info->loops_not_walked += !on;
  }
  int nprog = npaths > 0 ? npaths : 1, fallback = 0;
  if (st == FSIM_OK && npaths == 1 && t && o && o->drop_setprio_for_second_half && t->nprograms >= 2) {
    nprog = 2; /* the old reading: the template's program 1 runs the code without s_setprio */
    fallback = info->setprio_fallback = 1;
    rep[1] = rep[0];
  }
  if (st == FSIM_OK) st = fsim_wprog_set_programs(wp, nprog, e);
  if (st == FSIM_OK) {
    for (int w = 0; w < wp->waves_per_wg && w < nw; w++)
      wp->wave_program[w] = fallback ? (t->wave_program[w] != 0) : path_of[w];
    if (t && !fallback)
      for (int w = 0; w < nw; w++)
        for (int x = 0; x < nw; x++)
          if ((path_of[w] == path_of[x]) != (t->wave_program[w] == t->wave_program[x])) {
            info->wave_path_differs++;
            break;
          }
  }
  /* trip counts of the assembly's loops, in order */
  int64_t trips[FSIM_ASM_MAX_LOOPS];
  for (int i = 0; i < k->nloops; i++) {
    trips[i] = 1;
    if (o && o->trips && i < o->ntrips) trips[i] = o->trips[i] > 0 ? o->trips[i] : 1;
    else if (t && natop == tloops && k->nloops == natop) trips[i] = tl_t[i];
    else info->loops_without_trip++;
  }
  for (int pi = 0; pi < nprog && st == FSIM_OK; pi++) {
    fsim_wp_program *prog = &wp->programs[pi];
    const path *pa = &paths[rep[pi]];
    int nth[2 * FSIM_ASM_MAX_LOOPS + 2][N_CLASSES], nth_whole[N_CLASSES], depth = 0;
    memset(nth, 0, sizeof nth);
    memset(nth_whole, 0, sizeof nth_whole);
    for (int pe = 0; pe < pa->n && st == FSIM_OK; pe++) {
      int i = pa->e[pe];
      if (i < 0) {
        int l = -1 - i;
        if (l < FSIM_ASM_MAX_LOOPS) st = loop_begin(prog, k, l, ++depth, trips[l], e);
        else st = fsim_wp_program_loop_end(prog, e), depth--;
        continue;
      }
      const fsim_asm_inst *ai = &k->inst[i];
      int skip = fallback && pi == 1 && ai->op == FSIM_OP_SETPRIO;
      if (!skip) {
        fsim_wp_inst in;
        memset(&in, 0, sizeof in);
        in.op = ai->op;
        in.width = ai->width;
        in.flags = ai->flags;
        in.addr = in.addr2 = -1;
        if (ai->op == FSIM_OP_WAITCNT) {
          in.arg = (uint16_t)(ai->vmcnt < 0 ? 0xffff : ai->vmcnt);
          int lg = ai->lgkmcnt > 0 ? lgkm_entries(k, pa, pe, ai->lgkmcnt) : ai->lgkmcnt;
          in.arg2 = (uint16_t)(lg < 0 ? 0xffff : lg > 15 ? 15 : lg);
        } else if (ai->op == FSIM_OP_SETPRIO || ai->op == FSIM_OP_NOP) {  /* MFMA's arg is its format */
          in.arg = (uint16_t)ai->arg;
        } else if (ai->op == FSIM_OP_MFMA) {
          const fsim_mfma_entry *m = find_mfma(a, ai->mnemonic, ai->arg);
          if (m == NULL) {
            st = FSIM_ERR(e, FSIM_EINVAL, "line %d: %s has no [mfma.*] timing in %s", ai->line, ai->mnemonic, a->file);
            break;
          }
          in.arg = (uint16_t)(m - a->mfma);
        }
        /* registers */
        for (int r = 0; r < 1 + ai->nsrc; r++) {
          const fsim_asm_reg *x = r == 0 ? &ai->dst : &ai->src[r - 1];
          fsim_wp_reg w = {0, 0};
          switch (x->file) {
          case 'v': w = (fsim_wp_reg){(uint16_t)(vbase + x->first), (uint16_t)x->count}; break;
          case 'a': w = (fsim_wp_reg){(uint16_t)(abase + x->first), (uint16_t)x->count}; break;
          case 's': w = (fsim_wp_reg){(uint16_t)(sbase + x->first), (uint16_t)x->count}; break;
          case 'c': w = (fsim_wp_reg){(uint16_t)special, 1}; break;
          case 'e': w = (fsim_wp_reg){(uint16_t)(special + 1), 1}; break;
          case 'm': w = (fsim_wp_reg){(uint16_t)(special + 2), 1}; break;
          default: break;
          }
          if (r == 0) in.dst = w;
          else if (w.count) in.src[in.nsrc++] = w;
        }
        /* addresses */
        int c = class_of(ai->op);
        const int lds_op = ai->op == FSIM_OP_LDS_READ || ai->op == FSIM_OP_LDS_WRITE;
        if (c >= 0) {
          int sg = 0;
          if (info->matched_by_loop) {
            int j = 0;
            while (j < natop && i > k->loops[aloops[j]].end) j++;
            sg = (j < natop && i >= k->loops[aloops[j]].begin) ? 2 * j + 1 : 2 * j;
            if (sg >= nseg) sg = nseg - 1;
          }
          const addr_list *L = info->matched_by_loop ? &lists[sg][c] : &whole[c];
          int *cnt = info->matched_by_loop ? &nth[sg][c] : &nth_whole[c];
          if (L->n == 0) {
            L = &whole[c];
            cnt = &nth_whole[c];
          }
          /* an LDS pattern the template made for narrower accesses than this one's (a compiled
           * ds_read2st64_b64 where the plan reads 2 bytes a lane) would reach past the bytes it
           * describes, even past the LDS: the synthetic pattern times it instead */
          const int need = ai->pair && in.width >= 2 ? in.width / 2 : in.width;
          int at = L->n > 0 ? *cnt % L->n : -1;
          if (L->n > 0) (*cnt)++;
          if (at >= 0 && !(lds_op && L->width[at] < need)) {
            in.addr = L->addr[at];
            in.addr2 = L->addr2[at];
          } else {
            int lds = ai->op == FSIM_OP_LDS_READ || ai->op == FSIM_OP_LDS_WRITE;
            in.addr = synthetic_addr(wp, lds, synthetic_base, e);
            if (ai->op == FSIM_OP_LOAD_LDS) in.addr2 = synthetic_addr(wp, 1, synthetic_base, e);
            if (in.addr < 0 || (ai->op == FSIM_OP_LOAD_LDS && in.addr2 < 0)) {
              st = e ? e->code : FSIM_ENOMEM;
              break;
            }
            if (pi == 0) info->synthetic++;
          }
        }
        if (ai->pair && c >= 0 && in.width >= 2) {
          /* two accesses of half the width, the second with the next pattern of the class */
          in.width /= 2;
          /* each access writes its half of the destination (ds_read2_b64 v[8:11]: v[8:9],
           * then v[10:11]), so a reader of one half waits for that half's data */
          int half = in.dst.count >= 2 ? in.dst.count / 2 : 0;
          if (half) in.dst.count = (uint16_t)half;
          if (fsim_wp_program_append(prog, &in, e) < 0) {
            st = e ? e->code : FSIM_ENOMEM;
            break;
          }
          int sg2 = 0;
          if (info->matched_by_loop) {
            int j = 0;
            while (j < natop && i > k->loops[aloops[j]].end) j++;
            sg2 = (j < natop && i >= k->loops[aloops[j]].begin) ? 2 * j + 1 : 2 * j;
            if (sg2 >= nseg) sg2 = nseg - 1;
          }
          const addr_list *L2 = info->matched_by_loop ? &lists[sg2][c] : &whole[c];
          int *cnt2 = info->matched_by_loop ? &nth[sg2][c] : &nth_whole[c];
          if (L2->n == 0) L2 = &whole[c], cnt2 = &nth_whole[c];
          if (L2->n > 0) {
            int at = *cnt2 % L2->n;
            (*cnt2)++;
            if (!(lds_op && L2->width[at] < in.width)) {
              in.addr = L2->addr[at];
            } else {
              in.addr = synthetic_addr(wp, 1, synthetic_base, e);
              if (in.addr < 0) {
                st = e ? e->code : FSIM_ENOMEM;
                break;
              }
              if (pi == 0) info->synthetic++;
            }
          }
          if (half) in.dst.first = (uint16_t)(in.dst.first + half);
          /* the instruction read its address (and data) once, at issue: the second access
           * does not wait for the first's data, even when the address register is also the
           * destination (ds_read2st64_b64 v[74:77], v74) */
          in.nsrc = 0;
        }
        if (fsim_wp_program_append(prog, &in, e) < 0) {
          st = e ? e->code : FSIM_ENOMEM;
          break;
        }
      }
    }
    /* s_endpgm: the kernel is not done until its stores are, as the wave programs that
     * kernels/ makes end with a wait for them */
    fsim_wp_inst fin = {.op = FSIM_OP_WAITCNT, .arg = 0, .arg2 = 0, .addr = -1, .addr2 = -1};
    if (st == FSIM_OK && fsim_wp_program_append(prog, &fin, e) < 0) st = e ? e->code : FSIM_ENOMEM;
  }
  /* the synthetic LDS pattern (16 bytes a lane from 0) stands in for addresses the text does
   * not give: the kernel's LDS must hold it, whatever the descriptor says (or when there is
   * none), so that it is timed rather than refused as out of bounds */
  if (st == FSIM_OK && t == NULL && fsim_wprog_find_addr(wp, "asm_synthetic_lds") >= 0 &&
      wp->lds_bytes < 16 * wp->wave_size)
    wp->lds_bytes = 16 * wp->wave_size;
  for (int s = 0; s < nseg; s++)
    for (int c = 0; c < N_CLASSES; c++) free(lists[s][c].addr), free(lists[s][c].addr2), free(lists[s][c].width);
  for (int c = 0; c < N_CLASSES; c++) free(whole[c].addr), free(whole[c].addr2), free(whole[c].width);
  for (int w = 0; paths && w < nw; w++) free(paths[w].e);
  free(paths);
  free(path_of);
  free(rep);
  free(br);
  free(tseg);
  if (st != FSIM_OK) fsim_wprog_free(wp);
  return st;
}
