# xvbd - paravirtual block device (VBD) tool for Xen dom0.
#
#   make                 build ./xvbd (objects in build/)
#   make SANITIZE=1      same with ASan+UBSan (objects in build-san/)
#   make check-unit      cmocka unit tests under ASan+UBSan
#   make install [PREFIX=/usr/local] [DESTDIR=]
#   make clean

PREFIX   ?= /usr/local
BINDIR   ?= $(PREFIX)/sbin
MANDIR   ?= $(PREFIX)/share/man
BASHCOMPDIR ?= $(PREFIX)/share/bash-completion/completions
VERSION  := 0.1.0

CC       ?= cc
PKGS     := xenlight xlutil xenstore yajl xentoollog xencontrol
PKG_CFLAGS := $(shell pkg-config --cflags $(PKGS))
PKG_LIBS   := $(shell pkg-config --libs $(PKGS))

CFLAGS   ?= -O2 -g
WARN     := -Wall -Wextra -Werror -Wshadow -Wformat=2
XCFLAGS  := -std=gnu11 $(WARN) -D_GNU_SOURCE -Iinclude $(PKG_CFLAGS) \
	    -DXVBD_VERSION='"$(VERSION)"' -MMD -MP
XLDFLAGS :=

ifeq ($(SANITIZE),1)
BUILD    := build-san
SANFLAGS := -fsanitize=address,undefined -fno-omit-frame-pointer \
	    -fno-sanitize-recover=all
XCFLAGS  += $(SANFLAGS)
XLDFLAGS += $(SANFLAGS)
PROG     := $(BUILD)/xvbd
else
BUILD    := build
PROG     := xvbd
endif

# Layers (pure ones first: they are what the unit tests link).
PURE_SRCS := src/util.c src/blkif.c src/blkif_table.c src/out.c \
	     src/share.c src/image.c
SYS_SRCS  := src/xs.c src/tstack.c src/vbd.c
CMD_SRCS  := src/cmd.c src/cmd_help.c src/cmd_list.c src/cmd_show.c \
	     src/cmd_attach.c src/cmd_detach.c
# start, tune, defaults: per-VBD overrides and blkback module parameters
PURE_SRCS += src/override.c src/modparam.c src/spawn.c
SYS_SRCS  += src/override_xs.c src/override_run.c src/tstack_create.c
CMD_SRCS  += src/cmd_start.c src/cmd_tune.c src/cmd_defaults.c
# stats: the sampler (sysfs, stats: pure enough for unit tests) and its source
PURE_SRCS += src/sysfs.c src/stats.c src/stats_render.c
SYS_SRCS  += src/stats_sys.c src/tstack_stats.c
CMD_SRCS  += src/cmd_stats.c
SRCS      := $(PURE_SRCS) $(SYS_SRCS) $(CMD_SRCS) src/main.c

OBJS      := $(SRCS:%.c=$(BUILD)/%.o)
PURE_OBJS := $(PURE_SRCS:%.c=$(BUILD)/%.o)

UNIT_SRCS := $(wildcard tests/unit/test_*.c)
UNIT_BINS := $(UNIT_SRCS:%.c=$(BUILD)/%)

.PHONY: all clean install check-unit unit-bins
.SECONDARY:

all: $(PROG)

$(PROG): $(OBJS)
	$(CC) $(XLDFLAGS) $(LDFLAGS) -o $@ $^ $(PKG_LIBS)

$(BUILD)/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(XCFLAGS) $(CFLAGS) $(CPPFLAGS) -c -o $@ $<

$(BUILD)/tests/unit/%: $(BUILD)/tests/unit/%.o $(PURE_OBJS)
	$(CC) $(XLDFLAGS) $(LDFLAGS) -o $@ $^ -lcmocka $(shell pkg-config --libs yajl)

unit-bins: $(UNIT_BINS)

# Each binary ends with cmocka's own summary; the last line adds them up.
# A binary that exits non-zero without reporting a failed test (crash,
# sanitizer report at exit) counts as one failure.
check-unit:
	@$(MAKE) --no-print-directory SANITIZE=1 unit-bins
	@pass=0; fail=0; \
	for t in $(UNIT_SRCS:%.c=build-san/%); do \
		out=$$(UBSAN_OPTIONS=print_stacktrace=1 ./$$t 2>&1); rc=$$?; \
		printf '%s\n' "$$out"; \
		p=$$(printf '%s\n' "$$out" | sed -n 's/^\[  PASSED  \] \([0-9][0-9]*\) test.*/\1/p' | tail -n 1); \
		f=$$(printf '%s\n' "$$out" | sed -n 's/^\[  FAILED  \] \([0-9][0-9]*\) test.*/\1/p' | tail -n 1); \
		p=$${p:-0}; f=$${f:-0}; \
		if [ $$rc -ne 0 ] && [ $$f -eq 0 ]; then f=1; fi; \
		pass=$$((pass + p)); fail=$$((fail + f)); \
	done; \
	echo "unit: $$pass passed, $$fail failed"; \
	[ $$fail -eq 0 ] && [ $$pass -gt 0 ]

install: $(PROG)
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(MANDIR)/man1 \
		$(DESTDIR)$(BASHCOMPDIR)
	install -m 0755 $(PROG) $(DESTDIR)$(BINDIR)/xvbd
	install -m 0644 man/xvbd.1 $(DESTDIR)$(MANDIR)/man1/xvbd.1
	install -m 0644 completions/xvbd $(DESTDIR)$(BASHCOMPDIR)/xvbd

clean:
	rm -rf build build-san xvbd

-include $(OBJS:.o=.d) $(UNIT_BINS:%=%.d)

-include tests/lab/lab.mk
