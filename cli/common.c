/* Helpers shared by the flysim subcommands: see common.h. */
#include "config.h"

#include "cli/common.h"

#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <libgen.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* Where the tuning database's path came from, when not from --db (fsim_cli_db_path) */
static const char *db_label = "--db";
static const char *db_named;

void fsim_cli_db_source(const char *label, const char *path) {
  db_label = label;
  db_named = path;
}

/* An error line: "flysim CMD: TEXT", with "--db PATH" (or "--db 'PATH'") in TEXT naming where
 * PATH came from when that was $FLYSIM_DB or the default, not the flag. */
static void error_line(const char *cmd, const char *msg) {
  /* one line, whatever the input it quotes holds */
  char text[sizeof((fsim_err *)0)->msg + 512];
  snprintf(text, sizeof text, "%s", msg);
  fsim_text_one_line(text);
  fprintf(stderr, "flysim %s: ", cmd);
  const char *at = NULL;
  if (db_named != NULL && strcmp(db_label, "--db") != 0) {
    for (const char *p = strstr(text, "--db "); p != NULL && at == NULL; p = strstr(p + 1, "--db ")) {
      const char *q = p + 5 + (p[5] == '\'');
      size_t n = strlen(db_named);
      /* the whole path: it ends where the message's does (':', a quote, a space or the end) */
      if (strncmp(q, db_named, n) == 0 && strchr(":' ", q[n]) != NULL) at = p;
    }
  }
  if (at != NULL)
    fprintf(stderr, "%.*s%s %s", (int)(at - text), text, db_label, at + 5);
  else
    fputs(text, stderr);
  fputc('\n', stderr);
}

int fsim_cli_usage_error(const char *cmd, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(NULL, 0, fmt, ap);
  va_end(ap);
  char *text = n >= 0 ? malloc((size_t)n + 1) : NULL;
  if (text == NULL) {
    fprintf(stderr, "flysim %s: out of memory\n", cmd);
    return FSIM_EXIT_USAGE;
  }
  va_start(ap, fmt);
  vsnprintf(text, (size_t)n + 1, fmt, ap);
  va_end(ap);
  error_line(cmd, text);
  free(text);
  return FSIM_EXIT_USAGE;
}

int fsim_cli_report(const char *cmd, const fsim_err *e) {
  error_line(cmd, e->msg[0] ? e->msg : fsim_strerror(e->code));
  return fsim_status_exit_code(e->code);
}

int fsim_cli_sets_add(fsim_cli_sets *s, const char *cmd, const char *value) {
  if (s->n == (int)(sizeof s->items / sizeof s->items[0]))
    return fsim_cli_usage_error(cmd, "--set: at most %d overrides", s->n);
  s->items[s->n++] = value;
  return 0;
}

int fsim_cli_load_arch(const char *cmd, const char *name, const fsim_cli_sets *sets, fsim_arch *out) {
  return fsim_cli_load_arch_as(cmd, "--arch", name, sets, out);
}

int fsim_cli_load_arch_as(const char *cmd, const char *label, const char *name, const fsim_cli_sets *sets,
                          fsim_arch *out) {
  fsim_err e;
  fsim_err_clear(&e);
  if (name == NULL) return fsim_cli_usage_error(cmd, "--arch NAME is required (see 'flysim arch list')");
  if (*name == '\0') return fsim_cli_usage_error(cmd, "%s: an empty name (see 'flysim arch list')", label);
  if (fsim_arch_load(out, name, &e) != FSIM_OK) {
    if (e.code == FSIM_ENOENT) fsim_err_prefix(&e, "%s", label);
    return fsim_cli_report(cmd, &e);
  }
  /* all overrides first, then the relations between keys: their order does not matter */
  if (sets && fsim_arch_set_all(out, sets->items, sets->n, &e) != FSIM_OK) return fsim_cli_report(cmd, &e);
  return 0;
}

static const char *abbreviated; /* the last abbreviated option fsim_cli_getopt refused */
static const struct option *last_opts; /* the table fsim_cli_getopt was last given */
static const char *last_optstring;      /* and its short options */
static char missing_flag[64];          /* an option whose value was left out ("" if none) ... */
static const char *missing_next;       /* ... and the flag that followed it */

