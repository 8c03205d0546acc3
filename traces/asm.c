/* AMDGPU assembly to wave programs: see asm.h.
 *
 * The parser is line-oriented.  A kernel starts at "name:" in column 0 (clang -S) or at
 * "ADDR <name>:" (llvm-objdump) and runs to the next one, or to a .Lfunc_end label; whatever
 * follows its last s_endpgm (objdump's s_nop padding) is dropped.  Comments (';', '//') are
 * removed after the objdump address has been read from them.  Branch targets are labels
 * (clang -S) or <name+0xOFFSET> (objdump); a branch to an earlier block from which it can be
 * reached again closes a loop (a search over the basic blocks).
 *
 * Classification goes by mnemonic prefix, as the ISA names its encodings: v_mfma, v_smfmac,
 * v_wmma and v_swmmac are matrix instructions; other v_ are VALU; s_load, s_buffer_load and
 * s_store are SMEM; ds_read/ds_load and ds_write/ds_store are LDS reads and writes; buffer_,
 * global_, flat_ and scratch_ loads are VMEM loads (direct-to-LDS when the mnemonic has _lds or
 * the operands end in "lds"), their stores and atomics VMEM stores.  A mnemonic that is none of
 * these counts as VALU and is counted in `unknown`. */
#include "config.h"

#include "traces/asm.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

typedef struct label {
  char name[64];
  int inst;    /* the instruction the label precedes */
} label;

