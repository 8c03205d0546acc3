/* Table-driven INI files: the one loader behind arch files (model/arch) and schedule files
 * (kernels/schedules).  A spec lists every key once: its section, name, type, where it lives
 * in the target struct, the range a value must fall in, its unit and what it means.  The
 * same table parses files (through inih, reading line by line so that every message can
 * name the line), applies "--set section.key=value" overrides, formats values for show,
 * diff and JSON, and writes files back so that parsing the output gives the same struct.
 *
 * Repeated sections "[prefix.ID]" (MFMA instructions, operands) fill an array of elements,
 * one per ID, from the keys whose section is the prefix.  Unknown sections and keys, keys
 * given twice, missing required keys, malformed numbers and out-of-range values are errors
 * naming "file:line: [section] key" and the reason. */
#ifndef FSIM_INI_TABLE_H
#define FSIM_INI_TABLE_H

#include <stddef.h>
#include <stdio.h>

#include "util/status.h"

/* The LANES value type: which lanes of a wave are served together ("phases"). */
#define FSIM_MAX_WAVE 128
typedef struct fsim_lane_phases {
  int n;                                 /* phases */
  unsigned char of_lane[FSIM_MAX_WAVE];  /* phase of each lane, 0xff: none */
} fsim_lane_phases;

typedef enum fsim_key_type {
  FSIM_KEY_INT,    /* int */
  FSIM_KEY_LLONG,  /* long long */
  FSIM_KEY_DOUBLE, /* double */
  FSIM_KEY_STRING, /* char[size] */
  FSIM_KEY_DTYPE,  /* fsim_dtype */
  FSIM_KEY_ENUM,   /* int: index into choices "a|b|c" */
  FSIM_KEY_LANES   /* fsim_lane_phases: "0-3 12-15 / 32-35 ..." */
} fsim_key_type;

typedef struct fsim_ini_key {
  const char *section; /* a section, or a group's prefix for its repeated sections */
  const char *key;
  fsim_key_type type;
  size_t offset;       /* into the base struct, or into one group element */
  double min, max;     /* numeric range */
  size_t size;         /* STRING: buffer size */
  const char *choices; /* ENUM: "|"-separated names in enum order */
  int optional;        /* 1: may be left out; its field keeps what the caller put there */
  const char *unit;
  const char *doc;
} fsim_ini_key;

/* Repeated sections "[prefix.ID]": each ID is one element of an array in the base struct. */
typedef struct fsim_ini_group {
  const char *prefix;
  size_t array_offset; /* the array in the base struct */
  size_t elem_size;
  int max;             /* elements the array holds */
  size_t count_offset; /* int: elements in use */
  size_t id_offset;    /* char[id_size] in the element: its ID */
  size_t id_size;
} fsim_ini_group;

typedef struct fsim_ini_spec {
  const fsim_ini_key *keys;
  int nkeys;
  const fsim_ini_group *groups;
  int ngroups;
  const char *sections_hint; /* listed after "unknown section" */
  /* Relations between keys (NULL: none): returns 0, or names the section and key that is
   * off and writes why. */
  int (*check)(const void *base, const char **section, const char **key, char *why, size_t n);
  /* Keys that do not apply to this base (NULL: all apply): not required, not written. */
  int (*applies)(const void *base, const fsim_ini_key *k);
  /* Says why a key does not apply (NULL: a generic phrase). */
  const char *(*applies_hint)(const void *base);
} fsim_ini_spec;

/* The i-th key of the spec, or NULL. */
const fsim_ini_key *fsim_ini_find(const fsim_ini_spec *spec, const char *section, const char *key);

/* Reads path into base (which the caller zeroes or fills with defaults for optional keys). */
fsim_status fsim_ini_load(const fsim_ini_spec *spec, void *base, const char *path, fsim_err *e);
/* The same, handing the text read back in *kept on success (the caller frees it), so that
 * an error found later is located in what was read (fsim_ini_err_locate_in), not by reading
 * the file again: a pipe holds nothing the second time, and a FIFO blocks. */
fsim_status fsim_ini_load_keep(const fsim_ini_spec *spec, void *base, const char *path, char **kept, fsim_err *e);
/* The same for text in memory; source names it in messages. */
fsim_status fsim_ini_load_string(const fsim_ini_spec *spec, void *base, const char *text, const char *source,
                                 fsim_err *e);
/* assignment ("SECTION.KEY=VALUE") as fsim_ini_set reads it: VALUE without the blanks around
 * it, as a file's values are read. */
void fsim_ini_assignment_text(const char *assignment, char *out, size_t n);
/* Applies "section.key=value" (the section may contain dots: "prefix.ID"); on failure base
 * is unchanged and the message starts "--set ASSIGNMENT: ". */
fsim_status fsim_ini_set(const fsim_ini_spec *spec, void *base, const char *assignment, fsim_err *e);
/* The same; with check 0 the relations between keys are not checked (the caller checks them
 * once a set of assignments is complete). */
fsim_status fsim_ini_set_ex(const fsim_ini_spec *spec, void *base, const char *assignment, int check, fsim_err *e);
/* Formats the value of key k (elem: the group element for group keys, else NULL). */
void fsim_ini_format(const fsim_ini_key *k, const void *base, const void *elem, char *buf, size_t n);
/* v as the shortest decimal that reads back as v (2.4, 2.4000000001), for messages that
 * compare two values: %g would print both of those as 2.4. */
void fsim_ini_shortest_double(double v, char *buf, size_t n);
/* The value of a numeric key as a double (enums and data types as their index, strings 0). */
double fsim_ini_number(const fsim_ini_key *k, const void *base, const void *elem);
/* Writes base as an INI file (fixed sections in table order, then the group elements). */
fsim_status fsim_ini_write(const fsim_ini_spec *spec, const void *base, FILE *f, fsim_err *e);

/* Prefixes a message about a file's keys with where it is: "path:LINE" when the message
 * starts "[section] key:" and the file sets that key (its first setting), else "path".  For
 * checks that relate keys after loading, when the lines are no longer at hand: the line is
 * found in text, the file's text as fsim_ini_load_keep read it (NULL: in path itself, where
 * it is a regular file). */
void fsim_ini_err_locate_in(fsim_err *e, const char *path, const char *text);

/* Group element i of base, and the number in use. */
void *fsim_ini_group_elem(const fsim_ini_group *g, void *base, int i);
const void *fsim_ini_group_celem(const fsim_ini_group *g, const void *base, int i);
int fsim_ini_group_count(const fsim_ini_group *g, const void *base);

#endif
