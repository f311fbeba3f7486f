# collector/probe/ — libmwprobe, the instrumentation linked into (or preloaded by) the
# measured program (docs/probe.md). Every collector/probe/*.c goes into
#   build/lib/libmwprobe.so   shared: -fPIC, -fvisibility=hidden (export with MW_PROBE_API or
#                             `#pragma GCC visibility push(default)`), -pthread
#   build/lib/libmwprobe.a    static, the same position-independent objects
#   build/asan/lib/libmwprobe.a  with ASan/UBSan, for the unit tests (without the MPI part)
# compiled into build/pic/... (build/asan/pic/...), plus build/lib/pkgconfig/mwprobe.pc.
#
# Hooks for the layers built on the core:
#   PROBE_EXCLUDE   files here that are NOT built into the library (they bring their own rules)
#   PROBE_MPI_SRCS  files compiled with `mpicc --showme:compile`; the .so is then linked with
#                   `mpicc --showme:link`. Nothing happens while the file does not exist.
PROBE_EXCLUDE  :=
PROBE_MPI_SRCS := $(wildcard collector/probe/probe_mpi.c)
PROBE_SRCS     := $(filter-out $(PROBE_EXCLUDE) $(PROBE_MPI_SRCS),$(wildcard collector/probe/*.c))

PROBE_CFLAGS     := -fPIC -fvisibility=hidden -fno-semantic-interposition -pthread
PROBE_MPI_CFLAGS  = $(shell mpicc --showme:compile 2>/dev/null)
PROBE_MPI_LIBS    = $(if $(PROBE_MPI_SRCS),$(shell mpicc --showme:link 2>/dev/null))

PROBE_SO     := $(BUILD)/lib/libmwprobe.so
PROBE_A      := $(BUILD)/lib/libmwprobe.a
PROBE_A_ASAN := $(BUILD)/asan/lib/libmwprobe.a
PROBE_PC     := $(BUILD)/lib/pkgconfig/mwprobe.pc
PROBE_LIBS   := $(PROBE_SO) $(PROBE_A) $(PROBE_PC)

picobj     = $(patsubst %.c,$(BUILD)/pic/%.o,$(1))
asanpicobj = $(patsubst %.c,$(BUILD)/asan/pic/%.o,$(1))

$(BUILD)/pic/%.o: %.c
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(CFLAGS) $(PROBE_CFLAGS) -c $< -o $@

$(BUILD)/asan/pic/%.o: %.c
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(CFLAGS) $(SANFLAGS) $(PROBE_CFLAGS) -c $< -o $@

ifneq ($(PROBE_MPI_SRCS),)
$(call picobj,$(PROBE_MPI_SRCS)): PROBE_CFLAGS += $(PROBE_MPI_CFLAGS)
endif

$(PROBE_SO): $(call picobj,$(PROBE_SRCS) $(PROBE_MPI_SRCS))
	@mkdir -p $(@D)
	$(CC) -shared -pthread -Wl,-soname,libmwprobe.so -Wl,-z,defs -o $@ $^ $(PROBE_MPI_LIBS)

$(PROBE_A): $(call picobj,$(PROBE_SRCS) $(PROBE_MPI_SRCS))
	@mkdir -p $(@D)
	@rm -f $@
	ar rcs $@ $^

$(PROBE_A_ASAN): $(call asanpicobj,$(PROBE_SRCS))
	@mkdir -p $(@D)
	@rm -f $@
	ar rcs $@ $^

# Rewritten when PREFIX or VERSION change (make install PREFIX=... after a plain make).
$(PROBE_PC): FORCE
	@mkdir -p $(@D)
	@printf '%s\n' 'prefix=$(PREFIX)' 'libdir=$${prefix}/lib' 'includedir=$${prefix}/include' '' \
	  'Name: mwprobe' 'Description: megawatt phase markers for power traces' \
	  'Version: $(VERSION)' 'Cflags: -I$${includedir}' 'Libs: -L$${libdir} -lmwprobe' \
	  'Libs.private: -pthread' > $@.tmp
	@if cmp -s $@.tmp $@; then rm -f $@.tmp; else mv -f $@.tmp $@; echo "wrote $@"; fi

.PHONY: FORCE
FORCE:

# The probe's own test and benchmark link the library too.
$(BUILD)/tests/unit/probe/test_probe $(BUILD)/bench/bench_probe: $(PROBE_A)
$(BUILD)/tests/unit/probe/test_probe $(BUILD)/bench/bench_probe: LIBS += $(PROBE_A)
$(BUILD)/asan/tests/unit/probe/test_probe: $(PROBE_A_ASAN)
$(BUILD)/asan/tests/unit/probe/test_probe: LIBS_ASAN += $(PROBE_A_ASAN)
