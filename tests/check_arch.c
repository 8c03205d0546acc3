/* Tests of model/arch: every part loads, derived peaks match the datasheets within 1%,
 * aliases resolve, overrides work and are checked, and every loader error path gives its
 * message with file, line, section and key.  Error cases are made by editing one line of
 * the real MI355X file, so they stay in step with it. */
#include "config.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "model/arch.h"
#include "tests/testutil.h"

static double peak(const fsim_arch *a, const char *cls) {
  fsim_arch_derived d;
  fsim_arch_derive(a, &d);
  int i = fsim_arch_peak_class_index(cls);
  ck_assert_int_ge(i, 0);
  return d.peak_tflops[i];
}

static void load_ok(fsim_arch *a, const char *name) {
  fsim_err e;
  fsim_err_clear(&e);
  fsim_status st = fsim_arch_load(a, name, &e);
  ck_assert_msg(st == FSIM_OK, "loading %s: %s", name, e.msg);
}

#define ck_assert_within_1pct(x, want) \
  ck_assert_msg(fabs((x) - (want)) <= 0.01 * (want), "%s = %.2f, datasheet %.2f", #x, (double)(x), (double)(want))

START_TEST(test_datasheet_peaks) {
  fsim_arch a;
  load_ok(&a, "mi355x");
  ck_assert_within_1pct(peak(&a, "bf16"), 2516.6);
  ck_assert_within_1pct(peak(&a, "fp16"), 2516.6);
  ck_assert_within_1pct(peak(&a, "fp8"), 5033.2);
  ck_assert_within_1pct(peak(&a, "fp4"), 10066.3);
  ck_assert_within_1pct(peak(&a, "fp6"), 10066.3);
  ck_assert_within_1pct(peak(&a, "fp64"), 78.6);
  ck_assert_within_1pct(peak(&a, "fp32"), 157.3);
  ck_assert_within_1pct(peak(&a, "int8"), 5033.2);
  load_ok(&a, "mi350x");
  ck_assert_within_1pct(peak(&a, "bf16"), 2306.9);
  ck_assert_within_1pct(peak(&a, "fp4"), 9227.5);
  load_ok(&a, "mi300x");
  ck_assert_within_1pct(peak(&a, "bf16"), 1307.4);
  ck_assert_within_1pct(peak(&a, "fp8"), 2614.9);
  ck_assert_within_1pct(peak(&a, "fp64"), 163.4);
  ck_assert_within_1pct(peak(&a, "fp32"), 163.4);
  load_ok(&a, "rx9070xt");
  ck_assert_within_1pct(peak(&a, "fp16"), 194.6);
  ck_assert_within_1pct(peak(&a, "fp8"), 389.3);
  ck_assert_within_1pct(peak(&a, "fp32"), 48.7);
}
END_TEST

START_TEST(test_derived_bandwidth) {
  fsim_arch a;
  fsim_arch_derived d;
  load_ok(&a, "mi355x");
  fsim_arch_derive(&a, &d);
  ck_assert_within_1pct(d.lds_tbps, 157.3);  /* 256 B/clk x 256 CUs x 2.4 GHz */
  ck_assert_within_1pct(d.dram_tbps, 8.192); /* 8192 pins x 8 Gb/s */
  ck_assert_within_1pct(d.l2_tbps, 39.3);
  ck_assert_int_eq(d.max_waves_per_cu, 32);
  load_ok(&a, "mi300x");
  fsim_arch_derive(&a, &d);
  ck_assert_within_1pct(d.dram_tbps, 5.3);
  ck_assert_within_1pct(d.lds_tbps, 81.7);
  /* the datasheet's LDS bytes a clock are what the bank array delivers, in every shipped file
   * (the derived figure and the simulator use the banks) */
  static const char *const parts[] = {"mi355x", "mi350x", "mi300x", "rx9070xt"};
  for (int i = 0; i < 4; i++) {
    load_ok(&a, parts[i]);
    ck_assert_msg(a.lds.bytes_per_clk == a.lds.banks * a.lds.bank_bytes, "%s: bytes_per_clk %d, banks x bank_bytes %d",
                  parts[i], a.lds.bytes_per_clk, a.lds.banks * a.lds.bank_bytes);
    ck_assert_int_eq(a.lds.port_bytes_per_clk * (a.cu.simds / a.lds.simds_per_port), a.lds.bytes_per_clk);
  }
  /* and the ports, where they take less (16 bytes a port: a quarter, as the simulator measures) */
  load_ok(&a, "mi355x");
  fsim_err pe;
  ck_assert(fsim_arch_set(&a, "lds.port_bytes_per_clk=16", &pe) == FSIM_OK);
  fsim_arch_derive(&a, &d);
  ck_assert_within_1pct(d.lds_tbps, 157.3 / 4);
  /* a what-if of the banks moves the derived figure with the simulation */
  load_ok(&a, "mi355x");
  fsim_err e;
  ck_assert(fsim_arch_set(&a, "lds.banks=32", &e) == FSIM_OK);
  fsim_arch_derive(&a, &d);
  ck_assert_within_1pct(d.lds_tbps, 157.3 / 2);
  load_ok(&a, "rx9070xt");
  fsim_arch_derive(&a, &d);
  ck_assert_within_1pct(d.dram_tbps, 0.640);
}
END_TEST

START_TEST(test_aliases) {
  fsim_arch a;
  load_ok(&a, "gfx950");
  ck_assert_str_eq(a.device.name, "MI355X");
  load_ok(&a, "GFX942");
  ck_assert_str_eq(a.device.name, "MI300X");
  load_ok(&a, "gfx1201");
  ck_assert_str_eq(a.device.name, "RX 9070 XT");
  load_ok(&a, "MI350X");
  ck_assert_str_eq(a.device.gfx, "gfx950");
  load_ok(&a, tu_src_path("model/arch/mi300x.ini"));
  ck_assert_str_eq(a.device.gfx, "gfx942");
  fsim_err e;
  ck_assert_int_eq(fsim_arch_load(&a, "mi999", &e), FSIM_ENOENT);
  ck_assert_msg(strstr(e.msg, "'mi999': no such part (known: mi300x mi350x mi355x rx9070xt") != NULL, "%s",
                e.msg);
  ck_assert_int_eq(fsim_arch_load(&a, "/nonexistent/x.ini", &e), FSIM_ENOENT);
  ck_assert_msg(strstr(e.msg, "/nonexistent/x.ini: cannot open") != NULL, "%s", e.msg);
  /* a copy of a part under another file name makes its aliases ambiguous: an error, not the
   * first file's part */
  char *text = tu_read_file(tu_src_path("model/arch/mi355x.ini"));
  const char *tmp = getenv("TMPDIR");
  char dir[300], ini[400];
  snprintf(dir, sizeof dir, "%s/flysim-test-aliasXXXXXX", tmp && *tmp ? tmp : "/tmp");
  ck_assert_ptr_nonnull(mkdtemp(dir));
  snprintf(ini, sizeof ini, "%s/a_copy.ini", dir);
  FILE *f = fopen(ini, "w");
  fputs(text, f);
  fclose(f);
  free(text);
  char *was = getenv("FLYSIM_ARCH_PATH") ? strdup(getenv("FLYSIM_ARCH_PATH")) : NULL;
  setenv("FLYSIM_ARCH_PATH", dir, 1);
  fsim_status st = fsim_arch_load(&a, "gfx950", &e);
  if (was) setenv("FLYSIM_ARCH_PATH", was, 1);
  else unsetenv("FLYSIM_ARCH_PATH");
  free(was);
  unlink(ini);
  rmdir(dir);
  ck_assert_int_eq(st, FSIM_EINVAL);
  ck_assert_msg(strstr(e.msg, "'gfx950': both ") && strstr(e.msg, "a_copy.ini and ") &&
                    strstr(e.msg, "mi355x.ini list it among their aliases; name the part by its file"),
                "%s", e.msg);
}
END_TEST

/* A folder of user part files under $TMPDIR, put first on $FLYSIM_ARCH_PATH while a test
 * runs; user_dir_done puts the variable back and removes the files. */
typedef struct user_dir {
  char path[300];
  char files[4][64];
  int nfiles;
  char *was;
} user_dir;

static void user_dir_open(user_dir *u) {
  const char *tmp = getenv("TMPDIR");
  snprintf(u->path, sizeof u->path, "%s/flysim-test-userXXXXXX", tmp && *tmp ? tmp : "/tmp");
  ck_assert_ptr_nonnull(mkdtemp(u->path));
  u->nfiles = 0;
  u->was = getenv("FLYSIM_ARCH_PATH") ? strdup(getenv("FLYSIM_ARCH_PATH")) : NULL;
  setenv("FLYSIM_ARCH_PATH", u->path, 1);
}

/* The MI355X file as dir/file, its aliases line replaced by "aliases = <aliases>". */
static void user_dir_add(user_dir *u, const char *file, const char *aliases) {
  char *text = tu_read_file(tu_src_path("model/arch/mi355x.ini"));
  char line[128];
  snprintf(line, sizeof line, "aliases = %s\n", aliases);
  char *mut = tu_replace(text, "aliases = gfx950\n", line);
  ck_assert_ptr_nonnull(mut);
  char path[400];
  snprintf(path, sizeof path, "%s/%s", u->path, file);
  FILE *f = fopen(path, "w");
  ck_assert_ptr_nonnull(f);
  fputs(mut, f);
  fclose(f);
  free(text);
  free(mut);
  snprintf(u->files[u->nfiles++], sizeof u->files[0], "%s", file);
}

static void user_dir_done(user_dir *u) {
  if (u->was) setenv("FLYSIM_ARCH_PATH", u->was, 1);
  else unsetenv("FLYSIM_ARCH_PATH");
  free(u->was);
  for (int i = 0; i < u->nfiles; i++) {
    char path[400];
    snprintf(path, sizeof path, "%s/%s", u->path, u->files[i]);
    unlink(path);
  }
  rmdir(u->path);
}

/* A user's part file with capitals in its name or aliases is found by either in any case
 * (the name was lower-cased and then compared case-sensitively: 'arch list' showed MyPart,
 * 'arch show MyPart' said no such part); two files whose names differ only by case are
 * ambiguous. */
START_TEST(test_user_part_names) {
  user_dir u;
  user_dir_open(&u);
  user_dir_add(&u, "MyPart.ini", "MyAlias");
  fsim_arch a;
  fsim_err e;
  static const char *const names[] = {"MyPart", "mypart", "MYPART", "MyAlias", "myalias", "MYALIAS"};
  fsim_status st[6];
  char file[6][sizeof a.file];
  for (int i = 0; i < 6; i++) {
    st[i] = fsim_arch_load(&a, names[i], &e);
    snprintf(file[i], sizeof file[i], "%s", st[i] == FSIM_OK ? a.file : e.msg);
  }
  tu_run r = tu_flysim("arch show MyPart --json");
  user_dir_add(&u, "mypart.ini", "");
  fsim_status twice = fsim_arch_load(&a, "MYPART", &e);
  user_dir_done(&u);
  for (int i = 0; i < 6; i++) {
    ck_assert_msg(st[i] == FSIM_OK, "%s: %s", names[i], file[i]);
    ck_assert_msg(strstr(file[i], "/MyPart.ini") != NULL, "%s: %s", names[i], file[i]);
  }
  ck_assert_msg(r.status == 0, "%s", r.err);
  tu_run_free(&r);
  ck_assert_int_eq(twice, FSIM_EINVAL);
  ck_assert_msg(strstr(e.msg, "'MYPART': both ") && strstr(e.msg, "/MyPart.ini and ") &&
                    strstr(e.msg, "/mypart.ini are named so (file names differ only by case); name the part by its file"),
                "%s", e.msg);
}
END_TEST

/* Any number of folders on $FLYSIM_ARCH_PATH, of any total length: 16 folders dropped the
 * shipped ones (a fixed array of 16), and a variable of 4096 characters or more was ignored. */
START_TEST(test_search_path_any_length) {
  user_dir u;
  user_dir_open(&u);
  user_dir_add(&u, "MyPart.ini", "MyAlias");
  /* 300 folders that do not exist (5100 characters), then the user's */
  size_t cap = 300 * 17 + sizeof u.path + 8;
  char *many = malloc(cap);
  size_t used = 0;
  for (int i = 0; i < 300; i++) used += (size_t)snprintf(many + used, cap - used, "/nonexistent/%03d:", i);
  snprintf(many + used, cap - used, "%s", u.path);
  setenv("FLYSIM_ARCH_PATH", many, 1);
  int nd;
  const char **dirs = fsim_arch_search_dirs(&nd);
  fsim_arch a, b;
  fsim_err e;
  fsim_status st_shipped = fsim_arch_load(&a, "mi300x", &e), st_user = fsim_arch_load(&b, "myalias", &e);
  user_dir_done(&u);
  ck_assert_uint_gt(strlen(many), 4096);
  ck_assert_ptr_nonnull(dirs);
  ck_assert_int_eq(nd, 303);
  ck_assert_str_eq(dirs[0], "/nonexistent/000");
  ck_assert_str_eq(dirs[300], u.path);
  free(dirs);
  free(many);
  ck_assert_int_eq(st_shipped, FSIM_OK);
  ck_assert_str_eq(a.device.name, "MI300X");
  ck_assert_int_eq(st_user, FSIM_OK);
  ck_assert_msg(strstr(b.file, "/MyPart.ini") != NULL, "%s", b.file);
}
END_TEST

START_TEST(test_overrides) {
  fsim_arch a;
  fsim_err e;
  load_ok(&a, "mi355x");
  double bf16 = peak(&a, "bf16");
  ck_assert_int_eq(fsim_arch_set(&a, "device.clock_ghz=4.8", &e), FSIM_OK);
  ck_assert_double_eq_tol(peak(&a, "bf16"), bf16 * 2, 1e-6);
  /* a value is read without the blanks around it, as in a file, and recorded so */
  fsim_arch blank;
  load_ok(&blank, "mi355x");
  ck_assert_int_eq(fsim_arch_set(&blank, "device.clock_ghz= 4.8 ", &e), FSIM_OK);
  ck_assert_int_eq(fsim_arch_set(&blank, "device.cus=\t128", &e), FSIM_OK);
  ck_assert_double_eq_tol(blank.device.clock_ghz, 4.8, 1e-12);
  ck_assert_int_eq(blank.device.cus, 128);
  ck_assert_str_eq(blank.overrides, "device.clock_ghz=4.8 device.cus=128");
  /* each override's end is recorded, for a value with blanks in it; a record that would
   * overflow is refused (it was cut short, and split at the blanks, in --json's list) */
  ck_assert_int_eq(fsim_arch_set(&blank, "device.name=RX 9070 XT", &e), FSIM_OK);
  ck_assert_int_eq(blank.noverrides, 3);
  ck_assert_int_eq(blank.overrides_end[1], (int)strlen("device.clock_ghz=4.8 device.cus=128"));
  ck_assert_int_eq(blank.overrides_end[2], (int)strlen(blank.overrides));
  int refused = 0;
  for (int i = 0; i < 40 && !refused; i++)
    refused = fsim_arch_set(&blank, "device.name=ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefgh", &e) != FSIM_OK;
  ck_assert(refused);
  ck_assert_str_eq(e.msg, "--set device.name=ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefgh: the record of overrides holds at most "
                          "1023 characters and 64 overrides");
  ck_assert_int_eq(fsim_arch_set(&a, "mfma.v_mfma_f32_16x16x32_bf16.passes=2", &e), FSIM_OK);
  ck_assert_double_eq_tol(peak(&a, "bf16"), bf16 * 4, 1e-6);
  ck_assert_int_eq(fsim_arch_set(&a, "lds.banks=32", &e), FSIM_OK);
  ck_assert_int_eq(a.lds.banks, 32);
  ck_assert_str_eq(a.overrides,
                   "device.clock_ghz=4.8 mfma.v_mfma_f32_16x16x32_bf16.passes=2 lds.banks=32");
  /* --set overrides are checked together: raising an MFMA's passes above its latency is
   * refused alone, accepted with the latency raised too, in either order */
  fsim_arch s1;
  load_ok(&s1, "mi355x");
  const char *passes_first[] = {"mfma.v_mfma_f32_16x16x32_bf16.passes=16", "mfma.v_mfma_f32_16x16x32_bf16.latency=80"};
  ck_assert_int_eq(fsim_arch_set_all(&s1, passes_first, 1, &e), FSIM_EINVAL);
  load_ok(&s1, "mi355x");
  ck_assert_int_eq(fsim_arch_set_all(&s1, passes_first, 2, &e), FSIM_OK);
  ck_assert_int_eq(s1.mfma[fsim_arch_find_mfma(&s1, "v_mfma_f32_16x16x32_bf16") - s1.mfma].latency, 80);
  /* the VGPRs a wave may name, in the allocation granules occupancy counts: 256 in granules
   * of 24 take 264, more than a 260-register file */
  load_ok(&s1, "mi355x");
  const char *granules[] = {"cu.vgpr_granule=24", "cu.vgprs_per_lane=260"};
  ck_assert_int_eq(fsim_arch_set_all(&s1, granules, 2, &e), FSIM_EINVAL);
  ck_assert_str_eq(e.msg, "--set cu.vgpr_granule=24 cu.vgprs_per_lane=260: [cu] max_vgprs: 256 rounds up to 264 in "
                          "granules of vgpr_granule 24, more than the register file (vgprs_per_lane 260)");
  /* the largest of the caches is named: here the CUs' L1s */
  load_ok(&s1, "mi355x");
  const char *big_l1[] = {"device.cus=4096", "memory.l1_bytes=67108864"};
  ck_assert_int_eq(fsim_arch_set_all(&s1, big_l1, 2, &e), FSIM_EINVAL);
  ck_assert_str_eq(e.msg, "--set memory.l1_bytes=67108864: [memory] l1_bytes: the caches would hold 2149842944 lines "
                          "(4096 CUs' L1s, 8 L2s and the MALL, in 128-byte lines), more than the 536870912 the "
                          "simulator keeps tags for");
  /* the part's identity: its values that differ from the shipped part's, in the loader's order,
   * however they were given */
  char name[256], changes[900];
  fsim_arch_identity(&a, name, sizeof name, changes, sizeof changes);
  ck_assert_str_eq(name, "mi355x");
  ck_assert_str_eq(changes, "device.clock_ghz=4.8 lds.banks=32 mfma.v_mfma_f32_16x16x32_bf16.passes=2");
  fsim_arch b;
  load_ok(&b, "gfx950");
  fsim_arch_identity(&b, name, sizeof name, changes, sizeof changes);
  ck_assert_str_eq(changes, "");
  ck_assert_int_eq(fsim_arch_set(&b, "device.sustained_clock_ghz=1.20", &e), FSIM_OK);
  fsim_arch c;
  load_ok(&c, "mi355x");
  ck_assert_int_eq(fsim_arch_set(&c, "device.sustained_clock_ghz=1.2", &e), FSIM_OK);
  char changes_c[900];
  fsim_arch_identity(&b, name, sizeof name, changes, sizeof changes);
  fsim_arch_identity(&c, name, sizeof name, changes_c, sizeof changes_c);
  ck_assert_str_eq(changes, changes_c);
  /* an edited mi355x.ini earlier in $FLYSIM_ARCH_PATH is compared with the shipped one, not
   * with itself */
  char *text = tu_read_file(tu_src_path("model/arch/mi355x.ini"));
  char *at = strstr(text, "\nbanks = 64");
  ck_assert_ptr_nonnull(at);
  memcpy(at, "\nbanks = 32", 11);
  const char *tmp = getenv("TMPDIR");
  char dir[300];
  snprintf(dir, sizeof dir, "%s/flysim-test-archXXXXXX", tmp && *tmp ? tmp : "/tmp");
  ck_assert_ptr_nonnull(mkdtemp(dir));
  char ini[400];
  snprintf(ini, sizeof ini, "%s/mi355x.ini", dir);
  FILE *f = fopen(ini, "w");
  fputs(text, f);
  fclose(f);
  free(text);
  setenv("FLYSIM_ARCH_PATH", dir, 1);
  fsim_arch shadow;
  load_ok(&shadow, "mi355x");
  unsetenv("FLYSIM_ARCH_PATH");
  unlink(ini);
  rmdir(dir);
  ck_assert_int_eq(shadow.lds.banks, 32);
  fsim_arch_identity(&shadow, name, sizeof name, changes, sizeof changes);
  ck_assert_str_eq(name, "mi355x");
  ck_assert_str_eq(changes, "lds.banks=32");
  /* a part no shipped file names: a fingerprint of its values, changing with any of them */
  snprintf(c.file, sizeof c.file, "/somewhere/custom.ini");
  fsim_arch_identity(&c, name, sizeof name, changes, sizeof changes);
  ck_assert_str_eq(name, "custom");
  ck_assert_int_eq(changes[0], '#');
  ck_assert_int_eq(fsim_arch_set(&c, "lds.banks=32", &e), FSIM_OK);
  fsim_arch_identity(&c, name, sizeof name, changes_c, sizeof changes_c);
  ck_assert_str_ne(changes, changes_c);
  /* lane-phase lists that differ only past their 127th character (a 128-byte buffer once cut
   * them: both parts had one fingerprint, one database key, and arch diff saw no difference) */
  {
    static const char even[] = "0 2 4 6 8 10 12 14 16 18 20 22 24 26 28 30 32 34 36 38 40 42 44 46 48 50 52 54 56 58 60 62";
    static const char odd[] = "1 3 5 7 9 11 13 15 17 19 21 23 25 27 29 31 33 35 37 39 41 43 45 47 49 51 53 55 57 59 61";
    char two[400], three[400], c2[900], c3[900];
    snprintf(two, sizeof two, "lds.phases_b32=%s / %s 63", even, odd);
    snprintf(three, sizeof three, "lds.phases_b32=%s / %s / 63", even, odd);
    fsim_arch p2 = c, p3 = c;
    ck_assert_int_eq(fsim_arch_set(&p2, two, &e), FSIM_OK);
    ck_assert_int_eq(fsim_arch_set(&p3, three, &e), FSIM_OK);
    ck_assert(fsim_arch_fingerprint(&p2) != fsim_arch_fingerprint(&p3));
    fsim_arch_identity(&p2, name, sizeof name, c2, sizeof c2);
    fsim_arch_identity(&p3, name, sizeof name, c3, sizeof c3);
    ck_assert_str_ne(c2, c3);
    char v[FSIM_ARCH_VALUE_MAX];
    int nk;
    const fsim_arch_key *keys = fsim_arch_keys(&nk);
    for (int i = 0; i < nk; i++)
      if (strcmp(keys[i].key, "phases_b32") == 0) fsim_arch_format_value(&p3, NULL, &keys[i], v, sizeof v);
    ck_assert_str_eq(v, three + strlen("lds.phases_b32="));
  }

  static const struct {
    const char *set, *msg;
  } bad[] = {
      {"lds.banks=x", "--set lds.banks=x: [lds] banks: 'x' is not an integer"},
      {"lds.banks=+64", "--set lds.banks=+64: [lds] banks: '+64' is not an integer"}, /* digits alone */
      {"lds.banks=0", "--set lds.banks=0: [lds] banks: 0 is out of range [1, 1024]"},
      {"lds.banks=48", "--set lds.banks=48: [lds] banks: 48 is not a power of two"},
      /* a bound of 15 digits or more came out as 1e+15, which the integer parser refuses */
      {"memory.dram_bytes=1000000000000001",
       "--set memory.dram_bytes=1000000000000001: [memory] dram_bytes: 1000000000000001 is out of range [1, "
       "1000000000000000]"},
      {"lds.bogus=1", "--set lds.bogus=1: [lds] bogus: unknown key"},
      {"nosuch.key=1", "--set nosuch.key=1: [nosuch]: unknown section"},
      {"banks=1", "--set banks=1: expected SECTION.KEY=VALUE"},
      {"lds.banks", "--set lds.banks: expected SECTION.KEY=VALUE"},
      {"device.sustained_clock_ghz=9",
       "--set device.sustained_clock_ghz=9: [device] sustained_clock_ghz: 9 GHz is above the peak clock_ghz 4.8"},
      {"memory.l1_latency=300",
       "--set memory.l1_latency=300: [memory] l2_latency: 224 cycles is shorter than l1_latency 300 (a request "
       "reaches L2 through L1)"},
      {"memory.dram_latency=400",
       "--set memory.dram_latency=400: [memory] dram_latency: 400 cycles is shorter than mall_latency 458 (a request "
       "reaches DRAM through the MALL)"},
      {"memory.l1_line=64",
       "--set memory.l1_line=64: [memory] l1_line: 64 differs from l2_line 128 (the simulator keeps one line size for "
       "L1 and L2)"},
      {"memory.l2_line=256",
       "--set memory.l2_line=256: [memory] l1_line: 128 differs from l2_line 256 (the simulator keeps one line size "
       "for L1 and L2)"},
      /* parts that cannot hold their own limits: each passed and then failed every simulation
       * (a workgroup that fits no CU, tags past the simulator's 4 GiB) */
      {"cu.sgprs_per_simd=16",
       "--set cu.sgprs_per_simd=16: [cu] max_sgprs: 102 exceeds the register file (sgprs_per_simd 16)"},
      {"cu.sgprs_per_simd=110",
       "--set cu.sgprs_per_simd=110: [cu] max_sgprs: 102 rounds up to 112 in granules of sgpr_granule 16, more than "
       "the register file (sgprs_per_simd 110)"},
      {"cu.vgprs_per_lane=252",
       "--set cu.vgprs_per_lane=252: [cu] max_vgprs: 256 exceeds the register file (vgprs_per_lane 252)"},
      {"cu.waves_per_simd=1",
       "--set cu.waves_per_simd=1: [cu] waves_per_simd: 1 on each of 4 SIMDs holds 4 waves, fewer than the 16 of a "
       "workgroup of max_workgroup_size 1024 (a workgroup runs on one CU)"},
      {"lds.alloc_granule=1048576",
       "--set lds.alloc_granule=1048576: [lds] alloc_granule: 1048576 exceeds max_bytes_per_wg 163840 (a workgroup's "
       "LDS is allocated in whole granules)"},
      {"memory.mall_bytes=1000000000000",
       "--set memory.mall_bytes=1000000000000: [memory] mall_bytes: the caches would hold 7812827680 lines (256 CUs' "
       "L1s, 8 L2s and the MALL, in 128-byte lines), more than the 536870912 the simulator keeps tags for"},
      {"mfma.v_nope.passes=1", "--set mfma.v_nope.passes=1: [mfma.v_nope]: no such section"},
      {"mfma.v_mfma_f32_16x16x32_bf16.a_type=f99",
       "--set mfma.v_mfma_f32_16x16x32_bf16.a_type=f99: [mfma.v_mfma_f32_16x16x32_bf16] a_type: 'f99' is not a data type"},
      {"mfma.v_mfma_scale_f32_16x16x128_f8f6f4.fp8.a_type=bf16",
       "--set mfma.v_mfma_scale_f32_16x16x128_f8f6f4.fp8.a_type=bf16: [mfma.v_mfma_scale_f32_16x16x128_f8f6f4.fp8] "
       "a_type: bf16: v_mfma_scale_f32_16x16x128_f8f6f4 takes fp8, bf8, fp6, bf6 or fp4 operands"},
      {"mfma.v_mfma_f32_16x16x32_bf16.k=1",
       "--set mfma.v_mfma_f32_16x16x32_bf16.k=1: [mfma.v_mfma_f32_16x16x32_bf16] k: 1 disagrees with the instruction "
       "v_mfma_f32_16x16x32_bf16, whose shape is 16x16x32"},
      {"dispatch.policy=random", "--set dispatch.policy=random: [dispatch] policy: 'random' is not one of round-robin|blocked"},
      /* the value as given: %g printed "10 is out of range [0.1, 10]" */
      {"device.clock_ghz=10.0000000001",
       "--set device.clock_ghz=10.0000000001: [device] clock_ghz: 10.0000000001 is out of range [0.1, 10]"},
      {"device.sustained_clock_ghz=4.8000000001",
       "--set device.sustained_clock_ghz=4.8000000001: [device] sustained_clock_ghz: 4.8000000001 GHz is above the "
       "peak clock_ghz 4.8"},
      {"device.clock_ghz=nan", "--set device.clock_ghz=nan: [device] clock_ghz: 'nan' is not a number"},
  };
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    fsim_arch before = a;
    fsim_err_clear(&e);
    ck_assert_int_eq(fsim_arch_set(&a, bad[i].set, &e), FSIM_EINVAL);
    ck_assert_msg(strncmp(e.msg, bad[i].msg, strlen(bad[i].msg)) == 0, "got '%s'\nwant '%s'", e.msg, bad[i].msg);
    ck_assert_msg(memcmp(&before, &a, sizeof a) == 0, "a failed --set %s changed the arch", bad[i].set);
  }
}
END_TEST

