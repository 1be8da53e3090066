#!/bin/bash
# Changes to existing data are found and refused, never dropped: the
# running kernel keeps a variable's contents, so an update that replaced
# only the code would apply without the fix.  Small objects compiled here
# (each kind of change; new variables and __initdata are not refusals),
# then a real one: a netlink policy's change in net/ipv6/seg6.c beside a
# code change.  A read-only variable whose running value is its initial
# value is patched in place instead (same size, references only to what
# the running kernel has, or a function of the unit new in the update:
# the policy builds); a size change, __ro_after_init, a reference to a
# variable new in the update, and writable data stay refused -- but for a
# writable structure whose only changes are callback fields (NULL or a
# function, before and after), which are patched in place.  A structure's layout change is refused the same way (the
# compiler's debug information says), and a change of its text that keeps
# the layout is not.
. "$(dirname "$0")/../lib/tap.sh"
. "$KSPLICE_TOP/tests/lib/update.sh"
set -u
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
CFLAGS="-O2 -fno-pic -mcmodel=kernel -mno-red-zone -ffunction-sections -fdata-sections"

plan 80

pre='struct pol { int type, len; };
static const struct pol policy[] = { {1, 4}, {2, 8} };
int limit = 3;
static const char *names[] = { "a", "b" };
static int once[2] __attribute__((section(".init.data"))) = { 1, 2 };
int use(int i) { return policy[i].len + limit + once[i] + names[i][0]; }
int other(int i) { return i * 7; }'
post=$(sed -e 's/{2, 8}/{2, 16}/; s/limit = 3/limit = 4/; s/"b"/"c"/; s/{ 1, 2 }/{ 1, 3 }/' <<<"$pre")
printf '%s\n' "$pre" | gcc $CFLAGS -c -x c -o "$tmp/pre.o" - &&
printf '%s\n' "$post" | gcc $CFLAGS -c -x c -o "$tmp/post.o" - &&
printf '%s\nint fresh = 5;\nint usefresh(void) { return fresh; }\n' "$pre" |
	gcc $CFLAGS -c -x c -o "$tmp/new.o" - || bail "cannot compile the objects"

out=$(ksplice-create --diff-objects "$tmp/pre.o" "$tmp/post.o")
ok $? "the diff of the objects runs"
like "$out" "^  note: policy, a constant only this unit's functions use, changes: the update carries the new one and replaces them\$" \
	"a static constant table only code uses is carried anew"
like "$out" '^  changed data: limit: its initial value \(\.data\.limit; used by use\)$' \
	"a global's new initial value is found"
like "$out" "^  note: names, a constant only this unit's functions use" \
	"  and so is a table that points at another string"
unlike "$out" 'changed data: (policy|names)' "  neither is a change of running data"
refs=$(ksplice-create --diff-objects "$tmp/pre.o" "$tmp/post.o" --refs)
like "$refs" '^  use\+0x[0-9a-f]+ -> carried \.rodata\.policy\+' "  the new use reads the carried copy"
unlike "$refs" 'kernel (policy|names)' "  not the running one"
printf '%s\n' "$pre" | sed 's/^static const struct pol policy/const struct pol policy/' |
	gcc $CFLAGS -c -x c -o "$tmp/gpre.o" - &&
printf '%s\n' "$post" | sed 's/^static const struct pol policy/const struct pol policy/' |
	gcc $CFLAGS -c -x c -o "$tmp/gpost.o" - || bail "cannot compile the global objects"
out=$(ksplice-create --diff-objects "$tmp/gpre.o" "$tmp/gpost.o")
like "$out" '^  changed data: policy: its initial value, read-only: patched in place \(16 bytes\)$' \
	"a global constant's new value is patched in place (another unit may read it)"
unlike "$out" 'changed data: policy: .*used by' "  not refused as a change of running data"
like "$out" '^  changed data: limit: its initial value \(\.data\.limit; used by use\)$' \
	"  while a writable global's is still refused"
unlike "$out" 'limit: .*patched in place' "  and not patched in place"
like "$out" '^  note: once is used only at initialization' "__initdata is a note, not a change"
unlike "$out" 'changed data: once' "  and is not counted as changed data"

out=$(ksplice-create --diff-objects "$tmp/pre.o" "$tmp/new.o")
like "$out" '^new usefresh$' "a new variable's user is a new function"
unlike "$out" 'changed data' "  and a new variable is no change of existing data"

