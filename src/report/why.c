// SPDX-License-Identifier: GPL-2.0-only
/* What moved with the headline, as one line per metric for every format, and as JSON. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "report/internal.h"
#include "report/page.h"
#include "job/config.h"
#include "report/report.h"

/* "19.6%", "8192 B", "254.3" */
static void with_unit(char *buf, size_t len, double v, const char *unit)
{
	char n[24];

	/* a byte count or a scale reads whole: 131072, not 1.311e+05 */
	if (isfinite(v) && v == floor(v) && fabs(v) < 1e15)
		snprintf(n, sizeof(n), "%.0f", v);
	else
		report_fmt_num(n, sizeof(n), v);
	snprintf(buf, len, "%s%s%s", n, *unit && strcmp(unit, "%") ? " " : "", unit);
}

void report_why_text(const struct stats_why *w, char *buf, size_t len)
{
	char ma[48], mb[48], ch[24], part[24], acc[48] = "";

	with_unit(ma, sizeof(ma), w->median_a, w->unit);
	with_unit(mb, sizeof(mb), w->median_b, w->unit);
	report_fmt_pct(ch, sizeof(ch), w->shift_pct);
	if (w->env) {
		snprintf(buf, len, "%s %s -> %s: set so in B's environment", w->metric, w->env_a,
			 w->env_b);
		return;
	}
	switch (w->kind) {
	case STATS_WHY_SETTING:
		snprintf(buf, len, "%s %s -> %s (%s): granted by the kernel for the same request",
			 w->metric, ma, mb, ch);
		break;
	case STATS_WHY_COST:
		report_fmt_pct(part, sizeof(part), w->cost_pct_of_a);
		if (isfinite(w->account_pct))
			snprintf(acc, sizeof(acc), ", %.0f%% of its change", w->account_pct);
		snprintf(buf, len, "%s %s -> %s: CPU per unit %s of A's%s (q %.2g)", w->metric, ma,
			 mb, part, acc, w->q);
		break;
	default:
		snprintf(buf, len, "%s %s -> %s (%s, q %.2g)", w->metric, ma, mb, ch, w->q);
		break;
	}
}

void report_why_list(FILE *out, const struct stats_table *t, size_t top, const char *indent)
{
	char line[320];

	if (!t->nwhy) {
		fprintf(out, "%swhat moved with it: nothing that explains a rate passed its test\n",
			indent);
		return;
	}
	fprintf(out, "%swhat moved with it, the likely cause first:\n", indent);
	for (size_t i = 0; i < t->nwhy && i < top; i++) {
		report_why_text(&t->why[i], line, sizeof(line));
		fprintf(out, "%s  %zu. %s\n", indent, i + 1, line);
	}
}

static json_t *num_or_null(double v)
{
	return isfinite(v) ? json_real(v) : json_null();
}

json_t *report_why_json(const struct stats_table *t)
{
	json_t *arr = json_array(), *j;

	for (size_t i = 0; arr && i < t->nwhy; i++) {
		const struct stats_why *w = &t->why[i];

		if (w->env)
			j = json_pack("{s:s, s:s, s:s, s:s, s:b}", "metric", w->metric, "kind",
				      stats_why_kind_name(w->kind), "a", w->env_a, "b", w->env_b,
				      "environment", 1);
		else
			j = json_pack("{s:s, s:s, s:s, s:o, s:o, s:o, s:o}", "metric", w->metric,
				      "unit", w->unit, "kind", stats_why_kind_name(w->kind), "a",
				      num_or_null(w->median_a), "b", num_or_null(w->median_b),
				      "shift_pct", num_or_null(w->shift_pct), "q", num_or_null(w->q));
		if (j && w->kind == STATS_WHY_COST)
			json_object_update_new(
				j, json_pack("{s:o, s:o, s:o, s:o}", "cost_a", num_or_null(w->cost_a),
					     "cost_b", num_or_null(w->cost_b), "cost_pct_of_a",
					     num_or_null(w->cost_pct_of_a), "account_pct",
					     num_or_null(w->account_pct)));
		if (!j || json_array_append_new(arr, j)) {
			json_decref(arr);
			return NULL;
		}
	}
	return arr;
}

void report_why_doc(FILE *out, const struct report_doc *d, const char *const *descs, size_t b,
		    const struct report_why_fmt *fmt)
{
	char line[320];

	for (size_t i = 0; i < d->ncmps; i++) {
		const struct report_cmp *cmp = &d->cmps[i];
		size_t n = cmp->t.nwhy < REPORT_WHY_TOP ? cmp->t.nwhy : REPORT_WHY_TOP;

		if (cmp->a != d->baseline || cmp->b != b || !n)
			continue;
		fmt->head(out, descs[cmp->config]);
		for (size_t k = 0; k < n; k++) {
			report_why_text(&cmp->t.why[k], line, sizeof(line));
			fmt->item(out, k, line);
		}
		fmt->tail(out);
	}
}

