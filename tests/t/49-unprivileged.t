#!/bin/bash
# Only root with CAP_SYS_MODULE can apply or undo.  In the guest, as
# uid 65534 (tests/vm/asuser): ksplice-apply and ksplice-undo refuse with
# a clear message and change nothing, and the sysfs stage cannot be
# written.  As root without CAP_SYS_MODULE (asuser --no-sys-module), the
# tools refuse and the core itself refuses a direct write to stage,
# max_tries or retry_interval_ms.  ksplice-view works for anyone.
. "$(dirname "$0")/../lib/tap.sh"
. "$KSPLICE_TOP/tests/lib/update.sh"
set -u
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT

plan 17
upd=$(make_update "$KSPLICE_TOP/examples/uname.patch" uname)
ok $? "ksplice-create builds the uname update"
chmod 644 "$upd"

out=$(vm --file "$upd" -- '
	old=$(uname -v); before=$(kpeek __do_sys_newuname 32)
	cp ksplice-uname.tar.gz /tmp/; chmod 644 /tmp/ksplice-uname.tar.gz; cd /tmp
	asuser id | sed "s/^/ID: /"
	asuser ksplice-apply ksplice-uname.tar.gz >/tmp/o 2>&1; echo "USER-APPLY=$?"; sed "s/^/USER-APPLY: /" /tmp/o
	asuser --no-sys-module ksplice-apply ksplice-uname.tar.gz >/tmp/o 2>&1; echo "NOCAP-APPLY=$?"; sed "s/^/NOCAP-APPLY: /" /tmp/o
	lsmod | grep "^ksplice" | sed "s/^/LOADED-AFTER-REFUSAL: /"
	[ -n "$before" ] && [ "$(kpeek __do_sys_newuname 32)" = "$before" ] && [ "$(uname -v)" = "$old" ] && echo UNCHANGED
	ksplice-apply ksplice-uname.tar.gz >/tmp/o 2>&1; echo "ROOT-APPLY=$?"
	asuser ksplice-undo uname >/tmp/o 2>&1; echo "USER-UNDO=$?"; sed "s/^/USER-UNDO: /" /tmp/o
	asuser --no-sys-module ksplice-undo uname >/tmp/o 2>&1; echo "NOCAP-UNDO=$?"; sed "s/^/NOCAP-UNDO: /" /tmp/o
	asuser sh -c "echo reversed >/sys/kernel/ksplice/uname/stage" >/tmp/o 2>&1; echo "USER-SYSFS=$?"; sed "s/^/USER-SYSFS: /" /tmp/o
	asuser --no-sys-module sh -c "echo reversed >/sys/kernel/ksplice/uname/stage" >/tmp/o 2>&1; echo "NOCAP-SYSFS=$?"; sed "s/^/NOCAP-SYSFS: /" /tmp/o
	asuser --no-sys-module sh -c "echo 7 >/sys/kernel/ksplice/uname/max_tries" >/tmp/o 2>&1; echo "NOCAP-TRIES=$?"
	echo "MAX-TRIES=$(cat /sys/kernel/ksplice/uname/max_tries)"
	echo "STAGE=$(cat /sys/kernel/ksplice/uname/stage)"
	echo "UNAME=$(uname -v)"
	asuser ksplice-view >/tmp/o 2>&1; echo "USER-VIEW=$?"; sed "s/^/USER-VIEW: /" /tmp/o
	ksplice-undo uname >/tmp/o 2>&1; echo "ROOT-UNDO=$?"
	echo "UNAME-AFTER=$(uname -v)"
' 2>&1)
ok $? "the guest ran the scenario (the rig exited 0: no boot failure, crash or timeout)"
diag "$out"
like "$out" 'ID: uid=65534' "asuser runs commands as uid 65534"
like "$out" 'USER-APPLY=[1-9]' "ksplice-apply as uid 65534 fails"
like "$out" 'USER-APPLY: .*must be run as root \(CAP_SYS_MODULE\)' "... saying it must be run as root"
like "$out" 'NOCAP-APPLY=[1-9]' "ksplice-apply as root without CAP_SYS_MODULE fails"
like "$out" 'NOCAP-APPLY: .*CAP_SYS_MODULE' "... naming CAP_SYS_MODULE"
ok $(printf '%s\n' "$out" | grep -q '^UNCHANGED$' && ! printf '%s\n' "$out" | grep -q LOADED-AFTER-REFUSAL; echo $?) \
	"nothing was loaded and the kernel text is unchanged"
like "$out" 'ROOT-APPLY=0' "root applies the update"
like "$out" 'USER-UNDO=[1-9]' "ksplice-undo as uid 65534 fails"
like "$out" 'USER-UNDO: .*must be run as root \(CAP_SYS_MODULE\)' "... saying it must be run as root"
like "$out" 'NOCAP-UNDO=[1-9]' "ksplice-undo as root without CAP_SYS_MODULE fails"
like "$out" 'USER-SYSFS=[1-9]' "uid 65534 cannot write the stage in sysfs"
like "$out" 'NOCAP-SYSFS=[1-9].*|NOCAP-SYSFS: .*(not permitted|Permission)' "the core refuses a stage write from root without CAP_SYS_MODULE"
like "$out" 'NOCAP-TRIES=[1-9]' "... and a max_tries write"
like "$out" 'STAGE=applied' "the update is still applied after all refusals"
ok $(printf '%s\n' "$out" | grep -q '^USER-VIEW=0$' && printf '%s\n' "$out" | grep -q 'USER-VIEW: uname' && printf '%s\n' "$out" | grep -q '^ROOT-UNDO=0$'; echo $?) \
	"ksplice-view works for anyone; root undoes"