printf 'int moved = 4;\nint get(int i) { return moved + i; }\n' | gcc $CFLAGS -c -x c -o "$tmp/m1.o" - &&
printf 'int moved __attribute__((section(".data..read_mostly"))) = 4;\nint get(int i) { return moved + i; }\n' |
	gcc $CFLAGS -c -x c -o "$tmp/m2.o" - || bail "cannot compile the moved objects"
out=$(ksplice-create --diff-objects "$tmp/m1.o" "$tmp/m2.o")
like "$out" '^  note: moved moves from \.data\.moved to \.data\.\.read_mostly; the running one stays' \
	"a variable that only moves (__read_mostly) is a note"
unlike "$out" 'changed data' "  not a change of data"

printf 'int f(int i) { static int lim = 3; lim += i; return lim; }\n' |
	gcc $CFLAGS -c -x c -o "$tmp/s1.o" - &&
printf 'int f(int i) { static int lim = 5; lim += i; return lim; }\n' |
	gcc $CFLAGS -c -x c -o "$tmp/s2.o" - || bail "cannot compile the static local objects"
out=$(ksplice-create --diff-objects "$tmp/s1.o" "$tmp/s2.o")
like "$out" '^  changed data: lim\.[0-9]+: its initial value \(\.data\.lim\.[0-9]+; used by f\)$' \
	"a static local's new initial value is found (the running one keeps its value)"
out=$(ksplice-create --diff-objects "$tmp/s1.o" "$tmp/s1.o")
is "$out" "" "  and the same object gives nothing"

# An ops table that points at a BTF_ID() slot (bpf's map ops): a line added
# above renumbers the slot's name, not what resolve_btfids puts there.
btf() {	# TYPE NUMBER: a unit whose table points at TYPE's slot
	local id=__BTF_ID__struct__$1__$2
	cat <<-EOF
	asm(".pushsection .BTF_ids, \\"a\\"\\n.local ids\\nids:\\n"
	    ".local $id\\n.type $id, @object\\n.size $id, 4\\n$id:\\n.zero 4\\n.popsection");
	extern unsigned int ids[]; int f1(int);
	struct ops { int (*fn)(int); unsigned int *id; };
	const struct ops btf_ops = { f1, ids };
	EOF
}
btf bpf_htab 5382194 | gcc $CFLAGS -c -x c -o "$tmp/b1.o" - &&
btf bpf_htab 5482212 | gcc $CFLAGS -c -x c -o "$tmp/b2.o" - &&
btf bpf_array 5482212 | gcc $CFLAGS -c -x c -o "$tmp/b3.o" - || bail "cannot compile the BTF objects"
out=$(ksplice-create --diff-objects "$tmp/b1.o" "$tmp/b2.o")
ok $? "a renumbered BTF_ID slot: the diff runs"
unlike "$out" 'changed data' "  and the table that points at it is unchanged"
out=$(ksplice-create --diff-objects "$tmp/b1.o" "$tmp/b3.o")
like "$out" '^  changed data: btf_ops: its initial value \(what it points at\)' \
	"a slot of another type is a change of the table"

# Read-only, but refused in place: a size change, __ro_after_init (writable
# in the object: the kernel sets it at boot), a post reference to a
# function the update adds.
ro='struct pol { int type, len; };
const struct pol tab[] = { {1, 4}, {2, 8} };
int get(int i) { return tab[i].len; }'
printf '%s\n' "$ro" | gcc $CFLAGS -c -x c -o "$tmp/r1.o" - &&
sed 's/{2, 8} }/{2, 8}, {3, 9} }/' <<<"$ro" | gcc $CFLAGS -c -x c -o "$tmp/r2.o" - &&
sed 's/^const struct pol tab/struct pol __attribute__((section(".data..ro_after_init"))) tab/' <<<"$ro" |
	tee "$tmp/ra.c" | gcc $CFLAGS -c -x c -o "$tmp/ra1.o" - &&
sed 's/{2, 8}/{2, 16}/' "$tmp/ra.c" | gcc $CFLAGS -c -x c -o "$tmp/ra2.o" - ||
	bail "cannot compile the read-only objects"
out=$(ksplice-create --diff-objects "$tmp/r1.o" "$tmp/r2.o")
like "$out" '^  note: tab is read-only, but cannot be patched in place: it grows, and there is no room for it where it is$' \
	"a read-only table that grows is not patched in place"
