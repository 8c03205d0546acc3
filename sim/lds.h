/* The LDS of one CU: banks, phases, ports.  An access of `width` bytes per lane is split
 * into the phases the arch file lists for that width (lanes served together); in a phase,
 * the cost is the largest number of distinct dwords any one bank must deliver (a broadcast
 * of one dword costs once).  The bank array serves one phase-cycle per cycle for the whole
 * CU; each SIMD reaches it through a port (shared by simds_per_port SIMDs) of
 * port_bytes_per_clk.  Both are FIFO servers in a pipeline (banks, then the port); the data
 * arrives `latency` cycles after the later of the two finishes. */
#ifndef FSIM_LDS_H
#define FSIM_LDS_H

#include <stdint.h>

#include "model/access.h"
#include "model/arch.h"


typedef struct fsim__lds {
  int simds_per_port;
  int port_bpc;
  int latency;
  int64_t port_free[16];
  int64_t bank_free;
  struct {
    int64_t accesses, bytes, bank_cycles, ideal_cycles;
  } stats;
} fsim__lds;

void fsim__lds_init(fsim__lds *l, const fsim_arch *a);
/* An access from SIMD s at t moving `bytes` with `bank_cycles`: returns when data is ready.
 * Two pipelined stages: the bank array, then the SIMD's port. */
static inline int64_t fsim__lds_access(fsim__lds *l, int s, int64_t t, int bytes, int bank_cycles) {
  int p = l->simds_per_port == 1 ? s : s / l->simds_per_port;
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

/* Bank-array time taken by a direct global-to-LDS write of `bytes` at t (no port). */
static inline void fsim__lds_dma_write(fsim__lds *l, int64_t t, int bytes, int bank_cycles) {
  int64_t start = t > l->bank_free ? t : l->bank_free;
  l->bank_free = start + bank_cycles;
  l->stats.bytes += bytes;
  l->stats.bank_cycles += bank_cycles;
}

#endif
