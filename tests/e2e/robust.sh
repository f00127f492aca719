#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# Bad input and bad peers: clear errors, right exit codes, no hangs, and a
# server that outlives whatever its clients do.
. "$(dirname "$0")/lib.sh"
FAKE="python3 $(dirname "$0")/fakepeer.py"

# expect_usage DESC PATTERN ARGS...: exit 2, one line naming the bad value
expect_usage() {
	local d=$1 pat=$2
	shift 2
	timeout 10 "$NR" "$@" >"$TMP/out" 2>"$TMP/err"
	local rc=$?
	if [ $rc -eq 2 ] && grep -qF -- "$pat" "$TMP/err"; then
		ok "$d"
	else
		not_ok "$d (rc=$rc: $(head -c 300 "$TMP/err"))"
	fi
}
expect_usage "bad size names the value" "'8Q'" run tcp_stream --rcvbuf 8Q
expect_usage "bad duration names the value" "'10x'" run tcp_stream -l 10x
expect_usage "bad cpu list names the value" "'3-0'" run tcp_stream --cpus 3-0
expect_usage "unknown flag is named" "--frobnicate" run tcp_stream --frobnicate
expect_usage "unknown test is named" "'tcp_sream'" run tcp_sream
expect_usage "udp message below the sequence header" "invalid message size 4" run udp_stream -m 4
expect_usage "udp message above the ipv4 limit" "65507" run udp_stream -m 65508
expect_usage "streams out of range" "expected an integer from 1 to 1024" run tcp_stream -n 0
expect_usage "nodelay with udp refused" "nodelay applies to tcp" run udp_stream --nodelay
expect_usage "duration too short" "expected 100ms to 24h" run tcp_stream -l 10ms
expect_usage "unknown command" "unknown command 'fly'" fly
expect_usage "serve: bad port" "'70000'" serve --port 70000
# a label is printed as it is by labels, show and compare: no control
# character gets in, and the message quotes it escaped, on one line
expect_usage "run: a label with an escape sequence is refused, quoted escaped" \
	"invalid --label 'base\x1b[31m'" run tcp_stream --label $'base\e[31m'
check "the refusal itself has no escape character" sh -c '! grep -q "$(printf "\033")" "$1"' _ "$TMP/err"
expect_usage "matrix: a label with a newline is refused" "invalid --label 'v1\x0aFORGED'" \
	matrix scenarios/default.yaml --label $'v1\nFORGED'
expect_usage "bisect start: a --good label with a tab is refused" "invalid --good 'a\x09b'" \
	bisect start --good $'a\tb' --bad b

# A host that does not answer: connection refused, quickly, exit 3.
port=$(free_port)
start=$(date +%s)
timeout 20 "$NR" run tcp_stream -H 127.0.0.1 -p "$port" -l 1s 2>"$TMP/err"
rc=$?
checkx "refused connection: exit 3 and a clear message" '[ $rc -eq 3 ] && grep -q "connection refused" "$TMP/err"'
check "refused connection fails within seconds" [ $(($(date +%s) - start)) -le 3 ]

# A port in use.
start_server
timeout 10 "$NR" serve --bind 127.0.0.1 --port "$SRV_PORT" 2>"$TMP/err"
rc=$?
checkx "port in use: exit 3 naming the address" '[ $rc -eq 3 ] && grep -q "127.0.0.1:$SRV_PORT: Address already in use" "$TMP/err"'

# A peer that speaks another protocol version.
port=$(free_port)
$FAKE srv-version "$port" >"$TMP/fake.out" &
PIDS+=($!)
for _ in $(seq 50); do grep -q ready "$TMP/fake.out" 2>/dev/null && break; sleep 0.1; done
timeout 20 "$NR" run tcp_stream -H 127.0.0.1 -p "$port" -l 1s 2>"$TMP/err"
rc=$?
checkx "version mismatch: exit 3 naming both versions" '[ $rc -eq 3 ] && grep -q "version 3, expected 2" "$TMP/err"'

