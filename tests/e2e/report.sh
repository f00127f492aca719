#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# End to end: `report` on a store of imported fixture documents (golden
# Markdown; the HTML loaded in headless Chromium: no console errors, every
# chart's series and points, sortable tables, a screenshot), its bad
# arguments, and a report of samples the real binary measured.
. "$(dirname "$0")/lib.sh"

HERE=$(cd "$(dirname "$0")" && pwd)
DATA=$(cd "$HERE/../data/report" && pwd)
# kept after the run, beside the binary under test, to be looked at
OUT=$(dirname "$NR")/e2e-report
mkdir -p "$OUT"
DB=$TMP/fixture.db
L1=v6.1
L2=v6.2-rc1
L3='rc2 <b>&"x"|y'

"$NR" import --db "$DB" "$DATA/base.jsonl" "$DATA/rc1.jsonl" "$DATA/rc2.jsonl" >"$TMP/imp" 2>&1
check "the fixture documents import" grep -q "rc2.jsonl: 20 samples added" "$TMP/imp"

# --- Markdown: the same input gives the same bytes ---
"$NR" report --db "$DB" --format md "$L1" "$L2" "$L3" >"$TMP/three.md" 2>"$TMP/err"
rc=$?
checkx "md: three labels, exit 0, nothing on stderr" '[ $rc -eq 0 ] && [ ! -s "$TMP/err" ]'
check "md: three labels match the golden file" diff -u "$DATA/three.md" "$TMP/three.md"
"$NR" report --db "$DB" --format md --baseline "$L2" "$L1" -o "$TMP/pair.md" >"$TMP/out" 2>&1
rc=$?
checkx "md -o FILE: written, a summary line on stdout" \
	'[ $rc -eq 0 ] && grep -q "pair.md: 2 labels, 8 configurations$" "$TMP/out"'
check "md: --baseline not among the labels is added first (golden file)" \
	diff -u "$DATA/pair.md" "$TMP/pair.md"

# --- bad arguments: 2; labels or stores that are not there: 3 ---
for args in "" "--format pdf $L1" "--nosuch $L1" "$L1 $L1" "-o"; do
	# shellcheck disable=SC2086
	"$NR" report --db "$DB" $args >/dev/null 2>"$TMP/err"
	rc=$?
	checkx "bad arguments '${args}': exit 2 with a message" '[ $rc -eq 2 ] && [ -s "$TMP/err" ]'
done
"$NR" report --db "$DB" "$L1" nosuchlabel -o "$TMP/x.html" >/dev/null 2>"$TMP/err"
rc=$?
checkx "a label without samples: exit 3 naming it, no file written" \
	'[ $rc -eq 3 ] && grep -q "nosuchlabel" "$TMP/err" && [ ! -e "$TMP/x.html" ] && [ -z "$(ls "$TMP" | grep "x.html")" ]'
"$NR" report --db "$TMP/none.db" "$L1" >/dev/null 2>"$TMP/err"
rc=$?
checkx "a missing store: exit 3" '[ $rc -eq 3 ] && grep -q "none.db" "$TMP/err"'
"$NR" report --help >"$TMP/help"
checkx "--help describes the command, exit 0" '[ $? -eq 0 ] && grep -q "^usage: netregress report" "$TMP/help"'

# --- compare of three labels on the same store: each against the first, as
# the two-label compare has it, then one table of the headlines ---
"$NR" compare --db "$DB" "$L1" "$L2" "$L3" >"$TMP/c3.txt" 2>"$TMP/err"
rc=$?
checkx "compare of three labels: exit 1 (v6.2-rc1 regressed), a section a label" \
	'[ $rc -eq 1 ] && [ ! -s "$TMP/err" ] && grep -qx "== $L2 against $L1 ==" "$TMP/c3.txt" && grep -qxF "== $L3 against $L1 ==" "$TMP/c3.txt"' ||
	diag "$TMP/err"
"$NR" compare --db "$DB" "$L1" "$L2" "$L3" --json >"$TMP/c3.json"
"$NR" compare --db "$DB" "$L1" "$L2" --json >"$TMP/c2.json"
"$NR" compare --db "$DB" "$L1" "$L3" --json >"$TMP/c3only.json"
rc3=$?
"$NR" compare --db "$DB" "$L1" "$L2" "$L3" --csv >"$TMP/c3.csv"
"$NR" compare --db "$DB" "$L1" "$L2" --csv >"$TMP/c2.csv"
"$NR" compare --db "$DB" "$L1" "$L3" --csv >"$TMP/c3only.csv"
python3 - "$TMP/c3.json" "$TMP/c2.json" "$TMP/c3only.json" "$TMP/c3.txt" "$L1" "$L2" "$L3" >"$TMP/c3.check" <<'PY'
import json, re, sys
multi, one, two = (json.load(open(f)) for f in sys.argv[1:4])
text = open(sys.argv[4]).read().splitlines()
base, labels = sys.argv[5], sys.argv[6:]
bad = []
if multi.get("baseline") != base or [c["b"] for c in multi["comparisons"]] != labels:
    bad.append("baseline or labels")
