/* Table-driven INI files: see ini_table.h. */
#include "config.h"

#include "util/ini_table.h"

#include <ctype.h>
#include <errno.h>
#include <ini.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "util/dtype.h"
#include "util/file.h"

#define MAX_KEYS 256
#define MAX_ELEMS 64
/* section headers a file may hold: each names a fixed section (at most one per key) or an
 * element of a group (at most MAX_ELEMS) */
#define MAX_HEADERS (MAX_KEYS + MAX_ELEMS)

/* ---- elements and lookups ------------------------------------------------------------------ */

void *fsim_ini_group_elem(const fsim_ini_group *g, void *base, int i) {
  return (char *)base + g->array_offset + (size_t)i * g->elem_size;
}

const void *fsim_ini_group_celem(const fsim_ini_group *g, const void *base, int i) {
  return (const char *)base + g->array_offset + (size_t)i * g->elem_size;
}

int fsim_ini_group_count(const fsim_ini_group *g, const void *base) {
  return *(const int *)((const char *)base + g->count_offset);
}

static const fsim_ini_group *group_of(const fsim_ini_spec *spec, const char *section) {
  for (int i = 0; i < spec->ngroups; i++)
    if (strcmp(spec->groups[i].prefix, section) == 0) return &spec->groups[i];
  return NULL;
}

/* The group whose prefix starts "prefix.ID", with *id set to the ID. */
static const fsim_ini_group *group_of_section(const fsim_ini_spec *spec, const char *section, const char **id) {
  for (int i = 0; i < spec->ngroups; i++) {
    size_t n = strlen(spec->groups[i].prefix);
    if (strncmp(section, spec->groups[i].prefix, n) == 0 && section[n] == '.') {
      *id = section + n + 1;
      return &spec->groups[i];
    }
  }
  return NULL;
}

const fsim_ini_key *fsim_ini_find(const fsim_ini_spec *spec, const char *section, const char *key) {
  for (int i = 0; i < spec->nkeys; i++)
    if (strcmp(spec->keys[i].section, section) == 0 && strcmp(spec->keys[i].key, key) == 0) return &spec->keys[i];
  return NULL;
}

static int section_known(const fsim_ini_spec *spec, const char *section) {
  for (int i = 0; i < spec->nkeys; i++)
    if (strcmp(spec->keys[i].section, section) == 0 && group_of(spec, section) == NULL) return 1;
  return 0;
}

static int valid_id(const char *id) {
  if (*id == '\0') return 0;
  for (const char *p = id; *p; p++)
    if (!isalnum((unsigned char)*p) && *p != '_' && *p != '.') return 0;
  return 1;
}

static int find_elem(const fsim_ini_group *g, const void *base, const char *id) {
  int n = fsim_ini_group_count(g, base);
  for (int i = 0; i < n; i++)
    if (strcmp((const char *)fsim_ini_group_celem(g, base, i) + g->id_offset, id) == 0) return i;
  return -1;
}

/* ---- values -------------------------------------------------------------------------------- */

static int enum_choice(const char *choices, int i, char *buf, size_t n) {
  const char *p = choices;
  for (int j = 0; j < i; j++) {
    p = strchr(p, '|');
    if (p == NULL) return 0;
    p++;
  }
  size_t len = strcspn(p, "|");
  if (len + 1 > n) len = n - 1;
  memcpy(buf, p, len);
  buf[len] = '\0';
  return 1;
}

static int parse_lanes(fsim_lane_phases *out, const char *text, char *why, size_t wn) {
  fsim_lane_phases ph;
  memset(ph.of_lane, 0xff, sizeof ph.of_lane);
  ph.n = 0;
  const char *p = text;
  for (;;) {
    while (*p == ' ') p++;
    if (*p == '\0' || *p == '/') {
      snprintf(why, wn, "phase %d is empty", ph.n);
      return -1;
    }
    while (*p != '\0' && *p != '/') {
      char *end;
      long lo = strtol(p, &end, 10), hi = lo;
      if (end == p) {
        snprintf(why, wn, "'%s': expected a lane or a range like 0-15 at '%.8s'", text, p);
        return -1;
      }
      p = end;
      if (*p == '-') {
        hi = strtol(p + 1, &end, 10);
        if (end == p + 1) {
          snprintf(why, wn, "'%s': expected a lane after '-'", text);
          return -1;
        }
        p = end;
      }
      if (hi < lo) {
        snprintf(why, wn, "lane range %ld-%ld runs backwards (write %ld-%ld)", lo, hi, hi, lo);
        return -1;
      }
      if (lo < 0 || hi >= FSIM_MAX_WAVE) {
        snprintf(why, wn, "lane range %ld-%ld is out of [0, %d]", lo, hi, FSIM_MAX_WAVE - 1);
        return -1;
      }
      for (long l = lo; l <= hi; l++) {
        if (ph.of_lane[l] != 0xff) {
          snprintf(why, wn, "lane %ld is in two phases", l);
          return -1;
        }
        ph.of_lane[l] = (unsigned char)ph.n;
      }
      while (*p == ' ') p++;
    }
    ph.n++;
    if (*p == '\0') break;
    p++; /* '/' */
  }
  *out = ph;
  return 0;
}

