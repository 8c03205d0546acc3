/* Narrow-format conversions: see numeric.h. */
#include "config.h"

#include "util/numeric.h"

#include <math.h>
#include <string.h>

static uint32_t bits_of(float f) {
  uint32_t u;
  memcpy(&u, &f, 4);
  return u;
}

static float float_of(uint32_t u) {
  float f;
  memcpy(&f, &u, 4);
  return f;
}

float fsim_bf16_to_float(uint16_t x) { return float_of((uint32_t)x << 16); }

uint16_t fsim_float_to_bf16(float f) {
  uint32_t u = bits_of(f);
  if (isnan(f)) return (uint16_t)((u >> 16) | 0x40);
  u += 0x7fff + ((u >> 16) & 1); /* round to nearest even */
  return (uint16_t)(u >> 16);
}

float fsim_f16_to_float(uint16_t x) {
  int s = x >> 15, e = (x >> 10) & 0x1f, m = x & 0x3ff;
  float v;
  if (e == 0)
    v = ldexpf((float)m, -24);
  else if (e == 31)
    v = m ? NAN : INFINITY;
  else
    v = ldexpf((float)(m | 0x400), e - 25);
  return s ? -v : v;
}

/* Rounds |f| to a binary format with `mbits` mantissa bits, exponent bias `bias`, largest
 * finite value `max` (saturating) and subnormals below 2^(1-bias); returns the encoding
 * without the sign.  Shared by the narrow float formats. */
static uint32_t encode_small(float a, int mbits, int ebits, int bias, float max, int saturate, uint32_t nan_code) {
  if (isnan(a)) return nan_code;
  if (a >= max * (1.0f + ldexpf(1.0f, -mbits - 1)) && !saturate) return ((1u << ebits) - 1) << mbits; /* inf */
  if (a > max) a = max;
  int min_exp = 1 - bias;
  int e;
  frexpf(a, &e); /* a = f * 2^e, f in [0.5, 1) */
  int exp = e - 1;
  if (exp < min_exp) exp = min_exp;
  float scaled = ldexpf(a, mbits - exp); /* the significand as an integer, rounded below */
  float r = rintf(scaled);               /* nearest, ties to even (default rounding mode) */
  uint32_t q = (uint32_t)r;
  if (q >= (2u << mbits)) { /* rounded up into the next binade */
    q >>= 1;
    exp++;
  }
  if (q < (1u << mbits)) return q; /* subnormal (or zero) */
  uint32_t code = ((uint32_t)(exp + bias) << mbits) | (q & ((1u << mbits) - 1));
  return code;
}

uint16_t fsim_float_to_f16(float f) {
  uint16_t s = signbit(f) ? 0x8000 : 0;
  return (uint16_t)(s | encode_small(fabsf(f), 10, 5, 15, 65504.0f, 0, 0x7e00));
}

float fsim_fp8_to_float(uint8_t x) {
  int s = x >> 7, e = (x >> 3) & 0xf, m = x & 7;
  float v;
  if (e == 15 && m == 7) return NAN;
  if (e == 0)
    v = ldexpf((float)m, -9);
  else
    v = ldexpf((float)(m | 8), e - 10);
  return s ? -v : v;
}

uint8_t fsim_float_to_fp8(float f) {
  uint8_t s = signbit(f) ? 0x80 : 0;
  return (uint8_t)(s | encode_small(fabsf(f), 3, 4, 7, 448.0f, 1, 0x7f));
}

float fsim_bf8_to_float(uint8_t x) {
  int s = x >> 7, e = (x >> 2) & 0x1f, m = x & 3;
  float v;
  if (e == 31) v = m ? NAN : INFINITY;
  else if (e == 0) v = ldexpf((float)m, -16);
  else v = ldexpf((float)(m | 4), e - 17);
  return s ? -v : v;
}

uint8_t fsim_float_to_bf8(float f) {
  uint8_t s = signbit(f) ? 0x80 : 0;
  return (uint8_t)(s | encode_small(fabsf(f), 2, 5, 15, 57344.0f, 1, 0x7f));
}

float fsim_fp4_to_float(uint8_t x) {
  static const float mag[8] = {0.0f, 0.5f, 1.0f, 1.5f, 2.0f, 3.0f, 4.0f, 6.0f};
  float v = mag[x & 7];
  return (x & 8) ? -v : v;
}

uint8_t fsim_float_to_fp4(float f) {
  uint8_t s = signbit(f) ? 8 : 0;
  return (uint8_t)(s | encode_small(fabsf(f), 1, 2, 1, 6.0f, 1, 7));
}

float fsim_e8m0_to_float(uint8_t x) { return x == 0xff ? NAN : ldexpf(1.0f, (int)x - 127); }

float fsim_load_elem(fsim_dtype t, const uint8_t *buf, int64_t i) {
  switch (t) {
  case FSIM_DT_BF16: {
    uint16_t v;
    memcpy(&v, buf + 2 * i, 2);
    return fsim_bf16_to_float(v);
  }
  case FSIM_DT_F16: {
    uint16_t v;
    memcpy(&v, buf + 2 * i, 2);
    return fsim_f16_to_float(v);
  }
  case FSIM_DT_F32: {
    float v;
    memcpy(&v, buf + 4 * i, 4);
    return v;
  }
  case FSIM_DT_FP8: return fsim_fp8_to_float(buf[i]);
  case FSIM_DT_BF8: return fsim_bf8_to_float(buf[i]);
  case FSIM_DT_FP4: return fsim_fp4_to_float((uint8_t)((buf[i / 2] >> (4 * (i & 1))) & 0xf));
  case FSIM_DT_E8M0: return fsim_e8m0_to_float(buf[i]);
  default: return NAN;
  }
}

void fsim_store_elem(fsim_dtype t, uint8_t *buf, int64_t i, float v) {
  switch (t) {
  case FSIM_DT_BF16: {
    uint16_t x = fsim_float_to_bf16(v);
    memcpy(buf + 2 * i, &x, 2);
    break;
  }
  case FSIM_DT_F16: {
    uint16_t x = fsim_float_to_f16(v);
    memcpy(buf + 2 * i, &x, 2);
    break;
  }
  case FSIM_DT_F32: memcpy(buf + 4 * i, &v, 4); break;
  case FSIM_DT_FP8: buf[i] = fsim_float_to_fp8(v); break;
  case FSIM_DT_BF8: buf[i] = fsim_float_to_bf8(v); break;
  case FSIM_DT_FP4: {
    uint8_t n = fsim_float_to_fp4(v), sh = (uint8_t)(4 * (i & 1));
    buf[i / 2] = (uint8_t)((buf[i / 2] & ~(0xf << sh)) | (n << sh));
    break;
  }
  default: break;
  }
}

int fsim_dtype_mantissa_bits(fsim_dtype t) {
  switch (t) {
  case FSIM_DT_F64: return 52;
  case FSIM_DT_F32: return 23;
  case FSIM_DT_F16: return 10;
  case FSIM_DT_BF16: return 7;
  case FSIM_DT_FP8: return 3;
  case FSIM_DT_BF8: return 2;
  case FSIM_DT_FP4: return 1;
  default: return 0;
  }
}
