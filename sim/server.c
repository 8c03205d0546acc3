/* Calendar servers: see server.h. */
#include "config.h"

#include "sim/server.h"

#include <stdlib.h>
#include <string.h>

#define RING 512          /* buckets per server (skips fit 16 bits) */
#define PER_BUCKET 8      /* requests a bucket holds, at least */
#define HORIZON 4096.0    /* cycles the ring covers, at least: more than requests arrive out of order */
#define MAX_PER_BUCKET 32768

int fsim__servers_create(fsim__servers *s, int n, double service) {
  memset(s, 0, sizeof *s);
  s->n = n;
  s->ring = RING;
  s->service = service;
  /* eight requests a bucket, unless the ring would then remember less than HORIZON cycles
   * (a fast server: the MALL of a what-if part at hundreds of TB/s); then as many more as
   * make it do so, so that requests out of order by up to that much are still served at
   * their arrival rather than at the oldest time remembered */
  s->per_bucket = PER_BUCKET;
  if (RING * PER_BUCKET * service < HORIZON) {
    double per = HORIZON / (RING * service);
    s->per_bucket = per < MAX_PER_BUCKET ? (int)per + 1 : MAX_PER_BUCKET;
  }
  s->width = s->per_bucket * service;
  s->inv_width = 1.0 / s->width;
  s->bucket = malloc((size_t)n * RING * sizeof *s->bucket);
  s->top = calloc((size_t)n, sizeof *s->top);
  if (s->bucket == NULL || s->top == NULL) {
    fsim__servers_free(s);
    return -1;
  }
  /* tag 2^32 - 1 is a bucket 2^32 - 1 before bucket 0 of every slot: empty time */
  for (size_t k = 0; k < (size_t)n * RING; k++) s->bucket[k] = (fsim__bucket){.tag = UINT32_MAX, .skip = 1};
  return 0;
}

void fsim__servers_free(fsim__servers *s) {
  free(s->bucket);
  free(s->top);
  memset(s, 0, sizeof *s);
}

double fsim__servers_book(fsim__servers *s, int i, double t) {
  const int64_t mask = s->ring - 1;
  /* bucket k of server i is at k * n + i: the servers' buckets of one time lie together */
  fsim__bucket *bk = &s->bucket[i];
  const int64_t n = s->n;
  double bt = t * s->inv_width; /* NaN and t <= 0 go to bucket 0; no time reaches 2^62 buckets */
  int64_t b = bt > 0 ? (bt < 4e18 ? (int64_t)bt : (int64_t)4e18) : 0;
  /* older than the ring remembers: its first bucket after the latest booking's wrap, so that a
   * search from b ends (at top + 1 at the latest) in a slot other than b's */
  if (b < s->top[i] - mask + 1) b = s->top[i] - mask + 1;
  /* find the first bucket from b with room; the ring never holds a bucket past top, so a
   * slot that does not hold x holds an older bucket, which is empty time now */
  int64_t x = b;
  fsim__bucket *q;
  for (;;) {
    q = &bk[(x & mask) * n];
    if (q->tag != (uint32_t)x) *q = (fsim__bucket){.tag = (uint32_t)x, .skip = 1, .next = 0, .last = -1e30f};
    if (q->count < s->per_bucket) break;
    x += q->skip;
  }
  /* point the full buckets passed on the way at x (less than the ring ahead) */
  for (int64_t y = b; y < x;) {
    fsim__bucket *p = &bk[(y & mask) * n];
    int64_t next = y + p->skip;
    p->skip = (uint16_t)(x - y);
    y = next;
  }
  const double bs = (double)x * s->width;
  double start = bs + q->count * s->service; /* the bucket's bookings packed from its start */
  /* in order (compared as stored, so that a request arriving with the latest is in order):
   * after them */
  if (q->count > 0 && (float)(t - bs) >= q->last && bs + q->next > start) start = bs + q->next;
  const fsim__bucket *p = &bk[((x - 1) & mask) * n];
  if (x > 0 && p->tag == (uint32_t)(x - 1) && bs - s->width + p->next > start)
    start = bs - s->width + p->next; /* the previous bucket's last booking runs into this one */
  if (t > start) start = t;
  q->count++;
  if ((float)(start + s->service - bs) > q->next) q->next = (float)(start + s->service - bs);
  if ((float)(t - bs) > q->last) q->last = (float)(t - bs);
  s->busy += s->service;
  if (x > s->top[i]) s->top[i] = x;
  return start;
}