/* Loads the MI355X file with `old` replaced by `rep` and checks the error message. */
/* line_delta: the reported line relative to the mutated one, or NO_LINE when none is given. */
#define NO_LINE (-99)
static void expect_file_error(const char *old, const char *rep, const char *want_fmt, int line_delta) {
  char *text = tu_read_file(tu_src_path("model/arch/mi355x.ini"));
  ck_assert(text != NULL);
  int line = tu_line_of(text, old);
  ck_assert_msg(line > 0, "'%s' not in mi355x.ini", old);
  char *mut = tu_replace(text, old, rep);
  const char *path = tu_write_temp(mut, ".ini");
  char want[1024], tail[512];
  snprintf(tail, sizeof tail, want_fmt, line);
  if (line_delta != NO_LINE)
    snprintf(want, sizeof want, "%s:%d: %s", path, line + line_delta, tail);
  else
    snprintf(want, sizeof want, "%s: %s", path, tail);
  fsim_arch a;
  fsim_err e;
  fsim_err_clear(&e);
  fsim_status st = fsim_arch_load_file(&a, path, &e);
  ck_assert_msg(st != FSIM_OK, "mutation '%s' -> '%s' was accepted", old, rep);
  ck_assert_int_eq(fsim_status_exit_code(st), 2);
  ck_assert_msg(strncmp(e.msg, want, strlen(want)) == 0, "got  '%s'\nwant '%s'", e.msg, want);
  remove(path);
  free(text);
  free(mut);
}

