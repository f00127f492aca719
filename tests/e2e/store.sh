#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# End to end: the SQLite store, import/export, and A/B compare verdicts on
# a real, known slowdown.
. "$(dirname "$0")/lib.sh"

DB=$TMP/s.db
md5() { md5sum "$1" | cut -d' ' -f1; }

# Every run stores its samples; --reps repeats.
timeout 60 "$NR" run tcp_stream -l 300ms --warmup 0 --reps 3 --label base --db "$DB" >"$TMP/out" 2>&1
check "run --reps 3 exits 0" [ $? -eq 0 ]
check "three samples stored under the label" \
	[ "$(pred samples "$DB" base)" = 3 ]
# (a 300 ms window is short: a burst of someone else's CPU can flag one
# disturbed, and then the summary counts 2 and says why)
# (all three disturbed: the summary shows them all, as compare pools them)
n3=$(sed -nE -e 's/^throughput.gbps over ([0-9]+) samples?( \(([0-9]+) more flagged disturbed by foreign CPU load: stored, left out here as compare leaves them out\))?:.*/\1 \3/p' \
	-e 's/^throughput.gbps over ([0-9]+) samples \(all flagged disturbed by foreign CPU load: summarized anyway.*/0 \1/p' "$TMP/out")
read -r kept dist <<<"$n3"
# (the interval needs 3 that count: with 2, the median, mean and cov)
checkx "--reps 3 ends with the headline's median, cov and the 95% interval of its mean (${kept:-?} counted, ${dist:-0} disturbed)" \
	'[ "$((${kept:-0} + ${dist:-0}))" -eq 3 ] && { [ "${kept:-0}" -lt 2 ] || grep -qE "^throughput.gbps over $kept samples.*: median [0-9.e+]+ Gbps, mean [0-9.e+]+, cov [0-9.]+%$([ "$kept" -ge 3 ] && echo ", 95% interval of the mean \+-[0-9.]+%")$" "$TMP/out"; }' ||
	diag "$TMP/out" "over|repetition"
checkx "... and the samples a side compare needs at that cov" \
	'[ "${kept:-0}" -lt 2 ] || grep -qE "^at this cov, compare needs [0-9]+ samples a side to call a 5% change, [0-9]+ a 10% change \(alpha 0.05, power 0.8\)$" "$TMP/out"'

check "... and no line on the windows with fewer than 4 samples" \
	sh -c '! grep -q "^the CPUs. distance within the windows" "$1"' _ "$TMP/out"

# From 4 samples on, the summary says how the rate went with the host's
# placement of the vCPUs within the windows, and what is left without it,
# or why there is no fit: the host kept the distance within too few
# windows, or (under ASan, 1 s windows) the probe missed too many intervals.
# A repetition flagged disturbed does not count: the line is there exactly
# when 4 or more did.
timeout 90 "$NR" run tcp_rr -l 1s --warmup 0 --reps 5 --no-store >"$TMP/win4" 2>&1
check "run --reps 5 exits 0" [ $? -eq 0 ] || diag "$TMP/win4"
wn=$(sed -n 's/^transactions.per_s over \([0-9]*\) samples\{0,1\}[ :].*/\1/p' "$TMP/win4")
checkx "--reps 5: with 4 or more samples counted, how the rate went with the cpus' distance within the windows, right after the summary" \
	'if [ "${wn:-0}" -ge 4 ]; then grep -A1 "^transactions.per_s over $wn samples" "$TMP/win4" | sed -n 2p | grep -qE "^the CPUs. distance within the windows: ln\(rate\) = [-+][0-9.]+ \[[-+][0-9.]+, [-+][0-9.]+\] x ln\(round trip\) \(p = [0-9.]+, [0-9]+ windows in which it varied, [0-9]+% of the variance within them\); (with it taken out \(every sample at [0-9]+ ns\): cov [0-9.]+%, as compare.s .xcpu_adj row sees it|not significant: nothing taken out)$|^the CPUs. distance within the windows: not fitted: (the host moved the CPUs within [012] of the $wn windows \(window.xcpu_moved\), a fit needs 3|a sample without its rate, or a window with fewer than 5 intervals that have a rate and a round trip)$"; else [ -n "$wn" ] && ! grep -q "^the CPUs. distance within the windows" "$TMP/win4"; fi' ||
	diag "$TMP/win4" '^transactions.per_s over|^the CPUs'
timeout 90 "$NR" run tcp_rr -l 1s --warmup 0 --reps 5 --no-store --no-xcpu >"$TMP/win4n" 2>&1
check "... and none without the cross-CPU probe" \
	sh -c 'grep -q "^transactions.per_s over [0-9]* samples\{0,1\}[ :]" "$1" && ! grep -q "^the CPUs. distance within the windows" "$1"' _ "$TMP/win4n" ||
	diag "$TMP/win4n" '^transactions.per_s over|^the CPUs|^netregress:'

# --until-ci: repetitions until the mean's 95% interval is within +-PCT%.
# (in a database of their own: the export below counts the one above)
UDB=$TMP/until.db
count() { pred samples "$UDB" "$1"; }
# A repetition flagged disturbed does not count toward the interval. When
# the host's steal spells leave fewer than 3 that count in all 12 (CI saw
# 6 of 8 disturbed under ASan; a fresh clone's make test, 12 of 12 twice
# in a row at 38-45% steal), the rule was never exercised: that run is
# kept under its label and the test runs again under another, once the
# host's spell is over, up to three times in all; the third counts the
# disturbed ones too (--keep-disturbed: the same stopping rule), as a
# spell may outlast every wait.
for try in 1 2 3; do
	ulabel=until$try
	keep=
	[ "$try" -eq 1 ] || wait_host
	[ "$try" -lt 3 ] || keep=--keep-disturbed
	timeout 180 "$NR" run udp_rr -l 300ms --warmup 0 --until-ci 100 --max-reps 12 ${keep:+"$keep"} --label $ulabel --db "$UDB" >"$TMP/until" 2>&1
	rc=$?
	grep -qE '^--until-ci 100%: not reached: [0-2] samples count, an interval needs 3$' "$TMP/until" || break
	echo "# --until-ci 100: too many repetitions were disturbed for an interval (try $try of 3)"
	diag "$TMP/until" '^transactions.per_s over|^--until-ci'
done
check "run --until-ci 100 exits 0" [ $rc -eq 0 ] || diag "$TMP/until"
n=$(sed -n 's/^--until-ci 100%: reached after \([0-9]*\) samples (+-[0-9.]*%)$/\1/p' "$TMP/until")
checkx "--until-ci 100 is reached, after 3 to 12 samples" '[ -n "$n" ] && [ "$n" -ge 3 ] && [ "$n" -le 12 ]' ||
	diag "$TMP/until"
checkx "... every repetition is stored, and there are as many as it says" \
	'[ "$(count $ulabel)" = "$n" ] && [ "$(grep -c "^repetition [0-9]* (at most 12): " "$TMP/until")" = "$n" ]'
# the stopping rule: the last repetition's interval is within 100%, none before it
python3 - "$TMP/until" >"$TMP/rule" <<'PY'
import re, sys
halves = [float(m.group(1)) if m else None
          for m in (re.search(r"mean within \+-([0-9.]+)%", l)
                    for l in open(sys.argv[1]) if l.startswith("repetition "))]
ok = bool(halves) and halves[-1] is not None and halves[-1] <= 100 and \
    all(h is None or h > 100 for h in halves[:-1]) and all(h is None for h in halves[:2])
print("yes" if ok else "no %r" % halves)
PY
check "... it stops at the first repetition whose interval is within +-100%, and has none before the third" \
	grep -qx yes "$TMP/rule" || diag "$TMP/rule"
timeout 120 "$NR" run udp_rr -l 300ms --warmup 0 --until-ci 0.01 --max-reps 4 --label never --db "$UDB" >"$TMP/never" 2>&1
check "an interval of +-0.01% is not reached: run exits 0 after --max-reps 4" [ $? -eq 0 ]
# (samples disturbed by foreign load do not count: with 2 of the 4 left
# out there is no interval, and it says that instead)
check "... says so with the interval it got" \
	grep -qE '^--until-ci 0.01%: not reached: (\+-[0-9.]+% after 4 samples \(--max-reps\)|[0-2] samples count, an interval needs 3)$' "$TMP/never"
check "... and stored the 4 samples" [ "$(count never)" = 4 ]
timeout 120 "$NR" run udp_rr -l 300ms --warmup 0 --until-ci 0.01 --max-reps 3 --json --no-store >"$TMP/never.json" 2>"$TMP/never.err"
check "--until-ci --json prints the array of the 3 samples" jtrue "$TMP/never.json" 'len(d) == 3 and all("transactions.per_s" in s["metrics"] for s in d)'
check "... and says on stderr that the interval was not reached" \
	grep -q 'until-ci 0.01%: not reached after 3 samples' "$TMP/never.err"
for bad in "--until-ci 0" "--until-ci 5%" "--max-reps 5" "--until-ci 5 --reps 10 --max-reps 4" "--until-ci 5 --max-reps 2"; do
	# shellcheck disable=SC2086  # the options split on purpose
	"$NR" run udp_rr -l 300ms --warmup 0 $bad --label bad --db "$UDB" >"$TMP/bad" 2>&1
	rc=$?
	checkx "run $bad: usage error naming the value" \
		'[ $rc -eq 2 ] && grep -qE -- "(until-ci|max-reps).*${bad##* }" "$TMP/bad"' || diag "rc=$rc $(cat "$TMP/bad")"
