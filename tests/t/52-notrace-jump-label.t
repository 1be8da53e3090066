#!/bin/bash
# A changed function with no ftrace site whose jump goes over a jump label:
# raise_softirq_irqoff (kernel/softirq.c, `inline`, so notrace) has the
# softirq_raise tracepoint's 2-byte site at +3.  The core pins the site
# while the jump is in (its jump_entry's init bit, which jump_label.c skips
# after boot): the tracepoint is switched on and off while the update is
# applied, the kernel leaves the pinned site alone (it BUG()s on bytes it
# does not expect), and undo writes the site's form for the key's state at
# that moment, which differs from the state at apply in both rounds:
#  (a) applied with the event off, undone with it on;
#  (b) applied with it on, undone with it off;
#  (c) a second update stacked on (a)'s (built from the source with its
#      patch) replaces the jump over the pinned site and traces vec+0x4b60;
#      the bottom one's undo is refused while it stands; its undo brings
#      back the bottom one's jump, still pinned; the bottom one's undo
#      unpins.
# The new raise_softirq_irqoff traces vec+0x4b50: loopback pings raise
# NET_RX (vec=3) through it, so the trace says which code ran.  After each
# undo the kernel rewrites the site again as the key changes (unpinned).
# A failed apply (a task asleep in pipe_read, changed by the same update)
# leaves the site unpinned and unchanged.  touch_buffer (fs/buffer.c,
# `inline`) has its 2-byte site at +4, past the jump's end: refused as
# unpatchable with a clear message, nothing changed, the site still the
# kernel's.
. "$(dirname "$0")/../lib/tap.sh"
. "$KSPLICE_TOP/tests/lib/update.sh"
set -u
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT

plan 57
src=$(ksplice_source)
sed_patch "$src" kernel/softirq.c "$tmp/softirq.patch" \
	-e '/^inline void raise_softirq_irqoff(unsigned int nr)$/,/^}/s/^\t__raise_softirq_irqoff(nr);$/\tlockdep_assert_irqs_disabled();\n\ttrace_softirq_raise(nr + 0x4b50);\n\tor_softirq_pending(1UL << nr);/' ||
	bail "the softirq edit does not fit this source"
cat "$tmp/softirq.patch" "$KSPLICE_TOP/tests/patches/pipe_read.patch" >"$tmp/jl.patch"
sed_patch "$src" fs/buffer.c "$tmp/tb.patch" \
	-e '/^inline void touch_buffer(struct buffer_head \*bh)$/,/^}/s/^\tmark_page_accessed(bh->b_page);$/&\n\tcpu_relax();/' ||
	bail "the buffer edit does not fit this source"

jl=$(make_update "$tmp/jl.patch" jl)
ok $? "ksplice-create builds the update of raise_softirq_irqoff and pipe_read"
[ -s "$jl" ] || { sed 's/^/# /' "$tmp/create-jl.log"; bail "no update file"; }
like "$(cat "$tmp/create-jl.log")" 'changed function: raise_softirq_irqoff' "raise_softirq_irqoff changed"
psrc=$(patched_source "$tmp/softirq.patch") || bail "cannot make the patched source"
sed_patch "$psrc" kernel/softirq.c "$tmp/jl2.patch" -e 's/trace_softirq_raise(nr + 0x4b50);/trace_softirq_raise(nr + 0x4b60);/' ||
	bail "the second softirq edit does not fit"
jl2=$(make_update "$tmp/jl2.patch" jl2 "$psrc")
ok $? "ksplice-create builds the update on top of it"
[ -s "$jl2" ] || { sed 's/^/# /' "$tmp/create-jl2.log"; bail "no update file"; }
tb=$(make_update "$tmp/tb.patch" tb)
ok $? "ksplice-create builds the update of touch_buffer"
[ -s "$tb" ] || { sed 's/^/# /' "$tmp/create-tb.log"; bail "no update file"; }

