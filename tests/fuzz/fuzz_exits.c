// SPDX-License-Identifier: GPL-2.0-only
/* Fuzz target: the taskstats exit records a listener receives, as any kernel may lay them out. */
#include <string.h>

#include "collect/exits.h"
#include "fuzz.h"

/*
 * The input is one datagram of the taskstats family (the seeds are real
 * ones from Linux 6.18, struct version 16): netlink messages holding a
 * thread's record and, when its group ended, the group's totals. A newer
 * kernel's struct is longer, an older one's shorter. Promised
 * (collect/exits.h): a malformed nest or message is skipped, never a
 * read past the datagram; each record kept has a thread and a group id
 * and a NUL-terminated name; parsing the same bytes again keeps as many.
 */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct collect_exits *x = collect_exits_new();
	const struct collect_exit *r;
	size_t kept, again, n;
	/* netlink headers are read in place: the datagram aligned, as
	 * recv() gives it */
	uint64_t *buf = malloc((size / 8 + 1) * 8);

	FUZZ_CHECK(x && buf);
	memcpy(buf, data, size);
	kept = collect_exits_parse(x, buf, size);
	r = collect_exits_records(x, &n);
	FUZZ_CHECK(n == kept);
	for (size_t i = 0; i < n; i++) {
		FUZZ_CHECK(r[i].tid > 0 && r[i].tgid > 0);
		FUZZ_CHECK(memchr(r[i].comm, '\0', sizeof(r[i].comm)) != NULL);
	}
	again = collect_exits_parse(x, buf, size);
	FUZZ_CHECK(again == kept);
	collect_exits_sort(x);
	r = collect_exits_records(x, &n);
	FUZZ_CHECK(n == 2 * kept);
	for (size_t i = 1; i < n; i++)
		FUZZ_CHECK(r[i - 1].tgid < r[i].tgid ||
			   (r[i - 1].tgid == r[i].tgid && r[i - 1].tid <= r[i].tid));
	free(buf);
	collect_exits_free(x);
	return 0;
}
