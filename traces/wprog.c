/* Wave programs: construction, validation, counting and the workgroup remap.  See wprog.h
 * for the model; the text format is in wprog_text.c. */
#include "config.h"

#include "traces/wprog.h"

#include <stdlib.h>
#include <string.h>

static const struct {
  const char *name;
  int counted;
} op_info[] = {
#define FSIM__OP_INFO(id, name, counted) {name, counted},
    FSIM_OP_TABLE(FSIM__OP_INFO)
#undef FSIM__OP_INFO
};

const char *fsim_op_name(fsim_op op) { return (unsigned)op < FSIM_OP_COUNT ? op_info[op].name : "?"; }

int fsim_op_parse(const char *s, fsim_op *out) {
  for (int i = 0; i < FSIM_OP_COUNT; i++)
    if (strcmp(s, op_info[i].name) == 0) {
      *out = (fsim_op)i;
      return 0;
    }
  return -1;
}

static int grow(void **p, int *cap, int need, size_t elem) {
  if (need <= *cap) return 0;
  int nc = *cap ? *cap : 8;
  while (nc < need) nc *= 2;
  void *np = realloc(*p, (size_t)nc * elem);
  if (np == NULL) return -1;
  memset((char *)np + (size_t)*cap * elem, 0, (size_t)(nc - *cap) * elem);
  *p = np;
  *cap = nc;
  return 0;
}

fsim_status fsim_wprog_init(fsim_wprog *wp, const char *name, fsim_err *e) {
  memset(wp, 0, sizeof *wp);
  if (strlen(name) >= sizeof wp->name) return FSIM_ERR(e, FSIM_EINVAL, "kernel name '%.40s...' too long", name);
  strcpy(wp->name, name);
  wp->grid[0] = wp->grid[1] = wp->grid[2] = 1;
  wp->waves_per_wg = 1;
  wp->wave_size = 64;
  return FSIM_OK;
}

void fsim_wprog_free(fsim_wprog *wp) {
  if (wp == NULL) return;
  for (int i = 0; i < wp->nprograms; i++) {
    free(wp->programs[i].inst);
    free(wp->programs[i].loops);
  }
  free(wp->programs);
  free(wp->wave_program);
  for (int i = 0; i < wp->nlanes; i++) {
    free(wp->lanes[i].offset);
    free(wp->lanes[i].active);
  }
  free(wp->lanes);
  free(wp->addrs);
  free(wp->reg_names);
  memset(wp, 0, sizeof *wp);
}

fsim_status fsim_wprog_set_programs(fsim_wprog *wp, int n, fsim_err *e) {
  if (n < 1 || n > wp->waves_per_wg)
    return FSIM_ERR(e, FSIM_EINVAL, "%d programs for %d waves per workgroup", n, wp->waves_per_wg);
  if (wp->programs != NULL) return FSIM_ERR(e, FSIM_EINVAL, "programs already set");
  wp->programs = calloc((size_t)n, sizeof *wp->programs);
  wp->wave_program = calloc((size_t)wp->waves_per_wg, sizeof *wp->wave_program);
  if (wp->programs == NULL || wp->wave_program == NULL) return FSIM_ERR(e, FSIM_ENOMEM, "out of memory");
  wp->nprograms = n;
  return FSIM_OK;
}

int fsim_wprog_reg(fsim_wprog *wp, const char *name, fsim_err *e) {
  for (int i = 0; i < wp->nregs; i++)
    if (strcmp(wp->reg_names[i], name) == 0) return i;
  if (strlen(name) >= FSIM_WP_NAME) return FSIM_ERR(e, FSIM_EINVAL, "register name '%.40s...' too long", name), -1;
  if (wp->nregs >= 65535) return FSIM_ERR(e, FSIM_ERANGE, "more than 65535 registers"), -1;
  if (grow((void **)&wp->reg_names, &wp->regs_cap, wp->nregs + 1, FSIM_WP_NAME) != 0)
    return FSIM_ERR(e, FSIM_ENOMEM, "out of memory"), -1;
  strcpy(wp->reg_names[wp->nregs], name);
  return wp->nregs++;
}

