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
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

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
    KS("device", "gfx", A_OFF(device.gfx), 16, 0, "LLVM target name (gfx950, gfx942, gfx1201)"),
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
    KI("cu", "wave_size", A_OFF(cu.wave_size), 16, 64, "lanes", "work-items per wave (at most 64: the simulator keeps lanes in 64-bit masks)"),
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
    KI("memory", "atomics_in_l2", A_OFF(memory.atomics_in_l2), 0, 1, "flag",
       "1: global atomics are performed in the L2; 0: forwarded past it to the fabric (MALL)"),

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

/* ---- relations between keys ------------------------------------------------------------- */

static int is_pow2(long long v) { return v > 0 && (v & (v - 1)) == 0; }

/* The MxNxK an MFMA or WMMA mnemonic carries ("v_mfma_f32_32x32x8bf16_1k": 32, 32, 8); 0 when
 * it carries none. */
/* The operand types a matrix mnemonic names by its suffix (A's and B's; *any 1: any of the 8-,
 * 6- and 4-bit float types, the f8f6f4 instructions taking them by cbsz/blgp or by the row's
 * types); 0 when the suffix is not one of these (an instruction this table does not know). */
static int mnemonic_types(const char *inst, fsim_dtype *a, fsim_dtype *b, int *any) {
  static const struct {
    const char *suffix;
    fsim_dtype a, b;
  } tab[] = {{"_bf16", FSIM_DT_BF16, FSIM_DT_BF16}, {"_f16", FSIM_DT_F16, FSIM_DT_F16},
             {"_fp8_fp8", FSIM_DT_FP8, FSIM_DT_FP8}, {"_fp8_bf8", FSIM_DT_FP8, FSIM_DT_BF8},
             {"_bf8_fp8", FSIM_DT_BF8, FSIM_DT_FP8}, {"_bf8_bf8", FSIM_DT_BF8, FSIM_DT_BF8},
             {"_xf32", FSIM_DT_XF32, FSIM_DT_XF32},  {"_f32", FSIM_DT_F32, FSIM_DT_F32},
             {"_f64", FSIM_DT_F64, FSIM_DT_F64},     {"_iu8", FSIM_DT_I8, FSIM_DT_I8},
             {"_i8", FSIM_DT_I8, FSIM_DT_I8},        {"_iu4", FSIM_DT_I4, FSIM_DT_I4}};
  size_t n = strlen(inst);
  *any = 0;
  if (n >= 7 && strcmp(inst + n - 7, "_f8f6f4") == 0) return *any = 1;
  for (size_t i = 0; i < sizeof tab / sizeof tab[0]; i++) {
    size_t l = strlen(tab[i].suffix);
    if (n > l && strcmp(inst + n - l, tab[i].suffix) == 0) {
      *a = tab[i].a, *b = tab[i].b;
      return 1;
    }
  }
  return 0;
}

static int is_narrow_float(fsim_dtype t) {
  return t == FSIM_DT_FP8 || t == FSIM_DT_BF8 || t == FSIM_DT_FP6 || t == FSIM_DT_BF6 || t == FSIM_DT_FP4;
}

static int mnemonic_shape(const char *inst, int *m, int *n, int *k) {
  for (const char *p = inst; *p; p++) {
    if (!isdigit((unsigned char)*p) || (p > inst && isdigit((unsigned char)p[-1]))) continue;
    char *end;
    long v[3];
    const char *q = p;
    int i = 0;
    for (; i < 3; i++) {
      if (!isdigit((unsigned char)*q)) break;
      v[i] = strtol(q, &end, 10);
      q = end;
      if (i < 2 && *q++ != 'x') break;
    }
    if (i == 3 && v[0] > 0 && v[1] > 0 && v[2] > 0 && v[0] <= 1024 && v[1] <= 1024 && v[2] <= 1024) {
      *m = (int)v[0], *n = (int)v[1], *k = (int)v[2];
      return 1;
    }
  }
  return 0;
}

/* In the relation checks below: names the section and key that is off, writes why, and
 * returns -1 from the check. */
#define BAD(s, k, ...)               \
  do {                               \
    *sec = s;                        \
    *key = k;                        \
    snprintf(why, wn, __VA_ARGS__);  \
    return -1;                       \
  } while (0)

static long long round_up(long long v, long long g) { return (v + g - 1) / g * g; }

/* What the part must hold for its own limits to be reachable: a wave of max_vgprs and of
 * max_sgprs (in their allocation granules, as model/occupancy.c rounds them) in one SIMD's
 * register files, a workgroup of max_workgroup_size on one CU (a workgroup runs on one CU),
 * and one LDS allocation granule within a workgroup's limit.  Each of these once passed and
 * then failed every simulation with an internal program's name. */
