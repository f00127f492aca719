#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# End to end: `git bisect run` over a 16-commit repository whose step script shapes a namespace's loopback with the commit's TBF rate names the commit that lowered it by 10%; endpoints without a change, or that moved, end in a refusal or an abort, never a culprit; a step whose runs the host placed elsewhere than the endpoints' says so.
. "$(dirname "$0")/lib.sh"

if [ "$(id -u)" -ne 0 ] || ! command -v ip >/dev/null || ! command -v tc >/dev/null ||
	! command -v git >/dev/null || ! ip netns list >/dev/null 2>&1; then
	echo "ok 1 # SKIP needs root, network namespaces, iproute2 (ip, tc) and git"
	exit 0
fi

# Like a kernel bisect, the configuration stays the same (tcp_stream on
# loopback) and the system under test changes: each commit's rate.yaml
# holds the TBF rate the step script puts on the loopback of a fresh
# namespace, in which netregress (client and its local server) runs.
RUN=(-l 1s --warmup 300ms)
NCOMMITS=16
GOOD_RATE=200mbit
BAD_RATE=180mbit   # 10% less
export GIT_AUTHOR_NAME=netregress GIT_AUTHOR_EMAIL=e2e@netregress.invalid
export GIT_COMMITTER_NAME=netregress GIT_COMMITTER_EMAIL=e2e@netregress.invalid
export GIT_CONFIG_NOSYSTEM=1 HOME=$TMP

# The step script: shape lo in a new namespace with the checked-out
# commit's rate (or $STEP_RATE), run one bisect step inside, clean up.
# git bisect run starts it at the top of the work tree.
cat >"$TMP/step.sh" <<'EOF'
#!/usr/bin/env bash
rate=${STEP_RATE:-$(sed -n 's/^tbf_rate: *//p' rate.yaml)}
ns=nrtest-step-$$-$RANDOM
ip netns add "$ns" || exit 128
trap 'ip netns del "$ns" 2>/dev/null' EXIT
ip -n "$ns" link set lo up &&
	ip netns exec "$ns" tc qdisc add dev lo root tbf rate "$rate" burst 196650 limit 1500000 ||
	exit 128
timeout 120 ip netns exec "$ns" "$NR" bisect run --repo "$PWD" --db "$DB" >>"$STEP_LOG" 2>&1
rc=$?
# a timeout (124) would read as "bad": skip the commit instead
[ $rc -eq 124 ] && rc=125
exit $rc
EOF
chmod +x "$TMP/step.sh"
export NR

# make_repo DIR CULPRIT BADRATE: commits 1..NCOMMITS, the rate drops to
# BADRATE at commit CULPRIT; each commit also changes an unrelated file
make_repo() {
	local dir=$1 culprit=$2 bad=$3 i
	git init -q "$dir" || return 1
	for i in $(seq 1 "$NCOMMITS"); do
		if [ "$i" -ge "$culprit" ]; then
			echo "tbf_rate: $bad" >"$dir/rate.yaml"
		else
			echo "tbf_rate: $GOOD_RATE" >"$dir/rate.yaml"
		fi
		echo "change $i" >>"$dir/notes.txt"
		git -C "$dir" add rate.yaml notes.txt && git -C "$dir" commit -q -m "commit $i" || return 1
	done
}
sha_of() { git -C "$1" rev-list --reverse HEAD | sed -n "${2}p"; }
nsamples() { python3 -c 'import sqlite3,sys; print(sqlite3.connect(sys.argv[1]).execute("select count(*) from samples").fetchone()[0])' "$1"; }

# measure DIR REV LABEL REPS: check out REV, measure under its rate
measure() {
	git -C "$1" checkout -q "$2" &&
		shaped "$(sed -n 's/^tbf_rate: *//p' "$1/rate.yaml")" \
			"$NR" run tcp_stream "${RUN[@]}" --reps "$4" --label "$3" --db "$DB" >/dev/null
}

T0=$(date +%s)