like "$out" '^  changed data: tab: its size \(\.rodata\.tab; used by get\)$' "  but refused"
# One that shrinks is (tail zeroed), under its first name only: a device
# table's MODULE_DEVICE_TABLE alias is the same bytes.
alias='extern typeof(tab) tab_alias __attribute__((unused, alias("tab")));'
printf '%s\n' "$ro" "$alias" | gcc $CFLAGS -c -x c -o "$tmp/rs1.o" - &&
sed 's/{2, 8} }/{2, 8}, {3, 9} }/' <<<"$ro" | cat - <(echo "$alias") |
	gcc $CFLAGS -c -x c -o "$tmp/rs2.o" - || bail "cannot compile the aliased tables"
out=$(ksplice-create --diff-objects "$tmp/rs2.o" "$tmp/rs1.o")
like "$out" '^  changed data: tab: shrinks from 24 to 16 bytes, read-only: patched in place, the rest zeroed$' \
	"a read-only table that shrinks is patched in place"
unlike "$out" 'tab_alias' "  its alias is not a second variable"
out=$(ksplice-create --diff-objects "$tmp/rs1.o" "$tmp/rs2.o")
like "$out" '^  changed data: tab: its size' "  growing, the aliased table is refused"
out=$(ksplice-create --diff-objects "$tmp/ra1.o" "$tmp/ra2.o")
like "$out" '^  changed data: tab: its initial value \(\.data\.\.ro_after_init; used by get\)$' \
	"__ro_after_init is refused (its running value is what boot set)"
unlike "$out" 'patched in place' "  not patched in place"

src=$(ksplice_source)
mkdir -p "$tmp/out"
out=$(ksplice-create --build "$KSPLICE_BUILD" --patch "$KSPLICE_TOP/tests/patches/seg6-policy.patch" \
	--id segdata -o "$tmp/out" "$src" 2>&1)
ok $? "ksplice-create builds the policy change (a read-only table that data points at)"
like "$out" '^  changed data: seg6_genl_policy: its initial value, read-only: patched in place \([0-9]+ bytes\)$' \
	"  patching the table in place"
like "$out" 'changed function: seg6_genl_get_tunsrc' "  beside the code change"
unlike "$out" 'existing variable' "  not refused as a change of existing data"
ok $([ -s "$tmp/out/ksplice-segdata.tar.gz" ]; echo $?) "  and writes the update"
tar -xzOf "$tmp/out/ksplice-segdata.tar.gz" ksplice_segdata.ko >"$tmp/seg.ko"
like "$(strings "$tmp/seg.ko")" '^seg6_genl_policy$' "  whose module names the table for the core"

# The post image refers to a function another unit of the same target
# adds: the update carries it (global), and the core points the table at
# its copy, so it is patched in place.
mkdir -p "$tmp/out2"
out=$(ksplice-create --build "$KSPLICE_BUILD" --patch "$KSPLICE_TOP/tests/patches/param-bool-new-get.patch" \
	--id pbnew -o "$tmp/out2" "$src" 2>&1)
ok $? "a read-only table pointing at another unit's new function builds"
like "$out" 'new function: param_get_bool_yn \(kernel/sysctl.c, vmlinux\)' "  the new function is found"
like "$out" 'changed data: param_ops_bool: its initial value \(what it points at\), read-only: patched in place \(32 bytes\)' \
	"  and the table is patched in place"
ok $([ -s "$tmp/out2/ksplice-pbnew.tar.gz" ]; echo $?) "  and the update is written"

upd=$(make_update "$KSPLICE_TOP/tests/patches/seg6-tunsrc.patch" segcode "$src")
ok $? "the same code change without the data change builds an update"
like "$(cat "$tmp/create-segcode.log")" 'changed function: seg6_genl_get_tunsrc' \
	"  replacing seg6_genl_get_tunsrc"

# Layouts, from small objects with debug information.
lay='struct dev { int a; long b; union { int x; char y; }; };
struct keep { int a; int b; };
int f(struct dev *d, struct keep *k) { return d->a + d->b + d->x + k->a + k->b; }'
printf '%s\n' "$lay" | gcc -g $CFLAGS -c -x c -o "$tmp/l1.o" - &&
sed 's/long b;/long b; void *grp;/' <<<"$lay" | gcc -g $CFLAGS -c -x c -o "$tmp/l2.o" - &&
sed 's/int a; int b; }/int a; unsigned int b; }/' <<<"$lay" | gcc -g $CFLAGS -c -x c -o "$tmp/l3.o" - ||
	bail "cannot compile the layout objects"