static int check_residency(const fsim_arch *a, const char **sec, const char **key, char *why, size_t wn) {
  long long vg = round_up(round_up(a->cu.max_vgprs, 4), a->cu.vgpr_granule);
  if (a->cu.max_vgprs > a->cu.vgprs_per_lane)
    BAD("cu", "max_vgprs", "%d exceeds the register file (vgprs_per_lane %d)", a->cu.max_vgprs, a->cu.vgprs_per_lane);
  if (vg > a->cu.vgprs_per_lane)
    BAD("cu", "max_vgprs", "%d rounds up to %lld in granules of vgpr_granule %d, more than the register file "
        "(vgprs_per_lane %d)", a->cu.max_vgprs, vg, a->cu.vgpr_granule, a->cu.vgprs_per_lane);
  long long sg = round_up(a->cu.max_sgprs, a->cu.sgpr_granule);
  if (a->cu.max_sgprs > a->cu.sgprs_per_simd)
    BAD("cu", "max_sgprs", "%d exceeds the register file (sgprs_per_simd %d)", a->cu.max_sgprs, a->cu.sgprs_per_simd);
  if (sg > a->cu.sgprs_per_simd)
    BAD("cu", "max_sgprs", "%d rounds up to %lld in granules of sgpr_granule %d, more than the register file "
        "(sgprs_per_simd %d)", a->cu.max_sgprs, sg, a->cu.sgpr_granule, a->cu.sgprs_per_simd);
  int wg_waves = a->cu.max_workgroup_size / a->cu.wave_size;
  if (wg_waves > a->cu.simds * a->cu.waves_per_simd)
    BAD("cu", "waves_per_simd", "%d on each of %d SIMDs holds %d waves, fewer than the %d of a workgroup of "
        "max_workgroup_size %d (a workgroup runs on one CU)", a->cu.waves_per_simd, a->cu.simds,
        a->cu.simds * a->cu.waves_per_simd, wg_waves, a->cu.max_workgroup_size);
  if (a->lds.alloc_granule > a->lds.max_bytes_per_wg)
    BAD("lds", "alloc_granule", "%d exceeds max_bytes_per_wg %d (a workgroup's LDS is allocated in whole granules)",
        a->lds.alloc_granule, a->lds.max_bytes_per_wg);
  return 0;
}

/* The caches' lines, every CU's L1, every XCD's L2 and the MALL, within what the simulator
 * keeps tags for; names the largest of the three (a 1 TB MALL passed and then every
 * simulation exited 1). */
static int check_cache_lines(const fsim_arch *a, const char **sec, const char **key, char *why, size_t wn) {
  double l1 = (double)a->device.cus * (a->memory.l1_bytes / a->memory.l1_line);
  double l2 = (double)a->device.xcds * (a->memory.l2_bytes / a->memory.l2_line);
  double mall = (double)a->memory.mall_bytes / a->memory.l2_line;
  if (l1 + l2 + mall > (double)FSIM_ARCH_MAX_CACHE_LINES)
    BAD("memory", l1 >= l2 && l1 >= mall ? "l1_bytes" : l2 >= mall ? "l2_bytes" : "mall_bytes",
        "the caches would hold %.0f lines (%d CUs' L1s, %d L2s and the MALL, in %d-byte lines), more than the %lld "
        "the simulator keeps tags for", l1 + l2 + mall, a->device.cus, a->device.xcds, a->memory.l2_line,
        (long long)FSIM_ARCH_MAX_CACHE_LINES);
  return 0;
}

