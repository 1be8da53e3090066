# Small objects compiled here the way ksplice-create compiles kernel units
# (-ffunction-sections -fdata-sections, the kernel code model, no unwind
# tables), for the tests of the object diff (ksplice-create
# --diff-objects).  Needs $tmp.
CFLAGS="-O2 -fno-pic -mcmodel=kernel -mno-red-zone -fno-asynchronous-unwind-tables -ffunction-sections -fdata-sections"
create=$KSPLICE_TOP/bin/ksplice-create

compile() { # NAME: writes $tmp/NAME.o from stdin
	gcc $CFLAGS -c -x c -o "$tmp/$1.o" - || bail "cannot compile $1"
}
