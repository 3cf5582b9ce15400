# leakprof - one non-recursive Makefile.
# make [all] | test | demo | bench | asan | install | uninstall | clean | deps
-include config.mak

O       ?= build
PREFIX  ?= /usr/local
DESTDIR ?=
CC      ?= cc
CXX     ?= c++
SAN     ?=
# One version for leakprof, leakprint and the report header.
VERSION := $(shell cat VERSION 2>/dev/null || echo unknown)

CFLAGS_BASE := -std=gnu11 -D_GNU_SOURCE -O2 -g -fno-omit-frame-pointer \
	-Wall -Wextra -Wshadow -Wmissing-prototypes -I. -fPIC \
	-DLP_VERSION='"$(VERSION)"'
ifneq ($(SAN),)
CFLAGS_BASE += -fsanitize=$(SAN) -fno-sanitize-recover=all
LDSAN := -fsanitize=$(SAN)
endif
ifeq ($(WERROR),1)
CFLAGS_BASE += -Werror
endif
PRELOAD_CFLAGS := -fvisibility=hidden -ftls-model=initial-exec
LIBS := -lunwind -ldw -lelf -lpthread -ldl -lm
# libleakprof.so loads libdw (and libelf) itself when it first symbolizes
# (preload/life/libdw_lazy.c): no TLS module of theirs at startup, so threads'
# DTV blocks have Memcheck's size. libunwind.a is not PIC: stays shared.
PRELOAD_LIBS := -lunwind -lpthread -ldl -lm

# Debian packages this project needs, and a header each one provides.
DEPS_PKGS := libunwind-dev libdw-dev uthash-dev libcmocka-dev
DEPS_STAMP := $(O)/.deps-ok
# Real programs the end-to-end tests run (`make test` installs them when
# missing; a test whose program could not be installed says SKIP): nginx
# for the service test (master, setuid worker, snapshots), sqlite3 and
# curl. Debian's policy-rc.d, where present, keeps nginx's own service
# from starting at install; the test starts one on 127.0.0.1 itself.
TEST_PKGS := nginx sqlite3 curl
TEST_DEPS_STAMP := $(O)/.test-deps-ok

ifneq ($(V),1)
Q := @
endif