done
check "... and none of them ran or stored a sample" [ "$(count bad)" = 0 ]

"$NR" labels --db "$DB" >"$TMP/labels"
check "labels lists the label and its sample count" grep -qE '^ +3 samples +buf_offset=0 cc=default' "$TMP/labels"
"$NR" show --db "$DB" base >"$TMP/show"
check "show prints the label's summary" grep -qE '^throughput.gbps +[0-9.e+]+ +[0-9.]+% +3 ' "$TMP/show"
check "show names the congestion control the senders ran (the key says cc=default)" \
	grep -qx "tcp congestion control, as the senders' sockets reported it: $(cat /proc/sys/net/ipv4/tcp_congestion_control) in 3 of 3 samples" "$TMP/show"
# this host forwards nothing: snmp.Ip.ForwDatagrams is 0 in every
# sample, so show leaves it (and every metric 0 in every sample) to --all
# and counts what it left out
"$NR" show --db "$DB" --all base >"$TMP/show.all"
zeros=$(sed -nE 's/^\(([0-9]+) other metrics were 0 in every sample; --all lists them\)$/\1/p' "$TMP/show")
checkx "show leaves out the metrics that were 0 in every sample, and says how many" \
	'[ -n "$zeros" ] && [ "$zeros" -gt 0 ] && ! grep -qE "^snmp.Ip.ForwDatagrams +0 " "$TMP/show"'
checkx "... and show --all lists them too" \
	'grep -qE "^snmp.Ip.ForwDatagrams +0 " "$TMP/show.all" && [ $(($(grep -c . "$TMP/show.all") - $(grep -c . "$TMP/show"))) -eq $((zeros - 1)) ]'
timeout 60 "$NR" run tcp_stream -l 300ms --warmup 0 --label other >/dev/null 2>&1
check "NETREGRESS_DB chooses the default database" [ -s "$NETREGRESS_DB" ]

# Export, import into a fresh store; importing again adds nothing.
"$NR" export --db "$DB" >"$TMP/all.jsonl"
check "export writes one line per sample" [ "$(wc -l <"$TMP/all.jsonl")" -eq 3 ]
"$NR" import --db "$TMP/copy.db" "$TMP/all.jsonl" >"$TMP/imp1"
"$NR" import --db "$TMP/copy.db" "$TMP/all.jsonl" >"$TMP/imp2"
check "import adds the samples once" grep -q "3 samples added, 0 already stored" "$TMP/imp1"
check "importing again adds nothing" grep -q "0 samples added, 3 already stored" "$TMP/imp2"
"$NR" export --db "$TMP/copy.db" >"$TMP/again.jsonl"
check "export of the copy is identical" cmp -s "$TMP/all.jsonl" "$TMP/again.jsonl"
# samples of one configuration from netregress builds that recorded
# different metrics: show lists a metric the first sample lacks, over the
# samples that have it
python3 -c '
import json, sys
for i, line in enumerate(open(sys.argv[1])):
    d = json.loads(line)
    if i == 0:
        del d["metrics"]["throughput.msgs_per_s"]
    print(json.dumps(d))' "$TMP/all.jsonl" >"$TMP/lacks.jsonl"
"$NR" import --db "$TMP/lacks.db" "$TMP/lacks.jsonl" >/dev/null
"$NR" show --db "$TMP/lacks.db" base >"$TMP/lacks.show"
check "show lists a metric the first sample lacks, over the samples that have it" \
	grep -qE '^throughput.msgs_per_s +[0-9.e+]+ +[0-9.]+% +2 ' "$TMP/lacks.show"
# Eight configurations compared at once, five samples a side: B 10%
# below A in one of them, every B under every A (the rank test's smallest
# p with 5 a side, 0.0079), the same in the other seven. Alone, that
# configuration is a REGRESSION (exit 1); among the eight its q is 8 x
# 0.0079: not called (exit 0), and a note gives p and q.
fam() {
	python3 - "$TMP/all.jsonl" "$1" <<'PY'
import json, sys
tpl = json.loads(open(sys.argv[1]).readline())
for label in ("fa", "fb"):
    for k in range(8 if sys.argv[2] == "all" else 1):
        for i in range(5):
            d = json.loads(json.dumps(tpl))
            d["label"] = label
            d["sample_id"] = "%s%02d%02d%s" % (label, k, i, "0" * 26)
            d["config"]["params"]["msg"] = str(1024 << k)
            d["config"]["key"] = " ".join("%s=%s" % kv for kv in sorted(d["config"]["params"].items()))
            d["started_at_ns"] += (10 * k + i) * 10**9 + (label == "fb") * 5 * 10**8
            d.pop("window_series", None)
            d["metrics"]["throughput.gbps"]["value"] = 10 * (1 + 0.002 * i) * (0.9 if label == "fb" and k == 0 else 1)
            print(json.dumps(d))
PY
}
fam all >"$TMP/fam.jsonl" && fam one >"$TMP/fam1.jsonl"
"$NR" import --db "$TMP/fam.db" "$TMP/fam.jsonl" >/dev/null
"$NR" import --db "$TMP/fam1.db" "$TMP/fam1.jsonl" >/dev/null
"$NR" compare --db "$TMP/fam1.db" fa fb >"$TMP/fam1.txt"
rc1=$?
"$NR" compare --db "$TMP/fam.db" fa fb >"$TMP/fam.txt"
rc8=$?
checkx "one configuration 10% down, alone: REGRESSION at p = 0.0079, exit 1" \
	'[ $rc1 -eq 1 ] && grep -qE "^throughput.gbps \(higher\) .* 0\.0079 \| REGRESSION$" "$TMP/fam1.txt"' ||
	diag "$TMP/fam1.txt" "^throughput|compared"
checkx "... among 8 compared at once: not called (q = 0.0635), a note says why, exit 0" \
	'[ $rc8 -eq 0 ] && grep -qE "^throughput.gbps \(higher\) .* 0\.0079 \| inconclusive \(about [0-9]+ runs needed\)$" "$TMP/fam.txt" &&
	 grep -q "^note: the headline.s p = 0.0079 is q = 0.0635 among the 8 configurations compared" "$TMP/fam.txt" &&
	 grep -q "^8 configurations compared: no headline regression; .*headline verdicts take the 8 configurations as one family" "$TMP/fam.txt"' ||
	diag "$TMP/fam.txt" "^throughput|^note: the headline|compared"
check "... the parameters the 8 share come once, each config line has the rest" \
	sh -c 'grep -q "^every configuration compared: .* test=tcp_stream " "$1" && ! grep "^every configuration" "$1" | grep -q " msg=" &&
	       [ "$(grep -c "^config: msg=[0-9]*$" "$1")" -eq 8 ]' _ "$TMP/fam.txt"
"$NR" compare --db "$TMP/fam.db" --json fa fb >"$TMP/fam.json"
check "... --json: the family's q in the row, its size in the notes" python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
rows = [(c, r) for c in d["configs"] for r in c["rows"] if r["headline"]]
down = [(c, r) for c, r in rows if c["notes"]["fdr_downgraded"]]
ok = len(rows) == 8 and len(down) == 1 and abs(down[0][1]["q"] - 0.0635) < 5e-4 and \
     all(c["notes"]["fdr_configs"] == 8 for c, r in rows) and d["regressed"] is False
sys.exit(0 if ok else 1)' "$TMP/fam.json"

# --where picks configurations before the statistics: the family is the
# configurations it keeps. msg=1K is the key's msg=1024, the one that
# moved: alone again, a REGRESSION; with msg=2048 beside it, q = 2 x
# 0.0079, still called.
"$NR" compare --db "$TMP/fam.db" --where msg=1K fa fb >"$TMP/w1.txt"
rc=$?
checkx "compare --where msg=1K: that configuration alone (msg=1024), REGRESSION, exit 1" \
	'[ $rc -eq 1 ] && [ "$(grep -c "^config:" "$TMP/w1.txt")" -eq 1 ] &&
	 grep -q "^config: .*msg=1024 " "$TMP/w1.txt" &&
	 grep -qE "^throughput.gbps \(higher\) .* 0\.0079 \| REGRESSION$" "$TMP/w1.txt" &&
	 grep -q "^1 configuration compared (--where msg=1K): REGRESSION" "$TMP/w1.txt"' ||
	diag "$TMP/w1.txt" "^config|^throughput|compared"
"$NR" compare --db "$TMP/fam.db" --where msg=1024 --where msg=2048 --json fa fb >"$TMP/w2.json"
rc=$?
check "... two values of one name are alternatives: 2 configurations, the family's q 0.0159, exit 1" python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
rows = [r for c in d["configs"] for r in c["rows"] if r["headline"]]
q = sorted(r["q"] for r in rows)
sys.exit(0 if sys.argv[2] == "1" and d["where"] == "msg=1024 msg=2048" and len(rows) == 2 and
	 abs(q[0] - 0.0159) < 5e-4 and d["regressed"] is True else 1)' "$TMP/w2.json" $rc
