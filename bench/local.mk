# bench/: speed benchmarks, run by hand or with `make bench` (never part of `make check`).
EXTRA_PROGRAMS = bench/sim_speed bench/model_speed bench/sample_dev
bench_sim_speed_SOURCES = bench/sim_speed.c
bench_sim_speed_LDADD = $(FLYSIM_LIBS)
bench_model_speed_SOURCES = bench/model_speed.c
bench_model_speed_LDADD = $(FLYSIM_LIBS)
bench_sample_dev_SOURCES = bench/sample_dev.c
bench_sample_dev_LDADD = $(FLYSIM_LIBS)
EXTRA_DIST += bench/run bench/validate.sh bench/regress.sh bench/whole_gpu.wp bench/edge_phantom.wp bench/edge_top.wp
CLEANFILES += $(EXTRA_PROGRAMS)

bench: flysim$(EXEEXT) bench/sim_speed$(EXEEXT) bench/model_speed$(EXEEXT) bench/sample_dev$(EXEEXT)
	FLYSIM_ARCH_PATH='$(abs_top_srcdir)/model/arch' $(SHELL) $(srcdir)/bench/run '$(abs_top_builddir)' '$(abs_top_srcdir)'
.PHONY: bench
