/* libFuzzer targets for flysim's readers of outside input.  One file, one target per build:
 * compile with -DFUZZ_TARGET=N (tools/fuzz.sh does, with ASan and UBSan).  Each target feeds
 * the bytes to a reader the command line uses, and where the reader accepts them it goes on
 * as the command would (the wave program is simulated, the schedule planned and executed, the
 * layout printed and read back), so that a crash anywhere behind a reader counts.  Properties
 * are checked too: what a reader accepts and prints must read back to the same text.
 *
 *   1 wprog     wave-program text (`flysim sim FILE.wp`), simulated when small
 *   2 asm       AMDGPU assembly (`flysim sim FILE.s`, `verify`), made into wave programs
 *   3 schedule  schedule files (`flysim schedule check`, `predict --schedule`)
 *   4 layout    layout-algebra expressions (`flysim layout`)
 *   5 config    GEMM config strings (`--config`), planned, executed and simulated
 *   6 arch      arch INI files and `--set` overrides
 *   7 db        tuning database files (`flysim db`, `predict`, `tune --db`), read and written
 *   8 hip       the header of an emitted kernel (`flysim verify FILE.hip`), planned, executed
 *               and simulated
 *   9 cli       command lines: the arguments of arch, layout, schedule, db, micro mfma and lds,
 *               and of predict (with --mode model) and emit given a complete --config, one
 *               argument per line
 */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>

#include "kernels/emit.h"
#include "kernels/gemm.h"
#include "kernels/gemm_space.h"
#include "kernels/layout.h"
#include "kernels/schedule.h"
#include "model/arch.h"
#include "sim/sim.h"
#include "traces/asm.h"
#include "traces/wprog.h"
#include "tune/db.h"
#include "util/file.h"

#ifndef FUZZ_TARGET
#error "build with -DFUZZ_TARGET=1..9 (tools/fuzz.sh)"
#endif

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The input as a C string (readers take text). */
__attribute__((unused)) static char *text_of(const uint8_t *data, size_t size) {
  char *t = malloc(size + 1);
  if (t == NULL) abort();
  memcpy(t, data, size);
  t[size] = '\0';
  return t;
}

__attribute__((unused)) static const fsim_arch *arch_once(void) {
  static fsim_arch a;
  static int loaded;
  if (!loaded) {
    fsim_err e;
    if (fsim_arch_load(&a, "mi355x", &e) != FSIM_OK) {
      fprintf(stderr, "fuzz: %s (set FLYSIM_ARCH_PATH)\n", e.msg);
      abort();
    }
    loaded = 1;
  }
  return &a;
}

/* Files of one level under dir, then dir itself. */
static void remove_folder(const char *dir) {
  DIR *d = opendir(dir);
  if (d == NULL) return;
  struct dirent *en;
  char path[4096];
  while ((en = readdir(d)) != NULL)
    if (strcmp(en->d_name, ".") != 0 && strcmp(en->d_name, "..") != 0) {
      snprintf(path, sizeof path, "%s/%s", dir, en->d_name);
      unlink(path);
    }
  closedir(d);
  rmdir(dir);
}

static char tmp_dir[512];
static void remove_tmp(void) { remove_folder(tmp_dir); }

/* A folder of this process's own under $TMPDIR (else /tmp), removed with its files at exit:
 * the targets that need files write them there, never to a name another process may hold. */
__attribute__((unused)) static const char *tmp_folder(void) {
  if (tmp_dir[0] == '\0') {
    const char *t = getenv("TMPDIR");
    snprintf(tmp_dir, sizeof tmp_dir, "%s/flysim-fuzz-XXXXXX", t && t[0] ? t : "/tmp");
    if (mkdtemp(tmp_dir) == NULL) {
      fprintf(stderr, "fuzz: cannot make a folder %s\n", tmp_dir);
      abort();
    }
    atexit(remove_tmp);
  }
  return tmp_dir;
}

/* Simulates wp when it is small enough to take milliseconds, three ways that must agree bit
 * for bit (docs/simulator.md): the fast paths (MFMA runs, deferred memory) on one thread and on
 * two, and the reference paths (every MFMA through the event path, memory answered at issue). */
