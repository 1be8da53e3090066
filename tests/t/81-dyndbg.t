#!/bin/bash
# A changed pr_debug in a module function (cifs_dbg in cifs's
# smb3_fs_context_parse_param), whose dynamic-debug descriptor's name
# (descriptor.67) the module cifs has six times.  The update carries its
# own copy of the descriptors its new code uses: apply succeeds, the copy
# is listed in dynamic_debug/control under the update module, a query by
# file turns the new message on, and after undo the old message is back.
. "$(dirname "$0")/../lib/tap.sh"
. "$KSPLICE_TOP/tests/lib/update.sh"
set -u
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT

plan 12
upd=$(make_update "$KSPLICE_TOP/tests/patches/cifs-dyndbg.patch" cifsdbg)
ok $? "ksplice-create builds the update of a function with pr_debugs"
[ -s "${upd:-}" ] || { sed 's/^/# /' "$tmp/create-cifsdbg.log"; bail "no update file"; }
like "$(cat "$tmp/create-cifsdbg.log")" 'changed function: smb3_fs_context_parse_param \(fs/smb/client/fs_context.c, cifs\)' \
	"  the changed function is in the module cifs"

out=$(vm --module cifs --file "$upd" -- '
	modprobe cifs && mount -t debugfs none /sys/kernel/debug 2>/dev/null
	ctl=/sys/kernel/debug/dynamic_debug/control
	echo "DUPS $(awk "\$3 == \"descriptor.67\" && \$4 == \"[cifs]\"" /proc/kallsyms | wc -l)"
	echo 1 >/proc/fs/cifs/cifsFYI
	echo "file fs/smb/client/fs_context.c +p" >$ctl
	mkdir -p /mnt/c
	try() { dmesg -c >/dev/null; mount -t cifs //127.0.0.1/x /mnt/c -o vers=9.9 2>/dev/null
		dmesg | grep "mount option .vers." | sed "s/^[^]]*\] /$1 /"; }
	try BEFORE
	ksplice-apply ksplice-cifsdbg.tar.gz; echo "APPLY-STATUS=$?"
	grep "ksplice_cifsdbg" $ctl | sed "s/^/CONTROL /"
	try APPLIED-NO-QUERY
	echo "file fs/smb/client/fs_context.c +p" >$ctl
	try APPLIED
	ksplice-undo cifsdbg; echo "UNDO-STATUS=$?"
	try UNDONE
	dmesg | grep -E "Oops|BUG:|WARNING:|general protection|Call Trace" | sed "s/^/DMESG: /"
' 2>&1)
ok $? "the guest ran the scenario"
diag "$(printf '%s\n' "$out" | head -30)"
like "$out" '^DUPS ([2-9]|[1-9][0-9])$' "the running cifs has several descriptor.67"
like "$out" "^BEFORE CIFS: fs/smb/client/fs_context.c: CIFS: parsing cifs mount option 'vers'" \
	"before: dynamic debug prints the old message"
like "$out" 'APPLY-STATUS=0' "ksplice-apply succeeds"
like "$out" "^CONTROL fs/smb/client/fs_context.c:870 \[ksplice_cifsdbg\]smb3_fs_context_parse_param =_ \".*ksplice parses mount option" \
	"  the update's own descriptor is registered with dynamic debug, off"
unlike "$(grep '^APPLIED-NO-QUERY' <<<"$out")" 'mount option' \
	"  the new code's message is off until a query turns it on (the old code's is not printed either)"
like "$out" "^APPLIED CIFS: fs/smb/client/fs_context.c: CIFS: ksplice parses mount option 'vers'" \
	"after a query by file: the new message"
like "$out" 'UNDO-STATUS=0' "ksplice-undo succeeds"
like "$out" "^UNDONE CIFS: fs/smb/client/fs_context.c: CIFS: parsing cifs mount option 'vers'" \
	"after undo: the old message again"
unlike "$out" '^DMESG' "no oops or warning in dmesg"
