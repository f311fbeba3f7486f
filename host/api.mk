# host/api.mk — libmegawatt, the installed reader library (megawatt.h, host/api.c, docs/api.md):
#   build/lib/libmegawatt.so.1   shared, soname libmegawatt.so.1, exporting only megawatt_*
#                                (every object -fvisibility=hidden; host/megawatt.map)
#   build/lib/libmegawatt.a      static: one object, every symbol but megawatt_* made local
#   build/lib/pkgconfig/megawatt.pc
# Both are made from libmw's sources compiled position-independent into build/pic/ (the
# probe's rule, collector/probe/probe.mk) and put in build/pic/lib/libmw.a, from which the
# linker takes only what api.o needs (the store and its read API, not the meter I/O).
# Included after the probe's fragment (picobj and the build/pic rule).
MEGAWATT_SOVERSION := 1
MEGAWATT_SO    := $(BUILD)/lib/libmegawatt.so.$(MEGAWATT_SOVERSION)
MEGAWATT_A     := $(BUILD)/lib/libmegawatt.a
MEGAWATT_PC    := $(BUILD)/lib/pkgconfig/megawatt.pc
MEGAWATT_MAP   := host/megawatt.map
MEGAWATT_LIBS  := $(MEGAWATT_SO) $(MEGAWATT_A) $(MEGAWATT_PC)
MEGAWATT_PIC_A := $(BUILD)/pic/lib/libmw.a
MEGAWATT_API_O := $(BUILD)/pic/host/api.o
MEGAWATT_PIC_SRCS := $(filter-out host/api.c,$(LIBMW_SRCS) $(FW_PORTABLE_SRCS))

# libmw's sources see the packages' headers (the probe's own do not need them)
$(call picobj,$(LIBMW_SRCS) $(FW_PORTABLE_SRCS)): PROBE_CFLAGS += $(PKG_CFLAGS)
$(BUILD)/pic/host/sysinfo.o: $(BUILD)/git-id # prints the git id (GIT_ID_USERS)

$(MEGAWATT_PIC_A): $(call picobj,$(MEGAWATT_PIC_SRCS))
	@mkdir -p $(@D)
	@rm -f $@
	ar rcs $@ $^

# --as-needed: only the libraries the taken objects call become NEEDED (sqlite3, libc)
$(MEGAWATT_SO): $(MEGAWATT_API_O) $(MEGAWATT_PIC_A) $(MEGAWATT_MAP)
	@mkdir -p $(@D)
	$(CC) -shared -pthread -Wl,-soname,libmegawatt.so.$(MEGAWATT_SOVERSION) \
	  -Wl,--version-script=$(MEGAWATT_MAP) -Wl,-z,defs -Wl,--as-needed -o $@ \
	  $(MEGAWATT_API_O) $(MEGAWATT_PIC_A) $(PKG_LIBS)

# ld -r pulls the same members into one object; --localize-hidden then hides libmw's names
# (hidden by -fvisibility=hidden) from a program linking the archive.
$(MEGAWATT_A): $(MEGAWATT_API_O) $(MEGAWATT_PIC_A)
	@mkdir -p $(@D) $(BUILD)/pic/lib
	ld -r -o $(BUILD)/pic/lib/megawatt.o $(MEGAWATT_API_O) $(MEGAWATT_PIC_A)
	objcopy --localize-hidden $(BUILD)/pic/lib/megawatt.o
	@rm -f $@
	ar rcs $@ $(BUILD)/pic/lib/megawatt.o

# Rewritten when PREFIX or VERSION change (make install PREFIX=... after a plain make).
$(MEGAWATT_PC): FORCE
	@mkdir -p $(@D)
	@printf '%s\n' 'prefix=$(PREFIX)' 'libdir=$${prefix}/lib' 'includedir=$${prefix}/include' '' \
	  'Name: megawatt' 'Description: read megawatt power recordings (runs, windows, phases) from C' \
	  'Version: $(VERSION)' 'Requires.private: sqlite3' 'Cflags: -I$${includedir}' \
	  'Libs: -L$${libdir} -lmegawatt' > $@.tmp
	@if cmp -s $@.tmp $@; then rm -f $@.tmp; else mv -f $@.tmp $@; echo "wrote $@"; fi

all: $(MEGAWATT_LIBS)

# for the install rule: header, libraries (the .so with its link-time name), .pc
define MEGAWATT_INSTALL
	install -D -m 644 host/include/megawatt.h $(DESTDIR)$(PREFIX)/include/megawatt/megawatt.h
	install -m 755 $(MEGAWATT_SO) $(DESTDIR)$(PREFIX)/lib/
	ln -sfn libmegawatt.so.$(MEGAWATT_SOVERSION) $(DESTDIR)$(PREFIX)/lib/libmegawatt.so
	install -m 644 $(MEGAWATT_A) $(DESTDIR)$(PREFIX)/lib/
	install -m 644 $(MEGAWATT_PC) $(DESTDIR)$(PREFIX)/lib/pkgconfig/
endef
