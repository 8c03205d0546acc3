/* LDS banks, phases and ports: see lds.h. */
#include "config.h"

#include "sim/lds.h"

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

void fsim__lds_init(fsim__lds *l, const fsim_arch *a) {
  memset(l, 0, sizeof *l);
  l->simds_per_port = a->lds.simds_per_port;
  l->port_bpc = a->lds.port_bytes_per_clk;
  l->latency = a->lds.latency;
}

int64_t fsim__lds_access(fsim__lds *l, int s, int64_t t, int bytes, int bank_cycles) {
  /* two pipelined stages: the bank array, then the SIMD's port */
  int p = s / l->simds_per_port;
  int port_cycles = (bytes + l->port_bpc - 1) / l->port_bpc;
  int64_t bank_start = t > l->bank_free ? t : l->bank_free;
  l->bank_free = bank_start + bank_cycles;
  int64_t port_start = bank_start > l->port_free[p] ? bank_start : l->port_free[p];
  l->port_free[p] = port_start + port_cycles;
  l->stats.accesses++;
  l->stats.bytes += bytes;
  l->stats.bank_cycles += bank_cycles;
  int64_t end = port_start + port_cycles;
  if (l->bank_free > end) end = l->bank_free;
  return end + l->latency;
}

void fsim__lds_dma_write(fsim__lds *l, int64_t t, int bytes, int bank_cycles) {
  int64_t start = t > l->bank_free ? t : l->bank_free;
  l->bank_free = start + bank_cycles;
  l->stats.bytes += bytes;
  l->stats.bank_cycles += bank_cycles;
}