static void format_lanes(const fsim_lane_phases *ph, char *buf, size_t n) {
  size_t used = 0;
  buf[0] = '\0';
  for (int f = 0; f < ph->n; f++) {
    if (f) used += (size_t)snprintf(buf + used, used < n ? n - used : 0, " /");
    for (int l = 0; l < FSIM_MAX_WAVE; l++) {
      if (ph->of_lane[l] != f || (l > 0 && ph->of_lane[l - 1] == f)) continue;
      int h = l;
      while (h + 1 < FSIM_MAX_WAVE && ph->of_lane[h + 1] == f) h++;
      if (h == l)
        used += (size_t)snprintf(buf + used, used < n ? n - used : 0, " %d", l);
      else
        used += (size_t)snprintf(buf + used, used < n ? n - used : 0, " %d-%d", l, h);
    }
  }
  if (buf[0] == ' ') memmove(buf, buf + 1, strlen(buf));
}

void fsim_ini_shortest_double(double v, char *buf, size_t n) {
  for (int digits = 1; digits <= 17; digits++) {
    snprintf(buf, n, "%.*g", digits, v);
    if (strtod(buf, NULL) == v) return;
  }
}

/* Parses text into the key's field at obj.  Returns 0 or writes the reason. */
static int parse_value(void *obj, const fsim_ini_key *k, const char *text, char *why, size_t wn) {
  void *p = (char *)obj + k->offset;
  char *end = NULL;
  errno = 0;
  switch (k->type) {
  case FSIM_KEY_INT:
  case FSIM_KEY_LLONG: {
    long long v = strtoll(text, &end, 10);
    /* digits alone, as the command line's integers (strtoll would take blanks and a '+') */
    if (*text == '\0' || *end != '\0' || *text == '+' || isspace((unsigned char)*text)) {
      snprintf(why, wn, "'%s' is not an integer", text);
      return -1;
    }
    if (errno == ERANGE) { /* an integer all the same: past 64 bits, so past any key's range */
      snprintf(why, wn, "%s is out of range [%.0f, %.0f]", text, k->min, k->max);
      return -1;
    }
    if ((double)v < k->min || (double)v > k->max) {
      snprintf(why, wn, "%lld is out of range [%.0f, %.0f]", v, k->min, k->max); /* whole numbers, as given */
      return -1;
    }
    if (k->type == FSIM_KEY_INT)
      *(int *)p = (int)v;
    else
      *(long long *)p = v;
    return 0;
  }
  case FSIM_KEY_DOUBLE: {
    double v = strtod(text, &end);
    /* decimal only, like the integers (strtod would also take a hex float, 0x1p1) */
    if (*text == '\0' || *end != '\0' || errno == ERANGE || !isfinite(v) || strpbrk(text, "xX") != NULL) {
      snprintf(why, wn, "'%s' is not a number", text);
      return -1;
    }
    if (v < k->min || v > k->max) { /* as given: %g read 10.0000000001 as "10 is out of range [0.1, 10]" */
      snprintf(why, wn, "%s is out of range [%g, %g]", text, k->min, k->max);
      return -1;
    }
    *(double *)p = v;
    return 0;
  }
  case FSIM_KEY_STRING:
    if (strlen(text) >= k->size) {
      snprintf(why, wn, "longer than %zu characters", k->size - 1);
      return -1;
    }
    if (text[0] == '\0' && !k->optional) { /* a required name given as nothing */
      snprintf(why, wn, "empty");
      return -1;
    }
    /* names reach reports, JSON strings and comments in emitted code: printable ASCII only (a
     * newline in one once put a line of its own into an emitted kernel) */
    for (const unsigned char *c = (const unsigned char *)text; *c; c++)
      if (*c < 0x20 || *c > 0x7e) {
        snprintf(why, wn, "byte 0x%02x at character %d is not printable ASCII", *c, (int)(c - (const unsigned char *)text) + 1);
        return -1;
      }
    strcpy((char *)p, text);
    return 0;
  case FSIM_KEY_DTYPE:
    if (fsim_dtype_parse(text, (fsim_dtype *)p) != 0) {
      snprintf(why, wn, "'%s' is not a data type (f64 f32 xf32 f16 bf16 fp8 bf8 fp6 bf6 fp4 i8 i4 i32)", text);
      return -1;
    }
    return 0;
  case FSIM_KEY_ENUM: {
    char choice[64];
    for (int i = 0; enum_choice(k->choices, i, choice, sizeof choice); i++)
      if (strcmp(choice, text) == 0) {
        *(int *)p = i;
        return 0;
      }
    snprintf(why, wn, "'%s' is not one of %s", text, k->choices);
    return -1;
  }
  case FSIM_KEY_LANES: return parse_lanes((fsim_lane_phases *)p, text, why, wn);
  }
  snprintf(why, wn, "internal: unknown key type");
  return -1;
}

