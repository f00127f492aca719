#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# End to end in namespaces: `netregress topo` builds, shows and removes veth topologies, leaves nothing on failure or signal, and its TBF and CPU-quota slowdowns have the size set.
. "$(dirname "$0")/lib.sh"

if [ "$(id -u)" -ne 0 ] || ! command -v ip >/dev/null || ! command -v tc >/dev/null ||
	! ip netns list >/dev/null 2>&1; then
	echo "ok 1 # SKIP needs root, network namespaces and iproute2 (ip, tc)"
	exit 0
fi

# Other runs of this test (or of netregress) may share the machine: this
# one only looks at and removes topologies whose names carry the pid of a
# `netregress topo` it started (MINE), never all of them.
MINE=()
# nrtopo ARGS...: `netregress topo ARGS` (output as redirected), its pid
# recorded in MINE and LAST, its exit status returned
nrtopo() {
	"$NR" topo "$@" &
	LAST=$!
	MINE+=("$LAST")
	wait "$LAST"
}
# bg_topo ARGS...: the same in the background (a held topology)
bg_topo() {
	"$NR" topo "$@" &
	LAST=$!
	MINE+=("$LAST")
	PIDS+=("$LAST")
}
# At exit: held topologies go with their processes (lib's cleanup ends
# them), anything else of ours with `topo down --owner`.
topo_cleanup() {
	local p
	cleanup
	for p in "${MINE[@]}"; do
		"$NR" topo down --owner "$p" >/dev/null 2>&1
	done
	# the pid-used-again check's own namespace and record, if it failed
	ip netns del "nr-$$-900-c" 2>/dev/null
	rm -f "/run/netregress/topo-$$-900"
}
trap topo_cleanup EXIT

