/* LDS bank cycles and coalesced lines of a wave's access: see access.h. */
#include "config.h"

#include "model/access.h"

#include <string.h>

int fsim_lds_bank_cycles(const fsim_arch *a, const int32_t *offsets, uint64_t active, int64_t base, int width,
                         int *degree) {
  const fsim_lane_phases *ph = fsim_arch_lds_phases(a, width);
  const int banks = a->lds.banks, bank_bytes = a->lds.bank_bytes;
  const int words = (width + bank_bytes - 1) / bank_bytes;
  int total = 0, worst = 0;
  /* (bank, word) pairs of one phase as sortable keys: at most wave_size lanes x 4 words */
  uint64_t key[FSIM_MAX_WAVE * 4];
  for (int f = 0; f < ph->n; f++) {
    int n = 0;
    for (int lane = 0; lane < a->cu.wave_size; lane++) {
      if (ph->of_lane[lane] != f || !((active >> lane) & 1)) continue;
      int64_t addr = base + offsets[lane];
      int64_t first = addr >= 0 ? addr / bank_bytes : -((-addr + bank_bytes - 1) / bank_bytes);
      for (int k = 0; k < words; k++) {
        int64_t w = first + k;
        uint64_t bank = (uint64_t)(((w % banks) + banks) % banks);
        uint64_t x = (bank << 48) | ((uint64_t)(w + ((int64_t)1 << 46)) & (((uint64_t)1 << 48) - 1));
        /* insertion sort: lanes mostly ascend, so this is close to linear */
        int j = n++;
        while (j > 0 && key[j - 1] > x) {
          key[j] = key[j - 1];
          j--;
        }
        key[j] = x;
      }
    }
    if (n == 0) continue;
    /* the phase costs as many cycles as the busiest bank has distinct words */
    int deg = 0, run = 0;
    for (int i = 0; i < n; i++) {
      if (i == 0 || (key[i] >> 48) != (key[i - 1] >> 48))
        run = 1;
      else if (key[i] != key[i - 1])
        run++;
      if (run > deg) deg = run;
    }
    total += deg;
    if (deg > worst) worst = deg;
  }
  if (degree) *degree = worst;
  return total > 0 ? total : 1;
}

int fsim_vmem_coalesce(const int32_t *offsets, uint64_t active, int wave_size, int64_t base, int width,
                       int line_shift, uint64_t *lines) {
  int n = 0;
  for (int lane = 0; lane < wave_size; lane++) {
    if (!((active >> lane) & 1)) continue;
    int64_t a0 = base + offsets[lane];
    uint64_t first = (uint64_t)a0 >> line_shift, last = (uint64_t)(a0 + width - 1) >> line_shift;
    for (uint64_t l = first; l <= last; l++) {
      /* insertion into the sorted unique list; lanes usually ascend, so this is short */
      int i = n;
      while (i > 0 && lines[i - 1] > l) i--;
      if (i > 0 && lines[i - 1] == l) continue;
      memmove(&lines[i + 1], &lines[i], (size_t)(n - i) * sizeof *lines);
      lines[i] = l;
      n++;
    }
  }
  return n;
}