/* Checks what no single key's range can; names the key that is off. */
static int check_relations(const void *base, const char **sec, const char **key, char *why, size_t wn) {
  const fsim_arch *a = base;
  if (a->device.sustained_clock_ghz > a->device.clock_ghz) {
    char sus[32], peak[32]; /* digits enough to tell them apart (%g gave "2.4 ... above ... 2.4") */
    fsim_ini_shortest_double(a->device.sustained_clock_ghz, sus, sizeof sus);
    fsim_ini_shortest_double(a->device.clock_ghz, peak, sizeof peak);
    BAD("device", "sustained_clock_ghz", "%s GHz is above the peak clock_ghz %s", sus, peak);
  }
  if (a->device.cus % a->device.xcds != 0)
    BAD("device", "xcds", "%d CUs do not divide evenly over %d XCDs", a->device.cus, a->device.xcds);
  if (a->cu.wave_size % a->cu.simd_lanes != 0)
    BAD("cu", "wave_size", "%d is not a multiple of simd_lanes %d", a->cu.wave_size, a->cu.simd_lanes);
  if (a->cu.max_workgroup_size % a->cu.wave_size != 0)
    BAD("cu", "max_workgroup_size", "%d is not a multiple of wave_size %d", a->cu.max_workgroup_size,
        a->cu.wave_size);
  if (a->lds.max_bytes_per_wg > a->lds.bytes_per_cu)
    BAD("lds", "max_bytes_per_wg", "%d exceeds bytes_per_cu %d", a->lds.max_bytes_per_wg,
        a->lds.bytes_per_cu);
  if (check_residency(a, sec, key, why, wn) != 0) return -1;
  if (!is_pow2(a->lds.banks)) BAD("lds", "banks", "%d is not a power of two", a->lds.banks);
  if (!is_pow2(a->lds.bank_bytes)) BAD("lds", "bank_bytes", "%d is not a power of two", a->lds.bank_bytes);
  if (a->lds.port_bytes_per_clk > a->lds.banks * a->lds.bank_bytes)
    BAD("lds", "port_bytes_per_clk", "%d exceeds the %d bytes a clock of the CU's %d banks of %d bytes",
        a->lds.port_bytes_per_clk, a->lds.banks * a->lds.bank_bytes, a->lds.banks, a->lds.bank_bytes);
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
  /* the target name goes into clang's --offload-arch and the emitted kernels' names: gfx, one
   * or two digits, then two hex digits (gfx942, gfx950, gfx90a, gfx1201) */
  {
    const char *x = a->device.gfx;
    size_t len = strlen(x);
    int ok = (len == 6 || len == 7) && strncmp(x, "gfx", 3) == 0 && strspn(x + 3, "0123456789abcdef") == len - 3 &&
             strspn(x + 3, "0123456789") >= len - 5;
    if (!ok) BAD("device", "gfx", "'%s' is not an LLVM AMDGPU target name (gfx942, gfx950, gfx90a, gfx1201)", x);
  }
  if (!is_pow2(a->memory.l1_line)) BAD("memory", "l1_line", "%d is not a power of two", a->memory.l1_line);
  if (!is_pow2(a->memory.l2_line)) BAD("memory", "l2_line", "%d is not a power of two", a->memory.l2_line);
  /* the coalescer cuts requests into L2 lines and the L1 holds and serves those (sim/cu.c,
   * sim/vmem.c): another L1 line would scale its capacity and bandwidth by l2_line / l1_line */
  if (a->memory.l1_line != a->memory.l2_line)
    BAD("memory", "l1_line", "%d differs from l2_line %d (the simulator keeps one line size for L1 and L2)",
        a->memory.l1_line, a->memory.l2_line);
  if (a->memory.l1_bytes % (a->memory.l1_line * a->memory.l1_ways) != 0)
    BAD("memory", "l1_ways", "l1_bytes %d is not a whole number of sets of %d lines of %d bytes",
        a->memory.l1_bytes, a->memory.l1_ways, a->memory.l1_line);
  if (a->memory.l2_bytes % (a->memory.l2_line * a->memory.l2_ways) != 0)
    BAD("memory", "l2_ways", "l2_bytes %d is not a whole number of sets of %d lines of %d bytes",
        a->memory.l2_bytes, a->memory.l2_ways, a->memory.l2_line);
  if (a->memory.mall_bytes % ((long long)a->memory.l2_line * a->memory.mall_ways) != 0)
    BAD("memory", "mall_ways", "mall_bytes %lld is not a whole number of sets of %d lines of %d bytes",
        a->memory.mall_bytes, a->memory.mall_ways, a->memory.l2_line);
  if (check_cache_lines(a, sec, key, why, wn) != 0) return -1;
  if (a->memory.mall_bytes > 0 && a->memory.mall_tbps <= 0)
    BAD("memory", "mall_tbps", "must be positive when mall_bytes is not 0");
  /* a request reaches each level through the ones in front of it (sim/memsys.c): a hit further
   * out returning sooner would make the model's ranking of hits and misses meaningless */
  if (a->memory.l2_latency < a->memory.l1_latency)
    BAD("memory", "l2_latency", "%d cycles is shorter than l1_latency %d (a request reaches L2 through L1)",
        a->memory.l2_latency, a->memory.l1_latency);
  if (a->memory.mall_bytes > 0 && a->memory.mall_latency < a->memory.l2_latency)
    BAD("memory", "mall_latency", "%d cycles is shorter than l2_latency %d (a request reaches the MALL through L2)",
        a->memory.mall_latency, a->memory.l2_latency);
  {
    const int mall = a->memory.mall_bytes > 0;
    int front = mall ? a->memory.mall_latency : a->memory.l2_latency;
    if (a->memory.dram_latency < front)
      BAD("memory", "dram_latency", "%d cycles is shorter than %s %d (a request reaches DRAM through %s)",
          a->memory.dram_latency, mall ? "mall_latency" : "l2_latency", front, mall ? "the MALL" : "L2");
  }
  if (a->n_mfma == 0) BAD("mfma", "inst", "the part has no [mfma.ID] section");
  for (int i = 0; i < a->n_mfma; i++) {
    const fsim_mfma_entry *m = &a->mfma[i];
    if (m->latency < m->passes * a->issue.mfma_pass_cycles) {
      static _Thread_local char msec[96]; /* the entry's own section, for the message and its line */
      snprintf(msec, sizeof msec, "mfma.%s", m->name);
      BAD(msec, "latency", "%d is shorter than its %d pipe cycles", m->latency, m->passes * a->issue.mfma_pass_cycles);
    }
    /* the row's name, its instruction, its types and its scaling agree (an audit: a bf16 row
     * given a_type = fp8 doubled the derived fp8 peak, and the kernel was the same) */
    {
      static _Thread_local char msec[96];
      snprintf(msec, sizeof msec, "mfma.%s", m->name);
      size_t il = strlen(m->inst);
      if (strncmp(m->name, m->inst, il) != 0 || (m->name[il] != '\0' && m->name[il] != '.'))
        BAD(msec, "inst", "%s is not the instruction the section names ([mfma.INST] or [mfma.INST.VARIANT])",
            m->inst);
      int scale_inst = strstr(m->inst, "_scale_") != NULL;
      if (m->scaled != scale_inst)
        BAD(msec, "scaled", "%d, but %s is %sa block-scaled instruction", m->scaled, m->inst, scale_inst ? "" : "not ");
      fsim_dtype ta, tb;
      int any;
      if (mnemonic_types(m->inst, &ta, &tb, &any)) {
        if (any && (!is_narrow_float(m->a_type) || !is_narrow_float(m->b_type)))
          BAD(msec, is_narrow_float(m->a_type) ? "b_type" : "a_type",
              "%s: %s takes fp8, bf8, fp6, bf6 or fp4 operands", fsim_dtype_name(is_narrow_float(m->a_type) ? m->b_type
                                                                                                          : m->a_type),
              m->inst);
        if (!any && (m->a_type != ta || m->b_type != tb))
          BAD(msec, m->a_type != ta ? "a_type" : "b_type", "%s disagrees with the instruction %s, whose operands are %s x %s",
              fsim_dtype_name(m->a_type != ta ? m->a_type : m->b_type), m->inst, fsim_dtype_name(ta),
              fsim_dtype_name(tb));
      }
    }
    /* the shape is the mnemonic's (MxNxK in it): kernels take their atoms' shapes from the
     * instruction, so another m, n or k would change the peak and nothing else */
    int sm, sn, sk;
    if (mnemonic_shape(m->inst, &sm, &sn, &sk)) {
      static _Thread_local char msec[96];
      snprintf(msec, sizeof msec, "mfma.%s", m->name);
      const char *which = m->m != sm ? "m" : m->n != sn ? "n" : m->k != sk ? "k" : NULL;
      if (which)
        BAD(msec, which, "%d disagrees with the instruction %s, whose shape is %dx%dx%d (a what-if of another shape "
            "needs an instruction of that shape)", which[0] == 'm' ? m->m : which[0] == 'n' ? m->n : m->k, m->inst, sm,
            sn, sk);
    }
    /* an instruction is found by its mnemonic and operand types: two entries alike are ambiguous */
    for (int j = 0; j < i; j++) {
      const fsim_mfma_entry *o = &a->mfma[j];
      if (strcmp(o->inst, m->inst) == 0 && o->a_type == m->a_type && o->b_type == m->b_type) {
        static _Thread_local char msec[96];
        snprintf(msec, sizeof msec, "mfma.%s", m->name);
        BAD(msec, "inst", "%s with these operand types is also [mfma.%s]", m->inst, o->name);
      }
    }
  }
  return 0;
#undef BAD
}

