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
  const uint64_t bank_mask = (uint64_t)a->lds.banks - 1;
  const int word_shift = __builtin_ctz((unsigned)a->lds.bank_bytes);
  /* A phase costs as many cycles as its busiest bank has distinct words (lanes reading the
   * same word share it); a lane's access covers the words from its first byte's to its last
   * byte's (one more than width / bank_bytes when it is not aligned to a word).
   * The active lanes are first grouped by phase (a mask of each phase's lanes).  A phase
   * whose lanes touch no bank twice costs one cycle (checked with a mask of banks, below);
   * otherwise the distinct words of the phase go into a small open-addressing set and each
   * new word counts once for its bank. */
  const int nph = ph->n < 255 ? ph->n : 255;
  const int ws = a->cu.wave_size < 64 ? a->cu.wave_size : 64;
  if (ws < 64) active &= (UINT64_C(1) << ws) - 1;
  uint64_t lanes[255]; /* per phase: its active lanes */
  memset(lanes, 0, (size_t)nph * sizeof lanes[0]);
  for (uint64_t m = active; m; m &= m - 1) {
    int lane = __builtin_ctzll(m), f = ph->of_lane[lane];
    if (f < nph) lanes[f] |= UINT64_C(1) << lane;
  }
  /* the general path's set: sized to at least twice the words the phase can touch (at
   * most 64 lanes x 17 words, a 16-byte access on 1-byte banks: 1,088 of 2,048 slots), each
   * slot marked with the phase (+1) that filled it, so that no phase clears it */
  enum { SLOTS = 2048 };
  int64_t slot[SLOTS];
  uint8_t used[SLOTS];
  int cnt[1024];       /* lds.banks is at most 1024 (model/arch.c) */
  int touched[SLOTS], ntouched = 0; /* the banks counted in this phase */
  int bits = 0;        /* log2 of the set's slots; 0 until a phase needs it */
  int total = 0, worst = 0;
  const int banks = a->lds.banks;
  for (int f = 0; f < nph; f++) {
    /* first the common case, up to 64 banks: no bank touched twice (so no conflict and no
     * shared word), found with one mask of the phase's banks, a lane's words at a time */
    if (banks <= 64) {
      uint64_t seen = 0, all = banks == 64 ? ~UINT64_C(0) : (UINT64_C(1) << banks) - 1;
      uint64_t m = lanes[f];
      for (; m; m &= m - 1) {
        int64_t addr = base + offsets[__builtin_ctzll(m)];
        int64_t w = floor_shift(addr, word_shift), n = floor_shift(addr + width - 1, word_shift) - w + 1;
        if (n >= banks) break;
        int b = (int)((uint64_t)w & bank_mask);
        uint64_t run = (UINT64_C(1) << n) - 1, bits_of = (run << b | (b ? run >> (banks - b) : 0)) & all;
        if (seen & bits_of) break;
        seen |= bits_of;
      }
      if (m == 0) {
        if (seen) {
          total += 1;
          if (worst < 1) worst = 1;
        }
        continue;
      }
    }
    if (bits == 0) { /* set up once, for the phase with the most lanes */
      int most = 0;
      for (int g = 0; g < nph; g++) {
        int c = __builtin_popcountll(lanes[g]);
        if (c > most) most = c;
      }
      int words = most * (width / a->lds.bank_bytes + 2);
      bits = 4;
      while ((1 << bits) < 2 * words && bits < 11) bits++;
      memset(used, 0, (size_t)1 << bits);
      memset(cnt, 0, (size_t)banks * sizeof cnt[0]);
    }
    const int64_t smask = ((int64_t)1 << bits) - 1;
    uint8_t mark = (uint8_t)(f + 1);
    int deg = 0;
    for (uint64_t m = lanes[f]; m; m &= m - 1) {
      int64_t addr = base + offsets[__builtin_ctzll(m)];
      int64_t w = floor_shift(addr, word_shift), last = floor_shift(addr + width - 1, word_shift);
      for (; w <= last; w++) {
        uint64_t h = ((uint64_t)w * 0x9E3779B97F4A7C15ULL) >> (64 - bits);
        while (used[h] == mark && slot[h] != w) h = (h + 1) & (uint64_t)smask;
        if (used[h] == mark) continue; /* a word another lane already reads */
        used[h] = mark;
        slot[h] = w;
        int bank = (int)((uint64_t)w & bank_mask);
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

