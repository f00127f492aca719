// SPDX-License-Identifier: GPL-2.0-only
/* The sysctls a job sets per label: their values before the job, set, checked and put back. */
#include <dirent.h>
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
/* A journal records a job's sysctls: a few lines. */
#define JOURNAL_MAX (64 * 1024)
#define JOURNAL_PREFIX "sysctl-"

struct topo_sysctls {
	char root[PATH_MAX];
	char journal[PATH_MAX]; /* "": none kept */
	bool dirty;      /* a value written since the originals last held */
	size_t n, cap;   /* n of cap set up */
	char **name;     /* [cap] dotted */
	char **original; /* [cap] as read before the job, blanks squeezed */
};

/* "net.core.rmem_default" -> "<root>/net/core/rmem_default" */
static int path_of(const char *root, const char *name, char *buf, size_t len)
{
	int w = snprintf(buf, len, "%s/%s", root, name);

	if (w < 0 || (size_t)w >= len)
		return -ENAMETOOLONG;
	for (char *p = buf + strlen(root) + 1; *p; p++)
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

static int read_value(const char *root, const char *name, char *buf,
		      size_t len, struct base_err *err)
{
	char path[PATH_MAX];
	int ret = path_of(root, name, path, sizeof(path));

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

/* Set sysctl name under root to want unless it already says that, then
 * read it back; *wrote says whether it was written, was (may be NULL)
 * gets the value it had. */
static int put_value(const char *root, const char *name, const char *want,
		     char *was, size_t wlen, bool *wrote, struct base_err *err)
{
	char now[VALUE_MAX], w[VALUE_MAX], path[PATH_MAX];
	int ret;

	*wrote = false;
	snprintf(w, sizeof(w), "%s", want);
	squeeze(w);
	if ((ret = read_value(root, name, now, sizeof(now), err)))
		return ret;
	if (was)
		snprintf(was, wlen, "%s", now);
	if (same_value(now, w))
		return 0;
	if ((ret = path_of(root, name, path, sizeof(path))))
		return base_err_set(err, ret, "sysctl %s: path too long", name);
	*wrote = true;
	if ((ret = topo_write_str(path, w)))
		return base_err_set(err, ret, "cannot set sysctl %s to '%s': %s", name,
				    w, strerror(-ret));
	if ((ret = read_value(root, name, now, sizeof(now), err)))
		return ret;
	/* the kernel may clamp or round what it was given: a run under a
	 * value other than the label's would be stored as the label's */
	if (!same_value(now, w))
		return base_err_set(err, -ERANGE,
				    "sysctl %s was set to '%s' but reads back '%s'",
				    name, w, now);
	return 0;
}

/*
 * A journal: /run/netregress/sysctl-<pid>, the values the sysctls of that
 * process's job had before it set them, one "<name> <value>" a line ('#'
 * starts a comment). It is there while the values may differ, so that
 * `netregress topo down` can put them back after a SIGKILL, and so that
 * the next job does not take a killed one's values for the originals.
 * The comment "# pid <pid> started <ticks> clock ticks after boot" says
 * when its writer started (/proc/<pid>/stat's starttime): a process with
 * that pid and another start is not the writer, whose pid went to it
 * after it ended. A journal without that line (an older build's) is its
 * pid's while the pid runs.
 */

struct journal {
	char path[PATH_MAX];
	pid_t owner;
	bool live;
	char *text;     /* the file, NUL-terminated; cut into lines as read */
	char *pos;      /* the next line */
	unsigned int line;
};

/* "sysctl-<pid>" (1..INT_MAX, no leading zero): the pid; else 0, not ours. */
static pid_t journal_owner(const char *name)
{
	const char *s = name + strlen(JOURNAL_PREFIX);
	long long v = 0;

	if (strncmp(name, JOURNAL_PREFIX, strlen(JOURNAL_PREFIX)) || *s < '1' || *s > '9')
		return 0;
	for (; *s >= '0' && *s <= '9'; s++)
		if ((v = v * 10 + (*s - '0')) > INT_MAX)
			return 0;
	return *s ? 0 : (pid_t)v;
}

static int journal_filter(const struct dirent *d)
{
	return journal_owner(d->d_name) > 0;
}

/* The journals' names in p->journal_dir, sorted: their count (none without
 * the directory) or a negative errno. Free with journals_free(). */
static int journals_scan(const struct topo_paths *p, struct dirent ***list,
			 struct base_err *err)
{
	int n;

	*list = NULL;
	if (!p->journal_dir)
		return 0;
	n = scandir(p->journal_dir, list, journal_filter, alphasort);
	if (n < 0) {
		int e = errno;

		*list = NULL;
		return e == ENOENT ? 0 :
		       base_err_set(err, -e, "cannot read %s: %s", p->journal_dir, strerror(e));
	}
	return n;
}

static void journals_free(struct dirent **list, int n)
{
	for (int i = 0; i < n; i++)
		free(list[i]);
	free(list);
}

static int journal_load(const struct topo_paths *p, const char *name,
			struct journal *j, struct base_err *err)
{
	int ret;

	memset(j, 0, sizeof(*j));
	snprintf(j->path, sizeof(j->path), "%s/%s", p->journal_dir, name);
	j->owner = journal_owner(name);
	j->live = topo_pid_live(j->owner);
	if (!(j->text = malloc(JOURNAL_MAX)))
		return base_err_set(err, -ENOMEM, "out of memory");
	j->pos = j->text;
	if ((ret = topo_read_small(j->path, j->text, JOURNAL_MAX)) == -EFBIG)
		return base_err_set(err, ret, "sysctl journal %s is over %d KiB: not one netregress wrote",
				    j->path, JOURNAL_MAX / 1024);
	if (ret)
		return base_err_set(err, ret, "cannot read sysctl journal %s: %s", j->path,
				    strerror(-ret));
	j->live = topo_writer_live(j->owner, j->text);
	return 0;
}

/* The next sysctl the journal records: 0, 1 at its end, or -EINVAL with
 * err naming the file, the line and what was expected. */
static int journal_next(struct journal *j, const char **name, const char **value,
			struct base_err *err)
{
	for (;;) {
		char *line = j->pos, *nl, *sp;
		struct base_err e = { "" };

		if (!*line)
			return 1;
		j->line++;
		if (!(nl = strchr(line, '\n')))
			return base_err_set(err, -EINVAL, "sysctl journal %s, line %u: cut short (no newline)",
					    j->path, j->line);
		*nl = '\0';
		j->pos = nl + 1;
		if (*line == '#')
			continue;
		for (const char *c = line; *c; c++)
			if ((unsigned char)*c < 0x20 || *c == 0x7f)
				return base_err_set(err, -EINVAL,
						    "sysctl journal %s, line %u: a control character; expected '<sysctl> <value>'",
						    j->path, j->line);
		if (!(sp = strchr(line, ' ')) || !sp[1])
			return base_err_set(err, -EINVAL, "sysctl journal %s, line %u: expected '<sysctl> <value>'",
					    j->path, j->line);
		*sp = '\0';
		if (base_parse_sysctl_name(line, &e))
			return base_err_set(err, -EINVAL, "sysctl journal %s, line %u: %s",
					    j->path, j->line, e.msg);
		*name = line;
		*value = sp + 1;
		return 0;
	}
}

static void journal_release(struct journal *j)
{
	free(j->text);
	j->text = NULL;
}

/*
 * Refuse a sysctl another job holds: one still running that has it set,
 * or one that ended without putting it back (its value now is not the
 * one the journal says it had before).
 */
static int check_journals(const struct topo_paths *p, const struct topo_sysctls *t,
			  struct base_err *err)
{
	struct dirent **list;
	int n = journals_scan(p, &list, err), ret = 0;

	if (n < 0)
		return n;
	for (int k = 0; k < n && !ret; k++) {
		const char *name, *before;
		char now[VALUE_MAX];
		struct journal j;
		size_t i;

		if (journal_owner(list[k]->d_name) == getpid())
			continue;
		if ((ret = journal_load(p, list[k]->d_name, &j, err))) {
			journal_release(&j);
			break;
		}
		while (!ret && !(ret = journal_next(&j, &name, &before, err))) {
			for (i = 0; i < t->n && strcmp(t->name[i], name); i++)
				;
			if (i == t->n)
				continue;
			if (j.live) {
				ret = base_err_set(err, -EBUSY,
						   "sysctl %s is set by netregress pid %d, still running (its journal: %s)",
						   name, (int)j.owner, j.path);
				break;
			}
			if ((ret = read_value(t->root, name, now, sizeof(now), err)))
				break;
			if (!same_value(now, before))
				ret = base_err_set(err, -EBUSY,
						   "sysctl %s is '%s', not '%s' as before netregress pid %d set it; that process ended without putting it back: 'netregress topo down' does (its journal: %s)",
						   name, now, before, (int)j.owner, j.path);
		}
		if (ret == 1)
			ret = 0;
		journal_release(&j);
	}
	journals_free(list, n);
	return ret;
}

/* Write t's originals to <dir>/sysctl-<our pid>, whole or not at all. */
static int journal_write(struct topo_sysctls *t, const char *dir, struct base_err *err)
{
	char name[32];
	unsigned long long start;
	char *text = NULL;
	size_t size = 0;
	FILE *f = open_memstream(&text, &size);
	int ret;

	if (!f)
		return base_err_set(err, -ENOMEM, "out of memory");
	fprintf(f, "# the values of these sysctls before netregress pid %d set them;\n"
		   "# 'netregress topo down' puts them back once that process has ended\n",
		(int)getpid());
	if (!topo_pid_starttime(getpid(), &start))
		fprintf(f, TOPO_START_FMT "\n", (int)getpid(), start);
	for (size_t i = 0; i < t->n; i++)
		fprintf(f, "%s %s\n", t->name[i], t->original[i]);
	if (fclose(f) || !text) {
		free(text);
		return base_err_set(err, -ENOMEM, "out of memory");
	}
	snprintf(name, sizeof(name), JOURNAL_PREFIX "%d", (int)getpid());
	ret = topo_record_write(dir, name, text, "sysctl journal", err);
	free(text);
	if (!ret)
		snprintf(t->journal, sizeof(t->journal), "%s/%s", dir, name);
	return ret;
}

/*
 * topo_sysctls_new_in(), and with only_present the names p->sysctl_root
 * has no file for, or only a read-only one, are left out rather than
 * refused.
 */
static int sysctls_new(const struct topo_paths *p, const char *const *names, size_t n,
		       bool only_present, struct topo_sysctls **out, struct base_err *err)
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
	snprintf(t->root, sizeof(t->root), "%s", p->sysctl_root);
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
		/* not here, or here read-only: a view of the machine's value */
		if (only_present && !path_of(t->root, names[i], path, sizeof(path)) &&
		    access(path, W_OK) && (errno == ENOENT || errno == EACCES))
			continue;
		if ((ret = read_value(t->root, names[i], buf, sizeof(buf), err)))
			goto out;
		/* refuse before the first run, not half-way (read_value made
		 * the same path already) */
		path_of(t->root, names[i], path, sizeof(path));
		if (access(path, W_OK)) {
			ret = base_err_set(err, -EACCES, "cannot write sysctl %s (%s): %s",
					   names[i], path, strerror(errno));
			goto out;
		}
		if (!(t->name[t->n] = strdup(names[i])) ||
		    !(t->original[t->n] = strdup(buf))) {
			ret = base_err_set(err, -ENOMEM, "out of memory");
			goto out;
		}
		t->n++;
	}
	if (n && p->journal_dir &&
	    ((ret = check_journals(p, t, err)) || (ret = journal_write(t, p->journal_dir, err))))
		goto out;
	*out = t;
	t = NULL;
out:
	topo_sysctls_free(t);
	return ret;
}