__attribute__((unused)) static void simulate_small(const fsim_arch *a, const fsim_wprog *wp) {
  if (fsim_wprog_total_wave_instructions(wp) > 20000 || fsim_wprog_workgroups(wp) > 64) return;
  static const fsim_sim_opts opts[3] = {{.threads = 1}, {.threads = 2}, {.no_mfma_runs = 1, .immediate_memory = 1}};
  static const char *const names[3] = {"fast paths", "fast paths on two threads", "reference paths"};
  fsim_sim_result r[3];
  fsim_status st[3];
  fsim_err e[3];
  for (int i = 0; i < 3; i++) {
    memset(&r[i], 0, sizeof r[i]);
    st[i] = fsim_sim_run(a, wp, &opts[i], &r[i], &e[i]);
    r[i].host_seconds = 0;
  }
  for (int i = 1; i < 3; i++) {
    if (st[i] != st[0] || (st[0] == FSIM_OK && memcmp(&r[0], &r[i], sizeof r[0]) != 0) ||
        (st[0] != FSIM_OK && strcmp(e[0].msg, e[i].msg) != 0)) {
      fprintf(stderr, "fuzz: %s and %s differ: status %d and %d, %lld and %lld cycles (%s | %s)\n", names[0], names[i],
              (int)st[0], (int)st[i], (long long)r[0].cycles, (long long)r[i].cycles, st[0] ? e[0].msg : "",
              st[i] ? e[i].msg : "");
      abort();
    }
  }
  /* the sampled mode and a warm launch take what a full cold run takes */
  static const fsim_sim_opts other[2] = {{.sampled = 1}, {.warm = 1}};
  for (int i = 0; i < 2; i++) {
    fsim_sim_result o;
    fsim_err oe;
    fsim_status ost = fsim_sim_run(a, wp, &other[i], &o, &oe);
    if ((ost == FSIM_OK) != (st[0] == FSIM_OK)) {
      fprintf(stderr, "fuzz: a full cold run %s, a %s one %s (%s)\n", st[0] ? "fails" : "succeeds",
              i ? "warm" : "sampled", ost ? "fails" : "succeeds", ost ? oe.msg : e[0].msg);
      abort();
    }
  }
}

/* What the commands do with a GEMM schedule: plan it on a; a legal plan of at most 2^22
 * multiply-adds is executed on random data, and must compute what the reference does; its
 * wave program is simulated (simulate_small). */
__attribute__((unused)) static void plan_and_run(const fsim_arch *a, const fsim_schedule *s, const char *what) {
  fsim_gemm_plan *p = malloc(sizeof *p);
  fsim_err e;
  if (p == NULL) abort();
  if (fsim_gemm_plan_make(p, s, a, &e) == FSIM_OK) {
    fsim_gemm_check c;
    if ((double)s->m * s->n * s->k * (s->groups > 0 ? s->groups : 1) <= 1 << 22 &&
        fsim_gemm_functional(p, 1, 0, &c, &e) == FSIM_OK && !c.ok) {
      fprintf(stderr, "fuzz: %s computes a wrong GEMM\n", what);
      abort();
    }
    fsim_wprog wp;
    if (fsim_gemm_wave_program(p, &wp, &e) == FSIM_OK) {
      simulate_small(a, &wp);
      fsim_wprog_free(&wp);
    }
  }
  free(p);
}

#if FUZZ_TARGET == 1
/* The program's text form. */
static char *wprog_text(const fsim_wprog *wp, const fsim_arch *a) {
  char *text = NULL;
  size_t n = 0;
  fsim_err e;
  FILE *f = open_memstream(&text, &n);
  if (f == NULL || fsim_wprog_print(wp, a, f, &e) != FSIM_OK) abort();
  fclose(f);
  return text;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  const fsim_arch *a = arch_once();
  char *t = text_of(data, size);
  fsim_wprog wp;
  fsim_err e;
  if (fsim_wprog_parse_string(&wp, t, "fuzz.wp", a, &e) == FSIM_OK) {
    /* what parses prints, and the print reads back to the same print */
    char *p1 = wprog_text(&wp, a);
    fsim_wprog back;
    if (fsim_wprog_parse_string(&back, p1, "printed.wp", a, &e) != FSIM_OK) {
      fprintf(stderr, "fuzz: the printed program does not parse: %s\n", e.msg);
      abort();
    }
    char *p2 = wprog_text(&back, a);
    if (strcmp(p1, p2) != 0) {
      fprintf(stderr, "fuzz: print, parse and print again differ\n");
      abort();
    }
    fsim_wprog_free(&back);
    free(p1);
    free(p2);
    simulate_small(a, &wp);
    fsim_wprog_free(&wp);
  }
  free(t);
  return 0;
}