START_TEST(test_loader_errors) {
  expect_file_error("[lds]\n", "[ldss]\n", "[ldss]: unknown section", 0);
  expect_file_error("[lds]\n", "[empty]\n[lds]\n", "[empty]: unknown section", 0); /* no keys in it */
  expect_file_error("[lds]\n", "[mfma.spare]\n[lds]\n", "[mfma.spare]: an empty section (no keys)", 0);
  expect_file_error("banks = 64", "bankz = 64", "[lds] bankz: unknown key", 0);
  expect_file_error("banks = 64", "banks = 6x4", "[lds] banks: '6x4' is not an integer", 0);
  expect_file_error("banks = 64", "banks = 0", "[lds] banks: 0 is out of range [1, 1024]", 0);
  expect_file_error("banks = 64", "banks = 96", "[lds] banks: 96 is not a power of two", 0);
  expect_file_error("clock_ghz = 2.4", "clock_ghz = fast", "[device] clock_ghz: 'fast' is not a number", 0);
  expect_file_error("clock_ghz = 2.4", "clock_ghz = 0x1p1", "[device] clock_ghz: '0x1p1' is not a number", 0);
  expect_file_error("clock_ghz = 2.4", "clock_ghz = 99", "[device] clock_ghz: 99 is out of range [0.1, 10]", 0);
  expect_file_error("clock_ghz = 2.4", "clock_ghz = 1e1000000000000000000",
                    "[device] clock_ghz: '1e1000000000000000000' is not a number", 0);
  expect_file_error("clock_ghz = 2.4", "clock_ghz = 0.0999999999999",
                    "[device] clock_ghz: 0.0999999999999 is out of range [0.1, 10]", 0);
  expect_file_error("isa = cdna4", "isa = cdna9", "[device] isa: 'cdna9' is not one of cdna3|cdna4|rdna4", 0);
  expect_file_error("a_type = bf16", "a_type = bf17", "[mfma.v_mfma_f32_16x16x32_bf16] a_type: 'bf17' is not a data type", 0);
  expect_file_error("passes = 4\nlatency = 32", "passes = 4\nlatency = 8",
                    "[mfma.v_mfma_f32_16x16x32_bf16] latency: 8 is shorter than its 16 pipe cycles", 1);
  /* two entries of one instruction and operand types: which one a lookup finds is ambiguous */
  expect_file_error("[mfma.v_mfma_f32_32x32x16_bf16]\ninst = v_mfma_f32_32x32x16_bf16\nm = 32\nn = 32\nk = 16\n",
                    "[mfma.v_mfma_f32_16x16x32_bf16.again]\ninst = v_mfma_f32_16x16x32_bf16\nm = 16\nn = 16\nk = 32\n",
                    "[mfma.v_mfma_f32_16x16x32_bf16.again] inst: v_mfma_f32_16x16x32_bf16 with these operand types is "
                    "also [mfma.v_mfma_f32_16x16x32_bf16]",
                    1);
  /* a row's instruction, types and scaling agree with its section's name and mnemonic (an
   * audit: a bf16 row given fp8 operand types doubled the derived fp8 peak, the kernel the same) */
  expect_file_error("inst = v_mfma_f32_32x32x16_bf16\n", "inst = v_mfma_f32_16x16x32_bf16\n",
                    "[mfma.v_mfma_f32_32x32x16_bf16] inst: v_mfma_f32_16x16x32_bf16 is not the instruction the section "
                    "names ([mfma.INST] or [mfma.INST.VARIANT])",
                    0);
  expect_file_error("inst = v_mfma_f32_32x32x16_bf16\nm = 32\nn = 32\nk = 16\na_type = bf16\nb_type = bf16\n",
                    "inst = v_mfma_f32_32x32x16_bf16\nm = 32\nn = 32\nk = 16\na_type = fp8\nb_type = fp8\n",
                    "[mfma.v_mfma_f32_32x32x16_bf16] a_type: fp8 disagrees with the instruction v_mfma_f32_32x32x16_bf16, "
                    "whose operands are bf16 x bf16",
                    4);
  expect_file_error("inst = v_mfma_f32_32x32x16_bf16\nm = 32\nn = 32\nk = 16\na_type = bf16\nb_type = bf16\n"
                    "c_type = f32\nscaled = 0\n",
                    "inst = v_mfma_f32_32x32x16_bf16\nm = 32\nn = 32\nk = 16\na_type = bf16\nb_type = bf16\n"
                    "c_type = f32\nscaled = 1\n",
                    "[mfma.v_mfma_f32_32x32x16_bf16] scaled: 1, but v_mfma_f32_32x32x16_bf16 is not a block-scaled "
                    "instruction",
                    7);
  /* the shape is the instruction's: another k changed the peak and nothing else */
  expect_file_error("inst = v_mfma_f32_32x32x16_bf16\nm = 32\nn = 32\nk = 16\n",
                    "inst = v_mfma_f32_32x32x16_bf16\nm = 32\nn = 32\nk = 8\n",
                    "[mfma.v_mfma_f32_32x32x16_bf16] k: 8 disagrees with the instruction v_mfma_f32_32x32x16_bf16, "
                    "whose shape is 32x32x16 (a what-if of another shape needs an instruction of that shape)",
                    3);
  expect_file_error("inst = v_mfma_f32_32x32x16_bf16\nm = 32\n", "inst = v_mfma_f32_32x32x16_bf16\nm = 16\n",
                    "[mfma.v_mfma_f32_32x32x16_bf16] m: 16 disagrees with the instruction v_mfma_f32_32x32x16_bf16, "
                    "whose shape is 32x32x16 (a what-if of another shape needs an instruction of that shape)",
                    1);
  expect_file_error("xcds = 8\n", "xcds = 8\nxcds = 4\n", "[device] xcds: given twice (first on line %d)", 1);
  /* a repeated section: inih would merge its keys into the first one's */
  expect_file_error("[lds]\n", "[lds]\n[lds]\n", "[lds]: section given twice (first on line %d)", 1);
  expect_file_error("simds = 4\n", "simds = 4\nthis is not ini\n", "syntax error: expected '[section]' or 'key = value'", 1);
  expect_file_error("[cu]\n", "[cu\n", "unclosed section header (no ']')", 0);
  expect_file_error("[cu]\n", "  [cu ; cus\n", "unclosed section header (no ']')", 0);
  /* inih would cut a name past 49 characters short, merging sections that differ after it */
  expect_file_error("[mfma.v_mfma_f32_16x16x32_bf16]",
                    "[mfma.v_mfma_f32_16x16x32_bf16_a_variant_with_a_longer_id]",
                    "section name longer than 49 characters", 0);
  expect_file_error("l2_ways = 16\n", "", "[memory] l2_ways: missing (L2 associativity)", NO_LINE);
  expect_file_error("[mfma.v_mfma_f32_16x16x32_bf16]\ninst = v_mfma_f32_16x16x32_bf16\n",
                    "[mfma.v_mfma_f32_16x16x32_bf16]\n", "[mfma.v_mfma_f32_16x16x32_bf16] inst: missing (ISA mnemonic)", 1);
  expect_file_error("[mfma.v_mfma_f32_16x16x32_bf16]", "[mfma.bad id!]",
                    "[mfma.bad id!]: an ID may hold letters, digits, '_' and '.'", 1);
  expect_file_error("sustained_clock_ghz = 1.65", "sustained_clock_ghz = 2.5",
                    "[device] sustained_clock_ghz: 2.5 GHz is above the peak clock_ghz 2.4", 0);
  expect_file_error("mall_latency = 458", "mall_latency = 200",
                    "[memory] mall_latency: 200 cycles is shorter than l2_latency 224 (a request reaches the MALL "
                    "through L2)", 0);
  /* one line size for L1 and L2: the coalescer's L2 lines filled a 64-byte-line L1, which then
   * held and served twice its bytes (98 TB/s of L1 bandwidth against a 54 TB/s peak) */
  expect_file_error("l1_line = 128", "l1_line = 64",
                    "[memory] l1_line: 64 differs from l2_line 128 (the simulator keeps one line size for L1 and L2)", 0);
  expect_file_error("l1_ways = 16", "l1_ways = 3",
                    "[memory] l1_ways: l1_bytes 32768 is not a whole number of sets of 3 lines of 128 bytes", 0);
  expect_file_error("name = MI355X",
                    "name = MI355X_with_a_very_long_name_that_goes_on_and_on_past_sixty_four_characters",
                    "[device] name: longer than 63 characters", 0);
}
END_TEST

