# megawatt — top-level, non-recursive Makefile. Per-folder fragments (*/*.mk) add sources;
# everything is built under build/. `make help` lists the targets.
#
# Two variants of the host code are built from the same sources:
#   build/obj/...       normal (-O2)
#   build/asan/obj/...  -fsanitize=address,undefined, used to run the unit tests again.
# libmwprobe's objects are position-independent, in build/pic/... and build/asan/pic/...
# (collector/probe/probe.mk), and so are libmw's for libmegawatt, the installed reader
# library (host/api.mk).

.DEFAULT_GOAL := all
BUILD    := build
PREFIX   ?= /usr/local
VERSION  := 0.1.0
GIT_ID   := $(shell git describe --always --dirty 2>/dev/null || echo unknown)

# pkg-config is evaluated lazily (=), after `make deps` has had a chance to install things.
PKGS      = simavr libserialport libusb-1.0 sqlite3 gsl json-c otf2 libsodium
PKG_CFLAGS = $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
PKG_LIBS   = $(shell pkg-config --libs $(PKGS) 2>/dev/null) -lelf -lpthread -lutil -lm

CC       := gcc
WARN     := -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes -Wmissing-prototypes \
            -Wno-unused-parameter
# Each library sees its own public headers and those of the libraries to its left (data flows
# host -> models -> plots -> collector); libinc picks them by the source's folder. CPPFLAGS
# (every include folder) is for the tests, the probe, the fuzz build and the tools.
CPPFLAGS_BASE := -D_GNU_SOURCE -DMW_VERSION=\"$(VERSION)\" -DMW_GIT_ID=\"$(GIT_ID)\"
INC_HOST    := -Ihost/include -Ifirmware/portable
INC_SIM     := -Ihost/sim/include $(INC_HOST)
INC_MODELS  := -Imodels/include $(INC_HOST)
INC_PLOTS   := -Iplots/include $(INC_MODELS)
INC_ALL     := -Icollector -Iplots/include -Imodels/include -Ihost/sim/include $(INC_HOST)
CPPFLAGS    := $(CPPFLAGS_BASE) $(INC_ALL)
libinc = $(if $(filter host/sim/%,$(1)),$(INC_SIM),$(if $(filter host/% firmware/%,$(1)),$(INC_HOST),$(if $(filter models/%,$(1)),$(INC_MODELS),$(if $(filter plots/%,$(1)),$(INC_PLOTS),$(INC_ALL)))))
CFLAGS   := -std=c11 -O2 -g $(WARN) -MMD -MP
SANFLAGS := -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all -O1

# The libraries, in link order: right of each are the ones it calls (defined before the
# fragments: their rules name the archives in prerequisites, expanded as they are read).
MW_LIBNAMES := libmwcli libmwplot libmwmodels libmwsim libmw

# Fragments append to these lists.
FW_PORTABLE_SRCS :=   # firmware C that also compiles on the host
FW_AVR_SRCS      :=   # firmware C for the AVR only (ISRs, registers)
LIBMW_SRCS       :=   # host/ libmw
LIBMWSIM_SRCS    :=   # host/sim/ libmwsim
MODELS_SRCS      :=   # models/ libmwmodels
PLOT_SRCS        :=   # plots/ libmwplot
MW_SRCS          :=   # the mw command's main()
CLI_SRCS         :=   # the mw command's commands (libmwcli.a)
UNIT_TESTS       :=   # tests/unit/LIBRARY/test_*.c, one binary per module
SIM_TESTS        :=   # tests/sim/test_*.c, run the real firmware ELF in simavr
BENCHES          :=   # bench programs
INTEG_TESTS      :=   # tests/integration/test_*.sh, mw end to end

include firmware/firmware.mk
include host/host.mk
include host/sim/sim.mk
include models/models.mk
include plots/plots.mk
include collector/collector.mk
include collector/probe/probe.mk
include host/api.mk
include slurm/slurm.mk
# the CUDA layer of the probe, only where nvcc is (it needs no GPU to build); scripts/nvcc.sh
# holds the one rule for finding it
ifeq ($(origin NVCC),undefined)
NVCC := $(shell scripts/nvcc.sh)
endif
ifneq ($(NVCC),)
include collector/probe/probe_cuda.mk
endif
include tests/tests.mk

