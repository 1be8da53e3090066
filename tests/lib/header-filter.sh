# The preprocessing filter, end to end (tests/t/78, tests/slow/81): a
# patch adds a static inline to a header and calls it in one unit, whose
# output then ends in " +ksplice".  Source after tap.sh, update.sh and
# module.sh; set before:
#   PATCH       the patch
#   HEADER      the header it changes, INCLUDERS_MIN..INCLUDERS_MAX units
#               including it (the include graph's count, checked)
#   UNIT FUNC   the unit that calls the new inline, the function changed
#   SHOW        a guest command printing the output that gets the mark
header_filter_test() {	# 15 tests
	local t0 t1 upd log n out base=${UNIT##*/}

	t0=$(date +%s)
	upd=$(make_update "$PATCH" hf)
	ok $? "${PATCH##*/}: an update builds from a new static inline in $HEADER and its use in $UNIT"
	t1=$(date +%s)
	[ -s "${upd:-}" ] || { sed 's/^/# /' "$tmp/create-hf.log" | tail -20; bail "no update file"; }
	log=$(cat "$tmp/create-hf.log")
	diag "$(grep -E 'include what|preprocessed|compiling' <<<"$log")"
	diag "ksplice-create took $((t1 - t0)) s"
	n=$(sed -n 's/^  \([0-9]*\) of the configuration.s units include what the patch changes$/\1/p' <<<"$log")
	ok $(( ${n:-0} < INCLUDERS_MIN || ${n:-0} > INCLUDERS_MAX )) \
		"the include graph finds the $INCLUDERS_MIN to $INCLUDERS_MAX units including $HEADER (${n:-none})"
	like "$log" "  preprocessed $(( ${n:-0} - 1 )) units before and after the patch in [0-9.]+ s: " \
		"  all but $base (compiled anyway: its source changed) are preprocessed"
	unlike "$log" '^  [^ ]+\.o: .*(changed|moved)' \
		"  none can compile differently (one that does not preprocess, wanting a header Kbuild makes while building, is compiled)"
	is "$(grep -c '^  compiling' <<<"$log")" 2 "  so only those are compiled, before and after"
	like "$log" "changed function: $FUNC \\($UNIT, vmlinux\\)" "$FUNC changed"
	is "$(grep -c 'changed function' <<<"$log")" 1 "  and nothing else"

	out=$(vm --file "$upd" -- "$guest_peek"'
		echo "BEFORE $('"$SHOW"')"
		ksplice-apply ksplice-hf.tar.gz >/dev/null; echo "APPLY=$?"
		peek hf applied
		echo "APPLIED $('"$SHOW"')"
		ksplice-undo hf >/dev/null; echo "UNDO=$?"
		echo "UNDONE $('"$SHOW"')"
		dmesg | grep -E "Oops|BUG:|WARNING:|general protection|Call Trace" | sed "s/^/DMESG: /"
	' 2>&1)
	ok $? "the guest ran the scenario"
	diag "$(printf '%s\n' "$out" | grep -v '^PEEK' | head -20)"
	unlike "$(grep '^BEFORE' <<<"$out")" '\+ksplice' "before: $SHOW prints the stock output"
	like "$out" 'APPLY=0' "the update applies"
	check_jumps applied "$out"; ok $? "  its changed functions jump to their new code"
	like "$out" 'APPLIED .* \+ksplice$' "  and $SHOW now ends in +ksplice"
	like "$out" 'UNDO=0' "undo"
	unlike "$(grep '^UNDONE' <<<"$out")" '\+ksplice' "  and $SHOW prints the stock output again"
	unlike "$out" 'DMESG:' "  no oops or warning in the kernel log"
}