static const fsim_ini_group arch_groups[] = {
    {"mfma", offsetof(fsim_arch, mfma), sizeof(fsim_mfma_entry), FSIM_ARCH_MAX_MFMA, offsetof(fsim_arch, n_mfma),
     offsetof(fsim_mfma_entry, name), FSIM_ARCH_NAME_LEN},
};

static const fsim_ini_spec arch_spec = {arch_keys, N_KEYS, arch_groups, 1,
                                        "device cu issue lds memory dispatch mfma.ID", check_relations, NULL, NULL};

const fsim_ini_spec *fsim_arch_spec(void) { return &arch_spec; }

void fsim_arch_format_value(const fsim_arch *a, const fsim_mfma_entry *m, const fsim_arch_key *k, char *buf,
                            size_t n) {
  fsim_ini_format(k, a, strcmp(k->section, "mfma") == 0 ? m : NULL, buf, n);
}

double fsim_arch_numeric_value(const fsim_arch *a, const fsim_mfma_entry *m, const fsim_arch_key *k) {
  return fsim_ini_number(k, a, strcmp(k->section, "mfma") == 0 ? m : NULL);
}

fsim_status fsim_arch_validate(const fsim_arch *a, fsim_err *e) {
  const char *sec = NULL, *key = NULL;
  char why[256];
  if (check_relations(a, &sec, &key, why, sizeof why) != 0)
    return FSIM_ERR(e, FSIM_EINVAL, "%s: [%s] %s: %s", a->file, sec, key, why);
  return FSIM_OK;
}