static const void *field(const fsim_ini_key *k, const void *base, const void *elem) {
  return (const char *)(elem ? elem : base) + k->offset;
}

void fsim_ini_format(const fsim_ini_key *k, const void *base, const void *elem, char *buf, size_t n) {
  const void *p = field(k, base, elem);
  switch (k->type) {
  case FSIM_KEY_INT: snprintf(buf, n, "%d", *(const int *)p); break;
  case FSIM_KEY_LLONG: snprintf(buf, n, "%lld", *(const long long *)p); break;
  case FSIM_KEY_DOUBLE: snprintf(buf, n, "%.10g", *(const double *)p); break;
  case FSIM_KEY_STRING: snprintf(buf, n, "%s", (const char *)p); break;
  case FSIM_KEY_DTYPE: snprintf(buf, n, "%s", fsim_dtype_name(*(const fsim_dtype *)p)); break;
  case FSIM_KEY_ENUM:
    if (!enum_choice(k->choices, *(const int *)p, buf, n)) snprintf(buf, n, "?");
    break;
  case FSIM_KEY_LANES: format_lanes((const fsim_lane_phases *)p, buf, n); break;
  }
}

double fsim_ini_number(const fsim_ini_key *k, const void *base, const void *elem) {
  const void *p = field(k, base, elem);
  switch (k->type) {
  case FSIM_KEY_INT:
  case FSIM_KEY_ENUM:
  case FSIM_KEY_DTYPE: return *(const int *)p;
  case FSIM_KEY_LLONG: return (double)*(const long long *)p;
  case FSIM_KEY_DOUBLE: return *(const double *)p;
  case FSIM_KEY_STRING:
  case FSIM_KEY_LANES: return 0;
  }
  return 0;
}

/* ---- loading ------------------------------------------------------------------------------- */

typedef struct load_state {
  const fsim_ini_spec *spec;
  void *base;
  FILE *fp;
  const char *path;
  int line;
  int line_too_long;
  int key_line[MAX_KEYS];              /* fixed-section keys: line set on, 0 if not yet */
  int elem_line[MAX_ELEMS];            /* group elements (all groups, in creation order) */
  const fsim_ini_group *elem_group[MAX_ELEMS];
  int elem_index[MAX_ELEMS];
  int nelem;
  int elem_key_line[MAX_ELEMS][MAX_KEYS / 4];
  fsim_err *e;
  int failed, fail_line;
  fsim_status fail_code;
  int empty_line;                      /* a group section's header with no key below it yet, or 0 */
  char empty_name[128];
  /* the section headers read so far and their lines (a header repeated is refused) */
  char header_name[MAX_HEADERS][50];
  int header_line[MAX_HEADERS];
  int nheaders;
} load_state;

static int fail(load_state *st, fsim_status code, const char *section, const char *key, const char *why);
static int section_known(const fsim_ini_spec *spec, const char *section);
static const fsim_ini_group *group_of_section(const fsim_ini_spec *spec, const char *section, const char **id);

/* A group's section (an element: "[operand.C]") left without keys is a mistake (a stray or
 * misspelt section), not an element to ignore: refused at its header's line when the next
 * section or the end of the file comes. */
static void empty_group(load_state *st) {
  if (st->empty_line == 0) return;
  int line = st->line;
  st->line = st->empty_line;
  fail(st, FSIM_EINVAL, st->empty_name, NULL, "an empty section (no keys)");
  st->line = line;
  st->empty_line = 0;
}

