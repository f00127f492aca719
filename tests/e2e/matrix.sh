#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# End to end: job files, interleaved matrices, resume, interruption, dry run.
. "$(dirname "$0")/lib.sh"
SC=$(cd "$(dirname "$0")/../.." && pwd)/scenarios

cat >"$TMP/job.yaml" <<'YAML'
# three configurations, three repetitions, short runs
repetitions: 3
duration: 300ms
warmup: 100ms
params:
  test: [tcp_stream, udp_stream]
  streams: [1, 2]
exclude:
  - {test: udp_stream, streams: 2}
YAML

# The plan: cells, order, duration; the same seed gives the same order.
"$NR" matrix --dry-run --seed 7 "$TMP/job.yaml" >"$TMP/plan1"
rc=$?
"$NR" matrix --dry-run --seed 7 "$TMP/job.yaml" >"$TMP/plan2"
"$NR" matrix --dry-run --seed 8 "$TMP/job.yaml" >"$TMP/plan3"
checkx "dry run: 3 configurations x 3 repetitions, 9 steps, with a duration" \
	'[ $rc -eq 0 ] && grep -q "3 configurations x 3 repetitions, 9 steps to run, seed 7" "$TMP/plan1" && grep -q "expected duration 0m" "$TMP/plan1"'
check "the same seed gives the same order" cmp -s "$TMP/plan1" "$TMP/plan2"
check "another seed gives another order" bash -c "! cmp -s <(grep ^order '$TMP/plan1') <(grep ^order '$TMP/plan3')"
check "no configuration runs twice in a row" python3 -c '
import sys
o = [int(x) for x in open(sys.argv[1]).read().split("order:")[1].split()]
sys.exit(0 if len(o) == 9 and all(a != b for a, b in zip(o, o[1:])) else 1)' "$TMP/plan1"
check "excluded combinations are left out" bash -c "! grep -q 'test=udp_stream streams=2' '$TMP/plan1'"

# A run stores every sample and prints the summary.
timeout 120 "$NR" matrix --seed 7 --label m1 "$TMP/job.yaml" >"$TMP/out" 2>"$TMP/log"
rc=$?
count() { pred samples "$NETREGRESS_DB" "$1"; }
# a disturbed sample stays stored and its step runs once more: D extra
reruns() { grep -oE '^[0-9]+ samples were disturbed' "$1" | cut -d' ' -f1 || true; }
# per configuration: at least want samples, at most want undisturbed ones
cells_ok() { pred cells_ok "$NETREGRESS_DB" "$1" "$2"; }
D=$(reruns "$TMP/log"); D=${D:-0}
checkx "matrix exits 0 and stores 9 samples (+$D measured again as disturbed)" \
	'[ $rc -eq 0 ] && [ "$(count m1)" = $((9 + D)) ] && cells_ok m1 3'
# (a sample disturbed on both tries is stored but not counted there;
# a configuration whose every sample was disturbed counts them all, as
# compare pools them, marked *)
K=$(sed -n 's/^n leaves out \([0-9]*\) sample.*/\1/p' "$TMP/out"); K=${K:-0}
check "the summary lists each configuration with 3 samples (-$K disturbed twice)" python3 -c '
import re, sys
n = [(int(m.group(1)), m.group(2)) for m in (re.match(r"^test=(?:tcp|udp)_stream streams=[12] +([0-9]+)(\*?) ", l)
                                             for l in open(sys.argv[1])) if m]
kept = [x for x, star in n if not star]
sys.exit(0 if len(n) == 3 and all(x <= 3 for x in kept) and all(x >= 3 for x, star in n if star) and sum(kept) + int(sys.argv[2]) == 3 * len(kept) else 1)' "$TMP/out" "$K"
again=$(grep -c "^step [0-9]*/[0-9]* (.*): .*, disturbed again by foreign CPU [0-9.]*% of the machine.*: stored, left out while its configuration has a clean sample$" "$TMP/log")
checkx "... and the step of each of those $K says it was disturbed again and left out ($again; more where a configuration marked * counts them)" \
	'[ "$again" = "$K" ] || { grep -q "^\*: every sample" "$TMP/out" && [ "$again" -gt "$K" ]; }' ||
	diag "$TMP/log" "disturbed"
