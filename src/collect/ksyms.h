/* SPDX-License-Identifier: GPL-2.0-only */
/* Kernel text symbols from /proc/kallsyms, to name sampled kernel addresses. */
#ifndef NR_COLLECT_KSYMS_H
#define NR_COLLECT_KSYMS_H

#include <stddef.h>
#include <stdint.h>

#include "base/err.h"

/* The largest /proc/kallsyms read: a whole kernel's is a few MiB
 * (docs/measures.md). */
#define COLLECT_KSYMS_CAP_BYTES (64u << 20)

/*
 * A symbol covers the addresses from its start to the next symbol's start,
 * but never more than this: more than a kernel function spans, less than
 * the alignment holes between text sections (docs/measures.md gives the
 * sizes measured). An address past that, past the last symbol, below the first one,
 * or after a non-text (data) symbol or the _etext/_einittext end markers
 * is "[unknown]".
 */
#define COLLECT_KSYMS_MAX_SPAN_BYTES (64u << 10)

/* The name returned for an address that no text symbol covers. */
#define COLLECT_KSYMS_UNKNOWN "[unknown]"

/* Longest symbol name accepted (the kernel's KSYM_NAME_LEN is 512). */
#define COLLECT_KSYMS_NAME_MAX 511

/* A resolved address. The strings belong to the collect_ksyms and live
 * until collect_ksyms_free(). */
struct collect_ksym {
	const char *name;   /* "tcp_sendmsg", or COLLECT_KSYMS_UNKNOWN */
	const char *module; /* "nf_conntrack", or NULL for the kernel image */
	uint64_t start;     /* the symbol's address; 0 when unknown */
	uint64_t offset;    /* addr - start */
	/* 0..collect_ksyms_count()-1, stable for this table: equal ids are
	 * the same symbol. COLLECT_KSYMS_NO_ID when unknown. */
	uint32_t id;
};

#define COLLECT_KSYMS_NO_ID UINT32_MAX

struct collect_ksyms;

/*
 * Parse the text of /proc/kallsyms (len bytes, need not end in '\n' or
 * NUL; copied) into a table sorted by address. Each line is "address type
 * name" with an optional "\t[module]"; the address is 1 to 16 hex digits,
 * the type one letter. Text symbols (types t, T, w, W) are kept as
 * symbols, kernel image and module text alike; every other type is kept
 * as an end mark for the text before it. Where several text symbols share
 * an address, one is kept as perf does: non-weak over weak, global over
 * local, fewer leading underscores, the longer name, then the first in
 * byte order.
 *
 * Returns 0 and the table in *out (free with collect_ksyms_free), or
 * -EINVAL for a malformed line (err: "line N '<text>': <what>"), -EACCES
 * when every address reads as 0 ("kernel addresses hidden: kptr_restrict":
 * without privilege /proc/kallsyms hides them), -ENODATA when the text
 * holds no text symbol, -EFBIG above COLLECT_KSYMS_CAP_BYTES, -ENOMEM.
 * Any thread.
 */
int collect_ksyms_parse(struct collect_ksyms **out, const char *text,
			size_t len, struct base_err *err);

/*
 * Read path (NULL: /proc/kallsyms) in one pass into a buffer capped at
 * COLLECT_KSYMS_CAP_BYTES (a larger file is -EFBIG, not a truncation) and
 * parse it as collect_ksyms_parse() does; open and read errors are
 * returned as negative errnos with err naming the path. Slow, most of it
 * the kernel formatting the file, and the table holds every text symbol
 * (docs/measures.md gives the time and size measured): load once, outside
 * any measured window.
 */
int collect_ksyms_load(struct collect_ksyms **out, const char *path,
		       struct base_err *err);

/* Free a table; NULL is a no-op. */
void collect_ksyms_free(struct collect_ksyms *ks);

/* Entries kept, text symbols and end marks: every collect_ksym.id is below
 * it. 0 for NULL. */
size_t collect_ksyms_count(const struct collect_ksyms *ks);

/*
 * Find the text symbol containing addr: the one with the greatest start <=
 * addr, if addr lies within its span (see COLLECT_KSYMS_MAX_SPAN_BYTES).
 * Fills *out and returns 0, or fills it as unknown (name
 * COLLECT_KSYMS_UNKNOWN, module NULL, id COLLECT_KSYMS_NO_ID) and returns
 * -ENOENT. O(log n), no allocation; any number of threads may resolve in
 * the same table at once.
 */
int collect_ksyms_resolve(const struct collect_ksyms *ks, uint64_t addr,
			  struct collect_ksym *out);

/*
 * The text symbol whose id is id (as collect_ksyms_resolve() gives it):
 * fills *out (offset 0) and returns 0, or fills it as unknown and returns
 * -ENOENT when id is an end mark or not below collect_ksyms_count().
 * O(1), no allocation; any thread.
 */
int collect_ksyms_at(const struct collect_ksyms *ks, uint32_t id,
		     struct collect_ksym *out);

#endif
