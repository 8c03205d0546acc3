/* The text form of wave programs: a small line-oriented language of our own (docs/traces.md),
 * read by a hand-written parser because no standard format fits it.  Every error names the
 * file and line.  fsim_wprog_print writes the same language, and parsing its output gives
 * back an equal description (tests/check_sim.c checks the round trip).
 *
 *   kernel NAME
 *   grid X [Y [Z]]
 *   waves N
 *   resources vgprs=N agprs=N sgprs=N lds=BYTES
 *   remap none | xcd N [group_m G]
 *   lanes NAME [rows=R] [active=MASK] = linear STRIDE [wave=STRIDE] | V0 V1 ... (R x wave_size values)
 *   addr NAME global|lds lanes=L [base=B] [wave=S] [wg=SX,SY,SZ] [iter=LEVEL:STRIDE[:MOD[:PHASE]]]...
 *   program [waves=LIST]
 *     INSTRUCTION...
 *
 * Instructions: salu, valu [cycles=N], mfma INST, lds_read bW [tr], lds_write bW, load bW,
 * store bW, load_lds bW, smem, branch, waitcnt [vmcnt=N] [lgkmcnt=N], barrier, setprio N, nop N,
 * loop N ... end.  Registers: "DST <- SRC SRC"; addresses: "@NAME". */
#include "config.h"

#include "traces/wprog.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "util/file.h"

#define MAX_TOKENS 4200

typedef struct parser {
  fsim_wprog *wp;
  const fsim_arch *a;
  const char *src;   /* file name for messages */
  int line;
  fsim_err *e;
  int cur_program;   /* -1 before the first "program" */
  int seen_waves;      /* the line of waves (0: not yet) */
  int first_line[3];   /* the lines of kernel, grid and remap (0: not yet) */
  int first_res[4];    /* the lines of resources vgprs=, agprs=, sgprs=, lds= */
  int programs_declared;
  int8_t assigned[32]; /* per wave (waves takes 1..32): 1 once a program line lists it */
  /* program declarations are collected first, then created when the first one opens */
  char *tok[MAX_TOKENS];
  int ntok;
  /* where the instructions came from, for the checks made after parsing: instructions
   * `first` on of program `prog` came from line `line` (up to the next run of the program) */
  struct inst_run {
    int prog, first, line;
  } *runs;
  int nruns, runs_cap;
  int *addr_line;      /* per address pattern: the line that declared it */
  int addr_line_cap;
} parser;

/* Notes that the current line appended instructions `first` on to the current program. */
static fsim_status note_run(parser *p, int first) {
  if (p->nruns == p->runs_cap) {
    int cap = p->runs_cap ? 2 * p->runs_cap : 64;
    struct inst_run *r = realloc(p->runs, (size_t)cap * sizeof *r);
    if (r == NULL) return FSIM_ERR(p->e, FSIM_ENOMEM, "out of memory");
    p->runs = r;
    p->runs_cap = cap;
  }
  p->runs[p->nruns++] = (struct inst_run){p->cur_program, first, p->line};
  return FSIM_OK;
}

/* The line instruction inst of program prog came from; 0 if unknown. */
static int run_line(const parser *p, int prog, int inst) {
  int line = 0;
  for (int i = 0; i < p->nruns; i++)
    if (p->runs[i].prog == prog && p->runs[i].first <= inst) line = p->runs[i].line;
  return line;
}

