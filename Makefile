# xvbd - paravirtual block device (VBD) tool for Xen dom0.
#
#   make                 build ./xvbd and ./xvbd-block (objects in build/)
#   make SANITIZE=1      same with ASan+UBSan (build-san/xvbd, build-san/xvbd-block)
#                        and the lab's test hooks
#   make TEST_HOOKS=1    the normal build with the lab's test hooks
#                        (build-test/xvbd, build-test/xvbd-block)
#   make check-unit      cmocka unit tests under ASan+UBSan
#   make fuzz / check-fuzz / fuzz-long   libFuzzer harnesses (tests/fuzz/fuzz.mk)
#   make bench-ab-sequential   build/bench/ab-sequential (bench/README.md)
#   make install [PREFIX=/usr/local] [DESTDIR=] [BINDIR=] [MANDIR=]
#        [BASHCOMPDIR=] [ZSHCOMPDIR=] [LIBEXECDIR=]
#        [XEN_SCRIPT_DIR=/etc/xen/scripts]
#   make uninstall       the same variables: removes what install put there
#   make check-deb       build the Debian package, try it in the lab (debian/)
#   make clean

PREFIX   ?= /usr/local
BINDIR   ?= $(PREFIX)/sbin
MANDIR   ?= $(PREFIX)/share/man
# Debian's directories with PREFIX=/usr.
BASHCOMPDIR ?= $(PREFIX)/share/bash-completion/completions
ZSHCOMPDIR ?= $(PREFIX)/share/zsh/vendor-completions
# xvbd-block lives here; XEN_SCRIPT_DIR gets links to it (a program has no
# place in /etc: FHS, and lintian's binary-in-etc).
LIBEXECDIR ?= $(PREFIX)/libexec/xvbd
# Where libxl looks for hotplug scripts (not below PREFIX: Xen's own
# directory); xvbd attach uses xvbd-block from there when it is installed,
# so give the same value to make and to make install.
XEN_SCRIPT_DIR ?= /etc/xen/scripts
VERSION  := 0.1.0

CC       ?= cc
PKGS     := xenlight xlutil xenstore yajl xentoollog xencontrol
PKG_CFLAGS := $(shell pkg-config --cflags $(PKGS))
PKG_LIBS   := $(shell pkg-config --libs $(PKGS))

CFLAGS   ?= -O2 -g
WARN     := -Wall -Wextra -Werror -Wshadow -Wformat=2
XCFLAGS  := -std=gnu11 $(WARN) -D_GNU_SOURCE -Iinclude $(PKG_CFLAGS) \
	    -DXVBD_VERSION='"$(VERSION)"' \
	    -DXVBD_XEN_SCRIPT_DIR='"$(XEN_SCRIPT_DIR)"' -MMD -MP
XLDFLAGS :=

# The lab's fault injection (XVBD_TEST_STOP_AT, XVBD_TEST_PV_HOOK: they
# stop xvbd or xvbd-block, or run a program, as named by the environment)
# is compiled into test builds only: SANITIZE=1 (make check's lab phase)
# and TEST_HOOKS=1 (build-test/xvbd, the lab with a normal build).  Each
# has its own object directory, so no object of one reaches another; make
# install (and the .deb) refuse a build that has them.
ifeq ($(SANITIZE),1)
BUILD    := build-san
SANFLAGS := -fsanitize=address,undefined -fno-omit-frame-pointer \
	    -fno-sanitize-recover=all
XCFLAGS  += $(SANFLAGS)
XLDFLAGS += $(SANFLAGS)
PROG     := $(BUILD)/xvbd
HOTPLUG_PROG := $(BUILD)/xvbd-block
override TEST_HOOKS := 1
else ifeq ($(TEST_HOOKS),1)
BUILD    := build-test
PROG     := $(BUILD)/xvbd
HOTPLUG_PROG := $(BUILD)/xvbd-block
else
BUILD    := build
PROG     := xvbd
HOTPLUG_PROG := xvbd-block
override TEST_HOOKS := 0
endif
ifeq ($(TEST_HOOKS),1)
XCFLAGS  += -DXVBD_TEST_HOOKS
endif