START_TEST(test_loader_errors_by_position) {
  /* Mutations where the reported line is not the mutated one. */
  fsim_arch a;
  fsim_err e;
  const char *path = tu_write_temp("", ".ini");
  ck_assert_int_eq(fsim_arch_load_file(&a, path, &e), FSIM_EINVAL);
  char want[512];
  snprintf(want, sizeof want, "%s: [device] name: missing", path);
  ck_assert_msg(strncmp(e.msg, want, strlen(want)) == 0, "%s", e.msg);

  path = tu_write_temp("cus = 4\n[device]\n", ".ini");
  ck_assert_int_eq(fsim_arch_load_file(&a, path, &e), FSIM_EINVAL);
  snprintf(want, sizeof want, "%s:1: [] cus: key outside any section", path);
  ck_assert_msg(strcmp(e.msg, want) == 0, "%s", e.msg);

  char longline[400];
  memset(longline, 'x', sizeof longline);
  memcpy(longline, "[device]\nname = ", 16);
  longline[sizeof longline - 2] = '\n';
  longline[sizeof longline - 1] = '\0';
  path = tu_write_temp(longline, ".ini");
  ck_assert_int_eq(fsim_arch_load_file(&a, path, &e), FSIM_EINVAL);
  snprintf(want, sizeof want, "%s:2: line too long", path);
  ck_assert_msg(strncmp(e.msg, want, strlen(want)) == 0, "%s", e.msg);

  /* NUL bytes: the file is not text (fgets would have cut the line short, read as a missing
   * name or a line too long) */
  path = tu_write_temp("", ".ini");
  FILE *f = fopen(path, "wb");
  ck_assert(f != NULL);
  ck_assert_int_eq(fwrite("[device]\nna\0me = MI355X\n", 1, 24, f), 24);
  fclose(f);
  ck_assert_int_eq(fsim_arch_load_file(&a, path, &e), FSIM_EINVAL);
  snprintf(want, sizeof want, "%s: not a text file", path);
  ck_assert_str_eq(e.msg, want);
  remove(path);
  const char *dir = tu_src_path("model/arch");
  ck_assert_int_eq(fsim_arch_load_file(&a, dir, &e), FSIM_EINVAL);
  snprintf(want, sizeof want, "%s: is a directory", dir);
  ck_assert_str_eq(e.msg, want);
}
END_TEST

