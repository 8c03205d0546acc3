# util/: status codes and errors, data types and small shared helpers.
libflysim_a_SOURCES += \
	util/status.c util/status.h \
	util/dtype.c util/dtype.h
libflysim_a_SOURCES += util/ini_table.c util/ini_table.h
libflysim_a_SOURCES += util/numeric.c util/numeric.h
libflysim_a_SOURCES += util/file.c util/file.h
libflysim_a_SOURCES += util/text.c util/text.h