"$NR" compare --db "$TMP/fam.db" --where msg=3K fa fb >"$TMP/w3.txt" 2>"$TMP/w3.err"
rc=$?
checkx "... a value no configuration has: exit 2, naming the values there" \
	'[ $rc -eq 2 ] && [ ! -s "$TMP/w3.txt" ] &&
	 grep -q "^netregress: --where msg=3K: no configuration of .fa., .fb. has msg=3K; msg is 1024, 2048, 4096, .*131072 there$" "$TMP/w3.err"' ||
	diag "$TMP/w3.err" .
"$NR" compare --db "$TMP/fam.db" --where streams=1 --where msg=1024 --where mgs=1 fa fb 2>"$TMP/w4.err" >/dev/null
rc=$?
checkx "... a parameter no configuration has: exit 2, naming the parameters" \
	'[ $rc -eq 2 ] && grep -q "^netregress: --where mgs=1: no configuration of .fa., .fb. has a parameter .mgs.; their parameters: .*msg, " "$TMP/w4.err"' ||
	diag "$TMP/w4.err" .
"$NR" show --db "$TMP/fam.db" --where msg=2K --where msg=4K fb >"$TMP/w5.txt"
rc=$?
"$NR" report --db "$TMP/fam.db" --where msg=2K --format md fa fb >"$TMP/w6.md"
rc6=$?
checkx "show and report take --where too" \
	'[ $rc -eq 0 ] && [ "$(grep -c "^config:" "$TMP/w5.txt")" -eq 2 ] &&
	 grep -q "^config: msg=4096$" "$TMP/w5.txt" && ! grep -q "msg=1024" "$TMP/w5.txt" &&
	 grep -q "^every configuration shown: .* test=tcp_stream " "$TMP/w5.txt" &&
	 [ $rc6 -eq 0 ] && grep -q "^1 configuration\.$" "$TMP/w6.md"' ||
	diag "$TMP/w5.txt" "^config"
"$NR" export --db "$TMP/fam.db" --label fb --where msg=2K >"$TMP/w7.jsonl"
rc=$?
"$NR" export --db "$TMP/fam.db" --where msg=2K --where msg=4096 >"$TMP/w8.jsonl"
rc8=$?
"$NR" export --db "$TMP/fam.db" --where msg=3K >"$TMP/w9.jsonl" 2>"$TMP/w9.err"
rc9=$?
check "export --where writes only those configurations' samples, and refuses a value none has" python3 -c '
import json, sys
one = [json.loads(l) for l in open(sys.argv[1])]
two = [json.loads(l) for l in open(sys.argv[2])]
ok = sys.argv[3:6] == ["0", "0", "2"] and len(one) == 5 and all(d["label"] == "fb" and d["config"]["params"]["msg"] == "2048" for d in one)
ok &= len(two) == 20 and sorted({d["config"]["params"]["msg"] for d in two}) == ["2048", "4096"]
ok &= open(sys.argv[6]).read() == "" and "--where msg=3K: no configuration of" in open(sys.argv[7]).read()
sys.exit(0 if ok else 1)' "$TMP/w7.jsonl" "$TMP/w8.jsonl" $rc $rc8 $rc9 "$TMP/w9.jsonl" "$TMP/w9.err"
"$NR" labels --db "$TMP/fam.db" fb >"$TMP/l1.txt"
rc=$?
"$NR" labels --db "$TMP/fam.db" --keys >"$TMP/l2.txt"
"$NR" labels --db "$TMP/fam.db" fa nolabel >/dev/null 2>"$TMP/l3.err"
rc3=$?
checkx "labels: a label's samples and configurations, what they share once, each row the parameter that varies" \
	'[ $rc -eq 0 ] && grep -qE "^fb: 40 samples in 8 configurations, [0-9-]+ [0-9:]+ to " "$TMP/l1.txt" &&
	 ! grep -q "^fa" "$TMP/l1.txt" &&
	 grep "^  every configuration: " "$TMP/l1.txt" | grep -q " test=tcp_stream " &&
	 ! grep "^  every configuration: " "$TMP/l1.txt" | grep -q " msg=" &&
	 grep -qE "^ +5 samples  msg=1024$" "$TMP/l1.txt" && [ "$(grep -cE "^ +5 samples  msg=[0-9]+$" "$TMP/l1.txt")" -eq 8 ] &&
	 [ "$(grep -cE "^ +5 samples  .*msg=[0-9]+ .*test=tcp_stream" "$TMP/l2.txt")" -eq 16 ] &&
	 [ $rc3 -eq 3 ] && grep -q "no samples under label .nolabel." "$TMP/l3.err"' ||
	diag "$TMP/l1.txt" .

timeout 60 "$NR" run udp_rr -l 300ms --warmup 0 --json --no-store >"$TMP/one.json"
"$NR" import --db "$TMP/copy.db" "$TMP/one.json" >"$TMP/imp3"
check "a run --json document imports (with its histogram)" grep -q ": 1 sample added, 0 already stored" "$TMP/imp3"

# The host's speed notes: six samples a side made from one stored tcp_stream
# sample (new ids), B 10% slower and its host.speed 10% lower as well, the
# core's pace between interruptions (host.speed.core) with it; two
# of B's windows not steady with the host's speed trending along; three of
# A's windows mixed levels, the widest 28% apart. The cross-CPU round trip
# 120 ns in A and 430 ns in B (the host put the vCPUs farther apart), and
# one of B's windows in which the host moved them.
python3 - "$TMP/all.jsonl" "$TMP/speed.jsonl" <<'PY'
import json, sys, uuid
base = json.loads(open(sys.argv[1]).readline())
with open(sys.argv[2], "w") as out:
    for label, g, sp, xc in (("fast", 30.0, 600.0, 120.0), ("slow", 27.0, 540.0, 430.0)):
        for i in range(6):
            d = json.loads(json.dumps(base))
            d["sample_id"] = uuid.uuid4().hex
            d["label"] = label
            m = d["metrics"]
            m["throughput.gbps"]["value"] = g * (1 + 0.003 * (i - 2.5))
            m["host.speed"] = {"value": sp * (1 + 0.002 * (2.5 - i)), "unit": "op/us"}
            m["host.speed.core"] = {"value": 1.1 * sp * (1 + 0.001 * (i * 5 % 6 - 2.5)), "unit": "op/us"}
            m["host.xcpu_ns"] = {"value": xc * (1 + 0.01 * (i * 7 % 5 - 2)), "unit": "ns"}
            m["window.xcpu_moved"] = {"value": 1 if label == "slow" and i == 5 else 0, "unit": ""}
            m["window.disturbed"]["value"] = 0
            trended = 1 if label == "slow" and i < 2 else 0
            m["window.not_steady"] = {"value": trended, "unit": ""}
            m["window.host_trend"] = {"value": trended, "unit": ""}
            mixed = label == "fast" and i >= 3
            m["window.mixed"] = {"value": 1 if mixed else 0, "unit": ""}
            m["window.level_lo_pct"] = {"value": 78.0 if i == 4 else 90.0 if mixed else 100.0, "unit": "%"}
            m["window.level_hi_pct"] = {"value": 106.0 if mixed else 100.0, "unit": "%"}
            out.write(json.dumps(d) + "\n")
PY
"$NR" import --db "$TMP/speed.db" "$TMP/speed.jsonl" >/dev/null
"$NR" compare --db "$TMP/speed.db" fast slow >"$TMP/speed.txt"
rc=$?
checkx "compare notes that the host's cpu speed moved with the throughput" \
	'[ $rc -eq 1 ] && grep -qE "^note: the CPU speed probe \(host.speed\) moved -10\.[0-9]% .* from fast to slow" "$TMP/speed.txt"'
check "... and says the core's pace moved too: the host's clock" \
	grep -qE "^note: the CPU speed probe .* \(host.speed.core\) moved -10\.[0-9]% \[.*\(p = 0\.00[0-9]+\): the host ran the test's CPUs at another clock" "$TMP/speed.txt"
check "compare counts the non-steady windows whose host speed trended along" \
	grep -q "^note: of those, the host's CPU speed (speed probe) trended the same way within the window: 0 in fast, 2 in slow" "$TMP/speed.txt"
check "compare counts the windows that mixed levels, with the widest gap" \
	grep -q "^note: samples whose 100 ms rate left a level and came back within the window (window.mixed; levels up to 28% of the mean apart): 3 in fast, 0 in slow" "$TMP/speed.txt"
"$NR" report --db "$TMP/speed.db" --format md -o "$TMP/speed.md" fast slow 2>/dev/null
"$NR" report --db "$TMP/speed.db" -o "$TMP/speed.html" fast slow 2>/dev/null
check "the report's notes carry both speed notes, markdown and html" \
	sh -c 'grep -q "host.speed) moved -10" "$1" && grep -q "trending the same way: 0 in fast, 2 in slow" "$1" && grep -q "host.speed) moved -10" "$2" && grep -q "trending the same way: 0 and 2" "$2"' _ "$TMP/speed.md" "$TMP/speed.html"
check "the report's notes count the mixed windows, markdown and html" \
	sh -c 'grep -q "levels up to 28% of the mean apart): 3 in fast, 0 in slow" "$1" && grep -q "levels up to 28% of the mean apart): 3 and 0\\." "$2"' _ "$TMP/speed.md" "$TMP/speed.html"
