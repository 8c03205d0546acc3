/* Hardware descriptions: the INI loader, overrides, validation and derived figures.
 *
 * Everything the loader knows is in one table, arch_keys[] below: each row names a section
 * and key, the type, the range a value must fall in, the unit and what the key means.  The
 * same table drives parsing, "--set" overrides, `flysim arch show` and `flysim arch diff`,
 * so a key added here is checked, printed and compared everywhere.  Every key is required
 * unless the row says optional (no timing parameter is).  MFMA instructions are repeated
 * sections "[mfma.ID]" whose keys come from the rows of section "mfma". */
#include "config.h"

#include "model/arch.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <ini.h>
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#define A_OFF(field) offsetof(fsim_arch, field)
#define M_OFF(field) offsetof(fsim_mfma_entry, field)

#define KI(sec, key, off, lo, hi, unit, doc) \
  {sec, key, FSIM_KEY_INT, off, lo, hi, 0, NULL, 0, unit, doc}
#define KL(sec, key, off, lo, hi, unit, doc) \
  {sec, key, FSIM_KEY_LLONG, off, lo, hi, 0, NULL, 0, unit, doc}
#define KD(sec, key, off, lo, hi, unit, doc) \
  {sec, key, FSIM_KEY_DOUBLE, off, lo, hi, 0, NULL, 0, unit, doc}
#define KS(sec, key, off, size, opt, doc) \
  {sec, key, FSIM_KEY_STRING, off, 0, 0, size, NULL, opt, "", doc}
#define KT(sec, key, off, doc) {sec, key, FSIM_KEY_DTYPE, off, 0, 0, 0, NULL, 0, "", doc}
#define KE(sec, key, off, choices, doc) \
  {sec, key, FSIM_KEY_ENUM, off, 0, 0, 0, choices, 0, "", doc}
#define KP(sec, key, off, doc) {sec, key, FSIM_KEY_LANES, off, 0, 0, 0, NULL, 0, "lanes", doc}

