# workloads/eeg/eeg_cuda.mk — the CUDA fitness of eeg-mofs (workloads/eeg/fitness_gpu.cu) and
# its check program. Included (after eeg.mk) only when $(NVCC) is non-empty; it needs nvcc
# but no GPU to build. It gives eeg.mk
#   EEG_GPU_OBJ    the object to link into eeg-mofs instead of fitness_gpu_none.c's
#   EEG_GPU_LIBS   its link flags (the shared CUDA runtime, as libmwprobe_cuda uses, so that
#                  both share one runtime; libmwprobe_cuda; the runtime's rpath; libstdc++,
#                  which nvcc's host stubs need when gcc links), to go before WL_LDFLAGS
# and builds build/bin/eeg-gpu-check (exit 0 CPU and GPU agree, 1 not, 77 no GPU), which
# links $(BUILD)/wl/workloads/eeg/{data,fitness}.o from eeg.mk's rules.
# Device code: sm_90 SASS (H100, H200) plus compute_80 PTX, which the driver JIT-compiles
# for any other GPU from sm_80 on. Override with EEG_CUDA_ARCH=...
EEG_CUDA_ARCH ?= -gencode arch=compute_90,code=sm_90 -gencode arch=compute_80,code=compute_80
# the CUDA runtime's directory: next to the include directory nvcc itself uses
EEG_CUDA_INC  := $(shell NVCC='$(NVCC)' scripts/nvcc.sh --include)
EEG_CUDA_LIB  := $(abspath $(EEG_CUDA_INC)/../lib)
EEG_NVCC_WARN := -Wall,-Wextra,-Werror,-Wshadow,-Wno-unused-parameter
EEG_NVCC_FLAGS = -std=c++17 -O2 -g -D_GNU_SOURCE $(EEG_CUDA_ARCH) -Icollector/probe \
                 -Iworkloads/eeg -Xcompiler -fPIC,$(EEG_NVCC_WARN)

EEG_GPU_OBJ  := $(BUILD)/wl/workloads/eeg/fitness_gpu.o
EEG_GPU_LIBS  = -L$(BUILD)/lib -lmwprobe_cuda -L$(EEG_CUDA_LIB) -lcudart \
                -Wl,-rpath,$(EEG_CUDA_LIB) -lstdc++

$(EEG_GPU_OBJ): workloads/eeg/fitness_gpu.cu workloads/eeg/fitness_gpu.h \
                workloads/eeg/fitness.h workloads/eeg/data.h collector/probe/mwprobe_cuda.h
	@mkdir -p $(@D)
	$(NVCC) $(EEG_NVCC_FLAGS) -c $< -o $@

EEG_GPU_CHECK := $(BUILD)/bin/eeg-gpu-check
EEG_GPU_CHECK_OBJS := $(BUILD)/wl/workloads/eeg/gpu_check.o $(BUILD)/wl/workloads/eeg/data.o \
                      $(BUILD)/wl/workloads/eeg/fitness.o $(BUILD)/wl/workloads/eeg/opt.o \
                      $(EEG_GPU_OBJ)

$(BUILD)/wl/workloads/eeg/gpu_check.o: workloads/eeg/gpu_check.c
	@mkdir -p $(@D)
	$(CC) $(WL_CFLAGS) -MMD -MP -Iworkloads/eeg -c $< -o $@

$(EEG_GPU_CHECK): $(EEG_GPU_CHECK_OBJS) $(PROBE_SO) $(PROBE_CUDA_SO)
	@mkdir -p $(@D)
	$(CC) -o $@ $(EEG_GPU_CHECK_OBJS) $(EEG_GPU_LIBS) $(WL_LDFLAGS) -lgsl -lgslcblas

WORKLOAD_BINS += $(EEG_GPU_CHECK)