#elif FUZZ_TARGET == 2
/* The wave programs of the GEMM the asm seed was emitted from (tools/fuzz.sh): verify reads
 * compiled code back against such a template. */
static const fsim_wprog *template_once(void) {
  static fsim_wprog tw;
  static int made;
  if (!made) {
    const fsim_gemm_problem pr = {FSIM_KOP_GEMM, 256, 256, 256, 1, FSIM_DT_BF16, FSIM_DT_BF16, FSIM_DT_BF16, FSIM_LAYOUT_TN};
    fsim_gemm_config c;
    fsim_schedule s;
    fsim_err e;
    fsim_gemm_plan *p = malloc(sizeof *p);
    if (p == NULL ||
        fsim_gemm_config_parse("tile=128x128x64,waves=2x2,stages=2,mfma=16x16x32,splitk=1,path=direct,c=direct,"
                               "remap=1,groupm=0,kind=plain",
                               &c, &e) != FSIM_OK ||
        fsim_gemm_schedule_from(&pr, &c, arch_once(), &s, &e) != FSIM_OK ||
        fsim_gemm_plan_make(p, &s, arch_once(), &e) != FSIM_OK || fsim_gemm_wave_program(p, &tw, &e) != FSIM_OK)
      abort();
    free(p);
    made = 1;
  }
  return &tw;
}

/* Read as `flysim sim FILE.s` reads it (one wave, synthetic addresses) and as verify does
 * (against the template). */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  const fsim_arch *a = arch_once();
  char *t = text_of(data, size);
  fsim_asm_kernel k;
  fsim_err e;
  if (fsim_asm_parse(&k, t, "fuzz.s", NULL, &e) == FSIM_OK) {
    for (int with_template = 0; with_template < 2; with_template++) {
      fsim_asm_wprog_opts o = {.tmpl = with_template ? template_once() : NULL, .vgprs = -1, .agprs = -1, .sgprs = -1,
                               .lds_bytes = -1};
      fsim_wprog wp;
      fsim_asm_wprog_info info;
      if (fsim_asm_to_wprog(&k, a, &o, &wp, &info, &e) == FSIM_OK) {
        simulate_small(a, &wp);
        fsim_wprog_free(&wp);
      }
    }
    fsim_asm_free(&k);
  }
  free(t);
  return 0;
}

#elif FUZZ_TARGET == 3
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  const fsim_arch *a = arch_once();
  char *t = text_of(data, size);
  fsim_schedule s;
  fsim_err e;
  if (fsim_schedule_load_string(&s, t, "fuzz.sched", &e) == FSIM_OK) {
    /* what loads writes, and the written file loads back to the same writing */
    char *p1, *p2;
    if (fsim_schedule_text(&s, &p1, &e) != FSIM_OK) abort();
    fsim_schedule back;
    if (fsim_schedule_load_string(&back, p1, "written.sched", &e) != FSIM_OK) {
      fprintf(stderr, "fuzz: the written schedule does not load: %s\n", e.msg);
      abort();
    }
    if (fsim_schedule_text(&back, &p2, &e) != FSIM_OK) abort();
    if (strcmp(p1, p2) != 0) {
      fprintf(stderr, "fuzz: write, load and write again differ\n");
      abort();
    }
    free(p1);
    free(p2);
    fsim_sched_resources r;
    if (fsim_schedule_check(&s, a, &r, &e) == FSIM_OK && s.op <= FSIM_KOP_SCALED_GEMM)
      plan_and_run(a, &s, "a checked schedule");
  }
  free(t);
  return 0;
}

