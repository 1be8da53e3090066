#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""
gen-update.py ID TARGET PRE.o POST.o FUNC... [-- SPARE...] [+ NEW...] > update.c

Writes the C source of a test update module for the ksplice core: for
each FUNC, its pre code, relocations and special sites from PRE.o, and
its replacement from POST.o (raw bytes placed in the module's text; every
relocation of it becomes a new_reloc the core fills in).  Objects must be
built with -ffunction-sections.  A stand-in for ksplice-create, for the
core's self-test only.

The module takes a parameter bad=N that breaks the update in a known way
before registering it (see update/break.c), to test validation and
matching.  SPARE functions follow the others in the array but are not
counted in nr_funcs: break.c swaps them in.  NEW functions are only in
POST.o: the update's new_funcs, which cb=1 (update/cb.c) turns on.
"""
import struct
import sys

SHT_SYMTAB, SHT_RELA = 2, 4
STT_SECTION = 3
R_PC32, R_PLT32, R_64, R_32, R_32S = 2, 4, 1, 10, 11
SITE_KIND = {"__mcount_loc": 1, ".return_sites": 2, ".retpoline_sites": 3,
             ".static_call_sites": 4, ".call_sites": 9}


class Elf:
    def __init__(self, path):
        self.data = d = open(path, "rb").read()
        shoff, = struct.unpack_from("<Q", d, 0x28)
        shentsize, shnum, shstrndx = struct.unpack_from("<HHH", d, 0x3a)
        self.secs = []
        for i in range(shnum):
            f = struct.unpack_from("<IIQQQQIIQQ", d, shoff + i * shentsize)
            self.secs.append(dict(name=f[0], type=f[1], off=f[4], size=f[5],
                                  link=f[6], info=f[7]))
        names = self.secs[shstrndx]
        for s in self.secs:
            s["name"] = self.cstr(names["off"] + s["name"])
        self.syms = []
        for s in self.secs:
            if s["type"] != SHT_SYMTAB:
                continue
            strs = self.secs[s["link"]]["off"]
            for o in range(s["off"], s["off"] + s["size"], 24):
                name, info, _, shndx, value, size = struct.unpack_from(
                    "<IBBHQQ", d, o)
                self.syms.append(dict(name=self.cstr(strs + name),
                                      type=info & 0xf, shndx=shndx,
                                      value=value, size=size))

    def cstr(self, off):
        return self.data[off:self.data.index(b"\0", off)].decode()

    def relas(self, secidx):
        for s in self.secs:
            if s["type"] != SHT_RELA or s["info"] != secidx:
                continue
            for o in range(s["off"], s["off"] + s["size"], 24):
                off, info, addend = struct.unpack_from("<QQq", self.data, o)
                yield off, self.syms[info >> 32], info & 0xffffffff, addend

    def func(self, name):
        for s in self.syms:
            if s["name"] == name and s["type"] == 2:
                sec = self.secs[s["shndx"]]
                start = sec["off"] + s["value"]
                return s, self.data[start:start + s["size"]]
        sys.exit("no function %s" % name)

    def sec_index(self, name):
        return [s["name"] for s in self.secs].index(name)


def relocs(elf, fsym):
    """The relocations inside a function: (offset, type, addend, symbol,
    expect, expect_off)."""
    out = []
    lo, hi = fsym["value"], fsym["value"] + fsym["size"]
    for off, sym, typ, addend in elf.relas(fsym["shndx"]):
        if not lo <= off < hi:
            continue
        name, expect, eoff = sym["name"], None, 0
        if sym["type"] == STT_SECTION:
            sec = elf.secs[sym["shndx"]]
            if ".str" not in sec["name"]:
                sys.exit("unsupported section reloc to %s" % sec["name"])
            # the string referred to; a PC32 field ends its instruction
            eoff = addend + (4 if typ in (R_PC32, R_PLT32) else 0)
            start = sec["off"] + eoff
            expect = elf.data[start:elf.data.index(b"\0", start) + 1]
            name = ""
        out.append((off - lo, typ, addend, name, expect, eoff))
    return out


def sites(elf, fsym):
    out = []
    for secname, kind in SITE_KIND.items():
        try:
            idx = elf.sec_index(secname)
        except ValueError:
            continue
        for _, sym, _, addend in elf.relas(idx):
            if sym["shndx"] != fsym["shndx"]:
                continue
            at = addend + (0 if sym["type"] == STT_SECTION else sym["value"])
            if fsym["value"] <= at < fsym["value"] + fsym["size"]:
                out.append((at - fsym["value"], kind))
    # objtool lists "call __fentry__" as a call site too: ftrace owns it
    mcount = {off for off, kind in out if kind == SITE_KIND["__mcount_loc"]}
    return sorted((off, kind) for off, kind in out
                  if kind != SITE_KIND[".call_sites"] or off not in mcount)


SITE_JUMP_LABEL = 8


def jump_labels(elf, fsym):
    """__jump_table entries in a function: (offset, target offset).  An
    entry is ".long code - ., .long target - ., .quad key - ."."""
    try:
        idx = elf.sec_index("__jump_table")
    except ValueError:
        return []
    rel = {off: (sym, addend) for off, sym, _, addend in elf.relas(idx)}
    out = []
    for off, (sym, addend) in sorted(rel.items()):
        if off % 16 or sym["shndx"] != fsym["shndx"] or off + 4 not in rel:
            continue
        lo = fsym["value"]
        if lo <= addend < lo + fsym["size"]:
            out.append((addend - lo, rel[off + 4][1] - lo))
    return out


def new_code_asm(i, code, rels, post_sites):
    """The new code's bytes for .byte, but each "jmp __x86_return_thunk" of
    a return site as the assembler's own reference to it: the module loader
    then rewrites it (apply_returns()), as it does in an update built by
    ksplice-create.  6.12's unpatched __x86_return_thunk warns when run."""
    rets = {off for off, kind in post_sites if kind == SITE_KIND[".return_sites"]}
    fields = {off: addend for off, typ, addend, sym, _, _ in rels
              if sym == "__x86_return_thunk" and off - 1 in rets}
    out, at = [], 0
    for off in sorted(fields):
        if off > at:
            out.append(".byte " + cbytes(code[at:off]))
        out.append(".long __x86_return_thunk + %d - ." % fields[off])
        at = off + 4
    if at < len(code):
        out.append(".byte " + cbytes(code[at:]))
    return "\\n".join(out)