/* A directory where a command wants an input file: one line, exit 2, nothing on stdout. */
START_TEST(test_cli_directory_inputs) {
  const char *dir = tu_src_path("traces");
  static const struct {
    const char *cmd, *fmt;
  } c[] = {
      {"sim", "sim '%s' --arch mi355x"},
      {"sim", "sim '%s' --arch mi355x --json"},
      {"arch", "arch show '%s'"},
      {"schedule", "schedule check '%s' --arch mi355x"},
      {"verify", "verify '%s' --arch mi355x"},
      {"predict", "predict gemm --schedule '%s' --arch mi355x --db /nonexistent"},
  };
  for (size_t i = 0; i < sizeof c / sizeof c[0]; i++) {
    char args[1200], want[1200];
    snprintf(args, sizeof args, c[i].fmt, dir);
    snprintf(want, sizeof want, "flysim %s: %s: is a directory\n", c[i].cmd, dir);
    tu_run r = tu_flysim(args);
    ck_assert_msg(r.status == 2, "%s: status %d", args, r.status);
    ck_assert_str_eq(r.err, want);
    ck_assert_str_eq(r.out, "");
    tu_run_free(&r);
  }
}
END_TEST

/* A file that can be read once (a FIFO, a pipe from `<(...)`) with an error found after its
 * load: the line comes from the text read, not from reading the file again, which blocked on
 * a FIFO (an audit found `arch show` and `schedule check` hung there). */
