#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# End to end: --headline. Two labels of udp_stream on a namespace's loopback shaped to 200 and 100 mbit: compare, report and a bisect judge throughput.msgs_per_s when told (the regression, its exit code, the summary, --json, the bisect's stored metric and a step's verdict); a neutral metric without a direction, a malformed one and one the samples lack are refused with exit 2.
. "$(dirname "$0")/lib.sh"

if [ "$(id -u)" -ne 0 ] || ! command -v ip >/dev/null || ! command -v tc >/dev/null ||
	! ip netns list >/dev/null 2>&1; then
	echo "ok 1 # SKIP needs root, network namespaces and iproute2 (ip, tc)"
	exit 0
fi

RUN=(-m 1000 -l 300ms --warmup 100ms)
H=throughput.msgs_per_s

# measure LABEL RATE REPS: udp_stream under RATE, stored under LABEL
measure() {
	shaped "$2" timeout 120 "$NR" run udp_stream "${RUN[@]}" --reps "$3" --label "$1" >/dev/null
}
measure fast 200mbit 5
measure slow 100mbit 5
checkx "5 samples under each label" \
	'[ "$(pred samples "$NETREGRESS_DB")" -eq 10 ]'

# first_row FILE: compare's first table row, the line under its header
first_row() { awk '/^metric \(better\)/ { getline; print; exit }' "$1"; }
"$NR" compare --keep-disturbed fast slow --headline $H >"$TMP/c1" 2>&1
rc=$?
checkx "compare --headline $H: the rate halved is a REGRESSION of it, exit 1, the first row and the summary name it" \
	'[ $rc -eq 1 ] &&
	 first_row "$TMP/c1" | grep -qE "^$H \(higher\) .*\| REGRESSION$" &&
	 grep -qx "1 configuration compared: REGRESSION in the headline $H" "$TMP/c1"' ||
	diag "$TMP/c1"
"$NR" compare --keep-disturbed slow fast --headline $H >"$TMP/c2" 2>&1
rc=$?
checkx "the other way round: an IMPROVEMENT, exit 0" \
	'[ $rc -eq 0 ] && first_row "$TMP/c2" | grep -qE "^$H \(higher\) .*\| IMPROVEMENT$" &&
	 grep -qx "1 configuration compared: no regression in the headline $H" "$TMP/c2"' ||
	diag "$TMP/c2"
"$NR" compare --keep-disturbed fast slow --headline $H --json >"$TMP/c1.json" 2>"$TMP/c1.err"
rc=$?
checkx "--json: the headline at the top and in the configuration, its row first and marked, the regression" \
	'[ $rc -eq 1 ] && jtrue "$TMP/c1.json" "d[\"headline\"] == \"$H\" and d[\"regressed\"] and d[\"configs\"][0][\"headline\"] == \"$H\" and d[\"configs\"][0][\"rows\"][0][\"metric\"] == \"$H\" and d[\"configs\"][0][\"rows\"][0][\"headline\"] and d[\"configs\"][0][\"rows\"][0][\"verdict\"] == \"REGRESSION\" and not any(r[\"headline\"] for r in d[\"configs\"][0][\"rows\"][1:])"' ||
	diag "$TMP/c1.err"
# the test's own headline moved too: the same call without the flag
"$NR" compare --keep-disturbed fast slow >"$TMP/c0" 2>&1
rc=$?
checkx "without --headline the table's headline is throughput.gbps and the summary as before" \
	'[ $rc -eq 1 ] && first_row "$TMP/c0" | grep -qE "^throughput.gbps \(higher\) " &&
	 grep -qx "1 configuration compared: REGRESSION in a headline metric" "$TMP/c0"' ||
	diag "$TMP/c0"

"$NR" compare --keep-disturbed fast slow --headline profile.self.memcpy >"$TMP/e1" 2>&1
rc=$?
checkx "a neutral metric without a direction: exit 2, naming it and both forms" \
	'[ $rc -eq 2 ] && grep -q "profile.self.memcpy:higher or --headline profile.self.memcpy:lower" "$TMP/e1"' ||
	diag "$TMP/e1"
"$NR" compare --keep-disturbed fast slow --headline "$H:lower" >"$TMP/e2" 2>&1
rc=$?
checkx "a direction against the store's: exit 2" \
	'[ $rc -eq 2 ] && grep -q "invalid --headline .$H:lower.: for $H, higher is better" "$TMP/e2"' ||
	diag "$TMP/e2"