# Beside the spread, what is left of it with the CPUs' distance within the
# windows taken out: a percentage where the slope passed (3 samples are
# too few: it needs 4), else "-", and a line saying so.
check "the summary's adj column: '-' for 3 samples or fewer, and its legend" python3 -c '
import re, sys
lines = open(sys.argv[1]).read().splitlines()
head = [l for l in lines if l.startswith("configuration ")]
rows = [l.split() for l in lines if re.match(r"^test=(?:tcp|udp)_stream streams=[12] ", l)]
legend = [l for l in lines if l.startswith("adj ±%sd: the spread with the CPUs")]
sys.exit(0 if head and "adj ±%sd" in head[0] and len(rows) == 3 and all(r[-2] == "-" for r in rows) and len(legend) == 1 else 1)' "$TMP/out"
check "progress is logged step by step without a terminal" grep -q "^step $((9 + D))/$((9 + D)) " "$TMP/log"

# Killed half-way, then --resume: exactly what is missing runs.
"$NR" matrix --seed 7 --label m2 "$TMP/job.yaml" >/dev/null 2>"$TMP/log2" &
mpid=$!
PIDS+=($mpid)
# (each step's log line follows its stored sample; a python poll of the
# store every 50 ms was foreign CPU enough to flag the steps disturbed)
for _ in $(seq 1200); do
	[ "$(grep -c "^step " "$TMP/log2")" -ge 4 ] && break
	sleep 0.05
done
kids=$(pgrep -P $mpid)
kill -9 $mpid 2>/dev/null
wait $mpid 2>/dev/null
sleep 0.3
before=$(count m2)
# the samples of m2 that compare will use (not disturbed), before the resume
clean() { pred samples "$NETREGRESS_DB" "$1" window.disturbed 0; }
clean_before=$(clean m2)
# (each gets SIGTERM and stops its sessions: up to 5 s each on a loaded host)
check "a killed matrix takes its local server with it (PR_SET_PDEATHSIG)" \
	bash -c ". '$(dirname "$0")/lib.sh' >/dev/null; for k in $kids; do for _ in \$(seq 50); do running \$k || break; sleep 0.1; done; running \$k && exit 1; done; exit 0"
timeout 120 "$NR" matrix --seed 7 --label m2 --resume "$TMP/job.yaml" >"$TMP/out3" 2>"$TMP/log3"
rc=$?
checkx "resume after a kill: every configuration complete, no clean sample twice (had $before)" \
	'[ $rc -eq 0 ] && [ "$before" -ge 1 ] && [ "$before" -lt 9 ] && cells_ok m2 3'
# The summary after a resume counts what compare will use: the samples
# stored before it as well as those measured now, and says how many were
# earlier ones.
check "after a resume, the summary counts all $(clean m2) clean samples, $clean_before of them stored earlier" python3 -c '
import re, sys
text = open(sys.argv[1]).read()
n = [int(m.group(1)) for m in re.finditer(r"^test=(?:tcp|udp)_stream streams=[12] +([0-9]+) ", text, re.M)]
e = re.search(r"^n counts ([0-9]+) samples? stored under m2 before this run", text, re.M)
want_all, want_earlier = int(sys.argv[2]), int(sys.argv[3])
ok = len(n) == 3 and sum(n) == want_all and (e and int(e.group(1)) == want_earlier if want_earlier else not e)
sys.exit(0 if ok else 1)' "$TMP/out3" "$(clean m2)" "$clean_before"
check "resume ran only the missing steps: those of the $clean_before samples compare uses" grep -q "($((9 - clean_before)) steps)" "$TMP/log3"
"$NR" matrix --seed 7 --label m2 --resume --dry-run "$TMP/job.yaml" >"$TMP/plan4"
# (a repetition disturbed on both tries left no sample compare uses:
# resume runs it again)
check "a finished matrix has nothing left to resume but the repetitions disturbed on both tries ($((9 - $(clean m2))))" \
	grep -q " $((9 - $(clean m2))) steps to run" "$TMP/plan4"