out=$(ksplice-create --diff-objects "$tmp/l1.o" "$tmp/l2.o")
like "$out" '^  changed layout: struct dev \(in the objects\): 24 -> 32 bytes; first difference \(anonymous\)@16#4 -> grp@16#8$' \
	"a member added: the layout change is found, with the first member that moved"
out=$(ksplice-create --diff-objects "$tmp/l1.o" "$tmp/l3.o")
ok $? "int to unsigned int: the diff runs"
unlike "$out" 'changed layout' "  and the layout is the same"
bits='enum st { A, B };
struct nd { int a; enum st reg:8; unsigned char z; };
int g(struct nd *d) { return d->a + d->reg + d->z; }'
printf '%s\n' "$bits" | gcc -g $CFLAGS -c -x c -o "$tmp/e1.o" - &&
sed 's/enum st reg:8;/unsigned char reg;/' <<<"$bits" | gcc -g $CFLAGS -c -x c -o "$tmp/e2.o" - &&
sed 's/enum st reg:8;/enum st reg:7;/' <<<"$bits" | gcc -g $CFLAGS -c -x c -o "$tmp/e3.o" - ||
	bail "cannot compile the bit-field objects"
out=$(ksplice-create --diff-objects "$tmp/e1.o" "$tmp/e2.o")
ok $? "an 8-bit enum bit-field become a u8 (net_device's reg_state): the diff runs"
unlike "$out" 'changed layout' "  and the layout is the same"
out=$(ksplice-create --diff-objects "$tmp/e1.o" "$tmp/e3.o")
like "$out" '^  changed layout: struct nd .*reg@4#1 -> reg@' "  a 7-bit one is another layout"

out=$(ksplice-create --build "$KSPLICE_BUILD" --patch "$KSPLICE_TOP/tests/patches/acct-layout.patch" \
	--id acctlayout -o "$tmp/out" "$src" 2>&1)
rc=$?
ok $([ "$rc" != 0 ]; echo $?) "ksplice-create refuses a member added to struct bsd_acct_struct (exit $rc)"
like "$out" 'changed layout: struct bsd_acct_struct \(in kernel/acct.o\)' "  naming the structure and the unit"
like "$out" 'changes the layout of struct bsd_acct_struct: running code' "  saying why"
upd=$(make_update "$KSPLICE_TOP/tests/patches/acct-same-layout.patch" acctsame "$src")
ok $? "a change of the structure's text that keeps its layout builds an update"

# Headers included too widely to preprocess (--max-reach): the units whose
# own source the patch changes are compiled first, and a layout change
# found there is the reason given; without one, the reach is.
pde=$KSPLICE_TOP/tests/patches/proc-pde-layout.patch
out=$(ksplice-create --build "$KSPLICE_BUILD" --patch "$pde" --id pdelayout --max-reach 3 \
	-o "$tmp/out" "$src" 2>&1)
is $? 1 "a header reaching more units than --max-reach is refused"
like "$out" '1 units: compiling 1 of them to compare structure layouts first' \
	"  after compiling the unit whose source it changes (fs/proc/generic.c)"
like "$out" 'changes the layout of struct proc_dir_entry: running code' \
	"  and the reason given is the layout change found there"
unlike "$out" 'more than --max-reach' "  not the reach"
sed -e 's|^+	unsigned int size_sets;|+	/* proc_set_size() is a function of generic.c */|' \
	-e 's|^+	de->size_sets++;|+	barrier();|' "$pde" >"$tmp/pde-same.patch"
out=$(ksplice-create --build "$KSPLICE_BUILD" --patch "$tmp/pde-same.patch" --id pdesame --max-reach 3 \
	-o "$tmp/out" "$src" 2>&1)
like "$out" "the patch's headers reach [0-9]+ units, more than --max-reach 3" \
	"the same shape without a layout change is refused for its reach"
unlike "$out" 'changed layout' "  no layout change claimed"