static const fsim_arch_key arch_keys[] = {
    KS("device", "name", A_OFF(device.name), FSIM_ARCH_NAME_LEN, 0, "marketing name of the part"),
    KS("device", "gfx", A_OFF(device.gfx), 16, 0, "LLVM target name (gfx950)"),
    KS("device", "aliases", A_OFF(device.aliases), FSIM_ARCH_NAME_LEN, 1,
       "other names the part answers to, space-separated"),
    KE("device", "isa", A_OFF(device.isa), "cdna3|cdna4|rdna4", "instruction-set family"),
    KI("device", "cus", A_OFF(device.cus), 1, 4096, "CUs", "compute units, whole device"),
    KI("device", "xcds", A_OFF(device.xcds), 1, 64, "dies", "accelerator complex dies"),
    KD("device", "clock_ghz", A_OFF(device.clock_ghz), 0.1, 10, "GHz", "peak engine clock"),
    KD("device", "sustained_clock_ghz", A_OFF(device.sustained_clock_ghz), 0.1, 10, "GHz",
       "engine clock sustained under heavy matrix load; converts cycles to time"),
    KI("device", "board_power_w", A_OFF(device.board_power_w), 1, 10000, "W", "board power"),

    KI("cu", "simds", A_OFF(cu.simds), 1, 16, "SIMDs", "SIMDs per CU"),
    KI("cu", "simd_lanes", A_OFF(cu.simd_lanes), 1, 128, "lanes", "ALU lanes per SIMD"),
    KI("cu", "wave_size", A_OFF(cu.wave_size), 16, 128, "lanes", "work-items per wave"),
    KI("cu", "waves_per_simd", A_OFF(cu.waves_per_simd), 1, 32, "waves", "wave slots per SIMD"),
    KI("cu", "vgprs_per_lane", A_OFF(cu.vgprs_per_lane), 32, 4096, "registers",
       "vector register file per SIMD lane (VGPRs and AGPRs together where unified)"),
    KI("cu", "max_vgprs", A_OFF(cu.max_vgprs), 8, 1024, "registers", "architectural VGPRs per wave"),
    KI("cu", "max_agprs", A_OFF(cu.max_agprs), 0, 1024, "registers", "AGPRs per wave (0: none)"),
    KI("cu", "vgpr_granule", A_OFF(cu.vgpr_granule), 1, 64, "registers", "VGPR allocation granule"),
    KI("cu", "sgprs_per_simd", A_OFF(cu.sgprs_per_simd), 16, 100000, "registers",
       "scalar register file per SIMD"),
    KI("cu", "max_sgprs", A_OFF(cu.max_sgprs), 16, 1024, "registers", "SGPRs per wave"),
    KI("cu", "sgpr_granule", A_OFF(cu.sgpr_granule), 1, 64, "registers", "SGPR allocation granule"),
    KI("cu", "workgroups_per_cu", A_OFF(cu.workgroups_per_cu), 1, 64, "workgroups",
       "workgroups resident on one CU"),
    KI("cu", "max_workgroup_size", A_OFF(cu.max_workgroup_size), 32, 4096, "work-items",
       "largest workgroup"),
    KI("cu", "valu_fp32_flops_per_clk", A_OFF(cu.valu_fp32_flops_per_clk), 0, 100000, "FLOP/clk",
       "vector FP32 FLOPs per clock per CU"),
    KI("cu", "valu_fp64_flops_per_clk", A_OFF(cu.valu_fp64_flops_per_clk), 0, 100000, "FLOP/clk",
       "vector FP64 FLOPs per clock per CU"),

    KI("issue", "issue_period", A_OFF(issue.issue_period), 1, 16, "cycles",
       "cycles between two issue slots of one SIMD"),
    KI("issue", "valu_cycles", A_OFF(issue.valu_cycles), 1, 64, "cycles",
       "cycles one full-wave VALU instruction occupies its SIMD"),
    KI("issue", "valu_latency", A_OFF(issue.valu_latency), 1, 256, "cycles",
       "VALU issue to dependent issue"),
    KI("issue", "salu_latency", A_OFF(issue.salu_latency), 1, 256, "cycles",
       "SALU issue to dependent issue"),
    KI("issue", "mfma_pass_cycles", A_OFF(issue.mfma_pass_cycles), 1, 64, "cycles",
       "cycles per matrix-pipe pass"),
    KI("issue", "mfma_srcc_forwarding", A_OFF(issue.mfma_srcc_forwarding), 0, 1, "flag",
       "1: an MFMA accumulating into the previous MFMA's result waits only for the pipe"),
    KI("issue", "smem_latency", A_OFF(issue.smem_latency), 1, 100000, "cycles",
       "scalar memory load latency"),
    KI("issue", "branch_cycles", A_OFF(issue.branch_cycles), 0, 1000, "cycles",
       "cost of a taken branch to its wave"),
    KI("issue", "barrier_latency", A_OFF(issue.barrier_latency), 0, 10000, "cycles",
       "last arrival at s_barrier to resumption"),

    KI("lds", "bytes_per_cu", A_OFF(lds.bytes_per_cu), 1024, 1 << 24, "bytes", "LDS per CU"),
    KI("lds", "max_bytes_per_wg", A_OFF(lds.max_bytes_per_wg), 1024, 1 << 24, "bytes",
       "LDS one workgroup may allocate"),
    KI("lds", "banks", A_OFF(lds.banks), 1, 1024, "banks", "LDS banks"),
    KI("lds", "bank_bytes", A_OFF(lds.bank_bytes), 1, 64, "bytes", "bank width"),
    KI("lds", "bytes_per_clk", A_OFF(lds.bytes_per_clk), 1, 65536, "B/clk", "peak LDS bandwidth per CU"),
    KI("lds", "port_bytes_per_clk", A_OFF(lds.port_bytes_per_clk), 1, 65536, "B/clk",
       "bandwidth of one LDS port"),
    KI("lds", "simds_per_port", A_OFF(lds.simds_per_port), 1, 16, "SIMDs", "SIMDs sharing one LDS port"),
    KI("lds", "alloc_granule", A_OFF(lds.alloc_granule), 1, 1 << 20, "bytes", "allocation granule"),
    KI("lds", "latency", A_OFF(lds.latency), 1, 10000, "cycles", "issue to data, no conflict"),
    KP("lds", "phases_b32", A_OFF(lds.phases_b32), "lanes served together by 32-bit accesses"),
    KP("lds", "phases_b64", A_OFF(lds.phases_b64), "lanes served together by 64-bit accesses"),
    KP("lds", "phases_b128", A_OFF(lds.phases_b128), "lanes served together by 128-bit accesses"),

    KI("memory", "l1_bytes", A_OFF(memory.l1_bytes), 1024, 1 << 26, "bytes", "vector L1 per CU"),
    KI("memory", "l1_line", A_OFF(memory.l1_line), 16, 4096, "bytes", "L1 line"),
    KI("memory", "l1_ways", A_OFF(memory.l1_ways), 1, 1024, "ways", "L1 associativity"),
    KI("memory", "l1_latency", A_OFF(memory.l1_latency), 1, 100000, "cycles", "L1 hit latency"),
    KI("memory", "l1_bytes_per_clk", A_OFF(memory.l1_bytes_per_clk), 1, 65536, "B/clk",
       "L1 bandwidth per CU"),
    KI("memory", "l2_bytes", A_OFF(memory.l2_bytes), 1024, 1 << 30, "bytes", "L2 per XCD"),
    KI("memory", "l2_line", A_OFF(memory.l2_line), 16, 4096, "bytes", "L2 line"),
    KI("memory", "l2_ways", A_OFF(memory.l2_ways), 1, 1024, "ways", "L2 associativity"),
    KI("memory", "l2_channels", A_OFF(memory.l2_channels), 1, 1024, "channels", "L2 channels per XCD"),
    KI("memory", "l2_bytes_per_clk", A_OFF(memory.l2_bytes_per_clk), 1, 65536, "B/clk",
       "bandwidth per L2 channel"),
    KI("memory", "l2_latency", A_OFF(memory.l2_latency), 1, 100000, "cycles", "L2 hit latency"),
    KL("memory", "mall_bytes", A_OFF(memory.mall_bytes), 0, 1e12, "bytes",
       "Infinity Cache, whole device (0: none)"),
    KI("memory", "mall_ways", A_OFF(memory.mall_ways), 1, 1024, "ways", "Infinity Cache associativity"),
    KI("memory", "mall_latency", A_OFF(memory.mall_latency), 1, 100000, "cycles",
       "Infinity Cache hit latency"),
    KD("memory", "mall_tbps", A_OFF(memory.mall_tbps), 0, 1000, "TB/s", "Infinity Cache peak bandwidth"),
    KI("memory", "dram_bus_bits", A_OFF(memory.dram_bus_bits), 16, 1 << 20, "bits", "DRAM interface width"),
    KD("memory", "dram_gbps_per_pin", A_OFF(memory.dram_gbps_per_pin), 0.1, 100, "Gb/s", "data rate per pin"),
    KI("memory", "dram_channels", A_OFF(memory.dram_channels), 1, 4096, "channels", "DRAM channels"),
    KD("memory", "dram_efficiency", A_OFF(memory.dram_efficiency), 0.05, 1, "fraction",
       "achievable fraction of pin bandwidth when streaming"),
    KI("memory", "dram_latency", A_OFF(memory.dram_latency), 1, 100000, "cycles", "DRAM latency, unloaded"),
    KL("memory", "dram_bytes", A_OFF(memory.dram_bytes), 1, 1e15, "bytes", "DRAM capacity"),

    KE("dispatch", "policy", A_OFF(dispatch.policy), "round-robin|blocked",
       "how workgroup ids map to XCDs"),
    KI("dispatch", "wg_launch_cycles", A_OFF(dispatch.wg_launch_cycles), 0, 100000, "cycles",
       "cycles between two workgroup launches on one XCD"),
    KD("dispatch", "launch_overhead_us", A_OFF(dispatch.launch_overhead_us), 0, 1000, "us",
       "fixed kernel launch cost added to predicted times"),

    KS("mfma", "inst", M_OFF(inst), FSIM_ARCH_NAME_LEN, 0, "ISA mnemonic"),
    KI("mfma", "m", M_OFF(m), 1, 256, "rows", "rows of C"),
    KI("mfma", "n", M_OFF(n), 1, 256, "columns", "columns of C"),
    KI("mfma", "k", M_OFF(k), 1, 1024, "values", "reduction length"),
    KT("mfma", "a_type", M_OFF(a_type), "A operand type"),
    KT("mfma", "b_type", M_OFF(b_type), "B operand type"),
    KT("mfma", "c_type", M_OFF(c_type), "accumulator type"),
    KI("mfma", "scaled", M_OFF(scaled), 0, 1, "flag", "1: E8M0 block scales, one per 32 K values"),
    KI("mfma", "passes", M_OFF(passes), 1, 64, "passes", "matrix-pipe passes"),
    KI("mfma", "latency", M_OFF(latency), 1, 1000, "cycles", "issue to dependent read"),
};
#define N_KEYS ((int)(sizeof arch_keys / sizeof arch_keys[0]))

