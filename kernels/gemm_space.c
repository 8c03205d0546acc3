/* GEMM problems, --config strings, the legal space and plan summaries: see gemm_space.h.
 *
 * The space, per problem and ISA: every MMA atom of the ISA for the operand types (scaled
 * atoms only, for scaled GEMMs); tiles BM, BN in {16..256} and BK in {32..512} (powers of
 * two, no larger than the problem needs); waves WM x WN in {1,2,4,8}^2 with at most 16;
 * stages 1-4; split-K 1-16 when the output tiles do not fill the GPU; copies direct to LDS
 * (where the ISA has them) or through registers, with the widest copy that divides the tile;
 * C through LDS or direct; the plain pipeline, and ping-pong with 8 or more waves and 2 or more
 * stages.  The swizzle
 * is chosen per config (the fewest bank cycles), the XCD remap is on (FlyDSL applies it when
 * it can).  What fixed keys leave, plan_make checks; only legal plans are visited. */
#include "config.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/gemm_space.h"
#include "model/access.h"
#include "model/occupancy.h"
#include "util/text.h"

void fsim_gemm_config_free_all(fsim_gemm_config *c) {
  memset(c, 0, sizeof *c);
  c->path = c->c_path = c->xcd_remap = c->group_m = c->kind = -1;
}

static fsim_status bad_value(fsim_err *e, const char *key, const char *val, const char *want) {
  return FSIM_ERR(e, FSIM_EINVAL, "--config %s=%s: expected %s", key, val, want);
}

/* Digits first: strtol would also take leading blanks and a sign ("tile= +128x..."). */
static int starts_number(const char *s) { return isdigit((unsigned char)s[0]) || (s[0] == '-' && isdigit((unsigned char)s[1])); }

static int parse_dims(const char *s, int n, int *out) {
  char *end;
  for (int i = 0; i < n; i++) {
    if (!starts_number(s)) return -1;
    long v = strtol(s, &end, 10);
    if (end == s || v < 1 || v > 4096) return -1;
    out[i] = (int)v;
    if (i + 1 < n) {
      if (*end != 'x') return -1;
      s = end + 1;
    } else if (*end != '\0') {
      return -1;
    }
  }
  return 0;
}

/* 1 when s starts with MxNxK (three whole numbers), copied into out. */
static int parse_dims_prefix(const char *s, char *out, size_t n) {
  const char *p = s;
  for (int i = 0; i < 3; i++) {
    size_t d = strspn(p, "0123456789");
    if (d == 0) return 0;
    p += d;
    if (i < 2) {
      if (*p != 'x') return 0;
      p++;
    }
  }
  if ((size_t)(p - s) >= n) return 0;
  snprintf(out, n, "%.*s", (int)(p - s), s);
  return 1;
}

static int parse_int(const char *s, int lo, int hi, int *out) {
  char *end;
  if (!starts_number(s)) return -1;
  long v = strtol(s, &end, 10);
  if (end == s || *end != '\0' || v < lo || v > hi) return -1;
  *out = (int)v;
  return 0;
}

/* 1 when the comma-separated field at s is an optionally signed integer (no '='). */
static int numeric_field(const char *s) {
  if (*s == '-' || *s == '+') s++;
  size_t n = strspn(s, "0123456789");
  return n > 0 && (s[n] == ',' || s[n] == '\0');
}

fsim_status fsim_gemm_config_parse(const char *text, fsim_gemm_config *c, fsim_err *e) {
  fsim_gemm_config_free_all(c);
  char buf[512];
  if (strlen(text) >= sizeof buf) return FSIM_ERR(e, FSIM_EINVAL, "--config: too long");
  strcpy(buf, text);
  const char *seen[32];
  int nseen = 0;
  for (char *item = buf, *next; item; item = next) {
    /* items end at a comma; a swizzle's B,M,S takes the two purely numeric fields after it */
    size_t len = strcspn(item, ",");
    if (strncmp(item, "swizzle=", 8) == 0)
      for (int extra = 0; extra < 2 && item[len] == ',' && numeric_field(item + len + 1); extra++)
        len += 1 + strcspn(item + len + 1, ",");
    next = item[len] == ',' ? item + len + 1 : NULL;
    item[len] = '\0';
    if (*item == '\0') {
      if (*text == '\0') continue; /* an empty config fixes nothing */
      return FSIM_ERR(e, FSIM_EINVAL, "--config '%s': an empty item (two commas, or one at an end)", text);
    }
    char *eq = strchr(item, '=');
    if (eq == NULL) return FSIM_ERR(e, FSIM_EINVAL, "--config: '%s' is not key=value", item);
    *eq = '\0';
    const char *k = item, *v = eq + 1;
    /* a key given twice is a mistake, not a later value winning (schedule files agree) */
    for (int i = 0; i < nseen; i++)
      if (strcmp(seen[i], k) == 0) return FSIM_ERR(e, FSIM_EINVAL, "--config: key '%s' given twice", k);
    if (nseen < (int)(sizeof seen / sizeof seen[0])) seen[nseen++] = k;
    int d[3];
    if (strcmp(k, "tile") == 0) {
      if (parse_dims(v, 3, d) == 0) {
        c->bm = d[0], c->bn = d[1], c->bk = d[2];
      } else if (parse_dims(v, 2, d) == 0) {
        c->bm = d[0], c->bn = d[1]; /* BK left to the tuner */
      } else {
        return bad_value(e, k, v, "BMxBNxBK or BMxBN, e.g. 256x256x64");
      }
    } else if (strcmp(k, "waves") == 0) {
      if (parse_dims(v, 2, d)) return bad_value(e, k, v, "WMxWN, e.g. 2x4");
      c->waves_m = d[0], c->waves_n = d[1];
    } else if (strcmp(k, "stages") == 0) {
      if (parse_int(v, 1, 8, &c->stages)) return bad_value(e, k, v, "an integer from 1 to 8");
    } else if (strcmp(k, "splitk") == 0) {
      if (parse_int(v, 1, 256, &c->split_k)) return bad_value(e, k, v, "an integer from 1 to 256");
    } else if (strcmp(k, "mfma") == 0) {
      if (parse_dims(v, 3, d) == 0) {
        c->atom_m = d[0], c->atom_n = d[1], c->atom_k = d[2];
      } else {
        if (fsim_mma_atom_find(v) == NULL) {
          /* an instruction whose atoms are named by their operand types (NAME.fp8, ...): list them */
          int n, vlen = (int)strlen(v), used = 0;
          const fsim_mma_atom *all = fsim_mma_atoms(&n);
          char names[400] = "";
          for (int i = 0; i < n; i++)
            if (strncmp(all[i].name, v, (size_t)vlen) == 0 && all[i].name[vlen] == '.' && used < (int)sizeof names - 1)
              used += snprintf(names + used, sizeof names - (size_t)used, "%s%s", used ? ", " : "", all[i].name);
          if (used > 0)
            return FSIM_ERR(e, FSIM_EINVAL, "--config %s=%s: the atoms of %s are named by their operand types: %s", k,
                            v, v, names);
          /* a name with a shape in it (v_mfma_f32_16x16x128_f8f6f4): the atoms of that shape */
          char shape[32];
          int found = 0;
          for (const char *sh = v; *sh && !found; sh++)
            found = (sh == v || !isdigit((unsigned char)sh[-1])) && parse_dims_prefix(sh, shape, sizeof shape);
          if (found) {
            for (int i = 0; i < n; i++) {
              /* the shape whole in the name: '_' on both sides (6x16x32 is not in 16x16x32) */
              const char *at = strstr(all[i].name, shape);
              if (at && at > all[i].name && at[-1] == '_' && at[strlen(shape)] == '_' && used < (int)sizeof names - 1)
                used += snprintf(names + used, sizeof names - (size_t)used, "%s%s", used ? ", " : "", all[i].name);
            }
            if (used > 0)
              return FSIM_ERR(e, FSIM_EINVAL,
                              "--config %s=%s: no such atom; those of %s are %s (or give the shape: mfma=%s)", k, v,
                              shape, names, shape);
          }
          return bad_value(e, k, v, "MxNxK (16x16x32) or an atom name (docs/atoms.md lists them)");
        }
        snprintf(c->atom, sizeof c->atom, "%s", v);
      }
    } else if (strcmp(k, "path") == 0) {
      if (strcmp(v, "direct") == 0) c->path = FSIM_PATH_DIRECT;
      else if (strcmp(v, "registers") == 0) c->path = FSIM_PATH_REGISTERS;
      else return bad_value(e, k, v, "direct or registers");
    } else if (strcmp(k, "c") == 0) {
      if (strcmp(v, "lds") == 0) c->c_path = FSIM_EPI_LDS;
      else if (strcmp(v, "direct") == 0) c->c_path = FSIM_EPI_DIRECT;
      else return bad_value(e, k, v, "lds or direct");
    } else if (strcmp(k, "remap") == 0) {
      if (parse_int(v, 0, 1, &c->xcd_remap)) return bad_value(e, k, v, "0 or 1");
    } else if (strcmp(k, "groupm") == 0) {
      if (parse_int(v, 0, 1024, &c->group_m)) return bad_value(e, k, v, "an integer from 0 to 1024");
    } else if (strcmp(k, "kind") == 0) {
      if (strcmp(v, "plain") == 0) c->kind = FSIM_PIPE_PLAIN;
      else if (strcmp(v, "pingpong") == 0) c->kind = FSIM_PIPE_PINGPONG;
      else return bad_value(e, k, v, "plain or pingpong");
    } else if (strcmp(k, "swizzle") == 0) {
      int b, m, s;
      char sep1, sep2, tail;
      if (strcmp(v, "auto") == 0 || strcmp(v, "none") == 0) {
        snprintf(c->swizzle, sizeof c->swizzle, "%s", v);
      } else if (strpbrk(v, "+ \t") == NULL && /* digits and a '-' on S only, as the other numbers */
                 sscanf(v, "%d%c%d%c%d%c", &b, &sep1, &m, &sep2, &s, &tail) == 5 && sep1 == sep2 &&
                 (sep1 == ',' || sep1 == ':')) {
        /* the ranges the schedule file's swizzle takes (fsim_schedule_swizzle, fsim_swizzle_make) */
        if (b < 0 || b > 10 || m < 0 || m > 10 || s < -10 || s > 10)
          return bad_value(e, k, v, "B and M from 0 to 10 and S from -10 to 10");
        if ((s < 0 ? -s : s) < b) return bad_value(e, k, v, "|S| at least B (the XOR's bits must not overlap)");
        snprintf(c->swizzle, sizeof c->swizzle, "%d,%d,%d", b, m, s); /* the schedule file's spelling */
      } else {
        return bad_value(e, k, v, "auto, none, B,M,S or B:M:S");
      }
    } else {
      return FSIM_ERR(e, FSIM_EINVAL,
                      "--config: unknown key '%s' (tile, waves, stages, mfma, splitk, path, c, remap, groupm, kind, "
                      "swizzle)",
                      k);
    }
  }
  return FSIM_OK;
}

