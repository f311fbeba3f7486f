# host/ — libmw (build/lib/libmw.a): meter I/O (serial port, USB), the line protocol, the
# clock model, and all SQL: the run store (write and read), the sweep index and the merge of
# the probe's spill files; also the file and child-process helpers every stage uses. Public
# headers in host/include/. With the firmware's portable C (firmware/portable/).
LIBMW_SRCS += $(wildcard host/*.c)