# ---- host objects, two variants; one archive per library ------------------------------
obj      = $(patsubst %.c,$(BUILD)/obj/%.o,$(1))
asanobj  = $(patsubst %.c,$(BUILD)/asan/obj/%.o,$(1))
fuzzobj  = $(patsubst %.c,$(BUILD)/fuzz/obj/%.o,$(1))

# The objects that print the git id are rebuilt when it changes (an incremental build kept
# an old id in the report's footer and `mw version`): build/git-id is rewritten only then.
GIT_ID_STAMP := $(BUILD)/git-id
GIT_ID_USERS := plots/report_page.c collector/cmd_version.c host/sysinfo.c
$(GIT_ID_STAMP): FORCE
	@mkdir -p $(@D)
	@echo '$(GIT_ID)' | cmp -s - $@ || echo '$(GIT_ID)' > $@
FORCE:
.PHONY: FORCE
$(call obj,$(GIT_ID_USERS)) $(call asanobj,$(GIT_ID_USERS)) $(call fuzzobj,$(GIT_ID_USERS)): \
  $(GIT_ID_STAMP)
$(BUILD)/avr/firmware/avr/main.o $(BUILD)/avr-test/firmware/avr/main.o: $(GIT_ID_STAMP)

$(BUILD)/obj/%.o: %.c
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS_BASE) $(call libinc,$<) $(CFLAGS) $(PKG_CFLAGS) -c $< -o $@

$(BUILD)/asan/obj/%.o: %.c
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS_BASE) $(call libinc,$<) $(CFLAGS) $(SANFLAGS) $(PKG_CFLAGS) -c $< -o $@

# $(call mw_library,NAME,SOURCES): build/lib/NAME.a, build/asan/lib/NAME.a and (make fuzz)
# build/fuzz/lib/NAME.a
define mw_library
$(BUILD)/lib/$(1).a: $$(call obj,$(2))
	@mkdir -p $$(@D)
	@rm -f $$@
	ar rcs $$@ $$^
$(BUILD)/asan/lib/$(1).a: $$(call asanobj,$(2))
	@mkdir -p $$(@D)
	@rm -f $$@
	ar rcs $$@ $$^
$(BUILD)/fuzz/lib/$(1).a: $$(call fuzzobj,$(2))
	@mkdir -p $$(@D)
	@rm -f $$@
	ar rcs $$@ $$^
endef
$(eval $(call mw_library,libmw,$(LIBMW_SRCS) $(FW_PORTABLE_SRCS)))
$(eval $(call mw_library,libmwsim,$(LIBMWSIM_SRCS)))
$(eval $(call mw_library,libmwmodels,$(MODELS_SRCS)))
$(eval $(call mw_library,libmwplot,$(PLOT_SRCS)))
$(eval $(call mw_library,libmwcli,$(CLI_SRCS)))

LIBMW      := $(BUILD)/lib/libmw.a
LIBMW_ASAN := $(BUILD)/asan/lib/libmw.a

# workloads/ (after obj/asanobj: its fragments use them in rules); its libeeg.a (the EEG
# workload's portable core, OpenMP) is linked into the tests too
include workloads/workloads.mk

LIBS      = $(patsubst %,$(BUILD)/lib/%.a,$(MW_LIBNAMES)) $(LIBEEG)
LIBS_ASAN = $(patsubst %,$(BUILD)/asan/lib/%.a,$(MW_LIBNAMES)) $(LIBEEG_ASAN)

MW := $(BUILD)/bin/mw
$(MW): $(call obj,$(MW_SRCS)) $(LIBS)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -o $@ $(filter %.o,$^) $(LIBS) $(PKG_LIBS)

