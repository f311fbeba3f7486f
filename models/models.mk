# models/ — libmwmodels (build/lib/libmwmodels.a): numbers in, numbers out — the analysis of
# mw analyze (mw_analysis), energy, the Pow_idle/Pow_work levels, statistics, the alignment
# check, calibration arithmetic and procedure, and the runtime/energy models (escobar, dvfs,
# lbopa/pareto); GSL does the numerics. No SQL, no printing, no exit. Public headers in
# models/include/. The *_run.c files read runs through libmw's typed read API (mw_run.h).
MODELS_SRCS += $(wildcard models/*.c)
