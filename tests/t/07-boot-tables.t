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
. "$KSPLICE_TOP/tests/lib/objects.sh"
plan 7

quirks() { # NAME: the unit of stdin, after the macros
	{ cat <<'C'
struct pci_dev;
#define FIX(sec, v, d, hook) __asm__(".section " #sec ", \"a\"\n.balign 16\n" \
	".short " #v ", " #d "\n.long 0, 8\n.long " #hook " - .\n.previous\n");
#define KEEP(hook) static void *__attribute__((used)) __addr_##hook = (void *)hook;
extern void work(struct pci_dev *, int);
C
	cat; } | compile "$1"
}
quirk() { # NAME ARG DEVICE [TABLE...]: a quirk calling work(d, ARG)
	local q=$1 arg=$2 dev=$3 t
	shift 3
	printf 'static void %s(struct pci_dev *d) { work(d, %s); }\nKEEP(%s)\n' "$q" "$arg" "$q"
	for t in "${@:-.pci_fixup_final}"; do
		printf 'FIX(%s, 0x1022, %s, %s)\n' "$t" "$dev" "$q"
	done
}
quirk q1 1 0x14e8 | quirks pre
{ quirk q1 1 0x14e8; quirk q2 2 0x1507 .pci_fixup_final .pci_fixup_resume; } | quirks new
quirk q1 3 0x14e8 | quirks body
quirk q1 1 0x14e9 | quirks device

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