/* inih reports a section only with its first key, so an unknown section left empty is caught
 * here, as its header goes by. */
static void check_header(load_state *st, const char *line) {
  while (*line == ' ' || *line == '\t') line++;
  if (*line != '[') return;
  empty_group(st);
  const char *end = strchr(line, ']');
  /* inih would note the error and carry on, the keys below then landing in the section
   * before, so the first message would name the wrong line and section */
  if (end == NULL) {
    fail(st, FSIM_EINVAL, NULL, NULL, "unclosed section header (no ']')");
    return;
  }
  /* inih keeps a section's name in a buffer of 50 bytes (MAX_SECTION in its ini.c, not in its
   * header) and cuts a longer one short without a word, so that two sections differing after
   * the 49th character would merge */
  if (end - line - 1 > 49) {
    fail(st, FSIM_EINVAL, NULL, NULL, "section name longer than 49 characters");
    return;
  }
  char name[128];
  memcpy(name, line + 1, (size_t)(end - line - 1));
  name[end - line - 1] = '\0';
  const char *id;
  /* nothing but a comment may follow the header ("[tile] junk", "[tile]]") */
  const char *after = end + 1;
  while (*after == ' ' || *after == '\t' || *after == '\r' || *after == '\n') after++;
  if (*after != '\0' && *after != ';' && *after != '#') {
    fail(st, FSIM_EINVAL, NULL, NULL, "text after the section header");
    return;
  }
  char why[256];
  int group = group_of_section(st->spec, name, &id) != NULL;
  if (section_known(st->spec, name) || group) {
    /* inih merges a repeated section's keys into the first: a copy-and-paste slip, or two
     * parts' values in one file, that would otherwise pass whenever the keys differ */
    for (int i = 0; i < st->nheaders; i++)
      if (strcmp(st->header_name[i], name) == 0) {
        snprintf(why, sizeof why, "section given twice (first on line %d)", st->header_line[i]);
        fail(st, FSIM_EINVAL, name, NULL, why);
        return;
      }
    if (st->nheaders == MAX_HEADERS) {
      snprintf(why, sizeof why, "more than %d sections", MAX_HEADERS);
      fail(st, FSIM_ERANGE, name, NULL, why);
      return;
    }
    snprintf(st->header_name[st->nheaders], sizeof st->header_name[0], "%.49s", name); /* longer refused above */
    st->header_line[st->nheaders++] = st->line;
  }
  if (group) {
    st->empty_line = st->line;
    snprintf(st->empty_name, sizeof st->empty_name, "%s", name);
    return;
  }
  if (section_known(st->spec, name)) return;
  snprintf(why, sizeof why, "unknown section (known: %s)", st->spec->sections_hint);
  fail(st, FSIM_EINVAL, name, NULL, why);
}

/* A line as the format reads it: without a UTF-8 byte-order mark on line 1 (inih drops it, but
 * only after the reader's checks), and without indentation (an indented line is not a
 * continuation of the one above, inih's multi-line values: the format has none, and reading
 * "  bk = 64" into the key before named the wrong key). */
static void strip_line_start(char *str, int line) {
  if (line == 1 && (unsigned char)str[0] == 0xEF && (unsigned char)str[1] == 0xBB && (unsigned char)str[2] == 0xBF)
    memmove(str, str + 3, strlen(str + 3) + 1);
  size_t lead = strspn(str, " \t");
  if (lead > 0) memmove(str, str + lead, strlen(str + lead) + 1);
}

static char *counting_reader(char *str, int num, void *stream) {
  load_state *st = stream;
  char *r = fgets(str, num, st->fp);
  if (r == NULL) return NULL;
  st->line++;
  strip_line_start(str, st->line);
  if (!st->failed) check_header(st, str);
  /* key = value only: inih also takes "key: value" (the first of '=' and ':' must be '=') */
  if (!st->failed && str[0] != '[' && str[0] != ';' && str[0] != '#' && str[strcspn(str, "=:")] != '=' &&
      strspn(str, " \t\r\n\f\v") != strlen(str))
    fail(st, FSIM_EINVAL, NULL, NULL, "syntax error: expected '[section]' or 'key = value'");
  size_t len = strlen(str);
  if (len > 0 && str[len - 1] != '\n' && !feof(st->fp) && st->line_too_long == 0) {
    st->line_too_long = st->line;
    int c; /* swallow the rest so that inih does not read it as a new line */
    while ((c = fgetc(st->fp)) != EOF && c != '\n') {
    }
  }
  return r;
}