# ---- 1. a real 10% change at a random commit: git bisect names it ----
REPO=$TMP/repo
DB=$TMP/bisect.db
STEP_LOG=$TMP/steps.log
export DB STEP_LOG
CULPRIT_IDX=${NR_BISECT_CULPRIT:-$((RANDOM % (NCOMMITS - 1) + 2))}
make_repo "$REPO" "$CULPRIT_IDX" "$BAD_RATE"
check "a repository of $NCOMMITS commits, the rate drops at commit $CULPRIT_IDX" \
	[ "$(git -C "$REPO" rev-list --count HEAD)" -eq "$NCOMMITS" ]
GOOD=$(sha_of "$REPO" 1)
BAD=$(sha_of "$REPO" "$NCOMMITS")
CULPRIT=$(sha_of "$REPO" "$CULPRIT_IDX")

"$NR" bisect run --commit abc --db "$DB" >/dev/null 2>"$TMP/err"
rc=$?
checkx "bisect run without a bisect: exit 128 (abort), not 'bad'" \
	'[ $rc -eq 128 ] && grep -q "no bisect" "$TMP/err"'

measure "$REPO" "$GOOD" "$GOOD" 3
"$NR" bisect start --good "$GOOD" --bad "$BAD" "${RUN[@]}" --db "$DB" >"$TMP/start0" 2>&1
rc=$?
checkx "start with 3 good samples and no bad ones refuses (128), saying how many to add" \
	'[ $rc -eq 128 ] && grep -q "add 2 samples to .$GOOD. (it has 3)" "$TMP/start0" &&
	 grep -q "add 5 samples to .$BAD. (it has 0)" "$TMP/start0"'
measure "$REPO" "$GOOD" "$GOOD" 2
measure "$REPO" "$BAD" "$BAD" 5
"$NR" bisect start --good "$GOOD" --bad "$BAD" "${RUN[@]}" --db "$DB" >"$TMP/start1" 2>&1
rc=$?
checkx "start accepts a 10% change and prints gap, noise and runs per step" \
	'[ $rc -eq 0 ] && grep -q "gap: -" "$TMP/start1" && grep -q "noise:" "$TMP/start1" &&
	 grep -q "expected runs per step" "$TMP/start1" && grep -q "14-step bisect" "$TMP/start1"'
sed 's/^/# /' "$TMP/start1"

# The same endpoints in a store of their own, with the round trips a host
# gives when it kept the CPUs near for every good run and far for 3 of 5
# bad ones: start says where each ran, with the medians at each distance,
# and warns; it is not refused (a shaped link does not follow the distance).
# The shaped runs have no round trip of their own (their server is in a
# namespace): the store says it, here and in the steps' placement below.
"$NR" export --db "$DB" --label "$GOOD" >"$TMP/pgood.jsonl"
"$NR" export --db "$DB" --label "$BAD" >"$TMP/pbad.jsonl"
python3 - "$TMP" <<'PY'
import json, sys, uuid
tmp = sys.argv[1]
with open(f"{tmp}/placed-ends.jsonl", "w") as out:
    for f, far in (("pgood", ()), ("pbad", (0, 2, 4))):
        for i, l in enumerate(open(f"{tmp}/{f}.jsonl")):
            d = json.loads(l)
            d["sample_id"] = uuid.uuid4().hex
            d["metrics"]["host.xcpu_ns"] = {"value": 450.0 + i if i in far else 120.0 + i, "unit": "ns"}
            out.write(json.dumps(d) + "\n")