bool report_why_answer(FILE *out, const struct stats_table *t, const char *common)
{
	const struct stats_row *h = stats_table_headline(t);
	char rest[sizeof(t->config_key)], why[320], ch[24];

	if (!h || (h->c.verdict != STATS_REGRESSION && h->c.verdict != STATS_IMPROVEMENT))
		return false;
	if (common && *common)
		job_key_without(t->config_key, common, rest, sizeof(rest));
	else
		snprintf(rest, sizeof(rest), "%s", t->config_key);
	report_fmt_pct(ch, sizeof(ch), h->c.shift_pct);
	fprintf(out, "%s %s %s (p %.2g) at %s\n", stats_verdict_name(h->c.verdict), h->metric, ch,
		h->c.p, rest[0] ? rest : "every configuration");
	if (t->nwhy) {
		report_why_text(&t->why[0], why, sizeof(why));
		fprintf(out, "  likely: %s\n", why);
	}
	return true;
}

size_t report_answers(const struct report_doc *d, const char *const *descs,
		      void (*fn)(void *ctx, size_t b, const char *line), void *ctx)
{
	char line[640], why[320], ch[24];
	size_t n = 0;

	for (size_t i = 0; i < d->ncmps; i++) {
		const struct report_cmp *cmp = &d->cmps[i];
		const struct stats_row *h = stats_table_headline(&cmp->t);
		int k;

		if (cmp->a != d->baseline || !h ||
		    (h->c.verdict != STATS_REGRESSION && h->c.verdict != STATS_IMPROVEMENT))
			continue;
		report_fmt_pct(ch, sizeof(ch), h->c.shift_pct);
		k = snprintf(line, sizeof(line), "%s %s %s (p %.2g) at %s",
			     stats_verdict_name(h->c.verdict), h->metric, ch, h->c.p,
			     descs[cmp->config]);
		if (cmp->t.nwhy && k > 0 && (size_t)k < sizeof(line)) {
			report_why_text(&cmp->t.why[0], why, sizeof(why));
			snprintf(line + k, sizeof(line) - (size_t)k, "; likely: %s", why);
		}
		fn(ctx, cmp->b, line);
		n++;
	}
	return n;
}

/* The environment entries a network change is made of: an interface's
 * qdisc, MTU or offload, a net sysctl ("client.if.eth0.qdisc",
 * "server.sysctl.net.core.rmem_max"). */
static bool env_setting(const char *entry)
{
	return (strstr(entry, ".if.") &&
		(strstr(entry, ".qdisc") || strstr(entry, ".mtu") || strstr(entry, ".offload."))) ||
	       strstr(entry, ".sysctl.net.");
}

struct env_pick {
	struct stats_why w[REPORT_WHY_ENV_MAX];
	size_t n;
};

static void pick_env(void *ctx, const char *entry, const char *a, const char *b)
{
	struct env_pick *p = ctx;
	struct stats_why *w;

	/* an entry one kernel has and the other lacks is not a setting
	 * that was changed */
	if (p->n == REPORT_WHY_ENV_MAX || !env_setting(entry) || !a || !b || !*a || !*b)
		return;
	w = &p->w[p->n++];
	memset(w, 0, sizeof(*w));
	snprintf(w->metric, sizeof(w->metric), "%s", entry);
	w->kind = STATS_WHY_SETTING;
	w->env = true;
	snprintf(w->env_a, sizeof(w->env_a), "%s", a);
	snprintf(w->env_b, sizeof(w->env_b), "%s", b);
	w->median_a = w->median_b = w->shift_pct = w->q = NAN;
	w->cost_a = w->cost_b = w->cost_pct_of_a = w->account_pct = NAN;
}

void report_why_env(struct stats_table *t, const struct base_sample *a,
		    const struct base_sample *b)
{
	struct env_pick p = { .n = 0 };
	size_t keep;

	report_env_changes(a, b, pick_env, &p);
	if (!p.n)
		return;
	keep = t->nwhy + p.n > STATS_WHY_MAX ? STATS_WHY_MAX - p.n : t->nwhy;
	memmove(t->why + p.n, t->why, keep * sizeof(*t->why));
	memcpy(t->why, p.w, p.n * sizeof(*p.w));
	t->nwhy = keep + p.n;
}
