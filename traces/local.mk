# traces/: the wave-program format (the currency between kernels/ and sim/) and recorded programs.
libflysim_a_SOURCES += \
	traces/wprog.c traces/wprog.h \
	traces/wprog_text.c
# assembly read back into wave programs (flysim verify)
libflysim_a_SOURCES += traces/asm.c traces/asm.h
EXTRA_DIST += traces/examples