const fsim_arch_key *fsim_arch_keys(int *n) {
  *n = N_KEYS;
  return arch_keys;
}

static const char *peak_classes[FSIM_PEAK_CLASS_COUNT] = FSIM_PEAK_CLASSES;

const char *fsim_arch_peak_class_name(int i) {
  return (i >= 0 && i < FSIM_PEAK_CLASS_COUNT) ? peak_classes[i] : NULL;
}

int fsim_arch_peak_class_index(const char *name) {
  for (int i = 0; i < FSIM_PEAK_CLASS_COUNT; i++)
    if (strcmp(peak_classes[i], name) == 0) return i;
  return -1;
}

/* ---- values ---------------------------------------------------------------------------- */

static void *key_ptr(void *base, const fsim_arch_key *k) { return (char *)base + k->offset; }

static const void *key_cptr(const fsim_arch *a, const fsim_mfma_entry *m, const fsim_arch_key *k) {
  return (const char *)(strcmp(k->section, "mfma") == 0 ? (const void *)m : (const void *)a) +
         k->offset;
}

/* The i-th "|"-separated choice into buf; returns 0 if there is no such choice. */
static int enum_choice(const char *choices, int i, char *buf, size_t n) {
  const char *p = choices;
  for (int j = 0; j < i; j++) {
    p = strchr(p, '|');
    if (p == NULL) return 0;
    p++;
  }
  size_t len = strcspn(p, "|");
  if (len + 1 > n) len = n - 1;
  memcpy(buf, p, len);
  buf[len] = '\0';
  return 1;
}

/* "0-3 12-15 / 32-35": phases separated by '/', each a list of lanes or lane ranges. */
static int parse_lanes(fsim_lane_phases *out, const char *text, char *why, size_t wn) {
  fsim_lane_phases ph;
  memset(ph.of_lane, 0xff, sizeof ph.of_lane);
  ph.n = 0;
  const char *p = text;
  for (;;) {
    while (*p == ' ') p++;
    if (*p == '\0' || *p == '/') {
      snprintf(why, wn, "phase %d is empty", ph.n);
      return -1;
    }
    while (*p != '\0' && *p != '/') {
      char *end;
      long lo = strtol(p, &end, 10), hi = lo;
      if (end == p) {
        snprintf(why, wn, "'%s': expected a lane or a range like 0-15 at '%.8s'", text, p);
        return -1;
      }
      p = end;
      if (*p == '-') {
        hi = strtol(p + 1, &end, 10);
        if (end == p + 1) {
          snprintf(why, wn, "'%s': expected a lane after '-'", text);
          return -1;
        }
        p = end;
      }
      if (lo < 0 || hi >= FSIM_MAX_WAVE || hi < lo) {
        snprintf(why, wn, "lane range %ld-%ld is out of [0, %d]", lo, hi, FSIM_MAX_WAVE - 1);
        return -1;
      }
      for (long l = lo; l <= hi; l++) {
        if (ph.of_lane[l] != 0xff) {
          snprintf(why, wn, "lane %ld is in two phases", l);
          return -1;
        }
        ph.of_lane[l] = (unsigned char)ph.n;
      }
      while (*p == ' ') p++;
    }
    ph.n++;
    if (*p == '\0') break;
    p++; /* '/' */
  }
  *out = ph;
  return 0;
}

static void format_lanes(const fsim_lane_phases *ph, char *buf, size_t n) {
  size_t used = 0;
  buf[0] = '\0';
  for (int f = 0; f < ph->n; f++) {
    if (f) used += (size_t)snprintf(buf + used, used < n ? n - used : 0, " /");
    for (int l = 0; l < FSIM_MAX_WAVE; l++) {
      if (ph->of_lane[l] != f || (l > 0 && ph->of_lane[l - 1] == f)) continue;
      int h = l;
      while (h + 1 < FSIM_MAX_WAVE && ph->of_lane[h + 1] == f) h++;
      if (h == l)
        used += (size_t)snprintf(buf + used, used < n ? n - used : 0, " %d", l);
      else
        used += (size_t)snprintf(buf + used, used < n ? n - used : 0, " %d-%d", l, h);
    }
  }
  if (buf[0] == ' ') memmove(buf, buf + 1, strlen(buf));
}

