// SPDX-License-Identifier: GPL-2.0-only
/* The bisect log: culprit and its confirmation, the table as text and JSON. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bisect/commit.h"
#include "bisect/log.h"
#include "stats/desc.h"
#include "stats/hl.h"

/* Good or bad as git was told: the verdict, or a partial step's side. */
static bool counts_as(const struct bisect_log_step *s, enum bisect_side side)
{
	if (s->verdict == BISECT_PARTIAL)
		return !isnan(s->llr) && bisect_toward(s->verdict, s->llr) == side;
	return s->verdict == (side == BISECT_SIDE_BAD ? BISECT_BAD : BISECT_GOOD);
}

/* A step decided good (or partial, git told good) from data, with this commit. */
static const struct bisect_log_step *good_step(const struct bisect_log *l,
					       const char *commit)
{
	for (size_t i = 0; i < l->nsteps; i++)
		if (counts_as(&l->steps[i], BISECT_SIDE_GOOD) && l->steps[i].n &&
		    !strcmp(l->steps[i].commit, commit))
			return &l->steps[i];
	return NULL;
}

/* Pooled CV of the endpoints in percent, as the rule sees them (their
 * outliers set aside). */
static double noise_pct(const double *a, size_t na, const double *b, size_t nb)
{
	struct bisect_decision d;
	struct bisect_rule r;

	bisect_rule_init(&r);
	if (bisect_decide(a, na, b, nb, NULL, 0, &r, &d))
		return NAN;
	return 100 * sqrt(expm1(d.noise * d.noise));
}

static bool all_positive(const double *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!(v[i] > 0) || !isfinite(v[i]))
			return false;
	return true;
}

int bisect_log_finish(struct bisect_log *l)
{
	const struct bisect_log_step *parent = NULL;
	struct stats_hl hl;
	bool parents_known = false;
	int ret;

	if (!l || (l->nsteps && !l->steps) || (l->ngood && !l->good) ||
	    (l->nbad && !l->bad))
		return -EINVAL;
	l->median_good = l->median_bad = l->gap_pct = l->noise_pct = NAN;
	l->shift_pct = l->shift_lo_pct = l->shift_hi_pct = NAN;
	l->culprit = NULL;
	l->culprit_source = NULL;
	memset(&l->bad_step, 0, sizeof(l->bad_step));
	l->ncandidates = 0;
	l->parent_source = NULL;
	l->parent_values = NULL;
	l->nparent = 0;
	l->note[0] = '\0';
	if (l->ngood && stats_median(l->good, l->ngood, &l->median_good) == -ENOMEM)
		return -ENOMEM;
	if (l->nbad && stats_median(l->bad, l->nbad, &l->median_bad) == -ENOMEM)
		return -ENOMEM;
	if (l->ngood && l->nbad && all_positive(l->good, l->ngood) &&
	    all_positive(l->bad, l->nbad)) {
		ret = stats_shift_pct(l->good, l->ngood, l->bad, l->nbad, l->conf, &hl);
		if (ret == -ENOMEM)
			return ret;
		if (!ret)
			l->gap_pct = hl.shift;
		l->noise_pct = noise_pct(l->good, l->ngood, l->bad, l->nbad);
	}
	for (size_t i = 0; i < l->nsteps; i++) {
		struct bisect_log_step *s = &l->steps[i];

		s->median = NAN;
		s->candidate = false;
		s->toward = bisect_toward(s->verdict, s->llr);
		if (s->nvalues && stats_median(s->values, s->nvalues, &s->median) == -ENOMEM)
			return -ENOMEM;
		if (s->parent)
			parents_known = true;
		if (!counts_as(s, BISECT_SIDE_BAD) || !s->n || !s->parent)
			continue;
		if (good_step(l, s->parent) ||
		    (l->good_commit && !strcmp(l->good_commit, s->parent))) {
			s->candidate = true;
			l->ncandidates++;
			l->culprit = s;
		}
	}
	if (l->bad_commit && l->bad_parent) {
		bool is_step = false;

		parents_known = true;
		for (size_t i = 0; i < l->nsteps; i++)
			is_step |= !strcmp(l->steps[i].commit, l->bad_commit);
		if (!is_step && l->nbad &&
		    (good_step(l, l->bad_parent) ||
		     (l->good_commit && !strcmp(l->good_commit, l->bad_parent)))) {
			struct bisect_log_step *b = &l->bad_step;

			b->commit = l->bad_commit;
			b->verdict = BISECT_BAD;
			b->toward = BISECT_SIDE_BAD;
			b->llr = NAN;
			b->n = b->nvalues = l->nbad;
			b->values = l->bad;
			b->parent = l->bad_parent;
			b->median = l->median_bad;
			b->candidate = true;
			b->pos = (struct bisect_position){ 1, 1, 1 };
			l->ncandidates++;
			l->culprit = b;
		}
	}
	if (l->ncandidates != 1) {
		if (!parents_known)
			snprintf(l->note, sizeof(l->note),
				 "no parents known: pass --repo DIR to name and confirm the culprit");
		else if (!l->ncandidates)
			snprintf(l->note, sizeof(l->note),
				 "no bad commit has a parent decided good with data: measure the parent of git bisect's first bad commit with 'netregress bisect run --commit PARENT'");
		else
			snprintf(l->note, sizeof(l->note),
				 "%zu bad commits have a parent decided good: the change is not monotone, or a verdict is wrong",
				 l->ncandidates);
		l->culprit = NULL;
		return 0;
	}
	l->culprit_source = l->culprit == &l->bad_step ? "bad endpoint" : "step";
	parent = good_step(l, l->culprit->parent);
	if (parent) {
		l->parent_source = "step";
		l->parent_values = parent->values;
		l->nparent = parent->nvalues;
	} else {
		l->parent_source = "good endpoint";
		l->parent_values = l->good;
		l->nparent = l->ngood;
	}
	if (l->nparent && l->culprit->nvalues &&
	    all_positive(l->parent_values, l->nparent) &&
	    all_positive(l->culprit->values, l->culprit->nvalues)) {
		ret = stats_shift_pct(l->parent_values, l->nparent, l->culprit->values,
				      l->culprit->nvalues, l->conf, &hl);
		if (ret == -ENOMEM)
			return ret;
		if (!ret) {
			l->shift_pct = hl.shift;
			l->shift_lo_pct = hl.lo;
			l->shift_hi_pct = hl.hi;
		}
	}
	return 0;
}

