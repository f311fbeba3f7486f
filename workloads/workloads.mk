# workloads/ — instrumented reference workloads, each built into build/bin/ and linked with
# libmwprobe (build/lib/libmwprobe.so, found through the binary's rpath):
#   build/bin/eeg-mofs   the EEG multi-objective feature selection (workloads/eeg/eeg.mk)
#   build/bin/mwb-*      micro-benchmarks (workloads/bench/bench.mk)
# Fragments append their programs to WORKLOAD_BINS, which `make all` builds.
WORKLOAD_BINS :=
MPICC         ?= mpicc
WL_CFLAGS     := -std=c11 -O2 -g $(WARN) -fopenmp -Icollector/probe
WL_LDFLAGS     = -fopenmp -L$(BUILD)/lib -lmwprobe -Wl,-rpath,'$$ORIGIN/../lib' -lm

-include workloads/eeg/eeg.mk
-include workloads/bench/bench.mk