/* Parses text into the key's field at base.  Returns 0 or writes the reason. */
static int parse_value(void *base, const fsim_arch_key *k, const char *text, char *why, size_t wn) {
  void *p = key_ptr(base, k);
  char *end = NULL;
  errno = 0;
  switch (k->type) {
  case FSIM_KEY_INT:
  case FSIM_KEY_LLONG: {
    long long v = strtoll(text, &end, 10);
    if (*text == '\0' || *end != '\0' || errno == ERANGE) {
      snprintf(why, wn, "'%s' is not an integer", text);
      return -1;
    }
    if ((double)v < k->min || (double)v > k->max) {
      snprintf(why, wn, "%lld is out of range [%.15g, %.15g]", v, k->min, k->max);
      return -1;
    }
    if (k->type == FSIM_KEY_INT)
      *(int *)p = (int)v;
    else
      *(long long *)p = v;
    return 0;
  }
  case FSIM_KEY_DOUBLE: {
    double v = strtod(text, &end);
    if (*text == '\0' || *end != '\0' || errno == ERANGE || !isfinite(v)) {
      snprintf(why, wn, "'%s' is not a number", text);
      return -1;
    }
    if (v < k->min || v > k->max) {
      snprintf(why, wn, "%g is out of range [%g, %g]", v, k->min, k->max);
      return -1;
    }
    *(double *)p = v;
    return 0;
  }
  case FSIM_KEY_STRING:
    if (strlen(text) >= k->size) {
      snprintf(why, wn, "longer than %zu characters", k->size - 1);
      return -1;
    }
    strcpy((char *)p, text);
    return 0;
  case FSIM_KEY_DTYPE:
    if (fsim_dtype_parse(text, (fsim_dtype *)p) != 0) {
      snprintf(why, wn, "'%s' is not a data type (f64 f32 xf32 f16 bf16 fp8 bf8 fp6 bf6 fp4 i8 i4 i32)",
               text);
      return -1;
    }
    return 0;
  case FSIM_KEY_ENUM: {
    char choice[64];
    for (int i = 0; enum_choice(k->choices, i, choice, sizeof choice); i++)
      if (strcmp(choice, text) == 0) {
        *(int *)p = i;
        return 0;
      }
    snprintf(why, wn, "'%s' is not one of %s", text, k->choices);
    return -1;
  }
  case FSIM_KEY_LANES: return parse_lanes((fsim_lane_phases *)p, text, why, wn);
  }
  snprintf(why, wn, "internal: unknown key type");
  return -1;
}

void fsim_arch_format_value(const fsim_arch *a, const fsim_mfma_entry *m, const fsim_arch_key *k,
                            char *buf, size_t n) {
  const void *p = key_cptr(a, m, k);
  switch (k->type) {
  case FSIM_KEY_INT: snprintf(buf, n, "%d", *(const int *)p); break;
  case FSIM_KEY_LLONG: snprintf(buf, n, "%lld", *(const long long *)p); break;
  case FSIM_KEY_DOUBLE: snprintf(buf, n, "%.10g", *(const double *)p); break;
  case FSIM_KEY_STRING: snprintf(buf, n, "%s", (const char *)p); break;
  case FSIM_KEY_DTYPE: snprintf(buf, n, "%s", fsim_dtype_name(*(const fsim_dtype *)p)); break;
  case FSIM_KEY_ENUM:
    if (!enum_choice(k->choices, *(const int *)p, buf, n)) snprintf(buf, n, "?");
    break;
  case FSIM_KEY_LANES: format_lanes((const fsim_lane_phases *)p, buf, n); break;
  }
}

double fsim_arch_numeric_value(const fsim_arch *a, const fsim_mfma_entry *m, const fsim_arch_key *k) {
  const void *p = key_cptr(a, m, k);
  switch (k->type) {
  case FSIM_KEY_INT:
  case FSIM_KEY_ENUM:
  case FSIM_KEY_DTYPE: return *(const int *)p;
  case FSIM_KEY_LLONG: return (double)*(const long long *)p;
  case FSIM_KEY_DOUBLE: return *(const double *)p;
  case FSIM_KEY_STRING:
  case FSIM_KEY_LANES: return 0;
  }
  return 0;
}

static const fsim_arch_key *find_key(const char *section, const char *key, int *section_known) {
  *section_known = 0;
  for (int i = 0; i < N_KEYS; i++) {
    if (strcmp(arch_keys[i].section, section) != 0) continue;
    *section_known = 1;
    if (strcmp(arch_keys[i].key, key) == 0) return &arch_keys[i];
  }
  return NULL;
}

static int valid_mfma_id(const char *id) {
  if (*id == '\0') return 0;
  for (const char *p = id; *p; p++)
    if (!isalnum((unsigned char)*p) && *p != '_' && *p != '.') return 0;
  return 1;
}

static fsim_mfma_entry *find_entry(fsim_arch *a, const char *id) {
  for (int i = 0; i < a->n_mfma; i++)
    if (strcmp(a->mfma[i].name, id) == 0) return &a->mfma[i];
  return NULL;
}

/* ---- relations between keys ------------------------------------------------------------- */

static int is_pow2(long long v) { return v > 0 && (v & (v - 1)) == 0; }

