# workloads/bench/ — calibrated micro-benchmarks (workloads/bench/README.md), each a program
# build/bin/mwb-NAME from workloads/bench/NAME.c + common.c, objects in build/wl/bench/.
# The MPI ones are compiled and linked with $(MPICC); all link libmwprobe (WL_LDFLAGS).
MWB_C_PROGS   := idle cpuburn stream dgemm pattern
MWB_MPI_PROGS := pingpong alltoall

MWB_DIR    := $(BUILD)/wl/bench
MWB_COMMON := $(MWB_DIR)/common.o
MWB_C_BINS   := $(patsubst %,$(BUILD)/bin/mwb-%,$(MWB_C_PROGS))
MWB_MPI_BINS := $(patsubst %,$(BUILD)/bin/mwb-%,$(MWB_MPI_PROGS))
WORKLOAD_BINS += $(MWB_C_BINS) $(MWB_MPI_BINS)

$(MWB_COMMON) $(patsubst %,$(MWB_DIR)/%.o,$(MWB_C_PROGS)): $(MWB_DIR)/%.o: workloads/bench/%.c
	@mkdir -p $(@D)
	$(CC) $(WL_CFLAGS) -MMD -MP -c $< -o $@

$(patsubst %,$(MWB_DIR)/%.o,$(MWB_MPI_PROGS)): $(MWB_DIR)/%.o: workloads/bench/%.c
	@mkdir -p $(@D)
	$(MPICC) $(WL_CFLAGS) -MMD -MP -c $< -o $@

$(MWB_C_BINS): $(BUILD)/bin/mwb-%: $(MWB_DIR)/%.o $(MWB_COMMON) $(PROBE_SO)
	@mkdir -p $(@D)
	$(CC) -o $@ $(filter %.o,$^) $(WL_LDFLAGS)

$(MWB_MPI_BINS): $(BUILD)/bin/mwb-%: $(MWB_DIR)/%.o $(MWB_COMMON) $(PROBE_SO)
	@mkdir -p $(@D)
	$(MPICC) -o $@ $(filter %.o,$^) $(WL_LDFLAGS)
