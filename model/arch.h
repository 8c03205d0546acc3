/* Hardware descriptions: one INI file per GPU part (model/arch/NAME.ini), loaded into a plain
 * struct that is passed to every layer.  There are no globals: two GPUs can live in one
 * process.  The loader is driven by one table of {section, key, type, range, unit, doc}; a
 * missing key, an unknown section or key, a malformed number or an out-of-range value is an
 * error that names "file:line: [section] key" and the reason.  No timing parameter has a
 * default.  What-if overrides ("--set lds.banks=32") go through the same table.
 *
 * Derived figures (peak TFLOP/s per data type, LDS, cache and DRAM bandwidth) are computed
 * from the description, never typed in, so a what-if change to the MFMA table or the clock
 * moves them. */
#ifndef FSIM_ARCH_H
#define FSIM_ARCH_H

#include <stdint.h>
#include <stdio.h>

#include "util/dtype.h"
#include "util/ini_table.h"
#include "util/status.h"

#define FSIM_ARCH_MAX_MFMA 48
#define FSIM_ARCH_NAME_LEN 64
/* The most cache lines a part may have, every CU's L1, every XCD's L2 and the MALL together:
 * the simulator keeps an 8-byte tag for each and allows 4 GiB of them (sim/internal.h), far
 * above any real part (MI355X: 2.4 million lines).  Validation refuses a part with more. */
#define FSIM_ARCH_MAX_CACHE_LINES (INT64_C(1) << 29)

typedef enum fsim_isa { FSIM_ISA_CDNA3, FSIM_ISA_CDNA4, FSIM_ISA_RDNA4 } fsim_isa;
typedef enum fsim_dispatch_policy {
  FSIM_DISPATCH_ROUND_ROBIN, /* workgroup i goes to XCD i mod xcds */
  FSIM_DISPATCH_BLOCKED      /* contiguous chunks of workgroup ids per XCD */
} fsim_dispatch_policy;

/* One matrix instruction variant (an operand-type variant of a scaled MFMA is its own entry). */
typedef struct fsim_mfma_entry {
  char name[FSIM_ARCH_NAME_LEN]; /* section id: "v_mfma_scale_f32_16x16x128_f8f6f4.fp8" */
  char inst[FSIM_ARCH_NAME_LEN]; /* ISA mnemonic: "v_mfma_scale_f32_16x16x128_f8f6f4" */
  int m, n, k;                   /* C is m x n; k is the reduction length */
  fsim_dtype a_type, b_type, c_type;
  int scaled;  /* 1: takes E8M0 block scales, one per 32 values of K */
  int passes;  /* matrix-pipe passes; the pipe is busy passes * issue.mfma_pass_cycles cycles */
  int latency; /* cycles from issue until a dependent instruction may read the result */
} fsim_mfma_entry;