# ---- tests ----------------------------------------------------------------------------
UNIT_BINS      := $(patsubst tests/unit/%.c,$(BUILD)/tests/unit/%,$(UNIT_TESTS))
UNIT_BINS_ASAN := $(patsubst tests/unit/%.c,$(BUILD)/asan/tests/unit/%,$(UNIT_TESTS))
SIM_BINS       := $(patsubst tests/sim/%.c,$(BUILD)/tests/sim/%,$(SIM_TESTS))
BENCH_BINS     := $(patsubst tests/bench/%.c,$(BUILD)/bench/%,$(BENCHES))

$(BUILD)/tests/unit/%: $(BUILD)/obj/tests/unit/%.o $(LIBS)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -fopenmp -o $@ $< $(LIBS) $(PKG_LIBS) -lcmocka

$(BUILD)/asan/tests/unit/%: $(BUILD)/asan/obj/tests/unit/%.o $(LIBS_ASAN)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(SANFLAGS) -fopenmp -o $@ $< $(LIBS_ASAN) $(PKG_LIBS) -lcmocka

$(BUILD)/tests/sim/%: $(BUILD)/obj/tests/sim/%.o $(LIBS) $(FW_ELF) $(FW_TEST_ELF) $(FW_REVA_ELF)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -fopenmp -o $@ $< $(LIBS) $(PKG_LIBS) -lcmocka

$(BUILD)/bench/%: $(BUILD)/obj/tests/bench/%.o $(LIBS) $(FW_ELF)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -fopenmp -o $@ $< $(LIBS) $(PKG_LIBS) -lcmocka

# ---- top-level targets ----------------------------------------------------------------
.SECONDARY:
# The manual pages mw(1), mw-COMMAND(1) and the bash completion, made from mw's own --help
# texts (scripts/mkman.py), so they cannot drift from it.
MAN_DIR   := $(BUILD)/man
MAN_STAMP := $(MAN_DIR)/.stamp
$(MAN_STAMP): $(MW) scripts/mkman.py
	@rm -rf $(MAN_DIR)
	python3 scripts/mkman.py $(MW) $(MAN_DIR)
	@touch $@
man: $(MAN_STAMP)

.PHONY: all deps check check-build demo bench install clean help flash format man

all: $(MW) $(FW_ELF) $(FW_HEX) $(FW_REVA_HEX) $(PROBE_LIBS) $(WORKLOAD_BINS) $(MAN_STAMP) $(SPANK_SO)

deps:
	@scripts/deps.sh

# `check` first installs what is missing, then builds in a fresh make (so pkg-config sees
# the new packages), then runs every test binary and prints one closing summary line.
check:
	@scripts/deps.sh
	@$(MAKE) --no-print-directory check-build
	@tests/run.sh $(BUILD) $(UNIT_BINS) $(UNIT_BINS_ASAN) $(SIM_BINS) $(INTEG_TESTS)

check-build: all $(UNIT_BINS) $(UNIT_BINS_ASAN) $(SIM_BINS)

demo:
	@scripts/deps.sh
	@$(MAKE) --no-print-directory -j$$(nproc) all
	@scripts/demo.sh $(BUILD)

bench:
	@scripts/deps.sh
	@$(MAKE) --no-print-directory all $(BENCH_BINS)
	@scripts/bench.sh $(BUILD) $(FW_ELF) $(BENCH_BINS) tests/bench/bench_probe_mpi.sh tests/bench/bench_eeg.sh \
	  tests/bench/bench_export.sh tests/bench/bench_chatty.sh

# libFuzzer (clang) on each target of tests/fuzz/ for FUZZ_S seconds (default 60), one after
# the other; FUZZ_TARGETS picks some (tests/fuzz/fuzz.mk, docs/reliability.md "Fuzzing").
fuzz:
	@scripts/deps.sh
	@$(MAKE) --no-print-directory $(FUZZ_BINS)
	@tests/fuzz/run.sh $(BUILD) $(FUZZ_S) $(FUZZ_TARGETS)

# An hour (SOAK_S seconds) of recording from the simulated board through the fault proxy at a
# byte error rate of 1e-3 with a link cut every 2 min, while a workload runs; lost, corrupted
# and duplicated samples at the end (tests/soak/soak.sh, docs/reliability.md "Soak").
SOAK_S ?= 3600
.PHONY: soak
soak:
	@scripts/deps.sh
	@$(MAKE) --no-print-directory all $(FAULT_TOOLS)
	@SOAK_S="$(SOAK_S)" tests/soak/soak.sh $(BUILD)

