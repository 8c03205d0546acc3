/* Servers that requests reach out of time order: the Infinity Cache slices and the DRAM
 * channels, which the requests of every XCD reach.
 *
 * Each serves one request (a line) per `service` cycles.  The simulator computes a request's
 * times when its CU issues the load, and CUs run up to a window apart, so a channel is asked
 * for time at 1,000 after it was asked for time at 1,200 (the later one came from a CU whose
 * own queues had already pushed its request further out).  A single "free at" time per
 * channel would make the earlier request wait behind the later one, although the channel was
 * idle before it: that queueing is an artefact, and it grew with the disorder (every level's
 * queues feed the next level's arrival times).  So each server keeps a calendar instead: time
 * is cut into buckets of `width` cycles (eight requests' worth), each bucket books at most
 * eight requests, and a request takes the first bucket at or after its arrival with room.
 * (A server so fast that 512 such buckets would span less than 4,096 cycles gets larger
 * buckets, of as many requests as make the ring span that: see below.)
 * There it starts at its arrival, but not before the service booked in the bucket so far
 * (packed from the bucket's start), nor before the end of the previous bucket's last booking
 * where that runs into this bucket, nor, when it arrives no earlier than the bucket's other
 * requests, before the end of the bucket's latest booking.  So requests that arrive in order
 * see a FIFO server (a burst runs back to back from its arrival, across buckets), while
 * out-of-order ones fill the idle time before the later bookings, as the channel would have
 * served them, to within a bucket; each bucket serves at most its width of requests.
 *
 * A server keeps `ring` buckets (a power of two) in a ring: bucket b lives in slot b mod ring
 * (the servers' slots interleaved, so that the buckets of one time share host cache lines)
 * and holds its index, so that a slot that still holds an old bucket reads as empty.  A
 * request more than ring buckets behind the latest booking starts ring buckets behind it (the
 * calendar has forgotten the time before), which is why the ring spans at least 4,096 cycles,
 * more than requests arrive out of order (with 512 buckets of eight a what-if MALL at
 * 1,000 TB/s spanned 111 cycles, and pushing the requests behind that forward made a
 * GEMM 23% slower than at 275 TB/s).  A full bucket points past itself to where room
 * may be (a find with path compression, as in a disjoint-set forest), so that under
 * saturation a request skips the booked time at once. */
#ifndef FSIM_SERVER_H
#define FSIM_SERVER_H

#include <stddef.h>
#include <stdint.h>

/* A bucket of a server's calendar: 16 bytes. */
typedef struct fsim__bucket {
  uint32_t tag;        /* the bucket's index (mod 2^32); a slot holding another is empty time */
  uint16_t count;      /* requests booked in it */
  uint16_t skip;       /* when full: the bucket tag + skip is the next to look at */
  float next;          /* when its latest booking ends, from the bucket's start */
  float last;          /* its latest arrival, from the bucket's start */
} fsim__bucket;

typedef struct fsim__servers {
  int n;               /* servers */
  int ring;            /* buckets per server, a power of two */
  double service;      /* cycles per request */
  int per_bucket;      /* requests a bucket holds: 8, more for a very fast server (server.c) */
  double width;        /* cycles per bucket: per_bucket x service */
  double inv_width;
  fsim__bucket *bucket; /* ring x n: bucket slot k of server i at k * n + i */
  int64_t *top;        /* per server: the latest bucket booked */
  double busy;         /* service booked, all servers */
} fsim__servers;

/* n servers of `service` cycles per request; returns -1 on allocation failure. */
int fsim__servers_create(fsim__servers *s, int n, double service);
void fsim__servers_free(fsim__servers *s);

/* Books server i for a request arriving at t; returns when its service starts. */
double fsim__servers_book(fsim__servers *s, int i, double t);

#endif