static int fail(load_state *st, fsim_status code, const char *section, const char *key, const char *why) {
  if (!st->failed) {
    st->fail_line = st->line;
    st->fail_code = code;
    if (section == NULL)
      FSIM_ERR(st->e, code, "%s:%d: %s", st->path, st->line, why);
    else if (key != NULL)
      FSIM_ERR(st->e, code, "%s:%d: [%s] %s: %s", st->path, st->line, section, key, why);
    else
      FSIM_ERR(st->e, code, "%s:%d: [%s]: %s", st->path, st->line, section, why);
    st->failed = 1;
  }
  return 0;
}

/* Index of k among the keys of its group's section (for the per-element seen table). */
static int group_key_index(const fsim_ini_spec *spec, const fsim_ini_key *k) {
  int i = 0;
  for (int j = 0; j < spec->nkeys; j++) {
    if (strcmp(spec->keys[j].section, k->section) != 0) continue;
    if (&spec->keys[j] == k) return i;
    i++;
  }
  return -1;
}

static int handler(void *user, const char *section, const char *name, const char *value) {
  load_state *st = user;
  if (st->failed) return 0;
  const fsim_ini_spec *spec = st->spec;
  char why[256];
  const char *id = NULL;
  if (st->empty_line != 0 && strcmp(section, st->empty_name) == 0) st->empty_line = 0;
  const fsim_ini_group *g = group_of_section(spec, section, &id);
  if (g != NULL) {
    if (!valid_id(id))
      return fail(st, FSIM_EINVAL, section, NULL, "an ID may hold letters, digits, '_' and '.'");
    const fsim_ini_key *k = fsim_ini_find(spec, g->prefix, name);
    if (k == NULL) return fail(st, FSIM_EINVAL, section, name, "unknown key");
    int ei = find_elem(g, st->base, id);
    int slot = -1; /* this element's row in the state tables */
    if (ei < 0) {
      int *count = (int *)((char *)st->base + g->count_offset);
      if (*count >= g->max || st->nelem >= MAX_ELEMS) {
        snprintf(why, sizeof why, "more than %d [%s.*] sections", g->max, g->prefix);
        return fail(st, FSIM_ERANGE, section, NULL, why);
      }
      if (strlen(id) >= g->id_size) return fail(st, FSIM_EINVAL, section, NULL, "ID too long");
      ei = (*count)++;
      char *el = fsim_ini_group_elem(g, st->base, ei);
      memset(el, 0, g->elem_size);
      strcpy(el + g->id_offset, id);
      slot = st->nelem++;
      st->elem_line[slot] = st->line;
      st->elem_group[slot] = g;
      st->elem_index[slot] = ei;
      memset(st->elem_key_line[slot], 0, sizeof st->elem_key_line[slot]);
    } else {
      for (int s = 0; s < st->nelem; s++)
        if (st->elem_group[s] == g && st->elem_index[s] == ei) slot = s;
    }
    int ki = group_key_index(spec, k);
    if (st->elem_key_line[slot][ki]) {
      snprintf(why, sizeof why, "given twice (first on line %d)", st->elem_key_line[slot][ki]);
      return fail(st, FSIM_EINVAL, section, name, why);
    }
    if (parse_value(fsim_ini_group_elem(g, st->base, ei), k, value, why, sizeof why) != 0)
      return fail(st, FSIM_EINVAL, section, name, why);
    st->elem_key_line[slot][ki] = st->line;
    return 1;
  }
  if (*section == '\0') return fail(st, FSIM_EINVAL, "", name, "key outside any section");
  if (!section_known(spec, section)) {
    snprintf(why, sizeof why, "unknown section (known: %s)", spec->sections_hint);
    return fail(st, FSIM_EINVAL, section, NULL, why);
  }
  const fsim_ini_key *k = fsim_ini_find(spec, section, name);
  if (k == NULL) return fail(st, FSIM_EINVAL, section, name, "unknown key");
  int ki = (int)(k - spec->keys);
  if (st->key_line[ki] != 0) {
    snprintf(why, sizeof why, "given twice (first on line %d)", st->key_line[ki]);
    return fail(st, FSIM_EINVAL, section, name, why);
  }
  if (parse_value(st->base, k, value, why, sizeof why) != 0) return fail(st, FSIM_EINVAL, section, name, why);
  st->key_line[ki] = st->line;
  return 1;
}

static int key_line(const char *path, FILE *fp, const char *text, const char *section, const char *key);

