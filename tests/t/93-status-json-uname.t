#!/bin/bash
# What the administrator sees, against a fake sysfs tree (nothing is
# loaded into this machine's kernel): the CVE ids of a --debian update,
# from Debian's changelog by dpkg-parsechangelog, in the manifest;
# ksplice-view ID showing them; ksplice-view --status and its exit codes;
# ksplice-view --json (valid JSON, also for hostile strings); ksplice-uname
# with the effective version, in dpkg's order of versions.
. "$(dirname "$0")/../lib/tap.sh"
cd "$KSPLICE_TOP" || bail "no $KSPLICE_TOP"
plan 38

. tests/lib/fake-sysfs.sh
fake_setup status
mkdir -p "$KSPLICE_SYSFS" "$KSPLICE_STORE/$rel"

### CVE ids from Debian's changelog (the pinned source packages, cached).
. ./versions
out=$(ksplice-create --list-cves "$KSPLICE_NFSD_UPDATE" 2>"$tmp/err")
ok $? "ksplice-create --list-cves $KSPLICE_NFSD_UPDATE succeeds" || sed 's/^/# /' "$tmp/err"
is "$out" CVE-2026-99362 "... naming the nfsd fix's CVE"
out=$(ksplice-create --list-cves "$KSPLICE_EXT4_UPDATE" 2>"$tmp/err")
ok $? "ksplice-create --list-cves $KSPLICE_EXT4_UPDATE succeeds"
is "$out" "" "... naming none (its entry closes a bug, no CVE)"
out=$(ksplice-create --list-cves 6.1.192-1..nope 2>&1)
[ $? -eq 1 ]; ok $? "a bad range: refused"

### The manifest: cve lines, format 3 only with them.
fake_update nfsd "$rel" 6.1.192-2..6.1.192-3 "CVE-2026-99362 CVE-2026-1234"
fake_update plain "$rel" "" ""
mkdir "$tmp/x1" "$tmp/x2"
m=$("$tmp/uft" extract "$tmp/nfsd.tar.gz" "$tmp/x1")
like "$m" '^format: 3$' "an update with CVEs is format 3"
like "$m" $'cve: CVE-2026-99362\ncve: CVE-2026-1234' "... its cve lines read back, in order"
m=$("$tmp/uft" extract "$tmp/plain.tar.gz" "$tmp/x2")
like "$m" '^format: 2$' "one without stays format 2 (older readers read it)"
out=$(UPDATE_FILE_TEST_CVES="CVE-26-1" "$tmp/uft" write "$tmp/bad.tar.gz" bad "$rel" \
	"$tmp/ksplice_plain.ko" "$tmp/ksplice.ko" f 2>&1)
[ $? -ne 0 ] && [ ! -e "$tmp/bad.tar.gz" ]
ok $? "an invalid CVE id is refused, nothing written"
like "$out" "invalid CVE id 'CVE-26-1'" "... saying so"

json() {	# PYTHON-EXPRESSION on the parsed JSON "j"
	ksplice-view --json >"$tmp/json" 2>&1 &&
	python3 -c "import json,sys; j=json.load(open(sys.argv[1])); print($1)" "$tmp/json"
}

### --status before and after --installed.
cp "$tmp/nfsd.tar.gz" "$KSPLICE_STORE/$rel/01-nfsd.tar.gz"
fake_registered nfsd
out=$(ksplice-view --status)
is "$?" 3 "--status: installed, not applied: exit 3"
like "$out" "^not-applied: 0 of 1 updates installed for $rel applied" "... saying so"
is "$(ksplice-uname -v)" "$(uname -v)" "ksplice-uname -v before apply: uname -v"
ksplice-apply --installed >/dev/null 2>&1
out=$(ksplice-view --status)
is "$?" 0 "after ksplice-apply --installed: exit 0"
like "$out" "^up-to-date: 1 of 1 updates installed for $rel applied; effective version 6.1.192-3" "... up to date, effective version 6.1.192-3"
out=$(ksplice-uname -v)
like "$out" 'Debian 6.1.192-3' "ksplice-uname -v shows Debian 6.1.192-3"
unlike "$(uname -v)" 'Debian 6.1.192-3' "... which uname -v does not"
is "$(ksplice-uname -r)" "$(uname -r)" "ksplice-uname -r: the release, unchanged"
is "$(ksplice-uname -snrm)" "$(uname -snrm)" "ksplice-uname -snrm: uname's fields in uname's order"
out=$(ksplice-view nfsd)
like "$out" 'cves +CVE-2026-99362 CVE-2026-1234' "ksplice-view ID shows the CVEs"
like "$out" 'debian +6.1.192-2\.\.6\.1\.192-3' "... and the Debian versions"