# A server that accepts and never answers: the control timeout ends it.
port=$(free_port)
$FAKE srv-silent "$port" >"$TMP/fake2.out" &
PIDS+=($!)
for _ in $(seq 50); do grep -q ready "$TMP/fake2.out" 2>/dev/null && break; sleep 0.1; done
start=$(date +%s)
timeout 20 "$NR" run tcp_stream -H 127.0.0.1 -p "$port" --control-timeout 2s -l 1s 2>"$TMP/err"
rc=$?
checkx "silent server: exit 3 after the control timeout, not a hang" '[ $rc -eq 3 ] && [ $(($(date +%s) - start)) -le 5 ] && grep -q "timed out" "$TMP/err"'

# Limits the server enforces.
start_server --max-streams 2 --max-duration 2s
timeout 20 "$NR" run tcp_stream -H 127.0.0.1 -p "$SRV_PORT" -n 3 -l 1s 2>"$TMP/err"
rc=$?
checkx "max-streams refusal names the limit" '[ $rc -eq 3 ] && grep -q "exceed this server'\''s --max-streams 2" "$TMP/err"'
timeout 20 "$NR" run tcp_stream -H 127.0.0.1 -p "$SRV_PORT" -l 5s --warmup 0 2>"$TMP/err"
rc=$?
checkx "max-duration refusal names the limit" '[ $rc -eq 3 ] && grep -q "max-duration" "$TMP/err"'

# Garbage of every kind; the server stays up and serves the next client.
for mode in garbage huge badjson badversion wrongorder badsetup halfframe; do
	timeout 10 $FAKE "$mode" "$SRV_PORT" >/dev/null 2>&1
done
sleep 0.3
check "server alive after garbage, huge, invalid and out-of-order frames" alive "$SRV_PID"
timeout 30 "$NR" run tcp_stream -H 127.0.0.1 -p "$SRV_PORT" "${RUN_SHORT[@]}" --json >"$TMP/after.json"
check "server serves a real client after the garbage" jtrue "$TMP/after.json" 'v("throughput.gbps") > 0'
check "server logged why it dropped the bad sessions" grep -q "exceeds the .* byte cap" "$TMP/server.log"

# What a client sends reaches the server's log and its refusals escaped:
# a newline in a message type cannot forge a log line, an escape
# sequence in a key cannot drive a terminal.
timeout 20 $FAKE forged "$SRV_PORT" >"$TMP/forged.out" 2>&1
sleep 0.3
check "a message type with a newline is logged escaped" grep -qF "client sent 'stop\x0aFORGED by a client' where 'hello' was expected" "$TMP/server.log"
checkx "and forges no line of the log" '! grep -q "^FORGED" "$TMP/server.log"'
check "a setup key with an escape sequence is refused escaped" \
	jtrue "$TMP/forged.out" 'd["type"] == "error" and "\\x1b[2Jstreams" in d["message"] and "\x1b" not in d["message"]'

# A collect.overhead that is not a boolean is refused by name.
timeout 20 $FAKE badcollect "$SRV_PORT" >"$TMP/badcollect.out" 2>&1
check "setup with a non-boolean collect.overhead gets an error naming overhead" \
	jtrue "$TMP/badcollect.out" 'd["type"] == "error" and "overhead" in d["message"]'
timeout 20 $FAKE badspeed "$SRV_PORT" >"$TMP/badspeed.out" 2>&1
check "setup with a non-boolean collect.speed gets an error naming speed" \
	jtrue "$TMP/badspeed.out" 'd["type"] == "error" and "speed" in d["message"]'

# A client that goes away after its setup, before its data connections:
# the session ends at once (it held a --max-clients slot for the step's
# 10 s timeout before).
n0=$(grep -c "client went away" "$TMP/server.log")
timeout 20 $FAKE vanish "$SRV_PORT" >"$TMP/vanish.out" 2>&1
for _ in $(seq 20); do
	[ "$(grep -c "client went away" "$TMP/server.log")" -gt "$n0" ] && break
	sleep 0.1
