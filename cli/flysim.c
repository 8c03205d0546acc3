/* The flysim command: dispatches to the subcommands.  The contract for subcommands, flags
 * and JSON keys is in docs/cli.md; scripts depend on it, so spellings never change. */
#include "config.h"

#include <stdio.h>
#include <ctype.h>
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "cli/commands.h"
#include "cli/common.h"
#include "util/file.h"

static const struct {
  const char *name;
  int (*run)(int argc, char **argv);
  const char *summary;
} commands[] = {
    {"arch", fsim_cmd_arch, "hardware descriptions: list, show, diff"},
    {"layout", fsim_cmd_layout, "evaluate layout algebra expressions"},
    {"sim", fsim_cmd_sim, "simulate a wave-program file cycle by cycle"},
    {"micro", fsim_cmd_micro, "microbenchmarks of the model: mfma, lds, latency, bandwidth"},
    {"schedule", fsim_cmd_schedule, "check or print a kernel schedule file"},
    {"predict", fsim_cmd_predict, "predict one kernel's time (simulator or model)"},
    {"tune", fsim_cmd_tune, "rank every legal config of a problem or suite, store the winners"},
    {"db", fsim_cmd_db, "read the tuning database: list, show, export"},
    {"emit", fsim_cmd_emit, "write the HIP kernel of a GEMM schedule"},
    {"verify", fsim_cmd_verify, "compile an emitted kernel and check it against the plan"},
};
#define N_COMMANDS (sizeof commands / sizeof commands[0])

static int finish(int rc);

/* The operators (OP in the commands' arguments): 'flysim OP --help' says what each takes and
 * which commands take it, as docs/cli.md's contract promises. */
static const struct {
  const char *name;
  const char *usage;
  const char *help;
} operators[] = {
    {"gemm", "flysim (predict|tune|emit|verify) gemm SHAPE [options]",
     "dense GEMM: C (M x N) = A (M x K) x B (K x N), accumulated in fp32.\n"
     "shape:\n"
     "  MxNxK | --m M --n N --k K   the problem (a schedule file's [problem] gives them too)\n"
     "  --dtype T                   A's and B's type: bf16 (default), fp16, fp8 (E4M3)\n"
     "  --b-dtype T                 B's type where it differs\n"
     "  --c-dtype T                 C's type (default bf16)\n"
     "  --layout L                  TN (default: both K-contiguous), NN, NT or TT\n"
     "taken by: predict, tune (also --suite default), emit, verify; schedule files (op = gemm).\n"
     "A problem the FlyDSL path does not take falls back (\"backend\": \"fallback\").\n"
     "docs/gemm.md\n"},
    {"grouped-gemm", "flysim (predict|tune|emit|verify) grouped-gemm SHAPE [--groups G] [options]",
     "grouped GEMM: G independent GEMMs of one shape in one launch.\n"
     "shape: gemm's (see 'flysim gemm --help'), and\n"
     "  --groups G                  the number of problems (default 1)\n"
     "taken by: predict, tune, emit, verify; schedule files (op = grouped-gemm).\n"
     "docs/gemm.md\n"},
    {"scaled-gemm", "flysim (predict|tune) scaled-gemm SHAPE [--dtype fp8|fp4] [options]",
     "MX scaled GEMM: FP8-E4M3 or packed FP4-E2M1 operands, one E8M0 scale per 32 values\n"
     "along K, on gfx950's scaled MFMA.\n"
     "shape:\n"
     "  MxNxK | --m M --n N --k K   the problem; K a multiple of 128, else it falls back\n"
     "  --dtype T                   fp8 (default) or fp4\n"
     "  --b-dtype T                 B's type where it differs (fp8 x fp4)\n"
     "  --c-dtype T                 C's type (default bf16)\n"
     "  --layout TN                 the only layout its kernels take (others fall back)\n"
     "taken by: predict, tune; schedule files (op = scaled-gemm).  emit and verify do not\n"
     "take it yet (no scaled kernel is emitted).  A part without scaled MFMA (gfx942,\n"
     "gfx1201) falls back.\n"
     "docs/gemm.md\n"},
    {"attention", "flysim schedule check|print FILE (a schedule file whose op is attention)",
     "fused attention (flash attention forward).\n"
     "taken by: 'flysim schedule check|print' (schedule files, op = attention; their [problem]\n"
     "gives batch, heads, sequence lengths and head_dim).  predict, tune, emit and verify take\n"
     "only the GEMM family so far.\n"
     "docs/schedules.md\n"},
    {"rmsnorm", "flysim schedule check|print FILE (a schedule file whose op is rmsnorm)",
     "RMSNorm over rows.\n"
     "taken by: 'flysim schedule check|print' (schedule files, op = rmsnorm; [problem] gives\n"
     "rows and cols).  predict, tune, emit and verify take only the GEMM family so far.\n"
     "docs/schedules.md\n"},
    {"topk", "flysim schedule check|print FILE (a schedule file whose op is topk)",
     "TopK gating: the k largest of each row's values.\n"
     "taken by: 'flysim schedule check|print' (schedule files, op = topk; [problem] gives\n"
     "rows, experts and topk).  predict, tune, emit and verify take only the GEMM family so\n"
     "far.\n"
     "docs/schedules.md\n"},
};
#define N_OPERATORS (sizeof operators / sizeof operators[0])