def return_sites_asm(i, post_sites):
    """The .return_sites entries of the new code (new<i>, or the symbol
    @i names), for the module loader."""
    sym = i if isinstance(i, str) else "new%d" % i
    return "".join(".long %s + %d - .\\n" % (sym, off) for off, kind in post_sites
                   if kind == SITE_KIND[".return_sites"])


def cbytes(b):
    return ", ".join("0x%02x" % x for x in b)


def reloc_array(name, rels):
    lines = []
    for i, (off, typ, addend, sym, expect, eoff) in enumerate(rels):
        exp = ""
        if expect is not None:
            print("static unsigned char %s_expect%d[] = { %s };" %
                  (name, i, cbytes(expect)))
            exp = (" .expect = %s_expect%d, .expect_len = %d,"
                   " .expect_off = %d," % (name, i, len(expect), eoff))
        lines.append("\t{ .symbol = \"%s\", .offset = %d, .type = %d,"
                     " .addend = %d,%s }," % (sym, off, typ, addend, exp))
    print("static struct ksplice_reloc %s[] = {\n%s\n\t{}\n};" %
          (name, "\n".join(lines)))


def new_code(post, f, kind, i):
    """Function @f of POST.o as the update's code <kind><i>, with its
    relocations <kind>_relocs<i>."""
    nsym, nbytes = post.func(f)
    nrel = relocs(post, nsym)
    if any(r[4] is not None for r in nrel):
        sys.exit("%s: new code refers to anonymous data" % f)
    reloc_array("%s_relocs%d" % (kind, i), nrel)
    print('KSPLICE_NEW_CODE(%s%d, "%s", "%s");\n' %
          (kind, i, new_code_asm(i, nbytes, nrel, sites(post, nsym)),
           return_sites_asm("%s%d" % (kind, i), sites(post, nsym))))


def main():
    uid, target, pre_path, post_path = sys.argv[1:5]
    funcs = sys.argv[5:]
    added = []
    if "+" in funcs:
        added = funcs[funcs.index("+") + 1:]
        funcs = funcs[:funcs.index("+")]
    spare = 0
    if "--" in funcs:
        spare = len(funcs) - funcs.index("--") - 1
        funcs.remove("--")
    pre, post = Elf(pre_path), Elf(post_path)
    print("// SPDX-License-Identifier: GPL-2.0")
    print("/* Generated by kmod/test/gen-update.py; do not edit. */")
    print('#include "selftest_update.h"\n')
    for i, f in enumerate(funcs):
        psym, pbytes = pre.func(f)
        print("static unsigned char pre%d[] = { %s };" % (i, cbytes(pbytes)))
        reloc_array("pre_relocs%d" % i, relocs(pre, psym))
        jls = jump_labels(pre, psym)
        for j, (off, dest) in enumerate(jls):
            print("static struct ksplice_reloc jl%d_%d[] = {\n"
                  "\t{ .symbol = \"%s\", .addend = %d, .type = %d },\n};" %
                  (i, j, f, dest, R_64))
        print("static struct ksplice_site pre_sites%d[] = {" % i)
        all_sites = [(off, kind, None) for off, kind in sites(pre, psym)]
        all_sites += [(off, SITE_JUMP_LABEL, j)
                      for j, (off, _) in enumerate(jls)]
        for off, kind, j in sorted(all_sites, key=lambda x: x[0]):
            extra = ""
            if j is not None:
                extra = " .alt_relocs = jl%d_%d, .nr_alt_relocs = 1," % (i, j)
            print("\t{ .offset = %d, .kind = %d,%s }," % (off, kind, extra))
        print("\t{}\n};")
        new_code(post, f, "new", i)
    for i, f in enumerate(added):
        new_code(post, f, "add", i)
    print("static struct ksplice_func funcs[] = {")
    for i, f in enumerate(funcs):
        print('\tKSPLICE_FUNC("%s", "%s", %d),' % (f, target, i))
    print("};\n")
    print("static struct ksplice_func new_funcs[] = {")
    for i, f in enumerate(added):
        print('\tKSPLICE_ADDED("%s", %d),' % (f, i))
    print("\t{}\n};\n")
    print("#define KSPLICE_SPARE %d\n" % spare)
    print("static void ksplice_test_sizes(void)\n{")
    for i in range(len(funcs)):
        print("\tKSPLICE_SIZES(%d);" % i)
    for i in range(len(added)):
        print("\tKSPLICE_ADDED_SIZE(%d);" % i)
    print("}\n")
    print('KSPLICE_UPDATE("%s", "%s");' % (uid, target))


main()