int fsim_wprog_add_lanes(fsim_wprog *wp, const char *name, int rows, fsim_err *e) {
  if (fsim_wprog_find_lanes(wp, name) >= 0) return FSIM_ERR(e, FSIM_EINVAL, "lanes '%s' defined twice", name), -1;
  if (strlen(name) >= FSIM_WP_NAME) return FSIM_ERR(e, FSIM_EINVAL, "lanes name too long"), -1;
  if (rows < 1) return FSIM_ERR(e, FSIM_EINVAL, "lanes '%s': %d rows", name, rows), -1;
  if (grow((void **)&wp->lanes, &wp->lanes_cap, wp->nlanes + 1, sizeof *wp->lanes) != 0)
    return FSIM_ERR(e, FSIM_ENOMEM, "out of memory"), -1;
  fsim_wp_lanes *l = &wp->lanes[wp->nlanes];
  memset(l, 0, sizeof *l);
  strcpy(l->name, name);
  l->rows = rows;
  l->offset = calloc((size_t)rows * (size_t)wp->wave_size, sizeof *l->offset);
  l->active = calloc((size_t)rows, sizeof *l->active);
  if (l->offset == NULL || l->active == NULL) {
    free(l->offset);
    free(l->active);
    return FSIM_ERR(e, FSIM_ENOMEM, "out of memory"), -1;
  }
  uint64_t all = wp->wave_size >= 64 ? ~0ULL : ((1ULL << wp->wave_size) - 1);
  for (int r = 0; r < rows; r++) l->active[r] = all;
  return wp->nlanes++;
}

int fsim_wprog_add_addr(fsim_wprog *wp, const fsim_wp_addr *a, fsim_err *e) {
  if (fsim_wprog_find_addr(wp, a->name) >= 0) return FSIM_ERR(e, FSIM_EINVAL, "address '%s' defined twice", a->name), -1;
  if (grow((void **)&wp->addrs, &wp->addrs_cap, wp->naddrs + 1, sizeof *wp->addrs) != 0)
    return FSIM_ERR(e, FSIM_ENOMEM, "out of memory"), -1;
  wp->addrs[wp->naddrs] = *a;
  return wp->naddrs++;
}

int fsim_wprog_find_lanes(const fsim_wprog *wp, const char *name) {
  for (int i = 0; i < wp->nlanes; i++)
    if (strcmp(wp->lanes[i].name, name) == 0) return i;
  return -1;
}

int fsim_wprog_find_addr(const fsim_wprog *wp, const char *name) {
  for (int i = 0; i < wp->naddrs; i++)
    if (strcmp(wp->addrs[i].name, name) == 0) return i;
  return -1;
}

int fsim_wp_program_append(fsim_wp_program *p, const fsim_wp_inst *in, fsim_err *e) {
  if (p->ninst >= (1 << 30)) return FSIM_ERR(e, FSIM_ERANGE, "program too long"), -1;
  if (grow((void **)&p->inst, &p->cap, p->ninst + 1, sizeof *p->inst) != 0)
    return FSIM_ERR(e, FSIM_ENOMEM, "out of memory"), -1;
  p->inst[p->ninst] = *in;
  return p->ninst++;
}

fsim_status fsim_wp_program_loop_begin(fsim_wp_program *p, int64_t trip, fsim_err *e) {
  if (trip < 1) return FSIM_ERR(e, FSIM_EINVAL, "loop trip count %lld is not positive", (long long)trip);
  if (p->nloops >= 65535) return FSIM_ERR(e, FSIM_ERANGE, "too many loops");
  if (grow((void **)&p->loops, &p->loop_cap, p->nloops + 1, sizeof *p->loops) != 0)
    return FSIM_ERR(e, FSIM_ENOMEM, "out of memory");
  fsim_wp_inst in = {.op = FSIM_OP_LOOP, .arg = (uint16_t)p->nloops, .addr = -1, .addr2 = -1};
  int at = fsim_wp_program_append(p, &in, e);
  if (at < 0) return e ? e->code : FSIM_ENOMEM;
  p->loops[p->nloops].trip = trip;
  p->loops[p->nloops].begin = at;
  p->loops[p->nloops].end = -1;
  p->nloops++;
  return FSIM_OK;
}

