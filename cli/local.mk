# cli/: the flysim command; it parses arguments and prints, nothing more.
flysim_SOURCES += \
	cli/flysim.c cli/commands.h \
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
	cli/report.c cli/report.h
# emit and verify: HIP kernels of GEMM schedules, compiled and checked against the plan
flysim_SOURCES += cli/cmd_emit.c cli/cmd_verify.c
