# kernels/: the layout algebra, atoms, schedules, wave-program generation and HIP emission.
libflysim_a_SOURCES += \
	kernels/layout.c kernels/layout.h \
	kernels/layout_parse.c
libflysim_a_SOURCES += \
	kernels/atom.c kernels/atom.h \
	kernels/schedule.c kernels/schedule.h kernels/sched_check.c \
	kernels/gemm.h kernels/gemm_plan.c kernels/gemm_wprog.c kernels/gemm_func.c \
	kernels/gemm_space.c kernels/gemm_space.h
# HIP emission and verification of GEMM plans (flysim emit, flysim verify)
libflysim_a_SOURCES += kernels/emit.h kernels/emit_hip.c kernels/emit_host.c kernels/verify.h kernels/verify.c
EXTRA_DIST += kernels/schedules
