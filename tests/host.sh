# SPDX-License-Identifier: GPL-2.0-only
# The host's steal, from /proc/stat: sourced by tests/run.sh and by the
# e2e suites (tests/e2e/lib.sh). Defines functions only.

# steal_mark: the host's steal and all CPU time so far, in ticks.
steal_mark() { awk '/^cpu / { t = 0; for (f = 2; f <= 9; f++) t += $f; print $9, t }' /proc/stat; }

# steal_since MARK: the steal's share of all CPU time since MARK, in %.
steal_since() {
	awk -v m="$1" 'BEGIN { split(m, a, " ") }
		/^cpu / { t = 0; for (f = 2; f <= 9; f++) t += $f
			printf "%.1f\n", (t > a[2] ? 100 * ($9 - a[1]) / (t - a[2]) : 0) }' /proc/stat
}

# host_quiet MAX_S: until the host steals under 1% of a second in which a
# loop keeps every CPU busy (a sample's window.stolen is at 1% of each of
# two CPUs), at most MAX_S seconds; 1 when it never did. Busy, because an
# idle vCPU wants nothing and the host steals nothing from it: idle
# seconds under 2% came between runs that lost 6-36%. The loops end by
# themselves (timeout 1) and are waited for by PID.
host_quiet() {
	local i c m pids
	for i in $(seq "$1"); do
		m=$(steal_mark)
		pids=()
		for c in $(seq 0 $(($(nproc) - 1))); do
			taskset -c "$c" timeout 1 bash -c 'while :; do :; done' &
			pids+=($!)
		done
		wait "${pids[@]}"
		awk -v s="$(steal_since "$m")" 'BEGIN { exit !(s < 1) }' && return 0
	done
	return 1
}