# A constant table of functions (an ops table) is most often handed to the
# kernel to keep: not carried anew, a change of running data still.
ops='extern int f1(int), f2(int);
struct ops { int (*fn)(int); };
static const struct ops ops = { f1 };
const struct ops *get(void) { return &ops; }'
printf '%s\n' "$ops" | gcc $CFLAGS -c -x c -o "$tmp/opre.o" - &&
sed 's/= { f1 }/= { f2 }/' <<<"$ops" | gcc $CFLAGS -c -x c -o "$tmp/opost.o" - ||
	bail "cannot compile the ops objects"
out=$(ksplice-create --diff-objects "$tmp/opre.o" "$tmp/opost.o")
like "$out" '^  changed data: ops: its initial value \(what it points at\), read-only: patched in place \(8 bytes\)$' \
	"a static table of functions is patched in place (what it was handed to sees the change)"
sed 's/= { f1 }/= { f3 }/; s/^extern int f1(int), f2(int);/extern int f1(int); int f3(int x) { return x + 1; }/' <<<"$ops" |
	gcc $CFLAGS -c -x c -o "$tmp/onew.o" - || bail "cannot compile the new-function object"
out=$(ksplice-create --diff-objects "$tmp/opre.o" "$tmp/onew.o")
like "$out" '^  changed data: ops: its initial value \(what it points at\), read-only: patched in place \(8 bytes\)$' \
	"a table pointing at a function this unit adds is patched in place (the core points at the update's copy)"
like "$out" '^new f3$' "  the function is new code of the update"
sed 's/= { f1 }/= { (void *)\&gv }/; s/^extern int f1(int), f2(int);/extern int f1(int); int gv;/' <<<"$ops" |
	gcc $CFLAGS -c -x c -o "$tmp/ovar.o" - || bail "cannot compile the new-variable object"
out=$(ksplice-create --diff-objects "$tmp/opre.o" "$tmp/ovar.o")
like "$out" '^  note: ops is read-only, but cannot be patched in place: a reference to gv, new in this update$' \
	"  while a table pointing at a variable the update adds is not"
like "$out" '^  changed data: ops: its initial value \(what it points at\) \(\.rodata\.ops; used by get\)$' \
	"  but refused"

# A writable ops structure (registered: the kernel writes its list head)
# changed only in callback fields, NULL or a function before and after:
# those fields are patched in place, nothing else of it.  Any other
# difference keeps it refused, with the reason.
cb='struct ops { void *list[2]; int (*match)(int); int (*check)(int); unsigned int flags; int *data; };
static int mt(int x) { return x; }
int mt2(int x) { return x * 2; }
int lim;
extern int ext(int);
static struct ops reg __attribute__((section(".data..read_mostly"))) = { .match = mt };
void *regit(void) { return &reg; }'
cbo() { sed "$1" <<<"$cb" | gcc $CFLAGS -c -x c -o "$tmp/$2.o" -; }
cbo '' cb0 &&
cbo 's/= { .match = mt }/= { .match = mt, .check = chk }/; s/^static int mt(int x) { return x; }/&\nstatic int chk(int x) { return x + 1; }/' cbnew &&
cbo 's/= { .match = mt }/= { .match = mt2 }/' cbre &&
cbo 's/= { .match = mt }/= { .match = mt, .check = mt2, .flags = 1 }/' cbflags &&
cbo 's/= { .match = mt }/= { .match = mt, .data = \&lim }/' cbdata &&
cbo 's/unsigned int flags;/unsigned int flags; long more;/; s/= { .match = mt }/= { .match = mt, .check = mt2 }/' cbsize &&
cbo 's/= { .match = mt }/= { .match = mt, .check = ext }/' cbext &&
cbo 's/= { .match = mt }/= { .match = mt, .check = mt2 }/; s/ __attribute__((section(".data..read_mostly")))/ __attribute__((section(".data..ro_after_init")))/' cbroa &&
cbo 's/ __attribute__((section(".data..read_mostly")))/ __attribute__((section(".data..ro_after_init")))/' cbroa0 &&
cbo 's/= { .match = mt }/= { .match = mt, .check = mt2 }/; s/ __attribute__((section(".data..read_mostly")))/ __attribute__((section(".data..percpu")))/' cbpcpu &&
cbo 's/ __attribute__((section(".data..read_mostly")))/ __attribute__((section(".data..percpu")))/' cbpcpu0 &&
cbo 's/^extern int ext(int);/&\nextern int extv;/; s/= { .match = mt }/= { .list = { \&reg.list, \&reg.list }, .match = mt, .data = \&extv }/' cbanc0 &&
cbo 's/^extern int ext(int);/&\nextern int extv;/; s/= { .match = mt }/= { .list = { \&reg.list, \&reg.list }, .match = mt, .check = mt2, .data = \&extv }/' cbanc1 &&
cbo 's/= { .match = mt }/= { .match = mt, .data = \&lim }/' cbanc2 &&
cbo 's/= { .match = mt }/= { .match = mt, .check = mt2, .data = \&lim }/' cbanc3 ||
	bail "cannot compile the callback objects"