START_TEST(test_cli_fifo_inputs) {
  char *text = tu_read_file(tu_src_path("model/arch/mi355x.ini"));
  ck_assert(text != NULL);
  /* the first MFMA's latency */
  char *mut = tu_replace(text, "passes = 4\nlatency = 32", "passes = 4\nlatency = 1");
  const char *bad_arch = tu_write_temp(mut, ".ini");
  char *sched = tu_read_file(tu_src_path("kernels/schedules/flydsl_bf16_gemm_gfx950.sched"));
  ck_assert(sched != NULL);
  char *smut = tu_replace(sched, "bm = 256", "bm = 96");
  const char *bad_sched = tu_write_temp(smut, ".sched");
  char fifo[1100];
  snprintf(fifo, sizeof fifo, "%s.fifo", bad_arch);
  ck_assert_int_eq(mkfifo(fifo, 0600), 0);
  static const struct {
    int arch;
    const char *fmt, *cmd;
  } c[] = {
      {1, "arch show '%s'", "arch"},
      {0, "schedule check '%s' --arch mi355x", "schedule"},
      /* a gfx name loads every part file looking for the alias (a ring of the last files read
       * lost the schedule's text then) */
      {0, "schedule check '%s' --arch gfx950", "schedule"},
      {0, "predict --schedule '%s' --arch mi355x --db /nonexistent", "predict"},
  };
  for (size_t i = 0; i < sizeof c / sizeof c[0]; i++) {
    const char *src = c[i].arch ? bad_arch : bad_sched;
    char prefix[2400], args[1200], want[1400];
    /* the message, line included, is the regular file's */
    snprintf(args, sizeof args, c[i].fmt, src);
    tu_run r = tu_flysim(args);
    ck_assert_int_eq(r.status, 2);
    const char *rest = strstr(r.err, src);
    ck_assert_msg(rest != NULL && rest[strlen(src)] == ':' && rest[strlen(src) + 1] != ' ', "%s: %s", args, r.err);
    snprintf(want, sizeof want, "flysim %s: %s%s", c[i].cmd, fifo, rest + strlen(src));
    tu_run_free(&r);
    snprintf(prefix, sizeof prefix, "(cat '%s' > '%s' &); timeout 30", src, fifo);
    snprintf(args, sizeof args, c[i].fmt, fifo);
    r = tu_flysim_via(prefix, args);
    ck_assert_msg(r.status == 2, "%s: status %d (124: it hung)", args, r.status);
    ck_assert_str_eq(r.err, want);
    tu_run_free(&r);
  }
  unlink(fifo);
  free(text);
  free(mut);
  free(sched);
  free(smut);
}
END_TEST

