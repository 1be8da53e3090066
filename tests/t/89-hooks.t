#!/bin/bash
# The patch author's hooks and shadow data (include/ksplice/hooks.h), in
# one update of three units (tests/patches/hooks.patch), in one boot:
#  - fs/proc/cmdline.c registers a hook of each kind; each counts its runs
#    (the new /proc/cmdline shows the counts) and logs them in order.  Its
#    pre-apply hook refuses while the domainname is ksplice-refuse: the
#    apply fails with the hook's message and nothing changed; its pre-undo
#    hook refuses while it is ksplice-keep: the update stays applied.
#    Hooks run in order, undo hooks in the mirror order, only paired; a
#    reader of /proc/cmdline never sees the new code before the stop-apply
#    hook ran (they are one step).
#  - fs/pipe.c raises pipe_max_size's initial value, which ksplice-create
#    refuses without hooks, with stop-apply and stop-undo hooks that set
#    the running variable (the sysctl shows it); and keeps a new field of
#    struct pipe_inode_info (its creator) in shadow data: 1,000 pipes made
#    and freed while applied, 1,000 held open across the undo (the
#    post-undo hook frees their shadows), and pipes churned throughout;
#    every shadow allocated is freed exactly once, none is corrupt.
#  - lib/crc8.c (the module crc8, not loaded at apply): its hooks run when
#    it loads, their mirror when it unloads, again when it reloads, and
#    the undo ones at undo; its pre-apply hook refusing (on a domainname)
#    refuses the module's load, and no other hook of it runs; with crc8
#    loaded, it refuses a whole apply after vmlinux's pre-apply hooks
#    passed: their mirror (post-undo) runs, nothing else.
#  - the update module unloaded by force (rmmod -f) while the pre-undo
#    hook refuses: the undo goes on (the code is going), every object's
#    stop-undo and post-undo hooks run, and the log says so.
. "$(dirname "$0")/../lib/tap.sh"
. "$KSPLICE_TOP/tests/lib/update.sh"
set -u
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT

plan 57
upd=$(make_update "$KSPLICE_TOP/tests/patches/hooks.patch" hooks)
ok $? "ksplice-create builds the update with hooks"
[ -s "$upd" ] || { sed 's/^/# /' "$tmp/create-hooks.log" | tail -30; bail "no update file"; }
log=$(cat "$tmp/create-hooks.log")
like "$log" 'hook: pre-apply cmdline_pre_apply \(fs/proc/cmdline.c:[0-9]+\)' "ksplice-create lists the hooks"
like "$log" 'changed data: pipe_max_size: its initial value is left to the patch.s hooks' \
	"the changed initial value is accepted because the unit has apply hooks"

# The same data change without the hooks is refused (tests/t/25 has more).
# (registrations blanked, so the hunks keep their lengths)
sed -e 's/^+KSPLICE_[A-Z_]*(pipe_[a-z_]*);$/+/' \
	"$KSPLICE_TOP/tests/patches/hooks.patch" | awk '/^diff -ru a\/fs\/proc/ { skip = 1 } /^diff -ru a\/lib/ { skip = 1 } /^diff -ru a\/fs\/pipe/ { skip = 0 } !skip' \
	>"$tmp/nohooks.patch"
mkdir -p "$tmp/nh"
out=$(ksplice-create --build "$KSPLICE_BUILD" --patch "$tmp/nohooks.patch" --id nohooks \
	-o "$tmp/nh" "$(ksplice_source)" 2>&1)
rc=$?
ok $([ "$rc" != 0 ]; echo $?) "without the hooks the same change of pipe_max_size is refused (exit $rc)"
like "$out" 'changes 1 existing variable' "  as a changed variable"

