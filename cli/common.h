/* Helpers shared by the subcommands of the flysim command: option errors, loading the
 * arch with its --set overrides, JSON printing and the "produced by" header that every
 * report starts with.  Only the command line prints; the library returns errors. */
#ifndef FSIM_CLI_COMMON_H
#define FSIM_CLI_COMMON_H

#include <getopt.h>
#include <jansson.h>
#include <stdio.h>

#include "model/arch.h"
#include "util/status.h"
#include "util/text.h"

#define FSIM_EXIT_OK 0
#define FSIM_EXIT_FAIL 1
#define FSIM_EXIT_USAGE 2

/* Prints "flysim CMD: message" to stderr and returns 2 (invalid input). */
int fsim_cli_usage_error(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Prints an error record as "flysim CMD: msg" and returns its exit code. */
int fsim_cli_report(const char *cmd, const fsim_err *e);
/* Names the tuning database's source in the error lines above: "--db PATH" in a message
 * reads "LABEL PATH" ($FLYSIM_DB, the default) once this is called (fsim_cli_db_path does). */
void fsim_cli_db_source(const char *label, const char *path);

/* Collected --set overrides. */
typedef struct fsim_cli_sets {
  const char *items[64];
  int n;
} fsim_cli_sets;
int fsim_cli_sets_add(fsim_cli_sets *s, const char *cmd, const char *value);

/* Loads the arch NAME and applies the overrides; on error prints and returns the exit code.
 * An empty NAME is refused as "--arch: an empty name". */
int fsim_cli_load_arch(const char *cmd, const char *name, const fsim_cli_sets *sets, fsim_arch *out);
/* The same, naming the argument label ("NAME" for a positional part) in a not-found error. */
int fsim_cli_load_arch_as(const char *cmd, const char *label, const char *name, const fsim_cli_sets *sets,
                          fsim_arch *out);

/* The getopt_long error for the option just rejected (argv[optind-1] or optopt). */
int fsim_cli_bad_option(const char *cmd, int argc, char **argv);
/* getopt_long that takes a long option only when spelt in full ("--arch", "--arch=X"), not
 * abbreviated ("--ar"): an abbreviation returns '?', which fsim_cli_bad_option reports. */
int fsim_cli_getopt(int argc, char **argv, const char *optstring, const struct option *opts);

/* Writes JSON to stdout, deterministic (insertion order, 12 significant digits). Steals root. */
int fsim_cli_print_json(json_t *root);
/* The "produced_by" object: tool, version, arch file and overrides, plus extra items. */
json_t *fsim_cli_provenance(const fsim_arch *a);
/* The same as one comment line for text reports. */
void fsim_cli_print_provenance(FILE *f, const fsim_arch *a);

/* 1 when paths a and b name one file: by device and inode when both exist, else by the real
 * path of the folder plus the name. */
int fsim_cli_same_file(const char *a, const char *b);
/* Refuses an output path that is one of the inputs (in NULL: nothing to compare), or "-" (the
 * name of standard output, which holds the report; db export takes it as no -o): 0, or prints
 * "OUT_FLAG OUT: the same file as IN_FLAG IN; refusing to overwrite an input" (or "OUT_FLAG -:
 * give a file name ...") and returns 2. */
int fsim_cli_check_output(const char *cmd, const char *out_flag, const char *out, const char *in_flag,
                          const char *in);

/* Parses a positive integer argument; returns 0 or prints and returns 2. */
int fsim_cli_parse_long(const char *cmd, const char *flag, const char *text, long lo, long hi, long *out);
/* --sample-trips S1,S2: the main-loop trip counts of a sampled run's two short runs
 * (fsim_sim_opts.sample_trips), 1 <= S1 < S2 <= FSIM_CLI_MAX_SAMPLE_TRIPS; returns 0 or
 * prints and returns 2. */
#define FSIM_CLI_MAX_SAMPLE_TRIPS 65536
int fsim_cli_parse_sample_trips(const char *cmd, const char *text, int out[2]);
int fsim_cli_parse_double(const char *cmd, const char *flag, const char *text, double lo, double hi,
                          double *out);

#endif
