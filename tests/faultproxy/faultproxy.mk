# tests/faultproxy/ — test tools for link and disk faults (docs/reliability.md), built for
# `make check` and `make soak`, never installed:
#   build/tests/faultproxy      the fault-injecting serial proxy (faultproxy.c)
#   build/tests/libfailwrite.so an LD_PRELOAD shim making writes under a directory fail
#                               with ENOSPC or EROFS on demand (failwrite.c)
FAULTPROXY := $(BUILD)/tests/faultproxy
FAILWRITE  := $(BUILD)/tests/libfailwrite.so
FAULT_TOOLS := $(FAULTPROXY) $(FAILWRITE)

$(FAULTPROXY): tests/faultproxy/faultproxy.c
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(CFLAGS) -o $@ $< -lm

$(FAILWRITE): tests/faultproxy/failwrite.c
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(CFLAGS) -fPIC -shared -o $@ $< -ldl

check-build: $(FAULT_TOOLS)
