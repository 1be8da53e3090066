#!/bin/bash
# Signed modules: ksplice-create --sign-key KEY --sign-cert CERT signs the
# update and core modules with the headers' scripts/sign-file (a throwaway
# RSA key made here); an update built without them carries none.  In the
# VM booted with module.sig_enforce=1, ksplice-apply refuses both the
# unsigned update (saying the module is unsigned) and the signed one (its
# key is not one the kernel trusts), each with the mokutil --import hint
# and the kernel unchanged; booted without it, the signed update applies
# and its code runs.
. "$(dirname "$0")/../lib/tap.sh"
. "$KSPLICE_TOP/tests/lib/update.sh"
set -u
tmp=$(mktemp -d "${TMPDIR:-/tmp}/signing-t.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

plan 24
P=$KSPLICE_TOP/examples/cmdline.patch
openssl req -new -nodes -utf8 -sha256 -days 2 -batch -x509 -subj "/CN=ksplice test signing key" \
	-newkey rsa:2048 -keyout "$tmp/key.pem" -out "$tmp/cert.pem" >/dev/null 2>&1 ||
	bail "cannot make a test key"

# Refusals, before any build.
out=$(ksplice-create --build "$KSPLICE_BUILD" --patch "$P" --id sgn --sign-key "$tmp/key.pem" \
	-o "$tmp" "$(ksplice_source)" 2>&1)
[ $? -eq 1 ]; ok $? "--sign-key without --sign-cert: refused"
like "$out" 'go together' "... saying they go together"
out=$(ksplice-create --build "$KSPLICE_BUILD" --patch "$P" --id sgn --sign-key "$tmp/nokey.pem" \
	--sign-cert "$tmp/cert.pem" -o "$tmp" "$(ksplice_source)" 2>&1)
[ $? -eq 1 ]; ok $? "a missing key file: refused"
like "$out" 'sign-key .*nokey.pem' "... naming it"
[ ! -e "$tmp/ksplice-sgn.tar.gz" ]; ok $? "... nothing written"

src=$(ksplice_source)
signed=$(ksplice-create --build "$KSPLICE_BUILD" --patch "$P" --id sgn --sign-key "$tmp/key.pem" \
	--sign-cert "$tmp/cert.pem" -o "$tmp" "$src" 2>"$tmp/create-sgn.log" | tail -n 1)
[ -s "${signed:-}" ]; ok $? "the signed update builds" ||
	{ tail -n 20 "$tmp/create-sgn.log" | sed 's/^/# /'; bail "no update file"; }
like "$(cat "$tmp/create-sgn.log")" 'signed the modules \(sha256' "... saying it signed its modules with sha256"
plain=$(make_update "$P" plain)
[ -s "${plain:-}" ]; ok $? "the same update without signing builds" ||
	{ tail -n 20 "$tmp/create-plain.log" | sed 's/^/# /'; bail "no update file"; }

# The modules as the update files carry them.
mkdir "$tmp/s" "$tmp/p"
tar -xzf "$signed" -C "$tmp/s" && tar -xzf "$plain" -C "$tmp/p" || bail "cannot unpack"
trailer() { tail -c 28 "$1" | grep -q '~Module signature appended~'; }
for ko in ksplice_sgn.ko ksplice.ko; do
	trailer "$tmp/s/$ko"; ok $? "signed update: $ko ends with the signature"
done
is "$(modinfo -F sig_id "$tmp/s/ksplice_sgn.ko") / $(modinfo -F signer "$tmp/s/ksplice_sgn.ko")" \
	"PKCS#7 / ksplice test signing key" "... modinfo: PKCS#7, signed by the test key"
is "$(modinfo -F signer "$tmp/s/ksplice.ko")" "ksplice test signing key" "... the core too"
! trailer "$tmp/p/ksplice_plain.ko" && ! trailer "$tmp/p/ksplice.ko"
ok $? "unsigned update: no signature on its modules"
is "$(modinfo -F sig_id "$tmp/p/ksplice_plain.ko")" "" "... modinfo: no sig_id"

### module.sig_enforce=1
out=$(vm --append module.sig_enforce=1 --file "$plain" --file "$signed" -- '
	echo "ENFORCE $(cat /sys/module/module/parameters/sig_enforce)"
	before=$(cat /proc/cmdline)
	ksplice-apply ksplice-plain.tar.gz >/tmp/o 2>&1; echo "PLAIN-STATUS=$?"; sed "s/^/PLAIN: /" /tmp/o
	ksplice-apply ksplice-sgn.tar.gz >/tmp/o 2>&1; echo "SGN-STATUS=$?"; sed "s/^/SGN: /" /tmp/o
	[ "$(cat /proc/cmdline)" = "$before" ] && echo UNCHANGED
' 2>&1)
ok $? "the VM booted with module.sig_enforce=1 ran the scenario"
diag "$(grep -E '^(ENFORCE|PLAIN|SGN)' <<<"$out")"
like "$out" '^ENFORCE Y$' "... the kernel enforces module signatures"
like "$out" '^PLAIN-STATUS=1$' "the unsigned update: refused"
like "$out" '^PLAIN: .*loads only signed modules \(module\.sig_enforce=1\), and ksplice\.ko is unsigned' \
	"... saying the module is unsigned and why it matters"
like "$out" '^PLAIN: .*mokutil --import' "... and how to enroll a key"
like "$out" '^SGN-STATUS=1$' "the update signed by an untrusted key: refused"
like "$out" '^SGN: .*signed by a key it does not trust' "... saying the key is not trusted"
like "$out" 'UNCHANGED' "the kernel is unchanged (/proc/cmdline)"

### Without enforcement the signed update works.
out=$(vm --file "$signed" -- '
	ksplice-apply ksplice-sgn.tar.gz >/tmp/o 2>&1; echo "APPLY=$?"
	echo "AFTER $(cat /proc/cmdline)"
' 2>&1)
like "$out" '^APPLY=0$' "without module.sig_enforce the signed update applies"
like "$out" '^AFTER .* ksplice=applied$' "... and its code runs"