int topo_sysctls_new_in(const struct topo_paths *p, const char *const *names,
			size_t n, struct topo_sysctls **out, struct base_err *err)
{
	return sysctls_new(p, names, n, false, out, err);
}

int topo_sysctls_new(const char *const *names, size_t n, struct topo_sysctls **out,
		     struct base_err *err)
{
	return topo_sysctls_new_in(&topo_default_paths, names, n, out, err);
}

int topo_sysctls_new_netns_in(const struct topo_paths *p, const char *const *names,
			      size_t n, struct topo_sysctls **out, struct base_err *err)
{
	const struct topo_paths here = { .sysctl_root = p->sysctl_root };

	return sysctls_new(&here, names, n, true, out, err);
}

int topo_sysctls_new_netns(const char *const *names, size_t n, struct topo_sysctls **out,
			   struct base_err *err)
{
	return topo_sysctls_new_netns_in(&topo_default_paths, names, n, out, err);
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

const char *topo_sysctls_journal(const struct topo_sysctls *t)
{
	return t && t->journal[0] ? t->journal : NULL;
}

static int set_one(struct topo_sysctls *t, size_t i, const char *want,
		   struct base_err *err)
{
	bool wrote;
	int ret = put_value(t->root, t->name[i], want, NULL, 0, &wrote, err);