/* The operator named s, or -1. */
static int operator_of(const char *s) {
  for (size_t i = 0; i < N_OPERATORS; i++)
    if (strcmp(s, operators[i].name) == 0) return (int)i;
  return -1;
}

static int operator_help(int k) {
  printf("usage: %s\n       (each command's own options: 'flysim COMMAND --help')\n\n%s: %s", operators[k].usage,
         operators[k].name, operators[k].help);
  return finish(FSIM_EXIT_OK);
}

static void usage(FILE *f) {
  fprintf(f,
          "usage: flysim COMMAND [ARGS]\n"
          "\n"
          "flysim models AMD MI350-series GPUs (gfx950; also MI300X, gfx942, and RX 9070 XT,\n"
          "gfx1201) and predicts, tunes and emits FlyDSL-style kernel schedules.\n"
          "'flysim COMMAND --help' describes a command, 'flysim OP --help' an operator\n"
          "(gemm, grouped-gemm, scaled-gemm, attention, rmsnorm, topk).\n"
          "\n"
          "commands:\n");
  for (size_t i = 0; i < N_COMMANDS; i++) fprintf(f, "  %-8s %s\n", commands[i].name, commands[i].summary);
  fprintf(f,
          "\n"
          "options:\n"
          "  --help     this text ('flysim help COMMAND|OP': a command's or an operator's)\n"
          "  --version  the version\n"
          "\n"
          "exit status: 0 success, 1 the work failed, 2 invalid input\n");
}

/* A report that did not reach standard output (a full disk, a closed pipe) is a failure:
 * exit 1 with the reason, whatever the command returned. */
static int finish(int rc) {
  errno = 0;
  int flushed = fflush(stdout) == 0;
  if (!flushed || ferror(stdout)) {
    fprintf(stderr, "flysim: standard output: %s\n", strerror(!flushed && errno ? errno : EIO));
    return rc == FSIM_EXIT_OK ? FSIM_EXIT_FAIL : rc;
  }
  return rc;
}

/* The help of the command or operator `name` (`flysim help NAME`, `flysim --help NAME`, `via`
 * saying which), or exit 2 when it is neither. */
static int named_help(const char *via, char *name) {
  if (strcmp(name, "help") == 0) { /* help's own: this usage */
    usage(stdout);
    return finish(FSIM_EXIT_OK);
  }
  for (size_t i = 0; i < N_COMMANDS; i++)
    if (strcmp(name, commands[i].name) == 0) {
      char *args[] = {name, "--help", NULL};
      return finish(commands[i].run(2, args));
    }
  if (operator_of(name) >= 0) return operator_help(operator_of(name));
  fsim_text_one_line(name);
  fprintf(stderr, "flysim: %s '%s': not a command or an operator (see 'flysim --help')\n", via, name);
  return FSIM_EXIT_USAGE;
}

/* A run stopped by a signal removes the output files it was writing (they are written to a
 * temporary file and renamed when complete), then dies of the signal as it would have. */
static void on_stop(int sig) {
  fsim_file_out_unlink_pending();
  signal(sig, SIG_DFL);
  raise(sig);
}

