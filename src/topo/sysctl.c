// SPDX-License-Identifier: GPL-2.0-only
/* The sysctls a job sets per label: their values before the job, set, checked and put back. */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/parse.h"
#include "topo/internal.h"

/* A sysctl file holds one short line; a vector like tcp_rmem a few words. */
#define VALUE_MAX 4096

struct topo_sysctls {
	char root[PATH_MAX];
	size_t n, cap;   /* n of cap set up */
	char **name;     /* [cap] dotted */
	char **original; /* [cap] as read before the job, blanks squeezed */
};

/* "net.core.rmem_default" -> "<root>/net/core/rmem_default" */
static int path_of(const struct topo_sysctls *t, const char *name, char *buf,
		   size_t len)
{
	int w = snprintf(buf, len, "%s/%s", t->root, name);

	if (w < 0 || (size_t)w >= len)
		return -ENAMETOOLONG;
	for (char *p = buf + strlen(t->root) + 1; *p; p++)
		if (*p == '.')
			*p = '/';
	return 0;
}

/* Runs of blanks (and the trailing newline) as one space, none at the ends:
 * the kernel writes the words of a vector apart with tabs. */
static void squeeze(char *s)
{
	char *o = s;

	for (const char *p = s; *p;) {
		if (strchr(" \t\n", *p)) {
			p += strspn(p, " \t\n");
			if (o != s && *p)
				*o++ = ' ';
			continue;
		}
		*o++ = *p++;
	}
	*o = '\0';
}

/* Whether two squeezed values say the same: word by word, as integers where
 * both words are integers ("08192" is 8192), else as text. */
static bool same_value(const char *a, const char *b)
{
	while (*a && *b) {
		size_t la = strcspn(a, " "), lb = strcspn(b, " ");
		char *ea, *eb;
		long long x, y;

		errno = 0;
		x = strtoll(a, &ea, 10);
		y = strtoll(b, &eb, 10);
		if (!errno && ea == a + la && eb == b + lb && la && lb) {
			if (x != y)
				return false;
		} else if (la != lb || strncmp(a, b, la)) {
			return false;
		}
		a += la + (a[la] == ' ');
		b += lb + (b[lb] == ' ');
	}
	return !*a && !*b;
}

static int read_value(const struct topo_sysctls *t, const char *name,
		      char *buf, size_t len, struct base_err *err)
{
	char path[PATH_MAX];
	int ret = path_of(t, name, path, sizeof(path));

	if (!ret)
		ret = topo_read_small(path, buf, len);
	if (ret == -ENOENT)
		return base_err_set(err, ret, "no sysctl %s (%s): this kernel does not have it",
				    name, path);
	if (ret)
		return base_err_set(err, ret, "cannot read sysctl %s (%s): %s", name, path,
				    strerror(-ret));
	squeeze(buf);
	return 0;
}

int topo_sysctls_new(const char *root, const char *const *names, size_t n,
		     struct topo_sysctls **out, struct base_err *err)
{
	struct topo_sysctls *t = calloc(1, sizeof(*t));
	char buf[VALUE_MAX];
	int ret = 0;

	*out = NULL;
	if (!t || (n && (!(t->name = calloc(n, sizeof(*t->name))) ||
			 !(t->original = calloc(n, sizeof(*t->original)))))) {
		ret = base_err_set(err, -ENOMEM, "out of memory");
		goto out;
	}
	t->cap = n;
	snprintf(t->root, sizeof(t->root), "%s", root ? root : "/proc/sys");
	for (size_t i = 0; i < n; i++) {
		char path[PATH_MAX];

		if ((ret = base_parse_sysctl_name(names[i], err)))
			goto out;
		for (size_t j = 0; j < i; j++)
			if (!strcmp(names[j], names[i])) {
				ret = base_err_set(err, -EINVAL, "sysctl %s is named twice",
						   names[i]);
				goto out;
			}
		if ((ret = read_value(t, names[i], buf, sizeof(buf), err)))
			goto out;
		/* refuse before the first run, not half-way (read_value made
		 * the same path already) */
		path_of(t, names[i], path, sizeof(path));
		if (access(path, W_OK)) {
			ret = base_err_set(err, -EACCES, "cannot write sysctl %s (%s): %s",
					   names[i], path, strerror(errno));
			goto out;
		}
		if (!(t->name[i] = strdup(names[i])) || !(t->original[i] = strdup(buf))) {
			ret = base_err_set(err, -ENOMEM, "out of memory");
			goto out;
		}
		t->n = i + 1;
	}
	*out = t;
	t = NULL;
out:
	topo_sysctls_free(t);
	return ret;
}

size_t topo_sysctls_count(const struct topo_sysctls *t)
{
	return t ? t->n : 0;
}

const char *topo_sysctls_name(const struct topo_sysctls *t, size_t i)
{
	return t->name[i];
}

const char *topo_sysctls_original(const struct topo_sysctls *t, size_t i)
{
	return t->original[i];
}

/* Set one sysctl unless it already says want; then read it back. */
static int set_one(const struct topo_sysctls *t, size_t i, const char *want,
		   struct base_err *err)
{
	char now[VALUE_MAX], w[BASE_SYSCTL_VALUE_MAX + 1], path[PATH_MAX];
	int ret;

	snprintf(w, sizeof(w), "%s", want);
	squeeze(w);
	if ((ret = read_value(t, t->name[i], now, sizeof(now), err)))
		return ret;
	if (same_value(now, w))
		return 0;
	if ((ret = path_of(t, t->name[i], path, sizeof(path))))
		return base_err_set(err, ret, "sysctl %s: path too long", t->name[i]);
	if ((ret = topo_write_str(path, w)))
		return base_err_set(err, ret, "cannot set sysctl %s to '%s': %s",
				    t->name[i], w, strerror(-ret));
	if ((ret = read_value(t, t->name[i], now, sizeof(now), err)))
		return ret;
	/* the kernel may clamp or round what it was given: a run under a
	 * value other than the label's would be stored as the label's */
	if (!same_value(now, w))
		return base_err_set(err, -ERANGE,
				    "sysctl %s was set to '%s' but reads back '%s'",
				    t->name[i], w, now);
	return 0;
}

int topo_sysctls_apply(struct topo_sysctls *t, const char *const *values,
		       struct base_err *err)
{
	for (size_t i = 0; i < t->n; i++) {
		int ret = set_one(t, i, values && values[i] ? values[i] : t->original[i], err);

		if (ret)
			return ret;
	}
	return 0;
}

int topo_sysctls_restore(struct topo_sysctls *t, struct base_err *err)
{
	int first = 0;

	for (size_t i = 0; t && i < t->n; i++) {
		struct base_err e = { "" };
		int ret = set_one(t, i, t->original[i], &e);

		if (ret && !first) {
			first = ret;
			base_err_set(err, ret, "%s", e.msg);
		}
	}
	return first;
}

void topo_sysctls_free(struct topo_sysctls *t)
{
	if (!t)
		return;
	for (size_t i = 0; i < t->cap && t->name && t->original; i++) {
		free(t->name[i]);
		free(t->original[i]);
	}
	free(t->name);
	free(t->original);
	free(t);
}