# Sources by how they link (their layer is their folder: tests/layers.sh
# checks the rule, DEVELOPMENT.md's Layout states it).  LIB_SRCS link without
# libxl and libxenstore: the unit tests and fuzzers link them (they may
# still touch the host: share.c mounts, modparam.c runs modprobe);
# XEN_SRCS need the Xen libraries; CMD_SRCS are the commands.
LIB_SRCS := src/base/util.c src/base/optval.c src/base/out_rows.c src/base/vocab.c src/xen/blkif.c src/xen/blkif_table.c src/base/out.c src/base/lock.c \
	     src/dom0/share.c src/dom0/image.c src/xen/xs_path.c src/cmd/cmd_table.c src/cmd/cmd_opt.c \
	     src/base/sig.c src/base/report.c
XEN_SRCS  := src/xen/xs.c src/xen/tstack.c src/vbd/vbd.c src/dom0/loop.c
CMD_SRCS  := src/cmd/cmd.c src/cmd/cmd_help.c src/cmd/cmd_list.c src/cmd/cmd_show.c \
	     src/cmd/attach/cmd_attach.c src/cmd/cmd_detach.c src/cmd/cmd_report.c
# start, tune, defaults: per-VBD overrides and blkback module parameters
LIB_SRCS += src/vbd/override.c src/dom0/modparam.c src/base/spawn.c
XEN_SRCS  += src/vbd/override_xs.c src/vbd/override_run.c src/xen/tstack_create.c \
	     src/cmd/guest_start.c
CMD_SRCS  += src/cmd/cmd_start.c src/cmd/cmd_tune.c src/cmd/cmd_defaults.c
# stats: the sampler (sysfs, stats: pure enough for unit tests) and its source
LIB_SRCS += src/dom0/sysfs.c src/dom0/sysfs_parse.c src/stats/stats.c src/stats/stats_ring.c src/stats/stats_lat.c \
	src/stats/stats_render_lat.c \
	src/stats/stats_render.c
# JSON strings read whole (a \u0000 inside is refused, with its place)
LIB_SRCS += src/base/jsonpath.c src/cmd/plan_json.c
# workload: what the guest's benchmark printed (fio JSON/JSON+, benchfmt)
LIB_SRCS += src/base/json_err.c src/workload/fio_json.c src/workload/fio_frame.c \
	     src/workload/fio_model.c src/workload/benchfmt.c \
	     src/workload/capture.c
# ab: the A/B records (model, JSON, store)
LIB_SRCS += src/ab/ab_record.c src/ab/ab_json.c src/ab/ab_json_read.c src/ab/ab_lat.c src/ab/ab_lat_render.c \
	     src/ab/ab_store.c src/ab/ab_results_json.c src/ab/ab_results_read.c
# dom0 page cache modes of file-backed disks (attach --cache, list, show)
LIB_SRCS += src/dom0/cache.c src/vbd/attach_script.c
XEN_SRCS  += src/ab/ab_sys.c src/cmd/ab/ab_recorder.c src/cmd/ab/ab_recorder_loop.c src/cmd/ab/ab_recorder_ready.c \
	     src/cmd/ab/ab_recorder_cmd.c src/cmd/ab/ab_recorder_filedev.c \
	     src/xen/tstack_facts.c
CMD_SRCS  += src/cmd/ab/cmd_ab_record.c src/cmd/ab/cmd_ab_run.c src/cmd/ab/cmd_ab_run_hot.c \
	     src/cmd/ab/cmd_ab_run_levels.c src/cmd/ab/cmd_ab_run_exp.c \
	     src/cmd/ab/cmd_ab_run_seq.c src/cmd/ab/cmd_ab_run_plan.c
