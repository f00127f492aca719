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

/* Append the keys of label's configurations to k (zeroed or filled before;
 * label NULL: every label's, a key once per label that has it). Returns 0,
 * or a negative errno with err set. */
int cli_keys_load(struct store *st, const char *label, struct cli_keys *k,
		  struct base_err *err);
/* True when k holds key. */
bool cli_keys_has(const struct cli_keys *k, const char *key);
void cli_keys_release(struct cli_keys *k);

/*
 * Which configurations a command takes: the terms of --where NAME=VALUE,
 * repeatable. A configuration is taken when, for every NAME given, its key
 * has NAME at one of the values given for it (values of one name are
 * alternatives, different names must all hold). A size value ("64K")
 * also matches the key's byte count ("65536").
 */
struct cli_where_term {
	char *name, *value;
	char *bytes; /* the value's byte count in decimal, or NULL */
};

struct cli_where {
	struct cli_where_term *t;
	size_t n;
};

/* Add the term arg ("NAME=VALUE"). Returns EXIT_OK, or EXIT_USAGE (or
 * EXIT_RUNTIME: out of memory) with the error printed. */
int cli_where_add(struct cli_where *w, const char *arg);
/* True when the configuration key passes every term (no term: true). */
bool cli_where_match(const struct cli_where *w, const char *key);
/*
 * Check the terms against the configurations of the labels (k[i] holds
 * labels[i]'s), then drop from each k[i] the keys that do not pass. A name
 * that no key has, or a value that no key has for its name, is a bad flag
 * (EXIT_USAGE; the error names what the keys have); a label left with no
 * configuration is EXIT_RUNTIME. EXIT_OK otherwise, and with no terms.
 */
int cli_where_apply(const struct cli_where *w, struct cli_keys *k, const char *const *labels,
		    size_t nlabels);
/* The terms as one line ("msg=64 streams=1"), for a summary (free() it;
 * NULL when out of memory). */
char *cli_where_text(const struct cli_where *w);
void cli_where_release(struct cli_where *w);

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
