# libFuzzer harnesses (included by the top-level Makefile; tests/fuzz/).
#
#   make fuzz            build build-fuzz/fuzz_<name> (clang, ASan+UBSan)
#   make check-fuzz      each harness FUZZ_SECONDS (5) on its seed corpus:
#                        "fuzz: N passed, N failed"
#   make fuzz-long       each harness FUZZ_RUNS (10000000) executions;
#                        prints each one's count (DEVELOPMENT.md: Fuzzing)
#
# Warnings as in the gcc build, less clang's -Wformat-nonliteral for
# vprintf-style helpers gcc accepts.  The parsers are the pure layers (LIB_SRCS) plus tstack.c, whose disk
# spec parsing goes through libxlutil, and the disk layer's parser; the system libraries are not
# instrumented.  New inputs found by a run go to a scratch directory, the
# seeds in tests/fuzz/corpus/<name>/ are only read.

FUZZ_CC      ?= clang
FUZZ_BUILD   := build-fuzz
FUZZ_SAN     := -fsanitize=address,undefined -fno-sanitize-recover=all \
		-fno-omit-frame-pointer
FUZZ_CFLAGS  := -std=gnu11 $(WARN) -Wno-unused-command-line-argument \
		-Wno-format-nonliteral \
		-D_GNU_SOURCE -Iinclude $(PKG_CFLAGS) -g -O1 \
		-DXVBD_VERSION='"$(VERSION)"' \
		-DXVBD_XEN_SCRIPT_DIR='"$(XEN_SCRIPT_DIR)"' -MMD -MP \
		-fsanitize=fuzzer-no-link $(FUZZ_SAN)
FUZZ_SRCS    := $(wildcard tests/fuzz/fuzz_*.c)
FUZZ_NAMES   := $(FUZZ_SRCS:tests/fuzz/%.c=%)
FUZZ_BINS    := $(FUZZ_NAMES:%=$(FUZZ_BUILD)/%)
FUZZ_LIB_OBJS := $(LIB_SRCS:%.c=$(FUZZ_BUILD)/%.o) \
		 $(FUZZ_BUILD)/src/xen/tstack.o $(FUZZ_BUILD)/src/xen/xs.o \
		 $(FUZZ_BUILD)/src/xen/xs_path.o $(FUZZ_BUILD)/src/disk/disk_desc.o \
		 $(FUZZ_BUILD)/src/cmd/plan_disk.o
FUZZ_SECONDS ?= 5
FUZZ_RUNS    ?= 10000000
# -rss_limit_mb: a leak or a runaway allocation ends a run.
FUZZ_FLAGS   := -rss_limit_mb=1024 -timeout=10 -max_len=8192

.PHONY: fuzz check-fuzz fuzz-long

fuzz: $(FUZZ_BINS)

$(FUZZ_BUILD)/%.o: %.c
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -c -o $@ $<

$(FUZZ_BUILD)/fuzz_%: $(FUZZ_BUILD)/tests/fuzz/fuzz_%.o $(FUZZ_LIB_OBJS)
	$(FUZZ_CC) -fsanitize=fuzzer $(FUZZ_SAN) -o $@ $^ $(PKG_LIBS) -lm

# Each harness on a scratch corpus plus its seeds; libFuzzer's last line,
# "Done N runs in S second(s)", gives its executions; a failure's line
# names libFuzzer's summary and the input (check's recap repeats it).
check-fuzz fuzz-long: fuzz
	@pass=0; fail=0; \
	for n in $(FUZZ_NAMES); do \
		work=$$(mktemp -d); \
		if [ "$@" = fuzz-long ]; then lim="-runs=$(FUZZ_RUNS)"; \
		else lim="-max_total_time=$(FUZZ_SECONDS)"; fi; \
		if $(FUZZ_BUILD)/$$n $(FUZZ_FLAGS) $$lim \
			-artifact_prefix=$(FUZZ_BUILD)/crash-$$n- \
			"$$work" tests/fuzz/corpus/$${n#fuzz_} \
			>"$$work.log" 2>&1; then \
			pass=$$((pass + 1)); \
			echo "ok - $$n: $$(sed -n 's/^Done \([0-9]*\) runs in \([0-9]*\).*/\1 executions in \2 s/p' "$$work.log"), no crash"; \
		else \
			fail=$$((fail + 1)); \
			echo "not ok - $$n: $$(sed -n 's/^SUMMARY: //p' "$$work.log" | head -n 1); input (base64): $$(sed -n 's/^Base64: //p' "$$work.log" | head -n 1)"; \
			grep -v '^#' "$$work.log" | tail -n 40 | sed 's/^/#   /'; \
		fi; \
		rm -rf "$$work" "$$work.log"; \
	done; \
	echo "fuzz: $$pass passed, $$fail failed"; \
	[ $$fail -eq 0 ] && [ $$pass -gt 0 ]

-include $(FUZZ_LIB_OBJS:.o=.d) \
	 $(FUZZ_SRCS:%.c=$(FUZZ_BUILD)/%.d)
