# host/sim/ — libmwsim (build/lib/libmwsim.a): the simulated board (the real firmware ELF in
# simavr, analog inputs driven by synthetic mains), its pseudo-terminal, load profiles and
# the simulated cluster. Public headers in host/sim/include/; linked only by what runs the
# simulator (mw vmeter and the `sim` meter specs of the mw command, tests).
LIBMWSIM_SRCS += $(wildcard host/sim/*.c)
