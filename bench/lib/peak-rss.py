#!/usr/bin/env python3
"""peak-rss.py COMMAND...: run COMMAND (its output to /dev/null); print
"self KB tree KB seconds": COMMAND's own peak RSS (VmHWM of its /proc
status, read every 20 ms: growth in its last 20 ms can be missed), the
largest peak of any process of its tree (the kernel's ru_maxrss of the
reaped children: a compiler it ran, say) and its wall time.  Exits with
COMMAND's status."""
import resource
import subprocess
import sys
import time


def hwm(pid):
    try:
        with open("/proc/%d/status" % pid) as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


t0 = time.monotonic()
p = subprocess.Popen(sys.argv[1:], stdout=subprocess.DEVNULL)
peak = 0
while p.poll() is None:
    peak = max(peak, hwm(p.pid))
    time.sleep(0.02)
tree = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
print(peak, tree, "%.1f" % (time.monotonic() - t0))
sys.exit(p.returncode)
