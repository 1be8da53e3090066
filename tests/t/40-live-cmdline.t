#!/bin/bash
# A live update of the stock kernel: what /proc/cmdline prints changes right
# after apply and is back after undo; ksplice-view shows it meanwhile.
. "$(dirname "$0")/../lib/tap.sh"
. "$KSPLICE_TOP/tests/lib/update.sh"
set -u
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT

plan 14
upd=$(make_update "$KSPLICE_TOP/examples/cmdline.patch" cmdline)
ok $? "ksplice-create builds the update"
[ -s "$upd" ] || { cat "$tmp/create-cmdline.log" | sed 's/^/# /'; bail "no update file"; }
like "$(cat "$tmp/create-cmdline.log")" 'changed function: cmdline_proc_show' "create reports the changed function"

out=$(vm --file "$upd" -- '
	echo "BEFORE: $(cat /proc/cmdline)"
	ksplice-apply ksplice-cmdline.tar.gz; echo "APPLY-STATUS=$?"
	echo "AFTER: $(cat /proc/cmdline)"
	ksplice-view | sed "s/^/VIEW: /"; echo "VIEW-STATUS=$?"
	echo "STAGE: $(cat /sys/kernel/ksplice/cmdline/stage)"
	ksplice-undo cmdline; echo "UNDO-STATUS=$?"
	echo "UNDONE: $(cat /proc/cmdline)"
	# lsmod ran if it lists the core, which the tools leave loaded
	lsmod >/tmp/mods; grep -q "^ksplice " /tmp/mods && echo "CORE-LISTED"
	grep -q "^ksplice_cmdline " /tmp/mods && echo "UPDATE-MODULE-STILL-LOADED"
	dmesg | grep -E "Oops|BUG:|WARNING:|general protection|Call Trace" | sed "s/^/DMESG: /"
' 2>&1)
ok $? "the guest ran the scenario"
diag "$(printf '%s\n' "$out" | grep -v '^DMESG' | head -30)"
like "$out" '^BEFORE: .+' "before: /proc/cmdline was read"
unlike "$(printf '%s\n' "$out" | grep '^BEFORE')" 'ksplice=applied' "before: the stock output"
like "$out" 'APPLY-STATUS=0' "ksplice-apply succeeds"
like "$out" '^AFTER: .* ksplice=applied$' "after apply: the new code runs"
view=$(printf '%s\n' "$out" | grep '^VIEW: ')
like "$view" 'cmdline.*applied' "ksplice-view lists the update as applied"
like "$view" 'cmdline_proc_show' "ksplice-view names the replaced function"
like "$out" 'UNDO-STATUS=0' "ksplice-undo succeeds"
before=$(printf '%s\n' "$out" | sed -n 's/^BEFORE: //p')
[ -n "$before" ] && [ "$(printf '%s\n' "$out" | sed -n 's/^UNDONE: //p')" = "$before" ]
ok $? "after undo: the old code runs again (/proc/cmdline as before)"
like "$out" 'CORE-LISTED' "lsmod lists the loaded modules (the core)"
unlike "$out" 'UPDATE-MODULE-STILL-LOADED' "undo unloads the update module"
unlike "$out" '^DMESG' "no oops or warning in dmesg"