done
checkx "a client gone after its setup ends its session within 2 s" \
	'jtrue "$TMP/vanish.out" '"'"'d["type"] == "setup_ok" and d["data_port"] > 0'"'"' && [ "$(grep -c "client went away" "$TMP/server.log")" -gt "$n0" ]'

# A data connection from an address other than the control peer is dropped.
if ip addr show lo | grep -q "127.0.0.1/8"; then
	timeout 20 $FAKE foreign "$SRV_PORT" >"$TMP/foreign.out" 2>&1
	check "data connection from another address is refused" grep -q "only 0 of 1 data connections arrived" "$TMP/foreign.out"
	check "server logged the foreign data connection" grep -q "not the control peer" "$TMP/server.log"
fi

# Several clients at once, then one after another.
timeout 60 "$NR" run tcp_stream -H 127.0.0.1 -p "$SRV_PORT" "${RUN_SHORT[@]}" --json >"$TMP/c1.json" &
c1=$!
timeout 60 "$NR" run udp_stream -H 127.0.0.1 -p "$SRV_PORT" "${RUN_SHORT[@]}" --json >"$TMP/c2.json" &
c2=$!
wait $c1; r1=$?
wait $c2; r2=$?
checkx "two clients at once both succeed" '[ $r1 -eq 0 ] && [ $r2 -eq 0 ] && jtrue "$TMP/c1.json" '\''v("throughput.gbps") > 0'\'' && jtrue "$TMP/c2.json" '\''v("throughput.gbps") > 0'\'''

# A client killed mid-test leaves the server serving the next one.
"$NR" run tcp_stream -H 127.0.0.1 -p "$SRV_PORT" -l 2s --warmup 0 >/dev/null 2>&1 &
victim=$!
sleep 0.7
kill -9 $victim
wait $victim 2>/dev/null
timeout 30 "$NR" run tcp_stream -H 127.0.0.1 -p "$SRV_PORT" "${RUN_SHORT[@]}" --json >"$TMP/next.json"
check "after a client is killed mid-test the server serves the next client" \
	jtrue "$TMP/next.json" 'v("throughput.gbps") > 0'
check "server still alive" alive "$SRV_PID"

# Busy: --max-clients 1 refuses a second client at once with a clear reason.
start_server --max-clients 1
busy_port=$SRV_PORT
"$NR" run tcp_stream -H 127.0.0.1 -p "$busy_port" -l 2s --warmup 0 >/dev/null 2>&1 &
holder=$!
# (the server answers each client in a child process: wait for the
# holder's, up to 5 s, rather than a fixed sleep a loaded host outlasts)
for _ in $(seq 50); do pgrep -P "$SRV_PID" >/dev/null && break; sleep 0.1; done
timeout 10 "$NR" run tcp_stream -H 127.0.0.1 -p "$busy_port" -l 1s 2>"$TMP/err"
rc=$?
checkx "max-clients: the second client is told the server is busy" '[ $rc -eq 3 ] && grep -q "server busy" "$TMP/err"'
wait $holder

# A server killed mid-test: the client fails within seconds, clearly.
start_server
victim=$SRV_PID
start=$(date +%s)
timeout 30 "$NR" run tcp_stream -H 127.0.0.1 -p "$SRV_PORT" -l 10s --warmup 0 2>"$TMP/err" &
cl=$!
sleep 1
pkill -9 -P "$victim" 2>/dev/null  # the session child, started by our server
{ kill -9 "$victim"; wait "$victim"; } 2>/dev/null
wait $cl
rc=$?
check "server killed mid-test: client exits 3" [ $rc -eq 3 ]
check "server killed mid-test: within seconds, not at the end of the window" [ $(($(date +%s) - start)) -le 5 ]
check "server killed mid-test: the message says what happened" grep -qE "closed the control connection|data connection of flow" "$TMP/err"
exit 0
