# ksplice: userspace tools (bin/), the kernel core module (kmod/), tests.
include versions

CC	?= gcc
CFLAGS	?= -O2 -g
CFLAGS	+= -std=gnu11 -Wall -Wextra -Wno-unused-parameter -Wno-sign-compare \
	   -Iinclude -Isrc/lib -D_GNU_SOURCE
KDIR	?= /usr/src/linux-headers-$(KSPLICE_KERNEL_ABI)

LIB_SRCS	:= $(wildcard src/lib/*.c)
LIB_OBJS	:= $(LIB_SRCS:.c=.o)
CREATE_SRCS	:= $(wildcard src/create/*.c)
CREATE_OBJS	:= $(CREATE_SRCS:.c=.o)
TOOLS		:= bin/ksplice-create bin/ksplice-apply bin/ksplice-undo bin/ksplice-view
# Test tools the VM rig installs in the guest (tests/vm/run copies build/guest/).
GUEST_TOOLS	:= build/guest/usr/local/bin/kpeek build/guest/usr/local/bin/spawn

all: $(TOOLS) $(GUEST_TOOLS)

build/guest/usr/local/bin/%: tests/vm/%.c
	@mkdir -p $(dir $@)
	$(CC) -O2 -Wall -static -pthread -o $@ $<

src/lib/libksplice.a: $(LIB_OBJS)
	$(AR) rcs $@ $^

bin/ksplice-create: $(CREATE_OBJS) src/lib/libksplice.a
	@mkdir -p bin
	$(CC) $(CFLAGS) -o $@ $^ -lelf -larchive

bin/ksplice-%: src/ksplice-%.o src/lib/libksplice.a
	@mkdir -p bin
	$(CC) $(CFLAGS) -o $@ $^ -larchive

%.o: %.c $(wildcard include/*.h src/lib/*.h src/create/*.h)
	$(CC) $(CFLAGS) -c -o $@ $<

# The kernel core, built against the target's build dir (Kbuild).
kmod:
	$(MAKE) -C $(KDIR) M=$(CURDIR)/kmod modules

check: all
	prove -v tests/t/

# Only the update file fuzzer, for KSPLICE_FUZZ_SECONDS (default 60).
fuzz:
	prove -v tests/t/15-fuzz.t
.PHONY: fuzz

demo:
	scripts/demo

clean:
	rm -rf bin src/lib/libksplice.a $(LIB_OBJS) $(CREATE_OBJS) src/*.o
	-$(MAKE) -C $(KDIR) M=$(CURDIR)/kmod clean

.PHONY: all kmod check demo clean