# each comparison is the two-label compare's, table for table
for c, alone in zip(multi["comparisons"], (one, two)):
    if c["configs"] != alone["configs"] or c["regressed"] != alone["regressed"]:
        bad.append("%s differs from compare %s %s alone" % (c["b"], base, c["b"]))
if multi["regressed"] != (one["regressed"] or two["regressed"]):
    bad.append("regressed")
# the headlines' table: a row a configuration of the baseline, each label's
# median and verdict as its comparison has them, "-" where it lacks one
i = text.index(next(l for l in text if l.startswith("headlines, each label against ")))
hdr = text[i + 1]
common = next(l for l in text if l.startswith("every configuration compared: "))
common = dict(p.split("=", 1) for p in common.split(": ", 1)[1].split())
rows = text[i + 2:text.index("", i)]
heads = {}
for c in multi["comparisons"]:
    for t in c["configs"]:
        heads.setdefault(t["config_key"], {})[c["b"]] = next(r for r in t["rows"] if r["headline"])
if len(rows) != len(heads):
    bad.append("%d rows for %d configurations" % (len(rows), len(heads)))
for key, by in heads.items():
    rest = " ".join(p for p in key.split() if common.get(p.split("=", 1)[0]) != p.split("=", 1)[1])
    row = [r for r in rows if r.startswith(rest + " ")]
    if len(row) != 1:
        bad.append("no row for " + rest)
        continue
    cells = [x.strip() for x in row[0].split(" | ")]
    a_med = cells[0].split()[-3]
    first = next(iter(by.values()))
    if abs(float(a_med) / first["a"]["median"] - 1) > 5e-4:
        bad.append("%s: baseline median %s, not %g" % (rest, a_med, first["a"]["median"]))
    for lab, cell in zip(labels, cells[1:]):
        r = by.get(lab)
        if r is None:
            if cell != "-":
                bad.append("%s under %s: %r, not -" % (rest, lab, cell))
            continue
        f = cell.split()
        if abs(float(f[0]) / r["b"]["median"] - 1) > 5e-4 or f[2] != str(r["b"]["n"]) or \
           f[4] != r["verdict"] or abs(float(f[3].rstrip("%")) - r["change_mean_pct"]) > 0.06:
            bad.append("%s under %s: %r against %r" % (rest, lab, cell, r))
print("yes" if not bad else "no " + "; ".join(bad))
print("# " + hdr)
PY
checkx "... each label's comparison is the two-label compare's, in JSON; the headlines' table has every configuration, each label's median, change and verdict as those tables do, - where a label lacks one (exit $rc3 for the third alone)" \
	'grep -qx yes "$TMP/c3.check" && [ $rc3 -eq 0 ]' || diag "$TMP/c3.check"
checkx "... --csv: the rows of the two-label compares, one header" \
	'cat "$TMP/c2.csv" <(tail -n +2 "$TMP/c3only.csv") | cmp -s - "$TMP/c3.csv"'
checkx "... the summary: a line a label, where it regressed or improved, and that each is a family of its own" \
	'grep -qx "$L2 against $L1: 8 configurations compared: REGRESSION in a headline metric; the headline regressed in 3 of the 8, which share no parameter the others lack" "$TMP/c3.txt" &&
	 grep -qxF "$L3 against $L1: 4 configurations compared: no headline regression; it improved in 1 of the 4: dir=send msg=65536 rmsg=131072 test=tcp_stream" "$TMP/c3.txt" &&
	 grep -q "^the headlines of each label against $L1 are one family (Benjamini-Hochberg over its configurations)" "$TMP/c3.txt"'
"$NR" compare --db "$DB" "$L1" "$L2" "$L3" --where test=tcp_rr --where resp=64 >"$TMP/c3w.txt" 2>&1
rc=$?
checkx "... --where narrows every label: one configuration, its key above the headlines (exit $rc)" \
	'[ $rc -eq 0 ] && grep -A1 "^headlines, each label" "$TMP/c3w.txt" | grep -q "^config: .*resp=64" &&
	 grep -qF "$L3 against $L1: 1 configuration compared (--where test=tcp_rr resp=64): no headline regression" "$TMP/c3w.txt"' ||
	diag "$TMP/c3w.txt" "against|^config"
