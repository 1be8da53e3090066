#!/bin/bash
# The whole distribution path on a real Debian 12 guest (tests/vm/debian:
# systemd, apt, the stock 6.1.0-56-amd64; no network): the packages built
# with dpkg-buildpackage and ksplice-package go into an apt repository made
# and signed by ksplice-repo (a throwaway ed25519 key), which the guest
# reaches as a file: source on the 9p share, signed-by= its exported key.
#   boot 1: a source signed-by= another key is refused; with the right key,
#           apt-get install ksplice ksplice-updates-<ABI> -> the nfsd CVE
#           update (cve) is applied by the postinst; ksplice-uname -v
#           6.1.192-3
#   (the repository gets version 6.1.192-3+k2: the cumulative cve2, made
#   with --replace)
#   boot 2 (the same disk: a reboot): ksplice.service re-applied cve before
#           sysinit.target; modprobe nfsd -> nfsd4_sequence jumps to cve's;
#           apt-get install (the upgrade) -> cve2 took cve's place in one
#           step (never undone by the prerm), nfsd4_sequence jumps to cve2's;
#           apt-get remove -> undone
#   boot 3: installed again; boot 4 with ksplice=off: nothing applied
. "$(dirname "$0")/../lib/tap.sh"
. "$KSPLICE_TOP/tests/lib/update.sh"
. "$KSPLICE_TOP/tests/lib/module.sh"
cd "$KSPLICE_TOP" || bail "no $KSPLICE_TOP"
plan 42

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
# The next version: the same fix as a cumulative update of its own id.
upd2=$(ksplice-create --build "$KSPLICE_BUILD" --debian "$KSPLICE_NFSD_UPDATE" --replace \
	--id cve2 -o "$tmp" 2>"$tmp/create-cve2.log" | tail -n 1)
[ -s "${upd2:-}" ] || { tail -n 20 "$tmp/create-cve2.log" | sed 's/^/# /'; bail "no update file cve2"; }
mkdir "$tmp/debs2"
ksplice-package -o "$tmp/debs2" --version 6.1.192-3+k2 "$upd2" >/dev/null ||
	bail "ksplice-package failed (cve2)"
ok 0 "packages: ksplice and $pkg ($(ls "$tmp/debs" "$tmp/debs2" | grep deb | tr '\n' ' '))"

# The repository, signed with a throwaway key; another key for the refusal.
export GNUPGHOME=$tmp/gnupg
mkdir -m 700 "$GNUPGHOME"
trap 'gpgconf --kill all >/dev/null 2>&1; rm -rf "$tmp"' EXIT
for k in ksplice-test other-test; do
	gpg --batch --passphrase '' --quick-gen-key "$k <$k@example.org>" ed25519 sign never \
		>/dev/null 2>&1 || bail "cannot make a gpg key"
