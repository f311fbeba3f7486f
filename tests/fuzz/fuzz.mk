# tests/fuzz/ — fuzz targets (docs/reliability.md, "Fuzzing"). Each tests/fuzz/fuzz_NAME.c is
# built twice:
#   build/asan/tests/fuzz/fuzz_NAME  gcc + ASan/UBSan + tests/fuzz/driver.c: `make check`
#                                    feeds it each file of tests/fuzz/corpus/NAME/ once
#                                    (tests/integration/test_fuzz_corpus.sh)
#   build/fuzz/bin/fuzz_NAME         clang + libFuzzer + ASan/UBSan: `make fuzz` runs each
#                                    for FUZZ_S seconds (tests/fuzz/run.sh)
# The clang build compiles libmw's and the mw commands' sources again, instrumented for
# coverage, into build/fuzz/lib/. `make fuzz FUZZ_TARGETS="proto store" FUZZ_S=10` picks.
# The archives are the Makefile's mw_library ones (build/fuzz/lib/NAME.a).
FUZZ_NAMES    := $(patsubst tests/fuzz/fuzz_%.c,%,$(wildcard tests/fuzz/fuzz_*.c))
FUZZ_S        ?= 60
FUZZ_TARGETS  ?= $(FUZZ_NAMES)
FUZZ_REG_BINS := $(patsubst %,$(BUILD)/asan/tests/fuzz/fuzz_%,$(FUZZ_NAMES))
FUZZ_BINS     := $(patsubst %,$(BUILD)/fuzz/bin/fuzz_%,$(FUZZ_TARGETS))

FUZZ_CC     := clang
FUZZ_FLAGS  := -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer \
               -O1 -g
FUZZ_CFLAGS := -std=c11 -Wall -Wextra -Wno-unused-parameter -MMD -MP $(FUZZ_FLAGS) \
               -fsanitize=fuzzer-no-link
FUZZ_LIBS      = $(patsubst %,$(BUILD)/fuzz/lib/%.a,$(MW_LIBNAMES))
FUZZ_LIBS_ASAN = $(patsubst %,$(BUILD)/asan/lib/%.a,$(MW_LIBNAMES))

$(BUILD)/fuzz/obj/%.o: %.c
	@mkdir -p $(@D)
	$(FUZZ_CC) $(CPPFLAGS) $(FUZZ_CFLAGS) $(PKG_CFLAGS) -c $< -o $@

$(BUILD)/fuzz/bin/fuzz_%: $(BUILD)/fuzz/obj/tests/fuzz/fuzz_%.o $(FUZZ_LIBS)
	@mkdir -p $(@D)
	$(FUZZ_CC) $(FUZZ_FLAGS) -fsanitize=fuzzer -o $@ $< $(FUZZ_LIBS) $(PKG_LIBS)

$(BUILD)/asan/tests/fuzz/fuzz_%: $(BUILD)/asan/obj/tests/fuzz/fuzz_%.o \
                                 $(BUILD)/asan/obj/tests/fuzz/driver.o $(FUZZ_LIBS_ASAN)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(SANFLAGS) -o $@ $(filter %.o,$^) $(FUZZ_LIBS_ASAN) $(PKG_LIBS)

# make check builds the regression binaries (the integration test runs them)
check-build: $(FUZZ_REG_BINS)
.PHONY: fuzz
