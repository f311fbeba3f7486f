# models/ — libmwmodels (build/lib/libmwmodels.a): numbers in, numbers out — energy, the
# Pow_idle/Pow_work levels, statistics, the alignment check, calibration arithmetic and the
# runtime/energy models (escobar, dvfs, lbopa); GSL does the numerics. Public headers in
# models/include/. The commands that feed it runs are in collector/.
MODELS_SRCS += $(wildcard models/*.c)
