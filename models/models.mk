# models/ — trace analysis (energy, Pow_idle/Pow_work, statistics, alignment check) and,
# later, the runtime/energy models; GSL does the numerics. Archived into libmw.a with the
# host library; the commands that use it (mw analyze, mw stats, mw import) are in collector/.
LIBMW_SRCS += $(wildcard models/*.c)