fsim_status fsim_arch_load_file(fsim_arch *out, const char *path, fsim_err *e) {
  memset(out, 0, sizeof *out);
  if (strlen(path) >= sizeof out->file) return FSIM_ERR(e, FSIM_EINVAL, "%s: path too long", path);
  fsim_status st = fsim_ini_load(&arch_spec, out, path, e);
  if (st == FSIM_OK) strcpy(out->file, path);
  return st;
}

fsim_status fsim_arch_set_all(fsim_arch *a, const char *const *assignments, int n, fsim_err *e) {
  /* on a copy: a failure leaves a as it was */
  fsim_arch *t = malloc(sizeof *t);
  if (t == NULL) return FSIM_ERR(e, FSIM_ENOMEM, "out of memory");
  *t = *a;
  fsim_status st = FSIM_OK;
  for (int i = 0; i < n && st == FSIM_OK; i++) {
    st = fsim_ini_set_ex(&arch_spec, t, assignments[i], 0, e);
    size_t used = strlen(t->overrides);
    if (st == FSIM_OK) {
      /* as the value was read: without the blanks around it (the list is space-separated) */
      char text[512];
      fsim_ini_assignment_text(assignments[i], text, sizeof text);
      int len = snprintf(t->overrides + used, sizeof t->overrides - used, "%s%s", used ? " " : "", text);
      if (len < 0 || (size_t)len >= sizeof t->overrides - used ||
          t->noverrides == (int)(sizeof t->overrides_end / sizeof t->overrides_end[0]))
        st = FSIM_ERR(e, FSIM_EINVAL, "--set %s: the record of overrides holds at most %zu characters and %zu "
                      "overrides", assignments[i], sizeof t->overrides - 1,
                      sizeof t->overrides_end / sizeof t->overrides_end[0]);
      else
        t->overrides_end[t->noverrides++] = (short)(used + (size_t)len);
    }
  }
  const char *sec = NULL, *key = NULL;
  char why[256];
  if (st == FSIM_OK && n > 0 && check_relations(t, &sec, &key, why, sizeof why) != 0) {
    /* name the override that set the key, else those of this call */
    char prefix[160];
    snprintf(prefix, sizeof prefix, "%s.%s=", sec, key);
    const char *named = t->overrides + strlen(a->overrides) + (a->overrides[0] ? 1 : 0);
    for (int i = n - 1; i >= 0; i--)
      if (strncmp(assignments[i], prefix, strlen(prefix)) == 0) {
        named = assignments[i];
        break;
      }
    st = FSIM_ERR(e, FSIM_EINVAL, "--set %s: [%s] %s: %s", named, sec, key, why);
  }
  if (st == FSIM_OK) *a = *t;
  free(t);
  return st;
}

fsim_status fsim_arch_set(fsim_arch *a, const char *assignment, fsim_err *e) {
  return fsim_arch_set_all(a, &assignment, 1, e);
}

/* ---- identity --------------------------------------------------------------------------- */

/* The part's file name without folder and ".ini", with characters that would break a
 * space-separated header or the key's brackets replaced by '_'. */
static void base_name(const fsim_arch *a, char *buf, size_t n) {
  const char *base = strrchr(a->file, '/');
  base = base ? base + 1 : a->file;
  size_t len = strlen(base);
  if (len > 4 && strcmp(base + len - 4, ".ini") == 0) len -= 4;
  snprintf(buf, n, "%.*s", (int)len, base);
  for (char *c = buf; *c; c++)
    if (*c == ' ' || *c == '\t' || *c == '[' || *c == ']' || *c == '#' || *c == '=') *c = '_';
}

/* The entry of part a named exactly name, or NULL. */
static const fsim_mfma_entry *entry_named(const fsim_arch *a, const char *name) {
  for (int k = 0; k < a->n_mfma; k++)
    if (strcmp(a->mfma[k].name, name) == 0) return &a->mfma[k];
  return NULL;
}

int fsim_arch_each_difference(const fsim_arch *a, const fsim_arch *b, fsim_arch_diff_fn f, void *ctx) {
  int nk, rc;
  const fsim_arch_key *keys = fsim_arch_keys(&nk);
  char va[FSIM_ARCH_VALUE_MAX], vb[FSIM_ARCH_VALUE_MAX];
  for (int i = 0; i < nk; i++) {
    if (strcmp(keys[i].section, "mfma") == 0) continue;
    fsim_arch_format_value(a, NULL, &keys[i], va, sizeof va);
    fsim_arch_format_value(b, NULL, &keys[i], vb, sizeof vb);
    if (strcmp(va, vb) != 0 && (rc = f(ctx, keys[i].section, NULL, keys[i].key, va, vb)) != 0) return rc;
  }
  for (int j = 0; j < a->n_mfma; j++) {
    const fsim_mfma_entry *ma = &a->mfma[j], *mb = entry_named(b, ma->name);
    if (mb == NULL) {
      if ((rc = f(ctx, "mfma", ma->name, NULL, "present", NULL)) != 0) return rc;
      continue;
    }
    for (int i = 0; i < nk; i++) {
      if (strcmp(keys[i].section, "mfma") != 0) continue;
      fsim_arch_format_value(a, ma, &keys[i], va, sizeof va);
      fsim_arch_format_value(b, mb, &keys[i], vb, sizeof vb);
      if (strcmp(va, vb) != 0 && (rc = f(ctx, "mfma", ma->name, keys[i].key, va, vb)) != 0) return rc;
    }
  }
  for (int k = 0; k < b->n_mfma; k++)
    if (entry_named(a, b->mfma[k].name) == NULL && (rc = f(ctx, "mfma", b->mfma[k].name, NULL, NULL, "present")) != 0)
      return rc;
  return 0;
}

