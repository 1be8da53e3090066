# ksplice: userspace tools (bin/), the kernel core module (kmod/), tests.
include versions

CC	?= gcc
CFLAGS	?= -O2 -g
CFLAGS	+= -std=gnu11 -Wall -Wextra -Wno-unused-parameter -Wno-sign-compare \
	   -Iinclude -Isrc/lib -D_GNU_SOURCE
KDIR	?= /usr/src/linux-headers-$(KSPLICE_KERNEL_ABI)
# Recorded in each update's manifest and part of its id.
KSPLICE_VERSION	?= $(shell git describe --always --dirty 2>/dev/null || echo unknown)

LIB_SRCS	:= $(wildcard src/lib/*.c)
LIB_OBJS	:= $(LIB_SRCS:.c=.o)
CREATE_SRCS	:= $(wildcard src/create/*.c)
CREATE_OBJS	:= $(CREATE_SRCS:.c=.o)
TOOLS		:= bin/ksplice-create bin/ksplice-apply bin/ksplice-undo bin/ksplice-view \
		   bin/ksplice-uname bin/ksplice-package bin/ksplice-repo bin/ksplice-build-abis
# Installation (make install DESTDIR=...; debian/rules uses it).
prefix		?= /usr
sbindir		?= $(prefix)/sbin
bindir		?= $(prefix)/bin
datadir		?= $(prefix)/share/ksplice
mandir		?= $(prefix)/share/man
unitdir		?= /lib/systemd/system
# Test tools the VM rig installs in the guest (tests/vm/run copies build/guest/).
GUEST_TOOLS	:= $(addprefix build/guest/usr/local/bin/,kpeek spawn unamestress fsyncload asuser readvzero ioreads ptywrite pipeload getpidloop abssleep ioctlerr)

all: $(TOOLS) $(GUEST_TOOLS)

# What the packages hold: no test tools.
tools: $(TOOLS)

build/guest/usr/local/bin/%: tests/vm/%.c
	@mkdir -p $(dir $@)
	$(CC) -O2 -Wall -static -pthread -o $@ $<

src/lib/libksplice.a: $(LIB_OBJS)
	$(AR) rcs $@ $^

bin/ksplice-create: $(CREATE_OBJS) src/lib/libksplice.a
	@mkdir -p bin
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $^ -ldw -lelf -lcapstone -larchive -lcrypto -lz

bin/ksplice-apply: src/ksplice-apply.o src/lib/libksplice.a
	@mkdir -p bin
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $^ -lelf -larchive -lcrypto

bin/ksplice-view: src/ksplice-view.o src/view-json.o src/view-prom.o src/lib/libksplice.a
	@mkdir -p bin
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $^ -larchive -lcrypto -ljson-c

bin/ksplice-package: scripts/ksplice-package
	@mkdir -p bin
	cp $< $@

bin/ksplice-repo: scripts/ksplice-repo
	@mkdir -p bin
	cp $< $@

bin/ksplice-build-abis: scripts/ksplice-build-abis
	@mkdir -p bin
	cp $< $@

bin/ksplice-%: src/ksplice-%.o src/lib/libksplice.a
	@mkdir -p bin
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $^ -larchive -lcrypto

%.o: %.c $(wildcard include/*.h src/*.h src/lib/*.h src/create/*.h)
	$(CC) $(CPPFLAGS) $(CFLAGS) -c -o $@ $<

src/create/inputs.o: CFLAGS += -DKSPLICE_VERSION='"$(KSPLICE_VERSION)"'
src/create/inputs.o: .FORCE
.FORCE:

# The kernel core, built against the target's build dir (Kbuild).
kmod:
	$(MAKE) -C $(KDIR) M=$(CURDIR)/kmod modules

check: all
	prove -v --timer tests/t/

# Slower tests, not in check: headers thousands and hundreds of units
# include (the preprocessing filter at scale: some 20 and 5 minutes on 2
# cpus; check has one a few dozen include), and the core's self-test under
# all six mitigation guests (check runs three).
check-slow: all
	prove -v tests/slow/
	KSPLICE_MITIGATIONS=all prove -v tests/t/51-core-selftest-mitigations.t
.PHONY: check-slow

# Debian 12's 6.12 line (issue 14), not in check: the core's self-test
# (test 50) and its NMI test (38) built against the headers of each 6.12
# flavour of ./kernels (amd64, cloud-amd64, rt-amd64) and run on that
# kernel; and the self-test with call depth tracking on (a Skylake guest,
# retbleed=stuff) and with ITS's thunks (Skylake-Client-IBRS).  Headers
# (scripts/fetch-headers) and images are downloaded on first use (about
# 125 MB a flavour, cached); then some 2 minutes a flavour.
check-612: all
	set -e; for abi in $$(scripts/kernels list | grep '^6\.12\.'); do \
		KSPLICE_SELFTEST_KERNEL=$$abi prove -v --timer \
			tests/t/50-core-selftest.t tests/t/38-nmi.t; \
	done
	KSPLICE_SELFTEST_KERNEL=$(KSPLICE_612_ABI) KSPLICE_SELFTEST_CPU=Skylake-Client \
		KSPLICE_SELFTEST_APPEND=retbleed=stuff prove -v --timer tests/t/50-core-selftest.t
	KSPLICE_SELFTEST_KERNEL=$(KSPLICE_612_ABI) KSPLICE_SELFTEST_CPU=Skylake-Client-IBRS \
		KSPLICE_SELFTEST_APPEND='spectre_v2=ibrs indirect_target_selection=force' \
		prove -v --timer tests/t/50-core-selftest.t
.PHONY: check-612

# Only the update file fuzzer, for KSPLICE_FUZZ_SECONDS (default 60).
fuzz:
	prove -v tests/t/15-fuzz.t
.PHONY: fuzz

# The stress test at full length: 1,000 applies and undos under 256 uname
# threads and an fsync workload (about 20 minutes on TCG); CI runs 30.
stress: all
	KSPLICE_STRESS_CYCLES=$${KSPLICE_STRESS_CYCLES:-1000} prove -v tests/t/47-uname-stress-256.t

# The stop_machine pause with about 10, 1,000 and 10,000 tasks, and with
# updates of 1, 10 and 100 functions (and apply latency end to end).
pause: all
	bench/pause $(PAUSE_RUNS)
	bench/pause-size

# The benchmarks, each printing a table (not part of check; one to two
# hours here): the per-call cost of ksplice's jmp next to livepatch's, the full
# build ksplice-create avoids, create time cold and warm for a one-file and
# a header fix, the pause with 10 to 10,000 tasks, and memory.
bench: all
	bench/per-call $(PERCALL_ROUNDS)
	bench/build-time
	bench/create-time examples/cmdline.patch 3
	bench/create-time tests/patches/xacct.patch 3
	bench/pause $(PAUSE_RUNS)
	bench/pause-size
	bench/memory
.PHONY: bench

# bench/coverage over all of Debian's update KSPLICE_COVERAGE_RANGE (hours;
# a rerun resumes, also on another machine: --save keeps the rows in
# bench/results/, to commit); COVERAGE_ARGS adds options, e.g. --sample 100
# --seed 2, or --retry failed.
# Its two creates at a time each get a copy of the prepared tree.
coverage: all
	KSPLICE_TREE_COPIES=2 bench/coverage $(KSPLICE_COVERAGE_RANGE) --save $(COVERAGE_ARGS)

# The tables of the runs saved in bench/results/ (no run: seconds).
coverage-report:
	@for d in bench/results/*/; do [ -s "$$d/results.tsv" ] && bench/coverage --report "$$d" && echo; done; true

# The second range, on the older kernel, sampled (COVERAGE2_SAMPLE, default
# 40): code not tuned to, to show the first range's figure holds.
COVERAGE2_SAMPLE ?= 40
coverage2: all
	bench/coverage $(KSPLICE_COVERAGE2_RANGE) --kernel $(KSPLICE_COVERAGE2_KERNEL_ABI) \
		--sample $(COVERAGE2_SAMPLE) --seed 1 --save $(COVERAGE_ARGS)

# The target's tools (package ksplice) and the builder's (ksplice-create):
# ksplice-create finds the core's source, its header and fetch-source in
# $(datadir), and include/ksplice/hooks.h, the patch author's header, which
# it puts on the path of the units it compiles.  The core itself needs no
# installing: every update file carries the ksplice.ko built for its kernel.
install: install-target install-create

install-target: $(TOOLS)
	install -d $(DESTDIR)$(sbindir) $(DESTDIR)$(bindir) \
		$(DESTDIR)$(mandir)/man1 $(DESTDIR)$(mandir)/man8 \
		$(DESTDIR)$(unitdir) $(DESTDIR)/var/lib/ksplice/updates
	install -m 755 bin/ksplice-apply bin/ksplice-undo $(DESTDIR)$(sbindir)
	install -m 755 bin/ksplice-view bin/ksplice-uname $(DESTDIR)$(bindir)
	install -m 644 man/ksplice-apply.8 man/ksplice-undo.8 $(DESTDIR)$(mandir)/man8
	install -m 644 man/ksplice-view.1 man/ksplice-uname.1 $(DESTDIR)$(mandir)/man1
	install -m 644 systemd/ksplice.service $(DESTDIR)$(unitdir)

install-create: $(TOOLS)
	install -d $(DESTDIR)$(bindir) $(DESTDIR)$(datadir)/kmod \
		$(DESTDIR)$(datadir)/include $(DESTDIR)$(datadir)/include/ksplice \
		$(DESTDIR)$(datadir)/scripts \
		$(DESTDIR)$(mandir)/man1
	install -m 755 bin/ksplice-create bin/ksplice-package bin/ksplice-repo \
		bin/ksplice-build-abis $(DESTDIR)$(bindir)
	install -m 644 kmod/Kbuild kmod/*.c kmod/*.h $(DESTDIR)$(datadir)/kmod
	install -m 644 include/ksplice-*.h $(DESTDIR)$(datadir)/include
	install -m 644 include/ksplice/hooks.h $(DESTDIR)$(datadir)/include/ksplice
	install -m 755 scripts/fetch-source $(DESTDIR)$(datadir)/scripts
	install -m 644 versions $(DESTDIR)$(datadir)
	install -m 644 man/ksplice-create.1 man/ksplice-package.1 man/ksplice-repo.1 \
		man/ksplice-build-abis.1 \
		$(DESTDIR)$(mandir)/man1

demo:
	scripts/demo

clean:
	rm -rf bin src/lib/libksplice.a $(LIB_OBJS) $(CREATE_OBJS) src/*.o
	-$(MAKE) -C $(KDIR) M=$(CURDIR)/kmod clean

.PHONY: all tools install install-target install-create kmod check stress pause coverage coverage-report coverage2 demo clean