static void fmt_pos(double v, char *buf, size_t len)
{
	if (isnan(v))
		snprintf(buf, len, "-");
	else if (isinf(v))
		snprintf(buf, len, "%sinf", v < 0 ? "-" : "");
	else
		snprintf(buf, len, "%.2f", v);
}

/* Each run's value, space-separated, into buf (cut with "..." if long). */
static void fmt_runs(const struct bisect_log_step *s, char *buf, size_t len)
{
	size_t off = 0;

	buf[0] = '\0';
	for (size_t j = 0; j <= s->nvalues; j++) {
		int n = j < s->nvalues ?
			snprintf(buf + off, len - off, "%s%.5g", j ? " " : "", s->values[j]) :
		s->ndisturbed ?
			snprintf(buf + off, len - off, " (%zu disturbed)", s->ndisturbed) : 0;

		if (n < 0 || (size_t)n >= len - off) {
			snprintf(buf + (len > 4 ? len - 4 : 0), 4, "...");
			return;
		}
		off += (size_t)n;
	}
}

/* The partial steps: findings, as Pinpoint lists several culprits. */
static void print_partials(FILE *f, const struct bisect_log *l)
{
	char c[BISECT_COMMIT_MAX + 1], pos[24], lo[24], hi[24];
	bool any = false;

	for (size_t i = 0; i < l->nsteps; i++) {
		const struct bisect_log_step *s = &l->steps[i];

		if (s->verdict != BISECT_PARTIAL)
			continue;
		if (!any)
			fprintf(f, "partial steps (between the sides: a second change, or a partial fix; git was told the side of the larger part):\n");
		any = true;
		bisect_commit_short(s->commit, c, sizeof(c));
		fmt_pos(s->pos.pos, pos, sizeof(pos));
		fmt_pos(s->pos.lo, lo, sizeof(lo));
		fmt_pos(s->pos.hi, hi, sizeof(hi));
		fprintf(f, "  %s  level %.5g %s, %s [%s, %s] of the way to bad, told %s\n", c,
			s->median, l->unit ? l->unit : "", pos, lo, hi,
			s->toward == BISECT_SIDE_BAD ? "bad" : "good");
	}
}