/* Checks what no single key's range can; names the key that is off. */
static int check_relations(const fsim_arch *a, const char **sec, const char **key, char *why,
                           size_t wn) {
#define BAD(s, k, ...)               \
  do {                               \
    *sec = s;                        \
    *key = k;                        \
    snprintf(why, wn, __VA_ARGS__);  \
    return -1;                       \
  } while (0)
  if (a->device.sustained_clock_ghz > a->device.clock_ghz)
    BAD("device", "sustained_clock_ghz", "%g GHz is above the peak clock_ghz %g",
        a->device.sustained_clock_ghz, a->device.clock_ghz);
  if (a->device.cus % a->device.xcds != 0)
    BAD("device", "xcds", "%d CUs do not divide evenly over %d XCDs", a->device.cus, a->device.xcds);
  if (a->cu.wave_size % a->cu.simd_lanes != 0)
    BAD("cu", "wave_size", "%d is not a multiple of simd_lanes %d", a->cu.wave_size, a->cu.simd_lanes);
  if (a->cu.max_vgprs > a->cu.vgprs_per_lane)
    BAD("cu", "max_vgprs", "%d exceeds the register file (vgprs_per_lane %d)", a->cu.max_vgprs,
        a->cu.vgprs_per_lane);
  if (a->cu.max_workgroup_size % a->cu.wave_size != 0)
    BAD("cu", "max_workgroup_size", "%d is not a multiple of wave_size %d", a->cu.max_workgroup_size,
        a->cu.wave_size);
  if (a->lds.max_bytes_per_wg > a->lds.bytes_per_cu)
    BAD("lds", "max_bytes_per_wg", "%d exceeds bytes_per_cu %d", a->lds.max_bytes_per_wg,
        a->lds.bytes_per_cu);
  if (!is_pow2(a->lds.banks)) BAD("lds", "banks", "%d is not a power of two", a->lds.banks);
  if (!is_pow2(a->lds.bank_bytes)) BAD("lds", "bank_bytes", "%d is not a power of two", a->lds.bank_bytes);
  if (a->lds.port_bytes_per_clk > a->lds.bytes_per_clk)
    BAD("lds", "port_bytes_per_clk", "%d exceeds the CU's bytes_per_clk %d", a->lds.port_bytes_per_clk,
        a->lds.bytes_per_clk);
  if (a->cu.simds % a->lds.simds_per_port != 0)
    BAD("lds", "simds_per_port", "%d does not divide the %d SIMDs", a->lds.simds_per_port, a->cu.simds);
  {
    static const char *names[3] = {"phases_b32", "phases_b64", "phases_b128"};
    const fsim_lane_phases *ph[3] = {&a->lds.phases_b32, &a->lds.phases_b64, &a->lds.phases_b128};
    for (int w = 0; w < 3; w++) {
      for (int l = 0; l < FSIM_MAX_WAVE; l++) {
        int f = ph[w]->of_lane[l];
        if (l >= a->cu.wave_size && f != 0xff)
          BAD("lds", names[w], "lane %d is beyond the wave size %d", l, a->cu.wave_size);
        if (l < a->cu.wave_size && f == 0xff)
          BAD("lds", names[w], "lane %d is in no phase", l);
      }
    }
  }
  if (!is_pow2(a->memory.l1_line)) BAD("memory", "l1_line", "%d is not a power of two", a->memory.l1_line);
  if (!is_pow2(a->memory.l2_line)) BAD("memory", "l2_line", "%d is not a power of two", a->memory.l2_line);
  if (a->memory.l1_bytes % (a->memory.l1_line * a->memory.l1_ways) != 0)
    BAD("memory", "l1_ways", "l1_bytes %d is not a whole number of sets of %d lines of %d bytes",
        a->memory.l1_bytes, a->memory.l1_ways, a->memory.l1_line);
  if (a->memory.l2_bytes % (a->memory.l2_line * a->memory.l2_ways) != 0)
    BAD("memory", "l2_ways", "l2_bytes %d is not a whole number of sets of %d lines of %d bytes",
        a->memory.l2_bytes, a->memory.l2_ways, a->memory.l2_line);
  if (a->memory.mall_bytes % ((long long)a->memory.l2_line * a->memory.mall_ways) != 0)
    BAD("memory", "mall_ways", "mall_bytes %lld is not a whole number of sets of %d lines of %d bytes",
        a->memory.mall_bytes, a->memory.mall_ways, a->memory.l2_line);
  if (a->memory.mall_bytes > 0 && a->memory.mall_tbps <= 0)
    BAD("memory", "mall_tbps", "must be positive when mall_bytes is not 0");
  if (a->n_mfma == 0) BAD("mfma", "inst", "the part has no [mfma.ID] section");
  for (int i = 0; i < a->n_mfma; i++) {
    const fsim_mfma_entry *m = &a->mfma[i];
    if (m->latency < m->passes * a->issue.mfma_pass_cycles)
      BAD("mfma", "latency", "[mfma.%s] latency %d is shorter than its %d pipe cycles", m->name,
          m->latency, m->passes * a->issue.mfma_pass_cycles);
  }
  return 0;
#undef BAD
}

fsim_status fsim_arch_validate(const fsim_arch *a, fsim_err *e) {
  const char *sec = NULL, *key = NULL;
  char why[256];
  if (check_relations(a, &sec, &key, why, sizeof why) != 0)
    return FSIM_ERR(e, FSIM_EINVAL, "%s: [%s] %s: %s", a->file, sec, key, why);
  return FSIM_OK;
}

/* ---- the INI reader --------------------------------------------------------------------- */

typedef struct load_state {
  fsim_arch *a;
  FILE *fp;
  const char *path;
  int line;               /* the line inih is handling */
  int line_too_long;      /* the line that did not fit inih's buffer, or 0 */
  int key_line[N_KEYS];   /* line each top-level key was set on, 0 if not yet */
  int mfma_line[FSIM_ARCH_MAX_MFMA];            /* line of each entry's first key */
  unsigned char mfma_seen[FSIM_ARCH_MAX_MFMA][16]; /* per entry, per mfma key: line set, 0/1 */
  int mfma_key_line[FSIM_ARCH_MAX_MFMA][16];
  fsim_err *e;
  int failed;             /* a handler error was recorded */
  int fail_line;
  fsim_status fail_code;
} load_state;

static char *counting_reader(char *str, int num, void *stream) {
  load_state *st = stream;
  char *r = fgets(str, num, st->fp);
  if (r == NULL) return NULL;
  st->line++;
  size_t len = strlen(str);
  if (len > 0 && str[len - 1] != '\n' && !feof(st->fp) && st->line_too_long == 0) {
    st->line_too_long = st->line;
    /* Swallow the rest of the line so that inih does not see it as a new line. */
    int c;
    while ((c = fgetc(st->fp)) != EOF && c != '\n') {
    }
  }
  return r;
}

static int mfma_key_index(const fsim_arch_key *k) {
  int first = -1;
  for (int i = 0; i < N_KEYS; i++)
    if (strcmp(arch_keys[i].section, "mfma") == 0) {
      if (first < 0) first = i;
      if (&arch_keys[i] == k) return i - first;
    }
  return -1;
}

static int fail(load_state *st, fsim_status code, const char *section, const char *key,
                const char *why) {
  if (!st->failed) {
    st->fail_line = st->line;
    st->fail_code = code;
    if (key != NULL)
      FSIM_ERR(st->e, code, "%s:%d: [%s] %s: %s", st->path, st->line, section, key, why);
    else
      FSIM_ERR(st->e, code, "%s:%d: [%s]: %s", st->path, st->line, section, why);
    st->failed = 1;
  }
  return 0;
}

