# Minimal TAP producer for the bash tests run by prove.
# Usage: . tests/lib/tap.sh; plan N; ok COND-STATUS "name"; like "$out" 'regex' "name"
_tap_n=0
_tap_fail=0

plan() { echo "1..$1"; }

ok() {
	local status=$1; shift
	_tap_n=$((_tap_n + 1))
	if [ "$status" -eq 0 ]; then
		echo "ok $_tap_n - $*"
	else
		echo "not ok $_tap_n - $*"
		_tap_fail=$((_tap_fail + 1))
	fi
}

# like TEXT REGEX NAME: TEXT matches the extended regex REGEX.
like() {
	if printf '%s\n' "$1" | grep -Eq -- "$2"; then ok 0 "$3"; else
		ok 1 "$3"; printf '# expected /%s/ in:\n' "$2"; printf '%s\n' "$1" | sed 's/^/#   /' | tail -n 40
	fi
}

unlike() {
	if printf '%s\n' "$1" | grep -Eq -- "$2"; then
		ok 1 "$3"; printf '# did not expect /%s/ in:\n' "$2"; printf '%s\n' "$1" | sed 's/^/#   /' | tail -n 40
	else ok 0 "$3"; fi
}

is() {
	if [ "$1" = "$2" ]; then ok 0 "$3"; else
		ok 1 "$3"; printf '# got:      %s\n# expected: %s\n' "$1" "$2"
	fi
}

diag() { printf '%s\n' "$*" | sed 's/^/# /'; }

bail() { echo "Bail out! $*"; exit 1; }

# The repository's top directory, from a test file's location.
KSPLICE_TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
