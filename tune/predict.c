/* One prediction: see predict.h. */
#include "config.h"

#include "tune/predict.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "tune/db.h"

void fsim_db_arch_key(const fsim_arch *a, char *buf, size_t n) {
  /* the part's name, with its values that differ from the shipped part's in brackets (or its
   * fingerprint after '#'): "mi355x", "mi355x[device.sustained_clock_ghz=1.2]" */
  char name[256], changes[900];
  fsim_arch_identity(a, name, sizeof name, changes, sizeof changes);
  if (changes[0] == '\0')
    snprintf(buf, n, "%s", name);
  else if (changes[0] == '#')
    snprintf(buf, n, "%s%s", name, changes);
  else
    snprintf(buf, n, "%s[%s]", name, changes);
}

/* The database key of a problem. */
static void db_key(const fsim_arch *a, const fsim_gemm_problem *pr, fsim_db_entry *k) {
  memset(k, 0, sizeof *k);
  fsim_db_arch_key(a, k->arch, sizeof k->arch);
  snprintf(k->op, sizeof k->op, "%s", fsim_kop_name(pr->op));
  k->m = pr->m, k->n = pr->n, k->k = pr->k;
  k->groups = pr->op == FSIM_KOP_GROUPED_GEMM ? pr->groups : 1;
  snprintf(k->a_type, sizeof k->a_type, "%s", fsim_dtype_name(pr->a));
  snprintf(k->b_type, sizeof k->b_type, "%s", fsim_dtype_name(pr->b));
  snprintf(k->c_type, sizeof k->c_type, "%s", fsim_dtype_name(pr->c));
  snprintf(k->layout, sizeof k->layout, "%s", fsim_layout_name(pr->layout));
}

void fsim_predict_db_entry(const fsim_arch *a, const fsim_gemm_problem *pr, const char *config, const char *backend,
                           double time_us, double tflops, double model_us, fsim_db_entry *out) {
  db_key(a, pr, out);
  snprintf(out->config, sizeof out->config, "%s", config);
  snprintf(out->backend, sizeof out->backend, "%s", backend);
  /* the version, and which values of the part the time is for: a shipped file edited in place
   * keeps its name and key, and its winners' times were found with other values (tune
   * replaces another version's winner rather than compare times with it) */
  snprintf(out->version, sizeof out->version, "%s#%08x", PACKAGE_VERSION, (unsigned)(fsim_arch_fingerprint(a) >> 32));
  out->time_us = time_us;
  out->tflops = tflops;
  out->model_us = model_us;
}

/* The stored winner's config, if the database has one; a database that does not exist is
 * simply empty for predict (it never creates one). */
static fsim_status stored_config(const fsim_arch *a, const fsim_gemm_problem *pr, const char *path, char *config,
                                 size_t n, int *found, fsim_err *e) {
  *found = 0;
  if (path == NULL) return FSIM_OK;
  fsim_status st = fsim_db_check_path(path, 0, e);
  if (st == FSIM_ENOENT) return FSIM_OK; /* nothing stored yet */
  if (st != FSIM_OK) return st;
  fsim_db *db;
  st = fsim_db_open(&db, path, 0, e);
  if (st != FSIM_OK) return st;
  fsim_db_entry key, got;
  db_key(a, pr, &key);
  st = fsim_db_get(db, &key, &got, found, e);
  fsim_db_close(db);
  if (st == FSIM_OK && *found) snprintf(config, n, "%s", got.config);
  return st;
}

int fsim_predict_stored_legal(const fsim_arch *a, const fsim_gemm_problem *pr, const char *config, fsim_schedule *out,
                              fsim_err *why) {
  fsim_err_clear(why);
  fsim_gemm_config c;
  fsim_gemm_config_free_all(&c);
  fsim_schedule s;
  if (out == NULL) out = &s;
  if (fsim_gemm_config_parse(config, &c, why) != FSIM_OK) return 0;
  if (!fsim_gemm_config_complete(&c)) {
    snprintf(why->msg, sizeof why->msg, "incomplete");
    return 0;
  }
  if (fsim_gemm_schedule_from(pr, &c, a, out, why) != FSIM_OK) return 0;
  fsim_gemm_plan *p = malloc(sizeof *p);
  if (p == NULL) {
    snprintf(why->msg, sizeof why->msg, "out of memory");
    return 0;
  }
  fsim_status st = fsim_gemm_plan_make(p, out, a, why);
  free(p);
  return st == FSIM_OK;
}

