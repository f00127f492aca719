// SPDX-License-Identifier: GPL-2.0-only
/* Loading a label's configurations and samples from the store, for compare and report. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cli/load.h"
#include "store/store.h"

static int collect_key(void *ctx, const struct store_config_row *r)
{
	struct cli_keys *k = ctx;

	if (k->n == k->cap) {
		size_t ncap = k->cap ? 2 * k->cap : 16;
		char **p = realloc(k->key, ncap * sizeof(*p));

		if (!p)
			return -ENOMEM;
		k->key = p;
		k->cap = ncap;
	}
	k->key[k->n] = strdup(r->config_key);
	if (!k->key[k->n])
		return -ENOMEM;
	k->n++;
	return 0;
}

int cli_keys_load(struct store *st, const char *label, struct cli_keys *k,
		  struct base_err *err)
{
	int ret = store_configs(st, label, collect_key, k, err);

	if (ret == -ENOMEM)
		base_err_set(err, ret, "out of memory");
	return ret;
}

bool cli_keys_has(const struct cli_keys *k, const char *key)
{
	for (size_t i = 0; i < k->n; i++)
		if (!strcmp(k->key[i], key))
			return true;
	return false;
}

void cli_keys_release(struct cli_keys *k)
{
	for (size_t i = 0; i < k->n; i++)
		free(k->key[i]);
	free(k->key);
	memset(k, 0, sizeof(*k));
}

static int collect_sample(void *ctx, const struct base_sample *s, int64_t order)
{
	struct cli_samples *ss = ctx;

	(void)order;
	if (ss->n == ss->cap) {
		size_t ncap = ss->cap ? 2 * ss->cap : 16;
		struct base_sample *p = realloc(ss->s, ncap * sizeof(*p));

		if (!p)
			return -ENOMEM;
		ss->s = p;
		ss->cap = ncap;
	}
	/* the copy releases what it took when it fails */
	if (base_sample_copy(&ss->s[ss->n], s))
		return -ENOMEM;
	ss->n++;
	return 0;
}

int cli_samples_load(struct store *st, const char *label, const char *key,
		     struct cli_samples *ss, struct base_err *err)
{
	int ret = store_load_samples(st, label, key, collect_sample, ss, err);

	if (ret == -ENOMEM)
		base_err_set(err, ret, "out of memory");
	if (!ret) {
		ss->p = malloc((ss->n ? ss->n : 1) * sizeof(*ss->p));
		if (!ss->p)
			return base_err_set(err, -ENOMEM, "out of memory");
		for (size_t i = 0; i < ss->n; i++)
			ss->p[i] = &ss->s[i];
	}
	return ret;
}

void cli_samples_release(struct cli_samples *ss)
{
	for (size_t i = 0; i < ss->n; i++)
		base_sample_release(&ss->s[i]);
	free(ss->s);
	free(ss->p);
	memset(ss, 0, sizeof(*ss));
}
