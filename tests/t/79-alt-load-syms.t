#!/bin/bash
# A reference to a symbol the kernel does not export inside an alternative
# of new code.  kmem_cache_alloc_lru inlines slab_alloc_node(), whose
# this_cpu_cmpxchg_double() is alternative_io("call
# this_cpu_cmpxchg16b_emu", "cmpxchg16b", X86_FEATURE_CX16), and
# this_cpu_cmpxchg16b_emu is not exported.  The loader applies the update
# module's alternatives right after its relocations, before the core could
# write a field of its own, so ksplice-create makes the call a load symbol
# (resolved by ksplice-apply, relocated by the loader).  On a CPU with CX16
# (qemu64) the loader puts cmpxchg16b there; without (qemu64,-cx16) the call
# stays, aimed at this_cpu_cmpxchg16b_emu, and every dentry and inode the
# new code allocates goes through it.  Both apply, run and undo.
. "$(dirname "$0")/../lib/tap.sh"
. "$KSPLICE_TOP/tests/lib/update.sh"
set -u
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT

plan 24
src=$(ksplice_source)
f=mm/slub.c
mkdir -p "$tmp/a/mm"
cp "$src/$f" "$tmp/a/$f"
perl -0pe 's/(void \*kmem_cache_alloc_lru\(struct kmem_cache \*s, struct list_lru \*lru,\n\t\t\t   gfp_t gfpflags\)\n\{\n)\treturn __kmem_cache_alloc_lru\(s, lru, gfpflags\);\n/$1\tvoid *ret = __kmem_cache_alloc_lru(s, lru, gfpflags);\n\n\tif (ret)\n\t\tpr_info_once("ksplice-lru: %s allocated by new code\\n", s->name);\n\treturn ret;\n/' \
	"$tmp/a/$f" >"$tmp/new.c"
(cd "$tmp/a" && diff -u $f ../new.c | sed "1s|.*|--- a/$f|;2s|.*|+++ b/$f|") >"$tmp/lru.patch"
[ "$(grep -c '^+' "$tmp/lru.patch")" -eq 6 ] || bail "the patch does not apply to this source"

upd=$(make_update "$tmp/lru.patch" lru)
ok $? "ksplice-create builds the update"
[ -s "$upd" ] || { sed 's/^/# /' "$tmp/create-lru.log"; bail "no update file"; }
unlike "$(cat "$tmp/create-lru.log")" 'not supported' "no refusal of the reference inside the alternative"
like "$(tar xzOf "$upd" manifest)" 'load_symbol: vmlinux this_cpu_cmpxchg16b_emu' \
	"this_cpu_cmpxchg16b_emu is a load symbol of the update"

# Where the new code calls it: FUNCTION OFFSET-OF-THE-CALL, from the module.
tar xzf "$upd" -C "$tmp" ksplice_lru.ko
site=$(objdump -dr "$tmp/ksplice_lru.ko" | awk '
	/^[0-9a-f]+ <.*>:$/ { fn = $2; gsub(/[<>:]/, "", fn) }
	/R_X86_64_PLT32[ \t]+__ksplice_load_/ { sub(/:$/, "", $1); print fn, $1; exit }')
like "$site" '^__ksplice_new_[0-9_]+ [0-9a-f]+$' "the call is a relocation to a load symbol in the new code"
set -- ${site:-none 1}
fn=$1 off=$((0x$2 - 1))

for cpu in qemu64 qemu64,-cx16; do
	out=$(vm --cpu $cpu --file "$upd" -- '
		grep -q " cx16 " /proc/cpuinfo && echo CX16=yes || echo CX16=no
		echo "BEFORE: $(dmesg | grep -c "ksplice-lru:")"
		ksplice-apply ksplice-lru.tar.gz; echo "APPLY-STATUS=$?"
		a=$(grep " '"$fn"'\b" /proc/kallsyms | cut -d" " -f1)
		e=$(grep " this_cpu_cmpxchg16b_emu$" /proc/kallsyms | cut -d" " -f1)
		c=$(kpeek '"$fn"' '"$((off + 5))"' | tail -c 11)
		r=$(echo "$c" | cut -c3-10 | sed "s/\(..\)\(..\)\(..\)\(..\)/\4\3\2\1/")
		d=$(printf "%x" $(( 0x$a + '"$off"' + 5 + ($(printf "%d" 0x$r) ^ 0x80000000) - 0x80000000 )))
		[ "$(echo "$c" | cut -c1-2)" = e8 ] && [ "$d" = "$e" ] && echo SITE=call-emu || echo "SITE=other $c"
		mkdir /tmp/d; i=0
		while [ $i -lt 2000 ]; do : >/tmp/d/f$i; i=$((i + 1)); done
		echo "FILES: $(ls /tmp/d | wc -l)"
		dmesg | grep "ksplice-lru:" | sed "s/^\[[^]]*\] /NEW: /"
		ksplice-undo lru; echo "UNDO-STATUS=$?"
		rm -r /tmp/d; mkdir /tmp/d; : >/tmp/d/after && echo AFTER-UNDO=ok
		dmesg | grep -E "Oops|BUG:|WARNING:|general protection|Call Trace" | sed "s/^/DMESG: /"
	' 2>&1)
	ok $? "$cpu: the guest ran the scenario (the rig exited 0)"
	diag "$cpu: $(printf '%s\n' "$out" | grep -v '^DMESG' | head -20)"
	like "$out" 'BEFORE: 0' "$cpu: the stock code prints nothing"
	like "$out" 'APPLY-STATUS=0' "$cpu: ksplice-apply succeeds"
	if [ $cpu = qemu64 ]; then
		like "$out" 'CX16=yes' "$cpu: the CPU has CX16"
		like "$out" 'SITE=other' "$cpu: the loader put the replacement (cmpxchg16b) over the call"
	else
		like "$out" 'CX16=no' "$cpu: the CPU has no CX16"
		like "$out" 'SITE=call-emu' "$cpu: the new code calls the running this_cpu_cmpxchg16b_emu"
	fi
	like "$out" 'FILES: 2000' "$cpu: 2,000 files made while applied"
	like "$out" 'NEW: ksplice-lru: .* allocated by new code' "$cpu: their dentries and inodes allocated by the new code"
	like "$out" 'UNDO-STATUS=0' "$cpu: ksplice-undo succeeds"
	like "$out" 'AFTER-UNDO=ok' "$cpu: the stock code allocates again"
	unlike "$out" '^DMESG' "$cpu: no oops or warning"
done