PY
PDB=$TMP/placed-ends.db
"$NR" import --db "$PDB" "$TMP/placed-ends.jsonl" >/dev/null
"$NR" bisect start --good "$GOOD" --bad "$BAD" "${RUN[@]}" --db "$PDB" >"$TMP/pstart" 2>"$TMP/pstart.err"
rc=$?
checkx "start says where the host kept the CPUs for each endpoint's runs, with the medians at each distance, and warns of the different shares (not refused)" \
	'[ $rc -eq 0 ] &&
	 grep -q "^  cpus: the host kept the test.s CPUs at two distances, a cache line.s round trip (host.xcpu_ns) of 120-124 ns and of 450-454 ns; far: 0 of 5 good runs, 3 of 5 bad$" "$TMP/pstart" &&
	 grep -qE "^        near  good [0-9.e+-]+ Gbps \(5\)  bad [0-9.e+-]+ Gbps \(2\)$" "$TMP/pstart" &&
	 grep -qE "^        far   good - \(0\)  bad [0-9.e+-]+ Gbps \(3\)$" "$TMP/pstart" &&
	 grep -q "warning: the endpoints. runs sat at the far distance in different shares (good 0 of 5, bad 3 of 5)" "$TMP/pstart.err"' ||
	{ diag "$TMP/pstart"; diag "$TMP/pstart.err"; }

git -C "$REPO" bisect start "$BAD" "$GOOD" >/dev/null
(cd "$REPO" && timeout 300 git bisect run "$TMP/step.sh") >"$TMP/bisect1" 2>&1
found=$(sed -n 's/^\([0-9a-f]\{40\}\) is the first bad commit$/\1/p' "$TMP/bisect1")
checkx "git bisect run names the commit that lowered the rate" '[ "$found" = "$CULPRIT" ]'
[ "$found" = "$CULPRIT" ] || { sed 's/^/# /' "$TMP/bisect1" | tail -20; tail -20 "$STEP_LOG" | sed 's/^/# /'; }
git -C "$REPO" bisect reset >/dev/null 2>&1

"$NR" bisect log --repo "$REPO" --db "$DB" >"$TMP/log1" 2>&1
sed 's/^/# /' "$TMP/log1"
checkx "bisect log confirms the culprit against its parent" \
	'grep -qE "^first bad commit: $CULPRIT( \(the bad endpoint\))?, confirmed" "$TMP/log1"'
"$NR" bisect log --repo "$REPO" --db "$DB" --json >"$TMP/log1.json"
checkx "bisect log --json: the culprit, confirmed; every step has n, median, values, position" \
	'jtrue "$TMP/log1.json" "d[\"culprit\"][\"commit\"] == \"$CULPRIT\" and d[\"culprit\"][\"confirmed\"] and all(s[\"n\"] >= 3 and len(s[\"values\"]) == s[\"n\"] and s[\"median\"] > 0 and s[\"position\"] is not None for s in d[\"steps\"])"'
# each verdict is the truth (a disturbed run may cost a skip, never a side)
git -C "$REPO" rev-list --reverse HEAD >"$TMP/order"
checkx "every step's verdict is right: good before commit $CULPRIT_IDX, bad from it; at most one skip" \
	'python3 - "$TMP/log1.json" "$TMP/order" "$CULPRIT_IDX" <<"PY"
import json, sys
d = json.load(open(sys.argv[1]))
order = open(sys.argv[2]).read().split()
culprit = int(sys.argv[3])
skips = 0
for s in d["steps"]:
    want = "bad" if order.index(s["commit"]) + 1 >= culprit else "good"
    skips += s["verdict"] == "skip"
    assert s["verdict"] in (want, "skip") and s["n"] <= 10, s
assert len(d["steps"]) >= 3 and skips <= 1
PY'

# a second call for a decided commit answers from the store, runs nothing
step1=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["steps"][0]["commit"])' "$TMP/log1.json")
want=$(python3 -c 'import json,sys; print({"good":0,"bad":1}[json.load(open(sys.argv[1]))["steps"][0]["verdict"]])' "$TMP/log1.json")
before=$(nsamples "$DB")
"$NR" bisect run --commit "$step1" --db "$DB" >"$TMP/again" 2>&1
rc=$?
checkx "bisect run again for a decided commit prints the stored verdict and exits with it" \
	'[ $rc -eq "$want" ] && grep -q "stored: decided before" "$TMP/again" && [ "$(nsamples "$DB")" -eq "$before" ]'

# re-anchoring: the bad side measured as it is now is a group of that side,
# shown by log, never a culprit; a bad --side is a usage error
"$NR" bisect reanchor --side sideways --db "$DB" >/dev/null 2>"$TMP/err"
rc=$?
checkx "bisect reanchor --side sideways: exit 2, naming the value" \
	'[ $rc -eq 2 ] && grep -q "invalid --side .sideways.: expected good or bad" "$TMP/err"'
