/* The problem flags that predict, tune, emit, verify and db show share:
 *   OP (gemm, grouped-gemm, scaled-gemm) --m --n --k [--dtype] [--b-dtype] [--c-dtype]
 *   [--layout] [--groups] [--config CFG | --schedule FILE] --arch NAME [--set S.K=V]...
 * A command lists FSIM_CLI_GEMM_OPTIONS in its getopt table and passes every option it does
 * not handle itself to fsim_cli_gemm_option. */
#ifndef FSIM_CLI_GEMM_ARGS_H
#define FSIM_CLI_GEMM_ARGS_H

#include <getopt.h>

#include "cli/common.h"
#include "kernels/gemm_space.h"

enum {
  FSIM_OPT_M = 1000,
  FSIM_OPT_N,
  FSIM_OPT_K,
  FSIM_OPT_DTYPE,
  FSIM_OPT_B_DTYPE,
  FSIM_OPT_C_DTYPE,
  FSIM_OPT_LAYOUT,
  FSIM_OPT_GROUPS,
  FSIM_OPT_CONFIG,
  FSIM_OPT_SCHEDULE,
  FSIM_OPT_ARCH,
  FSIM_OPT_SET,
  FSIM_OPT_DB,
};

#define FSIM_CLI_GEMM_OPTIONS                                                                                          \
  {"m", required_argument, NULL, FSIM_OPT_M}, {"n", required_argument, NULL, FSIM_OPT_N},                              \
      {"k", required_argument, NULL, FSIM_OPT_K}, {"dtype", required_argument, NULL, FSIM_OPT_DTYPE},                  \
      {"b-dtype", required_argument, NULL, FSIM_OPT_B_DTYPE}, {"c-dtype", required_argument, NULL, FSIM_OPT_C_DTYPE},  \
      {"layout", required_argument, NULL, FSIM_OPT_LAYOUT}, {"groups", required_argument, NULL, FSIM_OPT_GROUPS},      \
      {"config", required_argument, NULL, FSIM_OPT_CONFIG}, {"schedule", required_argument, NULL, FSIM_OPT_SCHEDULE},  \
      {"arch", required_argument, NULL, FSIM_OPT_ARCH}, {"set", required_argument, NULL, FSIM_OPT_SET},                \
      {"db", required_argument, NULL, FSIM_OPT_DB}

/* The usage lines for these flags: problem, --config, --schedule and part, so that a command
 * that takes no schedule file (tune) can leave that line out. */
#define FSIM_CLI_GEMM_HELP_PROBLEM(mnk_required) FSIM_CLI_GEMM_HELP_PROBLEM_OPS("gemm, grouped-gemm or scaled-gemm", mnk_required)
/* ops: the operators the command takes, as its help names them */
#define FSIM_CLI_GEMM_HELP_PROBLEM_OPS(ops, mnk_required)                                                               \
  "problem (OP is " ops "):\n"                                                                                         \
  "  MxNxK              the shape after OP, e.g. 4096x4096x4096 (or the three flags below)\n"                      \
  "  --m M --n N --k K  C is MxN, the reduction is K (" mnk_required ")\n"                                          \
  "  --dtype T          operand type: bf16 (default), fp16, fp8; scaled-gemm: fp8 (default) or fp4\n"                          \
  "  --b-dtype T        B's type when it differs (scaled-gemm: fp8 x fp4)\n"                                          \
  "  --c-dtype T        output type (default bf16)\n"                                                                 \
  "  --layout L         TN (default: both K-contiguous), NN, NT or TT\n"                                             \
  "  --groups G         grouped-gemm: independent problems of MxNxK (default 1)\n"
#define FSIM_CLI_GEMM_HELP_CONFIG                                                                                      \
  "schedule:\n"                                                                                                        \
  "  --config CFG       key=value,... (tile=BMxBNxBK, waves=WMxWN, stages=S, mfma=MxNxK, splitk=S,\n"               \
  "                     path=direct|registers, c=lds|direct, kind=plain|pingpong, remap, groupm,\n"                  \
  "                     swizzle=auto|none|B,M,S); keys left out are tuned (docs/gemm.md)\n"
