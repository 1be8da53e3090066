#!/bin/bash
# How the tools start programs (spawn() and run_command(), src/lib/util.c):
# argv[0] searched in PATH, started in a given directory, its exit status
# or signal passed back; a program or directory that is not there is an
# error of the call, said on stderr.  posix_spawn, not fork: a fork made
# every page of the caller copy-on-write, and ksplice-create, holding
# hundreds of megabytes of preprocessed text while it starts thousands of
# gcc -E, then faulted each page in again (7 million faults in one create
# of 432 includers: bench/create-faults).
. "$(dirname "$0")/../lib/tap.sh"
. "$KSPLICE_TOP/tests/lib/driver.sh"
set -u
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
build_driver spawn

plan 9
mkdir "$tmp/dir"
d=$tmp/spawn
is "$("$d" run "$tmp/dir" pwd)" "$tmp/dir
status 0" "a program found in PATH runs in the directory given"
is "$("$d" run - sh -c 'exit 3')" "status 3" "its exit status comes back"
is "$("$d" run - sh -c 'kill -9 $$')" "status 137" "  and 128 + the signal that ended it"
is "$("$d" run - /no/such/program 2>"$tmp/err")" "failed ENOENT" \
	"a program that is not there: the call fails"
like "$(cat "$tmp/err")" "cannot run /no/such/program: No such file or directory" \
	"  saying so"
is "$("$d" run "$tmp/none" pwd 2>"$tmp/err")" "failed ENOENT" \
	"a directory that is not there: the call fails"
like "$(cat "$tmp/err")" "cannot run pwd in $tmp/none" "  saying which"
n=$("$d" faults 64 | sed -n 's/^faults //p')
ok $([ -n "$n" ] && [ "$n" -lt 2048 ]; echo $?) \
	"writing 64 MB after starting a program faults few pages ($n; a fork: 16,384)"
n=$("$d" faults 0 | sed -n 's/^faults //p')
is "$n" 0 "  and none with nothing to write"