# More repetitions of the same job later: --resume runs the ones missing,
# and the summary and --until-ci count the earlier ones with them.
sed 's/^repetitions: 3/repetitions: 2/' "$TMP/job.yaml" >"$TMP/job2.yaml"
sed 's/^repetitions: 3/repetitions: 4/' "$TMP/job.yaml" >"$TMP/job4.yaml"
timeout 120 "$NR" matrix --seed 7 --label m4 "$TMP/job2.yaml" >/dev/null 2>&1
e4=$(clean m4)
timeout 120 "$NR" matrix --seed 7 --label m4 --resume "$TMP/job4.yaml" >"$TMP/out4" 2>"$TMP/log4"
rc=$?
checkx "4 repetitions after 2: exit 0, the steps the $e4 clean samples leave (2 more a configuration), and the summary counts all $(clean m4) clean samples, the $e4 earlier ones too" \
	'[ $rc -eq 0 ] && grep -q "($((12 - e4)) steps)" "$TMP/log4" && [ "$e4" -ge 1 ] && python3 -c "
import re, sys
text = open(sys.argv[1]).read()
n = [int(m.group(1)) for m in re.finditer(r\"^test=(?:tcp|udp)_stream streams=[12] +([0-9]+) \", text, re.M)]
e = re.search(r\"^n counts ([0-9]+) samples? stored under m4 before this run, as compare will\", text, re.M)
sys.exit(0 if len(n) == 3 and sum(n) == int(sys.argv[2]) and e and int(e.group(1)) == int(sys.argv[3]) else 1)" "$TMP/out4" "$(clean m4)" "$e4"' ||
	{ echo "# rc=$rc, clean $(clean m4), earlier $e4"; diag "$TMP/log4" "steps|disturbed"; diag "$TMP/out4" "^test=|^n "; }

# Ctrl-C: a clean stop, the finished samples kept, no process left behind.
"$NR" matrix --seed 7 --label m3 "$TMP/job.yaml" >/dev/null 2>"$TMP/log5" &
mpid=$!
PIDS+=($mpid)
# (up to 60 s: on a loaded host, or the sanitizer build, two steps can
# take longer than the 10 s this once waited)
for _ in $(seq 1200); do
	[ "$(count m3 2>/dev/null || echo 0)" -ge 2 ] && break
	sleep 0.05
done
kids=$(pgrep -P $mpid)
kill -INT $mpid
wait $mpid
rc=$?
sleep 0.3
checkx "SIGINT: exit 3 saying how to resume" '[ $rc -eq 3 ] && grep -q "resume" "$TMP/log5"'
check "SIGINT: the samples measured so far are stored" [ "$(count m3)" -ge 2 ]
check "SIGINT: no server of this matrix is left running" \
	bash -c ". '$(dirname "$0")/lib.sh' >/dev/null; [ -n '$kids' ] && for k in $kids; do running \$k && exit 1; done; exit 0"

# Bad job files: file, line and column, exit 2.
printf 'repetitions: 2\nparams:\n  msg: [64, 8Q]\n' >"$TMP/bad.yaml"
"$NR" matrix "$TMP/bad.yaml" 2>"$TMP/err"
rc=$?
checkx "a bad value names file, line, column and key" '[ $rc -eq 2 ] && grep -q "bad.yaml:3:.*8Q.*msg" "$TMP/err"'

# A scenario's quick variant runs as documented.
timeout 120 "$NR" matrix "$SC/tcp-small-rcvbuf-quick.yaml" --label sc >"$TMP/sc" 2>&1
rc=$?
checkx "scenario tcp-small-rcvbuf-quick runs" '[ $rc -eq 0 ] && grep -q "^all_buffers=8K" "$TMP/sc"'
timeout 120 "$NR" matrix "$SC/udp-loopback-defer-free-quick.yaml" --label sc >"$TMP/sc2" 2>&1
check "scenario udp-loopback-defer-free-quick runs with the profiler" \
	pred metric_stored "$NETREGRESS_DB" 'profile.self.%'
check "its profiled samples, and only they, have profile=1 in their key" \
	python3 -c 'import sqlite3,sys; c=sqlite3.connect(sys.argv[1]); rows=c.execute("select s.config_key, exists(select 1 from metrics m where m.sample_id = s.id and m.name like ?) from samples s where s.label = ?", ("profile.self.%", "sc")).fetchall(); sys.exit(0 if rows and any(p for _, p in rows) and all((" profile=1 " in k) == bool(p) for k, p in rows) else 1)' "$NETREGRESS_DB"
check "... with children rows from the call chains and the threshold it kept, 0.1%" \
	python3 -c 'import sqlite3,sys; c=sqlite3.connect(sys.argv[1]); q=lambda n: c.execute("select count(*), min(value) from metrics where name like ?", (n,)).fetchone(); ch, mn = q("profile.children.%"), q("profile.min_pct"); sys.exit(0 if ch[0] > 0 and ch[1] >= 0.1 - 1e-9 and mn[0] > 0 and mn[1] == 0.1 else 1)' "$NETREGRESS_DB"
# The threshold: the job's profile_min, --profile-min over it; refused
# without the profiler or out of 0..100.
printf 'repetitions: 1\nduration: 300ms\nwarmup: 100ms\ncollect: {profile: true, profile_min: 1.5, xcpu: false}\nparams:\n  test: udp_stream\n' >"$TMP/pmin.yaml"
timeout 60 "$NR" matrix "$TMP/pmin.yaml" --label pmin >"$TMP/pmin" 2>&1
timeout 60 "$NR" matrix "$TMP/pmin.yaml" --label pmin2 --profile-min 3 >>"$TMP/pmin" 2>&1
check "the job's profile_min (1.5), and --profile-min 3 over it, are the rows' thresholds" \
	python3 -c 'import sqlite3,sys; c=sqlite3.connect(sys.argv[1]); f=lambda l, q: c.execute("select " + q + " from metrics m join samples s on m.sample_id = s.id where s.label = ? and (m.name like ? or m.name like ?)", (l, "profile.self.%", "profile.children.%")).fetchone()[0]; t=lambda l: c.execute("select m.value from metrics m join samples s on m.sample_id = s.id where s.label = ? and m.name = ?", (l, "profile.min_pct")).fetchone()[0]; sys.exit(0 if t("pmin") == 1.5 and t("pmin2") == 3 and f("pmin", "min(m.value)") >= 1.5 - 1e-9 and f("pmin2", "min(m.value)") >= 3 - 1e-9 else 1)' "$NETREGRESS_DB" ||
	diag "$TMP/pmin"
"$NR" matrix "$TMP/pmin.yaml" --label pmin3 --profile-min 101 >"$TMP/err" 2>&1
rc=$?
checkx "matrix --profile-min 101 is refused (exit 2), naming it" \
	'[ $rc -eq 2 ] && grep -qF "invalid --profile-min: invalid number '"'101'"'" "$TMP/err"'
printf 'repetitions: 1\nduration: 300ms\n' >"$TMP/noprof.yaml"
"$NR" matrix "$TMP/noprof.yaml" --label pmin3 --profile-min 1 >"$TMP/err" 2>&1
rc=$?
checkx "matrix --profile-min for a job without the profiler is refused (exit 2)" \
	'[ $rc -eq 2 ] && grep -q "expected .collect: {profile: true}. in" "$TMP/err"'
timeout 120 "$NR" matrix "$SC/lmbench-tcp-bw-quick.yaml" --label lm >"$TMP/sc3" 2>&1
rc=$?
checkx "scenario lmbench-tcp-bw-quick runs its 2 cells (1 copy, a copy per cpu)" \
	'[ $rc -eq 0 ] && cells_ok lm 2 && grep -q "^streams=1 " "$TMP/sc3" && grep -q "^streams=100% " "$TMP/sc3"'
check "... as bw_tcp: the server sends 10M transfers, whole; MB/s of 10^6 bytes beside Gbps" python3 - "$NETREGRESS_DB" <<'PY'
import sqlite3, sys
c = sqlite3.connect(sys.argv[1])
rows = c.execute("select id, config_key from samples where label = 'lm'").fetchall()
ok = bool(rows)
for sid, key in rows:
    m = dict(c.execute("select name, value from metrics where sample_id = ?", (sid,)))
    ok &= (" dir=recv " in key and " msg=10485760 " in key and key.endswith(" transfer=10485760")
           and " remote_sndbuf=1048576 " in key and " rcvbuf=1048576 " in key
           and m.get("transfer.count", 0) > 0
           and abs(m["throughput.mb_per_s"] - m["throughput.gbps"] * 125) <= 1e-9 * m["throughput.mb_per_s"])
sys.exit(0 if ok else 1)
PY
timeout 120 "$NR" matrix "$SC/udp-gso-quick.yaml" --label gso >"$TMP/sc4" 2>&1
rc=$?
checkx "scenario udp-gso-quick runs its 6 cells, each udp_gso key with udp_gro or without" \
	'[ $rc -eq 0 ] && cells_ok gso 2 && [ "$(grep -cE "^udp_gso=(1200|1472|8952) udp_gro=(false|true) " "$TMP/sc4")" -eq 6 ]'
timeout 120 "$NR" matrix "$SC/copy-offsets-quick.yaml" --label co >"$TMP/sc5" 2>&1
rc=$?
checkx "scenario copy-offsets-quick runs its 8 cells, tcp_stream and tcp_sendfile at each buffer offset" \
	'[ $rc -eq 0 ] && cells_ok co 2 && [ "$(grep -cE "^test=tcp_(stream|sendfile) buf_offset=(0|16|64|2048) " "$TMP/sc5")" -eq 8 ]'

# The veth scenario: namespaces made and removed by the matrix itself.
"$NR" matrix "$SC/udp-matrix-quick.yaml" --label veth >"$TMP/veth" 2>&1 &
mpid=$!
PIDS+=($mpid)
wait $mpid
rc=$?
checkx "scenario udp-matrix-quick runs on the veth topology (6 cells, fragmenting ones left out)" \
	'[ $rc -eq 0 ] && cells_ok veth 2 && grep -q "^ipv=6 mtu=9000 msg=8952 " "$TMP/veth" && ! grep -q "mtu=1500 msg=8952" "$TMP/veth"'
check "the veth matrix left no namespace (nr-$mpid-*) or owner record (topo-$mpid-*) of its own behind" \
	bash -c "! ip netns list | grep -q '^nr-$mpid-' && ! ls /run/netregress 2>/dev/null | grep -q '^topo-$mpid-'"
check "its samples name the veth topology and the MTU in the key" \
	python3 -c 'import sqlite3,sys; c=sqlite3.connect(sys.argv[1]); k=[r[0] for r in c.execute("select distinct config_key from samples where label=?", ("veth",))]; sys.exit(0 if len(k) == 6 and all("topology=veth" in x and "mtu=" in x for x in k) else 1)' "$NETREGRESS_DB"

# The cross-CPU probe: every testbed's server shares this machine, so every
# sample has it, on loopback and between namespaces; collect.xcpu: false
# turns it off. A sample whose rounds were all missed (a host that held a
# CPU through each of a 300 ms window's three) says so instead of a figure.
xcpu_in() { pred xcpu_in "$NETREGRESS_DB" "$1" "$2"; }
check "every sample of a matrix has the cross-CPU round trip: loopback" xcpu_in m1 yes
check "every sample of a matrix has the cross-CPU round trip: veth namespaces" xcpu_in veth yes
# the kernel sends exit records to the first network namespace only: the
# veth client opens its listener there, before entering its own
check "the veth matrix's samples count the tasks that ended in their windows" \
	python3 -c 'import sqlite3,sys; c=sqlite3.connect(sys.argv[1]); n=[r[0] for r in c.execute("select count(m.name) from samples s left join metrics m on m.sample_id = s.id and m.name = ? where s.label = ? group by s.id", ("tasks.exited", "veth"))]; sys.exit(0 if n and all(x == 1 for x in n) else 1)' "$NETREGRESS_DB"
printf 'repetitions: 1\nduration: 300ms\nwarmup: 100ms\ncollect: {xcpu: false}\n' >"$TMP/nox.yaml"
timeout 120 "$NR" matrix --label nox "$TMP/nox.yaml" >/dev/null 2>&1
checkx "collect.xcpu false: no cross-CPU probe" '[ $? -eq 0 ] && xcpu_in nox no'

# --until-ci adds repetitions only while the interval is wide.
timeout 120 "$NR" matrix --label ci --until-ci 50 --max-reps 4 "$TMP/job.yaml" >/dev/null 2>"$TMP/ci"
checkx "--until-ci reports the steps it saved" '[ $? -eq 0 ] && grep -q "steps instead of 12 at --max-reps 4" "$TMP/ci"'

# --baseline prints the compare table after the summary.
timeout 120 "$NR" matrix --seed 9 --label m4 --baseline m1 "$TMP/job.yaml" >"$TMP/base" 2>/dev/null
rc=$?
checkx "--baseline compares against the label (exit 0 or 1)" '[ $rc -le 1 ] && grep -q "^config: " "$TMP/base" && grep -q "configurations compared" "$TMP/base"'

# --where runs a corner of the job, and its compare at the end takes the
# same corner: one configuration here, its three repetitions.
timeout 120 "$NR" matrix --seed 9 --label mw --baseline m1 --where test=tcp_stream --where streams=2 \
	"$TMP/job.yaml" >"$TMP/where" 2>"$TMP/where.log"
rc=$?
checkx "--where: 1 of the job's 3 configurations, 3 steps, compared alone against the baseline" \
	'[ $rc -le 1 ] && grep -q "1 configurations (of the job.s 3: --where test=tcp_stream streams=2) x 3 repetitions (3 steps)" "$TMP/where.log" &&
	 [ "$(count mw)" -ge 3 ] && python3 -c "import sqlite3, sys; sys.exit(any(\"streams=2 test=tcp_stream \" not in k for (k,) in sqlite3.connect(sys.argv[1]).execute(\"select config_key from samples where label = ?\", (\"mw\",))))" "$NETREGRESS_DB" &&
	 grep -q "^1 configuration compared (--where test=tcp_stream streams=2): " "$TMP/where"' ||
	diag "$TMP/where.log" "configurations|^netregress"
"$NR" matrix --dry-run --where msg=64 "$TMP/job.yaml" >/dev/null 2>"$TMP/where.err"
rc=$?
checkx "--where a value no configuration of the job has: exit 2, naming the values it has" \
	'[ $rc -eq 2 ] && grep -q "^netregress: --where msg=64: no configuration of .*job.yaml. has msg=64; msg is 1472, 131072 there$" "$TMP/where.err"' ||
	diag "$TMP/where.err" .

# --keep-disturbed, for a host that always steals or is always loaded: a
# disturbed step is not measured again, and its sample counts in the
# summary (and the compares at the end) as compare --keep-disturbed pools
# it. One busy loop pinned to each CPU, started here and ended by PID,
# disturbs every step; the same job without the flag measures each
# disturbed step once more and counts it not (unchanged).
hog() {
	HOGS=()
	for c in $(seq 0 $(($(nproc) - 1))); do
		taskset -c "$c" bash -c 'while :; do :; done' &
		HOGS+=($!)
		PIDS+=($!)
	done
}
unhog() {
	kill "${HOGS[@]}" 2>/dev/null
	wait "${HOGS[@]}" 2>/dev/null
}
# sql QUERY: one value from the suite's store, by the sqlite3 shell
sql() { sqlite3 "$NETREGRESS_DB" "$1"; }
# stored LABEL [DISTURBED]: its samples (those with window.disturbed = DISTURBED)
stored() {
	sql "select count(*) from samples s join metrics m on m.sample_id = s.id and m.name = 'window.disturbed' where s.label = '$1'${2:+ and m.value = $2}"
}
# summary_n FILE: the n of the summary's one row
summary_n() { awk '$1 == "tcp_stream" && $NF == "throughput.gbps" { print $2 }' "$1"; }
printf 'repetitions: 2\nduration: 300ms\nwarmup: 100ms\nparams:\n  test: tcp_stream\n' >"$TMP/kd.yaml"
sed 's/^repetitions: 2/repetitions: 4/' "$TMP/kd.yaml" >"$TMP/kd4.yaml"

hog
timeout 120 "$NR" matrix --seed 5 --label kdoff "$TMP/kd.yaml" >"$TMP/kdoff.out" 2>"$TMP/kdoff.log"
rc=$?
unhog
D=$(reruns "$TMP/kdoff.log"); D=${D:-0}
K=$(sed -n 's/^n leaves out \([0-9]*\) sample.*/\1/p' "$TMP/kdoff.out"); K=${K:-0}
# The summary's n: the clean samples, the second tries' disturbed ones
# left out; with none clean, every sample stored, marked *, as compare
# then pools them all.
C=$(stored kdoff 0)
summary_n_ok() {
	local n
	n=$(summary_n "$TMP/kdoff.out")
	if [ "$C" -gt 0 ]; then
		[ "$n" = "$C" ] && [ $((n + K)) -eq 2 ] && ! grep -q "^\*: " "$TMP/kdoff.out"
	else
		[ "$n" = "$(stored kdoff)*" ] && [ "$K" -eq 0 ] &&
			grep -qx "\*: every sample of the configuration was flagged disturbed by foreign CPU load; n counts them all, as compare pools them when a side has no other (what disturbed them is in their figures)" "$TMP/kdoff.out"
	fi
}
checkx "without --keep-disturbed, under busy loops: each disturbed step measured again ($D of 2), $((2 + D)) samples stored, the summary's n the $C clean ones and $K left out, or with none clean all of them marked *" \
	'[ $rc -eq 0 ] && [ "$D" -ge 1 ] && [ "$(stored kdoff)" -eq $((2 + D)) ] &&
	 [ "$(grep -c ": running it again$" "$TMP/kdoff.log")" -eq "$D" ] &&
	 grep -q "^step $((2 + D))/$((2 + D)) " "$TMP/kdoff.log" && summary_n_ok &&
	 ! grep -q "keep-disturbed" "$TMP/kdoff.log" "$TMP/kdoff.out"' ||
	{ diag "$TMP/kdoff.log"; diag "$TMP/kdoff.out" "^tcp_stream|^n "; }

hog
timeout 120 "$NR" matrix --seed 5 --label kdk --keep-disturbed "$TMP/kd.yaml" >"$TMP/kdk.out" 2>"$TMP/kdk.log"
rc=$?
unhog
F=$(stored kdk 1)
checkx "--keep-disturbed under busy loops: no step measured again, 2 samples stored for 2 steps ($F flagged disturbed)" \
	'[ $rc -eq 0 ] && [ "$(stored kdk)" -eq 2 ] && [ "$F" -ge 1 ] &&
	 [ "$(grep -c "^step " "$TMP/kdk.log")" -eq 2 ] && grep -q "^step 2/2 " "$TMP/kdk.log" &&
	 ! grep -qE "running it again|and measured again|quiet after" "$TMP/kdk.log"' ||
	diag "$TMP/kdk.log"
checkx "... each disturbed step's line gives its rate, what disturbed it, and that it is counted ($F)" \
	'[ "$(grep -cE "^step [12]/2 \(.*\): tcp_stream -: throughput\.gbps [0-9.e+]+ Gbps.*, disturbed by foreign CPU [0-9.]+% of the machine .*: counted, as --keep-disturbed asks$" "$TMP/kdk.log")" -eq "$F" ]' ||
	diag "$TMP/kdk.log" "^step"
checkx "... the summary counts both samples, and says $F of them were disturbed" \
	'[ "$(summary_n "$TMP/kdk.out")" = 2 ] && ! grep -q "^n leaves out" "$TMP/kdk.out" &&
	 grep -qx "n counts $F samples\{0,1\} flagged disturbed by foreign CPU load, as --keep-disturbed asks (compare --keep-disturbed pools them too)" "$TMP/kdk.out" &&
	 grep -qx "$F samples were disturbed by foreign CPU load: counted, as --keep-disturbed asks, not measured again" "$TMP/kdk.log"' ||
	{ diag "$TMP/kdk.out" "^tcp_stream|^n "; diag "$TMP/kdk.log" "disturbed"; }

# --resume takes the disturbed samples stored as done with the flag (as
# compare --keep-disturbed will use them), not without it
"$NR" matrix --seed 5 --label kdk --resume --dry-run --keep-disturbed "$TMP/kd4.yaml" >"$TMP/kdk.plan" 2>&1
"$NR" matrix --seed 5 --label kdk --resume --dry-run "$TMP/kd4.yaml" >"$TMP/kdk.plan0" 2>&1
checkx "--resume --keep-disturbed: 2 of 4 repetitions left; without it $((4 - $(stored kdk 0))) (the $F disturbed do not count)" \
	'grep -q " 2 steps to run" "$TMP/kdk.plan" && grep -q " $((4 - $(stored kdk 0))) steps to run" "$TMP/kdk.plan0"' ||
	{ diag "$TMP/kdk.plan" "steps"; diag "$TMP/kdk.plan0" "steps"; }
# ... and the summary and the compare at the end pool them with the new
# ones, the earlier disturbed ones too
timeout 120 "$NR" matrix --seed 5 --label kdk --resume --keep-disturbed --baseline kdoff "$TMP/kd4.yaml" >"$TMP/kdr.out" 2>"$TMP/kdr.log"
rc=$?
F4=$(stored kdk 1)
checkx "--resume --keep-disturbed --baseline: 2 steps, the summary counts all 4 samples (2 earlier, $F4 disturbed), and so does the compare" \
	'[ $rc -le 1 ] && grep -q "(2 steps)" "$TMP/kdr.log" && [ "$(stored kdk)" -eq 4 ] && [ "$(summary_n "$TMP/kdr.out")" = 4 ] &&
	 grep -qx "n counts 2 samples stored under kdk before this run, as compare --keep-disturbed will" "$TMP/kdr.out" &&
	 grep -qx "n counts $F4 samples\{0,1\} flagged disturbed by foreign CPU load, as --keep-disturbed asks (compare --keep-disturbed pools them too), $F of them stored before this run" "$TMP/kdr.out" &&
	 [ "$(awk -F"|" "/^throughput\.gbps \(higher\) / { n = split(\$3, b, \" \"); print b[n] }" "$TMP/kdr.out")" = 4 ] &&
	 ! grep -q "^note: left out as disturbed" "$TMP/kdr.out"' ||
	{ diag "$TMP/kdr.log"; diag "$TMP/kdr.out" "^tcp_stream|^n |^throughput|^note"; }

"$NR" matrix --keep-disturbed --settle 2s "$TMP/kd.yaml" >"$TMP/kds" 2>&1
rc=$?
checkx "--keep-disturbed with --settle is refused (exit 2): no disturbed step is measured again to wait for" \
	'[ $rc -eq 2 ] && grep -qx "netregress: --settle waits before a disturbed step is measured again, and --keep-disturbed measures none again: expected one of them" "$TMP/kds"' ||
	diag "$TMP/kds"
check "matrix --help lists --keep-disturbed" bash -c "'$NR' matrix --help | grep -q '^      --keep-disturbed '"

# Window flags: each step's line says (not steady) / (mixed levels), and the
# closing count matches the stored samples' flags (invariants: whether this
# machine's windows trend is not up to the test).
printf 'repetitions: 4\nduration: 2500ms\nwarmup: 300ms\nparams:\n  test: tcp_stream\n' >"$TMP/win.yaml"
timeout 120 "$NR" matrix --seed 3 --label win "$TMP/win.yaml" >/dev/null 2>"$TMP/win.log"
"$NR" export --label win >"$TMP/win.jsonl"
checkx "matrix: per-step window flags and the closing count agree with the stored samples" 'python3 - "$TMP/win.jsonl" "$TMP/win.log" <<'"'"'PY'"'"'
import json, re, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
log = open(sys.argv[2]).read()
keep = [r["metrics"] for r in rows if r["metrics"]["window.disturbed"]["value"] == 0]
ns = sum(m["window.not_steady"]["value"] == 1 for m in keep)
mx = sum(m.get("window.mixed", {"value": 0})["value"] == 1 for m in keep)
steps = re.findall(r"^step \d+/\d+ .*$", log, re.M)
# (in a steal spell every step can be disturbed: the flags are checked on
# the samples kept, whichever they are)
ok = len(rows) >= 4 and all("window.intervals" in m and m["window.intervals"]["value"] >= 20 for m in keep)
ok &= sum("(not steady)" in l for l in steps) == ns and sum("(mixed levels)" in l for l in steps) == mx
m = re.search(r"of the samples kept, (\d+) trended or moved to another level within their window \(not steady\) and (\d+) left a level", log)
ok &= (m is not None and (int(m.group(1)), int(m.group(2))) == (ns, mx)) if ns or mx else m is None
if not ok:
    print("# kept %d, not steady %d, mixed %d; steps saying so %d, %d; closing %s" % (
        len(keep), ns, mx, sum("(not steady)" in l for l in steps),
        sum("(mixed levels)" in l for l in steps), m.group(0) if m else None))
sys.exit(0 if ok else 1)
PY' || diag "$TMP/win.log" "^step|trended|disturbed"
exit 0
