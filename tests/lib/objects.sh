# Small objects compiled here the way ksplice-create compiles kernel units
# (-ffunction-sections -fdata-sections, the kernel code model, no unwind
# tables), for the tests of the object diff (ksplice-create
# --diff-objects).  Needs $tmp.
CFLAGS="-O2 -fno-pic -mcmodel=kernel -mno-red-zone -fno-asynchronous-unwind-tables -ffunction-sections -fdata-sections"
create=$KSPLICE_TOP/bin/ksplice-create

compile() { # NAME: writes $tmp/NAME.o from stdin
	gcc $CFLAGS -c -x c -o "$tmp/$1.o" - || bail "cannot compile $1"
}

# static_cpu_has()'s shape: a jump to a test of the boot CPU's bit, one
# block per site in .altinstr_aux (tests 20 and 22).  uses_cpu() tests
# BIT of byte BYTE, tail() bit TAIL-BIT of byte 5; BEFORE is code before them.
cpu_has() { # NAME BIT BYTE BEFORE TAIL-BIT
	compile "$1" <<C
extern struct { unsigned char caps[64]; } boot_cpu_data;
#define has(bit, byte) ({ int r_ = 0; asm goto("jmp 6f\n.pushsection .altinstr_aux,\"ax\"\n6: testb %[b], %P[c](%%rip)\njnz %l[y]\njmp %l[n]\n.popsection" : : [b] "i" (bit), [c] "i" (&boot_cpu_data.caps[byte]) : : y, n); if (0) { y: r_ = 1; } n: r_; })
extern int h1(int);
$4
int uses_cpu(int a) { if (has($2, $3)) return h1(a); return a + 1; }
int tail(int a) { if (has($5, 5)) return h1(a + 3); return a; }
C
}