# Without PORT, mw flash looks for the one Arduino Mega on USB. MW_BOARD=A: a revision-A
# board (ADC reference AVCC, no reference chip: hardware/README.md).
FLASH_HEX = $(if $(filter A,$(MW_BOARD)),$(FW_REVA_HEX),$(FW_HEX))
flash: $(MW) $(FLASH_HEX)
	$(MW) flash $(if $(PORT),--port "$(PORT)") $(FLASH_HEX)

install: all
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/share/megawatt/firmware
	install -m 755 $(MW) $(DESTDIR)$(PREFIX)/bin/mw
	install -m 644 $(FW_ELF) $(FW_HEX) $(FW_REVA_ELF) $(FW_REVA_HEX) $(DESTDIR)$(PREFIX)/share/megawatt/firmware/
	install -D -m 644 -t $(DESTDIR)$(PREFIX)/share/megawatt/plots plots/gnuplot/*.gp
	install -D -m 644 -t $(DESTDIR)$(PREFIX)/share/megawatt/schemas docs/schemas/*.schema.json
	install -d $(DESTDIR)$(PREFIX)/include $(DESTDIR)$(PREFIX)/lib/pkgconfig
	install -m 644 collector/probe/mwprobe.h $(DESTDIR)$(PREFIX)/include/
	install -m 755 $(PROBE_SO) $(DESTDIR)$(PREFIX)/lib/
	install -m 644 $(PROBE_A) $(DESTDIR)$(PREFIX)/lib/
	install -m 644 $(PROBE_PC) $(DESTDIR)$(PREFIX)/lib/pkgconfig/
	$(MEGAWATT_INSTALL)
	install -D -m 644 -t $(DESTDIR)$(PREFIX)/share/man/man1 $(MAN_DIR)/man1/*.1
	install -D -m 644 $(MAN_DIR)/completion/mw $(DESTDIR)$(PREFIX)/share/bash-completion/completions/mw
	$(if $(SPANK_SO),install -D -m 755 $(SPANK_SO) $(DESTDIR)$(PREFIX)/lib/slurm/mw_spank.so)
	$(if $(SPANK_SO),install -D -m 644 slurm/mw_spank.8 $(DESTDIR)$(PREFIX)/share/man/man8/mw_spank.8)
	install -D -m 644 -t $(DESTDIR)$(PREFIX)/share/doc/megawatt README.md CITATION.cff
	install -D -m 644 -t $(DESTDIR)$(PREFIX)/share/doc/megawatt/docs docs/*.md
	cd docs && find demo-report models-sweep examples -type f -exec \
	  install -D -m 644 {} $(DESTDIR)$(PREFIX)/share/doc/megawatt/docs/{} \;

format:
	clang-format -i $(shell git ls-files '*.c' '*.h')

clean:
	rm -rf $(BUILD)

help:
	@echo "make            build mw (build/bin/mw), libmwprobe (build/lib) and the firmware (build/firmware/megawatt.{elf,hex})"
	@echo "make check      install missing packages, build, run all tests (also under ASan/UBSan)"
	@echo "make demo       the main job on the simulated board"
	@echo "make bench      benchmarks; figures go to docs/performance.md"
	@echo "make fuzz [FUZZ_S=60] [FUZZ_TARGETS=\"proto store\"]  libFuzzer on each parser, FUZZ_S s each"
	@echo "make soak [SOAK_S=3600]  record SOAK_S s through a faulty link; lost/corrupted samples"
	@echo "make deps       install missing Debian packages (scripts/packages.txt)"
	@echo "make flash [PORT=/dev/ttyACM0] [MW_BOARD=A] flash a real meter (without PORT: the one Mega on USB; MW_BOARD=A: a revision-A board, AVCC reference)"
	@echo "make man        manual pages and bash completion from mw's --help (build/man)"
	@echo "make install PREFIX=/usr/local ; make clean ; make format"

-include $(shell find $(BUILD) -name '*.d' 2>/dev/null)