REPORT_SRC  := $(wildcard report/*.c)
PRELOAD_SRC := $(wildcard preload/*/*.c)
LAUNCHER_SRC := tools/leakprof.c $(wildcard tools/cli_*.c)
LEAKPRINT_SRC := $(filter-out $(LAUNCHER_SRC),$(wildcard tools/*.c))
UNIT_SRC    := $(wildcard tests/unit/test_*.c)
UNIT_HELPERS := $(filter-out $(UNIT_SRC),$(wildcard tests/unit/*.c))
SAMPLES_C   := $(wildcard samples/*.c)
SAMPLES_CXX := $(wildcard samples/*.cpp)

REPORT_OBJ  := $(REPORT_SRC:%.c=$(O)/%.o)
PRELOAD_OBJ := $(PRELOAD_SRC:%.c=$(O)/%.o)
LEAKPRINT_OBJ := $(LEAKPRINT_SRC:%.c=$(O)/%.o)
LAUNCHER_OBJ := $(LAUNCHER_SRC:%.c=$(O)/%.o)
UNIT_BIN    := $(UNIT_SRC:tests/unit/%.c=$(O)/test/%)
UNIT_HELPER_OBJ := $(UNIT_HELPERS:%.c=$(O)/%.o)
SAMPLE_BIN  := $(SAMPLES_C:samples/%.c=$(O)/samples/%) $(SAMPLES_CXX:samples/%.cpp=$(O)/samples/%)
# Preload objects a unit test may link: everything but the libc symbols.
PRELOAD_TESTABLE := $(filter-out $(O)/preload/hot/hooks.o $(O)/preload/life/main.o $(O)/preload/life/process.o $(O)/preload/hot/cxx.o $(O)/preload/life/libdw_lazy.o $(O)/preload/life/fs_hooks.o $(O)/preload/life/seccomp_hooks.o,$(PRELOAD_OBJ))

.PHONY: all deps test unit e2e demo bench asan install uninstall clean check-hotpath report-tests
all: $(O)/libleakprof.so $(O)/leakprint $(O)/leakprof $(SAMPLE_BIN)

deps: $(DEPS_STAMP)
$(DEPS_STAMP):
	$(Q)missing=""; for p in $(DEPS_PKGS); do \
	  dpkg -s $$p >/dev/null 2>&1 || missing="$$missing $$p"; done; \
	if [ -n "$$missing" ]; then \
	  echo "installing:$$missing"; \
	  SUDO=""; [ "$$(id -u)" = 0 ] || SUDO=sudo; \
	  $$SUDO apt-get install -y $$missing || { $$SUDO apt-get update && $$SUDO apt-get install -y $$missing; } || exit 1; \
	fi
	$(Q)mkdir -p $(O) && touch $@

$(TEST_DEPS_STAMP): | $(DEPS_STAMP)
	$(Q)missing=""; for p in $(TEST_PKGS); do \
	  dpkg -s $$p >/dev/null 2>&1 || missing="$$missing $$p"; done; \
	if [ -n "$$missing" ]; then \
	  echo "installing for the tests:$$missing"; \
	  SUDO=""; [ "$$(id -u)" = 0 ] || SUDO=sudo; \
	  $$SUDO apt-get install -y $$missing || { $$SUDO apt-get update && $$SUDO apt-get install -y $$missing; } || \
	    echo "could not install$$missing: the tests that run them say SKIP"; \
	fi
	$(Q)touch $@

$(O)/%.o: %.c | $(DEPS_STAMP)
	@mkdir -p $(dir $@)
	$(if $(Q),@echo "  CC      $<")
	$(Q)$(CC) $(CFLAGS_BASE) $(if $(filter preload/%,$<),$(PRELOAD_CFLAGS)) $(CFLAGS) -MMD -MP -c -o $@ $<

$(O)/libreport.a: $(REPORT_OBJ)
	$(Q)rm -f $@ && ar rcs $@ $^

$(O)/libpreload-test.a: $(PRELOAD_TESTABLE)
	$(Q)rm -f $@ && ar rcs $@ $^

$(O)/libleakprof.so: $(PRELOAD_OBJ) $(O)/libreport.a preload/exports.map
	$(if $(Q),@echo "  LD      $@")
	$(Q)$(CC) -shared -Wl,-z,defs -Wl,--version-script=preload/exports.map \
	  -o $@ $(PRELOAD_OBJ) $(O)/libreport.a $(PRELOAD_LIBS) $(LDSAN)

# zlib (pprof input): libdw-dev depends on zlib1g-dev, so nothing new.
$(O)/leakprint: $(LEAKPRINT_OBJ) $(O)/libreport.a
	$(Q)$(CC) -o $@ $^ $(LIBS) -lz $(LDSAN)

# The launcher validates options with the library's own parser.
$(O)/leakprof: $(LAUNCHER_OBJ) $(O)/preload/life/config.o $(O)/preload/life/config_parse.o $(O)/preload/life/config_patterns.o $(O)/libreport.a
	$(Q)$(CC) -o $@ $^ $(LDSAN)

# Objects that print the version.
$(O)/tools/cli_options.o $(O)/tools/leakprint.o $(O)/report/leaks.o: VERSION

# Samples link against the -dev packages too (reach_own_libunwind): none may
# build before the install step, or a fresh `make -j2` fails its first run.
$(SAMPLE_BIN) $(O)/samples/libctorlib.so $(O)/samples/libatexit_lib.so \
  $(O)/samples/libdtorlib.so $(O)/samples/libreach_tls.so \
  $(O)/samples/libbump_alloc.so $(O)/samples/libbigplug.so: | $(DEPS_STAMP)

$(O)/samples/%: samples/%.c
	@mkdir -p $(dir $@)
	$(Q)$(CC) -g -O0 -fno-omit-frame-pointer -pthread -o $@ $<

# A program that links libunwind itself (its TLS module is its own).
$(O)/samples/reach_own_libunwind: samples/reach_own_libunwind.c
	@mkdir -p $(dir $@)
	$(Q)$(CC) -g -O0 -fno-omit-frame-pointer -pthread -o $@ $< -Wl,--no-as-needed -lunwind

# A program that uses libm (its data is the program's; libunwind's is not).
$(O)/samples/reach_our_libs: samples/reach_our_libs.c
	@mkdir -p $(dir $@)
	$(Q)$(CC) -g -O0 -fno-omit-frame-pointer -pthread -o $@ $< -Wl,--no-as-needed -lm

# A sample whose linked library allocates in its constructor.
$(O)/samples/libctorlib.so: samples/lib/ctorlib.c
	@mkdir -p $(dir $@)
	$(Q)$(CC) -g -O0 -fno-omit-frame-pointer -shared -fPIC -o $@ $<
$(O)/samples/dlopen_app: samples/dlopen_app.c $(O)/samples/libctorlib.so
	$(Q)$(CC) -g -O0 -fno-omit-frame-pointer -o $@ $< -ldl
$(O)/samples/before_main: samples/before_main.c $(O)/samples/libctorlib.so
	$(Q)$(CC) -g -O0 -fno-omit-frame-pointer -o $@ $< -L$(O)/samples -lctorlib -Wl,-rpath,'$$ORIGIN'

# A sample whose linked library registers many exit handlers before main.
$(O)/samples/libatexit_lib.so: samples/lib/atexit_lib.c
	@mkdir -p $(dir $@)
	$(Q)$(CC) -g -O0 -fno-omit-frame-pointer -shared -fPIC -o $@ $<
$(O)/samples/atexit_many: samples/atexit_many.c $(O)/samples/libatexit_lib.so
	$(Q)$(CC) -g -O0 -fno-omit-frame-pointer -o $@ $< -L$(O)/samples -latexit_lib -Wl,-rpath,'$$ORIGIN'

# A sample whose linked library frees in its destructor.
$(O)/samples/libdtorlib.so: samples/lib/dtorlib.c
	@mkdir -p $(dir $@)
	$(Q)$(CC) -g -O0 -fno-omit-frame-pointer -shared -fPIC -o $@ $<
$(O)/samples/dtor_app: samples/dtor_app.c $(O)/samples/libdtorlib.so
	$(Q)$(CC) -g -O0 -fno-omit-frame-pointer -o $@ $< -Wl,--no-as-needed -L$(O)/samples -ldtorlib -Wl,-rpath,'$$ORIGIN'
# An allocator that is not glibc's, preloaded beside the library.
$(O)/samples/libbump_alloc.so: samples/lib/bump_alloc.c
	@mkdir -p $(dir $@)
	$(Q)$(CC) -g -O0 -fno-omit-frame-pointer -shared -fPIC -o $@ $<
$(O)/samples/sample_reach: samples/sample_reach.c $(O)/samples/libbump_alloc.so
	$(Q)$(CC) -g -O0 -fno-omit-frame-pointer -pthread -o $@ $<
# reach_tls dlopens a library with __thread variables (dynamic TLS).
$(O)/samples/libreach_tls.so: samples/lib/reach_tls.c
	@mkdir -p $(dir $@)
	$(Q)$(CC) -g -O0 -fno-omit-frame-pointer -shared -fPIC -o $@ $<
$(O)/samples/reach_tls: samples/reach_tls.c $(O)/samples/libreach_tls.so
	$(Q)$(CC) -g -O0 -fno-omit-frame-pointer -pthread -o $@ $< -ldl

# unload_app dlopens a 1.5 MB plugin and unloads it before exit.
$(O)/samples/libbigplug.so: samples/lib/bigplug.c
	@mkdir -p $(dir $@)
	$(Q)$(CC) -g -O0 -fno-omit-frame-pointer -shared -fPIC -o $@ $<
$(O)/samples/unload_app: samples/unload_app.c $(O)/samples/libbigplug.so
	$(Q)$(CC) -g -O0 -fno-omit-frame-pointer -o $@ $< -ldl

# Inlined library code, as real C++ programs are built.
$(O)/samples/cpp_inlined: samples/cpp_inlined.cpp
	@mkdir -p $(dir $@)
	$(Q)$(CXX) -g -O2 -pthread -o $@ $<

# Its own copy of operator new, as programs built with -static-libstdc++.
$(O)/samples/cpp_own_new: samples/cpp_own_new.cpp
	@mkdir -p $(dir $@)
	$(Q)$(CXX) -g -O0 -fno-omit-frame-pointer -static-libstdc++ -o $@ $<

$(O)/samples/%: samples/%.cpp
	@mkdir -p $(dir $@)
	$(Q)$(CXX) -g -O0 -fno-omit-frame-pointer -pthread -o $@ $<

# Unit helpers are built through the pattern rules only: keep them, or make
# deletes them as intermediates and relinks every test binary next time.
.SECONDARY: $(UNIT_HELPER_OBJ)
$(O)/test/%: tests/unit/%.c $(UNIT_HELPER_OBJ) $(O)/libpreload-test.a $(O)/libreport.a | $(DEPS_STAMP)
	@mkdir -p $(dir $@)
	$(Q)$(CC) $(CFLAGS_BASE) $(CFLAGS) -o $@ $< $(UNIT_HELPER_OBJ) \
	  $(O)/libpreload-test.a $(O)/libreport.a -lcmocka $(LIBS) -lz $(LDSAN)

unit: $(UNIT_BIN)
report-tests: unit

check-hotpath: $(O)/libleakprof.so
	$(Q)tests/check_hotpath.sh $(O)

test: all $(UNIT_BIN) check-hotpath $(TEST_DEPS_STAMP)
	$(Q)O=$(O) tests/run.sh

e2e: all $(TEST_DEPS_STAMP)
	$(Q)O=$(O) tests/run.sh e2e

demo: all
	@echo "== running samples/slow_app under libleakprof.so =="
	$(Q)cd $(O) && LEAKPROF_OPTIONS=massif=massif.out.demo LD_PRELOAD=$(CURDIR)/$(O)/libleakprof.so ./samples/slow_app
	@echo "== its heap over time: $(O)/leakprint $(O)/massif.out.demo (first lines) =="
	$(Q)$(O)/leakprint $(O)/massif.out.demo | sed -n '1,32p'

bench: all
	$(Q)O=$(O) tests/bench/run.sh

asan:
	$(MAKE) O=build/asan SAN=address,undefined $(addprefix build/asan/test/,$(notdir $(UNIT_BIN))) build/asan/leakprint
	$(Q)O=build/asan ASAN_OPTIONS=detect_leaks=1 tests/run.sh unit leakprint

MANDIR  ?= $(PREFIX)/share/man/man1
BASHCOMPDIR ?= $(PREFIX)/share/bash-completion/completions
MANPAGES := leakprof.1 leakprint.1

install: all
	install -d $(DESTDIR)$(PREFIX)/lib/leakprof $(DESTDIR)$(PREFIX)/bin \
	  $(DESTDIR)$(MANDIR) $(DESTDIR)$(BASHCOMPDIR)
	install -m 0755 $(O)/libleakprof.so $(DESTDIR)$(PREFIX)/lib/leakprof/libleakprof.so
	install -m 0755 $(O)/leakprint $(DESTDIR)$(PREFIX)/bin/leakprint
	install -m 0755 $(O)/leakprof $(DESTDIR)$(PREFIX)/bin/leakprof
	for m in $(MANPAGES); do \
	  sed 's/@VERSION@/$(VERSION)/g' man/$$m >$(DESTDIR)$(MANDIR)/$$m && \
	  chmod 0644 $(DESTDIR)$(MANDIR)/$$m || exit 1; done
	install -m 0644 completion/leakprof.bash $(DESTDIR)$(BASHCOMPDIR)/leakprof
	ln -sf leakprof $(DESTDIR)$(BASHCOMPDIR)/leakprint

uninstall:
	rm -f $(DESTDIR)$(PREFIX)/lib/leakprof/libleakprof.so \
	  $(DESTDIR)$(PREFIX)/bin/leakprint $(DESTDIR)$(PREFIX)/bin/leakprof \
	  $(addprefix $(DESTDIR)$(MANDIR)/,$(MANPAGES)) \
	  $(DESTDIR)$(BASHCOMPDIR)/leakprof $(DESTDIR)$(BASHCOMPDIR)/leakprint
	-rmdir $(DESTDIR)$(PREFIX)/lib/leakprof

clean:
	rm -rf $(O)

-include mk/*.mk
-include $(shell find $(O) -name '*.d' 2>/dev/null)