fsim_status fsim_wp_program_loop_end(fsim_wp_program *p, fsim_err *e) {
  int open = -1;
  for (int i = p->nloops - 1; i >= 0; i--)
    if (p->loops[i].end < 0) {
      open = i;
      break;
    }
  if (open < 0) return FSIM_ERR(e, FSIM_EINVAL, "'end' without an open loop");
  fsim_wp_inst in = {.op = FSIM_OP_END, .arg = (uint16_t)open, .addr = -1, .addr2 = -1};
  int at = fsim_wp_program_append(p, &in, e);
  if (at < 0) return e ? e->code : FSIM_ENOMEM;
  p->loops[open].end = at;
  return FSIM_OK;
}

/* Products and sums of counts (>= 0) that stop at INT64_MAX instead of wrapping: nested loops
 * of 2^40 trips or a grid of 2^31 x 2^31 x 2^31 read as "too many", which validation refuses. */
int64_t fsim_count_mul(int64_t a, int64_t b) {
  int64_t r;
  return __builtin_mul_overflow(a, b, &r) ? INT64_MAX : r;
}

int64_t fsim_count_add(int64_t a, int64_t b) {
  int64_t r;
  return __builtin_add_overflow(a, b, &r) ? INT64_MAX : r;
}

/* Executed instructions of [from, to) with loops expanded. */
int64_t fsim_wp_program_range_count(const fsim_wp_program *p, int from, int to) {
  int64_t n = 0;
  for (int i = from; i < to; i++) {
    const fsim_wp_inst *in = &p->inst[i];
    if (in->op == FSIM_OP_LOOP) {
      const fsim_wp_loop *l = &p->loops[in->arg];
      n = fsim_count_add(n, fsim_count_mul(l->trip, fsim_wp_program_range_count(p, i + 1, l->end)));
      i = l->end;
    } else if (op_info[in->op].counted) {
      n = fsim_count_add(n, 1);
    }
  }
  return n;
}

int64_t fsim_wp_program_dynamic_count(const fsim_wp_program *p) { return fsim_wp_program_range_count(p, 0, p->ninst); }

int64_t fsim_wprog_workgroups(const fsim_wprog *wp) {
  return fsim_count_mul(fsim_count_mul(wp->grid[0], wp->grid[1]), wp->grid[2]);
}

int64_t fsim_wprog_total_wave_instructions(const fsim_wprog *wp) {
  int64_t per_wg = 0;
  for (int w = 0; w < wp->waves_per_wg; w++)
    per_wg = fsim_count_add(per_wg, fsim_wp_program_dynamic_count(&wp->programs[wp->wave_program[w]]));
  return fsim_count_mul(per_wg, fsim_wprog_workgroups(wp));
}

void fsim_wprog_wg_coords(const fsim_wprog *wp, int64_t id, int coord[3]) {
  int64_t n = fsim_wprog_workgroups(wp);
  int64_t t = id;
  if (wp->remap == FSIM_REMAP_XCD && wp->remap_xcds > 1 && n % wp->remap_xcds == 0) {
    /* Ids that round-robin dispatch sends to one XCD become one contiguous block. */
    int64_t per = n / wp->remap_xcds;
    t = (id % wp->remap_xcds) * per + id / wp->remap_xcds;
  }
  int64_t plane = (int64_t)wp->grid[0] * wp->grid[1];
  int64_t z = t / plane, r = t % plane;
  int64_t x, y;
  if (wp->group_m > 0) {
    /* GROUP_M swizzle: y (the M tile) advances fastest inside groups of group_m rows. */
    int64_t num_m = wp->grid[1], num_n = wp->grid[0];
    int64_t in_group = (int64_t)wp->group_m * num_n;
    int64_t group = r / in_group, first_m = group * wp->group_m;
    int64_t size_m = num_m - first_m < wp->group_m ? num_m - first_m : wp->group_m;
    y = first_m + (r % in_group) % size_m;
    x = (r % in_group) / size_m;
  } else {
    x = r % wp->grid[0];
    y = r / wp->grid[0];
  }
  coord[0] = (int)x;
  coord[1] = (int)y;
  coord[2] = (int)z;
}