#elif FUZZ_TARGET == 4
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  char *t = text_of(data, size);
  fsim_layout_value v;
  fsim_err e;
  if (fsim_layout_expr(&v, t, &e) == FSIM_OK) {
    /* the value's notation evaluates back to the same notation */
    char b1[4096], b2[4096];
    int n = fsim_layout_value_format(&v, b1, sizeof b1);
    if (n > 0 && (size_t)n < sizeof b1) {
      fsim_layout_value w;
      if (fsim_layout_expr(&w, b1, &e) != FSIM_OK) {
        fprintf(stderr, "fuzz: '%s' does not read back: %s\n", b1, e.msg);
        abort();
      }
      fsim_layout_value_format(&w, b2, sizeof b2);
      if (strcmp(b1, b2) != 0) {
        fprintf(stderr, "fuzz: '%s' reads back as '%s'\n", b1, b2);
        abort();
      }
    }
  }
  free(t);
  return 0;
}

#elif FUZZ_TARGET == 5
/* A config that parses and fixes every choice is made into a plan for one of three small
 * problems (by the input's length), as predict --config does; a legal plan is executed on
 * random data against the reference and simulated. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static const fsim_gemm_problem problems[3] = {
      {FSIM_KOP_GEMM, 64, 256, 128, 1, FSIM_DT_BF16, FSIM_DT_BF16, FSIM_DT_BF16, FSIM_LAYOUT_TN},
      {FSIM_KOP_GEMM, 96, 160, 256, 1, FSIM_DT_FP8, FSIM_DT_FP8, FSIM_DT_BF16, FSIM_LAYOUT_NT},
      {FSIM_KOP_GEMM, 128, 64, 192, 1, FSIM_DT_F16, FSIM_DT_F16, FSIM_DT_F32, FSIM_LAYOUT_NN}};
  const fsim_arch *a = arch_once();
  char *t = text_of(data, size);
  fsim_gemm_config c;
  fsim_err e;
  if (fsim_gemm_config_parse(t, &c, &e) == FSIM_OK && fsim_gemm_config_complete(&c)) {
    fsim_schedule s;
    if (fsim_gemm_schedule_from(&problems[size % 3], &c, a, &s, &e) == FSIM_OK) plan_and_run(a, &s, "a legal config");
  }
  free(t);
  return 0;
}

#elif FUZZ_TARGET == 6
/* The first line is a --set override applied to MI355X; the rest is an arch file. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  char *t = text_of(data, size);
  char *nl = strchr(t, '\n');
  if (nl) *nl = '\0';
  fsim_arch a = *arch_once();
  fsim_err e;
  (void)fsim_arch_set(&a, t, &e);
  if (nl) {
    char path[600];
    snprintf(path, sizeof path, "%s/arch.ini", tmp_folder());
    FILE *f = fopen(path, "wb");
    if (f == NULL) abort();
    fwrite(nl + 1, 1, strlen(nl + 1), f);
    fclose(f);
    fsim_arch b;
    if (fsim_arch_load_file(&b, path, &e) == FSIM_OK) {
      fsim_arch_derived d;
      fsim_arch_derive(&b, &d);
    }
    unlink(path);
  }
  free(t);
  return 0;
}

#elif FUZZ_TARGET == 7
/* The input is a database file: it is read (every entry listed and looked up again), then a
 * winner is written into it; a write that succeeds must be read back as written, and leave a
 * file that reads. */