#define PERR(p, ...) perr_at((p), __FILE__, __LINE__, __VA_ARGS__)
static fsim_status perr_at(parser *p, const char *file, int line, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
#include <stdarg.h>
static fsim_status perr_at(parser *p, const char *file, int line, const char *fmt, ...) {
  char msg[600];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  return fsim__err_set(p->e, FSIM_EINVAL, file, line, "%s:%d: %s", p->src, p->line, msg);
}

/* The base of the digits at d: 16 after 0x, 10 for a decimal without a leading zero, 0 when
 * they are neither (a leading zero is refused rather than read as octal: "loop 010" is not 8). */
static int number_base(const char *d) {
  if (d[0] == '0' && (d[1] == 'x' || d[1] == 'X')) return isxdigit((unsigned char)d[2]) ? 16 : 0;
  if (d[0] == '0' && d[1] != '\0') return 0;
  return isdigit((unsigned char)d[0]) ? 10 : 0;
}

/* A decimal integer, or hexadecimal after 0x (number_base), with an optional sign. */
/* 0, -1 when s is not an integer, -2 when it is one beyond 64 bits */
static int parse_i64(const char *s, int64_t *out) {
  char *end;
  int base = number_base(s + (*s == '-' || *s == '+'));
  if (base == 0) return -1;
  errno = 0;
  long long v = strtoll(s, &end, base);
  if (*s == '\0' || *end != '\0') return -1;
  if (errno == ERANGE) return -2;
  *out = v;
  return 0;
}

static fsim_status want_int(parser *p, const char *what, const char *s, int64_t lo, int64_t hi, int64_t *out) {
  int r = parse_i64(s, out);
  if (r == -2) return PERR(p, "%s: %s is out of range [%" PRId64 ", %" PRId64 "]", what, s, lo, hi);
  if (r != 0) return PERR(p, "%s: '%s' is not an integer", what, s);
  if (*out < lo || *out > hi)
    return PERR(p, "%s: %" PRId64 " is out of range [%" PRId64 ", %" PRId64 "]", what, *out, lo, hi);
  return FSIM_OK;
}

/* "key=value" -> value if the key matches, else NULL. */
static const char *kv(const char *tok, const char *key) {
  size_t n = strlen(key);
  return strncmp(tok, key, n) == 0 && tok[n] == '=' ? tok + n + 1 : NULL;
}

static fsim_status ensure_programs(parser *p) {
  if (p->wp->programs != NULL) return FSIM_OK;
  /* One program per "program" line is unknown in advance: start with waves_per_wg slots
   * and trim nothing (unused programs are never assigned and are skipped by print). */
  return fsim_wprog_set_programs(p->wp, p->wp->waves_per_wg, p->e) == FSIM_OK ? FSIM_OK : PERR(p, "%s", p->e->msg);
}

static fsim_status check_reg_name(parser *p, const char *name) {
  if (!isalpha((unsigned char)name[0]) && name[0] != '_') return PERR(p, "'%s' is not a register name", name);
  for (const char *c = name; *c; c++)
    if (!isalnum((unsigned char)*c) && *c != '_' && *c != '.') return PERR(p, "'%s' is not a register name", name);
  return FSIM_OK;
}

/* A register, or NAME:COUNT, COUNT consecutive registers from NAME (the ones numbered after it:
 * a 'regs' line gives that order; assembly's v[0:3] is printed so). */
static fsim_status parse_reg(parser *p, const char *tok, fsim_wp_reg *r) {
  char name[FSIM_WP_NAME + 1];
  const char *colon = strchr(tok, ':');
  size_t len = colon ? (size_t)(colon - tok) : strlen(tok);
  if (len > FSIM_WP_NAME) return PERR(p, "'%.40s...' is not a register name", tok);
  memcpy(name, tok, len);
  name[len] = '\0';
  fsim_status st = check_reg_name(p, name);
  if (st != FSIM_OK) return st;
  int64_t count = 1;
  if (colon && (st = want_int(p, "register count", colon + 1, 1, 1024, &count)) != FSIM_OK) return st;
  int id = fsim_wprog_reg(p->wp, name, p->e);
  if (id < 0) return PERR(p, "%s", p->e->msg);
  if (id + count > p->wp->nregs)
    return PERR(p, "%s: needs %d registers declared after %s, and %d are (a 'regs' line declares registers in order)",
                tok, (int)count - 1, name, p->wp->nregs - id - 1);
  r->first = (uint16_t)id;
  r->count = (uint16_t)count;
  return FSIM_OK;
}

static fsim_status parse_width(parser *p, const char *t, uint8_t *w) {
  static const struct {
    const char *n;
    int bytes;
  } widths[] = {{"b8", 1}, {"b16", 2}, {"b32", 4}, {"b64", 8}, {"b96", 12}, {"b128", 16}};
  for (size_t i = 0; i < sizeof widths / sizeof widths[0]; i++)
    if (strcmp(t, widths[i].n) == 0) {
      *w = (uint8_t)widths[i].bytes;
      return FSIM_OK;
    }
  return PERR(p, "'%s' is not an access width (b8 b16 b32 b64 b96 b128)", t);
}

static fsim_status parse_addr_ref(parser *p, const char *t, int32_t *out) {
  if (t[0] != '@') return PERR(p, "expected an address '@NAME', got '%s'", t);
  int i = fsim_wprog_find_addr(p->wp, t + 1);
  if (i < 0) return PERR(p, "no address named '%s' (declare it with 'addr' first)", t + 1);
  *out = i;
  return FSIM_OK;
}

static fsim_status parse_instruction(parser *p) {
  fsim_wprog *wp = p->wp;
  if (p->cur_program < 0) return PERR(p, "'%s' outside a program (start one with 'program')", p->tok[0]);
  fsim_wp_program *prog = &wp->programs[p->cur_program];
  fsim_op op;
  if (fsim_op_parse(p->tok[0], &op) != 0) return PERR(p, "'%s' is not an instruction class", p->tok[0]);
  fsim_wp_inst in = {.op = (uint8_t)op, .addr = -1, .addr2 = -1};
  int i = 1;
  int64_t v;
  fsim_status st;
  switch (op) {
  case FSIM_OP_LOOP:
    if (p->ntok != 2) return PERR(p, "loop: expected 'loop TRIP'");
    if ((st = want_int(p, "loop", p->tok[1], 1, INT64_C(1) << 40, &v)) != FSIM_OK) return st;
    if (fsim_wp_program_loop_begin(prog, v, p->e) != FSIM_OK) return PERR(p, "%s", p->e->msg);
    return FSIM_OK;
  case FSIM_OP_END:
    if (p->ntok != 1) return PERR(p, "end: takes no arguments");
    if (fsim_wp_program_loop_end(prog, p->e) != FSIM_OK) return PERR(p, "%s", p->e->msg);
    return FSIM_OK;
  case FSIM_OP_WAITCNT:
    in.arg = in.arg2 = 0xffff;
    for (; i < p->ntok; i++) {
      const char *val;
      if ((val = kv(p->tok[i], "vmcnt")) != NULL) {
        if (in.arg != 0xffff) return PERR(p, "waitcnt: vmcnt given twice");
        if ((st = want_int(p, "vmcnt", val, 0, 63, &v)) != FSIM_OK) return st;
        in.arg = (uint16_t)v;
      } else if ((val = kv(p->tok[i], "lgkmcnt")) != NULL) {
        if (in.arg2 != 0xffff) return PERR(p, "waitcnt: lgkmcnt given twice");
        if ((st = want_int(p, "lgkmcnt", val, 0, 15, &v)) != FSIM_OK) return st;
        in.arg2 = (uint16_t)v;
      } else {
        return PERR(p, "waitcnt: unexpected '%s' (vmcnt=N lgkmcnt=N)", p->tok[i]);
      }
    }
    break;
  case FSIM_OP_SETPRIO:
  case FSIM_OP_NOP:
    if (p->ntok != 2) return PERR(p, "%s: expected one number", p->tok[0]);
    /* nop up to s_sleep 127's 64 x 127 clocks */
    if ((st = want_int(p, p->tok[0], p->tok[1], 0, op == FSIM_OP_SETPRIO ? 3 : 8128, &v)) != FSIM_OK) return st;
    in.arg = (uint16_t)v;
    break;
  case FSIM_OP_BARRIER:
  case FSIM_OP_BRANCH:
    if (p->ntok != 1) return PERR(p, "%s: takes no arguments", p->tok[0]);
    break;
  default: {
    /* CLASS [modifiers] [DST] [<- SRC...] [@ADDR [@ADDR]] */
    if (op == FSIM_OP_MFMA) {
      if (i >= p->ntok) return PERR(p, "mfma: expected an instruction name");
      const fsim_mfma_entry *m = fsim_arch_find_mfma(p->a, p->tok[i]);
      if (m == NULL) return PERR(p, "mfma: '%s' is not an MFMA of %s", p->tok[i], p->a->device.name);
      char variants[400];
      if (strcmp(m->name, p->tok[i]) != 0 && fsim_arch_mfma_variants(p->a, p->tok[i], variants, sizeof variants) > 1)
        return PERR(p, "mfma: '%s' names several MFMAs (by operand type); give one of %s", p->tok[i], variants);
      in.arg = (uint16_t)(m - p->a->mfma);
      i++;
    }
    if (op == FSIM_OP_LDS_READ || op == FSIM_OP_LDS_WRITE || op == FSIM_OP_LOAD || op == FSIM_OP_STORE ||
        op == FSIM_OP_LOAD_LDS) {
      if (i >= p->ntok) return PERR(p, "%s: expected a width (b32, b64, b128, ...)", p->tok[0]);
      if ((st = parse_width(p, p->tok[i], &in.width)) != FSIM_OK) return st;
      i++;
    }
    for (; i < p->ntok; i++) {
      const char *val;
      if (op == FSIM_OP_VALU && (val = kv(p->tok[i], "cycles")) != NULL) {
        if (in.arg != 0) return PERR(p, "valu: 'cycles=' twice");
        if ((st = want_int(p, "cycles", val, 1, 1000, &v)) != FSIM_OK) return st;
        in.arg = (uint16_t)v;
      } else if (op == FSIM_OP_LDS_READ && strcmp(p->tok[i], "tr") == 0) {
        if (in.flags & FSIM_IF_TRANSPOSE) return PERR(p, "lds_read: 'tr' twice");
        in.flags |= FSIM_IF_TRANSPOSE;
      } else if (strcmp(p->tok[i], "tr") == 0) {
        return PERR(p, "%s: 'tr' (a transposing read) goes with lds_read only", p->tok[0]);
      } else if (op == FSIM_OP_STORE && strcmp(p->tok[i], "atomic") == 0) {
        if (in.flags & FSIM_IF_ATOMIC) return PERR(p, "store: 'atomic' twice");
        in.flags |= FSIM_IF_ATOMIC;
      } else if (strcmp(p->tok[i], "atomic") == 0) {
        return PERR(p, "%s: 'atomic' (an atomic read-modify-write) goes with store only", p->tok[0]);
      } else {
        break;
      }
    }
    int saw_arrow = 0;
    for (; i < p->ntok; i++) {
      const char *t = p->tok[i];
      if (strcmp(t, "<-") == 0) {
        if (saw_arrow) return PERR(p, "two '<-'");
        saw_arrow = 1;
      } else if (t[0] == '@') {
        int32_t *slot = in.addr < 0 ? &in.addr : (in.addr2 < 0 ? &in.addr2 : NULL);
        if (slot == NULL) return PERR(p, "too many addresses");
        if ((st = parse_addr_ref(p, t, slot)) != FSIM_OK) return st;
      } else if (!saw_arrow) {
        if (in.dst.count) return PERR(p, "two destinations ('%s'); sources follow '<-'", t);
        if ((st = parse_reg(p, t, &in.dst)) != FSIM_OK) return st;
      } else {
        if (in.nsrc == FSIM_WP_MAX_SRC) return PERR(p, "more than %d sources", FSIM_WP_MAX_SRC);
        if ((st = parse_reg(p, t, &in.src[in.nsrc])) != FSIM_OK) return st;
        in.nsrc++;
      }
    }
    int need_addr = op == FSIM_OP_LDS_READ || op == FSIM_OP_LDS_WRITE || op == FSIM_OP_LOAD ||
                    op == FSIM_OP_STORE || op == FSIM_OP_LOAD_LDS;
    if (need_addr && in.addr < 0) return PERR(p, "%s: expected an address '@NAME'", p->tok[0]);
    if (!need_addr && in.addr >= 0) return PERR(p, "%s: takes no address", p->tok[0]);
    if (op == FSIM_OP_LOAD_LDS && in.addr2 < 0) return PERR(p, "load_lds: expected '@GLOBAL @LDS'");
    if (op != FSIM_OP_LOAD_LDS && in.addr2 >= 0) return PERR(p, "%s: one address only", p->tok[0]);
    /* a read's destination is what it is for (a register named 'tr' was taken for the
     * modifier, and the read lost its destination, and with it the dependence) */
    if ((op == FSIM_OP_LDS_READ || op == FSIM_OP_LOAD) && in.dst.count == 0)
      return PERR(p, "%s: expected a destination, 'DST @ADDR'%s", p->tok[0],
                  in.flags & FSIM_IF_TRANSPOSE ? " ('tr' is the transposing modifier: name the register otherwise)" : "");
    if (op == FSIM_OP_STORE && in.dst.count && !(in.flags & FSIM_IF_ATOMIC))
      return PERR(p, "store: only an atomic returns a value to a destination");
    if (op == FSIM_OP_MFMA && (in.nsrc < 3 || in.dst.count == 0))
      return PERR(p, "mfma: expected 'DST <- A B C [SCALE_A [SCALE_B]]'");
    break;
  }
  }
  if (fsim_wp_program_append(prog, &in, p->e) < 0) return PERR(p, "%s", p->e->msg);
  return FSIM_OK;
}

static fsim_status parse_lanes(parser *p) {
  fsim_wprog *wp = p->wp;
  if (p->ntok < 4) return PERR(p, "lanes: expected 'lanes NAME [rows=R] [active=MASK] = ...'");
  const char *name = p->tok[1];
  int64_t rows = 1, v;
  uint64_t active = wp->wave_size >= 64 ? ~0ULL : ((1ULL << wp->wave_size) - 1);
  int i = 2;
  fsim_status st;
  for (; i < p->ntok && strcmp(p->tok[i], "=") != 0; i++) {
    const char *val;
    if ((val = kv(p->tok[i], "rows")) != NULL) {
      if ((st = want_int(p, "rows", val, 1, 64, &rows)) != FSIM_OK) return st;
    } else if ((val = kv(p->tok[i], "active")) != NULL) {
      char *end;
      errno = 0;
      int base = number_base(val); /* no sign: a mask */
      if (base != 0) active = strtoull(val, &end, base);
      if (base == 0 || *end != '\0' || errno) return PERR(p, "active: '%s' is not a lane mask", val);
      if (wp->wave_size < 64 && active >> wp->wave_size)
        return PERR(p, "active: '%s' names lanes beyond the wave's %d", val, wp->wave_size);
    } else {
      return PERR(p, "lanes: unexpected '%s' before '='", p->tok[i]);
    }
  }
  if (i >= p->ntok) return PERR(p, "lanes: expected '='");
  i++;
  int li = fsim_wprog_add_lanes(wp, name, (int)rows, p->e);
  if (li < 0) return PERR(p, "%s", p->e->msg);
  fsim_wp_lanes *l = &wp->lanes[li];
  for (int r = 0; r < rows; r++) l->active[r] = active;
  if (i < p->ntok && strcmp(p->tok[i], "linear") == 0) {
    int64_t stride = 0, wstride = 0;
    if (i + 1 >= p->ntok) return PERR(p, "lanes: expected 'linear STRIDE'");
    if ((st = want_int(p, "linear", p->tok[i + 1], -(INT64_C(1) << 24), INT64_C(1) << 24, &stride)) != FSIM_OK)
      return st;
    for (i += 2; i < p->ntok; i++) {
      const char *val;
      if ((val = kv(p->tok[i], "wave")) == NULL) return PERR(p, "lanes: unexpected '%s'", p->tok[i]);
      if ((st = want_int(p, "wave", val, -(INT64_C(1) << 24), INT64_C(1) << 24, &wstride)) != FSIM_OK) return st;
    }
    for (int r = 0; r < rows; r++)
      for (int lane = 0; lane < wp->wave_size; lane++)
        l->offset[r * wp->wave_size + lane] = (int32_t)(lane * stride + r * wstride);
    return FSIM_OK;
  }
  int want = (int)rows * wp->wave_size;
  if (p->ntok - i != want)
    return PERR(p, "lanes '%s': %d values given, %d expected (rows %d x wave size %d)", name, p->ntok - i, want,
                (int)rows, wp->wave_size);
  for (int k = 0; k < want; k++) {
    if ((st = want_int(p, "lane offset", p->tok[i + k], INT32_MIN, INT32_MAX, &v)) != FSIM_OK) return st;
    l->offset[k] = (int32_t)v;
  }
  return FSIM_OK;
}

static fsim_status parse_addr(parser *p) {
  fsim_wprog *wp = p->wp;
  if (p->ntok < 4) return PERR(p, "addr: expected 'addr NAME global|lds lanes=L ...'");
  fsim_wp_addr ad;
  memset(&ad, 0, sizeof ad);
  ad.lanes = -1;
  if (strlen(p->tok[1]) >= sizeof ad.name) return PERR(p, "addr: name too long");
  strcpy(ad.name, p->tok[1]);
  if (strcmp(p->tok[2], "global") == 0)
    ad.space = FSIM_SPACE_GLOBAL;
  else if (strcmp(p->tok[2], "lds") == 0)
    ad.space = FSIM_SPACE_LDS;
  else
    return PERR(p, "addr %s: space '%s' is not global or lds", ad.name, p->tok[2]);
  fsim_status st;
  int64_t v;
  for (int i = 3; i < p->ntok; i++) {
    const char *val;
    if ((val = kv(p->tok[i], "lanes")) != NULL) {
      ad.lanes = fsim_wprog_find_lanes(wp, val);
      if (ad.lanes < 0) return PERR(p, "addr %s: no lanes named '%s'", ad.name, val);
    } else if ((val = kv(p->tok[i], "base")) != NULL) {
      if ((st = want_int(p, "base", val, 0, INT64_C(1) << 50, &ad.base)) != FSIM_OK) return st;
    } else if ((val = kv(p->tok[i], "wave")) != NULL) {
      if ((st = want_int(p, "wave", val, -(INT64_C(1) << 40), INT64_C(1) << 40, &ad.wave_stride)) != FSIM_OK) return st;
    } else if ((val = kv(p->tok[i], "wg")) != NULL) {
      char buf[128];
      size_t n = strlen(val);
      /* strtok_r passes over empty fields ('wg=,1,2,3' was taken as 1,2,3), and a value past
       * the buffer would be cut */
      if (n == 0 || n >= sizeof buf || val[0] == ',' || val[n - 1] == ',' || strstr(val, ",,") != NULL)
        return PERR(p, "addr %s: wg= needs three strides X,Y,Z", ad.name);
      memcpy(buf, val, n + 1);
      char *save = NULL, *t = strtok_r(buf, ",", &save);
      for (int d = 0; d < 3; d++) {
        if (t == NULL) return PERR(p, "addr %s: wg= needs three strides X,Y,Z", ad.name);
        if ((st = want_int(p, "wg", t, -(INT64_C(1) << 44), INT64_C(1) << 44, &ad.wg_stride[d])) != FSIM_OK) return st;
        t = strtok_r(NULL, ",", &save);
      }
      if (t != NULL) return PERR(p, "addr %s: wg= needs three strides X,Y,Z", ad.name);
    } else if ((val = kv(p->tok[i], "iter")) != NULL) {
      if (ad.nterms == FSIM_WP_MAX_TERMS) return PERR(p, "addr %s: more than %d iter terms", ad.name, FSIM_WP_MAX_TERMS);
      char buf[128];
      snprintf(buf, sizeof buf, "%s", val);
      int64_t parts[4] = {0, 0, 0, 0};
      int np = 0;
      /* fields split at each ':' (an empty one is an error, not skipped) */
      for (char *t = buf, *next; t != NULL; t = next) {
        char *colon = strchr(t, ':');
        next = colon ? colon + 1 : NULL;
        if (colon) *colon = '\0';
        if (np == 4) return PERR(p, "addr %s: iter=LEVEL:STRIDE[:MOD[:PHASE]]", ad.name);
        if (parse_i64(t, &parts[np]) != 0) return PERR(p, "addr %s: iter: '%s' is not an integer", ad.name, t);
        np++;
      }
      if (np < 2) return PERR(p, "addr %s: iter=LEVEL:STRIDE[:MOD[:PHASE]]", ad.name);
      if (parts[1] < -(INT64_C(1) << 44) || parts[1] > (INT64_C(1) << 44))
        return PERR(p, "addr %s: iter stride %" PRId64 " is out of range [-2^44, 2^44]", ad.name, parts[1]);
      if (parts[0] < 0 || parts[0] >= FSIM_WP_MAX_DEPTH)
        return PERR(p, "addr %s: iter level %" PRId64 " is out of range [0, %d]", ad.name, parts[0], FSIM_WP_MAX_DEPTH - 1);
      if (parts[2] < 0 || parts[2] > (1 << 30) || parts[3] < 0 || parts[3] > (1 << 30))
        return PERR(p, "addr %s: iter modulus and phase must be in [0, 2^30]", ad.name);
      ad.term[ad.nterms].level = (int8_t)parts[0];
      ad.term[ad.nterms].stride = parts[1];
      ad.term[ad.nterms].mod = (int32_t)parts[2];
      ad.term[ad.nterms].phase = (int32_t)parts[3];
      ad.nterms++;
    } else {
      return PERR(p, "addr %s: unexpected '%s'", ad.name, p->tok[i]);
    }
  }
  if (ad.lanes < 0) return PERR(p, "addr %s: lanes=NAME is required", ad.name);
  (void)v;
  int id = fsim_wprog_add_addr(wp, &ad, p->e);
  if (id < 0) return PERR(p, "%s", p->e->msg);
  if (id >= p->addr_line_cap) {
    int cap = p->addr_line_cap ? 2 * p->addr_line_cap : 64;
    while (cap <= id) cap *= 2;
    int *l = realloc(p->addr_line, (size_t)cap * sizeof *l);
    if (l == NULL) return FSIM_ERR(p->e, FSIM_ENOMEM, "out of memory");
    p->addr_line = l;
    p->addr_line_cap = cap;
  }
  p->addr_line[id] = p->line;
  return FSIM_OK;
}

/* "0-3,5" -> waves listed; marks them as running program pi. */
static fsim_status assign_waves(parser *p, const char *list, int pi) {
  char buf[256];
  snprintf(buf, sizeof buf, "%s", list);
  size_t n = strlen(list);
  /* strtok_r passes over empty fields: 'waves=' and 'waves=0-3,' were taken */
  if (n == 0 || list[0] == ',' || list[n - 1] == ',' || strstr(list, ",,") != NULL)
    return PERR(p, "program: waves='%s' is not a list like 0-3,6", list);
  char *save = NULL;
  for (char *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
    int64_t lo, hi;
    char *dash = strchr(t, '-');
    if (dash) *dash = '\0';
    if (parse_i64(t, &lo) != 0 || (dash && parse_i64(dash + 1, &hi) != 0))
      return PERR(p, "program: waves='%s' is not a list like 0-3,6", list);
    if (!dash) hi = lo;
    if (hi < lo) return PERR(p, "program: waves %" PRId64 "-%" PRId64 ": the range is reversed", lo, hi);
    if (lo < 0 || hi >= p->wp->waves_per_wg)
      return PERR(p, "program: waves %" PRId64 "-%" PRId64 " outside the %d waves", lo, hi, p->wp->waves_per_wg);
    for (int64_t w = lo; w <= hi; w++) {
      if (p->assigned[w] && p->wp->wave_program[w] == pi)
        return PERR(p, "program: wave %" PRId64 " is listed twice in waves='%s'", w, list);
      if (p->assigned[w]) return PERR(p, "program: wave %" PRId64 " is already in program %d", w, p->wp->wave_program[w]);
      p->assigned[w] = 1;
      p->wp->wave_program[w] = pi;
    }
  }
  return FSIM_OK;
}

/* A directive of the file's header: once (resources once per key), and before the programs,
 * which take its values as they are read (grid and remap decide the workgroups' coordinates,
 * lds their bounds). */
static fsim_status header_once(parser *p, int *first, const char *what) {
  if (*first) return PERR(p, "%s: given twice (first on line %d)", what, *first);
  if (p->cur_program >= 0) return PERR(p, "%s: must come before the programs", what);
  *first = p->line;
  return FSIM_OK;
}

static fsim_status parse_line(parser *p) {
  fsim_wprog *wp = p->wp;
  const char *k = p->tok[0];
  int64_t v;
  fsim_status st;
  static const char *const headers[3] = {"kernel", "grid", "remap"};
  for (int h = 0; h < 3; h++)
    if (strcmp(k, headers[h]) == 0 && (st = header_once(p, &p->first_line[h], k)) != FSIM_OK) return st;
  if (strcmp(k, "resources") == 0 && p->cur_program >= 0) return PERR(p, "resources: must come before the programs");
  if (strcmp(k, "kernel") == 0) {
    if (p->ntok != 2) return PERR(p, "kernel: expected 'kernel NAME'");
    if (strlen(p->tok[1]) >= sizeof wp->name) return PERR(p, "kernel: name too long");
    /* printable ASCII: the name goes into JSON and traces, which take UTF-8 only */
    for (const unsigned char *c = (const unsigned char *)p->tok[1]; *c; c++)
      if (*c < 0x21 || *c > 0x7e) return PERR(p, "kernel: the name may hold printable ASCII characters only");
    strcpy(wp->name, p->tok[1]);
    return FSIM_OK;
  }
  if (strcmp(k, "grid") == 0) {
    if (p->ntok < 2 || p->ntok > 4) return PERR(p, "grid: expected 'grid X [Y [Z]]'");
    for (int d = 0; d < 3; d++) {
      wp->grid[d] = 1;
      if (d + 1 < p->ntok) {
        if ((st = want_int(p, "grid", p->tok[d + 1], 1, INT32_MAX, &v)) != FSIM_OK) return st;
        wp->grid[d] = (int)v;
      }
    }
    if (fsim_wprog_workgroups(wp) > FSIM_WP_MAX_WORKGROUPS) return PERR(p, "grid: more than 2^31 workgroups");
    return FSIM_OK;
  }
  if (strcmp(k, "waves") == 0) {
    if (p->ntok != 2) return PERR(p, "waves: expected 'waves N'");
    if (p->seen_waves) return PERR(p, "waves: given twice (first on line %d)", p->seen_waves);
    if (wp->programs != NULL) return PERR(p, "waves: must come before the programs");
    if ((st = want_int(p, "waves", p->tok[1], 1, 32, &v)) != FSIM_OK) return st;
    wp->waves_per_wg = (int)v;
    p->seen_waves = p->line;
    return FSIM_OK;
  }
  if (strcmp(k, "resources") == 0) {
    for (int i = 1; i < p->ntok; i++) {
      const char *val;
      int *slot = NULL;
      const char *what = NULL;
      if ((val = kv(p->tok[i], "vgprs")) != NULL) slot = &wp->vgprs, what = "vgprs";
      else if ((val = kv(p->tok[i], "agprs")) != NULL) slot = &wp->agprs, what = "agprs";
      else if ((val = kv(p->tok[i], "sgprs")) != NULL) slot = &wp->sgprs, what = "sgprs";
      else if ((val = kv(p->tok[i], "lds")) != NULL) slot = &wp->lds_bytes, what = "lds";
      else return PERR(p, "resources: unexpected '%s' (vgprs= agprs= sgprs= lds=)", p->tok[i]);
      int *first = &p->first_res[what[0] == 'v' ? 0 : what[0] == 'a' ? 1 : what[0] == 's' ? 2 : 3];
      if (*first) return PERR(p, "resources: %s given twice (first on line %d)", what, *first);
      *first = p->line;
      if ((st = want_int(p, what, val, 0, INT32_MAX, &v)) != FSIM_OK) return st;
      *slot = (int)v;
    }
    return FSIM_OK;
  }
  if (strcmp(k, "remap") == 0) {
    if (p->ntok == 2 && strcmp(p->tok[1], "none") == 0) {
      wp->remap = FSIM_REMAP_NONE;
      wp->group_m = 0;
      return FSIM_OK;
    }
    int i = 1;
    if (p->ntok >= 3 && strcmp(p->tok[1], "xcd") == 0) {
      if ((st = want_int(p, "remap xcd", p->tok[2], 1, 64, &v)) != FSIM_OK) return st;
      wp->remap = FSIM_REMAP_XCD;
      wp->remap_xcds = (int)v;
      i = 3;
    }
    if (i + 1 < p->ntok + 0 && strcmp(p->tok[i], "group_m") == 0) {
      if ((st = want_int(p, "group_m", p->tok[i + 1], 1, 1 << 20, &v)) != FSIM_OK) return st;
      wp->group_m = (int)v;
      i += 2;
    }
    if (i != p->ntok || i == 1) return PERR(p, "remap: expected 'none' or 'xcd N [group_m G]' or 'group_m G'");
    return FSIM_OK;
  }
  if (strcmp(k, "regs") == 0) {
    /* registers in the order given, each new, before the programs (for NAME:COUNT ranges) */
    if (p->cur_program >= 0) return PERR(p, "regs: must come before the programs");
    if (p->ntok < 2) return PERR(p, "regs: expected 'regs NAME...'");
    for (int i = 1; i < p->ntok; i++) {
      if ((st = check_reg_name(p, p->tok[i])) != FSIM_OK) return st;
      int n = p->wp->nregs;
      int id = fsim_wprog_reg(wp, p->tok[i], p->e);
      if (id < 0) return PERR(p, "%s", p->e->msg);
      if (id != n) return PERR(p, "regs: '%s' is already declared", p->tok[i]);
    }
    return FSIM_OK;
  }
  if (strcmp(k, "lanes") == 0) return parse_lanes(p);
  if (strcmp(k, "addr") == 0) return parse_addr(p);
  if (strcmp(k, "program") == 0) {
    if ((st = ensure_programs(p)) != FSIM_OK) return st;
    if (p->programs_declared == wp->nprograms) return PERR(p, "program: more programs than waves");
    int pi = p->programs_declared++;
    p->cur_program = pi;
    if (p->ntok == 1) {
      for (int w = 0; w < wp->waves_per_wg; w++) {
        if (p->assigned[w]) return PERR(p, "program: wave %d is already in program %d", w, wp->wave_program[w]);
        p->assigned[w] = 1;
        wp->wave_program[w] = pi;
      }
    } else if (p->ntok == 2 && kv(p->tok[1], "waves") != NULL) {
      if ((st = assign_waves(p, kv(p->tok[1], "waves"), pi)) != FSIM_OK) return st;
    } else {
      return PERR(p, "program: expected 'program [waves=LIST]'");
    }
    return FSIM_OK;
  }
  return parse_instruction(p);
}

static fsim_status parse_text(fsim_wprog *wp, char *text, const char *src, const fsim_arch *a, fsim_err *e) {
  parser p = {.wp = wp, .a = a, .src = src, .e = e, .cur_program = -1};
  if (fsim_wprog_init(wp, "kernel", e) != FSIM_OK) return e->code;
  wp->wave_size = a->cu.wave_size;
  snprintf(wp->arch_gfx, sizeof wp->arch_gfx, "%s", a->device.gfx);
  fsim_status st = FSIM_OK;
  char *save = NULL;
  for (char *ln = text; ln != NULL && st == FSIM_OK; ln = save) {
    char *nl = strchr(ln, '\n');
    save = nl ? nl + 1 : NULL;
    if (nl) *nl = '\0';
    p.line++;
    char *hash = strchr(ln, '#');
    if (hash) *hash = '\0';
    /* outside comments, printable ASCII, as the arch and schedule files (a message quotes the
     * words, and raw bytes there went to the terminal as they were) */
    for (const unsigned char *c = (const unsigned char *)ln; *c && st == FSIM_OK; c++)
      if ((*c < 0x20 || *c > 0x7e) && *c != '\t' && *c != '\r')
        st = PERR(&p, "byte 0x%02x at character %d is not printable ASCII", *c,
                  (int)(c - (const unsigned char *)ln) + 1);
    if (st != FSIM_OK) break;
    p.ntok = 0;
    char *s2 = NULL;
    for (char *t = strtok_r(ln, " \t\r", &s2); t; t = strtok_r(NULL, " \t\r", &s2)) {
      if (p.ntok == MAX_TOKENS) {
        st = PERR(&p, "more than %d words on one line", MAX_TOKENS);
        break;
      }
      p.tok[p.ntok++] = t;
    }
    if (st == FSIM_OK && p.ntok > 0) {
      int prog = p.cur_program, before = prog >= 0 ? wp->programs[prog].ninst : 0;
      st = parse_line(&p);
      if (st == FSIM_OK && prog >= 0 && p.cur_program == prog && wp->programs[prog].ninst > before)
        st = note_run(&p, before);
    }
  }
  if (st == FSIM_OK && wp->programs == NULL) {
    p.line++;
    st = FSIM_ERR(e, FSIM_EINVAL, "%s: no 'program' section", src);
  }
  for (int w = 0; st == FSIM_OK && w < wp->waves_per_wg; w++)
    if (!p.assigned[w]) st = FSIM_ERR(e, FSIM_EINVAL, "%s: wave %d is in no program ('program waves=LIST')", src, w);
  /* a lane table of per-wave rows must have one a wave: checked here, with the line of the
   * address that uses it, as the waves may be given after it (fsim_wprog_validate names none) */
  for (int i = 0; st == FSIM_OK && i < wp->naddrs && i < p.addr_line_cap; i++) {
    const fsim_wp_addr *ad = &wp->addrs[i];
    if (ad->lanes < 0 || ad->lanes >= wp->nlanes) continue;
    int rows = wp->lanes[ad->lanes].rows;
    if (rows != 1 && rows != wp->waves_per_wg)
      st = FSIM_ERR(e, FSIM_EINVAL, "%s:%d: address '%s': lanes '%s' has %d rows, not 1 or %d", src, p.addr_line[i],
                    ad->name, wp->lanes[ad->lanes].name, rows, wp->waves_per_wg);
  }
  if (st == FSIM_OK) {
    wp->nprograms = p.programs_declared;
    for (int pi = 0; pi < wp->nprograms && st == FSIM_OK; pi++)
      for (int l = 0; l < wp->programs[pi].nloops; l++)
        if (wp->programs[pi].loops[l].end < 0) {
          st = FSIM_ERR(e, FSIM_EINVAL, "%s: program %d: a loop is not closed with 'end'", src, pi);
          break;
        }
  }
  if (st == FSIM_OK) {
    int prog, inst;
    st = fsim_wprog_validate_at(wp, a, &prog, &inst, e);
    int line = st != FSIM_OK && prog >= 0 ? run_line(&p, prog, inst) : 0;
    if (st != FSIM_OK && line > 0)
      fsim_err_prefix(e, "%s:%d", src, line);
    else if (st != FSIM_OK)
      fsim_err_prefix(e, "%s", src);
  }
  free(p.runs);
  free(p.addr_line);
  if (st != FSIM_OK) fsim_wprog_free(wp);
  return st;
}

fsim_status fsim_wprog_parse_string(fsim_wprog *wp, const char *text, const char *source_name,
                                    const fsim_arch *a, fsim_err *e) {
  char *copy = strdup(text);
  if (copy == NULL) return FSIM_ERR(e, FSIM_ENOMEM, "out of memory");
  fsim_status st = parse_text(wp, copy, source_name, a, e);
  free(copy);
  return st;
}

fsim_status fsim_wprog_parse_file(fsim_wprog *wp, const char *path, const fsim_arch *a, fsim_err *e) {
  size_t n;
  char *buf;
  fsim_status st = fsim_file_load(path, &buf, &n, e);
  if (st != FSIM_OK) return st;
  if (memchr(buf, '\0', n) != NULL) {
    free(buf);
    return FSIM_ERR(e, FSIM_EINVAL, "%s: not a text file", path);
  }
  st = parse_text(wp, buf, path, a, e);
  free(buf);
  return st;
}

/* ---- printing -------------------------------------------------------------------------- */

static void print_reg(FILE *f, const fsim_wprog *wp, const fsim_wp_reg *r) {
  if (r->count > 1)
    fprintf(f, " %s:%d", wp->reg_names[r->first], r->count);
  else
    fprintf(f, " %s", wp->reg_names[r->first]);
}

/* 1 when an instruction names a range of registers (then the file declares them in order). */
static int has_ranges(const fsim_wprog *wp) {
  for (int pi = 0; pi < wp->nprograms; pi++) {
    const fsim_wp_program *pr = &wp->programs[pi];
    for (int i = 0; i < pr->ninst; i++) {
      const fsim_wp_inst *in = &pr->inst[i];
      if (in->dst.count > 1) return 1;
      for (int q = 0; q < in->nsrc; q++)
        if (in->src[q].count > 1) return 1;
    }
  }
  return 0;
}

static const char *width_name(int w) {
  switch (w) {
  case 1: return "b8";
  case 2: return "b16";
  case 4: return "b32";
  case 8: return "b64";
  case 12: return "b96";
  default: return "b128";
  }
}

fsim_status fsim_wprog_print(const fsim_wprog *wp, const fsim_arch *a, FILE *f, fsim_err *e) {
  fprintf(f, "kernel %s\ngrid %d %d %d\nwaves %d\nresources vgprs=%d agprs=%d sgprs=%d lds=%d\n", wp->name, wp->grid[0],
          wp->grid[1], wp->grid[2], wp->waves_per_wg, wp->vgprs, wp->agprs, wp->sgprs, wp->lds_bytes);
  if (wp->remap == FSIM_REMAP_XCD)
    fprintf(f, "remap xcd %d%s", wp->remap_xcds, wp->group_m ? "" : "\n");
  else if (wp->group_m)
    fprintf(f, "remap");
  else
    fprintf(f, "remap none\n");
  if (wp->group_m) fprintf(f, " group_m %d\n", wp->group_m);
  if (has_ranges(wp)) {
    /* the registers in their order, 64 to a line, so that NAME:COUNT names the same ones */
    for (int i = 0; i < wp->nregs; i++)
      fprintf(f, "%s %s%s", i % 64 == 0 ? "regs" : "", wp->reg_names[i], i % 64 == 63 || i == wp->nregs - 1 ? "\n" : "");
  }
  uint64_t all = wp->wave_size >= 64 ? ~0ULL : ((1ULL << wp->wave_size) - 1);
  for (int i = 0; i < wp->nlanes; i++) {
    const fsim_wp_lanes *l = &wp->lanes[i];
    int same_mask = 1;
    for (int r = 1; r < l->rows; r++) same_mask &= l->active[r] == l->active[0];
    if (!same_mask) return FSIM_ERR(e, FSIM_EINVAL, "lanes '%s': rows with different active masks cannot be printed", l->name);
    fprintf(f, "lanes %s", l->name);
    if (l->rows != 1) fprintf(f, " rows=%d", l->rows);
    if (l->active[0] != all) fprintf(f, " active=0x%" PRIx64, l->active[0]);
    fprintf(f, " =");
    /* linear form when it fits */
    int64_t s = wp->wave_size > 1 ? (int64_t)l->offset[1] - l->offset[0] : 0;
    int64_t ws = l->rows > 1 ? (int64_t)l->offset[wp->wave_size] - l->offset[0] : 0;
    /* (within the ±2^24 the reader takes for the strides: a larger one is written as the table,
     * which the reader takes whole; "linear 33554432" was written and then refused) */
    const int64_t lim = INT64_C(1) << 24;
    int linear = l->offset[0] == 0 && s >= -lim && s <= lim && ws >= -lim && ws <= lim;
    for (int r = 0; r < l->rows && linear; r++)
      for (int lane = 0; lane < wp->wave_size && linear; lane++)
        linear = l->offset[r * wp->wave_size + lane] == lane * s + r * ws;
    if (linear) {
      fprintf(f, " linear %" PRId64, s);
      if (ws) fprintf(f, " wave=%" PRId64, ws);
    } else {
      for (int k = 0; k < l->rows * wp->wave_size; k++) fprintf(f, " %" PRId32, l->offset[k]);
    }
    fputc('\n', f);
  }
  for (int i = 0; i < wp->naddrs; i++) {
    const fsim_wp_addr *ad = &wp->addrs[i];
    fprintf(f, "addr %s %s lanes=%s", ad->name, ad->space == FSIM_SPACE_LDS ? "lds" : "global",
            wp->lanes[ad->lanes].name);
    if (ad->base) fprintf(f, " base=%" PRId64, ad->base);
    if (ad->wave_stride) fprintf(f, " wave=%" PRId64, ad->wave_stride);
    if (ad->wg_stride[0] || ad->wg_stride[1] || ad->wg_stride[2])
      fprintf(f, " wg=%" PRId64 ",%" PRId64 ",%" PRId64, ad->wg_stride[0], ad->wg_stride[1], ad->wg_stride[2]);
    for (int t = 0; t < ad->nterms; t++) {
      fprintf(f, " iter=%d:%" PRId64, ad->term[t].level, ad->term[t].stride);
      if (ad->term[t].mod || ad->term[t].phase) fprintf(f, ":%d", ad->term[t].mod);
      if (ad->term[t].phase) fprintf(f, ":%d", ad->term[t].phase);
    }
    fputc('\n', f);
  }
  for (int pi = 0; pi < wp->nprograms; pi++) {
    const fsim_wp_program *p = &wp->programs[pi];
    fprintf(f, "program waves=");
    int first = 1;
    for (int w = 0; w < wp->waves_per_wg; w++) {
      if (wp->wave_program[w] != pi || (w > 0 && wp->wave_program[w - 1] == pi)) continue;
      int h = w;
      while (h + 1 < wp->waves_per_wg && wp->wave_program[h + 1] == pi) h++;
      fprintf(f, "%s%d", first ? "" : ",", w);
      if (h > w) fprintf(f, "-%d", h);
      first = 0;
    }
    if (first) return FSIM_ERR(e, FSIM_EINVAL, "program %d runs on no wave", pi);
    fputc('\n', f);
    int depth = 1;
    for (int ii = 0; ii < p->ninst; ii++) {
      const fsim_wp_inst *in = &p->inst[ii];
      if (in->op == FSIM_OP_END) depth--;
      fprintf(f, "%*s%s", 2 * depth, "", fsim_op_name(in->op));
      switch (in->op) {
      case FSIM_OP_LOOP:
        fprintf(f, " %" PRId64, p->loops[in->arg].trip);
        depth++;
        break;
      case FSIM_OP_WAITCNT:
        if (in->arg != 0xffff) fprintf(f, " vmcnt=%d", in->arg);
        if (in->arg2 != 0xffff) fprintf(f, " lgkmcnt=%d", in->arg2);
        break;
      case FSIM_OP_SETPRIO:
      case FSIM_OP_NOP: fprintf(f, " %d", in->arg); break;
      case FSIM_OP_END:
      case FSIM_OP_BARRIER:
      case FSIM_OP_BRANCH: break;
      default:
        if (in->op == FSIM_OP_MFMA) fprintf(f, " %s", a->mfma[in->arg].name);
        if (in->addr >= 0) fprintf(f, " %s", width_name(in->width));
        if (in->op == FSIM_OP_VALU && in->arg > 1) fprintf(f, " cycles=%d", in->arg);
        if (in->flags & FSIM_IF_TRANSPOSE) fprintf(f, " tr");
        if (in->flags & FSIM_IF_ATOMIC) fprintf(f, " atomic");
        if (in->dst.count) print_reg(f, wp, &in->dst);
        if (in->nsrc) fprintf(f, " <-");
        for (int s = 0; s < in->nsrc; s++) print_reg(f, wp, &in->src[s]);
        if (in->addr >= 0) fprintf(f, " @%s", wp->addrs[in->addr].name);
        if (in->addr2 >= 0) fprintf(f, " @%s", wp->addrs[in->addr2].name);
        break;
      }
      fputc('\n', f);
    }
  }
  return ferror(f) ? FSIM_ERR(e, FSIM_EIO, "write error") : FSIM_OK;
}