typedef struct fsim_arch {
  /* provenance */
  char file[1024];      /* the INI file it was read from */
  char overrides[1024]; /* "--set" overrides applied, space-separated, in order */
  int noverrides;       /* how many; the k-th ends at overrides_end[k] (a value may hold blanks) */
  short overrides_end[64];

  struct {
    char name[FSIM_ARCH_NAME_LEN];    /* marketing name, "MI355X" */
    char gfx[16];                     /* "gfx950" */
    char aliases[FSIM_ARCH_NAME_LEN]; /* other names this part answers to, space-separated */
    fsim_isa isa;
    int cus;                    /* compute units, whole device */
    int xcds;                   /* accelerator complex dies (1 on single-die parts) */
    double clock_ghz;           /* peak engine clock */
    double sustained_clock_ghz; /* engine clock sustained under heavy MFMA load */
    int board_power_w;
  } device;

  struct {
    int simds;              /* SIMDs per CU */
    int simd_lanes;         /* ALU lanes per SIMD */
    int wave_size;          /* lanes per wave */
    int waves_per_simd;     /* wave slots per SIMD */
    int vgprs_per_lane;     /* register file per SIMD, per lane (VGPR + AGPR when unified) */
    int max_vgprs;          /* architectural VGPRs one wave may use */
    int max_agprs;          /* accumulation registers one wave may use (0: none) */
    int vgpr_granule;       /* allocation granule, registers */
    int sgprs_per_simd;     /* scalar register file per SIMD */
    int max_sgprs;          /* scalar registers one wave may use */
    int sgpr_granule;       /* allocation granule, registers */
    int workgroups_per_cu;  /* workgroups resident on one CU at once (barrier resources) */
    int max_workgroup_size; /* work-items */
    int valu_fp32_flops_per_clk; /* vector FP32 FLOPs per clock per CU (FMA = 2, packed and dual issue included) */
    int valu_fp64_flops_per_clk; /* vector FP64 FLOPs per clock per CU */
  } cu;

  struct {
    int issue_period;         /* cycles between two issue slots of one SIMD */
    int valu_cycles;          /* cycles one VALU instruction of a full wave occupies the SIMD */
    int valu_latency;         /* cycles from VALU issue until a dependent instruction may issue */
    int salu_latency;         /* cycles from SALU issue until a dependent instruction may issue */
    int mfma_pass_cycles;     /* cycles per matrix-pipe pass */
    int mfma_srcc_forwarding; /* 1: an MFMA accumulating into the previous one's result waits only for the pipe */
    int smem_latency;         /* scalar memory load latency, cycles */
    int branch_cycles;        /* cycles a taken branch costs the wave */
    int barrier_latency;      /* cycles from the last arrival at s_barrier until waves resume */
  } issue;

  struct {
    int bytes_per_cu;     /* LDS capacity per CU */
    int max_bytes_per_wg; /* LDS one workgroup may allocate */
    int banks;
    int bank_bytes;
    int bytes_per_clk;    /* peak LDS bandwidth per CU (the bank array) */
    int port_bytes_per_clk; /* bytes per clock one LDS port moves */
    int simds_per_port;   /* SIMDs sharing one LDS port */
    int alloc_granule;    /* allocation granule, bytes */
    int latency;          /* cycles from issue to data for a conflict-free access */
    fsim_lane_phases phases_b32, phases_b64, phases_b128; /* lane groups per access width */
  } lds;

  struct {
    int l1_bytes;          /* vector L1 per CU */
    int l1_line;           /* bytes */
    int l1_ways;
    int l1_latency;        /* cycles, hit, from issue */
    int l1_bytes_per_clk;  /* per CU */
    int l2_bytes;          /* per XCD */
    int l2_line;           /* bytes */
    int l2_ways;
    int l2_channels;       /* per XCD */
    int l2_bytes_per_clk;  /* per channel */
    int l2_latency;        /* cycles, hit, from issue */
    long long mall_bytes;  /* Infinity Cache, whole device (0: none) */
    int mall_ways;
    int mall_latency;      /* cycles, hit, from issue */
    double mall_tbps;      /* peak bandwidth, whole device */
    int dram_bus_bits;     /* total DRAM interface width */
    double dram_gbps_per_pin;
    int dram_channels;     /* independent channels, whole device */
    double dram_efficiency; /* achievable fraction of the pin bandwidth (streaming) */
    int dram_latency;      /* cycles, from issue, unloaded */
    long long dram_bytes;  /* capacity */
    int atomics_in_l2;     /* 1: global atomics are performed in the L2 (RDNA, CDNA before
                              MI300); 0: forwarded past it to the Infinity Fabric, where the
                              simulator performs them at the MALL (MI300, MI350) */
  } memory;

  struct {
    fsim_dispatch_policy policy;
    int wg_launch_cycles;     /* cycles between two workgroup launches on one XCD */
    double launch_overhead_us; /* fixed kernel launch cost added to predictions */
  } dispatch;

  int n_mfma;
  fsim_mfma_entry mfma[FSIM_ARCH_MAX_MFMA];
} fsim_arch;

/* Figures derived from a description. */
typedef struct fsim_arch_derived {
  double peak_tflops[FSIM_PEAK_CLASS_COUNT]; /* by FSIM_PEAK_CLASSES; 0 where the part has none */
  double peak_flops_per_clk_per_cu[FSIM_PEAK_CLASS_COUNT];
  double lds_tbps;   /* whole device, at the peak clock */
  double l1_tbps;
  double l2_tbps;
  double mall_tbps;
  double dram_tbps;  /* pin bandwidth */
  int max_waves_per_cu;
} fsim_arch_derived;

/* Loads an INI file.  On failure *out is left unspecified and e names file:line: [section] key. */
fsim_status fsim_arch_load_file(fsim_arch *out, const char *path, fsim_err *e);
/* Resolves NAME (a part name, a gfx alias, or a path to an .ini file) and loads it. */
fsim_status fsim_arch_load(fsim_arch *out, const char *name, fsim_err *e);
/* Applies n "SECTION.KEY=VALUE" overrides, then checks the relations between keys once, so
 * that their order does not matter (raising an MFMA's passes and its latency together).  On
 * failure a is unchanged. */
fsim_status fsim_arch_set_all(fsim_arch *a, const char *const *assignments, int n, fsim_err *e);
/* Applies one "section.key=value" override (the section may contain dots: mfma entries). */
fsim_status fsim_arch_set(fsim_arch *a, const char *assignment, fsim_err *e);
/* Checks relations between keys (called by load and after overrides). */
fsim_status fsim_arch_validate(const fsim_arch *a, fsim_err *e);

