# A results directory of bench/coverage for one patch, cv0001, and a
# stand-in ksplice-create: tests of bench/lib/coverage-create source it.
#
#   coverage_fixture TMP FILE...   $TMP/{old,new} trees (filled by the
#                                  test), $TMP/out with a plan of FILE...,
#                                  their changes and the unit of the first
#   coverage_stand_in TMP < SCRIPT $TMP/bin/ksplice-create runs SCRIPT
#   coverage_create TMP            coverage-create of cv0001, the stand-in
#                                  first on PATH
#   coverage_results_header TMP    an empty results.tsv

coverage_results_header() {
	printf 'file\tunits\tstage\tcause\tdetail\tseconds\tid\tundo\trev\n' >"$1/out/results.tsv"
}

coverage_fixture() {
	local tmp=$1 f
	shift
	mkdir -p "$tmp"/{old,new,bin} "$tmp/out"/{patches,logs,updates,created,done,deferred}
	printf 'cv0001\t%s\tc\n' "$1" >"$tmp/out/plan.tsv"
	for f in "$@"; do
		printf 'M\t%s\n' "$f"
	done >"$tmp/out/changed"
	printf '%s\n' "${1%.c}.o" >"$tmp/out/units"
	coverage_results_header "$tmp"
}

coverage_stand_in() {
	cat >"$1/bin/ksplice-create"
	chmod +x "$1/bin/ksplice-create"
}

coverage_create() {
	PATH=$1/bin:$PATH "$KSPLICE_TOP/bench/lib/coverage-create" "$1/out" /nonexistent \
		"$1/old" "$1/new" 40 6000 cv0001
}