static fsim_status load_stream(const fsim_ini_spec *spec, void *base, FILE *fp, const char *path, fsim_err *e) {
  if (spec->nkeys > MAX_KEYS) return FSIM_ERR(e, FSIM_EINVAL, "internal: too many keys in an INI spec");
  load_state *st = calloc(1, sizeof *st);
  if (st == NULL) return FSIM_ERR(e, FSIM_ENOMEM, "%s: out of memory", path);
  st->spec = spec;
  st->base = base;
  st->fp = fp;
  st->path = path;
  st->e = e;
  fsim_status rc = FSIM_OK;
  int r = ini_parse_stream(counting_reader, st, handler, st);
  if (r == 0) empty_group(st);
  if (st->line_too_long != 0 && (!st->failed || st->line_too_long <= st->fail_line)) {
    rc = FSIM_ERR(e, FSIM_EINVAL, "%s:%d: line too long (at most %d characters)", path, st->line_too_long,
                  INI_MAX_LINE - 2);
    goto done;
  }
  if (st->failed) {
    rc = st->fail_code;
    goto done;
  }
  if (r != 0) {
    rc = r > 0 ? FSIM_ERR(e, FSIM_EINVAL, "%s:%d: syntax error: expected '[section]' or 'key = value'", path, r)
               : FSIM_ERR(e, FSIM_EIO, "%s: cannot read", path);
    goto done;
  }
  for (int i = 0; i < spec->nkeys; i++) {
    const fsim_ini_key *k = &spec->keys[i];
    if (group_of(spec, k->section) || k->optional || st->key_line[i] != 0) continue;
    if (spec->applies && !spec->applies(base, k)) continue;
    rc = FSIM_ERR(e, FSIM_EINVAL, "%s: [%s] %s: missing (%s)", path, k->section, k->key, k->doc);
    goto done;
  }
  /* a key given for a variant it does not apply to (say, [tile] threads in a GEMM schedule) is
   * a mistake, not something to ignore */
  for (int i = 0; spec->applies && i < spec->nkeys; i++) {
    const fsim_ini_key *k = &spec->keys[i];
    if (st->key_line[i] == 0 || spec->applies(base, k)) continue;
    rc = FSIM_ERR(e, FSIM_EINVAL, "%s:%d: [%s] %s: does not apply here (%s)", path, st->key_line[i], k->section,
                  k->key, spec->applies_hint ? spec->applies_hint(base) : "another variant's key");
    goto done;
  }
  for (int s = 0; s < st->nelem; s++) {
    const fsim_ini_group *g = st->elem_group[s];
    const char *el = fsim_ini_group_celem(g, base, st->elem_index[s]);
    for (int i = 0; i < spec->nkeys; i++) {
      const fsim_ini_key *k = &spec->keys[i];
      if (strcmp(k->section, g->prefix) != 0 || k->optional) continue;
      if (st->elem_key_line[s][group_key_index(spec, k)]) continue;
      if (spec->applies && !spec->applies(base, k)) continue;
      rc = FSIM_ERR(e, FSIM_EINVAL, "%s:%d: [%s.%s] %s: missing (%s)", path, st->elem_line[s], g->prefix,
                    el + g->id_offset, k->key, k->doc);
      goto done;
    }
  }
  if (spec->check) {
    const char *sec = NULL, *key = NULL;
    char why[256];
    if (spec->check(base, &sec, &key, why, sizeof why) != 0) {
      const fsim_ini_key *k = fsim_ini_find(spec, sec, key);
      int line = k && !group_of(spec, sec) ? st->key_line[k - spec->keys] : 0;
      if (line == 0) line = key_line(path, st->fp, NULL, sec, key); /* a group's section ("mfma.ID"): found in the text */
      rc = line > 0 ? FSIM_ERR(e, FSIM_EINVAL, "%s:%d: [%s] %s: %s", path, line, sec, key, why)
                    : FSIM_ERR(e, FSIM_EINVAL, "%s: [%s] %s: %s", path, sec, key, why);
      goto done;
    }
  }
done:
  free(st);
  return rc;
}