START_TEST(test_every_key_required) {
  /* Dropping any one top-level key line of the real file must be an error naming that key. */
  char *text = tu_read_file(tu_src_path("model/arch/mi355x.ini"));
  int nk;
  const fsim_arch_key *keys = fsim_arch_keys(&nk);
  for (int i = 0; i < nk; i++) {
    if (strcmp(keys[i].section, "mfma") == 0 || keys[i].optional) continue;
    char needle[96];
    snprintf(needle, sizeof needle, "\n%s = ", keys[i].key);
    const char *at = strstr(text, needle);
    ck_assert_msg(at != NULL, "key %s not in mi355x.ini", keys[i].key);
    const char *eol = strchr(at + 1, '\n');
    char *mut = malloc(strlen(text) + 1);
    size_t pre = (size_t)(at - text);
    memcpy(mut, text, pre);
    strcpy(mut + pre, eol);
    const char *path = tu_write_temp(mut, ".ini");
    fsim_arch a;
    fsim_err e;
    ck_assert_int_eq(fsim_arch_load_file(&a, path, &e), FSIM_EINVAL);
    char want[256];
    snprintf(want, sizeof want, "[%s] %s: missing", keys[i].section, keys[i].key);
    ck_assert_msg(strstr(e.msg, want) != NULL, "dropping %s gave '%s'", keys[i].key, e.msg);
    remove(path);
    free(mut);
  }
  free(text);
}
END_TEST