typedef struct diff_buf {
  char *buf;
  size_t n, used;
} diff_buf;

/* Appends " section.key=value" (the first without the space): an MFMA entry's key as
 * mfma.NAME.key, an entry one side lacks as mfma.NAME=present or =absent; -1 when full. */
static int append_item(void *ctx, const char *sec, const char *mfma, const char *key, const char *va,
                       const char *vb) {
  (void)vb;
  diff_buf *d = ctx;
  const char *sp = d->used ? " " : "";
  int w;
  if (mfma == NULL) w = snprintf(d->buf + d->used, d->n - d->used, "%s%s.%s=%s", sp, sec, key, va);
  else if (key != NULL) w = snprintf(d->buf + d->used, d->n - d->used, "%smfma.%s.%s=%s", sp, mfma, key, va);
  else w = snprintf(d->buf + d->used, d->n - d->used, "%smfma.%s=%s", sp, mfma, va ? "present" : "absent");
  if (w < 0 || (size_t)w >= d->n - d->used) return -1;
  d->used += (size_t)w;
  return 0;
}

/* The values of a that differ from ref's (append_item's form), in the loader table's order;
 * -1 if they do not fit in buf. */
static int diff_text(const fsim_arch *a, const fsim_arch *ref, char *buf, size_t n) {
  diff_buf d = {buf, n, 0};
  buf[0] = '\0';
  return fsim_arch_each_difference(a, ref, append_item, &d);
}

/* FNV-1a over every value of a (the loader's formatting), for parts no shipped file names. */
uint64_t fsim_arch_fingerprint(const fsim_arch *a) {
  uint64_t h = 1469598103934665603ULL;
  int nk;
  const fsim_arch_key *keys = fsim_arch_keys(&nk);
  char v[FSIM_ARCH_VALUE_MAX];
  for (int j = -1; j < a->n_mfma; j++)
    for (int i = 0; i < nk; i++) {
      int is_mfma = strcmp(keys[i].section, "mfma") == 0;
      if ((j < 0) == is_mfma) continue;
      fsim_arch_format_value(a, j < 0 ? NULL : &a->mfma[j], &keys[i], v, sizeof v);
      const char *parts[3] = {j < 0 ? keys[i].section : a->mfma[j].name, keys[i].key, v};
      for (int q = 0; q < 3; q++) {
        for (const char *c = parts[q]; *c; c++) h = (h ^ (uint8_t)*c) * 1099511628211ULL;
        h = (h ^ 0xff) * 1099511628211ULL;
      }
    }
  return h;
}

void fsim_arch_identity(const fsim_arch *a, char *name, size_t name_n, char *changes, size_t changes_n) {
  base_name(a, name, name_n);
  changes[0] = '\0';
  /* the shipped part: the installed data folder's file of that name, else the source tree's
   * (never $FLYSIM_ARCH_PATH's, whose edited mi355x.ini would compare equal to itself) */
  fsim_arch *ref = malloc(sizeof *ref);
  static const char *const shipped[] = {FSIM_ARCH_DATADIR, FSIM_ARCH_SRCDIR};
  for (int i = 0; ref != NULL && i < 2; i++) {
    char path[1200];
    struct stat sb;
    snprintf(path, sizeof path, "%s/%s.ini", shipped[i], name);
    if (stat(path, &sb) != 0) continue;
    fsim_err e;
    fsim_err_clear(&e);
    if (fsim_arch_load_file(ref, path, &e) == FSIM_OK && diff_text(a, ref, changes, changes_n) == 0) {
      free(ref);
      return;
    }
    break; /* a shipped file that does not load, or too many differences: the fingerprint */
  }
  free(ref);
  /* no shipped part of that name, or more changes than fit: every value's fingerprint */
  snprintf(changes, changes_n, "#%016llx", (unsigned long long)fsim_arch_fingerprint(a));
}

/* ---- finding parts ---------------------------------------------------------------------- */