fsim_status fsim_ini_load_keep(const fsim_ini_spec *spec, void *base, const char *path, char **kept, fsim_err *e) {
  if (kept) *kept = NULL;
  /* read whole, so that a NUL byte (which fgets would hide, inih then seeing a line cut
   * short) marks the file as binary before any line is parsed */
  char *text;
  size_t len;
  fsim_status st = fsim_file_load(path, &text, &len, e);
  if (st != FSIM_OK) return st;
  if (memchr(text, '\0', len) != NULL) st = FSIM_ERR(e, FSIM_EINVAL, "%s: not a text file", path);
  if (st == FSIM_OK) st = fsim_ini_load_string(spec, base, text, path, e);
  if (kept && st == FSIM_OK) *kept = text;
  else free(text);
  return st;
}

fsim_status fsim_ini_load(const fsim_ini_spec *spec, void *base, const char *path, fsim_err *e) {
  return fsim_ini_load_keep(spec, base, path, NULL, e);
}

fsim_status fsim_ini_load_string(const fsim_ini_spec *spec, void *base, const char *text, const char *source,
                                 fsim_err *e) {
  FILE *fp = fmemopen((void *)text, strlen(text), "r");
  if (fp == NULL) return FSIM_ERR(e, FSIM_ENOMEM, "%s: cannot read from memory", source);
  fsim_status st = load_stream(spec, base, fp, source, e);
  fclose(fp);
  return st;
}

/* ---- overrides and writing ------------------------------------------------------------------ */

fsim_status fsim_ini_set(const fsim_ini_spec *spec, void *base, const char *assignment, fsim_err *e) {
  return fsim_ini_set_ex(spec, base, assignment, 1, e);
}

void fsim_ini_assignment_text(const char *assignment, char *out, size_t n) {
  const char *eq = strchr(assignment, '=');
  if (eq == NULL) {
    snprintf(out, n, "%s", assignment);
    return;
  }
  const char *v = eq + 1;
  while (*v == ' ' || *v == '\t') v++;
  int len = (int)strlen(v);
  while (len > 0 && (v[len - 1] == ' ' || v[len - 1] == '\t')) len--;
  snprintf(out, n, "%.*s%.*s", (int)(eq + 1 - assignment), assignment, len, v);
}

fsim_status fsim_ini_set_ex(const fsim_ini_spec *spec, void *base, const char *assignment, int check, fsim_err *e) {
  char buf[512];
  if (strlen(assignment) >= sizeof buf) return FSIM_ERR(e, FSIM_EINVAL, "--set %.40s...: too long", assignment);
  fsim_ini_assignment_text(assignment, buf, sizeof buf);
  char *eq = strchr(buf, '=');
  char *dot = NULL;
  for (char *p = buf; eq != NULL && p < eq; p++)
    if (*p == '.') dot = p;
  if (eq == NULL || dot == NULL || dot == buf || dot + 1 == eq)
    return FSIM_ERR(e, FSIM_EINVAL, "--set %s: expected SECTION.KEY=VALUE", assignment);
  *eq = '\0';
  *dot = '\0';
  const char *section = buf, *key = dot + 1, *value = eq + 1;
  char why[256];
  const char *id = NULL;
  const fsim_ini_group *g = group_of_section(spec, section, &id);
  void *target = NULL;
  const fsim_ini_key *k;
  if (g != NULL) {
    k = fsim_ini_find(spec, g->prefix, key);
    if (k == NULL) return FSIM_ERR(e, FSIM_EINVAL, "--set %s: [%s] %s: unknown key", assignment, section, key);
    int ei = find_elem(g, base, id);
    if (ei < 0) return FSIM_ERR(e, FSIM_EINVAL, "--set %s: [%s]: no such section", assignment, section);
    target = fsim_ini_group_elem(g, base, ei);
  } else {
    if (!section_known(spec, section))
      return FSIM_ERR(e, FSIM_EINVAL, "--set %s: [%s]: unknown section", assignment, section);
    k = fsim_ini_find(spec, section, key);
    if (k == NULL) return FSIM_ERR(e, FSIM_EINVAL, "--set %s: [%s] %s: unknown key", assignment, section, key);
    target = base;
  }
  /* keep the old field, so that a rejected value or relation restores it */
  char old[sizeof(fsim_lane_phases) + 512];
  size_t fsize = k->type == FSIM_KEY_STRING ? k->size
                 : k->type == FSIM_KEY_LANES ? sizeof(fsim_lane_phases)
                 : k->type == FSIM_KEY_DOUBLE ? sizeof(double)
                 : k->type == FSIM_KEY_LLONG ? sizeof(long long)
                                              : sizeof(int);
  if (fsize > sizeof old) return FSIM_ERR(e, FSIM_EINVAL, "internal: field too large");
  memcpy(old, (char *)target + k->offset, fsize);
  if (parse_value(target, k, value, why, sizeof why) != 0)
    return FSIM_ERR(e, FSIM_EINVAL, "--set %s: [%s] %s: %s", assignment, section, key, why);
  const char *rsec = NULL, *rkey = NULL;
  if (check && spec->check && spec->check(base, &rsec, &rkey, why, sizeof why) != 0) {
    memcpy((char *)target + k->offset, old, fsize);
    return FSIM_ERR(e, FSIM_EINVAL, "--set %s: [%s] %s: %s", assignment, rsec, rkey, why);
  }
  return FSIM_OK;
}