static int arch_ini_handler(void *user, const char *section, const char *name, const char *value) {
  load_state *st = user;
  if (st->failed) return 0;
  char why[256];
  int known = 0;
  if (strncmp(section, "mfma.", 5) == 0) {
    const char *id = section + 5;
    if (!valid_mfma_id(id))
      return fail(st, FSIM_EINVAL, section, NULL, "an MFMA id may hold letters, digits, '_' and '.'");
    const fsim_arch_key *k = find_key("mfma", name, &known);
    if (k == NULL) return fail(st, FSIM_EINVAL, section, name, "unknown key");
    fsim_mfma_entry *m = find_entry(st->a, id);
    if (m == NULL) {
      if (st->a->n_mfma == FSIM_ARCH_MAX_MFMA)
        return fail(st, FSIM_ERANGE, section, NULL, "too many [mfma.*] sections");
      if (strlen(id) >= FSIM_ARCH_NAME_LEN) return fail(st, FSIM_EINVAL, section, NULL, "id too long");
      m = &st->a->mfma[st->a->n_mfma];
      memset(m, 0, sizeof *m);
      strcpy(m->name, id);
      st->mfma_line[st->a->n_mfma] = st->line;
      st->a->n_mfma++;
    }
    int ei = (int)(m - st->a->mfma), ki = mfma_key_index(k);
    if (st->mfma_seen[ei][ki]) {
      snprintf(why, sizeof why, "given twice (first on line %d)", st->mfma_key_line[ei][ki]);
      return fail(st, FSIM_EINVAL, section, name, why);
    }
    if (parse_value(m, k, value, why, sizeof why) != 0) return fail(st, FSIM_EINVAL, section, name, why);
    st->mfma_seen[ei][ki] = 1;
    st->mfma_key_line[ei][ki] = st->line;
    return 1;
  }
  const fsim_arch_key *k = find_key(section, name, &known);
  if (!known || strcmp(section, "mfma") == 0) {
    if (*section == '\0') return fail(st, FSIM_EINVAL, "", name, "key outside any section");
    return fail(st, FSIM_EINVAL, section, NULL,
                "unknown section (known: device cu issue lds memory dispatch mfma.ID)");
  }
  if (k == NULL) return fail(st, FSIM_EINVAL, section, name, "unknown key");
  int ki = (int)(k - arch_keys);
  if (st->key_line[ki] != 0) {
    snprintf(why, sizeof why, "given twice (first on line %d)", st->key_line[ki]);
    return fail(st, FSIM_EINVAL, section, name, why);
  }
  if (parse_value(st->a, k, value, why, sizeof why) != 0) return fail(st, FSIM_EINVAL, section, name, why);
  st->key_line[ki] = st->line;
  return 1;
}

fsim_status fsim_arch_load_file(fsim_arch *out, const char *path, fsim_err *e) {
  load_state *st = calloc(1, sizeof *st);
  if (st == NULL) return FSIM_ERR(e, FSIM_ENOMEM, "%s: out of memory", path);
  memset(out, 0, sizeof *out);
  fsim_status rc = FSIM_OK;
  st->a = out;
  st->path = path;
  st->e = e;
  st->fp = fopen(path, "r");
  if (st->fp == NULL) {
    rc = FSIM_ERR(e, FSIM_ENOENT, "%s: cannot open: %s", path, strerror(errno));
    goto done;
  }
  if (strlen(path) >= sizeof out->file) {
    rc = FSIM_ERR(e, FSIM_EINVAL, "%s: path too long", path);
    goto done;
  }
  strcpy(out->file, path);
  int r = ini_parse_stream(counting_reader, st, arch_ini_handler, st);
  if (st->line_too_long != 0 && (!st->failed || st->line_too_long <= st->fail_line)) {
    rc = FSIM_ERR(e, FSIM_EINVAL, "%s:%d: line too long (at most %d characters)", path,
                  st->line_too_long, INI_MAX_LINE - 2);
    goto done;
  }
  if (st->failed) {
    rc = st->fail_code;
    goto done;
  }
  if (r != 0) {
    if (r > 0)
      rc = FSIM_ERR(e, FSIM_EINVAL, "%s:%d: syntax error: expected '[section]' or 'key = value'", path, r);
    else
      rc = FSIM_ERR(e, FSIM_EIO, "%s: cannot read", path);
    goto done;
  }
  /* Every key is required unless optional; MFMA entries need all of theirs. */
  for (int i = 0; i < N_KEYS; i++) {
    const fsim_arch_key *k = &arch_keys[i];
    if (strcmp(k->section, "mfma") == 0 || k->optional || st->key_line[i] != 0) continue;
    rc = FSIM_ERR(e, FSIM_EINVAL, "%s: [%s] %s: missing (%s)", path, k->section, k->key, k->doc);
    goto done;
  }
  for (int ei = 0; ei < out->n_mfma; ei++) {
    for (int i = 0; i < N_KEYS; i++) {
      const fsim_arch_key *k = &arch_keys[i];
      if (strcmp(k->section, "mfma") != 0) continue;
      if (st->mfma_seen[ei][mfma_key_index(k)]) continue;
      rc = FSIM_ERR(e, FSIM_EINVAL, "%s:%d: [mfma.%s] %s: missing (%s)", path, st->mfma_line[ei],
                    out->mfma[ei].name, k->key, k->doc);
      goto done;
    }
  }
  const char *sec = NULL, *key = NULL;
  char why[256];
  if (check_relations(out, &sec, &key, why, sizeof why) != 0) {
    int line = 0;
    int known = 0;
    const fsim_arch_key *k = find_key(sec, key, &known);
    if (k != NULL && strcmp(sec, "mfma") != 0) line = st->key_line[k - arch_keys];
    if (line > 0)
      rc = FSIM_ERR(e, FSIM_EINVAL, "%s:%d: [%s] %s: %s", path, line, sec, key, why);
    else
      rc = FSIM_ERR(e, FSIM_EINVAL, "%s: [%s] %s: %s", path, sec, key, why);
    goto done;
  }
done:
  if (st->fp) fclose(st->fp);
  free(st);
  return rc;
}

