# SPDX-License-Identifier: GPL-2.0-only
# netregress: one non-recursive Makefile. Objects live in $(B)/.
#   make              build build/netregress
#   make run          build and run the default job on loopback (embedded server)
#   make test         unit + e2e tests, then again under ASan+UBSan
#   make install PREFIX=/usr/local

B       ?= build
PREFIX  ?= /usr/local
CC      ?= cc
PKGS    := jansson sqlite3 gsl yaml-0.1
DEBPKGS := build-essential pkg-config libjansson-dev libcmocka-dev libsqlite3-dev libgsl-dev libyaml-dev iproute2 python3

WARN    := -Wall -Wextra -Wshadow -Wformat=2 -Wmissing-prototypes -Wno-format-nonliteral
CFLAGS  ?= -O2 -g
CFLAGS  += -std=c11 -D_GNU_SOURCE $(WARN) -Isrc -MMD -MP -pthread
ifeq ($(WERROR),1)
CFLAGS  += -Werror
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

.PHONY: all run test check unit e2e install clean deps san-test
all: $(BIN)

$(B)/%.o: %.c
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(PKG_CFLAGS) -c -o $@ $<

$(BIN): $(LIB_OBJS) $(MAIN_OBJ)
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

$(B)/tests/%: tests/unit/%.c $(LIB_OBJS)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(PKG_CFLAGS) $(shell pkg-config --cflags cmocka 2>/dev/null) -o $@ $< $(LIB_OBJS) \
		$(LDFLAGS) $(LDLIBS) $(shell pkg-config --libs cmocka 2>/dev/null)

# Install the Debian packages the build and the tests need, only when missing.
deps:
	@missing=""; for p in $(DEBPKGS); do \
		dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q 'ok installed' || missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then \
		echo "installing:$$missing"; \
		apt-get install -y $$missing || { apt-get update && apt-get install -y $$missing; }; \
	fi

run: deps
	@$(MAKE) --no-print-directory $(BIN)
	$(BIN) matrix scenarios/default.yaml

# The test driver builds both trees and prints one final "N passed, N failed".
test check: deps
	@WERROR=1 tests/run.sh

unit: $(UNIT_BINS)
e2e: $(BIN)

install: $(BIN)
	install -D -m 0755 $(BIN) $(DESTDIR)$(PREFIX)/bin/netregress

clean:
	rm -rf build

-include $(shell find $(B) -name '*.d' 2>/dev/null)
