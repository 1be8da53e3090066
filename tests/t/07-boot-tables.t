#!/bin/bash
# Tables of functions the kernel built at boot (PCI quirks, .pci_fixup_*):
# a patch that adds an entry brings a quirk the running kernel never runs.
# ksplice-create --diff-objects names each new, dropped or changed entry
# (the function by its pre name); an entry that stays, whatever its
# function's change, is no table change.  Small objects with the entries
# DECLARE_PCI_FIXUP_FINAL makes on x86-64 (hook - ., 16 bytes).
. "$(dirname "$0")/../lib/tap.sh"
set -u
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
CFLAGS="-O2 -fno-pic -mcmodel=kernel -mno-red-zone -fno-asynchronous-unwind-tables -ffunction-sections -fdata-sections"
create=$KSPLICE_TOP/bin/ksplice-create
plan 7

quirks() { # NAME, then more of the unit
	{ cat <<'C'
struct pci_dev;
#define FIX(sec, v, d, hook) __asm__(".section " #sec ", \"a\"\n.balign 16\n" \
	".short " #v ", " #d "\n.long 0, 8\n.long " #hook " - .\n.previous\n");
#define KEEP(hook) static void *__attribute__((used)) __addr_##hook = (void *)hook;
extern void work(struct pci_dev *, int);
C
	cat; } | gcc $CFLAGS -c -x c -o "$tmp/$1.o" - || bail "cannot compile $1"
}
quirks pre <<'C'
static void q1(struct pci_dev *d) { work(d, 1); }
KEEP(q1)
FIX(.pci_fixup_final, 0x1022, 0x14e8, q1)
C
quirks new <<'C'
static void q1(struct pci_dev *d) { work(d, 1); }
KEEP(q1)
FIX(.pci_fixup_final, 0x1022, 0x14e8, q1)
static void q2(struct pci_dev *d) { work(d, 2); }
KEEP(q2)
FIX(.pci_fixup_final, 0x1022, 0x1507, q2)
FIX(.pci_fixup_resume, 0x1022, 0x1507, q2)
C
quirks body <<'C'
static void q1(struct pci_dev *d) { work(d, 3); }
KEEP(q1)
FIX(.pci_fixup_final, 0x1022, 0x14e8, q1)
C
quirks device <<'C'
static void q1(struct pci_dev *d) { work(d, 1); }
KEEP(q1)
FIX(.pci_fixup_final, 0x1022, 0x14e9, q1)
C

out=$("$create" --diff-objects "$tmp/pre.o" "$tmp/new.o" 2>&1)
like "$out" '^  changed table: \.pci_fixup_final: a new entry calling new function q2\+0 \(PCI quirks' \
	"a new quirk's entry in .pci_fixup_final is a table change"
like "$out" '^  changed table: \.pci_fixup_resume: a new entry calling new function q2\+0 ' \
	"  and in .pci_fixup_resume, a table that was not there"
is "$(grep -c '^  changed table:' <<<"$out")" 2 "  q1's entry, unchanged, is not"
out=$("$create" --diff-objects "$tmp/pre.o" "$tmp/body.o" 2>&1)
unlike "$out" 'changed table' "(positive) a quirk whose code changes keeps its entry: no table change"
like "$out" '^changed q1$' "  q1 is a changed function"
out=$("$create" --diff-objects "$tmp/pre.o" "$tmp/device.o" 2>&1)
like "$out" '^  changed table: \.pci_fixup_final: a new entry calling q1\+0 ' \
	"an entry for another device is a change: the new one"
like "$out" '^  changed table: \.pci_fixup_final: no more the entry calling q1\+0 ' \
	"  and the old one dropped"
