# workloads/eeg/ — build/bin/eeg-mofs, the EEG multi-objective feature selection (MPI +
# OpenMP, + CUDA where nvcc is: workloads/eeg/eeg_cuda.mk). The portable core (data,
# fitness, nsga, hv) also goes into build/lib/libeeg.a (+ an ASan variant) for the unit
# tests (tests/unit/workloads/test_eeg_*.c).
EEG_CORE := workloads/eeg/data.c workloads/eeg/fitness.c workloads/eeg/nsga.c workloads/eeg/hv.c \
            workloads/eeg/opt.c
EEG_GPU_OBJ  :=
EEG_GPU_LIBS :=
ifneq ($(NVCC),)
-include workloads/eeg/eeg_cuda.mk
endif
ifeq ($(EEG_GPU_OBJ),)
EEG_GPU_OBJ := $(BUILD)/wl/workloads/eeg/fitness_gpu_none.o
endif

LIBEEG      := $(BUILD)/lib/libeeg.a
LIBEEG_ASAN := $(BUILD)/asan/lib/libeeg.a
EEG_MOFS    := $(BUILD)/bin/eeg-mofs
WORKLOAD_BINS += $(EEG_MOFS)

$(BUILD)/wl/workloads/%.o: workloads/%.c
	@mkdir -p $(@D)
	$(CC) -D_GNU_SOURCE $(WL_CFLAGS) -MMD -MP -Iworkloads/eeg -c $< -o $@

$(BUILD)/wl/workloads/eeg/eeg_mofs.o: workloads/eeg/eeg_mofs.c
	@mkdir -p $(@D)
	$(MPICC) -D_GNU_SOURCE $(WL_CFLAGS) -MMD -MP -Iworkloads/eeg -c $< -o $@

$(call obj,$(EEG_CORE)) $(call asanobj,$(EEG_CORE)): CFLAGS += -fopenmp

$(LIBEEG): $(call obj,$(EEG_CORE))
	@mkdir -p $(@D)
	@rm -f $@
	ar rcs $@ $^

$(LIBEEG_ASAN): $(call asanobj,$(EEG_CORE))
	@mkdir -p $(@D)
	@rm -f $@
	ar rcs $@ $^

$(EEG_MOFS): $(BUILD)/wl/workloads/eeg/eeg_mofs.o $(EEG_GPU_OBJ) $(LIBEEG) $(PROBE_SO)
	@mkdir -p $(@D)
	$(MPICC) -o $@ $(filter %.o,$^) $(LIBEEG) $(EEG_GPU_LIBS) $(WL_LDFLAGS) -lgsl -lgslcblas -lpthread