out=$(vm --timeout 400 --module crc8 --file "$upd" -- '
	dn() { echo "$1" >/proc/sys/kernel/domainname; }
	hooklog() { dmesg | sed -n "s/^.*ksplice-test-hook: //p" | sed "s/ #.*//" | tr "\n" "|"; }
	echo "MAX0 $(cat /proc/sys/fs/pipe-max-size)"
	dn ksplice-refuse
	ksplice-apply ksplice-hooks.tar.gz >/tmp/a 2>&1; echo "REFUSE-STATUS=$?"
	sed "s/^/REFUSE: /" /tmp/a
	echo "CMD1 $(cat /proc/cmdline)"
	echo "MAX1 $(cat /proc/sys/fs/pipe-max-size)"
	ksplice-view 2>&1 | sed "s/^/VIEW1: /"
	echo "LOG1 $(hooklog)"
	dmesg -c >/dev/null
	dn ksplice-ok
	(while [ ! -e /tmp/stopr ]; do read l </proc/cmdline; echo "$l"; done >/tmp/reads) & r=$!
	ksplice-apply ksplice-hooks.tar.gz >/tmp/a 2>&1; echo "APPLY-STATUS=$?"
	touch /tmp/stopr; wait $r
	echo "READS $(wc -l </tmp/reads) new=$(grep -c hooks= /tmp/reads) early=$(grep -c "hooks=[0-9]*,0," /tmp/reads)"
	sed "s/^/APPLY: /" /tmp/a
	echo "CMD2 $(cat /proc/cmdline)"
	echo "MAX2 $(cat /proc/sys/fs/pipe-max-size)"
	ksplice-view 2>&1 | sed "s/^/VIEW2: /"
	touch /tmp/go1; pipeload hold 1000 /tmp/go1 | sed "s/^/P1 /"
	pipeload hold 1000 /tmp/go2 >/tmp/p2 & p2=$!
	pipeload churn /tmp/stop >/tmp/p3 & p3=$!
	while ! grep -q PIPES-OPEN /tmp/p2; do sleep 0.1; done
	dn ksplice-nocrc8
	modprobe crc8 2>/dev/null; echo "REFUSED-LOAD=$?"
	lsmod | grep -q "^crc8 " && echo "CRC8-LOADED-ANYWAY"
	dmesg | grep "cannot patch module crc8" | sed "s/^.*\] /REFUSED-LOG /"
	dn ksplice-ok
	modprobe crc8; echo "LOAD1=$?"
	rmmod crc8; echo "RMMOD=$?"
	modprobe crc8; echo "LOAD2=$?"
	dn ksplice-keep
	ksplice-undo hooks >/tmp/u 2>&1; echo "KEEP-STATUS=$?"
	sed "s/^/KEEP: /" /tmp/u
	echo "STAGE3 $(cat /sys/kernel/ksplice/hooks/stage)"
	echo "CMD3 $(cat /proc/cmdline)"
	dn ksplice-ok
	ksplice-undo hooks >/tmp/u 2>&1; echo "UNDO-STATUS=$?"
	sed "s/^/UNDO: /" /tmp/u
	echo "CMD4 $(cat /proc/cmdline)"
	echo "MAX4 $(cat /proc/sys/fs/pipe-max-size)"
	touch /tmp/go2 /tmp/stop; wait $p2; echo "P2-STATUS=$?"; wait $p3; echo "P3-STATUS=$?"
	sed "s/^/P2 /" /tmp/p2; sed "s/^/P3 /" /tmp/p3
	echo "LOG2 $(hooklog)"
	dmesg | sed -n "s/^.*ksplice-test-hook: pipe-shadow/SHADOW/p"
	dmesg -c >/dev/null
	lsmod | grep -q "^crc8 " && echo CRC8-PRESENT
	dn ksplice-nocrc8
	ksplice-apply ksplice-hooks.tar.gz >/tmp/a 2>&1; echo "SECOND-STATUS=$?"
	sed "s/^/SECOND: /" /tmp/a
	echo "CMD5 $(cat /proc/cmdline)"
	echo "MAX5 $(cat /proc/sys/fs/pipe-max-size)"
	echo "LOG3 $(hooklog)"
	dmesg -c >/dev/null
	dn ksplice-ok
	ksplice-apply ksplice-hooks.tar.gz >/tmp/a 2>&1; echo "THIRD-STATUS=$?"
	echo "CMD6 $(cat /proc/cmdline)"
	dn ksplice-keep
	rmmod -f ksplice_hooks; echo "FORCE-STATUS=$?"
	lsmod | grep -q "^ksplice_hooks " && echo "FORCE-STILL-LOADED"
	echo "CMD7 $(cat /proc/cmdline)"
	echo "MAX7 $(cat /proc/sys/fs/pipe-max-size)"
	echo "LOG4 $(hooklog)"
	dmesg | grep "unloaded by force" | sed "s/^.*\] /FORCE-LOG /"
	dn ksplice-ok
	dmesg | grep -E "Oops|BUG:|WARNING:|general protection|refcount|leak" | sed "s/^/DMESG: /"
' 2>"$tmp/vm.err")
status=$?
diag "$out"
[ -s "$tmp/vm.err" ] && diag "$(head -40 "$tmp/vm.err")"
ok "$status" "the guest ran the commands and did not crash (rig status $status)"

# A refusing pre-apply hook: nothing changed.
like "$out" 'REFUSE-STATUS=[1-9]' "a pre-apply hook refuses: ksplice-apply fails"
like "$out" 'REFUSE: .*pre-apply hook refused.*domainname is ksplice-refuse' "  with the hook's message"
unlike "$out" 'CMD1 .*hooks=' "  /proc/cmdline is the stock one"
like "$out" 'MAX0 1048576' "pipe-max-size is stock before"
like "$out" 'MAX1 1048576' "  and after the refused apply"
unlike "$out" 'VIEW1: .*applied' "  ksplice-view shows nothing applied"
is "$(sed -n 's/^LOG1 //p' <<<"$out")" "cmdline pre-apply refuses|" \
	"  and no other hook ran (no mirror of the refusing object's pre-apply)"

# Apply.
like "$out" 'APPLY-STATUS=0' "with another domainname the apply succeeds"
like "$out" 'CMD2 .* hooks=1,1,1,0,0,0$' "  the new /proc/cmdline: pre-, stop- and post-apply ran once each"
like "$out" 'MAX2 2097152' "  the stop-apply hook set the running pipe_max_size to the new initial value"
like "$out" 'VIEW2: .*hooks.*applied' "  ksplice-view shows it applied"
like "$out" 'READS [0-9]+ new=[1-9]' "a reader of /proc/cmdline during the apply saw the new code"
like "$out" 'READS [0-9]+ new=[0-9]+ early=0$' "  never before the stop-apply hook ran (one step with the jump)"
like "$out" 'P1 PIPES-CLOSED n=1000 ok=1000' "1,000 pipes made and freed while applied work"
like "$out" 'REFUSED-LOAD=[1-9]' "crc8's pre-apply hook refuses: the module does not load"
unlike "$out" 'CRC8-LOADED-ANYWAY' "  it is not loaded"
like "$out" 'REFUSED-LOG .*crc8.*refused.*domainname is ksplice-nocrc8' "  the kernel log says why"
like "$out" 'LOAD1=0' "crc8 loads while applied when its hook lets it"
like "$out" 'RMMOD=0' "  unloads"
like "$out" 'LOAD2=0' "  and loads again"

# A refusing pre-undo hook.
like "$out" 'KEEP-STATUS=[1-9]' "a pre-undo hook refuses: ksplice-undo fails"
like "$out" 'KEEP: .*pre-undo hook refused.*domainname is ksplice-keep' "  with the hook's message"
like "$out" 'STAGE3 applied' "  the update stays applied"
like "$out" 'CMD3 .* hooks=1,1,1,0,0,0$' "  no undo hook of that object ran"

# Undo.
like "$out" 'UNDO-STATUS=0' "undo succeeds"
unlike "$out" 'CMD4 .*hooks=' "  /proc/cmdline is stock again"
like "$out" 'MAX4 1048576' "  the stop-undo hook put pipe_max_size back"
like "$out" 'P2-STATUS=0' "1,000 pipes held open across the undo are intact"
like "$out" 'P3-STATUS=0' "pipes churned throughout are intact"
like "$out" 'P3 PIPES-CHURNED n=[1-9]' "  (some were churned)"

expect='cmdline pre-apply|cmdline stop-apply|cmdline post-apply|'
expect+='crc8 pre-apply refuses|'
expect+='crc8 pre-apply|crc8 stop-apply|crc8 post-apply|'
expect+='crc8 pre-undo|crc8 stop-undo|crc8 post-undo|'
expect+='crc8 pre-apply|crc8 stop-apply|crc8 post-apply|'
expect+='cmdline pre-undo refuses|'
expect+='cmdline pre-undo|crc8 pre-undo|'
expect+='cmdline stop-undo|crc8 stop-undo|'
expect+='cmdline post-undo|crc8 post-undo|'
# (the guest's modprobe tried the load twice here: each try is refused)
is "$(sed -n 's/^LOG2 //p' <<<"$out" | sed -e 's/pipe-shadow[^|]*|//' \
	-e 's/\(crc8 pre-apply refuses|\)\{1,\}/\1/')" "$expect" \
	"hooks ran in order, per object, on crc8's (refused) load and unload, undo in the mirror order, only paired"
like "$(sed -n 's/^LOG2 //p' <<<"$out")" 'cmdline post-undo\|pipe-shadow[^|]*\|crc8 post-undo\|$' \
	"  the pipe unit's post-undo hook ran between cmdline's and crc8's"

shadow=$(sed -n 's/^SHADOW //p' <<<"$out")
read -r a r u b n <<<"$(sed 's/[a-z-]*=//g' <<<"$shadow")"
diag "shadow: $shadow"
ok $([ "${u:-0}" -ge 1000 ]; echo $?) "the post-undo hook freed the shadows of the 1,000 pipes held open (${u:-?})"
ok $([ "${r:-0}" -ge 1000 ]; echo $?) "  pipes freed while applied freed theirs (${r:-?})"
ok $([ -n "${a:-}" ] && [ "$a" = $((r + u)) ]; echo $?) \
	"  every shadow allocated was freed once: no leak (allocated ${a:-?} = ${r:-?} + ${u:-?})"
is "${b:-x}" 0 "  no shadow was corrupt or another's"
# A refusal in the second of two objects (crc8, loaded) rolls back the
# first's: vmlinux's pre-apply hooks ran, so its post-undo hooks run.
like "$out" 'CRC8-PRESENT' "crc8 is loaded for a second apply"
like "$out" 'SECOND-STATUS=[1-9]' "  its pre-apply hook refuses that apply"
like "$out" 'SECOND: .*crc8: pre-apply hook refused.*domainname is ksplice-nocrc8' "  with its message"
unlike "$out" 'CMD5 .*hooks=' "  /proc/cmdline is stock"
like "$out" 'MAX5 1048576' "  pipe_max_size is stock"
is "$(sed -n 's/^LOG3 //p' <<<"$out" | sed -e 's/pipe-shadow[^|]*|//')" \
	'cmdline pre-apply|crc8 pre-apply refuses|cmdline post-undo|' \
	"  vmlinux's pre-apply ran, then its mirror post-undo; nothing else"
# Unloaded by force (rmmod -f) while a pre-undo hook refuses: the code
# is going, so the undo goes on, and every object's state is taken down.
like "$out" 'THIRD-STATUS=0' "applied again (for the forced unload)"
like "$out" 'CMD6 .* hooks=1,1,1,0,0,0$' "  its code runs"
like "$out" 'FORCE-STATUS=0' "rmmod -f of the update while its pre-undo hook refuses: unloaded"
unlike "$out" 'FORCE-STILL-LOADED' "  the update module is gone"
unlike "$out" 'CMD7 .*hooks=' "  /proc/cmdline is stock again"
like "$out" 'MAX7 1048576' "  the stop-undo hook put pipe_max_size back"
like "$out" 'FORCE-LOG .*hooks: unloaded by force: undone although a hook refused' \
	"  the kernel log says the refusal was overridden"
is "$(sed -n 's/^LOG4 //p' <<<"$out" | sed -e 's/pipe-shadow[^|]*|//')" \
	'cmdline pre-apply|crc8 pre-apply|cmdline stop-apply|crc8 stop-apply|cmdline post-apply|crc8 post-apply|cmdline pre-undo refuses|cmdline stop-undo|crc8 stop-undo|cmdline post-undo|crc8 post-undo|' \
	"  after the refusing pre-undo, every object's stop-undo and post-undo hooks ran"
unlike "$out" 'DMESG: ' "no oops, BUG or warning in dmesg"
