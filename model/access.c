/* LDS bank cycles and coalesced lines of a wave's access: see access.h. */
#include "config.h"

#include "model/access.h"

#include <string.h>

int fsim_lds_bank_cycles(const fsim_arch *a, const int32_t *offsets, uint64_t active, int64_t base, int width,
                         int *degree) {
  const fsim_lane_phases *ph = fsim_arch_lds_phases(a, width);
  const int banks = a->lds.banks, bank_bytes = a->lds.bank_bytes;
  int total = 0, worst = 0;
  /* A phase costs as many cycles as its busiest bank has distinct words (lanes reading the
   * same word share it); a lane's access covers the words from its first byte's to its last
   * byte's (one more than width / bank_bytes when it is not aligned to a word).  The distinct
   * words of a phase go into a small open-addressing set (at most 64 lanes x 17 words, a
   * 16-byte access on 1-byte banks, 1,088 of 2,048 slots); each new word counts once for its
   * bank. */
  enum { SLOTS = 2048 };
  int64_t slot[SLOTS];
  uint8_t used[SLOTS]; /* the phase (+1) that filled the slot: no clearing between phases */
  int cnt[1024];       /* lds.banks is at most 1024 (model/arch.c) */
  int touched[1024], ntouched = 0; /* the banks counted in this phase */
  memset(used, 0, sizeof used);
  memset(cnt, 0, (size_t)banks * sizeof cnt[0]);
  for (int f = 0; f < ph->n; f++) {
    uint8_t mark = (uint8_t)(f + 1);
    int deg = 0;
    for (int lane = 0; lane < a->cu.wave_size; lane++) {
      if (ph->of_lane[lane] != f || !((active >> lane) & 1)) continue;
      int64_t addr = base + offsets[lane], end = addr + width - 1;
      int64_t first = addr >= 0 ? addr / bank_bytes : -((-addr + bank_bytes - 1) / bank_bytes);
      int64_t last = end >= 0 ? end / bank_bytes : -((-end + bank_bytes - 1) / bank_bytes);
      for (int64_t w = first; w <= last; w++) {
        uint64_t h = ((uint64_t)w * 0x9E3779B97F4A7C15ULL) >> 53; /* 11 bits: 0..2047 */
        while (used[h] == mark && slot[h] != w) h = (h + 1) & (SLOTS - 1);
        if (used[h] == mark) continue; /* a word another lane already reads */
        used[h] = mark;
        slot[h] = w;
        int bank = (int)(((w % banks) + banks) % banks);
        if (cnt[bank]++ == 0) touched[ntouched++] = bank;
        if (cnt[bank] > deg) deg = cnt[bank];
      }
    }
    while (ntouched > 0) cnt[touched[--ntouched]] = 0;
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