const char **fsim_arch_search_dirs(int *n) {
  const char *env = getenv("FLYSIM_ARCH_PATH");
  if (env == NULL) env = "";
  size_t len = strlen(env), max = 3; /* its folders (one more than its colons), and two */
  for (const char *c = env; *c; c++) max += *c == ':';
  /* the pointers, then the copy of the variable that they point into: one block to free, any
   * number of folders of any length (16 folders dropped the shipped ones, and a variable of
   * 4096 characters or more was ignored) */
  const char **dirs = malloc(max * sizeof *dirs + len + 1);
  if (dirs == NULL) return NULL;
  char *copy = memcpy((char *)(dirs + max), env, len + 1);
  int k = 0;
  for (char *save = NULL, *tok = strtok_r(copy, ":", &save); tok; tok = strtok_r(NULL, ":", &save)) dirs[k++] = tok;
  dirs[k++] = FSIM_ARCH_DATADIR;
  dirs[k++] = FSIM_ARCH_SRCDIR;
  *n = k;
  return dirs;
}

static int cmp_str(const void *x, const void *y) {
  const char *a = *(char *const *)x, *b = *(char *const *)y;
  const char *ba = strrchr(a, '/'), *bb = strrchr(b, '/');
  return strcmp(ba ? ba + 1 : a, bb ? bb + 1 : b);
}

int fsim_arch_list(char ***paths_out, fsim_err *e) {
  int nd;
  const char **dirs = fsim_arch_search_dirs(&nd);
  if (dirs == NULL) return FSIM_ERR(e, FSIM_ENOMEM, "out of memory"), -1;
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
          free(dirs);
          return FSIM_ERR(e, FSIM_ENOMEM, "out of memory"), -1;
        }
        paths = np;
      }
      size_t sz = strlen(dirs[d]) + len + 2;
      paths[n] = malloc(sz);
      if (paths[n] == NULL) {
        closedir(dir);
        fsim_arch_list_free(paths, n);
        free(dirs);
        return FSIM_ERR(e, FSIM_ENOMEM, "out of memory"), -1;
      }
      snprintf(paths[n], sz, "%s/%s", dirs[d], de->d_name);
      n++;
    }
    closedir(dir);
  }
  free(dirs);
  if (n > 1) qsort(paths, (size_t)n, sizeof *paths, cmp_str);
  *paths_out = paths;
  return n;
}

void fsim_arch_list_free(char **paths, int n) {
  if (paths == NULL) return;
  for (int i = 0; i < n; i++) free(paths[i]);
  free(paths);
}

/* ASCII letters alike whatever their case: part names and aliases are looked up so (a user's
 * MyPart.ini, whose lower-cased name matched no file, could not be named at all). */
static int same_ci(const char *a, const char *b, size_t n) {
  for (size_t i = 0; i < n; i++)
    if (tolower((unsigned char)a[i]) != tolower((unsigned char)b[i])) return 0;
  return 1;
}

static int has_word(const char *list, const char *word) {
  size_t wl = strlen(word);
  for (const char *p = list; *p;) {
    while (*p == ' ') p++;
    size_t l = strcspn(p, " ");
    if (l == wl && same_ci(p, word, l)) return 1;
    p += l;
  }
  return 0;
}

static const char *file_base(const char *path) {
  const char *base = strrchr(path, '/');
  return base ? base + 1 : path;
}

/* The part whose file is NAME.ini, the name in any case; two files that differ only by case
 * (MyPart.ini, mypart.ini) are ambiguous.  FSIM_ENOENT when no file has the name. */
static fsim_status load_by_file_name(fsim_arch *out, const char *name, char **paths, int n, fsim_err *e) {
  size_t len = strlen(name);
  int found = -1;
  for (int i = 0; i < n; i++) {
    const char *base = file_base(paths[i]);
    if (strlen(base) != len + 4 || !same_ci(base, name, len) || strcmp(base + len, ".ini") != 0) continue;
    if (found >= 0)
      return FSIM_ERR(e, FSIM_EINVAL, "'%s': both %s and %s are named so (file names differ only by case); name the "
                      "part by its file", name, paths[found], paths[i]);
    found = i;
  }
  return found < 0 ? FSIM_ENOENT : fsim_arch_load_file(out, paths[found], e);
}

/* The part that lists name among its aliases (any case); a name two parts list is ambiguous
 * (a copied file in $FLYSIM_ARCH_PATH), not the first one's in file-name order.  A broken part
 * file is reported, not skipped.  known gets the file names looked at, for the caller's
 * message.  FSIM_ENOENT when no part lists the name. */
