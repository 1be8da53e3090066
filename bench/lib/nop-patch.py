#!/usr/bin/env python3
"""nop-patch.py SOURCE FILE N: a -p1 patch (on stdout) that puts one
asm volatile("nop") at the top of the first N function bodies (a "{" alone
on a line after a line ending in ")") of FILE in the tree SOURCE, after
the body's leading declarations.  Each of those functions' code changes
and nothing else's behaviour does: an update of about N functions for
bench/pause-size.  __init and __exit functions are skipped (not patchable)."""
import difflib
import sys

src, path, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
with open("%s/%s" % (src, path)) as f:
    old = f.read().splitlines(keepends=True)
new, done, i = [], 0, 0
while i < len(old):
    line = old[i]
    new.append(line)
    if (done < n and line == "{\n" and i > 0 and old[i - 1].rstrip().endswith(")")
            and "__init" not in old[i - 1] and "__exit" not in old[i - 1]
            and "(" in "".join(old[max(0, i - 4):i])):
        # after the declarations: lines up to the first blank one, if the
        # body starts with declarations (a line ending in ";" with no "(")
        j = i + 1
        while j < len(old) and old[j].startswith("\t") and old[j].rstrip().endswith(";") \
                and "(" not in old[j] and "=" not in old[j]:
            j += 1
        if j < len(old) and old[j] == "\n" and j > i + 1:
            new.extend(old[i + 1:j + 1])
            i = j
        new.append('\tasm volatile("nop");\n')
        done += 1
    i += 1
if done < n:
    sys.exit("nop-patch: only %d function bodies in %s" % (done, path))
sys.stdout.writelines(difflib.unified_diff(old, new, "a/" + path, "b/" + path))
