# tests/: one Check program per module (tests/check_<module>.c), run by `make check`.
TU_CPPFLAGS = $(AM_CPPFLAGS) -DTU_TOP_SRCDIR='"$(abs_top_srcdir)"' \
	-DTU_FLYSIM='"$(abs_top_builddir)/flysim$(EXEEXT)"'
TU_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
TU_LDADD = $(FLYSIM_LIBS) $(CHECK_LIBS)
TU_SOURCES = tests/testutil.c tests/testutil.h

AM_TESTS_ENVIRONMENT = \
	FLYSIM_ARCH_PATH='$(abs_top_srcdir)/model/arch'; export FLYSIM_ARCH_PATH; \
	FLYSIM_DB='$(abs_top_builddir)/tests/no-such-folder/flysim-tuning.db'; export FLYSIM_DB; \
	FLYSIM='$(abs_top_builddir)/flysim$(EXEEXT)'; export FLYSIM; \
	top_srcdir='$(abs_top_srcdir)'; export top_srcdir; \
	CK_DEFAULT_TIMEOUT=600; export CK_DEFAULT_TIMEOUT;

check_PROGRAMS += tests/check_arch
tests_check_arch_SOURCES = tests/check_arch.c $(TU_SOURCES)
tests_check_arch_CPPFLAGS = $(TU_CPPFLAGS)
tests_check_arch_CFLAGS = $(TU_CFLAGS)
tests_check_arch_LDADD = $(TU_LDADD)

check_PROGRAMS += tests/check_layout
tests_check_layout_SOURCES = tests/check_layout.c $(TU_SOURCES)
tests_check_layout_CPPFLAGS = $(TU_CPPFLAGS)
tests_check_layout_CFLAGS = $(TU_CFLAGS)
tests_check_layout_LDADD = $(TU_LDADD)

check_PROGRAMS += tests/check_sim
tests_check_sim_SOURCES = tests/check_sim.c $(TU_SOURCES)
tests_check_sim_CPPFLAGS = $(TU_CPPFLAGS)
tests_check_sim_CFLAGS = $(TU_CFLAGS)
tests_check_sim_LDADD = $(TU_LDADD)

check_PROGRAMS += tests/check_atom
tests_check_atom_SOURCES = tests/check_atom.c $(TU_SOURCES)
tests_check_atom_CPPFLAGS = $(TU_CPPFLAGS)
tests_check_atom_CFLAGS = $(TU_CFLAGS)
tests_check_atom_LDADD = $(TU_LDADD)

check_PROGRAMS += tests/check_schedule
tests_check_schedule_SOURCES = tests/check_schedule.c $(TU_SOURCES)
tests_check_schedule_CPPFLAGS = $(TU_CPPFLAGS)
tests_check_schedule_CFLAGS = $(TU_CFLAGS)
tests_check_schedule_LDADD = $(TU_LDADD)

check_PROGRAMS += tests/check_gemm
tests_check_gemm_SOURCES = tests/check_gemm.c $(TU_SOURCES)
tests_check_gemm_CPPFLAGS = $(TU_CPPFLAGS)
tests_check_gemm_CFLAGS = $(TU_CFLAGS)
tests_check_gemm_LDADD = $(TU_LDADD)

check_PROGRAMS += tests/check_tune
tests_check_tune_SOURCES = tests/check_tune.c $(TU_SOURCES)
tests_check_tune_CPPFLAGS = $(TU_CPPFLAGS)
tests_check_tune_CFLAGS = $(TU_CFLAGS)
tests_check_tune_LDADD = $(TU_LDADD)

check_PROGRAMS += tests/check_emit
tests_check_emit_SOURCES = tests/check_emit.c $(TU_SOURCES)
tests_check_emit_CPPFLAGS = $(TU_CPPFLAGS)
tests_check_emit_CFLAGS = $(TU_CFLAGS)
tests_check_emit_LDADD = $(TU_LDADD)

# The fuzz targets (tests/fuzz/fuzz.c, tools/fuzz.sh) without libFuzzer: each runs over the
# repository's inputs and tests/fuzz/corpus/TARGET, checking the targets' properties.
FUZZ_CPPFLAGS = $(TU_CPPFLAGS) -DFUZZ_REPLAY
FUZZ_LDADD = $(FLYSIM_LIBS)
check_PROGRAMS += tests/fuzz_wprog
tests_fuzz_wprog_SOURCES = tests/fuzz/fuzz.c
tests_fuzz_wprog_CPPFLAGS = $(FUZZ_CPPFLAGS) -DFUZZ_TARGET=1
tests_fuzz_wprog_LDADD = $(FUZZ_LDADD)
check_PROGRAMS += tests/fuzz_asm
tests_fuzz_asm_SOURCES = tests/fuzz/fuzz.c
tests_fuzz_asm_CPPFLAGS = $(FUZZ_CPPFLAGS) -DFUZZ_TARGET=2
tests_fuzz_asm_LDADD = $(FUZZ_LDADD)
check_PROGRAMS += tests/fuzz_schedule
tests_fuzz_schedule_SOURCES = tests/fuzz/fuzz.c
tests_fuzz_schedule_CPPFLAGS = $(FUZZ_CPPFLAGS) -DFUZZ_TARGET=3
tests_fuzz_schedule_LDADD = $(FUZZ_LDADD)
check_PROGRAMS += tests/fuzz_layout
tests_fuzz_layout_SOURCES = tests/fuzz/fuzz.c
tests_fuzz_layout_CPPFLAGS = $(FUZZ_CPPFLAGS) -DFUZZ_TARGET=4
tests_fuzz_layout_LDADD = $(FUZZ_LDADD)
check_PROGRAMS += tests/fuzz_config
tests_fuzz_config_SOURCES = tests/fuzz/fuzz.c
tests_fuzz_config_CPPFLAGS = $(FUZZ_CPPFLAGS) -DFUZZ_TARGET=5
tests_fuzz_config_LDADD = $(FUZZ_LDADD)
check_PROGRAMS += tests/fuzz_arch
tests_fuzz_arch_SOURCES = tests/fuzz/fuzz.c
tests_fuzz_arch_CPPFLAGS = $(FUZZ_CPPFLAGS) -DFUZZ_TARGET=6
tests_fuzz_arch_LDADD = $(FUZZ_LDADD)
check_PROGRAMS += tests/fuzz_db
tests_fuzz_db_SOURCES = tests/fuzz/fuzz.c
tests_fuzz_db_CPPFLAGS = $(FUZZ_CPPFLAGS) -DFUZZ_TARGET=7
tests_fuzz_db_LDADD = $(FUZZ_LDADD)
check_PROGRAMS += tests/fuzz_hip
tests_fuzz_hip_SOURCES = tests/fuzz/fuzz.c
tests_fuzz_hip_CPPFLAGS = $(FUZZ_CPPFLAGS) -DFUZZ_TARGET=8
tests_fuzz_hip_LDADD = $(FUZZ_LDADD)
check_PROGRAMS += tests/fuzz_cli
tests_fuzz_cli_SOURCES = tests/fuzz/fuzz.c $(FLYSIM_CLI_SOURCES)
tests_fuzz_cli_CPPFLAGS = $(FUZZ_CPPFLAGS) -DFUZZ_TARGET=9
tests_fuzz_cli_LDADD = $(FUZZ_LDADD)
EXTRA_DIST += tests/fuzz/corpus

TESTS += $(check_PROGRAMS)
