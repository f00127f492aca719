// SPDX-License-Identifier: GPL-2.0-only
/* Log-linear histogram: quantiles, merge and the compact JSON form. */
#include "base/hist.h"

#include <errno.h>
#include <math.h>
#include <string.h>

void base_hist_init(struct base_hist *h)
{
	memset(h, 0, sizeof(*h));
}

uint64_t base_hist_bucket_low(uint32_t i)
{
	uint32_t shift;

	if (i < 2 * HIST_HALF)
		return i;
	shift = i / HIST_HALF - 1;
	return (uint64_t)(i - shift * HIST_HALF) << shift;
}

uint64_t base_hist_bucket_width(uint32_t i)
{
	if (i < 2 * HIST_HALF)
		return 1;
	return 1ULL << (i / HIST_HALF - 1);
}

void base_hist_merge(struct base_hist *dst, const struct base_hist *src)
{
	if (!src->n)
		return;
	if (!dst->n || src->min < dst->min)
		dst->min = src->min;
	if (src->max > dst->max)
		dst->max = src->max;
	dst->n += src->n;
	dst->over += src->over;
	dst->sum += src->sum;
	for (uint32_t i = 0; i < HIST_BUCKETS; i++)
		dst->count[i] += src->count[i];
}

double base_hist_quantile(const struct base_hist *h, double q)
{
	uint64_t rank, seen = 0;
	double v, x;

	if (!h->n || isnan(q))
		return 0;
	if (q <= 0)
		return (double)h->min;
	if (q >= 1)
		return (double)h->max;
	/* q * n in doubles may land just above an integer (0.07 * 100 =
	 * 7.000000000000001): forgive a relative error far below any rank */
	x = q * (double)h->n;
	rank = (uint64_t)ceil(x - x * 1e-12);
	if (rank < 1)
		rank = 1;
	for (uint32_t i = 0; i < HIST_BUCKETS; i++) {
		seen += h->count[i];
		if (seen < rank)
			continue;
		v = (double)base_hist_bucket_low(i) +
		    ((double)base_hist_bucket_width(i) - 1) / 2.0;
		if (v < (double)h->min)
			v = (double)h->min;
		if (v > (double)h->max)
			v = (double)h->max;
		return v;
	}
	return (double)h->max;
}

double base_hist_mean(const struct base_hist *h)
{
	return h->n ? h->sum / (double)h->n : 0;
}

json_t *base_hist_to_json(const struct base_hist *h)
{
	json_t *b = json_array(), *j;

	if (!b)
		return NULL;
	for (uint32_t i = 0; i < HIST_BUCKETS; i++) {
		if (!h->count[i])
			continue;
		if (json_array_append_new(b, json_integer(i)) ||
		    json_array_append_new(b, json_integer((json_int_t)h->count[i]))) {
			json_decref(b);
			return NULL;
		}
	}
	j = json_pack("{s:s, s:I, s:I, s:I, s:f, s:I, s:o}", "scheme", HIST_SCHEME,
		      "n", (json_int_t)h->n, "min", (json_int_t)h->min,
		      "max", (json_int_t)h->max, "sum", h->sum,
		      "over", (json_int_t)h->over, "buckets", b);
	return j;
}

static int get_u64(const json_t *j, const char *key, uint64_t *out,
		   struct base_err *err)
{
	const json_t *v = json_object_get(j, key);

	if (!json_is_integer(v) || json_integer_value(v) < 0)
		return base_err_set(err, -EINVAL,
				    "histogram field '%s' must be a non-negative integer",
				    key);
	*out = (uint64_t)json_integer_value(v);
	return 0;
}

int base_hist_from_json(const json_t *j, struct base_hist *h,
			struct base_err *err)
{
	const json_t *b, *sum;
	char q[BASE_QUOTE_LEN];
	const char *scheme;
	uint64_t total = 0;
	int64_t last = -1, first = -1;
	int ret;

	base_hist_init(h);
	if (!json_is_object(j))
		return base_err_set(err, -EINVAL, "histogram must be an object");
	scheme = json_string_value(json_object_get(j, "scheme"));
	if (!scheme || strcmp(scheme, HIST_SCHEME))
		return base_err_set(err, -EINVAL,
				    "histogram scheme '%s' is not %s",
				    scheme ? base_quote(scheme, q) : "(none)", HIST_SCHEME);
	if ((ret = get_u64(j, "n", &h->n, err)) ||
	    (ret = get_u64(j, "min", &h->min, err)) ||
	    (ret = get_u64(j, "max", &h->max, err)) ||
	    (ret = get_u64(j, "over", &h->over, err)))
		return ret;
	sum = json_object_get(j, "sum");
	if (!json_is_number(sum) || !isfinite(json_number_value(sum)) ||
	    json_number_value(sum) < 0)
		return base_err_set(err, -EINVAL, "histogram field 'sum' must be a number");
	h->sum = json_number_value(sum);
	b = json_object_get(j, "buckets");
	if (!json_is_array(b) || json_array_size(b) % 2)
		return base_err_set(err, -EINVAL,
				    "histogram buckets must be index, count pairs");
	for (size_t k = 0; k < json_array_size(b); k += 2) {
		const json_t *iv = json_array_get(b, k), *cv = json_array_get(b, k + 1);
		int64_t i, c;

		if (!json_is_integer(iv) || !json_is_integer(cv))
			return base_err_set(err, -EINVAL, "histogram buckets must be integers");
		i = json_integer_value(iv);
		c = json_integer_value(cv);
		if (i <= last || i >= HIST_BUCKETS || c <= 0)
			return base_err_set(err, -EINVAL,
					    "histogram bucket %lld (count %lld) out of order or range",
					    (long long)i, (long long)c);
		if ((uint64_t)c > h->n - total)
			return base_err_set(err, -EINVAL,
					    "histogram counts add up to more than n = %llu",
					    (unsigned long long)h->n);
		if (last < 0)
			first = i;
		h->count[i] = (uint64_t)c;
		total += (uint64_t)c;
		last = i;
	}
	if (total != h->n)
		return base_err_set(err, -EINVAL,
				    "histogram counts add up to %llu, not n = %llu",
				    (unsigned long long)total,
				    (unsigned long long)h->n);
	if (h->over > h->n)
		return base_err_set(err, -EINVAL,
				    "histogram over = %llu exceeds n = %llu",
				    (unsigned long long)h->over,
				    (unsigned long long)h->n);
	if (!h->n && (h->min || h->max || h->sum))
		return base_err_set(err, -EINVAL,
				    "empty histogram with nonzero min, max or sum");
	if (h->n && (h->min > h->max || h->max > (uint64_t)INT64_MAX ||
		     base_hist_index(h->min) != (uint32_t)first ||
		     base_hist_index(h->max) != (uint32_t)last))
		return base_err_set(err, -EINVAL,
				    "histogram min %llu and max %llu do not match its buckets",
				    (unsigned long long)h->min,
				    (unsigned long long)h->max);
	return 0;
}
