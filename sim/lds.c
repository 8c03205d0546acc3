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

