/* LDS banks, phases and ports: see lds.h. */
#include "config.h"

#include "sim/lds.h"

#include <string.h>

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
