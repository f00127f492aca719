/* SPDX-License-Identifier: GPL-2.0-only */
/* Waiting for a quiet machine before a disturbed step is measured again. */
#ifndef NR_CLI_SETTLE_H
#define NR_CLI_SETTLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "base/time.h"

/*
 * One probe: a second with none of the test's traffic, in two halves. In
 * the first the machine is left alone and its busy time read; in the
 * second a thread on every CPU this process may use spins, and the host's
 * steal over it is read. Steal is time a vCPU wanted to run while the
 * host ran something else: an idle guest wants nothing and shows none,
 * whatever the host does, so only a busy probe can see a contended host
 * (docs/methodology.md, "Interference", gives the readings).
 */
#define CLI_SETTLE_PROBE_NS (1000 * NS_PER_MS)
#define CLI_SETTLE_IDLE_NS (CLI_SETTLE_PROBE_NS / 2)
/* Quiet: the machine's CPUs busy (the host's steal included) under this
 * share of their time over the idle half: well below the disturbed
 * flag's 10%, above what an idle machine reads (docs/methodology.md) */
#define CLI_QUIET_PCT 3.0
/* ... and the host's steal of the spinning CPUs' time under this share:
 * a sample's window.stolen is at 2% of its window over two CPUs, 1% of
 * each (steal counted in USER_HZ ticks: one is 1% of two CPUs over the
 * half second, and a little under it once the probe's time is over 100
 * ticks, so a tick at most) */
#define CLI_QUIET_STEAL_PCT 1.0

/*
 * Probe the machine a second at a time until it is quiet (CLI_QUIET_PCT,
 * and CLI_QUIET_STEAL_PCT when spinning), or max_ns has passed (the probe
 * under way then finishes; one probe at least), or cli_interrupted; then
 * "  quiet after 6.1 s: busy 0.6% of the machine (...)" (or "not quiet")
 * to out. Returns the time it took. Sleeps; not for a measured window.
 */
int64_t cli_settle_say(FILE *out, int64_t max_ns);

#endif
