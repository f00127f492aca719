# SPDX-License-Identifier: GPL-2.0-only
# netregress: one non-recursive Makefile. Objects live in $(B)/.
#   make              build build/netregress
#   make run          build and run the default job on loopback (embedded server)
#   make test         unit + e2e tests, then again under ASan+UBSan
#   make fuzz         fuzz the parsers of outside input (clang, libFuzzer)
#   make man          build/netregress.1 and build/netregress.bash (completion)
#   make install PREFIX=/usr/local

B       ?= build
PREFIX  ?= /usr/local
CC      ?= cc
PKGS    := jansson sqlite3 gsl yaml-0.1
DEBPKGS := build-essential pkg-config libjansson-dev libcmocka-dev libsqlite3-dev libgsl-dev libyaml-dev iproute2 python3 strace groff-base
FUZZ_DEBPKGS := clang libclang-rt-14-dev

WARN    := -Wall -Wextra -Wshadow -Wformat=2 -Wmissing-prototypes -Wno-format-nonliteral
CFLAGS  ?= -O2 -g
CFLAGS  += -std=c11 -D_GNU_SOURCE $(WARN) -Isrc -MMD -MP -pthread
ifeq ($(WERROR),1)
CFLAGS  += -Werror
endif
# The libFuzzer tree (make fuzz): clang, coverage for the fuzzer, ASan+UBSan.
ifeq ($(FUZZ),1)
CC      := clang
CFLAGS  += -fsanitize=fuzzer-no-link,address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined
LDFLAGS += -fsanitize=address,undefined
endif
ifeq ($(SAN),1)
CFLAGS  += -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined
LDFLAGS += -fsanitize=address,undefined
endif
PKG_CFLAGS = $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
PKG_LIBS   = $(shell pkg-config --libs $(PKGS) 2>/dev/null)
LDLIBS  += $(PKG_LIBS) -pthread -lm