int fsim_gemm_config_complete(const fsim_gemm_config *c) {
  return c->bm && c->bn && c->bk && c->waves_m && c->waves_n && c->stages && c->split_k &&
         (c->atom[0] || c->atom_m) && c->path >= 0 && c->c_path >= 0 && c->kind >= 0;
}

int fsim_gemm_config_format(const fsim_schedule *s, char *buf, size_t n) {
  const fsim_mma_atom *at = fsim_mma_atom_find(s->atom);
  const fsim_sched_operand *a = fsim_schedule_operand(s, "A"), *b = fsim_schedule_operand(s, "B");
  /* a swizzle both operands share and the plan did not choose goes last (the stored winner
   * and predict must build the same kernel); one per operand cannot be said in a config */
  char swz[48] = "";
  int sa[3], sb[3];
  /* a schedule file may space B,M,S or write B:M:S: the same swizzle either way */
  int na = a ? sscanf(a->swizzle, "%d%*[ ,:]%d%*[ ,:]%d", &sa[0], &sa[1], &sa[2]) : 0;
  int nb = b ? sscanf(b->swizzle, "%d%*[ ,:]%d%*[ ,:]%d", &sb[0], &sb[1], &sb[2]) : 0;
  if (na == 3 && nb == 3 && memcmp(sa, sb, sizeof sa) == 0)
    snprintf(swz, sizeof swz, ",swizzle=%d,%d,%d", sa[0], sa[1], sa[2]);
  else if (a && b && strcmp(a->swizzle, b->swizzle) == 0 && strcmp(a->swizzle, "auto") != 0)
    snprintf(swz, sizeof swz, ",swizzle=%s", a->swizzle); /* none */
  /* tile=BMxBNxBK,waves=WMxWN,stages=S,mfma=MxNxK,splitk=P,path=..,c=..,remap=R,groupm=G,kind=..[,swizzle=..] */
  const struct {
    const char *text;
    long long value;
  } part[] = {{"tile=", s->bm},
              {"x", s->bn},
              {"x", s->bk},
              {",waves=", s->waves_m},
              {"x", s->waves_n},
              {",stages=", s->stages},
              {",mfma=", at ? at->m : 0},
              {"x", at ? at->n : 0},
              {"x", at ? at->k : 0},
              {",splitk=", s->split_k}};
  fsim_text_buf t = fsim_text_start(buf, n);
  for (size_t i = 0; i < sizeof part / sizeof part[0]; i++) {
    fsim_text_str(&t, part[i].text);
    fsim_text_int(&t, part[i].value);
  }
  fsim_text_str(&t, a && a->path == FSIM_PATH_REGISTERS ? ",path=registers" : ",path=direct");
  fsim_text_str(&t, s->c_path == FSIM_EPI_DIRECT ? ",c=direct" : ",c=lds");
  fsim_text_str(&t, ",remap=");
  fsim_text_int(&t, s->xcd_remap);
  fsim_text_str(&t, ",groupm=");
  fsim_text_int(&t, s->group_m);
  fsim_text_str(&t, s->kind == FSIM_PIPE_PINGPONG ? ",kind=pingpong" : ",kind=plain");
  fsim_text_str(&t, swz);
  return (int)t.len;
}

double fsim_gemm_problem_flops(const fsim_gemm_problem *pr) {
  int groups = pr->op == FSIM_KOP_GROUPED_GEMM ? pr->groups : 1;
  return 2.0 * (double)pr->m * (double)pr->n * (double)pr->k * groups;
}

double fsim_gemm_problem_bytes(const fsim_gemm_problem *pr) {
  int groups = pr->op == FSIM_KOP_GROUPED_GEMM ? pr->groups : 1;
  double bytes = groups * ((double)pr->m * pr->k * fsim_dtype_bits(pr->a) + (double)pr->n * pr->k * fsim_dtype_bits(pr->b) +
                           (double)pr->m * pr->n * fsim_dtype_bits(pr->c)) / 8.0;
  if (pr->op == FSIM_KOP_SCALED_GEMM) /* one E8M0 scale per 32 values along K, for A and for B */
    bytes += ((double)pr->m + pr->n) * (double)((pr->k + 31) / 32); /* whole scales: a part-filled block has one */
  return bytes;
}

const char *fsim_gemm_peak_class(const fsim_gemm_problem *pr, const fsim_arch *a) {
  fsim_arch_derived d;
  fsim_arch_derive(a, &d);
  const char *best = NULL;
  double peak = 0;
  for (int o = 0; o < 2; o++) { /* the MMA runs at the rate of its slower operand type */
    const char *cls = fsim_dtype_peak_class(o == 0 ? pr->a : pr->b);
    int ci = cls ? fsim_arch_peak_class_index(cls) : -1;
    double t = ci >= 0 ? d.peak_tflops[ci] : 0;
    if (best == NULL || t < peak) best = cls, peak = t;
  }
  return peak > 0 ? best : "fp32"; /* no MMA rate for the type: the VALU's (as the roofline takes) */
}

fsim_status fsim_gemm_problem_check(const fsim_gemm_problem *pr, fsim_err *e) {
  return fsim_gemm_problem_check_as(pr, "--dtype", "--b-dtype", e);
}

fsim_status fsim_gemm_problem_check_as(const fsim_gemm_problem *pr, const char *a_label, const char *b_label,
                                       fsim_err *e) {
  if (pr->m < 1 || pr->n < 1 || pr->k < 1)
    return FSIM_ERR(e, FSIM_EINVAL, "--m/--n/--k: %lldx%lldx%lld is not a shape (all must be >= 1)", pr->m, pr->n, pr->k);
  if (pr->m > (1LL << 24) || pr->n > (1LL << 24) || pr->k > (1LL << 24))
    return FSIM_ERR(e, FSIM_EINVAL, "--m/--n/--k: %lldx%lldx%lld exceeds 2^24 in a dimension", pr->m, pr->n, pr->k);
  /* the messages spell the types as the help does (fp16 and int8, not f16 and i8) */
  const char *an = pr->a == FSIM_DT_F16 ? "fp16" : pr->a == FSIM_DT_I8 ? "int8" : fsim_dtype_name(pr->a);
  const char *bn = pr->b == FSIM_DT_F16 ? "fp16" : pr->b == FSIM_DT_I8 ? "int8" : fsim_dtype_name(pr->b);
  if (pr->op == FSIM_KOP_SCALED_GEMM) {
    if (!(pr->a == FSIM_DT_FP8 || pr->a == FSIM_DT_FP4))
      return FSIM_ERR(e, FSIM_EINVAL, "%s: a scaled GEMM takes fp8 (E4M3) or fp4 (E2M1) operands, not %s", a_label, an);
    if (!(pr->b == FSIM_DT_FP8 || pr->b == FSIM_DT_FP4))
      return FSIM_ERR(e, FSIM_EINVAL, "%s: a scaled GEMM takes fp8 (E4M3) or fp4 (E2M1) operands, not %s", b_label, bn);
  } else if (!(pr->a == FSIM_DT_BF16 || pr->a == FSIM_DT_F16 || pr->a == FSIM_DT_FP8)) {
    return FSIM_ERR(e, FSIM_EINVAL, "%s: a GEMM takes bf16, fp16 or fp8, not %s", a_label, an);
  } else if (pr->b != pr->a) {
    return FSIM_ERR(e, FSIM_EINVAL,
                    "%s %s: a %s takes A and B of one type (A is %s; scaled-gemm mixes fp8 and fp4)", b_label, bn,
                    fsim_kop_name(pr->op), an);
  }
  if (pr->op == FSIM_KOP_GROUPED_GEMM && pr->groups < 1) return FSIM_ERR(e, FSIM_EINVAL, "--groups: must be >= 1");
  /* byte counts stay far inside 64 bits (the summary multiplies them by slices and lines) */
  double groups = pr->op == FSIM_KOP_GROUPED_GEMM ? (double)pr->groups : 1;
  double bytes = groups * ((double)pr->m * pr->k + (double)pr->n * pr->k + 4.0 * pr->m * pr->n);
  if (bytes > 0x1p52)
    return FSIM_ERR(e, FSIM_EINVAL, "--groups/--m/--n/--k: A, B and C of %lldx%lldx%lld x %.0f group(s) take about %.3g "
                    "bytes, more than 2^52", pr->m, pr->n, pr->k, groups, bytes);
  return FSIM_OK;
}

fsim_status fsim_gemm_problem_fits(const fsim_gemm_problem *pr, const fsim_arch *a, fsim_err *e) {
  return fsim_gemm_problem_fits_as(pr, a, NULL, e);
}

