#!/bin/bash
# An update of hooks alone (tests/patches/hooks-only.patch): fs/pipe.c
# raises pipe_max_size's initial value and changes no function; its
# stop-apply and stop-undo hooks set the running variable, its pre-apply
# hook refuses while the administrator has tuned it (and reads the static
# variable: the hooks are relocated before any of them runs).  It builds,
# replaces nothing, applies (the sysctl shows the new value) and undoes.
# The same built with --replace takes over from it: the replaced update's
# undo hooks never run (the variable stays set), the replacement's undo
# ones do.  A patch that changes neither a function nor has a hook stays
# refused.
. "$(dirname "$0")/../lib/tap.sh"
. "$KSPLICE_TOP/tests/lib/update.sh"
set -u
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT

plan 28
upd=$(make_update "$KSPLICE_TOP/tests/patches/hooks-only.patch" ho)
ok $? "ksplice-create builds the update of hooks alone"
[ -s "$upd" ] || { sed 's/^/# /' "$tmp/create-ho.log" | tail -30; bail "no update file"; }
log=$(cat "$tmp/create-ho.log")
like "$log" 'no function replaced: the update runs its hooks' "  it says no function is replaced"
unlike "$log" 'changed function:' "  no function changed"
man=$(tar xzOf "$upd" manifest)
like "$man" '^hook: stop-apply pipe_stop_apply$' "  the manifest lists its hooks"
unlike "$man" '^function:' "  and no function"
hor=$(make_replace "$KSPLICE_TOP/tests/patches/hooks-only.patch" hor)
ok $? "the same built as a replace update"
[ -s "$hor" ] || { sed 's/^/# /' "$tmp/create-hor.log" | tail -30; bail "no replace update file"; }

# Nothing to do: a comment reworded (no line moves).  Refused, saying so.
cat >"$tmp/comment.patch" <<'P'
--- a/fs/pipe.c
+++ b/fs/pipe.c
@@ -49,7 +49,7 @@
 
 /*
- * The max size that a non-root user is allowed to grow the pipe. Can
+ * The maximum size that a non-root user may grow the pipe to. Can
  * be set by root in /proc/sys/fs/pipe-max-size
  */
 static unsigned int pipe_max_size = 1048576;
P
mkdir -p "$tmp/c"
out=$(ksplice-create --build "$KSPLICE_BUILD" --patch "$tmp/comment.patch" --id comment \
	-o "$tmp/c" "$(ksplice_source)" 2>&1)
rc=$?
ok $([ "$rc" != 0 ]; echo $?) "a patch that changes no function and has no hooks is refused (exit $rc)"
like "$out" 'changes no code in a function: nothing to update \(no function replaced, no hook registered, no export added\)' "  as nothing to update"

out=$(vm --file "$upd" --file "$hor" -- '
	echo "MAX0 $(cat /proc/sys/fs/pipe-max-size)"
	echo 524288 >/proc/sys/fs/pipe-max-size
	ksplice-apply ksplice-ho.tar.gz >/tmp/a 2>&1; echo "REFUSE-STATUS=$?"
	sed "s/^/REFUSE: /" /tmp/a
	echo "MAX1 $(cat /proc/sys/fs/pipe-max-size)"
	echo 1048576 >/proc/sys/fs/pipe-max-size
	ksplice-apply ksplice-ho.tar.gz >/tmp/a 2>&1; echo "APPLY-STATUS=$?"
	sed "s/^/APPLY: /" /tmp/a
	echo "STAGE $(cat /sys/kernel/ksplice/ho/stage)"
	echo "MAX2 $(cat /proc/sys/fs/pipe-max-size)"
	hooklog() { dmesg -c | tee -a /tmp/kmsg | sed -n "s/^.*ksplice-hooks-only: //p" | tr "\n" "|"; }
	echo "LOG-APPLY $(hooklog)"
	ksplice-apply ksplice-hor.tar.gz >/tmp/a 2>&1; echo "REPLACE-STATUS=$?"
	sed "s/^/REPLACE: /" /tmp/a
	echo "STAGES $(cat /sys/kernel/ksplice/ho/stage 2>/dev/null || echo gone) $(cat /sys/kernel/ksplice/hor/stage)"
	echo "MAX3 $(cat /proc/sys/fs/pipe-max-size)"
	echo "LOG-REPLACE $(hooklog)"
	ksplice-undo hor; echo "UNDO-STATUS=$?"
	echo "MAX4 $(cat /proc/sys/fs/pipe-max-size)"
	echo "LOG-UNDO $(hooklog)"
	dmesg >>/tmp/kmsg
	grep -E "Oops|BUG:|WARNING:|general protection" /tmp/kmsg | sed "s/^/DMESG: /"
' 2>"$tmp/vm.err")
status=$?
diag "$out"
[ -s "$tmp/vm.err" ] && diag "$(head -40 "$tmp/vm.err")"
ok "$status" "the guest ran the commands and did not crash (rig status $status)"

like "$out" 'MAX0 1048576' "pipe-max-size is stock before"
like "$out" 'REFUSE-STATUS=[1-9]' "tuned by the administrator: the pre-apply hook refuses"
like "$out" 'REFUSE: .*pipe-max-size is 524288, not a default' "  with its message (it read the running static)"
like "$out" 'MAX1 524288' "  and the tuned value stays"
like "$out" 'APPLY-STATUS=0' "at the default the update applies"
like "$out" 'APPLY: .*hook stop-apply pipe_stop_apply' "  ksplice-apply names the hooks"
unlike "$out" 'APPLY: .*replaced' "  and replaces no function"
like "$out" 'STAGE applied' "  the core shows it applied"
like "$out" 'MAX2 2097152' "  the stop-apply hook set the running pipe_max_size"
is "$(sed -n 's/^LOG-APPLY //p' <<<"$out")" "stop-apply pipe_max_size=2097152|" \
	"  its stop-apply hook ran once (none at the refused apply)"
like "$out" 'REPLACE-STATUS=0' "the replace update applies over it"
like "$out" 'REPLACE: .*replaced update ho' "  saying it replaced ho"
like "$out" 'STAGES (reversed|gone) applied' "  the replaced update is gone (reversed, its module unloaded)"
like "$out" 'MAX3 2097152' "  the running value stays"
is "$(sed -n 's/^LOG-REPLACE //p' <<<"$out")" "stop-apply pipe_max_size=2097152|" \
	"  the replacement's stop-apply ran; the replaced update's stop-undo did not"
like "$out" 'UNDO-STATUS=0' "ksplice-undo of the replacement succeeds"
like "$out" 'MAX4 1048576' "  its stop-undo hook set the value back"
is "$(sed -n 's/^LOG-UNDO //p' <<<"$out")" "stop-undo pipe_max_size=1048576|" \
	"  once"
unlike "$out" '^DMESG' "no oops or warning"
