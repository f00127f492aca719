#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# The test driver: build, run unit (cmocka) and end-to-end tests, then the
# same again under ASan+UBSan. Every test reports in TAP ("ok"/"not ok");
# the last line is "N passed, N failed". Exit 0 only when nothing failed.
set -u
cd "$(dirname "$0")/.." || exit 3

passed=0
failed=0
failures=()
evidence=() # the failed lines again, for whoever sees only the tail
reruns=()   # e2e suites run again after failing under the host's steal
jobs=$(nproc 2>/dev/null || echo 2)

# Count one TAP producer's results (its output in $2, its exit status in
# $3); keep its output for failures.
count() {
	local name=$1 out=$2 rc=$3
	local ok bad
	ok=$(grep -cE '^ok ' <<<"$out")
	bad=$(grep -cE '^not ok ' <<<"$out")
	if [ "$ok" -eq 0 ] && [ "$bad" -eq 0 ]; then
		bad=1 # a producer that reports nothing has failed
	elif [ "$rc" -ne 0 ] && [ "$bad" -eq 0 ]; then
		bad=1 # crashed or exited badly after its last result
	fi
	passed=$((passed + ok))
	failed=$((failed + bad))
	if [ "$bad" -ne 0 ]; then
		failures+=("$name")
		printf '%s\n' "$out" | sed "s|^|  [$name] |" | grep -vE '^\s*\[[^]]*\] ok ' | tail -40
		# each "not ok" with the "# " comments right after it
		local line
		while IFS= read -r line; do
			evidence+=("  [$name] $line")
		done < <(awk '/^not ok /{f=1; print; next} f && /^# /{print; next} {f=0}' <<<"$out" | tail -20)
		if ! grep -qE '^not ok ' <<<"$out"; then
			evidence+=("  [$name] exit status $rc, last line: $(tail -n 1 <<<"$out")")
		fi
	fi
	printf '%-44s %3d passed, %d failed\n' "$name" "$ok" "$bad"
}

# Run one TAP producer and count it.
tap() {
	local name=$1; shift
	local out rc
	out=$("$@" 2>&1)
	rc=$?
	count "$name" "$out" "$rc"
}

. tests/host.sh

# An end-to-end suite: its checks measure real traffic and assume the
# host leaves the machine alone. When one fails while the host stole 1% or
# more of the machine over the suite (a quiet host: under 0.5%; a sample
# is flagged from 2% of its window on its two CPUs; a fresh clone met
# spells of 20-45% that lasted minutes), the failed checks are
# shown, not counted, and the suite runs once more once the host is quiet;
# that run is counted. A check that fails on a quiet host fails again.
e2e() {
	local name=$1; shift
	local out rc m st
	m=$(steal_mark)
	out=$("$@" 2>&1)
	rc=$?
	st=$(steal_since "$m")
	if { grep -qE '^not ok ' <<<"$out" || [ "$rc" -ne 0 ]; } &&
	   awk -v s="$st" 'BEGIN { exit !(s >= 1) }'; then
		echo "$name: failed while the host stole $st% of the machine; once more when it is quiet:"
		grep -E '^not ok ' <<<"$out" | sed "s|^|  [$name, first run] |"
		host_quiet 120 || echo "  (the host stole 1% or more for 120 s)"
		out=$("$@" 2>&1)
		rc=$?
		reruns+=("$name ($st% stolen)")
	fi
	count "$name" "$out" "$rc"
}

suite() {
	local tree=$1; shift
	echo "== build ($tree) =="
	mkdir -p "$tree"
	if ! make --no-print-directory -j"$jobs" B="$tree" "$@" "$tree/netregress" unit >"$tree/make.log" 2>&1; then
		tail -30 "$tree/make.log"
		failed=$((failed + 1))
		failures+=("build $tree")
		return
	fi
	export NR_BIN=$PWD/$tree/netregress
	for t in "$tree"/tests/test_*; do
		[ -x "$t" ] || continue
		CMOCKA_MESSAGE_OUTPUT=TAP tap "$tree: unit/$(basename "$t")" "$t"
	done
	# every saved input of each fuzz target (tests/fuzz/corpus/NAME/):
	# the seeds and each finding once fixed, one TAP line per input
	for r in "$tree"/fuzz/replay_*; do
		[ -x "$r" ] || continue
		tap "$tree: fuzz/${r##*/replay_}" "$r" "tests/fuzz/corpus/${r##*/replay_}"
	done
	for t in tests/e2e/*.sh; do
		[ -f "$t" ] && [ "$(basename "$t")" != lib.sh ] || continue
		# a suite that drives the binary through a benchmark's smoke
		# run says so; the sanitizer tree leaves it to the plain one
		[ "$tree" != build ] && grep -q '^# run.sh: plain tree only' "$t" && continue
		e2e "$tree: e2e/$(basename "$t" .sh)" timeout 600 bash "$t"
	done
}

suite build
# leaks are reported by the unit tests; the e2e children exit through _exit
ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=0} \
UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1} \
	suite build/san SAN=1

if [ ${#reruns[@]} -gt 0 ]; then
	echo "run again after failing while the host stole from the machine: ${reruns[*]}"
fi
if [ ${#failures[@]} -gt 0 ]; then
	printf '%s\n' "${evidence[@]}"
	echo "failed: ${failures[*]}"
fi
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
