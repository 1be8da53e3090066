#!/bin/bash
# The core's self-test (kmod/test/selftest.sh, see 50-core-selftest.t) in
# guests whose mitigations rewrite the special sites differently:
# retpolines or not, retpolines with LFENCE, ITS thunks, and AMD's return
# thunks (safe RET, untrain_ret).  Each guest runs the whole
# self-test; its failures are listed.  The guests run one after another:
# TCG guests are CPU-hungry and two at once miss boot timer checks.
# CI runs a fixed sample of three (one of each kind of rewrite: ITS
# thunks, AMD's safe RET, retpolines with LFENCE: about a minute each);
# KSPLICE_MITIGATIONS=all runs all six (make check-slow).
. "$(dirname "$0")/../lib/tap.sh"
. "$KSPLICE_TOP/tests/lib/update.sh"
set -u
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
t=$KSPLICE_TOP/kmod/test

# CPU|kernel arguments|what the guest's vulnerabilities files must say
# (a config the guest did not take would test nothing new).  The default
# qemu64 guest is 50-core-selftest.t's.  Skylake-Client-IBRS's IBRS is not
# taken under TCG (spectre_v2 stays retpolines); that guest is here for
# the ITS thunks.
configs=(
	"qemu64|spectre_v2=off|spectre_v2: Vulnerable;"
	"qemu64|spectre_v2=retpoline,lfence|spectre_v2: Vulnerable: LFENCE"
	"Skylake-Client-IBRS|spectre_v2=ibrs indirect_target_selection=force|indirect_target_selection: Mitigation: Aligned branch/return thunks"
	"EPYC||spec_rstack_overflow: Mitigation: safe RET"
	"EPYC|retbleed=unret spec_rstack_overflow=off|retbleed: Mitigation: untrained return thunk"
	"EPYC|spectre_v2=retpoline,lfence|spectre_v2: Vulnerable: LFENCE"
)
if [ "${KSPLICE_MITIGATIONS:-sample}" != all ]; then
	configs=("${configs[2]}" "${configs[3]}" "${configs[5]}")
fi
plan $((1 + 3 * ${#configs[@]}))
"$t/build.sh" >"$tmp/build.log" 2>&1
st=$?
ok $st "kmod/test/build.sh builds the core, the target and the self-test update"
[ $st = 0 ] || { diag "$(tail -n 30 "$tmp/build.log")"; exit 1; }

for c in "${configs[@]}"; do
	IFS='|' read -r cpu args want <<<"$c"
	name="$cpu${args:+ $args}"
	out=$(vm --cpu "$cpu" ${args:+--append "$args"} \
		--file "$KSPLICE_TOP/kmod/ksplice.ko" --file "$t/target/ksplice_target.ko" \
		--file "$t/update/selftest_update.ko" --file "$t/selftest.sh" -- \
		'sh selftest.sh' 2>&1)
	ok $? "$name: the guest ran the self-test and it passed (rig and selftest.sh exit 0)"
	diag "$name: $(printf '%s\n' "$out" | grep -E '^     (spectre_v2|retbleed|spec_rstack|indirect)|retpoline site at|failures$')"
	printf '%s\n' "$out" | grep '^FAIL' | sed "s/^/# $name: /"
	like "$out" '^0 failures$' "$name: selftest.sh reports 0 failures"
	like "$out" "^     $want" "$name: the guest runs with the configured mitigation ($want)"
done
