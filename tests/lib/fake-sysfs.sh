# The tools against a fake sysfs tree: KSPLICE_FAKE_MODULES=1 makes every
# tool say what it would load instead of loading it, so nothing ever reaches
# this machine's kernel.  Sourced after tap.sh, from $KSPLICE_TOP.
#
# fake_setup NAME [STORE]: $tmp (removed at exit), the update-file writer
# $tmp/uft, the tools on PATH, every KSPLICE_* path under $tmp (the store of
# installed updates: $tmp/STORE, default $tmp/store), $rel (uname -r), and a
# stand-in core module $tmp/ksplice.ko.
fake_setup() {
	tmp=$(mktemp -d "${TMPDIR:-/tmp}/$1-t.XXXXXX") || bail "no temporary directory"
	trap 'rm -rf "$tmp"' EXIT
	make -s tools >/dev/null || bail "cannot build the tools"
	cc -std=gnu11 -Iinclude -Isrc/lib -D_GNU_SOURCE -o "$tmp/uft" \
		tests/unit/update-file-test.c src/lib/libksplice.a -larchive -lcrypto ||
		bail "cannot build tests/unit/update-file-test.c"
	export KSPLICE_FAKE_MODULES=1 KSPLICE_SYSFS=$tmp/sysfs KSPLICE_RUN=$tmp/run
	export KSPLICE_STORE=$tmp/${2:-store}
	export KSPLICE_CMDLINE=$tmp/cmdline KSPLICE_DISABLE_FILE=$tmp/disable
	export PATH=$KSPLICE_TOP/bin:$PATH TMPDIR=$tmp
	rel=$(uname -r)
	echo quiet >"$tmp/cmdline"
	printf 'core module' >"$tmp/ksplice.ko"
}

# fake_update ID RELEASE [DEBIAN [CVES]]: a fake update file $tmp/ID.tar.gz
# for kernel RELEASE replacing nfsd4_sequence (UPDATE_FILE_TEST_REPLACE=1 in
# the environment: a cumulative one).
fake_update() {
	printf 'update module %s' "$1" >"$tmp/ksplice_$1.ko"
	UPDATE_FILE_TEST_DEBIAN=${3:-} UPDATE_FILE_TEST_CVES=${4:-} "$tmp/uft" write \
		"$tmp/$1.tar.gz" "$1" "$2" "$tmp/ksplice_$1.ko" "$tmp/ksplice.ko" \
		nfsd4_sequence || bail "cannot write update $1"
}

# fake_registered ID: the core's directory for update ID, as loading its
# module makes it.
fake_registered() {
	mkdir -p "$KSPLICE_SYSFS/$1"
	echo loaded >"$KSPLICE_SYSFS/$1/stage"
	echo none >"$KSPLICE_SYSFS/$1/abort_cause"
	: >"$KSPLICE_SYSFS/$1/abort_detail"
	echo "nfsd4_sequence ffffffffc0a01000 ffffffffc0b02000" >"$KSPLICE_SYSFS/$1/functions"
}
