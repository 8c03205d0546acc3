# tune/: tuning (enumerate, rank with model/, refine with sim/) and the SQLite tuning database.
libflysim_a_SOURCES += \
	tune/tune.c tune/tune.h \
	tune/db.c tune/db.h \
	tune/predict.c tune/predict.h \
	tune/suite.c tune/suite.h \
	tune/agree.c tune/agree.h