fsim_status fsim_predict_choose(const fsim_arch *a, const fsim_predict_req *req, fsim_schedule *out,
                                const char **source, char *note, size_t note_n, fsim_err *e) {
  if (note && note_n) note[0] = '\0';
  if (req->schedule != NULL) {
    *out = *req->schedule;
    *source = "schedule";
    return FSIM_OK;
  }
  fsim_gemm_config c;
  fsim_gemm_config_free_all(&c);
  if (req->config != NULL) {
    fsim_status st = fsim_gemm_config_parse(req->config, &c, e);
    if (st != FSIM_OK) return st;
    if (fsim_gemm_config_complete(&c)) {
      *source = "config";
      st = fsim_gemm_schedule_from(&req->pr, &c, a, out, e);
      if (st != FSIM_OK) {
        fsim_err_prefix(e, "--config");
        return st;
      }
      /* a complete config must also be a legal plan: say why not */
      fsim_gemm_plan *p = malloc(sizeof *p);
      if (p == NULL) return FSIM_ERR(e, FSIM_ENOMEM, "out of memory");
      st = fsim_gemm_plan_make(p, out, a, e);
      free(p);
      if (st != FSIM_OK) fsim_err_prefix(e, "--config");
      return st;
    }
  } else {
    char stored[200];
    int found;
    fsim_status st = stored_config(a, &req->pr, req->db_path, stored, sizeof stored, &found, e);
    if (st != FSIM_OK) return st;
    if (!found && note) snprintf(note, note_n, "nothing stored for this problem");
    if (found) {
      /* a winner stored by another flysim version may no longer be legal: tune instead */
      fsim_err why;
      if (fsim_predict_stored_legal(a, &req->pr, stored, out, &why)) {
        *source = "database";
        return FSIM_OK;
      }
      if (note) snprintf(note, note_n, "the stored winner '%s' is not a legal config now: %s", stored, why.msg);
    }
  }
  if (req->config != NULL && note) snprintf(note, note_n, "over the keys --config leaves free");
  /* tune over what the config leaves free, as `flysim tune` would (its default refinement:
   * --full and --sampled are about the prediction, and a full refinement of a large problem
   * would cost its candidates' full runs) */
  fsim_tune_opts o = {.fixed = &c, .refine = req->refine, .sampled = -1, .warm = req->warm,
                      .model_only = req->mode == FSIM_MODE_MODEL};
  fsim_tune_result *r = malloc(sizeof *r);
  if (r == NULL) return FSIM_ERR(e, FSIM_ENOMEM, "out of memory");
  fsim_status st = fsim_tune_gemm(a, &req->pr, &o, r, e);
  if (st == FSIM_OK) {
    *out = r->schedule;
    *source = "tuned";
  }
  free(r);
  return st;
}