static void db_fail(const char *what, const fsim_err *e) {
  fprintf(stderr, "fuzz: %s%s%s\n", what, e ? ": " : "", e ? e->msg : "");
  abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  /* the file and nothing beside it: no journal of another input */
  char path[600];
  snprintf(path, sizeof path, "%s/t.db", tmp_folder());
  remove_folder(tmp_folder());
  if (mkdir(tmp_folder(), 0700) != 0) abort();
  FILE *f = fopen(path, "wb");
  if (f == NULL) abort();
  fwrite(data, 1, size, f);
  fclose(f);
  fsim_db *db;
  fsim_err e;
  if (fsim_db_open(&db, path, 0, &e) == FSIM_OK) {
    fsim_db_entry *all;
    int n;
    if (fsim_db_list(db, &all, &n, &e) == FSIM_OK) {
      for (int i = 0; i < n && i < 64; i++) {
        fsim_db_entry got;
        int found;
        (void)fsim_db_get(db, &all[i], &got, &found, &e);
      }
      free(all);
    }
    fsim_db_close(db);
  }
  if (fsim_db_open(&db, path, 1, &e) == FSIM_OK) {
    fsim_db_entry en = {.arch = "mi355x", .op = "gemm", .m = 64, .n = 256, .k = 128, .groups = 1,
                        .a_type = "bf16", .b_type = "bf16", .c_type = "bf16", .layout = "TN",
                        .config = "tile=64x64x64,waves=2x2,stages=2,mfma=16x16x32,splitk=1,path=direct,c=direct,remap=1,"
                                  "groupm=0,kind=plain",
                        .time_us = 3.5, .tflops = 1.2, .model_us = 3.25, .backend = "flydsl", .version = "fuzz"};
    int stored = 0;
    fsim_status st = fsim_db_put(db, &en, 1, &stored, &e);
    if (st == FSIM_OK && stored) {
      fsim_db_entry got;
      int found = 0;
      if (fsim_db_get(db, &en, &got, &found, &e) != FSIM_OK) db_fail("a stored winner does not read back", &e);
      if (!found || strcmp(got.config, en.config) != 0 || got.time_us != en.time_us)
        db_fail("a stored winner reads back as another", NULL);
    }
    fsim_db_close(db);
    if (st == FSIM_OK) {
      fsim_db_entry *all = NULL;
      int n = 0;
      if (fsim_db_open(&db, path, 0, &e) != FSIM_OK) db_fail("a file written does not open", &e);
      fsim_status ls = fsim_db_list(db, &all, &n, &e);
      /* rows damaged before the write (of other keys) may stay so */
      if (ls != FSIM_OK && !fsim_db_damaged(db)) db_fail("a file written does not list", &e);
      if (ls == FSIM_OK) free(all);
      fsim_db_close(db);
    }
  }
  return 0;
}

#elif FUZZ_TARGET == 8
/* verify rebuilds the plan from the file's header alone: read it, and plan, execute and
 * simulate it on MI355X as verify does. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  const fsim_arch *a = arch_once();
  char *t = text_of(data, size);
  fsim_emit_header *h = malloc(sizeof *h);
  fsim_err e;
  if (h == NULL) abort();
  if (fsim_emit_read_header(t, "fuzz.hip", h, &e) == FSIM_OK) plan_and_run(a, &h->schedule, "an emitted kernel's schedule");
  free(h);
  free(t);
  return 0;
}

#elif FUZZ_TARGET == 9
/* The commands run in a folder of their own holding a schedule (s.sched) and a tuning
 * database (t.db, also FLYSIM_DB), put back before every input; an argument naming another
 * folder ('/') is not run, nor a command that could simulate at length or compile (sim, tune,
 * verify, micro's streaming runs; predict without --mode model; either without a complete
 * --config).  Properties: the exit status is one of the three the contract has, and invalid
 * input (2) is told in one line on standard error. */
#include <fcntl.h>

#include "cli/commands.h"

#ifndef TU_TOP_SRCDIR
#error "the cli target needs -DTU_TOP_SRCDIR (tools/fuzz.sh, tests/local.mk)"
#endif

/* The commands' folder, and the folder the process started in (paths given to the replay, and
 * libFuzzer's own, are relative to it). */
static char cli_dir[600];
static int start_dir = -1;

static void copy_file(const char *from, const char *to) {
  size_t n;
  char *body = fsim_file_read(from, &n);
  FILE *out = fopen(to, "wb");
  if (body == NULL || out == NULL || fwrite(body, 1, n, out) != n || fclose(out) != 0) {
    fprintf(stderr, "fuzz: cannot copy %s to %s\n", from, to);
    abort();
  }
  free(body);
}