fsim_status fsim_arch_set(fsim_arch *a, const char *assignment, fsim_err *e) {
  char buf[512];
  if (strlen(assignment) >= sizeof buf)
    return FSIM_ERR(e, FSIM_EINVAL, "--set %.40s...: too long", assignment);
  strcpy(buf, assignment);
  char *eq = strchr(buf, '=');
  char *dot = NULL;
  for (char *p = buf; eq != NULL && p < eq; p++)
    if (*p == '.') dot = p;
  if (eq == NULL || dot == NULL || dot == buf || dot + 1 == eq)
    return FSIM_ERR(e, FSIM_EINVAL, "--set %s: expected SECTION.KEY=VALUE", assignment);
  *eq = '\0';
  *dot = '\0';
  const char *section = buf, *key = dot + 1, *value = eq + 1;
  char why[256];
  int known = 0;
  fsim_arch saved = *a;
  if (strncmp(section, "mfma.", 5) == 0) {
    const fsim_arch_key *k = find_key("mfma", key, &known);
    if (k == NULL) return FSIM_ERR(e, FSIM_EINVAL, "--set %s: [%s] %s: unknown key", assignment, section, key);
    fsim_mfma_entry *m = find_entry(a, section + 5);
    if (m == NULL)
      return FSIM_ERR(e, FSIM_EINVAL, "--set %s: [%s]: no such MFMA entry in %s", assignment, section,
                      a->file);
    if (parse_value(m, k, value, why, sizeof why) != 0)
      return FSIM_ERR(e, FSIM_EINVAL, "--set %s: [%s] %s: %s", assignment, section, key, why);
  } else {
    const fsim_arch_key *k = find_key(section, key, &known);
    if (!known || strcmp(section, "mfma") == 0)
      return FSIM_ERR(e, FSIM_EINVAL, "--set %s: [%s]: unknown section", assignment, section);
    if (k == NULL) return FSIM_ERR(e, FSIM_EINVAL, "--set %s: [%s] %s: unknown key", assignment, section, key);
    if (parse_value(a, k, value, why, sizeof why) != 0)
      return FSIM_ERR(e, FSIM_EINVAL, "--set %s: [%s] %s: %s", assignment, section, key, why);
  }
  const char *rsec = NULL, *rkey = NULL;
  if (check_relations(a, &rsec, &rkey, why, sizeof why) != 0) {
    *a = saved;
    return FSIM_ERR(e, FSIM_EINVAL, "--set %s: [%s] %s: %s", assignment, rsec, rkey, why);
  }
  size_t used = strlen(a->overrides);
  snprintf(a->overrides + used, sizeof a->overrides - used, "%s%s", used ? " " : "", assignment);
  return FSIM_OK;
}

/* ---- finding parts ---------------------------------------------------------------------- */

int fsim_arch_search_dirs(const char **dirs, int max) {
  static char env_copy[4096];
  int n = 0;
  const char *env = getenv("FLYSIM_ARCH_PATH");
  if (env != NULL && *env != '\0' && strlen(env) < sizeof env_copy) {
    strcpy(env_copy, env);
    for (char *save = NULL, *tok = strtok_r(env_copy, ":", &save); tok && n < max;
         tok = strtok_r(NULL, ":", &save))
      dirs[n++] = tok;
  }
  if (n < max) dirs[n++] = FSIM_ARCH_DATADIR;
  if (n < max) dirs[n++] = FSIM_ARCH_SRCDIR;
  return n;
}

static int cmp_str(const void *x, const void *y) {
  const char *a = *(char *const *)x, *b = *(char *const *)y;
  const char *ba = strrchr(a, '/'), *bb = strrchr(b, '/');
  return strcmp(ba ? ba + 1 : a, bb ? bb + 1 : b);
}

int fsim_arch_list(char ***paths_out, fsim_err *e) {
  const char *dirs[16];
  int nd = fsim_arch_search_dirs(dirs, 16);
  char **paths = NULL;
  int n = 0, cap = 0;
  for (int d = 0; d < nd; d++) {
    DIR *dir = opendir(dirs[d]);
    if (dir == NULL) continue;
    struct dirent *de;
    while ((de = readdir(dir)) != NULL) {
      size_t len = strlen(de->d_name);
      if (len < 5 || strcmp(de->d_name + len - 4, ".ini") != 0) continue;
      int dup = 0; /* an earlier folder's file of the same name wins */
      for (int i = 0; i < n; i++) {
        const char *b = strrchr(paths[i], '/');
        if (strcmp(b ? b + 1 : paths[i], de->d_name) == 0) dup = 1;
      }
      if (dup) continue;
      if (n == cap) {
        cap = cap ? 2 * cap : 8;
        char **np = realloc(paths, (size_t)cap * sizeof *np);
        if (np == NULL) {
          closedir(dir);
          fsim_arch_list_free(paths, n);
          return FSIM_ERR(e, FSIM_ENOMEM, "out of memory"), -1;
        }
        paths = np;
      }
      size_t sz = strlen(dirs[d]) + len + 2;
      paths[n] = malloc(sz);
      if (paths[n] == NULL) {
        closedir(dir);
        fsim_arch_list_free(paths, n);
        return FSIM_ERR(e, FSIM_ENOMEM, "out of memory"), -1;
      }
      snprintf(paths[n], sz, "%s/%s", dirs[d], de->d_name);
      n++;
    }
    closedir(dir);
  }
  if (n > 1) qsort(paths, (size_t)n, sizeof *paths, cmp_str);
  *paths_out = paths;
  return n;
}

void fsim_arch_list_free(char **paths, int n) {
  if (paths == NULL) return;
  for (int i = 0; i < n; i++) free(paths[i]);
  free(paths);
}

