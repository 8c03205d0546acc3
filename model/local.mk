# model/: hardware descriptions (arch files) and the analytical cost model.
libflysim_a_SOURCES += \
	model/arch.c model/arch.h \
	model/access.c model/access.h \
	model/occupancy.c model/occupancy.h \
	model/estimate.c model/estimate.h
dist_arch_DATA += \
	model/arch/mi355x.ini \
	model/arch/mi350x.ini \
	model/arch/mi300x.ini \
	model/arch/rx9070xt.ini