# where the regressions lie: the two tcp_stream configurations of 1 KiB
# writes, of the six tcp_stream ones
"$NR" compare --db "$DB" "$L1" "$L2" --where test=tcp_stream >"$TMP/corner.txt" 2>&1
"$NR" compare --db "$DB" "$L1" "$L2" --where test=tcp_stream --json >"$TMP/corner.json" 2>&1
checkx "compare names the corner where the headline regressed: 2 of 6, all with msg=1024 rmsg=131072, in text and JSON" \
	'grep -q "^6 configurations compared (--where test=tcp_stream): REGRESSION in a headline metric; the headline regressed in 2 of the 6, all with msg=1024 rmsg=131072 (2 of the 2 that have it);" "$TMP/corner.txt" &&
	 jtrue "$TMP/corner.json" "d[\"regressed_in\"] == {\"n\": 2, \"pairs\": \"msg=1024 rmsg=131072\", \"with\": 2} and d[\"improved_in\"][\"n\"] == 0"' ||
	diag "$TMP/corner.txt" "compared"
for args in "$L1 $L2 $L1" "$L1 $(seq -s " " 1 64)"; do
	# shellcheck disable=SC2086  # the labels split on purpose
	"$NR" compare --db "$DB" $args >"$TMP/out" 2>&1
	rc=$?
	checkx "compare ${args:0:40}: exit 2 naming what is wrong" \
		'[ $rc -eq 2 ] && grep -qE "label .v6.1. is given twice|at most 64 labels, not 65" "$TMP/out"' || diag "$TMP/out"
done
"$NR" compare --db "$DB" "$L1" "$L2" nosuch >"$TMP/out" 2>&1
rc=$?
checkx "compare with a label that has no samples: exit 3 naming it" '[ $rc -eq 3 ] && grep -q "label .nosuch." "$TMP/out"'

# --- HTML ---
(cd "$TMP" && "$NR" report --db "$DB" "$L1" "$L2" "$L3") >"$TMP/out" 2>&1
rc=$?
checkx "html: report.html by default, a summary line naming 8 charts" \
	'[ $rc -eq 0 ] && [ -s "$TMP/report.html" ] && grep -q "report.html: 3 labels, 8 configurations, 8 charts" "$TMP/out"'
H=$OUT/report.html
cp "$TMP/report.html" "$H"
checkx "html: self-contained: no address but the SVG namespace" \
	'[ -z "$(grep -oE "(https?|ftp)://[^\"'"'"' )]*" "$H" | grep -vx "http://www.w3.org/2000/svg")" ]'
checkx "html: no external script, style sheet or font" \
	'! grep -qiE "<script[^>]+src=|<link[^>]+href=|@import|@font-face|url\(" "$H"'
checkx "html: labels are escaped, never raw markup" \
	'! grep -qF "rc2 <b>" "$H" && grep -qF "rc2 &lt;b&gt;&amp;&quot;x&quot;|y" "$H"'

# Chromium, installed when missing; a test that cannot run fails, loudly.
if ! command -v chromium >/dev/null 2>&1; then
	echo "# chromium is missing: apt-get install -y chromium (Debian 12)" >&2
	DEBIAN_FRONTEND=noninteractive apt-get install -y chromium >"$TMP/apt.log" 2>&1 ||
		{ apt-get update >>"$TMP/apt.log" 2>&1 &&
		  DEBIAN_FRONTEND=noninteractive apt-get install -y chromium >>"$TMP/apt.log" 2>&1; }
fi
if ! command -v chromium >/dev/null 2>&1; then
	tail -5 "$TMP/apt.log" 2>/dev/null | sed 's/^/# /'
	not_ok "chromium is installed (apt-get install chromium failed: the HTML cannot be checked)"
	exit 1
fi
ok "chromium is installed ($(chromium --version 2>/dev/null | head -1))"

SHOT=$OUT/report.png
rm -f "$SHOT"
timeout 120 python3 "$HERE/report_check.py" "$H" "$TMP/page.json" "$SHOT" 2>"$TMP/check.err"
rc=$?
if [ $rc -ne 0 ]; then
	sed 's/^/# /' "$TMP/check.err" | tail -20
	not_ok "html: headless chromium loads the page (report_check.py exit $rc)"
	exit 1