shaped "$BAD_RATE" "$NR" bisect reanchor --side bad --db "$DB" >"$TMP/anchor" 2>&1
rc=$?
"$NR" bisect log --repo "$REPO" --db "$DB" --json >"$TMP/log1b.json"
checkx "bisect reanchor --side bad measures 3 runs as a bad group; log shows it and still confirms the culprit" \
	'[ $rc -eq 0 ] && grep -qE "^re-anchored the bad side \(anchor:bad:[0-9]+\): 3 runs, median" "$TMP/anchor" &&
	 jtrue "$TMP/log1b.json" "d[\"culprit\"][\"commit\"] == \"$CULPRIT\" and [s[\"verdict\"] for s in d[\"steps\"] if s[\"commit\"].startswith(\"anchor:bad:\")] == [\"bad\"]"' ||
	diag "$TMP/anchor"

# --settle: a run a busy loop disturbed is followed by a wait for a quiet
# machine (the loop ends after 3 s); the step goes on and is decided (at
# the good rate: good). The host may steal through the wait: then it
# says "not quiet", which the check takes too.
bash -c 'while :; do :; done' &
loop=$!
PIDS+=("$loop")
( sleep 3; kill "$loop" ) &
killer=$!
shaped "$GOOD_RATE" "$NR" bisect run --commit settle-check --settle 30s --db "$DB" >"$TMP/settle" 2>&1
rc=$?
kill "$loop" 2>/dev/null
wait "$killer" "$loop" 2>/dev/null
checkx "bisect run --settle: after the run the loop disturbed, it waits for a quiet machine, then goes on to a verdict" \
	'[ $rc -eq 0 ] && grep -A1 -E "^run 1/10: .*\(flagged disturbed by foreign CPU load\)" "$TMP/settle" | grep -qE "^  (not )?quiet after [0-9.]+ s: busy [0-9.]+% of the machine" && grep -qE "^run ([3-9]|10)/10: .*: good$" "$TMP/settle"' ||
	diag "$TMP/settle"

# ---- placement: the CPUs elsewhere than for every endpoint run -> said,
# the verdict from the figures as ever ----
# Three steps of 4 runs each of the bisect started above in the store of
# endpoints with round trips (120-124 and 450-454 ns), stored as bisect run
# would store them (copies of a good endpoint sample): one with the
# cross-CPU round trip a third of the endpoints' lowest (the host put the
# vCPUs nearer), one inside their range, one with its first run near and
# the others inside. The host decides that on a guest; here the store says it.
bid=$(python3 -c 'import sqlite3,sys; print(sqlite3.connect(sys.argv[1]).execute("select max(id) from bisects").fetchone()[0])' "$PDB")
python3 - "$TMP" "$bid" <<'PY'
import json, sys, uuid
tmp, bid = sys.argv[1], sys.argv[2]
ends = [json.loads(l) for l in open(f"{tmp}/placed-ends.jsonl")]
xs = [d["metrics"]["host.xcpu_ns"]["value"] for d in ends]
good = [d for d in ends if d["label"] == ends[0]["label"]]
near, same = min(xs) / 3, (min(xs) + max(xs)) / 2
for name, x in (("placed-near", [near] * 4), ("placed-same", [same] * 4),
                ("placed-mixed", [near, same, same, same])):
    with open(f"{tmp}/{name}.jsonl", "w") as f:
        for i in range(4):
            d = json.loads(json.dumps(good[i % len(good)]))
            d["label"] = f"bisect:{bid}:{name}"
            d["sample_id"] = uuid.uuid4().hex
            d["metrics"]["host.xcpu_ns"]["value"] = x[i]
            f.write(json.dumps(d) + "\n")
PY
"$NR" import --db "$PDB" "$TMP/placed-near.jsonl" "$TMP/placed-same.jsonl" \
	"$TMP/placed-mixed.jsonl" >/dev/null