"$NR" compare --db "$TMP/speed.db" --json fast slow >"$TMP/speed.json"
check "compare --json carries the speed note's shift, the core's too" \
	jtrue "$TMP/speed.json" '-11 < d["configs"][0]["notes"]["speed_shift_pct"] < -9 and d["configs"][0]["notes"]["speed_p"] < 0.05 and -11 < d["configs"][0]["notes"]["speed_core_shift_pct"] < -9 and d["configs"][0]["notes"]["speed_core_p"] < 0.05 and d["configs"][0]["notes"]["host_trend_b"] == 2'
check "compare --json carries the mixed windows and their widest gap" \
	jtrue "$TMP/speed.json" 'd["configs"][0]["notes"]["mixed_a"] == 3 and d["configs"][0]["notes"]["mixed_b"] == 0 and d["configs"][0]["notes"]["mixed_gap_pct_a"] == 28'
# The same slow samples as measured by another build of netregress: the
# speed probe's figure is its build's own unit, and the note says so.
python3 - "$TMP/speed.jsonl" "$TMP/build.jsonl" <<'PY'
import json, sys, uuid
with open(sys.argv[2], "w") as out:
    for line in open(sys.argv[1]):
        d = json.loads(line)
        if d["label"] != "slow":
            continue
        d["sample_id"] = uuid.uuid4().hex
        d["label"] = "slowbuild"
        d["env"]["client"]["build"] = "git 0123456789ab"
        out.write(json.dumps(d) + "\n")
PY
"$NR" import --db "$TMP/speed.db" "$TMP/build.jsonl" >/dev/null
"$NR" compare --db "$TMP/speed.db" fast slowbuild >"$TMP/build.txt"
check "measured by another netregress build: the speed note says the probe's unit is the build's" \
	grep -qE "^note: the CPU speed probe \(host.speed\) moved -10\.[0-9]% .* from fast to slowbuild \(p = [0-9.]+\): but the labels were measured by different netregress builds" "$TMP/build.txt"
check "compare notes that the test's cpus sat farther apart, and the windows in which the host moved them" \
	sh -c 'grep -qE "^note: the test.s CPUs sat farther apart in slow: the round trip of a cache line between them \(host.xcpu_ns\) went from 1[12][0-9] ns in fast to 4[0-9][0-9] ns, \+25[0-9]\.[0-9]% " "$1" && grep -q "^note: samples in which the host moved the test.s CPUs within the window (window.xcpu_moved: the round trip of a cache line between them changed level): 0 in fast, 1 in slow" "$1"' _ "$TMP/speed.txt"
check "the report's notes carry the cross-CPU notes, markdown and html" \
	sh -c 'grep -q "sat farther apart: the round trip of a cache line between them (host.xcpu_ns) went from 1[12][0-9] to 4[0-9][0-9] ns" "$1" && grep -q "changed level): 0 in fast, 1 in slow" "$1" && grep -q "sat farther apart: the round trip" "$2" && grep -q "changed level): 0 and 1\." "$2"' _ "$TMP/speed.md" "$TMP/speed.html"
check "compare --json carries the cross-CPU notes" \
	jtrue "$TMP/speed.json" '(lambda n: 250 < n["xcpu_shift_pct"] < 265 and n["xcpu_p"] < 0.05 and 115 < n["xcpu_a_ns"] < 125 and 420 < n["xcpu_b_ns"] < 440 and n["xcpu_moved_a"] == 0 and n["xcpu_moved_b"] == 1)(d["configs"][0]["notes"])'

# Two distances in another mix: six samples a side made from the stored
# sample, A's CPUs far (450 ns) in 1, B's in 4, the rest near (120 ns),
# and rates that follow the distance too little against their noise for a
# slope to pass (the unit test's figures): the rank test of host.xcpu_ns
# cannot call it, so the note of the mix says how the samples split and
# gives each label's median at each distance.
python3 - "$TMP/all.jsonl" "$TMP/mix.jsonl" <<'PY'
import json, sys, uuid
base = json.loads(open(sys.argv[1]).readline())
sides = (("nearish", (118, 452, 121, 119, 122, 120), (30.0, 29.0, 30.4, 28.9, 30.2, 29.5)),
         ("farish", (447, 120, 455, 118, 450, 449), (29.2, 30.3, 30.0, 29.9, 28.8, 29.6)))
with open(sys.argv[2], "w") as out:
    for label, xs, gs in sides:
        for x, g in zip(xs, gs):
            d = json.loads(json.dumps(base))
            d["sample_id"] = uuid.uuid4().hex
            d["label"] = label
            d.pop("window_series", None)
            m = d["metrics"]
            m["throughput.gbps"]["value"] = g
            m["host.xcpu_ns"] = {"value": x, "unit": "ns"}
            m["window.disturbed"]["value"] = 0
            out.write(json.dumps(d) + "\n")
PY
"$NR" import --db "$TMP/mix.db" "$TMP/mix.jsonl" >/dev/null
"$NR" compare --db "$TMP/mix.db" nearish farish >"$TMP/mix.txt"
"$NR" compare --db "$TMP/mix.db" --json nearish farish >"$TMP/mix.json"
"$NR" report --db "$TMP/mix.db" --format md -o "$TMP/mix.md" nearish farish 2>/dev/null
"$NR" report --db "$TMP/mix.db" -o "$TMP/mix.html" nearish farish 2>/dev/null
checkx "compare notes two distances in another mix, with each label's median at each" \
	'grep -q "^note: the host kept the test.s CPUs at two distances, a cache line.s round trip (host.xcpu_ns) of 118-122 ns and of 447-455 ns, and the labels sat at the far one in different shares: 1 of 6 samples of nearish, 4 of 6 of farish\. " "$TMP/mix.txt" &&
	 grep -q "at one distance: near nearish 30 (5) and farish 30.1 (2), +0.3%; far nearish 29 (1) and farish 29.4 (4), +1.4%$" "$TMP/mix.txt" &&
	 ! grep -q "sat farther apart\|xcpu_adj" "$TMP/mix.txt"' || diag "$TMP/mix.txt"
check "the report's notes carry it, markdown and html" \
	sh -c 'grep -q "1 of 6 samples of nearish, 4 of 6 of farish" "$1" && grep -q "1 of 6 samples of nearish, 4 of 6 of farish" "$2"' _ "$TMP/mix.md" "$TMP/mix.html"
check "compare --json carries each distance's range, samples and medians" \
	jtrue "$TMP/mix.json" '(lambda m: m["near"]["lo_ns"] == 118 and m["far"]["hi_ns"] == 455 and m["near"]["a_samples"] == 5 and m["far"]["b_samples"] == 4 and m["far"]["a_median"] == 29 and abs(m["far"]["b_median"] - 29.4) < 1e-9)(d["configs"][0]["notes"]["xcpu_mix"])'

# Pairs: eight rounds made from the stored sample, A and B once a round in
# a drawn order, 25 s apart; the machine's level drifting 10% from round
# to round, 1% within one, B 3% slower, and the second run of a round 5%
# faster than the first (what the first left behind). The rank test over
# all runs cannot tell (exit 0); the runs side by side can, the orders
# averaged apart (a 2 x 2 crossover) so that the 5% cancels.
python3 - "$TMP/all.jsonl" "$TMP/pairs.jsonl" <<'PY'
import json, math, random, sys, uuid
base = json.loads(open(sys.argv[1]).readline())
rng = random.Random(7)
with open(sys.argv[2], "w") as out:
    for r in range(8):
        level = 30 * math.exp(rng.gauss(0, 0.10))
        first = rng.random() < 0.5
        for label, k, late in (("pa", 1.0, first), ("pb", 0.97, not first)):
            d = json.loads(json.dumps(base))
            d["sample_id"] = uuid.uuid4().hex
            d["label"] = label
            d["started_at_ns"] = base["started_at_ns"] + (25 * r + 3 * late) * 10**9
            d["metrics"]["throughput.gbps"]["value"] = level * k * (1.05 if late else 1) * math.exp(rng.gauss(0, 0.01))
            d["metrics"]["window.disturbed"]["value"] = 0
            out.write(json.dumps(d) + "\n")
PY
"$NR" import --db "$TMP/pairs.db" "$TMP/pairs.jsonl" >/dev/null
"$NR" compare --db "$TMP/pairs.db" pa pb >"$TMP/pairs.txt"
rc=$?
checkx "interleaved rounds on a drifting machine: the .paired row calls B's 3% a regression the rank test cannot, and the exit code stays the rank test's" \
	'[ $rc -eq 0 ] && grep -qE "^throughput.gbps.paired \(higher\) .*-[23]\.[0-9]% \[-[0-9.]+%, -[0-9.]+%\] .*\| REGRESSION$" "$TMP/pairs.txt" &&
	 grep -qE "^throughput.gbps \(higher\) .*\| (inconclusive|same)" "$TMP/pairs.txt" &&
	 grep -q "^note: the .paired row takes each run with the other label.s run next to it in time as a pair (8 pairs, 0 runs without a partner)" "$TMP/pairs.txt" &&
	 grep -qE "\(a 2 x 2 crossover\): the second run of a pair read \+[45]\.[0-9]% \[" "$TMP/pairs.txt" &&
	 grep -qx "1 configuration compared: no headline regression; the .paired row called a REGRESSION in 1 (its runs side by side; the exit code follows the rank test)" "$TMP/pairs.txt"' ||
	diag "$TMP/pairs.txt"