static int has_word(const char *list, const char *word) {
  size_t wl = strlen(word);
  for (const char *p = list; *p;) {
    while (*p == ' ') p++;
    size_t l = strcspn(p, " ");
    if (l == wl && strncmp(p, word, l) == 0) return 1;
    p += l;
  }
  return 0;
}

fsim_status fsim_arch_load(fsim_arch *out, const char *name, fsim_err *e) {
  if (name == NULL || *name == '\0') return FSIM_ERR(e, FSIM_EINVAL, "no arch name given");
  size_t len = strlen(name);
  if (strchr(name, '/') != NULL || (len > 4 && strcmp(name + len - 4, ".ini") == 0))
    return fsim_arch_load_file(out, name, e);
  char lower[FSIM_ARCH_NAME_LEN];
  if (len >= sizeof lower) return FSIM_ERR(e, FSIM_ENOENT, "'%.40s...': no such part", name);
  for (size_t i = 0; i <= len; i++) lower[i] = (char)tolower((unsigned char)name[i]);
  char **paths = NULL;
  int n = fsim_arch_list(&paths, e);
  if (n < 0) return e ? e->code : FSIM_ENOMEM;
  fsim_status rc = FSIM_ENOENT;
  char known[512] = "";
  /* A file named NAME.ini first, then a part whose gfx name or aliases match. */
  for (int pass = 0; pass < 2 && rc == FSIM_ENOENT; pass++) {
    for (int i = 0; i < n; i++) {
      const char *base = strrchr(paths[i], '/');
      base = base ? base + 1 : paths[i];
      if (pass == 0) {
        if (strncmp(base, lower, len) == 0 && strcmp(base + len, ".ini") == 0) {
          rc = fsim_arch_load_file(out, paths[i], e);
          break;
        }
        continue;
      }
      fsim_err sub;
      if (fsim_arch_load_file(out, paths[i], &sub) != FSIM_OK) {
        rc = sub.code; /* a broken part file is reported, not skipped */
        if (e) *e = sub;
        break;
      }
      size_t kl = strlen(known);
      snprintf(known + kl, sizeof known - kl, "%s%.*s", kl ? " " : "", (int)(strlen(base) - 4), base);
      if (has_word(out->device.aliases, lower)) {
        rc = FSIM_OK;
        break;
      }
    }
  }
  if (rc == FSIM_ENOENT) {
    const char *dirs[16];
    int nd = fsim_arch_search_dirs(dirs, 16);
    FSIM_ERR(e, FSIM_ENOENT, "'%s': no such part (known: %s; searched %s%s%s)", name,
             n ? known : "none", dirs[0], nd > 1 ? " and others" : "", "");
  }
  fsim_arch_list_free(paths, n);
  return rc;
}

/* ---- lookups and derived figures ---------------------------------------------------------- */

const fsim_lane_phases *fsim_arch_lds_phases(const fsim_arch *a, int width_bytes) {
  if (width_bytes <= 4) return &a->lds.phases_b32;
  if (width_bytes <= 8) return &a->lds.phases_b64;
  return &a->lds.phases_b128;
}

const fsim_mfma_entry *fsim_arch_find_mfma(const fsim_arch *a, const char *name) {
  for (int i = 0; i < a->n_mfma; i++)
    if (strcmp(a->mfma[i].name, name) == 0) return &a->mfma[i];
  for (int i = 0; i < a->n_mfma; i++)
    if (strcmp(a->mfma[i].inst, name) == 0) return &a->mfma[i];
  return NULL;
}

const fsim_mfma_entry *fsim_arch_find_mfma_shape(const fsim_arch *a, int m, int n, int k,
                                                 fsim_dtype at, fsim_dtype bt) {
  for (int i = 0; i < a->n_mfma; i++) {
    const fsim_mfma_entry *e = &a->mfma[i];
    if (e->m == m && e->n == n && e->k == k && e->a_type == at && e->b_type == bt) return e;
  }
  return NULL;
}

void fsim_arch_derive(const fsim_arch *a, fsim_arch_derived *d) {
  memset(d, 0, sizeof *d);
  const double to_tera = a->device.cus * a->device.clock_ghz * 1e9 / 1e12;
  for (int i = 0; i < a->n_mfma; i++) {
    const fsim_mfma_entry *m = &a->mfma[i];
    if (m->a_type != m->b_type) continue;
    const char *cls = fsim_dtype_peak_class(m->a_type);
    if (cls == NULL) continue;
    int ci = fsim_arch_peak_class_index(cls);
    double per_cu = 2.0 * m->m * m->n * m->k / fsim_mfma_cycles(a, m) * a->cu.simds;
    if (per_cu > d->peak_flops_per_clk_per_cu[ci]) d->peak_flops_per_clk_per_cu[ci] = per_cu;
  }
  int f32 = fsim_arch_peak_class_index("fp32"), f64 = fsim_arch_peak_class_index("fp64");
  if (a->cu.valu_fp32_flops_per_clk > d->peak_flops_per_clk_per_cu[f32])
    d->peak_flops_per_clk_per_cu[f32] = a->cu.valu_fp32_flops_per_clk;
  if (a->cu.valu_fp64_flops_per_clk > d->peak_flops_per_clk_per_cu[f64])
    d->peak_flops_per_clk_per_cu[f64] = a->cu.valu_fp64_flops_per_clk;
  for (int ci = 0; ci < FSIM_PEAK_CLASS_COUNT; ci++)
    d->peak_tflops[ci] = d->peak_flops_per_clk_per_cu[ci] * to_tera;
  d->lds_tbps = a->lds.bytes_per_clk * to_tera;
  d->l1_tbps = a->memory.l1_bytes_per_clk * to_tera;
  d->l2_tbps = (double)a->memory.l2_bytes_per_clk * a->memory.l2_channels * a->device.xcds *
               a->device.clock_ghz * 1e9 / 1e12;
  d->mall_tbps = a->memory.mall_tbps;
  d->dram_tbps = a->memory.dram_bus_bits * a->memory.dram_gbps_per_pin / 8.0 / 1000.0;
  d->max_waves_per_cu = a->cu.simds * a->cu.waves_per_simd;
}