out=$(ksplice-create --diff-objects "$tmp/cb0.o" "$tmp/cbnew.o")
like "$out" '^  changed data: reg: callback fields \(1\) of writable data: patched in place \(anchors: 1\)$' \
	"a writable ops structure gaining a callback the update adds: its field patched in place (its unchanged .match an anchor)"
like "$out" '^new chk$' "  the callback is new code of the update"
unlike "$out" 'changed data: reg: its' "  not refused"
out=$(ksplice-create --diff-objects "$tmp/cb0.o" "$tmp/cbre.o")
like "$out" '^  changed data: reg: callback fields \(1\) of writable data: patched in place \(anchors: 0\)$' \
	"a callback retargeted to another existing function: patched in place (no other reference: no anchor)"
out=$(ksplice-create --diff-objects "$tmp/cbnew.o" "$tmp/cb0.o")
like "$out" '^  changed data: reg: callback fields \(1\) of writable data: patched in place \(anchors: 1\)$' \
	"a callback removed (a function to NULL): patched in place"
out=$(ksplice-create --diff-objects "$tmp/cb0.o" "$tmp/cbflags.o")
like "$out" '^  note: reg is writable \(only callback fields can be\), but cannot be patched in place: a byte that is not a callback at \+0x20$' \
	"a callback added beside a changed flag: not patched in place, the flag named"
like "$out" '^  changed data: reg: its initial value \(\.data\.\.read_mostly; used by regit\)$' "  but refused"
out=$(ksplice-create --diff-objects "$tmp/cb0.o" "$tmp/cbdata.o")
like "$out" 'cannot be patched in place: a pointer to data \(lim\) at \+0x28$' \
	"a data pointer field is not a callback"
like "$out" '^  changed data: reg: its initial value \(what it points at\) \(' "  refused"
out=$(ksplice-create --diff-objects "$tmp/cb0.o" "$tmp/cbsize.o")
like "$out" '^  changed data: reg: its size \(' "a writable structure that grows is refused, callback or not"
unlike "$out" 'callback fields \([0-9]+\)' "  not patched in place"
out=$(ksplice-create --diff-objects "$tmp/cb0.o" "$tmp/cbext.o")
like "$out" '^  changed data: reg: callback fields \(1\) of writable data: patched in place \(anchors: 1\)$' \
	"a callback another unit defines: patched in place (the core checks its address is text)"
# Anchors: the unchanged references to functions and externs, proven by
# the core, never written; not the list head (the kernel rewrites it) nor
# a pointer to the unit's own data.
out=$(ksplice-create --diff-objects "$tmp/cbanc0.o" "$tmp/cbanc1.o")
like "$out" '^  changed data: reg: callback fields \(1\) of writable data: patched in place \(anchors: 2\)$' \
	"a structure with a list head, a callback and an extern's address: 2 anchors"
out=$(ksplice-create --diff-objects "$tmp/cbanc2.o" "$tmp/cbanc3.o")
like "$out" '^  changed data: reg: callback fields \(1\) of writable data: patched in place \(anchors: 1\)$' \
	"  a pointer to the unit's own variable is not one"
out=$(ksplice-create --diff-objects "$tmp/cbroa0.o" "$tmp/cbroa.o")
like "$out" '^  changed data: reg: its initial value \(what it points at\) \(\.data\.\.ro_after_init; ' \
	"__ro_after_init's callback is refused (boot set it)"
unlike "$out" 'callback fields \([0-9]+\)' "  not patched in place"
out=$(ksplice-create --diff-objects "$tmp/cbpcpu0.o" "$tmp/cbpcpu.o")
like "$out" '^  changed data: reg: its initial value \(what it points at\) \(\.data\.\.percpu; ' \
	"a per-CPU structure's callback is refused (one copy per CPU, each the kernel's)"
unlike "$out" 'callback fields \([0-9]+\)' "  not patched in place"