"$NR" compare --db "$TMP/pairs.db" --json pa pb >"$TMP/pairs.json"
check "compare --json: the pairs, in how many A ran first (both orders: no note on it), and the count of .paired rows that called a regression" \
	jtrue "$TMP/pairs.json" 'd["paired_regressed"] == 1 and not d["regressed"] and d["configs"][0]["notes"]["pairs"] == 8 and 0 < d["configs"][0]["notes"]["pairs_a_first"] < 8 and not any("came first in every pair" in l for l in open("'"$TMP/pairs.txt"'")) and 4 < d["configs"][0]["notes"]["period_pct"] < 6 and d["configs"][0]["notes"]["period_p"] < 0.05 and [r["metric"] for r in d["configs"][0]["rows"]][:2] == ["throughput.gbps", "throughput.gbps.paired"]'
"$NR" compare --db "$TMP/pairs.db" --paired pa pb >"$TMP/pairs2.txt"
rc=$?
checkx "compare --paired: the exit code follows the .paired row (1), and the last line says so" \
	'[ $rc -eq 1 ] && grep -qx "1 configuration compared: no headline regression; the .paired row called a REGRESSION in 1 (its runs side by side; the exit code follows it); --paired: the exit code follows the .paired row where there is one (1 of 1)" "$TMP/pairs2.txt"' ||
	diag "$TMP/pairs2.txt"
"$NR" compare --db "$TMP/pairs.db" --paired --json pa pb >"$TMP/pairs2.json"
rc=$?
jtrue "$TMP/pairs2.json" 'd["exit_by"] == "paired" and d["paired_regressed"] == 1 and not d["regressed"]'
jok=$?
checkx "compare --paired --json: exit 1, exit_by paired" '[ $rc -eq 1 ] && [ $jok -eq 0 ]'
"$NR" report --db "$TMP/pairs.db" --format md -o "$TMP/pairs.md" pa pb >/dev/null 2>&1
"$NR" report --db "$TMP/pairs.db" -o "$TMP/pairs.html" pa pb >/dev/null 2>&1
check "the reports say it too, markdown and html" \
	sh -c 'grep -q "Note: the .paired row called a REGRESSION in 1" "$1" && grep -q "(8 pairs, 0 runs without a partner)" "$1" && grep -q "Note: the .paired row called a REGRESSION in 1" "$2"' _ "$TMP/pairs.md" "$TMP/pairs.html"

# The same rounds run by hand, A first every time: the pairs are there,
# and the note says the order cannot be told from the change.
python3 - "$TMP/pairs.jsonl" "$TMP/fixed.jsonl" <<'PY'
import json, sys, uuid
docs = [json.loads(l) for l in open(sys.argv[1])]
t0 = min(d["started_at_ns"] for d in docs)
with open(sys.argv[2], "w") as out:
    for i, d in enumerate(docs):
        r = (d["started_at_ns"] - t0) // (25 * 10**9)
        d["sample_id"] = uuid.uuid4().hex
        d["label"] = "f" + d["label"]
        d["started_at_ns"] = t0 + (25 * r + 3 * (d["label"] == "fpb")) * 10**9
        out.write(json.dumps(d) + "\n")
PY
"$NR" import --db "$TMP/pairs.db" "$TMP/fixed.jsonl" >/dev/null
"$NR" compare --db "$TMP/pairs.db" --json fpa fpb >"$TMP/fixed.json"
"$NR" compare --db "$TMP/pairs.db" fpa fpb >"$TMP/fixed.txt"
checkx "pairs all in one order (A first): 8 of 8 A-first, and the note says the order cannot be told from the change" \
	'jtrue "$TMP/fixed.json" "d[\"configs\"][0][\"notes\"][\"pairs\"] == 8 and d[\"configs\"][0][\"notes\"][\"pairs_a_first\"] == 8 and d[\"configs\"][0][\"notes\"][\"period_pct\"] is None" &&
	 grep -q "(8 pairs, 0 runs without a partner) .*; A.s run came first in every pair, so what the order does .* cannot be told from the change" "$TMP/fixed.txt"' ||
	diag "$TMP/fixed.txt" "note"

# The headline adjusted for the CPUs' distance: eight samples a side from
# the stored one, near (120 ns) or far (450 ns), the rate falling as
# (x / 120)^-0.45 with 3% noise; B 10% slower at every distance and far in
# 6 of its 8 samples, so the raw shift mixes the two.
python3 - "$TMP/all.jsonl" "$TMP/adj.jsonl" <<'PY'
import json, random, sys, uuid
random.seed(3)
base = json.loads(open(sys.argv[1]).readline())
with open(sys.argv[2], "w") as out:
    for label, k, xs in (("near", 30.0, [120, 450] * 4),
                         ("far", 27.0, [450, 450, 120, 450, 450, 120, 450, 450])):
        for x in xs:
            d = json.loads(json.dumps(base))
            d["sample_id"] = uuid.uuid4().hex
            d["label"] = label
            m = d["metrics"]
            x *= 1 + 0.03 * random.uniform(-1, 1)
            m["host.xcpu_ns"] = {"value": x, "unit": "ns"}
            m["throughput.gbps"]["value"] = k * (x / 120) ** -0.45 * (1 + 0.03 * random.gauss(0, 1))
            m["window.disturbed"]["value"] = 0
            d.pop("window_series", None)  # the headlines alone carry the distance
            out.write(json.dumps(d) + "\n")
PY
"$NR" import --db "$TMP/adj.db" "$TMP/adj.jsonl" >/dev/null
"$NR" compare --db "$TMP/adj.db" near far >"$TMP/adj.txt"
rc=$?
checkx "compare adds the headline adjusted for the cpus' distance, right under it, near the true -10%" \
	'[ $rc -eq 1 ] && python3 - "$TMP/adj.txt" <<'"'"'PY'"'"'
import re, sys
rows = [l for l in open(sys.argv[1]) if l.startswith("throughput.gbps") and " (higher) " in l]  # the table rows
m = re.search(r"([-+][0-9.]+)% \[([-+][0-9.]+)%, ([-+][0-9.]+)%\]", rows[1])
lo, hi = float(m.group(2)), float(m.group(3))
sys.exit(0 if rows[1].startswith("throughput.gbps.xcpu_adj (higher)") and lo < -10 < hi and hi - lo < 12 and "REGRESSION" in rows[1] else 1)
PY'
check "the note gives the slope of the headline against the distance" \
	grep -qE "^note: within each label the headline went with the CPUs' distance: ln\(headline\) = -0\.[345][0-9]* x ln\(host.xcpu_ns\) \+ a level per label \(p = 0\.0[0-9]*, [0-9]+% of the variance within the labels\); the \.xcpu_adj row compares every sample moved along that slope to [0-9]+ ns" "$TMP/adj.txt"
"$NR" compare --db "$TMP/adj.db" --json near far >"$TMP/adj.json"
check "compare --json: the adjusted row and the slope" \
	jtrue "$TMP/adj.json" '(lambda c: c["rows"][1]["metric"] == "throughput.gbps.xcpu_adj" and c["rows"][1]["verdict"] == "REGRESSION" and c["notes"]["adj_applied"] and -0.6 < c["notes"]["adj_slope"] < -0.3 and c["notes"]["adj_p"] < 0.05 and c["notes"]["adj_slope_lo"] < c["notes"]["adj_slope"] < c["notes"]["adj_slope_hi"] < 0)(d["configs"][0])'
"$NR" report --db "$TMP/adj.db" --format md -o "$TMP/adj.md" near far 2>/dev/null
"$NR" report --db "$TMP/adj.db" -o "$TMP/adj.html" near far 2>/dev/null
check "the report's notes carry the adjustment, markdown and html" \
	sh -c 'grep -q "within each label the headline went with the CPUs. distance: ln(headline) = -0\.[345]" "$1" && grep -q "within each label the headline went with the CPUs. distance: ln(headline) = -0\.[345]" "$2"' _ "$TMP/adj.md" "$TMP/adj.html"