fsim_status fsim_gemm_problem_fits_as(const fsim_gemm_problem *pr, const fsim_arch *a, const char *label,
                                      fsim_err *e) {
  double bytes = fsim_gemm_problem_bytes(pr);
  int groups = pr->op == FSIM_KOP_GROUPED_GEMM ? pr->groups : 1;
  char what[64] = "";
  if (groups > 1) snprintf(what, sizeof what, " x %d groups", groups);
  if (bytes > (double)a->memory.dram_bytes)
    /* in bytes, exact: a what-if part's memory can be a few MB (GiB to one place read "0.0") */
    return FSIM_ERR(e, FSIM_EINVAL, "%s%sthe operands and result of %lldx%lldx%lld%s take %.0f bytes, more than the "
                    "%lld bytes of memory of %s ([memory] dram_bytes)",
                    label ? label : groups > 1 ? "--groups/--m/--n/--k" : "--m/--n/--k", label && !*label ? "" : ": ",
                    pr->m, pr->n, pr->k, what, bytes, (long long)a->memory.dram_bytes, a->device.name);
  return FSIM_OK;
}

static int k_contig(const fsim_gemm_problem *pr, int o);
static int64_t operand_k_row_bits(const fsim_gemm_problem *pr, int o);
static const char *read_for(const fsim_arch *a, const fsim_mma_atom *at, int kmajor, int bits);

/* Can operand o be read M/N-contiguous: the part has an LDS read that delivers its fragments
 * from an mn-major tile (16-bit: a transposing read or single elements; 8-bit: gfx950's
 * ds_read_b64_tr_b8), and the problem is not a scaled GEMM (its kernels take TN only). */
static int mn_major_ok(const fsim_gemm_problem *pr, const fsim_arch *a, int o) {
  return pr->op != FSIM_KOP_SCALED_GEMM && read_for(a, NULL, 0, fsim_dtype_bits(o == 0 ? pr->a : pr->b)) != NULL;
}

int fsim_gemm_supported(const fsim_gemm_problem *pr, const fsim_arch *a, char *why, size_t n) {
  /* the part first: a K of whole 128s would not help a part without scaled MFMA (its reason
   * was the K's, and the estimate a roofline, an audit found) */
  if (pr->op == FSIM_KOP_SCALED_GEMM && a->device.isa != FSIM_ISA_CDNA4) {
    snprintf(why, n, "%s has no scaled MFMA; PyTorch falls back", a->device.gfx);
    return 0;
  }
  if (pr->op == FSIM_KOP_SCALED_GEMM && pr->k % 128 != 0) {
    snprintf(why, n, "scaled GEMM needs K to be a multiple of 128 (K = %lld); PyTorch falls back", pr->k);
    return 0;
  }
  int ok_type = 0;
  int na;
  const fsim_mma_atom *atoms = fsim_mma_atoms(&na);
  for (int i = 0; i < na; i++)
    ok_type |= (atoms[i].isas & fsim_isa_bit(a)) && atoms[i].a_type == pr->a && atoms[i].b_type == pr->b;
  if (!ok_type) {
    snprintf(why, n, "the schedule family has no %s MMA atom for %s x %s (docs/atoms.md); PyTorch falls back",
             a->device.gfx, fsim_dtype_name(pr->a), fsim_dtype_name(pr->b));
    return 0;
  }
  for (int o = 0; o < 2; o++)
    if (!k_contig(pr, o) && !mn_major_ok(pr, a, o)) {
      fsim_dtype t = o == 0 ? pr->a : pr->b;
      if (pr->op == FSIM_KOP_SCALED_GEMM)
        snprintf(why, n, "the scaled GEMMs read their operands K-contiguous only (layout TN), this is %s; PyTorch "
                 "falls back", fsim_layout_name(pr->layout));
      else
        snprintf(why, n, "%s has no transposing LDS read for %d-bit %s, so the schedule family reads it K-contiguous "
                 "only (layout TN), this is %s; PyTorch falls back", a->device.gfx, fsim_dtype_bits(t),
                 fsim_dtype_name(t), fsim_layout_name(pr->layout));
      return 0;
    }
  /* every copy moves at least 4 bytes a lane, and none may run past the end of a K row
   * (operand_k_row_bits; the kernels test each copy, not each value, against the edge) */
  for (int o = 0; o < 2; o++)
    if (operand_k_row_bits(pr, o) % 32 != 0) {
      snprintf(why, n, "%s's rows (K = %lld %s values) are not a whole number of the 4-byte copies the schedule "
               "family's loads make; PyTorch falls back", o == 0 ? "A" : "B", pr->k,
               fsim_dtype_name(o == 0 ? pr->a : pr->b));
      return 0;
    }
  why[0] = '\0';
  return 1;
}

static int has_atom(const fsim_arch *a, fsim_dtype x, fsim_dtype y) {
  int na;
  const fsim_mma_atom *atoms = fsim_mma_atoms(&na);
  for (int i = 0; i < na; i++)
    if ((atoms[i].isas & fsim_isa_bit(a)) && atoms[i].a_type == x && atoms[i].b_type == y) return 1;
  return 0;
}

int fsim_gemm_nearest_supported(const fsim_gemm_problem *pr, const fsim_arch *a, fsim_gemm_problem *out, char *how,
                                size_t n) {
  char why[300];
  *out = *pr;
  how[0] = '\0';
  if (pr->op == FSIM_KOP_SCALED_GEMM && a->device.isa != FSIM_ISA_CDNA4) return 0;
  /* C^T = B^T A^T: A' = B^T (K-contiguous where B is), B' = A^T; TN and NT keep their letters,
   * NN and TT trade them */
  const int swap = !has_atom(a, pr->a, pr->b) && has_atom(a, pr->b, pr->a);
  if (swap) {
    static const fsim_gemm_layout swapped[] = {[FSIM_LAYOUT_TN] = FSIM_LAYOUT_TN, [FSIM_LAYOUT_NN] = FSIM_LAYOUT_TT,
                                               [FSIM_LAYOUT_NT] = FSIM_LAYOUT_NT, [FSIM_LAYOUT_TT] = FSIM_LAYOUT_NN};
    out->m = pr->n, out->n = pr->m, out->a = pr->b, out->b = pr->a, out->layout = swapped[pr->layout];
    snprintf(how, n, "C^T = B^T A^T, %s x %s", fsim_dtype_name(out->a), fsim_dtype_name(out->b));
  }
  /* operands with no mn-major read here K-contiguous (4-bit ones; 8-bit ones without gfx950's
   * ds_read_b64_tr_b8; those of scaled GEMMs) */
  int ak = k_contig(out, 0) || !mn_major_ok(out, a, 0), bk = k_contig(out, 1) || !mn_major_ok(out, a, 1);
  fsim_gemm_layout lay = ak ? (bk ? FSIM_LAYOUT_TN : FSIM_LAYOUT_TT) : (bk ? FSIM_LAYOUT_NN : FSIM_LAYOUT_NT);
  if (lay != out->layout) {
    out->layout = lay;
    size_t l = strlen(how);
    snprintf(how + l, n - l, "%slayout %s", l ? ", " : "", fsim_layout_name(lay));
  }
  /* K: whole 4-byte copies along each K-contiguous row, whole 128-value scale groups */
  fsim_gemm_problem t = *out;
  while (operand_k_row_bits(&t, 0) % 32 || operand_k_row_bits(&t, 1) % 32 ||
         (t.op == FSIM_KOP_SCALED_GEMM && t.k % 128))
    t.k++;
  if (t.k != out->k) {
    out->k = t.k;
    size_t l = strlen(how);
    snprintf(how + l, n - l, "%sK %lld", l ? ", " : "", t.k);
  }
  /* and it must be a problem flysim takes: rounding K up can pass the part's memory */
  fsim_err no;
  return how[0] && fsim_gemm_supported(out, a, why, sizeof why) && fsim_gemm_problem_check(out, &no) == FSIM_OK &&
         fsim_gemm_problem_fits(out, a, &no) == FSIM_OK;
}

/* The cache-line bytes one K tile's copies of operand o touch.  Its tile is rows of S
 * contiguous bytes (K-contiguous: BK values; M/N-contiguous: BM or BN), each row starting at a
 * multiple of g = gcd(S, the row pitch, the line) bytes from a line's start; a row of S bytes
 * at offset r into a line touches (r + S - 1) / line + 1 lines, averaged here over the offsets
 * r = 0, g, 2g, ... below a line.  The caches serve whole lines (the simulator's L1 and L2
 * queues take a line per request), so rows shorter than a line cost a line each. */
static int64_t gcd64(int64_t a, int64_t b) {
  while (b > 0) {
    int64_t t = a % b;
    a = b;
    b = t;
  }
  return a;
}

static int64_t copy_line_bytes(const fsim_gemm_plan *p, int o) {
  const fsim_gemm_operand *op = &p->op[o];
  const int64_t line = p->a->memory.l2_line, eb = op->elem_bits / 8;
  int64_t s = (op->k_contig ? p->s.bk / op->vals_per_elem : op->rows) * eb;
  int64_t rows = op->k_contig ? op->rows : p->s.bk;
  int64_t g = gcd64(gcd64(line, s), op->ld * eb);
  if (g < 1) g = 1;
  int64_t lines = 0, n = line / g;
  for (int64_t r = 0; r < line; r += g) lines += (r + s - 1) / line + 1;
  return rows * lines * line / n;
}

/* ---- schedules from configs ------------------------------------------------------------------ */

static int k_contig(const fsim_gemm_problem *pr, int o) {
  return o == 0 ? (pr->layout == FSIM_LAYOUT_TN || pr->layout == FSIM_LAYOUT_TT)
                : (pr->layout == FSIM_LAYOUT_TN || pr->layout == FSIM_LAYOUT_NN);
}

