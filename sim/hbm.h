/* DRAM (HBM on the Instinct parts, GDDR6 on the Radeon): independent channels, each a FIFO
 * server whose rate is the pin bandwidth times the achievable fraction, split evenly; lines
 * are interleaved over channels by a hash of the address.  Latency is the unloaded latency
 * from the arch file; queueing adds to it when a channel saturates (a calendar server,
 * server.h, as requests reach it out of time order). */
#ifndef FSIM_HBM_H
#define FSIM_HBM_H

#include <stdint.h>

#include "sim/cache.h"
#include "sim/server.h"

typedef struct fsim__hbm {
  int channels;
  fsim__servers chan;  /* per channel (server.h) */
  double service;      /* cycles per line per channel */
  double latency;      /* cycles */
  struct {
    int64_t read_lines, write_lines;
    double busy;       /* channel-cycles spent serving */
  } stats;
} fsim__hbm;

int fsim__hbm_create(fsim__hbm *h, int channels, double bytes_per_cycle_total, int line_bytes, double latency);
void fsim__hbm_free(fsim__hbm *h);
/* The channel of a line from its hash (fsim__hash_line). */
static inline int fsim__hbm_channel_h(const fsim__hbm *h, uint64_t hash) {
  uint64_t x = hash >> 20;
  return (h->channels & (h->channels - 1)) == 0 ? (int)(x & (uint64_t)(h->channels - 1))
                                                : (int)(x % (uint64_t)h->channels);
}
/* A line read arriving at t (hash: the line's fsim__hash_line): returns when its data is back
 * at the requester's cache. */
double fsim__hbm_read(fsim__hbm *h, uint64_t hash, double t);
/* A line write (eviction) at t: takes bandwidth; returns when it is written. */
double fsim__hbm_write(fsim__hbm *h, uint64_t hash, double t);

#endif
