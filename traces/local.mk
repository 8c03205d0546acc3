# traces/: the wave-program format (the currency between kernels/ and sim/) and recorded programs.
libflysim_a_SOURCES += \
	traces/wprog.c traces/wprog.h \
	traces/wprog_text.c