int fsim_cli_getopt(int argc, char **argv, const char *optstring, const struct option *opts) {
  int idx = -1;
  abbreviated = NULL;
  missing_next = NULL;
  last_opts = opts;
  last_optstring = optstring;
  int c = getopt_long(argc, argv, optstring, opts, &idx);
  if (c == -1 || c == '?' || c == ':') return c;
  /* `--timeline --json`, `-o --json`, `--output -o`: getopt takes the next flag as the value,
   * and the run wrote a file named "--json" (an audit); a value of its own token that reads as
   * a flag (-x, --xy) is the value left out, as the whole-number options already say ("-" for
   * standard output and negative numbers are values) */
  if (optarg != NULL && optind >= 1 && optarg == argv[optind - 1] && optarg[0] == '-' &&
      (isalpha((unsigned char)optarg[1]) || (optarg[1] == '-' && isalpha((unsigned char)optarg[2])))) {
    if (idx >= 0) snprintf(missing_flag, sizeof missing_flag, "--%s", opts[idx].name);
    else snprintf(missing_flag, sizeof missing_flag, "-%c", c);
    missing_next = optarg;
    return '?';
  }
  if (idx < 0) return c;
  /* the token just taken: argv[optind - 1], or before it when the value came separately */
  const char *name = opts[idx].name;
  for (int back = 1; back <= 2 && optind - back >= 1; back++) {
    const char *tok = argv[optind - back];
    if (strncmp(tok, "--", 2) != 0) continue;
    size_t len = strcspn(tok + 2, "=");
    if (len == 0 || strncmp(tok + 2, name, len) != 0) continue; /* not this option's spelling */
    if (len == strlen(name)) return c;
    abbreviated = tok;
    return '?';
  }
  return c;
}

int fsim_cli_bad_option(const char *cmd, int argc, char **argv) {
  if (missing_next != NULL)
    return fsim_cli_usage_error(cmd, "%s: missing its value (the next argument is the flag %s)", missing_flag,
                                missing_next);
  if (abbreviated != NULL)
    return fsim_cli_usage_error(cmd, "option '%s': give the whole name (see --help)", abbreviated);
  const char *arg = (optind - 1 < argc && optind >= 1) ? argv[optind - 1] : "?";
  /* "-1x64x64" reads as options: a SHAPE or value with a minus sign */
  if (isdigit((unsigned char)optopt))
    return fsim_cli_usage_error(cmd, "option '-%c': not an option; a negative SHAPE or value? (they are whole numbers "
                                "from 1)", optopt);
  if (optopt != 0 && strncmp(arg, "--", 2) != 0) {
    const char *known = optopt != ':' && last_optstring ? strchr(last_optstring, optopt) : NULL;
    if (known != NULL && known[1] == ':') /* it takes a value, and the line ended */
      return fsim_cli_usage_error(cmd, "option '-%c': missing its value (see --help)", optopt);
    return fsim_cli_usage_error(cmd, "option '-%c': unknown (see --help)", optopt);
  }
  /* getopt names the option (optopt) of a known flag given a value it does not take; given
   * abbreviated, the whole name is asked for first, as for the other flags */
  const char *eq = strchr(arg, '=');
  if (optopt != 0 && eq != NULL) {
    int len = (int)(eq - arg);
    for (const struct option *o = last_opts; o != NULL && o->name != NULL; o++)
      if (o->val == optopt && strncmp(arg + 2, o->name, (size_t)len - 2) == 0 && o->name[len - 2] != '\0') {
        char given[64];
        snprintf(given, sizeof given, "%.*s", len, arg);
        return fsim_cli_usage_error(cmd, "option '%s': give the whole name (see --help)", given);
      }
    return fsim_cli_usage_error(cmd, "option '%.*s' takes no value, not '%s' (see --help)", len, arg, eq + 1);
  }
  /* getopt names the option of a known flag whose value the line ended before, and none for a
   * flag it does not know */
  if (optopt != 0) return fsim_cli_usage_error(cmd, "option '%s': missing its value (see --help)", arg);
  return fsim_cli_usage_error(cmd, "option '%s': unknown (see --help)", arg);
}

int fsim_cli_print_json(json_t *root) {
  if (root == NULL) {
    fprintf(stderr, "flysim: out of memory building JSON\n");
    return FSIM_EXIT_FAIL;
  }
  int rc = json_dumpf(root, stdout, JSON_INDENT(2) | JSON_REAL_PRECISION(12));
  fputc('\n', stdout);
  json_decref(root);
  return rc == 0 ? FSIM_EXIT_OK : FSIM_EXIT_FAIL;
}

json_t *fsim_cli_provenance(const fsim_arch *a) {
  json_t *o = json_object();
  json_object_set_new(o, "tool", json_string("flysim"));
  json_object_set_new(o, "version", fsim_json_text(PACKAGE_VERSION));
  if (a != NULL) {
    json_object_set_new(o, "arch_file", fsim_json_text(a->file));
    json_t *ov = json_array();
    /* overrides are stored space-separated, each SECTION.KEY=VALUE ending where the arch
     * records (a value may hold blanks: "device.name=RX 9070 XT") */
    for (int k = 0, at = 0; k < a->noverrides; k++) {
      int end = a->overrides_end[k];
      if (a->overrides[at] == ' ') at++;
      json_array_append_new(ov, json_stringn(a->overrides + at, (size_t)(end - at)));
      at = end;
    }
    json_object_set_new(o, "overrides", ov);
  }
  return o;
}

void fsim_cli_print_provenance(FILE *f, const fsim_arch *a) {
  fprintf(f, "# flysim %s", PACKAGE_VERSION);
  if (a != NULL)
    fprintf(f, "  arch %s (%s)  file %s  overrides %s", a->device.name, a->device.gfx, a->file,
            a->overrides[0] ? a->overrides : "none");
  fputc('\n', f);
}