done
gpg --batch --export other-test@example.org >"$io/other.gpg"
ksplice-repo --key ksplice-test@example.org "$io/repo" "$tmp"/debs/*.deb >"$tmp/repo.log" 2>&1
ok $? "ksplice-repo makes the signed repository (bookworm, main)" || sed 's/^/# /' "$tmp/repo.log"
cp build/guest/usr/local/bin/kpeek "$io/"
diag "packages and repository: $(($(date +%s) - t0)) s"

guest() {	# NAME [RIG OPTIONS] -- COMMAND
	local name=$1 start=$(date +%s)
	shift
	tests/vm/debian --disk "$tmp/disk.qcow2" --share "$io" \
		--console "$tmp/console-$name" "$@" 2>"$tmp/rig-$name"
	local st=$?
	diag "boot $name: $(($(date +%s) - start)) s (exit $st)" >&2
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
src="bookworm main"
echo "deb [signed-by=/io/other.gpg] file:/io/repo $src" >/etc/apt/sources.list.d/ksplice.list
apt-get update >/tmp/apt.log 2>&1; echo "UPDATE-OTHER-KEY=$?"
grep -m1 -o "NO_PUBKEY\|not signed" /tmp/apt.log | sed "s/^/REFUSED /"
mkdir -p /etc/apt/keyrings
cp /io/repo/ksplice-archive-keyring.gpg /etc/apt/keyrings/
echo "deb [signed-by=/etc/apt/keyrings/ksplice-archive-keyring.gpg] file:/io/repo $src" >/etc/apt/sources.list.d/ksplice.list
apt-get update >/tmp/apt.log 2>&1; echo "UPDATE=$?"
grep "^[EW]:.*/io/repo" /tmp/apt.log | sed "s/^/APT /"
DEBIAN_FRONTEND=noninteractive apt-get install -y ksplice '"$pkg"' 2>&1; echo "INSTALL=$?"
systemctl is-enabled ksplice.service | sed "s/^/ENABLED /"
'"$show")
ok $? "boot 1: the guest ran apt-get install"
diag "$(grep -E 'UPDATE|REFUSED|APT|INSTALL|Applied|STATUS|KUNAME|STAGE|ENABLED|ksplice' <<<"$out" | head -20)"
unlike "$out" '^UPDATE-OTHER-KEY=0$' "apt-get update refuses the repository signed-by= another key"
like "$out" '^REFUSED (NO_PUBKEY|not signed)' "... its signature not trusted"
like "$out" '^UPDATE=0$' "apt-get update accepts it signed-by= its exported key"
unlike "$out" '^APT ' "... with no error or warning about it (the image's own sources fail: no network)"
like "$out" '^INSTALL=0$' "apt-get install ksplice $pkg succeeds"
like "$out" 'Done! Applied update cve|Update cve is already applied' \
	"... the update is applied (by ksplice.service, started as ksplice is set up, or the postinst)"
like "$out" '^STAGE /sys/kernel/ksplice/cve/stage applied$' "... which is applied"
like "$out" '^STATUS=0$' "ksplice-view --status: up to date"
like "$out" '^KUNAME .*Debian 6\.1\.192-3 ' "ksplice-uname -v: Debian 6.1.192-3"
like "$out" '^UNAME .*Debian 6\.1\.192-2 ' "... where uname -v says 6.1.192-2"
like "$out" '^ENABLED enabled$' "ksplice.service is enabled"

# The next version, signed as before.
ksplice-repo --key ksplice-test@example.org "$io/repo" "$tmp"/debs2/*.deb >"$tmp/repo2.log" 2>&1
ok $? "ksplice-repo adds $pkg 6.1.192-3+k2 (cve2)" || sed 's/^/# /' "$tmp/repo2.log"

### Boot 2: a reboot, the upgrade, then remove.
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
u0=$(date +%s)
apt-get update >/tmp/apt.log 2>&1; echo "UPDATE=$?"
DEBIAN_FRONTEND=noninteractive apt-get install -y '"$pkg"' >/tmp/up.log 2>&1; echo "UPGRADE=$?"
echo "UPGRADE-SECONDS $(($(date +%s) - u0))"
sed "s/^/UP /" /tmp/up.log
echo "VERSION $(dpkg-query -W -f "\${Version}" '"$pkg"')"
for f in /sys/kernel/ksplice/*/stage; do [ -e "$f" ] && echo "STAGE2 $f $(cat $f)"; done
lsmod | grep "^ksplice_" | sed "s/^/LSMOD /"
grep "^nfsd4_sequence " /sys/kernel/ksplice/cve2/functions | sed "s/^/FUNC2 /"
echo "PEEK-UP $a $(/io/kpeek $a 16)"
echo "KUNAME2 $(ksplice-uname -v)"
DEBIAN_FRONTEND=noninteractive apt-get remove -y '"$pkg"' 2>&1; echo "REMOVE=$?"
echo "PEEK-AFTER $a $(/io/kpeek $a 16)"
'"$show")
ok $? "boot 2: the guest booted again from the same disk"
diag "$(grep -E 'STATUS|KUNAME|STAGE|SVC|JOURNAL|MODPROBE|FUNC|PEEK|UPGRADE|UP .*(ksplice|[Rr]eplaced|Reversed|Applied|Unpacking)|VERSION|LSMOD|REMOVE|Reversed' <<<"$out" | head -40)"
like "$out" '^STAGE /sys/kernel/ksplice/cve/stage applied$' "after the reboot the update is applied again"
like "$out" '^SVC Result=success ExecMainStatus=0' "... by ksplice.service, which succeeded"
like "$out" '^BEFORE-SYSINIT yes$' "... and finished before sysinit.target (before any login)"
like "$out" '^KUNAME .*Debian 6\.1\.192-3 ' "ksplice-uname -v: Debian 6.1.192-3 after the reboot"
like "$out" '^MODPROBE=0$' "modprobe nfsd"
read -r _ addr hex < <(grep -m1 '^PEEK ' <<<"$out")
new=$(sed -n 's/^FUNC nfsd4_sequence [^ ]* \([^ ]*\).*/\1/p' <<<"$out" | head -n 1)
is "$(jump_target "${addr:-0}" "${hex:-}")" "$(printf '0x%x' $((16#${new#0x})) 2>/dev/null)" \
	"the loaded nfsd's nfsd4_sequence jumps to the update's ($new)"