static fsim_status load_by_alias(fsim_arch *out, const char *name, char **paths, int n, char *known, size_t kn,
                                 fsim_err *e) {
  fsim_err sub;
  for (int i = 0; i < n; i++) {
    if (fsim_arch_load_file(out, paths[i], &sub) != FSIM_OK) {
      if (e) *e = sub;
      return sub.code;
    }
    const char *base = file_base(paths[i]);
    size_t kl = strlen(known);
    snprintf(known + kl, kn - kl, "%s%.*s", kl ? " " : "", (int)(strlen(base) - 4), base);
    if (!has_word(out->device.aliases, name)) continue;
    fsim_arch *other = malloc(sizeof *other);
    if (other == NULL) return FSIM_ERR(e, FSIM_ENOMEM, "out of memory");
    fsim_status rc = FSIM_OK;
    for (int j = i + 1; j < n && rc == FSIM_OK; j++) {
      if (fsim_arch_load_file(other, paths[j], &sub) != FSIM_OK) {
        rc = sub.code;
        if (e) *e = sub;
      } else if (has_word(other->device.aliases, name))
        rc = FSIM_ERR(e, FSIM_EINVAL, "'%s': both %s and %s list it among their aliases; name the part by its file",
                      name, paths[i], paths[j]);
    }
    free(other);
    return rc;
  }
  return FSIM_ENOENT;
}

fsim_status fsim_arch_load(fsim_arch *out, const char *name, fsim_err *e) {
  if (name == NULL || *name == '\0') return FSIM_ERR(e, FSIM_EINVAL, "no arch name given");
  size_t len = strlen(name);
  if (strchr(name, '/') != NULL || (len > 4 && strcmp(name + len - 4, ".ini") == 0))
    return fsim_arch_load_file(out, name, e);
  if (len >= FSIM_ARCH_NAME_LEN) return FSIM_ERR(e, FSIM_ENOENT, "'%.40s...': no such part", name);
  char **paths = NULL;
  int n = fsim_arch_list(&paths, e);
  if (n < 0) return e ? e->code : FSIM_ENOMEM;
  char known[512] = "";
  /* a file named NAME.ini first, then a part whose aliases name it */
  fsim_status rc = load_by_file_name(out, name, paths, n, e);
  if (rc == FSIM_ENOENT) rc = load_by_alias(out, name, paths, n, known, sizeof known, e);
  if (rc == FSIM_ENOENT) {
    int nd; /* at least the two shipped folders */
    const char **dirs = fsim_arch_search_dirs(&nd);
    FSIM_ERR(e, FSIM_ENOENT, "'%s': no such part (known: %s; searched %s and others)", name, n ? known : "none",
             dirs ? dirs[0] : FSIM_ARCH_DATADIR);
    free(dirs);
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

int64_t fsim_arch_global_region(const fsim_arch *a) {
  int64_t r = INT64_C(1) << 37;
  for (int line = a->memory.l2_line; line < 128 && r > 1; line *= 2) r /= 2;
  return r;
}

const fsim_mfma_entry *fsim_arch_find_mfma(const fsim_arch *a, const char *name) {
  for (int i = 0; i < a->n_mfma; i++)
    if (strcmp(a->mfma[i].name, name) == 0) return &a->mfma[i];
  for (int i = 0; i < a->n_mfma; i++)
    if (strcmp(a->mfma[i].inst, name) == 0) return &a->mfma[i];
  return NULL;
}

int fsim_arch_mfma_variants(const fsim_arch *a, const char *inst, char *names, size_t n) {
  int count = 0;
  size_t used = 0;
  if (n) names[0] = '\0';
  for (int i = 0; i < a->n_mfma; i++) {
    if (strcmp(a->mfma[i].inst, inst) != 0) continue;
    count++;
    if (n && used < n) {
      int w = snprintf(names + used, n - used, "%s%s", used ? ", " : "", a->mfma[i].name);
      if (w > 0) used += (size_t)w;
    }
  }
  return count;
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
  /* what the simulator's bank array delivers (banks x bank_bytes a clock), or its ports where
   * they take less (port_bytes_per_clk on each of simds / simds_per_port ports; a what-if of
   * 16 bytes a port measured a quarter of the banks' figure, an audit found), so that a what-if
   * of either moves the figure with the simulation; the shipped files' bytes_per_clk, the
   * datasheet's, equals both (tests/check_arch.c) */
  double banks_bpc = (double)a->lds.banks * a->lds.bank_bytes;
  double ports_bpc = (double)a->lds.port_bytes_per_clk * (a->cu.simds / a->lds.simds_per_port);
  d->lds_tbps = (ports_bpc < banks_bpc ? ports_bpc : banks_bpc) * to_tera;
  d->l1_tbps = a->memory.l1_bytes_per_clk * to_tera;
  d->l2_tbps = (double)a->memory.l2_bytes_per_clk * a->memory.l2_channels * a->device.xcds *
               a->device.clock_ghz * 1e9 / 1e12;
  d->mall_tbps = a->memory.mall_tbps;
  d->dram_tbps = a->memory.dram_bus_bits * a->memory.dram_gbps_per_pin / 8.0 / 1000.0;
  d->max_waves_per_cu = a->cu.simds * a->cu.waves_per_simd;
}
