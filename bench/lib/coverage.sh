# bench/coverage's steps (sourced by it): the plan, the VM batches, the table.
lib=$repo/bench/lib
. "$lib/coverage-rows.sh"

# headers_abi VERSION: the ABI of the installed linux-headers-*-amd64 of VERSION.
headers_abi() {
	dpkg-query -W -f '${Package} ${Version} ${Status}\n' 'linux-headers-*-amd64' 2>/dev/null |
		awk -v v="$1" '$2 == v && $NF == "installed" {
			sub(/^linux-headers-/, "", $1); print $1; found = 1; exit }
			END { exit !found }'
}

# changed_files OLD NEW: "M|A|D \t path" of every file that differs.
changed_files() {
	local old=$1 new=$2
	{ LC_ALL=C diff -rq "$old" "$new" || [ $? = 1 ]; } | perl -ne '
		BEGIN { ($o, $n) = splice @ARGV, 0, 2 }
		chomp;
		if (/^Files \Q$o\E\/(.*) and \Q$n\E\/.* differ$/) { print "M\t$1\n"; next }
		if (/^Only in (\Q$o\E|\Q$n\E)(\/(.*))?: (.*)$/) {
			my ($t, $d) = ($1 eq $o ? "D" : "A", defined $3 ? "$3/$4" : $4);
			my $root = $1;
			if (-d "$root/$d") {
				open my $f, "-|", "find", "$root/$d", "-type", "f" or die;
				while (<$f>) { chomp; s/^\Q$root\E\///; print "$t\t$_\n" }
			} else { print "$t\t$d\n" }
			next
		}
		print STDERR "coverage: cannot read diff line: $_\n";
	' "$old" "$new" | sort -t "$(printf '\t')" -k2
}

make_plan() {	# OLD NEW DIR SAMPLE SEED
	perl "$lib/coverage-plan.pl" "$@"
}

# run_batch DIR ABI ID...: one boot for these updates; rows for each that
# ran (a crash: the one running).  Returns 1 if the guest did not come up.
run_batch() {
	local out=$1 abi=$2; shift 2
	local n list mods=() files=() id rc tag
	n=$(ls "$out/vm" | grep -c '\.list$' || true)
	tag=$out/vm/batch-$(printf '%03d' $((n + 1)))
	list=$tag.list
	: >"$list"
	for id in "$@"; do
		# created/ID: seconds \t units \t targets
		targets=$(cut -f3 "$out/created/$id")
		echo "$id $targets" >>"$list"
		files+=(--file "$out/updates/ksplice-$id.tar.gz")
		for m in $targets; do mods+=(--module "$m"); done
	done
	mkdir -p "$tag.d"
	cp "$list" "$tag.d/batch.list"
	say "batch $(basename "$tag"): $# updates"
	# One guest at a time, also across runs: the machine has two cores.
	(
		flock 7
		"$repo/tests/vm/run" --kernel "$abi" --timeout $((120 + 60 * $#)) \
			--console "$tag.console" "${mods[@]}" "${files[@]}" \
			--file "$tag.d/batch.list" -- "$(cat "$lib/coverage-guest.sh")"
	) 7>>"$cache/coverage/.vm.lock" >"$tag.out" 2>&1
	rc=$?
	rm -rf "$tag.d"
	batch_rows "$out" "$tag" "$rc"
}

# batch_rows DIR TAG RC: the rows of one boot's output.
batch_rows() {
	local out=$1 tag=$2 rc=$3 line id
	grep -q '^COV-BEGIN ' "$tag.out" || {
		say "the guest did not come up (exit $rc): $(tail -n 3 "$tag.out" | tr '\n' ' ')"
		return 1
	}
	perl "$lib/coverage-classify.pl" "$tag.out" "$tag.console" "$rc" |
	while IFS=$'\t' read -r id stage cause detail secs undo; do
		local c u h
		c=$(cut -f1 "$out/created/$id") u=$(cut -f2 "$out/created/$id")
		h=$(cut -f4 "$out/created/$id")
		[ -z "$h" ] || detail="(with $h) $detail"
		row "$out" "$id" "$u" "$stage" "$cause" "$detail" $((c + secs)) "$undo"
		rm -f "$out/updates/ksplice-$id.tar.gz"
	done
	return 0
}

# save_rows DIR FILE: DIR's rows kept in FILE (none: --save not given).
save_rows() {
	[ -z "$2" ] || perl "$lib/coverage-saved.pl" save "$1" "$2"
}

# summary DIR: the table.
summary() {
	perl "$lib/coverage-summary.pl" "$1"
}