	t->dirty |= wrote;
	return ret;
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
	if (t && !first)
		t->dirty = false;
	return first;
}

void topo_sysctls_free(struct topo_sysctls *t)
{
	if (!t)
		return;
	/* the journal stays while a value may still be the job's */
	if (t->journal[0] && !t->dirty)
		unlink(t->journal);
	for (size_t i = 0; i < t->cap && t->name && t->original; i++) {
		free(t->name[i]);
		free(t->original[i]);
	}
	free(t->name);
	free(t->original);
	free(t);
}

/* A journal's sysctl as the entry topo_list() and topo_down_all() pass on. */
static void journal_entry(const struct journal *j, const char *name,
			  const char *detail, struct topo_entry *e)
{
	e->kind = "sysctl";
	e->name = name;
	e->path = j->path;
	e->owner = j->owner;
	e->live = j->live;
	e->detail = detail;
}

int topo_journals_list(const struct topo_paths *p,
		       int (*fn)(void *ctx, const struct topo_entry *e), void *ctx,
		       struct base_err *err)
{
	struct dirent **list;
	int n = journals_scan(p, &list, err), first = 0, stop = 0;

	if (n < 0)
		return n;
	for (int k = 0; k < n && !stop; k++) {
		struct base_err e = { "" };
		const char *name, *before;
		struct journal j;
		int ret;

		if (!(ret = journal_load(p, list[k]->d_name, &j, &e)))
			while (!(ret = journal_next(&j, &name, &before, &e))) {
				char now[VALUE_MAX], detail[2 * VALUE_MAX + 64];
				struct base_err e1 = { "" };
				struct topo_entry te;

				if (read_value(p->sysctl_root, name, now, sizeof(now), &e1))
					snprintf(detail, sizeof(detail), "before '%s', now unknown: %s",
						 before, e1.msg);
				else
					snprintf(detail, sizeof(detail), "before '%s', now '%s'",
						 before, now);
				journal_entry(&j, name, detail, &te);
				if ((stop = fn(ctx, &te)))
					break;
			}
		/* a bad journal does not hide the others */
		if (ret < 0 && !first)
			first = base_err_set(err, ret, "%s", e.msg);
		journal_release(&j);
	}
	journals_free(list, n);
	return stop ? stop : first;
}

int topo_journals_down(const struct topo_paths *p, bool only_dead, pid_t owner,
		       int (*fn)(void *ctx, const struct topo_entry *e), void *ctx,
		       unsigned int *count, struct base_err *err)
{
	struct dirent **list;
	int n = journals_scan(p, &list, err), first = 0;

	*count = 0;
	if (n < 0)
		return n;
	for (int k = 0; k < n; k++) {
		struct base_err e = { "" };
		const char *name, *before;
		struct journal j;
		bool held = true; /* every value put back so far */
		int ret;

		if (owner > 0 && journal_owner(list[k]->d_name) != owner)
			continue;
		ret = journal_load(p, list[k]->d_name, &j, &e);
		/* a running job's journal is its own, read or not */
		if (only_dead && (ret ? topo_pid_live(j.owner) : j.live)) {
			journal_release(&j);
			continue;
		}
		if (!ret)
			while (!(ret = journal_next(&j, &name, &before, &e))) {
				char was[VALUE_MAX], detail[2 * VALUE_MAX + 64];
				struct base_err e1 = { "" };
				struct topo_entry te;
				bool wrote;
				int r = put_value(p->sysctl_root, name, before, was, sizeof(was),
						  &wrote, &e1);

				if (r == -ENOENT) {
					/* the kernel no longer has it (a module
					 * unloaded): no value of the job's is left */
					snprintf(detail, sizeof(detail),
						 "is gone from the kernel: nothing to put back to '%s'",
						 before);
				} else if (r) {
					/* the rest are still put back; the journal stays */
					if (!first)
						first = base_err_set(err, r, "%s (journal %s)",
								     e1.msg, j.path);
					held = false;
					continue;
				} else if (wrote) {
					snprintf(detail, sizeof(detail), "put back to '%s' from '%s'",
						 before, was);
				} else {
					snprintf(detail, sizeof(detail), "is '%s' already", before);
				}
				journal_entry(&j, name, detail, &te);
				(*count)++;
				if (fn)
					fn(ctx, &te);
			}
		if (ret < 0) {
			if (!first)
				first = base_err_set(err, ret, "%s", e.msg);
		} else if (held && unlink(j.path) && !first) {
			first = base_err_set(err, -errno, "cannot remove %s: %s", j.path,
					     strerror(errno));
		}
		journal_release(&j);
	}
	journals_free(list, n);
	return first;
}
