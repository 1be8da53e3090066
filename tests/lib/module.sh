# Helpers for tests of updates to functions in modules (tests/t/7x-*.t).
# Source after tap.sh and update.sh.

# jump_target ADDR HEX: where the code at ADDR, whose first bytes (kpeek's
# hex, at least 14 bytes) are HEX, jumps to: the jmp rel32 ksplice writes,
# at the entry or right after ftrace's 5-byte nop or call -- on IBT kernels
# (6.12) after the entry's endbr64, or the 4-byte nop it is sealed into.
# "none" if none.
jump_target() {
	local addr=$1 hex=$2 off=0 b rel
	case ${hex:0:8} in f30f1efa|0f1f4000) off=4 ;; esac
	case ${hex:$((off * 2)):10} in 0f1f440000|e8*) off=$((off + 5)) ;; esac
	[ "${hex:$((off * 2)):2}" = e9 ] || { echo none; return; }
	b=${hex:$((off * 2 + 2)):8}
	rel=$((16#${b:6:2}${b:4:2}${b:2:2}${b:0:2}))
	rel=$(( (rel ^ 0x80000000) - 0x80000000 ))
	printf '0x%x\n' $((addr + off + 5 + rel))
}

# The two linux-source-6.1 trees of a Debian update OLD..NEW (cached).
debian_trees() {
	"$KSPLICE_TOP/scripts/fetch-source" "${1%%..*}" | tail -n 1 &&
	"$KSPLICE_TOP/scripts/fetch-source" "${1##*..}" | tail -n 1
}

# make_debian_update OLD..NEW ID BUILD: ksplice-create --debian; prints the
# update file's path.  Progress goes to $tmp/create-ID.log.
make_debian_update() {
	local out
	out=$(ksplice-create --build "$3" --debian "$1" --id "$2" -o "$tmp" \
		2>"$tmp/create-$2.log") || return
	printf '%s\n' "${out##*$'\n'}"
}

# Guest-side: "PEEK <tag> <name> <old> <new> <bytes at old>" for every
# function of update ID, from its sysfs functions file.
guest_peek='peek() {
	while read -r n o w; do
		b=none; [ "$o" = 0x0 ] || b=$(kpeek "$o" 16)
		echo "PEEK $2 $n $o $w $b"
	done </sys/kernel/ksplice/$1/functions
}'

# check_jumps TAG OUT: every function PEEKed under TAG in OUT has a known
# old address and jumps from there to its new code.  Prints what differs.
check_jumps() {
	local n o w b t bad=0 seen=0
	while read -r _ _ n o w b; do
		seen=$((seen + 1))
		t=none; [ "$o" = 0x0 ] || t=$(jump_target "$o" "$b")
		[ "$t" = "$w" ] || { echo "# $n at $o: jumps to $t, not to its new code $w"; bad=1; }
	done < <(printf '%s\n' "$2" | grep "^PEEK $1 ")
	[ "$seen" -gt 0 ] && [ "$bad" = 0 ]
}

# check_unpatched TAG OUT: no function PEEKed under TAG jumps to its new
# code (an old address of 0x0: its module is not loaded); a function whose
# bytes could not be read fails.
check_unpatched() {
	local n o w b bad=0 seen=0
	while read -r _ _ n o w b; do
		seen=$((seen + 1))
		[ "$o" = 0x0 ] && continue
		# an empty or short peek proves nothing about the code
		[ ${#b} -ge 20 ] || { echo "# $n at $o: no bytes read ('$b')"; bad=1; continue; }
		[ "$(jump_target "$o" "$b")" != "$w" ] ||
			{ echo "# $n at $o still jumps to $w"; bad=1; }
	done < <(printf '%s\n' "$2" | grep "^PEEK $1 ")
	[ "$seen" -gt 0 ] && [ "$bad" = 0 ]
}
