/* Verification of emitted kernels: see verify.h.
 *
 * Tools.  clang (FSIM_HIP_CLANG, found by configure) compiles the device code and the host
 * self-test; llvm-readelf and llvm-objdump of the same LLVM release (FSIM_LLVM_BINDIR) read
 * the code object.  Each runs with fork and execv (no shell, so no quoting of paths), its
 * output to a file in a private folder made by mkdtemp, with a time limit; the folder and
 * everything in it are removed at the end unless the caller keeps them.
 *
 * Tolerances (docs/emit.md says why).  Per K tile of the main loop: MFMAs, barriers,
 * s_setprio, VMEM loads and the bytes that LDS reads and writes move must equal the wave
 * program's; the count of LDS instructions may be lower (the compiler merges two reads into
 * ds_read2 or ds_read_b128) down to half; s_waitcnt may number from one (when the wave
 * program waits at all) to the wave program's count plus one per LDS and VMEM instruction,
 * since the compiler places its own waits, often one before each consumer.  The
 * simulated time of the code read back from the assembly must be within 25% of the
 * schedule's. */
#include "config.h"

#include "kernels/verify.h"
#include "util/file.h"

#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "model/occupancy.h"
#include "sim/sim.h"

#define TIME_TOLERANCE 0.25
#define FULL_LIMIT 1000000 /* wave instructions above which the simulations are sampled */

/* ---- checks -------------------------------------------------------------------------------- */

