#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# bench/placement.sh - the CPU placement policies against each other, on
# loopback (127.0.0.1) only: the evidence a default placement is chosen on.
#
# Usage: bench/placement.sh
#        REPS=3 DUR=2 ONLY="small_8k small_32k" bench/placement.sh
#
# Rows are the seed scenarios' workloads and bench/peers.sh's tcp rows;
# the small-receive-buffer workload runs at two buffer sizes, so the table
# also says how much each policy lets the buffer matter (the seed's
# mechanism: the 32K row over the 8K row). Each repetition runs every row
# under every policy (split, pair, free), the order of the policies turned
# by one each repetition, so that a slow spell of the machine hits each.
# Per row and policy: the median headline, its cov over the repetitions,
# the exact CPU of both ends per GB moved (or per 1000 transactions), and
# the bytes per tcp data segment. Nothing is stored; progress on stderr.
#
# Environment: REPS (5), DUR (3) measured seconds, WARM (1) warm-up,
# ONLY (a subset of the row names), NETREGRESS (the binary; else built).
# shellcheck disable=SC2086  # the argument lists split on purpose
set -u -o pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck source=bench/lib.sh
. "$repo/bench/lib.sh"
REPS=${REPS:-5}
DUR=${DUR:-3}
WARM=${WARM:-1}
NR=${NETREGRESS:-$repo/build/netregress}
need_netregress placement.sh "$repo"
POLICIES=(split pair free)

# name | netregress run arguments
ROWS=(
	"small_8k|tcp_stream -n 4 -m 256 --nodelay --dir recv -s 8K -S 8K"
	"small_32k|tcp_stream -n 4 -m 256 --nodelay --dir recv -s 32K -S 32K"
	"small_auto|tcp_stream -n 4 -m 256 --nodelay --dir recv"
	"tcp_128k_1|tcp_stream -n 1"
	"tcp_128k_4|tcp_stream -n 4"
	"bw_tcp_10m|tcp_stream -n 1 -m 10M --rmsg 10M -s 4M -S 4M"
	"udp_1472_1|udp_stream -n 1"
	"udp_1472_2|udp_stream -n 2"
	"tcp_rr_64|tcp_rr -r 64,64"
)
if [ -n "${ONLY:-}" ]; then
	picked=()
	for want in $ONLY; do
		found=
		for row in "${ROWS[@]}"; do
			[ "${row%%|*}" = "$want" ] && picked+=("$row") && found=1
		done
		[ -n "$found" ] || { log "placement.sh: ONLY names '$want', which is not a row"; exit 2; }
	done
	ROWS=("${picked[@]}")
fi

TMP=$(mktemp -d /tmp/nr-placement.XXXXXX)
trap 'rm -rf "$TMP"' EXIT
trap 'exit 130' INT TERM

stamp_start
for rep in $(seq "$REPS"); do
	for row in "${ROWS[@]}"; do
		name=${row%%|*}
		args=${row#*|}
		for k in 0 1 2; do
			pl=${POLICIES[$(((k + rep) % 3))]}
			out="$TMP/$name.$pl.$rep.json"
			log "rep $rep/$REPS $name $pl"
			"$NR" run $args -l "$DUR" --warmup "$WARM" --placement "$pl" --no-store \
				--json >"$out" 2>"$TMP/err" || log "  failed: $(tail -n 1 "$TMP/err")"
		done
	done
done
stamp_end

echo "# bench/placement.sh: the CPU placement policies, loopback"
machine_line
echo "netregress: $(nr_version); REPS=$REPS DUR=$DUR WARM=$WARM; $START_DATE .. $END_DATE; load $LOAD0 -> $LOAD1"
python3 - "$TMP" "${POLICIES[@]}" -- "${ROWS[@]}" <<'PY'
import glob, json, math, os, statistics as st, sys

tmp = sys.argv[1]
sep = sys.argv.index("--")
policies, rows = sys.argv[2:sep], [r.split("|")[0] for r in sys.argv[sep + 1:]]

def docs(name, pl):
    out = []
    for f in sorted(glob.glob(os.path.join(tmp, "%s.%s.*.json" % (name, pl)))):
        try:
            out.append(json.load(open(f)))
        except (OSError, ValueError):
            pass
    return out

def val(d, k):
    m = d.get("metrics", {}).get(k)
    return m["value"] if m else float("nan")

def headline(d):
    return val(d, "transactions.per_s") if d["config"]["params"]["test"].endswith("_rr") else val(d, "throughput.gbps")

def cost(d):
    cpu = val(d, "cpu.client.cpu_s") + val(d, "cpu.server.cpu_s")
    if d["config"]["params"]["test"].endswith("_rr"):
        n = val(d, "transactions.per_s") * val(d, "window.client_s")
        return cpu / n * 1e3 if n > 0 else float("nan")
    gb = val(d, "throughput.gbps") / 8 * val(d, "window.client_s")
    return cpu / gb if gb > 0 else float("nan")

def med(v):
    v = [x for x in v if not math.isnan(x)]
    return st.median(v) if v else float("nan")

def cov(v):
    v = [x for x in v if not math.isnan(x)]
    return 100 * st.stdev(v) / st.mean(v) if len(v) > 1 and st.mean(v) else float("nan")

print("%-11s %-6s %10s %8s %11s %9s %4s" % ("row", "policy", "median", "cov %", "cpu s/unit", "B/seg", "n"))
medians = {}
for name in rows:
    for pl in policies:
        ds = docs(name, pl)
        h = [headline(d) for d in ds]
        medians[(name, pl)] = med(h)
        unit = "Ktr/s" if ds and ds[0]["config"]["params"]["test"].endswith("_rr") else "Gbps"
        print("%-11s %-6s %10.3f %8.2f %11.3f %9.0f %4d  %s" % (
            name, pl, med(h) / (1e3 if unit == "Ktr/s" else 1), cov(h),
            med([cost(d) for d in ds]), med([val(d, "tcp.bytes_per_seg") for d in ds]), len(ds), unit))
if "small_8k" in rows and "small_32k" in rows:
    print("sensitivity to the receive buffer (small_32k / small_8k): " + ", ".join(
        "%s %.2f" % (pl, medians[("small_32k", pl)] / medians[("small_8k", pl)])
        for pl in policies if medians[("small_8k", pl)] > 0))
print("cpu s/unit: both ends' exact CPU seconds per GB moved (per 1000 transactions for tcp_rr)")
PY