void fsim_arch_derive(const fsim_arch *a, fsim_arch_derived *d);
const char *fsim_arch_peak_class_name(int i);
/* Index of a peak class by name, or -1. */
int fsim_arch_peak_class_index(const char *name);

/* What a part is, independent of how it was named and changed: its file's name (no folder, no
 * ".ini"; "mi355x"), and in changes its values that differ from the shipped part of that name
 * ("device.sustained_clock_ghz=1.2 lds.banks=32", formatted as the loader formats them, in
 * its table's order; "" when none), or "#" and a 64-bit fingerprint of all its values when no
 * shipped part has that name or the differences do not fit.  "Shipped" is the installed data
 * folder's file, else the source tree's: never $FLYSIM_ARCH_PATH's.  So "--set x=1.2" and
 * "--set x=1.20", or a copied file with one value changed, come out the same. */
void fsim_arch_identity(const fsim_arch *a, char *name, size_t name_n, char *changes, size_t changes_n);
/* A 64-bit FNV-1a hash of every value of the part (each key's name and formatted value, the
 * MFMA entries in file order): equal parts hash equal, an edited value changes it. */
uint64_t fsim_arch_fingerprint(const fsim_arch *a);

/* Folders searched for part files, in order: $FLYSIM_ARCH_PATH (colon-separated, empty
 * entries skipped, any number of any length), the installed data folder, the source tree's
 * model/arch.  One block for free(), *n entries; NULL when out of memory. */
const char **fsim_arch_search_dirs(int *n);
/* Lists the part files found (sorted paths); returns the count or -1 with e set. */
int fsim_arch_list(char ***paths_out, fsim_err *e);
void fsim_arch_list_free(char **paths, int n);

/* An MFMA entry by section id or ISA mnemonic with operand types; NULL when absent. */
const fsim_mfma_entry *fsim_arch_find_mfma(const fsim_arch *a, const char *name);
/* The size of the global address regions that wave programs lay their operands out in (a
 * GEMM's A, B and C one region apart, its scales and assembly's synthetic accesses in the
 * fourth): 2^37 bytes with lines of 128 bytes or more, halved for each halving of the line,
 * so that the four stay inside the lines the simulated caches tell apart (2^32 - 1 of them,
 * sim/internal.h). */
int64_t fsim_arch_global_region(const fsim_arch *a);
/* How many entries share the ISA mnemonic inst (variants differ by operand types: f8f6f4's
 * .fp8 and .fp4), their names comma-separated in names. */
int fsim_arch_mfma_variants(const fsim_arch *a, const char *inst, char *names, size_t n);
const fsim_mfma_entry *fsim_arch_find_mfma_shape(const fsim_arch *a, int m, int n, int k,
                                                 fsim_dtype at, fsim_dtype bt);

/* Key-by-key access for show and diff: the loader table, exposed read-only. */
typedef fsim_ini_key fsim_arch_key;
const fsim_ini_spec *fsim_arch_spec(void);
const fsim_arch_key *fsim_arch_keys(int *n);
/* Room for any formatted value: the longest, a lane-phase list of 64 lanes, takes under 400
 * characters (a 128-byte buffer once cut such lists, and parts that differ compared equal). */
#define FSIM_ARCH_VALUE_MAX 1024
/* Formats one key's value of a (entry may be NULL except for section "mfma"). */
void fsim_arch_format_value(const fsim_arch *a, const fsim_mfma_entry *entry,
                            const fsim_arch_key *k, char *buf, size_t n);
/* Calls f once for each value that differs between parts a and b, in the loader table's
 * order: the scalar keys (mfma NULL), then a's MFMA entries (by name) with the keys that differ
 * from b's entry of that name, or, when b lacks it, once with key NULL and vb NULL; then b's
 * entries that a lacks (key NULL, va NULL).  Values are formatted as the loader formats them.
 * Stops at the first nonzero f returns and returns it; 0 when f never did. */
typedef int (*fsim_arch_diff_fn)(void *ctx, const char *section, const char *mfma, const char *key, const char *va,
                                 const char *vb);
int fsim_arch_each_difference(const fsim_arch *a, const fsim_arch *b, fsim_arch_diff_fn f, void *ctx);
/* A key's value as a double, for numeric keys. */
double fsim_arch_numeric_value(const fsim_arch *a, const fsim_mfma_entry *entry,
                               const fsim_arch_key *k);

/* The lane phases for an LDS access of width_bytes per lane (4, 8 or 16; 12 uses 16). */
const fsim_lane_phases *fsim_arch_lds_phases(const fsim_arch *a, int width_bytes);

/* Cycles the matrix pipe is busy for one instruction. */
static inline int fsim_mfma_cycles(const fsim_arch *a, const fsim_mfma_entry *m) {
  return m->passes * a->issue.mfma_pass_cycles;
}

#endif
