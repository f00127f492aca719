// SPDX-License-Identifier: GPL-2.0-only
/* Fuzz target: result documents as `import` and the store read them. */
#include <jansson.h>

#include "base/sample.h"
#include "fuzz.h"

/*
 * The input is one result document (docs/results.md), as a file given to
 * `netregress import` or a row of the store holds it. Promised
 * (base/sample.h): every field is checked, and a failure names it; a
 * document accepted once is accepted again from what base_sample_to_json()
 * makes of it, and that document then comes out the same (nothing a
 * sample holds is lost or changed on the way through the store), and no
 * string or name it holds has a control character (docs/results.md:
 * show, compare and report print them as they are).
 */

static bool json_has_control(const json_t *j)
{
	const char *k;
	json_t *v;
	size_t i;

	if (json_is_string(j))
		return base_has_control(json_string_value(j));
	if (json_is_array(j)) {
		json_array_foreach(j, i, v)
			if (json_has_control(v))
				return true;
	}
	if (json_is_object(j)) {
		json_object_foreach((json_t *)j, k, v)
			if (base_has_control(k) || json_has_control(v))
				return true;
	}
	return false;
}

static bool sample_has_control(const struct base_sample *s)
{
	size_t i;

	if (base_has_control(s->id) || base_has_control(s->label) ||
	    base_has_control(s->config_key) || base_has_control(s->server) ||
	    base_has_control(s->series_unit) || json_has_control(s->sysenv))
		return true;
	for (i = 0; i < s->nparams; i++)
		if (base_has_control(s->params[i].key) ||
		    base_has_control(s->params[i].val))
			return true;
	for (i = 0; i < s->nenv; i++)
		if (base_has_control(s->env[i].key) ||
		    base_has_control(s->env[i].val))
			return true;
	for (i = 0; i < s->nmetrics; i++)
		if (base_has_control(s->metrics[i].name) ||
		    base_has_control(s->metrics[i].unit))
			return true;
	return false;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct base_sample s, again;
	struct base_err err = { { 0 } };
	json_error_t jerr;
	json_t *doc, *j = NULL, *j2 = NULL;
	int ret;

	doc = json_loadb((const char *)data, size, 0, &jerr);
	if (!doc)
		return 0;
	base_sample_init(&s);
	base_sample_init(&again);
	ret = base_sample_from_json(doc, &s, &err);
	FUZZ_CHECK_ERR(ret, err);
	FUZZ_CHECK(ret == 0 || ret == -EINVAL || ret == -ENOMEM);
	if (ret)
		goto out;
	FUZZ_CHECK(!sample_has_control(&s));
	j = base_sample_to_json(&s);
	FUZZ_CHECK(j);
	ret = base_sample_from_json(j, &again, &err);
	if (ret)
		fprintf(stderr, "its own document was refused: %s\n", err.msg);
	FUZZ_CHECK(ret == 0);
	j2 = base_sample_to_json(&again);
	FUZZ_CHECK(j2 && json_equal(j, j2));
out:
	json_decref(j);
	json_decref(j2);
	json_decref(doc);
	base_sample_release(&s);
	base_sample_release(&again);
	return 0;
}
