# cli/: the flysim command; it parses arguments and prints, nothing more.  All but main
# (cli/flysim.c) is FLYSIM_CLI_SOURCES, which the command-line fuzz target links too.
# emit and verify: HIP kernels of GEMM schedules, compiled and checked against the plan.
FLYSIM_CLI_SOURCES = \
	cli/commands.h \
	cli/common.c cli/common.h \
	cli/cmd_arch.c \
	cli/cmd_layout.c \
	cli/cmd_sim.c \
	cli/cmd_micro.c \
	cli/cmd_schedule.c \
	cli/gemm_args.c cli/gemm_args.h \
	cli/cmd_predict.c \
	cli/cmd_tune.c \
	cli/cmd_db.c \
	cli/report.c cli/report.h \
	cli/cmd_emit.c cli/cmd_verify.c
flysim_SOURCES += cli/flysim.c $(FLYSIM_CLI_SOURCES)
