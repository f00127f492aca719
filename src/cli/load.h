/* SPDX-License-Identifier: GPL-2.0-only */
/* Loading a label's configurations and samples from the store, for the commands that compare and report. */
#ifndef NR_CLI_LOAD_H
#define NR_CLI_LOAD_H

#include <stdbool.h>
#include <stddef.h>

#include "base/err.h"
#include "base/sample.h"

struct store;
struct store_config_row;

/* The configuration keys of one label, in store order (by config_key). */
struct cli_keys {
	char **key;
	size_t n, cap;
};

/* Append the keys of label's configurations to k (zeroed or filled before).
 * Returns 0, or a negative errno with err set. */
int cli_keys_load(struct store *st, const char *label, struct cli_keys *k,
		  struct base_err *err);
/* True when k holds key. */
bool cli_keys_has(const struct cli_keys *k, const char *key);
void cli_keys_release(struct cli_keys *k);

/* Copies of the samples of one label and configuration, in run order; p[i]
 * points to s[i], in the shape stats_table_build() takes. */
struct cli_samples {
	struct base_sample *s;
	const struct base_sample **p;
	size_t n, cap;
};

/* Load label + key (NULL: every configuration) into ss (zeroed). Returns 0,
 * or a negative errno with err set; release ss either way. */
int cli_samples_load(struct store *st, const char *label, const char *key,
		     struct cli_samples *ss, struct base_err *err);
void cli_samples_release(struct cli_samples *ss);

#endif