diag "upgrade in the guest (apt-get update, install): $(sed -n 's/^UPGRADE-SECONDS //p' <<<"$out") s"
like "$out" '^UPGRADE=0$' "apt-get install $pkg upgrades it (signed repository updated to 6.1.192-3+k2)"
like "$out" '^VERSION 6\.1\.192-3\+k2$' "... to version 6.1.192-3+k2"
like "$out" '^UP Done! Applied update cve2$' "... whose postinst applies cve2"
like "$out" '^UP  +replaced update cve \(its module is unloaded\)$' "... which took cve's place in one step"
unlike "$out" '^UP .*Reversed update cve' "... the old prerm did not undo cve first"
like "$out" '^STAGE2 /sys/kernel/ksplice/cve2/stage applied$' "... cve2 is applied"
unlike "$out" '^STAGE2 /sys/kernel/ksplice/cve/stage applied$|^LSMOD ksplice_cve ' "... cve is neither applied nor loaded"
read -r _ addr3 hex3 < <(grep -m1 '^PEEK-UP ' <<<"$out")
new2=$(sed -n 's/^FUNC2 nfsd4_sequence [^ ]* \([^ ]*\).*/\1/p' <<<"$out" | head -n 1)
[ -n "$new2" ] && [ "$new2" != "$new" ]; ok $? "... cve2's nfsd4_sequence is new code ($new2, not $new)"
is "$(jump_target "${addr3:-0}" "${hex3:-}")" "$(printf '0x%x' $((16#${new2#0x})) 2>/dev/null)" \
	"... and the running nfsd4_sequence jumps to it"
like "$out" '^KUNAME2 .*Debian 6\.1\.192-3 ' "... ksplice-uname -v still says 6.1.192-3"
like "$out" '^REMOVE=0$' "apt-get remove $pkg succeeds"
like "$out" 'Done! Reversed update cve2' "... and the prerm undoes the update"
read -r _ addr2 hex2 < <(grep -m1 '^PEEK-AFTER ' <<<"$out")
is "$(jump_target "${addr2:-0}" "${hex2:-}")" none "... nfsd4_sequence runs its own code again"
like "$out" '^KUNAME .*Debian 6\.1\.192-2 ' "... and ksplice-uname -v says 6.1.192-2 again"

### Boot 3: installed again, and the kill switch.
out=$(guest install-again -- 'DEBIAN_FRONTEND=noninteractive apt-get install -y '"$pkg"' >/dev/null 2>&1; echo "INSTALL=$?"'"$show")
like "$out" '^INSTALL=0$' "boot 3: installed again"
like "$out" '^STAGE /sys/kernel/ksplice/cve2/stage applied$' "... the new version's cve2 applied"
out=$(guest off --append ksplice=off -- "$show"'
echo "SVC $(systemctl show -p ConditionResult -p ActiveState ksplice.service | tr "\n" " ")"')
ok $? "boot 4 with ksplice=off"
unlike "$out" '^STAGE .* applied$' "... applies nothing"
like "$out" '^STATUS=3$' "... ksplice-view --status: installed, not applied (exit 3)"
like "$out" '^SVC .*ConditionResult=no' "... ksplice.service skipped by its condition"
diag "total: $(($(date +%s) - t0)) s"