XEN_SRCS  += src/stats/stats_sys.c src/xen/tstack_stats.c
CMD_SRCS  += src/cmd/cmd_stats.c src/cmd/cmd_advise.c
# ab: the statistics of A/B experiments (pure math, needs libm)
LIB_SRCS += src/ab/ab_stat.c src/ab/ab_stat_dist.c src/ab/ab_stat_fieller.c \
	     src/ab/ab_stat_pair.c src/ab/ab_seq.c
# ab: A/B summaries, fingerprint diffs, comparison, plots, and the
# commands that read records
LIB_SRCS += src/ab/ab_fp.c src/ab/ab_fp_offer.c src/ab/ab_summary.c src/ab/ab_compare.c \
	     src/ab/ab_compare_pair.c src/ab/ab_compare_render.c src/ab/ab_plot.c src/ab/ab_plot_cdf.c \
	     src/ab/ab_verdict.c src/ab/ab_compare_words.c src/ab/ab_compare_text.c \
	     src/ab/ab_interf.c src/ab/ab_guest.c src/ab/ab_account.c src/ab/ab_svg.c \
	     src/ab/ab_pvsplit.c
# ab: experiments over k levels (order, comparison with a baseline, the
# gate, the sequential stop over k - 1 comparisons, the levels' picture)
LIB_SRCS += src/ab/ab_order.c src/ab/ab_sweep.c src/ab/ab_sweep_fam.c \
	     src/ab/ab_sweep_render.c src/ab/ab_sweep_seq.c src/ab/ab_gate.c \
	     src/ab/ab_plot_levels.c
CMD_SRCS  += src/cmd/ab/cmd_ab_common.c src/cmd/ab/cmd_ab_compare.c src/cmd/ab/cmd_ab_list.c \
	     src/cmd/ab/cmd_ab_show.c src/cmd/ab/cmd_ab_rm.c src/cmd/ab/cmd_ab_export.c \
	     src/cmd/ab/cmd_ab_plot.c
# pv: xl config text editing and the PV path verdict (pure), the file
# replaced safely (libc only: unit-tested with real files), libxlutil/libxl
LIB_SRCS += src/xen/kcmdline.c src/xen/xlcfg_edit.c src/xen/xlcfg_diff.c src/xen/pvpath.c src/base/cfgfile.c \
	     src/base/safepath.c
XEN_SRCS  += src/xen/tstack_pv.c
CMD_SRCS  += src/cmd/cmd_pv.c src/cmd/cmd_pv_status.c src/cmd/pv_file.c
# the journal of what a command has under way, and the report of what a
# killed one left
LIB_SRCS += src/base/journal.c src/base/sha256.c
# latency: the histogram (pure)
LIB_SRCS += src/base/lathist.c src/dom0/tracefs.c src/dom0/lat_trace_ring.c \
	     src/dom0/lat_trace.c src/dom0/lat_trace_spec.c src/dom0/lat_trace_read.c
# a disk's life (src/disk): the description's one parser reads xl disk
# specs with libxlutil (tstack.c), so its unit tests link DESC_OBJS
XEN_SRCS  += src/disk/disk_desc.c src/disk/disk_dom.c src/disk/disk_attach.c \
	     src/disk/disk_plan.c src/disk/disk_prepare.c src/disk/disk_add.c \
	     src/disk/disk_detach.c src/disk/disk_tune.c src/disk/disk_observe.c
