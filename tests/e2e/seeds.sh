#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# run.sh: plain tree only
# End to end: bench/seeds.sh in its quick form runs through, prints its
# table with a row per seed scenario, refuses bad settings, and leaves
# nothing behind (its namespace, the sysctl it lowers), also when it is
# ended in the middle. Its verdicts are a benchmark and are not checked.
. "$(dirname "$0")/lib.sh"
SEEDS=$(cd "$(dirname "$0")/../.." && pwd)/bench/seeds.sh
RMEM=/proc/sys/net/core/rmem_max

if [ "$(id -u)" -ne 0 ]; then
	echo "1..0 # SKIP needs root (namespaces, tc, net.core.rmem_max)"
	exit 0
fi
echo "1..8"
export NETREGRESS=$NR
rmem0=$(cat "$RMEM")

# our namespaces: seeds-<pid> of bench/seeds.sh
seeds_ns() { ip netns list | grep -c '^seeds-'; }

for bad in "REPS=7" "QUICK=2" "ONLY=nope"; do
	env "$bad" bash "$SEEDS" >"$TMP/bad.out" 2>"$TMP/bad.err"
	rc=$?
	checkx "$bad is refused with exit 2 and a message naming it" \
		"[ $rc -eq 2 ] && grep -q '${bad%%=*}' '$TMP/bad.err'" || diag "$TMP/bad.err"
done

start=$(date +%s)
QUICK=1 timeout -k 5 120 bash "$SEEDS" >"$TMP/out" 2>"$TMP/err"
rc=$?
echo "# QUICK=1 took $(($(date +%s) - start)) s"
check "QUICK=1 exits 0" [ "$rc" -eq 0 ] || diag "$TMP/err" 'seeds.sh|error|fail'
checkx "the table has its header and one row per seed scenario" \
	"grep -q '^scenario .*| first explaining row' '$TMP/out' &&
	 [ \$(grep -cE '^(tcp-small-rcvbuf|udp-loopback-defer-free|lmbench-tcp-bw|udp-matrix) +\|' '$TMP/out') -eq 4 ]" ||
	diag "$TMP/out"
checkx "the summary line counts the four rows" \
	"grep -Eq '^detected [0-4]/4 \(rank test\), [0-4]/4 \(\.paired\), explained [0-4]/4, A/A calls [0-4]\$' '$TMP/out'" || diag "$TMP/out"
checkx "nothing left behind: no namespace of ours, net.core.rmem_max as before" \
	"[ \$(seeds_ns) -eq 0 ] && [ \"\$(cat $RMEM)\" = '$rmem0' ]" ||
	{ ip netns list | sed 's/^/# /'; echo "# rmem_max $(cat $RMEM), was $rmem0"; }

# ended while B runs with the sysctl lowered: it is put back at once
ONLY=rcvbuf QUICK=1 bash "$SEEDS" >"$TMP/t.out" 2>"$TMP/t.err" &
pid=$!
PIDS+=("$pid")
for _ in $(seq 600); do
	[ "$(cat "$RMEM")" != "$rmem0" ] && break
	kill -0 "$pid" 2>/dev/null || break
	sleep 0.05
done
lowered=$(cat "$RMEM")
kill -TERM "$pid" 2>/dev/null
wait "$pid"
rc=$?
checkx "TERM during B (rmem_max $lowered): exit 143, rmem_max back to $rmem0, its namespace gone" \
	"[ '$lowered' != '$rmem0' ] && [ $rc -eq 143 ] && [ \"\$(cat $RMEM)\" = '$rmem0' ] && [ \$(seeds_ns) -eq 0 ]" ||
	diag "$TMP/t.err"