static fsim_status check_reg(const fsim_wprog *wp, const fsim_wp_reg *r, int pi, int ii, fsim_err *e) {
  if (r->count == 0) return FSIM_OK;
  if ((int)r->first + r->count > wp->nregs)
    return FSIM_ERR(e, FSIM_EINVAL, "program %d instruction %d: register %d+%d beyond the %d named", pi, ii,
                    r->first, r->count, wp->nregs);
  return FSIM_OK;
}

/* Whether address pattern ad, used inside loops of the given trip counts (trips[d] for loop
 * level d, depth levels open), stays within +-2^62 for every wave, workgroup and iteration, so
 * that the simulator's address arithmetic cannot overflow. */
static int addr_bounded(const fsim_wprog *wp, const fsim_wp_addr *ad, const int64_t *trips, int depth) {
  const int64_t limit = INT64_C(1) << 62;
  int64_t m = ad->base < 0 ? -ad->base : ad->base, part;
  int64_t extent[4] = {wp->waves_per_wg - 1, wp->grid[0] - 1, wp->grid[1] - 1, wp->grid[2] - 1};
  int64_t stride[4] = {ad->wave_stride, ad->wg_stride[0], ad->wg_stride[1], ad->wg_stride[2]};
  for (int k = 0; k < 4; k++) {
    if (__builtin_mul_overflow(stride[k] < 0 ? -stride[k] : stride[k], extent[k], &part) ||
        __builtin_add_overflow(m, part, &m))
      return 0;
  }
  for (int t = 0; t < ad->nterms; t++) {
    const int lv = ad->term[t].level;
    if (lv >= depth) continue; /* not open here: the simulator adds nothing for it */
    int64_t it = (ad->term[t].mod > 0 ? ad->term[t].mod - 1 : trips[lv] - 1) + ad->term[t].phase;
    int64_t sd = ad->term[t].stride < 0 ? -ad->term[t].stride : ad->term[t].stride;
    if (__builtin_mul_overflow(sd, it, &part) || __builtin_add_overflow(m, part, &m)) return 0;
  }
  return m <= limit;
}

fsim_status fsim_wprog_validate(const fsim_wprog *wp, const fsim_arch *a, fsim_err *e) {
  int prog, inst;
  return fsim_wprog_validate_at(wp, a, &prog, &inst, e);
}