void bisect_log_text(FILE *f, const struct bisect_log *l)
{
	char c[BISECT_COMMIT_MAX + 1], p[BISECT_COMMIT_MAX + 1], runs[512];
	int width = 12, rwidth = 4;

	for (size_t i = 0; i < l->nsteps; i++) {
		bisect_commit_short(l->steps[i].commit, c, sizeof(c));
		if ((int)strlen(c) > width)
			width = (int)strlen(c);
		fmt_runs(&l->steps[i], runs, sizeof(runs));
		if ((int)strlen(runs) > rwidth)
			rwidth = (int)strlen(runs);
	}
	fprintf(f, "bisect %lld: %s, %s\n", (long long)l->id, l->metric, l->config_key);
	fprintf(f, "good %-20s n %3zu  median %.5g %s\n", l->good_label, l->ngood,
		l->median_good, l->unit ? l->unit : "");
	fprintf(f, "bad  %-20s n %3zu  median %.5g %s\n", l->bad_label, l->nbad,
		l->median_bad, l->unit ? l->unit : "");
	fprintf(f, "gap %+.1f%%, noise %.1f%% (pooled %%stddev); position: 0 good, 1 bad, [%.0f%% interval]\n\n",
		l->gap_pct, l->noise_pct, 100 * l->conf);
	fprintf(f, "%-*s  %-9s  %3s  %-10s  %-*s  %s\n", width, "commit", "verdict",
		"n", "median", rwidth, "runs", "position");
	for (size_t i = 0; i < l->nsteps; i++) {
		const struct bisect_log_step *s = &l->steps[i];
		char pos[24], lo[24], hi[24], med[24];

		bisect_commit_short(s->commit, c, sizeof(c));
		if (isnan(s->median))
			snprintf(med, sizeof(med), "-");
		else
			snprintf(med, sizeof(med), "%.5g", s->median);
		fmt_pos(s->pos.pos, pos, sizeof(pos));
		fmt_pos(s->pos.lo, lo, sizeof(lo));
		fmt_pos(s->pos.hi, hi, sizeof(hi));
		fmt_runs(s, runs, sizeof(runs));
		fprintf(f, "%-*s  %-9s  %3zu  %-10s  %-*s  %s [%s, %s]%s\n", width, c,
			bisect_verdict_name(s->verdict), s->n, med, rwidth, runs,
			pos, lo, hi, s == l->culprit ? "  <- first bad commit" : "");
	}
	if (!l->nsteps)
		fprintf(f, "(no steps yet)\n");
	fputc('\n', f);
	if (l->culprit) {
		bisect_commit_short(l->culprit->parent, p, sizeof(p));
		fprintf(f, "first bad commit: %s%s, confirmed: its parent %s was decided good with data (%s)",
			l->culprit->commit,
			l->culprit == &l->bad_step ? " (the bad endpoint)" : "", p,
			l->parent_source);
		if (!isnan(l->shift_pct))
			fprintf(f, "; %+.1f%% [%+.1f%%, %+.1f%%] against it",
				l->shift_pct, l->shift_lo_pct, l->shift_hi_pct);
		fputc('\n', f);
	} else {
		fprintf(f, "no culprit confirmed: %s\n", l->note);
	}
	print_partials(f, l);
}

/* A number, or null when it is not finite. */
static json_t *num(double v)
{
	return isfinite(v) ? json_real(v) : json_null();
}

static json_t *values_json(const double *v, size_t n)
{
	json_t *a = json_array();

	for (size_t i = 0; a && i < n; i++)
		if (json_array_append_new(a, num(v[i]))) {
			json_decref(a);
			return NULL;
		}
	return a;
}

json_t *bisect_log_json(const struct bisect_log *l)
{
	json_t *doc, *steps, *culprit = json_null();
	bool fail = false;

	steps = json_array();
	for (size_t i = 0; steps && i < l->nsteps; i++) {
		const struct bisect_log_step *s = &l->steps[i];
		json_t *o = json_pack("{s:s, s:s, s:s, s:I, s:o, s:o, s:o, s:o, s:o, s:o, s:b, s:I}",
				      "commit", s->commit,
				      "verdict", bisect_verdict_name(s->verdict),
				      "toward", s->verdict == BISECT_PARTIAL || s->verdict == BISECT_GOOD ||
							s->verdict == BISECT_BAD ?
						(s->toward == BISECT_SIDE_BAD ? "bad" : "good") : "none",
				      "n", (json_int_t)s->n,
				      "median", num(s->median),
				      "values", values_json(s->values, s->nvalues),
				      "position", num(s->pos.pos),
				      "position_lo", num(s->pos.lo),
				      "position_hi", num(s->pos.hi),
				      "parent", s->parent ? json_string(s->parent) : json_null(),
				      "candidate", s->candidate,
				      "disturbed", (json_int_t)s->ndisturbed);

		fail |= !o || json_array_append_new(steps, o);
	}
	if (l->culprit)
		culprit = json_pack("{s:s, s:s, s:s, s:s, s:b, s:o, s:o, s:o}",
				    "commit", l->culprit->commit,
				    "source", l->culprit_source,
				    "parent", l->culprit->parent,
				    "parent_source", l->parent_source,
				    "confirmed", true,
				    "shift_pct", num(l->shift_pct),
				    "shift_lo_pct", num(l->shift_lo_pct),
				    "shift_hi_pct", num(l->shift_hi_pct));
	doc = json_pack("{s:{s:I, s:s, s:s, s:s, s:s, s:s, s:I, s:o, s:o, s:I, s:o, s:o, s:o, s:o, s:f},"
			" s:o, s:o, s:s}",
			"bisect", "id", (json_int_t)l->id, "good", l->good_label,
			"bad", l->bad_label, "config_key", l->config_key,
			"metric", l->metric, "unit", l->unit ? l->unit : "",
			"good_n", (json_int_t)l->ngood,
			"good_values", values_json(l->good, l->ngood),
			"good_median", num(l->median_good),
			"bad_n", (json_int_t)l->nbad,
			"bad_values", values_json(l->bad, l->nbad),
			"bad_median", num(l->median_bad),
			"gap_pct", num(l->gap_pct), "noise_pct", num(l->noise_pct),
			"conf", l->conf,
			"steps", steps ? steps : json_null(),
			"culprit", culprit ? culprit : json_null(),
			"note", l->note);
	if (!doc || fail || !steps) {
		json_decref(doc);
		return NULL;
	}
	return doc;
}
