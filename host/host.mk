# host/ — libmw (build/lib/libmw.a): meter I/O (serial port, USB hotplug, the line protocol,
# the meter session, the clock model, calibration commands), the recording, and all SQL: the
# run store (mw_store.h to write, mw_run.h to read), the sweep index and the sweep, import of
# other meters' traces, the merge of the probe's spill files, the pareto profile reader; also
# the error, allocation, file and child-process helpers every library uses. Public headers in
# host/include/. With the firmware's portable C (firmware/portable/).
LIBMW_SRCS += $(wildcard host/*.c)
