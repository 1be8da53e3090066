# build_driver NAME OBJ... [-lLIB...]: tests/unit/NAME.c, a test's driver of
# library code, linked with the project's objects OBJ (paths in the
# repository) and libksplice, as $tmp/NAME; bails out if it does not build.
build_driver() {
	local name=$1 a objs=() libs=()
	shift
	for a in "$@"; do
		case $a in
		-l*) libs+=("$a") ;;
		*) objs+=("$KSPLICE_TOP/$a") ;;
		esac
	done
	gcc -O2 -D_GNU_SOURCE -I"$KSPLICE_TOP/include" -I"$KSPLICE_TOP/src/lib" \
		-iquote "$KSPLICE_TOP/src/create" -o "$tmp/$name" \
		"$KSPLICE_TOP/tests/unit/$name.c" "${objs[@]}" \
		"$KSPLICE_TOP/src/lib/libksplice.a" "${libs[@]}" ||
		bail "cannot build the test driver tests/unit/$name.c"
}