fi
ok "html: headless chromium loads the page"
P=$TMP/page.json
# jq-like checks of the page's facts: pj 'expression over d'
pj() { jtrue "$P" "$1"; }
checkx "html: no console error, no uncaught exception" 'pj "d[\"errors\"] == []" || { jpy "$P" "d[\"errors\"]"; false; }'
checkx "html: no request leaves the file" 'pj "d[\"external_requests\"] == [] and d[\"facts\"][\"external\"] == 0"'
checkx "html: the inline script ran" 'pj "d[\"facts\"][\"ready\"] == \"1\""'
checkx "html: the title names the labels, unescaped once" \
	'pj "d[\"facts\"][\"title\"] == \"netregress report: v6.1, v6.2-rc1, rc2 <b>&\\\"x\\\"|y\""'
checkx "html: 8 charts: 6 against an axis, 2 of latency" \
	'pj "[c[\"kind\"] for c in d[\"facts\"][\"charts\"]] == [\"axis\"] * 6 + [\"latency\"] * 2"'
# Each chart of the fixture: (title, categories, series, points). The
# third label measured only rcvbuf=auto and resp=64; rmsg follows msg, so
# it is drawn with msg, never as an axis of its own.
cat >"$TMP/expect.py" <<'EOF'
A, B, C = "v6.1", "v6.2-rc1", 'rc2 <b>&"x"|y'
expect = [
    ("tcp_rr: transactions.per_s against resp", ["64", "1K"], [A, B, C], [10, 10, 5]),
    ("tcp_stream: throughput.gbps against msg, rcvbuf=64K", ["1K", "64K", "256K"], [A, B], [15, 15]),
    ("tcp_stream: throughput.gbps against msg, rcvbuf=auto", ["1K", "64K", "256K"], [A, B, C], [15, 15, 15]),
    ("tcp_stream: throughput.gbps against rcvbuf, msg=1K rmsg=128K", ["64K", "auto"], [A, B, C], [10, 10, 5]),
    ("tcp_stream: throughput.gbps against rcvbuf, msg=256K rmsg=256K", ["64K", "auto"], [A, B, C], [10, 10, 5]),
    ("tcp_stream: throughput.gbps against rcvbuf, msg=64K rmsg=128K", ["64K", "auto"], [A, B, C], [10, 10, 5]),
    ("test=tcp_rr resp=1K: latency percentiles", ["p50", "p90", "p99", "p99.9"], [A, B], [20, 20]),
    ("test=tcp_rr resp=64: latency percentiles", ["p50", "p90", "p99", "p99.9"], [A, B, C], [20, 20, 20]),
]
EOF
python3 - "$P" "$TMP/expect.py" "$tap_n" >"$TMP/charts.tap" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
n = int(sys.argv[3])
ns = {}
exec(open(sys.argv[2]).read(), ns)
charts = d["facts"]["charts"]
for i, (title, cats, labels, pts) in enumerate(ns["expect"]):
    c = charts[i] if i < len(charts) else None
    got = c and (c["title"], c["categories"], [s[0] for s in c["series_points"]],
                 [s[2] for s in c["series_points"]])
    want = (title, cats, labels, pts)
    drawn = c and (c["series"] == c["data_series"] == len(labels) and
                   c["points"] == c["data_points"] == sum(pts) and
                   all(s[1] == s[2] for s in c["series_points"]) and
                   c["medians"] == len(labels) and c["legend"] == labels and
                   c["ytitle"] and c["xtitle"])
    ok = got == want and drawn
    print("%s %d - html: chart %d: %s: %d series, %d points, axis titles, legend" %
          ("ok" if ok else "not ok", n + i + 1, i, title, len(labels), sum(pts)))
    if not ok:
        print("# want %r\n# got  %r" % (want, got))
        print("# chart %r" % (c,))
PY
cat "$TMP/charts.tap"
tap_n=$((tap_n + $(grep -c '^ok\|^not ok' "$TMP/charts.tap")))
checkx "html: the axis of the first chart says what changes with msg" \
	'pj "d[\"facts\"][\"charts\"][1][\"xtitle\"] == \"msg (rmsg changes with it)\" and d[\"facts\"][\"charts\"][0][\"ytitle\"] == \"transactions.per_s (trans/s)\""'
checkx "html: environment rows that differ are highlighted (kernels, fingerprints)" 'pj "d[\"facts\"][\"diff_rows\"] == 4"'
checkx "html: three sortable tables: summary and one compare table per other label" 'pj "d[\"facts\"][\"sortable\"] == 3"'
checkx "html: a click on %change sorts the compare table, a second click reverses it" \
	'pj "d[\"sort\"][\"found\"] and d[\"sort\"][\"asc\"] and d[\"sort\"][\"desc\"] and d[\"sort\"][\"moved\"] and d[\"sort\"][\"rows\"] == 21"'