"$NR" compare --keep-disturbed fast slow --headline throughput.msg_per_s >"$TMP/e3" 2>&1
rc=$?
checkx "a metric no sample has: exit 2, naming it and those of its family the samples have" \
	'[ $rc -eq 2 ] && grep -q "^netregress: --headline throughput.msg_per_s: no sample of .fast. or .slow. in configuration .* has this metric (of its family they have throughput.gbps, $H" "$TMP/e3" &&
	 [ "$(wc -l <"$TMP/e3")" -eq 1 ]' || diag "$TMP/e3"
"$NR" compare --keep-disturbed fast slow --headline latency.p99_us >"$TMP/e4" 2>&1
rc=$?
checkx "latency.p99_us of a stream (none): exit 2" \
	'[ $rc -eq 2 ] && grep -q "^netregress: --headline latency.p99_us: no sample of" "$TMP/e4"' ||
	diag "$TMP/e4"

"$NR" report --keep-disturbed fast slow --format md --headline $H -o - >"$TMP/r.md" 2>"$TMP/r.err"
rc=$?
# Markdown escapes the underscores
HMD=${H//_/\\_}
row_md="| \`test=udp_stream\` | $HMD (msg/s) | "
sum_md="1 configuration compared: REGRESSION in the headline $HMD. "
checkx "report --headline: its summary table and comparison follow the metric" \
	'[ $rc -eq 0 ] && grep -qF "$row_md" "$TMP/r.md" && grep -qF "$sum_md" "$TMP/r.md"' ||
	{ diag "$TMP/r.md" "headline|compared"; diag "$TMP/r.err"; }

printf 'duration: 300ms\nparams:\n  test: [udp_stream]\n' >"$TMP/job.yaml"
"$NR" matrix --dry-run --headline profile.self.memcpy "$TMP/job.yaml" >"$TMP/m" 2>&1
rc=$?
checkx "matrix refuses a neutral --headline before it runs anything" \
	'[ $rc -eq 2 ] && grep -q "profile.self.memcpy:higher" "$TMP/m" && ! grep -q "steps to run" "$TMP/m"' ||
	diag "$TMP/m"

"$NR" bisect start --good fast --bad slow udp_stream "${RUN[@]}" --headline profile.self.memcpy >"$TMP/b0" 2>&1
rc=$?
checkx "bisect start refuses a neutral --headline: exit 2" \
	'[ $rc -eq 2 ] && grep -q "profile.self.memcpy:lower" "$TMP/b0"' || diag "$TMP/b0"
"$NR" bisect start --good fast --bad slow udp_stream "${RUN[@]}" --headline latency.p99_us >"$TMP/b1" 2>&1
rc=$?
checkx "bisect start with a metric the endpoints lack: exit 2, naming it" \
	'[ $rc -eq 2 ] && grep -q "^netregress: --headline latency.p99_us: no sample of .fast. or .slow." "$TMP/b1"' ||
	diag "$TMP/b1"
"$NR" bisect start --good fast --bad slow udp_stream "${RUN[@]}" --headline $H >"$TMP/b2" 2>&1
rc=$?
checkx "bisect start --headline $H: accepted, saying what it bisects and the values in msg/s" \
	'[ $rc -eq 0 ] && grep -q "^bisect of $H (--headline, higher is better), configuration " "$TMP/b2" &&
	 grep -qE "^  good .fast.: 5 samples, median [0-9.e+]+ msg/s" "$TMP/b2"' || diag "$TMP/b2"
checkx "the bisect state holds the metric" \
	'[ "$(python3 -c "import sqlite3,sys; print(sqlite3.connect(sys.argv[1]).execute(\"select metric from bisects order by id desc limit 1\").fetchone()[0])" "$NETREGRESS_DB")" = $H ]'
shaped 100mbit timeout 120 "$NR" bisect run --commit slowstep >"$TMP/s1" 2>&1
rc=$?
checkx "a step at the slow rate is bad by $H (exit 1), its runs in msg/s" \
	'[ $rc -eq 1 ] && grep -q "^commit slowstep: bad after" "$TMP/s1" && grep -q "^  runs (msg/s):" "$TMP/s1"' ||
	diag "$TMP/s1"
"$NR" bisect log >"$TMP/l1" 2>&1
"$NR" bisect log --json >"$TMP/l1.json" 2>&1
checkx "bisect log names the metric" \
	'grep -q "^bisect [0-9]*: $H, " "$TMP/l1" && jtrue "$TMP/l1.json" "d[\"bisect\"][\"metric\"] == \"$H\" and d[\"bisect\"][\"unit\"] == \"msg/s\""' ||
	diag "$TMP/l1"

echo "1..$tap_n"
