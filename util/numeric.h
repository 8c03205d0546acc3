/* Conversions between float and the narrow formats kernels use: bf16, f16 (IEEE binary16),
 * OCP FP8 E4M3 (fp8) and E5M2 (bf8), FP4 E2M1 (fp4) and the E8M0 block scale.  Encoding
 * rounds to nearest, ties to even, and saturates the FP8/FP4 formats (as AMD's conversion
 * instructions do in saturating mode). */
#ifndef FSIM_NUMERIC_H
#define FSIM_NUMERIC_H

#include <stdint.h>

#include "util/dtype.h"

float fsim_bf16_to_float(uint16_t x);
uint16_t fsim_float_to_bf16(float f);
float fsim_f16_to_float(uint16_t x);
uint16_t fsim_float_to_f16(float f);
float fsim_fp8_to_float(uint8_t x);  /* E4M3, bias 7, max 448, no infinities */
uint8_t fsim_float_to_fp8(float f);
float fsim_bf8_to_float(uint8_t x);  /* E5M2, bias 15 */
uint8_t fsim_float_to_bf8(float f);
float fsim_fp4_to_float(uint8_t nibble); /* E2M1: 0, 0.5, 1, 1.5, 2, 3, 4, 6 and negatives */
uint8_t fsim_float_to_fp4(float f);
float fsim_e8m0_to_float(uint8_t x); /* 2^(x - 127) */

/* Value i of a buffer of type t (4-bit types: two per byte, low nibble first). */
float fsim_load_elem(fsim_dtype t, const uint8_t *buf, int64_t i);
void fsim_store_elem(fsim_dtype t, uint8_t *buf, int64_t i, float v);
/* Mantissa bits of a type's significand (the unit roundoff is 2^-(bits+1)). */
int fsim_dtype_mantissa_bits(fsim_dtype t);

#endif
