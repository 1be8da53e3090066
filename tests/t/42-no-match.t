#!/bin/bash
# An update built from a source that is not the running kernel's is refused
# by run-pre matching (no_match, naming the function) and leaves the
# kernel's text as it was.
. "$(dirname "$0")/../lib/tap.sh"
. "$KSPLICE_TOP/tests/lib/update.sh"
set -u
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT

plan 10
# A source tree that differs from the running kernel in cmdline_proc_show:
# hard links to the pinned tree, with that one file replaced.
src=$(ksplice_source)
skew=${KSPLICE_CACHE:-$HOME/.cache/ksplice}/skewed-source
if [ ! -e "$skew/.complete" ]; then
	rm -rf "$skew"; mkdir -p "$skew"
	cp -al "$src" "$skew/linux"
	f=$skew/linux/fs/proc/cmdline.c
	sed 's/seq_putc(m, .\\n.);/seq_putc(m, 0x20);\n\tseq_putc(m, 0x0a);/' "$f" >"$f.new" && mv "$f.new" "$f"
	touch "$skew/.complete"
fi
grep -q '0x20' "$skew/linux/fs/proc/cmdline.c"
ok $? "the skewed source differs in cmdline_proc_show"
# The fix on top of the skewed source: patch lines carry the skewed context.
(cd "$skew/linux" && sed 's/seq_puts(m, saved_command_line);/&\n\tseq_puts(m, " ksplice=applied");/' fs/proc/cmdline.c |
	diff -u fs/proc/cmdline.c - | sed '1s|.*|--- a/fs/proc/cmdline.c|;2s|.*|+++ b/fs/proc/cmdline.c|') >"$tmp/skew.patch"
upd=$(make_update "$tmp/skew.patch" skew "$skew/linux")
ok $? "ksplice-create builds an update from the skewed source"

out=$(vm --file "$upd" -- '
	before=$(kpeek cmdline_proc_show 64)
	ksplice-apply ksplice-skew.tar.gz; echo "APPLY-STATUS=$?"
	after=$(kpeek cmdline_proc_show 64)
	[ -n "$before" ] && [ "$before" = "$after" ] && echo TEXT-UNCHANGED
	echo "CAUSE: $(cat /sys/kernel/ksplice/skew/abort_cause 2>/dev/null || echo gone)"
	# lsmod ran if it lists the core, which the tools leave loaded
	lsmod >/tmp/mods; grep -q "^ksplice " /tmp/mods && echo "CORE-LISTED"
	grep -q "^ksplice_skew " /tmp/mods && echo "UPDATE-MODULE-STILL-LOADED"
	echo "CMDLINE: $(cat /proc/cmdline)"
' 2>&1)
ok $? "the guest ran the scenario (the rig exited 0: no boot failure, crash or timeout)"
diag "$(printf '%s\n' "$out" | head -20)"
like "$out" 'APPLY-STATUS=[1-9]' "ksplice-apply fails"
like "$out" 'no_match|not built from .*source|does not match' "the failure says the code does not match"
like "$out" 'cmdline_proc_show' "the failure names the function"
like "$out" 'TEXT-UNCHANGED' "the function's bytes in the running kernel are unchanged"
like "$out" 'CORE-LISTED' "lsmod lists the loaded modules (the core)"
like "$out" '^CMDLINE: .+' "/proc/cmdline is read after the refusal"
unlike "$out" 'UPDATE-MODULE-STILL-LOADED|CMDLINE: .*ksplice=applied' "nothing of the update is left loaded or running"