# apply: the plan (unit tested with DESC_OBJS), the comparison and its
# actions
XEN_SRCS  += src/cmd/apply/apply_plan.c src/cmd/plan_disk.c
CMD_SRCS  += src/cmd/apply/cmd_apply.c src/cmd/apply/apply_run.c
CMD_SRCS  += src/cmd/journal_report.c
SRCS      := $(LIB_SRCS) $(XEN_SRCS) $(CMD_SRCS) src/cmd/main.c
# xvbd-block, the hotplug program libxl runs for raw image files: its own
# main, the loop device layer (libc only: unit-tested too), xenstore, and
# the cache mode's read-back (sysfs) for xvbd-block-direct, its other name.
LOOP_SRCS    := src/dom0/loop.c
HOTPLUG_SRCS := src/hotplug/xvbd_block.c $(LOOP_SRCS) src/xen/xs.c src/xen/xs_path.c \
		src/base/util.c src/base/optval.c src/dom0/cache.c src/dom0/sysfs.c src/dom0/sysfs_parse.c src/dom0/image.c src/base/sig.c \
		src/base/lock.c src/base/journal.c

OBJS      := $(SRCS:%.c=$(BUILD)/%.o)
LIB_OBJS := $(LIB_SRCS:%.c=$(BUILD)/%.o)
LOOP_OBJS := $(LOOP_SRCS:%.c=$(BUILD)/%.o)
HOTPLUG_OBJS := $(HOTPLUG_SRCS:%.c=$(BUILD)/%.o)

UNIT_SRCS := $(wildcard tests/unit/test_*.c)
UNIT_BINS := $(UNIT_SRCS:%.c=$(BUILD)/%)

.PHONY: all clean install uninstall check-unit check-valgrind unit-bins \
	bench-ab-sequential check-layers
.SECONDARY:

all: $(PROG) $(HOTPLUG_PROG)

$(PROG): $(OBJS)
	$(CC) $(XLDFLAGS) $(LDFLAGS) -o $@ $^ $(PKG_LIBS) -lm

$(HOTPLUG_PROG): $(HOTPLUG_OBJS)
	$(CC) $(XLDFLAGS) $(LDFLAGS) -o $@ $^ $(shell pkg-config --libs xenstore)

$(BUILD)/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(XCFLAGS) $(CFLAGS) $(CPPFLAGS) -c -o $@ $<

$(BUILD)/tests/unit/%: $(BUILD)/tests/unit/%.o $(LIB_OBJS) $(LOOP_OBJS)
	$(CC) $(XLDFLAGS) $(LDFLAGS) -o $@ $^ -lcmocka $(shell pkg-config --libs yajl) -lm $(UNIT_LIBS)

# The disk layer's parser and apply's plan: libxlutil reads xl disk specs
# (through tstack.c, as the fuzzers link it).
DESC_OBJS := $(addprefix $(BUILD)/src/,disk/disk_desc.o xen/tstack.o xen/xs.o \
	     cmd/apply/apply_plan.o cmd/plan_disk.o)
DESC_TESTS := $(BUILD)/tests/unit/test_disk_desc $(BUILD)/tests/unit/test_apply_plan
$(DESC_TESTS): $(DESC_OBJS)
$(DESC_TESTS): UNIT_LIBS = $(PKG_LIBS)
# apply reading a guest of many disks, the disk layer faked in the test
$(BUILD)/tests/unit/test_apply_many: $(DESC_OBJS) $(BUILD)/src/cmd/apply/apply_run.o
$(BUILD)/tests/unit/test_apply_many: UNIT_LIBS = $(PKG_LIBS)

# test_lock_hold makes flock fail (ENOLCK, EINTR) through a wrapper.
$(BUILD)/tests/unit/test_lock_hold: XLDFLAGS += -Wl,--wrap=flock

unit-bins: $(UNIT_BINS)

# The layer rule over every #include, and the check's own test (a planted
# upward include must fail it).
check-layers:
	@out=$$(tests/layers.sh) || { printf '%s\n' "$$out" | grep -v '^ok - '; exit 1; }; \
	printf '%s\n' "$$out" | tail -n 1
	@tests/layers-test.sh

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

# The unit tests again, the normal build under valgrind (memory errors and
# definite/indirect leaks fail; ASan cannot see uninitialised reads).
# The statistics' simulations run a tenth of their experiments here
# (tests/unit/unit_sim.h, sim_count): valgrind is after memory errors, not
# their error rates, which the sanitizer run checks at full size.
VALGRIND := valgrind -q --error-exitcode=99 --leak-check=full \
	    --errors-for-leak-kinds=definite,indirect