# The same from the windows: every sample keeps its 100 ms rates and round
# trips, and the host moves the vCPUs within windows (spells of 1-3 s near
# or far); B 10% slower at every distance and far more of the time.
python3 - "$TMP/all.jsonl" "$TMP/adjw.jsonl" <<'PY'
import json, random, sys, uuid
random.seed(5)
base = json.loads(open(sys.argv[1]).readline())
with open(sys.argv[2], "w") as out:
    for label, k, p_far in (("near", 30.0, 0.3), ("far", 27.0, 0.7)):
        for i in range(8):
            far, rates, xs = random.random() < p_far, [], []
            for t in range(100):
                if random.random() < 0.05:
                    far = not far
                x = (450 if far else 120) * (1 + 0.05 * random.uniform(-1, 1))
                rates.append(k * (x / 120) ** -0.45 * (1 + 0.03 * random.gauss(0, 1)))
                xs.append(None if t % 17 == 3 else x)
            d = json.loads(json.dumps(base))
            d["sample_id"] = uuid.uuid4().hex
            d["label"] = label
            d["window_series"] = {"step_s": 0.1, "unit": "Gbps", "values": rates, "xcpu_ns": xs}
            m = d["metrics"]
            m["host.xcpu_ns"] = {"value": sorted(x for x in xs if x)[len([x for x in xs if x]) // 2], "unit": "ns"}
            m["throughput.gbps"]["value"] = sum(rates) / len(rates)
            m["window.disturbed"]["value"] = 0
            out.write(json.dumps(d) + "\n")
    # steady: five samples, the distance moving within the first two windows only
    for i in range(5):
        xs = [120.0 if i > 1 or t < 50 else 450.0 for t in range(100)]
        d = json.loads(json.dumps(base))
        d["sample_id"] = uuid.uuid4().hex
        d["label"] = "steady"
        d["window_series"] = {"step_s": 0.1, "unit": "Gbps", "values": [30.0 + i] * 100, "xcpu_ns": xs}
        d["metrics"]["throughput.gbps"]["value"] = 30.0 + i
        d["metrics"]["window.disturbed"]["value"] = 0
        out.write(json.dumps(d) + "\n")
PY
"$NR" import --db "$TMP/adjw.db" "$TMP/adjw.jsonl" >/dev/null
"$NR" compare --db "$TMP/adjw.db" near far >"$TMP/adjw.txt"
"$NR" compare --db "$TMP/adjw.db" --json near far >"$TMP/adjw.json"
check "from the windows: the note gives the slope over the intervals and the windows that moved" \
	grep -qE "^note: within each window the 100 ms rates went with the CPUs' distance: ln\(rate\) = -0\.[345][0-9]* x ln\(round trip\) \+ a level per sample \(1[0-9]{3} intervals; p = 0\.0[0-9]* with the [0-9]+ windows in which it varied as clusters, the host moving the CPUs in [0-9]+; [0-9]+% of the variance within the windows\); the \.xcpu_adj row compares every sample with its rates moved along that slope to [0-9]+ ns, and calls a change only if the slope's 95% interval \[-0\.[0-9]+, -0\.[0-9]+\] calls it at both ends$" "$TMP/adjw.txt" ||
	diag "$TMP/adjw.txt" '^(note|throughput)'
check "... compare --json says so, and the adjusted row calls the regression, its interval around -10%" \
	jtrue "$TMP/adjw.json" '(lambda c: c["notes"]["adj_from"] == "windows" and c["notes"]["adj_windows"] >= 3 and 3 <= c["notes"]["adj_moved_windows"] <= c["notes"]["adj_windows"] and c["notes"]["adj_intervals"] > 1000 and c["rows"][1]["metric"] == "throughput.gbps.xcpu_adj" and c["rows"][1]["verdict"] == "REGRESSION" and c["rows"][1]["shift_lo_pct"] < -10 < c["rows"][1]["shift_hi_pct"])(d["configs"][0])' ||
	diag "$TMP/adjw.txt" '^throughput'
"$NR" show --db "$TMP/adjw.db" near >"$TMP/adjw.show" 2>&1
check "show: the CPUs' distance within one label's windows, and the cov with it taken out" \
	grep -qE "^the CPUs' distance within the windows: ln\(rate\) = -0\.[345][0-9]* \[-0\.[0-9]+, -0\.[0-9]+\] x ln\(round trip\) \(p = 0\.0[0-9]*, 8 windows in which it varied, [0-9]+% of the variance within them\); with it taken out \(every sample at [0-9]+ ns\): cov [0-9.]+%, as compare's .xcpu_adj row sees it$" "$TMP/adjw.show" ||
	diag "$TMP/adjw.show" 'distance|^config'
"$NR" show --db "$TMP/adj.db" near >"$TMP/adj.show" 2>&1
"$NR" show --db "$TMP/adjw.db" steady >"$TMP/steady.show" 2>&1
check "show: when the distance moved within too few windows, it says so and fits nothing" \
	grep -qx "the CPUs' distance within the windows: not fitted: the host moved the CPUs within 2 of the 5 windows (window.xcpu_moved), a fit needs 3" "$TMP/steady.show" ||
	diag "$TMP/steady.show" 'distance|^config'
check "... and nothing on windows for samples that kept none" \
	sh -c 'grep -q "^config:" "$1" && ! grep -q "distance within the windows" "$1"' _ "$TMP/adj.show"
check "... but the fit between those samples, the one compare's row makes from them" \
	grep -qE "^the CPUs' distance between the samples: ln\(headline\) = -0\.[345][0-9]* \[-0\.[0-9]+, -0\.[0-9]+\] x ln\(host\.xcpu_ns\) \(p = 0\.0[0-9]*, 8 samples, [0-9]+% of their variance\); with it taken out \(every sample at [0-9]+ ns\): cov [0-9.]+%, as compare's \.xcpu_adj row sees it$" "$TMP/adj.show" ||
	diag "$TMP/adj.show" 'distance|^config'
check "... and the samples at each of the two distances, with the median and cov at each" \
	grep -qE "^the CPUs at two distances between the samples \(host\.xcpu_ns\): near 1[12][0-9]-1[12][0-9] ns in 4, median (29|30|31)\.[0-9]+, cov [0-9]\.[0-9]+%; far 4[3-6][0-9]-4[3-6][0-9] ns in 4, median 1[5-8]\.[0-9]+, cov [0-9]\.[0-9]+% \(the cov at one placement\)$" "$TMP/adj.show" ||
	diag "$TMP/adj.show" 'distance|^config'
check "... and none for the steady ones, whose round trips spanned no move" \
	sh -c '! grep -q "distance between the samples\|two distances" "$1"' _ "$TMP/steady.show"
check "... and the samples-only adjustment above said it came from the samples" \
	jtrue "$TMP/adj.json" 'd["configs"][0]["notes"]["adj_from"] == "samples" and d["configs"][0]["notes"]["adj_windows"] == 0 and d["configs"][0]["notes"]["adj_moved_windows"] == 0'

# Samples of one label that ran in different environments: the note names
# the entry that differs and how many samples had each value. Five of
# envA from the stored sample, two of them with another rmem_max (and so
# another fingerprint); three of envB, measured by another build of
# netregress (its environment's "build").
python3 - "$TMP/all.jsonl" "$TMP/envw.jsonl" <<'PY'
import json, sys, uuid
base = json.loads(open(sys.argv[1]).readline())
with open(sys.argv[2], "w") as out:
    for label, n, changed in (("envA", 5, (3, 4)), ("envB", 3, ()), ("envC", 4, ())):
        for i in range(n):
            d = json.loads(json.dumps(base))
            d["sample_id"] = uuid.uuid4().hex
            d["label"] = label
            if i in changed:
                for side in ("client", "server"):
                    d["sysenv"][side]["entries"]["sysctl.net.core.rmem_max"] = "12345"
                    d["sysenv"][side]["fingerprint"] = "00000000deadbeef"
                    d["env"][side]["env_fingerprint"] = "00000000deadbeef"
            if label == "envB" or (label == "envC" and i >= 2):
                for side in ("client", "server"):
                    d["env"][side]["build"] = "git 000000000000"
            out.write(json.dumps(d) + "\n")
PY
"$NR" import --db "$TMP/envw.db" "$TMP/envw.jsonl" >/dev/null
"$NR" compare --db "$TMP/envw.db" envA envB >"$TMP/envw.txt"
rmem=$(python3 -c 'import json,sys; print(json.loads(open(sys.argv[1]).readline())["sysenv"]["client"]["entries"]["sysctl.net.core.rmem_max"])' "$TMP/all.jsonl")
check "compare: a label whose samples ran in two environments, the entry and its values with their counts" \
	grep -qF "note: samples of envA ran in different environments: client.sysctl.net.core.rmem_max: $rmem in 3, 12345 in 2; server.sysctl.net.core.rmem_max: $rmem in 3, 12345 in 2" "$TMP/envw.txt"
check "compare: no such note for the label whose samples ran in one" sh -c '! grep -q "samples of envB ran in different" "$1"' _ "$TMP/envw.txt"
build=$("$NR" --version | sed -n 's/^netregress [0-9.]* (\(.*\))$/\1/p')
check "compare: the labels were measured by different builds of netregress, named both ends" \
	sh -c 'grep -qE "^  client.build +$1 -> git 000000000000$" "$2" && grep -qE "^  server.build +$1 -> git 000000000000$" "$2"' _ "$build" "$TMP/envw.txt"
"$NR" compare --db "$TMP/envw.db" envB envC >"$TMP/envc.txt"
check "compare: a label measured by two builds of netregress says so, with the samples of each" \
	grep -qF "note: samples of envC ran in different environments: client.build: $build in 2, git 000000000000 in 2; server.build: $build in 2, git 000000000000 in 2" "$TMP/envc.txt"
check "--version names the build, and every sample records it on both ends" \
	jtrue "$TMP/one.json" 'd["env"]["client"]["build"] == d["env"]["server"]["build"] == "'"$build"'" and ("'"$build"'".startswith("git ") or "'"$build"'" == "unknown")'
"$NR" report --db "$TMP/envw.db" --format md -o "$TMP/envw.md" envA envB 2>/dev/null
check "report (markdown) names the entry as well" grep -qF "client.sysctl.net.core.rmem\\_max: $rmem in 3, 12345 in 2" "$TMP/envw.md"

# The mitigations in force are part of the environment: a changed one is
# named; samples that never recorded them (an older netregress) differ in
# none of them.
python3 - "$TMP/all.jsonl" "$TMP/vuln.jsonl" <<'PY'
import json, sys, uuid
base = json.loads(open(sys.argv[1]).readline())
with open(sys.argv[2], "w") as out:
    for label, v, fp in (("vA", "Vulnerable", "a1"), ("vB", "Mitigation: made-up", "b1"), ("vOld", None, "c1")):
        for i in range(3):
            d = json.loads(json.dumps(base))
            d["sample_id"] = uuid.uuid4().hex
            d["label"] = label
            for side in ("client", "server"):
                # the store keeps one snapshot per fingerprint
                d["sysenv"][side]["fingerprint"] = d["env"][side]["env_fingerprint"] = "00000000000000" + fp
                e = d["sysenv"][side]["entries"]
                for k in [k for k in e if k.startswith("cpu.vuln.")]:
                    del e[k]
                if v:
                    e["cpu.vuln.retbleed"] = v
            out.write(json.dumps(d) + "\n")
PY
"$NR" import --db "$TMP/vuln.db" "$TMP/vuln.jsonl" >/dev/null
"$NR" compare --db "$TMP/vuln.db" vA vB >"$TMP/vuln.txt"
"$NR" compare --db "$TMP/vuln.db" vOld vB >"$TMP/vold.txt"
checkx "compare names a changed mitigation on both ends; not against samples that never recorded one" \
	'grep -qE "^  client.cpu.vuln.retbleed +Vulnerable -> Mitigation: made-up$" "$TMP/vuln.txt" &&
	 grep -qE "^  server.cpu.vuln.retbleed +Vulnerable -> Mitigation: made-up$" "$TMP/vuln.txt" &&
	 ! grep -q "cpu.vuln" "$TMP/vold.txt"' ||
	diag "$TMP/vuln.txt" "vuln|environment"
check "a real sample records this machine's mitigations and cpuidle driver, on both ends" \
	python3 - "$TMP/all.jsonl" <<'PY'
import json, os, sys
d = json.loads(open(sys.argv[1]).readline())
vd = "/sys/devices/system/cpu/vulnerabilities"
want = {"cpu.vuln." + f: " ".join(open(os.path.join(vd, f)).read().split()) for f in os.listdir(vd)} if os.path.isdir(vd) else {}
cd = "/sys/devices/system/cpu/cpuidle/current_driver"
if os.path.exists(cd):
    want["cpuidle.driver"] = open(cd).read().strip()
got = [{k: d["sysenv"][s]["entries"].get(k) for k in want} for s in ("client", "server")]
print("# %d entries wanted; client %s" % (len(want), got[0]))
sys.exit(0 if got[0] == want and got[1] == want else 1)
PY

# show says what went with the headline: ten tcp_stream samples (from the
# stored one, new ids) whose throughput follows their socket backlog per MB
# and goes against their context switches per MB, another metric unrelated.
python3 - "$TMP/all.jsonl" "$TMP/spread.jsonl" <<'PY'
import json, sys, uuid
base = json.loads(open(sys.argv[1]).readline())
with open(sys.argv[2], "w") as out:
    for i in range(10):
        d = json.loads(json.dumps(base))
        d["sample_id"] = uuid.uuid4().hex
        d["label"] = "spread"
        m = d["metrics"]
        g = 30.0 + i * 1.1
        m["throughput.gbps"]["value"] = g
        m["netstat.TcpExt.TCPBacklogCoalesce.per_mb"] = {"value": 2.0 + 0.3 * i, "unit": "/MB"}
        m["stat.ctxt.per_mb"] = {"value": 300.0 - 7 * i, "unit": "/MB"}
        m["cpu.foreign_busy_pct"] = {"value": float((i * 7) % 10), "unit": "%"}
        out.write(json.dumps(d) + "\n")
    # and three of another configuration
    for i in range(3):
        d = json.loads(json.dumps(base))
        d["sample_id"] = uuid.uuid4().hex
        d["label"] = "spread"
        d["config"]["key"] = "zz-second " + d["config"]["key"]
        out.write(json.dumps(d) + "\n")
PY
"$NR" import --db "$TMP/spread.db" "$TMP/spread.jsonl" >/dev/null
"$NR" show --db "$TMP/spread.db" spread >"$TMP/spread.txt"
checkx "show: what went with the headline, the two that did, most significant first" \
	'grep -q "^what went with throughput.gbps from sample to sample (Kendall.s tau over 10 samples" "$TMP/spread.txt" && grep -A2 "^what went with" "$TMP/spread.txt" | sed -n "2p" | grep -qE "^  netstat.TcpExt.TCPBacklogCoalesce.per_mb +tau \+1.00" && grep -A2 "^what went with" "$TMP/spread.txt" | sed -n "3p" | grep -qE "^  stat.ctxt.per_mb +tau -1.00"'
check "show: the label's line first, then each configuration" \
	sh -c '[ "$(head -n 1 "$1")" = "label: spread" ] && [ "$(grep -c "^label:" "$1")" -eq 1 ] && [ "$(grep -c "^config:" "$1")" -eq 2 ]' _ "$TMP/spread.txt"
check "show: an unrelated metric is not listed" sh -c '! grep -A9 "^what went with" "$1" | grep -q "cpu.foreign_busy_pct"' _ "$TMP/spread.txt"
# samples from before a metric's definition changed: three copies of a
# stored one without the metrics the new definitions came with, against
# three with them; compare names each change and counts each side
python3 - "$TMP/all.jsonl" "$TMP/redef.jsonl" <<'PY'
import json, sys, uuid
base = json.loads(open(sys.argv[1]).readline())
assert all(k in base["metrics"] for k in ("cpu.client.busy_ticks_pct", "cpu.foreign_tasks_pct", "window.starved", "cpu.stolen_pct", "tasks.exited"))
with open(sys.argv[2], "w") as out:
    for label in ("before", "after"):
        for i in range(3):
            d = json.loads(json.dumps(base))
            d["sample_id"] = uuid.uuid4().hex
            d["label"] = label
            if label == "before":
                for k in ("cpu.client.busy_ticks_pct", "cpu.server.busy_ticks_pct", "cpu.foreign_tasks_pct", "cpu.foreign_tasks_s", "window.starved", "window.trend_rho", "cpu.stolen_pct", "window.stolen", "tasks.exited", "tasks.exited_s"):
                    d["metrics"].pop(k, None)
            else:
                # a 300 ms window has no trend test: as a longer one's
                d["metrics"]["window.trend_rho"] = {"value": 0.5, "unit": ""}
            out.write(json.dumps(d) + "\n")
PY
"$NR" import --db "$TMP/redef.db" "$TMP/redef.jsonl" >/dev/null
"$NR" compare --db "$TMP/redef.db" before after >"$TMP/redef.txt" 2>&1
"$NR" compare --db "$TMP/redef.db" --json before after >"$TMP/redef.json" 2>/dev/null
checkx "compare: samples that straddle changed definitions get a note for each, with the counts a side" \
	'[ "$(grep -c "^note: measured by netregress builds that define a metric differently: .*(the new way: 0 of 3 samples of before, 3 of 3 of after)$" "$TMP/redef.txt")" -eq 6 ] && grep -q "define a metric differently: tasks.others_s and cpu.foreign_tasks_pct" "$TMP/redef.txt" && grep -q "define a metric differently: cpu.client.busy_pct and cpu.server.busy_pct" "$TMP/redef.txt" && grep -q "define a metric differently: window.disturbed is also raised by other" "$TMP/redef.txt" && grep -q "define a metric differently: window.disturbed is also raised by a worker kept from its CPU" "$TMP/redef.txt" && grep -q "define a metric differently: window.not_steady comes from a trend test widened" "$TMP/redef.txt" && grep -q "define a metric differently: window.disturbed is also raised by the host.s steal on the test.s CPUs" "$TMP/redef.txt"' ||
	diag "$TMP/redef.txt" "note"
check "compare --json: the same as 'redefined', marker and counts" \
	jtrue "$TMP/redef.json" 'sorted((r["marker"], r["a"], r["b"]) for c in d["configs"] for r in c["notes"].get("redefined", [])) == [("cpu.client.busy_ticks_pct", 0, 3), ("cpu.foreign_tasks_pct", 0, 3), ("cpu.stolen_pct", 0, 3), ("tasks.exited", 0, 3), ("window.starved", 0, 3), ("window.trend_rho", 0, 3)]'
"$NR" report --db "$TMP/redef.db" --format md before after >"$TMP/redef.md" 2>/dev/null
"$NR" report --db "$TMP/redef.db" -o "$TMP/redef.html" before after 2>/dev/null
checkx "report: the Markdown and HTML notes name the labels, as compare does" \
	'[ "$(grep -c "(the new way: 0 of 3 samples of before, 3 of 3 of after)" "$TMP/redef.md")" -eq 6 ] && [ "$(grep -o "(the new way: 0 of 3 samples of before, 3 of 3 of after)" "$TMP/redef.html" | wc -l)" -eq 6 ]' ||
	diag "$TMP/redef.md" "new way"
"$NR" show --db "$DB" base >"$TMP/show3"
check "show: three samples are too few to say what went with the headline" sh -c '! grep -q "went with" "$1"' _ "$TMP/show3"

# Bad databases: a clear error, exit 3, the file untouched.
printf 'this is not a database\n' >"$TMP/text.db"
before=$(md5 "$TMP/text.db")
timeout 30 "$NR" run tcp_stream -l 300ms --warmup 0 --db "$TMP/text.db" 2>"$TMP/err"
rc=$?
checkx "a text file as database: exit 3 naming it, before any test runs" \
	'[ $rc -eq 3 ] && grep -q "text.db" "$TMP/err" && [ "$(md5 "$TMP/text.db")" = "$before" ]'
cp "$DB" "$TMP/newer.db"
python3 -c 'import sqlite3,sys; c=sqlite3.connect(sys.argv[1]); c.execute("pragma user_version=99"); c.commit()' "$TMP/newer.db"
before=$(md5 "$TMP/newer.db")
"$NR" labels --db "$TMP/newer.db" >/dev/null 2>"$TMP/err"
rc=$?
checkx "a newer schema: exit 3 naming both versions, file untouched" \
	'[ $rc -eq 3 ] && grep -q "99" "$TMP/err" && [ "$(md5 "$TMP/newer.db")" = "$before" ]'
head -c 3000 "$DB" >"$TMP/trunc.db"
before=$(md5 "$TMP/trunc.db")
"$NR" show --db "$TMP/trunc.db" base >/dev/null 2>"$TMP/err"
rc=$?
checkx "a truncated database: exit 3, file untouched" '[ $rc -eq 3 ] && [ "$(md5 "$TMP/trunc.db")" = "$before" ]'
printf '{"schema_version": 1, "oops": true}\n' >"$TMP/bad.json"
"$NR" import --db "$DB" "$TMP/bad.json" 2>"$TMP/err"
rc=$?
checkx "a bad result document: exit 3 naming the file" '[ $rc -eq 3 ] && grep -q "bad.json" "$TMP/err"'
# a document made elsewhere with an escape sequence in its label: refused
# whole, the store untouched
python3 - "$TMP/all.jsonl" "$TMP/esc.json" <<'PY'
import json, sys
d = json.loads(open(sys.argv[1]).readline())
d["sample_id"] = "e5c" + d["sample_id"][3:]
d["label"] = "base\x1b]0;owned\x07"
open(sys.argv[2], "w").write(json.dumps(d) + "\n")
PY
before=$(md5 "$DB")
"$NR" import --db "$DB" "$TMP/esc.json" 2>"$TMP/err"
rc=$?
checkx "a label with a control character: exit 3 naming the field, store untouched" \
	'[ $rc -eq 3 ] && grep -q "esc.json.*'"'"'label'"'"' must not contain a control character" "$TMP/err" && [ "$(md5 "$DB")" = "$before" ]' ||
	diag "$TMP/err"
"$NR" compare --db "$DB" base nosuchlabel 2>"$TMP/err"
rc=$?
checkx "compare with an unknown label: exit 3 naming it" '[ $rc -eq 3 ] && grep -q "nosuchlabel" "$TMP/err"'
# Two labels whose samples differ in one parameter share no configuration;
# compare says what sets the nearest two apart.
for o in 0 16; do
	timeout 60 "$NR" run tcp_stream -l 300ms --warmup 0 --no-collect --buf-offset $o \
		--label "bo$o" --db "$TMP/bo.db" >/dev/null 2>&1
done
"$NR" compare --db "$TMP/bo.db" bo0 bo16 >/dev/null 2>"$TMP/err"
rc=$?
checkx "compare of labels without a common configuration: exit 3, naming the parameter that differs" \
	'[ $rc -eq 3 ] && grep -qF "labels '"'"'bo0'"'"' and '"'"'bo16'"'"' share no configuration; the nearest two differ in 1 parameter, bo0 to bo16: buf_offset 0 -> 16" "$TMP/err"' ||
	diag "$TMP/err"

# A/B on a known slowdown (disturbed samples pooled: this checks the
# verdict, not the interference guard, which tests/e2e/noise.sh covers): B caps the TCP receive buffer (tcp_rmem) of a
# namespace this test makes, so the receive window shrinks: same
# configuration, much lower throughput.
if make_netns; then
	ns=$NS_NAME
	CDB=$TMP/cmp.db
	one() { timeout 60 ip netns exec "$ns" "$NR" run tcp_stream -l 500ms --warmup 200ms --db "$CDB" --label "$1" >/dev/null 2>&1; }
	rmem=$(ip netns exec "$ns" sysctl -n net.ipv4.tcp_rmem)
	# interleaved, as a matrix runs them: drift of the machine hits all
	# three; A1 and A2 take turns at going first, so that neither always
	# follows B's small buffers
	for i in 1 2 3 4 5 6; do
		if [ $((i % 2)) -eq 1 ]; then one A1; one A2; else one A2; one A1; fi
		ip netns exec "$ns" sysctl -q net.ipv4.tcp_rmem="4096 8192 8192"
		one B
		ip netns exec "$ns" sysctl -q net.ipv4.tcp_rmem="$rmem"
	done
	"$NR" compare --db "$CDB" --keep-disturbed A1 B >"$TMP/cmp.txt"
	rc=$?
	checkx "compare finds the REGRESSION and exits 1" '[ $rc -eq 1 ] && grep -qE "^throughput.gbps \(higher\).*REGRESSION" "$TMP/cmp.txt"' ||
		diag "$TMP/cmp.txt" "^throughput.gbps"
	# A rank test at level alpha calls an A/A pair a regression in alpha/2
	# of runs by design: at the default 0.05 this check would fail one run
	# in 40 per tree. At 0.01, six against six are significant only when
	# at most two of the 36 pairs go the other way (p 0.0087), which a
	# biased compare still reaches and chance does in 0.4% of runs.
	aa_called() { [ "$1" -ne 0 ] || grep -q "^throughput.gbps.*REGRESSION" "$2"; }
	"$NR" compare --db "$CDB" --keep-disturbed --alpha 0.01 A1 A2 >"$TMP/aa.txt"
	rc=$?
	# Where the host's speed moves in spells of seconds, six runs of one
	# label can land in a slow spell more often than independent runs
	# would, and the extreme above came up (once, under ASan: A2 -18.7%).
	# A chance extreme does not last: six more runs of each, and twelve
	# against twelve. A biased compare calls the pooled runs again.
	again=
	if aa_called $rc "$TMP/aa.txt"; then
		cp "$TMP/aa.txt" "$TMP/aa6.txt"
		for i in 1 2 3 4 5 6; do
			if [ $((i % 2)) -eq 1 ]; then one A2; one A1; else one A1; one A2; fi
		done
		"$NR" compare --db "$CDB" --keep-disturbed --alpha 0.01 A1 A2 >"$TMP/aa.txt"
		rc=$?
		again=" (12 runs a side: 6 a side called it)"
	fi
	checkx "identical settings give no REGRESSION at alpha 0.01 (exit 0)$again" '! aa_called $rc "$TMP/aa.txt"' ||
		{ diag "$TMP/aa6.txt" "^throughput.gbps"; diag "$TMP/aa.txt" "^throughput.gbps"; }
	check "compare names the sysctl that differs between A1 and B, both ends" \
		sh -c 'grep -q "^environment: 2 entries differ from A1 to B" "$1" &&
			grep -qE "^  client.sysctl.net.ipv4.tcp_rmem +4096 [0-9]+ [0-9]+ -> 4096 8192 8192$" "$1" &&
			grep -qE "^  server.sysctl.net.ipv4.tcp_rmem +4096 [0-9]+ [0-9]+ -> 4096 8192 8192$" "$1"' _ "$TMP/cmp.txt" ||
		diag "$TMP/cmp.txt" "^(environment|  )"
	check "compare finds no environment difference between A1 and A2" \
		grep -q "^environment: no difference between A1 and A2 (the full snapshots" "$TMP/aa.txt"
	"$NR" compare --db "$CDB" --keep-disturbed --json A1 B >"$TMP/cmp.json"
	check "compare --json carries the environment's changes" \
		jtrue "$TMP/cmp.json" 'd["configs"][0]["environment"]["full_snapshots"] and sorted(c["entry"] for c in d["configs"][0]["environment"]["changes"]) == ["client.sysctl.net.ipv4.tcp_rmem", "server.sysctl.net.ipv4.tcp_rmem"] and d["configs"][0]["environment"]["changes"][0]["b"] == "4096 8192 8192"'

	check "compare --json carries the verdict and the interval" \
		jtrue "$TMP/cmp.json" 'd["regressed"] and d["configs"][0]["rows"][0]["metric"] == "throughput.gbps" and d["configs"][0]["rows"][0]["verdict"] == "REGRESSION" and d["configs"][0]["rows"][0]["shift_hi_pct"] < -2'
	"$NR" compare --db "$CDB" --keep-disturbed --csv A1 B >"$TMP/cmp.csv"
	check "compare --csv has a header and the headline row" grep -q "^A1,B,.*,throughput.gbps,Gbps,higher,1," "$TMP/cmp.csv"
else
	not_ok "cannot create a network namespace for the compare test"
fi
exit 0
