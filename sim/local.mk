# sim/: the cycle-level simulator, one struct and one .c/.h pair per hardware unit.
libflysim_a_SOURCES += \
	sim/sim.h sim/internal.h \
	sim/hugemem.c sim/hugemem.h \
	sim/cache.c sim/cache.h \
	sim/server.c sim/server.h \
	sim/hbm.c sim/hbm.h \
	sim/memsys.c sim/memsys.h \
	sim/lds.c sim/lds.h \
	sim/vmem.c sim/vmem.h \
	sim/simd.h sim/mfma.h \
	sim/cu.c sim/gpu.c sim/timeline.c \
	sim/micro.c sim/micro.h \
	sim/host.c sim/host.h
