# collector/probe/probe_cuda.mk — libmwprobe_cuda, the CUDA layer of libmwprobe
# (mwprobe_cuda.h, docs/probe.md "## CUDA"). Included by the top Makefile only when nvcc is
# found (scripts/nvcc.sh: /usr/local/cuda/bin/nvcc or nvcc on PATH); `make all` then builds
#   build/lib/libmwprobe_cuda.so   nvcc, host code only, linked with the shared CUDA runtime
#                                  (-cudart shared) and with build/lib/libmwprobe.so, which
#                                  it finds next to itself ($ORIGIN) or in the install's lib/
# probe_cuda.cu is not a .c file, so probe.mk's wildcard never builds it into libmwprobe.
NVCC_WARN := -Wall,-Wextra,-Werror,-Wshadow,-Wno-unused-parameter
NVCC_FLAGS = -std=c++17 -O2 -g -D_GNU_SOURCE -Icollector/probe \
             -Xcompiler -fPIC,-fvisibility=hidden,-pthread,$(NVCC_WARN)

PROBE_CUDA_SO  := $(BUILD)/lib/libmwprobe_cuda.so
PROBE_CUDA_OBJ := $(BUILD)/pic/collector/probe/probe_cuda.o

$(PROBE_CUDA_OBJ): collector/probe/probe_cuda.cu collector/probe/mwprobe_cuda.h \
                   collector/probe/probe_internal.h
	@mkdir -p $(@D)
	$(NVCC) $(NVCC_FLAGS) -c $< -o $@

$(PROBE_CUDA_SO): $(PROBE_CUDA_OBJ) $(PROBE_SO)
	@mkdir -p $(@D)
	$(NVCC) -shared -cudart shared -o $@ $(PROBE_CUDA_OBJ) -L$(BUILD)/lib -lmwprobe -lpthread \
	  -Xlinker -soname,libmwprobe_cuda.so -Xlinker -z,defs -Xlinker -rpath,'$$ORIGIN'

all: $(PROBE_CUDA_SO)

.PHONY: install-probe-cuda
install: install-probe-cuda
install-probe-cuda: $(PROBE_CUDA_SO)
	install -d $(DESTDIR)$(PREFIX)/include $(DESTDIR)$(PREFIX)/lib
	install -m 644 collector/probe/mwprobe_cuda.h $(DESTDIR)$(PREFIX)/include/
	install -m 755 $(PROBE_CUDA_SO) $(DESTDIR)$(PREFIX)/lib/
