#!/bin/bash
# The whole distribution path on a real Debian 12 guest (tests/vm/debian:
# systemd, apt, the stock 6.1.0-56-amd64; no network): the packages built
# with dpkg-buildpackage and ksplice-package go into an apt repository made
# with reprepro, which the guest reaches as a file: source on the 9p share.
#   boot 1: apt-get install ksplice ksplice-updates-<ABI> -> the nfsd CVE
#           update is applied by the postinst; ksplice-uname -v 6.1.192-3
#   boot 2 (the same disk: a reboot): ksplice.service re-applied it before
#           sysinit.target; modprobe nfsd -> nfsd4_sequence jumps to the
#           update's; apt-get remove -> undone
#   boot 3 with ksplice=off (package installed again): nothing applied
. "$(dirname "$0")/../lib/tap.sh"
. "$KSPLICE_TOP/tests/lib/update.sh"
. "$KSPLICE_TOP/tests/lib/module.sh"
cd "$KSPLICE_TOP" || bail "no $KSPLICE_TOP"
plan 27

tmp=$(mktemp -d "${TMPDIR:-/tmp}/debian-guest-t.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
make -s all >/dev/null || bail "cannot build the tools"
abi=$KSPLICE_KERNEL_ABI pkg=ksplice-updates-$KSPLICE_KERNEL_ABI
io=$tmp/io
mkdir -p "$io" "$tmp/debs"

t0=$(date +%s)
# The packages: the tools, and the update of the nfsd fix.
mkdir "$tmp/src"
git ls-files -co --exclude-standard | tar -cf - -T - | tar -xf - -C "$tmp/src"
(cd "$tmp/src" && nice -n 10 dpkg-buildpackage -b -us -uc -j2) >"$tmp/build.log" 2>&1 ||
	{ tail -n 20 "$tmp/build.log" | sed 's/^/# /'; bail "dpkg-buildpackage failed"; }
mv "$tmp"/ksplice_*_amd64.deb "$tmp/debs/"
upd=$(make_debian_update "$KSPLICE_NFSD_UPDATE" cve "$KSPLICE_BUILD")
[ -s "${upd:-}" ] || { tail -n 20 "$tmp/create-cve.log" | sed 's/^/# /'; bail "no update file"; }
ksplice-package -o "$tmp/debs" "$upd" >/dev/null || bail "ksplice-package failed"
ok 0 "packages: ksplice and $pkg ($(ls "$tmp/debs" | tr '\n' ' '))"

# The repository.
mkdir -p "$io/repo/conf"
printf 'Codename: bookworm\nComponents: main\nArchitectures: amd64\n' >"$io/repo/conf/distributions"
reprepro -b "$io/repo" includedeb bookworm "$tmp"/debs/*.deb >"$tmp/reprepro.log" 2>&1
ok $? "reprepro makes the repository (bookworm, main)" || sed 's/^/# /' "$tmp/reprepro.log"
cp build/guest/usr/local/bin/kpeek "$io/"
diag "packages and repository: $(($(date +%s) - t0)) s"

guest() {	# NAME [RIG OPTIONS] -- COMMAND
	local name=$1 start=$(date +%s)
	shift
	tests/vm/debian --disk "$tmp/disk.qcow2" --share "$io" \
		--console "$tmp/console-$name" "$@" 2>"$tmp/rig-$name"
	local st=$?
	diag "boot $name: $(($(date +%s) - start)) s (exit $st)"
	[ $st -ne 125 ] || sed 's/^/# /' "$tmp/rig-$name" | tail -n 20
	return $st
}

# How the guest shows an update's state, and the running nfsd4_sequence.
show='
ksplice-view --status; echo "STATUS=$?"
echo "KUNAME $(ksplice-uname -v)"
echo "UNAME $(uname -v)"
for f in /sys/kernel/ksplice/*/stage; do [ -e "$f" ] && echo "STAGE $f $(cat $f)"; done
true
'

### Boot 1: install.
out=$(guest install -- '
echo "deb [trusted=yes] file:/io/repo bookworm main" >/etc/apt/sources.list.d/ksplice.list
apt-get update >/tmp/apt.log 2>&1; echo "UPDATE=$?"
DEBIAN_FRONTEND=noninteractive apt-get install -y ksplice '"$pkg"' 2>&1; echo "INSTALL=$?"
systemctl is-enabled ksplice.service | sed "s/^/ENABLED /"
'"$show")
ok $? "boot 1: the guest ran apt-get install"
diag "$(grep -E 'INSTALL|Applied|STATUS|KUNAME|STAGE|ENABLED|ksplice' <<<"$out" | head -20)"
like "$out" '^INSTALL=0$' "apt-get install ksplice $pkg succeeds"
like "$out" 'Done! Applied update cve|Update cve is already applied' \
	"... the update is applied (by ksplice.service, started as ksplice is set up, or the postinst)"
like "$out" '^STAGE /sys/kernel/ksplice/cve/stage applied$' "... which is applied"
like "$out" '^STATUS=0$' "ksplice-view --status: up to date"
like "$out" '^KUNAME .*Debian 6\.1\.192-3 ' "ksplice-uname -v: Debian 6.1.192-3"
like "$out" '^UNAME .*Debian 6\.1\.192-2 ' "... where uname -v says 6.1.192-2"
like "$out" '^ENABLED enabled$' "ksplice.service is enabled"

### Boot 2: a reboot, then remove.
out=$(guest reboot -- "$show"'
echo "SVC $(systemctl show -p Result -p ExecMainStatus ksplice.service | tr "\n" " ")"
s=$(systemctl show -p ExecMainExitTimestampMonotonic --value ksplice.service)
t=$(systemctl show -p ActiveEnterTimestampMonotonic --value sysinit.target)
[ "$s" -gt 0 ] && [ "$s" -le "$t" ] && echo "BEFORE-SYSINIT yes"
journalctl -b -u ksplice.service --no-pager | sed "s/^/JOURNAL /"
journalctl -b --no-pager -o short-monotonic | grep -m1 "ksplice-apply.*Done\|Done! Applied" | sed "s/^/JOURNAL-APPLY /"
modprobe nfsd; echo "MODPROBE=$?"
a=$(awk "\$3 == \"nfsd4_sequence\" && \$4 == \"[nfsd]\" { print \"0x\" \$1 }" /proc/kallsyms)
echo "PEEK $a $(/io/kpeek $a 16)"
grep "^nfsd4_sequence " /sys/kernel/ksplice/cve/functions | sed "s/^/FUNC /"
DEBIAN_FRONTEND=noninteractive apt-get remove -y '"$pkg"' 2>&1; echo "REMOVE=$?"
echo "PEEK-AFTER $a $(/io/kpeek $a 16)"
'"$show")
ok $? "boot 2: the guest booted again from the same disk"
diag "$(grep -E 'STATUS|KUNAME|STAGE|SVC|JOURNAL|MODPROBE|FUNC|PEEK|REMOVE|Reversed' <<<"$out" | head -30)"
like "$out" '^STAGE /sys/kernel/ksplice/cve/stage applied$' "after the reboot the update is applied again"
like "$out" '^SVC Result=success ExecMainStatus=0' "... by ksplice.service, which succeeded"
like "$out" '^BEFORE-SYSINIT yes$' "... and finished before sysinit.target (before any login)"
like "$out" '^KUNAME .*Debian 6\.1\.192-3 ' "ksplice-uname -v: Debian 6.1.192-3 after the reboot"
like "$out" '^MODPROBE=0$' "modprobe nfsd"
read -r _ addr hex < <(grep -m1 '^PEEK ' <<<"$out")
new=$(sed -n 's/^FUNC nfsd4_sequence [^ ]* \([^ ]*\).*/\1/p' <<<"$out" | head -n 1)
is "$(jump_target "${addr:-0}" "${hex:-}")" "$(printf '0x%x' $((16#${new#0x})) 2>/dev/null)" \
	"the loaded nfsd's nfsd4_sequence jumps to the update's ($new)"
like "$out" '^REMOVE=0$' "apt-get remove $pkg succeeds"
like "$out" 'Done! Reversed update cve' "... and the prerm undoes the update"
read -r _ addr2 hex2 < <(grep -m1 '^PEEK-AFTER ' <<<"$out")
is "$(jump_target "${addr2:-0}" "${hex2:-}")" none "... nfsd4_sequence runs its own code again"
like "$out" '^KUNAME .*Debian 6\.1\.192-2 ' "... and ksplice-uname -v says 6.1.192-2 again"

### Boot 3: installed again, and the kill switch.
out=$(guest install-again -- 'DEBIAN_FRONTEND=noninteractive apt-get install -y '"$pkg"' >/dev/null 2>&1; echo "INSTALL=$?"'"$show")
like "$out" '^INSTALL=0$' "boot 3: installed again"
like "$out" '^STAGE /sys/kernel/ksplice/cve/stage applied$' "... applied"
out=$(guest off --append ksplice=off -- "$show"'
echo "SVC $(systemctl show -p ConditionResult -p ActiveState ksplice.service | tr "\n" " ")"')
ok $? "boot 4 with ksplice=off"
unlike "$out" '^STAGE .* applied$' "... applies nothing"
like "$out" '^STATUS=3$' "... ksplice-view --status: installed, not applied (exit 3)"
like "$out" '^SVC .*ConditionResult=no' "... ksplice.service skipped by its condition"
diag "total: $(($(date +%s) - t0)) s"
