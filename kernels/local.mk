# kernels/: the layout algebra, atoms, schedules, wave-program generation and HIP emission.
libflysim_a_SOURCES += \
	kernels/layout.c kernels/layout.h \
	kernels/layout_parse.c
