/* DRAM channels: see hbm.h. */
#include "config.h"

#include "sim/hbm.h"

#include <stdlib.h>
#include <string.h>

int fsim__hbm_create(fsim__hbm *h, int channels, double bytes_per_cycle_total, int line_bytes, double latency) {
  memset(h, 0, sizeof *h);
  h->channels = channels;
  h->free_at = calloc((size_t)channels, sizeof *h->free_at);
  if (h->free_at == NULL) return -1;
  h->service = line_bytes / (bytes_per_cycle_total / channels);
  h->latency = latency;
  return 0;
}

void fsim__hbm_free(fsim__hbm *h) {
  free(h->free_at);
  memset(h, 0, sizeof *h);
}

static double serve(fsim__hbm *h, uint64_t hash, double t) {
  int c = fsim__hbm_channel_h(h, hash);
  double start = t > h->free_at[c] ? t : h->free_at[c];
  h->free_at[c] = start + h->service;
  h->stats.busy += h->service;
  return start;
}

double fsim__hbm_read(fsim__hbm *h, uint64_t hash, double t) {
  h->stats.read_lines++;
  return serve(h, hash, t) + h->latency;
}

double fsim__hbm_write(fsim__hbm *h, uint64_t hash, double t) {
  h->stats.write_lines++;
  return serve(h, hash, t) + h->latency;
}
