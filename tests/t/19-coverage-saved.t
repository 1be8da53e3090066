#!/bin/bash
# bench/coverage --save: a run takes the saved rows of its plan (not those
# of another plan, not those it has done, not the stages --retry names,
# not a cut row) and writes its rows back sorted by patch, keeping the
# saved rows it did not run again; the table counts what it took.
. "$(dirname "$0")/../lib/tap.sh"
set -u
saved=$KSPLICE_TOP/bench/lib/coverage-saved.pl
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT
head=$(printf 'file\tunits\tstage\tcause\tdetail\tseconds\tid\tundo\trev')
fresh() {	# a run's directory with its plan, nothing done
	rm -rf "$t/d"; mkdir -p "$t/d/done"
	printf 'cv0001\tfs/a.c\tc\ncv0002\tfs/b.c\tc\ncv0003\tfs/c.c include/x.h\tc+h\ncv0004\tfs/d.c\tc\n' >"$t/d/plan.tsv"
	printf '%s\n' "$head" >"$t/d/results.tsv"
	echo "6.1.187-1..6.1.190-1 on 6.1.0-53-amd64" >"$t/d/range"
	: >"$t/d/skipped.tsv"
}
{
	printf '%s\n' "$head"
	printf 'fs/d.c\t1\tapplied\tok\t\t30\tcv0004\tok\tabc\n'
	printf 'fs/a.c\t1\tapplied\tok\t\t20\tcv0001\tok\tabc\n'
	printf 'fs/b.c\t1\tmatch\tstring\tx\t25\tcv0002\t-\tabc\n'
	printf 'fs/c.c include/x.h\t2\tapplied\tok\t\t40\tcv0003\tok\tabc\n'
	printf 'fs/z.c\t1\tapplied\tok\t\t40\tcv0009\tok\tabc\n'
} >"$t/saved.tsv"
mkdir -p "$t/saved" "$t/cut" "$t/other"
cp "$t/saved.tsv" "$t/saved/results.tsv"

plan 28
fresh
printf 'fs/d.c\t1\tapplied\tok\t\t31\tcv0004\tok\tdef\n' >>"$t/d/results.tsv"
touch "$t/d/done/cv0004"
# cv0003's files differ from the saved row's: another plan's patch.
sed -i 's|^cv0003\t.*|cv0003\tfs/c.c\tc|' "$t/d/plan.tsv"
msg=$(perl "$saved" import "$t/d" "$t/saved" 2>&1)
ok $? "import runs"
like "$msg" "2 results taken from .*, 2 not of this plan" "  it says what it took and what it left out"
is "$(tail -n +2 "$t/d/results.tsv" | cut -f7 | sort | tr '\n' ' ')" "cv0001 cv0002 cv0004 " \
	"  the plan's rows are taken, the other plan's and an unknown patch's are not"
is "$(grep -c cv0004 "$t/d/results.tsv")" 1 "  a patch already done keeps its own row"
is "$(grep cv0004 "$t/d/results.tsv" | cut -f9)" def "  (the run's, not the saved one)"
ok "$([ -e "$t/d/done/cv0001" ] && [ -e "$t/d/done/cv0002" ] && [ ! -e "$t/d/done/cv0003" ]; echo $?)" \
	"  what it took is marked done, what it left out is not"
like "$(perl "$KSPLICE_TOP/bench/lib/coverage-summary.pl" "$t/d")" "applied live: 2 of 3 = 66.7%" \
	"  the table counts the rows taken"

fresh
msg=$(perl "$saved" import "$t/d" "$t/saved" failed 2>&1)
ok $? "import with --retry failed runs"
is "$(tail -n +2 "$t/d/results.tsv" | cut -f7 | sort | tr '\n' ' ')" "cv0001 cv0003 cv0004 " \
	"  the failure is left to run again, the applied ones are taken"
like "$msg" "1 left to run again" "  and it says so"

