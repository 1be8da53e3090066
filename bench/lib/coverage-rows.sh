# Result rows and failure causes of bench/coverage (sourced).

# row DIR ID UNITS STAGE CAUSE DETAIL SECONDS UNDO: one result line of
# DIR/results.tsv (under a lock: creates and the VM loop both write), and
# DIR/done/ID so that a rerun skips the patch.
row() {
	local out=$1 id=$2 files
	files=$(awk -F'\t' -v id="$id" '$1 == id { print $2 }' "$out/plan.tsv")
	(
		flock 8
		printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$files" "$3" "$4" "$5" \
			"$(printf '%s' "$6" | tr '\t\n' '  ' | cut -c1-300)" "$7" "$id" "$8" \
			"${KSPLICE_COVERAGE_REV:--}" >>"$out/results.tsv"
		touch "$out/done/$id"
	) 8>>"$out/results.lock"
}

# create_cause LOG RC: "cause detail" of a refused ksplice-create, from what
# it says (src/create/*.c).
create_cause() {
	perl -e '
		my ($log, $rc) = @ARGV;
		open my $f, "<", $log or do { print "no-log cannot read $log\n"; exit };
		my @l = <$f>; chomp @l;
		my @err = grep { /^ksplice-create: / && !/work directory kept|: update \S+ for |removing a patch an interrupted run/ } @l;
		my $e = @err ? $err[-1] : "";
		$e =~ s/^ksplice-create: //;
		my $first = $err[0] // ""; $first =~ s/^ksplice-create: //;
		my ($build) = grep { /\berror:|ERROR:|undefined!|fixdep: error/ } @l;
		$build //= ""; $build =~ s/^\s+//;
		my @r =
		  $rc > 128 ? ("tool-crash", "ksplice-create died of signal " . ($rc - 128)) :
		  $e =~ /does not apply to/ ? ("patch-does-not-apply", $e) :
		  $e =~ /changes the layout of/ ? ("struct-layout", join("; ", map { s/^\s*changed layout: //r } grep { /^  changed layout: / } @l)) :
		  $first =~ /does not compile without the patch/ ? ("compile-pre", "$first; $build") :
		  $first =~ /does not compile with the patch/ ? ("compile-post", "$first; $build") :
		  $first =~ /shares section (\S+)/ ? ("shared-section", $first) :
		  $first =~ /inside an alternative/ ? ("alt-unexported-ref", $first) :
		  $first =~ /referenced but not carried/ ? ("new-func-not-carried", $first) :
		  $e =~ /^changed data: .*cannot be patched in place/ ? ("existing-data", $e =~ s/^changed data: //r) :
		  $e =~ /changes \d+ existing variables?/ ? ("existing-data", join("; ", map { s/^\s*changed data: //r } grep { /^  changed data: / } @l)) :
		  $e =~ /entr(?:y|ies) of tables the kernel built at boot/ ? ("boot-table", join("; ", map { s/^\s*changed table: //r } grep { /^  changed table: / } @l)) :
		  $e =~ /more than --max-units/ ? ("max-units", $e) :
		  $e =~ /more than --max-reach/ ? ("max-reach", $e) :
		  $e =~ /changes no C source that this configuration builds/ ? ("no-unit-includes-it", $e) :
		  $e =~ /changes nothing the code of the \d+ units including it can see/ ? ("no-unit-sees-it", $e) :
		  $e =~ /changes no code in a function/ ? ("nothing-to-update", $e) :
		  $e =~ /building the update module failed/ ? ("module-build", $build || $e) :
		  $e =~ /building the ksplice core module failed/ ? ("core-build", $build || $e) :
		  $e =~ /preparing the kernel tree/ ? ("prepare", $e) :
		  $e =~ /Kbuild could not list/ ? ("list-units", $e) :
		  $first =~ /jump label|alternative without|libelf/ ? ("internal", $first) :
		  $e ne "" ? ("other", $e) : ("other", "exit $rc, no message");
		$r[1] =~ s/\s+/ /g;
		print "$r[0] $r[1]\n";
	' "$1" "$2"
}

# init_only LOG: when a create found nothing to update because all that
# changed is code or data used only at initialization (which has run), the
# detail naming them; otherwise fails.
init_only() {
	local names
	names=$(sed -n 's/^  note: \(.*\) runs only at initialization.*/\1/p
		s/^  note: \(.*\) is used only at initialization.*/\1 (data)/p' "$1" |
		head -5 | tr '\n' ' ')
	[ -n "$names" ] || return 1
	echo "only code or data used at initialization changed: $names"
}
