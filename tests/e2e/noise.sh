#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# End to end: interference from foreign CPU load is detected, a rate that
# changes within the window is flagged not steady.
. "$(dirname "$0")/lib.sh"

# hog N: one busy loop per CPU, pinned; their PIDs in HOGS
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

timeout 60 "$NR" run tcp_stream -l 1s --warmup 300ms --json --no-store >"$TMP/quiet.json"
# the flag follows the measurement (the machine may not be quiet: assert
# the invariant, and the hog's effect against this run below)
check "disturbed is flagged exactly when foreign CPU is over 10% of the machine" \
	jtrue "$TMP/quiet.json" 'v("window.disturbed") == (1 if v("cpu.foreign_busy_pct") > 10 else 0) and "cpu.foreign_s" in d["metrics"]'

hog
timeout 60 "$NR" run tcp_stream -l 1s --warmup 300ms --json --no-store >"$TMP/busy.json"
unhog
check "busy loops on the test's CPUs flag the run disturbed" \
	jtrue "$TMP/busy.json" 'v("window.disturbed") == 1 and v("cpu.foreign_busy_pct") > 10'
check "the busy loops show as foreign CPU beyond what the other run saw" python3 -c '
import json, sys
q, b = (json.load(open(f))["metrics"]["cpu.foreign_busy_pct"]["value"] for f in sys.argv[1:])
sys.exit(0 if b > q + 20 else 1)' "$TMP/quiet.json" "$TMP/busy.json"

# The hogs start half-way through the window: the rate falls, not steady.
timeout 60 "$NR" run tcp_stream -l 4s --warmup 300ms --json --no-store >"$TMP/trend.json" &
r=$!
sleep 2.3
hog
wait $r
unhog
check "a rate throttled half-way through the window is flagged not steady" \
	jtrue "$TMP/trend.json" 'v("window.not_steady") == 1 and v("window.intervals") >= 30'
check "not steady is flagged exactly when the trend is significant and strong" \
	jtrue "$TMP/quiet.json" 'v("window.not_steady") == (1 if v("window.trend_p") < 0.01 and abs(v("window.trend_tau")) > 0.25 else 0)'

# Exact accounting: the processes' CPU against the machine's busy time.
check "process CPU of both ends is within the machine's busy time" \
	jtrue "$TMP/quiet.json" 'v("cpu.client.user_s") + v("cpu.client.sys_s") + v("cpu.server.user_s") + v("cpu.server.sys_s") <= v("cpu.client.busy_pct") / 100 * int(d["env"]["client"]["online_cpus"]) * v("window.client_s") * 1.1'
exit 0
