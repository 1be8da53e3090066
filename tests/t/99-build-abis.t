#!/bin/bash
# One fix, every kernel (scripts/ksplice-build-abis), on a fixed sample of
# ABIs: 6.1.0-56 and 6.1.0-55 are built, each from its own linux-source
# version (6.1.192-2, 6.1.192-1) and packaged for its ABI; 6.1.0-53's
# source (6.1.187-1) lacks the lines the patch changes, and an ABI with no
# headers installed, are skipped with a line saying why, and the others go
# on.  The patch: the demo's change of /proc/cmdline, and a comment on a
# line of task_mmu.c that 6.1.192 has and 6.1.187 has not (a removed line
# must match exactly: patch's fuzz cannot place it elsewhere).  The 6.1.0-55
# update is applied on the stock 6.1.0-55 kernel, and its fix runs.
. "$(dirname "$0")/../lib/tap.sh"
. "$KSPLICE_TOP/tests/lib/update.sh"
set -u
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
export TMPDIR=$tmp

plan 22
src=$(ksplice_source)
{ cat "$KSPLICE_TOP/examples/cmdline.patch"
  printf -- '--- a/fs/proc/task_mmu.c\n+++ b/fs/proc/task_mmu.c\n'
  l='	ptl = huge_pte_lock(hstate_vma(vma), walk->mm, pte);'
  line=$(grep -nxF "$l" "$src/fs/proc/task_mmu.c" | head -n 1 | cut -d: -f1)
  printf -- '@@ -%d,1 +%d,1 @@\n-%s\n+%s\t/* held to the end */\n' \
	"$line" "$line" "$l" "$l"
} >"$tmp/fix.patch"
patch -p1 --dry-run --batch --silent -d "$src" -i "$tmp/fix.patch" >/dev/null ||
	bail "the test's patch does not apply to $src"

mkdir "$tmp/out"
t0=$SECONDS
ksplice-build-abis -o "$tmp/out" --id fix --patch "$tmp/fix.patch" \
	6.1.0-56-amd64 6.1.0-53-amd64 6.1.0-99-amd64 6.1.0-55-amd64 \
	>"$tmp/out.log" 2>&1
st=$?
diag "$(cat "$tmp/out.log")"
diag "$((SECONDS - t0)) s"
is "$st" 0 "ksplice-build-abis succeeds: every ABI built or skipped"
log=$(cat "$tmp/out.log")
like "$log" '6\.1\.0-53-amd64: skipped: the patch does not apply to its source 6\.1\.187-1' \
	"6.1.0-53 is skipped: the patch does not apply to 6.1.187-1"
like "$log" '6\.1\.0-99-amd64: skipped: linux-headers-6\.1\.0-99-amd64 is not installed' \
	"an ABI without headers is skipped, saying so"
like "$log" '2 built, 2 skipped, 0 failed' "the summary counts them"
for abi in 6.1.0-56-amd64:6.1.192-2 6.1.0-55-amd64:6.1.192-1; do
	a=${abi%%:*} v=${abi#*:}
	deb=$tmp/out/ksplice-updates-${a}_${v}+ksplice.fix_amd64.deb
	ok $([ -s "$deb" ]; echo $?) "$a: ksplice-updates-${a}_${v}+ksplice.fix_amd64.deb"
	rm -rf "$tmp/x"; dpkg-deb -x "$deb" "$tmp/x" 2>/dev/null
	upd=$(ls "$tmp"/x/var/lib/ksplice/updates/"$a"/*.tar.gz 2>/dev/null | head -n 1)
	m=$(tar -xzOf "$upd" manifest 2>/dev/null)
	like "$m" "kernel_release: $a" "  its update is for $a"
	like "$m" "source: linux-source-6\.1=$v" "  built from that ABI's own source, $v"
	like "$m" "function: cmdline_proc_show" "  and replaces cmdline_proc_show"
done
# The 6.1.0-55 package's update, on the stock 6.1.0-55 kernel: its fix runs.
rm -rf "$tmp/x"
dpkg-deb -x "$tmp/out/ksplice-updates-6.1.0-55-amd64_6.1.192-1+ksplice.fix_amd64.deb" "$tmp/x"
upd=$(ls "$tmp"/x/var/lib/ksplice/updates/6.1.0-55-amd64/*.tar.gz | head -n 1)
cp "$upd" "$tmp/fix55.tar.gz"
out=$(vm --kernel 6.1.0-55-amd64 --file "$tmp/fix55.tar.gz" -- '
	echo "RELEASE: $(uname -r)"
	ksplice-apply fix55.tar.gz >/tmp/a 2>&1; echo "APPLY-STATUS=$?"
	echo "CMDLINE: $(cat /proc/cmdline)"
	ksplice-undo fix >/dev/null 2>&1; echo "UNDO-STATUS=$?"
	echo "CMDLINE-AFTER: $(cat /proc/cmdline)"
' 2>"$tmp/vm.err")
st=$?
diag "$out"
ok "$st" "the 6.1.0-55 guest ran (rig status $st)"
like "$out" 'RELEASE: 6\.1\.0-55-amd64' "  on the 6.1.0-55 kernel"
like "$out" 'APPLY-STATUS=0' "  its update applies"
like "$out" 'CMDLINE: .* ksplice=applied$' "  and /proc/cmdline runs the fix"
like "$out" 'UNDO-STATUS=0' "  undo succeeds"
unlike "$out" 'CMDLINE-AFTER: .*ksplice=applied' "  and the stock code runs again"
ls "$tmp/out"/ksplice-updates-6.1.0-53-amd64_* >/dev/null 2>&1
ok $(( $? == 0 )) "no package for the skipped ABI"

# Bad usage changes nothing.
ksplice-build-abis -o "$tmp/out" --id fix 6.1.0-56-amd64 >"$tmp/bad.log" 2>&1
is "$?" 2 "neither --patch nor --debian: a usage error"
like "$(cat "$tmp/bad.log")" 'give one of --patch FILE and --debian NEW' "  saying so"
is "$(ls "$tmp/out" | grep -c '\.deb$')" 2 "  and no package was added"
