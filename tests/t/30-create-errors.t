#!/bin/bash
# ksplice-create refuses, with a clear message and a non-zero status, a
# patch that changes no code, a patch that does not apply and a patch that
# does not compile; and it leaves the source tree untouched.
. "$(dirname "$0")/../lib/tap.sh"
. "$KSPLICE_TOP/tests/lib/update.sh"
set -u
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT

plan 9
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

# Lines moved: pipe_double_lock's BUG_ON (its __LINE__ is in __bug_table,
# not in the code) and every function below it move down three lines.
{ printf -- '--- a/fs/pipe.c\n+++ b/fs/pipe.c\n@@ -108,2 +108,5 @@\n'
  sed -n '108,109p' "$src/fs/pipe.c" | sed 's/^/ /'
  printf '+\n+\n+\n'; } >"$tmp/lines.patch"
upd=$(make_update "$tmp/lines.patch" lines)
ok $(( $? == 0 )) "a patch that only moves lines (a BUG_ON's __LINE__) changes no function"
like "$(cat "$tmp/create-lines.log")" 'changes no code' "  ... and is refused as such"

is "$(md5sum "$src/fs/proc/cmdline.c")" "$sum_before" "the source tree is left unmodified"
