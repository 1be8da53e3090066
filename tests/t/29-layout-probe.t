#!/bin/bash
# The layout probe.  A patch that reaches more units than --max-units is
# refused, but if a structure's layout changes, that is the reason to give:
# compiling the patch's own units may not show it (their code need not use
# the structure), so ksplice-create also compiles an includer for each
# distinct name the preprocessing filter gave as its reason.  Here
# loadavg.c (the patch's own unit) and task_mmu.c (first of the includers:
# PROC_NUMBUF changed) do not use struct pde_opener, which the patch
# changes; inode.c ("proc_init_kmemcache uses pde_opener") does.  The
# second create takes the includers' text before the patch from the first.
# With PROC_NUMBUF renamed as well, task_mmu.c no longer compiles (a change
# that needs more of its range): the layout inode.o shows is still the
# reason given.
# With more includers than --max-units to preprocess, the patch's own units
# are compiled first: where one of them shows the layout change
# (proc-opener-layout-own.patch also changes inode.c), that is the refusal,
# without preprocessing the includers; the same refusal follows the filter
# under a --max-units the includers do not exceed.
. "$(dirname "$0")/../lib/tap.sh"
. "$KSPLICE_TOP/tests/lib/update.sh"
set -u
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
plan 21

create() {	# PATCH MAX_UNITS: the create's messages; sets rc
	msg=$(ksplice-create --build "$KSPLICE_BUILD" --id lp --max-units "$2" \
		--patch "$KSPLICE_TOP/tests/patches/$1.patch" -o "$tmp" "$(ksplice_source)" 2>&1)
	rc=$?
	rm -rf "$(sed -n 's/^ksplice-create: work directory kept: //p' <<<"$msg")"
}

create proc-opener-layout 3
is "$rc" 1 "a member added to struct pde_opener, over --max-units: refused"
like "$msg" 'the patch changes the layout of struct pde_opener' \
	"  for the layout change, not for the number of units"
like "$msg" 'fs/proc/inode.o: [a-z_]+ uses pde_opener, which changed' \
	"  inode.o kept for pde_opener"
like "$msg" '4 units: compiling 3 of them to compare structure layouts first' \
	"  after compiling loadavg.o and task_mmu.o, and inode.o for its own reason"
unlike "$msg" 'more than --max-units' "  (not said to be too many units)"
[ "$rc" = 1 ] || diag "$msg"

create proc-opener-same-layout 2
is "$rc" 1 "(positive) the same patch without the member, over --max-units 2: refused"
like "$msg" 'the patch reaches 3 units whose code can change, more than --max-units 2' \
	"  for the number of units"
unlike "$msg" 'changes the layout' "  no layout change found"
like "$msg" '3 units: compiling 2 of them to compare structure layouts first' \
	"  after compiling loadavg.o and task_mmu.o (base.o's reason is the same as task_mmu.o's)"
like "$msg" '  23 of them as they were before the patch: kept from an earlier create' \
	"  the includers' text before the patch kept from the first create (src/create/preprocess-cache.c)"

create proc-opener-layout-broken 3
is "$rc" 1 "the layout change with a unit that does not compile with the patch: refused"
like "$msg" 'fs/proc/task_mmu.o does not compile with the patch' "  task_mmu.o does not compile"
like "$msg" 'the patch changes the layout of struct pde_opener' \
	"  the layout change inode.o shows is the reason given"
unlike "$msg" 'more than --max-units' "  (not the number of units)"

create proc-opener-layout-own 3
is "$rc" 1 "the layout change with a change to inode.c, 23 includers over --max-units 3: refused"
like "$msg" '23 includers to preprocess \(over --max-units 3\): first the layouts the patch.s own units show' \
	"  the patch's own unit compiled first"
like "$msg" 'the patch changes the layout of struct pde_opener' "  the layout change inode.o shows is the reason"
unlike "$msg" 'preprocessed [0-9]+ units before and after|as they were before the patch' \
	"  without preprocessing the includers"
create proc-opener-layout-own 40
is "$rc" 1 "(positive) the same under --max-units 40: refused"
like "$msg" 'preprocessed [0-9]+ units before and after|as they were before the patch' \
	"  after the includers went through the filter"
like "$msg" 'the patch changes the layout of struct pde_opener' "  for the same layout change"