### --json
is "$(json 'j["status"], j["effective_version"], j["kernel_release"]')" \
	"up-to-date 6.1.192-3 $rel" "--json: status, effective version, release"
is "$(json 'j["updates"][0]["id"], j["updates"][0]["stage"], " ".join(j["updates"][0]["cves"]), j["updates"][0]["debian"], j["updates"][0]["targets"]')" \
	"nfsd applied CVE-2026-99362 CVE-2026-1234 6.1.192-2..6.1.192-3 ['vmlinux']" \
	"--json: the update's id, stage, CVEs, Debian versions, targets"
is "$(json 'j["updates"][0]["functions"]')" \
	"[{'name': 'nfsd4_sequence', 'old_address': 'ffffffffc0a01000', 'new_address': 'ffffffffc0b02000'}]" \
	"--json: its functions with their addresses"
is "$(json 'j["installed"][0]["id"], j["installed"][0]["applied"], j["installed"][0]["failure"]')" \
	"nfsd True None" "--json: the installed update, applied"
printf 'bad "quote" \\ back\nslash\ttab\001' >"$KSPLICE_SYSFS/nfsd/abort_detail"
is "$(json 'repr(j["updates"][0]["abort_detail"])')" \
	"'bad \"quote\" \\\\ back\\nslash\\ttab\\x01'" "--json: hostile strings are escaped (valid JSON, same text)"

### A newer update: the effective version in dpkg's order (-10 > -3).
fake_update newer "$rel" 6.1.192-3..6.1.192-10 "CVE-2026-5555"
fake_registered newer
ksplice-apply "$tmp/newer.tar.gz" >/dev/null 2>&1
ok $? "a second update applies"
like "$(ksplice-uname -v)" 'Debian 6.1.192-10([ )]|$)' "ksplice-uname -v: 6.1.192-10, later than -3 in dpkg's order"
ksplice-undo newer >/dev/null 2>&1
like "$(ksplice-uname -v)" 'Debian 6.1.192-3([ )]|$)' "undone: 6.1.192-3 again"
[ ! -e "$KSPLICE_RUN/applied/newer" ]; ok $? "... its record forgotten"

### A failed apply: exit 4, the cause.
rm -rf "$KSPLICE_SYSFS" "$KSPLICE_RUN"
mkdir -p "$KSPLICE_SYSFS"
ksplice-apply --installed >/dev/null 2>&1
out=$(ksplice-view --status)
is "$?" 4 "--status after a failed apply: exit 4"
like "$out" "^failed: 0 of 1" "... failed"
like "$out" "not applied: .*01-nfsd.tar.gz: the core or update module did not load, or the update did not register" "... naming the update and why"
is "$(json 'j["status"], j["installed"][0]["failure"]')" \
	"failed the core or update module did not load, or the update did not register" "--json: failed, and why"
is "$(ksplice-uname -v)" "$(uname -v)" "ksplice-uname -v with nothing applied: uname -v"
fake_registered nfsd
ksplice-apply --installed >/dev/null 2>&1
ksplice-view --status >/dev/null
is "$?" 0 "applied at the next try: exit 0, the failure forgotten"

### Usage.
ksplice-view --status --json >/dev/null 2>&1
is "$?" 2 "--status with --json: usage error, exit 2"
ksplice-uname -x >/dev/null 2>&1
is "$?" 2 "ksplice-uname -x: usage error, exit 2"
