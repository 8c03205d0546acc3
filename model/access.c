/* LDS bank cycles and coalesced lines of a wave's access: see access.h. */
#include "config.h"

#include "model/access.h"

#include <stdlib.h>
#include <string.h>

typedef struct bank_word {
  int bank;
  int64_t word;
} bank_word;

static int cmp_bank_word(const void *x, const void *y) {
  const bank_word *a = x, *b = y;
  if (a->bank != b->bank) return a->bank < b->bank ? -1 : 1;
  return (a->word > b->word) - (a->word < b->word);
}

int fsim_lds_bank_cycles(const fsim_arch *a, const int32_t *offsets, uint64_t active, int64_t base,
                         int width, int *degree) {
  const fsim_lane_phases *ph = fsim_arch_lds_phases(a, width);
  const int banks = a->lds.banks, bank_bytes = a->lds.bank_bytes;
  const int words = (width + bank_bytes - 1) / bank_bytes;
  int total = 0, worst = 0;
  bank_word bw[FSIM_MAX_WAVE * 4]; /* at most wave_size lanes x 4 words */
  for (int f = 0; f < ph->n; f++) {
    int n = 0;
    for (int lane = 0; lane < a->cu.wave_size; lane++) {
      if (ph->of_lane[lane] != f || !((active >> lane) & 1)) continue;
      int64_t addr = base + offsets[lane];
      int64_t first = addr >= 0 ? addr / bank_bytes : -((-addr + bank_bytes - 1) / bank_bytes);
      for (int k = 0; k < words; k++) {
        int64_t w = first + k;
        bw[n].word = w;
        bw[n].bank = (int)(((w % banks) + banks) % banks);
        n++;
      }
    }
    if (n == 0) continue;
    qsort(bw, (size_t)n, sizeof bw[0], cmp_bank_word);
    /* the phase costs as many cycles as the busiest bank has distinct words */
    int deg = 0, run = 0;
    for (int i = 0; i < n; i++) {
      if (i == 0 || bw[i].bank != bw[i - 1].bank)
        run = 1;
      else if (bw[i].word != bw[i - 1].word)
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

