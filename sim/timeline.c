/* The timeline: Chrome trace events ("X" spans) for the waves of CU 0, which Perfetto and
 * chrome://tracing open.  Each wave slot w has four threads: 4 w for its instructions but
 * MFMAs and VALU (spans named by their class, an issue period each), 4 w + 1 for its MFMAs
 * (named by the instruction, each as long as its matrix-pipe cycles), 4 w + 2 for its VALU
 * instructions (each as long as its passes) and 4 w + 3 for its stalls (named by their
 * reason), so that the spans of one thread never overlap, as the trace format asks: an MFMA's
 * pipe cycles, or a VALU's (`valu cycles=N`), run on while the wave issues other instructions
 * or waits.  Recording stops after the
 * event limit so that a long run stays loadable; the spans left out are counted, with the
 * cycle of the first (the record is complete before it). */
#include "config.h"

#include <jansson.h>

#include "sim/internal.h"
#include "util/text.h"

void fsim__timeline_span(fsim__gpu *g, const fsim__cu *cu, int wave_slot, int track, const char *name, const char *cat,
                         int64_t t0, int64_t t1) {
  if (g->timeline_n >= g->timeline_max) {
    if (g->timeline_dropped++ == 0 || t0 < g->timeline_cut) g->timeline_cut = t0;
    return;
  }
  g->timeline_n++;
  double per_us = g->a->device.sustained_clock_ghz * 1e3; /* cycles per microsecond */
  json_t *ev = json_object();
  json_object_set_new(ev, "name", fsim_json_text(name));
  json_object_set_new(ev, "cat", fsim_json_text(cat));
  json_object_set_new(ev, "ph", json_string("X"));
  json_object_set_new(ev, "ts", json_real((double)t0 / per_us));
  json_object_set_new(ev, "dur", json_real((double)(t1 - t0) / per_us));
  json_object_set_new(ev, "pid", json_integer(cu->index));
  json_object_set_new(ev, "tid", json_integer(FSIM__TL_TRACKS * wave_slot + track));
  json_t *args = json_object();
  json_object_set_new(args, "cycle", json_integer(t0));
  json_object_set_new(args, "cycles", json_integer(t1 - t0));
  const fsim__wave *w = &cu->waves[wave_slot];
  json_object_set_new(args, "workgroup", json_integer(cu->wgs[w->wg].id));
  json_object_set_new(args, "wave", json_integer(w->wave_in_wg));
  json_object_set_new(args, "simd", json_integer(w->simd));
  json_object_set_new(ev, "args", args);
  json_array_append_new((json_t *)g->timeline, ev);
}