checkx "html: a screenshot of the whole page" \
	'[ -s "$SHOT" ] && [ "$(head -c 8 "$SHOT" | od -An -tx1 | tr -d " \n")" = 89504e470d0a1a0a ] && pj "d[\"screenshot\"][\"height\"] > 2000"'
echo "# screenshot: $SHOT"
echo "# page: $H"

# --- samples the real binary measured: two labels over one axis, and rr ---
RDB=$TMP/real.db
for label in A B; do
	for msg in 64K 128K; do
		timeout 60 "$NR" run tcp_stream -l 300ms --warmup 0 --reps 3 --msg "$msg" \
			--label "$label" --db "$RDB" >/dev/null 2>&1 || echo "# run $label $msg failed"
	done
	timeout 60 "$NR" run tcp_rr -l 300ms --warmup 0 --reps 3 --label "$label" \
		--db "$RDB" >/dev/null 2>&1 || echo "# run $label tcp_rr failed"
done
"$NR" report --db "$RDB" A B -o "$OUT/real.html" >"$TMP/out" 2>&1
# 5 charts, and under each configuration's rates the cross-CPU probe's
# (loopback) and for the streams the speed probe's (on for streams)
checkx "measured: a report of two labels, 3 configurations, 10 charts" \
	'grep -q "real.html: 2 labels, 3 configurations, 10 charts" "$TMP/out"'
timeout 120 python3 "$HERE/report_check.py" "$OUT/real.html" "$TMP/real.json" "$OUT/real.png" 2>"$TMP/check.err"
checkx "measured: loads without errors; msg chart 2 x 6 dots, latency 2 x 12" \
	'jtrue "$TMP/real.json" "d[\"errors\"] == [] and [(c[\"kind\"], c[\"series\"], c[\"points\"], c[\"categories\"]) for c in d[\"facts\"][\"charts\"][:2]] == [(\"axis\", 2, 12, [\"64K\", \"128K\"]), (\"latency\", 2, 24, [\"p50\", \"p90\", \"p99\", \"p99.9\"])]"'
# A line per sample that kept its rates: a 300 ms window whose server
# ticks the host delayed past 150 ms keeps no 100 ms rate, and has no line.
"$NR" export --db "$RDB" >"$TMP/real.jsonl"
python3 - "$TMP/real.jsonl" "$TMP/real.json" >"$TMP/windows" <<'PY'
import collections, json, sys
kept = collections.Counter()
for line in open(sys.argv[1]):
    s = json.loads(line)
    kept[s["config"]["key"]] += any(v is not None for v in s.get("window_series", {}).get("values", []))
charts = [c for c in json.load(open(sys.argv[2]))["facts"]["charts"][2:] if c["kind"] == "window"]
got = sorted(c["windows"] for c in charts)
ok = len(kept) == 3 and got == sorted(kept.values()) and len(charts) == 3 and min(got) >= 1 and all(
    (c["series"], c["legend"], c["xtitle"]) == (2, ["A", "B"], "seconds into the window") and
    c["data_points"] == sum(p[1] for p in c["series_points"]) > 0 for c in charts)
print("yes" if ok else "no: windows drawn %r, samples with rates by configuration %r" % (got, dict(kept)))
PY
check "measured: each configuration's rates within the window, a line per sample that kept them (of 2 labels x 3), legend A B" \
	grep -qx yes "$TMP/windows" || diag "$TMP/windows"
python3 - "$TMP/real.json" >"$TMP/probes" <<'PY'
import json, sys
charts = json.load(open(sys.argv[1]))["facts"]["charts"][2:]
groups, ok = [], True
for c in charts:
    if c["kind"] == "window":
        groups.append([])
    else:
        groups[-1].append(c["kind"])
        ok &= c["legend"] == ["A", "B"] and c["xtitle"] == "seconds into the window" and \
            1 <= c["windows"] <= 6 and c["ytitle"].startswith("ns (" if c["kind"] == "window-xcpu_ns" else "op/us (")
print("yes" if ok and sorted(map(tuple, groups)) ==
      [("window-xcpu_ns",), ("window-xcpu_ns", "window-host_speed"), ("window-xcpu_ns", "window-host_speed")]
      else "no %r" % groups)
PY
check "measured: under each window chart the cross-CPU probe's, and the speed probe's for the two streams" \
	grep -qx yes "$TMP/probes" || diag "$TMP/probes"
"$NR" report --db "$RDB" --format md A B >"$TMP/real.md"
checkx "measured: the Markdown compares B against A in both configurations" \
	'[ "$(grep -c "^| \`test=tcp_stream msg=\(64K\|128K\)\` | throughput.gbps (higher)" "$TMP/real.md")" -eq 2 ]'