int fsim_cli_parse_long(const char *cmd, const char *flag, const char *text, long lo, long hi, long *out) {
  char *end = NULL;
  errno = 0;
  long v = strtol(text, &end, 10);
  /* strtol skips leading white space and takes a '+'; a number here has neither (nor trailing
   * text: *end), as SHAPE's parts and --config's numbers have not */
  if (*text == '\0' || isspace((unsigned char)*text) || *text == '+' || *end != '\0' || errno == ERANGE) {
    if (text[0] == '-' && text[1] == '-') /* `--k --arch mi355x`: the value was left out */
      return fsim_cli_usage_error(cmd, "%s: missing its value (the next argument is the flag %s)", flag, text);
    if (errno == ERANGE && *end == '\0' && *text != '\0' && !isspace((unsigned char)*text) && *text != '+') {
      /* a whole number, too large */
      if (lo == LONG_MIN && hi == LONG_MAX) /* the caller checks the range: it has none to give here */
        return fsim_cli_usage_error(cmd, "%s: %s does not fit in 64 bits", flag, text);
      return fsim_cli_usage_error(cmd, "%s: %s is out of range [%ld, %ld]", flag, text, lo, hi);
    }
    return fsim_cli_usage_error(cmd, "%s: '%s' is not an integer", flag, text);
  }
  if (v < lo || v > hi) return fsim_cli_usage_error(cmd, "%s: %ld is out of range [%ld, %ld]", flag, v, lo, hi);
  *out = v;
  return 0;
}

int fsim_cli_parse_sample_trips(const char *cmd, const char *text, int out[2]) {
  const char *comma = strchr(text, ',');
  if (comma == NULL || strchr(comma + 1, ',') != NULL)
    return fsim_cli_usage_error(cmd, "--sample-trips: '%s': expected S1,S2 (two main-loop trip counts)", text);
  char *first = strndup(text, (size_t)(comma - text));
  if (first == NULL) return fsim_cli_usage_error(cmd, "--sample-trips: out of memory");
  long v[2];
  int bad = fsim_cli_parse_long(cmd, "--sample-trips", first, 1, FSIM_CLI_MAX_SAMPLE_TRIPS, &v[0]) ||
            fsim_cli_parse_long(cmd, "--sample-trips", comma + 1, 1, FSIM_CLI_MAX_SAMPLE_TRIPS, &v[1]);
  free(first);
  if (bad) return FSIM_EXIT_USAGE;
  if (v[1] <= v[0])
    return fsim_cli_usage_error(cmd, "--sample-trips: %ld,%ld: the second trip count must be larger than the first",
                                v[0], v[1]);
  out[0] = (int)v[0], out[1] = (int)v[1];
  return 0;
}

int fsim_cli_parse_double(const char *cmd, const char *flag, const char *text, double lo, double hi,
                          double *out) {
  char *end = NULL;
  errno = 0;
  double v = strtod(text, &end);
  if (*text == '\0' || *end != '\0' || errno == ERANGE || !isfinite(v) || strpbrk(text, "xX") != NULL)
    return fsim_cli_usage_error(cmd, "%s: '%s' is not a number", flag, text);
  if (v < lo || v > hi) return fsim_cli_usage_error(cmd, "%s: %g is out of range [%g, %g]", flag, v, lo, hi);
  *out = v;
  return 0;
}

/* The real path of path's folder joined with its name; 0 when the folder cannot be resolved. */
static int real_name(const char *path, char *out, size_t n) {
  char *d = strdup(path), *b = strdup(path);
  char dir[PATH_MAX];
  int ok = d && b && realpath(dirname(d), dir) != NULL;
  if (ok) ok = snprintf(out, n, "%s/%s", dir, basename(b)) < (int)n;
  free(d);
  free(b);
  return ok;
}

int fsim_cli_same_file(const char *a, const char *b) {
  struct stat sa, sb;
  int ea = stat(a, &sa) == 0, eb = stat(b, &sb) == 0;
  if (ea && eb) return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
  if (ea != eb) return 0;
  char ra[PATH_MAX + 256], rb[PATH_MAX + 256];
  if (real_name(a, ra, sizeof ra) && real_name(b, rb, sizeof rb)) return strcmp(ra, rb) == 0;
  return strcmp(a, b) == 0;
}

int fsim_cli_check_output(const char *cmd, const char *out_flag, const char *out, const char *in_flag,
                          const char *in) {
  if (out != NULL && strcmp(out, "-") == 0) /* not a file named "-": that is standard output's name */
    return fsim_cli_usage_error(cmd, "%s -: give a file name (standard output holds the report)", out_flag);
  if (out == NULL || in == NULL || !fsim_cli_same_file(out, in)) return 0;
  return fsim_cli_usage_error(cmd, "%s %s: the same file as %s %s; refusing to overwrite an input", out_flag, out,
                              in_flag, in);
}