typedef struct pending {
  int inst;          /* branch instruction */
  char label[64];    /* clang -S target */
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
static int parse_reg(const char *t, fsim_asm_reg *r) {
  while (*t == '-' || *t == '|' || *t == '!') t++;
  if (starts(t, "neg(") || starts(t, "abs(")) t += 4;
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
static int width_of(const char *mn) {
  static const struct {
    const char *suffix;
    int bytes;
  } tab[] = {{"dwordx4", 16}, {"dwordx3", 12}, {"dwordx2", 8}, {"dword", 4}, {"b128", 16}, {"b96", 12},
             {"b64", 8},      {"b32", 4},      {"b16", 2},     {"b8", 1},    {"ushort", 2}, {"sshort", 2},
             {"short", 2},    {"ubyte", 1},    {"sbyte", 1},   {"u16", 2},   {"i16", 2},    {"u8", 1},
             {"i8", 1},       {"x2", 8},       {"f64", 8}};
  const char *best = NULL;
  int bytes = 4;
  /* the last matching suffix token in the mnemonic wins (ds_read_b64_tr_b16 is read first) */
  for (size_t i = 0; i < sizeof tab / sizeof tab[0]; i++) {
    const char *p = strstr(mn, tab[i].suffix);
    while (p) {
      int at_token = p > mn && p[-1] == '_';
      if (at_token && (best == NULL || p < best)) best = p, bytes = tab[i].bytes;
      p = strstr(p + 1, tab[i].suffix);
    }
  }
  return bytes;
}

static int lds_width(const char *mn) {
  if (strstr(mn, "_tr_b16") || strstr(mn, "_tr_b8") || strstr(mn, "_tr_b4")) return 8;
  if (strstr(mn, "_tr_b6")) return 12;
  int w = width_of(mn);
  if (strstr(mn, "read2") || strstr(mn, "write2") || strstr(mn, "load_2") || strstr(mn, "store_2")) w *= 2;
  return w > 16 ? 16 : w;
}

/* ---- classification ------------------------------------------------------------------------- */

static void parse_waitcnt(const char *mn, const char *ops, fsim_asm_inst *in) {
  in->vmcnt = in->lgkmcnt = -1;
  const char *p;
  if (strcmp(mn, "s_waitcnt") == 0) {
    if ((p = strstr(ops, "vmcnt(")) != NULL) in->vmcnt = atoi(p + 6);
    if ((p = strstr(ops, "lgkmcnt(")) != NULL) in->lgkmcnt = atoi(p + 8);
    if (in->vmcnt < 0 && in->lgkmcnt < 0 && strchr(ops, '(') == NULL && *ops) {
      /* a raw immediate: gfx9 encoding, vmcnt [3:0]+[15:14], lgkmcnt [11:8] */
      long v = strtol(ops, NULL, 0);
      int vm = (int)((v & 0xf) | ((v >> 14) & 3) << 4), lg = (int)((v >> 8) & 0xf);
      if (vm != 63) in->vmcnt = vm;
      if (lg != 15) in->lgkmcnt = lg;
    }
    return;
  }
  long v = strtol(ops, NULL, 0);
  if (strcmp(mn, "s_wait_loadcnt") == 0 || strcmp(mn, "s_wait_storecnt") == 0) in->vmcnt = (int)v;
  else if (strcmp(mn, "s_wait_dscnt") == 0 || strcmp(mn, "s_wait_kmcnt") == 0) in->lgkmcnt = (int)v;
  else if (strcmp(mn, "s_wait_loadcnt_dscnt") == 0 || strcmp(mn, "s_wait_storecnt_dscnt") == 0) {
    in->vmcnt = (int)((v >> 8) & 0x3f);
    in->lgkmcnt = (int)(v & 0x3f);
  } else if (strcmp(mn, "s_waitcnt_vscnt") == 0 || strcmp(mn, "s_waitcnt_vmcnt") == 0) {
    const char *c = strchr(ops, ',');
    in->vmcnt = (int)strtol(c ? c + 1 : ops, NULL, 0);
  } else if (strcmp(mn, "s_waitcnt_lgkmcnt") == 0) {
    const char *c = strchr(ops, ',');
    in->lgkmcnt = (int)strtol(c ? c + 1 : ops, NULL, 0);
  }
}

/* Fills op, width, flags and the register operands; returns 0 if the mnemonic is unknown
 * (it is then a VALU). */
static int classify(fsim_asm_inst *in, const char *ops) {
  const char *mn = in->mnemonic;
  fsim_asm_reg regs[8];
  int nr = operand_regs(ops, regs, 8);
  int has_dst = 1, known = 1;
  in->vmcnt = in->lgkmcnt = -1;
  in->target = -1;
  if (starts(mn, "v_mfma") || starts(mn, "v_smfmac") || starts(mn, "v_wmma") || starts(mn, "v_swmmac")) {
    in->op = FSIM_OP_MFMA;
    const char *cb = strstr(ops, "cbsz:");
    in->arg = cb ? atoi(cb + 5) : 0;
  } else if (starts(mn, "v_")) {
    in->op = FSIM_OP_VALU;
    if (starts(mn, "v_cmp") && strstr(mn, "_e32")) has_dst = 0; /* writes vcc implicitly */
    if (starts(mn, "v_nop")) has_dst = 0;
  } else if (starts(mn, "ds_")) {
    int rd = starts(mn, "ds_read") || starts(mn, "ds_load") || starts(mn, "ds_bpermute") || starts(mn, "ds_permute") ||
             starts(mn, "ds_swizzle");
    in->op = rd ? FSIM_OP_LDS_READ : FSIM_OP_LDS_WRITE;
    in->width = (uint8_t)lds_width(mn);
    if (strstr(mn, "_tr_")) in->flags |= FSIM_IF_TRANSPOSE;
    in->pair = strstr(mn, "read2") || strstr(mn, "write2") || strstr(mn, "load_2") || strstr(mn, "store_2");
    has_dst = rd;
  } else if (starts(mn, "buffer_") || starts(mn, "global_") || starts(mn, "flat_") || starts(mn, "scratch_")) {
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
    if (strstr(mn, "atomic")) in->width = strstr(mn, "_x2") || strstr(mn, "f64") ? 8 : 4;
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
    in->op = FSIM_OP_SETPRIO;
    in->arg = (int)strtol(ops, NULL, 0);
    nr = 0;
  } else if (strcmp(mn, "s_nop") == 0 || strcmp(mn, "s_sleep") == 0 || strcmp(mn, "s_delay_alu") == 0) {
    in->op = FSIM_OP_NOP;
    long v = strcmp(mn, "s_delay_alu") == 0 ? 0 : strtol(ops, NULL, 0);
    in->arg = strcmp(mn, "s_sleep") == 0 ? (int)(64 * (v > 0 ? v : 1)) : (int)v + 1;
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
  int at = 0;
  if (has_dst && nr > 0) in->dst = regs[at++];
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
  long long func_addr;   /* objdump: the kernel symbol's address */
  int pending_labels;    /* labels seen since the last instruction */
} parser;

static int is_ident(char c) { return isalnum((unsigned char)c) || c == '_' || c == '.' || c == '$'; }

/* "name:" in column 0 (not a local .L label) or objdump "0000... <name>:": the kernel name. */
static int function_start(const char *line, char *name, size_t n, long long *addr) {
  *addr = -1;
  if (isxdigit((unsigned char)line[0])) {
    char *end;
    long long a = strtoll(line, &end, 16);
    if (end[0] == ' ' && end[1] == '<') {
      const char *s = end + 2, *gt = strstr(s, ">:");
      if (gt == NULL) return 0;
      snprintf(name, n, "%.*s", (int)(gt - s), s);
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
  snprintf(name, n, "%.*s", (int)(c - line), line);
  return 1;
}

static fsim_status perr(parser *p, int line, const char *fmt, const char *arg) {
  return fsim__err_set(p->e, FSIM_EINVAL, __FILE__, __LINE__, "%s:%d: %s%s", p->source, line, fmt, arg ? arg : "");
}

static fsim_status add_inst(parser *p, const char *text, int line) {
  fsim_asm_kernel *k = p->k;
  /* objdump: "mnemonic ops   // 000000001608: HEX <k+0x68>" */
  long long addr = -1, target = -1;
  char body[1024];
  snprintf(body, sizeof body, "%s", text);
  char *cm = strstr(body, "//");
  if (cm) {
    char *end;
    long long a = strtoll(cm + 2, &end, 16);
    if (end != cm + 2 && *end == ':') addr = a;
    char *lt = strchr(cm, '<');
    if (lt) {
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
  if (s[0] == '.') {
    if (s[L - 1] == ':') { /* a label */
      if (grow((void **)&p->labels, &p->labels_cap, p->nlabels + 1, sizeof *p->labels))
        return FSIM_ERR(p->e, FSIM_ENOMEM, "out of memory");
      snprintf(p->labels[p->nlabels].name, sizeof p->labels[0].name, "%.*s", (int)(L - 1), s);
      p->labels[p->nlabels++].inst = k->n;
    }
    return FSIM_OK; /* a directive */
  }
  if (s[L - 1] == ':') return FSIM_OK; /* another label form */
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
  p->addr[k->n] = addr;
  if (in->op == FSIM_OP_BRANCH && (starts(in->mnemonic, "s_branch") || starts(in->mnemonic, "s_cbranch"))) {
    if (grow((void **)&p->pend, &p->pend_cap, p->npend + 1, sizeof *p->pend))
      return FSIM_ERR(p->e, FSIM_ENOMEM, "out of memory");
    pending *pd = &p->pend[p->npend++];
    pd->inst = k->n;
    pd->addr = target;
    pd->label[0] = '\0';
    if (target < 0 && s[0] == '.') snprintf(pd->label, sizeof pd->label, "%s", s);
  }
  for (int i = 0; i <= in->nsrc; i++) {
    const fsim_asm_reg *r = i == 0 ? &in->dst : &in->src[i - 1];
    int top = r->first + r->count;
    if (r->file == 'v' && top > k->max_vgpr) k->max_vgpr = top;
    if (r->file == 'a' && top > k->max_agpr) k->max_agpr = top;
    if (r->file == 's' && top > k->max_sgpr) k->max_sgpr = top;
  }
  k->n++;
  return FSIM_OK;
}

/* Basic blocks and their successors.  A backward branch closes a loop when its own block can
 * be reached again from its target, so a cycle runs through it (this takes rotated loops,
 * which are entered in the middle, too); compilers also jump backwards from blocks they
 * placed out of line to where the straight code continues, and those are not loops. */
typedef struct cfg {
  int nb;
  int *start;     /* first instruction of each block */
  int *block_of;  /* per instruction */
  int (*succ)[2]; /* per block: up to two successors, -1 for none */
  char *seen;     /* search scratch */
  int *stack;
} cfg;

static int is_uncond(const fsim_asm_inst *in) { return strncmp(in->mnemonic, "s_branch", 8) == 0; }
static int is_branch(const fsim_asm_inst *in) {
  return strncmp(in->mnemonic, "s_branch", 8) == 0 || strncmp(in->mnemonic, "s_cbranch", 9) == 0;
}

static int cfg_build(const fsim_asm_kernel *k, cfg *g) {
  memset(g, 0, sizeof *g);
  int n = k->n;
  char *leader = calloc((size_t)n + 1, 1);
  g->block_of = malloc(((size_t)n + 1) * sizeof *g->block_of);
  g->start = malloc(((size_t)n + 1) * sizeof *g->start);
  g->succ = malloc(((size_t)n + 1) * sizeof *g->succ);
  g->seen = malloc((size_t)n + 1);
  g->stack = malloc(((size_t)n + 1) * sizeof *g->stack);
  if (leader == NULL || !g->block_of || !g->start || !g->succ || !g->seen || !g->stack) return free(leader), -1;
  if (n > 0) leader[0] = 1;
  for (int i = 0; i < n; i++)
    if (is_branch(&k->inst[i])) {
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
    if (!(is_branch(in) && is_uncond(in)) && b + 1 < g->nb) g->succ[b][ns++] = b + 1;
    if (is_branch(in) && in->target >= 0 && in->target < n) g->succ[b][ns++] = g->block_of[in->target];
  }
  return 0;
}

static int reaches(cfg *g, int from, int to) {
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
      if (!g->seen[s2]) g->seen[s2] = 1, g->stack[sp++] = s2;
    }
  }
  return 0;
}

static void cfg_free(cfg *g) {
  free(g->start);
  free(g->block_of);
  free(g->succ);
  free(g->seen);
  free(g->stack);
}

static fsim_status resolve(parser *p) {
  fsim_asm_kernel *k = p->k;
  for (int i = 0; i < p->npend; i++) {
    pending *pd = &p->pend[i];
    if (pd->inst >= k->n) continue; /* after the last s_endpgm */
    int t = -1;
    if (pd->addr >= 0) {
      for (int j = 0; j < k->n && t < 0; j++)
        if (p->addr[j] == pd->addr) t = j;
    } else if (pd->label[0]) {
      for (int j = 0; j < p->nlabels && t < 0; j++)
        if (strcmp(p->labels[j].name, pd->label) == 0) t = p->labels[j].inst;
    }
    k->inst[pd->inst].target = t < k->n ? t : -1;
  }
  cfg g;
  if (cfg_build(k, &g) != 0) {
    cfg_free(&g);
    return FSIM_ERR(p->e, FSIM_ENOMEM, "out of memory");
  }
  for (int i = 0; i < k->n; i++) {
    int t = k->inst[i].target;
    if (!is_branch(&k->inst[i]) || t < 0 || t > i) continue;
    if (g.block_of[t] != g.block_of[i] && !reaches(&g, g.block_of[t], g.block_of[i])) continue;
    /* a loop is its header: several backward branches to it (latches) make one loop */
    int same = -1;
    for (int l = 0; l < k->nloops && same < 0; l++)
      if (k->loops[l].begin == t) same = l;
    if (same >= 0) {
      if (i > k->loops[same].end) k->loops[same].end = i;
      continue;
    }
    if (k->nloops == FSIM_ASM_MAX_LOOPS) {
      cfg_free(&g);
      return perr(p, k->inst[i].line, "more loops than the reader keeps", NULL);
    }
    k->loops[k->nloops].begin = t;
    k->loops[k->nloops].end = i;
    k->nloops++;
  }
  cfg_free(&g);
  /* sort by begin (outer first on ties), then check nesting */
  for (int i = 1; i < k->nloops; i++) {
    fsim_asm_loop x = k->loops[i];
    int j = i;
    while (j > 0 && (k->loops[j - 1].begin > x.begin || (k->loops[j - 1].begin == x.begin && k->loops[j - 1].end < x.end))) {
      k->loops[j] = k->loops[j - 1];
      j--;
    }
    k->loops[j] = x;
  }
  for (int i = 0; i < k->nloops; i++)
    for (int j = i + 1; j < k->nloops; j++) {
      const fsim_asm_loop *a = &k->loops[i], *b = &k->loops[j];
      int disjoint = b->begin > a->end, inside = b->begin >= a->begin && b->end <= a->end;
      if (!disjoint && !inside)
        return perr(p, k->inst[b->end].line, "loops overlap without nesting (irreducible control flow)", NULL);
    }
  return FSIM_OK;
}

fsim_status fsim_asm_parse(fsim_asm_kernel *k, const char *text, const char *source, const char *kernel, fsim_err *e) {
  memset(k, 0, sizeof *k);
  parser p = {.k = k, .source = source ? source : "assembly", .e = e, .func_addr = 0};
  int in_kernel = 0, done = 0, line = 0;
  fsim_status st = FSIM_OK;
  const char *s = text;
  char buf[1024];
  while (*s && !done && st == FSIM_OK) {
    const char *nl = strchr(s, '\n');
    size_t len = nl ? (size_t)(nl - s) : strlen(s);
    line++;
    snprintf(buf, sizeof buf, "%.*s", (int)(len < sizeof buf - 1 ? len : sizeof buf - 1), s);
    s = nl ? nl + 1 : s + len;
    char name[128];
    long long faddr;
    if (function_start(buf, name, sizeof name, &faddr)) {
      if (in_kernel) {
        done = 1;
        break;
      }
      if (kernel == NULL || strcmp(kernel, name) == 0) {
        in_kernel = 1;
        snprintf(k->name, sizeof k->name, "%s", name);
        p.func_addr = faddr >= 0 ? faddr : 0;
      }
      continue;
    }
    if (!in_kernel) continue;
    if (starts(buf, ".Lfunc_end")) {
      done = 1;
      break;
    }
    st = add_inst(&p, buf, line);
  }
  if (st == FSIM_OK && !in_kernel)
    st = kernel ? perr(&p, line, "no kernel named ", kernel) : perr(&p, line, "no kernel found in the assembly", NULL);
  if (st == FSIM_OK) {
    /* drop what follows the last s_endpgm (padding) */
    int last = -1;
    for (int i = 0; i < k->n; i++)
      if (strcmp(k->inst[i].mnemonic, "s_endpgm") == 0) last = i;
    if (last < 0) st = perr(&p, line, "the kernel has no s_endpgm", NULL);
    else k->n = last; /* s_endpgm itself ends the program */
  }
  if (st == FSIM_OK) st = resolve(&p);
  free(p.labels);
  free(p.pend);
  free(p.addr);
  if (st != FSIM_OK) fsim_asm_free(k);
  return st;
}

void fsim_asm_free(fsim_asm_kernel *k) {
  if (k == NULL) return;
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
  int32_t *addr, *addr2; /* both cap long */
} addr_list;

static int list_add(addr_list *l, int32_t a, int32_t a2) {
  if (l->n == l->cap) {
    int nc = l->cap ? 2 * l->cap : 16;
    int32_t *x = realloc(l->addr, (size_t)nc * sizeof *x);
    if (x == NULL) return -1;
    l->addr = x;
    int32_t *y = realloc(l->addr2, (size_t)nc * sizeof *y);
    if (y == NULL) return -1;
    l->addr2 = y;
    l->cap = nc;
  }
  l->addr[l->n] = a;
  l->addr2[l->n] = a2;
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

/* A synthetic address of the space, shared by all unmatched accesses. */
static int synthetic_addr(fsim_wprog *wp, int lds, fsim_err *e) {
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
  ad.base = lds ? 0 : (int64_t)3 << 40;
  return fsim_wprog_add_addr(wp, &ad, e);
}

static const fsim_mfma_entry *find_mfma(const fsim_arch *a, const char *mn, int format) {
  if (strstr(mn, "f8f6f4")) {
    /* the scaled MFMA's timing depends on its operand formats (cbsz/blgp: 0 fp8, 1 bf8,
     * 2 fp6, 3 bf6, 4 fp4); the A format picks the arch entry */
    static const char *fmt[] = {"fp8", "bf8", "fp6", "bf6", "fp4"};
    char nm[96];
    snprintf(nm, sizeof nm, "%s.%s", mn, fmt[format >= 0 && format < 5 ? format : 0]);
    const fsim_mfma_entry *m = fsim_arch_find_mfma(a, nm);
    if (m) return m;
  }
  const fsim_mfma_entry *m = fsim_arch_find_mfma(a, mn);
  if (m) return m;
  for (int i = 0; i < a->n_mfma; i++)
    if (strcmp(a->mfma[i].inst, mn) == 0) return &a->mfma[i];
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

fsim_status fsim_asm_to_wprog(const fsim_asm_kernel *k, const fsim_arch *a, const fsim_asm_wprog_opts *o,
                              fsim_wprog *wp, fsim_asm_wprog_info *info, fsim_err *e) {
  fsim_asm_wprog_info local;
  if (info == NULL) info = &local;
  memset(info, 0, sizeof *info);
  const fsim_wprog *t = o ? o->tmpl : NULL;
  fsim_status st = fsim_wprog_init(wp, k->name[0] ? k->name : "asm", e);
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
      if (list_add(&lists[sg][c], tp->inst[i].addr, tp->inst[i].addr2) || list_add(&whole[c], tp->inst[i].addr, tp->inst[i].addr2))
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
  int nprog = 1;
  if (st == FSIM_OK && t && o && o->drop_setprio_for_second_half && t->nprograms >= 2) nprog = 2;
  if (st == FSIM_OK) st = fsim_wprog_set_programs(wp, nprog, e);
  if (st == FSIM_OK && t) {
    for (int w = 0; w < wp->waves_per_wg; w++) wp->wave_program[w] = nprog == 2 ? (t->wave_program[w] != 0) : 0;
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
    int nth[2 * FSIM_ASM_MAX_LOOPS + 2][N_CLASSES], nth_whole[N_CLASSES];
    memset(nth, 0, sizeof nth);
    memset(nth_whole, 0, sizeof nth_whole);
    for (int i = 0; i < k->n && st == FSIM_OK; i++) {
      for (int l = 0; l < k->nloops && st == FSIM_OK; l++)
        if (k->loops[l].begin == i) st = fsim_wp_program_loop_begin(prog, trips[l], e);
      if (st != FSIM_OK) break;
      const fsim_asm_inst *ai = &k->inst[i];
      int skip = pi == 1 && ai->op == FSIM_OP_SETPRIO;
      if (!skip) {
        fsim_wp_inst in;
        memset(&in, 0, sizeof in);
        in.op = ai->op;
        in.width = ai->width;
        in.flags = ai->flags;
        in.addr = in.addr2 = -1;
        if (ai->op == FSIM_OP_WAITCNT) {
          in.arg = (uint16_t)(ai->vmcnt < 0 ? 0xffff : ai->vmcnt);
          in.arg2 = (uint16_t)(ai->lgkmcnt < 0 ? 0xffff : ai->lgkmcnt);
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
        const fsim_asm_reg *regs[4] = {&ai->dst, &ai->src[0], &ai->src[1], &ai->src[2]};
        for (int r = 0; r < 1 + ai->nsrc; r++) {
          const fsim_asm_reg *x = regs[r];
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
        /* an MFMA with an immediate accumulator (0 on the first K step) reads its destination in
         * the wave-program form, which always has three sources */
        if (in.op == FSIM_OP_MFMA && in.nsrc == 2) in.src[in.nsrc++] = in.dst;
        /* addresses */
        int c = class_of(ai->op);
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
          if (L->n > 0) {
            int at = *cnt % L->n;
            (*cnt)++;
            in.addr = L->addr[at];
            in.addr2 = L->addr2[at];
          } else {
            int lds = ai->op == FSIM_OP_LDS_READ || ai->op == FSIM_OP_LDS_WRITE;
            in.addr = synthetic_addr(wp, lds, e);
            if (ai->op == FSIM_OP_LOAD_LDS) in.addr2 = synthetic_addr(wp, 1, e);
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
            in.addr = L2->addr[at];
          }
          in.dst.count = in.dst.count > 1 ? in.dst.count / 2 : in.dst.count;
        }
        if (fsim_wp_program_append(prog, &in, e) < 0) {
          st = e ? e->code : FSIM_ENOMEM;
          break;
        }
      }
      for (int l = k->nloops - 1; l >= 0 && st == FSIM_OK; l--)
        if (k->loops[l].end == i) st = fsim_wp_program_loop_end(prog, e);
    }
    /* s_endpgm: the kernel is not done until its stores are, as the wave programs that
     * kernels/ makes end with a wait for them */
    fsim_wp_inst fin = {.op = FSIM_OP_WAITCNT, .arg = 0, .arg2 = 0, .addr = -1, .addr2 = -1};
    if (st == FSIM_OK && fsim_wp_program_append(prog, &fin, e) < 0) st = e ? e->code : FSIM_ENOMEM;
  }
  for (int s = 0; s < nseg; s++)
    for (int c = 0; c < N_CLASSES; c++) free(lists[s][c].addr), free(lists[s][c].addr2);
  for (int c = 0; c < N_CLASSES; c++) free(whole[c].addr), free(whole[c].addr2);
  free(tseg);
  if (st != FSIM_OK) fsim_wprog_free(wp);
  return st;
}