# Output goes to files, never through a pipe, while cat sleeps in pipe_read.
out=$(vm --file "$jl" --file "$jl2" --file "$tb" -- '
	T=/sys/kernel/tracing
	[ -e $T/trace ] || mount -t tracefs nodev $T
	ip link set lo up
	ev=$T/events/irq/softirq_raise/enable
	site() { kpeek raise_softirq_irqoff 5; }
	# NET_RX raises of two loopback pings: the stock event, the new ones
	raises() {
		: >$T/trace
		ping -c 2 -W 1 127.0.0.1 >/dev/null 2>&1
		echo "stock=$(grep -c "softirq_raise: vec=3 " $T/trace) new=$(grep -c "softirq_raise: vec=19283 " $T/trace) new2=$(grep -c "softirq_raise: vec=19299 " $T/trace)"
	}
	echo "STOCK-OFF: $(site)"
	echo 1 >$ev; echo "STOCK-ON: $(site) $(raises)"
	echo 0 >$ev; echo "STOCK-OFF-AGAIN: $(site)"

	sleep 600 | cat >/dev/null &
	sleep 1
	ksplice-apply --max-tries 2 --retry-interval 200 ksplice-jl.tar.gz >/tmp/busy 2>&1
	echo "BUSY-APPLY=$?"
	sed "s/^/BUSY: /" /tmp/busy
	kill $(pidof sleep); wait
	echo "BUSY-SITE: $(site)"
	echo 1 >$ev; echo "BUSY-ON: $(site)"
	echo 0 >$ev; echo "BUSY-OFF: $(site)"

	ksplice-apply ksplice-jl.tar.gz >/tmp/a 2>&1; echo "A-APPLY=$?"
	echo "A-APPLIED: $(site)"
	echo 1 >$ev; echo "A-ON: $(site) $(raises)"
	echo 0 >$ev; echo "A-OFF: $(site)"
	echo 1 >$ev
	ksplice-undo jl >/tmp/u 2>&1; echo "A-UNDO=$?"
	echo "A-UNDONE: $(site) $(raises)"
	echo 0 >$ev; echo "A-UNDONE-OFF: $(site)"

	echo 1 >$ev
	ksplice-apply ksplice-jl.tar.gz >/tmp/b 2>&1; echo "B-APPLY=$?"
	echo "B-APPLIED: $(site) $(raises)"
	echo 0 >$ev; echo "B-OFF: $(site)"
	ksplice-undo jl >/tmp/u 2>&1; echo "B-UNDO=$?"
	echo "B-UNDONE: $(site)"
	echo 1 >$ev; echo "B-UNDONE-ON: $(site) $(raises)"
	echo 0 >$ev

	ksplice-apply ksplice-jl.tar.gz >/tmp/c 2>&1; echo "C-APPLY=$?"
	echo "C-APPLIED: $(site)"
	ksplice-apply ksplice-jl2.tar.gz >/tmp/c2 2>&1; echo "C-APPLY2=$?"
	sed "s/^/C2: /" /tmp/c2
	echo "C-APPLIED2: $(site)"
	echo 1 >$ev; echo "C-ON: $(site) $(raises)"
	ksplice-undo jl >/tmp/cu 2>&1; echo "C-UNDO-BOTTOM=$?"
	ksplice-undo jl2 >/tmp/u 2>&1; echo "C-UNDO2=$?"
	echo "C-UNDONE2: $(site) $(raises)"
	echo 0 >$ev; echo "C-OFF: $(site)"
	ksplice-undo jl >/tmp/u 2>&1; echo "C-UNDO=$?"
	echo "C-UNDONE: $(site)"
	echo 1 >$ev; echo "C-UNDONE-ON: $(site) $(raises)"
	echo 0 >$ev

	tbev=$T/events/block/block_touch_buffer/enable
	echo "TB-STOCK: $(kpeek touch_buffer 6)"
	ksplice-apply ksplice-tb.tar.gz >/tmp/tb 2>&1; echo "TB-APPLY=$?"
	sed "s/^/TB: /" /tmp/tb
	echo "TB-AFTER: $(kpeek touch_buffer 6)"
	echo 1 >$tbev; echo "TB-ON: $(kpeek touch_buffer 6)"
	echo 0 >$tbev; echo "TB-OFF: $(kpeek touch_buffer 6)"
	dmesg | grep "ksplice: raise_softirq_irqoff: jump label" | sed "s/^\[[^]]*\] /PIN: /"
	dmesg | grep -E "Oops|BUG|WARNING:|general protection|Call Trace|jump_label" | sed "s/^/DMESG: /"
' 2>&1)
ok $? "the guest ran the scenario (the rig exited 0: no boot failure, crash or timeout)"
diag "$(printf '%s\n' "$out" | grep -E '^[A-Z-]+(:|=)' | grep -v '^DMESG' | head -60)"
field() { printf '%s\n' "$out" | sed -n "s/^$1: \([0-9a-f]*\).*/\1/p" | head -n 1; }
off=$(field STOCK-OFF) on=$(field STOCK-ON)

# The site as the kernel writes it: 5389fb (push %rbx; mov %edi,%ebx),
# then the 2-byte nop, or the 2-byte jmp to the tracing code.
like "$off" '^[0-9a-f]{6}6690$' "stock, event off: a 2-byte nop at raise_softirq_irqoff+3"
like "$on" '^[0-9a-f]{6}eb[0-9a-f]{2}$' "stock, event on: the kernel writes a 2-byte jmp there"
like "$out" 'STOCK-ON: [0-9a-f]+ stock=2 new=0 new2=0' "stock, event on: two NET_RX raises traced, stock (vec=3)"
is "$(field STOCK-OFF-AGAIN)" "$off" "stock, event off again: the nop again"

like "$out" 'BUSY-APPLY=[1-9]' "apply fails while cat sleeps in pipe_read, changed by the same update"
like "$out" 'BUSY: .*(code_busy|running the code)' "  because the code is busy"
is "$(field BUSY-SITE)" "$off" "  raise_softirq_irqoff is unchanged"
is "$(field BUSY-ON)" "$on" "  and not left pinned: the kernel writes the jmp as the event goes on"
is "$(field BUSY-OFF)" "$off" "  and the nop as it goes off"

like "$out" 'A-APPLY=0' "(a) applied with the event off"
applied=$(field A-APPLIED)
like "$applied" '^e9' "(a) the jump is at raise_softirq_irqoff, over the site"
like "$out" 'A-ON: [0-9a-f]+ stock=0 new=2 new2=0' "(a) event on while applied: the new code traces vec+0x4b50, the old never runs"
is "$(field A-ON)" "$applied" "(a) the kernel did not rewrite the pinned site as the event went on"
is "$(field A-OFF)" "$applied" "(a) nor as it went off"
like "$out" 'A-UNDO=0' "(a) undone with the event on"
is "$(field A-UNDONE)" "$on" "(a) undo wrote the site's form for the key's state then: the kernel's jmp, not the nop it was applied over"
like "$out" 'A-UNDONE: [0-9a-f]+ stock=2 new=0 new2=0' "(a) after undo the stock code traces again"
is "$(field A-UNDONE-OFF)" "$off" "(a) after undo the kernel rewrites the site as the event goes off: unpinned"

like "$out" 'B-APPLY=0' "(b) applied with the event on, over the jmp"
applied=$(field B-APPLIED)
like "$applied" '^e9' "(b) the jump is there, over the kernel's jmp"
like "$out" 'B-APPLIED: [0-9a-f]+ stock=0 new=2 new2=0' "(b) the new code traces"
is "$(field B-OFF)" "$applied" "(b) the kernel did not rewrite the pinned site as the event went off"
like "$out" 'B-UNDO=0' "(b) undone with the event off"
is "$(field B-UNDONE)" "$off" "(b) undo wrote the nop, the key's state then, not the jmp it was applied over"
is "$(field B-UNDONE-ON)" "$on" "(b) after undo the kernel rewrites the site as the event goes on: unpinned"
like "$out" 'B-UNDONE-ON: [0-9a-f]+ stock=2 new=0 new2=0' "(b) and the stock code traces"

like "$out" 'C-APPLY=0' "(c) the bottom update applied again"
applied=$(field C-APPLIED) top=$(field C-APPLIED2)
like "$out" 'C-APPLY2=0' "(c) the update on top of it applies"
like "$top" '^e9' "(c) its jump is at raise_softirq_irqoff"
[ -n "$applied" ] && [ "$top" != "$applied" ]; ok $? "(c) and it is not the bottom update's"
like "$out" 'C-ON: [0-9a-f]+ stock=0 new=0 new2=2' "(c) event on: the top update's code traces, no other"
is "$(field C-ON)" "$top" "(c) the kernel did not rewrite the site under it"
like "$out" 'C-UNDO-BOTTOM=[1-9]' "(c) the bottom update's undo is refused while the other stands on it"
like "$out" 'C-UNDO2=0' "(c) the top update's undo succeeds"
like "$out" 'C-UNDONE2: [0-9a-f]+ stock=0 new=2 new2=0' "(c) the bottom update's code traces again"
is "$(field C-OFF)" "$applied" "(c) its jump is back and the site still pinned: the event going off did not touch it"
like "$out" 'C-UNDO=0' "(c) the bottom update's undo succeeds"
is "$(field C-UNDONE)" "$off" "(c) the nop, the key's state, is back"
like "$out" 'C-UNDONE-ON: [0-9a-f]+ stock=2 new=0 new2=0' "(c) unpinned: the event goes on and the stock code traces"

is "$(printf '%s\n' "$out" | grep -c '^PIN: ksplice: raise_softirq_irqoff: jump label at raise_softirq_irqoff+0x3/0x[0-9a-f]* pinned under the jump$')" 3 \
	"the kernel log says the site was pinned at each apply of the bottom update (not at the failed one, not by the top one)"
is "$(printf '%s\n' "$out" | grep -c '^PIN: ksplice: raise_softirq_irqoff: jump label at raise_softirq_irqoff+0x3/0x[0-9a-f]* unpinned, in its key.s state$')" 3 \
	"  and unpinned at each of its undos"

tbs=$(field TB-STOCK)
like "$tbs" '^[0-9a-f]{8}6690$' "touch_buffer: a 2-byte nop at +4, past the 5 bytes of a jump"
like "$out" 'TB-APPLY=[1-9]' "touch_buffer's update is refused"
like "$out" "TB: .*touch_buffer: the jump label at touch_buffer\+0x4/0x[0-9a-f]+ runs past the jump's 5 bytes, and no ftrace site" \
	"  saying where and why"
like "$out" 'TB: .*(unpatchable|cannot be redirected)' "  as unpatchable"
is "$(field TB-AFTER)" "$tbs" "  touch_buffer is unchanged"
like "$(field TB-ON)" '^[0-9a-f]{8}eb[0-9a-f]{2}$' "  and its site still the kernel's: the jmp as the event goes on"
is "$(field TB-OFF)" "$tbs" "  and the nop as it goes off"

unlike "$out" '^DMESG' "no oops, BUG, warning or jump label complaint in the kernel log"
like "$out" '^PIN: ' "  (the kernel log was read)"
# A BUG() in jump_label.c would have crashed the guest: the rig says so.
unlike "$out" 'vm: guest kernel crashed' "the guest did not crash"
like "$out" 'B-UNDONE-ON' "  and ran the scenario to its end"
