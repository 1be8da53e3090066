#!/bin/bash
# The code changed between matching and the stop (issue 13: the -ESTALE
# path).  The update's pre-apply hook runs after matching, before the
# stop_machine; while the domainname is ksplice-stale it sets a kprobe at
# cmdline_proc_show+5, where the jump goes (tests/patches/stale-kprobe.patch).
# The stop finds the bytes changed: the apply is refused as probed, naming
# the place, nothing changed, the update module is not left loaded, and the
# hook's mirror (post-undo) removed the kprobe.  Without it, the same
# update applies, its code runs, and undo brings the stock code back.
. "$(dirname "$0")/../lib/tap.sh"
. "$KSPLICE_TOP/tests/lib/update.sh"
set -u
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT

plan 16
upd=$(make_update "$KSPLICE_TOP/tests/patches/stale-kprobe.patch" stale)
ok $? "the update builds"
[ -s "${upd:-}" ] || { sed 's/^/# /' "$tmp/create-stale.log" | tail -20; bail "no update file"; }

out=$(vm --file "$upd" -- '
	dn() { echo "$1" >/proc/sys/kernel/domainname; }
	base=$(cat /proc/cmdline)
	st() { c=$(cat /proc/cmdline); echo "STATE $1: [${c#"$base"}]"; }
	run() { tag=$1; shift; "$@" >/tmp/out 2>&1; echo "$tag-STATUS=$?"
		sed "s/^/$tag: /" /tmp/out; }
	b=$(kpeek cmdline_proc_show 16)
	dn ksplice-stale
	run STALE ksplice-apply ksplice-stale.tar.gz; st stale
	[ -n "$b" ] && [ "$(kpeek cmdline_proc_show 16)" = "$b" ] && echo STALE-BYTES-UNCHANGED
	grep -q "^ksplice_stale " /proc/modules && echo STALE-MODULE-LOADED
	dmesg | sed -n "s/^.*ksplice-stale: /HOOK: /p"
	dn ksplice-ok
	run APPLY ksplice-apply ksplice-stale.tar.gz; st applied
	run UNDO ksplice-undo stale; st undone
	dmesg | grep -E "Oops|BUG:|WARNING:|general protection" | sed "s/^/DMESG: /"
' 2>&1)
ok $? "the guest ran the scenario (the rig exited 0: no boot failure, crash or timeout)"
diag "$out"

like "$out" 'STALE-STATUS=[1-9]' "a kprobe set after matching, where the jump goes: the apply is refused"
like "$out" 'STALE: .*a kprobe is set in the code being replaced' "  as probed"
like "$out" 'STALE: .*a kprobe was set at cmdline_proc_show\+0x5/0x[0-9a-f]+ since matching' \
	"  naming the place and saying it came since matching"
like "$out" 'STATE stale: \[\]$' "  nothing changed (/proc/cmdline)"
like "$out" 'STALE-BYTES-UNCHANGED' "  not even bytes"
unlike "$out" 'STALE-MODULE-LOADED' "  the update module is not left loaded"
like "$out" 'HOOK: kprobe set at cmdline_proc_show\+0x5' "  the hook had set the kprobe"
like "$out" 'HOOK: kprobe removed' "  and its mirror removed it"
like "$out" 'APPLY-STATUS=0' "without the kprobe the same update applies"
like "$out" 'STATE applied: \[ stale=new\]$' "  its code runs"
is "$(grep -c '^HOOK: kprobe set' <<<"$out")" 1 "  and set no second kprobe"
like "$out" 'UNDO-STATUS=0' "undo succeeds"
like "$out" 'STATE undone: \[\]$' "  the stock code runs"
unlike "$out" '^DMESG' "no oops or warning"