START_TEST(test_cli_arch) {
  tu_run r = tu_flysim("arch show gfx950 --json");
  ck_assert_int_eq(r.status, 0);
  json_t *j = tu_json(&r);
  ck_assert_str_eq(json_string_value(json_object_get(j, "name")), "MI355X");
  ck_assert_str_eq(json_string_value(json_object_get(j, "gfx")), "gfx950");
  ck_assert_int_eq(json_integer_value(json_object_get(j, "cus")), 256);
  ck_assert_int_eq(json_integer_value(json_object_get(j, "xcds")), 8);
  ck_assert_int_eq(json_integer_value(json_object_get(j, "lds_bytes_per_cu")), 163840);
  ck_assert_int_eq(json_integer_value(json_object_get(j, "lds_banks")), 64);
  ck_assert(json_real_value(json_object_get(j, "clock_ghz")) == 2.4);
  ck_assert(json_is_real(json_object_get(j, "sustained_clock_ghz")));
  ck_assert(json_real_value(json_object_get(j, "hbm_tbps")) > 8.0);
  json_t *p = json_object_get(j, "peak_tflops");
  const char *want[] = {"fp64", "fp32", "fp16", "bf16", "fp8", "fp6", "fp4", "int8"};
  for (size_t i = 0; i < sizeof want / sizeof want[0]; i++)
    ck_assert_msg(json_is_real(json_object_get(p, want[i])), "peak_tflops.%s missing", want[i]);
  ck_assert_within_1pct(json_real_value(json_object_get(p, "bf16")), 2516.6);
  json_decref(j);
  tu_run_free(&r);

  r = tu_flysim("arch show mi355x --set lds.banks=32 --json");
  ck_assert_int_eq(r.status, 0);
  j = tu_json(&r);
  ck_assert_int_eq(json_integer_value(json_object_get(j, "lds_banks")), 32);
  json_decref(j);
  tu_run_free(&r);

  r = tu_flysim("arch show mi355x --set lds.banks=33");
  ck_assert_int_eq(r.status, 2);
  ck_assert_str_eq(r.out, "");
  ck_assert_msg(strstr(r.err, "--set lds.banks=33: [lds] banks: 33 is not a power of two") != NULL, "%s", r.err);
  tu_run_free(&r);

  r = tu_flysim("arch show nosuch");
  ck_assert_int_eq(r.status, 2);
  ck_assert_msg(strstr(r.err, "flysim arch: NAME: 'nosuch': no such part") != NULL, "%s", r.err);
  tu_run_free(&r);

  /* an endless file: refused at 256 MiB (it was read until memory ran out) */
  r = tu_flysim("arch show /dev/zero");
  ck_assert_int_eq(r.status, 2);
  ck_assert_str_eq(r.out, "");
  ck_assert_str_eq(r.err, "flysim arch: /dev/zero: larger than 256 MiB, more than any file flysim reads\n");
  tu_run_free(&r);

  r = tu_flysim("arch show mi355x --bogus");
  ck_assert_int_eq(r.status, 2);
  ck_assert_msg(strstr(r.err, "option '--bogus'") != NULL, "%s", r.err);
  tu_run_free(&r);

  r = tu_flysim("arch list --json");
  ck_assert_int_eq(r.status, 0);
  j = tu_json(&r);
  ck_assert_int_eq(json_array_size(json_object_get(j, "parts")), 4);
  json_decref(j);
  tu_run_free(&r);

  /* a malformed part file in $FLYSIM_ARCH_PATH: exit 2, one line, nothing on stdout */
  {
    char dir[256];
    const char *tmp = getenv("TMPDIR");
    snprintf(dir, sizeof dir, "%s/flysim-arch-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    ck_assert_ptr_nonnull(mkdtemp(dir));
    char bad[320];
    snprintf(bad, sizeof bad, "%s/broken.ini", dir);
    FILE *f = fopen(bad, "w");
    ck_assert_ptr_nonnull(f);
    fputs("[device]\nname = Broken\n", f);
    fclose(f);
    setenv("FLYSIM_ARCH_PATH", dir, 1);
    for (int json = 0; json < 2; json++) {
      r = tu_flysim(json ? "arch list --json" : "arch list");
      ck_assert_int_eq(r.status, 2);
      ck_assert_str_eq(r.out, "");
      ck_assert_ptr_nonnull(strstr(r.err, "broken.ini"));
      ck_assert_ptr_nonnull(strstr(r.err, "[device] gfx: missing"));
      ck_assert_ptr_eq(strchr(r.err, '\n'), r.err + strlen(r.err) - 1); /* one line */
      tu_run_free(&r);
    }
    unsetenv("FLYSIM_ARCH_PATH");
    unlink(bad);
    rmdir(dir);
  }

  r = tu_flysim("arch diff mi355x mi350x --json");
  ck_assert_int_eq(r.status, 0);
  j = tu_json(&r);
  json_t *rows = json_object_get(j, "differences");
  int saw_clock = 0;
  for (size_t i = 0; i < json_array_size(rows); i++) {
    json_t *row = json_array_get(rows, i);
    if (strcmp(json_string_value(json_object_get(row, "key")), "[device] clock_ghz") == 0) {
      saw_clock = 1;
      ck_assert_str_eq(json_string_value(json_object_get(row, "a")), "2.4");
      ck_assert_str_eq(json_string_value(json_object_get(row, "b")), "2.2");
    }
  }
  ck_assert(saw_clock);
  json_decref(j);
  tu_run_free(&r);

  r = tu_flysim("arch diff mi355x mi355x --set lds.banks=32");
  ck_assert_int_eq(r.status, 0);
  const char *row = strstr(r.out, "  [lds] banks ");
  ck_assert_msg(row != NULL, "%s", r.out);
  int from = 0, to = 0;
  ck_assert_msg(sscanf(row, "  [lds] banks %d -> %d", &from, &to) == 2 && from == 64 && to == 32, "%s", r.out);
  tu_run_free(&r);
  /* a data type one part lacks is absent there (MI300X has no fp6: it read as a peak of 0) */
  r = tu_flysim("arch diff mi355x mi300x");
  ck_assert_int_eq(r.status, 0);
  const char *fp6 = strstr(r.out, "  derived peak_tflops.fp6 ");
  ck_assert_ptr_nonnull(fp6);
  char line[128];
  snprintf(line, sizeof line, "%.*s", (int)strcspn(fp6, "\n"), fp6);
  ck_assert_msg(strstr(line, " 10066.3 ") && strstr(line, " -> (absent)"), "%s", line);
  tu_run_free(&r);

  /* Output is deterministic: two runs are byte-identical. */
  tu_run r1 = tu_flysim("arch show mi300x"), r2 = tu_flysim("arch show mi300x");
  ck_assert_int_eq(r1.status, 0);
  ck_assert_str_eq(r1.out, r2.out);
  tu_run_free(&r1);
  tu_run_free(&r2);
}
END_TEST

static Suite *suite(void) {
  Suite *s = suite_create("arch");
  TCase *tc = tcase_create("arch");
  tcase_add_test(tc, test_datasheet_peaks);
  tcase_add_test(tc, test_derived_bandwidth);
  tcase_add_test(tc, test_aliases);
  tcase_add_test(tc, test_user_part_names);
  tcase_add_test(tc, test_search_path_any_length);
  tcase_add_test(tc, test_overrides);
  tcase_add_test(tc, test_loader_errors);
  tcase_add_test(tc, test_loader_errors_by_position);
  tcase_add_test(tc, test_cli_directory_inputs);
  tcase_add_test(tc, test_cli_fifo_inputs);
  tcase_add_test(tc, test_every_key_required);
  tcase_add_test(tc, test_cli_arch);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) { return tu_run_suite(suite()); }
