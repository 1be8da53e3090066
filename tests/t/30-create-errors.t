#!/bin/bash
# ksplice-create refuses, with a clear message and a non-zero status, a
# patch that changes no code, a patch that does not apply and a patch that
# does not compile; and it leaves the source tree untouched.
. "$(dirname "$0")/../lib/tap.sh"
. "$KSPLICE_TOP/tests/lib/update.sh"
set -u
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT

plan 46
src=$(ksplice_source)
sum_before=$(md5sum "$src/fs/proc/cmdline.c")

cat >"$tmp/comment.patch" <<'P'
--- a/fs/proc/cmdline.c
+++ b/fs/proc/cmdline.c
@@ -6,6 +6,7 @@
 
 static int cmdline_proc_show(struct seq_file *m, void *v)
 {
+	/* a comment changes no code */
 	seq_puts(m, saved_command_line);
 	seq_putc(m, '\n');
 	return 0;
P
upd=$(make_update "$tmp/comment.patch" nocode)
ok $(( $? == 0 )) "a patch that changes no code is refused"
like "$(cat "$tmp/create-nocode.log")" 'changes no code' "  ... saying so"

printf -- '--- a/fs/proc/cmdline.c\n+++ b/fs/proc/cmdline.c\n@@ -9,1 +9,1 @@\n-\tseq_puts(m, saved_command_line);\n+\tseq_puts(m, no_such_variable);\n' >"$tmp/broken.patch"
upd=$(make_update "$tmp/broken.patch" broken)
ok $(( $? == 0 )) "a patch that does not compile is refused"
like "$(cat "$tmp/create-broken.log")" 'does not compile' "  ... saying so"

printf -- '--- a/fs/proc/cmdline.c\n+++ b/fs/proc/cmdline.c\n@@ -9,1 +9,1 @@\n-\tthis line is not in the file;\n+\tnor this one;\n' >"$tmp/stale.patch"
upd=$(make_update "$tmp/stale.patch" stale)
ok $(( $? == 0 )) "a patch that does not apply is refused"
like "$(cat "$tmp/create-stale.log")" 'does not apply' "  ... saying so"

# Two diffs of one file pass patch's dry run and fail half-applied: the
# prepared tree would keep the first (a bench patch did that once).
{ printf -- '--- a/fs/proc/cmdline.c\n+++ b/fs/proc/cmdline.c\n@@ -9,1 +9,1 @@\n-\tseq_puts(m, saved_command_line);\n+\tseq_puts(m, saved_command_line );\n'
  printf -- '--- a/fs/proc/cmdline.c\n+++ b/fs/proc/cmdline.c\n@@ -9,1 +9,1 @@\n-\tseq_puts(m, saved_command_line);\n+\tseq_puts(m, saved_command_line );\n'; } >"$tmp/twice.patch"
upd=$(make_update "$tmp/twice.patch" twice)
ok $(( $? == 0 )) "a patch with two diffs of one file is refused"
like "$(cat "$tmp/create-twice.log")" 'changes fs/proc/cmdline.c in two diffs' "  ... saying so"
unlike "$(cat "$tmp/create-twice.log")" 'compiling' "  before anything is applied or compiled"

# Lines moved: pipe_double_lock's BUG_ON (its __LINE__ is in __bug_table,
# not in the code) and every function below it move down three lines.
{ printf -- '--- a/fs/pipe.c\n+++ b/fs/pipe.c\n@@ -108,2 +108,5 @@\n'
  sed -n '108,109p' "$src/fs/pipe.c" | sed 's/^/ /'
  printf '+\n+\n+\n'; } >"$tmp/lines.patch"
upd=$(make_update "$tmp/lines.patch" lines)
ok $(( $? == 0 )) "a patch that only moves lines (a BUG_ON's __LINE__) changes no function"
like "$(cat "$tmp/create-lines.log")" 'changes no code' "  ... and is refused as such"

# A blank line at the top of arch/x86/kvm/x86.c moves every line: the
# only trace of it in the objects is a line number, in __bug_table and in
# the string fortify's memcpy warning would print ("... at
# arch/x86/kvm/x86.c:8493"), which no running kernel notices.
{ printf -- '--- a/arch/x86/kvm/x86.c\n+++ b/arch/x86/kvm/x86.c\n@@ -1,2 +1,3 @@\n+\n'
  head -n 2 "$src/arch/x86/kvm/x86.c" | sed 's/^/ /'; } >"$tmp/blank.patch"
upd=$(make_update "$tmp/blank.patch" blank)
ok $(( $? == 0 )) "a blank line at the top of arch/x86/kvm/x86.c is refused"
like "$(cat "$tmp/create-blank.log")" 'nothing to update' "  ... as nothing to update"
unlike "$(cat "$tmp/create-blank.log")" 'changed function' "  no function is taken as changed"
# The same blank line and a real change further down: only that is found.
line=$(grep -n '^bool kvm_arch_has_noncoherent_dma' "$src/arch/x86/kvm/x86.c" | cut -d: -f1)
{ cat "$tmp/blank.patch"
  printf -- '@@ -%d,3 +%d,3 @@\n' $((line + 1)) $((line + 2))
  sed -n "$((line + 1))p" "$src/arch/x86/kvm/x86.c" | sed 's/^/ /'
  printf -- '-\treturn atomic_read(&kvm->arch.noncoherent_dma_count);\n'
  printf -- '+\treturn atomic_read(&kvm->arch.noncoherent_dma_count) > 0;\n'
  sed -n "$((line + 3))p" "$src/arch/x86/kvm/x86.c" | sed 's/^/ /'; } >"$tmp/real.patch"
upd=$(make_update "$tmp/real.patch" realkvm)
ok $? "  with a real change in the same file, an update builds"
log=$(cat "$tmp/create-realkvm.log")
like "$log" 'changed function: kvm_arch_has_noncoherent_dma \(arch/x86/kvm/x86.c, kvm\)' \
	"  and the changed function is found"
unlike "$log" 'changed function: prepare_emulation_failure_exit' \
	"  but not prepare_emulation_failure_exit, whose only difference is a line number"

# Code that runs while ksplice patches is refused by name (the table in
# include/ksplice-unpatchable.h), and so is what the kernel marks
# NOKPROBE_SYMBOL; a function beside it in the same file is not.
# edit_patch FILE SED-SCRIPT: the patch of that edit of the pinned source.
edit_patch() {
	mkdir -p "$tmp/edit"
	sed "$2" "$src/$1" >"$tmp/edit/new.c"
	diff -u --label "a/$1" --label "b/$1" "$src/$1" "$tmp/edit/new.c"
}
edit_patch kernel/stop_machine.c \
	'/^notrace void __weak stop_machine_yield/,/^}/s/\tcpu_relax();/\tcpu_relax();\n\tcpu_relax();/' \
	>"$tmp/stopm.patch"
upd=$(make_update "$tmp/stopm.patch" stopm)
ok $(( $? == 0 )) "a change to stop_machine_yield is refused"
like "$(cat "$tmp/create-stopm.log")" \
	'stop_machine_yield \(kernel/stop_machine.c\) cannot be patched live: stop_machine\(\) holds every CPU' \
	"  ... naming the function and why"
like "$(cat "$tmp/create-stopm.log")" 'a reboot is needed' "  ... and what to do"
edit_patch kernel/notifier.c \
	'/^int atomic_notifier_call_chain(/,/^}/s/^\trcu_read_lock();/\tif (!nh)\n\t\treturn NOTIFY_DONE;\n\trcu_read_lock();/' \
	>"$tmp/nokprobe.patch"
upd=$(make_update "$tmp/nokprobe.patch" nokprobe)
ok $(( $? == 0 )) "a change to atomic_notifier_call_chain (NOKPROBE_SYMBOL) is refused"
like "$(cat "$tmp/create-nokprobe.log")" \
	'atomic_notifier_call_chain \(kernel/notifier.c\) cannot be patched live: the kernel marks it NOKPROBE_SYMBOL' \
	"  ... saying the kernel marks it so"
edit_patch kernel/notifier.c \
	's/^\treturn !rcu_access_pointer(nh->head);/\treturn !nh || !rcu_access_pointer(nh->head);/' \
	>"$tmp/notifier-ok.patch"
upd=$(make_update "$tmp/notifier-ok.patch" notifierok)
ok $? "a change to atomic_notifier_call_chain_is_empty, beside it, builds"
like "$(cat "$tmp/create-notifierok.log")" \
	'changed function: atomic_notifier_call_chain_is_empty' "  ... as that function's update"

# A change only to __init code (it ran at boot) is reported as such and
# builds nothing; with a change to normal code beside it, that one builds.
edit_patch fs/proc/cmdline.c \
	's/proc_create_single("cmdline", 0, NULL/proc_create_single("cmdline", 0444, NULL/' \
	>"$tmp/init.patch"
upd=$(make_update "$tmp/init.patch" initonly)
ok $(( $? == 0 )) "a change only to __init code builds no update"
like "$(cat "$tmp/create-initonly.log")" \
	'note: proc_cmdline_init runs only at initialization; its change is not applied' \
	"  ... and says the function runs only at initialization"
edit_patch fs/proc/cmdline.c \
	's/proc_create_single("cmdline", 0, NULL/proc_create_single("cmdline", 0444, NULL/; s/^\tseq_putc(m, .\\n.);/\tseq_puts(m, " init");\n&/' \
	>"$tmp/initmix.patch"
upd=$(make_update "$tmp/initmix.patch" initmix)
ok $? "with a change to normal code too, the update builds"
log=$(cat "$tmp/create-initmix.log")
like "$log" 'changed function: cmdline_proc_show' "  replacing that function"
like "$log" 'note: proc_cmdline_init runs only at initialization' "  and noting the __init one"

# -o DIR is checked before anything is built.
t0=$(date +%s)
msg=$(ksplice-create --build "$KSPLICE_BUILD" --patch "$tmp/comment.patch" --id nodir \
	-o /nonexistent "$src" 2>&1)
st=$? t1=$(date +%s)
is "$st" 1 "-o /nonexistent is refused"
like "$msg" '-o /nonexistent: No such file or directory' "  saying so"
ok $(( t1 - t0 > 3 )) "  within seconds, before compiling anything ($((t1 - t0)) s)"

# The prepared tree is never left half-patched.  fs/proc/./cmdline.c is
# fs/proc/cmdline.c under a name the check of two diffs of one file does
# not know: patch's dry run passes (each diff is checked against the file
# as it is), the real run applies the first diff and rejects the second.
tree=$(prepared_tree "$src")
ok $? "the prepared tree of the pinned source is found ($tree)"
# same_as_source FILE...: each FILE of the prepared tree is the source's.
same_as_source() {
	local f
	for f in "$@"; do
		flock "$tree/lock" cmp -s "$src/$f" "$tree/src/$f" || return
		[ ! -e "$tree/src/$f.rej" ] && [ ! -e "$tree/src/$f.orig" ] || return
	done
}
{ printf -- '--- a/fs/proc/cmdline.c\n+++ b/fs/proc/cmdline.c\n@@ -9,1 +9,1 @@\n-\tseq_puts(m, saved_command_line);\n+\tseq_puts(m, "half-applied");\n'
  printf -- '--- a/fs/proc/./cmdline.c\n+++ b/fs/proc/./cmdline.c\n@@ -9,1 +9,1 @@\n-\tseq_puts(m, saved_command_line);\n+\tseq_puts(m, "never");\n'; } >"$tmp/alias.patch"
upd=$(make_update "$tmp/alias.patch" alias)
ok $(( $? == 0 )) "a patch whose second diff fails only when applied for real is refused"
log=$(cat "$tmp/create-alias.log")
like "$log" 'does not apply to .*though its dry run passed' "  ... saying so"
like "$log" 'the patch did not apply; the 2 files it names in .* are restored from the source' \
	"  ... and that the prepared tree is restored"
same_as_source fs/proc/cmdline.c
ok $? "  the prepared tree's fs/proc/cmdline.c is the source's again, no .rej or .orig left"
flock "$tree/lock" test ! -e "$tree/applied.patch"
ok $? "  and no patch is recorded as applied in it"

# A run killed while patch applied the first of two files leaves the
# tree half-patched, with the patch recorded: the next run's reverse
# fails (the second file is not patched; without --forward patch would
# "ignore -R" and patch it) and every file is restored instead.
{ printf -- '--- a/fs/proc/cmdline.c\n+++ b/fs/proc/cmdline.c\n@@ -9,1 +9,1 @@\n-\tseq_puts(m, saved_command_line);\n+\tseq_puts(m, "crashed");\n'
  printf -- '--- a/fs/proc/version.c\n+++ b/fs/proc/version.c\n@@ -1,1 +1,1 @@\n'
  head -n 1 "$src/fs/proc/version.c" | sed 's/^/-/'
  head -n 1 "$src/fs/proc/version.c" | sed 's/^/+/; s/$/ \/* crashed *\//'; } >"$tmp/crash.patch"
head -n 6 "$tmp/crash.patch" >"$tmp/crash-first.patch"
flock "$tree/lock" sh -c 'cp "$1" "$2/applied.patch" &&
	patch -p1 --batch --silent --forward -d "$2/src" -i "$3"' - \
	"$tmp/crash.patch" "$tree" "$tmp/crash-first.patch"
ok $? "a crashed run's state is set up: the patch recorded, its first file patched"
edit_patch fs/proc/cmdline.c 's/^\tseq_putc(m, .\\n.);/\tseq_puts(m, " after");\n&/' \
	>"$tmp/after.patch"
upd=$(make_update "$tmp/after.patch" after)
ok $? "the next create on the same tree builds"
log=$(cat "$tmp/create-after.log")
like "$log" 'the patch did not come back out of the tree; the 2 files it names in .* are restored from the source' \
	"  after restoring the crashed run's files, saying so"
like "$log" 'changed function: cmdline_proc_show' "  its update replaces cmdline_proc_show"
unlike "$log" 'changed function: version_proc_show|crashed|half-applied' \
	"  built from the source, not from a crashed or failed run's changes"
same_as_source fs/proc/cmdline.c fs/proc/version.c
ok $? "  and the prepared tree's files are the source's afterwards"
flock "$tree/lock" test ! -e "$tree/applied.patch"
ok $? "  with no patch recorded as applied"

is "$(md5sum "$src/fs/proc/cmdline.c")" "$sum_before" "the source tree is left unmodified"
