/* Printing simulation results as text and JSON; shared by sim, micro and predict. */
#ifndef FSIM_CLI_REPORT_H
#define FSIM_CLI_REPORT_H

#include <jansson.h>
#include <stdio.h>

#include "sim/sim.h"

/* A result as JSON; timeline_path: where --timeline wrote the run's timeline (its `timeline`
 * object then names it), or NULL. */
json_t *fsim_cli_sim_json(const fsim_sim_result *r, const char *timeline_path);
void fsim_cli_sim_print(FILE *f, const fsim_sim_result *r);
/* The report's `timeline` line for a timeline written to path: what part of the kernel it
 * shows (a sampled run's CU 0: which share, trips and rounds) and, past the event limit, up to
 * when it is complete. */
void fsim_cli_timeline_print(FILE *f, const char *path, const fsim_sim_result *r);
/* The per-wave stall breakdown of CU 0's first waves, as a table. */
void fsim_cli_sim_print_waves(FILE *f, const fsim_sim_result *r);

#endif
