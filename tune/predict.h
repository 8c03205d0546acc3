/* One prediction of a GEMM-family problem, as `flysim predict` gives it: choose the schedule
 * (a schedule file, a complete --config, the tuning database's winner, or a tuning run over
 * what the config leaves free), then time it with the cycle-level simulator or the analytical
 * model.  A problem FlyDSL's path does not take (a scaled GEMM with K not a multiple of 128)
 * is not an error: as in PyTorch it falls back, and the prediction, with the reason, estimates
 * the fallback path by flysim's kernel for the nearest problem the path takes
 * (fsim_gemm_nearest_supported), or by a roofline where there is none. */
#ifndef FSIM_PREDICT_H
#define FSIM_PREDICT_H

#include "tune/tune.h"

typedef enum fsim_predict_mode { FSIM_MODE_SIM, FSIM_MODE_MODEL } fsim_predict_mode;

typedef struct fsim_predict_req {
  fsim_gemm_problem pr;
  const fsim_schedule *schedule; /* a schedule file's contents (its problem is pr), or NULL */
  const char *config;            /* --config text, or NULL */
  const char *db_path;           /* read the stored winner from here when no config (NULL: none) */
  fsim_predict_mode mode;
  int sampled;                   /* -1 auto, 0 full, 1 sampled */
  int refine;                    /* when tuning: configurations simulated (0: default) */
  int warm;                      /* sim mode: time a launch that follows an identical one */
  int sample_trips[2];           /* sim mode, sampled: the short runs' main-loop trip counts (0: 6 and 12) */
  const char *timeline;          /* sim mode: Chrome trace of CU 0 */
} fsim_predict_req;

typedef struct fsim_prediction {
  const char *backend;           /* "flydsl" or "fallback" */
  char fallback_reason[200];
  const char *source;            /* where the config came from: schedule, config, database, tuned;
                                    a fallback: nearest (estimated by the nearest problem's kernel) or roofline */
  fsim_gemm_problem nearest;     /* source "nearest": that problem; schedule and config are its kernel's */
  char nearest_how[160];         /* and how it differs ("K 4098") */
  char source_note[400];         /* tuned: why ("nothing stored for this problem", ...) */
  fsim_schedule schedule;        /* flydsl: the schedule that was timed */
  char config[200];
  double time_us, clock_ghz, tflops, peak_tflops;
  const char *peak_class; /* the peak_tflops' class (fsim_gemm_peak_class) */
  const char *bound;
  fsim_estimate est;             /* the model's estimate (both modes) */
  int simulated;                 /* sim mode: sim holds the simulation */
  fsim_sim_result sim;
  int64_t tuned_legal;           /* when tuned: legal configurations ranked */
  double host_seconds;
} fsim_prediction;

/* The database key of an arch: its part name (the arch file's name, "mi355x"), plus its
 * --set overrides in brackets (a what-if part keeps its own winners). */
void fsim_db_arch_key(const fsim_arch *a, char *buf, size_t n);

/* 1 when a stored config is a legal plan of pr on a now (a config stored by another flysim
 * version, or edited by hand, may not be), its schedule in *out (NULL: not wanted); else 0
 * and the reason in why. */
int fsim_predict_stored_legal(const fsim_arch *a, const fsim_gemm_problem *pr, const char *config, fsim_schedule *out,
                              fsim_err *why);

/* Chooses the schedule for req on a (schedule, config, database or tuning; *source says
 * which), without timing it.  Fails with FSIM_EINVAL on an unsupported problem: call
 * fsim_gemm_supported first. */
fsim_status fsim_predict_choose(const fsim_arch *a, const fsim_predict_req *req, fsim_schedule *out,
                                const char **source, char *note, size_t note_n, fsim_err *e);

/* The database entry of a problem (key fields) with the winner's values. */
struct fsim_db_entry;
void fsim_predict_db_entry(const fsim_arch *a, const fsim_gemm_problem *pr, const char *config, const char *backend,
                           double time_us, double tflops, double model_us, struct fsim_db_entry *out);

fsim_status fsim_predict_gemm(const fsim_arch *a, const fsim_predict_req *req, fsim_prediction *out, fsim_err *e);

#endif