# A rerun where the rows were made: the run's own failure goes too.
fresh
printf 'fs/b.c\t1\tcreate\tdata-only\tx\t9\tcv0002\t-\tdef\n' >>"$t/d/results.tsv"
printf 'fs/d.c\t1\tapplied\tok\t\t31\tcv0004\tok\tdef\n' >>"$t/d/results.tsv"
touch "$t/d/done/cv0002" "$t/d/done/cv0004"
mkdir -p "$t/d/created"
touch "$t/d/created/cv0002" "$t/d/created/cv0004"
msg=$(perl "$saved" import "$t/d" "$t/saved" failed 2>&1)
ok $? "import with --retry failed, after a run of its own"
is "$(tail -n +2 "$t/d/results.tsv" | cut -f7 | sort | tr '\n' ' ')" "cv0001 cv0003 cv0004 " \
	"  its own failed row is removed, its applied one kept"
ok "$([ ! -e "$t/d/done/cv0002" ] && [ -e "$t/d/done/cv0004" ]; echo $?)" \
	"  the failed patch is no longer done, the applied one is"
ok "$([ ! -e "$t/d/created/cv0002" ] && [ -e "$t/d/created/cv0004" ]; echo $?)" \
	"  nor created (it is created again with the current code); the applied one still is"
like "$msg" "1 left to run again" "  counted once"
perl "$saved" import "$t/d" "$t/saved" 2>/dev/null
is "$(tail -n +2 "$t/d/results.tsv" | cut -f7 | sort | tr '\n' ' ')" "cv0001 cv0003 cv0004 " \
	"  a later run not told to retry it does not take its old saved row back (not redone yet)"

msg=$(perl "$saved" import "$t/d" "$t/saved" bogus 2>&1)
ok $((! $?)) "an unknown stage to retry is an error"
like "$msg" "no stage 'bogus'" "  saying which"

printf 'x\ty\n' >"$t/other/results.tsv"
msg=$(perl "$saved" import "$t/d" "$t/other" 2>&1)
ok $((! $?)) "a saved file of other columns is an error"
like "$msg" "has columns 'x.y', this run 'file" "  saying so"

perl "$saved" save "$t/d" "$t/new/dir"
ok $? "save runs (making the directory)"
is "$(cut -f7 "$t/new/dir/results.tsv" | tr '\n' ' ')" "id cv0001 cv0003 cv0004 " "  the saved file has the header and the rows by patch"
like "$(perl "$KSPLICE_TOP/bench/lib/coverage-summary.pl" "$t/new/dir" | tr '\n' ' ')" \
	"ksplice coverage of 6.1.187-1..6.1.190-1 on 6.1.0-53-amd64.*3 of 4 patches done.*applied live: 3 of 3" \
	"  with the plan and the range: the table of a saved run"

perl "$saved" save "$t/d" "$t/saved"
is "$(cut -f7 "$t/saved/results.tsv" | tr '\n' ' ')" "id cv0001 cv0002 cv0003 cv0004 cv0009 " \
	"saving over a saved run keeps its rows the run did not make (cv0002, left to run again)"
is "$(grep -c . "$t/saved/results.tsv")" 6 "  each patch once"
# A run that made only a later patch's row: the saved first row stays too.
fresh
printf 'fs/d.c\t1\tapplied\tok\t\t32\tcv0004\tok\tghi\n' >>"$t/d/results.tsv"
perl "$saved" save "$t/d" "$t/saved"
is "$(cut -f7,9 "$t/saved/results.tsv" | tr '\t\n' ': ')" "id:rev cv0001:abc cv0002:abc cv0003:abc cv0004:ghi cv0009:abc " \
	"saving one row keeps every other saved row, the first one too"

fresh
{ cat "$t/saved.tsv"; printf 'fs/a.c\t1\tapplied\tok'; } | sed '/cv0001/d' >"$t/cut/results.tsv"
perl "$saved" import "$t/d" "$t/cut" 2>/dev/null
is "$(tail -n +2 "$t/d/results.tsv" | cut -f7 | sort | tr '\n' ' ')" "cv0002 cv0003 cv0004 " \
	"a row cut short (a machine that died mid-write) is not taken"

# A patch id: that patch alone, whatever its stage.
fresh
printf 'fs/d.c\t1\tapplied\tok\t\t31\tcv0004\tok\tdef\n' >>"$t/d/results.tsv"
touch "$t/d/done/cv0004"
msg=$(perl "$saved" import "$t/d" "$t/saved" cv0004,cv0001 2>&1)
is "$(tail -n +2 "$t/d/results.tsv" | cut -f7 | sort | tr '\n' ' ')" "cv0002 cv0003 " \
	"--retry with patch ids runs those again, applied or not (the run's row and the saved one)"