SRCS     := $(sort $(wildcard src/*/*.c))
MAIN_SRC := src/cli/main.c
LIB_OBJS := $(patsubst %.c,$(B)/%.o,$(filter-out $(MAIN_SRC),$(SRCS)))
MAIN_OBJ := $(B)/src/cli/main.o
BIN      := $(B)/netregress

UNIT_SRCS := $(sort $(wildcard tests/unit/test_*.c))
UNIT_BINS := $(patsubst tests/unit/%.c,$(B)/tests/%,$(UNIT_SRCS))

# Fuzz targets (tests/fuzz/fuzz_NAME.c): replay_NAME runs one over its saved
# inputs in every tree (make test); fuzz_NAME is the libFuzzer binary.
FUZZ_SRCS   := $(sort $(wildcard tests/fuzz/fuzz_*.c))
FUZZ_NAMES  := $(patsubst tests/fuzz/fuzz_%.c,%,$(FUZZ_SRCS))
REPLAY_BINS := $(patsubst %,$(B)/fuzz/replay_%,$(FUZZ_NAMES))
FUZZ_BINS   := $(patsubst %,$(B)/fuzz/fuzz_%,$(FUZZ_NAMES))
FUZZ_OBJS   := $(patsubst %.c,$(B)/%.o,$(FUZZ_SRCS) tests/fuzz/replay.c)
FUZZ_TREE   := build/fuzz-tree
FUZZ_TIME   ?= 60

.PHONY: all run test check unit e2e man install clean deps san-test fuzz fuzz-deps fuzzers FORCE
all: $(BIN)

# The git revision every sample records (base/build.c); build.o is made
# again when it changes: $(B)/build-id holds the one it was made with.
NR_BUILD := $(shell git -C $(CURDIR) describe --always --dirty --abbrev=12 2>/dev/null)
$(B)/build-id: FORCE
	@mkdir -p $(@D)
	@echo '$(NR_BUILD)' | cmp -s - $@ || echo '$(NR_BUILD)' >$@
$(B)/src/base/build.o: $(B)/build-id
$(B)/src/base/build.o: CFLAGS += -DNR_BUILD='"$(NR_BUILD)"'

$(B)/%.o: %.c
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(PKG_CFLAGS) -c -o $@ $<

$(BIN): $(LIB_OBJS) $(MAIN_OBJ)
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

$(B)/tests/%: tests/unit/%.c $(LIB_OBJS)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(PKG_CFLAGS) $(shell pkg-config --cflags cmocka 2>/dev/null) -o $@ $< $(LIB_OBJS) \
		$(LDFLAGS) $(LDLIBS) $(shell pkg-config --libs cmocka 2>/dev/null)

$(B)/fuzz/replay_%: $(B)/tests/fuzz/fuzz_%.o $(B)/tests/fuzz/replay.o $(LIB_OBJS)
	@mkdir -p $(@D)
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

$(B)/fuzz/fuzz_%: $(B)/tests/fuzz/fuzz_%.o $(LIB_OBJS)
	@mkdir -p $(@D)
	$(CC) $(LDFLAGS) -fsanitize=fuzzer -o $@ $^ $(LDLIBS)

# Install Debian packages ($(1)), only those missing.
define install_missing
	@missing=""; for p in $(1); do \
		dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q 'ok installed' || missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then \
		echo "installing:$$missing"; \
		apt-get install -y $$missing || { apt-get update && apt-get install -y $$missing; }; \
	fi
endef

# The packages the build and the tests need.
deps:
	$(call install_missing,$(DEBPKGS))

# libFuzzer comes with clang's runtime libraries; only `make fuzz` needs it.
fuzz-deps: deps
	$(call install_missing,$(FUZZ_DEBPKGS))

run: deps
	@$(MAKE) --no-print-directory $(BIN)
	$(BIN) matrix scenarios/default.yaml

# The test driver builds both trees and prints one final "N passed, N failed".
test check: deps
	@WERROR=1 tests/run.sh

unit: $(UNIT_BINS) $(REPLAY_BINS)
fuzzers: $(FUZZ_BINS)
.SECONDARY: $(FUZZ_OBJS)

# Fuzz each target for FUZZ_TIME seconds (FUZZ_TARGETS: some of them),
# starting from its saved inputs in tests/fuzz/corpus/NAME. New inputs go
# to $(FUZZ_TREE)/corpus/NAME, a finding to $(FUZZ_TREE)/found/NAME/ (a
# target stops at its first; the others still run, and make fails); copy a
# finding into tests/fuzz/corpus/NAME once it is fixed, so that make test
# replays it from then on.
FUZZ_TARGETS ?= $(FUZZ_NAMES)
fuzz: fuzz-deps
	@$(MAKE) --no-print-directory B=$(FUZZ_TREE) FUZZ=1 fuzzers
	@found=""; for n in $(FUZZ_TARGETS); do \
		mkdir -p $(FUZZ_TREE)/corpus/$$n $(FUZZ_TREE)/found/$$n; \
		echo "== fuzz $$n: $(FUZZ_TIME) s =="; \
		$(FUZZ_TREE)/fuzz/fuzz_$$n -max_total_time=$(FUZZ_TIME) -timeout=10 \
			-rss_limit_mb=2048 -print_final_stats=1 \
			-artifact_prefix=$(FUZZ_TREE)/found/$$n/ \
			$(FUZZ_TREE)/corpus/$$n tests/fuzz/corpus/$$n || found="$$found $$n"; \
	done; \
	if [ -n "$$found" ]; then \
		echo "findings in:$$found (inputs in $(FUZZ_TREE)/found/)"; exit 1; \
	fi; echo "no findings"
e2e: $(BIN)

# The man page and the bash completion, both from the binary: the
# commands' table and the parameter table (src/job/params.c).
man: $(B)/netregress.1 $(B)/netregress.bash
$(B)/netregress.1: $(BIN)
	$(BIN) --man >$@.tmp && mv $@.tmp $@
$(B)/netregress.bash: $(BIN) tools/completion.sh
	sh tools/completion.sh $(BIN) >$@.tmp && mv $@.tmp $@

install: $(BIN) $(B)/netregress.1 $(B)/netregress.bash
	install -D -m 0755 $(BIN) $(DESTDIR)$(PREFIX)/bin/netregress
	install -D -m 0644 $(B)/netregress.1 $(DESTDIR)$(PREFIX)/share/man/man1/netregress.1
	install -D -m 0644 $(B)/netregress.bash $(DESTDIR)$(PREFIX)/share/bash-completion/completions/netregress

clean:
	rm -rf build

-include $(shell find $(B) -name '*.d' 2>/dev/null)
