/* How a wave's per-lane addresses meet the hardware: the LDS bank cycles of an access
 * (banks and lane phases from the arch file) and the cache lines a global access touches.
 * Pure functions of the arch and the addresses: the simulator times with them, kernels/
 * chooses swizzles with them, and the analytical model counts with them. */
#ifndef FSIM_ACCESS_H
#define FSIM_ACCESS_H

#include <stdint.h>

#include "model/arch.h"

/* Bank cycles for one LDS access: the sum over the phases of its width of the worst bank's
 * distinct dwords (a broadcast of one dword costs once).  offsets: wave_size per-lane byte
 * offsets; active: lanes taking part; base: added to each.  *degree (if not NULL) receives
 * the worst phase's conflict degree. */
int fsim_lds_bank_cycles(const fsim_arch *a, const int32_t *offsets, uint64_t active, int64_t base, int width,
                         int *degree);

/* Unique lines (address >> line_shift) touched by the active lanes, each reading `width`
 * bytes at base + offsets[lane]; sorted ascending.  Returns the count (at most wave_size * 2). */
int fsim_vmem_coalesce(const int32_t *offsets, uint64_t active, int wave_size, int64_t base, int width,
                       int line_shift, uint64_t *lines);

#endif