/* The bits of one row of a K-contiguous operand (K values), 0 for an M/N-contiguous one.  A
 * copy that runs past the end of a K row reads the next row's first values into k >= K, where
 * they meet the other operand's values at k >= K: masked to 0 when that operand is
 * M/N-contiguous, but 0 x Inf is NaN, and in TN they are the next row's values too.  Past the
 * end of an M or N row they land in rows of C past M or N, which are never stored: harmless. */
static int64_t operand_k_row_bits(const fsim_gemm_problem *pr, int o) {
  return k_contig(pr, o) ? pr->k * fsim_dtype_bits(o == 0 ? pr->a : pr->b) : 0;
}

/* The widest copy atom of the path that divides the tile (and a K-contiguous operand's rows:
 * operand_k_row_bits); NULL if none. */
static const char *copy_for(const fsim_arch *a, int path, int64_t tile_bytes, int threads, int contig_bytes,
                            int64_t row_bits) {
  static const char *direct[] = {"buffer_load_lds_dwordx4", "buffer_load_lds_dword"};
  static const char *regs[] = {"buffer_load_dwordx4", "buffer_load_dwordx2", "buffer_load_dword"};
  const char **list = path == FSIM_PATH_DIRECT ? direct : regs;
  int n = path == FSIM_PATH_DIRECT ? 2 : 3;
  for (int i = 0; i < n; i++) {
    const fsim_copy_atom *c = fsim_copy_atom_find(list[i]);
    if (!(c->isas & fsim_isa_bit(a))) continue;
    if (tile_bytes % ((int64_t)threads * c->bytes) == 0 && contig_bytes % c->bytes == 0 &&
        row_bits % (8 * c->bytes) == 0)
      return c->name;
  }
  return NULL;
}

/* The LDS read that delivers the atom's fragment: the widest plain read along K for a k-major
 * tile, the transposing read (or single 16-bit reads) for an mn-major one; NULL where the part
 * has none (8-bit values without ds_read_b64_tr_b8, 4-bit ones: ds_read_b64_tr_b4 is not
 * modelled).  `at` is not used for an mn-major tile. */
static const char *read_for(const fsim_arch *a, const fsim_mma_atom *at, int kmajor, int bits) {
  if (!kmajor) {
    const unsigned here = fsim_isa_bit(a);
    if (bits == 8) return (fsim_copy_atom_find("ds_read_b64_tr_b8")->isas & here) ? "ds_read_b64_tr_b8" : NULL;
    if (bits != 16) return NULL;
    return (fsim_copy_atom_find("ds_read_b64_tr_b16")->isas & here) ? "ds_read_b64_tr_b16" : "ds_read_u16";
  }
  int run = fsim_mma_atom_k_run(at, 'A'); /* the layouts hold a lane's values in runs along K */
  int bytes = run * bits / 8;
  if (bytes >= 16 && bytes % 16 == 0) return "ds_read_b128";
  if (bytes >= 8 && bytes % 8 == 0) return "ds_read_b64";
  return "ds_read_b32";
}

fsim_status fsim_gemm_schedule_from(const fsim_gemm_problem *pr, const fsim_gemm_config *c, const fsim_arch *a,
                                    fsim_schedule *s, fsim_err *e) {
  const fsim_mma_atom *at = c->atom[0] ? fsim_mma_atom_find_on(c->atom, fsim_isa_bit(a)) : NULL;
  if (at == NULL && c->atom_m) {
    at = fsim_mma_atom_for(fsim_isa_bit(a), c->atom_m, c->atom_n, c->atom_k, pr->a, pr->b);
    if (at == NULL)
      return FSIM_ERR(e, FSIM_EINVAL, "--config mfma=%dx%dx%d: no %s x %s instruction of that shape on %s", c->atom_m,
                      c->atom_n, c->atom_k, fsim_dtype_name(pr->a), fsim_dtype_name(pr->b), a->device.gfx);
  }
  if (at == NULL || !fsim_gemm_config_complete(c)) return FSIM_ERR(e, FSIM_EINVAL, "internal: an incomplete config");
  fsim_schedule_defaults(s);
  s->op = pr->op;
  fsim_text_buf name = fsim_text_start(s->name, sizeof s->name); /* OP_MxNxK */
  fsim_text_str(&name, fsim_kop_name(pr->op));
  fsim_text_str(&name, "_");
  fsim_text_int(&name, pr->m);
  fsim_text_str(&name, "x");
  fsim_text_int(&name, pr->n);
  fsim_text_str(&name, "x");
  fsim_text_int(&name, pr->k);
  fsim_text_copy(s->arch, sizeof s->arch, a->device.gfx);
  s->m = pr->m, s->n = pr->n, s->k = pr->k, s->groups = pr->groups > 0 ? pr->groups : 1;
  s->a_type = pr->a, s->b_type = pr->b, s->c_type = pr->c, s->layout = pr->layout;
  s->bm = c->bm, s->bn = c->bn, s->bk = c->bk, s->waves_m = c->waves_m, s->waves_n = c->waves_n;
  s->split_k = c->split_k, s->stages = c->stages, s->kind = c->kind, s->c_path = c->c_path;
  s->xcd_remap = c->xcd_remap < 0 ? 1 : c->xcd_remap;
  s->group_m = c->group_m < 0 ? 0 : c->group_m;
  fsim_text_copy(s->atom, sizeof s->atom, at->name);
  int threads = c->waves_m * c->waves_n * a->cu.wave_size;
  s->n_operands = 2;
  for (int o = 0; o < 2; o++) {
    fsim_sched_operand *op = &s->operand[o];
    fsim_text_copy(op->id, sizeof op->id, o == 0 ? "A" : "B");
    int kc = k_contig(pr, o), bits = fsim_dtype_bits(o == 0 ? pr->a : pr->b);
    int rows = o == 0 ? c->bm : c->bn;
    int64_t tile_bytes = (int64_t)rows * c->bk * bits / 8;
    int contig = (kc ? c->bk : rows) * bits / 8;
    op->path = c->path;
    op->lds_major = kc ? FSIM_LDS_K_MAJOR : FSIM_LDS_MN_MAJOR;
    const char *copy = copy_for(a, c->path, tile_bytes, threads, contig, operand_k_row_bits(pr, o));
    const char *read = read_for(a, at, kc, bits);
    if (copy == NULL)
      return FSIM_ERR(e, FSIM_EINVAL, "[operand.%s] global_copy: no %s copy divides a %dx%d tile on %d threads", op->id,
                      c->path == FSIM_PATH_DIRECT ? "direct-to-LDS" : "register", rows, c->bk, threads);
    if (read == NULL)
      return FSIM_ERR(e, FSIM_EINVAL, "[operand.%s] lds_read: an mn-major %d-bit tile has no transposing read here",
                      op->id, bits);
    fsim_text_copy(op->global_copy, sizeof op->global_copy, copy);
    fsim_text_copy(op->lds_read, sizeof op->lds_read, read);
    fsim_text_copy(op->swizzle, sizeof op->swizzle, c->swizzle[0] ? c->swizzle : "auto");
  }
  int run_bytes = 4 * fsim_dtype_bits(pr->c) / 8;
  fsim_text_copy(s->store, sizeof s->store,
                 c->c_path == FSIM_EPI_LDS || run_bytes >= 16 ? "buffer_store_dwordx4"
                 : run_bytes >= 8                              ? "buffer_store_dwordx2"
                                                               : "buffer_store_dword");
  return FSIM_OK;
}

static void swizzle_text(const fsim_swizzle *sw, char *buf, size_t n) {
  if (sw->b == 0)
    snprintf(buf, n, "none");
  else
    snprintf(buf, n, "%d,%d,%d", sw->b, sw->m, sw->s);
}

