#!/bin/bash
# ksplice-view --prometheus, against a fake sysfs tree (nothing is loaded
# into this machine's kernel): the textfile for node-exporter, read back
# with the Prometheus client library's own parser (python3-prometheus-
# client): the status gauge in each state (nothing installed, up to date,
# installed but not applied, failed), the applied updates and their CVEs
# as labels, the effective version, the kill switch; label values from
# sysfs that need escaping come back intact.
. "$(dirname "$0")/../lib/tap.sh"
cd "$KSPLICE_TOP" || bail "no $KSPLICE_TOP"
plan 21

. tests/lib/fake-sysfs.sh
fake_setup prometheus
/usr/bin/python3 -c 'import prometheus_client.parser' 2>/dev/null ||
	bail "no python3-prometheus-client (scripts/deps installs it)"

mkdir -p "$KSPLICE_SYSFS" "$KSPLICE_STORE/$rel"
fake_update nfsd "$rel" 6.1.192-2..6.1.192-3 "CVE-2026-99362 CVE-2026-1234"

# metrics: every sample as "name{label=value,...} value", labels sorted,
# parsed by prometheus_client; a parse error fails.
metrics() {
	ksplice-view --prometheus >"$tmp/prom" 2>"$tmp/prom.err" || return
	/usr/bin/python3 -c '
import sys
from prometheus_client.parser import text_string_to_metric_families
for f in text_string_to_metric_families(open(sys.argv[1]).read()):
    for s in f.samples:
        l = ",".join("%s=%s" % (k, v) for k, v in sorted(s.labels.items()))
        print("%s{%s} %g" % (s.name, l, s.value))
' "$tmp/prom"
}

### Nothing installed.
out=$(metrics)
ok $? "--prometheus with nothing installed: exit 0, parsed by prometheus_client"
like "$out" '^ksplice_status\{status=up-to-date\} 1$' "... status up-to-date 1"
like "$out" '^ksplice_status\{status=failed\} 0$' "... failed 0"
like "$out" '^ksplice_updates_installed\{\} 0$' "... no update installed"
unlike "$out" '^ksplice_update_' "... none loaded"

### Installed, not applied.
cp "$tmp/nfsd.tar.gz" "$KSPLICE_STORE/$rel/01-nfsd.tar.gz"
out=$(metrics)
like "$out" '^ksplice_status\{status=not-applied\} 1$' "installed, not applied: not-applied 1"
like "$out" '^ksplice_status\{status=up-to-date\} 0$' "... up-to-date 0"

### Applied.
fake_registered nfsd
ksplice-apply --installed >/dev/null 2>&1 || bail "cannot apply (fake)"
out=$(metrics)
ok $? "--prometheus with nfsd applied"
like "$out" '^ksplice_status\{status=up-to-date\} 1$' "... up-to-date 1"
like "$out" '^ksplice_update_applied\{id=nfsd,stage=applied\} 1$' "... nfsd applied"
like "$out" '^ksplice_update_cve_info\{cve=CVE-2026-99362,id=nfsd\} 1$' "... its CVE-2026-99362 as a label"
like "$out" '^ksplice_update_cve_info\{cve=CVE-2026-1234,id=nfsd\} 1$' "... and CVE-2026-1234"
like "$out" "^ksplice_effective_version_info\\{effective=6\\.1\\.192-3,release=$rel,version=.*\\} 1$" \
	"... the effective version 6.1.192-3"
like "$out" '^ksplice_updates_installed_applied\{\} 1$' "... 1 installed update applied"
like "$out" '^ksplice_disabled\{\} 0$' "... not disabled"

### A loaded update not applied, whose stage needs escaping.
fake_registered odd
printf 'odd "quoted" \\ back\nslash' >"$KSPLICE_SYSFS/odd/stage"
out=$(metrics)
ok $? "a stage with quotes, a backslash and a newline: still parsed"
is "$(/usr/bin/python3 -c '
import sys
from prometheus_client.parser import text_string_to_metric_families
for f in text_string_to_metric_families(open(sys.argv[1]).read()):
    for s in f.samples:
        if s.labels.get("id") == "odd": print(repr(s.labels["stage"]), s.value)
' "$tmp/prom")" "'odd \"quoted\" \\\\ back\\nslash' 0.0" "... the label comes back intact, value 0"
unlike "$out" 'cve_info\{.*id=odd' "... and it has no CVE series"

### Failed, and disabled.
rm -rf "$KSPLICE_SYSFS" "$KSPLICE_RUN"
mkdir -p "$KSPLICE_SYSFS"
ksplice-apply --installed >/dev/null 2>&1
out=$(metrics)
like "$out" '^ksplice_status\{status=failed\} 1$' "after a failed apply: failed 1"
echo "quiet ksplice=off" >"$tmp/cmdline"
out=$(metrics)
like "$out" '^ksplice_disabled\{\} 1$' "ksplice=off: disabled 1"

ksplice-view --prometheus --json >/dev/null 2>&1
is "$?" 2 "--prometheus with --json: usage error, exit 2"
