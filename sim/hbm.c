/* DRAM channels: see hbm.h. */
#include "config.h"

#include "sim/hbm.h"

#include <stdlib.h>
#include <string.h>

int fsim__hbm_create(fsim__hbm *h, int channels, double bytes_per_cycle_total, int line_bytes, double latency) {
  memset(h, 0, sizeof *h);
  h->channels = channels;
  h->service = line_bytes / (bytes_per_cycle_total / channels);
  h->latency = latency;
  return fsim__servers_create(&h->chan, channels, h->service);
}

void fsim__hbm_free(fsim__hbm *h) {
  fsim__servers_free(&h->chan);
  memset(h, 0, sizeof *h);
}

static double serve(fsim__hbm *h, uint64_t hash, double t) {
  h->stats.busy += h->service;
  return fsim__servers_book(&h->chan, fsim__hbm_channel_h(h, hash), t);
}

double fsim__hbm_read(fsim__hbm *h, uint64_t hash, double t) {
  h->stats.read_lines++;
  return serve(h, hash, t) + h->latency;
}

double fsim__hbm_write(fsim__hbm *h, uint64_t hash, double t) {
  h->stats.write_lines++;
  return serve(h, hash, t) + h->latency;
}