/* Appends "; " (after the first) and the formatted text to out. */
static void gap_add(char *out, size_t n, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void gap_add(char *out, size_t n, const char *fmt, ...) {
  size_t l = strlen(out);
  if (l + 3 >= n) return;
  if (l) l += (size_t)snprintf(out + l, n - l, "; ");
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(out + l, n - l, fmt, ap);
  va_end(ap);
}

fsim_status fsim_gemm_config_gaps(const fsim_gemm_problem *pr, const fsim_schedule *s, const fsim_arch *a, char *out,
                                  size_t n, fsim_err *e) {
  out[0] = '\0';
  char text[512];
  fsim_gemm_config c;
  fsim_gemm_config_format(s, text, sizeof text);
  fsim_schedule *s2 = malloc(sizeof *s2);
  fsim_gemm_plan *p1 = malloc(sizeof *p1), *p2 = malloc(sizeof *p2);
  if (s2 == NULL || p1 == NULL || p2 == NULL) {
    free(s2);
    free(p1);
    free(p2);
    return FSIM_ERR(e, FSIM_ENOMEM, "out of memory");
  }
  /* the file's kernel was built already; the config's may not be legal at all (it picks its
   * own copies, which a swizzle of the file's may split): that is a gap, not an error */
  fsim_err why;
  fsim_err_clear(&why);
  fsim_status st = fsim_gemm_plan_make(p1, s, a, &why);
  if (st != FSIM_OK) {
    gap_add(out, n, "the file's kernel builds no plan here: %s", why.msg);
  } else if (fsim_gemm_config_parse(text, &c, &why) != FSIM_OK || fsim_gemm_schedule_from(pr, &c, a, s2, &why) != FSIM_OK ||
             fsim_gemm_plan_make(p2, s2, a, &why) != FSIM_OK) {
    gap_add(out, n, "the config alone builds no legal kernel (%s)", why.msg);
  } else {
    if (strcmp(s->atom, s2->atom) != 0) gap_add(out, n, "the MMA atom %s (the config's %s)", s->atom, s2->atom);
    for (int o = 0; o < 2; o++) {
      const fsim_gemm_operand *x = &p1->op[o], *y = &p2->op[o];
      const char id = "AB"[o];
      const struct {
        const char *what;
        const fsim_copy_atom *file, *config;
      } atoms[] = {{"copy", x->gcopy, y->gcopy}, {"LDS write", x->lwrite, y->lwrite}, {"LDS read", x->lread, y->lread}};
      for (size_t i = 0; i < sizeof atoms / sizeof atoms[0]; i++)
        if (atoms[i].file != atoms[i].config)
          gap_add(out, n, "%c's %s %s (the config's %s)", id, atoms[i].what, atoms[i].file ? atoms[i].file->name : "none",
                  atoms[i].config ? atoms[i].config->name : "none");
      if (x->sw.b != y->sw.b || x->sw.m != y->sw.m || x->sw.s != y->sw.s) {
        char f[24], g[24];
        swizzle_text(&x->sw, f, sizeof f);
        swizzle_text(&y->sw, g, sizeof g);
        gap_add(out, n, "%c's swizzle %s (the config's %s)", id, f, g);
      }
      if (x->lds_major != y->lds_major)
        gap_add(out, n, "%c's LDS order %s-major (the config's %s-major)", id,
                x->lds_major == FSIM_LDS_K_MAJOR ? "k" : "mn", y->lds_major == FSIM_LDS_K_MAJOR ? "k" : "mn");
      if (x->row_len != y->row_len)
        gap_add(out, n, "%c's LDS rows of %d elements (the config's %d)", id, x->row_len, y->row_len);
    }
    if (strcmp(s->store, s2->store) != 0) gap_add(out, n, "C's store %s (the config's %s)", s->store, s2->store);
    /* no hints: "" or "none" alike */
    const char *h1 = strcmp(s->interleave, "none") == 0 ? "" : s->interleave;
    const char *h2 = strcmp(s2->interleave, "none") == 0 ? "" : s2->interleave;
    if (strcmp(h1, h2) != 0) gap_add(out, n, "the interleave hints '%s'", h1[0] ? h1 : "none");
  }
  free(s2);
  free(p1);
  free(p2);
  return FSIM_OK;
}

/* ---- the space ------------------------------------------------------------------------------- */

static int64_t next_pow2(int64_t v) {
  int64_t p = 1;
  while (p < v) p *= 2;
  return p;
}

/* fsim_gemm_enumerate; with first_reject, also why the first candidate that was built was
 * refused (for fsim_gemm_config_explain: "e.g. CONFIG: REASON"). */
static fsim_status enumerate(const fsim_gemm_problem *pr, const fsim_gemm_config *fixed, const fsim_arch *a,
                             fsim_gemm_visit visit, void *ctx, atomic_int *next_chunk, int64_t *tried, int64_t *legal,
                             fsim_err *first_reject, char *first_config, size_t first_n, fsim_err *e) {
  static const int tiles[] = {16, 32, 64, 128, 256}, depths[] = {32, 64, 128, 256, 512}, waves[] = {1, 2, 4, 8},
                   splits[] = {1, 2, 4, 8, 16}, stage_list[] = {1, 2, 3, 4};
  /* a fixed key is the only value of its dimension (so 224 or split-K 6 can be asked for) */
  int one_bm[1] = {fixed->bm}, one_bn[1] = {fixed->bn}, one_bk[1] = {fixed->bk}, one_wm[1] = {fixed->waves_m},
      one_wn[1] = {fixed->waves_n}, one_st[1] = {fixed->stages}, one_sk[1] = {fixed->split_k};
  const int *bms, *bns, *bks, *wms, *wns, *sts, *sks;
  int nbm, nbn, nbk, nwm, nwn, nst, nsk;
  struct {
    const int **v;
    int *n;
    const int *arr, *one;
    int len, key;
  } dims[] = {{&bms, &nbm, tiles, one_bm, 5, fixed->bm},       {&bns, &nbn, tiles, one_bn, 5, fixed->bn},
              {&bks, &nbk, depths, one_bk, 5, fixed->bk},      {&wms, &nwm, waves, one_wm, 4, fixed->waves_m},
              {&wns, &nwn, waves, one_wn, 4, fixed->waves_n},  {&sts, &nst, stage_list, one_st, 4, fixed->stages},
              {&sks, &nsk, splits, one_sk, 5, fixed->split_k}};
  for (size_t d = 0; d < sizeof dims / sizeof dims[0]; d++) {
    *dims[d].v = dims[d].key ? dims[d].one : dims[d].arr;
    *dims[d].n = dims[d].key ? 1 : dims[d].len;
  }
  int64_t ntried = 0, nlegal = 0;
  fsim_gemm_memo *memo = fsim_gemm_memo_create();
  fsim_schedule *s = malloc(sizeof *s);
  fsim_gemm_plan *p = malloc(sizeof *p);
  if (memo == NULL || s == NULL || p == NULL) {
    fsim_gemm_memo_free(memo);
    free(s);
    free(p);
    return FSIM_ERR(e, FSIM_ENOMEM, "out of memory");
  }
  int na;
  const fsim_mma_atom *atoms = fsim_mma_atoms(&na);
  unsigned isa = fsim_isa_bit(a);
  int has_direct = (fsim_copy_atom_find("buffer_load_lds_dword")->isas & isa) != 0;
  int stop = 0;
  fsim_status st = FSIM_OK;
  const fsim_mma_atom *want = fixed->atom[0] ? fsim_mma_atom_find_on(fixed->atom, isa) : NULL;
  /* shared: the chunks (atom, bm) are numbered in loop order; this call visits those it claims */
  int chunk = 0, claim = next_chunk ? atomic_fetch_add(next_chunk, 1) : 0;
  for (int ai = 0; ai < na && !stop; ai++) {
    const fsim_mma_atom *at = &atoms[ai];
    if (!(at->isas & isa) || at->a_type != pr->a || at->b_type != pr->b) continue;
    if (pr->op == FSIM_KOP_SCALED_GEMM && !at->scaled) continue;
    if (want && at != want) continue;
    if (fixed->atom_m && (at->m != fixed->atom_m || at->n != fixed->atom_n || at->k != fixed->atom_k)) continue;
    if (fsim_arch_find_mfma(a, at->name) == NULL) continue;
    int64_t max_m = next_pow2(pr->m) > at->m ? next_pow2(pr->m) : at->m;
    int64_t max_n = next_pow2(pr->n) > at->n ? next_pow2(pr->n) : at->n;
    int64_t max_k = next_pow2(pr->k) > at->k ? next_pow2(pr->k) : at->k;
    if (max_k < depths[0]) max_k = depths[0]; /* the shallowest tile for a K below it (gfx942's k=8, 16 atoms) */
    for (int bi = 0; bi < nbm && !stop; bi++) {
      if (next_chunk != NULL) {
        if (chunk++ != claim) continue;
        claim = atomic_fetch_add(next_chunk, 1);
      }
      for (int bj = 0; bj < nbn && !stop; bj++)
        for (int bl = 0; bl < nbk && !stop; bl++) {
          int bm = bms[bi], bn = bns[bj], bk = bks[bl];
          if (!fixed->bm && (bm > max_m || bm % at->m)) continue;
          if (!fixed->bn && (bn > max_n || bn % at->n)) continue;
          if (!fixed->bk && (bk > max_k || bk % at->k)) continue;
          if (pr->op == FSIM_KOP_SCALED_GEMM && bk % 128) continue;
          int64_t tiles_mn = ((pr->m + bm - 1) / bm) * ((pr->n + bn - 1) / bn);
          for (int wi = 0; wi < nwm && !stop; wi++)
            for (int wj = 0; wj < nwn && !stop; wj++) {
              int wm = wms[wi], wn = wns[wj];
              if (wm * wn > 16 || bm % (wm * at->m) || bn % (wn * at->n)) continue;
              for (int sti = 0; sti < nst && !stop; sti++) {
                int st_ = sts[sti];
                for (int si = 0; si < nsk && !stop; si++) {
                  int sk = sks[si];
                  if (!fixed->split_k && sk > 1 && (tiles_mn >= a->device.cus || pr->k / sk < 2 * bk)) continue;
                  for (int path = 0; path < 2 && !stop; path++) {
                    if (fixed->path >= 0 ? path != fixed->path : (path == FSIM_PATH_DIRECT && !has_direct)) continue;
                    for (int cp = 0; cp < 2 && !stop; cp++) {
                      if (fixed->c_path >= 0 && cp != fixed->c_path) continue;
                      for (int kind = 0; kind < 2 && !stop; kind++) {
                        /* ping-pong: two groups of at least four waves, alternating over two or more
                         * LDS stages (with one, the groups wait on each other) */
                        if (fixed->kind >= 0 ? kind != fixed->kind
                                             : (kind == FSIM_PIPE_PINGPONG && (wm * wn < 8 || st_ < 2)))
                          continue;
                        /* a fixed ping-pong with the stages free: one stage is refused by every plan
                         * ("needs two or more stages"), which would hide the reason the others fail */
                        if (kind == FSIM_PIPE_PINGPONG && !fixed->stages && st_ < 2) continue;
                        fsim_gemm_config c = *fixed;
                        c.bm = bm, c.bn = bn, c.bk = bk, c.waves_m = wm, c.waves_n = wn, c.stages = st_;
                        c.split_k = sk, c.path = path, c.c_path = cp, c.kind = kind;
                        fsim_text_copy(c.atom, sizeof c.atom, at->name);
                        ntried++;
                        fsim_err *why = first_reject && !first_reject->msg[0] ? first_reject : NULL;
                        if (fsim_gemm_schedule_from(pr, &c, a, s, why) != FSIM_OK ||
                            fsim_gemm_plan_make_memo(p, s, a, memo, why) != FSIM_OK) {
                          if (why && why->msg[0]) fsim_gemm_config_fixed_text(&c, first_config, first_n);
                          continue;
                        }
                        nlegal++;
                        if (visit(ctx, p)) stop = 1;
                      }
                    }
                  }
                }
              }
            }
        }
    }
  }
  fsim_gemm_memo_free(memo);
  free(s);
  free(p);
  if (tried) *tried = ntried;
  if (legal) *legal = nlegal;
  return st;
}

fsim_status fsim_gemm_enumerate(const fsim_gemm_problem *pr, const fsim_gemm_config *fixed, const fsim_arch *a,
                                fsim_gemm_visit visit, void *ctx, int64_t *tried, int64_t *legal, fsim_err *e) {
  return enumerate(pr, fixed, a, visit, ctx, NULL, tried, legal, NULL, NULL, 0, e);
}

fsim_status fsim_gemm_enumerate_shared(const fsim_gemm_problem *pr, const fsim_gemm_config *fixed, const fsim_arch *a,
                                       fsim_gemm_visit visit, void *ctx, atomic_int *next_chunk, int64_t *tried,
                                       int64_t *legal, fsim_err *e) {
  return enumerate(pr, fixed, a, visit, ctx, next_chunk, tried, legal, NULL, NULL, 0, e);
}

/* ---- why no config is legal ------------------------------------------------------------------ */

enum { KEY_TILE, KEY_WAVES, KEY_STAGES, KEY_MFMA, KEY_SPLITK, KEY_PATH, KEY_C, KEY_REMAP, KEY_GROUPM, KEY_KIND,
       KEY_SWIZZLE, KEY_COUNT };

/* Copies key `key` of src into dst (its other keys untouched), free or not, and writes it as
 * --config text when src fixes it; returns 0 when src leaves that key free. */
static int copy_key(const fsim_gemm_config *src, int key, fsim_gemm_config *dst, char *text, size_t n) {
  switch (key) {
  case KEY_TILE:
    dst->bm = src->bm, dst->bn = src->bn, dst->bk = src->bk;
    if (!src->bm) return 0;
    if (src->bk) snprintf(text, n, "tile=%dx%dx%d", src->bm, src->bn, src->bk);
    else snprintf(text, n, "tile=%dx%d", src->bm, src->bn);
    return 1;
  case KEY_WAVES:
    dst->waves_m = src->waves_m, dst->waves_n = src->waves_n;
    if (!src->waves_m) return 0;
    return snprintf(text, n, "waves=%dx%d", src->waves_m, src->waves_n), 1;
  case KEY_STAGES:
    dst->stages = src->stages;
    if (!src->stages) return 0;
    return snprintf(text, n, "stages=%d", src->stages), 1;
  case KEY_MFMA:
    snprintf(dst->atom, sizeof dst->atom, "%s", src->atom);
    dst->atom_m = src->atom_m, dst->atom_n = src->atom_n, dst->atom_k = src->atom_k;
    if (src->atom[0]) return snprintf(text, n, "mfma=%s", src->atom), 1;
    if (!src->atom_m) return 0;
    return snprintf(text, n, "mfma=%dx%dx%d", src->atom_m, src->atom_n, src->atom_k), 1;
  case KEY_SPLITK:
    dst->split_k = src->split_k;
    if (!src->split_k) return 0;
    return snprintf(text, n, "splitk=%d", src->split_k), 1;
  case KEY_PATH:
    dst->path = src->path;
    if (src->path < 0) return 0;
    return snprintf(text, n, "path=%s", src->path == FSIM_PATH_DIRECT ? "direct" : "registers"), 1;
  case KEY_C:
    dst->c_path = src->c_path;
    if (src->c_path < 0) return 0;
    return snprintf(text, n, "c=%s", src->c_path == FSIM_EPI_DIRECT ? "direct" : "lds"), 1;
  case KEY_REMAP:
    dst->xcd_remap = src->xcd_remap;
    if (src->xcd_remap < 0) return 0;
    return snprintf(text, n, "remap=%d", src->xcd_remap), 1;
  case KEY_GROUPM:
    dst->group_m = src->group_m;
    if (src->group_m < 0) return 0;
    return snprintf(text, n, "groupm=%d", src->group_m), 1;
  case KEY_KIND:
    dst->kind = src->kind;
    if (src->kind < 0) return 0;
    return snprintf(text, n, "kind=%s", src->kind == FSIM_PIPE_PINGPONG ? "pingpong" : "plain"), 1;
  case KEY_SWIZZLE:
    snprintf(dst->swizzle, sizeof dst->swizzle, "%s", src->swizzle);
    if (!src->swizzle[0]) return 0;
    return snprintf(text, n, "swizzle=%s", src->swizzle), 1;
  default: return 0;
  }
}

/* Copies key `key` of src into dst (all other keys free) and writes it as --config text;
 * returns 0 when src leaves that key free. */
static int only_key(const fsim_gemm_config *src, int key, fsim_gemm_config *dst, char *text, size_t n) {
  fsim_gemm_config_free_all(dst);
  return copy_key(src, key, dst, text, n);
}

void fsim_gemm_config_fixed_text(const fsim_gemm_config *c, char *buf, size_t n) {
  size_t len = 0;
  buf[0] = '\0';
  for (int k = 0; k < KEY_COUNT && len < n; k++) {
    fsim_gemm_config one;
    char t[96];
    if (only_key(c, k, &one, t, sizeof t)) len += (size_t)snprintf(buf + len, n - len, "%s%s", len ? "," : "", t);
  }
}

static int stop_at_first(void *ctx, const fsim_gemm_plan *p) {
  (void)ctx, (void)p;
  return 1;
}

static int64_t kib_align(int64_t v) { return (v + 1023) / 1024 * 1024; }

/* Searches the configs within cfg until the first legal one (*legal: 1, or 0 when there is
 * none; may be NULL) and writes "; e.g. CONFIG: WHY" for the first one it refused to tail
 * ("" when it refused none), for fsim_gemm_config_explain's messages. */
static fsim_status probe(const fsim_gemm_problem *pr, const fsim_gemm_config *cfg, const fsim_arch *a, int64_t *legal,
                         char *tail, size_t n, fsim_err *e) {
  fsim_err why;
  char eg[300] = "";
  fsim_err_clear(&why);
  if (legal) *legal = 0;
  fsim_status st = enumerate(pr, cfg, a, stop_at_first, NULL, NULL, NULL, legal, &why, eg, sizeof eg, e);
  if (st != FSIM_OK) return st;
  if (why.msg[0])
    snprintf(tail, n, "; e.g. %s: %s", eg, why.msg);
  else
    tail[0] = '\0';
  return FSIM_OK;
}

static int first_config(void *ctx, const fsim_gemm_plan *p) {
  fsim_gemm_config_format(&p->s, ctx, 512);
  return 1;
}

/* For a key at fault: a legal config with every other key given, changed to the key's given
 * value, and why that one is refused, as "; e.g. CONFIG: WHY" in tail, so that the reason is
 * the key's own (the first candidate the search builds can fail for a reason of its tile that
 * has nothing to do with the key: a grouped GEMM's splitk=2 once came with a C-path reason).
 * *found 0 (tail untouched) when no legal config has the other keys. */
static fsim_status key_example(const fsim_gemm_problem *pr, const fsim_gemm_config *fixed, int key,
                               const fsim_arch *a, char *tail, size_t n, int *found, fsim_err *e) {
  fsim_gemm_config others = *fixed, free_all, c;
  char text[96], legal_text[512] = "";
  fsim_gemm_config_free_all(&free_all);
  copy_key(&free_all, key, &others, text, sizeof text);
  *found = 0;
  int64_t legal = 0;
  fsim_status st = enumerate(pr, &others, a, first_config, legal_text, NULL, NULL, &legal, NULL, NULL, 0, e);
  if (st != FSIM_OK || legal == 0) return st;
  fsim_err why;
  fsim_err_clear(&why);
  if (fsim_gemm_config_parse(legal_text, &c, &why) != FSIM_OK) return FSIM_OK; /* defended: the format parses */
  const fsim_gemm_config legal_cfg = c;
  for (int k = 0; k < KEY_COUNT; k++) {
    fsim_gemm_config keep = c;
    if (!copy_key(fixed, k, &c, text, sizeof text)) c = keep; /* a key left free keeps the legal config's value */
  }
  if (c.bk == 0) c.bk = legal_cfg.bk; /* tile=BMxBN leaves BK free (it was copied as 0: "an incomplete config") */
  fsim_schedule *s = malloc(sizeof *s);
  fsim_gemm_plan *p = malloc(sizeof *p);
  if (s == NULL || p == NULL) {
    free(s);
    free(p);
    return FSIM_ERR(e, FSIM_ENOMEM, "out of memory");
  }
  if (fsim_gemm_schedule_from(pr, &c, a, s, &why) == FSIM_OK) fsim_gemm_plan_make(p, s, a, &why);
  free(s);
  free(p);
  if (why.msg[0]) {
    char cfg[300];
    fsim_gemm_config_fixed_text(&c, cfg, sizeof cfg);
    snprintf(tail, n, "; e.g. %s: %s", cfg, why.msg);
    *found = 1;
  }
  return FSIM_OK;
}

fsim_status fsim_gemm_config_explain(const fsim_gemm_problem *pr, const fsim_gemm_config *fixed, const fsim_arch *a,
                                     fsim_err *e) {
  static const int tiles[] = {16, 32, 64, 128, 256};
  char text[96];
  fsim_gemm_config one;
  unsigned isa = fsim_isa_bit(a);
  const char *an = pr->a == FSIM_DT_F16 ? "fp16" : fsim_dtype_name(pr->a);
  const char *bn = pr->b == FSIM_DT_F16 ? "fp16" : fsim_dtype_name(pr->b);
  /* mfma: an instruction of the part for the operand types */
  int na, nok = 0, min_m = 0, min_n = 0;
  const fsim_mma_atom *atoms = fsim_mma_atoms(&na), *ok[64];
  char have[256] = "";
  const fsim_mma_atom *want = fixed->atom[0] ? fsim_mma_atom_find_on(fixed->atom, isa) : NULL;
  for (int i = 0; i < na && nok < 64; i++) {
    const fsim_mma_atom *at = &atoms[i];
    if (!(at->isas & isa) || at->a_type != pr->a || at->b_type != pr->b) continue;
    if ((pr->op == FSIM_KOP_SCALED_GEMM && !at->scaled) || fsim_arch_find_mfma(a, at->name) == NULL) continue;
    char shape[32];
    snprintf(shape, sizeof shape, "%dx%dx%d", at->m, at->n, at->k);
    if (!strstr(have, shape)) {
      size_t l = strlen(have);
      snprintf(have + l, sizeof have - l, "%s%s", l ? ", " : "", shape);
    }
    if (fixed->atom[0] && at != want) continue;
    if (fixed->atom_m && (at->m != fixed->atom_m || at->n != fixed->atom_n || at->k != fixed->atom_k)) continue;
    ok[nok++] = at;
    if (!min_m || at->m < min_m) min_m = at->m;
    if (!min_n || at->n < min_n) min_n = at->n;
  }
  if (nok == 0 && only_key(fixed, KEY_MFMA, &one, text, sizeof text))
    return FSIM_ERR(e, FSIM_EINVAL, "--config %s: %s has no %s x %s matrix instruction of that %s (it has %s)", text,
                    a->device.gfx, an, bn, fixed->atom[0] ? "name" : "shape", have[0] ? have : "none");
  /* waves: a workgroup's work-items, and a tile that splits evenly over the waves */
  if (only_key(fixed, KEY_WAVES, &one, text, sizeof text) && nok > 0) {
    int w = fixed->waves_m * fixed->waves_n, items = w * a->cu.wave_size;
    if (items > a->cu.max_workgroup_size)
      return FSIM_ERR(e, FSIM_EINVAL, "--config %s: %d waves are %d work-items, more than the %d of a workgroup on %s",
                      text, w, items, a->cu.max_workgroup_size, a->device.name);
    if (w > 16)
      return FSIM_ERR(e, FSIM_EINVAL, "--config %s: %d waves; a GEMM workgroup has at most 16", text, w);
    for (int d = 0; d < 2; d++) {
      int wd = d == 0 ? fixed->waves_m : fixed->waves_n, fixed_t = d == 0 ? fixed->bm : fixed->bn;
      long long extent = d == 0 ? pr->m : pr->n;
      int found = 0;
      for (int i = 0; i < nok && !found; i++) {
        int am = d == 0 ? ok[i]->m : ok[i]->n;
        int64_t max_t = next_pow2(extent) > am ? next_pow2(extent) : am;
        for (int t = 0; t < 5 && !found; t++) {
          int tile = fixed_t ? fixed_t : tiles[t];
          if (!fixed_t && (tile > max_t || tile % am)) continue;
          found = tile % (wd * am) == 0;
        }
      }
      if (!found && fixed_t)
        return FSIM_ERR(e, FSIM_EINVAL, "--config %s: tile %s %d is not a multiple of %s x the MFMA's %s (%d x %d)",
                        text, d == 0 ? "BM" : "BN", fixed_t, d == 0 ? "WM" : "WN", d == 0 ? "M" : "N", wd,
                        d == 0 ? min_m : min_n);
      if (!found)
        return FSIM_ERR(e, FSIM_EINVAL,
                        "--config %s: no %s searched (powers of two from 16 to 256) is a multiple of %s x the MFMA's "
                        "%s (%d x %d); give tile= as well",
                        text, d == 0 ? "BM" : "BN", d == 0 ? "WM" : "WN", d == 0 ? "M" : "N", wd,
                        d == 0 ? min_m : min_n);
    }
  }
  /* tile: one stage of the A and B tiles (each aligned to 1 KiB, as the plan lays them out) in LDS */
  if (only_key(fixed, KEY_TILE, &one, text, sizeof text)) {
    int divides = 0;
    for (int i = 0; i < nok && !divides; i++)
      divides = fixed->bm % ok[i]->m == 0 && fixed->bn % ok[i]->n == 0 && (!fixed->bk || fixed->bk % ok[i]->k == 0);
    if (pr->op == FSIM_KOP_SCALED_GEMM && fixed->bk % 128 != 0)
      return FSIM_ERR(e, FSIM_EINVAL, "--config %s: BK %d; a scaled GEMM's tiles hold whole 128-value scale groups "
                      "(BK a multiple of 128)", text, fixed->bk);
    if (nok > 0 && !divides)
      return FSIM_ERR(e, FSIM_EINVAL, "--config %s: no %s x %s matrix instruction of %s divides the tile (their M x N x "
                      "K: %s)", text, an, bn, a->device.gfx, have);
    int bk = fixed->bk ? fixed->bk : pr->op == FSIM_KOP_SCALED_GEMM ? 128 : 32;
    int64_t stage = kib_align((int64_t)fixed->bm * bk * fsim_dtype_bits(pr->a) / 8) +
                    kib_align((int64_t)fixed->bn * bk * fsim_dtype_bits(pr->b) / 8);
    int stages = fixed->stages ? fixed->stages : 1;
    if (stage > a->lds.max_bytes_per_wg)
      return FSIM_ERR(e, FSIM_EINVAL,
                      "--config %s: one stage of %dx%d and %dx%d tiles needs %lld bytes of LDS, more than the %d a "
                      "workgroup may use on %s",
                      text, fixed->bm, bk, fixed->bn, bk, (long long)stage, a->lds.max_bytes_per_wg, a->device.name);
    if (stage * stages > a->lds.max_bytes_per_wg)
      return FSIM_ERR(e, FSIM_EINVAL,
                      "--config %s,stages=%d: %d stages of %dx%d and %dx%d tiles need %lld bytes of LDS, more than "
                      "the %d a workgroup may use on %s",
                      text, stages, stages, fixed->bm, bk, fixed->bn, bk, (long long)(stage * stages),
                      a->lds.max_bytes_per_wg, a->device.name);
  }
  /* no config at all is legal (arch values that rule out every one, say): then the keys are
   * not why, and naming one of them would mislead */
  fsim_gemm_config none;
  fsim_gemm_config_free_all(&none);
  char tail[1100], given[400];
  int64_t legal = 0;
  fsim_status st = probe(pr, &none, a, &legal, tail, sizeof tail, e);
  if (st != FSIM_OK) return st;
  fsim_gemm_config_fixed_text(fixed, given, sizeof given);
  if (legal == 0)
    return FSIM_ERR(e, FSIM_EINVAL, "--config %s: no configuration of %s %lldx%lldx%lld %s on %s is legal, whatever "
                    "--config fixes%s", given, fsim_kop_name(pr->op), pr->m, pr->n, pr->k, an, a->device.name, tail);
  /* otherwise the first key that no legal config has on its own, with why the first config
   * the search built with it was refused */
  for (int k = 0; k < KEY_COUNT; k++) {
    if (!only_key(fixed, k, &one, text, sizeof text)) continue;
    if ((st = probe(pr, &one, a, &legal, tail, sizeof tail, e)) != FSIM_OK) return st;
    if (legal == 0) {
      /* the example honours every key given (one built from this key alone could contradict
       * the others: c=lds where c=direct was given): a legal config of the other keys with
       * this one changed, else the first candidate with them all that was built */
      char all[1100];
      int found;
      if ((st = key_example(pr, fixed, k, a, all, sizeof all, &found, e)) != FSIM_OK) return st;
      if (!found && (st = probe(pr, fixed, a, NULL, all, sizeof all, e)) != FSIM_OK) return st;
      if (all[0]) snprintf(tail, sizeof tail, "%s", all);
      if (strcmp(given, text) == 0)
        return FSIM_ERR(e, FSIM_EINVAL, "--config %s: no legal configuration of %s %lldx%lldx%lld %s on %s has it%s",
                        text, fsim_kop_name(pr->op), pr->m, pr->n, pr->k, an, a->device.name, tail);
      return FSIM_ERR(e, FSIM_EINVAL, "--config %s: no legal configuration of %s %lldx%lldx%lld %s on %s has %s%s",
                      given, fsim_kop_name(pr->op), pr->m, pr->n, pr->k, an, a->device.name, text, tail);
    }
  }
  /* the example: the first key whose change turns a legal config of the others illegal, else
   * the first candidate with them all */
  int found = 0;
  for (int k = 0; k < KEY_COUNT && !found; k++)
    if (only_key(fixed, k, &one, text, sizeof text) &&
        (st = key_example(pr, fixed, k, a, tail, sizeof tail, &found, e)) != FSIM_OK)
      return st;
  if (!found && (st = probe(pr, fixed, a, NULL, tail, sizeof tail, e)) != FSIM_OK) return st;
  return FSIM_ERR(e, FSIM_EINVAL,
                  "--config %s: no legal configuration of %s %lldx%lldx%lld %s on %s has these keys together (each "
                  "alone is possible)%s",
                  given, fsim_kop_name(pr->op), pr->m, pr->n, pr->k, an, a->device.name, tail);
}

/* ---- the summary ------------------------------------------------------------------------------ */

/* The MFMAs of a k step issued after the last LDS read that the next step's first MFMA waits
 * for (its A and B fragments), averaged over the steps after the first: what hides that read's
 * latency.  Replays the order the wave program's default K step emits (gemm_wprog.c: copies,
 * then rounds of one read and per = MFMAs / reads of a step MFMAs, a read of step kk waiting
 * for the MFMAs of kk-2, an MFMA of kk for all reads of kk, and the next item in dependence
 * order when a round makes no progress) over at most three steps. */
static double kstep_hiding_mfmas(const fsim_gemm_plan *p) {
  enum { MAX_ITEMS = 2048 };
  const int ra = p->op[0].reads_per_frag, rb = p->op[1].reads_per_frag;
  const int R = p->rm * ra + p->rn * rb, M = p->rm * p->rn;
  const int steps = p->ki < 3 ? p->ki : 3;
  if (steps < 2 || R <= 0 || M <= 0 || steps * (R + M) > MAX_ITEMS) return 1;
  const int per = M / R > 1 ? M / R : 1, nread = steps * R, nmfma = steps * M;
  int read_pos[MAX_ITEMS], mfma_pos[MAX_ITEMS];
  int ri = 0, mi = 0, pos = 0;
  while (ri < nread || mi < nmfma) {
    int progressed = 0;
    if (ri < nread && !(ri / R >= 2 && mi < (ri / R - 1) * M)) read_pos[ri++] = pos++, progressed = 1;
    for (int c = 0; c < per && mi < nmfma && ri >= (mi / M + 1) * R; c++) mfma_pos[mi++] = pos++, progressed = 1;
    if (!progressed) {
      if (ri < nread && (ri / R < 2 || mi >= (ri / R - 1) * M)) read_pos[ri++] = pos++;
      else if (mi < nmfma) mfma_pos[mi++] = pos++;
      else break;
    }
  }
  double sum = 0;
  for (int st = 1; st < steps; st++) {
    int last = read_pos[st * R + ra - 1]; /* A's first fragment */
    int b0 = read_pos[st * R + p->rm * ra + rb - 1]; /* B's first fragment */
    if (b0 > last) last = b0;
    for (int m = (st - 1) * M; m < st * M; m++) sum += mfma_pos[m] > last;
  }
  return sum / (steps - 1);
}

void fsim_gemm_summary(const fsim_gemm_plan *p, fsim_plan_summary *s) {
  const fsim_schedule *sc = &p->s;
  const fsim_arch *a = p->a;
  memset(s, 0, sizeof *s);
  s->workgroups = p->workgroups;
  s->waves_per_wg = p->waves;
  s->vgprs = p->vgprs;
  s->agprs = p->agprs;
  s->sgprs = p->sgprs;
  s->lds_bytes = p->lds_bytes;
  s->iters = p->k_tiles;
  s->stages = sc->stages;
  s->ksteps = p->ki;
  s->wave_groups = sc->kind == FSIM_PIPE_PINGPONG ? 2 : 1;
  int sa, sb;
  s->phases = sc->kind == FSIM_PIPE_PINGPONG ? fsim_gemm_pp_slices(p, &sa, &sb) : 1;
  s->barriers_per_iter = sc->kind == FSIM_PIPE_PINGPONG ? s->phases : sc->stages == 1 ? 3 : 1;
  /* How far ahead the wave program (gemm_wprog.c) issues a tile's copies of the first wait
   * for them, in iterations.  Plain: stages - 1 tiles; a copy through registers is written to
   * LDS, after vmcnt(0), at the end of the iteration that loaded it (1).  Ping-pong: the next
   * tile's copies are waited for at phase P - 2, stages - 2 tiles and (P - 2) / P of one after
   * phase 0 issued them; (P - 2) / P through registers.  A transposing read after direct
   * copies waits for all of them (vmcnt(0), as clang compiles it): in the plain K step at
   * once, the copies going first; in ping-pong at the first phase after 0 that reads a
   * transposed operand (B's half 1 in phase 1, A's half 1 in phase 2, with four phases), or
   * the next tile's phase 0 with two.  A K slice of T tiles has no more than T tiles to keep
   * in flight: with T + 1 stages the prologue issues them all, and stages past that hold
   * nothing and lead no further (64x64x64 on one 64-deep tile once ranked stages 3 to 8 ahead
   * of 2, which simulate the same and hold more LDS; at T = 2 three stages simulate 9% faster
   * than two, and four as three). */
  {
    int regs = p->op[0].lwrite != NULL || p->op[1].lwrite != NULL;
    int direct = p->op[0].gcopy->op == FSIM_OP_LOAD_LDS || p->op[1].gcopy->op == FSIM_OP_LOAD_LDS;
    int tr_a = p->op[0].lread->transpose, tr_b = p->op[1].lread->transpose;
    double lead, whole; /* whole: the part of lead that spans whole iterations */
    const int stages = fsim_gemm_used_stages(p);
    if (sc->kind == FSIM_PIPE_PINGPONG) {
      int P = s->phases;
      whole = regs ? 0.0 : stages - 2.0;
      lead = whole + (P - 2.0) / P;
      if (direct && (tr_a || tr_b)) {
        double tr = P == 4 ? (tr_b ? 1.0 : 2.0) / P : 1.0;
        if (tr < lead) lead = tr, whole = tr >= 1 ? 1 : 0;
      }
    } else {
      lead = regs ? 1.0 : stages - 1.0;
      whole = regs ? 0.0 : lead;
      if (direct && (tr_a || tr_b)) lead = whole = 0;
    }
    /* a wave has at most 63 vector-memory operations outstanding (the 6-bit vmcnt: the
     * generator's waits stop there and the simulator stops issuing), so at most 63 / copies
     * tiles of copies are ahead whatever the stages */
    int cpt = fsim_gemm_loads_per_tile(p);
    if (cpt > 0 && lead > 63 / cpt) lead = 63 / cpt;
    if (whole > lead) whole = lead;
    s->copy_lead = lead < 0 ? 0 : lead;
    s->copy_lead_whole = whole < 0 ? 0 : whole;
  }
  s->mfma_per_wave = p->rm * p->rn * p->ki;
  s->mfma_cycles = fsim_mfma_cycles(a, p->mfma);
  s->mfma_latency = p->mfma->latency;
  s->lds_reads_per_wave = p->ki * (p->rm * p->op[0].reads_per_frag + p->rn * p->op[1].reads_per_frag);
  s->kstep_hiding_mfmas = kstep_hiding_mfmas(p);
  s->lds_read_bytes_per_wave = (int64_t)p->ki * p->wave_size *
                               (p->rm * p->op[0].reads_per_frag * p->op[0].lread->bytes +
                                p->rn * p->op[1].reads_per_frag * p->op[1].lread->bytes);
  s->lds_bank_cycles_per_wave = p->ki * (p->op[0].lds_cycles_per_kstep + p->op[1].lds_cycles_per_kstep) +
                                p->op[0].lds_cycles_per_tile_writes + p->op[1].lds_cycles_per_tile_writes;
  s->vmem_per_wave = fsim_gemm_loads_per_tile(p);
  int64_t ea = fsim_dtype_bits(sc->a_type), eb = fsim_dtype_bits(sc->b_type), ec = p->c_bits;
  s->load_bytes_per_wg = ((int64_t)sc->bm * sc->bk * ea + (int64_t)sc->bn * sc->bk * eb) / 8;
  s->lds_write_bytes_per_wg = s->load_bytes_per_wg;
  s->load_line_bytes_per_wg = copy_line_bytes(p, 0) + copy_line_bytes(p, 1);
  /* a scaled GEMM's scales of the tile go to registers (not LDS); waves that share rows load
   * the same bytes, which the L1 serves */
  if (sc->op == FSIM_KOP_SCALED_GEMM) {
    s->load_bytes_per_wg += ((int64_t)sc->bm + sc->bn) * (sc->bk / 32);
    s->load_line_bytes_per_wg += ((int64_t)sc->bm + sc->bn) * (sc->bk / 32);
  }
  s->store_bytes_per_wg = (int64_t)sc->bm * sc->bn * ec / 8;
  s->store_atomics = sc->split_k > 1;
  /* the lines the C stores touch: one store instruction's lines (the plan's
   * c_store_lines) times the instructions; split-K stores its partial sums as 4-byte
   * atomics, each touching the lines of its run */
  {
    int direct = sc->c_path == FSIM_EPI_DIRECT;
    int parts = sc->split_k > 1 ? (direct ? 4 * p->c_bits / 8 : 16) / 4 : 1;
    int64_t per_wave = direct ? (int64_t)p->rm * p->rn * (fsim_mma_atom_values(p->atom, 'C') / 4)
                              : (int64_t)sc->bm * sc->bn * ec / 8 / 16 / p->threads;
    s->store_line_bytes_per_wg = (int64_t)p->c_store_lines * a->memory.l2_line * per_wave * parts * p->waves;
  }
  /* C through LDS: every wave writes its accumulator runs and reads its 16-byte chunks back,
   * all through the workgroup's one bank array, at the staging pitch's bank cycles */
  s->epilogue_lds_cycles = 0;
  if (sc->c_path == FSIM_EPI_LDS) {
    int runs = fsim_mma_atom_values(p->atom, 'C') / 4;
    int64_t chunks = (int64_t)sc->bm * sc->bn * p->c_bits / 8 / 16 / p->threads;
    s->epilogue_lds_cycles = p->waves * ((int64_t)p->rm * p->rn * runs * p->c_write_cycles + chunks * p->c_read_cycles);
  }
  int groups = sc->op == FSIM_KOP_GROUPED_GEMM ? sc->groups : 1;
  int64_t bytes_a, bytes_b, bytes_c;
  fsim__gemm_footprint(p, &bytes_a, &bytes_b, &bytes_c);
  s->unique_ab_bytes = bytes_a + bytes_b;
  s->unique_bytes = bytes_a + bytes_b + bytes_c;
  s->flops = 2.0 * sc->m * sc->n * sc->k * groups;
  /* distinct A and B tiles among the workgroups XCD 0 holds at once (the plan counts them) */
  s->xcd_unique_bytes_per_iter = (p->xcd_rows * sc->bm * sc->bk * ea + p->xcd_cols * sc->bn * sc->bk * eb) / 8;
  s->dram_ab_bytes = p->dram_ab_bytes;
}
