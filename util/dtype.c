/* Element data types: see dtype.h. */
#include "config.h"

#include "util/dtype.h"

#include <string.h>

static const struct {
  const char *name;
  int bits;
  const char *peak_class;
} dtype_info[] = {
#define FSIM__DT_INFO(id, name, bits, cls) {name, bits, cls},
    FSIM_DTYPE_TABLE(FSIM__DT_INFO)
#undef FSIM__DT_INFO
};

const char *fsim_dtype_name(fsim_dtype t) {
  return (unsigned)t < FSIM_DT_COUNT ? dtype_info[t].name : "?";
}

int fsim_dtype_bits(fsim_dtype t) { return (unsigned)t < FSIM_DT_COUNT ? dtype_info[t].bits : 0; }

const char *fsim_dtype_peak_class(fsim_dtype t) {
  return (unsigned)t < FSIM_DT_COUNT ? dtype_info[t].peak_class : NULL;
}

int fsim_dtype_parse(const char *s, fsim_dtype *out) {
  static const struct {
    const char *alias;
    fsim_dtype t;
  } aliases[] = {{"fp16", FSIM_DT_F16}, {"fp32", FSIM_DT_F32}, {"fp64", FSIM_DT_F64},
                 {"e4m3", FSIM_DT_FP8}, {"e5m2", FSIM_DT_BF8}, {"e2m1", FSIM_DT_FP4},
                 {"int8", FSIM_DT_I8}};
  for (int i = 0; i < FSIM_DT_COUNT; i++)
    if (strcmp(s, dtype_info[i].name) == 0) {
      *out = (fsim_dtype)i;
      return 0;
    }
  for (size_t i = 0; i < sizeof aliases / sizeof aliases[0]; i++)
    if (strcmp(s, aliases[i].alias) == 0) {
      *out = aliases[i].t;
      return 0;
    }
  return -1;
}