fsim_status fsim_wprog_validate_at(const fsim_wprog *wp, const fsim_arch *a, int *prog, int *inst, fsim_err *e) {
  *prog = *inst = -1;
  if (wp->nprograms < 1) return FSIM_ERR(e, FSIM_EINVAL, "%s: no program", wp->name);
  for (int d = 0; d < 3; d++)
    if (wp->grid[d] < 1) return FSIM_ERR(e, FSIM_EINVAL, "%s: grid dimension %d is %d", wp->name, d, wp->grid[d]);
  if (fsim_wprog_workgroups(wp) > FSIM_WP_MAX_WORKGROUPS)
    return FSIM_ERR(e, FSIM_EINVAL, "%s: grid %dx%dx%d: more than 2^31 workgroups", wp->name, wp->grid[0], wp->grid[1],
                    wp->grid[2]);
  if (wp->wave_size != a->cu.wave_size)
    return FSIM_ERR(e, FSIM_EINVAL, "%s: wave size %d but %s runs wave%d", wp->name, wp->wave_size, a->device.name,
                    a->cu.wave_size);
  if (wp->waves_per_wg < 1 || wp->waves_per_wg * wp->wave_size > a->cu.max_workgroup_size)
    return FSIM_ERR(e, FSIM_EINVAL, "%s: %d waves per workgroup exceed %d work-items", wp->name, wp->waves_per_wg,
                    a->cu.max_workgroup_size);
  if (wp->vgprs < 0 || wp->vgprs > a->cu.max_vgprs)
    return FSIM_ERR(e, FSIM_EINVAL, "%s: %d VGPRs per wave exceed %d", wp->name, wp->vgprs, a->cu.max_vgprs);
  if (wp->agprs < 0 || wp->agprs > a->cu.max_agprs)
    return FSIM_ERR(e, FSIM_EINVAL, "%s: %d AGPRs per wave exceed %d", wp->name, wp->agprs, a->cu.max_agprs);
  if (wp->sgprs < 0 || wp->sgprs > a->cu.max_sgprs)
    return FSIM_ERR(e, FSIM_EINVAL, "%s: %d SGPRs per wave exceed %d", wp->name, wp->sgprs, a->cu.max_sgprs);
  if (wp->lds_bytes < 0 || wp->lds_bytes > a->lds.max_bytes_per_wg)
    return FSIM_ERR(e, FSIM_EINVAL, "%s: %d LDS bytes exceed %d per workgroup", wp->name, wp->lds_bytes,
                    a->lds.max_bytes_per_wg);
  if (wp->remap == FSIM_REMAP_XCD && wp->remap_xcds < 1)
    return FSIM_ERR(e, FSIM_EINVAL, "%s: remap xcd needs a positive XCD count", wp->name);
  for (int w = 0; w < wp->waves_per_wg; w++)
    if (wp->wave_program[w] < 0 || wp->wave_program[w] >= wp->nprograms)
      return FSIM_ERR(e, FSIM_EINVAL, "%s: wave %d runs no program", wp->name, w);
  for (int i = 0; i < wp->naddrs; i++) {
    const fsim_wp_addr *ad = &wp->addrs[i];
    if (ad->lanes < 0 || ad->lanes >= wp->nlanes)
      return FSIM_ERR(e, FSIM_EINVAL, "address '%s': no lane table", ad->name);
    if (wp->lanes[ad->lanes].rows != 1 && wp->lanes[ad->lanes].rows != wp->waves_per_wg)
      return FSIM_ERR(e, FSIM_EINVAL, "address '%s': lanes '%s' has %d rows, not 1 or %d", ad->name,
                      wp->lanes[ad->lanes].name, wp->lanes[ad->lanes].rows, wp->waves_per_wg);
    for (int t = 0; t < ad->nterms; t++)
      if (ad->term[t].level < 0 || ad->term[t].level >= FSIM_WP_MAX_DEPTH || ad->term[t].mod < 0)
        return FSIM_ERR(e, FSIM_EINVAL, "address '%s': bad iteration term", ad->name);
  }
  for (int pi = 0; pi < wp->nprograms; pi++) {
    const fsim_wp_program *p = &wp->programs[pi];
    int depth = 0;
    int64_t trips[FSIM_WP_MAX_DEPTH + 1] = {0};
    for (int ii = 0; ii < p->ninst; ii++) {
      const fsim_wp_inst *in = &p->inst[ii];
      fsim_status st;
      *prog = pi, *inst = ii; /* where a failing check below is */
      if ((st = check_reg(wp, &in->dst, pi, ii, e)) != FSIM_OK) return st;
      for (int s = 0; s < in->nsrc; s++)
        if ((st = check_reg(wp, &in->src[s], pi, ii, e)) != FSIM_OK) return st;
      switch (in->op) {
      case FSIM_OP_LOOP:
        if (++depth > FSIM_WP_MAX_DEPTH)
          return FSIM_ERR(e, FSIM_EINVAL, "program %d: loops nest deeper than %d", pi, FSIM_WP_MAX_DEPTH);
        if (in->arg >= p->nloops || p->loops[in->arg].end < 0)
          return FSIM_ERR(e, FSIM_EINVAL, "program %d: loop at %d is not closed", pi, ii);
        trips[depth - 1] = p->loops[in->arg].trip;
        break;
      case FSIM_OP_END: depth--; break;
      case FSIM_OP_MFMA:
        if (in->arg >= a->n_mfma) return FSIM_ERR(e, FSIM_EINVAL, "program %d instruction %d: no such MFMA", pi, ii);
        break;
      case FSIM_OP_LDS_READ:
      case FSIM_OP_LDS_WRITE:
      case FSIM_OP_LOAD:
      case FSIM_OP_STORE:
      case FSIM_OP_LOAD_LDS: {
        int want_lds = in->op == FSIM_OP_LDS_READ || in->op == FSIM_OP_LDS_WRITE;
        if (in->addr < 0 || in->addr >= wp->naddrs)
          return FSIM_ERR(e, FSIM_EINVAL, "program %d instruction %d: %s without an address", pi, ii,
                          fsim_op_name(in->op));
        if (wp->addrs[in->addr].space != (want_lds ? FSIM_SPACE_LDS : FSIM_SPACE_GLOBAL))
          return FSIM_ERR(e, FSIM_EINVAL, "program %d instruction %d: %s needs a %s address, '%s' is not", pi, ii,
                          fsim_op_name(in->op), want_lds ? "lds" : "global", wp->addrs[in->addr].name);
        if (in->op == FSIM_OP_LOAD_LDS &&
            (in->addr2 < 0 || in->addr2 >= wp->naddrs || wp->addrs[in->addr2].space != FSIM_SPACE_LDS))
          return FSIM_ERR(e, FSIM_EINVAL, "program %d instruction %d: load_lds needs an lds destination", pi, ii);
        if (in->width != 1 && in->width != 2 && in->width != 4 && in->width != 8 && in->width != 12 &&
            in->width != 16)
          return FSIM_ERR(e, FSIM_EINVAL, "program %d instruction %d: width %d bytes", pi, ii, in->width);
        for (int q = 0; q < 2; q++) {
          int ai = q == 0 ? in->addr : in->op == FSIM_OP_LOAD_LDS ? in->addr2 : -1;
          if (ai >= 0 && !addr_bounded(wp, &wp->addrs[ai], trips, depth))
            return FSIM_ERR(e, FSIM_EINVAL,
                            "address '%s': its base and strides, over the waves, workgroups and loop trips that use "
                            "it, reach past 2^62",
                            wp->addrs[ai].name);
        }
        break;
      }
      default: break;
      }
      if (in->op >= FSIM_OP_COUNT) return FSIM_ERR(e, FSIM_EINVAL, "program %d instruction %d: bad class", pi, ii);
    }
    *prog = *inst = -1;
    if (depth != 0) return FSIM_ERR(e, FSIM_EINVAL, "program %d: %d loops not closed", pi, depth);
  }
  /* every counter of a run (cycles, bytes, cache accesses) stays far inside 64 bits below this */
  int64_t total = fsim_wprog_total_wave_instructions(wp);
  if (total > FSIM_WP_MAX_WAVE_INSTRUCTIONS) {
    if (total == INT64_MAX)
      return FSIM_ERR(e, FSIM_EINVAL, "%s: more than 2^63 wave instructions in all; at most 2^44 can be simulated",
                      wp->name);
    return FSIM_ERR(e, FSIM_EINVAL, "%s: %lld wave instructions in all; at most 2^44 (%lld) can be simulated",
                    wp->name, (long long)total, (long long)FSIM_WP_MAX_WAVE_INSTRUCTIONS);
  }
  return FSIM_OK;
}