"$NR" bisect run --commit placed-near --max-reps 4 --db "$PDB" >"$TMP/near" 2>&1
rc=$?
checkx "a step whose runs the host placed elsewhere than every endpoint run: decided from its figures (good, 0), every run marked, a note" \
	'[ $rc -eq 0 ] && grep -q ": good after 4 runs (" "$TMP/near" &&
	 [ "$(grep -o " \[[0-9]* ns\]" "$TMP/near" | wc -l)" -eq 4 ] &&
	 grep -q "note: in 4 of these runs \[marked\] the host kept the CPUs elsewhere than for every endpoint run" "$TMP/near"' ||
	diag "$TMP/near"
"$NR" bisect run --commit placed-same --max-reps 4 --db "$PDB" >"$TMP/same" 2>&1
rc=$?
checkx "the same runs with the CPUs where the endpoints had them: good (0), nothing marked, no note" \
	'[ $rc -eq 0 ] && grep -q ": good after 4 runs (" "$TMP/same" && ! grep -q "note: in\| ns\]" "$TMP/same"' ||
	diag "$TMP/same"
"$NR" bisect run --commit placed-mixed --max-reps 4 --db "$PDB" >"$TMP/mixed" 2>&1
rc=$?
checkx "one run of four placed elsewhere: that one marked, good (0)" \
	'[ $rc -eq 0 ] && grep -q ": good after 4 runs (" "$TMP/mixed" &&
	 grep -q "note: in 1 of these runs \[marked\]" "$TMP/mixed"' ||
	diag "$TMP/mixed"

# ---- 2. the endpoints moved: every step far below both -> abort ----
"$NR" bisect start --good "$GOOD" --bad "$BAD" "${RUN[@]}" --db "$DB" >/dev/null 2>&1
git -C "$REPO" bisect start "$BAD" "$GOOD" >/dev/null
(cd "$REPO" && STEP_RATE=150mbit timeout 120 git bisect run "$TMP/step.sh") >"$TMP/bisect2" 2>&1
git -C "$REPO" bisect reset >/dev/null 2>&1
"$NR" bisect log --db "$DB" --json >"$TMP/log2.json"
checkx "steps far outside both endpoints abort the bisect run: no culprit" \
	'! grep -q "is the first bad commit" "$TMP/bisect2" &&
	 jtrue "$TMP/log2.json" "len(d[\"steps\"]) == 1 and d[\"steps\"][0][\"verdict\"] == \"abort\" and d[\"culprit\"] is None"'

# ---- 3. no real change between the endpoints: refused, then abort ----
REPO0=$TMP/repo0
DB=$TMP/nochange.db
make_repo "$REPO0" 9 "$GOOD_RATE"
GOOD0=$(sha_of "$REPO0" 1)
BAD0=$(sha_of "$REPO0" "$NCOMMITS")
measure "$REPO0" "$GOOD0" "$GOOD0" 5
measure "$REPO0" "$BAD0" "$BAD0" 5
"$NR" bisect start --good "$GOOD0" --bad "$BAD0" "${RUN[@]}" --db "$DB" >"$TMP/start3" 2>&1
rc=$?
checkx "start refuses endpoints without a real change (exit 128, nothing to bisect)" \
	'[ $rc -eq 128 ] && grep -qE "nothing (worth )?to bisect|nothing worth bisecting|do not differ" "$TMP/start3"'
sed 's/^/# /' "$TMP/start3" | tail -3
git -C "$REPO0" bisect start "$BAD0" "$GOOD0" >/dev/null
(cd "$REPO0" && timeout 120 git bisect run "$TMP/step.sh") >"$TMP/bisect3" 2>&1
git -C "$REPO0" bisect reset >/dev/null 2>&1
checkx "git bisect run after the refusal aborts at once: no culprit" \
	'! grep -q "is the first bad commit" "$TMP/bisect3" && [ "$(nsamples "$DB")" -eq 10 ]'

echo "# culprit at commit $CULPRIT_IDX of $NCOMMITS; $(($(date +%s) - T0)) s"
