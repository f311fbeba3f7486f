# host/ — libmw: the simulated board; later the serial transport, protocol, clock model
# and run store. Everything here is archived into build/lib/libmw.a.
LIBMW_SRCS += $(wildcard host/*.c)
