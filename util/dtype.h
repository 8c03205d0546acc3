/* Element data types that flysim knows: their names, sizes in bits and the peak-throughput
 * class they are reported under (fp8 and bf8 both count as "fp8", for example). */
#ifndef FSIM_DTYPE_H
#define FSIM_DTYPE_H

/* X(enum suffix, name as written in files, bits, peak class or NULL) */
#define FSIM_DTYPE_TABLE(X)        \
  X(F64, "f64", 64, "fp64")        \
  X(F32, "f32", 32, "fp32")        \
  X(XF32, "xf32", 32, NULL)        \
  X(F16, "f16", 16, "fp16")        \
  X(BF16, "bf16", 16, "bf16")      \
  X(FP8, "fp8", 8, "fp8")          \
  X(BF8, "bf8", 8, "fp8")          \
  X(FP6, "fp6", 6, "fp6")          \
  X(BF6, "bf6", 6, "fp6")          \
  X(FP4, "fp4", 4, "fp4")          \
  X(I8, "i8", 8, "int8")           \
  X(I4, "i4", 4, "int4")           \
  X(I32, "i32", 32, NULL)          \
  X(E8M0, "e8m0", 8, NULL)

typedef enum fsim_dtype {
#define FSIM__DT_ENUM(id, name, bits, cls) FSIM_DT_##id,
  FSIM_DTYPE_TABLE(FSIM__DT_ENUM)
#undef FSIM__DT_ENUM
  FSIM_DT_COUNT
} fsim_dtype;

const char *fsim_dtype_name(fsim_dtype t);
int fsim_dtype_bits(fsim_dtype t);
/* The peak class name ("bf16", "fp8", ...) or NULL when the type has no peak of its own. */
const char *fsim_dtype_peak_class(fsim_dtype t);
/* Parses a name ("bf16"); also accepts "fp16" for f16, "fp32" for f32, "fp64" for f64,
 * "e4m3" for fp8, "e5m2" for bf8 and "e2m1" for fp4.  Returns 0 on success, -1 if unknown. */
int fsim_dtype_parse(const char *s, fsim_dtype *out);

/* The peak classes in the order reports list them. */
#define FSIM_PEAK_CLASSES {"fp64", "fp32", "fp16", "bf16", "fp8", "fp6", "fp4", "int8", "int4"}
#define FSIM_PEAK_CLASS_COUNT 9

#endif