# Our state: namespaces, cgroups and owner records named after our
# processes, and the root namespace's links and qdiscs (a veth end or qdisc
# there would be a leak).
ours() {
	local pids
	[ ${#MINE[@]} -gt 0 ] || return 0
	pids=$(IFS='|'; echo "${MINE[*]}")
	{
		ls /run/netns /run/netregress 2>/dev/null
		find /sys/fs/cgroup -maxdepth 2 -name 'nr-*' -type d -printf '%f\n' 2>/dev/null
	} | grep -E "^nr-($pids)-[0-9]+-[cs]\$|^topo-($pids)-[0-9]+\$"
}
root_counts() { echo "links=$(ip -o link show | wc -l) qdiscs=$(tc qdisc show | wc -l)"; }
BEFORE_COUNTS=$(root_counts)
clean() {
	local n
	n=$(ours)
	[ -z "$n" ] || { echo "# left behind:" $n; return 1; }
	[ "$(root_counts)" = "$BEFORE_COUNTS" ] ||
		{ echo "# root namespace changed: $(root_counts) vs $BEFORE_COUNTS"; return 1; }
}

# nsping NS ADDR: one ICMP echo from inside NS (raw socket; ping may be
# missing), 1 s to answer.
nsping() {
	ip netns exec "$1" python3 - "$2" <<'PY'
import os, select, socket, struct, sys, time
addr = sys.argv[1]
v6 = ":" in addr
if v6:
    s = socket.socket(socket.AF_INET6, socket.SOCK_RAW, socket.IPPROTO_ICMPV6)
    req, rep = 128, 129
else:
    s = socket.socket(socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_ICMP)
    req, rep = 8, 0
ident = os.getpid() & 0xFFFF
payload = b"netregress-topo"
def csum(b):
    if len(b) % 2:
        b += b"\0"
    t = sum(struct.unpack("!%dH" % (len(b) // 2), b))
    t = (t >> 16) + (t & 0xFFFF)
    t += t >> 16
    return ~t & 0xFFFF
c = 0 if v6 else csum(struct.pack("!BBHHH", req, 0, 0, ident, 1) + payload)
s.sendto(struct.pack("!BBHHH", req, 0, c, ident, 1) + payload, (addr, 0))
end = time.time() + 1
while time.time() < end:
    r, _, _ = select.select([s], [], [], max(0, end - time.time()))
    if not r:
        break
    data, src = s.recvfrom(4096)
    if not v6:
        data = data[(data[0] & 0xF) * 4:]
    t, _, _, i, _ = struct.unpack("!BBHHH", data[:8])
    if t == rep and i == ident and src[0] == addr:
        sys.exit(0)
sys.exit(1)
PY
}

# offloads NS DEV: "gro=on gso=off tso=on" through the ethtool ioctl
offloads() {
	ip netns exec "$1" python3 - "$2" <<'PY'
import array, fcntl, socket, struct, sys
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
out = []
for name, cmd in (("gro", 0x2B), ("gso", 0x23), ("tso", 0x1E)):  # ETHTOOL_G*
    ev = array.array("I", [cmd, 0])
    ifr = struct.pack("16sP", sys.argv[1].encode(), ev.buffer_info()[0]).ljust(40, b"\0")
    fcntl.ioctl(s, 0x8946, ifr)  # SIOCETHTOOL
    out.append("%s=%s" % (name, "on" if ev[1] else "off"))
print(" ".join(out))
PY
}

# up OUTFILE [topo up options]: bring a topology up, set C S CG (client
# and server namespaces, the cgroup or "")
up() {
	local f=$1
	shift
	nrtopo up "$@" >"$f" 2>"$f.err" || return 1
	C=$(awk '$1 == "client" { print $2 }' "$f")
	S=$(awk '$1 == "server" { print $2 }' "$f")
	CG=$(awk '$1 == "cgroup" { print $2 }' "$f")
	[ -n "$C" ] && [ -n "$S" ]
}

# ns_server NS [CGROUP] [BOOT_ID_FILE]: netregress serve on 198.18.0.2 inside NS (and in
# CGROUP); sets SRV_PID, SRV_PORT
ns_server() {
	local pf="$TMP/port.$RANDOM" cg=${2:-}
	if [ -n "${3:-}" ]; then
		# a boot_id of its own, bound over in a mount namespace of its own
		ip netns exec "$1" unshare -m --propagation private sh -c \
			'mount --bind "$1" /proc/sys/kernel/random/boot_id && shift && exec "$@"' sh "$3" \
			"$NR" serve --bind 198.18.0.2 --port 0 --ready-fd 3 -q \
			3>"$pf" 2>>"$TMP/server.log" &
	elif [ -n "$cg" ]; then
		sh -c 'echo $$ >"$1/cgroup.procs" && shift && exec "$@"' sh "$cg" \
			ip netns exec "$1" "$NR" serve --bind 198.18.0.2 --port 0 --ready-fd 3 -q \
			3>"$pf" 2>>"$TMP/server.log" &
	else
		ip netns exec "$1" "$NR" serve --bind 198.18.0.2 --port 0 --ready-fd 3 -q \
			3>"$pf" 2>>"$TMP/server.log" &
	fi
	SRV_PID=$!
	PIDS+=("$SRV_PID")
	wait_file "$pf"
	SRV_PORT=$(head -n1 "$pf")
	[ -n "$SRV_PORT" ]
}

# signal_and_wait PID SIG: its exit status, or 124 when it had to be
# killed after 5 s
signal_and_wait() {
	kill -"$2" "$1" 2>/dev/null
	for _ in $(seq 100); do
		alive "$1" || break
		sleep 0.05
	done
	if alive "$1"; then
		kill -KILL "$1"
		wait "$1" 2>/dev/null
		return 124
	fi
	wait "$1"
}

stop_server() {
	kill "$SRV_PID" 2>/dev/null
	wait "$SRV_PID" 2>/dev/null
}

# measure NS OUT [run options]: a run from the client namespace
measure() {
	local ns=$1 out=$2
	shift 2
	timeout 60 ip netns exec "$ns" "$NR" run -H 198.18.0.2 -p "$SRV_PORT" --no-store --json "$@" \
		>"$out" 2>"$out.err"
}

# --- usage ---------------------------------------------------------------
"$NR" topo --help >"$TMP/help" 2>&1
rc=$?
checkx "topo --help exits 0 and names up, down and show" \
	'[ $rc -eq 0 ] && grep -q "topo up" "$TMP/help" && grep -q "topo down" "$TMP/help" && grep -q "topo show" "$TMP/help"'
nrtopo up --mtu 70000 >/dev/null 2>"$TMP/e1"
rc=$?
checkx "topo up --mtu 70000 is a usage error naming the value, nothing made" \
	'[ $rc -eq 2 ] && grep -q "invalid --mtu.*70000" "$TMP/e1" && clean'
nrtopo up --tbf 200mbps >/dev/null 2>"$TMP/e2"
rc=$?
checkx "topo up --tbf 200mbps is a usage error naming the value" \
	'[ $rc -eq 2 ] && grep -q "invalid --tbf.*200mbps" "$TMP/e2"'
nrtopo up --gro maybe >/dev/null 2>"$TMP/e3"
rc=$?
checkx "topo up --gro maybe is a usage error" '[ $rc -eq 2 ] && grep -q "invalid --gro .maybe." "$TMP/e3"'
"$NR" topo frobnicate >/dev/null 2>&1
check "unknown topo command is a usage error" [ $? -eq 2 ]
"$NR" topo show --all >/dev/null 2>&1
check "topo show takes no --all" [ $? -eq 2 ]
"$NR" topo down --mtu 9000 >/dev/null 2>&1
check "topo down takes no topology option" [ $? -eq 2 ]
"$NR" topo down --owner 0 >/dev/null 2>&1
check "topo down --owner 0 is a usage error" [ $? -eq 2 ]

# --- up, inspect, down ---------------------------------------------------
up "$TMP/up1" --mtu 9000 --tbf 200mbit
rc=$?
UP1=$LAST
checkx "topo up --mtu 9000 --tbf 200mbit prints both sides, named after its pid" \
	'[ $rc -eq 0 ] && [ "$C" = "nr-$UP1-0-c" ] && grep -qE "^client nr-[0-9]+-[0-9]+-c nr-veth-c 198\.18\.0\.1 2001:2::1$" "$TMP/up1" && grep -qE "^server nr-[0-9]+-[0-9]+-s nr-veth-s 198\.18\.0\.2 2001:2::2$" "$TMP/up1" && ! grep -q "^cgroup" "$TMP/up1"'
checkx "both namespaces are in ip netns" 'ip netns list | grep -q "^$C\b" && ip netns list | grep -q "^$S\b"'
"$NR" topo show >"$TMP/show1"
checkx "topo show lists them, owner ended" \
	'grep -qE "^netns $C $UP1 ended /run/netns/$C$" "$TMP/show1" && grep -qE "^netns $S $UP1 ended " "$TMP/show1"'
checkx "nothing in the root namespace: same links and qdiscs, no nr-veth link" \
	'[ "$(root_counts)" = "$BEFORE_COUNTS" ] && ! ip -o link show | grep -q " nr-veth"'
checkx "mtu 9000 on both ends" \
	'ip -n "$C" -o link show dev nr-veth-c | grep -q " mtu 9000 " && ip -n "$S" -o link show dev nr-veth-s | grep -q " mtu 9000 "'
checkx "tbf 200Mbit on both egresses, burst 100000 B, 50 ms" \
	'tc -n "$C" qdisc show dev nr-veth-c | grep -qE "qdisc tbf .*rate 200Mbit burst 100000b lat 50ms" && tc -n "$S" qdisc show dev nr-veth-s | grep -qE "qdisc tbf .*rate 200Mbit burst 100000b lat 50ms"'
checkx "addresses from the benchmarking ranges, lo up" \
	'ip -n "$C" -o addr show dev nr-veth-c | grep -q "inet 198.18.0.1/24" && ip -n "$S" -o addr show dev nr-veth-s | grep -q "inet6 2001:2::2/64" && ip -n "$S" -o link show dev lo | grep -q "UP"'
check "client reaches the server over IPv4" nsping "$C" 198.18.0.2
check "client reaches the server over IPv6" nsping "$C" 2001:2::2
check "server reaches the client over IPv4" nsping "$S" 198.18.0.1
nrtopo down --owner "$UP1" >"$TMP/down1" 2>&1
rc=$?
checkx "topo down removes both namespaces and says so" \
	'[ $rc -eq 0 ] && grep -q "^removed netns $C$" "$TMP/down1" && grep -q "^removed netns $S$" "$TMP/down1"'
check "after topo down: namespaces, cgroups, root links and qdiscs as before" clean
nrtopo down --owner "$UP1" >"$TMP/down2" 2>&1
rc=$?
checkx "a second topo down --owner finds nothing to remove" '[ $rc -eq 0 ] && [ ! -s "$TMP/down2" ]'

# --- offloads and the cgroup ---------------------------------------------
up "$TMP/up2" --gro on --gso off --tso off --cpu-quota 30
UP2=$LAST
checkx "offloads as set on both ends" \
	'[ "$(offloads "$C" nr-veth-c)" = "gro=on gso=off tso=off" ] && [ "$(offloads "$S" nr-veth-s)" = "gro=on gso=off tso=off" ]'
checkx "cgroup for the server with 30% of a 100 ms period" \
	'[ -d "$CG" ] && case "$CG" in */nr-*-s) true ;; *) false ;; esac && { [ "$(cat "$CG/cpu.max" 2>/dev/null)" = "30000 100000" ] || [ "$(cat "$CG/cpu.cfs_quota_us" 2>/dev/null) $(cat "$CG/cpu.cfs_period_us" 2>/dev/null)" = "30000 100000" ]; }'
"$NR" topo show >"$TMP/show2"
checkx "topo show lists the cgroup" 'grep -qE "^cgroup nr-$UP2-0-s $UP2 ended $CG$" "$TMP/show2"'
up "$TMP/up3" --gro off --tso on
UP3=$LAST
checkx "the opposite offloads on a second topology at the same time" \
	'[ "$(offloads "$C" nr-veth-c)" = "gro=off gso=on tso=on" ] && [ "$(wc -l <"$TMP/up3")" -eq 2 ]'
nrtopo down --owner "$UP2" >/dev/null 2>&1
nrtopo down --owner "$UP3" >/dev/null 2>&1
check "topo down removes both topologies and the cgroup" clean

# --- a failing step leaves nothing ---------------------------------------
for step in owner netns-client netns-server veth lo mtu offloads addr up tbf cgroup quota; do
	NETREGRESS_TOPO_FAIL_AT=$step nrtopo up --mtu 9000 --gro off \
		--tbf 100mbit --cpu-quota 50 >"$TMP/f.out" 2>"$TMP/f.err"
	rc=$?
	checkx "failure at step $step: exit 3, named, nothing left behind" \
		'[ $rc -eq 3 ] && grep -q "injected failure at step $step" "$TMP/f.err" && [ ! -s "$TMP/f.out" ] && clean'
done

# --- signals -------------------------------------------------------------
bg_topo up --hold --tbf 100mbit --cpu-quota 50 >"$TMP/hold" 2>"$TMP/hold.err"
HOLD=$LAST
for _ in $(seq 100); do
	grep -q "^cgroup" "$TMP/hold" 2>/dev/null && break
	sleep 0.05
done
"$NR" topo show >"$TMP/show3"
checkx "topo up --hold: up, its owner shown running" \
	'grep -q "^server" "$TMP/hold" && grep -qE "^netns nr-$HOLD-0-s $HOLD running" "$TMP/show3" && grep -qE "^cgroup nr-$HOLD-0-s $HOLD running" "$TMP/show3"'
nrtopo down --owner "$HOLD" >/dev/null 2>&1
checkx "topo down leaves a running owner's topology alone" \
	'[ -e "/run/netns/nr-$HOLD-0-c" ] && [ -e "/run/netns/nr-$HOLD-0-s" ]'
signal_and_wait "$HOLD" INT
rc=$?
checkx "SIGINT: --hold exits 0 and removes everything" '[ $rc -eq 0 ] && clean'

# SIGINT or SIGTERM at any moment of the set-up (it takes tens of ms).
# Without job control bash starts background commands with SIGINT ignored;
# with it (set -m) a SIGINT that comes before netregress installs its
# handler ends it the default way, as at a terminal.
hung=0
set -m
for i in $(seq 12); do
	bg_topo up --hold --mtu 9000 --gro off --tbf 100mbit --cpu-quota 50 >/dev/null 2>&1
	p=$LAST
	sleep "0.0$((i * 7 % 10))$((i % 10))"
	if [ $((i % 2)) -eq 0 ]; then sig=INT; else sig=TERM; fi
	signal_and_wait "$p" $sig
	[ $? -eq 124 ] && hung=$((hung + 1))
done 2>/dev/null
set +m
checkx "SIGINT or SIGTERM at 12 moments of the set-up: all exit, nothing left behind" \
	'[ $hung -eq 0 ] && clean'

bg_topo up --hold --cpu-quota 50 >"$TMP/k" 2>/dev/null
p=$LAST
for _ in $(seq 100); do
	grep -q "^cgroup" "$TMP/k" 2>/dev/null && break
	sleep 0.05
done
kill -KILL "$p"
wait "$p" 2>/dev/null
"$NR" topo show >"$TMP/show4"
checkx "SIGKILL leaves the topology, shown as ended, and its owner record" \
	'grep -qE "^netns nr-$p-0-c $p ended" "$TMP/show4" && grep -qE "^cgroup nr-$p-0-s $p ended" "$TMP/show4" && grep -q "^# pid $p started " "/run/netregress/topo-$p-0"'
nrtopo down --owner "$p" >"$TMP/down4" 2>&1
checkx "topo down after a crash removes it, its record too" \
	'grep -q "^removed cgroup nr-$p-0-s$" "$TMP/down4" && grep -q "^removed netns nr-$p-0-c$" "$TMP/down4" && clean'

# A crashed maker's pid given to an unrelated process (here this shell):
# the owner record's start tells them apart. The names and record are this
# test's own, made by hand as a crash would leave them.
me=$$
start=$(sed 's/.*) //' "/proc/$me/stat" | awk '{ print $20 }')
ip netns add "nr-$me-900-c"
printf '# netregress pid %d made nr-%d-900-c and nr-%d-900-s\n# pid %d started %s clock ticks after boot\n' \
	"$me" "$me" "$me" "$me" "$start" >"/run/netregress/topo-$me-900"
"$NR" topo show >"$TMP/show5"
"$NR" topo down --owner "$me" >"$TMP/down5" 2>&1
checkx "names whose record has their pid's start are its: shown running, kept" \
	'grep -qE "^netns nr-$me-900-c $me running" "$TMP/show5" && [ ! -s "$TMP/down5" ] && [ -e "/run/netns/nr-$me-900-c" ]'
printf '# pid %d started %s clock ticks after boot\n' "$me" "$((start - 1))" >"/run/netregress/topo-$me-900"
"$NR" topo show >"$TMP/show5"
"$NR" topo down --owner "$me" >"$TMP/down5" 2>&1
checkx "names whose record has another start are a crashed maker's: shown ended, removed with the record" \
	'grep -qE "^netns nr-$me-900-c $me ended" "$TMP/show5" && grep -q "^removed netns nr-$me-900-c$" "$TMP/down5" && [ ! -e "/run/netns/nr-$me-900-c" ] && [ ! -e "/run/netregress/topo-$me-900" ]'

# Measurements run in a held topology: its owner is alive, so a
# `netregress topo down` elsewhere on the machine leaves it alone.
# hold_up OUTFILE [topo up options]: sets C S CG HOLD
hold_up() {
	local f=$1 want=server
	shift
	case " $* " in *" --cpu-quota "*) want=cgroup ;; esac
	bg_topo up --hold "$@" >"$f" 2>"$f.err"
	HOLD=$LAST
	for _ in $(seq 200); do
		grep -q "^$want " "$f" 2>/dev/null && break
		alive "$HOLD" || break
		sleep 0.05
	done
	C=$(awk '$1 == "client" { print $2 }' "$f")
	S=$(awk '$1 == "server" { print $2 }' "$f")
	CG=$(awk '$1 == "cgroup" { print $2 }' "$f")
	[ -n "$S" ] && { [ "$want" = server ] || [ -n "$CG" ]; } || { sed 's/^/# /' "$f.err"; false; }
}
hold_down() { signal_and_wait "$HOLD" INT; }
# measured OUT: the run's document is there, else its errors as comments
measured() { [ -s "$1" ] || { sed 's/^/# /' "$1.err" "$TMP/server.log" 2>/dev/null | tail -5; false; }; }

# --- TBF: the shaped rate is the rate set --------------------------------
# TBF counts frame bytes (IP packet + 14 B Ethernet header), the receiver
# counts TCP payload: MSS/(MTU+14) with timestamps, MSS = MTU - 52. At
# MTU 9000: 8948/9014 = 0.9927; at 1500: 1448/1514 = 0.9564. Measured here
# (2 s windows after 1 s warm-up): 0.1983-0.1991 Gbps against 0.19854
# expected at 200mbit/9000, 0.1908-0.1916 against 0.19128 at
# 200mbit/1500, also with three busy loops on the two vCPUs: within 0.3%.
# TBF never sends faster than its rate (beyond one burst, which the
# warm-up spends), so above the expected goodput by more than 1% is a
# failure on any run. Below it is what a stalled flow gives: with other
# benchmarks loading this VM (load average 5), 2 of 24 runs read 10-12%
# low, with burst 4 ms or 20 ms alike (the receiver was not scheduled and
# the window closed; no retransmits). So: up to three runs, the first
# within 4% below passes.
tbf_case() {
	local mtu=$1 rate=$2 want=$3 out="$TMP/tbf.$1.json" ret=1 got
	hold_up "$TMP/tbf$1" --mtu "$mtu" --tbf "$rate" || return 1
	for attempt in 1 2 3; do
		ns_server "$S" || break
		measure "$C" "$out" tcp_stream -l 2s --warmup 1s
		stop_server
		measured "$out" || break
		got=$(jpy "$out" 'v("throughput.gbps")')
		echo "# tbf $rate mtu $mtu, run $attempt: $got Gbps, expected $want"
		jtrue "$out" "v('throughput.gbps') <= $want * 1.01" || { ret=1; break; }
		if jtrue "$out" "v('throughput.gbps') >= $want * 0.96"; then
			ret=0
			break
		fi
	done
	hold_down || ret=1
	return $ret
}
check "tbf 200mbit at mtu 9000: tcp goodput 0.2 * 8948/9014 Gbps, -4% to +1%" \
	tbf_case 9000 200mbit "(0.2 * 8948 / 9014)"
check "tbf 100mbit at mtu 1500: tcp goodput 0.1 * 1448/1514 Gbps, -4% to +1%" \
	tbf_case 1500 100mbit "(0.1 * 1448 / 1514)"
check "each end of the run recorded its veth end: mtu 9000, tbf qdisc" \
	jtrue "$TMP/tbf.9000.json" 'all(d["sysenv"][s]["entries"].get("if.nr-veth-%s.%s" % (s[0], k)) == v for s in ("client", "server") for k, v in (("mtu", "9000"), ("qdisc", "tbf"), ("driver", "veth")))'
check "between namespaces each end probes its own cpus' speed: server.host.speed.cpu<N>, host.speed.server" \
	jtrue "$TMP/tbf.9000.json" 'any(re.match(r"^server\.host\.speed\.cpu[0-9]+$", k) for k in d["metrics"]) and any(re.match(r"^host\.speed\.cpu[0-9]+$", k) for k in d["metrics"]) and v("host.speed.server") > 0 and v("host.speed.client") > 0'
check "after the tbf runs nothing is left" clean

# --- --overhead between namespaces: each end switches its own collectors --
# Not on one host, so the server runs its own perf counters and profiler
# and keeps to the phases it announces in its ticks.
overhead_case() {
	hold_up "$TMP/oh" || return 1
	ns_server "$S" && measure "$C" "$TMP/oh.json" tcp_stream -l 2s --warmup 300ms --profile --profile-min 0.5 --overhead
	stop_server
	hold_down
	measured "$TMP/oh.json"
}
overhead_case
check "--overhead between namespaces: both ends paused perf and the profiler about half the window" \
	jtrue "$TMP/oh.json" 'all(re.search(r"in (4\d|5\d|6\d)\.\d% of the window", d["env"][s]["collect.%s.paused" % c]) for s in ("client", "server") for c in ("perf", "profile"))'
check "--profile-min 0.5 between namespaces: the server keeps its rows to it too, children from its chains" \
	jtrue "$TMP/oh.json" 'all(v(p + "profile.min_pct") == 0.5 and any(k.startswith(p + "profile.children.") for k in m) and all(v(k) >= 0.5 - 1e-9 for k in m if k.startswith((p + "profile.self.", p + "profile.children."))) for p in ("", "server."))'
check "--overhead between namespaces: at least 3 on/off pairs" \
	jtrue "$TMP/oh.json" 'v("overhead.pairs") >= 3'
check "after the overhead run nothing is left" clean

# --- the cross-CPU probe and a server that is not on loopback --------------
# run -H to the server's namespace: the client cannot know that it shares
# the machine, so no probe, and an explicit --xcpu says why.
xcpu_case() {
	hold_up "$TMP/xc" || return 1
	ns_server "$S" && measure "$C" "$TMP/xc.json" tcp_rr -l 500ms --warmup 100ms --xcpu
	stop_server
	hold_down
	measured "$TMP/xc.json"
}
xcpu_case
check "run -H to a namespace: no cross-CPU probe, and --xcpu warns that the server is not on loopback" \
	sh -c 'python3 -c "import json, sys; sys.exit(any(k.startswith(\"host.xcpu\") for k in json.load(open(sys.argv[1]))[\"metrics\"]))" "$1" && grep -q "warning: --xcpu: the server at 198.18.0.2 is not on loopback" "$1.err"' _ "$TMP/xc.json"
check "after the cross-CPU run nothing is left" clean

# --- --warmup auto: the warm-up lasts while the rate still climbs ----------
# The client's egress TBF is raised from 40 to 600 mbit in 15 steps of
# 200 ms (3 s) from the start of the run: the 100 ms rates trend upwards
# that long, so the warm-up must outlast 2 s of it; with auto:1500ms it
# stops at its bound and says so. Runs on a constant rate end after 1.1 s
# here (ramp-free runs are checked in noise.sh).
ramp() { # NS: the ramp, from now
	local r
	for r in $(seq 40 40 600); do
		tc -n "$1" qdisc change dev nr-veth-c root tbf rate "${r}mbit" burst 100000 latency 50ms || return 1
		sleep 0.2
	done
}
ramp_case() { # OUT WARMUP
	tc -n "$C" qdisc change dev nr-veth-c root tbf rate 40mbit burst 100000 latency 50ms || return 1
	ns_server "$S" || return 1
	measure "$C" "$1" tcp_stream -l 1s --warmup "$2" &
	local m=$!
	ramp "$C"
	wait $m
	stop_server
	measured "$1"
}
hold_up "$TMP/ramp" --tbf 40mbit
ramp_case "$TMP/ramp.json" auto:8s
ramp_case "$TMP/rampcap.json" auto:1500ms
hold_down
echo "# ramp: warm-up $(jpy "$TMP/ramp.json" 'v("window.warmup_s")' 2>/dev/null) s; capped at $(jpy "$TMP/rampcap.json" 'v("window.warmup_s")' 2>/dev/null) s"
check "--warmup auto outlasts a rate that climbs for 3 s, below its bound" \
	jtrue "$TMP/ramp.json" 'v("window.warmup_s") >= 2.0 and v("window.warmup_s") < 8 and v("window.warmup_capped") == 0 and abs(d["run"]["warmup_ns"] / 1e9 - v("window.warmup_s")) < 1e-6'
check "--warmup auto:1500ms stops at its bound during the climb, flagged capped" \
	jtrue "$TMP/rampcap.json" '1.5 <= v("window.warmup_s") < 1.9 and v("window.warmup_capped") == 1'
check "after the ramp runs nothing is left" clean

# --- CPU quota: the server gets the share set ----------------------------
# A tcp_stream receiver here wants 44-60% of a CPU (69-72% under ASan),
# copying 20-28 Gbps. With a 25% quota (25 ms per 100 ms period) its CPU
# over a 2 s window was measured at 24.6-25.4%: at most one period's quota
# more can fall in the window (+1.25 points), and a receiver that wants
# more than its quota uses nearly all of it: band [20, 27]. Throughput
# fell to 0.34-0.63 of the unthrottled run; asserted: by at least half the
# share of the server's CPU the quota took (0.81 of a run whose server
# used 38% passes: the quota took a third), when the baseline server used
# over 35% (else the quota does not bind on this machine: skipped). A udp_stream receiver (18-29% unthrottled here: on
# veth the receive softirq runs on the sender's CPU) stays under the cap.
hold_up "$TMP/q" --cpu-quota 25
checkx "cpu quota topology up with its cgroup" '[ -n "$CG" ] && [ -d "$CG" ]'
ns_server "$S" && measure "$C" "$TMP/q0.json" tcp_stream -l 2s --warmup 1s
stop_server
check "unthrottled tcp_stream in the namespaces" measured "$TMP/q0.json"
# the two namespaces share one machine (one boot_id): each end's CPU is the
# test's own for the other end too, so the busy CPU both ends use is not
# foreign to either. Before, each end counted the other's as foreign (about
# a CPU) and every quiet run between namespaces was flagged disturbed.
# The client's count of other processes leaves the server (and its
# listener) out by pid: it stays below the server's own CPU (the busy
# CPU's count without the host's steal, which a spell makes a second).
check "ends in two namespaces of one machine: one foreign figure each way, below the server's own CPU" \
	jtrue "$TMP/q0.json" 'd["env"]["client"]["boot_id"] == d["env"]["server"]["boot_id"] != "" and "cpu.server.foreign_s" not in d["metrics"] and "cpu.server.foreign_tasks_s" not in d["metrics"] and v("cpu.foreign_s") * (1 - v("cpu.foreign_steal_pct") / max(v("cpu.foreign_busy_pct"), 1e-9)) < v("cpu.server.cpu_s") and v("cpu.foreign_tasks_s") < v("cpu.server.cpu_s") and v("window.disturbed") == (1 if max(v("cpu.foreign_busy_pct"), v("cpu.foreign_tasks_pct")) > 10 or v("window.starved") == 1 or v("window.stolen") == 1 else 0)'
# A server that says it runs in another boot (its boot_id bound over) is
# another machine to the client: the client asks it to count its own
# machine's other processes, and it leaves out itself and its listener,
# but not the client, which is one of them there.
echo "01234567-89ab-cdef-0123-456789abcdef" >"$TMP/boot_id"
ns_server "$S" "" "$TMP/boot_id" && measure "$C" "$TMP/far.json" tcp_stream -l 1s --warmup 500ms
far_listener=$SRV_PID
stop_server
check "a server in another boot counts its machine's other processes: the client among them, not itself nor its listener" \
	jtrue "$TMP/far.json" 'd["env"]["server"]["boot_id"] == "01234567-89ab-cdef-0123-456789abcdef" and v("server.tasks.others_s") >= 0 and v("cpu.server.foreign_tasks_pct") >= 0 and "[%s]" % d["env"]["client"]["pid"] in d["env"]["server"]["collect.tasks.top"] and "[%s]" % d["env"]["server"]["pid"] not in d["env"]["server"]["collect.tasks.top"] and "['"$far_listener"']" not in d["env"]["server"]["collect.tasks.top"] and d["env"]["server"]["listener_pid"] == "'"$far_listener"'"' ||
	diag "$TMP/far.json" "tasks|boot_id|pid"
# the quota caps every run; a server the machine starves below 20% is
# measured again, up to three runs
over=0
for attempt in 1 2 3; do
	ns_server "$S" "$CG"
	[ $attempt -eq 1 ] &&
		checkx "the server is in the cgroup" 'grep -qx "$SRV_PID" "$CG/cgroup.procs"'
	measure "$C" "$TMP/q25.json" tcp_stream -l 2s --warmup 1s
	throttled=$(awk '$1 == "nr_throttled" { print $2 }' "$CG/cpu.stat" 2>/dev/null)
	stop_server
	jtrue "$TMP/q25.json" 'v("cpu.server.process_pct") <= 27' || over=$((over + 1))
	jtrue "$TMP/q25.json" 'v("cpu.server.process_pct") < 20' || break
done
ns_server "$S" "$CG" && measure "$C" "$TMP/qu.json" udp_stream -l 2s --warmup 1s
stop_server
hold_down
rc=$?
p0=$(jpy "$TMP/q0.json" 'v("cpu.server.process_pct")' 2>/dev/null)
p25=$(jpy "$TMP/q25.json" 'v("cpu.server.process_pct")' 2>/dev/null)
pu=$(jpy "$TMP/qu.json" 'v("cpu.server.process_pct")' 2>/dev/null)
echo "# quota: server cpu $p0% unthrottled, $p25% at 25% (run $attempt, nr_throttled $throttled), udp receiver $pu%;" \
	"tcp $(jpy "$TMP/q0.json" 'v("throughput.gbps")' 2>/dev/null) -> $(jpy "$TMP/q25.json" 'v("throughput.gbps")' 2>/dev/null) Gbps"
checkx "25% quota: tcp server cpu in [20, 27]% of one CPU, never above" \
	'[ $over -eq 0 ] && jtrue "$TMP/q25.json" "20 <= v(\"cpu.server.process_pct\") <= 27"'
checkx "the cgroup throttled the server" '[ "${throttled:-0}" -gt 0 ]'
check "25% quota caps a udp_stream receiver at 27%" \
	jtrue "$TMP/qu.json" 'v("cpu.server.process_pct") <= 27 and v("throughput.gbps") > 0'
if jtrue "$TMP/q0.json" 'v("cpu.server.process_pct") > 35'; then
	check "25% quota: tcp throughput falls by at least half the share of the server's CPU the quota took" \
		python3 -c "import json, sys
m0 = json.load(open('$TMP/q0.json'))['metrics']
a = m0['throughput.gbps']['value']
b = json.load(open('$TMP/q25.json'))['metrics']['throughput.gbps']['value']
cut = 1 - 25 / m0['cpu.server.process_pct']['value']
print('# tcp %.2f of the unthrottled run; the quota took %.0f%% of the server CPU' % (b / a, 100 * cut))
sys.exit(0 if b < (1 - cut / 2) * a else 1)"
elif [ -s "$TMP/q0.json" ]; then
	ok "# SKIP unthrottled server used only $p0% of a CPU: a 25% quota does not bind here"
else
	not_ok "25% quota: no unthrottled run to compare with"
fi
checkx "after the quota runs (held topology, SIGINT) nothing is left" '[ $rc -eq 0 ] && clean'

# SIGINT during a job run (matrix) is covered where the job runner lives.
exit 0