/* The folder as every input finds it, made the current one. */
static void cli_enter(void) {
  static char *src[2]; /* absolute, found before the first change of folder */
  if (cli_dir[0] == '\0') {
    const char *top = getenv("top_srcdir");
    if (top == NULL || top[0] == '\0') top = TU_TOP_SRCDIR;
    static const char *const rel[2] = {"kernels/schedules/flydsl_bf16_gemm_gfx950.sched",
                                       "tests/fuzz/corpus/db/two_winners.db"};
    for (int i = 0; i < 2; i++) {
      char p[4096];
      snprintf(p, sizeof p, "%s/%s", top, rel[i]);
      if ((src[i] = realpath(p, NULL)) == NULL) {
        fprintf(stderr, "fuzz: %s: not found (set top_srcdir)\n", p);
        abort();
      }
    }
    snprintf(cli_dir, sizeof cli_dir, "%s/cli", tmp_folder());
    if ((start_dir = open(".", O_RDONLY | O_DIRECTORY)) < 0) abort();
    setenv("FLYSIM_DB", "t.db", 1);
  }
  remove_folder(cli_dir);
  if (mkdir(cli_dir, 0700) != 0 || chdir(cli_dir) != 0) abort();
  copy_file(src[0], "s.sched");
  copy_file(src[1], "t.db");
}

static void cli_leave(void) {
  if (fchdir(start_dir) != 0) abort();
  remove_folder(cli_dir); /* before tmp_folder's own removal at exit */
}

static int complete_config(const char *text) {
  fsim_gemm_config c;
  fsim_err e;
  return fsim_gemm_config_parse(text, &c, &e) == FSIM_OK && fsim_gemm_config_complete(&c);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static const struct {
    const char *name;
    int (*run)(int, char **);
  } cmds[] = {{"arch", fsim_cmd_arch}, {"layout", fsim_cmd_layout},   {"schedule", fsim_cmd_schedule},
              {"db", fsim_cmd_db},     {"micro", fsim_cmd_micro},     {"predict", fsim_cmd_predict},
              {"emit", fsim_cmd_emit}};
  if (size > 4096) return 0;
  char *t = text_of(data, size);
  char *argv[41];
  int argc = 0;
  for (char *tok = t, *nl; tok && argc < 40; tok = nl ? nl + 1 : NULL) {
    nl = strchr(tok, '\n');
    if (nl) *nl = '\0';
    if (strchr(tok, '/') || strlen(tok) > 256) goto skip;
    argv[argc++] = tok;
  }
  argv[argc] = NULL;
  int which = -1;
  for (int i = 0; argc > 0 && i < (int)(sizeof cmds / sizeof cmds[0]); i++)
    if (strcmp(argv[0], cmds[i].name) == 0) which = i;
  if (which < 0) goto skip;
  /* micro's mfma and lds runs take milliseconds; its streaming runs, seconds */
  if (which == 4 && (argc < 2 || (strcmp(argv[1], "mfma") != 0 && strcmp(argv[1], "lds") != 0))) goto skip;
  if (which >= 5) {
    int configs = 0, model = 0, other_mode = 0;
    for (int i = 1; i < argc; i++) {
      const char *v = NULL;
      if (strcmp(argv[i], "--config") == 0) v = i + 1 < argc ? argv[i + 1] : "";
      else if (strncmp(argv[i], "--config=", 9) == 0) v = argv[i] + 9;
      if (v && !complete_config(v)) goto skip;
      configs += v != NULL;
      if ((strcmp(argv[i], "--mode") == 0 && i + 1 < argc && strcmp(argv[i + 1], "model") == 0) ||
          strcmp(argv[i], "--mode=model") == 0)
        model++;
      else if (strncmp(argv[i], "--mode", 6) == 0)
        other_mode++; /* an abbreviation (--mod) is refused by the command itself */
    }
    if (configs == 0 || (which == 5 && (model == 0 || other_mode > 0))) goto skip;
  }
  cli_enter();
  /* the command's standard error stream, kept aside (invalid input is one line, docs/cli.md);
   * the sanitizers' and libFuzzer's reports still go to file descriptor 2 */
  char *msg = NULL;
  size_t n = 0;
  FILE *mem = open_memstream(&msg, &n), *saved = stderr;
  if (mem == NULL) abort();
  fflush(stderr);
  stderr = mem;
  int rc = cmds[which].run(argc, argv);
  fflush(stdout);
  stderr = saved;
  fclose(mem);
  cli_leave();
  int lines = 0;
  for (size_t i = 0; i < n; i++) lines += msg[i] == '\n';
  if (rc < 0 || rc > 2) {
    fprintf(stderr, "fuzz: flysim %s exited %d, not 0, 1 or 2\n", argv[0], rc);
    abort();
  }
  if (rc == 2 && (lines != 1 || msg[n - 1] != '\n' || strncmp(msg, "flysim ", 7) != 0)) {
    fprintf(stderr, "fuzz: flysim %s exited 2 with %d lines on standard error, not one naming flysim:\n%s", argv[0],
            lines, msg);
    abort();
  }
  free(msg);
skip:
  free(t);
  return 0;
}
#endif

