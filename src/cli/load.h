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

/*
 * --headline METRIC[:higher|lower]: the metric compare, report and bisect
 * judge in place of the test's headline, and which way is better. A
 * metric the store gives a direction (base_metric_dir()) takes it, and a
 * suffix must agree with it; a neutral one (a profile share, CPU use, a
 * count) has no regression, so it needs the suffix.
 */
struct cli_headline {
	char metric[112];       /* "": the test's headline (no --headline) */
	enum metric_dir dir;    /* the suffix's; METRIC_NEUTRAL: the store's */
};

/* Parse arg into h. Returns EXIT_OK, or EXIT_USAGE with the error printed
 * (an empty or malformed name, a suffix other than higher or lower or
 * against the store's direction, a neutral metric without a suffix). */
int cli_headline_parse(const char *arg, struct cli_headline *h);

/*
 * Say that metric (--headline's) cannot be the headline of configuration key, whose
 * samples of label a are sa and of b are sb (what compare and report
 * found in a table without its row, bisect start in an endpoint without
 * a value): how many of each label's samples have it, and when none
 * does, those of their metrics that share its first part (a misspelt
 * name). Returns EXIT_USAGE: the store had to be read to know, but as for
 * --where's names, a flag the samples cannot be judged by is bad usage.
 */
int cli_headline_missing(const char *metric, const char *key, const char *a,
			 const struct cli_samples *sa, const char *b,
			 const struct cli_samples *sb);

#endif