/* "key = value", or "key =value" for a value that starts with ';': inih takes a ';' after a
 * space for the start of a comment, so the space would make the value read back empty. */
static void write_pair(FILE *f, const char *key, const char *val) {
  fprintf(f, "%s =%s%s\n", key, val[0] == ';' ? "" : " ", val);
}

fsim_status fsim_ini_write(const fsim_ini_spec *spec, const void *base, FILE *f, fsim_err *e) {
  const char *cur = NULL;
  char val[512];
  for (int i = 0; i < spec->nkeys; i++) {
    const fsim_ini_key *k = &spec->keys[i];
    if (group_of(spec, k->section)) continue;
    if (spec->applies && !spec->applies(base, k)) continue;
    if (cur == NULL || strcmp(cur, k->section) != 0) {
      fprintf(f, "%s[%s]\n", cur ? "\n" : "", k->section);
      cur = k->section;
    }
    fsim_ini_format(k, base, NULL, val, sizeof val);
    write_pair(f, k->key, val);
  }
  for (int gi = 0; gi < spec->ngroups; gi++) {
    const fsim_ini_group *g = &spec->groups[gi];
    for (int ei = 0; ei < fsim_ini_group_count(g, base); ei++) {
      const char *el = fsim_ini_group_celem(g, base, ei);
      fprintf(f, "\n[%s.%s]\n", g->prefix, el + g->id_offset);
      for (int i = 0; i < spec->nkeys; i++) {
        const fsim_ini_key *k = &spec->keys[i];
        if (strcmp(k->section, g->prefix) != 0) continue;
        if (spec->applies && !spec->applies(base, k)) continue;
        fsim_ini_format(k, base, el, val, sizeof val);
        write_pair(f, k->key, val);
      }
    }
  }
  return ferror(f) ? FSIM_ERR(e, FSIM_EIO, "write error") : FSIM_OK;
}

/* Finding the line of one key again, through inih as the loader reads it. */
typedef struct locate_state {
  FILE *fp;
  const char *section, *key;
  int line, found;
} locate_state;

static char *locate_reader(char *str, int num, void *stream) {
  locate_state *l = stream;
  char *r = fgets(str, num, l->fp);
  if (r != NULL) l->line++;
  if (r != NULL) strip_line_start(str, l->line); /* as the loader reads it */
  return r;
}

static int locate_handler(void *user, const char *section, const char *name, const char *value) {
  (void)value;
  locate_state *l = user;
  if (l->found == 0 && strcmp(section, l->section) == 0 && strcmp(name, l->key) == 0) l->found = l->line;
  return 1;
}

/* The line that sets key in [section] (1-based), or 0: in the text fp reads (read again from
 * its start), else in text, else in path where it is a regular file (one that reading again
 * cannot block on or find drained, as a FIFO or a pipe would). */
static int key_line(const char *path, FILE *fp, const char *text, const char *section, const char *key) {
  locate_state l = {.section = section, .key = key};
  FILE *own = NULL;
  struct stat sb;
  if (fp != NULL && fseek(fp, 0, SEEK_SET) == 0) l.fp = fp;
  else if (text != NULL) l.fp = own = fmemopen((void *)text, strlen(text), "r");
  else if (stat(path, &sb) == 0 && S_ISREG(sb.st_mode)) l.fp = own = fopen(path, "r");
  if (l.fp == NULL) return 0;
  ini_parse_stream(locate_reader, &l, locate_handler, &l);
  if (own) fclose(own);
  return l.found;
}

void fsim_ini_err_locate_in(fsim_err *e, const char *path, const char *text) {
  if (e == NULL) return;
  char section[96], key[96];
  int line = 0;
  if (sscanf(e->msg, "[%95[^]]] %95[^: ]:", section, key) == 2) line = key_line(path, NULL, text, section, key);
  if (line > 0)
    fsim_err_prefix(e, "%s:%d", path, line);
  else
    fsim_err_prefix(e, "%s", path);
}