fsim_status fsim_predict_gemm(const fsim_arch *a, const fsim_predict_req *req, fsim_prediction *out, fsim_err *e) {
  struct timespec t0, t1;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  memset(out, 0, sizeof *out);
  const fsim_gemm_problem *pr = &req->pr;
  fsim_status st = fsim_gemm_problem_check(pr, e);
  if (st == FSIM_OK) st = fsim_gemm_problem_fits(pr, a, e);
  if (st != FSIM_OK) return st;
  fsim_arch_derived d;
  fsim_arch_derive(a, &d);
  const char *cls = fsim_gemm_peak_class(pr, a);
  int ci = fsim_arch_peak_class_index(cls);
  out->peak_class = cls;
  out->peak_tflops = ci >= 0 ? d.peak_tflops[ci] : 0;
  out->clock_ghz = a->device.sustained_clock_ghz;
  double flops = fsim_gemm_problem_flops(pr);
  if (!fsim_gemm_supported(pr, a, out->fallback_reason, sizeof out->fallback_reason)) {
    /* the fallback ignores the config, but a malformed one is still an input error */
    fsim_gemm_config c;
    fsim_gemm_config_free_all(&c);
    if (req->config != NULL && (st = fsim_gemm_config_parse(req->config, &c, e)) != FSIM_OK) return st;
    char reason[sizeof out->fallback_reason];
    memcpy(reason, out->fallback_reason, sizeof reason);
    fsim_gemm_problem near;
    char how[sizeof out->nearest_how];
    if (fsim_gemm_nearest_supported(pr, a, &near, how, sizeof how)) {
      /* flysim does not model the fallback library's kernels: the kernel flysim would choose for
       * the nearest problem the FlyDSL path takes stands in for them (no --config or schedule:
       * they were for the problem asked; a stored winner of that problem is used) */
      fsim_predict_req nreq = *req;
      nreq.pr = near;
      nreq.schedule = NULL;
      nreq.config = NULL;
      nreq.timeline = NULL;
      if ((st = fsim_predict_gemm(a, &nreq, out, e)) != FSIM_OK) return st;
      out->nearest = near;
      snprintf(out->nearest_how, sizeof out->nearest_how, "%s", how);
      out->source = "nearest";
    } else {
      out->source = "roofline";
      out->time_us = fsim_model_roofline_us(a, flops, fsim_gemm_problem_bytes(pr), cls, &out->bound);
    }
    out->backend = "fallback";
    memcpy(out->fallback_reason, reason, sizeof reason);
    out->peak_class = cls;
    out->peak_tflops = ci >= 0 ? d.peak_tflops[ci] : 0;
  } else {
    out->backend = "flydsl";
    if (req->warm && req->sampled == 1 && req->mode == FSIM_MODE_SIM) {
      /* refused before a tuning run's simulations, not after them: A, B and C are the least any
       * config's footprint holds */
      int sampled = 1;
      st = fsim_sim_warm_sampled(a, (int64_t)fsim_gemm_problem_bytes(pr), &sampled, e);
      if (st != FSIM_OK) return st;
    }
    st = fsim_predict_choose(a, req, &out->schedule, &out->source, out->source_note, sizeof out->source_note, e);
    if (st != FSIM_OK) return st;
    fsim_gemm_config_format(&out->schedule, out->config, sizeof out->config);
    if (req->mode == FSIM_MODE_MODEL) {
      fsim_gemm_plan *p = malloc(sizeof *p);
      if (p == NULL) return FSIM_ERR(e, FSIM_ENOMEM, "out of memory");
      st = fsim_gemm_plan_make(p, &out->schedule, a, e);
      if (st == FSIM_OK) {
        fsim_plan_summary sum;
        fsim_gemm_summary(p, &sum);
        if (fsim_model_estimate(a, &sum, &out->est) != 0)
          st = FSIM_ERR(e, FSIM_EINVAL, "a workgroup of this schedule does not fit on a CU of %s", a->device.name);
      }
      free(p);
      if (st != FSIM_OK) return st;
      out->time_us = out->est.time_us;
      out->bound = out->est.bound;
    } else {
      st = fsim_tune_evaluate(a, &out->schedule, req->sampled, req->warm, req->sample_trips[0] ? req->sample_trips : NULL,
                              fsim_host_threads(), req->timeline, &out->sim, &out->est, e);
      if (st != FSIM_OK) return st;
      out->simulated = 1;
      out->time_us = out->sim.time_us;
      out->clock_ghz = out->sim.clock_ghz;
      out->bound = fsim_tune_bound(&out->sim, &out->est);
    }
  }
  out->tflops = out->time_us > 0 ? flops / (out->time_us * 1e-6) / 1e12 : 0;
  clock_gettime(CLOCK_MONOTONIC, &t1);
  out->host_seconds = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) * 1e-9;
  return FSIM_OK;
}