check-valgrind: unit-bins
	@pass=0; fail=0; \
	for t in $(UNIT_BINS); do \
		if out=$$(XVBD_UNIT_SIM_DIVISOR=10 $(VALGRIND) ./$$t 2>&1); then \
			pass=$$((pass + 1)); \
		else \
			fail=$$((fail + 1)); echo "valgrind: $$t failed:"; \
			printf '%s\n' "$$out" | tail -n 30; \
		fi; \
	done; \
	echo "valgrind: $$pass passed, $$fail failed"; \
	[ $$fail -eq 0 ] && [ $$pass -gt 0 ]

# Host-side benchmark of the sequential A/B procedure (bench/README.md).
AB_BENCH := $(BUILD)/bench/ab-sequential
AB_BENCH_OBJS := $(BUILD)/bench/ab-sequential.o $(BUILD)/src/ab/ab_stat.o \
		 $(BUILD)/src/ab/ab_stat_dist.o \
		 $(BUILD)/src/ab/ab_seq.o
bench-ab-sequential: $(AB_BENCH)

$(AB_BENCH): $(AB_BENCH_OBJS)
	$(CC) $(XLDFLAGS) $(LDFLAGS) -o $@ $^ -lm

MANPAGES := $(wildcard man/*.1)

install: $(PROG) $(HOTPLUG_PROG)
	@if [ "$(TEST_HOOKS)" = 1 ]; then \
		echo "make install: $(PROG) is a test build (its fault" \
		     "injection obeys the environment): install the normal" \
		     "build (make install, without SANITIZE or TEST_HOOKS)" >&2; \
		exit 2; \
	fi
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(MANDIR)/man1 \
		$(DESTDIR)$(BASHCOMPDIR) $(DESTDIR)$(ZSHCOMPDIR) \
		$(DESTDIR)$(LIBEXECDIR) $(DESTDIR)$(XEN_SCRIPT_DIR)
	install -m 0755 $(PROG) $(DESTDIR)$(BINDIR)/xvbd
	install -m 0755 $(HOTPLUG_PROG) $(DESTDIR)$(LIBEXECDIR)/xvbd-block
	ln -sfn $(LIBEXECDIR)/xvbd-block $(DESTDIR)$(XEN_SCRIPT_DIR)/xvbd-block
	ln -sfn xvbd-block $(DESTDIR)$(XEN_SCRIPT_DIR)/xvbd-block-direct
	install -m 0644 $(MANPAGES) $(DESTDIR)$(MANDIR)/man1/
	install -m 0644 completions/xvbd $(DESTDIR)$(BASHCOMPDIR)/xvbd
	install -m 0644 completions/_xvbd $(DESTDIR)$(ZSHCOMPDIR)/_xvbd

# Files only: the directories may be shared with other packages.
uninstall:
	rm -f $(DESTDIR)$(BINDIR)/xvbd $(DESTDIR)$(LIBEXECDIR)/xvbd-block \
		$(DESTDIR)$(XEN_SCRIPT_DIR)/xvbd-block \
		$(DESTDIR)$(XEN_SCRIPT_DIR)/xvbd-block-direct \
		$(MANPAGES:man/%=$(DESTDIR)$(MANDIR)/man1/%) \
		$(DESTDIR)$(BASHCOMPDIR)/xvbd $(DESTDIR)$(ZSHCOMPDIR)/_xvbd

clean:
	rm -rf build build-san build-test build-fuzz xvbd xvbd-block

-include $(OBJS:.o=.d) $(HOTPLUG_OBJS:.o=.d) $(UNIT_BINS:%=%.d) \
	 $(AB_BENCH_OBJS:.o=.d)

-include tests/fuzz/fuzz.mk
-include tests/lab/lab.mk