#define FSIM_CLI_GEMM_HELP_SCHEDULE                                                                                    \
  "  --schedule FILE    a schedule file (kernels/schedules/); its [problem] is the default shape,\n"             \
  "                     and its operator OP's when OP is left out\n"
#define FSIM_CLI_GEMM_HELP_PART                                                                                        \
  "part:\n"                                                                                                            \
  "  --arch NAME        the part (see 'flysim arch list')\n"                                                         \
  "  --set S.K=V        override an arch key (what-if)\n"                                                            \
  "  --db FILE          tuning database (default $FLYSIM_DB, else ./flysim-tuning.db)\n"
#define FSIM_CLI_GEMM_HELP                                                                                             \
  FSIM_CLI_GEMM_HELP_PROBLEM("required unless --schedule gives them")                                                 \
  FSIM_CLI_GEMM_HELP_CONFIG FSIM_CLI_GEMM_HELP_SCHEDULE FSIM_CLI_GEMM_HELP_PART
/* emit's and verify's: scaled-gemm kernels are not emitted yet (docs/emit.md) */
#define FSIM_CLI_GEMM_HELP_EMITTED                                                                                     \
  FSIM_CLI_GEMM_HELP_PROBLEM_OPS("gemm or grouped-gemm; scaled-gemm kernels are not emitted yet",                     \
                                 "required unless --schedule gives them")                                              \
  FSIM_CLI_GEMM_HELP_CONFIG FSIM_CLI_GEMM_HELP_SCHEDULE FSIM_CLI_GEMM_HELP_PART

typedef struct fsim_cli_gemm {
  const char *cmd;
  fsim_kop op;
  int op_from_schedule; /* 1: OP left out, the --schedule file's (fsim_cli_gemm_finish) */
  long long m, n, k;
  int groups, groups_given;
  const char *dtype, *b_dtype, *c_dtype, *layout;
  const char *config, *schedule_path, *arch, *db;
  int falls_back;       /* 1 (predict): a problem FlyDSL's path does not take falls back, so a
                         * --schedule file is not checked against it (its syntax still is) */
  fsim_cli_sets sets;
  /* filled by fsim_cli_gemm_finish */
  fsim_arch a;
  fsim_gemm_problem pr;
  fsim_schedule schedule; /* when schedule_path */
} fsim_cli_gemm;

void fsim_cli_gemm_init(fsim_cli_gemm *g, const char *cmd);
/* Handles one getopt result c (optarg its value): 1 taken, 0 not one of ours, or an exit code
 * (2) after printing the error. */
int fsim_cli_gemm_option(fsim_cli_gemm *g, int c, const char *arg);
/* --sampled (c 'S') or --full ('F') into *sampled (-1 until given): 0, or 2 after printing
 * when the other one was given too. */
int fsim_cli_sampled_flag(const char *cmd, int c, int *sampled);
/* Takes OP from argv[optind] (the one positional argument). Returns 0 or prints and 2. */
int fsim_cli_gemm_positional(fsim_cli_gemm *g, int argc, char **argv, int optind_);
/* Loads the arch and the schedule file, builds and checks the problem.  0 or an exit code. */
int fsim_cli_gemm_finish(fsim_cli_gemm *g);
/* 0, or 2 after printing when --config is malformed: a problem that falls back has no kernel,
 * but its config is still read as predict reads it (keys, forms, each key's own range); whether
 * it is a legal kernel cannot be judged without one (docs/cli.md). */
int fsim_cli_gemm_check_config(const fsim_cli_gemm *g);
/* The database path: --db, else $FLYSIM_DB, else ./flysim-tuning.db. */
const char *fsim_cli_db_path(const char *flag);
/* 0, or 2 after printing when that path cannot be a database (a directory, a device, a path
 * through a file, :memory:, ...: fsim_db_check_path), even where the command will not read
 * it (a --config); one that does not exist yet is fine. */
int fsim_cli_check_db_path(const char *cmd, const char *flag);

/* "4096x4096x4096 bf16 TN -> bf16" */
void fsim_cli_problem_text(const fsim_gemm_problem *pr, char *buf, size_t n);
/* The problem as a JSON object: op, m, n, k, groups, a_type, b_type, c_type, layout. */
json_t *fsim_cli_problem_json(const fsim_gemm_problem *pr);

#endif