#ifdef FUZZ_REPLAY
/* `make check` builds each target without libFuzzer and runs it over the repository's own
 * inputs and tests/fuzz/corpus/TARGET (the seeds, and every input a fault was found with), so
 * that the properties above hold in every build and the targets keep compiling.  Files given
 * on the command line are run instead. */

static int replayed;

static void run_bytes(const char *what, const uint8_t *data, size_t size) {
  fprintf(stderr, "replay %s (%zu bytes)\n", what, size);
  LLVMFuzzerTestOneInput(data, size);
  replayed++;
}

/* The file's bytes after `prefix` (NULL: none). */
static void run_file(const char *path, const char *prefix) {
  size_t n, np = prefix ? strlen(prefix) : 0;
  char *body = fsim_file_read(path, &n);
  char *buf = body ? malloc(np + n + 1) : NULL;
  if (buf == NULL) {
    fprintf(stderr, "replay: %s: cannot read\n", path);
    exit(2);
  }
  memcpy(buf, prefix ? prefix : "", np);
  memcpy(buf + np, body, n);
  run_bytes(path, (const uint8_t *)buf, np + n);
  free(body);
  free(buf);
}

static const char *want_suffix;
static int keep(const struct dirent *d) {
  size_t n = strlen(d->d_name), s = want_suffix ? strlen(want_suffix) : 0;
  return d->d_name[0] != '.' && n > s && (s == 0 || strcmp(d->d_name + n - s, want_suffix) == 0);
}

/* Every file of top/dir whose name ends in suffix (NULL: every file), in name order. */
static void run_dir(const char *top, const char *dir, const char *suffix, const char *prefix) {
  char path[4096];
  snprintf(path, sizeof path, "%s/%s", top, dir);
  struct dirent **list;
  want_suffix = suffix;
  int n = scandir(path, &list, keep, alphasort);
  if (n < 0) {
    fprintf(stderr, "replay: %s: cannot list\n", path);
    exit(2);
  }
  for (int i = 0; i < n; i++) {
    char file[8192];
    snprintf(file, sizeof file, "%s/%s", path, list[i]->d_name);
    run_file(file, prefix);
    free(list[i]);
  }
  free(list);
}

int main(int argc, char **argv) {
  if (argc > 1) {
    for (int i = 1; i < argc; i++) run_file(argv[i], NULL);
  } else {
    const char *top = getenv("top_srcdir");
    if (top == NULL || top[0] == '\0') top = TU_TOP_SRCDIR;
    static const char *const corpus[] = {"", "wprog", "asm", "schedule", "layout", "config", "arch", "db", "hip", "cli"};
    char own[64];
    snprintf(own, sizeof own, "tests/fuzz/corpus/%s", corpus[FUZZ_TARGET]);
    run_dir(top, own, NULL, NULL);
#if FUZZ_TARGET == 1
    run_dir(top, "traces/examples", ".wp", NULL);
    run_dir(top, "bench", ".wp", NULL);
#elif FUZZ_TARGET == 3
    run_dir(top, "kernels/schedules", ".sched", NULL);
#elif FUZZ_TARGET == 6
    run_dir(top, "model/arch", ".ini", "lds.banks=32\n"); /* the arch files, after an override line */
#endif
  }
  printf("%s: %d inputs, every property held\n", argv[0], replayed);
  return 0;
}
#endif
