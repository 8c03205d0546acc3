/* LDS bank cycles and coalesced lines of a wave's access: see access.h. */
#include "config.h"

#include "model/access.h"

#include <string.h>

/* floor(v / 2^s) */
static inline int64_t floor_shift(int64_t v, int s) { return v >= 0 ? v >> s : -((-v + ((int64_t)1 << s) - 1) >> s); }

int fsim_lds_bank_cycles(const fsim_arch *a, const int32_t *offsets, uint64_t active, int64_t base, int width,
                         int *degree) {
  const fsim_lane_phases *ph = fsim_arch_lds_phases(a, width);
  /* banks and bank_bytes are powers of two (model/arch.c refuses others) */
  const int64_t bank_mask = a->lds.banks - 1;
  int word_shift = 0;
  while ((1 << word_shift) < a->lds.bank_bytes) word_shift++;
  /* A phase costs as many cycles as its busiest bank has distinct words (lanes reading the
   * same word share it); a lane's access covers the words from its first byte's to its last
   * byte's (one more than width / bank_bytes when it is not aligned to a word).
   * The active lanes are first grouped by phase (a counting sort, lane order kept); then the
   * distinct words of each phase go into a small open-addressing set, sized to at least twice
   * the words its largest phase can touch (at most 64 lanes x 17 words, a 16-byte access on
   * 1-byte banks: 1,088 of 2,048 slots), and each new word counts once for its bank. */
  enum { SLOTS = 2048 };
  const int nph = ph->n < 255 ? ph->n : 255;
  int first[257], order[FSIM_MAX_WAVE];
  memset(first, 0, (size_t)(nph + 2) * sizeof first[0]);
  const int ws = a->cu.wave_size < FSIM_MAX_WAVE ? a->cu.wave_size : FSIM_MAX_WAVE;
  for (int lane = 0; lane < ws; lane++) {
    int f = ph->of_lane[lane];
    if (f < nph && lane < 64 && ((active >> lane) & 1)) first[f + 2]++;
  }
  int most = 0;
  for (int f = 0; f < nph; f++) {
    if (first[f + 2] > most) most = first[f + 2];
    first[f + 2] += first[f + 1];
  }
  for (int lane = 0; lane < ws; lane++) {
    int f = ph->of_lane[lane];
    if (f < nph && lane < 64 && ((active >> lane) & 1)) order[first[f + 1]++] = lane;
  }
  /* now phase f's lanes are order[first[f] .. first[f + 1]) */
  int words = most * (width / a->lds.bank_bytes + 2), bits = 4;
  while ((1 << bits) < 2 * words && bits < 11) bits++;
  const int64_t smask = ((int64_t)1 << bits) - 1;
  int64_t slot[SLOTS];
  uint8_t used[SLOTS]; /* the phase (+1) that filled the slot: no clearing between phases */
  int cnt[1024];       /* lds.banks is at most 1024 (model/arch.c) */
  int touched[SLOTS], ntouched = 0; /* the banks counted in this phase */
  memset(used, 0, (size_t)1 << bits);
  memset(cnt, 0, (size_t)a->lds.banks * sizeof cnt[0]);
  int total = 0, worst = 0;
  for (int f = 0; f < nph; f++) {
    uint8_t mark = (uint8_t)(f + 1);
    int deg = 0;
    for (int i = first[f]; i < first[f + 1]; i++) {
      int64_t addr = base + offsets[order[i]];
      int64_t w = floor_shift(addr, word_shift), last = floor_shift(addr + width - 1, word_shift);
      for (; w <= last; w++) {
        uint64_t h = ((uint64_t)w * 0x9E3779B97F4A7C15ULL) >> (64 - bits);
        while (used[h] == mark && slot[h] != w) h = (h + 1) & (uint64_t)smask;
        if (used[h] == mark) continue; /* a word another lane already reads */
        used[h] = mark;
        slot[h] = w;
        int bank = (int)((uint64_t)w & (uint64_t)bank_mask);
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