int main(int argc, char **argv) {
  /* a closed pipe makes writes fail (EPIPE), reported by finish(), rather than killing the
   * process without a word */
  signal(SIGPIPE, SIG_IGN);
  static const int stops[] = {SIGINT, SIGTERM, SIGHUP};
  for (size_t i = 0; i < sizeof stops / sizeof stops[0]; i++) {
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_stop;
    sigemptyset(&sa.sa_mask);
    /* a signal the caller ignores (nohup) stays ignored */
    struct sigaction old;
    if (sigaction(stops[i], NULL, &old) == 0 && old.sa_handler == SIG_IGN) continue;
    sigaction(stops[i], &sa, NULL);
  }
  if (argc < 2) {
    fprintf(stderr, "flysim: expected a command (see flysim --help)\n");
    return FSIM_EXIT_USAGE;
  }
  const char *cmd = argv[1];
  if (strcmp(cmd, "help") == 0) {
    /* `flysim help COMMAND` is `flysim COMMAND --help`; help's own help (`flysim help help`,
     * or --help anywhere before a '--', as for every command) is this usage */
    int own = argc == 2 || (argc == 3 && strcmp(argv[2], "help") == 0);
    for (int j = 2; j < argc && !own && strcmp(argv[j], "--") != 0; j++)
      own = strcmp(argv[j], "--help") == 0 || strcmp(argv[j], "-h") == 0;
    if (own) {
      usage(stdout);
      return finish(FSIM_EXIT_OK);
    }
    if (argc > 3) {
      fsim_text_one_line(argv[3]);
      fprintf(stderr, "flysim: help '%s': expected one command, not more\n", argv[3]);
      return FSIM_EXIT_USAGE;
    }
    return named_help("help", argv[2]);
  }
  if (strcmp(cmd, "--help") == 0 || strcmp(cmd, "-h") == 0) {
    /* `flysim --help COMMAND [...]` is the command's help, as `flysim COMMAND ... --help` (the
     * arguments after it were ignored, and a name that is no command gave this usage, exit 0:
     * an audit); a flag after --help leaves it this usage */
    if (argc >= 3 && argv[2][0] != '-') return named_help("--help", argv[2]);
    usage(stdout);
    return finish(FSIM_EXIT_OK);
  }
  if (strcmp(cmd, "--version") == 0) {
    if (argc > 2) {
      fsim_text_one_line(argv[2]);
      fprintf(stderr, "flysim: --version takes no arguments, not '%s'\n", argv[2]);
      return FSIM_EXIT_USAGE;
    }
    printf("flysim %s\n", PACKAGE_VERSION);
    return finish(FSIM_EXIT_OK);
  }
  /* a thread count that is not one is an input error, not a silent "use every CPU"; so is
   * one set but empty (only an unset variable means the default) */
  const char *threads = getenv("FLYSIM_THREADS");
  if (threads != NULL) {
    char *end = NULL;
    long n = strtol(threads, &end, 10);
    if (*end != '\0' || n < 1 || n > 64 || !isdigit((unsigned char)threads[0])) { /* digits alone */
      fprintf(stderr, "flysim: FLYSIM_THREADS='%s': expected a whole number from 1 to 64\n", threads);
      return FSIM_EXIT_USAGE;
    }
  }
  /* so is an empty database path (it was taken as unset, the default file, where an empty
   * --db is refused) */
  const char *db = getenv("FLYSIM_DB");
  if (db != NULL && *db == '\0') {
    fprintf(stderr, "flysim: FLYSIM_DB='': an empty file name (unset it for the default ./flysim-tuning.db)\n");
    return FSIM_EXIT_USAGE;
  }
  for (size_t i = 0; i < N_COMMANDS; i++) {
    if (strcmp(cmd, commands[i].name) != 0) continue;
    /* --help anywhere (before a '--') wins over the other arguments, whatever their values
     * (a command's help covers its verbs) */
    for (int j = 2; j < argc && strcmp(argv[j], "--") != 0; j++) {
      if (strcmp(argv[j], "--help") != 0 && strcmp(argv[j], "-h") != 0) continue;
      char *args[] = {argv[1], "--help", NULL};
      return finish(commands[i].run(2, args));
    }
    return finish(commands[i].run(argc - 1, argv + 1));
  }
  if (operator_of(cmd) >= 0) {
    for (int j = 2; j < argc && strcmp(argv[j], "--") != 0; j++)
      if (strcmp(argv[j], "--help") == 0 || strcmp(argv[j], "-h") == 0) return operator_help(operator_of(cmd));
    fprintf(stderr, "flysim: '%s' is an operator, not a command (see 'flysim %s --help')\n", cmd, cmd);
    return FSIM_EXIT_USAGE;
  }
  fsim_text_one_line(argv[1]); /* cmd */
  /* an abbreviated option, as the commands say it ("--hel", "--vers") */
  if (strncmp(cmd, "--", 2) == 0 && cmd[2] != '\0' &&
      (strncmp("--help", cmd, strlen(cmd)) == 0 || strncmp("--version", cmd, strlen(cmd)) == 0)) {
    fprintf(stderr, "flysim: option '%s': give the whole name\n", cmd);
    return FSIM_EXIT_USAGE;
  }
  fprintf(stderr, "flysim: '%s' is not a command (see 'flysim --help')\n", cmd);
  return FSIM_EXIT_USAGE;
}