static fsim_verify_check *check(fsim_verify_report *r, const char *name, int ok, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static fsim_verify_check *check(fsim_verify_report *r, const char *name, int ok, const char *fmt, ...) {
  if (r->nchecks == FSIM_VERIFY_MAX_CHECKS) return NULL;
  fsim_verify_check *c = &r->checks[r->nchecks++];
  memset(c, 0, sizeof *c);
  snprintf(c->name, sizeof c->name, "%s", name);
  c->ok = ok;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(c->detail, sizeof c->detail, fmt, ap);
  va_end(ap);
  return c;
}

static void skip(fsim_verify_report *r, const char *name, int ok, const char *why) {
  fsim_verify_check *c = check(r, name, ok, "skipped: %s", why);
  if (c) c->skipped = 1;
}

const fsim_verify_check *fsim_verify_find(const fsim_verify_report *r, const char *name) {
  for (int i = 0; i < r->nchecks; i++)
    if (strcmp(r->checks[i].name, name) == 0) return &r->checks[i];
  return NULL;
}

/* ---- files and tools ----------------------------------------------------------------------- */

static double now_s(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* Runs argv (argv[0] a path, or a name searched in PATH when search), stdout and stderr into
 * out_path; returns the exit status, -1 if it could not run, -2 if it ran past the limit. */
static int run_tool(char *const argv[], int search, const char *out_path, double limit_s, double *seconds) {
  double t0 = now_s();
  fflush(NULL);
  pid_t pid = fork();
  if (pid < 0) return -1;
  if (pid == 0) {
    signal(SIGPIPE, SIG_DFL); /* flysim ignores it (cli/flysim.c); the tools get the default */
    /* the tool's temporary files (clang's intermediate objects) go to the work folder, with
     * out_path: removed with it, also when a stopped run kills the tool */
    char tmp[1024];
    snprintf(tmp, sizeof tmp, "%s", out_path);
    char *slash = strrchr(tmp, '/');
    if (slash != NULL && slash != tmp) {
      *slash = '\0';
      setenv("TMPDIR", tmp, 1);
    }
    FILE *o = freopen(out_path, "w", stdout);
    if (o == NULL) _exit(127);
    dup2(fileno(stdout), fileno(stderr));
    if (search) execvp(argv[0], argv);
    else execv(argv[0], argv);
    fprintf(stderr, "cannot run %s: %s\n", argv[0], strerror(errno));
    _exit(127);
  }
  int status = 0;
  fsim_file_work_child(pid); /* a stopped run kills it before removing the work folder */
  for (;;) {
    pid_t w = waitpid(pid, &status, WNOHANG);
    if (w == pid) break;
    if (w < 0 && errno != EINTR) {
      fsim_file_work_child(0);
      return -1;
    }
    if (now_s() - t0 > limit_s) {
      kill(pid, SIGKILL);
      waitpid(pid, &status, 0);
      fsim_file_work_child(0);
      if (seconds) *seconds = now_s() - t0;
      return -2;
    }
    struct timespec ts = {0, 5 * 1000 * 1000};
    nanosleep(&ts, NULL);
  }
  fsim_file_work_child(0);
  if (seconds) *seconds = now_s() - t0;
  if (WIFEXITED(status)) return WEXITSTATUS(status) == 127 ? -1 : WEXITSTATUS(status);
  return -1;
}

/* A tool's first error lines (or first lines), on one line, for a detail. */
static void first_lines(const char *path, char *buf, size_t n, int lines) {
  char *t = fsim_file_read(path, NULL);
  buf[0] = '\0';
  if (t == NULL) return;
  int errors = strstr(t, "error") != NULL;
  size_t u = 0;
  int got = 0;
  for (char *save = NULL, *ln = strtok_r(t, "\n", &save); ln && got < lines && u + 1 < n;
       ln = strtok_r(NULL, "\n", &save)) {
    if (errors && strstr(ln, "error") == NULL) continue;
    u += (size_t)snprintf(buf + u, n - u, "%s%s", got ? " | " : "", ln);
    got++;
  }
  free(t);
}

static void remove_tree(const char *dir) {
  DIR *d = opendir(dir);
  if (d == NULL) return;
  struct dirent *de;
  char path[1024];
  while ((de = readdir(d)) != NULL) {
    if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0) continue;
    snprintf(path, sizeof path, "%s/%s", dir, de->d_name);
    unlink(path);
  }
  closedir(d);
  rmdir(dir);
}

/* ---- the code object's metadata ------------------------------------------------------------ */

typedef struct meta {
  int found;
  long long vgpr, agpr, sgpr, vgpr_spill, sgpr_spill, lds, scratch;
} meta;

static long long yaml_int(const char *block, const char *key) {
  const char *p = strstr(block, key);
  if (p == NULL) return -1;
  p += strlen(key);
  while (*p == ' ' || *p == ':') p++;
  return strtoll(p, NULL, 10);
}

/* Reads the amdhsa.kernels entry of kernel `name` from llvm-readelf --notes output. */
static int parse_notes(const char *text, const char *name, int unified, meta *m) {
  memset(m, 0, sizeof *m);
  char key[160];
  snprintf(key, sizeof key, ".name:           %s\n", name);
  const char *at = strstr(text, key);
  if (at == NULL) {
    snprintf(key, sizeof key, ".name: %s\n", name);
    at = strstr(text, key);
  }
  if (at == NULL) return 0;
  /* the entry starts at the line "  - " before the name (deeper "      - " lines are its
   * arguments) and ends at the next such line or the document's end */
  const char *start = text;
  for (const char *q = strstr(text, "\n  - "); q && q < at; q = strstr(q + 1, "\n  - ")) start = q + 1;
  const char *end = strstr(at, "\n  - ");
  const char *doc_end = strstr(at, "\namdhsa.target");
  if (end == NULL || (doc_end && doc_end < end)) end = doc_end ? doc_end : at + strlen(at);
  size_t len = (size_t)(end - start);
  char *blk = malloc(len + 1);
  if (blk == NULL) return 0;
  memcpy(blk, start, len);
  blk[len] = '\0';
  m->vgpr = yaml_int(blk, ".vgpr_count");
  m->agpr = yaml_int(blk, ".agpr_count");
  m->sgpr = yaml_int(blk, ".sgpr_count");
  m->vgpr_spill = yaml_int(blk, ".vgpr_spill_count");
  m->sgpr_spill = yaml_int(blk, ".sgpr_spill_count");
  m->lds = yaml_int(blk, ".group_segment_fixed_size");
  m->scratch = yaml_int(blk, ".private_segment_fixed_size");
  free(blk);
  if (m->agpr < 0) m->agpr = 0;
  /* on parts with a unified register file (gfx90a and later) .vgpr_count counts the AGPRs
   * too, after the arch VGPRs rounded to 4 (.amdhsa_accum_offset); keep the arch VGPRs */
  if (unified && m->agpr > 0 && m->vgpr >= m->agpr) m->vgpr -= m->agpr;
  m->found = m->vgpr >= 0 && m->sgpr >= 0 && m->lds >= 0 && m->scratch >= 0;
  return m->found;
}

/* The largest register count per wave (VGPR + AGPR) that keeps `waves` waves per SIMD. */
static int reg_budget(const fsim_arch *a, const fsim_gemm_plan *p, int waves) {
  int best = 0;
  for (int r = a->cu.vgpr_granule; r <= a->cu.vgprs_per_lane; r += a->cu.vgpr_granule) {
    fsim_occupancy o;
    fsim_occupancy_of(a, p->waves, r, 0, p->sgprs, p->lds_bytes, &o);
    if (o.waves_per_simd >= waves && o.wgs_per_cu > 0) best = r;
  }
  int arch_max = a->cu.max_vgprs + a->cu.max_agprs;
  return best < arch_max ? best : arch_max;
}

/* ---- the instruction mix -------------------------------------------------------------------- */

static void mix_compare(fsim_verify_report *r) {
  const fsim_asm_mix *w = &r->mix_plan, *c = &r->mix_asm;
  char why[600] = "";
  size_t u = 0;
  int ok = 1;
#define EXACT(field, label)                                                                                            \
  if (w->field != c->field) {                                                                                          \
    ok = 0;                                                                                                            \
    u += (size_t)snprintf(why + u, sizeof why - u, "%s%s %lld vs %lld", u ? "; " : "", label, (long long)c->field,     \
                          (long long)w->field);                                                                        \
  }
  EXACT(mfma, "MFMA");
  EXACT(barrier, "s_barrier");
  EXACT(setprio, "s_setprio");
  EXACT(lds_read_bytes, "LDS read bytes");
  EXACT(lds_write_bytes, "LDS write bytes");
#undef EXACT
  if (w->vmem_load + w->load_lds != c->vmem_load + c->load_lds) {
    ok = 0;
    u += (size_t)snprintf(why + u, sizeof why - u, "%sVMEM loads %lld vs %lld", u ? "; " : "",
                          (long long)(c->vmem_load + c->load_lds), (long long)(w->vmem_load + w->load_lds));
  }
  /* a compiler merges adjacent reads up to ds_read_b128's 16 bytes a lane (four ds_read_u16 into
   * one ds_read_b64: halving at most, the rule until 2026-12-02, failed such a correct kernel);
   * the bytes are checked exactly above */
  if (c->lds_read > w->lds_read || 16 * c->lds_read < w->lds_read_bytes) {
    ok = 0;
    u += (size_t)snprintf(why + u, sizeof why - u, "%sLDS reads %lld vs %lld (merging may join reads up to 16 bytes a lane, "
                          "no more)", u ? "; " : "", (long long)c->lds_read, (long long)w->lds_read);
  }
  if (c->lds_write > w->lds_write || 2 * c->lds_write < w->lds_write) {
    ok = 0;
    u += (size_t)snprintf(why + u, sizeof why - u, "%sLDS writes %lld vs %lld", u ? "; " : "", (long long)c->lds_write,
                          (long long)w->lds_write);
  }
  /* waits: the wave program waits once per group of dependences, a compiler may wait before
   * each consumer; allowed: at least one when the wave program has one, at most its count plus
   * one per LDS and VMEM instruction */
  int64_t wmax = w->waitcnt + c->lds_read + c->lds_write + c->vmem_load + c->load_lds;
  if (c->waitcnt > wmax || (w->waitcnt > 0 && c->waitcnt == 0)) {
    ok = 0;
    u += (size_t)snprintf(why + u, sizeof why - u, "%ss_waitcnt %lld vs %lld (allowed 1 to %lld)", u ? "; " : "",
                          (long long)c->waitcnt, (long long)w->waitcnt, (long long)wmax);
  }
  check(r, "instruction_mix", ok,
        "%s, compiled vs wave program: MFMA %lld/%lld, LDS reads %lld/%lld (%lld/%lld bytes a lane), LDS writes %lld/%lld, "
        "VMEM loads %lld/%lld, s_waitcnt %lld/%lld, s_barrier %lld/%lld, s_setprio %lld/%lld; not compared: VMEM stores "
        "%lld/%lld, compiled VALU %lld, SALU %lld%s%s",
        r->mix_scope, (long long)c->mfma, (long long)w->mfma, (long long)c->lds_read, (long long)w->lds_read,
        (long long)c->lds_read_bytes, (long long)w->lds_read_bytes, (long long)c->lds_write, (long long)w->lds_write,
        (long long)(c->vmem_load + c->load_lds), (long long)(w->vmem_load + w->load_lds), (long long)c->waitcnt,
        (long long)w->waitcnt, (long long)c->barrier, (long long)w->barrier, (long long)c->setprio, (long long)w->setprio,
        (long long)c->vmem_store, (long long)w->vmem_store, (long long)c->valu, (long long)c->salu, ok ? "" : "; differs: ",
        why);
}

/* ---- the GPU run ---------------------------------------------------------------------------- */

static void hip_run(fsim_verify_report *r, const fsim_gemm_plan *p, const char *file, const char *dir,
                    const fsim_verify_opts *o) {
#ifndef FSIM_HAVE_HIP
  (void)p, (void)file, (void)dir;
  skip(r, "hip_run", 1,
       o && o->with_hip ? "flysim was configured without --with-hip (no HIP runtime); nothing was run"
                        : "not asked for (--with-hip), and flysim was configured without the HIP runtime");
#else
  if (o == NULL || !o->with_hip) {
    skip(r, "hip_run", 1, "not asked for (--with-hip)");
    return;
  }
  const char *hipcc = getenv("HIPCC");
  if (hipcc == NULL || *hipcc == '\0') hipcc = "hipcc";
  char out[600], log[700], arch[64], bin[600];
  snprintf(out, sizeof out, "%s/hipcc.log", dir);
  snprintf(bin, sizeof bin, "%s/run", dir);
  snprintf(arch, sizeof arch, "--offload-arch=%s", p->a->device.gfx);
  char *argv[] = {(char *)hipcc, arch, "-O3", "-DFSIM_HIP_RUNTIME", "-DFSIM_HOST_MAIN", "-x", "hip", "-o", bin,
                  (char *)file, NULL};
  double secs;
  int rc = run_tool(argv, 1, out, 600, &secs);
  if (rc != 0) {
    first_lines(out, log, sizeof log, 2);
    check(r, "hip_run", 0, "%s could not build the test program (status %d): %s", hipcc, rc, log);
    return;
  }
  char *rargv[] = {bin, NULL};
  snprintf(out, sizeof out, "%s/run.log", dir);
  rc = run_tool(rargv, 0, out, 600, &secs);
  char *text = fsim_file_read(out, NULL);
  const char *line = text ? strstr(text, "flysim-run: ") : NULL;
  char first[300] = "";
  if (line) snprintf(first, sizeof first, "%.*s", (int)strcspn(line, "\n"), line);
  if (rc == 3) {
    skip(r, "hip_run", 1, line ? first : "no AMD GPU of this arch");
  } else if (rc == 0 && line) {
    r->hip_ran = 1;
    const char *t = strstr(line, "time_us="), *m = strstr(line, "max_rel_err=");
    r->hip_us = t ? atof(t + 8) : 0;
    r->hip_max_rel_err = m ? atof(m + 12) : 0;
    check(r, "hip_run", 1, "%s; measured %.3f us beside the simulated %.3f us", first + 12, r->hip_us, r->sched_us);
  } else {
    r->hip_ran = line != NULL;
    check(r, "hip_run", 0, "the test program failed (status %d): %s", rc, line ? first : "no flysim-run line");
  }
  free(text);
#endif
}

/* ---- the checks ------------------------------------------------------------------------------ */

/* How the two simulations run: *sampled -1 (by their size), 0 or 1.  A warm launch whose A,
 * B and C pass the caches is simulated in full (fsim_sim_warm_sampled), and --sampled is
 * refused for it (before the compile, by both entry points). */
static fsim_status sim_mode(const fsim_gemm_plan *p, const fsim_verify_opts *o, int *sampled, fsim_err *e) {
  *sampled = o && o->sampled >= 0 ? o->sampled : -1;
  if (!(o && o->warm)) return FSIM_OK;
  int64_t bytes_a, bytes_b, bytes_c;
  fsim__gemm_footprint(p, &bytes_a, &bytes_b, &bytes_c);
  return fsim_sim_warm_sampled(p->a, bytes_a + bytes_b + bytes_c, sampled, e);
}

/* Writes a wave program's text form into the work folder (kept for the user). */
static void save_wprog(const fsim_wprog *wp, const fsim_arch *a, const char *dir, const char *name) {
  char path[700];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  FILE *f = fopen(path, "w");
  if (f == NULL) return;
  fsim_wprog_print(wp, a, f, NULL);
  fclose(f);
}

/* Split-K: the kernel adds its partial sums into C with packed atomics of 4 bytes (two 16-bit
 * values, or one f32).  The plan's wave program stores them that way itself (one 4-byte store
 * per atomic), so this finds nothing to do for it; a wave program that stores whole runs of a
 * split-K epilogue with wider stores has them rewritten into those atomics (after the last
 * loop), so that the compiled code is compared with the schedule it had to implement, the
 * unmodified schedule's time kept beside it.  Returns the stores rewritten, -1 on failure. */
static int atomic_epilogue(fsim_wprog *wp) {
  int rewritten = 0;
  for (int pi = 0; pi < wp->nprograms; pi++) {
    fsim_wp_program *pg = &wp->programs[pi];
    int last_end = -1, extra = 0;
    for (int l = 0; l < pg->nloops; l++)
      if (pg->loops[l].end > last_end) last_end = pg->loops[l].end;
    for (int i = 0; i < pg->ninst; i++)
      if (pg->inst[i].op == FSIM_OP_STORE && pg->inst[i].width > 4) {
        if (i < last_end) return -1; /* a store inside a loop: not an epilogue */
        extra += pg->inst[i].width / 4 - 1;
      }
    if (extra == 0) continue;
    fsim_wp_inst *ni = malloc((size_t)(pg->ninst + extra) * sizeof *ni);
    if (ni == NULL) return -1;
    int n = 0;
    for (int i = 0; i < pg->ninst; i++) {
      fsim_wp_inst in = pg->inst[i];
      if (in.op == FSIM_OP_STORE && in.width > 4) {
        int parts = in.width / 4;
        in.width = 4;
        in.flags |= FSIM_IF_ATOMIC;
        for (int q = 0; q < parts; q++) ni[n++] = in;
        rewritten++;
      } else {
        ni[n++] = in;
      }
    }
    free(pg->inst);
    pg->inst = ni;
    pg->ninst = pg->cap = n;
  }
  return rewritten;
}

static void simulate(fsim_verify_report *r, const fsim_gemm_plan *p, const fsim_asm_kernel *k,
                     const fsim_verify_opts *o, const char *dir) {
  const fsim_arch *a = p->a;
  fsim_wprog tw, aw;
  fsim_err e;
  fsim_err_clear(&e);
  if (fsim_gemm_wave_program(p, &tw, &e) != FSIM_OK) {
    check(r, "asm_simulation", 0, "the plan's wave program: %s", e.msg);
    return;
  }
  fsim_asm_wprog_opts ao = {.tmpl = &tw, .vgprs = r->vgprs, .agprs = r->agprs, .sgprs = r->sgprs,
                            .lds_bytes = (int)r->lds_bytes};
  fsim_asm_wprog_info info;
  if (fsim_asm_to_wprog(k, a, &ao, &aw, &info, &e) != FSIM_OK) {
    check(r, "asm_simulation", 0, "reading the assembly back: %s", e.msg);
    fsim_wprog_free(&tw);
    return;
  }
  if (o && o->keep) {
    save_wprog(&tw, a, dir, "schedule.wp");
    save_wprog(&aw, a, dir, "compiled.wp");
  }
  r->asm_paths = info.paths;
  r->asm_programs = tw.nprograms;
  r->asm_branches_decided = info.branches_decided;
  r->asm_loop_exits = info.loop_exits;
  r->asm_branches_undecided = info.branches_undecided + info.branches_kept_straight;
  /* how the waves went through the compiled code, against the schedule's programs */
  char paths[260];
  if (info.setprio_fallback)
    snprintf(paths, sizeof paths,
             "every wave takes the same path (%d branch(es) decided, %d not): the schedule's second program runs it "
             "without its s_setprio",
             info.branches_decided, info.branches_undecided);
  else
    snprintf(paths, sizeof paths,
             "%d path(s) through the code for the schedule's %d program(s)%s; per wave %d branch(es) decided, %d loop "
             "exit test(s) and %d other(s) read as falling through",
             info.paths, tw.nprograms, info.wave_path_differs ? " (the waves grouped otherwise)" : "",
             info.branches_decided, info.loop_exits, info.branches_undecided + info.branches_kept_straight);
  int sampled;
  fsim_err why;
  if (sim_mode(p, o, &sampled, &why) != FSIM_OK) sampled = 0; /* the entry points refused that already */
  if (sampled < 0) sampled = fsim_wprog_total_wave_instructions(&tw) > FULL_LIMIT;
  r->sim_sampled = sampled;
  /* sampled runs extrapolate the main loop but simulate every round of XCD 0's workgroups:
   * extrapolating over rounds too was off by a factor of 3 against a full run on some
   * kernels (docs/emit.md) */
  fsim_sim_opts so = {.sampled = sampled, .warm = o ? o->warm : 0, .no_sample_rounds = 1};
  fsim_sim_result rs, ra;
  fsim_status st = fsim_sim_run(a, &tw, &so, &rs, &e);
  int rewritten = 0;
  if (st == FSIM_OK) {
    r->sched_us = r->tuned_us = rs.time_us;
    if (p->s.split_k > 1) {
      rewritten = atomic_epilogue(&tw);
      if (rewritten > 0) {
        if (o && o->keep) save_wprog(&tw, a, dir, "schedule-atomics.wp");
        st = fsim_sim_run(a, &tw, &so, &rs, &e);
        if (st == FSIM_OK) r->sched_us = rs.time_us;
      }
    }
  }
  if (st == FSIM_OK) {
    st = fsim_sim_run(a, &aw, &so, &ra, &e);
    if (st == FSIM_OK) r->asm_us = ra.time_us;
  }
  if (st != FSIM_OK) {
    check(r, "asm_simulation", 0, "simulation failed: %s", e.msg);
  } else {
    double tol = o && o->time_tolerance > 0 ? o->time_tolerance : TIME_TOLERANCE;
    const char *how = sampled ? (r->sim_warm ? "sampled, warm" : "sampled") : (r->sim_warm ? "full, warm" : "full");
    double rel = r->sched_us > 0 ? (r->asm_us - r->sched_us) / r->sched_us : 0;
    char atomics[200] = "";
    if (rewritten > 0)
      snprintf(atomics, sizeof atomics,
               " with its split-K epilogue as the packed atomics the kernel needs (%.3f us as tuned, with plain stores)",
               r->tuned_us);
    check(r, "asm_simulation", fabs(rel) <= tol,
          "the compiled code simulates to %.3f us, the schedule to %.3f us%s (%+.1f%%, tolerance %.0f%%; %s, %s; "
          "addresses matched %s%s; %s)",
          r->asm_us, r->sched_us, atomics, 100 * rel, 100 * tol, how,
          ra.wgs_per_cu == rs.wgs_per_cu ? "same occupancy" : "occupancy differs",
          info.matched_by_loop ? "loop by loop" : "over the whole kernel",
          info.synthetic ? ", some synthetic" : "", paths);
  }
  fsim_wprog_free(&aw);
  fsim_wprog_free(&tw);
}

static void mix(fsim_verify_report *r, const fsim_gemm_plan *p, const fsim_asm_kernel *k) {
  fsim_wprog tw;
  fsim_err e;
  fsim_err_clear(&e);
  if (fsim_gemm_wave_program(p, &tw, &e) != FSIM_OK) {
    check(r, "instruction_mix", 0, "the plan's wave program: %s", e.msg);
    return;
  }
  const fsim_wp_program *tp = &tw.programs[0];
  int tb[FSIM_ASM_MAX_LOOPS], te[FSIM_ASM_MAX_LOOPS];
  int64_t tt[FSIM_ASM_MAX_LOOPS];
  int nt = fsim_wp_top_loops(tp, tb, te, tt, FSIM_ASM_MAX_LOOPS);
  int na = 0, first = -1;
  for (int i = 0; i < k->nloops; i++) {
    int inside = 0;
    for (int j = 0; j < k->nloops; j++)
      if (j != i && k->loops[j].begin <= k->loops[i].begin && k->loops[j].end >= k->loops[i].end) inside = 1;
    if (!inside) {
      if (first < 0) first = i;
      na++;
    }
  }
  r->asm_loops = na;
  r->plan_loops = nt;
  if (nt != na) {
    check(r, "instruction_mix", 0,
          "the compiled kernel has %d loop(s) where the wave program has %d (the compiler unrolled or split one)", na, nt);
  } else {
    if (nt > 0) {
      snprintf(r->mix_scope, sizeof r->mix_scope, "per K tile of the main loop (%lld trips)", (long long)tt[0]);
      fsim_wp_mix_range(tp, tb[0] + 1, te[0], &r->mix_plan);
      fsim_asm_mix_range(k, k->loops[first].begin, k->loops[first].end + 1, &r->mix_asm);
    } else {
      snprintf(r->mix_scope, sizeof r->mix_scope, "whole kernel (no loop runs more than once)");
      fsim_wp_mix_range(tp, 0, tp->ninst, &r->mix_plan);
      fsim_asm_mix_range(k, 0, k->n, &r->mix_asm);
      /* ping-pong: the code also holds the second group's extra barrier after the prologue,
       * under a test of the wave's group, which the first group's program lacks */
      if (p->s.kind == FSIM_PIPE_PINGPONG) r->mix_plan.barrier++;
    }
    /* the loop's own control (compare, branch) is not in the wave program */
    mix_compare(r);
  }
  fsim_wprog_free(&tw);
}

/* The plan of schedule s cut to at most `tiles` tiles and the remainder in M and N and `tiles`
 * of the split's K steps and the remainder in K, or whole steps where a split of that K would
 * leave a slice empty; sets *cut when it cut. */
static fsim_status cut_plan(fsim_gemm_plan *q, fsim_schedule *s, const fsim_gemm_plan *p, int tiles, int *cut,
                            fsim_err *e) {
  const long long ks = (long long)s->bk * (s->split_k > 1 ? s->split_k : 1);
  const long long m = tiles * (long long)s->bm + s->m % s->bm, n = tiles * (long long)s->bn + s->n % s->bn,
                  k = tiles * ks + s->k % ks;
  if (m < s->m) s->m = m, *cut = 1;
  if (n < s->n) s->n = n, *cut = 1;
  if (k < s->k) s->k = k, *cut = 1;
  fsim_err_clear(e);
  fsim_status st = fsim_gemm_plan_make(q, s, p->a, e);
  if (st == FSIM_EINVAL && *cut && s->k % ks != 0 && s->k > ks) {
    s->k -= s->k % ks;
    fsim_err_clear(e);
    st = fsim_gemm_plan_make(q, s, p->a, e);
  }
  return st;
}

/* The plan's index maps (copies, swizzled LDS, MFMA operand layouts, epilogue), which the
 * kernel's own are checked against ("addresses"), executed on random data and compared with
 * the GSL reference (kernels/gemm_func.c): on the problem, or past 2^22 multiply-adds on a
 * smaller one of the same schedule that keeps its edges (cut_plan: two tiles and the
 * remainder, then one, while it is past 2^26); one group of a grouped GEMM.  About a second at
 * most; skipped (passing, with the reason) when even one tile's problem is past 2^26 or the
 * cut problem is not a legal plan. */
static void functional_check(fsim_verify_report *r, const fsim_gemm_plan *p) {
  fsim_schedule s = p->s;
  if (s.op == FSIM_KOP_GROUPED_GEMM) s.groups = 1;
  int cut = 0;
  fsim_gemm_plan *q = malloc(sizeof *q);
  fsim_err e;
  fsim_err_clear(&e);
  fsim_gemm_check c;
  memset(&c, 0, sizeof c);
  fsim_status st = q ? FSIM_OK : FSIM_ERR(&e, FSIM_ENOMEM, "out of memory");
  if (st == FSIM_OK && (double)s.m * s.n * s.k <= 0x1p22) st = fsim_gemm_plan_make(q, &s, p->a, &e);
  for (int tiles = 2; st == FSIM_OK && tiles >= 1 && (double)s.m * s.n * s.k > 0x1p22; tiles--) {
    st = cut_plan(q, &s, p, tiles, &cut, &e);
    if (st == FSIM_OK && (double)s.m * s.n * s.k <= 0x1p26) break;
  }
  if (st == FSIM_OK && (double)s.m * s.n * s.k > 0x1p26)
    st = FSIM_ERR(&e, FSIM_EINVAL, "%lldx%lldx%lld, one tile and one K step of the split with the edges, is %.3g "
                  "multiply-adds, more than the 2^26 the check takes", s.m, s.n, s.k, (double)s.m * s.n * s.k);
  if (st == FSIM_OK) st = fsim_gemm_functional(q, 1, 0, &c, &e);
  free(q);
  char what[96];
  snprintf(what, sizeof what, "%s%lldx%lldx%lld", cut ? "the same schedule on " : "", s.m, s.n, s.k);
  if (st != FSIM_OK)
    skip(r, "functional", 1, e.msg);
  else if (c.ok)
    check(r, "functional", 1, "%s, random data: all %lld elements of C within %.2g (relative) of the reference; "
          "largest error %.2g", what, (long long)c.elements, c.tolerance_rel, c.max_rel_err);
  else
    check(r, "functional", 0, "%s, random data: %lld of %lld elements of C wrong, the first at (%lld, %lld): %g "
          "against the reference's %g", what, (long long)c.mismatches, (long long)c.elements, (long long)c.first_row,
          (long long)c.first_col, c.first_got, c.first_want);
}

/* The first line from text up to end that is not a comment a compiler skips whole (starting
 * "//" and not ending in a backslash, which would splice the next line into it), 1-based, or
 * 0: the header is only such lines, so that nothing before the compared text compiles (an
 * audit's "#define" of the MFMA builtin there, swapping A and B, passed every check). */
static int header_code_line(const char *text, const char *end) {
  int line = 1;
  for (const char *c = text; c < end; line++) {
    size_t n = strcspn(c, "\n");
    if (n < 2 || c[0] != '/' || c[1] != '/' || c[n - 1] == '\\' || (n > 2 && c[n - 1] == '\r' && c[n - 2] == '\\'))
      return line;
    c += n + (c[n] == '\n');
  }
  return 0;
}

/* The header (its lines up to "// flysim-schedule-end") must be comments alone, and the file
 * after it (from the line after that: the sizes, index
 * math, kernel, host program and self-test) against what this flysim emits for the plan: the
 * functional check runs the plan's maps, and the address self-test sees the index functions and
 * constant tables but not every literal of the kernel, so an edited file (a store offset, a
 * table index, a size constant) could pass them both. */
/* Reads a file as fsim_file_load does, with CRLF line ends read as LF (a checkout with
 * autocrlf: the header's marks were not found in such a file, an audit found; the compiler
 * reads either). */
static fsim_status load_lf(const char *path, char **text, size_t *len, fsim_err *e) {
  fsim_status st = fsim_file_load(path, text, len, e);
  if (st != FSIM_OK) return st;
  size_t k = 0;
  for (size_t i = 0; i < *len; i++)
    if (!((*text)[i] == '\r' && i + 1 < *len && (*text)[i + 1] == '\n')) (*text)[k++] = (*text)[i];
  (*text)[k] = '\0';
  *len = k;
  return FSIM_OK;
}

static void source_check(fsim_verify_report *r, const fsim_gemm_plan *p, const char *file) {
  static const char mark[] = "// flysim-schedule-end\n";
  int bad_line = 0;
  char *text = NULL, *want = NULL;
  size_t len = 0, wlen = 0;
  fsim_err e;
  fsim_err_clear(&e);
  fsim_status st = load_lf(file, &text, &len, &e);
  FILE *f = st == FSIM_OK ? open_memstream(&want, &wlen) : NULL;
  if (st == FSIM_OK && f == NULL) st = FSIM_ERR(&e, FSIM_ENOMEM, "out of memory");
  if (f != NULL) {
    st = fsim_emit_hip(p, NULL, f, NULL, &e);
    fclose(f);
  }
  const char *got = st == FSIM_OK ? strstr(text, mark) : NULL, *exp = st == FSIM_OK ? strstr(want, mark) : NULL;
  if (st != FSIM_OK) {
    check(r, "source", 0, "the kernel of the file's schedule could not be emitted here: %s", e.msg);
  } else if (got == NULL || exp == NULL || (got != text && got[-1] != '\n')) {
    check(r, "source", 0, "the file has no '// flysim-schedule-end' line ending its header");
  } else if ((bad_line = header_code_line(text, got)) > 0) {
    check(r, "source", 0, "line %d, in the header, is not a '//' comment line: the header holds only comments (code "
          "or a preprocessor line there would change the kernel where no check looks)", bad_line);
  } else {
    int line = 1;
    for (const char *c = text; c < got + sizeof mark - 1; c++) line += *c == '\n';
    got += sizeof mark - 1, exp += sizeof mark - 1;
    const int first = line;
    while (*got && *got == *exp) {
      if (*got == '\n') line++;
      got++, exp++;
    }
    if (*got == '\0' && *exp == '\0') {
      check(r, "source", 1, "lines %d-%d (all after the header) are what flysim %s emits for the file's schedule", first,
            line - 1, PACKAGE_VERSION);
    } else {
      /* the differing lines from a little before the first difference (they agree up to it) */
      int back = 0;
      while (back < 24 && got - back > text && got[-back - 1] != '\n') back++;
      const int cut = got - back > text && got[-back - 1] != '\n'; /* the line starts further back */
      got -= back, exp -= back;
      int gl = (int)strcspn(got, "\n"), el = (int)strcspn(exp, "\n");
      check(r, "source", 0, "line %d is not what flysim %s emits for the file's schedule ('%s%.*s%s', emitted '%s%.*s%s'): "
            "an edited file is not the plan the functional check runs; edit the schedule and emit it again", line,
            PACKAGE_VERSION, cut ? "..." : "", gl > 64 ? 64 : gl, got, gl > 64 ? "..." : "", cut ? "..." : "",
            el > 64 ? 64 : el, exp, el > 64 ? "..." : "");
    }
  }
  free(text);
  free(want);
}

static fsim_status verify_in(const char *file, const fsim_gemm_plan *p, const char *kernel, const char *dir,
                             const fsim_verify_opts *o, fsim_verify_report *r, fsim_err *e) {
  const fsim_arch *a = p->a;
  source_check(r, p, file);
  functional_check(r, p);
  fsim_occupancy occ;
  fsim_occupancy_of(a, p->waves, p->vgprs, p->agprs, p->sgprs, p->lds_bytes, &occ);
  r->plan_lds_bytes = p->lds_bytes;
  r->plan_vgprs = p->vgprs, r->plan_agprs = p->agprs, r->plan_sgprs = p->sgprs;
  r->plan_wgs_per_cu = occ.wgs_per_cu;
  r->plan_waves_per_simd = occ.waves_per_simd;
  r->reg_budget = reg_budget(a, p, occ.waves_per_simd);
  snprintf(r->kernel, sizeof r->kernel, "%s", kernel);
  snprintf(r->gfx, sizeof r->gfx, "%s", a->device.gfx);
#ifndef FSIM_HIP_CLANG
  (void)file, (void)dir, (void)e;
  const char *why = "no AMDGPU clang was found when flysim was configured (install clang-22 and reconfigure)";
  check(r, "compiled", 0, "%s; the compile checks were not run", why);
  skip(r, "addresses", 0, why);
  skip(r, "lds_bytes", 0, "not compiled");
  skip(r, "no_scratch", 0, "not compiled");
  skip(r, "registers", 0, "not compiled");
  skip(r, "occupancy", 0, "not compiled");
  skip(r, "instruction_mix", 0, "not compiled");
  skip(r, "asm_simulation", 0, "not compiled");
  hip_run(r, p, file, dir, o);
  return FSIM_OK;
#else
  char obj[600], log[600], detail[700];
  snprintf(obj, sizeof obj, "%s/kernel.o", dir);
  snprintf(log, sizeof log, "%s/clang.log", dir);
  char arch[64];
  snprintf(arch, sizeof arch, "--offload-arch=%s", a->device.gfx);
  /* 1. the address self-test, on the host */
  {
    char st_bin[600], st_log[600], st_out[600];
    snprintf(st_bin, sizeof st_bin, "%s/selftest", dir);
    snprintf(st_log, sizeof st_log, "%s/selftest-build.log", dir);
    snprintf(st_out, sizeof st_out, "%s/selftest.out", dir);
    char *argv[] = {FSIM_HIP_CLANG, "-x", "c++", "-std=c++17", "-O1", "-DFSIM_ADDRESS_SELFTEST", "-o", st_bin,
                    (char *)file, NULL};
    int rc = run_tool(argv, 0, st_log, 300, NULL);
    if (rc != 0) {
      first_lines(st_log, detail, sizeof detail, 2);
      check(r, "addresses", 0, "the address self-test does not compile (status %d): %s", rc, detail);
    } else {
      char *rargv[] = {st_bin, NULL};
      rc = run_tool(rargv, 0, st_out, 300, NULL);
      char *text = rc == 0 ? fsim_file_read(st_out, NULL) : NULL;
      char why[600];
      int n = 0;
      if (text == NULL) check(r, "addresses", 0, "the address self-test failed to run (status %d)", rc);
      else if (fsim_emit_check_selftest(p, text, &n, why, sizeof why))
        check(r, "addresses", 1, "%d per-lane offsets of the kernel's copies, reads and stores equal the plan's", n);
      else
        check(r, "addresses", 0, "%s", why);
      r->addresses_checked = n;
      free(text);
    }
  }
  /* 2. the device compile */
  char *argv[] = {FSIM_HIP_CLANG, "-x", "hip", arch, "-nogpulib", "-nogpuinc", "--cuda-device-only",
                  "--no-gpu-bundle-output", "-O3", "-c", "-o", obj, (char *)file, NULL};
  int rc = run_tool(argv, 0, log, 600, &r->compile_host_seconds);
  struct stat sb;
  r->compiled = rc == 0 && stat(obj, &sb) == 0;
  /* 3. metadata: the kernel's resources (a file edited down to no kernel of that name
   * compiles, to nothing to check) */
  char tool[600], notes[600], dis[600];
  snprintf(tool, sizeof tool, "%s/llvm-readelf", FSIM_LLVM_BINDIR);
  snprintf(notes, sizeof notes, "%s/notes.txt", dir);
  meta md;
  int no_kernel = 0;
  if (r->compiled) {
    char *rargv[] = {tool, "--notes", obj, NULL};
    rc = run_tool(rargv, 0, notes, 120, NULL);
    char *ntext = rc == 0 ? fsim_file_read(notes, NULL) : NULL;
    int found = ntext != NULL && parse_notes(ntext, kernel, a->cu.max_agprs > 0, &md);
    free(ntext);
    if (!found && rc != 0)
      return FSIM_ERR(e, FSIM_ETOOL, "%s --notes gave no metadata for kernel %s (status %d)", tool, kernel, rc);
    no_kernel = !found;
    r->compiled = found;
  }
  if (!r->compiled) {
    if (no_kernel) {
      check(r, "compiled", 0, "%s compiled the file, but its code object has no kernel %s", FSIM_HIP_CLANG, kernel);
    } else {
      first_lines(log, detail, sizeof detail, 3);
      check(r, "compiled", 0, "%s failed (status %d): %s", FSIM_HIP_CLANG, rc, detail);
    }
    const char *why = no_kernel ? "the code object has no such kernel" : "the kernel did not compile";
    skip(r, "lds_bytes", 0, why);
    skip(r, "no_scratch", 0, why);
    skip(r, "registers", 0, why);
    skip(r, "occupancy", 0, why);
    skip(r, "instruction_mix", 0, why);
    skip(r, "asm_simulation", 0, why);
    hip_run(r, p, file, dir, o);
    return FSIM_OK;
  }
  check(r, "compiled", 1, "%s -O3 for %s", FSIM_HIP_CLANG, a->device.gfx);
  r->vgprs = (int)md.vgpr, r->agprs = (int)md.agpr, r->sgprs = (int)md.sgpr;
  r->vgpr_spills = (int)md.vgpr_spill, r->sgpr_spills = (int)md.sgpr_spill;
  r->lds_bytes = md.lds, r->scratch_bytes = md.scratch;
  check(r, "lds_bytes", md.lds == p->lds_bytes, "the code object allocates %lld bytes of LDS, the plan %lld", md.lds,
        (long long)p->lds_bytes);
  check(r, "no_scratch", md.scratch == 0 && md.vgpr_spill == 0 && md.sgpr_spill == 0,
        "scratch %lld bytes, %lld VGPR and %lld SGPR spills", md.scratch, md.vgpr_spill, md.sgpr_spill);
  int total = md.agpr > 0 ? (int)((md.vgpr + 3) / 4 * 4 + md.agpr) : (int)md.vgpr;
  check(r, "registers", total <= r->reg_budget && md.vgpr <= a->cu.max_vgprs && md.agpr <= a->cu.max_agprs,
        "%lld VGPR + %lld AGPR = %d registers a wave; the budget for %d waves per SIMD is %d; the plan estimated %d + %d",
        md.vgpr, md.agpr, total, occ.waves_per_simd, r->reg_budget, p->vgprs, p->agprs);
  fsim_occupancy co;
  fsim_occupancy_of(a, p->waves, (int)md.vgpr, (int)md.agpr, (int)md.sgpr, md.lds, &co);
  r->wgs_per_cu = co.wgs_per_cu, r->waves_per_simd = co.waves_per_simd;
  check(r, "occupancy", co.wgs_per_cu >= occ.wgs_per_cu,
        "%d workgroup(s) per CU (%d waves per SIMD, limited by %s); the simulation assumed %d (%d, limited by %s)",
        co.wgs_per_cu, co.waves_per_simd, co.limit, occ.wgs_per_cu, occ.waves_per_simd, occ.limit);
  /* 4. the disassembly */
  snprintf(tool, sizeof tool, "%s/llvm-objdump", FSIM_LLVM_BINDIR);
  snprintf(dis, sizeof dis, "%s/kernel.dis", dir);
  char mcpu[64];
  snprintf(mcpu, sizeof mcpu, "--mcpu=%s", a->device.gfx);
  char *dargv[] = {tool, "-d", mcpu, obj, NULL};
  rc = run_tool(dargv, 0, dis, 120, NULL);
  char *dtext = rc == 0 ? fsim_file_read(dis, NULL) : NULL;
  if (dtext == NULL) return FSIM_ERR(e, FSIM_ETOOL, "%s -d failed (status %d)", tool, rc);
  fsim_asm_kernel k;
  fsim_err pe;
  fsim_err_clear(&pe);
  fsim_status st = fsim_asm_parse(&k, dtext, dis, kernel, &pe);
  free(dtext);
  if (st != FSIM_OK) {
    check(r, "instruction_mix", 0, "the disassembly could not be read: %s", pe.msg);
    check(r, "asm_simulation", 0, "the disassembly could not be read");
  } else {
    mix(r, p, &k);
    simulate(r, p, &k, o, dir);
    fsim_asm_free(&k);
  }
  hip_run(r, p, file, dir, o);
  return FSIM_OK;
#endif
}

/* The work folder, which a run stopped by a signal removes too (unless --keep). */
static fsim_status make_dir(char *dir, size_t n, const fsim_verify_opts *o, fsim_err *e) {
  const char *tmp = getenv("TMPDIR");
  if (!tmp || !*tmp) tmp = "/tmp";
  /* the folder's files are named in buffers of the folder's size and a little more: a longer
   * TMPDIR is said, not cut short (a cut one failed as "cannot make a work folder .../flysim-veri") */
  if (strlen(tmp) + 64 > n)
    return FSIM_ERR(e, FSIM_EINVAL, "TMPDIR: a folder name of %zu characters; the work folder's paths allow at most %zu",
                    strlen(tmp), n - 64);
  snprintf(dir, n, "%s/flysim-verify-XXXXXX", tmp);
  if (mkdtemp(dir) == NULL) return FSIM_ERR(e, FSIM_EIO, "cannot make a work folder %s: %s", dir, strerror(errno));
  if (!(o && o->keep)) fsim_file_work_dir(dir);
  return FSIM_OK;
}

static void finish(fsim_verify_report *r, const char *dir, const fsim_verify_opts *o) {
  r->ok = r->nchecks > 0;
  for (int i = 0; i < r->nchecks; i++) r->ok &= r->checks[i].ok;
  if (o && o->keep) snprintf(r->workdir, sizeof r->workdir, "%s", dir);
  else remove_tree(dir);
  fsim_file_work_dir(NULL);
}

/* The line of the file (1-based) that sets key in [section] of the schedule embedded in its
 * header ("// [section]", then "// key = ..."), or 0, so that an error in it names the line
 * as `schedule check` does for a schedule file. */
static int embedded_line(const char *text, const char *section, const char *key) {
  const char *begin = strstr(text, "// flysim-schedule-begin\n");
  if (begin == NULL) return 0;
  int line = 1, in = 0;
  for (const char *c = text; c < begin; c++) line += *c == '\n';
  for (const char *c = begin; *c && strncmp(c, "// flysim-schedule-end", 22) != 0; line++) {
    size_t n = strcspn(c, "\n");
    if (n > 4 && strncmp(c, "// [", 4) == 0) {
      in = strlen(section) == n - 5 && strncmp(c + 4, section, n - 5) == 0 && c[n - 1] == ']';
    } else if (in && strncmp(c, "// ", 3) == 0 && strncmp(c + 3, key, strlen(key)) == 0) {
      const char *q = c + 3 + strlen(key);
      while (*q == ' ') q++;
      if (*q == '=') return line;
    }
    c += n + (c[n] == '\n');
  }
  return 0;
}

fsim_status fsim_verify_file(const char *path, const fsim_arch *a, const fsim_verify_opts *o, fsim_verify_report *r,
                             fsim_err *e) {
  memset(r, 0, sizeof *r);
  r->sim_warm = o && o->warm;
  snprintf(r->file, sizeof r->file, "%s", path);
  char *text;
  size_t len;
  fsim_status st = load_lf(path, &text, &len, e);
  if (st != FSIM_OK) return st;
  if (memchr(text, '\0', len) != NULL) {
    free(text);
    return FSIM_ERR(e, FSIM_EINVAL, "%s: not a text file", path);
  }
  fsim_emit_header *h = malloc(sizeof *h);
  fsim_gemm_plan *p = malloc(sizeof *p);
  st = h && p ? FSIM_OK : FSIM_ERR(e, FSIM_ENOMEM, "out of memory");
  if (st == FSIM_OK) st = fsim_emit_read_header(text, path, h, e);
  if (st == FSIM_OK && strcmp(h->gfx, a->device.gfx) != 0)
    st = FSIM_ERR(e, FSIM_EINVAL, "--arch %s: %s was emitted for %s (%s), not %s", a->device.name, path, h->gfx, h->part,
                  a->device.gfx);
  /* the same part with the same values: names and changes as fsim_arch_identity gives them */
  char part[256], changes[900];
  fsim_arch_identity(a, part, sizeof part, changes, sizeof changes);
  if (st == FSIM_OK && strcmp(h->part, part) != 0)
    st = FSIM_ERR(e, FSIM_EINVAL, "--arch %s: %s was emitted for the part %s, not %s (flysim before 0.2 wrote the "
                  "--arch spelling there: emit it again)", a->device.name, path, h->part, part);
  if (st == FSIM_OK && strcmp(h->overrides, changes) != 0)
    st = FSIM_ERR(e, FSIM_EINVAL, "--arch/--set: %s was emitted for %s with the changed values '%s', this arch has '%s'",
                  path, part, h->overrides[0] ? h->overrides : "none", changes[0] ? changes : "none");
  if (st == FSIM_OK) {
    st = fsim_gemm_plan_make(p, &h->schedule, a, e);
    char sec[96], key[96];
    int line = 0;
    if (st != FSIM_OK && e && sscanf(e->msg, "[%95[^]]] %95[^: ]:", sec, key) == 2) line = embedded_line(text, sec, key);
    if (st != FSIM_OK && line > 0) fsim_err_prefix(e, "%s:%d: the embedded schedule", path, line);
    else if (st != FSIM_OK) fsim_err_prefix(e, "%s: the embedded schedule", path);
  }
  if (st == FSIM_OK) {
    char sw[2][24];
    for (int i = 0; i < 2; i++) {
      if (p->op[i].sw.b == 0) snprintf(sw[i], sizeof sw[i], "none");
      else snprintf(sw[i], sizeof sw[i], "%d,%d,%d", p->op[i].sw.b, p->op[i].sw.m, p->op[i].sw.s);
      if (h->swizzle[i][0] && strcmp(h->swizzle[i], sw[i]) != 0) {
        st = FSIM_ERR(e, FSIM_EINVAL,
                      "%s: operand %c was emitted with swizzle %s, the plan rebuilt here chooses %s (another flysim "
                      "version, %s; emit it again)",
                      path, "AB"[i], h->swizzle[i], sw[i], h->version);
        break;
      }
    }
  }
  char dir[512];
  int sampled;
  if (st == FSIM_OK) st = sim_mode(p, o, &sampled, e);
  if (st == FSIM_OK) st = make_dir(dir, sizeof dir, o, e);
  if (st == FSIM_OK) {
    /* the checks read the file again (the source check, clang twice): a pipe or FIFO gives
     * its text once (verify <(cat k.hip) failed every check, a FIFO hung), so anything but a
     * regular file is checked as a copy of the text read above */
    struct stat sb;
    const char *src = path;
    char copy[600];
    if (stat(path, &sb) != 0 || !S_ISREG(sb.st_mode)) {
      snprintf(copy, sizeof copy, "%s/input.hip", dir);
      FILE *f = fopen(copy, "wb");
      if (f == NULL || fwrite(text, 1, len, f) != len) st = FSIM_ERR(e, FSIM_EIO, "%s: cannot write", copy);
      if (f && fclose(f) != 0 && st == FSIM_OK) st = FSIM_ERR(e, FSIM_EIO, "%s: cannot write", copy);
      src = copy;
    }
    if (st == FSIM_OK) st = verify_in(src, p, h->kernel, dir, o, r, e);
    finish(r, dir, o);
  }
  free(text);
  free(h);
  free(p);
  return st;
}

fsim_status fsim_verify_plan(const fsim_gemm_plan *p, const fsim_emit_opts *eo, const fsim_verify_opts *o,
                             fsim_verify_report *r, fsim_err *e) {
  memset(r, 0, sizeof *r);
  r->sim_warm = o && o->warm;
  char dir[512], file[600];
  int sampled;
  fsim_status st = sim_mode(p, o, &sampled, e);
  if (st != FSIM_OK) return st;
  st = make_dir(dir, sizeof dir, o, e);
  if (st != FSIM_OK) return st;
  snprintf(file, sizeof file, "%s/kernel.hip", dir);
  snprintf(r->file, sizeof r->file, "%s", file);
  fsim_emit_info info;
  st = fsim_emit_hip_file(p, eo, file, &info, e);
  if (st == FSIM_OK) st = verify_in(file, p, info.kernel, dir, o, r, e);
  finish(r, dir, o);
  if (!(o && o->keep)) r->file[0] = '\0'; /* a random folder's name, removed by now */
  return st;
}
