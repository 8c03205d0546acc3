/* flysim layout: evaluates layout-algebra expressions (placeholder until kernels/layout lands). */
#include "config.h"

#include <stdio.h>

#include "cli/commands.h"
#include "cli/common.h"

int fsim_cmd_layout(int argc, char **argv) {
  (void)argc;
  (void)argv;
  return fsim_cli_usage_error("layout", "not built yet");
}
